//! Fuzz and stress tests of both front ends, `damka` (the UCI-style dialect of
//! `docs/protocol.md`) and `damka hub` (`docs/hub.md`), driven through pipes.
//!
//! A seeded generator (SplitMix64; `DAMKA_FUZZ_SEED=N` replays another seed) writes valid
//! command lines from each dialect's grammar, then mutates them: truncated, bytes and words
//! deleted, inserted, replaced, duplicated or swapped, keywords exchanged, huge and negative
//! numbers, NaN and infinities, empty values, non-ASCII and non-UTF-8 bytes, 100 KB lines. It
//! also writes lines that are wrong by construction: illegal and ambiguous moves, bad FENs and
//! position strings, unknown options and parameters, bad values, unknown commands. The lines
//! go in idle and in the middle of searches. The checks:
//!
//! - the process never dies before `quit` or the end of its input, never panics, and writes
//!   nothing on stderr; every wait has a deadline, so a hang fails the test;
//! - UCI: every line the dialect refuses gets exactly one `info string error:` line and
//!   changes nothing (position, options, a running search). Through accepted lines the test
//!   tracks the state the engine must be in, with the library's own parser and game as the
//!   oracle, and `d` must show exactly that position, variant and options; every `go` gets
//!   exactly one `bestmove`, legal in the position it searched;
//! - Hub: never an `error` line (damka writes none, and never during a search), only the
//!   lines the protocol defines, exactly one `done` per `go`; bad lines change neither the
//!   position nor the parameters;
//! - afterwards both still answer (`readyok`, `pong`) and play legal moves, and exit with
//!   status 0 on `quit`;
//! - stress: 10,000 rapid position/go/stop cycles per front end, written in large batches
//!   without waiting for answers, exactly one legal `bestmove`/`done` per `go`, no deadlock,
//!   well within 60 s.
//!
//! The tests take turns (a lock): the stress tests time themselves.

use crate::common;

use common::SplitMix as Rng;
use common::hub::{done_move, hub_pos_10x10, hub_text, legal_hub_moves, normalised};
use common::peer::{Peer, shown};
use common::serial;
use damka::engine::{OptionKind, Session, option_specs, session_for};
use damka::notation::fen::parse_fen;
use damka::notation::number_of_bit;
use damka::protocol::hub::parse_command as parse_hub;
use damka::protocol::uci::{Command as Uci, parse_command as parse_uci};
use damka::rules::{English, International};
use damka::{Position, Rules, Variant};
use std::collections::{BTreeSet, VecDeque};
use std::process::ExitStatus;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// Longest wait for an answer that must come.
const WAIT: Duration = Duration::from_secs(20);
/// The whole of a stress test, input and output, must fit in this.
const STRESS_LIMIT: Duration = Duration::from_secs(60);
/// Cycles of each stress test.
const CYCLES: usize = 10_000;
/// The length of the long lines.
const LONG: usize = 100 * 1024;

// ---------------------------------------------------------------------------------------------
// Random numbers

/// The seed of a test: `DAMKA_FUZZ_SEED` if set, else a fixed one; mixed with the test's name
/// so that the tests do not repeat each other.
fn seed_for(test: &str) -> u64 {
    let base = std::env::var("DAMKA_FUZZ_SEED")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0x0DA3_4A00_F022);
    test.bytes().fold(base, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// How many mixed lines a fuzz test sends: `DAMKA_FUZZ_LINES` if set (scripts/fuzz-at-scale.sh
/// sends millions), else `default`.
fn mixed_lines(default: usize) -> usize {
    std::env::var("DAMKA_FUZZ_LINES")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .unwrap_or(default)
}

// ---------------------------------------------------------------------------------------------
// A damka process on pipes

/// A running `damka` ([`Peer`]) whose failures name the seed that replays the test.
struct Engine {
    peer: Peer,
}

impl Engine {
    fn start(args: &[&str], seed: u64) -> Engine {
        let note = format!("(seed {seed}; replay with DAMKA_FUZZ_SEED)");
        Engine {
            peer: Peer::start(args).with_note(note),
        }
    }

    fn fail(&self, message: &str) -> ! {
        self.peer.fail(message)
    }

    /// Queues bytes for the engine's stdin; returns at once.
    fn send_bytes(&mut self, bytes: Vec<u8>) {
        self.peer.send_bytes(&bytes);
    }

    fn send(&mut self, line: &str) {
        self.peer.send(line);
    }

    /// The next line before `deadline`; `None` at the deadline; fails if stdout closed.
    fn next_before(&mut self, deadline: Instant) -> Option<String> {
        self.peer.line_or_timeout(deadline)
    }

    /// The next line; fails after [`WAIT`].
    fn line(&mut self, what: &str) -> String {
        let deadline = Instant::now() + WAIT;
        match self.next_before(deadline) {
            Some(line) => line,
            None => self.fail(&format!("no line within {WAIT:?} while waiting for {what}")),
        }
    }

    /// Asserts that nothing arrives for `quiet`.
    fn silent(&mut self, quiet: Duration, why: &str) {
        self.peer.silent(quiet, why);
    }

    /// Ends the input (EOF).
    fn close(&mut self) {
        self.peer.close();
    }

    /// Waits for the exit after `quit` or EOF: the status, what stdout still held, stderr.
    fn exit(&mut self, within: Duration) -> (ExitStatus, Vec<String>, String) {
        self.peer.exit(within)
    }

    /// `quit` (or EOF): exit status 0, nothing more on stdout but `extra_ok` lines, and
    /// nothing on stderr.
    fn quit(mut self, eof: bool, extra_ok: impl Fn(&str) -> bool) {
        if eof {
            self.close();
        } else {
            self.send("quit");
        }
        let (status, rest, stderr) = self.exit(Duration::from_secs(10));
        assert!(!stderr.contains("panicked"), "damka panicked: {stderr}");
        assert!(stderr.is_empty(), "damka wrote on stderr: {stderr}");
        assert!(status.success(), "damka exited with {status}");
        for line in rest {
            assert!(extra_ok(&line), "unexpected line at the exit: {line}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mutations

/// Words mutations put into lines: keywords of both dialects, numbers at and beyond every
/// range, the reals Hub reads, moves, FENs, position strings and junk.
const TOKEN_TEXT: &str = "\
    uci isready setoption name value ucinewgame position startpos fen moves go stop \
    ponderhit debug on off d eval perft depth nodes movetime wtime btime winc binc movestogo \
    infinite ponder searchmoves mate Hash Threads MultiPV Ponder Move Overhead Variant Clear \
    true false hub init set-param new-game pos level think analyze ping ponder-hit pos= \
    moves= moves=\"\" name=variant value=english value=thai name=hash name=threads value= \
    depth= depth=3 move-time= move-time=NaN time=-1 inc=inf nodes=1e30 moves=40 0 -0 1 -1 3 \
    255 256 4096 4097 5001 4294967295 4294967296 18446744073709551615 18446744073709551616 \
    9223372036854775807 -9223372036854775808 -9223372036854775809 99999999999999999999 \
    -99999999999999999999 +7 007 1.5 -0.5 1e-05 1e308 1e999 NaN nan inf -inf infinity 0x1F \
    32-28 11-15 22x15 28x19 4x15 4x27x38x15 c3-d4 c3:e5 G6-F5 99-100 0-0 1-1 x - : \
    W:W31-50:B1-20 B:W21-32:B1-12 W:WK4:B13,32,37,20 B:W1-12:B21-32 W:W51:B1 ::: \
    Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww \" \
    \"\" = == é ж 🦀 \u{feff} \\ %s {}";

/// [`TOKEN_TEXT`] split at its blanks.
static TOKENS: LazyLock<Vec<&str>> = LazyLock::new(|| TOKEN_TEXT.split_whitespace().collect());

/// Characters inserted into lines: non-ASCII (including Unicode blanks), controls, the
/// separators of moves, FENs and Hub arguments.
const CHARS: &[&str] = &[
    "é", "ж", "™", "€", "\u{2028}", "\u{85}", "\u{a0}", "\u{0}", "\u{1b}", "\u{7f}", "\u{feff}",
    "🦀", "\t", "\r", "\u{b}", "\"", "=", ":", ",", "x", "X", "-", "K", " ", "\\", "0", "9", "W",
    "B", "e", "w", "b",
];

/// Bytes that are never UTF-8 on their own.
const BAD_BYTES: &[u8] = &[0xff, 0xfe, 0xc3, 0x80, 0xe2, 0xf0];

/// A position in `bytes` that does not fall inside a UTF-8 sequence.
fn boundary(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && bytes[at] & 0xC0 == 0x80 {
        at += 1;
    }
    at
}

/// A line of about [`LONG`] bytes built from `line`.
fn long_line(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let mut out = line.to_vec();
    match rng.below(4) {
        0 => {
            let token = rng.pick(&TOKENS);
            while out.len() < LONG {
                out.push(b' ');
                out.extend_from_slice(token.as_bytes());
            }
        }
        1 => {
            out.push(b' ');
            out.resize(LONG, b'9');
        }
        2 => {
            while out.len() < LONG {
                out.push(b'a' + rng.below(26) as u8);
                if rng.percent(5) {
                    out.push(b' ');
                }
            }
        }
        _ => {
            let copy = if line.is_empty() {
                b"x".to_vec()
            } else {
                line.to_vec()
            };
            while out.len() < LONG {
                out.push(b' ');
                out.extend_from_slice(&copy);
            }
        }
    }
    out
}

/// One to three random changes to `line`; the result holds no `\n`.
fn mutate(rng: &mut Rng, line: &str) -> Vec<u8> {
    let mut bytes = line.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        let len = bytes.len();
        match rng.below(14) {
            0 => {
                let at = rng.below(len + 1);
                // Now and then in the middle of a UTF-8 sequence.
                let at = if rng.percent(80) {
                    boundary(&bytes, at)
                } else {
                    at
                };
                bytes.truncate(at);
            }
            1 if len > 0 => {
                let at = boundary(&bytes, rng.below(len));
                let end = boundary(&bytes, (at + 1 + rng.below(4)).min(len));
                bytes.drain(at..end);
            }
            2 | 3 => {
                let at = boundary(&bytes, rng.below(len + 1));
                let c = rng.pick(CHARS);
                bytes.splice(at..at, c.bytes());
            }
            4 if len > 0 => {
                let at = rng.below(len);
                bytes[at] = if rng.percent(85) {
                    b' ' + rng.below(95) as u8
                } else {
                    rng.pick(BAD_BYTES)
                };
            }
            5..=10 => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let mut words: Vec<String> = text.split(' ').map(str::to_string).collect();
                let n = words.len();
                let at = rng.below(n);
                match rng.below(7) {
                    0 if n > 1 => {
                        words.remove(at);
                    }
                    1 => {
                        let word = words[at].clone();
                        words.insert(at, word);
                    }
                    2 => {
                        let other = rng.below(n);
                        words.swap(at, other);
                    }
                    3 => words[at] = rng.pick(&TOKENS).to_string(),
                    4 => words[at] = words[at].to_uppercase(),
                    5 => words.insert(rng.below(n + 1), rng.pick(&TOKENS).to_string()),
                    _ => words.push(rng.pick(&TOKENS).to_string()),
                }
                bytes = words.join(" ").into_bytes();
            }
            11 => {
                let blank: &[u8] = rng.pick(&[&b"\t"[..], b"   ", b" \t ", b"\r"]);
                let mut out = Vec::new();
                for &b in &bytes {
                    if b == b' ' {
                        out.extend_from_slice(blank);
                    } else {
                        out.push(b);
                    }
                }
                if rng.percent(30) {
                    out.push(b'\r');
                }
                if rng.percent(30) {
                    out.splice(0..0, *b"  ");
                }
                bytes = out;
            }
            12 if rng.percent(15) => bytes = long_line(rng, &bytes),
            _ => {
                let at = boundary(&bytes, rng.below(len + 1));
                bytes.splice(at..at, rng.pick(&TOKENS).bytes());
            }
        }
    }
    for b in &mut bytes {
        if *b == b'\n' {
            *b = b' ';
        }
    }
    bytes
}

/// A word in random case, as the UCI dialect must accept for its keywords.
fn any_case(rng: &mut Rng, word: &str) -> String {
    match rng.below(8) {
        0 => word.to_uppercase(),
        1 => word
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect(),
        _ => word.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// The UCI dialect: its expected state and the lines

/// The variant names and aliases `Variant` accepts.
const VARIANT_WORDS: &[&str] = &[
    "english",
    "international",
    "brazilian",
    "russian",
    "pool",
    "italian",
    "spanish",
    "czech",
    "towers",
    "antidraughts",
    "breakthrough",
    "frisian",
    "frysk",
    "frysk!",
    "turkish",
    "dama",
    "american",
    "checkers",
    "normal",
    "fmjd",
    "10x10",
    "shashki",
];

/// What the engine must answer to one line.
#[derive(Debug)]
enum Expect {
    /// No error, no `readyok`, no search (possibly other output: `d`, `uci`...).
    Silent,
    /// Exactly one `info string error:` line, and no change.
    Error,
    /// `readyok`.
    Ready,
    /// A search: one `bestmove`, one of these moves (`(none)` when empty).
    Go(Vec<String>),
    /// Not to be sent: `quit`, or too costly (a deep perft, a huge table, many threads), or a
    /// search that would not end at `stop` in the middle of a batch.
    Skip,
}

/// A change an accepted line makes.
enum Change {
    Session(Box<dyn Session>),
    Hash(i64),
    Threads(i64),
    MultiPv(i64),
    Ponder(bool),
    Overhead(i64),
}

/// The state the UCI front end must be in, followed line by line with the library's parser
/// (`damka::protocol::uci::parse_command`) and the engine's own game (`Session`).
struct UciState {
    session: Box<dyn Session>,
    hash: i64,
    threads: i64,
    multipv: i64,
    ponder: bool,
    overhead: i64,
}

impl UciState {
    fn new() -> UciState {
        UciState {
            session: session_for(Variant::default()),
            hash: 64,
            threads: 1,
            multipv: 1,
            ponder: false,
            overhead: 30,
        }
    }

    /// The `Options:` line of `d`, without its label.
    fn options(&self) -> String {
        format!(
            "Hash {}; Threads {}; MultiPV {}; Ponder {}; Move Overhead {}; Variant {}",
            self.hash,
            self.threads,
            self.multipv,
            self.ponder,
            self.overhead,
            self.session.variant()
        )
    }

    /// What `bytes` (one line without its `\n`) must do. `mid_search`: a search that only
    /// `stop` ends runs, and must keep running until the batch's `stop`.
    fn judge(&self, bytes: &[u8], mid_search: bool) -> (Expect, Option<Change>) {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return (Expect::Error, None);
        };
        let command = match parse_uci(&format!("{text}\n")) {
            Err(_) => return (Expect::Error, None),
            Ok(None) => return (Expect::Silent, None),
            Ok(Some(command)) => command,
        };
        match command {
            Uci::Uci | Uci::Debug(_) | Uci::Stop | Uci::Display | Uci::Eval => {
                (Expect::Silent, None)
            }
            Uci::IsReady => (Expect::Ready, None),
            Uci::Quit => (Expect::Skip, None),
            Uci::PonderHit if mid_search => (Expect::Skip, None),
            Uci::PonderHit => (Expect::Silent, None),
            Uci::Perft(depth) if depth > 3 => (Expect::Skip, None),
            Uci::Perft(_) => (Expect::Silent, None),
            Uci::UciNewGame => (
                Expect::Silent,
                Some(Change::Session(session_for(self.session.variant()))),
            ),
            Uci::Position { fen, moves } => {
                let variant = self.session.variant();
                match damka::notation::setup::read_game(variant, fen.as_deref(), &moves) {
                    Ok(game) => (
                        Expect::Silent,
                        Some(Change::Session(damka::engine::session_of(game))),
                    ),
                    Err(_) => (Expect::Error, None),
                }
            }
            Uci::Go { go, searchmoves } => {
                if mid_search && !(go.infinite || go.ponder) {
                    return (Expect::Skip, None);
                }
                let game = self.session.game();
                for text in &searchmoves {
                    if damka::notation::setup::read_move(&game, text).is_err() {
                        return (Expect::Error, None);
                    }
                }
                (Expect::Go(self.session.legal_moves()), None)
            }
            Uci::SetOption { name, value } => self.set_option(&name, value.as_deref()),
        }
    }

    /// `setoption`, as `docs/protocol.md` defines its options.
    fn set_option(&self, name: &str, value: Option<&str>) -> (Expect, Option<Change>) {
        let Some(spec) = option_specs()
            .into_iter()
            .find(|spec| spec.name.eq_ignore_ascii_case(name.trim()))
        else {
            return (Expect::Error, None);
        };
        let value = value.unwrap_or("").trim();
        let change = match spec.kind {
            OptionKind::Spin { min, max, .. } => {
                let Some(n) = value
                    .parse::<i64>()
                    .ok()
                    .filter(|n| (min..=max).contains(n))
                else {
                    return (Expect::Error, None);
                };
                match spec.name {
                    "Hash" if n > 64 => return (Expect::Skip, None),
                    "Hash" => Change::Hash(n),
                    "Threads" if n > 2 => return (Expect::Skip, None),
                    "Threads" => Change::Threads(n),
                    "MultiPV" => Change::MultiPv(n),
                    "Move Overhead" => Change::Overhead(n),
                    other => panic!("a spin option the test does not know: {other}"),
                }
            }
            OptionKind::Check { .. } => match value.to_ascii_lowercase().as_str() {
                "true" => Change::Ponder(true),
                "false" => Change::Ponder(false),
                _ => return (Expect::Error, None),
            },
            OptionKind::Combo { .. } => match value.parse::<Variant>() {
                Ok(variant) => Change::Session(session_for(variant)),
                Err(_) => return (Expect::Error, None),
            },
            OptionKind::Button => return (Expect::Silent, None),
            // EvalFile: the fuzzer never names a readable weights file.
            OptionKind::Text { .. } if value.is_empty() || value == "<empty>" => {
                return (Expect::Silent, None);
            }
            OptionKind::Text { .. } => return (Expect::Error, None),
        };
        (Expect::Silent, Some(change))
    }

    /// Judges the line and takes in its change.
    fn apply(&mut self, bytes: &[u8], mid_search: bool) -> Expect {
        let (expect, change) = self.judge(bytes, mid_search);
        if !matches!(expect, Expect::Skip) {
            match change {
                None => {}
                Some(Change::Session(session)) => self.session = session,
                Some(Change::Hash(n)) => self.hash = n,
                Some(Change::Threads(n)) => self.threads = n,
                Some(Change::MultiPv(n)) => self.multipv = n,
                Some(Change::Ponder(flag)) => self.ponder = flag,
                Some(Change::Overhead(n)) => self.overhead = n,
            }
        }
        expect
    }

    fn is_error(&self, bytes: &[u8]) -> bool {
        matches!(self.judge(bytes, false).0, Expect::Error)
    }
}

/// Up to `count` random legal moves played from `fen` (the start when `None`) in `base`'s
/// variant, as the engine writes them.
fn random_moves(rng: &mut Rng, base: &dyn Session, fen: Option<&str>, count: usize) -> Vec<String> {
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..count {
        let played: Vec<&str> = moves.iter().map(String::as_str).collect();
        let Ok(now) = damka::notation::setup::read_game(base.variant(), fen, &played) else {
            break;
        };
        let legal = damka::engine::session_of(now).legal_moves();
        if legal.is_empty() {
            break;
        }
        moves.push(legal[rng.below(legal.len())].clone());
    }
    moves
}

/// A FEN (the tracked position's or its variant's start, half and half) and fewer than
/// `below` random moves played from it.
fn fen_and_moves(rng: &mut Rng, state: &UciState, below: usize) -> (String, Vec<String>) {
    let fen = if rng.percent(50) {
        state.session.fen()
    } else {
        session_for(state.session.variant()).fen()
    };
    let count = rng.below(below);
    let moves = random_moves(rng, &*state.session, Some(&fen), count);
    (fen, moves)
}

/// `line` with ` moves` and the `moves` after it, when there are any.
fn with_moves(mut line: String, moves: &[String]) -> String {
    if !moves.is_empty() {
        line.push_str(" moves ");
        line.push_str(&moves.join(" "));
    }
    line
}

/// A valid `go` line (a search that may or may not end by itself).
fn uci_go(rng: &mut Rng, state: &UciState) -> String {
    let mut parts: Vec<String> = Vec::new();
    let number = |rng: &mut Rng, key: &str, low: i64, high: i64| {
        format!("{} {}", any_case(rng, key), rng.between(low, high))
    };
    if rng.percent(30) {
        parts.push(number(rng, "depth", 1, 3));
    }
    if rng.percent(20) {
        parts.push(number(rng, "nodes", 1, 5000));
    }
    if rng.percent(20) {
        parts.push(number(rng, "movetime", 0, 20));
    }
    if rng.percent(25) {
        parts.push(number(rng, "wtime", -100, 3000));
        parts.push(number(rng, "btime", -100, 3000));
    }
    if rng.percent(15) {
        parts.push(number(rng, "winc", -10, 50));
        parts.push(number(rng, "binc", -10, 50));
    }
    if rng.percent(10) {
        parts.push(number(rng, "movestogo", 1, 40));
    }
    if rng.percent(15) {
        parts.push(any_case(rng, "infinite"));
    }
    if rng.percent(15) {
        parts.push(any_case(rng, "ponder"));
    }
    let legal = state.session.legal_moves();
    if rng.percent(15) && !legal.is_empty() {
        let mut list = vec![any_case(rng, "searchmoves")];
        for _ in 0..1 + rng.below(3) {
            list.push(legal[rng.below(legal.len())].clone());
        }
        parts.push(list.join(" "));
    }
    rng.shuffle(&mut parts);
    let mut line = any_case(rng, "go");
    for part in parts {
        line.push(' ');
        line.push_str(&part);
    }
    line
}

/// A valid line of the dialect's grammar, for the current state.
fn uci_valid(rng: &mut Rng, state: &UciState) -> String {
    let variant = state.session.variant();
    match rng.below(20) {
        0 => any_case(rng, "uci"),
        1 => any_case(rng, "isready"),
        2 => any_case(rng, "ucinewgame"),
        3 => any_case(rng, "stop"),
        4 => any_case(rng, "ponderhit"),
        5 => format!("debug {}", rng.pick(&["on", "off"])),
        6 => "d".to_string(),
        7 => any_case(rng, "eval"),
        8 => format!("perft {}", rng.below(3)),
        9 | 10 => {
            let setting = match rng.below(7) {
                0 => format!("Hash value {}", rng.between(1, 32)),
                1 => format!("Threads value {}", rng.between(1, 2)),
                2 => format!("MultiPV value {}", rng.between(1, 4)),
                3 => format!("Ponder value {}", rng.pick(&["true", "false", "TRUE"])),
                4 => format!("Move Overhead value {}", rng.between(0, 200)),
                5 => {
                    let word = rng.pick(VARIANT_WORDS);
                    format!("Variant value {}", any_case(rng, word))
                }
                _ => "Clear Hash".to_string(),
            };
            format!(
                "{} name {}",
                any_case(rng, "setoption"),
                any_case(rng, &setting)
            )
        }
        11..=13 => {
            let count = rng.below(9);
            let moves = random_moves(rng, &*session_for(variant), None, count);
            let mut line = format!("position {}", any_case(rng, "startpos"));
            if !moves.is_empty() || rng.percent(10) {
                line.push_str(" moves");
                for m in moves {
                    line.push(' ');
                    line.push_str(&m);
                }
            }
            line
        }
        14 | 15 => {
            let (fen, moves) = fen_and_moves(rng, state, 5);
            let line = format!("{} fen {fen}", any_case(rng, "position"));
            with_moves(line, &moves)
        }
        _ => uci_go(rng, state),
    }
}

/// Lines the dialect refuses, whatever the position (checked against the oracle too).
const UCI_REFUSED: &[&str] = &[
    "garbage",
    "info depth 300",
    "bestmove 32-28",
    "readyok",
    "uciok",
    "register later",
    "isready now",
    "uci 1",
    "stop please",
    "ponderhit 99999999999999999999",
    "quit now",
    "QUIT 0",
    "ucinewgame 1",
    "d now",
    "eval -1",
    "debug",
    "debug maybe",
    "debug on off",
    "perft",
    "perft -1",
    "perft x",
    "perft 99999999999",
    "perft 1 2",
    "perft NaN",
    "setoption",
    "setoption name",
    "setoption Hash 5",
    "setoption name Nope value 1",
    "setoption name UCI_Chess960 value true",
    "setoption name Hash value -1",
    "setoption name Hash value 0",
    "setoption name Hash value 4097",
    "setoption name Hash value 99999999999999999999",
    "setoption name Hash value 1.5",
    "setoption name Hash value",
    "setoption name Hash",
    "setoption name Threads value 0",
    "setoption name Threads value 257",
    "setoption name MultiPV value 65",
    "setoption name Move Overhead value 5001",
    "setoption name Move Overhead value -1",
    "setoption name Ponder value yes",
    "setoption name Ponder",
    "setoption name Variant value thai",
    "setoption name Variant",
    "position",
    "position fen",
    "position fen moves 32-28",
    "position startpos 32-28",
    "position elsewhere",
    "position fen garbage",
    "position fen W:W0:B1",
    "position fen W:W51:B1",
    "position fen W:W99999999999999999999:B1",
    "position fen W:W-1:B1",
    "position fen X:W31-50:B1-20",
    "position fen W:W31,31:B1",
    "position fen W:W1-30:B31-50",
    "position fen W:W1:B50",
    "position startpos moves 32-28 99-100",
    "position startpos moves 32-28 hello",
    "position startpos moves 32-28 32-28",
    "position startpos moves 1-6",
    "position startpos moves 32-28 19-23 28-22",
    "position fen W:WK4:B13,32,37,20 moves 4x15",
    "go depth -1",
    "go depth 0",
    "go depth 99999999999999999999",
    "go depth 4294967296",
    "go depth",
    "go depth 3 depth 4",
    "go infinite infinite",
    "go nodes -5",
    "go nodes 0",
    "go nodes 18446744073709551616",
    "go movetime soon",
    "go movetime -1",
    "go movestogo 0",
    "go wtime",
    "go wtime 9223372036854775808",
    "go binc -9223372036854775809",
    "go mate 3",
    "go fast",
    "go depth 5 garbage",
    "go searchmoves",
    "go searchmoves depth 3",
    "go searchmoves 99-100",
    "go searchmoves 1-6",
    "go depth NaN",
    "go movetime inf",
    "go depth 1.5",
    "go depth +",
];

/// A FEN of `fen` spoiled: off-board, doubled or negative squares, a bad side, bad kings,
/// huge numbers, missing or extra fields.
fn bad_fen(rng: &mut Rng, fen: &str) -> String {
    let mut fen = fen.to_string();
    match rng.below(10) {
        0 => fen = fen.replacen(':', "", 1),
        1 => fen.replace_range(0..1, rng.pick(&["X", "w", "", "WB", "0"])),
        2 => fen.push_str(rng.pick(&[",0", ",99", ",-3", ",99999999999999999999", ",K", ",KK5"])),
        3 => fen.push_str(":W1"),
        4 => {
            if let Some(at) = fen.find(',') {
                let square: String = fen[at + 1..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                fen.push_str(&format!(",{square}"));
            }
        }
        5 => fen = fen.replace('W', "Q"),
        6 => {
            let at = boundary(fen.as_bytes(), rng.below(fen.len()));
            fen.truncate(at);
        }
        7 => fen = format!("{fen}:{fen}"),
        8 => fen = fen.replace(',', ",,"),
        _ => {
            let at = boundary(fen.as_bytes(), rng.below(fen.len() + 1));
            fen.insert_str(at, rng.pick(CHARS));
        }
    }
    fen
}

/// Bad move texts.
const BAD_MOVE_TEXT: &str = "\
    99-100 0-0 1-1 hello - x xx 11- -15 11--15 11x a9-b10 I1-J2 c3-c3 4x15x 1x2x3x4x5x6 \
    99999999999999999999-1 1-99999999999999999999 5:6 é-1 K11-15";

/// `word` and up to two random [`TOKENS`] after it, a blank before each.
fn with_tokens(rng: &mut Rng, mut word: String) -> String {
    for _ in 0..rng.below(3) {
        word.push(' ');
        word.push_str(rng.pick(&TOKENS));
    }
    word
}

/// [`BAD_MOVE_TEXT`] split at its blanks.
static BAD_MOVES: LazyLock<Vec<&str>> =
    LazyLock::new(|| BAD_MOVE_TEXT.split_whitespace().collect());

/// One line the dialect must refuse, wrong by construction and confirmed by the oracle.
fn uci_invalid(rng: &mut Rng, state: &UciState) -> Vec<u8> {
    let variant = state.session.variant();
    loop {
        let line: Vec<u8> = match rng.below(13) {
            0 => rng.pick(UCI_REFUSED).as_bytes().to_vec(),
            1 => {
                let mut word: String = (0..1 + rng.below(8))
                    .map(|_| (b'a' + rng.below(26) as u8) as char)
                    .collect();
                if rng.percent(30) {
                    word = rng
                        .pick(&[
                            "pos",
                            "ping",
                            "level",
                            "hub",
                            "\u{feff}uci",
                            "gо",
                            "isready?",
                        ])
                        .to_string();
                }
                with_tokens(rng, word).into_bytes()
            }
            2 => {
                let command = rng.pick(&[
                    "uci",
                    "isready",
                    "ucinewgame",
                    "stop",
                    "ponderhit",
                    "quit",
                    "d",
                    "eval",
                ]);
                let extra = rng.pick(&TOKENS);
                format!("{} {extra}", any_case(rng, command)).into_bytes()
            }
            3 => {
                let (name, value) = match rng.below(8) {
                    0 => (
                        "Hash",
                        rng.pick(&[
                            "0",
                            "-1",
                            "4097",
                            "99999999999999999999",
                            "1.5",
                            "NaN",
                            "",
                            "64MB",
                        ]),
                    ),
                    1 => ("Threads", rng.pick(&["0", "257", "-2", "two", ""])),
                    2 => ("MultiPV", rng.pick(&["0", "65", "-1", "inf"])),
                    3 => (
                        "Move Overhead",
                        rng.pick(&["-1", "5001", "9223372036854775808", "1e3"]),
                    ),
                    4 => ("Ponder", rng.pick(&["yes", "1", "", "maybe", "truefalse"])),
                    5 => (
                        "Variant",
                        rng.pick(&["thai", "killer", "", "english2", "10 x 10", "ёлка"]),
                    ),
                    6 => (
                        rng.pick(&[
                            "Nope",
                            "UCI_Chess960",
                            "Hashh",
                            "Clear",
                            "Move",
                            "Overhead Move",
                            "Variants",
                        ]),
                        "1",
                    ),
                    _ => ("Hash Size", "16"),
                };
                format!("setoption name {name} value {value}").into_bytes()
            }
            4 | 5 => {
                let (fen, moves) = fen_and_moves(rng, state, 3);
                let line = format!("position fen {}", bad_fen(rng, &fen));
                with_moves(line, &moves).into_bytes()
            }
            6 | 7 => {
                let count = rng.below(5);
                let mut moves = random_moves(rng, &*session_for(variant), None, count);
                let at = rng.below(moves.len() + 1);
                let bad = if rng.percent(50) {
                    rng.pick(&BAD_MOVES).to_string()
                } else {
                    format!("{}-{}", rng.between(1, 50), rng.between(1, 50))
                };
                moves.insert(at, bad);
                format!("position startpos moves {}", moves.join(" ")).into_bytes()
            }
            8 | 9 => {
                let mut line = uci_go(rng, state);
                match rng.below(6) {
                    0 => line.push_str(rng.pick(&[
                        " depth 2 depth 2",
                        " infinite infinite",
                        " ponder ponder",
                    ])),
                    1 => line.push_str(rng.pick(&[
                        " depth 0",
                        " nodes 0",
                        " movestogo 0",
                        " movetime -1",
                        " depth 4294967296",
                        " nodes 18446744073709551616",
                        " wtime 9223372036854775808",
                        " btime -99999999999999999999",
                    ])),
                    2 => line.push_str(rng.pick(&[" depth", " wtime", " nodes", " movestogo"])),
                    3 => line.push_str(rng.pick(&[
                        " fast",
                        " mate 3",
                        " depth x",
                        " depth NaN",
                        " nodes inf",
                        " movetime 1e3",
                    ])),
                    4 => line.push_str(&format!(" searchmoves {}", rng.pick(&BAD_MOVES))),
                    _ => line.push_str(" searchmoves"),
                }
                line.into_bytes()
            }
            10 => {
                let mut line = uci_valid(rng, state).into_bytes();
                let at = boundary(&line, rng.below(line.len() + 1));
                line.insert(at, rng.pick(BAD_BYTES));
                line
            }
            _ => {
                let line = uci_valid(rng, state);
                mutate(rng, &line)
            }
        };
        if state.is_error(&line) {
            return line;
        }
    }
}

/// The `Fen:`, `Variant:`, `Options:` and legal moves of the last `d` answer in `lines`.
fn shown_by_d(lines: &[String]) -> Option<(String, String, String, Vec<String>)> {
    let last = |prefix: &str| {
        lines
            .iter()
            .rev()
            .find_map(|l| l.strip_prefix(prefix))
            .map(str::to_string)
    };
    let legal = last("Legal moves: ")?;
    let legal = if legal == "(none)" {
        Vec::new()
    } else {
        legal.split(' ').map(str::to_string).collect()
    };
    Some((
        last("Fen: ")?,
        last("Variant: ")?,
        last("Options: ")?,
        legal,
    ))
}

/// True when `best` answers a search of a position with these legal moves.
fn legal_bestmove(best: &str, legal: &[String]) -> bool {
    if legal.is_empty() {
        best == "(none)"
    } else {
        legal.iter().any(|m| m == best)
    }
}

/// Reads until `readies` `readyok` lines have come and every search in `searches` has
/// answered; checks each `bestmove` against its search's legal moves. Returns the other lines.
fn uci_settle(
    engine: &mut Engine,
    readies: usize,
    searches: &mut VecDeque<Vec<String>>,
) -> Vec<String> {
    let deadline = Instant::now() + WAIT;
    let mut ready = 0;
    let mut lines = Vec::new();
    while ready < readies || !searches.is_empty() {
        let Some(line) = engine.next_before(deadline) else {
            engine.fail(&format!(
                "hang: {ready} of {readies} readyok and {} bestmove(s) missing after {WAIT:?}",
                searches.len()
            ));
        };
        if line == "readyok" {
            ready += 1;
        } else if let Some(rest) = line.strip_prefix("bestmove ") {
            let Some(legal) = searches.pop_front() else {
                engine.fail("a bestmove without a go");
            };
            let best = rest.split(' ').next().unwrap_or("");
            if !legal_bestmove(best, &legal) {
                engine.fail(&format!("bestmove {best} is not one of {legal:?}"));
            }
        } else {
            if line.contains("panicked") {
                engine.fail("a panic message on stdout");
            }
            lines.push(line);
        }
    }
    lines
}

fn errors_in(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .count()
}

/// Checks that the `d` answer among `lines` shows the tracked position, variant and options;
/// returns the legal moves it lists.
fn uci_check_shown(
    engine: &mut Engine,
    state: &UciState,
    lines: &[String],
    why: &str,
) -> Vec<String> {
    let Some((fen, variant, options, legal)) = shown_by_d(lines) else {
        engine.fail(&format!("{why}: no d answer"));
    };
    if fen != state.session.fen()
        || variant != state.session.variant().to_string()
        || options != state.options()
    {
        engine.fail(&format!(
            "{why}: d shows {fen} ({variant}; {options}), expected {} ({}; {})",
            state.session.fen(),
            state.session.variant(),
            state.options()
        ));
    }
    legal
}

/// Sends `count` generated lines that the dialect refuses ([`uci_invalid`]), idle, each
/// checked by [`uci_refused`], and the state by [`uci_check_state`] after every
/// `check_every` of them.
fn uci_refuse_idle(
    engine: &mut Engine,
    rng: &mut Rng,
    state: &UciState,
    searches: &mut VecDeque<Vec<String>>,
    count: usize,
    check_every: usize,
) {
    for i in 0..count {
        let line = uci_invalid(rng, state);
        uci_refused(engine, line, false);
        if i % check_every == check_every - 1 {
            uci_check_state(engine, state, searches, "refused lines");
        }
    }
}

/// Sends `d` and `isready`, settles, and checks that `d` shows the expected state.
fn uci_check_state(
    engine: &mut Engine,
    state: &UciState,
    searches: &mut VecDeque<Vec<String>>,
    why: &str,
) -> Vec<String> {
    engine.send("d\nisready");
    let lines = uci_settle(engine, 1, searches);
    let legal = uci_check_shown(engine, state, &lines, why);
    if legal != state.session.legal_moves() {
        engine.fail(&format!(
            "{why}: d lists {legal:?}, expected {:?}",
            state.session.legal_moves()
        ));
    }
    lines
}

/// Sends one line the dialect refuses and checks its answer: exactly one error line, nothing
/// else (only `info depth` lines of a running search), and the search goes on.
fn uci_refused(engine: &mut Engine, line: Vec<u8>, searching: bool) {
    let shown_line = shown(&String::from_utf8_lossy(&line));
    let mut bytes = line;
    bytes.extend_from_slice(b"\nisready\n");
    engine.send_bytes(bytes);
    let mut errors = 0;
    loop {
        let out = engine.line("readyok");
        if out == "readyok" {
            break;
        }
        if out.starts_with("info string error: ") {
            errors += 1;
        } else if !(searching && out.starts_with("info depth ")) {
            engine.fail(&format!("{shown_line:?} was answered by {}", shown(&out)));
        }
    }
    if errors != 1 {
        engine.fail(&format!("{shown_line:?} got {errors} error lines, not one"));
    }
}

#[test]
fn uci_fuzzed_lines_get_one_error_each_and_keep_the_state() {
    let _turn = serial();
    let started = Instant::now();
    let seed = seed_for("uci");
    let mut rng = Rng(seed);
    let mut engine = Engine::start(&[], seed);
    let mut state = UciState::new();
    let mut searches: VecDeque<Vec<String>> = VecDeque::new();
    let mut refused = 0;

    // The fixed refusals are refusals for the oracle too (in international, where they are
    // written for).
    let mut international = UciState::new();
    international.apply(b"setoption name Variant value international", false);
    for line in UCI_REFUSED {
        assert!(
            international.is_error(line.as_bytes()),
            "the oracle accepts {line:?}"
        );
    }

    // Options away from their defaults and a known position, through the dialect.
    let setup = [
        "setoption name Variant value international",
        "setoption name Hash value 16",
        "setoption name Threads value 2",
        "setoption name MultiPV value 2",
        "setoption name Ponder value true",
        "setoption name Move Overhead value 45",
        "position fen W:WK4:B13,32,37,20",
    ];
    for line in setup {
        assert!(
            matches!(state.apply(line.as_bytes(), false), Expect::Silent),
            "{line}"
        );
        engine.send(line);
    }
    let lines = uci_check_state(&mut engine, &state, &mut searches, "set-up");
    assert_eq!(errors_in(&lines), 0, "{lines:?}");

    // 1. Refused lines, idle: one error line each, nothing changes. First in a position where
    // `4x15` is ambiguous (two captures), then in a richer one: the fixed list, lines that
    // are not UTF-8, and generated ones.
    for line in [
        "go searchmoves 4x15",
        "go depth 3 searchmoves 4x15 4x27x38x15",
    ] {
        assert!(state.is_error(line.as_bytes()));
        uci_refused(&mut engine, line.as_bytes().to_vec(), false);
        refused += 1;
    }
    uci_refuse_idle(&mut engine, &mut rng, &state, &mut searches, 200, 50);
    refused += 200;
    let kept = "position startpos moves 32-28 19-23 28x19 14x23";
    assert!(matches!(
        state.apply(kept.as_bytes(), false),
        Expect::Silent
    ));
    engine.send(kept);
    uci_check_state(&mut engine, &state, &mut searches, "kept position");
    for line in UCI_REFUSED {
        uci_refused(&mut engine, line.as_bytes().to_vec(), false);
        refused += 1;
    }
    for bytes in [
        &b"position startpos moves \xff\xfe"[..],
        b"\xc3",
        b"go depth 3\x80",
        b"\xfe\xff",
    ] {
        uci_refused(&mut engine, bytes.to_vec(), false);
        refused += 1;
    }
    uci_refuse_idle(&mut engine, &mut rng, &state, &mut searches, 3000, 100);
    refused += 3000;
    // Blank lines are ignored.
    engine.send_bytes(b"\n   \t \r\n\r\n\x0b\n".to_vec());
    let lines = uci_check_state(&mut engine, &state, &mut searches, "blank lines");
    assert_eq!(errors_in(&lines), 0, "blank lines: {lines:?}");
    let idle_done = started.elapsed();

    // 2. Refused lines in the middle of searches that only `stop` ends: answered at once,
    // the search goes on (no bestmove) until `stop`, then exactly one legal bestmove.
    for go in [
        "go infinite",
        "go ponder",
        "go ponder wtime 100000 btime 100000 winc 0 binc 0",
    ] {
        let Expect::Go(legal) = state.apply(go.as_bytes(), true) else {
            panic!("{go} is a search");
        };
        searches.push_back(legal);
        engine.send(go);
        for _ in 0..150 {
            let line = uci_invalid(&mut rng, &state);
            uci_refused(&mut engine, line, true);
            refused += 1;
        }
        engine.send("stop");
        uci_check_state(&mut engine, &state, &mut searches, go);
    }
    let search_done = started.elapsed();

    // 3. Everything, accepted or not, in batches sent without waiting: the state is
    // tracked through the accepted lines and `d` must show it after every batch.
    let mut sent = 0;
    let mut long_lines = 0;
    let mut counts = [0usize; 4];
    let mixed_total = mixed_lines(6000);
    while sent < mixed_total {
        let mut batch: Vec<u8> = Vec::new();
        let mut readies = 1;
        let mut errors = 0;
        let mid_search = rng.percent(25);
        if mid_search {
            let go = rng.pick(&[
                "go infinite",
                "go ponder",
                "go infinite depth 2",
                "go ponder movetime 5",
            ]);
            let Expect::Go(legal) = state.apply(go.as_bytes(), false) else {
                panic!("{go} is a search");
            };
            searches.push_back(legal);
            batch.extend_from_slice(format!("{go}\n").as_bytes());
        }
        for _ in 0..1 + rng.below(30) {
            let (line, expect) = loop {
                let line = match rng.below(10) {
                    0..=5 => {
                        let valid = uci_valid(&mut rng, &state);
                        mutate(&mut rng, &valid)
                    }
                    6..=8 => uci_valid(&mut rng, &state).into_bytes(),
                    _ => uci_invalid(&mut rng, &state),
                };
                let expect = state.apply(&line, mid_search);
                if !matches!(expect, Expect::Skip) {
                    break (line, expect);
                }
            };
            sent += 1;
            long_lines += usize::from(line.len() >= LONG);
            batch.extend_from_slice(&line);
            batch.push(b'\n');
            match expect {
                Expect::Error => {
                    errors += 1;
                    counts[0] += 1;
                }
                Expect::Ready => {
                    readies += 1;
                    counts[1] += 1;
                }
                Expect::Go(legal) => {
                    searches.push_back(legal);
                    counts[2] += 1;
                    if !mid_search {
                        batch.extend_from_slice(b"stop\n");
                    }
                }
                Expect::Silent => counts[3] += 1,
                Expect::Skip => unreachable!(),
            }
        }
        if mid_search {
            batch.extend_from_slice(b"stop\n");
        }
        batch.extend_from_slice(b"d\nisready\n");
        engine.send_bytes(batch);
        let lines = uci_settle(&mut engine, readies, &mut searches);
        let got = errors_in(&lines);
        if got != errors {
            engine.fail(&format!(
                "the batch should get {errors} error lines, got {got}"
            ));
        }
        uci_check_shown(&mut engine, &state, &lines, "after the batch");
    }

    // 4. Afterwards: answers at once, shows the tracked state, plays a legal move.
    engine.send("isready");
    let deadline = Instant::now() + Duration::from_secs(5);
    match engine.next_before(deadline) {
        Some(line) if line == "readyok" => {}
        other => engine.fail(&format!("isready after the fuzzing: {other:?}")),
    }
    let lines = uci_check_state(&mut engine, &state, &mut searches, "the end");
    let (_, _, _, legal) = shown_by_d(&lines).expect("a d answer");
    engine.send("go depth 3");
    searches.push_back(legal);
    uci_settle(&mut engine, 0, &mut searches);
    engine.send("isready");
    assert_eq!(engine.line("readyok"), "readyok", "one bestmove per go");
    engine.quit(false, |_| false);
    println!(
        "uci fuzz (seed {seed}): {sent} mixed lines ({} refused, {} isready, {} searches, {} other; {long_lines} of 100 KB) after {refused} refused lines; idle {:?}, searching {:?}, total {:?}",
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        idle_done,
        search_done - idle_done,
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------------
// Hub

const START_10X10: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
/// The 8x8 start string; in English (turned board, colours swapped) the PDN start with Black
/// to move.
const START_8X8: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";
/// English after `11-15 23-19` (PDN), the position the Hub fuzzing must keep.
const HUB_KEPT_MOVES: &str = "11-15 23-19";
const HUB_KEPT_FEN: &str = "B:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15";
/// The commands of the Hub protocol (case matters: `PING` is unknown).
const HUB_COMMANDS: &[&str] = &[
    "hub",
    "init",
    "set-param",
    "new-game",
    "pos",
    "level",
    "go",
    "ping",
    "ponder-hit",
    "stop",
    "quit",
];

/// True when the `done` line answers a position with these legal moves (Hub text).
fn legal_done(line: &str, legal: &BTreeSet<String>) -> bool {
    match done_move(line) {
        Ok(None) => legal.is_empty(),
        Ok(Some(best)) => legal.contains(&normalised(&best)),
        Err(_) => false,
    }
}

/// The lines `damka hub` may write.
fn hub_line_kind(line: &str) -> Option<&'static str> {
    let first = line.split(' ').next().unwrap_or("");
    ["id", "param", "wait", "ready", "pong", "info", "done"]
        .into_iter()
        .find(|&k| k == first)
}

/// What a Hub line leads to, read as `damka hub` reads it (with the library's parser).
#[derive(Debug, PartialEq)]
enum HubExpect {
    /// Nothing to count (may change the state, or not).
    Quiet,
    /// Not to be sent (`quit`; a huge table; many threads).
    Skip,
    /// A search: one `done`.
    Go,
    /// `pong`.
    Ping,
    /// `ready`.
    Init,
    /// The five start-up lines.
    Hub,
}

fn hub_judge(bytes: &[u8]) -> HubExpect {
    let text = format!("{}\n", String::from_utf8_lossy(bytes));
    let Some(command) = parse_hub(&text) else {
        return HubExpect::Quiet;
    };
    match command.name.as_str() {
        "quit" => HubExpect::Skip,
        "go" => HubExpect::Go,
        "ping" => HubExpect::Ping,
        "init" => HubExpect::Init,
        "hub" => HubExpect::Hub,
        "set-param" => {
            let name = command.get("name").unwrap_or("").to_ascii_lowercase();
            let value = command
                .get("value")
                .and_then(|v| v.trim().parse::<i64>().ok());
            match (name.as_str(), value) {
                ("hash", Some(mb)) if mb > 64 => HubExpect::Skip,
                ("threads", Some(n)) if n > 2 => HubExpect::Skip,
                _ => HubExpect::Quiet,
            }
        }
        _ => HubExpect::Quiet,
    }
}

/// The Hub variant names, aliases and unknown ones.
const HUB_VARIANTS: &[&str] = &[
    "normal",
    "english",
    "russian",
    "brazilian",
    "italian",
    "pool",
    "spanish",
    "czech",
    "antidraughts",
    "breakthrough",
    "frisian",
    "frysk",
    "frysk!",
    "turkish",
    "international",
    "standard",
    "american",
    "checkers",
    "shashki",
    "thai",
    "killer",
    "bt",
    "losing",
];

/// Reals as Hub reads them (and junk).
const HUB_REALS: &[&str] = &[
    "0.1",
    "0.01",
    "1",
    "2.0",
    "59",
    "1e-05",
    "0",
    "-0.5",
    "-1",
    "NaN",
    "inf",
    "-inf",
    "1e308",
    "99999999999999999999",
    "",
    "soon",
    "0x1",
    "1,5",
];

/// A random legal line of moves in Hub text (PDN numbering: international or English) from
/// `fen`.
fn hub_moves<R: Rules>(rng: &mut Rng, fen: &str, count: usize) -> (Vec<String>, Position<R>) {
    let mut position: Position<R> = parse_fen::<R>(fen).expect("test FEN");
    let mut texts = Vec::new();
    for _ in 0..count {
        let legal = position.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = legal
            .iter()
            .copied()
            .nth(rng.below(legal.len()))
            .expect("a move");
        texts.push(hub_text::<R>(&mv));
        position = position.play(&mv);
    }
    (texts, position)
}

/// A random position string: the right length or not, any side, men and kings anywhere.
fn hub_random_pos(rng: &mut Rng) -> String {
    let len = match rng.below(4) {
        0 => 50,
        1 => 32,
        _ => rng.below(60),
    };
    let mut text = String::from(rng.pick(&["W", "B", "w", "b", "X", ""]));
    for _ in 0..len {
        text.push(rng.pick(&['e', 'e', 'e', 'w', 'b', 'W', 'B', '.', '-', 'q']));
    }
    text
}

/// A valid Hub line (from the protocol's grammar).
fn hub_valid(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => "hub".into(),
        1 => "init".into(),
        2 => "ping".into(),
        3 => "new-game".into(),
        4 => "stop".into(),
        5 => "ponder-hit".into(),
        6 | 7 => match rng.below(4) {
            0 => format!("set-param name=hash value={}", rng.between(1, 32)),
            1 => format!("set-param name=threads value={}", rng.between(1, 2)),
            2 => format!("set-param name=initial-time value={}", rng.between(0, 300)),
            _ => format!("set-param name=variant value={}", rng.pick(HUB_VARIANTS)),
        },
        8..=12 => {
            let (pos, moves) = match rng.below(5) {
                0 => {
                    let count = rng.below(8);
                    let (moves, _) = hub_moves::<International>(rng, "W:W31-50:B1-20", count);
                    (START_10X10.to_string(), moves)
                }
                1 => {
                    let count = rng.below(8);
                    let (moves, _) = hub_moves::<English>(rng, "B:W21-32:B1-12", count);
                    (START_8X8.to_string(), moves)
                }
                2 => (
                    hub_pos_10x10(rng.pick(&[
                        "W:WK4:B13,32,37,20",
                        "W:W28:B23,13",
                        "W:W46:B41,37",
                    ])),
                    Vec::new(),
                ),
                3 => (START_8X8.to_string(), Vec::new()),
                _ => (hub_random_pos(rng), Vec::new()),
            };
            let mut line = String::from("pos");
            if rng.percent(90) {
                line.push_str(&format!(" pos={pos}"));
            }
            if !moves.is_empty() || rng.percent(10) {
                line.push_str(&format!(" moves=\"{}\"", moves.join(" ")));
            }
            line
        }
        13..=16 => {
            let mut parts = vec!["level".to_string()];
            for _ in 0..1 + rng.below(3) {
                parts.push(match rng.below(7) {
                    0 => format!("move-time={}", rng.pick(HUB_REALS)),
                    1 => format!("depth={}", rng.between(1, 4)),
                    2 => format!("nodes={}", rng.between(1, 5000)),
                    3 => format!("moves={}", rng.between(0, 40)),
                    4 => format!("time={}", rng.pick(HUB_REALS)),
                    5 => format!("inc={}", rng.pick(HUB_REALS)),
                    _ => "infinite".to_string(),
                });
            }
            parts.join(" ")
        }
        _ => format!(
            "go {}",
            rng.pick(&["think", "think", "ponder", "analyze", "analyse"])
        ),
    }
}

/// Lines that change neither the position nor the parameters and start no search. With
/// `searching`, only lines that also leave a running search alone (a `pos`, `set-param`
/// with a name and a value, `new-game`, `go` and `stop` end a search).
fn hub_invalid(rng: &mut Rng, searching: bool) -> String {
    let kinds = if searching { 5 } else { 10 };
    loop {
        let line = match rng.below(kinds) {
            0 => {
                let word = rng
                    .pick(&[
                        "PING",
                        "Ping",
                        "QUIT",
                        "Quit",
                        "GO",
                        "Pos",
                        "LEVEL",
                        "Stop",
                        "uci",
                        "isready",
                        "position",
                        "setoption",
                        "go_think",
                        "pong",
                        "done",
                        "info",
                        "error",
                        "ready",
                        "wait",
                        "id",
                        "param",
                        "\u{feff}ping",
                        "stop!",
                        "ping;",
                        "new_game",
                        "ponderhit",
                        "quit!",
                    ])
                    .to_string();
                with_tokens(rng, word)
            }
            1 => {
                let mut parts = vec!["level".to_string()];
                for _ in 0..rng.below(4) {
                    let key = rng.pick(&[
                        "move-time",
                        "depth",
                        "nodes",
                        "moves",
                        "time",
                        "inc",
                        "infinite",
                        "speed",
                        "",
                    ]);
                    let value = rng.pick(&TOKENS);
                    parts.push(if rng.percent(80) {
                        format!("{key}={value}")
                    } else {
                        key.to_string()
                    });
                }
                parts.join(" ")
            }
            2 => rng
                .pick(&[
                    "set-param",
                    "set-param name=hash",
                    "set-param name=variant",
                    "set-param value=8",
                    "set-param name value",
                    "set-param hash=8",
                    "set-param variant=normal",
                    "set-param name=threads threads=1",
                ])
                .to_string(),
            3 => rng.pick(&["ping", "init", "hub"]).to_string(),
            4 => {
                let mut line = rng.pick(&["", "  ", "\t", "\r", "\u{2028}"]).to_string();
                if rng.percent(10) {
                    line.push_str(&"x".repeat(rng.below(LONG)));
                }
                line
            }
            5 | 6 => {
                // set-param with a name and a value that are refused.
                let (name, value) = match rng.below(5) {
                    0 => (
                        "variant",
                        rng.pick(&[
                            "thai",
                            "killer",
                            "bt2",
                            "loosing",
                            "\"\"",
                            "normal2",
                            "\"engl ish\"",
                            "NaN",
                        ]),
                    ),
                    1 => (
                        "hash",
                        rng.pick(&[
                            "0",
                            "-1",
                            "4097",
                            "99999999999999999999",
                            "NaN",
                            "inf",
                            "\"\"",
                            "1.5",
                            "1e3",
                            "0x10",
                            "\"16 MB\"",
                        ]),
                    ),
                    2 => (
                        "threads",
                        rng.pick(&["0", "257", "-2", "NaN", "\"\"", "two"]),
                    ),
                    3 => (
                        rng.pick(&[
                            "initial-time",
                            "book",
                            "ponder",
                            "pondering",
                            "hash-size",
                            "\"\"",
                        ]),
                        rng.pick(&["60", "true", "\"\""]),
                    ),
                    _ => ("", "1"),
                };
                format!("set-param name={name} value={value}")
            }
            7 => {
                // A position string that does not read: bad length, side or square, too many
                // pieces; 51 characters (a 10x10 string) while an 8x8 variant is set too.
                let text = match rng.below(5) {
                    0 => {
                        let mut text = hub_random_pos(rng);
                        while matches!(text.len(), 33 | 51) {
                            text.push('e');
                        }
                        text
                    }
                    1 => format!("X{}", &START_10X10[1..]),
                    2 => format!("W{}", "w".repeat(50)),
                    3 => format!("{}q", &START_10X10[..50]),
                    _ => format!(
                        "{}{}",
                        rng.pick(&["X", "W"]),
                        if rng.percent(50) {
                            "w".repeat(32)
                        } else {
                            format!("{}q", &START_8X8[1..32])
                        }
                    ),
                };
                format!("pos pos={text}")
            }
            8 => {
                // A 10x10 string (the variant would switch to `normal` if it read) with an
                // ambiguous move: `4x15` is two captures of different pieces.
                let moves = rng.pick(&["4x15", "4x15 32-28", "4x15x13"]);
                format!(
                    "pos pos={} moves=\"{moves}\"",
                    hub_pos_10x10("W:WK4:B13,32,37,20")
                )
            }
            _ => {
                // A good start with a move that is not legal (or not a move) somewhere in it.
                let count = rng.below(4);
                let (mut moves, position) = hub_moves::<English>(rng, "B:W21-32:B1-12", count);
                let pairs: BTreeSet<(u32, u32)> = position
                    .legal_moves()
                    .iter()
                    .map(|m| {
                        (
                            number_of_bit::<English>(m.from),
                            number_of_bit::<English>(m.to),
                        )
                    })
                    .collect();
                let bad = if rng.percent(50) {
                    rng.pick(&BAD_MOVES).to_string()
                } else {
                    let (a, b) = loop {
                        let pair = (rng.between(1, 32) as u32, rng.between(1, 32) as u32);
                        if !pairs.contains(&pair) {
                            break pair;
                        }
                    };
                    format!("{a}-{b}")
                };
                moves.push(bad);
                if rng.percent(30) {
                    moves.push("11-15".into());
                }
                let pos = if rng.percent(80) {
                    format!(" pos={START_8X8}")
                } else {
                    String::new()
                };
                format!("pos{pos} moves=\"{}\"", moves.join(" "))
            }
        };
        // Never a command that would legitimately change the state or start a search.
        let name = parse_hub(&format!("{line}\n")).map(|c| c.name);
        // `level` changes the state (the limits of the next search): during a search it stops
        // that search first, as `pos` and a valid `set-param` do (src/protocol/driver.rs).
        let allowed: &[&str] = if searching {
            &["set-param", "ping", "init", "hub"]
        } else {
            &["level", "set-param", "ping", "init", "hub", "pos"]
        };
        match name.as_deref() {
            None => return line,
            Some(name) if !HUB_COMMANDS.contains(&name) || allowed.contains(&name) => return line,
            Some(_) => {}
        }
    }
}

/// Counts of the lines a batch must get.
#[derive(Default)]
struct HubCounts {
    pongs: usize,
    readies: usize,
    start_ups: usize,
    dones: usize,
}

impl HubCounts {
    /// One pong (for the `ping` that ends a batch) and nothing else.
    fn pong() -> Self {
        HubCounts {
            pongs: 1,
            ..HubCounts::default()
        }
    }

    fn add(&mut self, expect: &HubExpect) {
        match expect {
            HubExpect::Ping => self.pongs += 1,
            HubExpect::Init => self.readies += 1,
            HubExpect::Hub => self.start_ups += 1,
            HubExpect::Go => self.dones += 1,
            HubExpect::Quiet | HubExpect::Skip => {}
        }
    }
}

/// Reads until `want.pongs` pongs and `want.dones` dones have come; checks that every line is
/// one the protocol defines (never `error`), and that no more `ready`/start-up lines came
/// than asked for. Returns the lines.
fn hub_settle(engine: &mut Engine, want: &HubCounts, why: &str) -> Vec<String> {
    let deadline = Instant::now() + WAIT;
    let mut got = HubCounts::default();
    let mut lines = Vec::new();
    while got.pongs < want.pongs || got.dones < want.dones {
        let Some(line) = engine.next_before(deadline) else {
            engine.fail(&format!(
                "{why}: hang: {} of {} pong, {} of {} done after {WAIT:?}",
                got.pongs, want.pongs, got.dones, want.dones
            ));
        };
        match hub_line_kind(&line) {
            Some("pong") => got.pongs += 1,
            Some("done") => {
                got.dones += 1;
                if let Err(message) = done_move(&line) {
                    engine.fail(&format!("{why}: {message}"));
                }
            }
            Some("ready") => got.readies += 1,
            Some("id") => got.start_ups += 1,
            Some(_) => {}
            None => engine.fail(&format!(
                "{why}: a line the Hub protocol does not have: {}",
                shown(&line)
            )),
        }
        lines.push(line);
    }
    if got.dones > want.dones || got.readies != want.readies || got.start_ups != want.start_ups {
        engine.fail(&format!(
            "{why}: {} done (want {}), {} ready (want {}), {} id (want {})",
            got.dones, want.dones, got.readies, want.readies, got.start_ups, want.start_ups
        ));
    }
    lines
}

/// The start-up exchange; returns the `param` lines.
fn hub_start_up(engine: &mut Engine) -> Vec<String> {
    engine.send("hub\nping");
    let lines = hub_settle(
        engine,
        &HubCounts {
            start_ups: 1,
            ..HubCounts::pong()
        },
        "start-up",
    );
    let wait = lines.iter().position(|l| l == "wait").expect("wait");
    assert!(lines[0].starts_with("id name=damka "), "{lines:?}");
    lines[1..wait].to_vec()
}

/// `init`, answered with one `ready`.
fn hub_init(engine: &mut Engine) {
    engine.send("init\nping");
    hub_settle(
        engine,
        &HubCounts {
            readies: 1,
            ..HubCounts::pong()
        },
        "init",
    );
}

/// Waits for the one `done` of the search that the lines sent end (and the pong of the
/// `ping` sent after them); returns it.
fn hub_done(engine: &mut Engine, why: &str) -> String {
    let want = HubCounts {
        dones: 1,
        ..HubCounts::pong()
    };
    let lines = hub_settle(engine, &want, why);
    lines
        .into_iter()
        .find(|l| l.starts_with("done"))
        .expect("a done")
}

/// Sends `count` lines of [`hub_invalid`] (`searching` as it takes it) and a `ping` in one
/// write, and waits for what they must bring ([`hub_settle`]).
fn hub_send_refused(engine: &mut Engine, rng: &mut Rng, count: usize, searching: bool, why: &str) {
    let mut want = HubCounts::pong();
    let mut batch = String::new();
    for _ in 0..count {
        let line = hub_invalid(rng, searching);
        want.add(&hub_judge(line.as_bytes()));
        batch.push_str(&line);
        batch.push('\n');
    }
    batch.push_str("ping\n");
    engine.send_bytes(batch.into_bytes());
    hub_settle(engine, &want, why);
}

/// The Hub engine still holds `variant`, `hash`, `threads` and the kept English position:
/// `hub` shows the parameters, and a search without a new `pos` plays a legal move there.
fn hub_check_kept(engine: &mut Engine, why: &str) {
    let params = hub_start_up(engine);
    let expected = [
        "param name=variant value=english ",
        "param name=hash value=16 ",
        "param name=threads value=2 ",
    ];
    for (line, start) in params.iter().zip(expected) {
        if !line.starts_with(start) {
            engine.fail(&format!("{why}: parameter changed: {line}"));
        }
    }
    engine.send("level depth=2\ngo think\nping");
    let done = hub_done(engine, why);
    if !legal_done(&done, &legal_hub_moves::<English>(HUB_KEPT_FEN)) {
        engine.fail(&format!(
            "{why}: {done} is not legal in the kept position {HUB_KEPT_FEN}"
        ));
    }
}

#[test]
fn hub_fuzzed_lines_never_get_an_error_and_keep_the_state() {
    let _turn = serial();
    let started = Instant::now();
    let seed = seed_for("hub");
    let mut rng = Rng(seed);
    let mut engine = Engine::start(&["hub"], seed);
    hub_start_up(&mut engine);
    hub_init(&mut engine);

    // Parameters away from their defaults and a known position.
    for line in [
        "set-param name=variant value=english",
        "set-param name=hash value=16",
        "set-param name=threads value=2",
        &format!("pos pos={START_8X8} moves=\"{HUB_KEPT_MOVES}\""),
    ] {
        engine.send(line);
    }
    hub_check_kept(&mut engine, "set-up");

    // 1. Lines that must change nothing, idle: silent but for ping, init and hub.
    let mut refused = 0;
    for round in 0..40 {
        hub_send_refused(&mut engine, &mut rng, 25, false, "refused lines");
        refused += 25;
        if round % 10 == 9 {
            hub_check_kept(&mut engine, "refused lines");
        }
    }
    let idle_done = started.elapsed();

    // 2. The same (but for lines that end a search by the protocol) during searches: never
    // an error line, no done until `stop`, then exactly one, legal in the kept position.
    for (level, go) in [
        ("level depth=2", "go analyze"),
        ("level move-time=0.01", "go ponder"),
        ("level infinite", "go think"),
    ] {
        engine.send(&format!("{level}\n{go}"));
        for _ in 0..10 {
            hub_send_refused(&mut engine, &mut rng, 15, true, go);
            refused += 15;
        }
        engine.send("stop\nping");
        let done = hub_done(&mut engine, go);
        if !legal_done(&done, &legal_hub_moves::<English>(HUB_KEPT_FEN)) {
            engine.fail(&format!("{go}: {done} is not legal in {HUB_KEPT_FEN}"));
        }
    }
    hub_check_kept(&mut engine, "refused lines during searches");
    let search_done = started.elapsed();

    // 3. Everything, in batches sent without waiting, a quarter of them in the middle of a
    // search: never an error line, exactly one done per go.
    let mut sent = 0;
    let mut long_lines = 0;
    let mut gos = 0;
    let mixed_total = mixed_lines(4000);
    while sent < mixed_total {
        let mut want = HubCounts::pong();
        let mut batch: Vec<u8> = Vec::new();
        let mid_search = rng.percent(25);
        if mid_search {
            let go = rng.pick(&["go analyze", "go ponder", "level infinite\ngo think"]);
            batch.extend_from_slice(format!("{go}\n").as_bytes());
            want.dones += 1;
        }
        for _ in 0..1 + rng.below(30) {
            let (line, expect) = loop {
                let line = match rng.below(10) {
                    0..=5 => {
                        let valid = hub_valid(&mut rng);
                        mutate(&mut rng, &valid)
                    }
                    6..=8 => hub_valid(&mut rng).into_bytes(),
                    _ => hub_invalid(&mut rng, false).into_bytes(),
                };
                let expect = hub_judge(&line);
                if expect != HubExpect::Skip {
                    break (line, expect);
                }
            };
            sent += 1;
            long_lines += usize::from(line.len() >= LONG);
            want.add(&expect);
            batch.extend_from_slice(&line);
            batch.push(b'\n');
            if expect == HubExpect::Go {
                gos += 1;
                if !mid_search {
                    batch.extend_from_slice(b"stop\n");
                }
            }
        }
        batch.extend_from_slice(b"stop\nping\n");
        engine.send_bytes(batch);
        hub_settle(&mut engine, &want, "mixed lines");
    }

    // 4. Afterwards: answers at once and plays legal moves after a new pos.
    engine.send("ping");
    let deadline = Instant::now() + Duration::from_secs(5);
    match engine.next_before(deadline) {
        Some(line) if line == "pong" => {}
        other => engine.fail(&format!("ping after the fuzzing: {other:?}")),
    }
    for (variant, fen, pos) in [
        (
            "normal",
            "W:WK4:B13,32,37,20",
            hub_pos_10x10("W:WK4:B13,32,37,20"),
        ),
        ("normal", "W:W46:B41,37", hub_pos_10x10("W:W46:B41,37")),
        (
            "english",
            "W:W21-32:B1-10,12,15",
            format!("{START_8X8} moves=\"11-15\""),
        ),
    ] {
        engine.send(&format!(
            "set-param name=variant value={variant}\npos pos={pos}\nlevel depth=3\ngo think\nping"
        ));
        let done = hub_done(&mut engine, "the end");
        let legal = if variant == "normal" {
            legal_hub_moves::<International>(fen)
        } else {
            legal_hub_moves::<English>(fen)
        };
        if !legal_done(&done, &legal) {
            engine.fail(&format!("{done} is not legal in {fen}"));
        }
    }
    engine.silent(Duration::from_millis(100), "one done per go");
    engine.quit(false, |_| false);
    println!(
        "hub fuzz (seed {seed}): {refused} lines that change nothing, {sent} mixed lines ({gos} searches; {long_lines} of 100 KB); idle {:?}, searching {:?}, total {:?}",
        idle_done,
        search_done - idle_done,
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------------
// Stress

/// Sends the [`CYCLES`] cycles that `cycle` writes (each one's text and the index of its
/// position) without waiting for answers, in writes of about 64 KB; returns the positions'
/// indices, cycle by cycle.
fn send_cycles(engine: &mut Engine, mut cycle: impl FnMut(usize) -> (String, usize)) -> Vec<usize> {
    let mut expected = Vec::with_capacity(CYCLES);
    let mut batch = String::new();
    for n in 0..CYCLES {
        let (text, which) = cycle(n);
        batch.push_str(&text);
        expected.push(which);
        if batch.len() > 64 * 1024 {
            engine.send_bytes(std::mem::take(&mut batch).into_bytes());
        }
    }
    engine.send_bytes(batch.into_bytes());
    expected
}

/// Reads the answers of the [`CYCLES`] cycles of a stress test, which must all come within
/// [`STRESS_LIMIT`] of `started`: `read` checks each line (failing the test on a wrong one)
/// and says whether it ends a search (numbered from 0; `ends` names those lines).
fn read_cycles(
    engine: &mut Engine,
    started: Instant,
    ends: &str,
    mut read: impl FnMut(&mut Engine, usize, &str) -> bool,
) {
    let deadline = started + STRESS_LIMIT;
    let mut ended = 0;
    while ended < CYCLES {
        let Some(line) = engine.next_before(deadline) else {
            engine.fail(&format!(
                "deadlock or too slow: {ended} of {CYCLES} {ends} after {:?}",
                started.elapsed()
            ));
        };
        if read(engine, ended, &line) {
            ended += 1;
        }
    }
}

#[test]
fn uci_stress_ten_thousand_position_go_stop_cycles() {
    let _turn = serial();
    let mut engine = Engine::start(&[], seed_for("uci stress"));
    let positions = [
        ("position startpos", None, &[][..]),
        (
            "position startpos moves 11-15 23-19",
            None,
            &["11-15", "23-19"][..],
        ),
        ("position fen B:W32:B28", Some("B:W32:B28"), &[][..]),
        (
            "position fen W:WK1:B5,6,K32",
            Some("W:WK1:B5,6,K32"),
            &[][..],
        ),
    ];
    let legal: Vec<Vec<String>> = positions
        .iter()
        .map(|(_, fen, moves)| {
            let game = damka::notation::setup::read_game(Variant::English, *fen, moves);
            damka::engine::session_of(game.expect("test position")).legal_moves()
        })
        .collect();
    assert!(legal[2].is_empty(), "a finished game: bestmove (none)");
    let more = [
        "go ponder wtime 100 btime 100\nponderhit",
        "go",
        "go btime 20 wtime 20 movestogo 1 depth 5",
    ];
    let gos: Vec<&str> = common::STRESS_GOS.into_iter().chain(more).collect();
    let started = Instant::now();
    let expected = send_cycles(&mut engine, |cycle| {
        let go = gos[cycle % gos.len()];
        // The searchmoves fit the start position only.
        let which = if go.contains("searchmoves") {
            0
        } else {
            (cycle / 3) % positions.len()
        };
        (format!("{}\n{go}\nstop\n", positions[which].0), which)
    });
    engine.close();
    read_cycles(&mut engine, started, "bestmoves", |engine, cycle, line| {
        let Some(rest) = line.strip_prefix("bestmove ") else {
            if !line.starts_with("info depth ")
                && !line.starts_with("info string game over: ")
                && !line.starts_with("info string book move ")
            {
                engine.fail(&format!("unexpected {line}"));
            }
            return false;
        };
        let best = rest.split(' ').next().unwrap_or("");
        let which = expected[cycle];
        if !legal_bestmove(best, &legal[which]) {
            engine.fail(&format!(
                "cycle {cycle}: bestmove {best} in {}",
                positions[which].0
            ));
        }
        true
    });
    // Exactly one per go: nothing but info lines up to the exit.
    engine.quit(true, |l| l.starts_with("info depth "));
    let elapsed = started.elapsed();
    assert!(elapsed < STRESS_LIMIT, "{elapsed:?}");
    println!("uci stress: {CYCLES} position/go/stop cycles in {elapsed:?}");
}

#[test]
fn hub_stress_ten_thousand_pos_level_go_stop_cycles() {
    let _turn = serial();
    let mut engine = Engine::start(&["hub"], seed_for("hub stress"));
    hub_start_up(&mut engine);
    hub_init(&mut engine);
    let fens = [
        "W:W31-50:B1-20",
        "W:WK4:B13,32,37,20",
        "W:W28:B23,13",
        "B:W31-50:B1-20",
        "W:W46:B41,37",
    ];
    let positions: Vec<String> = fens.iter().map(|fen| hub_pos_10x10(fen)).collect();
    let legal: Vec<BTreeSet<String>> = fens
        .iter()
        .map(|fen| legal_hub_moves::<International>(fen))
        .collect();
    assert!(legal[4].is_empty(), "a finished game: a bare done");
    let levels = [
        "level depth=1",
        "level depth=3",
        "level nodes=500",
        "level move-time=0.002",
        "level infinite",
        "level time=0.05 inc=0.01",
        "level moves=5 time=1 inc=0",
    ];
    let gos = [
        "go think",
        "go think",
        "go ponder",
        "go ponder\nponder-hit",
        "go analyze",
    ];
    let started = Instant::now();
    let expected = send_cycles(&mut engine, |cycle| {
        let which = (cycle / 2) % positions.len();
        let text = format!(
            "pos pos={}\n{}\n{}\nstop\n",
            positions[which],
            levels[cycle % levels.len()],
            gos[cycle % gos.len()]
        );
        (text, which)
    });
    engine.send("quit");
    read_cycles(
        &mut engine,
        started,
        "dones",
        |engine, cycle, line| match hub_line_kind(line) {
            Some("done") => {
                let which = expected[cycle];
                if !legal_done(line, &legal[which]) {
                    engine.fail(&format!("cycle {cycle}: {line} in {}", fens[which]));
                }
                true
            }
            Some("info") => false,
            _ => engine.fail(&format!("unexpected {line}")),
        },
    );
    let (status, rest, stderr) = engine.exit(Duration::from_secs(10));
    assert!(stderr.is_empty(), "damka wrote on stderr: {stderr}");
    assert!(status.success(), "damka hub exited with {status}");
    assert!(
        rest.iter().all(|l| l.starts_with("info ")),
        "one done per go: {rest:?}"
    );
    let elapsed = started.elapsed();
    assert!(elapsed < STRESS_LIMIT, "{elapsed:?}");
    println!("hub stress: {CYCLES} pos/level/go/stop cycles in {elapsed:?}");
}
