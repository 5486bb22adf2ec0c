//! The engine facade: owns the game, the options, the transposition table and the search threads; never prints.
//!
//! Front ends (UCI dialect, Hub) turn text into calls here and turn [`Event`]s back into
//! text. Positions and moves come in typed: a game is an [`AnyGame`] (start position and
//! moves, built by the front end through [`notation`](crate::notation)) and a `go`'s root
//! moves are [`Move`]s, so no FEN or move text crosses the facade inwards and a front end
//! reports bad input where it reads it. `go` and `stop` return at once; the search runs on
//! its own threads and sends [`Event::Info`] lines and exactly one [`Event::BestMove`] per
//! `go` over a crossbeam channel.
//! The variant is chosen at run time: a [`Session`] trait object wraps a `Game<R>` and is the
//! one place where the engine dispatches into the monomorphised rules and search.

mod options;
mod search_thread;
mod session;
mod tables;

pub use options::{
    DEFAULT_BOOK_MARGIN, DEFAULT_BOOK_PLY, DEFAULT_EGTB_CACHE_MB, MAX_HASH_MB, MAX_THREADS,
    OptionKind, OptionSpec, Options, Setting, option_specs,
};
pub use search_thread::SearchHandle;
pub use session::{BookRequest, SearchRequest, Session, session_for, session_of};
pub use tables::{LoadedTables, load_tables};

use crate::any_game::AnyGame;
use crate::book::builtin::builtin_book;
use crate::book::{Book, BookMove, Choice};
use crate::position::Move;
use crate::random::SplitMix;
use crate::rules::{Color, Variant};
use crate::search::score::{WIN, WIN_BOUND};
use crate::search::tt::TranspositionTable;
use crossbeam_channel::{Receiver, Sender, unbounded};
use std::fmt;
use std::sync::Arc;
use tables::default_tables;

/// A score as the front ends report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centi-men (100 = one man) from the side to move's point of view.
    Centi(i32),
    /// The side to move wins; the game ends after this many plies.
    WinIn(u32),
    /// The side to move loses; the game ends after this many plies.
    LossIn(u32),
}

impl Score {
    /// The report form of a search score.
    pub fn from_search(score: i32) -> Score {
        if score > WIN_BOUND {
            Score::WinIn((WIN - score) as u32)
        } else if score < -WIN_BOUND {
            Score::LossIn((WIN + score) as u32)
        } else {
            Score::Centi(score)
        }
    }
}

/// One finished iteration. Its moves are the engine's; each front end writes them in its own
/// notation (for the UCI dialect, [`Session::line_text`] of the searched position).
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// The search this belongs to (the number [`Engine::go`] returned).
    pub search: u64,
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1-based index of the line (MultiPV).
    pub multipv: usize,
    /// Score of the line.
    pub score: Score,
    /// Nodes searched.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Permille of the transposition table in use.
    pub hashfull: u32,
    /// Positions found in the endgame tables (`None` when no tables are in use).
    pub tbhits: Option<u64>,
    /// Milliseconds since `go`.
    pub time_ms: u64,
    /// The line, legal move after legal move from the searched position.
    pub pv: Vec<Move>,
}

/// What the engine tells its front end.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A finished iteration.
    Info(Info),
    /// The end of a search: exactly one per `go`. `best` is `None` when the side to move has
    /// no legal move (the game is over).
    BestMove {
        /// The search this ends (the number [`Engine::go`] returned).
        search: u64,
        /// The move to play, legal in the searched position.
        best: Option<Move>,
        /// The expected reply (legal after `best`), if known.
        ponder: Option<Move>,
    },
    /// The move of a `go` comes from the opening book: sent before its `BestMove`.
    Book {
        /// The search this answers.
        search: u64,
        /// The move chosen (the `BestMove` that follows plays it).
        chosen: Move,
        /// Every move the book offers in the position, best first.
        offered: Vec<BookMove>,
    },
}

/// The limits of one `go`, as the front end read them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Go {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Fixed time for this move, milliseconds.
    pub movetime_ms: Option<u64>,
    /// White's clock, milliseconds (may be negative: clamped).
    pub wtime_ms: Option<i64>,
    /// Black's clock, milliseconds.
    pub btime_ms: Option<i64>,
    /// White's increment, milliseconds.
    pub winc_ms: Option<i64>,
    /// Black's increment, milliseconds.
    pub binc_ms: Option<i64>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder: search untimed until `ponderhit` (then the clock applies) or `stop`.
    pub ponder: bool,
    /// Restrict the root to these moves, legal in the position searched (the front end reads
    /// them against [`Session::game`]).
    pub searchmoves: Vec<Move>,
    /// Analysis under the limits: the answer always comes from a search, never the book
    /// (Hub's `go mcts`, which GWDGUI sends for its Monte Carlo analysis).
    pub analysis: bool,
    /// A strength level for this search only (Hub's `level handicap`), 0 to
    /// [`MAX_LEVEL`](crate::search::skill::MAX_LEVEL); the weaker of it and the options'
    /// level applies.
    pub skill_level: Option<u32>,
}

impl Go {
    /// The clock and increment of `side`, milliseconds, as given.
    fn clock_of(&self, side: Color) -> (Option<i64>, Option<i64>) {
        match side {
            Color::White => (self.wtime_ms, self.winc_ms),
            Color::Black => (self.btime_ms, self.binc_ms),
        }
    }
}

/// Why a command was refused. The engine's state is unchanged after any of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// An unknown option.
    UnknownOption(String),
    /// A bad option value.
    BadOptionValue {
        /// The option.
        name: String,
        /// The value given.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// The command is not allowed while searching.
    Busy(&'static str),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::UnknownOption(name) => write!(f, "unknown option '{name}'"),
            EngineError::BadOptionValue {
                name,
                value,
                expected,
            } => write!(
                f,
                "option '{name}': bad value '{value}' (expected {expected})"
            ),
            EngineError::Busy(what) => write!(f, "cannot {what} while searching"),
        }
    }
}

impl std::error::Error for EngineError {}

/// The engine: options, game, table and the search in progress.
pub struct Engine {
    options: Options,
    tt: Arc<TranspositionTable>,
    session: Box<dyn Session>,
    events: Sender<Event>,
    search: Option<SearchHandle>,
    /// The tables of `EGTBPath` for the current variant.
    egtb: Option<LoadedTables>,
    /// Searches started so far: the number of the next one.
    searches: u64,
    /// Draws the seeds of random choices: the book's and the strength levels'.
    rng: SplitMix,
}

impl Engine {
    /// A new engine at the default variant's start position, and the receiver of its events.
    pub fn new() -> (Engine, Receiver<Event>) {
        let (sender, receiver) = unbounded();
        let options = Options::default();
        let mut engine = Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            options,
            session: session_for(Variant::default()),
            events: sender,
            search: None,
            egtb: None,
            searches: 0,
            rng: SplitMix(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |elapsed| elapsed.as_nanos() as u64)
                    ^ u64::from(std::process::id()).rotate_left(32),
            ),
        };
        // The tables of the default directory, if it holds any: found without an option.
        engine.egtb = engine.tables_for(Variant::default());
        (engine, receiver)
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The directory of the endgame tables in use (`None`: no tables for this variant).
    pub fn tables_in_use(&self) -> Option<&str> {
        self.egtb.as_ref().map(|loaded| loaded.path.as_str())
    }

    /// The current variant.
    pub fn variant(&self) -> Variant {
        self.session.variant()
    }

    /// The current game.
    pub fn session(&self) -> &dyn Session {
        &*self.session
    }

    /// The static evaluation of the current position with the weights in force.
    pub fn evaluate(&self) -> i32 {
        let weights = self.options.weights_for(self.variant());
        self.session.evaluate(weights.as_ref())
    }

    /// True while a search runs (until its `BestMove` was sent).
    pub fn is_searching(&self) -> bool {
        self.search
            .as_ref()
            .is_some_and(|search| !search.thread.is_finished())
    }

    /// `Err(Busy)` while a search runs.
    fn refuse_while_searching(&self, what: &'static str) -> Result<(), EngineError> {
        if self.is_searching() {
            Err(EngineError::Busy(what))
        } else {
            Ok(())
        }
    }

    /// Switches to another variant at its start position (the `Variant` option).
    pub fn set_variant(&mut self, variant: Variant) -> Result<(), EngineError> {
        self.refuse_while_searching("change the variant")?;
        self.session = session_for(variant);
        // The tables follow the variant; a directory without tables of the new variant leaves
        // the engine without tables (the option keeps its value for a switch back).
        self.egtb = self.tables_for(variant);
        Ok(())
    }

    /// The tables the options give `variant`: under `EGTBPath`, or under the default
    /// directory when it is empty; none with `EGTBCache` 0 or when the directory holds no
    /// valid tables of the variant (logged for a directory the user named).
    fn tables_for(&self, variant: Variant) -> Option<LoadedTables> {
        let cache_mb = self.options.egtb_cache_mb;
        if self.options.egtb_path.is_empty() {
            return default_tables(variant, cache_mb);
        }
        if cache_mb == 0 {
            return None;
        }
        load_tables(&self.options.egtb_path, variant, cache_mb)
            .inspect_err(|error| log::warn!("EGTBPath: {error}"))
            .ok()
    }
    /// A new game: clears the table (the position is set by the next `position`).
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        if self.is_searching() {
            return Err(EngineError::Busy("start a new game"));
        }
        self.tt.clear();
        self.session = session_for(self.variant());
        Ok(())
    }

    /// Sets the game: its start position and the moves played from it (their positions count
    /// for repetitions). A game of another variant switches the engine to that variant, its
    /// tables following as with [`Engine::set_variant`]. Refused only while searching.
    pub fn set_position(&mut self, game: AnyGame) -> Result<(), EngineError> {
        if self.is_searching() {
            return Err(EngineError::Busy("set the position"));
        }
        let variant = game.variant();
        if variant != self.variant() {
            self.egtb = self.tables_for(variant);
        }
        self.session = session_of(game);
        Ok(())
    }

    /// Starts a search; returns at once with its number, which its events carry. A search still
    /// running is stopped first (it sends its own `BestMove`).
    pub fn go(&mut self, go: Go) -> u64 {
        self.finish_search();
        let id = self.searches;
        let book = self.book_request(&go);
        let handle = self.session.start_search(SearchRequest {
            id,
            go,
            options: self.options.clone(),
            tt: Arc::clone(&self.tt),
            events: self.events.clone(),
            egtb: self.egtb.as_ref().map(|l| Arc::clone(&l.tables)),
            book,
            skill_seed: self.rng.next_u64(),
        });
        self.searches += 1;
        self.search = Some(handle);
        id
    }

    /// The book a `go` may answer from: with `Book` on, a book of the current variant, and a
    /// `go` that plays a game (a move time or the clock of the side to move; no `infinite`,
    /// `ponder`, `analysis` or `searchmoves`). A `go depth` or `go nodes` alone is analysis and
    /// searches.
    fn book_request(&mut self, go: &Go) -> Option<BookRequest> {
        let (clock, _) = go.clock_of(self.session.side_to_move());
        let plays = go.movetime_ms.is_some() || clock.is_some();
        if !self.options.book
            || !plays
            || go.infinite
            || go.ponder
            || go.analysis
            || !go.searchmoves.is_empty()
        {
            return None;
        }
        Some(BookRequest {
            book: self.book_in_force()?,
            choice: Choice {
                random_plies: self.options.book_ply,
                margin: self.options.book_margin,
            },
            seed: self.rng.next_u64(),
        })
    }

    /// The book of the current variant that a `go` answers from (whether `Book` is on or
    /// not): the `BookFile` book when it is of this variant, else the variant's built-in
    /// book, if it has one.
    pub fn book_in_force(&self) -> Option<Arc<Book>> {
        match &self.options.book_data {
            Some(book) if book.variant() == self.variant() => Some(Arc::clone(book)),
            _ => builtin_book(self.variant()),
        }
    }

    /// Asks the search to stop; returns at once. Its `BestMove` follows.
    pub fn stop(&mut self) {
        if let Some(search) = &self.search {
            search.stop();
        }
    }

    /// The opponent played the expected move: the ponder search goes on under the clock.
    pub fn ponderhit(&mut self) {
        if let Some(search) = &mut self.search {
            search.ponderhit();
        }
    }

    /// Waits for a running search to end by itself (its `BestMove` has then been sent). Never
    /// call it during `go infinite` or an unanswered `go ponder` without a `stop` first: those
    /// end only on `stop`.
    pub fn wait_search(&mut self) {
        if let Some(search) = self.search.take() {
            let _ = search.thread.join();
        }
    }

    /// Stops any search and waits for its thread (its `BestMove` has then been sent).
    pub fn finish_search(&mut self) {
        self.stop();
        if let Some(search) = self.search.take() {
            let _ = search.thread.join();
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.finish_search();
    }
}
