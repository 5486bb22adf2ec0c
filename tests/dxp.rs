//! `damka dxp` (DamExchange over TCP) against the real pydraughts client, against itself, and against a scripted peer that misbehaves.
//!
//! - pydraughts 0.6.7's `DXPEngine` (the lidraughts bots' DXP client, in a venv made by
//!   `scripts/pyenv.sh`; a missing Python or a failed install fails the test) plays complete
//!   games against `damka dxp --listen` with its random mover: it accepts only moves that
//!   are legal by its own rules, and the game ends when pydraughts sees it over.
//! - Two damka processes, one `--listen` and one `--connect`, play games to their end and
//!   report the same results.
//! - A raw TCP peer sends malformed, out-of-order and illegal messages and drops connections:
//!   the server answers each as docs/dxp.md says, never crashes, and accepts the next
//!   connection.
//!
//! Every wait has a deadline and every child is killed when its test ends.

use crate::common;

use common::peer::Peer;
use common::process::run_damka;
use common::{json_summary, repo_root, serial, venv_python};
use crossbeam_channel::Receiver;
use damka::protocol::reader::spawn_reader;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

/// A `damka dxp --listen` child, its stdout read line by line; killed when dropped.
struct Server {
    peer: Peer,
    address: String,
}

impl Server {
    /// `damka dxp --listen 127.0.0.1:0 ARGS`, once it has said where it listens.
    fn listen(args: &[&str]) -> Server {
        let mut all = vec!["dxp", "--listen", "127.0.0.1:0"];
        all.extend_from_slice(args);
        let mut peer = Peer::start(&all);
        let first = peer.line_before(Instant::now() + 10 * SECOND, "where damka listens");
        let address = first
            .strip_prefix("dxp: listening on ")
            .unwrap_or_else(|| peer.fail(&format!("unexpected first line '{first}'")))
            .to_string();
        Server { peer, address }
    }

    fn port(&self) -> &str {
        self.address.rsplit(':').next().expect("HOST:PORT")
    }

    /// The next `game ...` line the server prints.
    fn game_line(&mut self, timeout: Duration) -> String {
        let line = self
            .peer
            .line_before(Instant::now() + timeout, "a game line");
        assert!(line.starts_with("game "), "unexpected line '{line}'");
        line
    }

    /// Still running, and nothing was written to stderr (logging is off by default).
    fn assert_alive_and_quiet(&mut self) {
        assert!(self.peer.running(), "the server exited");
        let stderr = self.peer.stderr_so_far();
        assert!(
            stderr.is_empty(),
            "damka wrote on stderr without RUST_LOG: {stderr}"
        );
    }
}

/// A scripted DXP peer over a raw socket: its messages as they arrive, without their NUL.
struct RawPeer {
    stream: TcpStream,
    messages: Receiver<String>,
}

impl RawPeer {
    fn connect(address: &str) -> RawPeer {
        let stream = TcpStream::connect(address).expect("connect to damka");
        let mut reader = BufReader::new(stream.try_clone().expect("clone"));
        // Bytes after the last NUL, when the connection ends, are no message.
        let messages = spawn_reader("raw-dxp-peer", move || {
            let mut message = Vec::new();
            match reader.read_until(0, &mut message) {
                Ok(0) | Err(_) => None,
                Ok(_) => {
                    message.pop_if(|byte| *byte == 0)?;
                    Some(String::from_utf8_lossy(&message).into_owned())
                }
            }
        });
        RawPeer { stream, messages }
    }
    fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("send");
    }

    fn send(&mut self, text: &str) {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(0);
        self.send_raw(&bytes);
    }

    fn recv(&self, timeout: Duration) -> String {
        self.messages
            .recv_timeout(timeout)
            .unwrap_or_else(|_| panic!("no DXP message within {timeout:?}"))
    }

    /// Nothing arrives for `quiet`.
    fn silent(&self, quiet: Duration, why: &str) {
        if let Ok(message) = self.messages.recv_timeout(quiet) {
            panic!("{why}: got '{message}'");
        }
    }
}

impl Drop for RawPeer {
    /// Closes the connection at once (the reader thread holds a clone of the socket).
    fn drop(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// A game request: damka (the follower) plays `color` (`W`/`Z`), 0 minutes, no move limit.
fn request(color: char, start: &str) -> String {
    format!("R01{:<32}{color}000000{start}", "test peer")
}

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn pydraughts_dxp_engine_plays_complete_games_against_the_server() {
    let _turn = serial();
    let python = venv_python("pydraughts", "pydraughts==0.6.7");
    let mut server = Server::listen(&["--movetime", "20", "--hash", "16"]);
    let script = repo_root().join("tests/dxp/pydraughts_dxp_client.py");
    let port = server.port().to_string();
    let run = |extra: &[&str]| -> serde_json::Value {
        let output = common::without_default_tables(&mut Command::new(&python))
            .arg(&script)
            .arg(&port)
            .args(extra)
            .output()
            .expect("run the pydraughts DXP client");
        json_summary("pydraughts DXP client", &output)
    };
    // From the start (pydraughts always sends the position, in GAMEREQ's `B` form), damka
    // White, then Black.
    let summary = run(&["--games", "2", "--max-plies", "250"]);
    assert_eq!(summary["games"], 2, "{summary}");
    assert_eq!(summary["engine_names"][0], "damka", "{summary}");
    // Against a random mover damka wins every game, and pydraughts saw each end by its
    // own rules.
    assert_eq!(summary["damka_wins"], 2, "{summary}");
    for (number, colour) in [(1, "white"), (2, "black")] {
        let line = server.game_line(5 * SECOND);
        let expected = if colour == "white" {
            format!("game {number}: damka - DXP Client 2-0")
        } else {
            format!("game {number}: DXP Client - damka 0-2")
        };
        assert!(line.starts_with(&expected), "{line}");
    }
    // From a set-up position with Black to move: the random mover plays Black first, then
    // the game request gives damka White (the side to move at pydraughts' first `play`).
    let fen = "B:W27,28,32,33,34,37,38,39,42,43,44,47,48,49:B3,8,9,12,13,14,16,17,18,19,21,22,23";
    let summary = run(&["--games", "1", "--fen", fen, "--max-plies", "250"]);
    assert_eq!(summary["games"], 1, "{summary}");
    assert_eq!(summary["damka_wins"], 1, "{summary}");
    let line = server.game_line(5 * SECOND);
    assert!(line.starts_with("game 3: "), "{line}");
    server.assert_alive_and_quiet();
}

#[test]
fn two_damka_processes_play_each_other_to_the_end() {
    let _turn = serial();
    let mut server = Server::listen(&["--movetime", "15", "--hash", "16"]);
    let mut args = vec!["dxp", "--connect", &server.address, "--games", "2"];
    args.extend(["--color", "black", "--minutes", "1", "--moves", "0"]);
    args.extend(["--movetime", "15", "--hash", "16"]);
    let client = run_damka(&args, b"", Duration::from_secs(60));
    assert_eq!(client.code, Some(0), "--connect failed: {}", client.stderr);
    let client_lines: Vec<&str> = client.stdout.lines().collect();
    assert_eq!(
        client_lines[0],
        format!("dxp: connected to {}", server.address)
    );
    let games: Vec<&str> = client_lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("game "))
        .collect();
    assert_eq!(games.len(), 2, "{client_lines:?}");
    for (index, line) in games.iter().enumerate() {
        // Both sides report the same game: colours, result and length.
        let server_line = server.game_line(5 * SECOND);
        let result_and_plies = |line: &str| -> (String, String) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let result = words[5].to_string();
            let plies = words[words.len() - 2].to_string();
            (result, plies)
        };
        assert_eq!(
            result_and_plies(line),
            result_and_plies(&server_line),
            "{line} / {server_line}"
        );
        assert!(
            line.starts_with(&format!("game {}: damka - damka ", index + 1)),
            "{line}"
        );
        let (result, _) = result_and_plies(line);
        assert!(
            ["2-0", "1-1", "0-2"].contains(&result.as_str()),
            "not played to the end: {line}"
        );
    }
}

#[test]
fn bad_messages_end_the_game_and_the_server_serves_the_next_connection() {
    let _turn = serial();
    // Without the book: the out-of-order move below must arrive while damka searches.
    let mut server = Server::listen(&["--movetime", "300", "--hash", "16", "--no-book"]);
    let wait = 5 * SECOND;

    // Garbage outside a game is only logged; a too-long message is skipped whole.
    let mut peer = RawPeer::connect(&server.address);
    peer.send("X hello");
    peer.send("M00aa");
    peer.send(&"C".repeat(300));
    peer.send("Chello damka");
    peer.silent(SECOND / 2, "nothing to answer outside a game");
    // Wrong version: code 1; an impossible position: code 2; then a game.
    peer.send(&format!("R02{:<32}W000000A", "test peer"));
    assert_eq!(peer.recv(wait), format!("A{:<32}1", "damka"));
    let crowded = format!("BW{}", "w".repeat(50));
    peer.send(&request('W', &crowded));
    assert_eq!(peer.recv(wait), format!("A{:<32}2", "damka"));
    peer.send(&request('Z', "A"));
    assert_eq!(peer.recv(wait), format!("A{:<32}0", "damka"));
    // damka plays Black: our 32-28, then its answer.
    peer.send("M0000322800");
    let answer = peer.recv(wait);
    assert!(answer.starts_with("M000") && answer.len() == 11, "{answer}");
    // An illegal move (28 cannot go to 12): damka ends the game (reason 3, it wins).
    peer.send("M0000281200");
    assert_eq!(peer.recv(wait), "E30");
    peer.send("E00");
    peer.silent(SECOND / 2, "the answer to its GAMEEND ends the exchange");

    // A new game on the same connection; a malformed move during it ends it (reason 0).
    peer.send(&request('Z', "A"));
    assert_eq!(peer.recv(wait), format!("A{:<32}0", "damka"));
    peer.send("M00003228");
    assert_eq!(peer.recv(wait), "E00");
    peer.send("E00");

    // Out of order: a move while damka thinks (it plays White here) ends the game.
    peer.send(&request('W', "A"));
    assert_eq!(peer.recv(wait), format!("A{:<32}0", "damka"));
    peer.send("M0000191400");
    assert_eq!(peer.recv(wait), "E00");
    peer.send("E00");

    // A take-back: damka (Black) answers 32-28, we take back to move 1 with White to move,
    // then play 31-26 instead and get a fresh answer.
    peer.send(&request('Z', "A"));
    assert_eq!(peer.recv(wait), format!("A{:<32}0", "damka"));
    peer.send("M0000322800");
    let first = peer.recv(wait);
    assert!(first.starts_with('M'), "{first}");
    peer.send("B001W");
    assert_eq!(peer.recv(wait), "K0");
    peer.send("M0000312600");
    let again = peer.recv(wait);
    assert!(again.starts_with('M'), "{again}");
    // A take-back to a move not yet played is refused.
    peer.send("B009W");
    assert_eq!(peer.recv(wait), "K2");
    // The peer ends the game: damka answers with its own GAMEEND.
    peer.send("E10");
    assert_eq!(peer.recv(wait), "E00");

    // A connection dropped in the middle of damka's thinking.
    peer.send(&request('W', "A"));
    assert_eq!(peer.recv(wait), format!("A{:<32}0", "damka"));
    drop(peer);

    // The server accepts the next connection and plays.
    let mut peer = RawPeer::connect(&server.address);
    peer.send(&request('W', "A"));
    assert_eq!(peer.recv(wait), format!("A{:<32}0", "damka"));
    let opening = peer.recv(wait);
    assert!(
        opening.starts_with('M') && opening.ends_with("00"),
        "{opening}"
    );
    // A connection closed by the peer mid-message is as good as closed.
    peer.send_raw(b"M00");
    drop(peer);
    let mut peer = RawPeer::connect(&server.address);
    peer.send(&request('Z', "A"));
    assert_eq!(peer.recv(wait), format!("A{:<32}0", "damka"));
    server.assert_alive_and_quiet();
}
