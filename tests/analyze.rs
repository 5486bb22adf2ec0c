//! `damka analyze` on test suites: the suite's answers checked against a retrograde solver, verdicts, malformed lines and exit codes.

use crate::common;

use common::process::run_damka;
use common::retro::{Value, english};
use common::{repo_root, scratch};
use damka::Move;
use damka::notation::movetext::write_move;
use damka::notation::suite::parse_line;
use damka::rules::English;
use std::collections::BTreeSet;
use std::time::Duration;

const SUITE: &str = "tests/data/english_endgames.txt";
const LIMIT: Duration = Duration::from_secs(120);

fn suite_text() -> String {
    std::fs::read_to_string(repo_root().join(SUITE)).expect("the suite is in tests/data")
}

/// Win, draw, loss as 2, 1, 0: what a move achieves, ignoring distances.
fn class(value: Value) -> u8 {
    match value {
        Value::Win(_) => 2,
        Value::Draw => 1,
        Value::Loss(_) => 0,
    }
}

#[test]
fn the_suite_answers_are_facts_of_the_game() {
    let table = english();
    let mut checked = 0;
    for (index, line) in suite_text().lines().enumerate() {
        let Some(case) = parse_line::<English>(index + 1, line)
            .unwrap_or_else(|e| panic!("line {}: {e}", index + 1))
        else {
            continue;
        };
        let position = case.position;
        let moves: Vec<(Move, u8)> = position
            .legal_moves()
            .iter()
            .map(|mv| {
                let child = table
                    .probe(&position.play(mv))
                    .expect("four pieces at most");
                (*mv, class(child.for_parent()))
            })
            .collect();
        let best = moves.iter().map(|&(_, c)| c).max().expect("a legal move");
        let name = |set: &[Move]| -> BTreeSet<String> {
            set.iter().map(|mv| write_move(&position, mv)).collect()
        };
        let achieving: Vec<Move> = moves.iter().filter(|m| m.1 == best).map(|m| m.0).collect();
        let worse: Vec<Move> = moves.iter().filter(|m| m.1 < best).map(|m| m.0).collect();
        if !case.best.is_empty() {
            assert_eq!(name(&case.best), name(&achieving), "{}: bm", case.id);
            assert!(!worse.is_empty(), "{}: every move is as good", case.id);
        }
        if !case.avoid.is_empty() {
            assert_eq!(name(&case.avoid), name(&worse), "{}: am", case.id);
        }
        // The names give the distances; they are facts too.
        let value = table.probe(&position).expect("four pieces at most");
        if let Value::Win(plies) = value {
            assert!(case.id.contains(&format!("win in {plies}")), "{}", case.id);
        } else {
            assert!(!case.id.contains("win in"), "{}: {value:?}", case.id);
        }
        checked += 1;
    }
    assert_eq!(checked, 14);
}

/// The verdict lines of a run: (solved, played move, expected moves text).
fn verdicts(output: &str) -> Vec<(bool, String, String)> {
    output
        .lines()
        .filter(|l| l.starts_with("solved") || l.starts_with("unsolved"))
        .map(|line| {
            let played = line.split_once(": played ").expect("played").1;
            let (mv, rest) = played.split_once(" (").expect("expected moves");
            (
                line.starts_with("solved"),
                mv.to_string(),
                rest.split(", depth").next().unwrap().to_string(),
            )
        })
        .collect()
}

/// A verdict is right when the played move is among `bm` and not among `am`.
fn verdict_is_right(solved: bool, played: &str, expected: &str) -> bool {
    let mut ok = true;
    for part in expected.split("; ") {
        let (op, list) = part.split_once(' ').expect("op and moves");
        let listed = list.split(',').any(|m| m == played);
        ok &= match op {
            "bm" => listed,
            "am" => !listed,
            other => panic!("unknown {other}"),
        };
    }
    ok == solved
}

fn summary(output: &str) -> (usize, usize) {
    let last = output.lines().last().expect("a summary line");
    let fraction = last.split_whitespace().next().unwrap();
    let (solved, total) = fraction.split_once('/').expect("SOLVED/TOTAL");
    (solved.parse().unwrap(), total.parse().unwrap())
}

#[test]
fn deep_enough_every_position_is_solved() {
    // The longest win is 17 plies; a search of 18 plies sees the end of every line.
    let run = run_damka(&["analyze", SUITE, "--depth", "20", "--strict"], b"", LIMIT);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stderr, run.stdout);
    assert_eq!(summary(&run.stdout), (14, 14), "{}", run.stdout);
    for (solved, played, expected) in verdicts(&run.stdout) {
        assert!(solved && verdict_is_right(solved, &played, &expected));
    }
}

#[test]
fn shallow_verdicts_match_the_moves_played() {
    for depth in ["1", "3"] {
        let run = run_damka(&["analyze", SUITE, "--depth", depth], b"", LIMIT);
        assert_eq!(run.code, Some(0), "without --strict: {}", run.stdout);
        let verdicts = verdicts(&run.stdout);
        assert_eq!(verdicts.len(), 14, "{}", run.stdout);
        for (solved, played, expected) in &verdicts {
            assert!(
                verdict_is_right(*solved, played, expected),
                "{played} vs {expected}"
            );
        }
        let solved = verdicts.iter().filter(|v| v.0).count();
        assert_eq!(summary(&run.stdout), (solved, 14));
        let strict = run_damka(
            &["analyze", SUITE, "--depth", depth, "--strict"],
            b"",
            LIMIT,
        );
        assert_eq!(strict.code, Some(if solved < 14 { 1 } else { 0 }));
    }
}

#[test]
fn malformed_lines_are_reported_and_counted_unsolved() {
    let path = scratch("test-analyze", "malformed.txt");
    let lines = [
        "# a comment, then a blank line",
        "",
        "W:W12,31:B4,20; bm 31-27; id good",
        "W:W12,31:B4,99; bm 31-27; id \"bad square\"",
        "W:W12,31:B4,20; bm 31-28; id illegal",
        "W:W12,31:B4,20; id \"no answer\"",
        "W:W12,31:B4,20; xx 31-27",
        "W:W12,31:B4,20; bm",
        "; bm 31-27",
        "\u{fffd}\u{0}; am 1-2,,,",
        "   # an indented comment",
        "W:W12,31:B4,20; am 12-8; c0 \"a comment operation\"",
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let path_text = path.to_string_lossy().to_string();
    let run = run_damka(&["analyze", &path_text, "--depth", "8"], b"", LIMIT);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stderr, run.stdout);
    let reported: Vec<usize> = run
        .stdout
        .lines()
        .filter_map(|l| {
            l.strip_prefix("line ")?
                .split_once(": malformed")?
                .0
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(reported, vec![4, 5, 6, 7, 8, 9, 10], "{}", run.stdout);
    // 31-27 is the only win (see the suite); 12-8 loses (the man is taken: 4x11 is forced).
    assert_eq!(summary(&run.stdout), (2, 9), "{}", run.stdout);
    let strict = run_damka(
        &["analyze", &path_text, "--depth", "8", "--strict"],
        b"",
        LIMIT,
    );
    assert_eq!(strict.code, Some(1));
}

#[test]
fn an_unreadable_file_exits_with_2() {
    let missing = run_damka(&["analyze", "no/such/suite.txt"], b"", LIMIT);
    assert_eq!(missing.code, Some(2));
    assert!(missing.stderr.contains("cannot read"), "{}", missing.stderr);
    let directory = run_damka(&["analyze", "tests"], b"", LIMIT);
    assert_eq!(directory.code, Some(2));
}

#[test]
fn russian_suites_take_algebraic_moves() {
    let path = scratch("test-analyze", "russian.txt");
    // Russian rules make capturing compulsory: after 1.c3-d4 f6-e5 White must take 2.d4:f6,
    // the only legal move (and so the best one).
    std::fs::write(&path, "W:W18,21,23-32:B1-10,12,15; bm d4:f6; id forced\n").unwrap();
    let path_text = path.to_string_lossy().to_string();
    let run = run_damka(
        &[
            "analyze",
            &path_text,
            "--variant",
            "russian",
            "--depth",
            "2",
            "--strict",
        ],
        b"",
        LIMIT,
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stderr, run.stdout);
    assert!(run.stdout.contains("played d4:f6"), "{}", run.stdout);
}
