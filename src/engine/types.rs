//! The facade's public vocabulary: a `go` as a front end read it (`Go`), the `Event`s a search sends back (`Info`, `Score`) and `EngineError`.

use crate::book::BookMove;
use crate::position::Move;
use crate::rules::Color;
use crate::search::score::{WIN, WIN_BOUND};
use std::fmt;

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
/// notation (for the UCI dialect, [`Session::line_text`](super::Session::line_text) of the searched position).
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// The search this belongs to (the number [`Engine::go`](super::Engine::go) returned).
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
        /// The search this ends (the number [`Engine::go`](super::Engine::go) returned).
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
    /// them against [`Session::game`](super::Session::game)).
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
    pub(super) fn clock_of(&self, side: Color) -> (Option<i64>, Option<i64>) {
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
