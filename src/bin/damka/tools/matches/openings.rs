//! Openings of a match: FENs or PDN games from a file, or random balloted openings from the start.

use damka::game::Game;
use damka::notation::fen::parse_fen;
use damka::position::{Move, Position};
use damka::random::SplitMix;
use damka::rules::Rules;

/// Where a game starts: a position and the moves already played from it (both go into the
/// PDN and to the engines, so the game's history is complete).
#[derive(Clone, Debug)]
pub struct Opening<R: Rules> {
    /// The start position.
    pub start: Position<R>,
    /// The opening moves.
    pub moves: Vec<Move>,
}

impl<R: Rules> Opening<R> {
    /// The game after the opening.
    pub fn game(&self) -> Game<R> {
        let mut game = Game::new(self.start);
        for mv in &self.moves {
            game.play(*mv);
        }
        game
    }
}

/// `count` openings of `plies` random legal plies from the start position, each different
/// (as long as enough exist) and none already over.
pub fn balloted<R: Rules>(count: usize, plies: usize, seed: u64) -> Vec<Opening<R>> {
    let mut random = SplitMix(seed);
    let mut openings: Vec<Opening<R>> = Vec::with_capacity(count);
    let mut seen = std::collections::HashSet::new();
    let mut attempts = 0;
    while openings.len() < count {
        attempts += 1;
        let mut game = Game::<R>::default();
        let mut moves = Vec::with_capacity(plies);
        while moves.len() < plies && game.outcome().is_none() {
            let legal = game.legal_moves();
            let mv = legal.as_slice()[random.below(legal.len())];
            game.play(mv);
            moves.push(mv);
        }
        if game.outcome().is_some() {
            continue;
        }
        // After many repeats the tree is small: accept duplicates rather than loop forever.
        if seen.insert(game.position().hash()) || attempts > 100 * count {
            openings.push(Opening {
                start: Position::start(),
                moves,
            });
        }
    }
    openings
}

/// Reads an openings file: one FEN a line (blank lines and `#` comments skipped), or PDN
/// games whose moves (all, or the first `plies`) are the openings.
pub fn load<R: Rules>(text: &str, plies: Option<usize>) -> Result<Vec<Opening<R>>, String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    // A file of FENs starts with a side to move and a colon (`W:W31-50:B1-20`).
    let looks_like_fen = |line: &str| {
        let mut chars = line.trim_matches('"').chars();
        matches!(chars.next(), Some('W' | 'w' | 'B' | 'b')) && chars.next() == Some(':')
    };
    let openings = if lines.first().is_some_and(|l| looks_like_fen(l)) {
        let mut openings = Vec::with_capacity(lines.len());
        for (index, line) in lines.iter().enumerate() {
            let start =
                parse_fen::<R>(line).map_err(|e| format!("FEN {} ('{line}'): {e}", index + 1))?;
            openings.push(Opening {
                start,
                moves: Vec::new(),
            });
        }
        openings
    } else {
        read_pdn::<R>(text, plies)?
    };
    if openings.is_empty() {
        return Err("no openings in the file (expected FENs, one a line, or PDN games)".into());
    }
    for (index, opening) in openings.iter().enumerate() {
        if opening.game().outcome().is_some() {
            return Err(format!("opening {} is already over", index + 1));
        }
    }
    Ok(openings)
}

/// The games of a PDN text: each its `FEN` tag (or the start) and its moves.
fn read_pdn<R: Rules>(text: &str, plies: Option<usize>) -> Result<Vec<Opening<R>>, String> {
    let mut openings = Vec::new();
    let mut fen: Option<String> = None;
    let mut tokens: Vec<String> = Vec::new();
    let mut in_moves = false;
    let finish = |fen: &mut Option<String>,
                  tokens: &mut Vec<String>,
                  openings: &mut Vec<Opening<R>>|
     -> Result<(), String> {
        let number = openings.len() + 1;
        let start = match fen.take() {
            Some(f) => parse_fen::<R>(&f).map_err(|e| format!("game {number}: bad FEN: {e}"))?,
            None => Position::start(),
        };
        let mut game = Game::new(start);
        for token in tokens.drain(..) {
            if plies.is_some_and(|p| game.ply() >= p) {
                break;
            }
            game.play_text(&token)
                .map_err(|e| format!("game {number}: move {}: {e}", game.ply() + 1))?;
        }
        openings.push(Opening {
            start,
            moves: game.moves().copied().collect(),
        });
        Ok(())
    };
    // Comments `{...}` and `(...)` variations are dropped before reading.
    let mut plain = String::with_capacity(text.len());
    let mut depth_brace = 0;
    let mut depth_paren = 0;
    for c in text.chars() {
        match c {
            '{' => depth_brace += 1,
            '}' if depth_brace > 0 => depth_brace -= 1,
            '(' if depth_brace == 0 => depth_paren += 1,
            ')' if depth_brace == 0 && depth_paren > 0 => depth_paren -= 1,
            _ if depth_brace == 0 && depth_paren == 0 => plain.push(c),
            _ => {}
        }
    }
    for line in plain.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[') {
            if in_moves {
                finish(&mut fen, &mut tokens, &mut openings)?;
                in_moves = false;
            }
            let tag = tag.trim_end_matches(']');
            if let Some((name, value)) = tag.split_once(' ')
                && name.eq_ignore_ascii_case("FEN")
            {
                fen = Some(value.trim().trim_matches('"').to_string());
            }
            continue;
        }
        for word in line.split_whitespace() {
            if is_result(word) {
                finish(&mut fen, &mut tokens, &mut openings)?;
                in_moves = false;
            } else if let Some(mv) = move_token(word) {
                tokens.push(mv);
                in_moves = true;
            }
        }
    }
    if in_moves || !tokens.is_empty() {
        finish(&mut fen, &mut tokens, &mut openings)?;
    }
    Ok(openings)
}

/// A PDN game-termination marker.
fn is_result(word: &str) -> bool {
    matches!(
        word,
        "*" | "1-0" | "0-1" | "2-0" | "0-2" | "1-1" | "1/2-1/2" | "0-0"
    )
}

/// The move text inside a PDN word, if it holds one: `12.32-28` -> `32-28`, `c3xd4!` ->
/// `c3xd4`; move numbers, results and annotations give `None`.
fn move_token(word: &str) -> Option<String> {
    if is_result(word) || word.starts_with('$') {
        return None;
    }
    // A move number prefix ends with a dot.
    let body = match word.rfind('.') {
        Some(at) => &word[at + 1..],
        None => word,
    };
    let body = body.trim_end_matches(['!', '?', '*']);
    let has_separator = body.contains(['-', 'x', 'X', ':']);
    (has_separator && body.len() >= 3).then(|| body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::rules::{International, Russian};

    #[test]
    fn pdn_games_give_their_moves() {
        let text = "[Event \"x\"]\n[Result \"2-0\"]\n\n1. 32-28 19-23 2. 28x19 14x23 {a comment} 2-0\n\n\
                    [FEN \"W:W31-50:B1-20\"]\n1. 33-29 *\n";
        let openings = load::<International>(text, None).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].moves.len(), 4);
        assert_eq!(openings[1].moves.len(), 1);
        let cut = load::<International>(text, Some(2)).unwrap();
        assert_eq!(cut[0].moves.len(), 2);
    }

    #[test]
    fn fen_lines_and_balloted_openings() {
        let openings =
            load::<Russian>("W:W21-32:B1-12\n# a comment\nB:W21-32:B1-12\n", None).unwrap();
        assert_eq!(openings.len(), 2);
        let random = balloted::<Russian>(10, 4, 7);
        assert_eq!(random.len(), 10);
        assert!(random.iter().all(|o| o.moves.len() == 4));
        let again = balloted::<Russian>(10, 4, 7);
        assert_eq!(random[3].moves, again[3].moves);
    }
}
