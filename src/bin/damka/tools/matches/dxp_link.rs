//! A DXP engine seen by the match tool: its process (if the tool starts it), the TCP connection, and one game at a time requested and followed move by move.
//!
//! The match tool is the DXP initiator. Each game is requested when the engine is first to
//! move, from the position it must move in (the `B` form of GAMEREQ unless it is the start
//! position), so no opening move has to be replayed against DXP's strict alternation. The
//! other engine's moves are sent as MOVE messages before each of the engine's turns, and its
//! answers are read back and checked by the referee like any other engine's. At the end of a
//! game the engine is told (the last move if it is its turn, then GAMEEND).

use super::reply::{Failure, Reply, STARTUP};
use super::spec::EngineSpec;
use crossbeam_channel::{Receiver, RecvTimeoutError};
use damka::game::Game;
use damka::position::Position;
use damka::protocol::dxp::message::{
    AcceptCode, BackCode, EndReason, GameRequest, Message, Start, find_move, move_message, setup_of,
};
use damka::protocol::dxp::session::END_WAIT;
use damka::protocol::dxp::wire::{Frame, Writer, spawn_reader};
use damka::rules::{Color, International, Rules};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where a DXP engine listens unless `addr=` says otherwise.
pub const DEFAULT_ADDR: &str = "127.0.0.1:27531";

/// How long the engine may take to show the end of a game after its last move reached it.
const LAST_WORD: Duration = Duration::from_secs(10);

/// The game on the connection.
struct LinkGame {
    /// The engine's colour.
    peer: Color,
    /// Plies of the referee's game the engine knows (sent to it or played by it).
    synced: usize,
}

/// A connected DXP engine.
pub struct DxpLink {
    child: Option<Child>,
    writer: Writer,
    frames: Receiver<Frame>,
    game: Option<LinkGame>,
    minutes: u32,
    moves: u32,
}

impl Drop for DxpLink {
    fn drop(&mut self) {
        self.writer.shutdown();
        if let Some(child) = &mut self.child {
            let until = Instant::now() + Duration::from_millis(300);
            while Instant::now() < until {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl DxpLink {
    /// Starts the engine's command (if any) and connects to it, retrying until it listens.
    /// `minutes` is each side's game clock in the requests, `moves` their move count.
    pub fn open(spec: &EngineSpec, minutes: u32, moves: u32) -> Result<DxpLink, String> {
        let mut child = None;
        if !spec.program.is_empty() {
            let mut command = Command::new(&spec.program);
            command
                .args(&spec.args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            if let Some(dir) = &spec.dir {
                command.current_dir(dir);
            }
            child = Some(
                command
                    .spawn()
                    .map_err(|e| format!("cannot start '{}': {e}", spec.program))?,
            );
        }
        let target = spec.addr.as_deref().unwrap_or(DEFAULT_ADDR);
        let addresses: Vec<SocketAddr> = target
            .to_socket_addrs()
            .map_err(|e| format!("addr={target}: {e}"))?
            .collect();
        let deadline = Instant::now() + STARTUP;
        let stream = loop {
            if let Some(process) = &mut child
                && let Ok(Some(status)) = process.try_wait()
            {
                return Err(format!(
                    "it exited ({status}) before accepting a connection"
                ));
            }
            let attempt = addresses.iter().find_map(|address| {
                TcpStream::connect_timeout(address, Duration::from_secs(1)).ok()
            });
            if let Some(stream) = attempt {
                break stream;
            }
            if Instant::now() >= deadline {
                if let Some(process) = &mut child {
                    let _ = process.kill();
                    let _ = process.wait();
                }
                return Err(format!(
                    "nothing accepts connections at {target} after {} s",
                    STARTUP.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let reader = stream.try_clone().map_err(|e| e.to_string())?;
        Ok(DxpLink {
            child,
            writer: Writer::new(stream),
            frames: spawn_reader(reader),
            game: None,
            minutes,
            moves,
        })
    }

    /// True while the connection is usable.
    pub fn is_alive(&self) -> bool {
        !self.writer.closed()
    }

    /// Forgets any game on the connection (a new one is requested at the engine's first turn).
    pub fn new_game(&mut self) {
        self.game = None;
    }

    fn next(&self, deadline: Instant, started: Instant) -> Result<Frame, Failure> {
        match self
            .frames
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(frame) => Ok(frame),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Hung(started.elapsed())),
            Err(RecvTimeoutError::Disconnected) => {
                Err(Failure::Crashed("it closed the connection".into()))
            }
        }
    }

    fn send(&mut self, message: &Message) -> Result<(), Failure> {
        if self.writer.send(message) {
            Ok(())
        } else {
            Err(Failure::Crashed("the connection broke".into()))
        }
    }

    /// Sends the moves of `game` the engine has not seen.
    fn sync<R: Rules>(&mut self, game: &Game<R>) -> Result<(), Failure> {
        let synced = self.game.as_ref().map_or(0, |g| g.synced);
        let moves: Vec<_> = game.moves().skip(synced).copied().collect();
        for mv in moves {
            self.send(&Message::Move(move_message(&mv, 0)))?;
            if let Some(link) = &mut self.game {
                link.synced += 1;
            }
        }
        Ok(())
    }

    /// The position of `game` as international draughts, taken by type (`std::any::Any`), not
    /// through a FEN: `damka match` refuses a DXP engine for any other variant before a game.
    fn international<R: Rules>(position: &Position<R>) -> Position<International> {
        *(position as &dyn std::any::Any)
            .downcast_ref::<Position<International>>()
            .expect("DXP engines play only international games (checked by the match)")
    }

    /// The engine's move in `game` (its turn), within `patience`.
    pub fn think<R: Rules>(
        &mut self,
        game: &Game<R>,
        patience: Duration,
    ) -> Result<Reply, Failure> {
        let started = Instant::now();
        let position = Self::international(game.position());
        if self.game.is_none() {
            self.request(&position, game.ply())?;
        } else {
            self.sync(game)?;
        }
        let started_turn = Instant::now();
        let deadline = started + patience;
        loop {
            let frame = self.next(deadline, started)?;
            let bytes = match frame {
                Frame::Message(bytes) => bytes,
                Frame::Overlong { len, .. } => {
                    return Ok(bad_reply(format!("a message of {len} characters"), started));
                }
            };
            let message = match Message::parse(&bytes) {
                Ok(message) => message,
                Err(e) => {
                    return Ok(bad_reply(
                        format!("malformed '{}': {e}", String::from_utf8_lossy(&bytes)),
                        started,
                    ));
                }
            };
            let text = message.encode();
            match message {
                Message::Move(mv) => {
                    let elapsed = started_turn.elapsed();
                    if let Some(link) = &mut self.game {
                        link.synced += 1;
                    }
                    return Ok(Reply {
                        text,
                        mv: find_move(&position, &mv),
                        score: None,
                        elapsed,
                    });
                }
                Message::GameEnd { reason, .. } => {
                    self.game = None;
                    let _ = self.send(&Message::GameEnd {
                        reason: EndReason::Unknown,
                        stop: false,
                    });
                    let limit = self.moves as usize * 2;
                    return Err(match reason {
                        EndReason::ILose => Failure::Resigned,
                        _ if self.moves > 0 && game.ply() >= limit => {
                            Failure::MoveLimit(self.moves)
                        }
                        other => Failure::EndedGame(format!(
                            "it sent GAMEEND ({other:?}) in a game that is not over"
                        )),
                    });
                }
                Message::Chat(text) => log::info!("dxp engine says: {text}"),
                Message::BackRequest { .. } => {
                    self.send(&Message::BackAccept(BackCode::NotSupported))?;
                }
                other => log::warn!("dxp engine: out-of-order message {other}; ignored"),
            }
        }
    }

    /// Requests a game from `position`, with the engine (the follower) to move.
    fn request(&mut self, position: &Position<International>, ply: usize) -> Result<(), Failure> {
        let peer = position.side_to_move();
        let start = if *position == Position::start() {
            Start::Initial
        } else {
            setup_of(position)
        };
        self.send(&Message::GameRequest(GameRequest {
            version: 1,
            initiator: "damka match".into(),
            follower: peer,
            minutes: self.minutes,
            moves: self.moves,
            start,
        }))?;
        let started = Instant::now();
        let deadline = started + STARTUP;
        loop {
            let frame = self.next(deadline, started)?;
            let Frame::Message(bytes) = frame else {
                continue;
            };
            match Message::parse(&bytes) {
                Ok(Message::GameAccept {
                    code: AcceptCode::Accepted,
                    ..
                }) => break,
                Ok(Message::GameAccept { code, .. }) => {
                    return Err(Failure::Crashed(format!("it refused the game ({code:?})")));
                }
                Ok(other) => log::info!("dxp engine: {other} while waiting for GAMEACC"),
                Err(e) => log::warn!("dxp engine: {e}"),
            }
        }
        self.game = Some(LinkGame { peer, synced: ply });
        Ok(())
    }

    /// The referee ended the game: the engine sees its last move if it is to move and may end
    /// the game itself; otherwise (or if it plays on) it gets a GAMEEND, whose answer is
    /// awaited briefly.
    pub fn game_over<R: Rules>(&mut self, game: &Game<R>) {
        let Some(link) = &self.game else {
            return;
        };
        if !self.is_alive() {
            self.game = None;
            return;
        }
        if game.position().side_to_move() == link.peer && link.synced < game.ply() {
            if self.sync(game).is_err() {
                self.game = None;
                return;
            }
            if self.await_end(LAST_WORD, true) {
                self.game = None;
                return;
            }
        }
        self.game = None;
        if self
            .send(&Message::GameEnd {
                reason: EndReason::Unknown,
                stop: false,
            })
            .is_ok()
        {
            self.await_end(END_WAIT, false);
        }
    }

    /// Waits for the engine's GAMEEND (answering it when `answer`); false when another move
    /// came or nothing did.
    fn await_end(&mut self, wait: Duration, answer: bool) -> bool {
        let deadline = Instant::now() + wait;
        loop {
            let Ok(Frame::Message(bytes)) = self
                .frames
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            else {
                return false;
            };
            match Message::parse(&bytes) {
                Ok(Message::GameEnd { .. }) => {
                    if answer {
                        let _ = self.writer.send(&Message::GameEnd {
                            reason: EndReason::Unknown,
                            stop: false,
                        });
                    }
                    return true;
                }
                Ok(Message::Move(_)) => return false,
                _ => {}
            }
        }
    }
}

fn bad_reply(why: String, started: Instant) -> Reply {
    Reply {
        text: String::new(),
        mv: Err(why),
        score: None,
        elapsed: started.elapsed(),
    }
}
