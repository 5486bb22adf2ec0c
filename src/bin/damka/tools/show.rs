//! `damka show`: a position from its FEN, drawn as text or written as an SVG diagram.

use super::given_position;
use super::svg::svg;
use damka::notation::diagram::diagram;
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
    let given = (!fen.trim().eq_ignore_ascii_case("start")).then_some(fen);
    let position = match given_position::<R>(given, &format!("damka show: bad FEN '{fen}'")) {
        Ok(position) => position,
        Err(status) => return status,
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
