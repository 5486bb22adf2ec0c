//! PDN FEN: reading (with validation and specific errors) and writing positions.
//!
//! Accepted: `[side]:W[list]:B[list]` with the two lists in either order or missing, a list
//! being comma-separated squares, each optionally prefixed by `K` (king), ranges `31-50`
//! (also `K1-3`), PDN numbers always and algebraic squares on 8x8 boards (`W:Wa1,c3:Bb6,Kd8`),
//! surrounding quotes and a final `.` tolerated. Written: numbers, each list sorted.

use super::{SquareError, bit_of_number, number_of_bit, parse_square};
use crate::board::{Bitboard, Bits, Geometry};
use crate::game::Game;
use crate::position::Position;
use crate::rules::{Color, Rules};
use std::fmt;

/// Why a FEN was rejected. Each variant names the offending token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseFenError {
    /// The text is empty.
    Empty,
    /// The side to move is not `W` or `B`.
    BadSideToMove(String),
    /// A list does not start with `W` or `B`.
    BadListColor(String),
    /// The same colour's list appears twice.
    RepeatedList(char),
    /// A square token that is not a square.
    BadSquare(String),
    /// A square number off the board.
    OffBoard(String),
    /// A named square that is not playable.
    NotPlayable(String),
    /// A range whose end comes before its start.
    BadRange(String),
    /// A square given twice.
    DuplicateSquare(String),
    /// More pieces for one side than the variant's start position holds.
    TooManyPieces {
        /// The side.
        color: Color,
        /// How many were given.
        count: u32,
        /// The most allowed.
        max: u32,
    },
    /// A man standing on the row where it would have been crowned.
    ManOnPromotionRow(String),
}

impl fmt::Display for ParseFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseFenError::Empty => write!(f, "empty FEN"),
            ParseFenError::BadSideToMove(t) => {
                write!(f, "side to move must be 'W' or 'B', found '{t}'")
            }
            ParseFenError::BadListColor(t) => {
                write!(f, "piece list '{t}' must start with 'W' or 'B'")
            }
            ParseFenError::RepeatedList(c) => write!(f, "the '{c}' piece list appears twice"),
            ParseFenError::BadSquare(t) => write!(f, "'{t}' is not a square"),
            ParseFenError::OffBoard(t) => write!(f, "square '{t}' is off the board"),
            ParseFenError::NotPlayable(t) => write!(f, "'{t}' is not a playable square"),
            ParseFenError::BadRange(t) => write!(f, "range '{t}' ends before it starts"),
            ParseFenError::DuplicateSquare(t) => write!(f, "square '{t}' is given twice"),
            ParseFenError::TooManyPieces { color, count, max } => {
                write!(f, "{count} {} pieces, at most {max} allowed", color.name())
            }
            ParseFenError::ManOnPromotionRow(t) => {
                write!(f, "a man on '{t}' stands on its own promotion row")
            }
        }
    }
}

impl std::error::Error for ParseFenError {}

impl From<SquareError> for ParseFenError {
    fn from(error: SquareError) -> Self {
        match error {
            SquareError::Syntax(t) => ParseFenError::BadSquare(t),
            SquareError::OffBoard(t) => ParseFenError::OffBoard(t),
            SquareError::NotPlayable(t) => ParseFenError::NotPlayable(t),
        }
    }
}

/// Reads a PDN FEN for variant `R`.
pub fn parse_fen<R: Rules>(text: &str) -> Result<Position<R>, ParseFenError> {
    let trimmed = text
        .trim()
        .trim_matches('"')
        .trim()
        .trim_end_matches('.')
        .trim();
    if trimmed.is_empty() {
        return Err(ParseFenError::Empty);
    }
    let mut parts = trimmed.split(':');
    let side_text = parts.next().unwrap_or_default().trim();
    let side = match side_text {
        "W" | "w" => Color::White,
        "B" | "b" => Color::Black,
        other => return Err(ParseFenError::BadSideToMove(other.to_string())),
    };
    let mut pieces = [0 as Bitboard; 2];
    let mut kings: Bitboard = 0;
    let mut seen_list = [false; 2];
    // Which text named each bit, for duplicate messages.
    for part in parts {
        let part = part.trim();
        let mut chars = part.chars();
        let color = match chars.next() {
            Some('W') | Some('w') => Color::White,
            Some('B') | Some('b') => Color::Black,
            _ => return Err(ParseFenError::BadListColor(part.to_string())),
        };
        if seen_list[color.index()] {
            return Err(ParseFenError::RepeatedList(color.letter()));
        }
        seen_list[color.index()] = true;
        let list = chars.as_str().trim();
        if list.is_empty() {
            continue;
        }
        for token in list.split(',') {
            let token = token.trim();
            if token.is_empty() {
                return Err(ParseFenError::BadSquare(token.to_string()));
            }
            let (king, body) = match token.strip_prefix(['K', 'k']) {
                Some(rest) => (true, rest),
                None => (false, token),
            };
            for bit in squares_of_token::<R>(body, token)? {
                let mask = 1u64 << bit;
                if (pieces[0] | pieces[1]) & mask != 0 {
                    return Err(ParseFenError::DuplicateSquare(
                        super::square_name::<R>(bit).to_string(),
                    ));
                }
                pieces[color.index()] |= mask;
                if king {
                    kings |= mask;
                }
            }
        }
    }
    checked_position(pieces, kings, side)
}

/// The position of these pieces (`pieces` by [`Color::index`], `kings` among them), checked
/// as a FEN's are: no side with more pieces than the variant's start position holds, no man
/// on its own promotion row. Other position readers (Hub's position string) share it.
pub fn checked_position<R: Rules>(
    pieces: [Bitboard; 2],
    kings: Bitboard,
    side: Color,
) -> Result<Position<R>, ParseFenError> {
    let max = (R::START_ROWS * R::Geometry::PER_ROW) as u32;
    for color in [Color::White, Color::Black] {
        let count = pieces[color.index()].count_ones();
        if count > max {
            return Err(ParseFenError::TooManyPieces { color, count, max });
        }
        let men = pieces[color.index()] & !kings;
        if let Some(bit) = Bits(men & Position::<R>::promotion_row(color)).next() {
            return Err(ParseFenError::ManOnPromotionRow(super::square_name::<R>(
                bit as u8,
            )));
        }
    }
    Ok(Position::from_parts(pieces[0], pieces[1], kings, side))
}

/// The bits named by one token of a list: a square or a numeric range.
fn squares_of_token<R: Rules>(body: &str, token: &str) -> Result<Vec<u8>, ParseFenError> {
    if let Some((low, high)) = body.split_once('-') {
        let parse = |t: &str| -> Result<u32, ParseFenError> {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ParseFenError::BadSquare(token.to_string()));
            }
            t.parse()
                .map_err(|_| ParseFenError::OffBoard(token.to_string()))
        };
        let (low, high) = (parse(low)?, parse(high)?);
        if high < low {
            return Err(ParseFenError::BadRange(token.to_string()));
        }
        let mut bits = Vec::new();
        for number in low..=high {
            match super::bit_of_number::<R>(number) {
                Some(bit) => bits.push(bit),
                None => return Err(ParseFenError::OffBoard(number.to_string())),
            }
        }
        return Ok(bits);
    }
    Ok(vec![parse_square::<R>(body.trim())?])
}

/// Writes a position as PDN FEN with numeric squares: `W:W31,32,K40:B1,2`.
pub fn write_fen<R: Rules>(position: &Position<R>) -> String {
    write_fen_with::<R>(position, |bit| number_of_bit::<R>(bit).to_string())
}

/// A position shows itself in debug output as its FEN: `Position(W:W31,32,K40:B1,2)`.
impl<R: Rules> fmt::Debug for Position<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", write_fen(self))
    }
}

/// Writes a position as a PDN file's `FEN` tag: numeric squares, except algebraic ones
/// (`W:Wa1,c3:Bb6`) in the variants whose moves are algebraic (Russian, Brazilian), as their
/// PDN readers (pydraughts, lidraughts) expect.
pub fn write_pdn_fen<R: Rules>(position: &Position<R>) -> String {
    if R::NOTATION == crate::rules::MoveNotation::Algebraic {
        write_fen_with::<R>(position, |bit| super::algebraic_of_bit::<R>(bit))
    } else {
        write_fen(position)
    }
}

/// Writes a position with each square named by `name`, each list in square-number order.
fn write_fen_with<R: Rules>(position: &Position<R>, name: impl Fn(u8) -> String) -> String {
    let list = |color: Color| -> String {
        let mut squares: Vec<(u32, bool)> = Bits(position.pieces(color))
            .map(|bit| {
                (
                    number_of_bit::<R>(bit as u8),
                    position.kings() & (1u64 << bit) != 0,
                )
            })
            .collect();
        squares.sort_unstable();
        squares
            .iter()
            .map(|&(n, king)| {
                let square = name(bit_of_number::<R>(n).expect("a square on the board"));
                if king { format!("K{square}") } else { square }
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "{}:W{}:B{}",
        position.side_to_move().letter(),
        list(Color::White),
        list(Color::Black)
    )
}

/// Games read from FENs: the notation knows the game, never the other way round.
impl<R: Rules> Game<R> {
    /// A game from a PDN FEN.
    pub fn from_fen(fen: &str) -> Result<Self, ParseFenError> {
        parse_fen::<R>(fen).map(Self::new)
    }
}
