//! Commands for people rather than GUIs: playing at the terminal, test-position suites and diagrams.

pub mod analyze;
pub mod book;
pub mod egtb;
pub mod egtb_convert;
pub mod limit;
pub mod matches;
pub mod play;
pub mod sha256;
pub mod show;
pub mod svg;
pub mod training_data;
pub mod tune;
pub mod tune_endings;
pub mod tune_fit;
pub mod tune_patterns;
pub mod tune_score;

use damka::notation::fen::parse_fen;
use damka::position::Position;
use damka::rules::Rules;

/// The position a command was given: the start position for `None`, else the FEN read. A
/// FEN that cannot be read is reported on stderr as `{bad_fen}: {why}` and gives the
/// command's exit status, 2.
pub fn given_position<R: Rules>(fen: Option<&str>, bad_fen: &str) -> Result<Position<R>, i32> {
    match fen {
        None => Ok(Position::start()),
        Some(text) => parse_fen::<R>(text).map_err(|error| {
            eprintln!("{bad_fen}: {error}");
            2
        }),
    }
}
