//! `damka towers`, the COMP10002 assignment program run as a process: the distributed tests byte for byte, the six input errors in their checked order and robustness of the input reader.
//!
//! The winner lines and the cross-check of the assignment-ordered action generator against
//! the library's legal moves on random playouts need the program's own functions, so they
//! are unit tests of the binary (`src/bin/damka/towers.rs`).

use crate::common;

use common::process::run_damka;
use common::repo_root;
use std::time::Duration;

/// The test files, copied from the shared reference.
fn data(name: &str) -> Vec<u8> {
    let path = repo_root().join("tests/data/comp10002").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Runs `damka towers` on `input`; returns stdout and the exit code.
fn towers(input: &[u8]) -> (String, i32) {
    let run = run_damka(&["towers"], input, Duration::from_secs(60));
    assert!(run.stderr.is_empty(), "stderr: {}", run.stderr);
    (run.stdout, run.code.expect("damka towers exits normally"))
}

fn check_distributed(test: &str) {
    let (output, code) = towers(&data(&format!("{test}.txt")));
    let expected = String::from_utf8(data(&format!("{test}-out.txt"))).unwrap();
    assert_eq!(output, expected, "{test}");
    assert_eq!(code, 0);
}

common::test_cases! {
    test0_byte_for_byte: check_distributed("test0");
    test1_byte_for_byte: check_distributed("test1");
    test3_byte_for_byte: check_distributed("test3");
}

/// The first `lines` lines of test0's expected output, each with its newline. The header
/// and the start board are 21 lines, and each action adds 21 more.
fn test0_prefix(lines: usize) -> String {
    let expected = String::from_utf8(data("test0-out.txt")).unwrap();
    expected
        .split_inclusive('\n')
        .take(lines)
        .collect::<String>()
}

const START_LINES: usize = 21;
const ACTION_LINES: usize = 21;

#[test]
fn crlf_and_blank_lines_are_read_gracefully() {
    let expected = String::from_utf8(data("test1-out.txt")).unwrap();
    let input = String::from_utf8(data("test1.txt")).unwrap();
    let crlf = input.replace('\n', "\r\n");
    for variant in [
        crlf.clone(),
        format!("{crlf}\r\n\r\n"),
        format!("{input}\n\n  \n"),
        input.trim_end().to_string(), // no final newline
        format!("\u{feff}{input}"),
        input.replace('\n', " \n"),
    ] {
        let (output, code) = towers(variant.as_bytes());
        assert_eq!(output, expected, "input {variant:?}");
        assert_eq!(code, 0);
    }
}

#[test]
fn empty_input_prints_the_start_board() {
    for input in ["", "\n", "\r\n\r\n"] {
        let (output, code) = towers(input.as_bytes());
        assert_eq!(output, test0_prefix(START_LINES));
        assert_eq!(code, 0);
    }
}

/// Each error after the given input lines (played from the start) stops the program right
/// after the last board.
fn check_error(played: usize, bad: &str, message: &str) {
    let test0 = String::from_utf8(data("test0.txt")).unwrap();
    let mut input: String = test0.split_inclusive('\n').take(played).collect();
    input.push_str(bad);
    input.push_str("\nG6-F5\nA\n");
    let (output, code) = towers(input.as_bytes());
    let expected = format!(
        "{}{message}\n",
        test0_prefix(START_LINES + played * ACTION_LINES)
    );
    assert_eq!(output, expected, "after {played} actions, {bad:?}");
    assert_eq!(code, 1, "{bad:?}");
}

/// [`check_error`] of each `(played, bad)` case, all stopped with the same `message`.
fn check_errors(message: &str, cases: &[(usize, &str)]) {
    for &(played, bad) in cases {
        check_error(played, bad, message);
    }
}

const SOURCE_OUTSIDE: &str = "ERROR: Source cell is outside of the board.";
const TARGET_OUTSIDE: &str = "ERROR: Target cell is outside of the board.";
const SOURCE_EMPTY: &str = "ERROR: Source cell is empty.";
const TARGET_NOT_EMPTY: &str = "ERROR: Target cell is not empty.";
const SOURCE_OPPONENT: &str = "ERROR: Source cell holds opponent's piece/tower.";
const ILLEGAL: &str = "ERROR: Illegal action.";

#[test]
fn error_source_outside() {
    check_errors(
        SOURCE_OUTSIDE,
        &[
            (0, "I6-H5"),
            (0, "G9-F8"),
            (0, "G0-F1"),
            // Checked first: the target is outside as well.
            (0, "Z9-Z9"),
            (3, "A0-H9"),
        ],
    );
}

#[test]
fn error_target_outside() {
    check_errors(
        TARGET_OUTSIDE,
        &[
            (0, "G6-F9"),
            (0, "H6-I5"),
            // Checked before the source's content: the source is empty here.
            (0, "A5-A9"),
            // ... and here it holds an opponent's piece.
            (0, "B3-@4"),
        ],
    );
}

#[test]
fn error_source_empty() {
    check_errors(
        SOURCE_EMPTY,
        &[
            (0, "A5-B4"),
            // A non-playable cell is on the board and always empty.
            (0, "A1-B2"),
            // Checked before the target's content: G6 holds a piece.
            (0, "F5-G6"),
            // After G6-F5 the cell G6 is empty.
            (1, "G6-H5"),
        ],
    );
}

#[test]
fn error_target_not_empty() {
    check_errors(
        TARGET_NOT_EMPTY,
        &[
            (0, "H7-G6"),
            // Checked before the owner of the source: B3 is White's and Black is to move.
            (0, "B3-C2"),
            (2, "F5-G4"),
        ],
    );
}

#[test]
fn error_source_opponent() {
    check_error(0, "B3-A4", SOURCE_OPPONENT);
    // White to move, a Black piece.
    check_error(1, "F5-E4", SOURCE_OPPONENT);
    // A black tower is still an opponent's when White is to move (test1 makes one on F1).
    let test1 = String::from_utf8(data("test1.txt")).unwrap();
    let input = test1.replace("A\n", "H3-F1\nF1-G2\n");
    let (output, code) = towers(input.as_bytes());
    assert!(
        output.ends_with(&format!("---+\n{SOURCE_OPPONENT}\n")),
        "{output}"
    );
    assert_eq!(code, 1);
}

#[test]
fn error_illegal_action() {
    check_errors(
        ILLEGAL,
        &[
            // Two cells forward without a capture.
            (0, "G6-E4"),
            // A non-playable target cell is empty, so only legality refuses it.
            (0, "G6-G5"),
            // A piece stepping backwards (F5 is Black's after G6-F5; G6 is empty again).
            (2, "F5-G6"),
            // A jump over an own piece: H7 over G6 to F5.
            (0, "H7-F5"),
            // Not a diagonal neighbour at all.
            (0, "A6-D5"),
        ],
    );
}

#[test]
fn malformed_lines_fail_on_the_first_part_that_names_no_cell() {
    for (bad, message) in [
        ("hello", SOURCE_OUTSIDE),
        ("-", SOURCE_OUTSIDE),
        ("--", SOURCE_OUTSIDE),
        ("X", SOURCE_OUTSIDE),
        ("AP", SOURCE_OUTSIDE),
        ("é6-F5", SOURCE_OUTSIDE),
        ("G6F5", SOURCE_OUTSIDE),
        ("G6", TARGET_OUTSIDE),
        ("G6-", TARGET_OUTSIDE),
        ("G6-F5-E4", TARGET_OUTSIDE),
        ("G6-F55", TARGET_OUTSIDE),
        (
            "G6-ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
            TARGET_OUTSIDE,
        ),
    ] {
        check_error(0, bad, message);
    }
    // Not UTF-8 at all.
    let (output, code) = towers(b"\xff\xfe-\x80\n");
    assert_eq!(
        output,
        format!("{}{SOURCE_OUTSIDE}\n", test0_prefix(START_LINES))
    );
    assert_eq!(code, 1);
}

#[test]
fn lowercase_cells_are_read_and_printed_in_capitals() {
    let (output, code) = towers(b"g6-f5\n");
    assert_eq!(output, test0_prefix(START_LINES + ACTION_LINES));
    assert_eq!(code, 0);
}

#[test]
fn lines_after_a_command_are_ignored() {
    let mut input = data("test1.txt");
    input.extend_from_slice(b"B3-C4\nP\nnonsense\n");
    let (output, code) = towers(&input);
    assert_eq!(output, String::from_utf8(data("test1-out.txt")).unwrap());
    assert_eq!(code, 0);
}
