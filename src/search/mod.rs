//! Search: iterative-deepening NegaScout over a shared transposition table, under time control.
//!
//! [`think`] is the one entry: it runs one `Searcher` per thread and returns when the search
//! ends. Thread 0 reports each finished iteration and decides when to stop; the other threads
//! (Lazy SMP) search the same root with the same shared table and stop flag, so their work
//! reaches thread 0 through the table only.
//!
//! Scores are in centi-men from the side to move's point of view. A win is `WIN - plies`
//! where `plies` counts to the end of the game (the loser has no legal move); see
//! [`score::WIN`].
//!
//! The files, each using only those before it: `score.rs`, `tt.rs`, `score_cache.rs`, `time.rs`,
//! `skill.rs`, `env.rs`, `searcher.rs`, `threads.rs`; this file only declares them and names what the
//! rest of the crate uses.

mod env;
pub mod score;
mod score_cache;
mod searcher;
pub mod skill;
mod threads;
pub mod time;
pub mod tt;

pub use env::{Control, Env, GameContext};
pub use searcher::{DRAW, INFINITE, Iteration, Limits, MAX_PLY, Outcome};
pub use threads::think;
