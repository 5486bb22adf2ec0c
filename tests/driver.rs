//! The command driver shared by the UCI dialect and the Hub protocol: commands during searches never block the reader, in either protocol.
//!
//! Two kinds of test, both through pipes as a GUI drives the engine:
//! - the sequences that once deadlocked the UCI front end (a state-changing command during a
//!   search waited for that search inside the stdin loop, so `stop` was never read), in both
//!   protocols;
//! - random sessions (proptest): valid, mutated and garbage lines with random pauses, the
//!   invariants checked after every step: every `isready`/`ping` answered within 100 ms, one
//!   `bestmove`/`done` per accepted `go`, a search stopped before a state change is applied,
//!   a legal move at the end, nothing after `quit`, exit code 0 on `quit` and on end of input.
//!
//! The tests run one at a time (a global lock): the answer-time checks must not compete with
//! each other for the CPU.

use crate::common;

use common::peer::{Peer, damka_command};
use common::serial;
use damka::protocol::hub::parse_command as parse_hub;
use damka::protocol::uci::{Command as UciCommand, parse_command as parse_uci};
use proptest::prelude::*;
use std::time::{Duration, Instant};

/// A bound for lines that come when a search notices `stop`, and for the answer to an
/// `isready`/`ping`, search or no search: a liveness bound, not a latency one (how fast the
/// answer comes is scripts/stop_latency.py's to measure; under load a test cannot tell 100 ms
/// from 113).
const SETTLE: Duration = Duration::from_secs(3);

/// English checkers' seven first moves (any checkers reference: Black's men on 1-12 move to
/// 13-16).
const ENGLISH_FIRST_MOVES: [&str; 7] =
    ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"];
/// International draughts' nine first moves (White's men on 31-35 move to 26-30).
const INTERNATIONAL_FIRST_MOVES: [&str; 9] = [
    "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30",
];

/// The protocol under test: its start, its answer to a sync request, the end of a search.
#[derive(Clone, Copy, Debug)]
enum Protocol {
    Uci,
    Hub,
}

impl Protocol {
    fn start(self) -> Peer {
        match self {
            Protocol::Uci => {
                let mut peer = Peer::start(&[]);
                peer.send("uci");
                peer.until(SETTLE, |l| l == "uciok");
                peer
            }
            Protocol::Hub => {
                let mut peer = Peer::start(&["hub"]);
                peer.send("hub");
                peer.until(SETTLE, |l| l == "wait");
                peer.send("init");
                peer.until(SETTLE, |l| l == "ready");
                peer
            }
        }
    }

    fn sync(self) -> &'static str {
        match self {
            Protocol::Uci => "isready",
            Protocol::Hub => "ping",
        }
    }

    fn synced(self, line: &str) -> bool {
        match self {
            Protocol::Uci => line == "readyok",
            Protocol::Hub => line == "pong",
        }
    }

    /// The `bestmove`/`done` line that ends a search.
    fn is_end(self, line: &str) -> bool {
        match self {
            Protocol::Uci => line.starts_with("bestmove"),
            Protocol::Hub => line == "done" || line.starts_with("done "),
        }
    }

    /// The move of a search's last line.
    fn best_move(self, line: &str) -> Option<String> {
        let word = match self {
            Protocol::Uci => line.split_whitespace().nth(1)?,
            Protocol::Hub => line.split_whitespace().nth(1)?.strip_prefix("move=")?,
        };
        Some(word.to_string())
    }
}

/// Sends the sync request and reads up to its answer, which must come within [`SETTLE`];
/// returns the lines read before the answer (without the answers of `earlier` sync requests
/// that the line before already made).
fn sync_after(peer: &mut Peer, protocol: Protocol, earlier: usize) -> Vec<String> {
    peer.send(protocol.sync());
    let mut lines = Vec::new();
    let mut answers = 0;
    let deadline = Instant::now() + SETTLE;
    loop {
        let Some((_, line)) = peer.next_before(deadline) else {
            peer.fail(&format!(
                "no answer to '{}' within {SETTLE:?}",
                protocol.sync()
            ));
        };
        if !protocol.synced(&line) {
            lines.push(line);
            continue;
        }
        answers += 1;
        if answers > earlier {
            return lines;
        }
    }
}

/// [`sync_after`] a line that asked for no sync answer itself.
fn sync(peer: &mut Peer, protocol: Protocol) -> Vec<String> {
    sync_after(peer, protocol, 0)
}

/// How many sync answers (`readyok`, `pong`) `line` asks for itself, read as the engine reads
/// it.
fn sync_requests(protocol: Protocol, line: &[u8]) -> usize {
    match protocol {
        Protocol::Uci => {
            let Ok(text) = std::str::from_utf8(line) else {
                return 0;
            };
            usize::from(matches!(parse_uci(text), Ok(Some(UciCommand::IsReady))))
        }
        Protocol::Hub => {
            let text = format!("{}\n", String::from_utf8_lossy(line));
            usize::from(parse_hub(&text).is_some_and(|command| command.name == "ping"))
        }
    }
}

/// Reads until `ends` search ends have been seen in all (counting `seen` already), within
/// [`SETTLE`].
fn await_ends(peer: &mut Peer, protocol: Protocol, seen: usize, ends: usize) {
    let mut seen = seen;
    let deadline = Instant::now() + SETTLE;
    while seen < ends {
        match peer.next_before(deadline) {
            Some((_, line)) if protocol.is_end(&line) => seen += 1,
            Some(_) => {}
            None => peer.fail(&format!("{seen} search ends of {ends} within {SETTLE:?}")),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The sequences that deadlocked

/// Runs `first`, then `second` 20 ms later, then `stop` and the sync request: the answer must
/// come at once, and then exactly one search end per `go` sent.
fn no_deadlock(protocol: Protocol, first: &str, second: &str, gos: usize) {
    let _turn = serial();
    let mut peer = protocol.start();
    peer.send(first);
    std::thread::sleep(Duration::from_millis(20));
    peer.send(second);
    peer.send("stop");
    let before = sync(&mut peer, protocol);
    let ends = before.iter().filter(|l| protocol.is_end(l)).count();
    await_ends(&mut peer, protocol, ends, gos);
    let extra = peer.drain(Duration::from_millis(300));
    if extra.iter().any(|l| protocol.is_end(l)) {
        peer.fail(&format!("more than {gos} search ends"));
    }
}

#[test]
fn uci_commands_during_a_search_never_block_stop_and_isready() {
    for (first, second, gos) in [
        ("go", "go", 2),
        ("go", "ucinewgame", 1),
        ("go", "setoption name Hash value 16", 1),
        ("go depth 40", "ucinewgame", 1),
        ("go movetime 100000", "go movetime 10", 2),
        ("go infinite", "position startpos moves 11-15", 1),
        ("go ponder", "setoption name MultiPV value 2", 1),
    ] {
        no_deadlock(Protocol::Uci, first, second, gos);
    }
}

#[test]
fn hub_commands_during_a_search_never_block_stop_and_ping() {
    for (first, second, gos) in [
        ("go think", "go think", 2),
        ("go think", "new-game", 1),
        ("go think", "set-param name=hash value=16", 1),
        ("level depth=40\ngo think", "new-game", 1),
        (
            "level move-time=100000\ngo think",
            "level move-time=0.01\ngo think",
            2,
        ),
        ("go analyze", "pos moves=\"32-28\"", 1),
        ("go ponder", "level depth=3", 1),
    ] {
        no_deadlock(Protocol::Hub, first, second, gos);
    }
}

/// A command that changes the state stops the search first: the search's `bestmove` comes
/// before the command's own answer (here, the error of the `go` after it would be refused
/// would not stop it; a good `position` does).
#[test]
fn a_state_change_writes_the_stopped_search_bestmove_first() {
    let _turn = serial();
    let mut peer = Protocol::Uci.start();
    peer.send("go infinite");
    std::thread::sleep(Duration::from_millis(30));
    // Refused before anything happens: the search goes on.
    peer.send("position startpos moves 11-99");
    let lines = sync(&mut peer, Protocol::Uci);
    assert!(
        lines.iter().any(|l| l.starts_with("info string error:")),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    // Accepted: the search ends, its bestmove first, then the command's own line.
    peer.send("position startpos moves 11-15");
    peer.send("d");
    let lines = sync(&mut peer, Protocol::Uci);
    let best = lines.iter().position(|l| l.starts_with("bestmove"));
    let fen = lines.iter().position(|l| l.starts_with("Fen: "));
    match (best, fen) {
        (Some(best), Some(fen)) if best < fen => {}
        _ => peer.fail(&format!("bestmove, then the diagram: {lines:?}")),
    }
    let fen_line = &lines[fen.unwrap()];
    assert!(
        fen_line.starts_with("Fen: W:"),
        "White to move after 11-15: {fen_line}"
    );
}

// ---------------------------------------------------------------------------------------------
// Random sessions

/// One step of a random session.
#[derive(Clone, Debug)]
enum Action {
    /// A line (without its `\n`).
    Line(Vec<u8>),
    /// A pause, milliseconds.
    Pause(u64),
}

fn uci_valid() -> BoxedStrategy<String> {
    prop_oneof![
        Just("position startpos".to_string()),
        Just("position startpos moves 11-15 23-19".to_string()),
        Just("position fen W:W21,22,K30:B5,K10,12".to_string()),
        Just("position fen B:W18:B14".to_string()),
        Just("go".to_string()),
        Just("go infinite".to_string()),
        Just("go ponder".to_string()),
        Just("go ponder movetime 50".to_string()),
        (1u32..40).prop_map(|d| format!("go depth {d}")),
        (1u64..100_000).prop_map(|ms| format!("go movetime {ms}")),
        (1u64..300_000).prop_map(|n| format!("go nodes {n}")),
        (1i64..60_000, 0i64..1000)
            .prop_map(|(t, i)| format!("go wtime {t} btime {t} winc {i} binc {i}")),
        Just("go movetime 20 searchmoves 11-15 9-13".to_string()),
        (1u32..32).prop_map(|mb| format!("setoption name Hash value {mb}")),
        (1u32..=2).prop_map(|n| format!("setoption name Threads value {n}")),
        (1u32..=3).prop_map(|n| format!("setoption name MultiPV value {n}")),
        Just("setoption name Clear Hash".to_string()),
        Just("setoption name Ponder value true".to_string()),
        prop::sample::select(vec!["english", "international", "russian"])
            .prop_map(|v| format!("setoption name Variant value {v}")),
        Just("ucinewgame".to_string()),
        Just("stop".to_string()),
        Just("ponderhit".to_string()),
        Just("isready".to_string()),
        Just("uci".to_string()),
        Just("d".to_string()),
        Just("eval".to_string()),
        Just("debug on".to_string()),
    ]
    .boxed()
}

fn hub_valid() -> BoxedStrategy<String> {
    prop_oneof![
        Just("pos".to_string()),
        Just("pos moves=\"32-28 18-23\"".to_string()),
        Just("new-game".to_string()),
        Just("go think".to_string()),
        Just("go ponder".to_string()),
        Just("go analyze".to_string()),
        Just("level infinite".to_string()),
        (1u32..40).prop_map(|d| format!("level depth={d}")),
        (1u64..100_000).prop_map(|ms| format!("level move-time={}", ms as f64 / 1000.0)),
        (1u64..300_000).prop_map(|n| format!("level nodes={n}")),
        (1u64..60_000, 0u64..1000).prop_map(|(t, i)| format!(
            "level time={} inc={}",
            t as f64 / 1000.0,
            i as f64 / 1000.0
        )),
        (1u32..32).prop_map(|mb| format!("set-param name=hash value={mb}")),
        (1u32..=2).prop_map(|n| format!("set-param name=threads value={n}")),
        prop::sample::select(vec!["normal", "english", "russian", "thai"])
            .prop_map(|v| format!("set-param name=variant value={v}")),
        Just("stop".to_string()),
        Just("ponder-hit".to_string()),
        Just("ping".to_string()),
        Just("init".to_string()),
        Just("hub".to_string()),
    ]
    .boxed()
}

/// A valid line with one byte replaced, inserted or deleted.
fn mutated(valid: BoxedStrategy<String>) -> impl Strategy<Value = Vec<u8>> {
    (valid, any::<u8>(), any::<prop::sample::Index>(), 0u8..3).prop_map(|(line, byte, at, how)| {
        let mut bytes = line.into_bytes();
        let byte = if byte == b'\n' { b' ' } else { byte };
        let i = at.index(bytes.len() + 1);
        match how {
            0 if i < bytes.len() => bytes[i] = byte,
            1 if i < bytes.len() => {
                bytes.remove(i);
            }
            _ => bytes.insert(i.min(bytes.len()), byte),
        }
        bytes
    })
}

fn garbage() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..40).prop_map(|bytes| {
        bytes
            .into_iter()
            .map(|b| if b == b'\n' { b' ' } else { b })
            .collect()
    })
}

fn actions(valid: fn() -> BoxedStrategy<String>) -> impl Strategy<Value = Vec<Action>> {
    let action = prop_oneof![
        5 => valid().prop_map(|l| Action::Line(l.into_bytes())),
        2 => mutated(valid()).prop_map(Action::Line),
        1 => garbage().prop_map(Action::Line),
        2 => (0u64..30).prop_map(Action::Pause),
    ];
    prop::collection::vec(action, 1..50)
}

/// The first word of a line, lower case (as both protocols read keywords).
fn keyword(line: &[u8]) -> String {
    String::from_utf8_lossy(line)
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Lines a session must not send: `quit` (the session's end is chosen apart), a `perft` (a
/// blocking debugging command), and options that would load this small machine (many
/// threads, a huge table).
fn allowed(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line).to_ascii_lowercase();
    let word = keyword(line);
    if word.contains("quit") || word == "perft" {
        return false;
    }
    if text.contains("hash") || text.contains("threads") {
        let number = text
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        if (text.contains("hash") && number > 64) || (text.contains("threads") && number > 2) {
            return false;
        }
    }
    true
}

/// Plays `actions`, checking the invariants after every step; then a legal move from the
/// start position, then `quit` or the end of input, maybe during a search.
fn session(protocol: Protocol, actions: &[Action], end_by_quit: bool, end_searching: bool) {
    let _turn = serial();
    let mut peer = protocol.start();
    let mut accepted_gos = 0usize;
    let mut ends = 0usize;
    for action in actions {
        let line = match action {
            Action::Pause(ms) => {
                std::thread::sleep(Duration::from_millis(*ms));
                continue;
            }
            Action::Line(line) if allowed(line) => line,
            Action::Line(_) => continue,
        };
        let mut bytes = line.clone();
        bytes.push(b'\n');
        peer.send_bytes(&bytes);
        let lines = sync_after(&mut peer, protocol, sync_requests(protocol, line));
        ends += lines.iter().filter(|l| protocol.is_end(l)).count();
        let refused = lines.iter().any(|l| l.starts_with("info string error"));
        let word = keyword(line);
        let state_change = match protocol {
            // A UCI command is refused with one error line, and then changes nothing.
            Protocol::Uci if refused => None,
            Protocol::Uci => match word.as_str() {
                "go" => Some(true),
                "position" | "setoption" | "ucinewgame" => Some(false),
                _ => None,
            },
            // The Hub protocol refuses silently (a bad `pos` or `set-param`): only `go`,
            // `level` and `new-game` are known to change the state.
            Protocol::Hub => {
                let text = format!("{}\n", String::from_utf8_lossy(line));
                match parse_hub(&text).map(|command| command.name) {
                    Some(name) if name == "go" => Some(true),
                    Some(name) if name == "level" || name == "new-game" => Some(false),
                    _ => None,
                }
            }
        };
        if state_change == Some(true) {
            accepted_gos += 1;
        }
        if ends > accepted_gos {
            peer.fail(&format!("{ends} search ends for {accepted_gos} searches"));
        }
        // A state change stops the search first, and writes its end before the answer.
        if let Some(is_go) = state_change {
            let want = accepted_gos - usize::from(is_go);
            if ends < want {
                peer.fail(&format!(
                    "after a state change: {ends} search ends, want {want} (the search stops first)"
                ));
            }
        }
    }
    // The searches still running end on `stop`, each with one end.
    peer.send("stop");
    let lines = sync(&mut peer, protocol);
    ends += lines.iter().filter(|l| protocol.is_end(l)).count();
    await_ends(&mut peer, protocol, ends, accepted_gos);
    let extra = peer.drain(Duration::from_millis(100));
    if extra.iter().any(|l| protocol.is_end(l)) {
        peer.fail(&format!(
            "more search ends than the {accepted_gos} searches"
        ));
    }
    // A legal move from the start position.
    let (setup, legal): (&[&str], &[&str]) = match protocol {
        Protocol::Uci => (
            &[
                "setoption name Variant value english",
                "position startpos",
                "go movetime 50",
            ],
            &ENGLISH_FIRST_MOVES,
        ),
        Protocol::Hub => (
            &[
                "set-param name=variant value=normal",
                "pos",
                "level move-time=0.05",
                "go think",
            ],
            &INTERNATIONAL_FIRST_MOVES,
        ),
    };
    for line in setup {
        peer.send(line);
    }
    let lines = peer.until(SETTLE, |l| protocol.is_end(l));
    let (_, last) = lines.last().expect("the end of the search");
    match protocol.best_move(last) {
        Some(best) if legal.contains(&best.as_str()) => {}
        _ => peer.fail(&format!("'{last}' is not one of the legal moves {legal:?}")),
    }
    // The end, maybe during a search: that search's end is written, then nothing.
    if end_searching {
        peer.send(match protocol {
            Protocol::Uci => "go infinite",
            Protocol::Hub => "go analyze",
        });
        std::thread::sleep(Duration::from_millis(20));
    }
    if end_by_quit {
        peer.send_bytes(b"quit\nisready\nping\nd\ngo depth 1\n");
    } else {
        peer.close();
    }
    let (status, rest, _) = peer.exit(SETTLE);
    if status.code() != Some(0) {
        peer.fail(&format!("exit status {status}"));
    }
    let allowed_after: usize = usize::from(end_searching);
    let after_ends = rest.iter().filter(|l| protocol.is_end(l)).count();
    let other = rest
        .iter()
        .filter(|l| !protocol.is_end(l) && !l.starts_with("info"))
        .count();
    if after_ends != allowed_after || other > 0 {
        peer.fail(&format!(
            "after quit: {rest:?} (want only the running search's end)"
        ));
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        max_shrink_iters: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn uci_random_sessions_keep_the_invariants(
        actions in actions(uci_valid),
        end_by_quit in any::<bool>(),
        end_searching in any::<bool>(),
    ) {
        session(Protocol::Uci, &actions, end_by_quit, end_searching);
    }

    #[test]
    fn hub_random_sessions_keep_the_invariants(
        actions in actions(hub_valid),
        end_by_quit in any::<bool>(),
        end_searching in any::<bool>(),
    ) {
        session(Protocol::Hub, &actions, end_by_quit, end_searching);
    }
}

/// The client went away (it closed its end of damka's stdout) while damka searches and its
/// stdin stays open: damka exits by itself, with status 0 and not a word on stderr (no panic
/// message about a broken pipe).
#[test]
fn a_closed_stdout_ends_the_engine_quietly() {
    use std::io::{Read, Write};
    let _turn = serial();
    for (args, start) in [
        (&[][..], "uci\ngo infinite\n"),
        (&["hub"][..], "hub\ninit\ngo analyze\n"),
    ] {
        let mut child = damka_command(args).spawn().expect("damka starts");
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(start.as_bytes()).expect("damka reads");
        stdin.flush().expect("damka reads");
        drop(child.stdout.take());
        // A few more lines to answer, so that damka writes (and learns the pipe is closed)
        // even when its search has nothing new to say.
        let deadline = Instant::now() + SETTLE;
        let status = common::process::wait_for_exit(
            &mut child,
            deadline,
            || {
                let _ = stdin.write_all(b"isready\nping\n");
            },
            &format!("{args:?}: damka still runs with its stdout closed"),
        );
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .expect("piped stderr")
            .read_to_string(&mut stderr)
            .expect("stderr reads");
        assert_eq!(status.code(), Some(0), "{args:?}: {status}");
        assert_eq!(stderr, "", "{args:?}: stderr");
    }
}
