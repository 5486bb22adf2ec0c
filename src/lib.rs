//! damka: a draughts and checkers engine library (rules, notation, games, perft).
#![deny(missing_docs)]

pub mod bench;
pub mod board;
pub mod cli;
pub mod egtb;
pub mod engine;
pub mod eval;
pub mod game;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod tools;
pub mod towers;

pub use board::{Bitboard, Bits, Board8, Board10, Board64, Dir, Geometry};
pub use movegen::MoveList;
pub use position::{Move, Position};
pub use rules::{Color, Rules, Variant};
