//! One engine process driven by the match tool: start-up, options, and one move at a time over UCI, Hub, DXP, or a CheckerBoard library behind `damka cb-engine`.
//!
//! The engine's stdout is read on its own thread into a channel, so every wait has a deadline:
//! an engine that hangs is noticed, killed and restarted for the next game; stderr is
//! discarded (a chatty engine must not block on a pipe nobody reads).

use super::dxp_link::DxpLink;
use super::reply::{Failure, Reply, STARTUP, WIN_SCORE};
use super::spec::{EngineSpec, Proto};
use crate::tools::limit::Limit;
use crossbeam_channel::{Receiver, RecvTimeoutError};
use damka::game::Game;
use damka::notation::fen::write_fen;
use damka::notation::hub::{
    HubVariant, Layout, hub_move, hub_position, hub_variant, read_hub_move,
};
use damka::notation::movetext::parse_move_in;
use damka::position::{Move, Position};
use damka::protocol::hub::parse_command;
use damka::protocol::reader::spawn_line_reader;
use damka::rules::{Rules, Variant};
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// A running child process with its output lines on a channel.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

/// The program that runs an engine and its arguments. A CheckerBoard library (`proto=cb`)
/// runs in `damka cb-engine` (this program), given absolute paths; it works in `dir=` or
/// the library's folder itself.
fn engine_command(spec: &EngineSpec) -> Result<Command, String> {
    if spec.proto != Proto::Cb {
        let mut command = Command::new(&spec.program);
        if let Some(dir) = &spec.dir {
            // Engines such as Scan read their settings and data from the working folder.
            command.current_dir(dir);
        }
        command.args(&spec.args);
        return Ok(command);
    }
    let absolute = |path: &str| std::path::absolute(path).map_err(|e| format!("{path}: {e}"));
    let library = absolute(&spec.program)?;
    if !library.is_file() {
        return Err(format!("no library file '{}'", spec.program));
    }
    let program = std::env::current_exe()
        .map_err(|e| format!("cannot find damka's own program for cb-engine: {e}"))?;
    let mut command = Command::new(program);
    command.arg("cb-engine").arg(library);
    if let Some(dir) = &spec.dir {
        command.arg("--dir").arg(absolute(dir)?);
    }
    Ok(command)
}

impl Process {
    fn spawn(spec: &EngineSpec) -> Result<Process, String> {
        let mut child = engine_command(spec)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{}': {e}", spec.program))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let lines = spawn_line_reader("engine-stdout", BufReader::new(stdout), |bytes| {
            Some(String::from_utf8_lossy(&bytes).trim_end().to_string())
        });
        Ok(Process {
            child,
            stdin,
            lines,
        })
    }

    fn send(&mut self, line: &str) -> Result<(), Failure> {
        log::debug!("> {line}");
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Failure::Crashed(format!("cannot write to it: {e}")))
    }

    /// The next line, waiting until `deadline` at most.
    fn recv(&self, deadline: Instant, started: Instant) -> Result<String, Failure> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                log::debug!("< {line}");
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(Failure::Hung(started.elapsed())),
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Crashed(
                "the engine ended (end of its output)".into(),
            )),
        }
    }
}

/// What one line of an engine's answer to a `go` says, as its protocol reads it.
enum Said {
    /// A score, centi-men from the mover's side.
    Score(i32),
    /// The move, as written (empty: no move).
    Move(String),
    /// A refusal of what we sent: the game cannot go on in step.
    Refused,
    /// An answer that is no move (a CheckerBoard engine's board or CBmove): what it played,
    /// and why that is not a legal move.
    Illegal {
        /// What it played.
        played: String,
        /// Why it is no legal move.
        why: String,
    },
    /// Nothing the match needs.
    Nothing,
}

impl Process {
    /// Sends the `commands` that make the engine think (its stale output dropped first) and
    /// reads the answer within `patience`: `read` says what each line means, `to_move` names
    /// the legal move of the text. The last score before the move goes into the reply.
    fn think(
        &mut self,
        commands: &[String],
        patience: Duration,
        read: impl Fn(&str) -> Said,
        to_move: impl FnOnce(&str) -> Result<Move, String>,
    ) -> Result<Reply, Failure> {
        while self.lines.try_recv().is_ok() {}
        for command in commands {
            self.send(command)?;
        }
        let started = Instant::now();
        let deadline = started + patience;
        let mut score = None;
        loop {
            let line = self.recv(deadline, started)?;
            match read(&line) {
                Said::Score(value) => score = Some(value),
                Said::Move(text) => {
                    let elapsed = started.elapsed();
                    let mv = to_move(&text);
                    return Ok(Reply {
                        text,
                        mv,
                        score,
                        elapsed,
                    });
                }
                Said::Refused => {
                    return Err(Failure::Crashed(format!("it answered '{}'", line.trim())));
                }
                Said::Illegal { played, why } => {
                    return Ok(Reply {
                        text: played,
                        mv: Err(why),
                        score,
                        elapsed: started.elapsed(),
                    });
                }
                Said::Nothing => {}
            }
        }
    }
}

/// The legal move a Hub engine (either dialect) names with `text` in `position`, its squares
/// numbered for `layout`.
fn hub_reply<R: Rules>(position: &Position<R>, text: &str, layout: Layout) -> Result<Move, String> {
    if text.is_empty() {
        Err("no move".to_string())
    } else {
        read_hub_move(position, &position.legal_moves(), text, layout)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let until = Instant::now() + Duration::from_millis(300);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A start-up failure in words; `None` for a hang (the caller names the time limit).
fn startup_failure(failure: Failure) -> Option<String> {
    match failure {
        Failure::Crashed(why) => Some(format!("start-up failed: {why}")),
        Failure::Hung(_) => None,
        other => Some(format!("start-up failed: {other:?}")),
    }
}

impl Process {
    /// One step of a protocol's start-up: sends `lines`, then reads the engine's lines (each
    /// trimmed) until `done` says the answer is complete (`Ok(true)`) or refuses it (`Err`,
    /// the start-up error in words), all before `deadline`. A crash is a start-up error; a
    /// hang is `Err(None)` (the caller names the time limit).
    fn exchange(
        &mut self,
        lines: &[String],
        deadline: Instant,
        mut done: impl FnMut(&str) -> Result<bool, String>,
    ) -> Result<(), Option<String>> {
        for line in lines {
            self.send(line).map_err(startup_failure)?;
        }
        let started = Instant::now();
        loop {
            let line = self.recv(deadline, started).map_err(startup_failure)?;
            if done(line.trim()).map_err(Some)? {
                return Ok(());
            }
        }
    }
}

/// An engine of the match, restarted when it crashed or hung.
pub struct Player {
    /// How it was given on the command line.
    pub spec: EngineSpec,
    /// Its limit per move (its own, or the match's).
    pub limit: Limit,
    variant: Variant,
    hub: Option<HubVariant>,
    process: Option<Process>,
    dxp: Option<DxpLink>,
    /// DXP: the minutes of each game request.
    dxp_minutes: u32,
}

impl Player {
    /// Starts the engine and sets its variant and options; the error is one line.
    pub fn start(spec: &EngineSpec, limit: Limit, variant: Variant) -> Result<Player, String> {
        let mut dxp_minutes = 0;
        let hub = match spec.proto {
            Proto::Uci => None,
            Proto::Cb => {
                if let Limit::Depth(_) | Limit::Nodes(_) = limit {
                    return Err(format!(
                        "a CheckerBoard engine is given a time, not {limit} (use movetime= or \
                         tc=)"
                    ));
                }
                None
            }
            Proto::Dxp => {
                if variant != Variant::International {
                    return Err(format!(
                        "DXP plays international draughts only, not {variant}"
                    ));
                }
                dxp_minutes = limit.dxp_minutes()?;
                None
            }
            Proto::Hub => Some(
                hub_variant(variant.name())
                    .ok_or_else(|| format!("the Hub protocol has no variant {variant}"))?,
            ),
            Proto::Hub1 => {
                if variant != Variant::International {
                    return Err(format!(
                        "the first Hub dialect plays international draughts only, not {variant}"
                    ));
                }
                if limit.hub1_limit(Duration::ZERO).is_none() {
                    return Err("the first Hub dialect has no node limit (use depth=, \
                                movetime= or tc=)"
                        .into());
                }
                Some(hub_variant(variant.name()).expect("Hub knows international"))
            }
        };
        let mut player = Player {
            spec: spec.clone(),
            limit,
            variant,
            hub,
            process: None,
            dxp: None,
            dxp_minutes,
        };
        player.restart()?;
        Ok(player)
    }

    /// True while its process is believed to be running.
    pub fn is_running(&self) -> bool {
        self.process.is_some() || self.dxp.is_some()
    }

    /// Kills the process (it is started again by [`Player::restart`]).
    pub fn kill(&mut self) {
        if let Some(mut process) = self.process.take() {
            let _ = process.child.kill();
        }
        self.dxp = None;
    }

    /// (Re)starts the process and runs the protocol's start-up.
    pub fn restart(&mut self) -> Result<(), String> {
        self.kill();
        if self.spec.proto == Proto::Dxp {
            self.dxp = Some(DxpLink::open(
                &self.spec,
                self.dxp_minutes,
                self.spec.dxp_moves,
            )?);
            return Ok(());
        }
        let mut process = Process::spawn(&self.spec)?;
        let deadline = Instant::now() + STARTUP;
        match self.spec.proto {
            Proto::Uci | Proto::Cb => self.start_uci(&mut process, deadline),
            Proto::Hub => self.start_hub(&mut process, deadline),
            Proto::Hub1 => self.start_hub1(&mut process, deadline),
            Proto::Dxp => unreachable!("DXP engines are connected above"),
        }
        .map_err(|e| {
            e.unwrap_or_else(|| format!("no start-up answer within {} s", STARTUP.as_secs()))
        })?;
        self.process = Some(process);
        Ok(())
    }

    /// UCI: `uci` ... `uciok`, the options checked against the `option` lines, then
    /// `isready`; an `info string error` before `readyok` is a start-up error. A CheckerBoard
    /// engine's options are its `enginecommand` settings, which no list declares: they are
    /// sent unchecked (`damka cb-engine` turns each into `set NAME VALUE`).
    fn start_uci(&self, process: &mut Process, deadline: Instant) -> Result<(), Option<String>> {
        let mut offered: Vec<String> = Vec::new();
        process.exchange(&["uci".to_string()], deadline, |line| {
            if let Some(rest) = line.strip_prefix("option name ") {
                let name = rest.split(" type ").next().unwrap_or(rest).trim();
                offered.push(name.to_string());
            }
            Ok(line == "uciok")
        })?;
        let find = |wanted: &str| {
            offered
                .iter()
                .find(|name| name.eq_ignore_ascii_case(wanted))
        };
        let mut settings = Vec::new();
        if let Some(name) = find("Variant") {
            settings.push(format!("setoption name {name} value {}", self.variant));
        }
        for (option, value) in &self.spec.options {
            let name = match find(option) {
                Some(name) => name.as_str(),
                None if self.spec.proto == Proto::Cb => option.as_str(),
                None => {
                    return Err(Some(format!(
                        "unknown option '{option}' (it offers: {})",
                        offered.join(", ")
                    )));
                }
            };
            settings.push(format!("setoption name {name} value {value}"));
        }
        settings.push("isready".into());
        process.exchange(&settings, deadline, |line| {
            match line.strip_prefix("info string error:") {
                Some(error) => Err(format!("refused its settings: {}", error.trim())),
                None => Ok(line == "readyok"),
            }
        })
    }

    /// Hub: `hub` ... `wait`, the variant and options checked against the `param` lines and
    /// set, then `init` ... `ready`.
    fn start_hub(&self, process: &mut Process, deadline: Instant) -> Result<(), Option<String>> {
        let mut params: Vec<(String, Option<String>)> = Vec::new();
        process.exchange(&["hub".to_string()], deadline, |line| {
            let Some(command) = parse_command(line) else {
                return Ok(false);
            };
            if command.name == "param"
                && let Some(name) = command.get("name")
            {
                params.push((name.to_string(), command.get("values").map(String::from)));
            }
            Ok(command.name == "wait")
        })?;
        let hub = self.hub.expect("a Hub engine has a Hub variant");
        let mut settings = Vec::new();
        match params.iter().find(|(name, _)| name == "variant") {
            Some((_, values)) => {
                let known = values
                    .as_deref()
                    .is_none_or(|values| values.split_whitespace().any(|v| v == hub.name));
                if !known {
                    return Err(Some(format!(
                        "it does not play {} (its variants: {})",
                        self.variant,
                        values.as_deref().unwrap_or("")
                    )));
                }
                settings.push(format!("set-param name=variant value={}", hub.name));
            }
            None if self.variant != Variant::International => {
                return Err(Some(format!(
                    "it has no variant parameter, so it plays international only, not {}",
                    self.variant
                )));
            }
            None => {}
        }
        for (option, value) in &self.spec.options {
            let Some((name, _)) = params.iter().find(|(n, _)| n.eq_ignore_ascii_case(option))
            else {
                let names: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
                return Err(Some(format!(
                    "unknown option '{option}' (it offers: {})",
                    names.join(", ")
                )));
            };
            let value = if value.contains([' ', '=']) || value.is_empty() {
                format!("\"{value}\"")
            } else {
                value.clone()
            };
            settings.push(format!("set-param name={name} value={value}"));
        }
        settings.push("init".into());
        process.exchange(&settings, deadline, |line| Ok(line == "ready"))
    }

    /// The first Hub dialect (Scan 2.0's `scan hub`): `hub` ... `wait`, each option as
    /// `set NAME VALUE`, then `init` ... `ready`. It announces no parameters, so options are
    /// sent unchecked; the engine answers nothing to a name it does not know.
    fn start_hub1(&self, process: &mut Process, deadline: Instant) -> Result<(), Option<String>> {
        process.exchange(&["hub".to_string()], deadline, |line| Ok(line == "wait"))?;
        let mut settings = Vec::new();
        for (option, value) in &self.spec.options {
            if value.split_whitespace().count() != 1 {
                return Err(Some(format!(
                    "option '{option}': the first Hub dialect takes one word as a value, not \
                     '{value}'"
                )));
            }
            settings.push(format!("set {option} {value}"));
        }
        settings.push("init".into());
        process.exchange(&settings, deadline, |line| Ok(line == "ready"))
    }

    /// Tells the engine a new game starts (restarting it first if it is not running).
    pub fn new_game(&mut self) -> Result<(), String> {
        if self.spec.proto == Proto::Dxp {
            if !self.dxp.as_ref().is_some_and(DxpLink::is_alive) {
                self.restart()?;
            }
            self.dxp.as_mut().expect("connected").new_game();
            return Ok(());
        }
        if self.process.is_none() {
            self.restart()?;
        }
        let ok = match self.spec.proto {
            Proto::Uci | Proto::Cb => self.uci_new_game(),
            Proto::Hub => self.process.as_mut().expect("running").send("new-game"),
            Proto::Hub1 => self.process.as_mut().expect("running").send("new"),
            Proto::Dxp => unreachable!("handled above"),
        };
        if ok.is_err() {
            // It died since the last game: one fresh start.
            self.restart()?;
        }
        Ok(())
    }

    fn uci_new_game(&mut self) -> Result<(), Failure> {
        let process = self.process.as_mut().expect("running");
        process.send("ucinewgame")?;
        process.send("isready")?;
        let started = Instant::now();
        let deadline = started + STARTUP;
        while process.recv(deadline, started)?.trim() != "readyok" {}
        Ok(())
    }

    /// Asks for a move in the game's current position. `clocks` are both sides' remaining
    /// times (White, Black) when this engine plays on a clock; the answer must come before
    /// `patience` has passed. On a failure the process is killed (restarted at the next game).
    pub fn think<R: Rules>(
        &mut self,
        game: &Game<R>,
        clocks: [Duration; 2],
        patience: Duration,
    ) -> Result<Reply, Failure> {
        if !self.is_running() {
            return Err(Failure::Crashed("it is not running".into()));
        }
        let result = match &mut self.dxp {
            Some(link) => link.think(game, patience),
            None => self.ask(game, clocks, patience),
        };
        if matches!(result, Err(Failure::Crashed(_) | Failure::Hung(_))) {
            self.kill();
        }
        result
    }

    /// [`Player::think`] for an engine process: the protocol's commands for the game and
    /// the limit, and its reading of the answer.
    fn ask<R: Rules>(
        &mut self,
        game: &Game<R>,
        clocks: [Duration; 2],
        patience: Duration,
    ) -> Result<Reply, Failure> {
        let clock = clocks[game.position().side_to_move().index()];
        let layout = self.hub.map(|hub| hub.layout);
        let (commands, read): (Vec<String>, fn(&str) -> Said) = match (self.spec.proto, layout) {
            (Proto::Uci, _) => (uci_commands(game, self.limit.uci_go(clocks)), read_uci),
            (Proto::Cb, _) => (uci_commands(game, self.limit.uci_go(clocks)), read_cb),
            (Proto::Hub, Some(layout)) => (
                hub_commands(game, layout, self.limit.hub_level(clock)),
                read_hub,
            ),
            (Proto::Hub1, Some(layout)) => {
                let limit = self.limit.hub1_limit(clock).expect("refused at start");
                (hub1_commands(game, layout, limit), read_hub1)
            }
            (Proto::Hub | Proto::Hub1, None) => unreachable!("a Hub engine has a Hub variant"),
            (Proto::Dxp, _) => unreachable!("a DXP engine is asked over its link"),
        };
        let position = game.position();
        let process = self.process.as_mut().expect("running");
        process.think(&commands, patience, read, |text| match layout {
            None => {
                parse_move_in(position, text, &position.legal_moves()).map_err(|e| e.to_string())
            }
            Some(layout) => hub_reply(position, text, layout),
        })
    }

    /// The referee ended the game: a DXP engine is told (the others need nothing).
    pub fn game_over<R: Rules>(&mut self, game: &Game<R>) {
        if let Some(link) = &mut self.dxp {
            link.game_over(game);
        }
    }
}

/// UCI: the game as `position startpos|fen F [moves ...]`, then the limit's `go`.
fn uci_commands<R: Rules>(game: &Game<R>, go: String) -> Vec<String> {
    let mut position_command = if *game.start() == Position::<R>::start() {
        "position startpos".to_string()
    } else {
        format!("position fen {}", write_fen(game.start()))
    };
    let texts = game.move_texts();
    if !texts.is_empty() {
        position_command.push_str(" moves ");
        position_command.push_str(&texts.join(" "));
    }
    vec![position_command, go]
}

/// What a UCI line says: `info ... score cp N|mate N`, or `bestmove M`.
fn read_uci(line: &str) -> Said {
    let mut words = line.split_whitespace();
    match words.next() {
        Some("info") => {
            let words: Vec<&str> = words.collect();
            let at = words.iter().position(|w| *w == "score");
            let value = match at.map(|at| (words.get(at + 1), words.get(at + 2))) {
                Some((Some(&"cp"), Some(value))) => value.parse().ok(),
                Some((Some(&"mate"), Some(value))) => value
                    .parse::<i32>()
                    .ok()
                    .map(|n| if n >= 0 { WIN_SCORE } else { -WIN_SCORE }),
                _ => None,
            };
            value.map_or(Said::Nothing, Said::Score)
        }
        Some("bestmove") => Said::Move(words.next().unwrap_or("").to_string()),
        _ => Said::Nothing,
    }
}

/// What a line of `damka cb-engine` says: UCI's lines, and `info string illegal PLAYED WHY`
/// when the library's answer is no legal move (its `bestmove (none)` follows).
fn read_cb(line: &str) -> Said {
    match line.strip_prefix("info string illegal ") {
        Some(rest) => {
            let (played, why) = rest.split_once(' ').unwrap_or((rest, "no legal move"));
            Said::Illegal {
                played: played.to_string(),
                why: why.to_string(),
            }
        }
        None => read_uci(line),
    }
}

/// Hub v2: the game as `pos pos=P moves="..."`, the limit's `level`, then `go think`.
fn hub_commands<R: Rules>(game: &Game<R>, layout: Layout, level: String) -> Vec<String> {
    let mut pos = format!("pos pos={}", hub_position(game.start(), layout));
    let moves: Vec<String> = game.moves().map(|mv| hub_move::<R>(mv, layout)).collect();
    if !moves.is_empty() {
        pos.push_str(&format!(" moves=\"{}\"", moves.join(" ")));
    }
    vec![pos, level, "go think".into()]
}

/// What a Hub v2 line says: `info score=S` (in men; beyond 90 a win), or `done move=M`.
fn read_hub(line: &str) -> Said {
    let Some(command) = parse_command(line) else {
        return Said::Nothing;
    };
    match command.name.as_str() {
        "info" => match command.get("score").and_then(|s| s.parse::<f64>().ok()) {
            Some(value) => {
                let centi = (value * 100.0).round() as i32;
                Said::Score(if value.abs() > 90.0 {
                    centi.signum() * (WIN_SCORE + centi.abs() - 9000)
                } else {
                    centi
                })
            }
            None => Said::Nothing,
        },
        "done" => Said::Move(command.get("move").unwrap_or("").to_string()),
        _ => Said::Nothing,
    }
}

/// The first Hub dialect: the game's start as `pos` (51 letters, the side to move in
/// lower case), every move since as `move`, so the engine sees the game's history (its
/// repetition rule needs it); the `limit` ([`Limit::hub1_limit`]); then `go`, answered by
/// `move M [PONDER]`.
fn hub1_commands<R: Rules>(game: &Game<R>, layout: Layout, limit: String) -> Vec<String> {
    // Hub v2's position with its side-to-move letter in lower case (only that letter:
    // the squares keep their kings' capitals).
    let mut start = hub_position(game.start(), layout);
    start[..1].make_ascii_lowercase();
    let mut commands = vec![format!("pos {start}")];
    commands.extend(
        game.moves()
            .map(|mv| format!("move {}", hub_move::<R>(mv, layout))),
    );
    commands.push(limit);
    commands.push("go".into());
    commands
}

/// What a line of the first Hub dialect says: its `info` lines carry the score as the
/// second-but-four field, in hundredths of a man (wins beyond 1800); `move M`; an `error`
/// line means it refused what we sent, which counts as a crash: the game cannot go on in
/// step.
fn read_hub1(line: &str) -> Said {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.first() {
        Some(&"info") => match words.get(3).and_then(|s| s.parse::<i32>().ok()) {
            Some(value) => Said::Score(if value.abs() > 1800 {
                value.signum() * WIN_SCORE
            } else {
                value
            }),
            None => Said::Nothing,
        },
        Some(&"error") => Said::Refused,
        Some(&"move") => Said::Move(words.get(1).copied().unwrap_or("").to_string()),
        _ => Said::Nothing,
    }
}
