//! The Hub codec: pydraughts' square numberings, variant names, position strings and moves,
//! each written and read in one place (the `hub` protocol and the match tool's Hub client
//! both use it).
//!
//! Squares: the Hub position string and moves use pydraughts' numbering, which is not PDN on
//! some 8x8 boards (see [`Layout`]); everything is converted here, straight into typed
//! positions and moves (no FEN in between), so the engine never sees pydraughts' numbers.

use crate::board::{Bitboard, Bits, Geometry};
use crate::movegen::MoveList;
use crate::notation::fen::checked_position;
use crate::notation::movetext::parse_move_in;
use crate::notation::{bit_of_number, number_of_bit};
use crate::position::{Move, Position};
use crate::rules::{Color, Rules, Variant};

/// How the Hub numbering of a variant differs from PDN (as pydraughts 0.6.7 numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Position string and moves in PDN numbering, `W`/`w` = PDN White (international,
    /// Italian, and damka's other variants).
    Pdn,
    /// English: the position string is pydraughts' internal board, turned 180 degrees (its
    /// square `n` is PDN square `squares + 1 - n`) with the colours swapped (`W`/`w` = PDN
    /// Black, the side that moves first); moves are PDN.
    Turned,
    /// Russian and Brazilian: the position string is PDN (square 1 = b8, `W` = White), but
    /// moves count from a1 = 1: the rows are flipped (PDN square 29 = a1 is move square 1).
    /// Turkish the same on its 64 squares (square 57 = a1 is move square 1).
    FlippedMoves,
}

/// A variant as the Hub `variant` parameter names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HubVariant {
    /// The name in `set-param name=variant value=NAME`.
    pub name: &'static str,
    /// damka's rules.
    pub variant: Variant,
    /// How its squares are numbered on the wire.
    pub layout: Layout,
}

/// Every variant `damka hub` offers, the default (`normal`, international) first.
pub const HUB_VARIANTS: [HubVariant; 13] = [
    HubVariant {
        name: "normal",
        variant: Variant::International,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "english",
        variant: Variant::English,
        layout: Layout::Turned,
    },
    HubVariant {
        name: "russian",
        variant: Variant::Russian,
        layout: Layout::FlippedMoves,
    },
    HubVariant {
        name: "brazilian",
        variant: Variant::Brazilian,
        layout: Layout::FlippedMoves,
    },
    HubVariant {
        name: "italian",
        variant: Variant::Italian,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "pool",
        variant: Variant::Pool,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "spanish",
        variant: Variant::Spanish,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "czech",
        variant: Variant::Czech,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "antidraughts",
        variant: Variant::Antidraughts,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "breakthrough",
        variant: Variant::Breakthrough,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "frisian",
        variant: Variant::Frisian,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "frysk",
        variant: Variant::Frysk,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "turkish",
        variant: Variant::Turkish,
        layout: Layout::FlippedMoves,
    },
];

/// Scan 3.1's names of two variants, listed after damka's own in the `variant` parameter's
/// values: draughtsnet refuses an engine whose list lacks them (docs/draughtsnet.md).
pub const SCAN_VARIANT_NAMES: [&str; 2] = ["bt", "losing"];

/// The Hub variant named `value` (also `international`, `standard`, `american`, and Scan
/// 3.1's `bt` and `losing`...).
pub fn hub_variant(value: &str) -> Option<HubVariant> {
    let lower = value.trim().to_ascii_lowercase();
    let name = match lower.as_str() {
        "international" | "standard" | "fmjd" | "10x10" => "normal",
        "american" | "checkers" => "english",
        "shashki" => "russian",
        // pydraughts' own name for the variant lidraughts calls `frysk`.
        "frysk!" => "frysk",
        // Scan 3.1's names, which draughtsnet (lidraughts' analysis client) sends.
        "bt" => "breakthrough",
        "losing" => "antidraughts",
        other => other,
    };
    HUB_VARIANTS.iter().copied().find(|v| v.name == name)
}

/// Turns an 8x8 board's square number upside down, keeping its place in the row (an
/// involution: PDN b8 = 1 <-> a1 = 29 in pydraughts' Russian/Brazilian move numbering).
fn flip_rows(number: u32, per_row: u32, rows: u32) -> u32 {
    let index = number - 1;
    (rows - 1 - index / per_row) * per_row + index % per_row + 1
}

impl Layout {
    /// The PDN square of the position string's `index`-th square (1-based).
    pub fn pos_square_to_pdn(self, index: u32, squares: u32) -> u32 {
        match self {
            Layout::Turned => squares + 1 - index,
            Layout::Pdn | Layout::FlippedMoves => index,
        }
    }

    /// True when the position string's `W`/`w` is PDN Black.
    pub fn colours_swapped(self) -> bool {
        self == Layout::Turned
    }

    /// The PDN square of a square number in a move (and back: the map is its own inverse).
    pub fn move_square_to_pdn(self, number: u32, squares: u32) -> u32 {
        match self {
            Layout::FlippedMoves if squares == 32 && (1..=32).contains(&number) => {
                flip_rows(number, 4, 8)
            }
            // Turkish: every square plays, eight to a row (pydraughts' notation 0 again).
            Layout::FlippedMoves if squares == 64 && (1..=64).contains(&number) => {
                flip_rows(number, 8, 8)
            }
            _ => number,
        }
    }
}

/// A position as Hub's `pos=` string: the side to move, then one character per square in the
/// layout's order (`w`/`b` men, `W`/`B` kings, `e` empty).
pub fn hub_position<R: Rules>(position: &Position<R>, layout: Layout) -> String {
    let squares = R::Geometry::SQUARES as u32;
    let swapped = layout.colours_swapped();
    let letter = |color: Color| {
        if (color == Color::White) != swapped {
            'W'
        } else {
            'B'
        }
    };
    let mut text = String::new();
    text.push(letter(position.side_to_move()));
    let mut cells = vec!['e'; squares as usize];
    for color in [Color::White, Color::Black] {
        for bit in Bits(position.pieces(color)) {
            let pdn = number_of_bit::<R>(bit as u8);
            // `pos_square_to_pdn` is its own inverse in every layout.
            let index = layout.pos_square_to_pdn(pdn, squares);
            let king = position.kings() & (1u64 << bit) != 0;
            let c = letter(color);
            cells[index as usize - 1] = if king { c } else { c.to_ascii_lowercase() };
        }
    }
    text.extend(cells);
    text
}

/// A move in Hub text: `from-to`, or `from x to x every captured square`, numbered for `layout`.
pub fn hub_move<R: Rules>(mv: &Move, layout: Layout) -> String {
    let squares = R::Geometry::SQUARES as u32;
    let number = |bit: u8| layout.move_square_to_pdn(number_of_bit::<R>(bit), squares);
    if mv.is_capture() {
        let mut captured: Vec<u32> = Bits(mv.captured).map(|bit| number(bit as u8)).collect();
        captured.sort_unstable();
        let mut parts = vec![number(mv.from), number(mv.to)];
        parts.extend(captured);
        parts
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("x")
    } else {
        format!("{}-{}", number(mv.from), number(mv.to))
    }
}

/// The position a Hub position string describes, checked as a FEN's is
/// ([`checked_position`]).
pub fn read_hub_position<R: Rules>(text: &str, layout: Layout) -> Result<Position<R>, String> {
    let squares = R::Geometry::SQUARES as u32;
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.len() != squares as usize + 1 {
        return Err(format!(
            "a position of this variant has {} characters, not {}",
            squares + 1,
            chars.len()
        ));
    }
    let swapped = layout.colours_swapped();
    let side = match (chars[0], swapped) {
        ('W' | 'w', false) | ('B' | 'b', true) => Color::White,
        ('W' | 'w', true) | ('B' | 'b', false) => Color::Black,
        (other, _) => return Err(format!("bad side to move '{other}'")),
    };
    // Each square's piece in the string's order, so that the first bad character is named.
    let mut cells = Vec::with_capacity(squares as usize);
    for &c in &chars[1..] {
        cells.push(match c {
            'w' => Some((true, false)),
            'W' => Some((true, true)),
            'b' => Some((false, false)),
            'B' => Some((false, true)),
            'e' | '.' | '-' => None,
            other => return Err(format!("bad square character '{other}'")),
        });
    }
    let mut pieces = [0 as Bitboard; 2];
    let mut kings: Bitboard = 0;
    for bit in Bits(R::Geometry::BOARD) {
        // `pos_square_to_pdn` is its own inverse in every layout.
        let index = layout.pos_square_to_pdn(number_of_bit::<R>(bit as u8), squares);
        let Some((hub_white, king)) = cells[index as usize - 1] else {
            continue;
        };
        let color = if hub_white != swapped {
            Color::White
        } else {
            Color::Black
        };
        pieces[color.index()] |= 1u64 << bit;
        if king {
            kings |= 1u64 << bit;
        }
    }
    checked_position(pieces, kings, side).map_err(|e| format!("bad position '{text}': {e}"))
}

/// Finds the legal move a Hub move names: `from-to`, or `from x to x captured...` (all
/// captured squares, any order); falls back to PDN landing squares (`from x landing x to`).
pub fn read_hub_move<R: Rules>(
    position: &Position<R>,
    legal: &MoveList,
    text: &str,
    layout: Layout,
) -> Result<Move, String> {
    let squares = R::Geometry::SQUARES as u32;
    let bad = || format!("bad move '{text}'");
    let mut bits = Vec::new();
    for part in text.trim().split(['-', 'x', 'X', ':']) {
        let number: u32 = part.trim().parse().map_err(|_| bad())?;
        let pdn = layout.move_square_to_pdn(number, squares);
        bits.push(bit_of_number::<R>(pdn).ok_or_else(bad)?);
    }
    if bits.len() < 2 {
        return Err(bad());
    }
    let (from, to) = (bits[0], bits[1]);
    let captured: u64 = bits[2..].iter().fold(0, |set, &bit| set | (1u64 << bit));
    let matching: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| {
            m.from == from
                && m.to == to
                && (bits.len() == 2
                    || (m.captured == captured && m.capture_count() as usize == bits.len() - 2))
        })
        .collect();
    if let [mv] = matching.as_slice() {
        return Ok(*mv);
    }
    // Not Hub's form: try PDN text (numbers converted to PDN) with the engine's reader.
    let pdn_text = bits
        .iter()
        .map(|&bit| number_of_bit::<R>(bit).to_string())
        .collect::<Vec<_>>()
        .join(if text.contains('-') { "-" } else { "x" });
    parse_move_in(position, &pdn_text, legal)
        .map_err(|e| format!("move '{text}' does not fit the position: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use crate::rules::{English, International, Italian, Russian};

    #[test]
    fn flipped_rows_are_an_involution() {
        for n in 1..=32 {
            let f = flip_rows(n, 4, 8);
            assert_eq!(flip_rows(f, 4, 8), n);
        }
        assert_eq!(flip_rows(29, 4, 8), 1); // a1
        assert_eq!(flip_rows(1, 4, 8), 29); // b8
        assert_eq!(flip_rows(21, 4, 8), 9); // a3
    }

    #[test]
    fn start_strings_read_as_start_positions() {
        let intl = format!("W{}{}{}", "b".repeat(20), "e".repeat(10), "w".repeat(20));
        assert_eq!(
            read_hub_position::<International>(&intl, Layout::Pdn),
            Ok(Position::<International>::start())
        );
        let eight = format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12));
        assert_eq!(
            read_hub_position::<English>(&eight, Layout::Turned),
            Ok(Position::<English>::start())
        );
        assert_eq!(
            read_hub_position::<Russian>(&eight, Layout::FlippedMoves),
            Ok(Position::<Russian>::start())
        );
        assert_eq!(
            read_hub_position::<Italian>(&eight, Layout::Pdn),
            Ok(Position::<Italian>::start())
        );
        assert!(read_hub_position::<English>(&intl, Layout::Turned).is_err());
    }

    #[test]
    fn position_strings_and_positions_round_trip() {
        let position = parse_fen::<English>("W:W18,K30:B3,K12").unwrap();
        for layout in [Layout::Pdn, Layout::Turned, Layout::FlippedMoves] {
            let text = hub_position(&position, layout);
            assert_eq!(read_hub_position::<English>(&text, layout), Ok(position));
        }
    }

    #[test]
    fn bad_position_strings_name_their_fault() {
        let eight = |body: &str| format!("W{body}");
        let fault = |text: &str| read_hub_position::<English>(text, Layout::Pdn).unwrap_err();
        assert_eq!(
            fault("Wee"),
            "a position of this variant has 33 characters, not 3"
        );
        assert_eq!(
            fault(&format!("X{}", "e".repeat(32))),
            "bad side to move 'X'"
        );
        assert_eq!(
            fault(&eight(&format!("{}x{}y", "e".repeat(3), "e".repeat(27)))),
            "bad square character 'x'"
        );
        // A white man on square 1, White's promotion row.
        let text = eight(&format!("w{}", "e".repeat(31)));
        assert_eq!(
            fault(&text),
            format!("bad position '{text}': a man on '1' stands on its own promotion row")
        );
    }

    #[test]
    fn hub_moves_read_and_write() {
        let start = Position::<Russian>::start();
        let legal = start.legal_moves();
        // a3-b4 is 9-13 counted from a1.
        let mv = read_hub_move(&start, &legal, "9-13", Layout::FlippedMoves).unwrap();
        assert_eq!(hub_move::<Russian>(&mv, Layout::FlippedMoves), "9-13");
        assert_eq!(number_of_bit::<Russian>(mv.from), 21);
        // International: 28x19x23 is from 28 to 19 taking 23.
        let position = parse_fen::<International>("W:W28:B23").unwrap();
        let legal = position.legal_moves();
        let mv = read_hub_move(&position, &legal, "28x19x23", Layout::Pdn).unwrap();
        assert_eq!(hub_move::<International>(&mv, Layout::Pdn), "28x19x23");
        assert!(read_hub_move(&position, &legal, "28x19x24", Layout::Pdn).is_err());
        assert!(read_hub_move(&position, &legal, "28-22", Layout::Pdn).is_err());
    }
}
