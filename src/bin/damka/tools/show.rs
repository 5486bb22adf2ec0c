//! `damka show`: a position from its FEN, drawn as text or written as an SVG diagram.

use super::svg::svg;
use damka::notation::diagram::diagram;
use damka::notation::fen::parse_fen;
use damka::position::Position;
use damka::rules::{Rules, Variant};
use damka::with_variant;
use std::io::Write;
use std::path::Path;

/// Runs `damka show`: the text diagram on stdout, or the SVG written to `svg_path` (`-`:
/// stdout). `fen` may be `start`. Returns the exit code: 2 for a bad FEN or an unwritable
/// file.
pub fn run(fen: &str, variant: Variant, svg_path: Option<&Path>) -> i32 {
    with_variant!(variant, R => show::<R>(fen, svg_path))
}

fn show<R: Rules>(fen: &str, svg_path: Option<&Path>) -> i32 {
    let position = if fen.trim().eq_ignore_ascii_case("start") {
        Position::<R>::start()
    } else {
        match parse_fen::<R>(fen) {
            Ok(position) => position,
            Err(error) => {
                eprintln!("damka show: bad FEN '{fen}': {error}");
                return 2;
            }
        }
    };
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    match svg_path {
        None => {
            let _ = stdout.write_all(diagram(&position).as_bytes());
            0
        }
        Some(path) if path == Path::new("-") => {
            let _ = stdout.write_all(svg(&position).as_bytes());
            0
        }
        Some(path) => match std::fs::write(path, svg(&position)) {
            Ok(()) => 0,
            Err(error) => {
                eprintln!("damka show: cannot write {}: {error}", path.display());
                2
            }
        },
    }
}
