//! The engine facade: owns the game, the options, the transposition table and the search threads; never prints.
//!
//! Front ends (UCI dialect, Hub) turn text into calls here and turn [`Event`]s back into
//! text. `go` and `stop` return at once; the search runs on its own threads and sends
//! [`Event::Info`] lines and exactly one [`Event::BestMove`] per `go` over a crossbeam channel.
//! The variant is chosen at run time: a [`Session`] trait object wraps a `Game<R>` and is the
//! one place where the engine dispatches into the monomorphised rules and search.

use crate::book::builtin::builtin_book;
use crate::book::{Book, BookMove, Choice, choose};
use crate::egtb::probe::Tables;
use crate::eval::{EvalFile, EvalSet};
use crate::game::Game;
use crate::notation::diagram::diagram;
use crate::notation::fen::{parse_fen, write_fen};
use crate::notation::movetext::{parse_move_in, write_move_in};
use crate::position::{Move, Position};
use crate::random::SplitMix;
use crate::rules::{Color, Rules, Variant};
use crate::search::score::{WIN, WIN_BOUND};
use crate::search::skill::{self, MAX_LEVEL, Skill};
use crate::search::time::{Clock, TimeBudget, allocate, movetime_budget};
use crate::search::tt::TranspositionTable;
use crate::search::{GameContext, Iteration, Limits, Searcher, Shared};
use crate::with_variant;
use crossbeam_channel::{Receiver, Sender, unbounded};
use std::fmt;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

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
    /// Restrict the root to these moves (move texts).
    pub searchmoves: Vec<String>,
    /// Analysis under the limits: the answer always comes from a search, never the book
    /// (Hub's `go mcts`, which GWDGUI sends for its Monte Carlo analysis).
    pub analysis: bool,
    /// A strength level for this search only (Hub's `level handicap`), 0 to
    /// [`MAX_LEVEL`]; the weaker of it and the options' level applies.
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
    /// A bad FEN.
    Fen(String),
    /// A bad or illegal move in a move list, with its index (0-based).
    Move {
        /// Position in the list.
        index: usize,
        /// The error.
        message: String,
    },
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
            EngineError::Fen(message) => write!(f, "bad FEN: {message}"),
            EngineError::Move { index, message } => {
                write!(f, "move {} of the list: {message}", index + 1)
            }
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

/// The kind and range of an option, for `uci`/`hub` listings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer in a range.
    Spin {
        /// The value before any `setoption`.
        default: i64,
        /// Least allowed.
        min: i64,
        /// Most allowed.
        max: i64,
    },
    /// A boolean.
    Check {
        /// The value before any `setoption`.
        default: bool,
    },
    /// One of a list of words.
    Combo {
        /// The value before any `setoption`.
        default: &'static str,
        /// The words.
        values: Vec<&'static str>,
    },
    /// An action without a value.
    Button,
    /// Free text (a file name); `<empty>` is written for the empty default, as UCI GUIs
    /// expect.
    Text {
        /// The value before any `setoption`.
        default: &'static str,
    },
}

/// One option the engine understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name, as written in `setoption name ...`.
    pub name: &'static str,
    /// Kind, default and range.
    pub kind: OptionKind,
}

/// Largest `Hash` in MB.
pub const MAX_HASH_MB: i64 = 4096;
/// Default `EGTBCache` in MB: decoded table blocks kept in memory (0: no tables).
pub const DEFAULT_EGTB_CACHE_MB: usize = 64;
/// Most `Threads`.
pub const MAX_THREADS: i64 = 256;
/// Default `BookPly`: plies from the game's start in which the book plays any move within
/// `BookMargin` of its best.
pub const DEFAULT_BOOK_PLY: u32 = 6;
/// Default `BookMargin`, centi-men.
pub const DEFAULT_BOOK_MARGIN: i32 = 20;

/// The change a checked option value makes, applied by [`Engine::apply`]: made by the option's
/// own handler, so a value can only reach the option it was read for.
type Apply = Box<dyn FnOnce(&mut Engine) -> Result<(), EngineError> + Send>;

/// How an option's value is read and applied: its kind, bounds and apply function together
/// (the shape of Stockfish's `Option(16, 1, MAX, on_change)`).
enum Handler {
    /// An integer in `min..=max`.
    Spin {
        default: i64,
        min: i64,
        max: i64,
        apply: fn(&mut Engine, i64) -> Result<(), EngineError>,
    },
    /// `true` or `false`.
    Check {
        default: bool,
        apply: fn(&mut Engine, bool) -> Result<(), EngineError>,
    },
    /// A variant's name (the `Variant` combo).
    Variant {
        apply: fn(&mut Engine, Variant) -> Result<(), EngineError>,
    },
    /// No value.
    Button {
        apply: fn(&mut Engine) -> Result<(), EngineError>,
    },
    /// A path, or empty (`<empty>`) for none: `read` loads and checks what the path names
    /// without changing the engine, so a bad file is refused whole.
    Path {
        read: fn(&Engine, Option<&str>) -> Result<Apply, String>,
    },
}

/// One entry of the option table.
struct EngineOption {
    name: &'static str,
    handler: Handler,
}

impl EngineOption {
    fn kind(&self) -> OptionKind {
        match self.handler {
            Handler::Spin {
                default, min, max, ..
            } => OptionKind::Spin { default, min, max },
            Handler::Check { default, .. } => OptionKind::Check { default },
            Handler::Variant { .. } => OptionKind::Combo {
                default: Variant::default().name(),
                values: Variant::ALL.iter().map(|v| v.name()).collect(),
            },
            Handler::Button { .. } => OptionKind::Button,
            Handler::Path { .. } => OptionKind::Text { default: "" },
        }
    }
}

impl EngineOption {
    const fn spin(
        name: &'static str,
        default: i64,
        (min, max): (i64, i64),
        apply: fn(&mut Engine, i64) -> Result<(), EngineError>,
    ) -> Self {
        let handler = Handler::Spin {
            default,
            min,
            max,
            apply,
        };
        EngineOption { name, handler }
    }

    const fn check(
        name: &'static str,
        default: bool,
        apply: fn(&mut Engine, bool) -> Result<(), EngineError>,
    ) -> Self {
        EngineOption {
            name,
            handler: Handler::Check { default, apply },
        }
    }
}

/// Every option, in listing order, with its handler.
static OPTIONS: [EngineOption; 17] = [
    EngineOption::spin("Hash", 64, (1, MAX_HASH_MB), Engine::set_hash),
    EngineOption::spin("Threads", 1, (1, MAX_THREADS), |engine, threads| {
        engine.options.threads = threads as usize;
        Ok(())
    }),
    EngineOption::spin("MultiPV", 1, (1, 64), |engine, lines| {
        engine.options.multipv = lines as usize;
        Ok(())
    }),
    EngineOption::check("Ponder", false, |engine, flag| {
        engine.options.ponder = flag;
        Ok(())
    }),
    EngineOption::spin("Move Overhead", 30, (0, 5000), |engine, ms| {
        engine.options.move_overhead_ms = ms as u64;
        Ok(())
    }),
    EngineOption {
        name: "Variant",
        handler: Handler::Variant {
            apply: Engine::set_variant,
        },
    },
    EngineOption {
        name: "Clear Hash",
        handler: Handler::Button {
            apply: |engine| {
                engine.refuse_while_searching("clear the hash")?;
                engine.tt.clear();
                Ok(())
            },
        },
    },
    EngineOption {
        name: "EvalFile",
        handler: Handler::Path {
            read: Engine::read_eval_file,
        },
    },
    EngineOption {
        name: "EGTBPath",
        handler: Handler::Path {
            read: Engine::read_egtb_path,
        },
    },
    EngineOption::spin(
        "EGTBCache",
        DEFAULT_EGTB_CACHE_MB as i64,
        (0, MAX_HASH_MB),
        Engine::set_egtb_cache,
    ),
    EngineOption::check("Book", true, |engine, flag| {
        engine.options.book = flag;
        Ok(())
    }),
    EngineOption {
        name: "BookFile",
        handler: Handler::Path {
            read: Engine::read_book_file,
        },
    },
    EngineOption::spin(
        "BookPly",
        DEFAULT_BOOK_PLY as i64,
        (0, 1000),
        |engine, plies| {
            engine.options.book_ply = plies as u32;
            Ok(())
        },
    ),
    EngineOption::spin(
        "BookMargin",
        DEFAULT_BOOK_MARGIN as i64,
        (0, 1000),
        |engine, margin| {
            engine.options.book_margin = margin as i32;
            Ok(())
        },
    ),
    EngineOption::spin(
        "Skill Level",
        MAX_LEVEL as i64,
        (0, MAX_LEVEL as i64),
        |engine, level| {
            engine.options.skill_level = level as u32;
            Ok(())
        },
    ),
    EngineOption::check("UCI_LimitStrength", false, |engine, flag| {
        engine.options.limit_strength = flag;
        Ok(())
    }),
    EngineOption::spin(
        "UCI_Elo",
        skill::FULL_STRENGTH_ELO as i64,
        (skill::LOWEST_ELO as i64, skill::FULL_STRENGTH_ELO as i64),
        |engine, elo| {
            engine.options.elo = elo as i32;
            Ok(())
        },
    ),
];

/// Every option, in listing order.
pub fn option_specs() -> Vec<OptionSpec> {
    OPTIONS
        .iter()
        .map(|option| OptionSpec {
            name: option.name,
            kind: option.kind(),
        })
        .collect()
}

/// One checked option value, ready to be set ([`Engine::check_option`], [`Engine::apply`]).
pub struct Setting {
    /// The option's name, as listed.
    name: &'static str,
    apply: Apply,
}

impl Setting {
    /// The option's name, as listed.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl fmt::Debug for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setting").field("name", &self.name).finish()
    }
}

/// Endgame tables loaded from a directory for one variant (compared by directory and
/// identity, so a [`Setting`] stays comparable).
#[derive(Clone, Debug)]
pub struct LoadedTables {
    /// The directory, as given.
    pub path: String,
    /// The tables.
    pub tables: Arc<Tables>,
}

impl PartialEq for LoadedTables {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && Arc::ptr_eq(&self.tables, &other.tables)
    }
}

impl Eq for LoadedTables {}

/// Opens the tables of `variant` under `path` for the engine, probed from their files
/// through a cache of `cache_mb` MB: every file's header and block index must be valid (a
/// bad one refuses the whole directory with one message naming it) and at least one slice
/// must be there. Only headers and indexes are read, so this takes milliseconds.
pub fn load_tables(path: &str, variant: Variant, cache_mb: usize) -> Result<LoadedTables, String> {
    let dir = std::path::Path::new(path);
    if !dir.is_dir() {
        return Err(format!("no directory '{path}'"));
    }
    let cache_bytes = cache_mb.saturating_mul(1 << 20);
    let (tables, errors) =
        with_variant!(variant, R => Tables::open_on_demand::<R>(dir, cache_bytes));
    if let Some(first) = errors.first() {
        return Err(if errors.len() > 1 {
            format!("{first} (and {} more bad files)", errors.len() - 1)
        } else {
            first.to_string()
        });
    }
    if tables.is_empty() {
        return Err(format!(
            "no {} tables under '{path}' (expected {path}/{}/*.dtm, see docs/egtb.md)",
            variant.name(),
            crate::egtb::family(variant).unwrap_or(variant.name())
        ));
    }
    Ok(LoadedTables {
        path: path.to_string(),
        tables: Arc::new(tables),
    })
}

/// The tables of `variant` in the default directory ([`crate::egtb::default_dir`]), if it
/// holds any and `cache_mb` is not 0. Nothing there is not an error; a bad file there is
/// logged and leaves the engine without tables.
fn default_tables(variant: Variant, cache_mb: usize) -> Option<LoadedTables> {
    let dir = crate::egtb::default_dir()?;
    let family = crate::egtb::family(variant)?;
    if cache_mb == 0 || !dir.join(family).is_dir() {
        return None;
    }
    let path = dir.to_str()?;
    load_tables(path, variant, cache_mb)
        .inspect_err(|error| log::warn!("the default table directory: {error}"))
        .ok()
}

/// True when `path` has no table directory of `variant`'s family but one of another
/// family holding at least one table file (`*.dtm`).
fn holds_other_tables(path: &str, variant: Variant) -> bool {
    let own = crate::egtb::family(variant).unwrap_or(variant.name());
    let dir = std::path::Path::new(path);
    if dir.join(own).is_dir() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        std::fs::read_dir(entry.path()).is_ok_and(|files| {
            files
                .flatten()
                .any(|file| file.path().extension().is_some_and(|ext| ext == "dtm"))
        })
    })
}

/// The current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Transposition table size, MB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Lines reported.
    pub multipv: usize,
    /// The front end may ask for pondering.
    pub ponder: bool,
    /// Milliseconds kept in hand per move for communication delays.
    pub move_overhead_ms: u64,
    /// The weights file loaded by `EvalFile` (empty: the built-in weights).
    pub eval_file: String,
    /// That file's contents, checked when it was loaded; they replace the current variant's
    /// built-in weights at each search.
    pub eval_data: Option<EvalFile>,
    /// The endgame-table directory of `EGTBPath` (empty: the default directory,
    /// [`crate::egtb::default_dir`], when it holds tables).
    pub egtb_path: String,
    /// `EGTBCache`: MB of decoded table blocks kept in memory (0: tables off).
    pub egtb_cache_mb: usize,
    /// `Book`: a `go` that plays a game (with a clock or a move time) takes its move from
    /// the opening book when the book offers one.
    pub book: bool,
    /// The book file of `BookFile` (empty: the variant's built-in book).
    pub book_file: String,
    /// That file's book, checked when it was loaded (used in its own variant only; in
    /// another, the built-in book of that variant is).
    pub book_data: Option<Arc<Book>>,
    /// `BookPly`.
    pub book_ply: u32,
    /// `BookMargin`, centi-men.
    pub book_margin: i32,
    /// `Skill Level`: 0 (weakest) to [`MAX_LEVEL`] (full strength).
    pub skill_level: u32,
    /// `UCI_LimitStrength`: the level comes from `UCI_Elo` instead of `Skill Level`.
    pub limit_strength: bool,
    /// `UCI_Elo`, on the scale of docs/bench.md's calibration (full strength is
    /// [`skill::FULL_STRENGTH_ELO`]).
    pub elo: i32,
}

impl Options {
    /// The weights `EvalFile` gives `variant`, or `None` for its built-in set.
    pub fn weights_for(&self, variant: Variant) -> Option<EvalSet> {
        self.eval_data.as_ref()?.set_for(variant)
    }

    /// The strength level the options ask for, 0.0 to [`MAX_LEVEL`]: from `UCI_Elo` under
    /// `UCI_LimitStrength` (between two levels for an Elo between theirs), else `Skill Level`.
    pub fn strength(&self) -> f64 {
        if self.limit_strength {
            skill::level_for_elo(self.elo)
        } else {
            f64::from(self.skill_level)
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 64,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: 30,
            eval_file: String::new(),
            eval_data: None,
            egtb_path: String::new(),
            egtb_cache_mb: DEFAULT_EGTB_CACHE_MB,
            book: true,
            book_file: String::new(),
            book_data: None,
            book_ply: DEFAULT_BOOK_PLY,
            book_margin: DEFAULT_BOOK_MARGIN,
            skill_level: MAX_LEVEL,
            limit_strength: false,
            elo: skill::FULL_STRENGTH_ELO,
        }
    }
}

/// A game of some variant, behind one object-safe interface.
pub trait Session: Send {
    /// The variant.
    fn variant(&self) -> Variant;
    /// A new session of the same variant from a FEN (or the start) and moves; `self` is not
    /// touched, so a failure leaves the engine's position as it was.
    fn load(&self, fen: Option<&str>, moves: &[&str]) -> Result<Box<dyn Session>, EngineError>;
    /// The current position as PDN FEN.
    fn fen(&self) -> String;
    /// The current position as a text diagram.
    fn diagram(&self) -> String;
    /// The side to move.
    fn side_to_move(&self) -> Color;
    /// The static evaluation of the current position, centi-men for the side to move, with
    /// `weights` or (`None`) the variant's built-in set.
    fn evaluate(&self, weights: Option<&EvalSet>) -> i32;
    /// The legal moves, as text.
    fn legal_moves(&self) -> Vec<String>;
    /// A line of moves from the current position, as text, up to its first move that is not
    /// legal.
    fn line_text(&self, line: &[Move]) -> Vec<String>;
    /// Perft split by root move.
    fn divide(&self, depth: u32) -> Vec<(String, u64)>;
    /// The game's result, if it is over, as text.
    fn outcome(&self) -> Option<String>;
    /// Starts a search on its own threads.
    fn start_search(&self, request: SearchRequest) -> Result<SearchHandle, EngineError>;
}

/// Everything a search needs besides the position.
pub struct SearchRequest {
    /// The search's number, carried by its events.
    pub id: u64,
    /// Limits.
    pub go: Go,
    /// Options in force.
    pub options: Options,
    /// The shared transposition table.
    pub tt: Arc<TranspositionTable>,
    /// Where events go.
    pub events: Sender<Event>,
    /// Endgame tables of the session's variant, if any.
    pub egtb: Option<Arc<Tables>>,
    /// The opening book to answer from, when this `go` may use one.
    pub book: Option<BookRequest>,
    /// Seeds the random choice of a strength level below full strength.
    pub skill_seed: u64,
}

/// A `go` that may be answered from an opening book.
pub struct BookRequest {
    /// The book.
    pub book: Arc<Book>,
    /// How a move is chosen.
    pub choice: Choice,
    /// The seed of the random choice.
    pub seed: u64,
}

/// A running search.
pub struct SearchHandle {
    shared: Arc<Shared>,
    /// `go ponder` without `infinite`: `ponderhit` puts the search under the clock.
    pondering: bool,
    thread: JoinHandle<()>,
}

impl SearchHandle {
    /// Every search thread stops as soon as it can; the `BestMove` follows.
    fn stop(&self) {
        self.shared.stop();
        // The main thread may be parked, waiting for `stop` after an untimed search.
        self.thread.thread().unpark();
    }

    /// A ponder search goes on under the clock (nothing for any other search).
    fn ponderhit(&mut self) {
        if self.pondering {
            self.pondering = false;
            self.shared.ponderhit();
            self.thread.thread().unpark();
        }
    }
}

struct GameSession<R: Rules> {
    game: Game<R>,
}

impl<R: Rules> GameSession<R> {
    fn position(&self) -> &Position<R> {
        self.game.position()
    }

    /// The book's answer to `request`, when it asks for one and the book offers a move
    /// here: a thread that sends [`Event::Book`] and the `BestMove` at once.
    fn book_answer(&self, request: &SearchRequest) -> Option<SearchHandle> {
        let plan = request.book.as_ref()?;
        let offered = plan.book.moves(self.position());
        let ply = self.game.ply();
        let chosen = choose(&offered, ply, plan.choice, &mut SplitMix(plan.seed))?;
        let (events, id) = (request.events.clone(), request.id);
        let shared = Arc::new(Shared::new(Arc::clone(&request.tt), false));
        let thread = std::thread::Builder::new()
            .name("book".into())
            .spawn(move || {
                let _ = events.send(Event::Book {
                    search: id,
                    chosen,
                    offered,
                });
                let _ = events.send(Event::BestMove {
                    search: id,
                    best: Some(chosen),
                    ponder: None,
                });
            })
            .expect("the system can start a thread");
        Some(SearchHandle {
            shared,
            pondering: false,
            thread,
        })
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

/// Writes a line of moves from `position` on, up to its first move that is not legal.
fn line_text<R: Rules>(position: &Position<R>, line: &[Move]) -> Vec<String> {
    let mut texts = Vec::with_capacity(line.len());
    let mut current = *position;
    for mv in line {
        let legal = current.legal_moves();
        if !legal.as_slice().contains(mv) {
            break;
        }
        texts.push(write_move_in(&current, mv, &legal));
        current = current.play(mv);
    }
    texts
}

impl<R: Rules> Session for GameSession<R> {
    fn variant(&self) -> Variant {
        R::VARIANT
    }

    fn load(&self, fen: Option<&str>, moves: &[&str]) -> Result<Box<dyn Session>, EngineError> {
        let start = match fen {
            None => Position::<R>::start(),
            Some(text) => parse_fen::<R>(text).map_err(|e| EngineError::Fen(e.to_string()))?,
        };
        let mut game = Game::new(start);
        for (index, text) in moves.iter().enumerate() {
            game.play_text(text).map_err(|e| EngineError::Move {
                index,
                message: e.to_string(),
            })?;
        }
        Ok(Box::new(GameSession { game }))
    }

    fn fen(&self) -> String {
        write_fen(self.position())
    }

    fn diagram(&self) -> String {
        diagram(self.position())
    }

    fn side_to_move(&self) -> Color {
        self.position().side_to_move()
    }

    fn evaluate(&self, weights: Option<&EvalSet>) -> i32 {
        match weights {
            None => crate::eval::evaluate(self.position()),
            Some(set) => set.evaluate(self.position()),
        }
    }

    fn legal_moves(&self) -> Vec<String> {
        let position = self.position();
        let legal = position.legal_moves();
        legal
            .iter()
            .map(|mv| write_move_in(position, mv, &legal))
            .collect()
    }

    fn line_text(&self, line: &[Move]) -> Vec<String> {
        line_text(self.position(), line)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        crate::perft::divide(self.position(), depth)
    }

    fn outcome(&self) -> Option<String> {
        self.game.outcome_text()
    }

    fn start_search(&self, request: SearchRequest) -> Result<SearchHandle, EngineError> {
        let root = *self.position();
        if let Some(answer) = self.book_answer(&request) {
            return Ok(answer);
        }
        let legal = root.legal_moves();
        let mut searchmoves = Vec::new();
        for (index, text) in request.go.searchmoves.iter().enumerate() {
            let mv = parse_move_in(&root, text, &legal).map_err(|e| EngineError::Move {
                index,
                message: e.to_string(),
            })?;
            searchmoves.push(mv);
        }
        let id = request.id;
        let plan = SearchPlan::new(
            &request.go,
            (root.side_to_move(), self.game.ply()),
            &request.options,
            searchmoves,
            request.skill_seed,
        );
        let context = GameContext {
            reversible_hashes: {
                let positions: Vec<u64> = self.game.positions().map(|p| p.hash()).collect();
                let keep = self.game.reversible_plies() as usize;
                let current = positions.len() - 1;
                positions[current.saturating_sub(keep)..current].to_vec()
            },
        };
        request.tt.new_search();
        let weights = request.options.weights_for(R::VARIANT);
        let shared = Arc::new(
            Shared::new(Arc::clone(&request.tt), plan.untimed)
                .with_weights(weights)
                .with_egtb(request.egtb),
        );
        let threads = request.options.threads.max(1);
        let events = request.events;
        let thread_shared = Arc::clone(&shared);
        let limits = plan.limits;
        let thread = std::thread::Builder::new()
            .name("search-0".into())
            .spawn(move || {
                run_search::<R>(root, context, limits, threads, thread_shared, events, id);
            })
            .expect("the system can start a search thread");
        Ok(SearchHandle {
            shared,
            pondering: plan.pondering,
            thread,
        })
    }
}

/// What a search under one `go` obeys.
struct SearchPlan {
    /// The search's limits.
    limits: Limits,
    /// Time limits do not apply (`infinite`, `ponder`, or no limit at all): the search ends
    /// on `stop` (or `ponderhit`) only.
    untimed: bool,
    /// `ponderhit` puts the search under the clock.
    pondering: bool,
}

impl SearchPlan {
    /// The one conversion from a front end's [`Go`] to the search's [`Limits`]: the clock of
    /// the side to move `us`, `ply` plies into the game, or the move time becomes a time
    /// budget (less the move overhead); `searchmoves` are `go`'s root moves, already read. A
    /// strength level below full strength adds its node budget and its choice (seeded by
    /// `skill_seed`).
    fn new(
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

/// The main search thread: starts the helpers, searches, waits while untimed, reports.
fn run_search<R: Rules>(
    root: Position<R>,
    context: GameContext,
    limits: Limits,
    threads: usize,
    shared: Arc<Shared>,
    events: Sender<Event>,
    id: u64,
) {
    let outcome = std::thread::scope(|scope| {
        for id in 1..threads {
            let (shared, limits, context) = (&*shared, &limits, &context);
            scope.spawn(move || {
                let mut helper = Searcher::<R>::new(shared, limits, id);
                helper.run(&root, context, &mut |_| {});
            });
        }
        let mut main = Searcher::<R>::new(&shared, &limits, 0);
        // A strength level may score more lines than the front end asked for: those are not
        // reported.
        let outcome = main.run(&root, &context, &mut |iteration: &Iteration| {
            if iteration.multipv <= limits.multipv.max(1) {
                let _ = events.send(Event::Info(info_of(&root, iteration, &shared, id)));
            }
        });
        shared.finish();
        outcome
    });
    // `go infinite` and `go ponder` may not answer before `stop` (or `ponderhit`).
    // `Engine::stop` and `Engine::ponderhit` unpark this thread, so the answer is not held up
    // by a polling interval; the timeout only guards against a missed wake-up.
    while shared.untimed() && !shared.stop_requested() {
        std::thread::park_timeout(Duration::from_millis(5));
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

fn info_of<R: Rules>(root: &Position<R>, iteration: &Iteration, shared: &Shared, id: u64) -> Info {
    let time_ms = iteration.time_ms;
    Info {
        search: id,
        depth: iteration.depth,
        seldepth: iteration.seldepth,
        multipv: iteration.multipv,
        score: Score::from_search(iteration.score),
        nodes: iteration.nodes,
        nps: iteration.nodes * 1000 / time_ms.max(1),
        hashfull: shared.table().hashfull(),
        tbhits: shared.tbhits(),
        time_ms,
        pv: legal_prefix(root, &iteration.pv),
    }
}

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

    /// Sets an option by name (case-insensitive, as UCI allows): [`Engine::check_option`],
    /// then [`Engine::apply`]. Refused while searching for the options that touch the table
    /// or the game (`Hash`, `Clear Hash`, `Variant`, `EGTBPath`); the others take effect at
    /// the next `go`.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let setting = self.check_option(name, value)?;
        self.apply(setting)
    }

    /// Makes the change a checked value makes.
    pub fn apply(&mut self, setting: Setting) -> Result<(), EngineError> {
        (setting.apply)(self)
    }

    /// Reads an option's name and value without changing anything: the setting it would make,
    /// or why it is refused. A file the value names (`EvalFile`, `EGTBPath`) is read and
    /// checked here, so that a bad one is refused whole and what is in force stays.
    pub fn check_option(&self, name: &str, value: &str) -> Result<Setting, EngineError> {
        let option = OPTIONS
            .iter()
            .find(|option| option.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| EngineError::UnknownOption(name.trim().to_string()))?;
        let value = value.trim();
        let bad = |expected: String| EngineError::BadOptionValue {
            name: option.name.to_string(),
            value: value.to_string(),
            expected,
        };
        let apply: Apply = match option.handler {
            Handler::Spin {
                min, max, apply, ..
            } => {
                let number: i64 = value
                    .parse()
                    .ok()
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| bad(format!("an integer from {min} to {max}")))?;
                Box::new(move |engine| apply(engine, number))
            }
            Handler::Check { apply, .. } => {
                let flag = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad("true or false".into())),
                };
                Box::new(move |engine| apply(engine, flag))
            }
            Handler::Variant { apply } => {
                let variant: Variant = value.parse().map_err(|_| {
                    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
                    bad(format!("one of {}", names.join(", ")))
                })?;
                Box::new(move |engine| apply(engine, variant))
            }
            Handler::Button { apply } => Box::new(apply),
            Handler::Path { read } => {
                let path = (!value.is_empty() && value != "<empty>").then_some(value);
                read(self, path).map_err(bad)?
            }
        };
        Ok(Setting {
            name: option.name,
            apply,
        })
    }

    /// `Err(Busy)` while a search runs.
    fn refuse_while_searching(&self, what: &'static str) -> Result<(), EngineError> {
        if self.is_searching() {
            Err(EngineError::Busy(what))
        } else {
            Ok(())
        }
    }

    /// `Hash`: a new, empty table of `megabytes`; if that much cannot be had, the old size is
    /// kept (empty too: the old table is freed first, so the two are never held at once).
    fn set_hash(&mut self, megabytes: i64) -> Result<(), EngineError> {
        self.refuse_while_searching("resize the hash")?;
        // The finished search's handle holds the last other reference to the table.
        self.search = None;
        if Arc::get_mut(&mut self.tt).is_none() {
            // Still shared (cannot happen once the search is dropped): a table of our own.
            self.tt = Arc::new(TranspositionTable::new(1));
        }
        let table = Arc::get_mut(&mut self.tt).expect("the engine's own table");
        let resized = table.try_resize(megabytes as usize, self.options.hash_mb);
        if !resized {
            return Err(EngineError::BadOptionValue {
                name: "Hash".into(),
                value: megabytes.to_string(),
                expected: format!(
                    "a size this machine can allocate (kept {} MB)",
                    self.options.hash_mb
                ),
            });
        }
        self.options.hash_mb = megabytes as usize;
        Ok(())
    }

    /// `EvalFile`: the file's text, checked as weights of the current variant (`None`: the
    /// built-in weights).
    fn read_eval_file(&self, path: Option<&str>) -> Result<Apply, String> {
        let loaded = match path {
            None => None,
            Some(path) => {
                let bytes =
                    std::fs::read(path).map_err(|e| format!("a readable weights file ({e})"))?;
                let data = EvalFile::read(&bytes, self.variant())
                    .map_err(|e| format!("a weights file ({e})"))?;
                Some((path.to_string(), data))
            }
        };
        Ok(Box::new(move |engine| {
            let (file, data) = loaded.unzip();
            engine.options.eval_file = file.unwrap_or_default();
            engine.options.eval_data = data;
            Ok(())
        }))
    }

    /// `EGTBPath`: the current variant's tables under the directory, every file's header
    /// checked (`None`: the default directory's tables, if it holds any). A directory that
    /// holds tables of other variants only is kept without opening any, so that `Variant`
    /// may come after `EGTBPath` (GUIs send options in their own order): the tables open
    /// when the variant switches to one of them. With `EGTBCache` 0 the directory is
    /// checked and kept, and no table is probed.
    fn read_egtb_path(&self, path: Option<&str>) -> Result<Apply, String> {
        let cache_mb = self.options.egtb_cache_mb;
        let (path, loaded) = match path {
            None => (String::new(), default_tables(self.variant(), cache_mb)),
            Some(path) => match load_tables(path, self.variant(), cache_mb.max(1)) {
                Ok(loaded) => (path.to_string(), Some(loaded).filter(|_| cache_mb > 0)),
                Err(_) if holds_other_tables(path, self.variant()) => (path.to_string(), None),
                Err(e) => return Err(format!("a table directory ({e})")),
            },
        };
        Ok(Box::new(move |engine| {
            engine.refuse_while_searching("change the endgame tables")?;
            engine.options.egtb_path = path;
            engine.egtb = loaded;
            Ok(())
        }))
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

    /// `EGTBCache`: the tables reopened with a cache of the new size (0: no tables probed).
    fn set_egtb_cache(&mut self, megabytes: i64) -> Result<(), EngineError> {
        self.refuse_while_searching("resize the endgame-table cache")?;
        self.options.egtb_cache_mb = megabytes as usize;
        // The finished search's handle may hold the old tables: let them go first.
        self.search = None;
        self.egtb = None;
        self.egtb = self.tables_for(self.variant());
        Ok(())
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

    /// Sets the position from a FEN (or the start) and moves; on error nothing changes.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), EngineError> {
        if self.is_searching() {
            return Err(EngineError::Busy("set the position"));
        }
        self.session = self.session.load(fen, moves)?;
        Ok(())
    }

    /// Starts a search; returns at once with its number, which its events carry. A search still
    /// running is stopped first (it sends its own `BestMove`).
    pub fn go(&mut self, go: Go) -> Result<u64, EngineError> {
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
        })?;
        self.searches += 1;
        self.search = Some(handle);
        Ok(id)
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

    /// `BookFile`: the book, read and checked (`None`: no book file).
    fn read_book_file(&self, path: Option<&str>) -> Result<Apply, String> {
        let loaded = match path {
            None => None,
            Some(path) => {
                let book = Book::read(std::path::Path::new(path))
                    .map_err(|e| format!("a book file ({e})"))?;
                Some((path.to_string(), Arc::new(book)))
            }
        };
        Ok(Box::new(move |engine| {
            let (file, book) = loaded.unzip();
            engine.options.book_file = file.unwrap_or_default();
            engine.options.book_data = book;
            Ok(())
        }))
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

/// A fresh game of `variant` at its start position.
pub fn session_for(variant: Variant) -> Box<dyn Session> {
    with_variant!(variant, R => Box::new(GameSession::<R> { game: Game::default() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The listed default of every option is what a fresh engine has: setting each option to
    /// its listed default changes nothing.
    #[test]
    fn listed_defaults_are_the_defaults_in_force() {
        let (mut engine, _events) = Engine::new();
        for spec in option_specs() {
            let value = match spec.kind {
                OptionKind::Spin { default, .. } => default.to_string(),
                OptionKind::Check { default } => default.to_string(),
                OptionKind::Combo { default, .. } => default.to_string(),
                OptionKind::Text { default } => default.to_string(),
                OptionKind::Button => continue,
            };
            engine.set_option(spec.name, &value).unwrap();
            assert_eq!(engine.options(), &Options::default(), "{}", spec.name);
            assert_eq!(engine.variant(), Variant::default(), "{}", spec.name);
        }
    }

    /// A value is checked against its option's own kind and bounds, and a refused value
    /// changes nothing.
    #[test]
    fn each_option_reads_its_own_kind() {
        let (mut engine, _events) = Engine::new();
        engine.set_option("hash", " 2 ").unwrap();
        engine.set_option("MULTIPV", "3").unwrap();
        engine.set_option("Move Overhead", "0").unwrap();
        engine.set_option("Ponder", "TRUE").unwrap();
        engine.set_option("Variant", "english").unwrap();
        let before = engine.options().clone();
        assert_eq!(before.hash_mb, 2);
        assert_eq!(before.multipv, 3);
        assert_eq!(before.move_overhead_ms, 0);
        assert!(before.ponder);
        assert_eq!(engine.variant(), Variant::English);
        for (name, value) in [
            ("Hash", "0"),
            ("Hash", "4097"),
            ("Threads", "two"),
            ("Ponder", "1"),
            ("Variant", "chess"),
            ("EvalFile", "/no/such/file"),
            ("EGTBPath", "/no/such/dir"),
        ] {
            let error = engine.set_option(name, value).unwrap_err();
            assert!(
                matches!(error, EngineError::BadOptionValue { .. }),
                "{name} {value}: {error}"
            );
            assert_eq!(engine.options(), &before, "{name} {value}");
            assert_eq!(engine.variant(), Variant::English);
        }
        assert!(matches!(
            engine.set_option("Hashes", "1"),
            Err(EngineError::UnknownOption(_))
        ));
        engine.set_option("Clear Hash", "").unwrap();
        assert_eq!(
            engine.check_option("ponder", "false").unwrap().name(),
            "Ponder"
        );
    }

    /// A binary weights file (block tables) loads for its board and gives the evaluation it
    /// holds; a damaged one, or one for another board, is refused and changes nothing.
    #[test]
    fn a_binary_weights_file_is_checked_before_it_is_used() {
        let dir = std::env::temp_dir().join(format!("damka-evalfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("international.dkw");
        let mut patterns =
            crate::eval::Patterns::zero(10, crate::eval::weights::INTERNATIONAL.to_text());
        for (i, pair) in patterns.weights.iter_mut().enumerate() {
            *pair = [(i % 97) as i16 - 48, (i % 89) as i16 - 44];
        }
        let bytes = &patterns.to_bytes()[..];
        std::fs::write(&good, bytes).unwrap();
        let truncated = dir.join("truncated.dkw");
        std::fs::write(&truncated, &bytes[..bytes.len() - 100]).unwrap();
        let mut damaged_bytes = bytes.to_vec();
        damaged_bytes[bytes.len() / 2] ^= 0x40;
        let damaged = dir.join("damaged.dkw");
        std::fs::write(&damaged, &damaged_bytes).unwrap();

        let (mut engine, _events) = Engine::new();
        engine.set_option("Variant", "international").unwrap();
        engine
            .set_position(
                Some(
                    "W:W27,30,33,35,36,37,38,43,45,46,47,48,50:B1,2,3,5,6,10,11,12,13,17,19,23,24",
                ),
                &[],
            )
            .unwrap();
        let set = crate::eval::EvalSet {
            weights: crate::eval::weights::INTERNATIONAL,
            patterns: Some(std::sync::Arc::new(patterns.clone())),
        };
        let position = crate::notation::fen::parse_fen::<crate::rules::International>(
            "W:W27,30,33,35,36,37,38,43,45,46,47,48,50:B1,2,3,5,6,10,11,12,13,17,19,23,24",
        )
        .unwrap();
        let expected = set.evaluate(&position);
        let without = crate::eval::EvalSet {
            patterns: None,
            ..set.clone()
        };
        assert_ne!(expected, without.evaluate(&position), "the tables count");
        engine
            .set_option("EvalFile", good.to_str().unwrap())
            .unwrap();
        assert_eq!(engine.evaluate(), expected);
        let before = engine.options().clone();
        for (file, reason) in [(&truncated, "truncated"), (&damaged, "checksum")] {
            let error = engine
                .set_option("EvalFile", file.to_str().unwrap())
                .unwrap_err();
            assert!(error.to_string().contains(reason), "{error}");
            assert_eq!(engine.options(), &before);
        }
        engine.set_option("EvalFile", "").unwrap();
        engine.set_option("Variant", "english").unwrap();
        let error = engine
            .set_option("EvalFile", good.to_str().unwrap())
            .unwrap_err();
        assert!(error.to_string().contains("10x10"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
