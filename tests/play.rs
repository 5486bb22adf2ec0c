//! `damka play` driven through a pipe: whole games, bad input, undo, hint, and PDN files that pydraughts 0.6.7 replays.
//!
//! The scripted human picks moves by number (`1`: the first move of the printed list), so the
//! scripts need no knowledge of the engine's replies. Games are checked against pydraughts
//! (`tests/play/pdn_replay.py`, in the venv of `scripts/pyenv.sh`): every saved move is legal
//! on its board, the game is not over before its last move, and its verdict at the end is
//! the result we wrote.

use crate::common;

use common::process::{run_damka, run_damka_ok};
use common::{SplitMix, pydraughts_replay};
use std::path::{Path, PathBuf};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn play(args: &[&str], script: impl AsRef<[u8]>) -> String {
    run_damka_ok("play", args, script.as_ref(), LIMIT).stdout
}

/// A fresh path under target/test-play for a file a test writes.
fn scratch(name: &str) -> PathBuf {
    common::scratch("test-play", name)
}

/// The one game of a PDN file, checked move by move by pydraughts.
fn replayed_game(path: &Path, variant: &str) -> serde_json::Value {
    let games = pydraughts_replay(path, variant);
    assert_eq!(games.len(), 1, "{games:?}");
    let game = games[0].clone();
    assert!(game["illegal"].is_null(), "pydraughts: illegal {game}");
    assert_eq!(game["replayed"], game["moves"], "{game}");
    game
}

/// The moves of a transcript, in order: `You play X.` and `damka (...) plays X`.
fn transcript_moves(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|line| {
            let rest = line
                .split_once("You play ")
                .map(|(_, r)| r.trim_end_matches('.'))
                .or_else(|| line.split_once(") plays ").map(|(_, r)| r))?;
            Some(
                rest.split_whitespace()
                    .next()?
                    .trim_end_matches('.')
                    .to_string(),
            )
        })
        .collect()
}

/// The result announced in a transcript: `Result 1-0: ...`.
fn announced_result(output: &str) -> Option<String> {
    output.lines().find_map(|line| {
        let rest = line.split_once("Result ")?.1;
        Some(rest.split(':').next()?.to_string())
    })
}

/// The moves of a PDN file as text (move numbers and the result left out).
fn pdn_moves(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("read the saved PDN");
    text.lines()
        .filter(|l| !l.starts_with('['))
        .flat_map(str::split_whitespace)
        .filter(|t| {
            !t.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1"].contains(t)
        })
        .map(str::to_string)
        .collect()
}

/// Plays a whole game picking the first listed move each turn, saves it, takes back the last
/// move pair, saves again; pydraughts must agree with every move and with the result.
fn whole_game(variant: &str, side: &str, check_verdict: bool) {
    let finished = scratch(&format!("{variant}-finished.pdn"));
    let undone = scratch(&format!("{variant}-undone.pdn"));
    let mut script = "1\n".repeat(1500);
    script.push_str(&format!(
        "save {}\nundo\nsave {}\nquit\n",
        finished.display(),
        undone.display()
    ));
    let out = play(
        &["--variant", variant, "--side", side, "--depth", "1"],
        &script,
    );
    let result = announced_result(&out).unwrap_or_else(|| panic!("no result announced:\n{}", out));
    let moves = transcript_moves(&out);
    let saved = pdn_moves(&finished);
    // The transcript's moves before the undo are the saved game (PDN writes `x` for `:`).
    let moves: Vec<String> = moves.iter().map(|m| m.replace(':', "x")).collect();
    assert_eq!(moves[..saved.len()], saved[..], "{}", out);
    let game = replayed_game(&finished, variant);
    assert_eq!(game["tags"]["Result"], result.as_str(), "{game}");
    assert_eq!(game["ending"], result.as_str(), "{game}");
    let pydraughts_winner = match result.as_str() {
        "1-0" | "2-0" => "white",
        "0-1" | "0-2" => "black",
        _ => "draw",
    };
    if check_verdict || pydraughts_winner != "draw" {
        assert_eq!(game["winner"], pydraughts_winner, "{game}");
    }
    if check_verdict {
        assert_eq!(game["over_early"], false, "{game}");
    }
    // Undo after the end: back to the human's turn, one or two plies earlier.
    let after_undo = replayed_game(&undone, variant);
    assert_eq!(after_undo["tags"]["Result"], "*", "{after_undo}");
    let taken = saved.len() - pdn_moves(&undone).len();
    assert!(taken == 1 || taken == 2, "undo took back {taken} plies");
    assert!(out.contains("Took back "), "{}", out);
}

#[test]
fn english_game_to_its_end_is_replayed_by_pydraughts() {
    // pydraughts' English draw rules (threefold, 40 king moves each) are ours, so even a
    // draw must be its verdict too.
    whole_game("english", "black", true);
}

#[test]
fn russian_game_with_the_engine_moving_first() {
    // Algebraic moves; pydraughts' Russian draw rules are not ours, so only wins are compared.
    whole_game("russian", "black", false);
    whole_game("russian", "white", false);
}

#[test]
fn bad_input_is_explained_and_asked_again() {
    let script = "\n\
        foo\n\
        0\n\
        99\n\
        11-16x\n\
        12-13\n\
        5-9\n\
        40-44\n\
        save\n\
        hint hint\n\
        \u{7f}\u{1b}[A\n\
        11-15\n\
        board\n\
        quit\n";
    let out = &play(&["--depth", "1"], script);
    for expected in [
        "Bad move 'foo'",
        "There is no move number 0",
        "There is no move number 99",
        "Illegal move '12-13'",
        "Illegal move '5-9'",
        "'40' is off the board",
        "save needs a file name",
        "You play 11-15.",
        "damka (white) plays ",
        "Goodbye.",
    ] {
        assert!(out.contains(expected), "no '{expected}' in:\n{out}");
    }
    // Every bad line was followed by the prompt again, and the game went on.
    assert_eq!(transcript_moves(out).len(), 2, "{out}");
}

#[test]
fn random_garbage_never_stops_the_game() {
    let mut random = SplitMix(0x5eed_9a3e);
    // `save` is always followed by a path into a folder that does not exist, so whatever
    // words follow, nothing is written.
    let nowhere = format!("save {}/", scratch("no-such-folder").display());
    let pieces = [
        "11-15",
        "x",
        "-",
        ":",
        "22x15",
        "c3-d4",
        "c3:e5",
        "G6-F5",
        "undo",
        "hint",
        "1",
        "7",
        "0",
        "-1",
        "99999999999999999999",
        &nowhere,
        "moves",
        "  ",
        "é",
        "\u{0}",
        "\t",
        "#",
    ];
    let mut script = Vec::new();
    for _ in 0..300 {
        let words = 1 + random.below(3);
        for w in 0..words {
            if w > 0 {
                script.push(b' ');
            }
            if random.percent(10) {
                // Bytes that are not UTF-8.
                script.extend_from_slice(&[0xff, 0xfe, random.next_u64() as u8]);
            } else {
                script.extend_from_slice(random.pick(&pieces).as_bytes());
            }
        }
        script.push(b'\n');
    }
    script.extend_from_slice(b"quit\n");
    let out = play(&["--depth", "1"], &script);
    assert!(out.contains("Goodbye."), "{out}");
    assert!(out.contains("Cannot write "), "{out}");
}

#[test]
fn undo_takes_back_the_reply_and_your_move() {
    let before = scratch("undo-before.pdn");
    let after = scratch("undo-after.pdn");
    let script = format!(
        "undo\n11-15\nundo\nundo\nsave {}\n9-13\nsave {}\nquit\n",
        before.display(),
        after.display()
    );
    let out = &play(&["--depth", "2"], &script);
    let moves = transcript_moves(out);
    assert_eq!(moves.len(), 4, "{out}");
    assert_eq!(moves[0], "11-15");
    assert!(
        out.contains(&format!("Took back 11-15 {}.", moves[1])),
        "{out}"
    );
    assert_eq!(
        out.matches("Nothing to undo").count(),
        2,
        "undo at the start and after taking everything back:\n{out}"
    );
    assert!(pdn_moves(&before).is_empty(), "{:?}", pdn_moves(&before));
    assert_eq!(
        pdn_moves(&after),
        vec!["9-13".to_string(), moves[3].clone()]
    );
    replayed_game(&after, "english");
}

#[test]
fn with_the_white_pieces_the_engine_opens_and_undo_waits_for_a_move() {
    let out = &play(
        &["--side", "white", "--depth", "1"],
        "undo\n1\nundo\nquit\n",
    );
    let moves = transcript_moves(out);
    // The engine's opening, our move and its reply; the undo takes back the last two.
    assert_eq!(moves.len(), 3, "{out}");
    assert!(out.contains("Nothing to undo"), "{out}");
    assert!(
        out.contains(&format!("Took back {} {}.", moves[1], moves[2])),
        "{out}"
    );
    assert!(out.find("damka (black) plays").unwrap() < out.find("You play").unwrap());
}

#[test]
fn hint_names_a_legal_move_and_end_of_input_ends_quietly() {
    let out = &play(&["--depth", "3"], "hint\n");
    let hint = out
        .lines()
        .find_map(|l| l.split_once("Hint: "))
        .map(|(_, rest)| rest.split_whitespace().next().unwrap().to_string())
        .unwrap_or_else(|| panic!("no hint:\n{out}"));
    // The seven opening moves of English checkers (black's men on 9-12 step to 13-16).
    let openings = ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"];
    assert!(openings.contains(&hint.as_str()), "{hint}");
    assert!(out.contains("End of input"), "{out}");
    let empty = play(&[], "");
    assert!(empty.contains("End of input"), "{empty}");
}

#[test]
fn international_board_lists_fifty_squares_and_reads_numbers() {
    // White opens in international draughts; its men stand on 31-50 and step to 26-30.
    let out = &play(
        &["--variant", "international", "--depth", "1"],
        "moves\n32-28\nquit\n",
    );
    assert!(out.contains(" 46-50"), "{out}");
    assert!(out.contains("You play 32-28."), "{out}");
    assert_eq!(transcript_moves(out).len(), 2, "{out}");
}

/// `--level 0` plays a whole game at its node budget whatever the move time (a minute a
/// move here: the game would not end within the test's limit at full strength), every move
/// legal for pydraughts; a level above 20 is refused by the command line.
#[test]
fn a_weak_level_plays_a_whole_game_at_once() {
    let finished = scratch("level0-finished.pdn");
    let mut script = "1\n".repeat(1500);
    script.push_str(&format!("save {}\nquit\n", finished.display()));
    let out = play(
        &[
            "--variant",
            "international",
            "--level",
            "0",
            "--movetime",
            "60000",
        ],
        &script,
    );
    let result = announced_result(&out).unwrap_or_else(|| panic!("no result announced:\n{}", out));
    let game = replayed_game(&finished, "international");
    assert_eq!(game["tags"]["Result"], result.as_str(), "{game}");
    let refused = run_damka(&["play", "--level", "21"], b"quit\n", LIMIT);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(refused.stderr.contains("--level"), "{}", refused.stderr);
}
