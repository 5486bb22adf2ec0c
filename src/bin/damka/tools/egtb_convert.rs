//! `damka egtb convert`: won endgames played out; the engine with the tables must convert every sampled win, within the promised plies with distances, before the draw rules without them.

use damka::egtb::Value;
use damka::egtb::probe::Tables;
use damka::game::{DrawReason, Game, Outcome};
use damka::rules::Rules;
use damka::search::tt::TranspositionTable;
use damka::search::{Env, GameContext, Limits, think};
use damka::{Move, Position};
use std::sync::Arc;

/// What [`convert_wins`] found.
#[derive(Clone, Debug, Default)]
pub struct Conversion {
    /// Won positions played.
    pub played: u64,
    /// Games the winner won: within the promised plies where its tables hold distances,
    /// before any draw rule could end the game where they hold win/draw/loss only.
    pub converted: u64,
    /// Played positions whose slice the winner's tables hold as win/draw/loss only.
    pub without_distance: u64,
    /// The longest game, plies.
    pub longest: u32,
    /// Games the winner won with more than the variant's no-progress plies between two
    /// captures or man moves (a real game would have been drawn by that rule).
    pub past_no_progress_rule: u64,
    /// The first few failures (FEN and what happened).
    pub failures: Vec<String>,
}

/// A game is given up as unconverted after this many plies (no ending of the tables'
/// sizes lasts so long when it is played well).
const PLY_CAP: u32 = 2000;

/// Plays about `samples` won positions with `pieces` pieces to the end: the winner is the
/// engine searching `depth` plies with the tables `winner`, the loser defends with the
/// slowest loss of the tables `defence`, which must hold distances (they may be the same
/// tables). Where the winner's tables hold distances, a win must end within the promised
/// plies; where they hold win/draw/loss only, the engine gets the game's history (as in
/// play), and a win must end before any draw rule of the variant ends the game (`damka egtb
/// convert`).
pub fn convert_wins<R: Rules>(
    winner: &Arc<Tables>,
    defence: &Tables,
    pieces: usize,
    samples: u64,
    depth: u32,
) -> Conversion {
    let slices: Vec<_> = defence
        .slices()
        .filter(|s| s.indexer.material().total() == pieces)
        .collect();
    let total: u64 = slices.iter().map(|s| s.indexer.size()).sum();
    let mut result = Conversion::default();
    if total == 0 {
        return result;
    }
    // Won positions are about a third to a half of all: sample twice as densely.
    let step = (total / samples.max(1) / 2).max(1);
    let tt = Arc::new(TranspositionTable::new(16));
    let limits = Limits {
        depth: Some(depth),
        multipv: 1,
        ..Limits::default()
    };
    let mut offset = 0u64;
    for slice in slices {
        let size = slice.indexer.size();
        let mut index = offset % step;
        while index < size {
            let start = slice.indexer.placement(index).position::<R>();
            index += step;
            let Some(Value::Win(promised)) = defence.probe(&start) else {
                continue;
            };
            result.played += 1;
            let by_distance = match winner.probe(&start) {
                Some(Value::Win(_)) => true,
                Some(Value::Won) => false,
                other => {
                    result.fail(
                        &start,
                        promised,
                        format!("the winner's tables say {other:?}"),
                    );
                    continue;
                }
            };
            if !by_distance {
                result.without_distance += 1;
            }
            let game = play_out(
                &start,
                promised,
                by_distance,
                |game| {
                    tt.clear();
                    // With distances the tables alone guarantee the win (the promise is checked,
                    // the no-progress rule only counted), so the search is not told the game's
                    // history: past the rule it would call every move a draw.
                    let history = if by_distance {
                        GameContext::default()
                    } else {
                        GameContext::of_game(game)
                    };
                    let env = Env {
                        egtb: Some(Arc::clone(winner)),
                        game: history,
                        ..Env::new(Arc::clone(&tt))
                    };
                    think(game.position(), &limits, &env, &mut |_| {}).best
                },
                defence,
            );
            match game {
                Ok(played) => {
                    result.converted += 1;
                    result.longest = result.longest.max(played.plies);
                    if played.past_no_progress_rule {
                        result.past_no_progress_rule += 1;
                    }
                }
                Err(error) => result.fail(&start, promised, error),
            }
        }
        offset += size;
    }
    result
}

impl Conversion {
    fn fail<R: Rules>(&mut self, start: &Position<R>, promised: u32, error: String) {
        if self.failures.len() < 10 {
            self.failures.push(format!(
                "{} (win in {promised}): {error}",
                damka::notation::fen::write_fen(start)
            ));
        }
    }
}

/// How a converted game went.
struct PlayedOut {
    plies: u32,
    past_no_progress_rule: bool,
}

/// One game from `start`, won in `promised` plies: the winner's moves from `engine`, the
/// loser's the slowest loss of `defence`.
fn play_out<R: Rules>(
    start: &Position<R>,
    promised: u32,
    by_distance: bool,
    mut engine: impl FnMut(&Game<R>) -> Option<Move>,
    defence: &Tables,
) -> Result<PlayedOut, String> {
    let mut game = Game::new(*start);
    let mut past_no_progress_rule = false;
    loop {
        let plies = game.ply() as u32;
        if game.legal_moves().is_empty() {
            return if plies % 2 == 1 {
                Ok(PlayedOut {
                    plies,
                    past_no_progress_rule,
                })
            } else {
                Err("the winner has no move".to_string())
            };
        }
        match game.draw_reason() {
            Some(DrawReason::NoProgress) if by_distance => past_no_progress_rule = true,
            Some(reason) => {
                return Err(format!(
                    "{} after {}",
                    Outcome::Draw(reason),
                    game.move_texts().join(" ")
                ));
            }
            None => {}
        }
        if by_distance && plies > promised {
            return Err(format!("not over after {promised} plies"));
        }
        if plies > PLY_CAP {
            return Err(format!("not over after {PLY_CAP} plies"));
        }
        let mv = if plies.is_multiple_of(2) {
            engine(&game).ok_or("the engine gave no move")?
        } else {
            defence
                .rank_moves(game.position())
                .ok_or("a position left the tables")?[0]
                .0
        };
        game.play(mv);
    }
}
