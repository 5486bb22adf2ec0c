//! `damka analyze`: searches each position of a test suite and says whether the engine found the expected move.
//!
//! One position a line: `FEN; bm MOVE[,MOVE]; am MOVE[,MOVE]; id NAME` (see docs/tools.md).
//! A malformed line is reported with its number and counted as unsolved; it never stops the
//! run.

use super::limit::Limit;
use super::play::{score_text, think};
use crate::engine::Engine;
use crate::notation::fen::parse_fen;
use crate::notation::movetext::{parse_move_in, write_move_in};
use crate::position::{Move, Position};
use crate::rules::{Rules, Variant};
use crate::with_variant;
use std::io::Write;
use std::path::Path;

/// One test position, read and checked against its own legal moves.
#[derive(Clone, Debug)]
pub struct TestCase<R: Rules> {
    /// The line of the file (1-based).
    pub line: usize,
    /// The name (`id`), or `line N` when it has none.
    pub id: String,
    /// The position.
    pub position: Position<R>,
    /// Best moves: one of them must be chosen (any move, when empty).
    pub best: Vec<Move>,
    /// Moves to avoid: none of them may be chosen.
    pub avoid: Vec<Move>,
}

/// Reads one line of a suite: `Ok(None)` for a blank line or a `#` comment, an error text
/// for a malformed line.
pub fn parse_line<R: Rules>(line: usize, text: &str) -> Result<Option<TestCase<R>>, String> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let mut fields = text.split(';');
    let fen = fields.next().unwrap_or("").trim();
    let position = parse_fen::<R>(fen).map_err(|e| format!("bad FEN '{fen}': {e}"))?;
    let legal = position.legal_moves();
    if legal.is_empty() {
        return Err(format!("the side to move has no legal move in '{fen}'"));
    }
    let mut case = TestCase {
        line,
        id: format!("line {line}"),
        position,
        best: Vec::new(),
        avoid: Vec::new(),
    };
    for field in fields.map(str::trim).filter(|f| !f.is_empty()) {
        let (operation, value) = match field.split_once(char::is_whitespace) {
            Some((operation, value)) => (operation, value.trim()),
            None => (field, ""),
        };
        let moves = |value: &str| -> Result<Vec<Move>, String> {
            let texts: Vec<&str> = value
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .collect();
            if texts.is_empty() {
                return Err(format!("'{operation}' names no move"));
            }
            texts
                .iter()
                .map(|t| parse_move_in(&position, t, &legal).map_err(|e| e.to_string()))
                .collect()
        };
        match operation {
            "bm" => case.best.extend(moves(value)?),
            "am" => case.avoid.extend(moves(value)?),
            "id" if value.is_empty() => return Err("'id' without a name".to_string()),
            "id" => case.id = value.trim_matches('"').to_string(),
            // EPD's comment operations.
            comment if comment.len() == 2 && comment.starts_with('c') => {}
            other => {
                return Err(format!(
                    "unknown operation '{other}' (expected bm, am, id or c0-c9)"
                ));
            }
        }
    }
    if case.best.is_empty() && case.avoid.is_empty() {
        return Err("neither 'bm' nor 'am' is given".to_string());
    }
    Ok(Some(case))
}

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
        let fen = crate::notation::fen::write_fen(&case.position);
        let ready = engine.new_game().is_ok() && engine.set_position(Some(&fen), &[]).is_ok();
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
