//! Cross-checks damka's legal move sets against two independent libraries, pydraughts and py-draughts, on positions they reach by random playouts.
//!
//! The oracles (`tests/crosscheck/*.py`) run in their own virtual environments under
//! `target/pyenv/`, made by `scripts/pyenv.sh`; they print each position as a PDN FEN and its
//! legal moves as `from-to` or `fromxto:captured,...`. A missing Python or a failed install
//! fails these tests with the script's message: they are never skipped.

mod common;

common::oracle::cross_checks! {
    pydraughts_international: International, Pydraughts, "international", 11, 10;
    pydraughts_english: English, Pydraughts, "english", 12, 10;
    pydraughts_russian: Russian, Pydraughts, "russian", 13, 10;
    pydraughts_brazilian: Brazilian, Pydraughts, "brazilian", 14, 10;
    pydraughts_antidraughts: Antidraughts, Pydraughts, "antidraughts", 15, 10;
    /// The first king ends a breakthrough game, so only the last position of a game holds one.
    pydraughts_breakthrough: Breakthrough, Pydraughts, "breakthrough", 16, 100;
    py_draughts_international: International, PyDraughts, "international", 21, 10;
    py_draughts_russian: Russian, PyDraughts, "russian", 22, 10;
    py_draughts_brazilian: Brazilian, PyDraughts, "brazilian", 23, 10;
}
