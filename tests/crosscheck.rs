//! Cross-checks damka's legal move sets against two independent libraries, pydraughts and py-draughts, on positions they reach by random playouts.
//!
//! The oracles (`tests/crosscheck/*.py`) run in their own virtual environments under
//! `target/pyenv/`, made by `scripts/pyenv.sh`; they print each position as a PDN FEN and its
//! legal moves as `from-to` or `fromxto:captured,...`. A missing Python or a failed install
//! fails these tests with the script's message: they are never skipped.

use crate::common;
use common::oracle::Library::{PyDraughts, Pydraughts};
use common::oracle::cross_check;
use damka::rules::{Antidraughts, Brazilian, Breakthrough, English, International, Russian};

common::test_cases! {
    pydraughts_international: cross_check::<International>(Pydraughts, "international", 11, 10);
    pydraughts_english: cross_check::<English>(Pydraughts, "english", 12, 10);
    pydraughts_russian: cross_check::<Russian>(Pydraughts, "russian", 13, 10);
    pydraughts_brazilian: cross_check::<Brazilian>(Pydraughts, "brazilian", 14, 10);
    pydraughts_antidraughts: cross_check::<Antidraughts>(Pydraughts, "antidraughts", 15, 10);
    /// The first king ends a breakthrough game, so only the last position of a game holds one.
    pydraughts_breakthrough: cross_check::<Breakthrough>(Pydraughts, "breakthrough", 16, 100);
    py_draughts_international: cross_check::<International>(PyDraughts, "international", 21, 10);
    py_draughts_russian: cross_check::<Russian>(PyDraughts, "russian", 22, 10);
    py_draughts_brazilian: cross_check::<Brazilian>(PyDraughts, "brazilian", 23, 10);
}
