//! Move text: writing a move in the variant's notation and reading move text against a position.
//!
//! Written: numeric PDN (`11-15`, `22x15`), algebraic for Russian and Brazilian (`c3-d4`,
//! `c3:e5`), cells for towers (`G6-F5`). The landing squares of a capture (`4x27x38x15`) are
//! written only when another legal move shares its start and end squares.
//!
//! Read: squares in numbers, algebraic (8x8) or cells (towers), separated by `-`, `x` or `:`.
//! Extra squares between the first and the last are landing squares, in order: the complete
//! list names its route's move; a partial list (any subsequence of the landings) must fit one
//! move only. When no move reads that way, the text is tried as the Hub protocol's capture,
//! `from x to x captured...` (`28x19x23`: from 28 to 19 taking 23), captured squares in any
//! order.

use super::{parse_square, square_name};
use crate::game::Game;
use crate::movegen::MoveList;
use crate::position::{Move, Position};
use crate::rules::{MoveNotation, Rules};
use std::fmt;

/// Why a move text was rejected. Each variant names the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseMoveError {
    /// The text is not a move at all.
    Syntax {
        /// The whole text.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Well-formed, but no legal move matches it.
    Illegal {
        /// The whole text.
        text: String,
        /// Why not.
        reason: String,
    },
    /// More than one legal move matches it.
    Ambiguous {
        /// The whole text.
        text: String,
        /// The legal moves it could mean, written unambiguously.
        candidates: Vec<String>,
    },
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseMoveError::Syntax { text, reason } => {
                write!(f, "bad move '{text}': {reason}")
            }
            ParseMoveError::Illegal { text, reason } => {
                write!(f, "illegal move '{text}': {reason}")
            }
            ParseMoveError::Ambiguous { text, candidates } => write!(
                f,
                "ambiguous move '{text}': could be {}",
                candidates.join(" or ")
            ),
        }
    }
}

impl std::error::Error for ParseMoveError {}

/// Writes `mv` (legal in `position`) in the variant's notation.
pub fn write_move<R: Rules>(position: &Position<R>, mv: &Move) -> String {
    let legal = position.legal_moves();
    write_move_in::<R>(position, mv, &legal)
}

/// Writes `mv` given the position's legal moves (saves generating them again).
pub fn write_move_in<R: Rules>(position: &Position<R>, mv: &Move, legal: &MoveList) -> String {
    let ambiguous = mv.is_capture()
        && legal
            .iter()
            .any(|m| m.from == mv.from && m.to == mv.to && m.captured != mv.captured);
    let landings = if ambiguous {
        position
            .routes_of(mv)
            .into_iter()
            .next()
            .unwrap_or_else(|| vec![mv.to])
    } else {
        vec![mv.to]
    };
    write_route::<R>(mv, &landings)
}

/// Writes a move with the given landing squares (the last one is the move's end).
pub fn write_route<R: Rules>(mv: &Move, landings: &[u8]) -> String {
    let separator = match (R::NOTATION, mv.is_capture()) {
        (MoveNotation::Cells, _) | (_, false) => "-",
        (MoveNotation::Numeric, true) => "x",
        (MoveNotation::Algebraic, true) => ":",
    };
    let mut text = square_name::<R>(mv.from);
    for &bit in landings {
        text.push_str(separator);
        text.push_str(&square_name::<R>(bit));
    }
    text
}

/// Writes a move with every landing square, always unambiguous.
pub fn write_move_full<R: Rules>(position: &Position<R>, mv: &Move) -> String {
    let landings = position
        .routes_of(mv)
        .into_iter()
        .next()
        .unwrap_or_else(|| vec![mv.to]);
    write_route::<R>(mv, &landings)
}

/// Finds the legal move that `text` names in `position`.
pub fn parse_move<R: Rules>(position: &Position<R>, text: &str) -> Result<Move, ParseMoveError> {
    let legal = position.legal_moves();
    parse_move_in::<R>(position, text, &legal)
}

/// Finds the legal move that `text` names, given the position's legal moves.
pub fn parse_move_in<R: Rules>(
    position: &Position<R>,
    text: &str,
    legal: &MoveList,
) -> Result<Move, ParseMoveError> {
    let trimmed = text.trim();
    let syntax = |reason: String| ParseMoveError::Syntax {
        text: trimmed.to_string(),
        reason,
    };
    if trimmed.is_empty() {
        return Err(syntax("empty move".into()));
    }
    let tokens: Vec<&str> = trimmed.split(['-', 'x', 'X', ':']).collect();
    if tokens.len() < 2 {
        return Err(syntax(
            "expected squares separated by '-', 'x' or ':'".into(),
        ));
    }
    let mut squares = Vec::with_capacity(tokens.len());
    for token in &tokens {
        if token.is_empty() {
            return Err(syntax("a square is missing between separators".into()));
        }
        let bit = parse_square::<R>(token).map_err(|e| syntax(e.to_string()))?;
        squares.push(bit);
    }
    let illegal = |reason: String| ParseMoveError::Illegal {
        text: trimmed.to_string(),
        reason,
    };
    let from = squares[0];
    let to = *squares.last().expect("at least two squares");
    let us = position.side_to_move();
    if position.pieces(us) & (1u64 << from) == 0 {
        return Err(illegal(format!(
            "no {} piece on {}",
            us.name(),
            square_name::<R>(from)
        )));
    }
    let same_ends: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| m.from == from && m.to == to)
        .collect();
    let middle = &squares[1..squares.len() - 1];
    let matching: Vec<Move> = if same_ends.is_empty() {
        Vec::new()
    } else {
        let routes: Vec<(Move, Vec<Vec<u8>>)> = same_ends
            .iter()
            .map(|m| (*m, position.routes_of(m)))
            .collect();
        // The complete list of landing squares names its own move, even when a longer route
        // passes through the same squares (`31x13` is the one-piece capture when
        // `31x24x15x22x13` also exists).
        let exact: Vec<Move> = routes
            .iter()
            .filter(|(_, rs)| rs.iter().any(|r| r[..r.len() - 1] == *middle))
            .map(|(m, _)| *m)
            .collect();
        if !exact.is_empty() {
            exact
        } else if middle.is_empty() {
            same_ends.clone()
        } else {
            routes
                .iter()
                .filter(|(_, rs)| rs.iter().any(|r| is_subsequence(middle, &r[..r.len() - 1])))
                .map(|(m, _)| *m)
                .collect()
        }
    };
    if matching.is_empty() {
        if let Some(mv) = hub_capture(&squares, legal) {
            return Ok(mv);
        }
        let reason = if same_ends.is_empty() {
            if legal.iter().any(|m| m.is_capture()) && R::CAPTURE_COMPULSORY {
                let best = &legal.as_slice()[0];
                format!(
                    "a capture is compulsory (e.g. {})",
                    write_move_in::<R>(position, best, legal)
                )
            } else if !legal.iter().any(|m| m.from == from) {
                format!("the piece on {} cannot move", square_name::<R>(from))
            } else {
                format!(
                    "the piece on {} cannot reach {}",
                    square_name::<R>(from),
                    square_name::<R>(to)
                )
            }
        } else {
            "no capture passes through those squares, nor takes exactly those pieces".into()
        };
        return Err(illegal(reason));
    }
    match matching.len() {
        1 => Ok(matching[0]),
        _ => Err(ParseMoveError::Ambiguous {
            text: trimmed.to_string(),
            candidates: matching
                .iter()
                .map(|m| write_move_full::<R>(position, m))
                .collect(),
        }),
    }
}

/// The Hub protocol's capture text, `from x to x captured...` with every captured square in
/// any order: the legal move it names, if any.
fn hub_capture(squares: &[u8], legal: &MoveList) -> Option<Move> {
    let [from, to, captured_squares @ ..] = squares else {
        return None;
    };
    let captured: u64 = captured_squares
        .iter()
        .fold(0, |set, &bit| set | (1u64 << bit));
    if captured_squares.is_empty() || captured.count_ones() as usize != captured_squares.len() {
        return None;
    }
    legal
        .iter()
        .find(|m| m.from == *from && m.to == *to && m.captured == captured)
        .copied()
}

/// True when `needle` appears in `hay` in order (not necessarily contiguous).
fn is_subsequence(needle: &[u8], hay: &[u8]) -> bool {
    let mut rest = hay.iter();
    needle.iter().all(|n| rest.any(|h| h == n))
}

/// Games played and written in move text: the notation knows the game, never the other way
/// round.
impl<R: Rules> Game<R> {
    /// Reads a move text against the current position and plays it; on error the game is
    /// unchanged.
    pub fn play_text(&mut self, text: &str) -> Result<Move, ParseMoveError> {
        let legal = self.legal_moves();
        let mv = parse_move_in(self.position(), text, &legal)?;
        self.play(mv);
        Ok(mv)
    }

    /// The moves played so far as text, each written in its own position.
    pub fn move_texts(&self) -> Vec<String> {
        self.positions()
            .zip(self.moves())
            .map(|(before, mv)| write_move_in(before, mv, &before.legal_moves()))
            .collect()
    }
}
