//! `damka analyze`: searches each position of a test suite and says whether the engine found the expected move.
//!
//! One position a line, read by `damka::notation::suite` (see docs/tools.md). A malformed
//! line is reported with its number and counted as unsolved; it never stops the
//! run.

use super::limit::Limit;
use super::play::{score_text, think};
use damka::AnyGame;
use damka::engine::Engine;
use damka::game::Game;
use damka::notation::movetext::write_move_in;
use damka::notation::suite::parse_line;
use damka::position::Move;
use damka::rules::{Rules, Variant};
use damka::with_variant;
use std::io::Write;
use std::path::Path;

/// The tally of a suite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Positions whose expected move was found.
    pub solved: usize,
    /// Positions, malformed lines included.
    pub total: usize,
    /// Lines that could not be read.
    pub malformed: usize,
}

/// Runs `damka analyze`: returns the exit code (2 when the file cannot be read; 1 with
/// `strict` when not everything was solved; 0 otherwise).
pub fn run(path: &Path, variant: Variant, limit: Limit, strict: bool) -> i32 {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("damka analyze: cannot read {}: {error}", path.display());
            return 2;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let stdout = std::io::stdout();
    let tally = analyze(&text, variant, limit, &mut stdout.lock());
    if strict && tally.solved < tally.total {
        1
    } else {
        0
    }
}

/// Searches every position of a suite's text, writing one line per position and the
/// summary `SOLVED/TOTAL solved` last.
pub fn analyze(text: &str, variant: Variant, limit: Limit, out: &mut dyn Write) -> Tally {
    with_variant!(variant, R => analyze_in::<R>(text, limit, out))
}

fn analyze_in<R: Rules>(text: &str, limit: Limit, out: &mut dyn Write) -> Tally {
    let (mut engine, events) = Engine::new();
    engine
        .set_variant(R::VARIANT)
        .expect("a new engine is not searching");
    // A test position is solved by the search, never looked up in a book.
    engine
        .set_option("Book", "false")
        .expect("Book is an option");
    let mut tally = Tally::default();
    for (index, line) in text.lines().enumerate() {
        let case = match parse_line::<R>(index + 1, line) {
            Ok(None) => continue,
            Ok(Some(case)) => case,
            Err(reason) => {
                tally.total += 1;
                tally.malformed += 1;
                let _ = writeln!(out, "line {}: malformed: {reason}", index + 1);
                continue;
            }
        };
        tally.total += 1;
        let game = AnyGame::from(Game::new(case.position));
        let ready = engine.new_game().is_ok() && engine.set_position(game).is_ok();
        let thought = if ready {
            think(&mut engine, &events, limit)
        } else {
            Default::default()
        };
        let legal = case.position.legal_moves();
        let chosen = thought.best;
        let solved = chosen.is_some_and(|mv| {
            (case.best.is_empty() || case.best.contains(&mv)) && !case.avoid.contains(&mv)
        });
        if solved {
            tally.solved += 1;
        }
        let write = |moves: &[Move]| -> String {
            moves
                .iter()
                .map(|mv| write_move_in(&case.position, mv, &legal))
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut expected = Vec::new();
        if !case.best.is_empty() {
            expected.push(format!("bm {}", write(&case.best)));
        }
        if !case.avoid.is_empty() {
            expected.push(format!("am {}", write(&case.avoid)));
        }
        let found = chosen.map_or_else(|| "(none)".to_string(), |mv| write(&[mv]));
        let detail = thought.info.map_or_else(String::new, |info| {
            format!(", depth {}, {}", info.depth, score_text(info.score))
        });
        let _ = writeln!(
            out,
            "{} {}: played {found} ({}{detail})",
            if solved { "solved  " } else { "unsolved" },
            case.id,
            expected.join("; "),
        );
    }
    let malformed = if tally.malformed > 0 {
        format!(" ({} malformed)", tally.malformed)
    } else {
        String::new()
    };
    let _ = writeln!(out, "{}/{} solved{malformed}", tally.solved, tally.total);
    let _ = out.flush();
    tally
}
