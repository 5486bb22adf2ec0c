//! What a search works in besides its root and limits: the `Env` (table, weights, endgame tables, threads, the game before the root), the `GameContext` and the `Control` other threads stop it through.

use super::tt::TranspositionTable;
use crate::egtb::probe::Tables;
use crate::eval::EvalSet;
use crate::game::Game;
use crate::rules::Rules;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Everything a search uses besides its root and limits.
#[derive(Clone, Debug)]
pub struct Env {
    /// The transposition table, shared by the threads (cleared or aged by the caller, as it
    /// sees fit).
    pub tt: Arc<TranspositionTable>,
    /// Weights to evaluate with instead of the variant's built-in set (`None`: the built-in
    /// set).
    pub weights: Option<EvalSet>,
    /// Endgame tables to probe, or `None`.
    pub egtb: Option<Arc<Tables>>,
    /// Search threads: the main thread and `threads - 1` helpers (0 counts as 1).
    pub threads: usize,
    /// The game before the root, for repetitions.
    pub game: GameContext,
    /// How another thread stops the search or ends its pondering; `None`: a fresh
    /// [`Control`] at the start of each search, which nothing but its limits ends.
    pub control: Option<Arc<Control>>,
}

impl Env {
    /// One thread over `tt`, with the built-in weights, no tables, no earlier game and no
    /// outside control.
    pub fn new(tt: Arc<TranspositionTable>) -> Self {
        Env {
            tt,
            weights: None,
            egtb: None,
            threads: 1,
            game: GameContext::default(),
            control: None,
        }
    }
}

/// The switches of one search that other threads work, and its clock. Made before the search
/// starts (so a `stop` that comes at once is not lost) and used for that search only: the
/// search's end sets its stop flag.
#[derive(Debug)]
pub struct Control {
    /// Set to stop every thread as soon as possible (by the front end, a limit, or the end of
    /// the main thread's search).
    stop: AtomicBool,
    /// Set only by the front end's `stop`: an untimed search that has finished waits for it.
    stop_requested: AtomicBool,
    /// While set, time limits do not apply (pondering, `go infinite`).
    untimed: AtomicBool,
    /// Milliseconds after the start from which time is counted (set at `ponderhit`).
    clock_origin_ms: AtomicU64,
    /// When the search started (when this was made).
    start: Instant,
}

impl Control {
    /// The control of a search that starts now; `untimed`: time limits do not apply until
    /// [`Control::ponderhit`].
    pub fn new(untimed: bool) -> Self {
        Control {
            stop: AtomicBool::new(false),
            stop_requested: AtomicBool::new(false),
            untimed: AtomicBool::new(untimed),
            clock_origin_ms: AtomicU64::new(0),
            start: Instant::now(),
        }
    }

    /// The front end's `stop`: every thread stops as soon as it can, and an untimed search
    /// that has already finished may answer.
    pub fn stop(&self) {
        self.stop_requested.store(true, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
    }

    /// True once [`Control::stop`] was called.
    pub fn stop_requested(&self) -> bool {
        self.stop_requested.load(Ordering::Relaxed)
    }

    /// `ponderhit`: time limits apply from now on.
    pub fn ponderhit(&self) {
        self.clock_origin_ms
            .store(self.elapsed_ms(), Ordering::Relaxed);
        self.untimed.store(false, Ordering::Relaxed);
    }

    /// True while time limits do not apply (pondering, `go infinite`).
    pub fn untimed(&self) -> bool {
        self.untimed.load(Ordering::Relaxed)
    }

    /// Milliseconds since the search started.
    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Every thread stops as soon as it can: a limit was reached, or the main thread's search
    /// ended (not the front end's `stop`, which an untimed search waits for).
    pub(crate) fn halt(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// True once the search was stopped or halted.
    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Milliseconds that count against the time budget.
    pub(crate) fn timed_ms(&self) -> u64 {
        self.elapsed_ms()
            .saturating_sub(self.clock_origin_ms.load(Ordering::Relaxed))
    }
}

/// The game as the search needs it: hashes of the earlier positions that can still repeat,
/// and how far the small-endgame rule's count has gone.
#[derive(Clone, Debug, Default)]
pub struct GameContext {
    /// Hashes of the positions since the last capture or man move, oldest first, the current
    /// position excluded.
    pub reversible_hashes: Vec<u64>,
    /// Plies the game has already spent in the small-endgame configuration of the root, if
    /// the root is in one (see [`crate::game::SmallEndgameCount`]); 0 for a game that starts
    /// at the root.
    pub small_endgame_plies: u32,
}

impl GameContext {
    /// The context of a game's current position: the positions since its last capture or man
    /// move, and its small-endgame count.
    pub fn of_game<R: Rules>(game: &Game<R>) -> Self {
        let hashes: Vec<u64> = game.positions().map(|p| p.hash()).collect();
        let current = hashes.len() - 1;
        let keep = game.reversible_plies() as usize;
        GameContext {
            reversible_hashes: hashes[current.saturating_sub(keep)..current].to_vec(),
            small_endgame_plies: game.small_endgame().map_or(0, |count| count.plies),
        }
    }
}
