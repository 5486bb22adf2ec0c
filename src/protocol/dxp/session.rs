//! One DXP connection: games requested or accepted, moves searched by the engine facade under the game clock, checked and exchanged until the connection ends.
//!
//! One loop owns the engine and waits at once for the peer's next message, the engine's
//! events and a deadline, so a message that arrives while damka thinks (a GAMEEND, a BACKREQ,
//! a broken connection) is acted on at once. The game record is damka's own `Game`: every
//! received move is checked against its legal moves, and the game's end (no legal move, a
//! draw rule, the move limit of the request) is decided by it on damka's turn.

use super::message::{
    AcceptCode, BackCode, EndReason, GameRequest, Message, MoveMessage, find_move, move_message,
    setup_of, start_position,
};
use super::wire::{Frame, Writer, spawn_reader};
use crate::any_game::AnyGame;
use crate::engine::{Engine, Event, Go};
use crate::game::{Game, Outcome};
use crate::notation::fen::write_fen;
use crate::position::Position;
use crate::rules::{Color, International};
use crossbeam_channel::{Receiver, select};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// How long an initiator waits for the answer to its game request.
pub const ACCEPT_WAIT: Duration = Duration::from_secs(30);
/// How long a side that sent the first GAMEEND waits for the peer's GAMEEND.
pub const END_WAIT: Duration = Duration::from_secs(5);

/// How damka plays its games.
#[derive(Clone, Debug)]
pub struct Play {
    /// Our name in GAMEREQ / GAMEACC.
    pub name: String,
    /// A fixed time per move that replaces the game clock, if given.
    pub movetime: Option<Duration>,
    /// The time per move when the request gives no clock (0 minutes).
    pub no_clock_movetime: Duration,
}

/// What an initiator asks for.
#[derive(Clone, Debug)]
pub struct Request {
    /// Our colour in the first game (it alternates after each game).
    pub color: Color,
    /// Minutes of each side for the whole game.
    pub minutes: u32,
    /// Moves of the whole game (0: no limit).
    pub moves: u32,
    /// Games to play on the connection.
    pub games: u32,
    /// The start position of every game.
    pub start: Position<International>,
}

/// The side of the connection.
#[derive(Clone, Debug)]
pub enum Role {
    /// Answers game requests.
    Follower,
    /// Sends game requests.
    Initiator(Request),
}

/// How one game ended, as the caller reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReport {
    /// Our colour.
    pub us: Color,
    /// The peer's name.
    pub opponent: String,
    /// The winner, a draw (`Some(None)`), or unknown (`None`).
    pub result: Option<Option<Color>>,
    /// Why, in words.
    pub reason: String,
    /// Plies played from the start position.
    pub plies: usize,
}

struct Current {
    game: Game<International>,
    us: Color,
    opponent: String,
    moves: u32,
    /// Our time left, when the game has a clock.
    clock: Option<Duration>,
    /// When the side to move started its turn.
    turn_started: Instant,
    /// The id of our running search (its `BestMove` carries it), if one runs.
    searching: Option<u64>,
}

enum Waiting {
    Nothing,
    /// Our GAMEREQ is out.
    Accept(Instant),
    /// We sent the first GAMEEND of a game: its answer is due.
    EndReply(Instant),
}

/// A connection being served.
pub struct Session<'a> {
    engine: &'a mut Engine,
    events: &'a Receiver<Event>,
    play: &'a Play,
    role: Role,
    writer: Writer,
    frames: Receiver<Frame>,
    current: Option<Current>,
    waiting: Waiting,
    games_started: u32,
    /// The peer asked for no further games.
    peer_stopped: bool,
    reports: Vec<GameReport>,
    on_report: &'a mut dyn FnMut(&GameReport),
}

impl<'a> Session<'a> {
    /// Serves `stream` until the connection ends (or, as initiator, until its games are
    /// played); returns the reports of the games played.
    pub fn run(
        stream: TcpStream,
        engine: &'a mut Engine,
        events: &'a Receiver<Event>,
        play: &'a Play,
        role: Role,
        on_report: &'a mut dyn FnMut(&GameReport),
    ) -> Vec<GameReport> {
        let reader = match stream.try_clone() {
            Ok(reader) => reader,
            Err(e) => {
                log::error!("dxp: cannot read the connection: {e}");
                return Vec::new();
            }
        };
        let mut session = Session {
            engine,
            events,
            play,
            role,
            writer: Writer::new(stream),
            frames: spawn_reader(reader),
            current: None,
            waiting: Waiting::Nothing,
            games_started: 0,
            peer_stopped: false,
            reports: Vec::new(),
            on_report,
        };
        session.serve();
        session.abort_search();
        session.writer.shutdown();
        session.reports
    }

    fn serve(&mut self) {
        loop {
            if self.writer.closed() {
                self.lost("the connection broke");
                return;
            }
            if let Role::Initiator(request) = &self.role
                && self.current.is_none()
                && matches!(self.waiting, Waiting::Nothing)
            {
                if self.peer_stopped || self.games_started >= request.games {
                    return;
                }
                self.request_game();
                continue;
            }
            let deadline = match self.waiting {
                Waiting::Nothing => None,
                Waiting::Accept(at) | Waiting::EndReply(at) => Some(at),
            };
            let timer = match deadline {
                Some(at) => crossbeam_channel::at(at),
                None => crossbeam_channel::never(),
            };
            select! {
                recv(self.frames) -> frame => match frame {
                    Ok(Frame::Message(bytes)) => self.message(&bytes),
                    Ok(Frame::Overlong { start, len }) => self.protocol_error(&format!(
                        "a message of {len} characters (at most 127), starting '{}'",
                        String::from_utf8_lossy(&start)
                    )),
                    Err(_) => {
                        self.lost("the peer closed the connection");
                        return;
                    }
                },
                recv(self.events) -> event => {
                    if let Ok(event) = event {
                        self.event(event);
                    }
                }
                recv(timer) -> _ => self.timeout(),
            }
        }
    }

    /// The connection is gone: a game in progress ends without result.
    fn lost(&mut self, why: &str) {
        log::info!("dxp: {why}");
        if self.current.is_some() {
            self.abort_search();
            self.finish(None, why.to_string());
        }
    }

    fn timeout(&mut self) {
        match self.waiting {
            Waiting::Accept(_) => {
                log::warn!(
                    "dxp: no answer to our game request within {} s; closing the connection",
                    ACCEPT_WAIT.as_secs()
                );
                self.peer_stopped = true;
            }
            Waiting::EndReply(_) => {
                log::info!(
                    "dxp: no GAMEEND answer within {} s; going on",
                    END_WAIT.as_secs()
                );
            }
            Waiting::Nothing => {}
        }
        self.waiting = Waiting::Nothing;
    }

    fn send(&mut self, message: Message) {
        self.writer.send(&message);
    }

    /// Stops a running search and drops its events.
    fn abort_search(&mut self) {
        self.engine.finish_search();
        for _ in self.events.try_iter() {}
        if let Some(current) = &mut self.current {
            current.searching = None;
        }
    }

    fn request_game(&mut self) {
        let Role::Initiator(request) = &self.role else {
            return;
        };
        let us = if self.games_started.is_multiple_of(2) {
            request.color
        } else {
            request.color.opponent()
        };
        let start = if request.start == Position::start() {
            super::message::Start::Initial
        } else {
            setup_of(&request.start)
        };
        let message = Message::GameRequest(GameRequest {
            version: 1,
            initiator: self.play.name.clone(),
            follower: us.opponent(),
            minutes: request.minutes,
            moves: request.moves,
            start,
        });
        self.games_started += 1;
        self.send(message);
        self.waiting = Waiting::Accept(Instant::now() + ACCEPT_WAIT);
    }

    fn message(&mut self, bytes: &[u8]) {
        log::debug!("dxp < {}", String::from_utf8_lossy(bytes));
        let message = match Message::parse(bytes) {
            Ok(message) => message,
            Err(e) => {
                self.protocol_error(&format!(
                    "malformed message '{}': {e}",
                    String::from_utf8_lossy(bytes)
                ));
                return;
            }
        };
        match message {
            Message::GameRequest(request) => self.game_request(request),
            Message::GameAccept { name, code } => self.game_accept(name, code),
            Message::Move(mv) => self.peer_move(&mv),
            Message::GameEnd { reason, stop } => self.game_end(reason, stop),
            Message::Chat(text) => log::info!("dxp: chat from the peer: {text}"),
            Message::BackRequest {
                move_number,
                to_move,
            } => self.back_request(move_number, to_move),
            Message::BackAccept(_) => {
                self.protocol_error("a BACKACC, but we asked to take nothing back");
            }
        }
    }

    /// A malformed or out-of-order message: logged, and a game in progress ends.
    fn protocol_error(&mut self, what: &str) {
        log::warn!("dxp: {what}");
        if self.current.is_some() && !matches!(self.waiting, Waiting::EndReply(_)) {
            self.end_game(EndReason::Unknown, None, format!("protocol error: {what}"));
        }
    }

    fn game_request(&mut self, request: GameRequest) {
        if matches!(self.role, Role::Initiator(_)) {
            self.protocol_error("a GAMEREQ, but we are the initiator");
            return;
        }
        if self.current.is_some() {
            log::info!("dxp: a new game request during a game: that game is abandoned");
            self.abort_search();
            self.finish(None, "abandoned for a new game request".into());
        }
        self.waiting = Waiting::Nothing;
        let refuse = |session: &mut Session, code, why: String| {
            log::warn!("dxp: game request refused: {why}");
            let name = session.play.name.clone();
            session.send(Message::GameAccept { name, code });
        };
        if request.version != 1 {
            refuse(
                self,
                AcceptCode::BadVersion,
                format!("protocol version {:02} (damka speaks 01)", request.version),
            );
            return;
        }
        let start = match start_position(&request.start) {
            Ok(start) => start,
            Err(why) => {
                refuse(
                    self,
                    AcceptCode::NotThisGame,
                    format!("bad position: {why}"),
                );
                return;
            }
        };
        let game = Game::new(start);
        if game.outcome().is_some() {
            refuse(
                self,
                AcceptCode::NotThisGame,
                "the game is already over in the start position".into(),
            );
            return;
        }
        let name = self.play.name.clone();
        self.send(Message::GameAccept {
            name,
            code: AcceptCode::Accepted,
        });
        self.start_game(
            game,
            request.follower,
            request.initiator,
            request.minutes,
            request.moves,
        );
    }

    fn game_accept(&mut self, name: String, code: AcceptCode) {
        let Waiting::Accept(_) = self.waiting else {
            self.protocol_error("a GAMEACC, but no game request of ours is open");
            return;
        };
        self.waiting = Waiting::Nothing;
        let Role::Initiator(request) = &self.role else {
            return;
        };
        if code != AcceptCode::Accepted {
            log::warn!("dxp: {name} refused the game ({code:?}); closing the connection");
            self.peer_stopped = true;
            return;
        }
        let us = if self.games_started % 2 == 1 {
            request.color
        } else {
            request.color.opponent()
        };
        let (start, minutes, moves) = (request.start, request.minutes, request.moves);
        self.start_game(Game::new(start), us.opponent(), name, minutes, moves);
    }

    /// A game starts; `follower` is the follower's colour (ours when we follow).
    fn start_game(
        &mut self,
        game: Game<International>,
        follower: Color,
        opponent: String,
        minutes: u32,
        moves: u32,
    ) {
        let us = match self.role {
            Role::Follower => follower,
            Role::Initiator(_) => follower.opponent(),
        };
        if let Err(e) = self.engine.new_game() {
            log::warn!("dxp: {e}");
        }
        log::info!(
            "dxp: a game against {opponent}: damka plays {}, {minutes} min, {} moves, from {}",
            us.name(),
            if moves == 0 {
                "no limit of".to_string()
            } else {
                moves.to_string()
            },
            write_fen(game.start())
        );
        self.current = Some(Current {
            game,
            us,
            opponent,
            moves,
            clock: (minutes > 0).then(|| Duration::from_secs(u64::from(minutes) * 60)),
            turn_started: Instant::now(),
            searching: None,
        });
        self.our_turn();
    }

    /// On our turn: the game's end, or a search.
    fn our_turn(&mut self) {
        let Some(current) = &self.current else {
            return;
        };
        if current.searching.is_some() || current.game.position().side_to_move() != current.us {
            return;
        }
        if let Some(outcome) = current.game.outcome() {
            let (reason, winner) = match outcome {
                Outcome::Win(winner) if winner == current.us => (EndReason::IWin, Some(winner)),
                Outcome::Win(winner) => (EndReason::ILose, Some(winner)),
                Outcome::Draw(_) => (EndReason::Draw, None),
            };
            let text = current
                .game
                .outcome_text()
                .unwrap_or_else(|| outcome.to_string());
            self.end_game(reason, Some(winner), text);
            return;
        }
        let plies = current.game.ply();
        if current.moves > 0 && plies >= 2 * current.moves as usize {
            let moves = current.moves;
            self.end_game(
                EndReason::Unknown,
                None,
                format!("the {moves} moves of the game request were played"),
            );
            return;
        }
        let go = self.limits();
        let current = self.current.as_mut().expect("a game");
        let started = self
            .engine
            .set_position(AnyGame::from(current.game.clone()))
            .map(|()| self.engine.go(go));
        match started {
            Ok(search) => current.searching = Some(search),
            Err(e) => {
                // The engine refuses only while a search of its own still runs; never leave
                // the peer waiting for ever.
                log::error!("dxp: the engine refused the position: {e}");
                self.end_game(EndReason::Unknown, None, format!("engine error: {e}"));
            }
        }
    }

    /// The search limits of our move: the fixed move time, or the game clock with the moves
    /// still to play before the request's move limit.
    fn limits(&self) -> Go {
        let current = self.current.as_ref().expect("a game");
        let mut go = Go::default();
        let (movetime, clock) = match (self.play.movetime, current.clock) {
            (Some(movetime), _) => (Some(movetime), None),
            (None, Some(clock)) => (None, Some(clock)),
            (None, None) => (Some(self.play.no_clock_movetime), None),
        };
        if let Some(movetime) = movetime {
            go.movetime_ms = Some(movetime.as_millis().max(1) as u64);
            return go;
        }
        let left = clock
            .expect("a clock")
            .saturating_sub(current.turn_started.elapsed());
        let ms = left.as_millis() as i64;
        match current.us {
            Color::White => go.wtime_ms = Some(ms),
            Color::Black => go.btime_ms = Some(ms),
        }
        if current.moves > 0 {
            let ours_played = current.game.ply().div_ceil(2) as u32;
            go.movestogo = Some(current.moves.saturating_sub(ours_played).max(1));
        }
        go
    }

    fn event(&mut self, event: Event) {
        let Event::BestMove { search, best, .. } = event else {
            return;
        };
        let Some(current) = &mut self.current else {
            return;
        };
        if current.searching != Some(search) {
            return;
        }
        current.searching = None;
        let elapsed = current.turn_started.elapsed();
        if let Some(clock) = &mut current.clock {
            *clock = clock.saturating_sub(elapsed);
        }
        let position = *current.game.position();
        let mv = best.filter(|mv| position.legal_moves().as_slice().contains(mv));
        let Some(mv) = mv else {
            // The engine has no move only when the game is over, which `our_turn` checks.
            log::error!("dxp: the engine gave no move in {}", write_fen(&position));
            self.end_game(EndReason::ILose, None, "the engine had no move".into());
            return;
        };
        let seconds = elapsed.as_secs_f64().round() as u32;
        current.game.play(mv);
        current.turn_started = Instant::now();
        self.send(Message::Move(move_message(&mv, seconds)));
    }

    fn peer_move(&mut self, message: &MoveMessage) {
        let Some(current) = &mut self.current else {
            log::warn!("dxp: a MOVE outside a game; ignored");
            return;
        };
        if matches!(self.waiting, Waiting::EndReply(_)) {
            log::info!("dxp: a MOVE after our GAMEEND; ignored");
            return;
        }
        if current.game.position().side_to_move() == current.us {
            self.protocol_error("a MOVE while it is damka's turn");
            return;
        }
        let position = *current.game.position();
        match find_move(&position, message) {
            Ok(mv) => {
                current.game.play(mv);
                current.turn_started = Instant::now();
                self.our_turn();
            }
            Err(why) => {
                let text = message_text(message);
                log::warn!(
                    "dxp: illegal move {text} from the peer in {}: {why}",
                    write_fen(&position)
                );
                let winner = Some(current.us);
                self.end_game(
                    EndReason::IWin,
                    Some(winner),
                    format!("illegal move {text}: {why}"),
                );
            }
        }
    }

    fn game_end(&mut self, reason: EndReason, stop: bool) {
        if stop {
            self.peer_stopped = true;
        }
        if let Waiting::EndReply(_) = self.waiting {
            // The answer to ours: the game was finished when we sent it.
            self.waiting = Waiting::Nothing;
            return;
        }
        if self.current.is_none() {
            log::info!("dxp: a GAMEEND outside a game; nothing to end");
            return;
        }
        self.abort_search();
        let current = self.current.as_ref().expect("a game");
        let us = current.us;
        let text = current.game.outcome_text().unwrap_or_default();
        let (result, why) = match current.game.outcome() {
            Some(Outcome::Win(winner)) => (Some(Some(winner)), text),
            Some(Outcome::Draw(_)) => (Some(None), text),
            None => match reason {
                EndReason::ILose => (Some(Some(us)), "the opponent gave up".to_string()),
                EndReason::IWin => (
                    Some(Some(us.opponent())),
                    "the opponent claimed the win".to_string(),
                ),
                EndReason::Draw => (Some(None), "the opponent claimed a draw".to_string()),
                EndReason::Unknown => (None, "the opponent ended the game".to_string()),
            },
        };
        self.send(Message::GameEnd {
            reason: EndReason::Unknown,
            stop: false,
        });
        self.finish(result, why);
    }

    fn back_request(&mut self, move_number: u32, to_move: Color) {
        let Some(current) = &self.current else {
            log::warn!("dxp: a BACKREQ outside a game; refused");
            self.send(Message::BackAccept(BackCode::Refused));
            return;
        };
        // Plies from a start with White to move: move n with White to move is ply 2(n-1).
        let start_offset = usize::from(current.game.start().side_to_move() == Color::Black);
        let absolute =
            (move_number as usize).saturating_sub(1) * 2 + usize::from(to_move == Color::Black);
        let valid = move_number >= 1
            && absolute >= start_offset
            && absolute - start_offset <= current.game.ply();
        if !valid || matches!(self.waiting, Waiting::EndReply(_)) {
            log::warn!(
                "dxp: BACKREQ to move {move_number} ({}) is not in this game; refused",
                to_move.name()
            );
            self.send(Message::BackAccept(BackCode::Refused));
            return;
        }
        self.abort_search();
        let current = self.current.as_mut().expect("a game");
        while current.game.ply() > absolute - start_offset {
            current.game.undo();
        }
        current.turn_started = Instant::now();
        log::info!(
            "dxp: moves taken back to move {move_number}, {} to move",
            to_move.name()
        );
        self.send(Message::BackAccept(BackCode::Accepted));
        self.our_turn();
    }

    /// We end the game on our turn (or after an illegal move): the first GAMEEND, whose
    /// answer we then wait for. `result` is the winner (`Some(None)` a draw) when known.
    fn end_game(&mut self, reason: EndReason, result: Option<Option<Color>>, why: String) {
        self.abort_search();
        self.send(Message::GameEnd {
            reason,
            stop: false,
        });
        self.waiting = Waiting::EndReply(Instant::now() + END_WAIT);
        self.finish(result, why);
    }

    fn finish(&mut self, result: Option<Option<Color>>, reason: String) {
        let Some(current) = self.current.take() else {
            return;
        };
        let report = GameReport {
            us: current.us,
            opponent: current.opponent,
            result,
            reason,
            plies: current.game.ply(),
        };
        log::info!("dxp: game over: {report:?}");
        (self.on_report)(&report);
        self.reports.push(report);
    }
}

fn message_text(message: &MoveMessage) -> String {
    if message.captured.is_empty() {
        format!("{}-{}", message.from, message.to)
    } else {
        let taken: Vec<String> = message.captured.iter().map(u32::to_string).collect();
        format!(
            "{}x{} (taking {})",
            message.from,
            message.to,
            taken.join(" ")
        )
    }
}
