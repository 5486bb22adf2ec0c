//! `damka egtb convert`: won endgames played out; the search, given the tables, must convert every sampled win within the promised plies.

use damka::egtb::Value;
use damka::egtb::probe::Tables;
use damka::rules::Rules;
use damka::search::tt::TranspositionTable;
use damka::search::{Env, Limits, think};

/// What [`convert_wins`] found.
#[derive(Clone, Debug, Default)]
pub struct Conversion {
    /// Won positions played.
    pub played: u64,
    /// Games the winner won within the promised plies.
    pub converted: u64,
    /// The longest game, plies.
    pub longest: u32,
    /// Games the winner won with more than the variant's no-progress plies between two
    /// captures or man moves (a real game would have been drawn by that rule).
    pub past_no_progress_rule: u64,
    /// The first few failures (FEN and what happened).
    pub failures: Vec<String>,
}

/// Plays about `samples` won positions with `pieces` pieces to the end: the winner is the
/// engine searching `depth` plies with the tables, the loser defends with the tables'
/// slowest loss (`damka egtb convert`).
pub fn convert_wins<R: Rules>(
    tables: &std::sync::Arc<Tables>,
    pieces: usize,
    samples: u64,
    depth: u32,
) -> Conversion {
    let slices: Vec<_> = tables
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
    let tt = std::sync::Arc::new(TranspositionTable::new(16));
    let limits = Limits {
        depth: Some(depth),
        multipv: 1,
        ..Limits::default()
    };
    let no_progress = R::DRAW_RULES.no_progress_plies;
    let mut offset = 0u64;
    for slice in slices {
        let size = slice.indexer.size();
        let mut index = offset % step;
        while index < size {
            let start = slice.indexer.placement(index).position::<R>();
            index += step;
            let Some(Value::Win(promised)) = tables.probe(&start) else {
                continue;
            };
            result.played += 1;
            let mut position = start;
            let mut plies = 0u32;
            let mut quiet = 0u32;
            let mut worst_quiet = 0u32;
            let outcome = loop {
                let legal = position.legal_moves();
                if legal.is_empty() {
                    break if plies % 2 == 1 {
                        Ok(())
                    } else {
                        Err("the winner has no move".to_string())
                    };
                }
                if plies > promised {
                    break Err(format!("not over after {promised} plies"));
                }
                let mv = if plies.is_multiple_of(2) {
                    tt.clear();
                    let env = Env {
                        egtb: Some(std::sync::Arc::clone(tables)),
                        ..Env::new(std::sync::Arc::clone(&tt))
                    };
                    let outcome = think(&position, &limits, &env, &mut |_| {});
                    match outcome.best {
                        Some(mv) => mv,
                        None => break Err("the engine gave no move".to_string()),
                    }
                } else {
                    match tables.rank_moves(&position) {
                        Some(ranked) => ranked[0].0,
                        None => break Err("a position left the tables".to_string()),
                    }
                };
                let man_moved = position.kings() & (1u64 << mv.from) == 0;
                quiet = if mv.is_capture() || man_moved {
                    0
                } else {
                    quiet + 1
                };
                worst_quiet = worst_quiet.max(quiet);
                position = position.play(&mv);
                plies += 1;
            };
            match outcome {
                Ok(()) => {
                    result.converted += 1;
                    result.longest = result.longest.max(plies);
                    if no_progress > 0 && worst_quiet >= no_progress {
                        result.past_no_progress_rule += 1;
                    }
                }
                Err(error) => {
                    if result.failures.len() < 10 {
                        result.failures.push(format!(
                            "{} (win in {promised}): {error}",
                            damka::notation::fen::write_fen(&start)
                        ));
                    }
                }
            }
        }
        offset += size;
    }
    result
}
