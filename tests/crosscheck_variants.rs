//! Cross-checks the Frisian, frysk! and Turkish move sets against pydraughts 0.6.7 on positions from random games (as `tests/crosscheck.rs` does for the other variants).
//!
//! A file of its own so that each cross-check file stays within the test-time budget.

use crate::common;

use common::oracle::{
    Library, OracleLine, POSITIONS, compare_with_kings, cross_check, oracle_move, oracle_moves,
    pydraughts, run_oracle,
};
use damka::game::Game;
use damka::notation::fen::write_fen;
use damka::rules::Frisian;

common::test_cases! {
    /// Frisian: pydraughts counts a king as 1.501 men where the rules (lidraughts' 199 against
    /// 100, DCTL) make `n` kings worth just under `2n` men; the two only part when one capture
    /// takes three kings more and five men fewer than another, which random games never reach.
    /// The oracle computes each move set from the FEN alone (no limit on a king's moves in a
    /// row, which depends on the moves before), as damka reads the FEN.
    pydraughts_frisian: cross_check::<Frisian>(Library::Pydraughts, "frisian", 17, 10);
    pydraughts_frysk: cross_check::<damka::rules::Frysk>(Library::Pydraughts, "frysk", 18, 10);
}

/// Turkish: pydraughts 0.6.7's flying kings are wrong (`tests/data/perft.json` notes; a king
/// slides through its own men), so positions where the side to move has a king are left out
/// here; `tests/turkish.rs` checks king moves on hand-worked positions and against kish.
/// The random games give more than 2,500 positions, keeping every quiet one (the oracle
/// otherwise keeps positions with kings first), so that enough remain.
#[test]
fn pydraughts_turkish() {
    let lines = run_oracle(
        Library::Pydraughts,
        "turkish",
        19,
        3900,
        &["--quiet-keep", "1"],
    );
    let without_kings: Vec<OracleLine> = lines
        .into_iter()
        .filter(|line| {
            let mut parts = line.fen.split(':');
            let side = parts.next().unwrap_or_default();
            !parts.any(|list| list.starts_with(side) && list.contains('K'))
        })
        .collect();
    assert!(
        without_kings.len() >= POSITIONS,
        "only {} Turkish positions without a king of the side to move",
        without_kings.len()
    );
    compare_with_kings::<damka::rules::Turkish>(&without_kings, "pydraughts", 1000);
}

/// Frisian with history: whole random games from pydraughts, each position's move set as
/// pydraughts gives it knowing the game so far, against damka's `Game` replaying the same
/// moves. This is where the limit of three king moves in a row shows (pydraughts derives it
/// from its move stack, damka from the run kept in the position).
#[test]
fn pydraughts_frisian_games_with_history() {
    let output = common::succeeded(
        std::process::Command::new(pydraughts())
            .arg(common::repo_root().join("tests/crosscheck/pydraughts_oracle.py"))
            .args(["--variant", "frisian", "--games", "80", "--seed", "31"])
            .args(["--max-plies", "200"]),
        "pydraughts_oracle.py --games",
    );
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    let mut game: Option<Game<Frisian>> = None;
    let (mut positions, mut barred) = (0, 0);
    for line in text.lines() {
        if line == "GAME" {
            game = Some(Game::default());
            continue;
        }
        let game = game.as_mut().expect("a GAME line first");
        let mut fields = line.split('\t');
        let fen = fields.next().expect("a FEN");
        let mut theirs: Vec<&str> = fields
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        theirs.sort_unstable();
        let played = fields.next().unwrap_or_default();
        assert_eq!(write_fen(game.position()), fen, "the games went apart");
        let ours = oracle_moves(game.position());
        assert_eq!(ours, theirs, "{fen} after {} plies", game.ply());
        positions += 1;
        barred += usize::from(game.position().king_steps_barred() != 0);
        if played.is_empty() {
            continue;
        }
        let mv = *game
            .legal_moves()
            .iter()
            .find(|mv| oracle_move::<Frisian>(mv) == played)
            .unwrap_or_else(|| panic!("{played} is not legal for damka in {fen}"));
        game.play(mv);
    }
    assert!(positions > 2000, "only {positions} positions");
    assert!(
        barred >= 5,
        "the king-move limit applied in only {barred} positions"
    );
}
