//! PDN game records: the tags, the `GameType` number of each variant and the numbered move text
//! that `damka play` saves and `damka match` writes.

use crate::game::Game;
use crate::notation::fen::write_pdn_fen;
use crate::position::Position;
use crate::rules::{MoveNotation, Rules, Variant};

/// The PDN `GameType` number of a variant (PDN 3.0 standard), `None` for towers.
pub fn pdn_game_type(variant: Variant) -> Option<u32> {
    match variant {
        Variant::International => Some(20),
        Variant::English => Some(21),
        Variant::Italian => Some(22),
        Variant::Pool => Some(23),
        Variant::Spanish => Some(24),
        Variant::Russian => Some(25),
        Variant::Brazilian => Some(26),
        Variant::Czech => Some(29),
        Variant::Frisian => Some(40),
        Variant::Turkish => Some(30),
        // PDN 3.0 numbers no antidraughts, breakthrough or frysk! game type.
        Variant::Towers | Variant::Antidraughts | Variant::Breakthrough | Variant::Frysk => None,
    }
}

/// A game as PDN: the given tags, then `Result`, `GameType` and (when the game did not start
/// from the variant's start position) `FEN`, then the numbered moves and the result. Captures
/// are written with `x` in algebraic variants too (`c3xe5`), as PDN readers expect.
pub fn pdn_text<R: Rules>(game: &Game<R>, tags: &[(&str, String)], result: &str) -> String {
    let mut text = String::new();
    let mut tag = |name: &str, value: &str| {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        text.push_str(&format!("[{name} \"{value}\"]\n"));
    };
    for (name, value) in tags {
        tag(name, value);
    }
    tag("Result", result);
    if let Some(number) = pdn_game_type(R::VARIANT) {
        tag("GameType", &number.to_string());
    }
    if *game.start() != Position::<R>::start() {
        tag("FEN", &write_pdn_fen(game.start()));
    }
    text.push('\n');
    // Move numbers count pairs from the variant's first mover.
    let mut tokens = Vec::new();
    let mut second = game.start().side_to_move() != R::FIRST_TO_MOVE;
    let mut number = 1;
    for (index, mv) in game.move_texts().into_iter().enumerate() {
        if !second {
            tokens.push(format!("{number}."));
        } else if index == 0 {
            tokens.push(format!("{number}..."));
        }
        // PDN separates capture squares with `x` in every notation (pydraughts reads no `:`).
        tokens.push(if R::NOTATION == MoveNotation::Algebraic {
            mv.replace(':', "x")
        } else {
            mv
        });
        if second {
            number += 1;
        }
        second = !second;
    }
    tokens.push(result.to_string());
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    text.push_str(&line);
    text.push_str("\n\n");
    text
}

/// Today's date (UTC) as PDN writes it: `2024.05.17`.
pub fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (year, month, day) = civil_from_days((seconds / 86_400) as i64);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (H. Hinnant's
/// `civil_from_days`, public domain).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_follow_the_gregorian_calendar() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        // 2000-02-29 is day 11016; 2024-03-01 is day 19783.
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_783), (2024, 3, 1));
    }
}
