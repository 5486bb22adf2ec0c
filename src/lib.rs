//! damka: a draughts and checkers engine library: rules, notation, games, perft, endgame tables, search, the engine facade and the protocol drivers.
//!
//! The command-line programs (`damka play`, `match`, `tune`, `towers`, `bench`, ...) are
//! private modules of the `damka` binary (`src/bin/damka/`), not part of this API.
#![deny(missing_docs)]

/// Declares an error type that is one message: a tuple struct around the `String`, which
/// `Display` writes as it is (the doc comment given goes on the struct).
macro_rules! message_error {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name(pub String);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::error::Error for $name {}
    };
}

/// `#[test]` functions of one line each, for the unit tests of the library and the binary
/// that run generic checks on several rules or boards: `name: check::<Type>(), ...;` is a
/// test `name` that runs the checks in turn (doc comments go before the name).
#[doc(hidden)]
#[macro_export]
macro_rules! generic_tests {
    ($($(#[$doc:meta])* $name:ident: $($check:expr),+;)*) => {$(
        $(#[$doc])*
        #[test]
        fn $name() {
            $($check;)+
        }
    )*};
}

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
