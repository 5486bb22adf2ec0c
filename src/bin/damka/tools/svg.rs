//! A position as an SVG diagram: squares, pieces, crowned kings, square numbers and the side to move.

use damka::board::Geometry;
use damka::notation::{bit_at, number_of_bit};
use damka::position::Position;
use damka::rules::{Color, MoveNotation, Rules};
use std::fmt::Write;

/// Side of one square, in SVG user units.
const SQUARE: usize = 50;
/// Room around the board for coordinates.
const MARGIN: usize = 24;
/// Room under the board for the side to move.
const FOOTER: usize = 36;

const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";

/// The position as a standalone SVG document, seen from White's side. Every piece is a
/// `circle` of class `piece white man` (or `black`, `king`); a king carries a second circle
/// of class `crown`. Dark squares show their PDN number; algebraic and towers variants also get
/// their coordinates on the edges.
pub fn svg<R: Rules>(position: &Position<R>) -> String {
    let size = R::Geometry::SIZE;
    let board = size * SQUARE;
    let width = board + 2 * MARGIN;
    let height = board + 2 * MARGIN + FOOTER;
    let mut out = String::new();
    let _ = writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        out,
        "<title>{} draughts, {} to move</title>",
        R::VARIANT,
        position.side_to_move().name()
    );
    let _ = writeln!(
        out,
        r##"<rect x="{m}" y="{m}" width="{board}" height="{board}" fill="{LIGHT}" stroke="#333" stroke-width="2"/>"##,
        m = MARGIN
    );
    for row in 0..size {
        for col in 0..size {
            let Some(bit) = bit_at::<R>(row, col) else {
                continue;
            };
            let (x, y) = (MARGIN + col * SQUARE, MARGIN + row * SQUARE);
            let _ = writeln!(
                out,
                r#"<rect class="square" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{DARK}"/>"#
            );
            let _ = writeln!(
                out,
                r##"<text class="number" x="{}" y="{}" font-size="11" fill="#f8f0e0">{}</text>"##,
                x + 3,
                y + 12,
                number_of_bit::<R>(bit)
            );
            let mask = 1u64 << bit;
            let color = if position.pieces(Color::White) & mask != 0 {
                Color::White
            } else if position.pieces(Color::Black) & mask != 0 {
                Color::Black
            } else {
                continue;
            };
            let king = position.kings() & mask != 0;
            let (fill, stroke, mark) = match color {
                Color::White => ("#fbfbf5", "#333", "#b8860b"),
                Color::Black => ("#2b2b2b", "#000", "#ffd700"),
            };
            let (cx, cy) = (x + SQUARE / 2, y + SQUARE / 2 + 2);
            let _ = writeln!(
                out,
                r#"<circle class="piece {} {}" cx="{cx}" cy="{cy}" r="19" fill="{fill}" stroke="{stroke}" stroke-width="2"/>"#,
                color.name().to_ascii_lowercase(),
                if king { "king" } else { "man" }
            );
            if king {
                let _ = writeln!(
                    out,
                    r#"<circle class="crown" cx="{cx}" cy="{cy}" r="10" fill="none" stroke="{mark}" stroke-width="4"/>"#
                );
            }
        }
    }
    coordinates::<R>(&mut out);
    let footer_y = MARGIN + board + FOOTER / 2 + 6;
    let (fill, stroke) = match position.side_to_move() {
        Color::White => ("#fbfbf5", "#333"),
        Color::Black => ("#2b2b2b", "#000"),
    };
    let _ = writeln!(
        out,
        r#"<circle class="to-move" cx="{}" cy="{}" r="8" fill="{fill}" stroke="{stroke}" stroke-width="2"/>"#,
        MARGIN + 8,
        footer_y - 5
    );
    let _ = writeln!(
        out,
        r##"<text class="side-to-move" x="{}" y="{footer_y}" font-size="16" fill="#222">{} to move</text>"##,
        MARGIN + 24,
        match position.side_to_move() {
            Color::White => "White",
            Color::Black => "Black",
        }
    );
    out.push_str("</svg>\n");
    out
}

/// File letters and rank numbers on the edges, for variants that write squares that way.
fn coordinates<R: Rules>(out: &mut String) {
    let size = R::Geometry::SIZE;
    let (upper, rank_of): (bool, fn(usize, usize) -> usize) = match R::NOTATION {
        MoveNotation::Numeric => return,
        MoveNotation::Algebraic => (false, |size, row| size - row),
        MoveNotation::Cells => (true, |_, row| row + 1),
    };
    for col in 0..size {
        let letter = (if upper { b'A' } else { b'a' } + col as u8) as char;
        let _ = writeln!(
            out,
            r##"<text class="file" x="{}" y="{}" font-size="13" text-anchor="middle" fill="#222">{letter}</text>"##,
            MARGIN + col * SQUARE + SQUARE / 2,
            MARGIN + size * SQUARE + 16
        );
    }
    for row in 0..size {
        let _ = writeln!(
            out,
            r##"<text class="rank" x="{}" y="{}" font-size="13" text-anchor="middle" fill="#222">{}</text>"##,
            MARGIN / 2,
            MARGIN + row * SQUARE + SQUARE / 2 + 5,
            rank_of(size, row)
        );
    }
}
