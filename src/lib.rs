//! damka: a draughts and checkers engine library: rules, notation, games, perft, endgame tables, search, the engine facade and the protocol drivers.
//!
//! The command-line programs (`damka play`, `match`, `tune`, `towers`, `bench`, ...) are
//! private modules of the `damka` binary (`src/bin/damka/`), not part of this API.
#![deny(missing_docs)]

#[macro_use]
mod macros;

pub mod any_game;
pub mod board;
pub mod book;
pub mod checkerboard;
pub mod egtb;
pub mod engine;
pub mod eval;
pub mod game;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
pub mod protocol;
pub mod random;
pub mod rules;
pub mod search;

pub use any_game::AnyGame;
pub use board::{Bitboard, Bits, Board8, Board10, Board64, Dir, Geometry};
pub use movegen::MoveList;
pub use position::{Move, Position};
pub use rules::{Color, Rules, Variant};
