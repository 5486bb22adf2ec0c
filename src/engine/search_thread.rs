//! The search of one `go` on its own thread: the plan its limits make, the thread that runs
//! [`think`] and reports, and the handle the engine stops it through.

use super::options::Options;
use super::types::{Event, Go, Info, Score};
use crate::position::{Move, Position};
use crate::rules::{Color, Rules};
use crate::search::skill::{MAX_LEVEL, Skill};
use crate::search::time::{Clock, TimeBudget, allocate, movetime_budget};
use crate::search::tt::TranspositionTable;
use crate::search::{Control, Env, Iteration, Limits, think};
use crossbeam_channel::Sender;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A running search.
pub struct SearchHandle {
    pub(super) control: Arc<Control>,
    /// `go ponder` without `infinite`: `ponderhit` puts the search under the clock.
    pub(super) pondering: bool,
    pub(super) thread: JoinHandle<()>,
}

impl SearchHandle {
    /// Every search thread stops as soon as it can; the `BestMove` follows.
    pub(super) fn stop(&self) {
        self.control.stop();
        // The main thread may be parked, waiting for `stop` after an untimed search.
        self.thread.thread().unpark();
    }

    /// A ponder search goes on under the clock (nothing for any other search).
    pub(super) fn ponderhit(&mut self) {
        if self.pondering {
            self.pondering = false;
            self.control.ponderhit();
            self.thread.thread().unpark();
        }
    }
}

/// The longest beginning of `line` that is legal move after move from `position`.
fn legal_prefix<R: Rules>(position: &Position<R>, line: &[Move]) -> Vec<Move> {
    let mut current = *position;
    let mut legal_line = Vec::with_capacity(line.len());
    for mv in line {
        if !current.legal_moves().as_slice().contains(mv) {
            break;
        }
        legal_line.push(*mv);
        current = current.play(mv);
    }
    legal_line
}

/// What a search under one `go` obeys.
pub(super) struct SearchPlan {
    /// The search's limits.
    pub(super) limits: Limits,
    /// Time limits do not apply (`infinite`, `ponder`, or no limit at all): the search ends
    /// on `stop` (or `ponderhit`) only.
    pub(super) untimed: bool,
    /// `ponderhit` puts the search under the clock.
    pub(super) pondering: bool,
}

impl SearchPlan {
    /// The one conversion from a front end's [`Go`] to the search's [`Limits`]: the clock of
    /// the side to move `us`, `ply` plies into the game, or the move time becomes a time
    /// budget (less the move overhead); `searchmoves` are `go`'s root moves, already read. A
    /// strength level below full strength adds its node budget and its choice (seeded by
    /// `skill_seed`).
    pub(super) fn new(
        go: &Go,
        (us, ply): (Color, usize),
        options: &Options,
        searchmoves: Vec<Move>,
        skill_seed: u64,
    ) -> Self {
        let (time, inc) = go.clock_of(us);
        let overhead = options.move_overhead_ms;
        let budget: Option<TimeBudget> = if go.infinite {
            None
        } else if let Some(movetime) = go.movetime_ms {
            Some(movetime_budget(movetime, overhead))
        } else {
            time.map(|time_ms| {
                allocate(
                    &Clock {
                        time_ms,
                        inc_ms: inc.unwrap_or(0),
                        moves_to_go: go.movestogo,
                    },
                    overhead,
                    ply,
                )
            })
        };
        // Analysis (`infinite`, Hub's `go analyze` and `go mcts`) is always at full strength.
        // A level ponders on its node budget, then waits for `ponderhit` or `stop`.
        let level = go
            .skill_level
            .map_or(f64::from(MAX_LEVEL), f64::from)
            .min(options.strength());
        let analysis = go.infinite || go.analysis;
        let skill = Skill::new(level, skill_seed).filter(|_| !analysis);
        // The tighter of the go's node limit and the level's budget.
        let nodes = [go.nodes, skill.map(|skill| skill.node_budget())]
            .into_iter()
            .flatten()
            .min();
        // A `go` that sets no limit at all (no depth, nodes, movetime, nor the clock of the
        // side to move, nor a level's node budget) is `go infinite`: it ends on `stop` only,
        // whatever depth it reaches.
        let unlimited = budget.is_none() && go.depth.is_none() && nodes.is_none();
        SearchPlan {
            limits: Limits {
                depth: go.depth,
                nodes,
                budget,
                multipv: options.multipv,
                searchmoves,
                skill,
            },
            untimed: go.infinite || go.ponder || unlimited,
            pondering: go.ponder && !go.infinite && !unlimited,
        }
    }
}

/// The search thread: searches, waits while untimed, reports.
pub(super) fn run_search<R: Rules>(
    root: Position<R>,
    limits: Limits,
    env: Env,
    events: Sender<Event>,
    id: u64,
) {
    // A strength level may score more lines than the front end asked for: those are not
    // reported.
    let outcome = think(&root, &limits, &env, &mut |iteration: &Iteration| {
        if iteration.multipv <= limits.multipv.max(1) {
            let _ = events.send(Event::Info(info_of(&root, iteration, &env.tt, id)));
        }
    });
    // `go infinite` and `go ponder` may not answer before `stop` (or `ponderhit`).
    // `Engine::stop` and `Engine::ponderhit` unpark this thread, so the answer is not held up
    // by a polling interval; the timeout only guards against a missed wake-up.
    if let Some(control) = &env.control {
        while control.untimed() && !control.stop_requested() {
            std::thread::park_timeout(Duration::from_millis(5));
        }
    }
    // A reply is reported only when it is legal after the move (the table may have lost it).
    let ponder = match (outcome.best, outcome.ponder) {
        (Some(best), Some(reply)) => legal_prefix(&root, &[best, reply]).get(1).copied(),
        _ => None,
    };
    let _ = events.send(Event::BestMove {
        search: id,
        best: outcome.best,
        ponder,
    });
}

fn info_of<R: Rules>(
    root: &Position<R>,
    iteration: &Iteration,
    tt: &TranspositionTable,
    id: u64,
) -> Info {
    let time_ms = iteration.time_ms;
    Info {
        search: id,
        depth: iteration.depth,
        seldepth: iteration.seldepth,
        multipv: iteration.multipv,
        score: Score::from_search(iteration.score),
        nodes: iteration.nodes,
        nps: iteration.nodes * 1000 / time_ms.max(1),
        hashfull: tt.hashfull(),
        tbhits: iteration.tbhits,
        time_ms,
        pv: legal_prefix(root, &iteration.pv),
    }
}
