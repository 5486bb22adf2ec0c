//! Test-position suites: one position a line, `FEN; bm MOVE[,MOVE]; am MOVE[,MOVE]; id NAME`, read and checked against the position's legal moves.
//!
//! The format is EPD's, with PDN FEN and the variant's move text (docs/tools.md); `damka
//! analyze` runs such suites.

use super::fen::parse_fen;
use super::movetext::parse_move_in;
use crate::position::{Move, Position};
use crate::rules::Rules;

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
