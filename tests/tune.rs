//! `damka tune gen`, `score` and `patterns` as a user runs them: resumable, thread-count independent data, and a weights file the engine then loads.

use crate::common;

use common::process::{Run, run_damka, run_damka_ok};
use common::scratch_dir;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Far longer than any of these runs takes.
const LIMIT: Duration = Duration::from_secs(600);

/// Runs `damka COMMAND ARGS`, failing the test with its output if it failed.
fn succeed(command: &str, args: &[&str]) -> Run {
    run_damka_ok(command, args, b"", LIMIT)
}

/// A path as an argument.
fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// English endgame tables of up to `pieces` pieces, made in `dir/egtb`.
fn english_tables(dir: &Path, pieces: &str) -> PathBuf {
    let tables = dir.join("egtb");
    let args = ["gen", "--variant", "english", "--pieces", pieces];
    succeed("egtb", &[&args[..], &["--dir", arg(&tables)]].concat());
    tables
}

/// Runs `damka tune ARGS --out OUT` (and `--resume`); returns the file's text.
fn tune_to<'a>(mut args: Vec<&'a str>, out: &'a Path, resume: bool) -> String {
    args.extend(["--out", arg(out)]);
    if resume {
        args.push("--resume");
    }
    succeed("tune", &args);
    std::fs::read_to_string(out).unwrap()
}

/// Runs `damka tune gen` for international at depth 2; returns the file's text.
fn generate(out: &Path, games: usize, threads: usize, resume: bool) -> String {
    let (games, threads) = (games.to_string(), threads.to_string());
    let mut args = vec!["gen", "--variant", "international", "--depth", "2"];
    args.extend(["--seed", "9", "--games", &games, "--threads", &threads]);
    tune_to(args, out, resume)
}

#[test]
fn an_interrupted_gen_resumes_to_the_same_file() {
    let dir = scratch_dir("tune-resume");
    let whole = generate(&dir.join("whole.txt"), 8, 1, false);
    assert_eq!(whole.matches("# game ").count(), 8);
    assert!(whole.lines().filter(|l| !l.starts_with('#')).count() > 8 * 20);
    // Two threads write the same file.
    assert_eq!(generate(&dir.join("two.txt"), 8, 2, false), whole);
    // Three games, then the rest.
    let part = dir.join("part.txt");
    generate(&part, 3, 1, false);
    assert_eq!(generate(&part, 8, 2, true), whole);
    // A run killed in the middle of writing a game: the half game is cut and replayed.
    let cut = dir.join("cut.txt");
    let marker = whole.match_indices("# game 4\n").next().unwrap().0;
    std::fs::write(&cut, &whole[..marker + 40]).unwrap();
    assert_eq!(generate(&cut, 8, 1, true), whole);
    // Resuming a finished file changes nothing.
    assert_eq!(generate(&cut, 8, 1, true), whole);
}

#[test]
fn fitted_patterns_load_in_the_engine_and_a_damaged_file_is_refused() {
    let dir = scratch_dir("tune-patterns");
    let data = dir.join("data.txt");
    generate(&data, 20, 2, false);
    let weights = dir.join("w.dkw");
    let output = succeed(
        "tune",
        &[
            "patterns",
            "--variant",
            "international",
            "--epochs",
            "2",
            arg(&data),
            "--out",
            arg(&weights),
        ],
    );
    assert!(output.stdout.contains("held-out loss"), "{}", output.stdout);
    let bytes = std::fs::read(&weights).unwrap();
    assert!(bytes.starts_with(b"DAMKAEVL"));
    let damaged = dir.join("damaged.dkw");
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).unwrap();

    let session = format!(
        "setoption name Variant value international\n\
         setoption name EvalFile value {}\n\
         setoption name EvalFile value {}\n\
         position startpos\ngo depth 3\nisready\nquit\n",
        weights.display(),
        damaged.display()
    );
    let text = run_damka(&[], session.as_bytes(), LIMIT).stdout;
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert!(errors[0].contains("truncated"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

/// The pieces on the board of a `W:W..:B..` position.
fn pieces(fen: &str) -> usize {
    fen.split(':')
        .skip(1)
        .map(|side| side[1..].split(',').filter(|s| !s.is_empty()).count())
        .sum()
}

#[test]
fn gen_with_tables_stops_at_the_tables_and_writes_scores_that_the_fit_blends() {
    let dir = scratch_dir("tune-egtb-scores");
    let tables = english_tables(&dir, "4");
    let data = dir.join("data.txt");
    let mut args = vec!["gen", "--variant", "english", "--depth", "3", "--seed", "4"];
    args.extend(["--games", "12", "--scores", "--egtb", arg(&tables)]);
    args.extend(["--out", arg(&data)]);
    succeed("tune", &args);
    let text = std::fs::read_to_string(&data).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(lines.len() > 12 * 10, "{text}");
    for line in &lines {
        let fields: Vec<&str> = line.split(';').collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert!(["1", "0.5", "0"].contains(&fields[1]), "{line}");
        let score: i32 = fields[2].parse().unwrap();
        assert!(score.abs() <= 2000, "{line}");
        // A quiet position the tables hold ends the game before it is written.
        assert!(pieces(fields[0]) > 4, "{line}");
    }

    // The fit reads the scores and blends every fitted label with them.
    let weights = dir.join("w.dkw");
    let fitted = |extra: &[&str]| {
        let mut args = vec!["patterns", "--variant", "english", "--epochs", "1"];
        args.extend_from_slice(extra);
        args.extend([arg(&data), "--out", arg(&weights)]);
        succeed("tune", &args).stderr
    };
    let holdout_share = 0.05;
    let expected = (lines.len() as f64 * (1.0 - holdout_share)) as usize;
    let log = fitted(&["--lambda", "0.5"]);
    assert!(
        log.contains(&format!("{expected} fitted labels blended")),
        "{log}"
    );
    assert!(log.contains("(0 bad lines skipped)"), "{log}");
    assert!(!fitted(&[]).contains("blended"));
    // A score that is not a number makes the line bad, not the run.
    let mut damaged = text.clone();
    damaged.push_str("W:W21,22,23:B1,2,3;0.5;many\n");
    std::fs::write(&data, damaged).unwrap();
    assert!(fitted(&[]).contains("(1 bad lines skipped)"));
}

#[test]
fn endings_carry_the_tables_result_and_relabel_mends_old_labels() {
    let dir = scratch_dir("tune-endings");
    let tables = english_tables(&dir, "4");

    // Random endings: the asked number, two to four pieces with one a side at least, every
    // result a table's, the same file for the same seed.
    let endings = |seed: &str, out: &Path| {
        let mut args = vec!["endings", "--variant", "english", "--positions", "400"];
        args.extend(["--seed", seed, "--egtb", arg(&tables), "--out", arg(out)]);
        succeed("tune", &args);
        std::fs::read_to_string(out).unwrap()
    };
    let text = endings("5", &dir.join("a.txt"));
    assert_eq!(text.lines().count(), 400, "{text}");
    let mut results = std::collections::BTreeSet::new();
    for line in text.lines() {
        let (fen, result) = line.split_once(';').unwrap();
        assert!((2..=4).contains(&pieces(fen)), "{line}");
        assert!(fen.split(':').skip(1).all(|side| side.len() > 1), "{line}");
        assert!(["1", "0.5", "0"].contains(&result), "{line}");
        results.insert(result);
    }
    assert_eq!(results.len(), 3, "wins, draws and losses all drawn: {text}");
    assert_eq!(endings("5", &dir.join("b.txt")), text);
    assert_ne!(endings("6", &dir.join("c.txt")), text);
    // More pieces than the tables hold is refused with a reason.
    let mut args = vec![
        "tune",
        "endings",
        "--variant",
        "english",
        "--positions",
        "10",
    ];
    args.extend(["--max-pieces", "5", "--egtb", arg(&tables)]);
    let refused_out = dir.join("d.txt");
    args.extend(["--out", arg(&refused_out)]);
    let refused = run_damka(&args, b"", LIMIT);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("hold up to 4 pieces"),
        "{}",
        refused.stderr
    );

    // Relabel: two kings against a lone king far away win (a checkers fact: the lone king
    // cannot hold both double corners), a king against a king with no capture in sight is a
    // draw; positions beyond the tables or with a capture pending keep their label, and a
    // score follows the new result.
    let old = dir.join("old.txt");
    let lines = [
        "# game 0",
        "W:WK1,K3:BK30;0.5",
        "W:WK1:BK32;1",
        "B:WK1,K3:BK30;0.5;-40",
        "W:W21,22,23,24,25:B1,2,3,4,5;0",
        "W:WK14:BK9,K32;0.5",
    ];
    std::fs::write(&old, lines.join("\n") + "\n").unwrap();
    let new = dir.join("new.txt");
    let log = succeed(
        "tune",
        &[
            "relabel",
            "--egtb",
            arg(&tables),
            arg(&old),
            "--out",
            arg(&new),
        ],
    )
    .stderr;
    let relabelled = std::fs::read_to_string(&new).unwrap();
    assert_eq!(
        relabelled.lines().collect::<Vec<_>>(),
        [
            "# game 0",
            "W:WK1,K3:BK30;1",
            "W:WK1:BK32;0.5",
            "B:WK1,K3:BK30;1;2000",
            "W:W21,22,23,24,25:B1,2,3,4,5;0",
            "W:WK14:BK9,K32;0.5",
        ]
    );
    assert!(
        log.contains("5 positions, 3 held by the tables, 3 of them with a new result"),
        "{log}"
    );
}

#[test]
fn endings_and_relabel_refuse_missing_tables_and_an_unwritable_output_with_one_line() {
    let dir = scratch_dir("tune-endings-refused");
    let missing = dir.join("no-such-tables");
    let out = dir.join("out.txt");
    let refused = |args: &[&str]| {
        let run = run_damka(args, b"", LIMIT);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        run.stderr
    };
    let stderr = refused(&[
        "tune",
        "endings",
        "--positions",
        "10",
        "--egtb",
        arg(&missing),
        "--out",
        arg(&out),
    ]);
    assert!(
        stderr.starts_with(&format!("damka tune endings: --egtb {}", missing.display())),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing written when the tables are missing");

    // Tables that load, and an output in a folder that does not exist.
    let tables = english_tables(&dir, "2");
    let unwritable = dir.join("no-such-folder").join("out.txt");
    let stderr = refused(&[
        "tune",
        "relabel",
        "--egtb",
        arg(&tables),
        arg(&out),
        "--out",
        arg(&unwritable),
    ]);
    assert!(
        stderr.starts_with(&format!(
            "damka tune relabel: cannot write {}",
            unwritable.display()
        )),
        "{stderr}"
    );
}

/// Runs `damka tune score` at depth 2 on `input` in blocks of 16 lines; returns the file's text.
fn score(input: &Path, out: &Path, threads: &str, resume: bool) -> String {
    let mut args = vec![
        "score",
        "--variant",
        "english",
        "--depth",
        "2",
        "--block",
        "16",
    ];
    args.extend(["--threads", threads, arg(input)]);
    tune_to(args, out, resume)
}

#[test]
fn score_gives_every_position_a_search_score_whatever_the_threads_and_resumes() {
    let dir = scratch_dir("tune-score");
    let games = dir.join("games.txt");
    let args = ["gen", "--variant", "english", "--depth", "2", "--seed", "5"];
    succeed(
        "tune",
        &[&args[..], &["--games", "3", "--out", arg(&games)]].concat(),
    );
    // Positions whose side to move has lost by the rules (no piece left: the game is over, so
    // the result is the score), a lopsided one,
    // and an old score that must be replaced.
    let mut input = std::fs::read_to_string(&games).unwrap();
    input.push_str("W:W:B1,2;0\nB:W30,31:B;1\nW:W21,22,23,24,25:B1;1;-5\n");
    std::fs::write(&games, &input).unwrap();

    let whole = score(&games, &dir.join("whole.txt"), "1", false);
    let (inputs, outputs): (Vec<&str>, Vec<&str>) = (
        input.lines().collect(),
        whole
            .lines()
            .filter(|l| !l.starts_with("# block "))
            .collect(),
    );
    assert_eq!(inputs.len(), outputs.len(), "{whole}");
    for (before, after) in inputs.iter().zip(&outputs) {
        if before.starts_with('#') {
            assert_eq!(before, after);
            continue;
        }
        let (old, new): (Vec<&str>, Vec<&str>) =
            (before.split(';').collect(), after.split(';').collect());
        assert_eq!(new.len(), 3, "{after}");
        assert_eq!(old[..2], new[..2], "the FEN and result are kept: {after}");
        let score: i32 = new[2].parse().unwrap();
        assert!(score.abs() <= 2000, "{after}");
    }
    let last: Vec<&str> = outputs[outputs.len() - 3..].to_vec();
    assert_eq!(last[0], "W:W:B1,2;0;-2000");
    assert_eq!(last[1], "B:W30,31:B;1;2000");
    let lopsided: i32 = last[2].rsplit(';').next().unwrap().parse().unwrap();
    assert!(lopsided > 300, "five men against one: {lopsided}");
    assert_eq!(
        whole.matches("# block ").count(),
        inputs.len().div_ceil(16),
        "one marker a block"
    );

    // Two threads write the same file; so does a run resumed after a kill mid-block.
    assert_eq!(score(&games, &dir.join("two.txt"), "2", false), whole);
    let cut = dir.join("cut.txt");
    let marker = whole.match_indices("# block 2\n").next().unwrap().0;
    std::fs::write(&cut, &whole[..marker + 30]).unwrap();
    assert_eq!(score(&games, &cut, "2", true), whole);
    assert_eq!(score(&games, &cut, "1", true), whole);

    // A line that is not FEN;RESULT: one line on stderr naming it, exit code 2, no output.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "W:W21:B1;0.5\nW:W21:B1;2\n").unwrap();
    let out = dir.join("never.txt");
    let run = run_damka(
        &["tune", "score", arg(&bad), "--out", arg(&out)],
        b"",
        LIMIT,
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with(&format!("damka tune score: {}:2: ", bad.display())),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}
