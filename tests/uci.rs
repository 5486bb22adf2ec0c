//! The UCI-style dialect (`damka` with no arguments), driven through pipes as a GUI would.
//!
//! Every read has a timeout (a reader thread feeds a channel; `recv_timeout`), so a broken
//! engine fails a test instead of hanging it. The tests run one at a time (a global lock): the
//! timing checks must not compete with each other for the CPU.

use crate::common;

use common::peer::{Peer, Silence};
use common::serial;
use damka::rules::Variant;
use std::collections::HashSet;
use std::process::ExitStatus;
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

/// Longest wait for any expected line.
const TIMEOUT: Duration = Duration::from_secs(20);
/// English checkers after `11-15 23-19`.
const AFTER_11_15_23_19: &str =
    "B:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15";

/// A running `damka` ([`Peer`]) holding the timed tests' turn ([`serial`]), and the exchanges
/// the tests repeat.
struct Damka {
    peer: Peer,
    _serial: MutexGuard<'static, ()>,
}

/// What `d` prints, besides the diagram.
struct Display {
    diagram: Vec<String>,
    variant: String,
    fen: String,
    legal: Vec<String>,
    outcome: Option<String>,
    options: String,
}

impl Damka {
    fn start() -> Damka {
        let serial = serial();
        Damka {
            peer: Peer::start(&[]),
            _serial: serial,
        }
    }

    fn send(&mut self, line: &str) {
        self.peer.send(line);
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        self.peer.send_bytes(bytes);
    }

    /// Closes stdin (end of input).
    fn close(&mut self) {
        self.peer.close();
    }

    /// The next line, waiting at most `timeout`.
    fn line_within(&mut self, timeout: Duration) -> String {
        self.peer
            .line_before(Instant::now() + timeout, "any output")
    }

    /// Lines up to and including the first one that `done` accepts.
    fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.peer
            .until(TIMEOUT, done)
            .into_iter()
            .map(|(_, line)| line)
            .collect()
    }

    /// The exit status once damka has ended (it must, within [`TIMEOUT`]).
    fn exit_status(&mut self) -> ExitStatus {
        self.peer.exit(TIMEOUT).0
    }

    /// Sends `isready` and returns what came before `readyok`.
    fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until(|l| l == "readyok");
        lines.pop();
        lines
    }

    /// Asserts that nothing is printed for `duration`.
    fn quiet_for(&mut self, duration: Duration) {
        if let Some(line) = self.peer.line_or_timeout(Instant::now() + duration) {
            self.peer.fail(&format!("unexpected output {line:?}"));
        }
    }

    /// Waits for the `bestmove` line: (info lines before it, best, ponder).
    fn bestmove(&mut self) -> (Vec<String>, String, Option<String>) {
        let mut lines = self.until(|l| l.starts_with("bestmove"));
        let last = lines.pop().expect("a bestmove line");
        let words: Vec<&str> = last.split(' ').collect();
        match words.as_slice() {
            ["bestmove", best] => (lines, best.to_string(), None),
            ["bestmove", best, "ponder", ponder] => {
                (lines, best.to_string(), Some(ponder.to_string()))
            }
            _ => panic!("malformed {last:?}"),
        }
    }

    /// Sends `d` and reads its answer.
    fn display(&mut self) -> Display {
        self.send("d");
        let lines = self.until(|l| l.starts_with("Options: "));
        let field = |prefix: &str| {
            lines
                .iter()
                .find_map(|l| l.strip_prefix(prefix))
                .map(str::to_string)
        };
        let legal = field("Legal moves: ").expect("a Legal moves line");
        let legal = if legal == "(none)" {
            Vec::new()
        } else {
            legal.split(' ').map(str::to_string).collect()
        };
        Display {
            diagram: lines
                .iter()
                .take_while(|l| !l.starts_with("Variant: "))
                .cloned()
                .collect(),
            variant: field("Variant: ").expect("a Variant line"),
            fen: field("Fen: ").expect("a Fen line"),
            legal,
            outcome: field("Outcome: "),
            options: field("Options: ").expect("an Options line"),
        }
    }

    fn fen(&mut self) -> String {
        self.display().fen
    }

    /// Sends a bad command: exactly one `info string error:` line and nothing else.
    fn refused(&mut self, command: &str) -> String {
        self.send(command);
        self.refusal(command)
    }

    fn refusal(&mut self, command: &str) -> String {
        let lines = self.sync();
        assert_eq!(lines.len(), 1, "{command:?} gave {lines:#?}");
        assert!(
            lines[0].starts_with("info string error: "),
            "{command:?} gave {lines:#?}"
        );
        lines[0].clone()
    }

    /// Sends a good command: no output at all.
    fn accepted(&mut self, command: &str) {
        self.send(command);
        let lines = self.sync();
        assert!(lines.is_empty(), "{command:?} gave {lines:#?}");
    }

    /// Runs `go ...` and checks the bestmove is one of the position's legal moves, and that
    /// `position <position> moves <best>` is accepted. Returns (infos, best, elapsed).
    fn go_legal(&mut self, position: &str, go: &str) -> (Vec<String>, String, Duration) {
        self.accepted(position);
        let legal = self.display().legal;
        let started = Instant::now();
        self.send(go);
        let (infos, best, _) = self.bestmove();
        let elapsed = started.elapsed();
        assert!(legal.contains(&best), "{go}: {best} not in {legal:?}");
        let with = if position.contains(" moves ") {
            format!("{position} {best}")
        } else {
            format!("{position} moves {best}")
        };
        self.accepted(&with);
        self.accepted(position);
        (infos, best, elapsed)
    }
}

/// The value after `key` in an `info` line.
fn info_field(line: &str, key: &str) -> Option<String> {
    let words: Vec<&str> = line.split(' ').collect();
    words
        .iter()
        .position(|w| *w == key)
        .and_then(|i| words.get(i + 1))
        .map(|w| w.to_string())
}

/// Checks the layout of an `info` line with a score.
fn check_info(line: &str) {
    let words: Vec<&str> = line.split(' ').collect();
    let keys = [
        "info", "depth", "seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time",
    ];
    let mut at = 0;
    for key in keys {
        assert_eq!(words.get(at), Some(&key), "{line}");
        at += match key {
            "info" => 1,
            "score" => 3,
            _ => 2,
        };
    }
    assert!(matches!(words[8], "cp" | "mate"), "{line}");
    for i in [2, 4, 6, 11, 13, 15, 17] {
        assert!(words[i].parse::<u64>().is_ok(), "{line}");
    }
    assert!(words[9].parse::<i64>().is_ok(), "{line}");
    if words.len() > 18 {
        assert_eq!(words[18], "pv", "{line}");
        assert!(words.len() > 19, "{line}");
    }
}

#[test]
fn handshake_lists_every_option_then_uciok() {
    let mut damka = Damka::start();
    damka.send("uci");
    let lines = damka.until(|l| l == "uciok");
    assert_eq!(
        lines[0],
        format!("id name damka {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines[1].starts_with("id author "), "{lines:#?}");
    let options = &lines[2..lines.len() - 1];
    let expected = [
        "option name Hash type spin default 64 min 1 max 4096",
        "option name Threads type spin default 1 min 1 max 256",
        "option name MultiPV type spin default 1 min 1 max 64",
        "option name Ponder type check default false",
        "option name Move Overhead type spin default 30 min 0 max 5000",
        "option name Variant type combo default english var english var international \
         var brazilian var russian var pool var italian var spanish var czech var towers \
         var antidraughts var breakthrough var frisian var frysk var turkish",
        "option name Clear Hash type button",
        "option name EvalFile type string default <empty>",
        "option name EGTBPath type string default <empty>",
        "option name EGTBCache type spin default 64 min 0 max 4096",
        "option name Book type check default true",
        "option name BookFile type string default <empty>",
        "option name BookPly type spin default 6 min 0 max 1000",
        "option name BookMargin type spin default 20 min 0 max 1000",
        "option name Skill Level type spin default 20 min 0 max 20",
        "option name UCI_LimitStrength type check default false",
        &format!("option name UCI_Elo type spin default 2400 min {LOWEST_ELO} max 2400"),
    ];
    assert_eq!(options, expected);
    assert!(damka.sync().is_empty());
    // Twice, and in any case.
    damka.send("UCI");
    assert_eq!(damka.until(|l| l == "uciok"), lines);
}

#[test]
fn setoption_of_each_option() {
    let mut damka = Damka::start();
    let defaults = "Hash 64; Threads 1; MultiPV 1; Ponder false; Move Overhead 30; Variant english";
    assert_eq!(damka.display().options, defaults);
    let valid = [
        ("setoption name Hash value 16", "Hash 16;"),
        ("setoption name Threads value 2", "Threads 2;"),
        ("setoption name MultiPV value 3", "MultiPV 3;"),
        ("setoption name Ponder value true", "Ponder true;"),
        ("setoption name Move Overhead value 50", "Move Overhead 50;"),
        ("setoption name move overhead value 40", "Move Overhead 40;"),
        ("setoption name Variant value russian", "Variant russian"),
        ("setoption name Clear Hash", "Variant russian"),
    ];
    for (command, shown) in valid {
        damka.accepted(command);
        let options = damka.display().options;
        assert!(options.contains(shown), "{command}: {options}");
    }
    let set = "Hash 16; Threads 2; MultiPV 3; Ponder true; Move Overhead 40; Variant russian";
    assert_eq!(damka.display().options, set);
    let invalid = [
        "setoption name Hash value 0",
        "setoption name Hash value 16385",
        "setoption name Hash value lots",
        "setoption name Hash",
        "setoption name Threads value 0",
        "setoption name Threads value 257",
        "setoption name MultiPV value 0",
        "setoption name MultiPV value 65",
        "setoption name Ponder value maybe",
        "setoption name Move Overhead value -1",
        "setoption name Move Overhead value 5001",
        "setoption name Variant value chess",
        "setoption name Nope value 1",
        "setoption name",
        "setoption Hash 32",
    ];
    for command in invalid {
        damka.refused(command);
        assert_eq!(damka.display().options, set, "after {command}");
    }
    // MultiPV 3 reports three lines per depth.
    damka.accepted("setoption name Variant value english");
    let (infos, _, _) = damka.go_legal("position startpos", "go depth 3");
    for k in ["1", "2", "3"] {
        assert!(
            infos
                .iter()
                .any(|l| info_field(l, "depth").as_deref() == Some("3")
                    && info_field(l, "multipv").as_deref() == Some(k)),
            "{infos:#?}"
        );
    }
}

#[test]
fn variant_option_resets_to_the_start_position() {
    let mut damka = Damka::start();
    damka.accepted("position startpos moves 11-15 23-19");
    damka.accepted("setoption name Variant value russian");
    let shown = damka.display();
    assert_eq!(shown.variant, "russian");
    assert_eq!(
        shown.fen,
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
    assert!(
        shown.legal.contains(&"c3-d4".to_string()),
        "{:?}",
        shown.legal
    );
    // Algebraic moves, captures with ':'.
    damka.accepted("position startpos moves c3-d4 f6-e5");
    assert_eq!(damka.display().legal, ["d4:f6"]);
    damka.accepted("position startpos moves c3-d4 f6-e5 d4:f6");
}

#[test]
fn position_startpos_with_moves_english() {
    let mut damka = Damka::start();
    let start = damka.display();
    assert_eq!(start.variant, "english");
    assert_eq!(
        start.fen,
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
    damka.accepted("position startpos moves 11-15 23-19");
    assert_eq!(damka.fen(), AFTER_11_15_23_19);
    // Moves in capture-list form and with landing squares are read too.
    damka.accepted("position startpos moves 11-15 22-18 15x22");
    assert!(damka.fen().starts_with("W:"));
    damka.accepted("position startpos");
    assert_eq!(damka.fen(), start.fen);
    damka.accepted("position startpos moves");
    assert_eq!(damka.fen(), start.fen);
    damka.accepted(&format!("position fen {AFTER_11_15_23_19} moves 15-18"));
    let fen = damka.fen();
    damka.accepted("position startpos moves 11-15 23-19 15-18");
    assert_eq!(damka.fen(), fen);
}

#[test]
fn position_fen_with_moves_international() {
    let mut damka = Damka::start();
    damka.accepted("setoption name Variant value international");
    assert_eq!(
        damka.fen(),
        "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"
    );
    damka.accepted("position fen W:W31-50:B1-20 moves 32-28 19-23");
    let shown = damka.display();
    assert_eq!(
        shown.fen,
        "W:W28,31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:\
         B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,20,23"
    );
    assert_eq!(shown.legal, ["28x19"]);
    assert_eq!(shown.diagram.len(), 11, "{:#?}", shown.diagram);
    damka.accepted("position startpos moves 32-28 19-23");
    assert_eq!(damka.fen(), shown.fen);
    // A quoted FEN, and one with kings.
    damka.accepted("position fen \"B:WK46,28:BK3,19\"");
    assert_eq!(damka.fen(), "B:W28,K46:BK3,19");
    // An illegal move after a good FEN changes nothing.
    damka.refused("position fen W:W31-50:B1-20 moves 50-45");
    assert_eq!(damka.fen(), "B:W28,K46:BK3,19");
    let (_, best, _) = damka.go_legal(
        "position fen W:W31-50:B1-20 moves 32-28 19-23",
        "go depth 4",
    );
    assert_eq!(best, "28x19");
}

#[test]
fn go_depth() {
    let mut damka = Damka::start();
    let (infos, _, _) = damka.go_legal("position startpos moves 11-15 23-19", "go depth 4");
    let depths: Vec<u32> = infos
        .iter()
        .map(|l| {
            check_info(l);
            info_field(l, "depth").unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(depths.iter().max(), Some(&4), "{infos:#?}");
    assert!(
        infos
            .iter()
            .all(|l| info_field(l, "multipv").as_deref() == Some("1"))
    );
    assert!(damka.sync().is_empty(), "exactly one bestmove");
}

#[test]
fn go_nodes() {
    let mut damka = Damka::start();
    // Liveness: the node limit ends the search with no `stop` (within `TIMEOUT`).
    let (infos, _, _) = damka.go_legal("position startpos", "go nodes 2000");
    for line in &infos {
        let nodes: u64 = info_field(line, "nodes").unwrap().parse().unwrap();
        assert!(nodes <= 2000 + 2048, "{line}");
    }
    assert!(damka.sync().is_empty(), "exactly one bestmove");
}

/// The `UCI_Elo` of the weakest level (docs/bench.md, "Strength levels").
const LOWEST_ELO: i32 = damka::search::skill::LOWEST_ELO;

/// A weak level answers a timed `go` long before its time with a small search, varies its
/// move from the same position, reports only the one line asked for, and shows in `d`; the
/// level comes from `UCI_Elo` under `UCI_LimitStrength`; values out of range are refused.
#[test]
fn strength_levels_play_quickly_and_vary() {
    let mut damka = Damka::start();
    damka.accepted("setoption name Book value false");
    damka.accepted("setoption name Skill Level value 0");
    assert!(damka.display().options.ends_with("; level 0.00"));
    let mut played = HashSet::new();
    for _ in 0..40 {
        let (infos, best, elapsed) = damka.go_legal("position startpos", "go movetime 20000");
        assert!(
            elapsed < Duration::from_secs(10),
            "level 0 took {elapsed:?}"
        );
        assert!(!infos.is_empty());
        for line in &infos {
            assert_eq!(info_field(line, "multipv").as_deref(), Some("1"), "{line}");
            let nodes: u64 = info_field(line, "nodes").unwrap().parse().unwrap();
            assert!(nodes <= 1000, "{line}");
        }
        played.insert(best);
    }
    assert!(played.len() >= 2, "level 0 always played {played:?}");
    for command in [
        "setoption name Skill Level value 21",
        "setoption name Skill Level value -1",
        "setoption name UCI_Elo value 2401",
        &format!("setoption name UCI_Elo value {}", LOWEST_ELO - 1),
        "setoption name UCI_LimitStrength value yes",
    ] {
        damka.refused(command);
    }
    damka.accepted("setoption name Skill Level value 20");
    assert!(!damka.display().options.contains("level"));
    // Under UCI_LimitStrength, UCI_Elo picks the level, between two levels for an Elo
    // between theirs; the default Elo is full strength.
    damka.accepted("setoption name UCI_LimitStrength value true");
    assert!(!damka.display().options.contains("level"));
    damka.accepted(&format!("setoption name UCI_Elo value {LOWEST_ELO}"));
    assert!(damka.display().options.ends_with("; level 0.00"));
    let (infos, _, _) = damka.go_legal("position startpos", "go movetime 20000");
    let nodes: u64 = info_field(infos.last().unwrap(), "nodes")
        .unwrap()
        .parse()
        .unwrap();
    assert!(nodes <= 1000, "{infos:#?}");
    damka.accepted("setoption name UCI_Elo value 2000");
    let options = damka.display().options;
    let level: f64 = options.rsplit("level ").next().unwrap().parse().unwrap();
    assert!(level > 0.0 && level < 20.0, "{options}");
    // The lines asked for are reported, not the level's own (level 0 compares four).
    damka.accepted(&format!("setoption name UCI_Elo value {LOWEST_ELO}"));
    damka.accepted("setoption name MultiPV value 2");
    let (infos, _, _) = damka.go_legal("position startpos", "go movetime 20000");
    let lines: HashSet<String> = infos
        .iter()
        .filter_map(|l| info_field(l, "multipv"))
        .collect();
    assert_eq!(lines, HashSet::from(["1".to_string(), "2".to_string()]));
    // `go infinite` is analysis, at full strength: it searches on past the level's nodes.
    damka.accepted("position startpos");
    damka.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    damka.send("stop");
    let (infos, _, _) = damka.bestmove();
    let nodes: u64 = info_field(infos.last().unwrap(), "nodes")
        .unwrap()
        .parse()
        .unwrap();
    assert!(nodes > 10_000, "{infos:#?}");
}

// How the clock becomes a time budget is unit-tested in `search::time` (pure arithmetic); how
// closely an answer keeps to it is a benchmark (scripts/stop_latency.py, docs/bench.md) and
// matches count forfeits on time. Here a timed `go` must end by itself, with no `stop`, within
// `TIMEOUT` (a limit misread as none would search on), and a lower bound shows that the time
// was used: load only makes an answer later, so neither check fails on a busy machine.

#[test]
fn go_movetime_is_respected() {
    let mut damka = Damka::start();
    // A timed search from the start position, not the book's instant answer.
    damka.accepted("setoption name Book value false");
    for movetime in [100u64, 400] {
        let (_, _, elapsed) =
            damka.go_legal("position startpos", &format!("go movetime {movetime}"));
        let ms = elapsed.as_millis() as u64;
        assert!(ms >= movetime / 2, "movetime {movetime}: {ms} ms");
    }
    assert!(damka.sync().is_empty(), "exactly one bestmove");
}

#[test]
fn go_with_small_clocks_never_overruns() {
    let mut damka = Damka::start();
    // English: Black moves first, so btime is the clock that counts.
    for (clock, inc) in [(1000i64, 10i64), (200, 0), (60, 0), (40, 20)] {
        damka.go_legal(
            "position startpos",
            &format!("go wtime {clock} btime {clock} winc {inc} binc {inc}"),
        );
    }
    // White to move: wtime counts (a budget taken from btime's 100 s would outlast `TIMEOUT`).
    damka.go_legal("position startpos moves 11-15", "go wtime 100 btime 100000");
    // An overstepped clock still gives a legal move.
    damka.go_legal("position startpos", "go wtime -50 btime -50");
}

#[test]
fn go_movestogo() {
    let mut damka = Damka::start();
    // A timed search from the start position, not the book's instant answer.
    damka.accepted("setoption name Book value false");
    // One move to the control: nearly all of the clock (a fortieth would be 10 ms).
    let (_, _, elapsed) = damka.go_legal("position startpos", "go wtime 400 btime 400 movestogo 1");
    let ms = elapsed.as_millis();
    assert!(ms >= 150, "movestogo 1: {ms} ms");
    // Forty moves to go: ends by itself (the share is unit-tested in `search::time`).
    damka.go_legal("position startpos", "go wtime 4000 btime 4000 movestogo 40");
}

#[test]
fn go_infinite_waits_for_stop_and_isready_is_answered_meanwhile() {
    let (mut damka, legal) = Damka::searching(&["position startpos moves 11-15"], "go infinite");
    damka.quiet_for_infos(Duration::from_millis(300));
    // Order and liveness, not milliseconds: `readyok` comes while the search that only `stop`
    // ends goes on, and `stop` brings its one bestmove.
    damka.send("isready");
    let lines = damka.until(|l| l == "readyok");
    assert!(
        lines[..lines.len() - 1]
            .iter()
            .all(|l| l.starts_with("info depth")),
        "{lines:#?}"
    );
    damka.ended_by("stop", &legal);
    damka.no_second_bestmove_and_idle("stop");
}

#[test]
fn isready_during_a_timed_search() {
    let mut damka = Damka::start();
    // A timed search from the start position, not the book's instant answer.
    damka.accepted("setoption name Book value false");
    // A search far longer than any delay of a loaded machine: `readyok` before its bestmove
    // shows the loop answered without waiting for it.
    damka.send("go movetime 60000");
    std::thread::sleep(Duration::from_millis(50));
    damka.send("isready");
    let lines = damka.until(|l| l == "readyok");
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:#?}"
    );
    damka.send("stop");
    damka.bestmove();
}

impl Damka {
    /// damka, once each of `setup` is accepted, searching with `go`; the legal moves where it
    /// searches.
    fn searching(setup: &[&str], go: &str) -> (Damka, Vec<String>) {
        let mut damka = Damka::start();
        for command in setup {
            damka.accepted(command);
        }
        let legal = damka.display().legal;
        damka.send(go);
        (damka, legal)
    }

    /// Sends `command`, which ends the search, and reads its bestmove, which must be one of
    /// `legal`: the move and the ponder move.
    fn ended_by(&mut self, command: &str, legal: &[String]) -> (String, Option<String>) {
        self.send(command);
        let (_, best, ponder) = self.bestmove();
        assert!(legal.contains(&best), "{best} not in {legal:?}");
        (best, ponder)
    }

    /// After a search's bestmove: no other comes (exactly one a `go`), and `command` then,
    /// with no search to act on, does nothing.
    fn no_second_bestmove_and_idle(&mut self, command: &str) {
        assert!(self.sync().is_empty(), "exactly one bestmove");
        self.accepted(command);
    }

    /// Asserts that nothing but `info` lines is printed for `duration`.
    fn quiet_for_infos(&mut self, duration: Duration) {
        let deadline = Instant::now() + duration;
        while let Some(line) = self.peer.line_or_timeout(deadline) {
            if !line.starts_with("info depth") {
                self.peer.fail(&format!("unexpected output {line:?}"));
            }
            check_info(&line);
        }
    }
}

#[test]
fn ponder_then_ponderhit() {
    let setup = [
        "setoption name Ponder value true",
        "position startpos moves 11-15 23-19",
    ];
    let (mut damka, legal) = Damka::searching(&setup, "go ponder wtime 300 btime 300");
    // Pondering is untimed: no bestmove although the clock would have run out.
    damka.quiet_for_infos(Duration::from_millis(500));
    // After `ponderhit` the clock counts: the search ends by itself, with no `stop`.
    damka.ended_by("ponderhit", &legal);
    damka.no_second_bestmove_and_idle("ponderhit");
}

#[test]
fn ponder_then_stop() {
    let setup = ["position startpos moves 11-15 23-19"];
    let (mut damka, legal) = Damka::searching(&setup, "go ponder wtime 100000 btime 100000");
    damka.quiet_for_infos(Duration::from_millis(200));
    // The ponder search is untimed: its bestmove comes because of `stop`.
    let (best, ponder) = damka.ended_by("stop", &legal);
    if let Some(ponder) = ponder {
        damka.accepted(&format!(
            "position startpos moves 11-15 23-19 {best} {ponder}"
        ));
    }
    assert!(damka.sync().is_empty(), "exactly one bestmove");
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut damka = Damka::start();
    let (_, best, _) = damka.go_legal("position startpos", "go depth 5 searchmoves 12-16");
    assert_eq!(best, "12-16");
    let (_, best, _) = damka.go_legal("position startpos", "go searchmoves 9-13 10-14 depth 4");
    assert!(best == "9-13" || best == "10-14", "{best}");
    let (infos, best, _) = damka.go_legal("position startpos", "go movetime 200 searchmoves 9-14");
    assert_eq!(best, "9-14");
    assert!(
        infos
            .iter()
            .all(|l| info_field(l, "pv").as_deref() == Some("9-14")),
        "{infos:#?}"
    );
    // Illegal or malformed searchmoves: one error, no search.
    damka.refused("go depth 3 searchmoves 11-15 13-17");
    damka.refused("go depth 3 searchmoves banana");
    damka.quiet_for(Duration::from_millis(50));
}

#[test]
fn d_eval_and_perft() {
    let mut damka = Damka::start();
    let shown = damka.display();
    assert_eq!(shown.diagram.len(), 9, "{:#?}", shown.diagram);
    assert!(shown.diagram[0].contains('b'), "{:#?}", shown.diagram);
    assert!(
        shown.diagram[8].contains("Black to move"),
        "{:#?}",
        shown.diagram
    );
    assert_eq!(shown.legal.len(), 7);
    assert_eq!(shown.outcome, None);
    damka.send("eval");
    let eval = damka.line_within(TIMEOUT);
    let words: Vec<&str> = eval.split(' ').collect();
    assert_eq!(words[0], "Eval:", "{eval}");
    assert!(words[1].parse::<i32>().is_ok(), "{eval}");
    assert_eq!(words[2], "cp", "{eval}");
    for (depth, expected) in [(1u32, 7u64), (2, 49), (3, 302)] {
        damka.send(&format!("perft {depth}"));
        let lines = damka.until(|l| l.starts_with("Nodes searched: "));
        let (total, divide) = lines.split_last().unwrap();
        assert_eq!(total, &format!("Nodes searched: {expected}"));
        assert_eq!(divide.len(), 7, "{lines:#?}");
        let sum: u64 = divide
            .iter()
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(sum, expected);
    }
    damka.send("perft 0");
    assert_eq!(damka.line_within(TIMEOUT), "Nodes searched: 1");
    assert!(damka.sync().is_empty());
}

impl Damka {
    /// The centi-men of `eval`.
    fn eval(&mut self) -> i32 {
        self.send("eval");
        let line = self.line_within(TIMEOUT);
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words[0], "Eval:", "{line}");
        words[1].parse().expect("a number")
    }
}

#[test]
fn eval_file_loads_weights_and_a_bad_file_keeps_the_previous_ones() {
    use damka::eval::evaluate_with;
    use damka::eval::weights::INTERNATIONAL;
    use damka::notation::fen::parse_fen;
    use damka::rules::International;

    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("uci-eval-file");
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("a temporary file");
        path.display().to_string()
    };
    let built_in = write("built-in.txt", &INTERNATIONAL.to_text());
    let changed = damka::eval::Weights {
        centre: 40,
        mobility: 9,
        advance_opening: [0, 3, 5, 7, 9, 11, 13, 15, 17, 0],
        ..INTERNATIONAL
    };
    let other = write("other.txt", &changed.to_text());
    let broken = write("broken.txt", "centre 40\nmobility lots\n");
    let unknown = write("unknown.txt", "# a comment\nno_such_weight 3\n");

    let mut damka = Damka::start();
    damka.accepted("setoption name Variant value international");
    damka.accepted("position startpos moves 32-28 19-23 28x19 14x23 37-32");
    let fen = damka.fen();
    let position = parse_fen::<International>(&fen).expect("the engine's FEN reads");
    let default = damka.eval();
    assert_eq!(default, damka::eval::evaluate(&position));

    // The built-in weights file (block tables and weights) written out and read back scores
    // the same; the built-in weights as text give the linear evaluation without the tables.
    let built_in_file = dir.join("built-in.dkw");
    std::fs::write(&built_in_file, damka::eval::defaults::INTERNATIONAL_FILE)
        .expect("a temporary file");
    damka.accepted(&format!(
        "setoption name EvalFile value {}",
        built_in_file.display()
    ));
    assert_eq!(damka.eval(), default);
    damka.accepted(&format!("setoption name EvalFile value {built_in}"));
    assert_eq!(damka.eval(), evaluate_with(&position, &INTERNATIONAL));

    // Another set is used by `eval` and by the search.
    damka.accepted(&format!("setoption name EvalFile value {other}"));
    let tuned = evaluate_with(&position, &changed);
    assert_ne!(
        tuned, default,
        "the test weights change this position's score"
    );
    assert_eq!(damka.eval(), tuned);
    assert!(
        damka
            .display()
            .options
            .ends_with(&format!("; EvalFile {other}")),
        "d names the file"
    );
    let (_, best, _) = damka.go_legal(&format!("position fen {fen}"), "go depth 4");
    assert!(!best.is_empty());

    // Bad files are refused with one error line and the loaded weights stay.
    for bad in [
        broken.as_str(),
        unknown.as_str(),
        "/no/such/weights/file.txt",
    ] {
        let error = damka.refused(&format!("setoption name EvalFile value {bad}"));
        assert!(error.contains("EvalFile"), "{error}");
        assert_eq!(damka.eval(), tuned, "{bad}");
    }

    // Empty (or `<empty>`, as `uci` lists the default) goes back to the built-in set.
    damka.accepted("setoption name EvalFile value <empty>");
    assert_eq!(damka.eval(), default);
    damka.accepted(&format!("setoption name EvalFile value {other}"));
    damka.accepted("setoption name EvalFile");
    assert_eq!(damka.eval(), default);
    assert!(!damka.display().options.contains("EvalFile"));
}

#[test]
fn bad_input_gets_one_error_line_and_keeps_the_position() {
    let mut damka = Damka::start();
    damka.accepted("position startpos moves 11-15 23-19");
    let before = damka.fen();
    assert_eq!(before, AFTER_11_15_23_19);
    let bad = [
        "garbage",
        "info depth 300",
        "bestmove 11-15",
        "position",
        "position fen",
        "position fen garbage",
        "position fen W:W31-50:B1-20",
        "position fen B:W21-32:B1-12 moves 11-15 11-15",
        "position startpos moves 11-15 99-100",
        "position startpos moves 11-15 23-19 9-13 13-17",
        "position startpos moves 11-15 hello",
        "position startpos 11-15",
        "position elsewhere",
        "go depth -1",
        "go depth 0",
        "go depth 99999999999999999999",
        "go depth",
        "go depth 3 depth 4",
        "go nodes -5",
        "go movetime soon",
        "go movestogo 0",
        "go wtime",
        "go mate 3",
        "go fast",
        "go depth 5 garbage",
        "go searchmoves",
        "setoption name Nope value 1",
        "setoption name Hash value -1",
        "setoption",
        "isready now",
        "stop please",
        "debug",
        "d now",
        "perft",
        "perft -1",
        "perft 99999999999",
        "ucinewgame 1",
    ];
    for command in bad {
        damka.refused(command);
        assert_eq!(damka.fen(), before, "after {command:?}");
    }
    // A line that is not UTF-8.
    damka.send_bytes(b"position startpos moves \xff\xfe\n");
    damka.refusal("non-UTF-8 line");
    assert_eq!(damka.fen(), before);
    // Blank lines are ignored.
    damka.accepted("");
    damka.accepted("   \t ");
    // The options are kept too.
    assert_eq!(
        damka.display().options,
        "Hash 64; Threads 1; MultiPV 1; Ponder false; Move Overhead 30; Variant english"
    );
    // And the engine still works.
    damka.go_legal("position startpos moves 11-15 23-19", "go depth 3");
}

#[test]
fn bad_input_during_a_search_leaves_it_alone() {
    let mut damka = Damka::start();
    damka.accepted("position startpos moves 11-15");
    damka.send("go infinite");
    for command in [
        "position fen garbage",
        "setoption name Hash value 0",
        "go depth -1",
        "go searchmoves 1-2",
    ] {
        damka.send(command);
        let lines = damka.until(|l| !l.starts_with("info depth"));
        assert!(
            lines.last().unwrap().starts_with("info string error: "),
            "{command}: {lines:#?}"
        );
    }
    damka.quiet_for_infos(Duration::from_millis(100));
    damka.send("stop");
    damka.bestmove();
    assert_eq!(
        damka.fen(),
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"
    );
}

#[test]
fn state_changing_commands_wait_for_a_bounded_search() {
    let mut damka = Damka::start();
    // Sent in one go: each command takes effect in order, every go gets its bestmove.
    damka.send("position startpos\ngo depth 4\nposition startpos moves 11-15\ngo depth 4\nsetoption name Variant value russian\ngo depth 3");
    let (_, first, _) = damka.bestmove();
    let (_, second, _) = damka.bestmove();
    let (_, third, _) = damka.bestmove();
    assert!(first.contains('-') && !first.contains(':'));
    assert!(
        [
            "21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"
        ]
        .contains(&second.as_str()),
        "{second}"
    );
    assert!(
        third.chars().next().unwrap().is_ascii_lowercase(),
        "{third}"
    );
    // An infinite search is stopped by them instead (its bestmove comes first).
    damka.send("go infinite");
    damka.send("position startpos moves c3-d4");
    damka.bestmove();
    assert!(damka.sync().is_empty());
    assert!(damka.fen().starts_with("B:"));
}

#[test]
fn a_finished_game_answers_bestmove_none() {
    let mut damka = Damka::start();
    for fen in ["B:W32:B28", "B:WK1:B"] {
        damka.accepted(&format!("position fen {fen}"));
        let shown = damka.display();
        assert!(shown.legal.is_empty());
        assert_eq!(
            shown.outcome.as_deref(),
            Some("white wins (black has no legal move)")
        );
        for go in ["go depth 3", "go movetime 50", "go wtime 1000 btime 1000"] {
            damka.send(go);
            let lines = damka.until(|l| l.starts_with("bestmove"));
            assert_eq!(
                lines,
                [
                    "info string game over: white wins (black has no legal move)",
                    "bestmove (none)"
                ]
            );
        }
        // `go infinite` still waits for `stop`.
        damka.send("go infinite");
        damka.until(|l| l.starts_with("info string game over"));
        damka.quiet_for(Duration::from_millis(100));
        damka.send("stop");
        assert_eq!(damka.line_within(TIMEOUT), "bestmove (none)");
    }
}

#[test]
fn every_variant_plays_legal_moves() {
    let mut damka = Damka::start();
    for variant in Variant::ALL.map(Variant::name) {
        damka.accepted(&format!("setoption name Variant value {variant}"));
        assert_eq!(damka.display().variant, variant);
        let mut moves: Vec<String> = Vec::new();
        // A few moves of self-play, each bestmove checked and played.
        for _ in 0..6 {
            let position = if moves.is_empty() {
                "position startpos".to_string()
            } else {
                format!("position startpos moves {}", moves.join(" "))
            };
            damka.accepted(&position);
            if damka.display().legal.is_empty() {
                break;
            }
            let (_, best, _) = damka.go_legal(&position, "go depth 3");
            moves.push(best);
        }
        damka.accepted("ucinewgame");
        assert_eq!(damka.display().variant, variant);
    }
}

/// A search that `go` starts, then `end` while it runs: the search's bestmove comes, then
/// damka exits with status 0.
fn ended_during_a_search(go: &str, end: fn(&mut Damka)) {
    let mut damka = Damka::start();
    damka.send(go);
    damka.quiet_for_infos(Duration::from_millis(100));
    end(&mut damka);
    damka.bestmove();
    let status = damka.exit_status();
    assert!(status.success());
}

common::test_cases! {
    end_of_input_stops_the_search_and_prints_its_bestmove:
        ended_during_a_search("go infinite", Damka::close);
    quit_stops_the_search_and_prints_its_bestmove:
        ended_during_a_search("go ponder", |damka| damka.send("quit"));
}

#[test]
fn stress_rapid_position_go_stop_cycles() {
    let mut damka = Damka::start();
    let positions = ["position startpos", "position startpos moves 11-15 23-19"];
    let mut legal: Vec<HashSet<String>> = Vec::new();
    for position in positions {
        damka.accepted(position);
        legal.push(damka.display().legal.into_iter().collect());
    }
    let gos = common::STRESS_GOS;
    const CYCLES: usize = 1000;
    let started = Instant::now();
    // First a few hundred cycles waiting for each bestmove, as a GUI would ...
    for cycle in 0..300 {
        let which = cycle % 2;
        damka.send(&format!(
            "{}\n{}\nstop",
            positions[which],
            gos[cycle % gos.len()].replace(" searchmoves 9-13 10-14", "")
        ));
        let (_, best, _) = damka.bestmove();
        assert!(legal[which].contains(&best), "cycle {cycle}: {best}");
    }
    assert!(damka.sync().is_empty(), "exactly one bestmove per go");
    // ... then a thousand sent all at once, followed by the end of the input.
    let mut script = String::new();
    let mut expected: Vec<usize> = Vec::with_capacity(CYCLES);
    for cycle in 0..CYCLES {
        let which = cycle % 2;
        let go = gos[cycle % gos.len()];
        // searchmoves only fits the start position
        let which = if go.contains("searchmoves") { 0 } else { which };
        script.push_str(positions[which]);
        script.push('\n');
        script.push_str(go);
        script.push_str("\nstop\n");
        expected.push(which);
    }
    damka.send_bytes(script.as_bytes());
    damka.close();
    let deadline = started + Duration::from_secs(30);
    let mut bestmoves = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match damka.peer.next_line(Instant::now() + left) {
            Ok((_, line)) => {
                if let Some(rest) = line.strip_prefix("bestmove ") {
                    bestmoves.push(rest.split(' ').next().unwrap().to_string());
                } else {
                    assert!(
                        line.starts_with("info depth") || line.starts_with("info string book move"),
                        "unexpected {line:?}"
                    );
                }
            }
            Err(Silence::Closed) => break,
            Err(Silence::Timeout) => panic!(
                "deadlock or too slow: {} bestmoves after {:?}",
                bestmoves.len(),
                started.elapsed()
            ),
        }
    }
    assert_eq!(bestmoves.len(), CYCLES, "exactly one bestmove per go");
    for (cycle, (best, which)) in bestmoves.iter().zip(&expected).enumerate() {
        assert!(legal[*which].contains(best), "cycle {cycle}: {best}");
    }
    let status = damka.exit_status();
    assert!(status.success());
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
