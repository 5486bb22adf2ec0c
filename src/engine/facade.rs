//! The `Engine`: owns the game, the options, the transposition table and the search in progress; never prints.

use super::options::Options;
use super::search_thread::SearchHandle;
use super::session::{BookRequest, SearchRequest, Session, session_for, session_of};
use super::tables::{LoadedTables, default_tables, load_tables};
use super::types::{EngineError, Event, Go};
use crate::any_game::AnyGame;
use crate::book::builtin::builtin_book;
use crate::book::{Book, Choice};
use crate::random::SplitMix;
use crate::rules::Variant;
use crate::search::tt::TranspositionTable;
use crossbeam_channel::{Receiver, Sender, unbounded};
use std::sync::Arc;

/// The engine: options, game, table and the search in progress.
pub struct Engine {
    pub(super) options: Options,
    pub(super) tt: Arc<TranspositionTable>,
    pub(super) session: Box<dyn Session>,
    pub(super) events: Sender<Event>,
    pub(super) search: Option<SearchHandle>,
    /// The tables of `EGTBPath` for the current variant.
    pub(super) egtb: Option<LoadedTables>,
    /// Searches started so far: the number of the next one.
    pub(super) searches: u64,
    /// Draws the seeds of random choices: the book's and the strength levels'.
    pub(super) rng: SplitMix,
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
    pub(super) fn refuse_while_searching(&self, what: &'static str) -> Result<(), EngineError> {
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
    pub(super) fn tables_for(&self, variant: Variant) -> Option<LoadedTables> {
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
