//! An engine's answers as the match tool reads them, whatever its protocol: a move ([`Reply`]) or why there is none ([`Failure`]), and how long start-up may take.

use damka::position::Move;
use std::time::Duration;

/// How long an engine may take to start up, answer `isready` or set its options.
pub const STARTUP: Duration = Duration::from_secs(30);

/// A score above this (centi-men) is a forced win, as the engines report it.
pub const WIN_SCORE: i32 = 9000;

/// Why an engine gave no move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process ended or closed its output (or could not be written to).
    Crashed(String),
    /// No answer within the allowed time.
    Hung(Duration),
    /// A DXP engine gave up (GAMEEND "I lose" on its turn).
    Resigned,
    /// A DXP engine ended the game on its turn after the request's number of moves.
    MoveLimit(u32),
    /// A DXP engine ended a game that is not over, for no accepted reason.
    EndedGame(String),
}

/// An engine's answer to one `go`.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The move as the engine wrote it.
    pub text: String,
    /// The legal move it names, or why it names none.
    pub mv: Result<Move, String>,
    /// Its last score, centi-men from the mover's side (a forced win is `WIN_SCORE` or more).
    pub score: Option<i32>,
    /// From the `go` to the answer.
    pub elapsed: Duration,
}
