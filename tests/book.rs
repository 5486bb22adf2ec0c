//! Opening books end to end: `damka book build` (deterministic, resumable), `probe` and `stats`, and the engine answering from a book over UCI and Hub.

use crate::common;

use common::peer::Peer;
use common::process::run_damka_ok;
use common::scratch;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// Builds a small English book at `path` with `threads`, growing it to `positions`.
fn build(path: &std::path::Path, positions: usize, threads: usize) -> String {
    let path = path.to_str().unwrap();
    let positions = positions.to_string();
    let threads = threads.to_string();
    run_damka_ok(
        "book",
        &[
            "build",
            "--variant",
            "english",
            "--depth",
            "3",
            "--batch",
            "4",
            "--positions",
            &positions,
            "--threads",
            &threads,
            "--out",
            path,
        ],
        b"",
        LIMIT,
    )
    .stdout
}

#[test]
fn a_build_is_the_same_whatever_the_threads_and_when_resumed() {
    let whole = scratch("book", "whole.dbk");
    let resumed = scratch("book", "resumed.dbk");
    let report = build(&whole, 400, 1);
    assert!(report.contains("positions"), "{report}");
    build(&resumed, 150, 2);
    let first = std::fs::read(&resumed).unwrap();
    build(&resumed, 400, 2);
    let whole_bytes = std::fs::read(&whole).unwrap();
    assert!(first.len() < whole_bytes.len());
    assert_eq!(std::fs::read(&resumed).unwrap(), whole_bytes);

    let stats = run_damka_ok(
        "book",
        &["stats", "--book", whole.to_str().unwrap()],
        b"",
        LIMIT,
    )
    .stdout;
    assert!(
        stats.contains("english book, leaves scored at depth 3"),
        "{stats}"
    );
    let probe = run_damka_ok(
        "book",
        &["probe", "--book", whole.to_str().unwrap(), "startpos"],
        b"",
        LIMIT,
    )
    .stdout;
    // The seven opening moves of checkers, each listed once.
    for opening in ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"] {
        let listed = probe
            .lines()
            .filter(|l| l.split_whitespace().next() == Some(opening))
            .count();
        assert_eq!(listed, 1, "{opening} in\n{probe}");
    }
    let wrong = common::process::run_damka(
        &[
            "book",
            "probe",
            "--variant",
            "international",
            "--book",
            whole.to_str().unwrap(),
        ],
        b"",
        LIMIT,
    );
    assert_eq!(wrong.code, Some(1));
    assert!(
        wrong.stderr.contains("a book of english"),
        "{}",
        wrong.stderr
    );
}

/// The `(move, score)` pairs of an `info string book move` line.
fn offered(line: &str) -> (String, Vec<(String, i32)>) {
    let rest = line
        .strip_prefix("info string book move ")
        .expect("a book line");
    let (chosen, rest) = rest.split_once(" from ").unwrap();
    let (_, list) = rest.split_once(": ").unwrap();
    let moves = list
        .split(", ")
        .map(|pair| {
            let (mv, score) = pair.rsplit_once(' ').unwrap();
            (mv.to_string(), score.parse().unwrap())
        })
        .collect();
    (chosen.to_string(), moves)
}

/// A book of `positions` built on two threads into `target/book/<name>`.
fn built(name: &str, positions: usize) -> std::path::PathBuf {
    let path = scratch("book", name);
    build(&path, positions, 2);
    path
}

/// damka started with `args`, once it has answered `hello` up to the line `last`: each of
/// `listed` must start a line of that answer.
fn started_listing(args: &[&str], hello: &str, last: &str, listed: &[&str]) -> Peer {
    let mut peer = Peer::start(args);
    peer.send(hello);
    let lines = peer.until(LIMIT, |l| l == last);
    for wanted in listed {
        assert!(
            lines.iter().any(|(_, l)| l.starts_with(wanted)),
            "{wanted} not listed: {lines:?}"
        );
    }
    peer
}

#[test]
fn the_engine_answers_from_its_book_only_when_it_plays() {
    let path = built("engine.dbk", 300);
    let mut peer = started_listing(
        &[],
        "uci",
        "uciok",
        &[
            "option name Book type check default true",
            "option name BookFile type string",
            "option name BookPly type spin",
            "option name BookMargin type spin",
        ],
    );
    let file = format!("setoption name BookFile value {}", path.display());
    let lines = searched(
        &mut peer,
        &[
            &file,
            "setoption name BookMargin value 5",
            "position startpos",
            "go movetime 60000",
        ],
    );
    let book_line = &lines[0];
    assert!(book_line.starts_with("info string book move"), "{lines:?}");
    assert_eq!(
        lines.len(),
        2,
        "a book move is answered without a search: {lines:?}"
    );
    let (chosen, moves) = offered(book_line);
    assert_eq!(lines[1], format!("bestmove {chosen}"));
    assert_eq!(moves.len(), 7);
    let best = moves.iter().map(|m| m.1).max().unwrap();
    let score = moves.iter().find(|m| m.0 == chosen).unwrap().1;
    assert!(
        score >= best - 5,
        "{chosen} {score} against the best {best}"
    );

    // Analysis limits search.
    for go in ["go depth 3", "go nodes 5000"] {
        let lines = searched(&mut peer, &[go]);
        assert!(any_starts(&lines, "info depth"), "{go}: {lines:?}");
        assert!(!mentions_book(&lines), "{go}: {lines:?}");
    }
    peer.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    let lines = searched(&mut peer, &["stop"]);
    assert!(!mentions_book(&lines), "{lines:?}");

    // A damaged file is refused with one line; the book in force stays.
    let damaged = scratch("book", "damaged.dbk");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&damaged, bytes).unwrap();
    peer.send(&format!(
        "setoption name BookFile value {}",
        damaged.display()
    ));
    let refusal = peer.line_before(std::time::Instant::now() + LIMIT, "the refusal");
    assert!(
        refusal.starts_with("info string error:") && refusal.contains("checksum"),
        "{refusal}"
    );
    let lines = searched(&mut peer, &["go wtime 60000 btime 60000"]);
    assert!(lines[0].starts_with("info string book move"), "{lines:?}");

    // Out of the book, or with the book off, the engine searches.
    let out_of_book = "position startpos moves 9-13 22-18 13-17 21-14";
    let lines = searched(&mut peer, &[out_of_book, "go movetime 100"]);
    assert!(!mentions_book(&lines), "{lines:?}");
    let book_off = "setoption name Book value false";
    let lines = searched(
        &mut peer,
        &["position startpos", book_off, "go movetime 100"],
    );
    assert!(any_starts(&lines, "info depth"), "{lines:?}");
    assert!(!mentions_book(&lines), "{lines:?}");
    peer.send("quit");
}

#[test]
fn hub_lists_scans_book_parameters_and_plays_from_the_book() {
    let path = built("hub.dbk", 200);
    let mut peer = started_listing(
        &["hub"],
        "hub",
        "wait",
        &[
            "param name=book value=true type=bool",
            "param name=book-ply",
            "param name=book-margin",
        ],
    );
    peer.send("set-param name=variant value=english");
    peer.send(&format!(
        "set-param name=book-file value=\"{}\"",
        path.display()
    ));
    peer.send("set-param name=book-margin value=0");
    peer.send("init");
    peer.until(LIMIT, |l| l == "ready");
    let start = "pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";
    let lines = searched(&mut peer, &[start, "level move-time=30", "go think"]);
    assert_eq!(lines.len(), 1, "answered from the book, no info: {lines:?}");
    let book_off = "set-param name=book value=false";
    let lines = searched(&mut peer, &[book_off, "level move-time=0.1", "go think"]);
    assert!(any_starts(&lines, "info"), "{lines:?}");
    peer.send("quit");
}

/// Sends `commands` and reads up to the end of the search they start (UCI's `bestmove`,
/// Hub's `done`): the lines read.
fn searched(peer: &mut Peer, commands: &[&str]) -> Vec<String> {
    for command in commands {
        peer.send(command);
    }
    let end = |l: &str| l.starts_with("bestmove") || l.starts_with("done");
    peer.until(LIMIT, end)
        .into_iter()
        .map(|(_, line)| line)
        .collect()
}

/// True when one of `lines` starts with `prefix`.
fn any_starts(lines: &[String], prefix: &str) -> bool {
    lines.iter().any(|l| l.starts_with(prefix))
}

/// True when one of `lines` mentions the book.
fn mentions_book(lines: &[String]) -> bool {
    lines.iter().any(|l| l.contains("book"))
}

/// The `Fen:` and `Legal moves:` lines of the engine's `d` display.
fn shown_position(peer: &mut Peer) -> (String, Vec<String>) {
    peer.send("d");
    let lines = peer.until(LIMIT, |l| l.starts_with("Options: "));
    let field = |prefix: &str| {
        lines
            .iter()
            .find_map(|(_, l)| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line: {lines:?}"))
            .to_string()
    };
    let legal = field("Legal moves: ")
        .split(' ')
        .map(str::to_string)
        .collect();
    (field("Fen: "), legal)
}

#[test]
fn the_builtin_books_answer_by_default_and_vary_the_openings() {
    let mut peer = Peer::start(&[]);
    for variant in ["english", "international"] {
        peer.send(&format!("setoption name Variant value {variant}"));
        peer.send("ucinewgame");
        peer.send("position startpos");
        let (_, legal) = shown_position(&mut peer);
        peer.send("go movetime 60000");
        let lines = peer.until(LIMIT, |l| l.starts_with("bestmove"));
        assert_eq!(lines.len(), 2, "{variant}: {lines:?}");
        let (chosen, moves) = offered(&lines[0].1);
        let mut offered_moves: Vec<String> = moves.into_iter().map(|m| m.0).collect();
        offered_moves.sort();
        let mut legal = legal;
        legal.sort();
        assert_eq!(offered_moves, legal, "{variant}: every move at the start");
        assert!(legal.contains(&chosen));

        // 100 games against itself: the first 6 plies vary (the measure of
        // diversity with the default BookMargin).
        let mut positions = std::collections::BTreeSet::new();
        for _ in 0..100 {
            peer.send("ucinewgame");
            let mut moves: Vec<String> = Vec::new();
            for _ in 0..6 {
                peer.send(&format!("position startpos moves {}", moves.join(" ")));
                peer.send("go movetime 20");
                let lines = peer.until(LIMIT, |l| l.starts_with("bestmove"));
                let best = lines.last().unwrap().1["bestmove ".len()..].to_string();
                moves.push(best.split(' ').next().unwrap().to_string());
            }
            peer.send(&format!("position startpos moves {}", moves.join(" ")));
            positions.insert(shown_position(&mut peer).0);
        }
        assert!(
            positions.len() >= 30,
            "{variant}: {} distinct positions after 6 plies in 100 games",
            positions.len()
        );
    }
    // No built-in book for Russian: the engine searches.
    peer.send("setoption name Variant value russian");
    peer.send("position startpos");
    peer.send("go movetime 50");
    let lines = peer.until(LIMIT, |l| l.starts_with("bestmove"));
    assert!(!lines.iter().any(|(_, l)| l.contains("book")), "{lines:?}");
    peer.send("quit");
}

/// `probe` and `stats` without `--book` read the variant's built-in book: at the start it
/// offers every legal move (7 in English, 9 in international); a variant without one is an
/// error that names the variants that have one.
#[test]
fn probe_and_stats_read_the_builtin_books() {
    for (variant, legal) in [("english", 7), ("international", 9)] {
        let probe = run_damka_ok("book", &["probe", "--variant", variant], b"", LIMIT);
        let lines: Vec<&str> = probe.stdout.lines().collect();
        assert!(
            lines[0].starts_with("value "),
            "{variant}: {}",
            probe.stdout
        );
        assert!(
            lines[0].ends_with("expanded"),
            "{variant}: {}",
            probe.stdout
        );
        assert_eq!(lines.len(), 1 + legal, "{variant}: {}", probe.stdout);
        let stats = run_damka_ok("book", &["stats", "--variant", variant], b"", LIMIT);
        assert!(
            stats
                .stdout
                .starts_with(&format!("the built-in {variant} book: {variant} book")),
            "{}",
            stats.stdout
        );
    }
    let none = common::process::run_damka(&["book", "probe", "--variant", "russian"], b"", LIMIT);
    assert_eq!(none.code, Some(1));
    assert!(
        none.stderr.contains("no built-in russian book") && none.stderr.contains("--book"),
        "{}",
        none.stderr
    );
}

/// A reader that goes away (`damka book stats | head -1`) ends the tool quietly with the
/// status a shell gives a process killed by SIGPIPE, not with a panic message.
#[test]
fn a_closed_stdout_ends_a_tool_quietly() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let output = common::process::damka_command(&["book", "stats", "--variant", "english"])
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("damka runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.is_empty(), "stderr: {stderr}");
    assert_eq!(output.status.code(), Some(141));
}
