//! The engine facade: owns the game, the options, the transposition table and the search threads; never prints.
//!
//! Front ends (UCI dialect, Hub) turn text into calls here and turn [`Event`]s back into
//! text. Positions and moves come in typed: a game is an [`AnyGame`](crate::AnyGame) (start position and
//! moves, built by the front end through [`notation`](crate::notation)) and a `go`'s root
//! moves are [`Move`](crate::Move)s, so no FEN or move text crosses the facade inwards and a front end
//! reports bad input where it reads it. `go` and `stop` return at once; the search runs on
//! its own threads and sends [`Event::Info`] lines and exactly one [`Event::BestMove`] per
//! `go` over a crossbeam channel.
//! The variant is chosen at run time: a [`Session`] trait object wraps a `Game<R>` and is the
//! one place where the engine dispatches into the monomorphised rules and search.

//!
//! The files, each using only those before it: `types.rs`, `options.rs`, `tables.rs`,
//! `search_thread.rs`, `session.rs`, `facade.rs` (the `Engine`), `option_table.rs` (how
//! options are set on it); this file only declares them and names what front ends use.

mod facade;
mod option_table;
mod options;
mod search_thread;
mod session;
mod tables;
mod types;

pub use facade::Engine;
pub use option_table::{Setting, option_specs};
pub use options::{
    DEFAULT_BOOK_MARGIN, DEFAULT_BOOK_PLY, DEFAULT_EGTB_CACHE_MB, MAX_HASH_MB, MAX_THREADS,
    OptionKind, OptionSpec, Options,
};
pub use search_thread::SearchHandle;
pub use session::{BookRequest, SearchRequest, Session, session_for, session_of};
pub use tables::{LoadedTables, load_tables};
pub use types::{EngineError, Event, Go, Info, Score};
