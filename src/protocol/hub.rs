//! The Hub protocol, version 2 (Scan's), as lidraughts bots (pydraughts) and py-draughts speak it.
//!
//! `damka hub` reads one command a line on stdin and answers on stdout; `docs/hub.md`
//! describes the dialect. When commands are carried out, and in which order with a running
//! search, is the [driver](super::driver)'s, shared with the UCI dialect; this module holds
//! what is the Hub protocol's own:
//!
//! - its grammar, and the checks that refuse a bad `pos` or `set-param` before it stops a
//!   search;
//! - the [`Event`]s as `info` and `done` lines, in the Hub numbering of their search;
//! - `Output` writes every line, flushed, at least [`LINE_GAP`] after the previous one,
//!   and the lines a client waits for (`wait`, `done`, ...) only once it has read the lines
//!   before them (py-draughts reads with `select()` and a buffered `readline()`, and misses
//!   a last line that arrives in the same read as the one before it); the one exception is a
//!   search whose `done` is overdue because the client already sent its next command
//!   (docs/hub.md).
//!
//! Squares, position strings and moves are written and read by the Hub codec,
//! [`notation::hub`](crate::notation::hub); a `pos` reaches the engine as a typed game.

use crate::any_game::AnyGame;
use crate::board::Geometry;
use crate::engine::{Engine, Event, Go, Info, MAX_HASH_MB, MAX_THREADS, Score};
use crate::game::Game;
use crate::notation::hub::{
    HUB_VARIANTS, HubVariant, Layout, SCAN_VARIANT_NAMES, hub_move, hub_variant, read_hub_move,
    read_hub_position,
};
use crate::position::{Move, Position};
use crate::protocol::driver::{Dialect, Sink, Step, drive};
use crate::protocol::pipe::PipeProbe;
use crate::rules::{Rules, Variant};
use crate::search::skill::MAX_LEVEL;
use crate::with_variant;
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// The least time between two lines written to the client. py-draughts needs each line to
/// arrive on its own; pydraughts does not care. A workaround for a client, not protocol.
pub const LINE_GAP: Duration = Duration::from_millis(5);

/// How long the last line of a burst (`wait`, `done`) waits for the client to read the lines
/// before it when stdout is a pipe (`PipeProbe`): a client that reads keeps it far shorter.
pub const DRAIN_LIMIT: Duration = Duration::from_millis(200);

/// One command line split into its name and its arguments (`key=value`, `key="a b"`, or a
/// bare `flag` with no value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The first word.
    pub name: String,
    /// The arguments in order.
    pub args: Vec<(String, Option<String>)>,
}

impl Command {
    /// The value of argument `key`, if given with a value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
    }

    /// True when `key` is present, with or without a value.
    pub fn has(&self, key: &str) -> bool {
        self.args.iter().any(|(k, _)| k == key)
    }
}

/// Splits a line into words; a double-quoted stretch (quotes dropped) belongs to its word.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut started = false;
    let mut quoted = false;
    for c in line.chars() {
        if c == '"' {
            quoted = !quoted;
            started = true;
        } else if c.is_whitespace() && !quoted {
            if started {
                words.push(std::mem::take(&mut current));
                started = false;
            }
        } else {
            current.push(c);
            started = true;
        }
    }
    if started {
        words.push(current);
    }
    words
}

/// Parses one line; `None` for a blank line.
pub fn parse_command(line: &str) -> Option<Command> {
    let mut words = words(line).into_iter();
    let name = words.next()?;
    let args = words
        .map(|word| match word.split_once('=') {
            Some((key, value)) => (key.to_string(), Some(value.to_string())),
            None => (word, None),
        })
        .collect();
    Some(Command { name, args })
}

/// Quotes a value when it is empty or holds a space, `=` or `"`.
fn quote(value: &str) -> String {
    if value.is_empty() || value.contains([' ', '=', '"']) {
        format!("\"{}\"", value.replace('"', ""))
    } else {
        value.to_string()
    }
}

/// A score as Hub writes it: men with two decimals; a win in `n` plies is `(10000 - n) / 100`
/// (above 90), a loss its negation.
pub fn format_score(score: Score) -> String {
    let centi = match score {
        Score::Centi(c) => i64::from(c),
        Score::WinIn(n) => 10_000 - i64::from(n.min(999)),
        Score::LossIn(n) => -(10_000 - i64::from(n.min(999))),
    };
    let sign = if centi < 0 { "-" } else { "" };
    let abs = centi.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// Lines to the client, flushed one by one, never closer than [`LINE_GAP`] (but for the lines
/// of a search that a later command has already stopped: no client reads those one by one).
struct Output {
    sink: Sink,
    last: Option<Instant>,
    /// The pipe behind `sink`, when its unread bytes can be counted.
    probe: Option<PipeProbe>,
}

impl Output {
    fn new(sink: Box<dyn Write + Send>, probe: Option<PipeProbe>) -> Output {
        Output {
            sink: Sink::new(sink),
            last: None,
            probe,
        }
    }

    /// When the next line may be written.
    fn next_free(&self) -> Instant {
        self.last.map_or_else(Instant::now, |last| last + LINE_GAP)
    }

    fn line(&mut self, text: &str) {
        self.write(text, Pace::Gap);
    }

    /// Writes the last line of a burst, after which the client waits for more and reads
    /// nothing: if it arrived in one read with the line before, py-draughts would never see
    /// it, so it waits for the pipe to be read empty first.
    fn last_line(&mut self, text: &str) {
        self.write(text, Pace::Drained);
    }

    fn write(&mut self, text: &str, pace: Pace) {
        if pace != Pace::Now
            && let Some(last) = self.last
        {
            let free = last + LINE_GAP;
            let now = Instant::now();
            if free > now {
                std::thread::sleep(free - now);
            }
        }
        if pace == Pace::Drained
            && let Some(probe) = &self.probe
            && !probe.wait_until_read(DRAIN_LIMIT)
        {
            log::debug!("hub: the client left output unread for {DRAIN_LIMIT:?}");
        }
        log::debug!("hub > {text}");
        self.sink.line(text);
        self.last = Some(Instant::now());
    }
}

/// How [`Output`] times a line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pace {
    /// At least [`LINE_GAP`] after the previous line.
    Gap,
    /// As [`Pace::Gap`], and once the client has read the lines before (up to [`DRAIN_LIMIT`]).
    Drained,
    /// At once: the lines of a search a later command has stopped, which no client reads
    /// one by one.
    Now,
}

/// How one search's moves are written: the Hub numbering of its variant.
#[derive(Clone, Copy, Debug)]
struct SearchContext {
    variant: Variant,
    layout: Layout,
}

impl SearchContext {
    /// Engine moves as Hub texts.
    fn convert(&self, moves: &[Move]) -> Vec<String> {
        with_variant!(self.variant, R => {
            moves.iter().map(|mv| hub_move::<R>(mv, self.layout)).collect()
        })
    }

    fn info_line(&self, info: &Info) -> String {
        let pv = self.convert(&info.pv).join(" ");
        let seconds = info.time_ms as f64 / 1000.0;
        let mnps = info.nps as f64 / 1_000_000.0;
        // Always quoted (lidraughts-bot drops the first and last character), with a space
        // before the closing quote when it is one move, and left out when empty:
        // draughtsnet's reader takes a quote as the start of a value with spaces and reads
        // past the end of the line on `pv="31-26"` or `pv=""`, but reads `pv="31-26 "`.
        let pv = pv.replace('"', "");
        let pv = match pv.split(' ').count() {
            _ if pv.is_empty() => String::new(),
            1 => format!(" pv=\"{pv} \""),
            _ => format!(" pv=\"{pv}\""),
        };
        format!(
            "info depth={} mean-depth={}.0 score={} nodes={} time={seconds:.3} nps={mnps:.2}{pv}",
            info.depth,
            info.depth,
            format_score(info.score),
            info.nodes,
        )
    }

    fn done_line(&self, best: Option<Move>, ponder: Option<Move>) -> String {
        let line: Vec<Move> = best.into_iter().chain(ponder).collect();
        match self.convert(&line).as_slice() {
            [] => "done".to_string(),
            [best] => format!("done move={best}"),
            [best, ponder, ..] => format!("done move={best} ponder={ponder}"),
        }
    }
}

/// Seconds (a real, possibly `1e-05` or negative) to milliseconds, negative clamped to 0.
fn millis(seconds: f64) -> i64 {
    if seconds.is_finite() && seconds > 0.0 {
        (seconds * 1000.0).round().min(i64::MAX as f64 / 2.0) as i64
    } else {
        0
    }
}

/// The facade's limits of a `level` command: the one place Hub's level words are read. Its
/// `time` is the clock of the side to move, which is only known at `go`, so both clocks get
/// it (the facade reads the side to move's); it leaves out the increment the engine adds
/// before this move. `handicap=N` plays N strength levels below full strength (`Skill
/// Level` 20 - N, docs/hub.md).
fn read_level(command: &Command) -> Go {
    let real = |key: &str| command.get(key).and_then(|v| v.trim().parse::<f64>().ok());
    let int = |key: &str| {
        command
            .get(key)
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .map(|v| v.max(0.0))
    };
    let mut go = Go {
        depth: int("depth").map(|v| v.min(f64::from(u32::MAX)) as u32),
        nodes: int("nodes").map(|v| v as u64),
        infinite: command.has("infinite"),
        skill_level: int("handicap").map(|v| MAX_LEVEL - v.min(f64::from(MAX_LEVEL)) as u32),
        ..Go::default()
    };
    if let Some(seconds) = real("move-time") {
        go.movetime_ms = Some(millis(seconds).unsigned_abs());
    } else if let Some(time) = real("time") {
        let inc = real("inc").map_or(0, millis);
        let clock = millis(time).saturating_add(inc);
        (go.wtime_ms, go.btime_ms) = (Some(clock), Some(clock));
        (go.winc_ms, go.binc_ms) = (Some(inc), Some(inc));
        go.movestogo = int("moves")
            .map(|v| v.min(f64::from(u32::MAX)) as u32)
            .filter(|&m| m > 0);
    }
    go
}

/// The limits of `level` commands in a row: each names some limits, and those of `newer`
/// replace the same ones of `older` (draughtsnet sends `level nodes=`, `level depth=` and
/// `level move-time=` as separate lines for one search, as Scan 3.1 reads them). A move time
/// and a clock replace each other, `infinite` replaces every limit and a limit ends
/// `infinite`; the handicap stays until `pos`.
fn merge_levels(older: Go, newer: Go) -> Go {
    let skill_level = newer.skill_level.or(older.skill_level);
    if newer.infinite {
        return Go {
            infinite: true,
            skill_level,
            ..Go::default()
        };
    }
    let clock = newer.wtime_ms.is_some();
    let movetime = newer.movetime_ms.is_some();
    let older = if clock || movetime {
        Go {
            movetime_ms: None,
            wtime_ms: None,
            btime_ms: None,
            winc_ms: None,
            binc_ms: None,
            movestogo: None,
            ..older
        }
    } else {
        older
    };
    let limits = clock || movetime || newer.depth.is_some() || newer.nodes.is_some();
    Go {
        depth: newer.depth.or(older.depth),
        nodes: newer.nodes.or(older.nodes),
        movetime_ms: newer.movetime_ms.or(older.movetime_ms),
        wtime_ms: newer.wtime_ms.or(older.wtime_ms),
        btime_ms: newer.btime_ms.or(older.btime_ms),
        winc_ms: newer.winc_ms.or(older.winc_ms),
        binc_ms: newer.binc_ms.or(older.binc_ms),
        movestogo: newer.movestogo.or(older.movestogo),
        infinite: older.infinite && !limits,
        skill_level,
        ..Go::default()
    }
}

/// The number of playable squares of `R`'s board.
fn squares_of<R: Rules>() -> usize {
    R::Geometry::SQUARES
}

/// Reads the Hub position string (the start position when `None`) and the moves played
/// from it into a game.
fn read_position<R: Rules>(
    pos: Option<&str>,
    moves: &[&str],
    layout: Layout,
) -> Result<Game<R>, String> {
    let start = match pos {
        None => Position::<R>::start(),
        Some(text) => read_hub_position::<R>(text, layout)?,
    };
    let mut game = Game::new(start);
    for text in moves {
        let position = *game.position();
        let mv = read_hub_move(&position, &position.legal_moves(), text, layout)?;
        game.play(mv);
    }
    Ok(game)
}

/// A Hub command that [`Hub::read`](Dialect::read) accepted.
enum HubCommand {
    /// `hub`: the start-up lines.
    Hub,
    /// `init`: `ready`.
    Init,
    /// `ping`: `pong`.
    Ping,
    /// `set-param variant`: a new game of this variant.
    Variant(HubVariant),
    /// `set-param` of an engine option (already checked): its UCI name and value.
    EngineOption(&'static str, String),
    /// `new-game`.
    NewGame,
    /// `pos`, read and checked: the variant it is in and the game it sets.
    Pos { variant: HubVariant, game: AnyGame },
    /// `level`, read into the limits of the next searches.
    Level(Go),
    /// `go think|ponder|analyze`.
    Go(Command),
}

/// The Hub protocol's side of the [driver](super::driver): its grammar, its numbering of
/// squares and its wording.
struct Hub {
    variant: HubVariant,
    /// The limits of the last `level` since `pos`.
    level: Go,
    output: Output,
    /// How the running (or last) search's moves are written.
    search: Option<SearchContext>,
    /// The newest `info` line, held back because it came less than [`LINE_GAP`] after the
    /// one before (the newest replaces it; the last one is written before `done`).
    pending: Option<String>,
}

/// The name damka gives in its `id` line: the file name it was started as, without
/// directory or extension (`damka`, unless the user copied or linked it under another name).
///
/// GUIs tell engines apart by this name (GWDGUI also names each engine's parameter file
/// after it), so two copies of damka at different settings in GWDGUI's two engine slots must
/// have different names: a copy named `damka-nobook` is called so.
fn program_name() -> String {
    std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|path| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .filter(|name| !name.trim().is_empty())
        .unwrap_or_else(|| "damka".to_string())
}

impl Hub {
    fn start_up(&mut self, engine: &Engine) {
        let version = env!("CARGO_PKG_VERSION");
        self.output.line(&format!(
            "id name={} version={version} author=\"the damka authors\" country=unknown",
            quote(&program_name())
        ));
        let names: Vec<&str> = HUB_VARIANTS
            .iter()
            .map(|v| v.name)
            .chain(SCAN_VARIANT_NAMES)
            .collect();
        self.output.line(&format!(
            "param name=variant value={} type=enum values={}",
            self.variant.name,
            quote(&names.join(" "))
        ));
        let options = engine.options();
        let int_param = |name: &str, value: i64, min: i64, max: i64| {
            format!("param name={name} value={value} type=int min={min} max={max}")
        };
        self.output
            .line(&int_param("hash", options.hash_mb as i64, 1, MAX_HASH_MB));
        self.output.line(&int_param(
            "threads",
            options.threads as i64,
            1,
            MAX_THREADS,
        ));
        self.output
            .line(&format!("param name=book value={} type=bool", options.book));
        self.output
            .line(&int_param("book-ply", options.book_ply.into(), 0, 1000));
        self.output.line(&int_param(
            "book-margin",
            options.book_margin.into(),
            0,
            1000,
        ));
        self.output.line(&int_param(
            "skill-level",
            options.skill_level.into(),
            0,
            MAX_LEVEL.into(),
        ));
        self.output.last_line("wait");
    }

    /// Reads `set-param`; the value is checked here, before a running search is stopped.
    fn read_param(command: &Command, engine: &Engine) -> Step<HubCommand> {
        let (Some(name), Some(value)) = (command.get("name"), command.get("value")) else {
            return Step::Refused("set-param needs a name and a value".into());
        };
        let option = match name.to_ascii_lowercase().as_str() {
            "variant" => {
                return match hub_variant(value) {
                    Some(variant) => Step::Change(HubCommand::Variant(variant)),
                    None => Step::Refused(format!("unknown variant '{value}'")),
                };
            }
            "hash" => "Hash",
            // Scan's size of the table: 2^N entries of 16 bytes, i.e. 2^(N - 16) MB
            // (draughtsnet sends it from its --memory).
            "tt-size" => {
                let Some(mb) = value
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|bits| (16..=40).contains(bits))
                    .map(|bits| (1i64 << (bits - 16)).min(MAX_HASH_MB))
                else {
                    return Step::Refused(format!("tt-size '{value}' is not 16 to 40"));
                };
                return Step::Change(HubCommand::EngineOption("Hash", mb.to_string()));
            }
            "threads" => "Threads",
            // Accepted but not listed at start-up: a string parameter with an empty value is
            // not something every Hub client parses.
            "evalfile" | "eval-file" => "EvalFile",
            // Endgame tables (docs/egtb.md); like EvalFile, accepted but not listed.
            "egtb-path" | "egtbpath" | "egtb" => "EGTBPath",
            "egtb-cache" | "egtbcache" => "EGTBCache",
            // The opening book under Scan's names (docs/book.md).
            "book" => "Book",
            "book-ply" => "BookPly",
            "book-margin" => "BookMargin",
            "book-file" | "bookfile" => "BookFile",
            "skill-level" => "Skill Level",
            _ => return Step::Refused(format!("unknown parameter '{name}'")),
        };
        match engine.check_option(option, value) {
            Ok(_) => Step::Change(HubCommand::EngineOption(option, value.to_string())),
            Err(error) => Step::Refused(error.to_string()),
        }
    }

    /// Reads `pos` (the position string and the moves) against the variant in force.
    fn read_pos(&self, command: &Command) -> Step<HubCommand> {
        let pos = command.get("pos");
        let mut variant = self.variant;
        if let Some(text) = pos {
            // A 10x10 string while an 8x8 variant is set: the client (py-draughts) never
            // sends `set-param`, and `normal` is the only 10x10 variant. The switch is made
            // only when the position reads: a bad `pos` changes nothing.
            let size = with_variant!(self.variant.variant, R => squares_of::<R>());
            if text.trim().len() == 51 && size != 50 {
                variant = HUB_VARIANTS[0];
            }
        }
        let moves: Vec<&str> = command
            .get("moves")
            .map(|m| m.split_whitespace().collect())
            .unwrap_or_default();
        let layout = variant.layout;
        let read = with_variant!(variant.variant, R => {
            read_position::<R>(pos, &moves, layout).map(AnyGame::from)
        });
        match read {
            Ok(game) => Step::Change(HubCommand::Pos { variant, game }),
            Err(message) => Step::Refused(format!("pos: {message}")),
        }
    }

    /// Sets the game of a `pos`, in its variant (the engine follows a change of variant).
    fn set_position(&mut self, variant: HubVariant, game: AnyGame, engine: &mut Engine) {
        self.level = Go::default();
        match engine.set_position(game) {
            Ok(()) => self.variant = variant,
            Err(error) => self.refuse(&error.to_string()),
        }
    }

    fn go(&mut self, command: &Command, engine: &mut Engine) {
        let mode = command
            .args
            .first()
            .map(|(key, _)| key.as_str())
            .unwrap_or("think");
        let go = match mode {
            "ponder" => Go {
                ponder: true,
                ..self.level.clone()
            },
            "analyze" | "analyse" => Go {
                infinite: true,
                ..Go::default()
            },
            // GWDGUI's Monte Carlo analysis: damka has none, so it searches under the level
            // as `go think` does, never answering from the book (docs/hub.md).
            "mcts" => Go {
                analysis: true,
                ..self.level.clone()
            },
            _ => self.level.clone(),
        };
        self.search = Some(SearchContext {
            variant: self.variant.variant,
            layout: self.variant.layout,
        });
        engine.go(go);
    }
}

impl Dialect for Hub {
    type Command = HubCommand;

    fn read(&mut self, line: &[u8], engine: &Engine) -> Step<HubCommand> {
        let line = String::from_utf8_lossy(line);
        log::debug!("hub < {}", line.trim_end());
        let Some(command) = parse_command(&line) else {
            return Step::Nothing;
        };
        match command.name.as_str() {
            "hub" => Step::Query(HubCommand::Hub),
            "init" => Step::Query(HubCommand::Init),
            "ping" => Step::Query(HubCommand::Ping),
            "set-param" => Hub::read_param(&command, engine),
            "new-game" => Step::Change(HubCommand::NewGame),
            "pos" => self.read_pos(&command),
            "level" => Step::Change(HubCommand::Level(read_level(&command))),
            "go" => Step::Change(HubCommand::Go(command)),
            "ponder-hit" => Step::PonderHit,
            "stop" => Step::Stop,
            "quit" => Step::Quit,
            other => Step::Refused(format!("unknown command '{other}'")),
        }
    }

    fn apply(&mut self, command: HubCommand, engine: &mut Engine) {
        let result = match command {
            HubCommand::Hub => {
                self.start_up(engine);
                Ok(())
            }
            HubCommand::Init => {
                self.output.last_line("ready");
                Ok(())
            }
            HubCommand::Ping => {
                self.output.last_line("pong");
                Ok(())
            }
            HubCommand::Variant(variant) => {
                let result = engine.set_variant(variant.variant);
                if result.is_ok() {
                    self.variant = variant;
                }
                result
            }
            HubCommand::EngineOption(name, value) => engine.set_option(name, &value),
            HubCommand::NewGame => engine.new_game(),
            HubCommand::Pos { variant, game } => {
                self.set_position(variant, game, engine);
                Ok(())
            }
            HubCommand::Level(level) => {
                self.level = merge_levels(std::mem::take(&mut self.level), level);
                Ok(())
            }
            HubCommand::Go(command) => {
                self.go(&command, engine);
                Ok(())
            }
        };
        if let Err(error) = result {
            self.refuse(&error.to_string());
        }
    }

    /// The Hub protocol has no error line (py-draughts raises on one): a refused command is
    /// only logged, and changes nothing.
    fn refuse(&mut self, message: &str) {
        log::debug!("hub: ignored: {message}");
    }

    /// Every event to a line; `info` lines that would come closer than [`LINE_GAP`] are
    /// merged (the newest kept), and the last one goes out before `done`.
    fn event(&mut self, event: Event, _engine: &Engine, superseded: bool) {
        match event {
            Event::Info(info) => {
                if info.multipv != 1 {
                    return;
                }
                let Some(context) = &self.search else { return };
                let line = context.info_line(&info);
                if Instant::now() >= self.output.next_free() && self.pending.is_none() {
                    self.output.line(&line);
                } else {
                    self.pending = Some(line);
                }
            }
            // Hub has no line for it: the `done` that follows carries the move.
            Event::Book { .. } => {}
            Event::BestMove { best, ponder, .. } => {
                // A later command has already been read: the client sent it without waiting
                // for this `done` (py-draughts never does), so it does not read these lines
                // one by one and they need no gap. Without this, a client that fires searches
                // in a burst waits 5 ms per line: 10,000 `go`/`stop` take over a minute.
                let (info_pace, done_pace) = if superseded {
                    (Pace::Now, Pace::Now)
                } else {
                    (Pace::Gap, Pace::Drained)
                };
                if let Some(line) = self.pending.take() {
                    self.output.write(&line, info_pace);
                }
                let line = match &self.search {
                    Some(context) => context.done_line(best, ponder),
                    None => "done".to_string(),
                };
                self.output.write(&line, done_pace);
            }
        }
    }

    fn wake_at(&self) -> Option<Instant> {
        self.pending.as_ref().map(|_| self.output.next_free())
    }

    fn wake(&mut self) {
        if let Some(line) = self.pending.take() {
            self.output.line(&line);
        }
    }

    fn output_closed(&self) -> bool {
        self.output.sink.closed()
    }
}

/// Runs the Hub protocol on stdin and stdout until `quit`, the end of stdin or a closed stdout;
/// returns the process exit code.
pub fn run() -> i32 {
    run_stdout(std::io::BufReader::new(std::io::stdin()))
}

/// Runs the Hub protocol on `input` (stdin, or what is left of it after the lines already
/// read, as [`super::run_stdio`] passes it) and stdout.
pub fn run_stdout(input: impl BufRead + Send + 'static) -> i32 {
    run_io(input, Box::new(std::io::stdout()), PipeProbe::stdout())
}

/// Runs the Hub protocol on any input and output, with a probe of the output pipe's unread
/// bytes when there is one.
fn run_io(
    input: impl BufRead + Send + 'static,
    output: Box<dyn Write + Send>,
    probe: Option<PipeProbe>,
) -> i32 {
    let (mut engine, events) = Engine::new();
    let variant = HUB_VARIANTS[0];
    let _ = engine.set_variant(variant.variant);
    let hub = Hub {
        variant,
        level: Go::default(),
        output: Output::new(output, probe),
        search: None,
        pending: None,
    };
    drive(hub, engine, events, input)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `set-param` line `line` becomes: the option and value, or why it is refused.
    fn param(line: &str) -> Result<(String, String), String> {
        let (engine, _events) = Engine::new();
        match Hub::read_param(&parse_command(line).unwrap(), &engine) {
            Step::Change(HubCommand::EngineOption(name, value)) => Ok((name.to_string(), value)),
            Step::Change(HubCommand::Variant(variant)) => {
                Ok(("variant".to_string(), variant.name.to_string()))
            }
            Step::Refused(why) => Err(why),
            _ => Err("another step".to_string()),
        }
    }

    /// The `pv` field as the clients need it: quoted, a space before the closing quote for
    /// one move (draughtsnet's reader), left out when empty.
    #[test]
    fn a_principal_variation_is_always_quoted_and_never_empty() {
        use crate::rules::International;
        let context = SearchContext {
            variant: Variant::International,
            layout: Layout::Pdn,
        };
        let start = Position::<International>::start();
        let first = start.legal_moves().iter().next().copied().unwrap();
        let reply = start
            .play(&first)
            .legal_moves()
            .iter()
            .next()
            .copied()
            .unwrap();
        let info = |pv: Vec<Move>| Info {
            search: 1,
            depth: 3,
            seldepth: 3,
            multipv: 1,
            score: Score::Centi(5),
            nodes: 100,
            nps: 1000,
            hashfull: 0,
            tbhits: None,
            time_ms: 1,
            pv,
        };
        let text = |mv: &Move| hub_move::<International>(mv, Layout::Pdn);
        let two = context.info_line(&info(vec![first, reply]));
        let expected = format!(" pv=\"{} {}\"", text(&first), text(&reply));
        assert!(two.ends_with(&expected), "{two}");
        let one = context.info_line(&info(vec![first]));
        assert!(
            one.ends_with(&format!(" pv=\"{} \"", text(&first))),
            "{one}"
        );
        let none = context.info_line(&info(Vec::new()));
        assert!(!none.contains("pv="), "{none}");
        assert!(none.ends_with("nps=0.00"), "{none}");
    }

    #[test]
    fn scans_table_size_and_variant_names_are_read() {
        // Scan's tt-size: 2^N entries of 16 bytes.
        let largest = MAX_HASH_MB.to_string();
        for (line, name, value) in [
            ("set-param name=tt-size value=20", "Hash", "16"),
            ("set-param name=tt-size value=24", "Hash", "256"),
            ("set-param name=tt-size value=40", "Hash", largest.as_str()),
            ("set-param name=variant value=bt", "variant", "breakthrough"),
            (
                "set-param name=variant value=losing",
                "variant",
                "antidraughts",
            ),
        ] {
            assert_eq!(param(line), Ok((name.into(), value.into())), "{line}");
        }
        for bad in ["15", "41", "-3", "big", ""] {
            assert!(
                param(&format!("set-param name=tt-size value={bad}")).is_err(),
                "{bad}"
            );
        }
        assert!(param("set-param name=variant value=killer").is_err());
    }

    #[test]
    fn commands_split_with_quotes_and_flags() {
        let c = parse_command("pos pos=Wbbe moves=\"32-28 19-23\" flag").unwrap();
        assert_eq!(c.name, "pos");
        assert_eq!(c.get("pos"), Some("Wbbe"));
        assert_eq!(c.get("moves"), Some("32-28 19-23"));
        assert!(c.has("flag"));
        assert_eq!(c.get("flag"), None);
        let c = parse_command("  id name=x author=\"A B\" empty=\"\"").unwrap();
        assert_eq!(c.get("author"), Some("A B"));
        assert_eq!(c.get("empty"), Some(""));
        assert!(parse_command("   ").is_none());
    }

    #[test]
    fn scores_in_men() {
        assert_eq!(format_score(Score::Centi(25)), "0.25");
        assert_eq!(format_score(Score::Centi(-5)), "-0.05");
        assert_eq!(format_score(Score::Centi(-250)), "-2.50");
        assert_eq!(format_score(Score::WinIn(5)), "99.95");
        assert_eq!(format_score(Score::LossIn(4)), "-99.96");
        assert_eq!(format_score(Score::WinIn(5000)), "90.01");
    }

    #[test]
    fn levels_become_limits() {
        let level = |text: &str| read_level(&parse_command(text).unwrap());
        let go = level("level time=-0.5 inc=2");
        assert_eq!((go.wtime_ms, go.btime_ms), (Some(2000), Some(2000)));
        assert_eq!((go.winc_ms, go.binc_ms), (Some(2000), Some(2000)));
        assert_eq!(level("level move-time=1e-05").movetime_ms, Some(0));
        let go = level("level moves=40 time=59 inc=0");
        assert_eq!((go.wtime_ms, go.movestogo), (Some(59_000), Some(40)));
        let go = level("level move-time=2 time=5 moves=3");
        assert_eq!(
            (go.movetime_ms, go.wtime_ms, go.movestogo),
            (Some(2000), None, None)
        );
        assert!(level("level infinite").infinite);
        assert_eq!(level("level depth=-3 nodes=1e3").depth, Some(0));
        assert_eq!(level("level depth=-3 nodes=1e3").nodes, Some(1000));
    }
}
