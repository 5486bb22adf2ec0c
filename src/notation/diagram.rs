//! A position drawn as plain text: the board as White sees it, with the square numbers beside it.

use super::{bit_at, number_of_bit};
use crate::board::Geometry;
use crate::position::Position;
use crate::rules::{Color, Rules};

/// The board as text: `w`/`b` men, `W`/`B` kings, `.` empty playable squares, blanks for the
/// others; the PDN number of the first square of each row on the right.
pub fn diagram<R: Rules>(position: &Position<R>) -> String {
    let size = R::Geometry::SIZE;
    let mut text = String::new();
    for row in 0..size {
        let mut first_number = None;
        text.push_str("  ");
        for col in 0..size {
            let cell = match bit_at::<R>(row, col) {
                None => ' ',
                Some(bit) => {
                    let number = number_of_bit::<R>(bit);
                    first_number = Some(first_number.map_or(number, |n: u32| n.min(number)));
                    let mask = 1u64 << bit;
                    let king = position.kings() & mask != 0;
                    if position.pieces(Color::White) & mask != 0 {
                        if king { 'W' } else { 'w' }
                    } else if position.pieces(Color::Black) & mask != 0 {
                        if king { 'B' } else { 'b' }
                    } else {
                        '.'
                    }
                }
            };
            text.push(cell);
            text.push(' ');
        }
        if let Some(number) = first_number {
            text.push_str(&format!(
                "  {number:>2}-{}",
                number + R::Geometry::PER_ROW as u32 - 1
            ));
        }
        text.push('\n');
    }
    text.push_str(&format!(
        "  {} to move\n",
        match position.side_to_move() {
            Color::White => "White",
            Color::Black => "Black",
        }
    ));
    text
}
