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
//! - [`Output`] writes every line, flushed, at least [`LINE_GAP`] after the previous one,
//!   and the lines a client waits for (`wait`, `done`, ...) only once it has read the lines
//!   before them (py-draughts reads with `select()` and a buffered `readline()`, and misses
//!   a last line that arrives in the same read as the one before it); the one exception is a
//!   search whose `done` is overdue because the client already sent its next command
//!   (docs/hub.md).
//!
//! Squares: the Hub position string and moves use pydraughts' numbering, which is not PDN on
//! some 8x8 boards (see [`Layout`]); everything is converted at the edges and the engine only
//! ever sees PDN.

use crate::engine::{Engine, Event, Go, Info, MAX_HASH_MB, MAX_THREADS, Score};
use crate::movegen::MoveList;
use crate::notation::fen::{parse_fen, write_fen};
use crate::notation::movetext::{parse_move_in, write_move_full, write_move_in};
use crate::notation::{bit_of_number, number_of_bit};
use crate::position::{Move, Position};
use crate::protocol::driver::{Dialect, Sink, Step, drive};
use crate::protocol::pipe::PipeProbe;
use crate::rules::{Color, Rules, Variant};
use crate::with_variant;
use crate::{Bits, Geometry};
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// The least time between two lines written to the client. py-draughts needs each line to
/// arrive on its own; pydraughts does not care. A workaround for a client, not protocol.
pub const LINE_GAP: Duration = Duration::from_millis(5);

/// How long the last line of a burst (`wait`, `done`) waits for the client to read the lines
/// before it when stdout is a pipe ([`PipeProbe`]): a client that reads keeps it far shorter.
pub const DRAIN_LIMIT: Duration = Duration::from_millis(200);

/// How the Hub numbering of a variant differs from PDN (as pydraughts 0.6.7 numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Position string and moves in PDN numbering, `W`/`w` = PDN White (international,
    /// Italian, and damka's other variants).
    Pdn,
    /// English: the position string is pydraughts' internal board, turned 180 degrees (its
    /// square `n` is PDN square `squares + 1 - n`) with the colours swapped (`W`/`w` = PDN
    /// Black, the side that moves first); moves are PDN.
    Turned,
    /// Russian and Brazilian: the position string is PDN (square 1 = b8, `W` = White), but
    /// moves count from a1 = 1: the rows are flipped (PDN square 29 = a1 is move square 1).
    /// Turkish the same on its 64 squares (square 57 = a1 is move square 1).
    FlippedMoves,
}

/// A variant as the Hub `variant` parameter names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HubVariant {
    /// The name in `set-param name=variant value=NAME`.
    pub name: &'static str,
    /// damka's rules.
    pub variant: Variant,
    /// How its squares are numbered on the wire.
    pub layout: Layout,
}

/// Every variant `damka hub` offers, the default (`normal`, international) first.
pub const HUB_VARIANTS: [HubVariant; 13] = [
    HubVariant {
        name: "normal",
        variant: Variant::International,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "english",
        variant: Variant::English,
        layout: Layout::Turned,
    },
    HubVariant {
        name: "russian",
        variant: Variant::Russian,
        layout: Layout::FlippedMoves,
    },
    HubVariant {
        name: "brazilian",
        variant: Variant::Brazilian,
        layout: Layout::FlippedMoves,
    },
    HubVariant {
        name: "italian",
        variant: Variant::Italian,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "pool",
        variant: Variant::Pool,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "spanish",
        variant: Variant::Spanish,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "czech",
        variant: Variant::Czech,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "antidraughts",
        variant: Variant::Antidraughts,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "breakthrough",
        variant: Variant::Breakthrough,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "frisian",
        variant: Variant::Frisian,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "frysk",
        variant: Variant::Frysk,
        layout: Layout::Pdn,
    },
    HubVariant {
        name: "turkish",
        variant: Variant::Turkish,
        layout: Layout::FlippedMoves,
    },
];

/// The Hub variant named `value` (also `international`, `standard`, `american`...).
pub fn hub_variant(value: &str) -> Option<HubVariant> {
    let lower = value.trim().to_ascii_lowercase();
    let name = match lower.as_str() {
        "international" | "standard" | "fmjd" | "10x10" => "normal",
        "american" | "checkers" => "english",
        "shashki" => "russian",
        // pydraughts' own name for the variant lidraughts calls `frysk`.
        "frysk!" => "frysk",
        other => other,
    };
    HUB_VARIANTS.iter().copied().find(|v| v.name == name)
}

/// Turns an 8x8 board's square number upside down, keeping its place in the row (an
/// involution: PDN b8 = 1 <-> a1 = 29 in pydraughts' Russian/Brazilian move numbering).
fn flip_rows(number: u32, per_row: u32, rows: u32) -> u32 {
    let index = number - 1;
    (rows - 1 - index / per_row) * per_row + index % per_row + 1
}

impl Layout {
    /// The PDN square of the position string's `index`-th square (1-based).
    pub fn pos_square_to_pdn(self, index: u32, squares: u32) -> u32 {
        match self {
            Layout::Turned => squares + 1 - index,
            Layout::Pdn | Layout::FlippedMoves => index,
        }
    }

    /// True when the position string's `W`/`w` is PDN Black.
    pub fn colours_swapped(self) -> bool {
        self == Layout::Turned
    }

    /// The PDN square of a square number in a move (and back: the map is its own inverse).
    pub fn move_square_to_pdn(self, number: u32, squares: u32) -> u32 {
        match self {
            Layout::FlippedMoves if squares == 32 && (1..=32).contains(&number) => {
                flip_rows(number, 4, 8)
            }
            // Turkish: every square plays, eight to a row (pydraughts' notation 0 again).
            Layout::FlippedMoves if squares == 64 && (1..=64).contains(&number) => {
                flip_rows(number, 8, 8)
            }
            _ => number,
        }
    }
}

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

/// A move in Hub text: `from-to`, or `from x to x every captured square`, numbered for `layout`.
fn hub_move_text<R: Rules>(mv: &Move, layout: Layout) -> String {
    let squares = R::Geometry::SQUARES as u32;
    let number = |bit: u8| layout.move_square_to_pdn(number_of_bit::<R>(bit), squares);
    if mv.is_capture() {
        let mut captured: Vec<u32> = Bits(mv.captured).map(|bit| number(bit as u8)).collect();
        captured.sort_unstable();
        let mut parts = vec![number(mv.from), number(mv.to)];
        parts.extend(captured);
        parts
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("x")
    } else {
        format!("{}-{}", number(mv.from), number(mv.to))
    }
}

impl SearchContext {
    /// Engine moves as Hub texts.
    fn convert(&self, moves: &[Move]) -> Vec<String> {
        with_variant!(self.variant, R => {
            moves.iter().map(|mv| hub_move_text::<R>(mv, self.layout)).collect()
        })
    }

    fn info_line(&self, info: &Info) -> String {
        let pv = self.convert(&info.pv).join(" ");
        let seconds = info.time_ms as f64 / 1000.0;
        let mnps = info.nps as f64 / 1_000_000.0;
        format!(
            "info depth={} mean-depth={}.0 score={} nodes={} time={seconds:.3} nps={mnps:.2} pv=\"{}\"",
            info.depth,
            info.depth,
            format_score(info.score),
            info.nodes,
            pv.replace('"', "")
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

/// The search limits of `level`, kept until the next `pos`.
#[derive(Clone, Debug, Default, PartialEq)]
struct Level {
    move_time: Option<f64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    moves: Option<u32>,
    time: Option<f64>,
    inc: Option<f64>,
    infinite: bool,
}

/// Seconds (a real, possibly `1e-05` or negative) to milliseconds, negative clamped to 0.
fn millis(seconds: f64) -> i64 {
    if seconds.is_finite() && seconds > 0.0 {
        (seconds * 1000.0).round().min(i64::MAX as f64 / 2.0) as i64
    } else {
        0
    }
}

impl Level {
    fn read(command: &Command) -> Level {
        let real = |key: &str| command.get(key).and_then(|v| v.trim().parse::<f64>().ok());
        let int = |key: &str| {
            command
                .get(key)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|v| v.is_finite())
                .map(|v| v.max(0.0))
        };
        Level {
            move_time: real("move-time"),
            depth: int("depth").map(|v| v.min(f64::from(u32::MAX)) as u32),
            nodes: int("nodes").map(|v| v as u64),
            moves: int("moves").map(|v| v.min(f64::from(u32::MAX)) as u32),
            time: real("time"),
            inc: real("inc"),
            infinite: command.has("infinite"),
        }
    }

    /// The facade's limits for this level (the clock given to the side to move).
    fn to_go(&self, side: Color) -> Go {
        let mut go = Go {
            depth: self.depth,
            nodes: self.nodes,
            infinite: self.infinite,
            ..Go::default()
        };
        if let Some(seconds) = self.move_time {
            go.movetime_ms = Some(millis(seconds).unsigned_abs());
        } else if let Some(time) = self.time {
            // Hub's `time` excludes the increment the engine adds before this move.
            let inc = self.inc.map_or(0, millis);
            let clock = millis(time).saturating_add(inc);
            let moves = self.moves.filter(|&m| m > 0);
            match side {
                Color::White => {
                    go.wtime_ms = Some(clock);
                    go.winc_ms = Some(inc);
                }
                Color::Black => {
                    go.btime_ms = Some(clock);
                    go.binc_ms = Some(inc);
                }
            }
            go.movestogo = moves;
        }
        go
    }
}

/// The number of playable squares of `R`'s board.
fn squares_of<R: Rules>() -> usize {
    R::Geometry::SQUARES
}

/// Reads the Hub position string and moves into a PDN FEN and engine move texts.
fn read_position<R: Rules>(
    pos: Option<&str>,
    moves: &[&str],
    layout: Layout,
) -> Result<(String, Vec<String>), String> {
    let start = match pos {
        None => Position::<R>::start(),
        Some(text) => parse_fen::<R>(&fen_of_hub_position::<R>(text, layout)?)
            .map_err(|e| format!("bad position '{text}': {e}"))?,
    };
    let mut fen = write_fen(&start);
    let mut texts = Vec::with_capacity(moves.len());
    let mut position = start;
    for text in moves {
        let legal = position.legal_moves();
        let mv = read_hub_move(&position, &legal, text, layout)?;
        match engine_text(&position, &legal, &mv) {
            Some(engine) => texts.push(engine),
            None => {
                // Cannot happen with the current notation; keep going from here.
                let next = position.play(&mv);
                fen = write_fen(&next);
                texts.clear();
                position = next;
                continue;
            }
        }
        position = position.play(&mv);
    }
    Ok((fen, texts))
}

/// A move text that the engine's reader maps back to exactly `mv`.
fn engine_text<R: Rules>(position: &Position<R>, legal: &MoveList, mv: &Move) -> Option<String> {
    [
        write_move_in(position, mv, legal),
        write_move_full(position, mv),
    ]
    .into_iter()
    .find(|text| parse_move_in(position, text, legal).ok() == Some(*mv))
}

/// The PDN FEN of a Hub position string.
fn fen_of_hub_position<R: Rules>(text: &str, layout: Layout) -> Result<String, String> {
    let squares = R::Geometry::SQUARES as u32;
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.len() != squares as usize + 1 {
        return Err(format!(
            "a position of this variant has {} characters, not {}",
            squares + 1,
            chars.len()
        ));
    }
    let (first, second) = if layout.colours_swapped() {
        ('B', 'W')
    } else {
        ('W', 'B')
    };
    let side = match chars[0] {
        'W' | 'w' => first,
        'B' | 'b' => second,
        other => return Err(format!("bad side to move '{other}'")),
    };
    let mut white = Vec::new();
    let mut black = Vec::new();
    for (i, &c) in chars[1..].iter().enumerate() {
        let square = layout.pos_square_to_pdn(i as u32 + 1, squares);
        let (hub_white, king) = match c {
            'w' => (true, false),
            'W' => (true, true),
            'b' => (false, false),
            'B' => (false, true),
            'e' | '.' | '-' => continue,
            other => return Err(format!("bad square character '{other}'")),
        };
        let is_white = hub_white != layout.colours_swapped();
        let entry = format!("{}{square}", if king { "K" } else { "" });
        if is_white {
            white.push(entry);
        } else {
            black.push(entry);
        }
    }
    Ok(format!("{side}:W{}:B{}", white.join(","), black.join(",")))
}

/// Finds the legal move a Hub move names: `from-to`, or `from x to x captured...` (all
/// captured squares, any order); falls back to PDN landing squares (`from x landing x to`).
pub fn read_hub_move<R: Rules>(
    position: &Position<R>,
    legal: &MoveList,
    text: &str,
    layout: Layout,
) -> Result<Move, String> {
    let squares = R::Geometry::SQUARES as u32;
    let bad = || format!("bad move '{text}'");
    let mut bits = Vec::new();
    for part in text.trim().split(['-', 'x', 'X', ':']) {
        let number: u32 = part.trim().parse().map_err(|_| bad())?;
        let pdn = layout.move_square_to_pdn(number, squares);
        bits.push(bit_of_number::<R>(pdn).ok_or_else(bad)?);
    }
    if bits.len() < 2 {
        return Err(bad());
    }
    let (from, to) = (bits[0], bits[1]);
    let captured: u64 = bits[2..].iter().fold(0, |set, &bit| set | (1u64 << bit));
    let matching: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| {
            m.from == from
                && m.to == to
                && (bits.len() == 2
                    || (m.captured == captured && m.capture_count() as usize == bits.len() - 2))
        })
        .collect();
    if let [mv] = matching.as_slice() {
        return Ok(*mv);
    }
    // Not Hub's form: try PDN text (numbers converted to PDN) with the engine's reader.
    let pdn_text = bits
        .iter()
        .map(|&bit| number_of_bit::<R>(bit).to_string())
        .collect::<Vec<_>>()
        .join(if text.contains('-') { "-" } else { "x" });
    parse_move_in(position, &pdn_text, legal)
        .map_err(|e| format!("move '{text}' does not fit the position: {e}"))
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
    /// `pos`, read and checked: the variant it is in, its PDN FEN and the moves after it.
    Pos {
        variant: HubVariant,
        fen: String,
        moves: Vec<String>,
    },
    /// `level`.
    Level(Level),
    /// `go think|ponder|analyze`.
    Go(Command),
}

/// The Hub protocol's side of the [driver](super::driver): its grammar, its numbering of
/// squares and its wording.
struct Hub {
    variant: HubVariant,
    level: Level,
    output: Output,
    /// How the running (or last) search's moves are written.
    search: Option<SearchContext>,
    /// The newest `info` line, held back because it came less than [`LINE_GAP`] after the
    /// one before (the newest replaces it; the last one is written before `done`).
    pending: Option<String>,
}

impl Hub {
    fn start_up(&mut self, engine: &Engine) {
        let version = env!("CARGO_PKG_VERSION");
        self.output.line(&format!(
            "id name=damka version={version} author=\"the damka authors\" country=unknown"
        ));
        let names: Vec<&str> = HUB_VARIANTS.iter().map(|v| v.name).collect();
        self.output.line(&format!(
            "param name=variant value={} type=enum values={}",
            self.variant.name,
            quote(&names.join(" "))
        ));
        let options = engine.options();
        self.output.line(&format!(
            "param name=hash value={} type=int min=1 max={MAX_HASH_MB}",
            options.hash_mb
        ));
        self.output.line(&format!(
            "param name=threads value={} type=int min=1 max={MAX_THREADS}",
            options.threads
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
            "threads" => "Threads",
            // Accepted but not listed at start-up: a string parameter with an empty value is
            // not something every Hub client parses.
            "evalfile" | "eval-file" => "EvalFile",
            // Endgame tables (docs/egtb.md); like EvalFile, accepted but not listed.
            "egtb-path" | "egtbpath" | "egtb" => "EGTBPath",
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
        let read = with_variant!(variant.variant, R => read_position::<R>(pos, &moves, layout));
        match read {
            Ok((fen, moves)) => Step::Change(HubCommand::Pos {
                variant,
                fen,
                moves,
            }),
            Err(message) => Step::Refused(format!("pos: {message}")),
        }
    }

    fn set_position(
        &mut self,
        variant: HubVariant,
        fen: &str,
        moves: &[String],
        engine: &mut Engine,
    ) {
        self.level = Level::default();
        if variant != self.variant {
            if let Err(error) = engine.set_variant(variant.variant) {
                self.refuse(&error.to_string());
                return;
            }
            self.variant = variant;
        }
        let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
        if let Err(error) = engine.set_position(Some(fen), &moves) {
            self.refuse(&error.to_string());
        }
    }

    fn go(&mut self, command: &Command, engine: &mut Engine) {
        let mode = command
            .args
            .first()
            .map(|(key, _)| key.as_str())
            .unwrap_or("think");
        let side = engine.session().side_to_move();
        let go = match mode {
            "ponder" => Go {
                ponder: true,
                ..self.level.to_go(side)
            },
            "analyze" | "analyse" => Go {
                infinite: true,
                ..Go::default()
            },
            _ => self.level.to_go(side),
        };
        self.search = Some(SearchContext {
            variant: self.variant.variant,
            layout: self.variant.layout,
        });
        if let Err(error) = engine.go(go) {
            // Every `go` gets its `done`.
            log::debug!("hub: go refused: {error}");
            self.output.last_line("done");
        }
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
            "level" => Step::Change(HubCommand::Level(Level::read(&command))),
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
            HubCommand::Pos {
                variant,
                fen,
                moves,
            } => {
                self.set_position(variant, &fen, &moves, engine);
                Ok(())
            }
            HubCommand::Level(level) => {
                self.level = level;
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
    run_io(
        std::io::BufReader::new(std::io::stdin()),
        Box::new(std::io::stdout()),
        PipeProbe::stdout(),
    )
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
        level: Level::default(),
        output: Output::new(output, probe),
        search: None,
        pending: None,
    };
    drive(hub, engine, events, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, Italian, Russian};

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
    fn flipped_rows_are_an_involution() {
        for n in 1..=32 {
            let f = flip_rows(n, 4, 8);
            assert_eq!(flip_rows(f, 4, 8), n);
        }
        assert_eq!(flip_rows(29, 4, 8), 1); // a1
        assert_eq!(flip_rows(1, 4, 8), 29); // b8
        assert_eq!(flip_rows(21, 4, 8), 9); // a3
    }

    #[test]
    fn start_strings_read_as_start_positions() {
        let intl = format!("W{}{}{}", "b".repeat(20), "e".repeat(10), "w".repeat(20));
        let fen = fen_of_hub_position::<International>(&intl, Layout::Pdn).unwrap();
        assert_eq!(
            parse_fen::<International>(&fen).unwrap(),
            Position::<International>::start()
        );
        let eight = format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12));
        let fen = fen_of_hub_position::<English>(&eight, Layout::Turned).unwrap();
        assert_eq!(
            parse_fen::<English>(&fen).unwrap(),
            Position::<English>::start()
        );
        let fen = fen_of_hub_position::<Russian>(&eight, Layout::FlippedMoves).unwrap();
        assert_eq!(
            parse_fen::<Russian>(&fen).unwrap(),
            Position::<Russian>::start()
        );
        let fen = fen_of_hub_position::<Italian>(&eight, Layout::Pdn).unwrap();
        assert_eq!(
            parse_fen::<Italian>(&fen).unwrap(),
            Position::<Italian>::start()
        );
        assert!(fen_of_hub_position::<English>(&intl, Layout::Turned).is_err());
    }

    #[test]
    fn hub_moves_read_and_write() {
        let start = Position::<Russian>::start();
        let legal = start.legal_moves();
        // a3-b4 is 9-13 counted from a1.
        let mv = read_hub_move(&start, &legal, "9-13", Layout::FlippedMoves).unwrap();
        assert_eq!(hub_move_text::<Russian>(&mv, Layout::FlippedMoves), "9-13");
        assert_eq!(number_of_bit::<Russian>(mv.from), 21);
        // International: 28x19x23 is from 28 to 19 taking 23.
        let position = parse_fen::<International>("W:W28:B23").unwrap();
        let legal = position.legal_moves();
        let mv = read_hub_move(&position, &legal, "28x19x23", Layout::Pdn).unwrap();
        assert_eq!(hub_move_text::<International>(&mv, Layout::Pdn), "28x19x23");
        assert!(read_hub_move(&position, &legal, "28x19x24", Layout::Pdn).is_err());
        assert!(read_hub_move(&position, &legal, "28-22", Layout::Pdn).is_err());
    }

    #[test]
    fn levels_become_limits() {
        let level = Level::read(&parse_command("level time=-0.5 inc=2").unwrap());
        let go = level.to_go(Color::Black);
        assert_eq!(go.btime_ms, Some(2000));
        assert_eq!(go.binc_ms, Some(2000));
        let level = Level::read(&parse_command("level move-time=1e-05").unwrap());
        assert_eq!(level.to_go(Color::White).movetime_ms, Some(0));
        let level = Level::read(&parse_command("level moves=40 time=59 inc=0").unwrap());
        let go = level.to_go(Color::White);
        assert_eq!((go.wtime_ms, go.movestogo), (Some(59_000), Some(40)));
        assert!(Level::read(&parse_command("level infinite").unwrap()).infinite);
    }
}
