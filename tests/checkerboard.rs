//! damka as a CheckerBoard engine, used as CheckerBoard uses one: a C host (`tests/checkerboard/cb_host.c`, built with `cc`) loads the cdylib and calls `enginecommand`, `getmove` and `islegal`, pydraughts judges every move; `damka match proto=cb` plays the library against damka, and a broken library (`tests/checkerboard/bad_engine.c`) loses by forfeit while the match goes on.
//!
//! These tests need a C compiler as `cc` (gcc or clang, with `dlfcn.h` and pthreads) and
//! Python 3 for pydraughts; without them they fail and say so.

use crate::common;

use common::process::{DAMKA, Run, run_damka, run_limited};
use common::{pydraughts_replay, repo_root, scratch, venv_python};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

/// damka's CheckerBoard library as cargo built it for this test run (the library's `cdylib`
/// crate type). `cargo test` leaves it in `deps/` beside the binary under test; only `cargo
/// build` copies it up one folder, so a copy there may be older than the code tested.
fn library() -> PathBuf {
    let dir = Path::new(DAMKA).parent().expect("the binary's folder");
    let path = dir.join("deps").join(format!(
        "{}damka{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(
        path.is_file(),
        "{} was not built: Cargo.toml's [lib] must list crate-type \"cdylib\"",
        path.display()
    );
    path
}

/// Compiles a C file of tests/checkerboard into target/test-checkerboard (a shared library
/// with `shared`), or fails saying that `cc` is needed.
fn compile(source: &str, output: &str, shared: bool) -> PathBuf {
    let out = scratch("test-checkerboard", output);
    let mut command = Command::new("cc");
    command.args(["-O1", "-Wall", "-o"]).arg(&out);
    if shared {
        command.args(["-shared", "-fPIC"]);
    }
    command.arg(repo_root().join("tests/checkerboard").join(source));
    if !shared {
        command.args(["-ldl", "-lpthread"]);
    }
    let what = format!("`cc` (these tests need a C compiler: gcc or clang) on {source}");
    common::succeeded(&mut command, &what);
    out
}

/// The host, compiled once per run (the tests run in parallel and share the file).
fn host() -> PathBuf {
    static HOST: OnceLock<PathBuf> = OnceLock::new();
    HOST.get_or_init(|| compile("cb_host.c", "cb_host", false))
        .clone()
}

/// Runs the host on damka's library: `GAMETYPE MAXTIME MODE ARGS`, `input` on stdin.
fn run_host(args: &[&str], input: &str) -> Vec<Vec<String>> {
    let mut command = Command::new(host());
    command.arg(library()).args(args).env_remove("RUST_LOG");
    common::without_default_tables(&mut command);
    let (run, finished) = run_limited(&mut command, input.as_bytes(), LIMIT);
    assert!(finished, "cb_host {args:?} hung:\n{}", run.stderr);
    assert_eq!(
        run.code,
        Some(0),
        "cb_host {args:?} failed:\n{}\n{}",
        run.stderr,
        run.stdout
    );
    run.stdout
        .lines()
        .map(|line| line.split('\t').map(str::to_string).collect())
        .collect()
}

/// The `command` lines: command -> (value, reply).
fn commands(lines: &[Vec<String>]) -> BTreeMap<String, (String, String)> {
    lines
        .iter()
        .filter(|l| l[0] == "command")
        .map(|l| (l[1].clone(), (l[2].clone(), l[3].clone())))
        .collect()
}

/// One `getmove` the host made: the position before and after (CheckerBoard's numbers,
/// standard ones in English, Russian and Brazilian), the CBmove (`F-T`, `FxT:C,...`) and
/// whether CheckerBoard's domove() with it gives the board returned.
#[derive(Clone, Debug)]
struct Played {
    before: String,
    after: String,
    cbmove: String,
    domove_ok: bool,
}

fn moves(lines: &[Vec<String>]) -> Vec<Played> {
    lines
        .iter()
        .filter(|l| l[0] == "move")
        .map(|l| Played {
            before: l[1].clone(),
            after: l[2].clone(),
            cbmove: l[3].clone(),
            domove_ok: l[4] == "1",
        })
        .collect()
}

/// A FEN with each list sorted, so that two writers' FENs compare.
fn canonical(fen: &str) -> String {
    let mut parts = fen.trim().split(':');
    let side = parts.next().unwrap_or_default().to_string();
    let mut lists: Vec<String> = parts
        .map(|part| {
            let (colour, body) = part.split_at(1);
            let mut squares: Vec<(u32, bool)> = body
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| {
                    let king = s.starts_with('K');
                    (s.trim_start_matches('K').parse().expect("a square"), king)
                })
                .collect();
            squares.sort_unstable();
            let text: Vec<String> = squares
                .iter()
                .map(|(s, k)| format!("{}{s}", if *k { "K" } else { "" }))
                .collect();
            format!("{colour}{}", text.join(","))
        })
        .collect();
    lists.sort();
    format!("{side}:{}", lists.join(":"))
}

/// pydraughts' legal moves of each FEN with the position each leads to: FEN -> {move ->
/// FEN after}.
fn pydraughts_successors(
    variant: &str,
    fens: &BTreeSet<String>,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let python = venv_python("pydraughts", "pydraughts==0.6.7");
    let script = repo_root().join("tests/crosscheck/pydraughts_oracle.py");
    let input: String = fens.iter().map(|f| format!("{f}\n")).collect();
    let mut command = Command::new(python);
    command
        .arg(script)
        .args(["--variant", variant, "--stdin", "--successors"]);
    let (run, finished) = run_limited(&mut command, input.as_bytes(), LIMIT);
    assert!(
        finished && run.code == Some(0),
        "the oracle failed:\n{}",
        run.stderr
    );
    let mut out = BTreeMap::new();
    for (asked, line) in fens.iter().zip(run.stdout.lines()) {
        let (fen, list) = line.split_once('\t').expect("FEN<TAB>moves");
        assert_eq!(
            canonical(fen),
            canonical(asked),
            "the oracle's lines follow the input"
        );
        let successors = list
            .split_whitespace()
            .map(|entry| {
                let (mv, after) = entry.split_once('=').expect("MOVE=FEN");
                (mv.to_string(), canonical(after))
            })
            .collect();
        out.insert(asked.clone(), successors);
    }
    assert_eq!(out.len(), fens.len(), "{}", run.stdout);
    out
}

/// Every move is legal by pydraughts: its CBmove is one of pydraughts' moves, the board it
/// returned is the position pydraughts reaches with that move, and CheckerBoard's domove()
/// with the CBmove gives that board too. Where pydraughts has no move (a self-play game
/// that ended before its last ply), getmove must leave the board as it was.
fn judge(variant: &str, played: &[Played]) {
    let fens: BTreeSet<String> = played.iter().map(|p| p.before.clone()).collect();
    let oracle = pydraughts_successors(variant, &fens);
    let pieces = |fen: &str| {
        canonical(fen)
            .split_once(':')
            .map(|(_, rest)| rest.to_string())
    };
    for p in played {
        let successors = &oracle[&p.before];
        if successors.is_empty() {
            assert_eq!(
                pieces(&p.before),
                pieces(&p.after),
                "{variant}: a move in a finished game: {p:?}"
            );
            continue;
        }
        let reached = successors
            .get(&p.cbmove)
            .unwrap_or_else(|| panic!("{variant}: {p:?} is not a legal move: {successors:?}"));
        assert_eq!(*reached, canonical(&p.after), "{variant}: {p:?}");
        assert!(
            p.domove_ok,
            "{variant}: the CBmove does not make the board: {p:?}"
        );
    }
}

#[test]
fn the_host_plays_legal_moves_in_english_russian_and_brazilian() {
    // Self-play from the start, each move with the history CheckerBoard sends.
    let lines = run_host(&["21", "0.02", "selfplay", "60"], "");
    let english = moves(&lines);
    assert!(english.len() >= 30, "{lines:?}");
    // Positions that need care: a forced capture, two double jumps from one square, a triple
    // jump, a king's double jump, kings only, kings and men, a lost game (no white piece).
    let positions = "W:W22,25,29,30,31,32:B1,2,3,18\nB:W18,19,26,27:B15,1,2\n\
                     W:W30,28:B25,17,10,3,4\nB:W30,26,19,11:BK23,5\nW:WK10,K14,K23:BK1,K29,K32\n\
                     B:WK19,24,28,K5:BK13,K22,2,3,12\nW:W:B2,19,21,K25\n";
    let lines = run_host(&["21", "0.05", "positions"], positions);
    let tricky = moves(&lines);
    assert_eq!(tricky.len(), 7, "{lines:?}");
    judge("english", &[english, tricky].concat());
    for (gametype, variant) in [("25", "russian"), ("26", "brazilian")] {
        let lines = run_host(&[gametype, "0.02", "selfplay", "40"], "");
        let played = moves(&lines);
        assert!(played.len() >= 20, "{variant}: {lines:?}");
        // White moves first in both.
        assert!(played[0].before.starts_with("W:"), "{variant}: {played:?}");
        judge(variant, &played);
    }
}

#[test]
fn commands_answer_as_checkerboard_expects() {
    let asked = [
        "about",
        "help",
        "get protocolversion",
        "set hashsize 16",
        "get hashsize",
        "set book 3",
        "get book",
        "bogus",
        "get enable_wld",
        "staticevaluation B:W21-32:B1-12",
        "set gamehist B:WK29:BK4,12 4-8 29-25",
        "get gamehist",
        "set gamehist W:W21-32:B1-12 9-13",
        "get movelist B:W21-32:B1-12",
        "set gametype 20",
        "set gametype 25",
        "get gametype",
        "get movelist W:W21-32:B1-12",
    ];
    let mut args = vec!["21", "0.05", "commands"];
    args.extend(asked);
    let answers = commands(&run_host(&args, ""));
    let answer = |command: &str| answers[command].clone();
    let ok = |command: &str| {
        let (value, reply) = answer(command);
        assert_eq!(value, "1", "{command}: {reply}");
        reply
    };
    assert!(ok("name").starts_with("damka "));
    assert_eq!(ok("get book"), "3");
    assert_eq!(ok("get movelist B:W1:B"), "movelist 0");
    assert_eq!(ok("get gametype"), "25");
    assert!(ok("about").contains("damka"));
    assert_eq!(ok("help"), "");
    assert_eq!(ok("get protocolversion"), "2");
    ok("set hashsize 16");
    assert_eq!(ok("get hashsize"), "16");
    ok("set book 3");
    for unknown in ["bogus", "get enable_wld"] {
        assert_eq!(answer(unknown), ("0".into(), "?".into()), "{unknown}");
    }
    assert!(ok("staticevaluation B:W21-32:B1-12").contains("centi-men"));
    ok("set gamehist B:WK29:BK4,12 4-8 29-25");
    assert_eq!(ok("get gamehist"), "B:WK29:BK4,12 4-8 29-25");
    let (value, reply) = answer("set gamehist W:W21-32:B1-12 9-13");
    // Black's move, with White to move.
    assert_eq!(value, "0", "{reply}");
    assert!(reply.contains("not legal"), "{reply}");
    let english = ok("get movelist B:W21-32:B1-12");
    assert!(english.starts_with("movelist 7,"), "{english}");
    assert_eq!(english.matches(';').count(), 7, "{english}");
    let (value, reply) = answer("set gametype 20");
    assert_eq!(value, "0");
    assert!(reply.starts_with("error:"), "{reply}");
    ok("set gametype 25");
    let russian = ok("get movelist W:W21-32:B1-12");
    assert!(russian.starts_with("movelist 7,0,5,5,"), "{russian}");
}

#[test]
fn playnow_the_clock_bits_islegal_and_bad_input() {
    let result = |lines: &[Vec<String>], what: &str| -> (i64, u64, String) {
        let line = lines
            .iter()
            .find(|l| l[0] == "result" && l[1].starts_with(what))
            .unwrap_or_else(|| panic!("no result {what}: {lines:?}"));
        (
            line[2].parse().unwrap(),
            line[3].parse().unwrap(),
            format!("{} {}", line[1], line.get(4).cloned().unwrap_or_default()),
        )
    };
    // From the start the book answers at once; Play! after 0.3 s stops a search.
    let lines = run_host(&["21", "0.05", "playnow", "0.3"], "");
    let (value, ms, text) = result(&lines, "playnow");
    assert!(text.contains("book move"), "{text}");
    assert_eq!(value, 3, "{ms} ms: {text}");
    // Without the book: maxtime 1000 s, and Play! after 0.3 s: the move comes after Play!
    // (load only makes it later) and long before the 1000 s (liveness).
    let lines = run_host(&["21", "0.05", "playnow", "0.3", "set book 0"], "");
    let (value, ms, text) = result(&lines, "playnow");
    assert!(text.starts_with("playnow moved=1"), "{text}");
    assert_eq!(value, 3);
    assert!((250..60_000).contains(&ms), "{ms} ms: {text}");
    // A clock of 3 s + 0.1 s in the incremental bits (maxtime says 100 s): the clock, not
    // maxtime, ends the search (a search to maxtime would take 100 s).
    let lines = run_host(&["21", "0.05", "clock", "3", "0.1", "set book 0"], "");
    let (_, ms, text) = result(&lines, "clock");
    assert!(text.starts_with("clock moved=1"), "{text}");
    assert!(ms < 30_000, "{ms} ms: {text}");
    let lines = run_host(&["21", "0.05", "bad"], "");
    for what in ["colour 7", "piece code 3", "light square", "thirteen men"] {
        let (value, _, text) = result(&lines, what);
        assert_eq!(value, 3, "{text}");
        assert!(
            text.contains("unchanged=1") && text.contains("error:"),
            "{text}"
        );
    }
    let (value, _, text) = result(&lines, "null board");
    assert!(value == 3 && text.contains("error:"), "{text}");
    assert_eq!(result(&lines, "null buffers").0, 3);
    assert_eq!(result(&lines, "null command").0, 0);
    assert_eq!(result(&lines, "islegal null board").0, 0);
    let islegal = |gametype: &str, from: &str, to: &str, fen: &str| {
        let lines = run_host(&[gametype, "0.05", "islegal", from, to, fen], "");
        let (value, _, text) = result(&lines, "islegal");
        (value, text)
    };
    assert_eq!(islegal("21", "9", "13", "B:W21-32:B1-12").0, 1);
    assert_eq!(islegal("21", "9", "15", "B:W21-32:B1-12").0, 0);
    // A Russian capture: 22x13 takes 17 (22x15 would take 18).
    let (value, text) = islegal("25", "22", "13", "W:W22:B17,18");
    assert_eq!(value, 1, "{text}");
    assert!(text.contains("22x13:17"), "{text}");
}

fn run_match(args: &[&str]) -> Run {
    let mut all = vec!["match"];
    all.extend_from_slice(args);
    let run = run_damka(&all, b"", LIMIT);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stderr, run.stdout);
    run
}

/// The `Terminations:` line of a match's table.
fn terminations(run: &Run) -> String {
    run.stdout
        .lines()
        .find_map(|l| l.strip_prefix("Terminations: "))
        .unwrap_or_else(|| panic!("no terminations in:\n{}", run.stdout))
        .to_string()
}

#[test]
fn damka_match_plays_the_library_against_damka() {
    let library = library();
    for (variant, games) in [("english", "4"), ("russian", "2")] {
        let pdn = scratch("test-checkerboard", &format!("{variant}.pdn"));
        let run = run_match(&[
            "--variant",
            variant,
            "--games",
            games,
            "--movetime",
            "50",
            "--pdn",
            pdn.to_str().unwrap(),
            "--engine",
            &format!(
                "proto=cb,cmd={},name=cb,option.hashsize=16",
                library.display()
            ),
            "--engine",
            &format!("cmd={DAMKA},name=uci,option.Hash=16"),
        ]);
        let ends = terminations(&run);
        for end in ends.split(", ") {
            assert!(
                end.starts_with("normal") || end.starts_with("adjudication"),
                "{variant}: a forfeit: {ends}\n{}",
                run.stdout
            );
        }
        let reports = pydraughts_replay(&pdn, variant);
        assert_eq!(reports.len(), games.parse::<usize>().unwrap());
        for report in &reports {
            assert!(report["illegal"].is_null(), "{variant}: {report}");
            assert_eq!(report["replayed"], report["moves"], "{report}");
        }
    }
}

#[test]
fn a_broken_library_loses_by_forfeit_and_the_match_goes_on() {
    let bad = compile(
        "bad_engine.c",
        &format!("libbad_engine{}", std::env::consts::DLL_SUFFIX),
        true,
    );
    let cases = [
        (
            "english",
            "teleport",
            "rules infraction",
            "no legal move leads to the board",
        ),
        ("english", "same", "rules infraction", "unchanged"),
        (
            "russian",
            "cbmove",
            "rules infraction",
            "its CBmove names no legal move",
        ),
        ("english", "hang", "stalled connection", "gave no move"),
        ("english", "crash", "abandoned", "crashed"),
    ];
    for (variant, mode, termination, detail) in cases {
        let pdn = scratch("test-checkerboard", &format!("bad-{mode}.pdn"));
        let run = run_match(&[
            "--variant",
            variant,
            "--games",
            "2",
            "--movetime",
            "50",
            "--movetime-margin",
            "300",
            "--pdn",
            pdn.to_str().unwrap(),
            "--engine",
            &format!("proto=cb,cmd={},name=bad,option.mode={mode}", bad.display()),
            "--engine",
            &format!("cmd={DAMKA},name=damka,option.Hash=16"),
        ]);
        assert_eq!(
            terminations(&run),
            format!("{termination} 2"),
            "{mode}:\n{}",
            run.stdout
        );
        let text = std::fs::read_to_string(&pdn).unwrap();
        assert!(text.contains(detail), "{mode}: {text}");
        let row: Vec<&str> = run
            .stdout
            .lines()
            .find(|l| l.starts_with("bad "))
            .unwrap_or_else(|| panic!("no row for bad:\n{}", run.stdout))
            .split_whitespace()
            .collect();
        assert_eq!(row[1..5], ["2", "0", "0", "2"], "{}", run.stdout);
    }
}

#[test]
fn cb_engine_speaks_the_uci_dialect_and_refuses_what_the_api_cannot_say() {
    let library = library();
    let lib = library.to_str().unwrap();
    let input = "uci\nisready\nsetoption name Variant value italian\nposition startpos\n\
                 go depth 3\ngo movetime 100\nquit\n";
    let run = run_damka(&["cb-engine", lib], input.as_bytes(), LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out = &run.stdout;
    assert!(out.contains("id name damka"), "{out}");
    assert!(out.contains("option name Variant type combo"), "{out}");
    assert!(out.contains("readyok"), "{out}");
    assert!(
        out.contains("info string error: a CheckerBoard engine takes a time"),
        "{out}"
    );
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove: {out}"));
    // Italian: White first, from squares 21-24.
    let from: u32 = best.split('-').next().unwrap().parse().unwrap();
    assert!((21..=24).contains(&from), "{best}");
    let run = run_damka(&["cb-engine", "/no/such/library.so"], b"", LIMIT);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("cannot load"), "{}", run.stderr);
}
