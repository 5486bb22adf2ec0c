//! The one blocking entry to a search: [`think`] runs the Lazy SMP threads over one shared table and returns the main thread's outcome.
//!
//! The split follows Stockfish's `ThreadPool` and `Worker`: [`think`] plays the pool (it
//! starts the helper threads, runs the main search on the calling thread and stops the
//! helpers when it ends), each `Searcher` is one worker, and a [`Control`] carries the
//! switches another thread works while the search runs (`stop`, `ponderhit`).

use super::env::{Control, Env};
use super::searcher::{Iteration, Limits, Outcome, Searcher, Shared};
use crate::position::Position;
use crate::rules::Rules;
use std::sync::Arc;

/// Searches `root` within `limits` in `env` and returns when the search ends: by its limits,
/// or by [`Control::stop`] through `env.control`. The helper threads (Lazy SMP) search the
/// same root over the same table and stop when the main thread, which runs on the calling
/// thread, ends; `report` gets the main thread's every finished iteration (every line, with
/// MultiPV or a strength level's lines). The outcome is the main thread's.
pub fn think<R: Rules>(
    root: &Position<R>,
    limits: &Limits,
    env: &Env,
    report: &mut dyn FnMut(&Iteration),
) -> Outcome {
    let control = env
        .control
        .clone()
        .unwrap_or_else(|| Arc::new(Control::new(false)));
    let shared = Shared::new(env, control);
    std::thread::scope(|scope| {
        for id in 1..env.threads {
            let (shared, game) = (&shared, &env.game);
            scope.spawn(move || {
                let mut helper = Searcher::<R>::new(shared, limits, id);
                helper.run(root, game, &mut |_| {});
            });
        }
        let mut main = Searcher::<R>::new(&shared, limits, 0);
        let outcome = main.run(root, &env.game, report);
        shared.control.halt();
        outcome
    })
}
