//! Square names: PDN numbers, algebraic squares and towers cells, per variant.
//!
//! Internally squares are bits of the ghost layout, numbered in the standard colouring (the
//! top-left corner is not playable). Italian and Spanish boards are mirrored (the top-left
//! corner is playable and is square 1), so their numbers are the standard ones with each row
//! reversed; the rules are symmetric, so the generator never needs to know.

pub mod diagram;
pub mod fen;
pub mod hub;
pub mod movetext;
pub mod pdn;
pub mod setup;
pub mod suite;

use crate::board::Geometry;
use crate::rules::Rules;

/// The internal 0-based square index of a written square number (1-based), or `None` when the
/// number is off the board.
pub fn index_of_number<R: Rules>(number: u32) -> Option<usize> {
    let squares = R::Geometry::SQUARES as u32;
    if number == 0 || number > squares {
        return None;
    }
    let written = (number - 1) as usize;
    Some(if R::MIRRORED {
        mirror_index::<R>(written)
    } else {
        written
    })
}

/// Reverses the order of squares within a row: the map between a mirrored board's numbers
/// and the standard layout (its own inverse).
fn mirror_index<R: Rules>(index: usize) -> usize {
    let per_row = R::Geometry::PER_ROW;
    let (row, col) = (index / per_row, index % per_row);
    row * per_row + (per_row - 1 - col)
}

/// The written square number (1-based) of an internal bit.
pub fn number_of_bit<R: Rules>(bit: u8) -> u32 {
    let index = R::Geometry::SQUARE_OF[bit as usize] as usize;
    let written = if R::MIRRORED {
        mirror_index::<R>(index)
    } else {
        index
    };
    written as u32 + 1
}

/// The bit of a written square number.
pub fn bit_of_number<R: Rules>(number: u32) -> Option<u8> {
    index_of_number::<R>(number).map(|index| R::Geometry::BIT_OF[index])
}

pub use crate::rules::physical_row_col;

/// The bit at a physical row and column, if that square is playable.
pub fn bit_at<R: Rules>(row: usize, col: usize) -> Option<u8> {
    let size = R::Geometry::SIZE;
    if row >= size || col >= size {
        return None;
    }
    let internal_col = if R::MIRRORED { size - 1 - col } else { col };
    if R::Geometry::PER_ROW == size {
        // Every square plays (Turkish).
        return Some(R::Geometry::BIT_OF[row * size + internal_col]);
    }
    let playable_parity = usize::from(row.is_multiple_of(2));
    if internal_col % 2 != playable_parity {
        return None;
    }
    let index = row * R::Geometry::PER_ROW + internal_col / 2;
    Some(R::Geometry::BIT_OF[index])
}

/// The algebraic name of a bit (`a1` at White's near left): `c3`.
pub fn algebraic_of_bit<R: Rules>(bit: u8) -> String {
    let (row, col) = physical_row_col::<R>(bit);
    let size = R::Geometry::SIZE;
    format!("{}{}", (b'a' + col as u8) as char, size - row)
}

/// The bit named by an algebraic square (`c3`, case-insensitive), if it is playable.
pub fn bit_of_algebraic<R: Rules>(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    if bytes.len() < 2 || !bytes[0].is_ascii_alphabetic() {
        return None;
    }
    let col = bytes[0].to_ascii_lowercase().checked_sub(b'a')? as usize;
    let rank: usize = text[1..].parse().ok()?;
    let size = R::Geometry::SIZE;
    if rank == 0 || rank > size {
        return None;
    }
    bit_at::<R>(size - rank, col)
}

/// The towers cell of a bit: column letter A-H, row digit 1-8 counted from the top (`G6`).
pub fn cell_of_bit<R: Rules>(bit: u8) -> String {
    let (row, col) = physical_row_col::<R>(bit);
    format!("{}{}", (b'A' + col as u8) as char, row + 1)
}

/// The bit of a towers cell (`G6`, case-insensitive), if it is playable.
pub fn bit_of_cell<R: Rules>(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    if bytes.len() != 2 || !bytes[0].is_ascii_alphabetic() || !bytes[1].is_ascii_digit() {
        return None;
    }
    let col = bytes[0].to_ascii_uppercase().checked_sub(b'A')? as usize;
    let row = bytes[1].checked_sub(b'1')? as usize;
    bit_at::<R>(row, col)
}

/// How a square is written in a variant's own move notation.
pub fn square_name<R: Rules>(bit: u8) -> String {
    match R::NOTATION {
        crate::rules::MoveNotation::Numeric => number_of_bit::<R>(bit).to_string(),
        crate::rules::MoveNotation::Algebraic => algebraic_of_bit::<R>(bit),
        crate::rules::MoveNotation::Cells => cell_of_bit::<R>(bit),
    }
}

/// Reads a square in any notation the variant accepts: a PDN number always, an algebraic
/// square on 8x8 boards (not towers, whose cells count rows from the top), a cell in towers.
pub fn parse_square<R: Rules>(text: &str) -> Result<u8, SquareError> {
    if text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() {
        let number: u32 = text
            .parse()
            .map_err(|_| SquareError::OffBoard(text.into()))?;
        return bit_of_number::<R>(number).ok_or_else(|| SquareError::OffBoard(text.into()));
    }
    let looks_named = text.len() >= 2
        && text.as_bytes()[0].is_ascii_alphabetic()
        && text[1..].bytes().all(|b| b.is_ascii_digit());
    if !looks_named {
        return Err(SquareError::Syntax(text.into()));
    }
    let found = match R::NOTATION {
        crate::rules::MoveNotation::Cells => bit_of_cell::<R>(text),
        _ if R::Geometry::SIZE == 8 => bit_of_algebraic::<R>(text),
        _ => return Err(SquareError::Syntax(text.into())),
    };
    found.ok_or_else(|| SquareError::NotPlayable(text.into()))
}

/// Why a square could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SquareError {
    /// Not a square in any notation.
    Syntax(String),
    /// A number outside 1..=squares.
    OffBoard(String),
    /// A named square that is off the board or not a playable square.
    NotPlayable(String),
}

impl std::fmt::Display for SquareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SquareError::Syntax(t) => write!(f, "'{t}' is not a square"),
            SquareError::OffBoard(t) => write!(f, "square '{t}' is off the board"),
            SquareError::NotPlayable(t) => write!(f, "'{t}' is not a playable square"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, Italian, Russian, Towers};

    /// Each `(number, name)`: PDN square `number` of `R` has the algebraic `name`, and back.
    fn check_algebraic<R: Rules>(names: &[(u32, &str)]) {
        for &(number, name) in names {
            let bit = bit_of_number::<R>(number).unwrap();
            assert_eq!(algebraic_of_bit::<R>(bit), name, "square {number}");
            assert_eq!(bit_of_algebraic::<R>(name), Some(bit), "{name}");
        }
    }

    #[test]
    fn algebraic_corners_8x8() {
        // PDN 8x8: square 1 is b8, 4 is h8, 29 is a1, 32 is g1.
        check_algebraic::<Russian>(&[(1, "b8"), (4, "h8"), (29, "a1"), (32, "g1"), (22, "c3")]);
        assert_eq!(bit_of_algebraic::<Russian>("a2"), None);
    }

    #[test]
    fn mirrored_board_square_one_is_the_corner() {
        check_algebraic::<Italian>(&[(1, "a8"), (32, "h1")]);
    }

    #[test]
    fn towers_cells_count_rows_from_the_top() {
        assert_eq!(
            cell_of_bit::<Towers>(bit_of_number::<Towers>(1).unwrap()),
            "B1"
        );
        assert_eq!(bit_of_cell::<Towers>("G6"), bit_at::<Towers>(5, 6));
        assert_eq!(bit_of_cell::<Towers>("A1"), None);
    }

    #[test]
    fn turkish_squares_cover_the_whole_board() {
        use crate::rules::Turkish;
        // Square 1 is a8, 8 is h8, 57 is a1, 64 is h1 (pydraughts' numbering).
        check_algebraic::<Turkish>(&[(1, "a8"), (8, "h8"), (9, "a7"), (57, "a1"), (64, "h1")]);
    }

    #[test]
    fn numbers_round_trip() {
        for n in 1..=50 {
            let bit = bit_of_number::<International>(n).unwrap();
            assert_eq!(number_of_bit::<International>(bit), n);
        }
        for n in 1..=32 {
            assert_eq!(
                number_of_bit::<Italian>(bit_of_number::<Italian>(n).unwrap()),
                n
            );
            assert_eq!(
                number_of_bit::<English>(bit_of_number::<English>(n).unwrap()),
                n
            );
        }
        assert_eq!(bit_of_number::<English>(33), None);
        assert_eq!(bit_of_number::<English>(0), None);
    }
}
