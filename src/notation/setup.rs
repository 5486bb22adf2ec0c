//! A game set up from text, a FEN (or the variant's start) and move texts, read into an [`AnyGame`]; and a move text read against a game's position.
//!
//! The front ends that take positions as text (the UCI dialect's `position` and `go
//! searchmoves`) read them here and hand the engine the typed game, so every error is raised
//! where the text is read.

use super::fen::{ParseFenError, parse_fen};
use super::movetext::{ParseMoveError, parse_move};
use crate::any_game::AnyGame;
use crate::game::Game;
use crate::position::{Move, Position};
use crate::rules::{Rules, Variant};
use crate::{with_game, with_variant};
use std::fmt;

/// Why a game given as text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// A bad FEN.
    Fen(ParseFenError),
    /// A bad or illegal move in the move list.
    Move {
        /// Its place in the list (0-based).
        index: usize,
        /// What is wrong with it.
        error: ParseMoveError,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Fen(error) => write!(f, "bad FEN: {error}"),
            SetupError::Move { index, error } => {
                write!(f, "move {} of the list: {error}", index + 1)
            }
        }
    }
}

impl std::error::Error for SetupError {}

/// The game of `variant` from `fen` (the variant's start position when `None`) with `moves`
/// played, each read against the position it is played in.
pub fn read_game(
    variant: Variant,
    fen: Option<&str>,
    moves: &[impl AsRef<str>],
) -> Result<AnyGame, SetupError> {
    with_variant!(variant, R => read_game_of::<R>(fen, moves).map(AnyGame::from))
}

fn read_game_of<R: Rules>(
    fen: Option<&str>,
    moves: &[impl AsRef<str>],
) -> Result<Game<R>, SetupError> {
    let start = match fen {
        None => Position::<R>::start(),
        Some(text) => parse_fen::<R>(text).map_err(SetupError::Fen)?,
    };
    let mut game = Game::new(start);
    for (index, text) in moves.iter().enumerate() {
        game.play_text(text.as_ref())
            .map_err(|error| SetupError::Move { index, error })?;
    }
    Ok(game)
}

/// The legal move `text` names in the game's current position.
pub fn read_move(game: &AnyGame, text: &str) -> Result<Move, ParseMoveError> {
    with_game!(game, game => parse_move(game.position(), text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::movetext::write_move;
    use crate::rules::English;

    #[test]
    fn a_game_reads_as_the_engine_reported_it() {
        let game = read_game(Variant::English, None, &["11-15", "23-19"]).unwrap();
        assert_eq!(game.ply(), 2);
        let english = game.game::<English>().unwrap();
        let mv = read_move(&game, "8-11").unwrap();
        assert_eq!(write_move(english.position(), &mv), "8-11");
        let empty: [&str; 0] = [];
        let from_fen = read_game(Variant::English, Some("W:W21:B1"), &empty).unwrap();
        assert_eq!(from_fen.side_to_move(), crate::rules::Color::White);
    }

    #[test]
    fn errors_name_the_fen_or_the_move() {
        let empty: [&str; 0] = [];
        let fen = read_game(Variant::English, Some("X:W21:B1"), &empty).unwrap_err();
        assert_eq!(
            fen.to_string(),
            "bad FEN: side to move must be 'W' or 'B', found 'X'"
        );
        let mv = read_game(Variant::English, None, &["11-15", "11-15"]).unwrap_err();
        assert!(matches!(mv, SetupError::Move { index: 1, .. }), "{mv:?}");
        assert!(mv.to_string().starts_with("move 2 of the list: "), "{mv}");
    }
}
