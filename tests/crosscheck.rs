//! Cross-checks damka's legal move sets against two independent libraries, pydraughts and py-draughts, on positions they reach by random playouts.
//!
//! The oracles (`tests/crosscheck/*.py`) run in their own virtual environments under
//! `target/pyenv/`, made by `scripts/pyenv.sh`; they print each position as a PDN FEN and its
//! legal moves as `from-to` or `fromxto:captured,...`. A missing Python or a failed install
//! fails these tests with the script's message: they are never skipped.

mod common;

use common::oracle::{compare, compare_with_kings, py_draughts, pydraughts, run_oracle};

#[test]
fn pydraughts_international() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "international", 11);
    compare::<damka::rules::International>(&lines, "pydraughts");
}

#[test]
fn pydraughts_english() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "english", 12);
    compare::<damka::rules::English>(&lines, "pydraughts");
}

#[test]
fn pydraughts_russian() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "russian", 13);
    compare::<damka::rules::Russian>(&lines, "pydraughts");
}

#[test]
fn pydraughts_brazilian() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "brazilian", 14);
    compare::<damka::rules::Brazilian>(&lines, "pydraughts");
}

#[test]
fn pydraughts_antidraughts() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "antidraughts", 15);
    compare::<damka::rules::Antidraughts>(&lines, "pydraughts");
}

/// The first king ends a breakthrough game, so only the last position of a game holds one.
#[test]
fn pydraughts_breakthrough() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "breakthrough", 16);
    compare_with_kings::<damka::rules::Breakthrough>(&lines, "pydraughts", 100);
}

#[test]
fn py_draughts_international() {
    let lines = run_oracle(&py_draughts(), "pydraughts2_oracle.py", "international", 21);
    compare::<damka::rules::International>(&lines, "py-draughts");
}

#[test]
fn py_draughts_russian() {
    let lines = run_oracle(&py_draughts(), "pydraughts2_oracle.py", "russian", 22);
    compare::<damka::rules::Russian>(&lines, "py-draughts");
}

#[test]
fn py_draughts_brazilian() {
    let lines = run_oracle(&py_draughts(), "pydraughts2_oracle.py", "brazilian", 23);
    compare::<damka::rules::Brazilian>(&lines, "py-draughts");
}
