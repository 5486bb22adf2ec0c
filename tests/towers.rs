//! `damka towers`, the COMP10002 assignment program: the distributed tests byte for byte, the
//! six input errors in their checked order, robustness of the input reader, the winner
//! lines, and a cross-check of the assignment-ordered action generator against the
//! library's legal moves on positions from random playouts.

use damka::notation::{cell_of_bit, physical_row_col};
use damka::rules::Towers;
use damka::towers::{board_cost, choose_action, ordered_actions};
use damka::{Color, Move, Position};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The test files, copied from the shared reference.
fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/comp10002")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Runs `damka towers` on `input`; returns stdout and the exit code.
fn towers(input: &[u8]) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damka"))
        .arg("towers")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the damka binary runs");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input)
        .expect("stdin takes the input");
    let output = child.wait_with_output().expect("damka towers finishes");
    let code = output.status.code().expect("damka towers exits normally");
    assert!(
        output.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8(output.stdout).expect("the output is UTF-8"),
        code,
    )
}

fn check_distributed(test: &str) {
    let (output, code) = towers(&data(&format!("{test}.txt")));
    let expected = String::from_utf8(data(&format!("{test}-out.txt"))).unwrap();
    assert_eq!(output, expected, "{test}");
    assert_eq!(code, 0);
}

#[test]
fn test0_byte_for_byte() {
    check_distributed("test0");
}

#[test]
fn test1_byte_for_byte() {
    check_distributed("test1");
}

#[test]
fn test3_byte_for_byte() {
    check_distributed("test3");
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

const SOURCE_OUTSIDE: &str = "ERROR: Source cell is outside of the board.";
const TARGET_OUTSIDE: &str = "ERROR: Target cell is outside of the board.";
const SOURCE_EMPTY: &str = "ERROR: Source cell is empty.";
const TARGET_NOT_EMPTY: &str = "ERROR: Target cell is not empty.";
const SOURCE_OPPONENT: &str = "ERROR: Source cell holds opponent's piece/tower.";
const ILLEGAL: &str = "ERROR: Illegal action.";

#[test]
fn error_source_outside() {
    check_error(0, "I6-H5", SOURCE_OUTSIDE);
    check_error(0, "G9-F8", SOURCE_OUTSIDE);
    check_error(0, "G0-F1", SOURCE_OUTSIDE);
    // Checked first: the target is outside as well.
    check_error(0, "Z9-Z9", SOURCE_OUTSIDE);
    check_error(3, "A0-H9", SOURCE_OUTSIDE);
}

#[test]
fn error_target_outside() {
    check_error(0, "G6-F9", TARGET_OUTSIDE);
    check_error(0, "H6-I5", TARGET_OUTSIDE);
    // Checked before the source's content: the source is empty here.
    check_error(0, "A5-A9", TARGET_OUTSIDE);
    // ... and here it holds an opponent's piece.
    check_error(0, "B3-@4", TARGET_OUTSIDE);
}

#[test]
fn error_source_empty() {
    check_error(0, "A5-B4", SOURCE_EMPTY);
    // A non-playable cell is on the board and always empty.
    check_error(0, "A1-B2", SOURCE_EMPTY);
    // Checked before the target's content: G6 holds a piece.
    check_error(0, "F5-G6", SOURCE_EMPTY);
    // After G6-F5 the cell G6 is empty.
    check_error(1, "G6-H5", SOURCE_EMPTY);
}

#[test]
fn error_target_not_empty() {
    check_error(0, "H7-G6", TARGET_NOT_EMPTY);
    // Checked before the owner of the source: B3 is White's and Black is to move.
    check_error(0, "B3-C2", TARGET_NOT_EMPTY);
    check_error(2, "F5-G4", TARGET_NOT_EMPTY);
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
    // Two cells forward without a capture.
    check_error(0, "G6-E4", ILLEGAL);
    // A non-playable target cell is empty, so only legality refuses it.
    check_error(0, "G6-G5", ILLEGAL);
    // A piece stepping backwards (F5 is Black's after G6-F5; G6 is empty again).
    check_error(2, "F5-G6", ILLEGAL);
    // A jump over an own piece: H7 over G6 to F5.
    check_error(0, "H7-F5", ILLEGAL);
    // Not a diagonal neighbour at all.
    check_error(0, "A6-D5", ILLEGAL);
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

/// A small deterministic generator (xorshift64*), so the tests need no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// A random game from the start: captures preferred half of the time so that games end.
/// Returns the positions before each action and the actions.
fn playout(seed: u64, max_plies: usize) -> (Vec<Position<Towers>>, Vec<Move>) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut position = Position::<Towers>::start();
    let mut positions = Vec::new();
    let mut actions = Vec::new();
    for _ in 0..max_plies {
        let moves: Vec<Move> = position.legal_moves().iter().copied().collect();
        positions.push(position);
        if moves.is_empty() {
            break;
        }
        let captures: Vec<Move> = moves.iter().copied().filter(Move::is_capture).collect();
        let pool = if !captures.is_empty() && rng.below(2) == 0 {
            &captures
        } else {
            &moves
        };
        let action = pool[rng.below(pool.len())];
        actions.push(action);
        position = position.play(&action);
    }
    (positions, actions)
}

/// Where an action goes, as the assignment's direction index: NE, SE, SW, NW.
fn direction_index(action: &Move) -> usize {
    let (fr, fc) = physical_row_col::<Towers>(action.from);
    let (tr, tc) = physical_row_col::<Towers>(action.to);
    match (tr > fr, tc > fc) {
        (false, true) => 0,
        (true, true) => 1,
        (true, false) => 2,
        (false, false) => 3,
    }
}

fn key(action: &Move) -> (u8, u8, bool, u64) {
    (action.from, action.to, action.promotes, action.captured)
}

#[test]
fn ordered_actions_are_the_legal_moves_in_the_assignment_order() {
    let mut positions_checked = 0;
    let mut with_towers = 0;
    let mut with_captures = 0;
    for seed in 0..400 {
        let (positions, _) = playout(seed, 200);
        for position in positions {
            let ordered = ordered_actions(&position);
            let mut ours: Vec<_> = ordered.iter().map(key).collect();
            let mut library: Vec<_> = position.legal_moves().iter().map(key).collect();
            ours.sort_unstable();
            library.sort_unstable();
            assert_eq!(ours, library, "{position:?}");
            ours.dedup();
            assert_eq!(ours.len(), ordered.len(), "duplicates in {position:?}");
            // Row-major source cells, then clockwise directions from north-east.
            let order: Vec<(usize, usize, usize)> = ordered
                .iter()
                .map(|action| {
                    let (row, col) = physical_row_col::<Towers>(action.from);
                    (row, col, direction_index(action))
                })
                .collect();
            assert!(
                order.windows(2).all(|pair| pair[0] < pair[1]),
                "order {order:?} in {position:?}"
            );
            for action in &ordered {
                let (fr, fc) = physical_row_col::<Towers>(action.from);
                let (tr, tc) = physical_row_col::<Towers>(action.to);
                let distance = fr.abs_diff(tr);
                assert_eq!(distance, fc.abs_diff(tc));
                assert_eq!(distance, if action.is_capture() { 2 } else { 1 });
            }
            positions_checked += 1;
            with_towers += usize::from(position.kings_of(position.side_to_move()) != 0);
            with_captures += usize::from(ordered.iter().any(Move::is_capture));
        }
    }
    println!(
        "{positions_checked} positions, {with_towers} with towers to move, \
         {with_captures} with a capture"
    );
    assert!(positions_checked > 20_000, "{positions_checked}");
    assert!(with_towers > 1_000, "{with_towers}");
    assert!(with_captures > 1_000, "{with_captures}");
}

/// The input lines of a game.
fn game_text(actions: &[Move]) -> String {
    actions
        .iter()
        .map(|a| {
            format!(
                "{}-{}\n",
                cell_of_bit::<Towers>(a.from),
                cell_of_bit::<Towers>(a.to)
            )
        })
        .collect()
}

/// Finished random games: the side that cannot act at the end loses.
#[test]
fn finished_games_print_the_winner() {
    let mut finished = 0;
    for seed in 0..200 {
        let (positions, actions) = playout(seed, 400);
        let last = positions.last().expect("a playout has a position");
        if !last.legal_moves().is_empty() {
            continue;
        }
        assert!(choose_action(last).is_none());
        let winner = match last.side_to_move() {
            Color::Black => "WHITE WIN!\n",
            Color::White => "BLACK WIN!\n",
        };
        let game = game_text(&actions);
        let (played, code) = towers(game.as_bytes());
        assert_eq!(code, 0);
        for command in ["A\n", "P\n"] {
            let (output, code) = towers(format!("{game}{command}").as_bytes());
            assert_eq!(output, format!("{played}{winner}"), "seed {seed}");
            assert_eq!(code, 0);
        }
        // The last board's cost is printed as a plain integer.
        let cost = format!("BOARD COST: {}\n", board_cost(last));
        assert!(played.contains(&cost), "seed {seed}");
        finished += 1;
        if finished == 5 {
            break;
        }
    }
    assert!(finished >= 3, "only {finished} random games ended");
}

/// `P` stops with the winner line as soon as the side to move cannot act, fewer than ten
/// actions in: replay a finished game but one action, whose winning end the computer finds
/// (a board where the side to move cannot act costs INT_MIN or INT_MAX).
#[test]
fn play_command_stops_at_the_end_of_the_game() {
    let mut checked = 0;
    for seed in 0..400 {
        let (positions, actions) = playout(seed, 400);
        let last = positions.last().unwrap();
        if !last.legal_moves().is_empty() || actions.is_empty() {
            continue;
        }
        let before = positions[positions.len() - 2];
        let chosen = choose_action(&before).expect("the side to move can act");
        let end = before.play(&chosen);
        assert!(
            end.legal_moves().is_empty(),
            "seed {seed}: the computer misses the win"
        );
        let game = game_text(&actions[..actions.len() - 1]);
        let (output, code) = towers(format!("{game}P\n").as_bytes());
        assert_eq!(code, 0);
        let winner = match end.side_to_move() {
            Color::Black => "WHITE WIN!\n",
            Color::White => "BLACK WIN!\n",
        };
        assert!(output.ends_with(&format!("---+\n{winner}")), "{output}");
        assert_eq!(output.matches("*** ").count(), 1);
        assert_eq!(output.matches("WIN!").count(), 1);
        checked += 1;
        if checked == 5 {
            return;
        }
    }
    assert!(checked >= 3, "only {checked} random games ended");
}

/// The minimax picks the left-most of equal children: from the start every Black action
/// scores 0 at depth 3, so `A` plays the first action in the assignment's order.
#[test]
fn ties_go_to_the_left_most_action() {
    let start = Position::<Towers>::start();
    let first = ordered_actions(&start)[0];
    assert_eq!(choose_action(&start), Some(first));
    let (output, code) = towers(b"A\n");
    assert_eq!(code, 0);
    assert!(
        output.contains("*** BLACK ACTION #1: A6-B5\nBOARD COST: 0\n"),
        "{output}"
    );
}
