//! The UCI-style dialect spoken on stdin/stdout by `damka` with no subcommand. The dialect is
//! specified in `docs/protocol.md`; this module implements it.
//!
//! This module holds what is the dialect's own: the grammar, the wording of the answers and
//! the checks that refuse a bad command. When commands are carried out, and in which order
//! with a running search, is the [driver](super::driver)'s, shared with the Hub protocol.
//!
//! Grammar: the `vampirc-uci` crate parses the commands that carry no draughts data (`uci`,
//! `debug`, `isready`, `setoption`, `ucinewgame`, `stop`, `ponderhit`, `quit`) and writes the
//! `id`, `option`, `uciok` and `readyok` lines. `position`, `go`, the conveniences (`d`,
//! `eval`, `perft`) and every line that carries moves are parsed and written here: its grammar
//! knows only chess squares and chess FEN, reads `go depth` into a `u8` (a depth above 255
//! panics) and ignores trailing tokens. `docs/protocol.md` gives the details.

use crate::any_game::AnyGame;
use crate::engine::{Engine, EngineError, Event, Go, Info, OptionKind, OptionSpec, Score};
use crate::notation::setup::{read_game, read_move};
use crate::position::Move;
use crate::protocol::driver::{Dialect, Sink, Step, drive};
use crate::search::skill::MAX_LEVEL;
use std::io::{BufRead, Write};
use vampirc_uci::{Serializable, UciMessage, UciOptionConfig};

/// The engine's name, as `id name` gives it (followed by the version).
pub const NAME: &str = "damka";
/// The `id author` text.
pub const AUTHOR: &str = "the damka authors";
/// The crate version, as `id name` gives it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One command of the dialect, as read from one input line.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `uci`: identify, list the options, `uciok`.
    Uci,
    /// `debug on|off`: accepted for compatibility, no effect.
    Debug(bool),
    /// `isready`: answer `readyok`.
    IsReady,
    /// `setoption name NAME [value VALUE]`.
    SetOption {
        /// The option's name, blanks between its words made single.
        name: String,
        /// The value, if any (a button has none).
        value: Option<String>,
    },
    /// `ucinewgame`: clear the hash, back to the variant's start position.
    UciNewGame,
    /// `position startpos|fen FEN [moves M...]`.
    Position {
        /// The FEN (`None`: the variant's start position).
        fen: Option<String>,
        /// Moves played from there, as text.
        moves: Vec<String>,
    },
    /// `go` with its limits.
    Go {
        /// The limits; their root moves are read from `searchmoves` against the position.
        go: Go,
        /// The `searchmoves`, as text.
        searchmoves: Vec<String>,
    },
    /// `stop`: end the search; its `bestmove` follows.
    Stop,
    /// `ponderhit`: the expected move was played; the ponder search goes on under the clock.
    PonderHit,
    /// `quit`: stop any search, print its `bestmove`, exit.
    Quit,
    /// `d`: the diagram, the variant, the FEN, the legal moves, the outcome and the options.
    Display,
    /// `eval`: the static evaluation of the current position.
    Eval,
    /// `perft N`: leaf counts per root move and in total.
    Perft(u32),
}

/// Every `go` parameter; a `searchmoves` list ends at the next of these.
const GO_KEYWORDS: [&str; 12] = [
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "mate",
];

/// Reads one input line. `Ok(None)` for a blank line (ignored); `Err` carries the message of
/// the `info string error:` line. Keywords are case-insensitive; FENs and moves are passed on
/// as written.
pub fn parse_command(line: &str) -> Result<Option<Command>, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((first, args)) = tokens.split_first() else {
        return Ok(None);
    };
    let keyword = first.to_ascii_lowercase();
    let command = match keyword.as_str() {
        "uci" | "isready" | "ucinewgame" | "stop" | "ponderhit" | "quit" | "debug"
        | "setoption" => {
            let arguments = match keyword.as_str() {
                "debug" => Some(1),
                "setoption" => None,
                _ => Some(0),
            };
            if let Some(count) = arguments
                && let Some(extra) = args.get(count)
            {
                return Err(format!("unexpected '{extra}' after '{keyword}'"));
            }
            by_vampirc(line, &keyword)?
        }
        "position" => parse_position(args)?,
        "go" => {
            let (go, searchmoves) = parse_go(args)?;
            Command::Go { go, searchmoves }
        }
        "d" | "eval" => {
            if let Some(extra) = args.first() {
                return Err(format!("unexpected '{extra}' after '{keyword}'"));
            }
            if keyword == "d" {
                Command::Display
            } else {
                Command::Eval
            }
        }
        "perft" => match args {
            [depth] => Command::Perft(integer("perft", depth, 0, u32::MAX.into())? as u32),
            [] => return Err("perft: the depth is missing (expected 'perft N')".into()),
            [_, extra, ..] => return Err(format!("unexpected '{extra}' after 'perft N'")),
        },
        _ => return Err(format!("unknown command '{first}'")),
    };
    Ok(Some(command))
}

/// The commands `vampirc-uci` models without chess data. Only these keywords reach it (its
/// parser panics on some other lines, such as `info depth 300`).
fn by_vampirc(line: &str, keyword: &str) -> Result<Command, String> {
    let usage = || match keyword {
        "setoption" => "malformed setoption (expected 'setoption name NAME [value VALUE]')".into(),
        "debug" => "malformed debug (expected 'debug on' or 'debug off')".into(),
        _ => format!("malformed '{keyword}'"),
    };
    let (command, expected) = match vampirc_uci::parse_one(line.trim()) {
        UciMessage::Uci => (Command::Uci, "uci"),
        UciMessage::Debug(on) => (Command::Debug(on), "debug"),
        UciMessage::IsReady => (Command::IsReady, "isready"),
        UciMessage::SetOption { name, value } => (
            Command::SetOption {
                name: name.split_whitespace().collect::<Vec<_>>().join(" "),
                value: value.map(|v| v.trim().to_string()),
            },
            "setoption",
        ),
        UciMessage::UciNewGame => (Command::UciNewGame, "ucinewgame"),
        UciMessage::Stop => (Command::Stop, "stop"),
        UciMessage::PonderHit => (Command::PonderHit, "ponderhit"),
        UciMessage::Quit => (Command::Quit, "quit"),
        _ => return Err(usage()),
    };
    if expected == keyword {
        Ok(command)
    } else {
        Err(usage())
    }
}

/// `position startpos|fen FEN [moves M...]`: the FEN is every token up to `moves`, joined by
/// single blanks (a PDN FEN has colons and commas but no blanks).
fn parse_position(args: &[&str]) -> Result<Command, String> {
    const USAGE: &str = "expected 'position startpos|fen FEN [moves M...]'";
    let Some((kind, rest)) = args.split_first() else {
        return Err(format!("position: {USAGE}"));
    };
    let (before, moves) = match rest.iter().position(|t| t.eq_ignore_ascii_case("moves")) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let fen = match kind.to_ascii_lowercase().as_str() {
        "startpos" => {
            if let Some(extra) = before.first() {
                return Err(format!("position: unexpected '{extra}' after 'startpos'"));
            }
            None
        }
        "fen" => {
            if before.is_empty() {
                return Err("position fen: the FEN is missing".into());
            }
            Some(before.join(" "))
        }
        _ => return Err(format!("position: unexpected '{kind}' ({USAGE})")),
    };
    Ok(Command::Position {
        fen,
        moves: moves.iter().map(|m| m.to_string()).collect(),
    })
}

/// An integer argument in `min..=max`, or the error message.
fn integer(what: &str, text: &str, min: i128, max: i128) -> Result<i128, String> {
    text.parse::<i128>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("{what}: expected a whole number from {min} to {max}, got '{text}'"))
}

/// The parameters of `go`, in any order, each at most once: the limits and the
/// `searchmoves` texts.
fn parse_go(args: &[&str]) -> Result<(Go, Vec<String>), String> {
    let is_keyword = |t: &str| GO_KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(t));
    let mut go = Go::default();
    let mut searchmoves = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let key = args[i].to_ascii_lowercase();
        i += 1;
        if !is_keyword(&key) {
            return Err(format!("go: unknown parameter '{}'", args[i - 1]));
        }
        if seen.contains(&key) {
            return Err(format!("go: '{key}' given twice"));
        }
        seen.push(key.clone());
        match key.as_str() {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "mate" => {
                return Err("go mate is not supported (use depth, nodes or a time limit)".into());
            }
            "searchmoves" => {
                let start = i;
                while i < args.len() && !is_keyword(args[i]) {
                    i += 1;
                }
                if i == start {
                    return Err("go searchmoves: no move given".into());
                }
                searchmoves = args[start..i].iter().map(|m| m.to_string()).collect();
            }
            _ => {
                let what = format!("go {key}");
                let Some(text) = args.get(i) else {
                    return Err(format!("{what}: the number is missing"));
                };
                i += 1;
                let signed = |min: i128| integer(&what, text, min, i64::MAX.into());
                match key.as_str() {
                    "depth" => go.depth = Some(integer(&what, text, 1, u32::MAX.into())? as u32),
                    "movestogo" => {
                        go.movestogo = Some(integer(&what, text, 1, u32::MAX.into())? as u32)
                    }
                    "nodes" => go.nodes = Some(integer(&what, text, 1, u64::MAX.into())? as u64),
                    "movetime" => {
                        go.movetime_ms = Some(integer(&what, text, 0, u64::MAX.into())? as u64)
                    }
                    "wtime" => go.wtime_ms = Some(signed(i64::MIN.into())? as i64),
                    "btime" => go.btime_ms = Some(signed(i64::MIN.into())? as i64),
                    "winc" => go.winc_ms = Some(signed(i64::MIN.into())? as i64),
                    "binc" => go.binc_ms = Some(signed(i64::MIN.into())? as i64),
                    _ => unreachable!("every go keyword with a number is listed"),
                }
            }
        }
    }
    Ok((go, searchmoves))
}

/// `cp X` (centi-men) or `mate N` (moves, negative when losing).
pub fn format_score(score: Score) -> String {
    match score {
        Score::Centi(cp) => format!("cp {cp}"),
        Score::WinIn(plies) => format!("mate {}", plies.div_ceil(2)),
        Score::LossIn(plies) => format!("mate {}", -i64::from(plies.div_ceil(2))),
    }
}

/// `info depth D seldepth S multipv K score ... nodes N nps N hashfull H time MS [tbhits T]
/// [pv ...]` (`tbhits` only while endgame tables are loaded), the line's moves written as `pv`.
pub fn format_info(info: &Info, pv: &[String]) -> String {
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} hashfull {} time {}",
        info.depth,
        info.seldepth,
        info.multipv,
        format_score(info.score),
        info.nodes,
        info.nps,
        info.hashfull,
        info.time_ms
    );
    if let Some(hits) = info.tbhits {
        line.push_str(&format!(" tbhits {hits}"));
    }
    if !pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&pv.join(" "));
    }
    line
}

/// `bestmove M [ponder P]`, or `bestmove (none)` when there is no legal move.
pub fn format_bestmove(best: Option<&str>, ponder: Option<&str>) -> String {
    match (best, ponder) {
        (None, _) => "bestmove (none)".to_string(),
        (Some(best), None) => format!("bestmove {best}"),
        (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
    }
}

/// The `option` line of one option, written by `vampirc-uci`.
fn option_line(spec: &OptionSpec) -> String {
    let name = spec.name.to_string();
    let config = match &spec.kind {
        OptionKind::Spin { default, min, max } => UciOptionConfig::Spin {
            name,
            default: Some(*default),
            min: Some(*min),
            max: Some(*max),
        },
        OptionKind::Check { default } => UciOptionConfig::Check {
            name,
            default: Some(*default),
        },
        OptionKind::Combo { default, values } => UciOptionConfig::Combo {
            name,
            default: Some(default.to_string()),
            var: values.iter().map(|v| v.to_string()).collect(),
        },
        OptionKind::Button => UciOptionConfig::Button { name },
        OptionKind::Text { default } => UciOptionConfig::String {
            name,
            default: Some(
                if default.is_empty() {
                    "<empty>"
                } else {
                    default
                }
                .to_string(),
            ),
        },
    };
    UciMessage::Option(config).serialize()
}

/// The answer to `uci`: `id name`, `id author`, one `option` line per option, `uciok`.
pub fn uci_lines() -> Vec<String> {
    let mut lines = vec![
        UciMessage::Id {
            name: Some(format!("{NAME} {VERSION}")),
            author: None,
        }
        .serialize(),
        UciMessage::Id {
            name: None,
            author: Some(AUTHOR.to_string()),
        }
        .serialize(),
    ];
    lines.extend(crate::engine::option_specs().iter().map(option_line));
    lines.push(UciMessage::UciOk.serialize());
    lines
}

/// A command [`Dialect::read`] accepted, as [`Dialect::apply`] carries it out: a
/// `position`'s game and a `go`'s root moves already read against the engine's position.
enum Accepted {
    /// `uci`.
    Uci,
    /// `isready`.
    IsReady,
    /// `d`.
    Display,
    /// `eval`.
    Eval,
    /// `perft N`.
    Perft(u32),
    /// `setoption`, its value checked (empty for a button).
    SetOption { name: String, value: String },
    /// `ucinewgame`.
    UciNewGame,
    /// `position`: the game it sets.
    Position(AnyGame),
    /// `go`: the limits, with the root moves read.
    Go(Go),
}

/// The UCI dialect's side of the [driver](super::driver): reads lines into [`Command`]s and
/// writes answers and events as UCI text.
struct Uci {
    out: Sink,
}

impl Uci {
    fn lines<S: AsRef<str>>(&mut self, lines: &[S]) {
        for line in lines {
            self.out.line(line.as_ref());
        }
    }

    /// `info string TEXT`, on one line whatever the text holds.
    fn info_string(&mut self, text: &str) {
        let text: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.out.line(&format!("info string {text}"));
    }

    fn report(&mut self, result: Result<(), EngineError>) {
        if let Err(error) = result {
            self.refuse(&error.to_string());
        }
    }

    /// Reads a `go`'s `searchmoves` against the position, so that a bad `go` is refused
    /// before it stops a running search.
    fn read_searchmoves(texts: &[String], engine: &Engine) -> Result<Vec<Move>, String> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let game = engine.session().game();
        texts
            .iter()
            .map(|text| read_move(&game, text).map_err(|error| format!("go searchmoves: {error}")))
            .collect()
    }

    fn go(&mut self, go: Go, engine: &mut Engine) {
        if let Some(outcome) = engine.session().outcome() {
            self.info_string(&format!("game over: {outcome}"));
        }
        engine.go(go);
    }

    fn display(&mut self, engine: &Engine) {
        let session = engine.session();
        let mut lines: Vec<String> = session.diagram().lines().map(str::to_string).collect();
        lines.push(format!("Variant: {}", session.variant()));
        lines.push(format!("Fen: {}", session.fen()));
        let legal = session.legal_moves();
        lines.push(if legal.is_empty() {
            "Legal moves: (none)".to_string()
        } else {
            format!("Legal moves: {}", legal.join(" "))
        });
        if let Some(outcome) = session.outcome() {
            lines.push(format!("Outcome: {outcome}"));
        }
        let options = engine.options();
        lines.push(format!(
            "Options: Hash {}; Threads {}; MultiPV {}; Ponder {}; Move Overhead {}; Variant {}",
            options.hash_mb,
            options.threads,
            options.multipv,
            options.ponder,
            options.move_overhead_ms,
            session.variant()
        ));
        if !options.eval_file.is_empty() {
            // Shown only when set, so the line is unchanged for the built-in weights.
            let last = lines.len() - 1;
            lines[last].push_str(&format!("; EvalFile {}", options.eval_file));
        }
        if !options.egtb_path.is_empty() {
            let last = lines.len() - 1;
            lines[last].push_str(&format!("; EGTBPath {}", options.egtb_path));
        }
        let strength = options.strength();
        if strength < f64::from(MAX_LEVEL) {
            let last = lines.len() - 1;
            lines[last].push_str(&format!("; level {strength:.2}"));
        }
        self.lines(&lines);
    }

    fn perft(&mut self, depth: u32, engine: &Engine) {
        let mut lines = Vec::new();
        let total = if depth == 0 {
            1
        } else {
            let mut total = 0;
            for (text, count) in engine.session().divide(depth) {
                total += count;
                lines.push(format!("{text}: {count}"));
            }
            total
        };
        lines.push(format!("Nodes searched: {total}"));
        self.lines(&lines);
    }
}

impl Dialect for Uci {
    type Command = Accepted;

    fn read(&mut self, line: &[u8], engine: &Engine) -> Step<Accepted> {
        let Ok(line) = std::str::from_utf8(line) else {
            return Step::Refused("the line is not UTF-8".into());
        };
        let command = match parse_command(line) {
            Ok(Some(command)) => command,
            Ok(None) => return Step::Nothing,
            Err(message) => return Step::Refused(message),
        };
        match command {
            Command::Stop => Step::Stop,
            Command::PonderHit => Step::PonderHit,
            Command::Quit => Step::Quit,
            Command::Debug(_) => Step::Nothing,
            Command::Uci => Step::Query(Accepted::Uci),
            Command::IsReady => Step::Query(Accepted::IsReady),
            Command::Display => Step::Query(Accepted::Display),
            Command::Eval => Step::Query(Accepted::Eval),
            Command::Perft(depth) => Step::Query(Accepted::Perft(depth)),
            Command::SetOption { name, value } => {
                let value = value.unwrap_or_default();
                match engine.check_option(&name, &value) {
                    Ok(_) => Step::Change(Accepted::SetOption { name, value }),
                    Err(error) => Step::Refused(error.to_string()),
                }
            }
            Command::Position { fen, moves } => {
                match read_game(engine.variant(), fen.as_deref(), &moves) {
                    Ok(game) => Step::Change(Accepted::Position(game)),
                    Err(error) => Step::Refused(error.to_string()),
                }
            }
            Command::Go { go, searchmoves } => match Uci::read_searchmoves(&searchmoves, engine) {
                Ok(searchmoves) => Step::Change(Accepted::Go(Go { searchmoves, ..go })),
                Err(message) => Step::Refused(message),
            },
            Command::UciNewGame => Step::Change(Accepted::UciNewGame),
        }
    }

    fn apply(&mut self, command: Accepted, engine: &mut Engine) {
        match command {
            Accepted::Uci => self.lines(&uci_lines()),
            Accepted::IsReady => self.out.line(&UciMessage::ReadyOk.serialize()),
            Accepted::Display => self.display(engine),
            Accepted::Eval => {
                let line = format!(
                    "Eval: {} cp ({} to move; positive is good for the side to move)",
                    engine.evaluate(),
                    engine.session().side_to_move().name()
                );
                self.out.line(&line);
            }
            Accepted::Perft(depth) => self.perft(depth, engine),
            Accepted::SetOption { name, value } => {
                let result = engine.set_option(&name, &value);
                self.report(result);
            }
            Accepted::UciNewGame => {
                let result = engine.new_game();
                self.report(result);
            }
            Accepted::Position(game) => {
                let result = engine.set_position(game);
                self.report(result);
            }
            Accepted::Go(go) => self.go(go, engine),
        }
    }

    /// The one line a refused command gets.
    fn refuse(&mut self, message: &str) {
        self.info_string(&format!("error: {message}"));
    }

    /// The moves are written from the engine's position, which is the one searched: a
    /// command that changes it stops the search first and its events are written before.
    fn event(&mut self, event: Event, engine: &Engine, _superseded: bool) {
        let session = engine.session();
        match event {
            Event::Info(info) => self
                .out
                .line(&format_info(&info, &session.line_text(&info.pv))),
            Event::Book {
                chosen, offered, ..
            } => {
                let texts = session.line_text(&[chosen]);
                let listed: Vec<String> = offered
                    .iter()
                    .map(|m| format!("{} {}", session.line_text(&[m.mv]).join(""), m.score))
                    .collect();
                self.info_string(&format!(
                    "book move {} from {} book moves: {}",
                    texts.join(""),
                    offered.len(),
                    listed.join(", ")
                ));
            }
            Event::BestMove { best, ponder, .. } => {
                let line: Vec<Move> = best.into_iter().chain(ponder).collect();
                let texts = session.line_text(&line);
                self.out.line(&format_bestmove(
                    texts.first().map(String::as_str),
                    texts.get(1).map(String::as_str),
                ));
            }
        }
    }

    fn output_closed(&self) -> bool {
        self.out.closed()
    }
}

/// Runs the dialect: commands from `input`, answers to `output`, until `quit`, the end of the
/// input or a closed output ([`super::driver`] says in which order things happen). Returns the
/// exit code.
pub fn run<I: BufRead + Send + 'static, O: Write + Send + 'static>(input: I, output: O) -> i32 {
    let (engine, events) = Engine::new();
    let uci = Uci {
        out: Sink::new(Box::new(output)),
    };
    drive(uci, engine, events, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn parse(line: &str) -> Command {
        parse_command(line)
            .unwrap_or_else(|e| panic!("{line:?}: {e}"))
            .unwrap_or_else(|| panic!("{line:?}: blank"))
    }

    fn refused(line: &str) -> String {
        match parse_command(line) {
            Err(message) => message,
            Ok(command) => panic!("{line:?} was accepted as {command:?}"),
        }
    }

    #[test]
    fn simple_commands() {
        assert_eq!(parse_command("").unwrap(), None);
        assert_eq!(parse_command("  \t \r\n").unwrap(), None);
        assert_eq!(parse("uci"), Command::Uci);
        assert_eq!(parse("  isready \r\n"), Command::IsReady);
        assert_eq!(parse("UCINEWGAME"), Command::UciNewGame);
        assert_eq!(parse("stop"), Command::Stop);
        assert_eq!(parse("ponderhit"), Command::PonderHit);
        assert_eq!(parse("quit\n"), Command::Quit);
        assert_eq!(parse("debug on"), Command::Debug(true));
        assert_eq!(parse("debug off"), Command::Debug(false));
        assert_eq!(parse("d"), Command::Display);
        assert_eq!(parse("eval"), Command::Eval);
        assert_eq!(parse("perft 3"), Command::Perft(3));
        for bad in [
            "isready now",
            "uci 1",
            "debug",
            "debug maybe",
            "debug on off",
            "stopp",
            "d 1",
            "perft",
            "perft -1",
            "perft x",
            "perft 1 2",
            "garbage",
            "info depth 300",
            "bestmove 11-15",
        ] {
            assert!(!refused(bad).is_empty());
        }
    }

    #[test]
    fn setoption() {
        assert_eq!(
            parse("setoption name Move   Overhead value 50"),
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("50".into())
            }
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert_eq!(
            parse("SETOPTION NAME Variant VALUE russian"),
            Command::SetOption {
                name: "Variant".into(),
                value: Some("russian".into())
            }
        );
        for bad in ["setoption", "setoption name", "setoption Hash 5"] {
            assert!(refused(bad).contains("setoption"));
        }
    }

    #[test]
    fn position() {
        assert_eq!(
            parse("position startpos"),
            Command::Position {
                fen: None,
                moves: vec![]
            }
        );
        assert_eq!(
            parse("position startpos moves 11-15 22x15 c3:e5"),
            Command::Position {
                fen: None,
                moves: vec!["11-15".into(), "22x15".into(), "c3:e5".into()]
            }
        );
        assert_eq!(
            parse("position fen W:W31-50:B1-20 moves 32-28"),
            Command::Position {
                fen: Some("W:W31-50:B1-20".into()),
                moves: vec!["32-28".into()]
            }
        );
        assert_eq!(
            parse("position fen \"B:W21,K22:B1,2\""),
            Command::Position {
                fen: Some("\"B:W21,K22:B1,2\"".into()),
                moves: vec![]
            }
        );
        for bad in [
            "position",
            "position fen",
            "position fen moves 11-15",
            "position startpos 11-15",
            "position somewhere",
        ] {
            assert!(refused(bad).contains("position"));
        }
    }

    #[test]
    fn go() {
        assert_eq!(
            parse("go"),
            Command::Go {
                go: Go::default(),
                searchmoves: vec![]
            }
        );
        let full = parse(
            "go ponder wtime -5 btime 1000 winc 10 binc 20 movestogo 7 depth 9 nodes 100 \
             movetime 50 infinite searchmoves 11-15 9x18x27",
        );
        assert_eq!(
            full,
            Command::Go {
                go: Go {
                    depth: Some(9),
                    nodes: Some(100),
                    movetime_ms: Some(50),
                    wtime_ms: Some(-5),
                    btime_ms: Some(1000),
                    winc_ms: Some(10),
                    binc_ms: Some(20),
                    movestogo: Some(7),
                    infinite: true,
                    ponder: true,
                    searchmoves: vec![],
                    analysis: false,
                    skill_level: None,
                },
                searchmoves: vec!["11-15".into(), "9x18x27".into()],
            }
        );
        assert_eq!(
            parse("go searchmoves 11-15 12-16 DEPTH 3"),
            Command::Go {
                go: Go {
                    depth: Some(3),
                    ..Go::default()
                },
                searchmoves: vec!["11-15".into(), "12-16".into()],
            }
        );
        for bad in [
            "go depth -1",
            "go depth 0",
            "go depth 99999999999999999999",
            "go depth 999999999999999999999999999999999999999999",
            "go depth",
            "go depth x",
            "go depth 3 depth 4",
            "go nodes 0",
            "go movestogo 0",
            "go movetime -1",
            "go wtime",
            "go searchmoves",
            "go searchmoves depth 3",
            "go mate 3",
            "go fast",
            "go depth 5 garbage",
        ] {
            assert!(refused(bad).starts_with("go"), "{bad}");
        }
    }

    #[test]
    fn scores_and_lines() {
        assert_eq!(format_score(Score::Centi(-35)), "cp -35");
        assert_eq!(format_score(Score::WinIn(1)), "mate 1");
        assert_eq!(format_score(Score::WinIn(3)), "mate 2");
        assert_eq!(format_score(Score::LossIn(2)), "mate -1");
        assert_eq!(format_score(Score::LossIn(4)), "mate -2");
        assert_eq!(format_bestmove(None, None), "bestmove (none)");
        assert_eq!(format_bestmove(Some("11-15"), None), "bestmove 11-15");
        assert_eq!(
            format_bestmove(Some("c3:e5"), Some("f6-g5")),
            "bestmove c3:e5 ponder f6-g5"
        );
        let info = Info {
            search: 0,
            depth: 4,
            seldepth: 7,
            multipv: 1,
            score: Score::Centi(12),
            nodes: 1000,
            nps: 50000,
            hashfull: 3,
            tbhits: None,
            time_ms: 20,
            pv: Vec::new(),
        };
        assert_eq!(
            format_info(&info, &["11-15".into(), "23-19".into()]),
            "info depth 4 seldepth 7 multipv 1 score cp 12 nodes 1000 nps 50000 hashfull 3 \
             time 20 pv 11-15 23-19"
        );
        let lines = uci_lines();
        assert_eq!(lines[0], format!("id name damka {VERSION}"));
        assert!(lines[1].starts_with("id author "));
        assert!(
            lines.contains(&"option name Move Overhead type spin default 30 min 0 max 5000".into())
        );
        assert!(lines.iter().any(|l| l.starts_with(
            "option name Variant type combo default english var english var international"
        )));
        assert_eq!(lines.last().unwrap(), "uciok");
    }

    /// A `Write` the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_short_session_in_memory() {
        let input = b"uci\nisready\nposition startpos moves 11-15\nbogus\n\xff\xfe\ngo depth 2\n"
            as &[u8];
        let output = Shared::default();
        assert_eq!(run(input, output.clone()), 0);
        let text = String::from_utf8(output.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.contains(&"uciok"));
        assert!(lines.contains(&"readyok"));
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with("info string error:"))
                .count(),
            2,
            "{text}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove ")).count(),
            1,
            "{text}"
        );
    }
}
