//! Text front ends: they read commands, call the [`Engine`](crate::engine::Engine) facade and
//! print its events. They are the only code that writes to stdout.
//!
//! - [`uci`]: the UCI-style dialect, spoken by `damka` with no subcommand (specified in
//!   `docs/protocol.md`).
//! - [`hub`]: the Hub protocol, spoken by `damka hub` (specified in `docs/hub.md`), and by
//!   `damka` with no subcommand when the client's first command is `hub` ([`run_stdio`]).
//! - [`dxp`]: DamExchange over TCP, spoken by `damka dxp` (specified in `docs/dxp.md`); it
//!   writes to a socket, and to stdout only a line per game.
//!
//! Each reads its input on a thread of its own ([`reader`]).

pub mod driver;
pub mod dxp;
pub mod hub;
mod pipe;
pub mod reader;
pub mod uci;

use std::io::{BufRead, BufReader, Cursor, Read};

/// Runs the protocol the client speaks, on stdin and stdout: the Hub protocol when its first
/// command is `hub`, else the UCI-style dialect.
///
/// Hub GUIs such as GWDGUI start an engine with no argument (or one the user must find and
/// set) and send `hub` first; UCI clients send `uci` or any other command of the dialect. The
/// lines read to decide (blank ones and the first command) are handed to the chosen protocol
/// as its first input, so nothing the client sent is lost.
pub fn run_stdio() -> i32 {
    let mut stdin = BufReader::new(std::io::stdin());
    let mut seen = Vec::new();
    let hub = loop {
        let start = seen.len();
        match stdin.read_until(b'\n', &mut seen) {
            Ok(0) | Err(_) => break false,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&seen[start..]);
        let command = line.trim();
        if !command.is_empty() {
            break command == "hub";
        }
    };
    let input = Cursor::new(seen).chain(stdin);
    if hub {
        hub::run_stdout(input)
    } else {
        uci::run(input, std::io::stdout())
    }
}
