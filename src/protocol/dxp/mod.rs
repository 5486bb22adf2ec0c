//! `damka dxp`: DamExchange (DXP) over TCP, the protocol of 10x10 engine matches; listen for game requests or connect and send them.
//!
//! - [`message`]: the messages and their fixed-width layouts.
//! - [`wire`]: NUL-ended messages over a TCP stream.
//! - [`session`]: one connection's games, played by the [`Engine`] facade.
//!
//! DXP numbers the squares 1-50, so it plays international draughts only. The dialect as
//! damka speaks it, and the quirks of real peers, are in `docs/dxp.md`.

pub mod message;
pub mod session;
pub mod wire;

use crate::engine::{Engine, Event};
use crate::notation::fen::parse_fen;
use crate::rules::{Color, International, Variant};
use crossbeam_channel::Receiver;
use session::{GameReport, Play, Request, Role, Session};
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The DXP port of the specification (and of Scan's and Moby Dam's defaults).
pub const DEFAULT_PORT: u16 = 27531;

/// How long `--connect` keeps trying to reach a server that is not listening yet.
const CONNECT_PATIENCE: Duration = Duration::from_secs(10);

/// What `damka dxp` does with its connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DxpMode {
    /// Wait for connections on `PORT` or `HOST:PORT` (`HOST` 0.0.0.0, every interface, when
    /// only a port is given; port 0 picks a free one) and answer their game requests, one
    /// connection at a time, for ever.
    Listen(String),
    /// Connect to a DXP engine at `HOST:PORT` (retrying for a while when it does not answer)
    /// and request games.
    Connect {
        /// `HOST:PORT`.
        address: String,
        /// damka's colour in the first game (colours alternate after each game).
        color: Color,
        /// Each side's thinking time for the whole game, in minutes (0: no game clock; at
        /// most 999).
        minutes: u32,
        /// The number of moves of the game (0: no limit; at most 999).
        moves: u32,
        /// The games to play before disconnecting (at least 1).
        games: u32,
        /// A PDN FEN to start every game from instead of the start position.
        fen: Option<String>,
    },
}

/// The settings of `damka dxp`: its mode, its move time and name, and the engine options
/// to set (the others keep the engine's defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DxpConfig {
    /// Listen or connect.
    pub mode: DxpMode,
    /// Milliseconds to think a move, whatever the game clock (default: the game clock; 1000
    /// ms when the request has none); at least 1.
    pub movetime: Option<u64>,
    /// Engine options, set in this order before the first connection.
    pub options: Vec<OptionSetting>,
    /// Our name in game requests and acceptances (at most 32 characters are sent).
    pub name: String,
}

/// One engine option of [`DxpConfig`]: an option that is refused is reported under the
/// command-line flag that gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSetting {
    /// The command-line flag, without its dashes (`hash`).
    pub flag: &'static str,
    /// The engine option (`Hash`).
    pub option: &'static str,
    /// Its value.
    pub value: String,
}

/// Runs `damka dxp`; the exit code (2 after a usage error, 1 when the connection cannot be
/// made).
pub fn run(config: DxpConfig) -> i32 {
    match run_checked(config) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("damka dxp: {error}");
            2
        }
    }
}

fn run_checked(config: DxpConfig) -> Result<i32, String> {
    let (mut engine, events) = Engine::new();
    engine
        .set_variant(Variant::International)
        .map_err(|e| e.to_string())?;
    for setting in &config.options {
        engine
            .set_option(setting.option, &setting.value)
            .map_err(|e| format!("--{}: {e}", setting.flag))?;
    }
    if config.movetime == Some(0) {
        return Err("--movetime must be at least 1".into());
    }
    let play = Play {
        name: config.name.clone(),
        movetime: config.movetime.map(Duration::from_millis),
        no_clock_movetime: Duration::from_millis(1000),
    };
    match config.mode {
        DxpMode::Listen(listen) => {
            let address = listen_address(&listen)?;
            let listener = TcpListener::bind(address)
                .map_err(|e| format!("cannot listen on {address}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            say(&format!("dxp: listening on {bound}"));
            serve(listener, &mut engine, &events, &play);
            Ok(0)
        }
        DxpMode::Connect {
            address,
            color,
            minutes,
            moves,
            games,
            fen,
        } => {
            let start = match &fen {
                None => crate::position::Position::start(),
                Some(fen) => parse_fen::<International>(fen).map_err(|e| format!("--fen: {e}"))?,
            };
            if games == 0 {
                return Err("--games must be at least 1".into());
            }
            if minutes > 999 || moves > 999 {
                return Err("--minutes and --moves have three digits in DXP (at most 999)".into());
            }
            let request = Request {
                color,
                minutes,
                moves,
                games,
                start,
            };
            Ok(request_games(
                &address,
                request,
                &mut engine,
                &events,
                &play,
            ))
        }
    }
}

/// Connects to `target` and plays the games of `request`; the exit code (1 when the
/// connection cannot be made).
fn request_games(
    target: &str,
    request: Request,
    engine: &mut Engine,
    events: &Receiver<Event>,
    play: &Play,
) -> i32 {
    let stream = match connect(target) {
        Ok(stream) => stream,
        Err(error) => {
            eprintln!("damka dxp: {error}");
            return 1;
        }
    };
    say(&format!("dxp: connected to {target}"));
    let mut count = 0;
    let mut print = |report: &GameReport| {
        count += 1;
        say(&report_line(count, &play.name, report));
    };
    Session::run(
        stream,
        engine,
        events,
        play,
        Role::Initiator(request),
        &mut print,
    );
    0
}

/// `PORT` or `HOST:PORT` (`[::1]:PORT` for IPv6).
fn listen_address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.trim().parse::<u16>() {
        return Ok(SocketAddr::from(([0, 0, 0, 0], port)));
    }
    text.to_socket_addrs()
        .ok()
        .and_then(|mut addresses| addresses.next())
        .ok_or_else(|| format!("--listen {text}: expected PORT or HOST:PORT"))
}

fn connect(target: &str) -> Result<TcpStream, String> {
    let addresses: Vec<SocketAddr> = target
        .to_socket_addrs()
        .map_err(|e| format!("--connect {target}: {e} (expected HOST:PORT)"))?
        .collect();
    let deadline = Instant::now() + CONNECT_PATIENCE;
    loop {
        let mut last = None;
        for address in &addresses {
            match TcpStream::connect_timeout(address, Duration::from_secs(2)) {
                Ok(stream) => return Ok(stream),
                Err(e) => last = Some(e),
            }
        }
        if Instant::now() >= deadline {
            let why = last.map_or("no address".to_string(), |e| e.to_string());
            return Err(format!(
                "cannot connect to {target} within {} s: {why}",
                CONNECT_PATIENCE.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Serves one connection after another, for ever.
fn serve(listener: TcpListener, engine: &mut Engine, events: &Receiver<Event>, play: &Play) {
    let mut count = 0;
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                log::warn!("dxp: accepting a connection failed: {e}");
                continue;
            }
        };
        let peer = stream
            .peer_addr()
            .map_or("?".to_string(), |a| a.to_string());
        log::info!("dxp: connection from {peer}");
        let mut print = |report: &GameReport| {
            count += 1;
            say(&report_line(count, &play.name, report));
        };
        Session::run(stream, engine, events, play, Role::Follower, &mut print);
        log::info!("dxp: connection from {peer} ended; waiting for the next");
    }
}

/// One line on stdout, flushed.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `game 3: damka - Scan 2.0 2-0 (white wins ..., 84 plies)`.
pub fn report_line(number: usize, name: &str, report: &GameReport) -> String {
    let (white, black) = match report.us {
        Color::White => (name, report.opponent.as_str()),
        Color::Black => (report.opponent.as_str(), name),
    };
    let result = match report.result {
        Some(Some(Color::White)) => "2-0",
        Some(Some(Color::Black)) => "0-2",
        Some(None) => "1-1",
        None => "*",
    };
    format!(
        "game {number}: {white} - {black} {result} ({}, {} plies)",
        report.reason, report.plies
    )
}
