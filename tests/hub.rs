//! `damka hub` (the Hub protocol) driven through pipes and by the two real Python clients.
//!
//! The raw-pipe tests check the protocol itself: start-up, silently swallowed parameters and
//! commands, `ping` during a search, `stop`, exactly one `done` per `go` in the lidraughts
//! pondering flow, timing of `level move-time=` and clocks, the capture format and the 8x8
//! numberings. The client tests run `tests/hub/*.py` with pydraughts 0.6.7 (the lidraughts bot
//! client; complete games against its random mover in international, english, russian,
//! brazilian and italian, with a clock, and with pondering) and py-draughts 1.10.1 (20 fresh
//! engines in a row, each asked for moves), in venvs made by `scripts/pyenv.sh`. A missing
//! Python or a failed install fails these tests: they are never skipped.
//!
//! Every read has a timeout and every child is killed when its test ends, so nothing hangs.
//! The tests take turns (a lock): they measure time, and two searches on a small machine
//! would disturb each other's clocks.

use crate::common;

use common::hub::{done_move_required, hub_pos_10x10, hub_text, legal_hub_moves, normalised};
use common::peer::{Peer, damka_command};
use common::process::DAMKA;
use common::{repo_root, serial, venv_python};
use damka::Position;
use damka::rules::{English, International, Russian};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::MutexGuard;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

const START_10X10: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
const START_8X8: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

/// `damka hub` with all three streams piped and logging off.
fn spawn_hub() -> Child {
    damka_command(&["hub"]).spawn().expect("damka hub starts")
}

/// A running `damka hub` ([`Peer`]) and the Hub exchanges the tests repeat. It holds the
/// test's turn ([`serial`]) while it lives (and gives it back after the process is gone).
struct Hub {
    peer: Peer,
    _turn: MutexGuard<'static, ()>,
}

impl Hub {
    fn start() -> Hub {
        Hub::start_with(&["hub"])
    }

    /// damka started with `args` (none: the protocol is chosen by the first command), once
    /// the other timed tests are done with theirs.
    fn start_with(args: &[&str]) -> Hub {
        let turn = serial();
        Hub {
            peer: Peer::start(args),
            _turn: turn,
        }
    }

    /// Sends `level` and `go think`; the move of the `done` that comes within 5 s.
    fn think(&mut self, level: &str) -> String {
        self.send(level);
        self.send("go think");
        let lines = self.until("done", Duration::from_secs(5));
        done_move_required(lines.last().unwrap())
    }

    fn send(&mut self, line: &str) {
        self.peer.send(line);
    }

    /// The next line, or `None` after `timeout`.
    fn next_line(&mut self, timeout: Duration) -> Option<String> {
        self.peer
            .next_before(Instant::now() + timeout)
            .map(|(_, line)| line)
    }

    /// The next line; fails after `timeout`.
    fn line(&mut self, timeout: Duration) -> String {
        self.next_line(timeout).unwrap_or_else(|| {
            self.peer
                .fail(&format!("no line from damka within {timeout:?}"))
        })
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        self.peer
            .until(timeout, |line| line.starts_with(prefix))
            .into_iter()
            .map(|(_, line)| line)
            .collect()
    }

    /// Asserts that nothing arrives for `quiet`.
    fn silent(&mut self, quiet: Duration, why: &str) {
        self.peer.silent(quiet, why);
    }

    /// `ping` answered by `pong` and nothing else: everything before was silent.
    fn ping(&mut self, why: &str) {
        self.send("ping");
        let line = self.line(Duration::from_secs(5));
        if line != "pong" {
            self.peer.fail(&format!("{why}: '{line}' instead of pong"));
        }
    }

    /// The start-up exchange; returns the `id` and `param` lines.
    fn start_up(&mut self) -> Vec<String> {
        self.send("hub");
        let lines = self.until("wait", Duration::from_secs(5));
        self.send("init");
        assert_eq!(self.line(Duration::from_secs(5)), "ready");
        lines
    }

    /// `quit`: the process exits with 0 and wrote nothing on stderr.
    fn quit(mut self) {
        self.send("quit");
        let (status, _, stderr) = self.peer.exit(Duration::from_secs(5));
        assert!(status.success(), "damka hub exited with {status}");
        assert!(stderr.is_empty(), "damka wrote on stderr: {stderr}");
    }
}

/// The value of `key=` in a Hub line (quotes removed).
fn value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!(" {key}="))? + key.len() + 2;
    let rest = &line[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        quoted.split('"').next()
    } else {
        rest.split(' ').next()
    }
}

/// Every token after the command is `key=value`, a quoted value being one token.
fn assert_key_values(line: &str) {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            ' ' if !quoted => tokens.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    tokens.push(current);
    assert!(!quoted, "unbalanced quotes in '{line}'");
    for token in &tokens[1..] {
        let (key, value) = token
            .split_once('=')
            .unwrap_or_else(|| panic!("token '{token}' of '{line}' is not key=value"));
        assert!(!key.is_empty(), "empty key in '{line}'");
        assert!(
            !value.contains('=') && (!value.contains(' ') || value.starts_with('"')),
            "bad value in '{line}'"
        );
    }
}

#[test]
fn start_up_params_ping_and_stop() {
    let mut hub = Hub::start();
    hub.send("hub");
    let lines = hub.until("wait", Duration::from_secs(5));
    assert!(lines[0].starts_with("id "), "first line: {}", lines[0]);
    assert_eq!(value(&lines[0], "name"), Some("damka"));
    for key in ["version", "author", "country"] {
        assert!(value(&lines[0], key).is_some(), "id without {key}");
    }
    let variant = lines
        .iter()
        .find(|l| l.starts_with("param name=variant "))
        .expect("a variant param");
    assert_eq!(value(variant, "type"), Some("enum"));
    assert_eq!(value(variant, "value"), Some("normal"));
    let values: Vec<&str> = value(variant, "values").unwrap().split(' ').collect();
    for name in ["normal", "english", "russian", "brazilian", "italian"] {
        assert!(values.contains(&name), "variant values lack {name}");
    }
    for name in ["hash", "threads"] {
        let param = lines
            .iter()
            .find(|l| l.starts_with(&format!("param name={name} ")))
            .unwrap_or_else(|| panic!("no {name} param"));
        assert_eq!(value(param, "type"), Some("int"));
    }
    for line in &lines {
        assert_key_values(line);
    }
    // Unknown parameters (lidraughts-bot invents `initial-time`) and bad values are
    // swallowed; so are unknown commands, blank lines and a stray `stop`.
    hub.send("set-param name=initial-time value=60");
    hub.send("set-param name=no-such-thing value=\"a b\"");
    hub.send("set-param name=threads value=banana");
    hub.send("set-param name=variant value=thai");
    hub.send("set-param name=hash value=16");
    hub.send("");
    hub.send("frobnicate now=1");
    hub.send("stop");
    hub.send("init");
    assert_eq!(hub.line(Duration::from_secs(5)), "ready");
    hub.silent(Duration::from_millis(200), "after init");

    // A search without limits: ping is answered while it runs, stop ends it with one done.
    hub.send("new-game");
    hub.send(&format!("pos pos={START_10X10}"));
    hub.send("level infinite");
    hub.send("go think");
    let info = hub.until("info ", Duration::from_secs(5));
    assert!(info.iter().all(|l| l.starts_with("info ")), "{info:?}");
    let info = info.last().unwrap().clone();
    assert_key_values(&info);
    for key in ["depth", "mean-depth", "score", "nodes", "time", "nps", "pv"] {
        assert!(value(&info, key).is_some(), "info without {key}: {info}");
    }
    assert!(info.contains(" pv=\""), "pv is quoted: {info}");
    let score: f64 = value(&info, "score").unwrap().parse().unwrap();
    assert!(score.abs() < 90.0, "start position score {score}");
    std::thread::sleep(Duration::from_millis(100));
    // Order, not milliseconds: `pong` comes while the analysis goes on (nothing but `info`
    // before it, no `done`).
    hub.send("ping");
    let answer = hub.until("pong", Duration::from_secs(10));
    assert!(
        answer.iter().all(|l| l.starts_with("info ") || l == "pong"),
        "{answer:?}"
    );
    hub.send("stop");
    let rest = hub.until("done", Duration::from_secs(2));
    assert!(
        rest[..rest.len() - 1]
            .iter()
            .all(|l| l.starts_with("info "))
    );
    let best = done_move_required(rest.last().unwrap());
    let fen = "W:W31-50:B1-20";
    assert!(legal_hub_moves::<International>(fen).contains(&normalised(&best)));
    hub.silent(Duration::from_millis(300), "one done per go");
    hub.quit();
}

/// A value as GWDGUI 1.5 writes it in `set-param` (its `HubQuote`): in quotes when it is
/// empty or holds a space, `=` or `"`.
fn gwdgui_quote(value: &str) -> String {
    if !value.is_empty() && !value.contains([' ', '=', '"']) {
        return value.to_string();
    }
    format!("\"{}\"", value.replace('"', "\\\""))
}

/// GWDGUI's session, line for line as its source sends it: damka started with no argument (the
/// GUI's default) and `hub` as the first command; on `wait`, every announced parameter sent
/// back with `set-param` and its value; `pos` with the 51-character board and the game from
/// its start, single captures with the captured square; `level move-time=` with three
/// decimals and `go analyze` (ended by `stop`); `level time=` and `go think` in a game; `go
/// mcts`, which damka answers with a search (an `info` line first) and a legal move.
#[test]
fn a_gwdgui_session_starts_damka_without_an_argument() {
    let mut hub = Hub::start_with(&[]);
    hub.send("hub");
    let lines = hub.until("wait", Duration::from_secs(5));
    assert!(lines[0].starts_with("id name=damka "), "{lines:?}");
    let params: Vec<&String> = lines.iter().filter(|l| l.starts_with("param ")).collect();
    assert!(params.len() >= 3, "{lines:?}");
    for param in params {
        let name = value(param, "name").expect("a param name");
        let current = value(param, "value").unwrap_or("");
        hub.send(&format!(
            "set-param name={} value={}",
            gwdgui_quote(name),
            gwdgui_quote(current)
        ));
    }
    hub.send("init");
    assert_eq!(
        hub.line(Duration::from_secs(5)),
        "ready",
        "every echoed param accepted"
    );

    // Analysis of the start position: infinite until the GUI's Stop.
    hub.send(&format!("pos pos={START_10X10}"));
    hub.send("level move-time=0.500");
    hub.send("go analyze");
    let info = hub.until("info ", Duration::from_secs(5));
    let info = info.last().unwrap();
    // GWDGUI reads depth and score as reals and the first move of pv.
    let depth: f64 = value(info, "depth").unwrap().parse().unwrap();
    let score: f64 = value(info, "score").unwrap().parse().unwrap();
    assert!(depth >= 1.0 && score.abs() < 90.0, "{info}");
    assert!(value(info, "pv").is_some(), "{info}");
    // The analysis goes on past the move time, until `stop`.
    std::thread::sleep(Duration::from_millis(800));
    let stopped = hub.peer.send("stop");
    let rest = hub
        .peer
        .until(Duration::from_secs(2), |line| line.starts_with("done"));
    let (done_at, done) = rest.last().unwrap();
    assert!(*done_at >= stopped, "done before stop: {rest:?}");
    let best = done_move_required(done);
    assert!(legal_hub_moves::<International>("W:W31-50:B1-20").contains(&normalised(&best)));

    // A game: the moves from the start, each single capture with its captured square.
    hub.send(&format!(
        "pos pos={START_10X10} moves=\"32-28 19-23 28x19x23 14x23x19\""
    ));
    hub.send("level time=30.000");
    hub.send("go think");
    let done = hub.until("done", Duration::from_secs(10));
    let played = done_move_required(done.last().unwrap());
    let after = "W:W31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50\
                 :B1,2,3,4,5,6,7,8,9,10,11,12,13,15,16,17,18,20,23";
    assert!(
        legal_hub_moves::<International>(after).contains(&normalised(&played)),
        "{played} in {done:?}"
    );

    // `go mcts` at the start, where the book would answer `go think` at once: a search.
    hub.send(&format!("pos pos={START_10X10}"));
    hub.send("level move-time=0.200");
    hub.send("go mcts");
    let answer = hub.until("done", Duration::from_secs(5));
    assert!(
        answer.len() >= 2 && answer[0].starts_with("info "),
        "{answer:?}"
    );
    let best = done_move_required(answer.last().unwrap());
    assert!(legal_hub_moves::<International>("W:W31-50:B1-20").contains(&normalised(&best)));
    hub.quit();
}

/// A copy of damka started under another name says so in its `id` line: GWDGUI tells its two
/// engine slots apart by that name (docs/gui.md), so two damkas at different settings need two.
#[test]
fn the_id_name_is_the_name_damka_was_started_as() {
    let link = common::scratch("hub-renamed", "damka-nobook");
    std::os::unix::fs::symlink(DAMKA, &link).expect("a link to damka");
    let mut command = Command::new(&link);
    command.arg("hub").env_remove("RUST_LOG");
    let (run, finished) =
        common::process::run_limited(&mut command, b"hub\nquit\n", Duration::from_secs(10));
    assert!(finished && run.code == Some(0), "{run:?}");
    let id = run.stdout.lines().next().unwrap_or("");
    assert_eq!(value(id, "name"), Some("damka-nobook"), "{id}");
}

#[test]
fn ponder_flow_gives_one_done_per_go() {
    let mut hub = Hub::start();
    hub.start_up();
    // damka (White) played 32-28 and ponders on the predicted reply 18-23, sent as
    // lidraughts-bot sends it: the whole game with the predicted move appended.
    let pos = format!("pos pos={START_10X10} moves=\"32-28 18-23\"");

    // go ponder, then ponder-hit: the ponder search's done is the answer.
    hub.send(&pos);
    hub.send("level time=3 inc=0.1");
    hub.send("go ponder");
    hub.until("info ", Duration::from_secs(5));
    std::thread::sleep(Duration::from_millis(300));
    let early: Vec<String> =
        std::iter::from_fn(|| hub.next_line(Duration::from_millis(20))).collect();
    assert!(
        early.iter().all(|l| l.starts_with("info ")),
        "done before ponder-hit: {early:?}"
    );
    hub.send("ponder-hit");
    let lines = hub.until("done", Duration::from_secs(5));
    let fen = "W:W31,33-50,28:B1-17,19,20,23";
    let best = done_move_required(lines.last().unwrap());
    assert!(
        legal_hub_moves::<International>(fen).contains(&normalised(&best)),
        "{best} in {fen}"
    );
    hub.silent(Duration::from_millis(300), "one done after ponder-hit");

    // go ponder, then stop (the opponent played something else), then go think.
    hub.send(&pos);
    hub.send("level time=3 inc=0.1");
    hub.send("go ponder");
    std::thread::sleep(Duration::from_millis(150));
    hub.send("stop");
    let lines = hub.until("done", Duration::from_secs(2));
    done_move_required(lines.last().unwrap());
    hub.silent(Duration::from_millis(200), "one done after stop");
    hub.send(&format!("pos pos={START_10X10} moves=\"32-28 19-23\""));
    assert_eq!(hub.think("level time=3 inc=0.1"), "28x19x23");
    hub.silent(Duration::from_millis(300), "one done after go think");

    // A ponder search on a forced move may go on searching (info lines), but answers only
    // after ponder-hit.
    hub.send(&format!("pos pos={START_10X10} moves=\"32-28 19-23\""));
    hub.send("level time=3 inc=0.1");
    hub.send("go ponder");
    hub.silent_except_info(Duration::from_millis(300));
    hub.ping_between_info("ping while pondering");
    hub.send("ponder-hit");
    let lines = hub.until("done", Duration::from_secs(5));
    assert_eq!(done_move_required(lines.last().unwrap()), "28x19x23");
    hub.silent(Duration::from_millis(200), "one done");

    // go analyze runs until stop.
    hub.send(&format!("pos pos={START_10X10}"));
    hub.send("go analyze");
    hub.silent_except_info(Duration::from_millis(300));
    hub.send("stop");
    let lines = hub.until("done", Duration::from_secs(2));
    done_move_required(lines.last().unwrap());
    hub.silent(Duration::from_millis(200), "one done after analyze");
    hub.quit();
}

impl Hub {
    /// Asserts that only `info` lines arrive for `quiet`.
    fn silent_except_info(&mut self, quiet: Duration) {
        let deadline = Instant::now() + quiet;
        while let Some(line) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            if !line.starts_with("info ") {
                self.peer.fail(&format!("unexpected '{line}'"));
            }
        }
    }

    /// `ping` during a search: `info` lines may still arrive before `pong`, nothing else.
    fn ping_between_info(&mut self, why: &str) {
        self.send("ping");
        loop {
            let line = self.line(Duration::from_secs(5));
            if line == "pong" {
                return;
            }
            if !line.starts_with("info ") {
                self.peer.fail(&format!("{why}: '{line}' instead of pong"));
            }
        }
    }
}

#[test]
fn move_time_and_clocks_are_kept() {
    let mut hub = Hub::start();
    hub.start_up();
    let fens = [
        "W:W31-50:B1-20",
        "B:W28,31-33,35-50:B1-19,23",
        "W:W27,28,30,32,33,34,35,37,38,39,40,41,42,43,44,45,46,47:B3,4,5,6,8,9,10,11,12,13,14,15,16,17,18,19,21,23",
        "W:WK46,41,37,33:B5,10,14,19,24",
    ];
    // How close an answer comes to its move time is a benchmark (scripts/stop_latency.py);
    // here each `go` must end by itself with a legal move.
    for fen in fens {
        let legal = legal_hub_moves::<International>(fen);
        hub.send(&format!("pos pos={}", hub_pos_10x10(fen)));
        hub.send("level move-time=0.1");
        hub.send("go think");
        let lines = hub.until("done", Duration::from_secs(20));
        let best = done_move_required(lines.last().unwrap());
        assert!(legal.contains(&normalised(&best)), "{best} in {fen}");
        for line in &lines[..lines.len() - 1] {
            assert_key_values(line);
        }
    }

    // Tiny, zero and negative times (clients send the clock minus the increment) still
    // give a legal move at once.
    for level in [
        "level move-time=1e-05",
        "level time=1e-05",
        "level time=-0.7 inc=0.2",
        "level time=0 inc=0",
        "level moves=1 time=0.05",
        "level depth=3",
        "level nodes=500",
    ] {
        let fen = "W:W31-50:B1-20";
        hub.send(&format!("pos pos={START_10X10}"));
        hub.send(level);
        hub.send("go think");
        // Liveness: a `done` with no `stop` (a level misread as no limit would search on).
        let lines = hub.until("done", Duration::from_secs(20));
        let best = done_move_required(lines.last().unwrap());
        assert!(legal_hub_moves::<International>(fen).contains(&normalised(&best)));
    }

    // A small Fischer clock spent move after move never runs out.
    let mut clock = 1.0f64;
    let inc = 0.05;
    let mut moves: Vec<String> = Vec::new();
    let mut position = Position::<International>::start();
    for _ in 0..30 {
        if position.legal_moves().is_empty() {
            break;
        }
        hub.send(&format!(
            "pos pos={START_10X10} moves=\"{}\"",
            moves.join(" ")
        ));
        hub.send(&format!("level time={} inc={inc}", clock - inc));
        hub.send("go think");
        let started = Instant::now();
        let lines = hub.until("done", Duration::from_secs(5));
        clock -= started.elapsed().as_secs_f64();
        assert!(clock > 0.0, "the clock ran out after {} moves", moves.len());
        clock += inc;
        let best = done_move_required(lines.last().unwrap());
        let mv = *position
            .legal_moves()
            .iter()
            .find(|m| normalised(&best) == hub_text::<International>(m))
            .unwrap_or_else(|| panic!("{best} is not legal"));
        position = position.play(&mv);
        moves.push(best);
    }
    hub.quit();
}

/// The `nodes=` of the last `info` before `done`.
fn searched_nodes(lines: &[String]) -> u64 {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info "))
        .unwrap_or_else(|| panic!("no info line in {lines:?}"));
    value(info, "nodes").unwrap().parse().unwrap()
}

/// draughtsnet's play levels, as it sends them (src draughtsnet.py `go`): `pos`, then one
/// `level` line per limit, then `go think`. The limits of the lines add up until the next
/// `pos`, which clears them; `handicap=N` plays N strength levels down (`skill-level`
/// 20 - N), and `handicap=20` is level 0, a search of a few hundred nodes.
#[test]
fn level_lines_add_up_until_pos_and_handicap_weakens() {
    let mut hub = Hub::start();
    let params = hub.start_up();
    assert!(
        params
            .iter()
            .any(|l| l == "param name=skill-level value=20 type=int min=0 max=20"),
        "{params:#?}"
    );
    hub.send("set-param name=book value=false");
    let think = |hub: &mut Hub, levels: &[&str]| {
        hub.send(&format!("pos pos={START_10X10}"));
        for level in levels {
            hub.send(level);
        }
        hub.send("go think");
        let lines = hub.until("done", Duration::from_secs(20));
        let best = done_move_required(lines.last().unwrap());
        assert!(legal_hub_moves::<International>("W:W31-50:B1-20").contains(&normalised(&best)));
        lines
    };
    // A node limit followed by a long move time: the node limit still holds.
    let lines = think(&mut hub, &["level nodes=3000", "level move-time=30"]);
    assert!(searched_nodes(&lines) <= 3000 + 200, "{lines:#?}");
    // The next `pos` clears them: `level depth=5` alone searches to depth 5.
    let lines = think(&mut hub, &["level depth=5"]);
    let depths: Vec<&str> = lines.iter().filter_map(|l| value(l, "depth")).collect();
    assert_eq!(depths.last(), Some(&"5"), "{lines:#?}");
    // The largest handicap under a long move time: level 0's few hundred nodes.
    let lines = think(&mut hub, &["level handicap=20", "level move-time=30"]);
    assert!(searched_nodes(&lines) <= 1000, "{lines:#?}");
    // Out of range means the weakest; `skill-level` does the same from set-param.
    let lines = think(&mut hub, &["level handicap=99", "level move-time=30"]);
    assert!(searched_nodes(&lines) <= 1000, "{lines:#?}");
    hub.send("set-param name=skill-level value=0");
    let lines = think(&mut hub, &["level move-time=30"]);
    assert!(searched_nodes(&lines) <= 1000, "{lines:#?}");
    hub.send("set-param name=skill-level value=20");
    let lines = think(&mut hub, &["level nodes=50000"]);
    assert!(searched_nodes(&lines) > 30_000, "{lines:#?}");
    hub.quit();
}

#[test]
fn captures_list_every_captured_square_and_bad_input_is_ignored() {
    let mut hub = Hub::start();
    hub.start_up();
    // A double capture lists its captured squares, never its landing square (19); a king
    // has ten captures of three pieces, and a man's capture may come back to its start.
    let expected = [
        ("W:W28:B23,13", Some("28x8x13x23")),
        ("W:WK46:B41,32,24,13,33,22", None),
        ("W:W37:B32,22,12,31,21", None),
    ];
    for (fen, answer) in expected {
        let legal = legal_hub_moves::<International>(fen);
        hub.send(&format!("pos pos={}", hub_pos_10x10(fen)));
        let best = hub.think("level depth=2");
        assert!(
            legal.contains(&normalised(&best)),
            "{best} not in {legal:?}"
        );
        if let Some(answer) = answer {
            assert_eq!(normalised(&best), answer);
        }
    }

    // The client's moves may list captured squares in any order.
    hub.send(&format!(
        "pos pos={START_10X10} moves=\"32-28 19-23 28x19x23 14x23x19\""
    ));
    let best = hub.think("level depth=1");
    let fen_now = "W:W31,33-50:B1-13,15-18,20,23";
    assert!(legal_hub_moves::<International>(fen_now).contains(&normalised(&best)));

    // Bad positions and moves change nothing and print nothing.
    for bad in [
        "pos pos=Wbbbb",
        "pos pos=Xbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
        "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwwq",
        "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-27 1-2\"",
        "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23 28x19x24\"",
        "pos moves=\"banana\"",
        "level move-time=soon",
        "go sideways",
    ] {
        hub.send(bad);
        if bad.starts_with("go") {
            // An unknown go mode is a normal search with the current level (reset by the
            // valid pos below, so it is unlimited): stop it.
            hub.send("stop");
            hub.until("done", Duration::from_secs(5));
        }
    }
    hub.ping("bad input is silent");
    // The position is still the one of the last good `pos`... which `pos` with bad moves
    // did not replace: the engine answers in it.
    let best = hub.think("level depth=1");
    assert!(
        legal_hub_moves::<International>(fen_now).contains(&normalised(&best)),
        "{best} is not legal in the last good position {fen_now}"
    );
    hub.quit();
}

#[test]
fn eight_by_eight_numberings_follow_pydraughts() {
    let mut hub = Hub::start();
    hub.start_up();
    // English: the string is pydraughts' board turned 180 degrees with the colours swapped,
    // so the start string (W to move, w at the bottom) is the PDN start with Black to move;
    // moves and answers are PDN.
    hub.send("set-param name=variant value=english");
    hub.send(&format!("pos pos={START_8X8}"));
    let best = hub.think("level depth=3");
    assert!(
        legal_hub_moves::<English>("B:W21-32:B1-12").contains(&best),
        "english start: {best}"
    );
    // After 11-15 (PDN), White's replies are PDN 21-32 moves.
    hub.send(&format!("pos pos={START_8X8} moves=\"11-15\""));
    let best = hub.think("level depth=3");
    assert!(
        legal_hub_moves::<English>("W:W21-32:B1-10,12,15").contains(&best),
        "english reply: {best}"
    );

    // Russian: the string is PDN (b8 = 1) but moves count from a1 = 1 (rows flipped):
    // the opening moves are 9-13 ... 12-16 (PDN 21-17 ... 24-20).
    hub.send("set-param name=variant value=russian");
    hub.send(&format!("pos pos={START_8X8}"));
    let best = hub.think("level depth=3");
    let openings = ["9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"];
    assert!(openings.contains(&best.as_str()), "russian start: {best}");
    // c3-d4 (10-14 from a1) f6-e5 (23-18 from a1 ...): White must take e5 from d4.
    hub.send(&format!("pos pos={START_8X8} moves=\"10-14 23-19\""));
    let best = hub.think("level depth=3");
    // d4 = 14 and e5 = 19 from a1; the man lands on f6 = 23 from a1.
    assert_eq!(best, "14x23x19", "russian capture");
    // The same in PDN: c3 = 22, d4 = 18, f6 = 11, e5 = 15; 18x11 takes 15.
    assert!(legal_hub_moves::<Russian>("W:W18,21,23-32:B1-10,12,15").contains("18x11x15"));
    hub.quit();
}

/// Turkish, the exchange of a failed `pydraughts_plays_turkish` game replayed on raw pipes:
/// Black's king takes h2, g4, f3 and g2 from h1 and ends on h2 (`8x16x15x16x22x31`, landing
/// on the square of a piece it took). damka made it a man there, so six plies later it
/// answered `1x25x17` (the a1 king takes one) where the h2 king must take three, and
/// pydraughts raised `KeyError('012517')`. The CI failure `KeyError('0901')` (a king on a2
/// that had to take e2) fits the same bug: with a man on a2 there, damka plays a2-a1, `9-1`.
#[test]
fn turkish_king_ending_on_a_square_it_emptied_stays_a_king() {
    let mut hub = Hub::start();
    hub.start_up();
    hub.send("set-param name=variant value=turkish");
    let start = format!(
        "W{}{}{}{}{}",
        "e".repeat(8),
        "b".repeat(16),
        "e".repeat(16),
        "w".repeat(16),
        "e".repeat(8)
    );
    let moves = "20-28 41-33 12-20 49-41 28-36 44x12x20x36 21-29 12-4 22-21 52-44 19-20 \
        4x6x14x20x29 23-22 6x30x22 24-32 42-34 13-14 30x6x14 32-31 50-42 11-12 6-8 21-22 \
        8x16x15x16x22x31 17-25 33x1x9x25 18-17";
    let moves = moves.split_whitespace().collect::<Vec<_>>().join(" ");
    hub.send(&format!("pos pos={start} moves=\"{moves}\""));
    let best = hub.think("level depth=2");
    // h2 = 16 takes d2 = 12, b2 = 10 and a3 = 17, landing on a4 = 25 or a5 = 33 (pydraughts'
    // two moves in this position).
    assert!(
        ["16x25x10x12x17", "16x33x10x12x17"].contains(&best.as_str()),
        "turkish: {best}"
    );
    hub.quit();
}

/// Reads stdout of a `damka hub` child only when asked, one `read()` call at a time, as
/// py-draughts does after `select()`: what one call returns is what one Python read gets.
struct RawReader {
    asks: mpsc::Sender<()>,
    chunks: Receiver<String>,
}

impl RawReader {
    fn new(mut stdout: std::process::ChildStdout) -> RawReader {
        let (asks, wanted) = mpsc::channel::<()>();
        let (sender, chunks) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buffer = vec![0u8; 1 << 16];
            while wanted.recv().is_ok() {
                let Ok(count) = stdout.read(&mut buffer) else {
                    break;
                };
                if count == 0
                    || sender
                        .send(String::from_utf8_lossy(&buffer[..count]).into_owned())
                        .is_err()
                {
                    break;
                }
            }
        });
        RawReader { asks, chunks }
    }

    /// One read's worth of output (fails after 10 s).
    fn read(&self) -> String {
        self.asks.send(()).expect("the reader thread runs");
        self.chunks
            .recv_timeout(Duration::from_secs(10))
            .expect("damka writes within 10 s")
    }

    /// Reads until a chunk holds a line starting with `prefix`; returns every chunk read.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut chunks = Vec::new();
        loop {
            let chunk = self.read();
            let found = chunk.lines().any(|line| line.starts_with(prefix));
            chunks.push(chunk);
            if found {
                return chunks;
            }
        }
    }
}

/// The last line of a burst (`wait` after the start-up lines, `done` after the `info` lines)
/// must come in a read of its own even from a client that was slow to read the lines before
/// it: py-draughts keeps the rest of a read in a buffer its `select()` does not see, and then
/// waits for ever for a line it already holds (docs/hub.md). The client here sleeps 60 ms
/// before it reads, long enough for every earlier line to be in the pipe.
#[test]
fn last_line_of_a_burst_arrives_alone_for_a_slow_reader() {
    let _turn = serial();
    let mut child = spawn_hub();
    let mut stdin = child.stdin.take().expect("stdin piped");
    let reader = RawReader::new(child.stdout.take().expect("stdout piped"));
    let mut send = |line: &str| {
        writeln!(stdin, "{line}").expect("damka reads stdin");
        stdin.flush().expect("damka reads stdin");
    };
    let slow = Duration::from_millis(60);
    let check = |chunks: &[String], last: &str| {
        let (final_chunk, before) = chunks.split_last().expect("one chunk at least");
        assert!(
            final_chunk.starts_with(last) && final_chunk.lines().count() == 1,
            "'{last}' shares its read with other lines: {chunks:?}"
        );
        assert!(!before.is_empty(), "no lines before '{last}': {chunks:?}");
        assert!(
            before.iter().all(|chunk| chunk.ends_with('\n')),
            "a line split across reads: {chunks:?}"
        );
    };

    // The engine answers `ping` once its command loop runs: the start-up lines then come at
    // once, and all of them would be in the pipe when the slow client reads.
    send("ping");
    assert_eq!(reader.read(), "pong\n");
    send("hub");
    std::thread::sleep(slow);
    let start_up = reader.until("wait");
    check(&start_up, "wait");
    assert!(start_up[0].starts_with("id "), "start-up: {start_up:?}");

    send("init");
    assert_eq!(reader.read(), "ready\n");
    send(&format!("pos pos={START_10X10}"));
    send("level depth=9");
    send("go think");
    std::thread::sleep(slow);
    let search = reader.until("done");
    check(&search, "done");
    assert!(
        search[..search.len() - 1]
            .iter()
            .flat_map(|chunk| chunk.lines())
            .all(|line| line.starts_with("info ")),
        "search output: {search:?}"
    );

    send("quit");
    let _ = child.wait();
}

/// Runs a Python script with a time limit; returns its stdout (fails with its output).
fn run_python(python: &Path, script: &str, args: &[&str], limit: Duration) -> String {
    let mut command = Command::new(python);
    common::without_default_tables(&mut command);
    command
        .arg(repo_root().join("tests/hub").join(script))
        .args(args)
        .env_remove("RUST_LOG")
        .env("PYTHONUNBUFFERED", "1");
    let (run, finished) = common::process::run_limited(&mut command, b"", limit);
    match (finished, run.code) {
        (true, Some(0)) => run.stdout,
        (true, code) => panic!(
            "{script} {args:?} failed (exit code {code:?}):\n{}\n{}",
            run.stderr, run.stdout
        ),
        (false, _) => panic!(
            "{script} {args:?} took more than {limit:?}:\n{}\n{}",
            run.stderr, run.stdout
        ),
    }
}

/// The `summary {json}` line of a client script.
fn summary(output: &str) -> serde_json::Value {
    let line = output
        .lines()
        .find_map(|l| l.strip_prefix("summary "))
        .unwrap_or_else(|| panic!("no summary in:\n{output}"));
    serde_json::from_str(line).expect("summary is JSON")
}

/// pydraughts plays `games` complete games against damka; returns the summary.
fn pydraughts_games(variant: &str, extra: &[&str]) -> serde_json::Value {
    let python = venv_python("pydraughts", "pydraughts==0.6.7");
    let mut args = vec![
        DAMKA,
        "--variant",
        variant,
        "--games",
        "2",
        "--max-plies",
        "120",
    ];
    args.extend_from_slice(extra);
    let output = run_python(
        &python,
        "pydraughts_client.py",
        &args,
        Duration::from_secs(90),
    );
    let summary = summary(&output);
    assert_eq!(summary["games"], 2, "{output}");
    assert!(summary["damka_moves"].as_u64().unwrap() >= 10, "{output}");
    // Liveness: py-draughts' client gives an engine 10 s to start; pydraughts waits on.
    assert!(
        summary["startup"].as_f64().unwrap() < 10.0,
        "start-up took {}",
        summary["startup"]
    );
    summary
}

fn pydraughts_movetime(variant: &str) {
    let _turn = serial();
    let summary = pydraughts_games(variant, &["--movetime", "0.1", "--seed", "3"]);
    // The answer time includes pydraughts' own work (it builds every legal move in Python),
    // so it is a liveness bound, fifty times the move time: how closely damka keeps a move time
    // is checked on raw pipes (`move_time_and_clocks_are_kept`) and measured in
    // docs/bench.md.
    let slowest = summary["max_answer"].as_f64().unwrap();
    assert!(
        slowest < 5.0,
        "{variant}: move-time=0.1 answered in {slowest} s"
    );
}

common::test_cases! {
    pydraughts_plays_international: pydraughts_movetime("standard");
    pydraughts_plays_english: pydraughts_movetime("english");
    pydraughts_plays_russian: pydraughts_movetime("russian");
    pydraughts_plays_brazilian: pydraughts_movetime("brazilian");
    pydraughts_plays_italian: pydraughts_movetime("italian");
}

/// The variants with their own goal: damka must play for it, so against a random mover it
/// wins the two games (in breakthrough by crowning first, in antidraughts by losing all its
/// pieces or being blocked) within the 120 plies.
fn pydraughts_goal(variant: &str) {
    let _turn = serial();
    let summary = pydraughts_games(variant, &["--movetime", "0.1", "--seed", "3"]);
    assert_eq!(
        summary["damka_wins"], 2,
        "{variant}: damka won {} of 2 games against the random mover",
        summary["damka_wins"]
    );
}

common::test_cases! {
    pydraughts_plays_antidraughts: pydraughts_goal("antidraughts");
    pydraughts_plays_breakthrough: pydraughts_goal("breakthrough");
    /// Frisian: the client's legality check holds damka to pydraughts' captures along rows and
    /// columns, its value precedence and its limit of three king moves in a row (from the game's
    /// moves, which `pos ... moves=` replays); against the random mover damka wins both games.
    pydraughts_plays_frisian: pydraughts_goal("frisian");
    pydraughts_plays_frysk: pydraughts_goal("frysk");
    /// Turkish: 65-character position strings and pydraughts' move numbering (rows flipped, a1 =
    /// 1). pydraughts' own king moves are wrong (it lets a king slide through men), so the
    /// random mover keeps to the moves of its list that follow the rules (a king move it made
    /// through its own man was refused by damka's `pos`, which then answered for the position
    /// before it); its legality check could still refuse a right king move of damka's, but
    /// against the random mover the games are mostly decided by men. A king that ended its
    /// capture on a square it emptied used to become a man in damka (see
    /// `turkish_king_ending_on_a_square_it_emptied_stays_a_king`).
    pydraughts_plays_turkish: pydraughts_goal("turkish");
}

#[test]
fn pydraughts_clock_never_runs_out() {
    let _turn = serial();
    for variant in ["standard", "english"] {
        let summary = pydraughts_games(variant, &["--clock", "2", "--inc", "0.1", "--seed", "5"]);
        let least = summary["min_clock"].as_f64().unwrap();
        assert!(least > 0.0, "{variant}: clock fell to {least}");
    }
}

#[test]
fn pydraughts_ponders_like_lidraughts_bot() {
    let _turn = serial();
    for variant in ["standard", "russian"] {
        let summary = pydraughts_games(variant, &["--ponder", "--movetime", "0.05", "--seed", "7"]);
        let (hits, misses) = (
            summary["ponder_hits"].as_u64().unwrap(),
            summary["ponder_misses"].as_u64().unwrap(),
        );
        assert!(
            hits > 0 && misses > 0,
            "{variant}: {hits} hits, {misses} misses"
        );
    }
}

#[test]
fn py_draughts_gets_legal_moves_twenty_times_in_a_row() {
    let _turn = serial();
    let python = venv_python("pydraughts2", "py-draughts==1.10.1");
    let output = run_python(
        &python,
        "pydraughts2_client.py",
        &[
            DAMKA,
            "--runs",
            "20",
            "--positions",
            "3",
            "--movetime",
            "0.05",
            "--seed",
            "11",
        ],
        Duration::from_secs(120),
    );
    let summary = summary(&output);
    assert_eq!(summary["runs"], 20, "{output}");
    assert_eq!(summary["moves"], 80, "{output}");
    let startup = summary["max_startup"].as_f64().unwrap();
    assert!(
        startup < 10.0,
        "start-up took {startup} s (py-draughts allows 10)"
    );
}
