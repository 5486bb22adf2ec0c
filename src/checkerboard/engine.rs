//! damka behind CheckerBoard's calls: the `enginecommand` commands and the `getmove` search over the engine facade, with the game history CheckerBoard sends or damka keeps; no FFI here ([`super::exports`] is the C side).
//!
//! **History.** Repetitions need the game's earlier positions, which `getmove`'s board alone
//! does not give. CheckerBoard sends `set gamehist FEN MOVES` before each `getmove` (the
//! position after the last capture or man move and the king moves since); when its last
//! position is `getmove`'s, that is the game searched. Otherwise (a host that sends none) the
//! engine goes on from its own record: the game up to its last move, extended by the
//! opponent's move that leads to the new board; `CB_RESET_MOVES` in `info` forgets that
//! record.
//!
//! **Time.** With the incremental bits of `info`, the remaining time and the increment are
//! the side's clock, managed as damka manages any clock. Without them `maxtime` is the move
//! time, exact or not: damka returns by `maxtime` (less `Move Overhead`), which keeps an exact
//! limit and stays within an average one. `*playnow` stops the search at once.

use super::{
    Board8x8, CB_DRAW, CB_LOSS, CB_RESET_MOVES, CB_UNKNOWN, CB_WIN, CbMove, GameType,
    PROTOCOL_VERSION, board_fen, board_of_position, cb_color, cb_move, cb_move_text, cb_number,
    color_of, incremental_times, move_list_reply, position_of_board, read_board_fen, with_gametype,
};
use crate::any_game::AnyGame;
use crate::book::BookMove;
use crate::engine::{Engine, Event, Go, Info, Score};
use crate::game::{Game, Outcome};
use crate::notation::fen::write_fen;
use crate::position::{Move, Position};
use crate::rules::{Color, Rules};
use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

/// The name `name` answers and `about` starts with.
pub fn engine_name() -> String {
    format!("damka {}", env!("CARGO_PKG_VERSION"))
}

/// The answer to a command that needs no engine state (`name`, `help`, `get
/// protocolversion`), so that a host may ask while a search runs; `None` for every other.
pub fn static_reply(command: &str) -> Option<(bool, String)> {
    let words: Vec<String> = command
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["name"] => Some((true, engine_name())),
        // No HTML help file: CheckerBoard then says the engine has none.
        ["help"] => Some((true, String::new())),
        ["get", "protocolversion"] => Some((true, PROTOCOL_VERSION.to_string())),
        _ => None,
    }
}

/// damka as a CheckerBoard engine: the facade, the game type and the game's history.
pub struct CbEngine {
    engine: Engine,
    events: Receiver<Event>,
    gametype: GameType,
    /// The game of the last `set gamehist`, until a `getmove` takes it (of the game type).
    gamehist: Option<AnyGame>,
    /// The game up to damka's last move, for hosts that send no history (of the game type).
    game: Option<AnyGame>,
}

impl Default for CbEngine {
    fn default() -> Self {
        CbEngine::new()
    }
}

/// `getmove`'s arguments besides the board and the host's callbacks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// The colour to move, `CB_WHITE` or `CB_BLACK`.
    pub color: i32,
    /// Seconds for the move.
    pub maxtime: f64,
    /// The `info` bits (`CB_RESET_MOVES`, `CB_EXACT_TIME`, the incremental-time unit).
    pub info: i32,
    /// The incremental times, when `info` says so.
    pub moreinfo: i32,
}

/// What `getmove` answers: its value (`CB_WIN`, ...) and the move, if there was one (the
/// board has then been updated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `CB_DRAW`, `CB_WIN`, `CB_LOSS` or `CB_UNKNOWN`, for the side that moved.
    pub result: i32,
    /// The move played.
    pub cbmove: Option<CbMove>,
}

fn unknown() -> (bool, String) {
    (false, "?".to_string())
}

/// CheckerBoard's book levels (Cake's meaning): 0 no book, 1 all kinds of moves, 2 good
/// moves, 3 best moves only; as `Book` and the `BookMargin` (centi-men) each level sets
/// (`None`: the margin stays).
fn book_setting(level: u32) -> Option<(bool, Option<i32>)> {
    match level {
        0 => Some((false, None)),
        1 => Some((true, Some(BOOK_MARGIN_ALL))),
        2 => Some((true, Some(crate::engine::DEFAULT_BOOK_MARGIN))),
        3 => Some((true, Some(0))),
        _ => None,
    }
}

/// `BookMargin` of CheckerBoard's book level 1 (all kinds of moves), centi-men.
const BOOK_MARGIN_ALL: i32 = 50;

/// The CheckerBoard book level of `Book` and `BookMargin`.
fn book_level(on: bool, margin: i32) -> u32 {
    match (on, margin) {
        (false, _) => 0,
        (true, 0) => 3,
        (true, m) if m <= crate::engine::DEFAULT_BOOK_MARGIN => 2,
        _ => 1,
    }
}

fn refused(message: impl std::fmt::Display) -> (bool, String) {
    (false, format!("error: {message}"))
}

impl CbEngine {
    /// An engine of English checkers at its defaults (Hash 64 MB, one thread).
    pub fn new() -> CbEngine {
        let (engine, events) = Engine::new();
        CbEngine {
            engine,
            events,
            gametype: GameType::English,
            gamehist: None,
            game: None,
        }
    }

    /// The game type played.
    pub fn gametype(&self) -> GameType {
        self.gametype
    }

    /// One `enginecommand`: whether it was understood and done, and the reply (`?` for an
    /// unknown command, as CheckerBoard expects, `error: ...` for a bad value).
    pub fn command(&mut self, command: &str) -> (bool, String) {
        if let Some(reply) = static_reply(command) {
            return reply;
        }
        let words: Vec<&str> = command.split_whitespace().collect();
        let Some((first, rest)) = words.split_first() else {
            return unknown();
        };
        match (first.to_ascii_lowercase().as_str(), rest) {
            ("about", []) => (true, self.about()),
            ("staticevaluation", [fen, ..]) => self.static_evaluation(fen),
            ("get", [what, args @ ..]) => self.get(&what.to_ascii_lowercase(), args),
            ("set", [what, args @ ..]) if !args.is_empty() => {
                self.set(&what.to_ascii_lowercase(), args)
            }
            _ => unknown(),
        }
    }

    fn about(&self) -> String {
        let options = self.engine.options();
        format!(
            "{}\nA draughts and checkers engine in Rust\n\nGame type {} ({})\nHash {} MB, {} \
             search thread(s)\nOpening book: {}\nEndgame tables: {}\n\nSee docs/checkerboard.md",
            engine_name(),
            self.gametype.number(),
            self.gametype.variant(),
            options.hash_mb,
            options.threads,
            self.book_text(),
            self.engine
                .tables_in_use()
                .unwrap_or("none (set egtbpath DIR)")
        )
    }

    /// The book in force for the `about` text: its file, or "built-in", and its size.
    fn book_text(&self) -> String {
        let options = self.engine.options();
        let Some(book) = self.engine.book_in_force() else {
            return "none for this game type (set bookfile FILE)".to_string();
        };
        let source = match &options.book_data {
            Some(file) if Arc::ptr_eq(file, &book) => options.book_file.as_str(),
            _ => "built-in",
        };
        let off = if options.book { "" } else { ", off" };
        format!("{source} ({} positions{off})", book.len())
    }

    fn get(&mut self, what: &str, args: &[&str]) -> (bool, String) {
        let options = self.engine.options();
        let value = match (what, args) {
            ("gametype", []) => self.gametype.number().to_string(),
            ("hashsize", []) => options.hash_mb.to_string(),
            ("searchthreads", []) => options.threads.to_string(),
            ("book", []) => book_level(options.book, options.book_margin).to_string(),
            ("bookfile", []) => options.book_file.clone(),
            ("move_overhead", []) => options.move_overhead_ms.to_string(),
            ("evalfile", []) => options.eval_file.clone(),
            ("egtbpath", []) => options.egtb_path.clone(),
            ("egtbcache", []) => options.egtb_cache_mb.to_string(),
            ("gamehist", []) => self.history_text(),
            ("movelist", [fen, ..]) => {
                let gametype = self.gametype;
                return match with_gametype!(gametype, R => move_list_of::<R>(fen)) {
                    Ok(reply) => (true, reply),
                    Err(error) => refused(error),
                };
            }
            _ => return unknown(),
        };
        (true, value)
    }

    fn set(&mut self, what: &str, args: &[&str]) -> (bool, String) {
        let value = args.join(" ");
        match what {
            "gametype" => match value.parse().ok().and_then(GameType::from_number) {
                Some(gametype) => {
                    match self.engine.set_option("Variant", gametype.variant().name()) {
                        Ok(()) => {
                            self.gametype = gametype;
                            self.gamehist = None;
                            self.game = None;
                            (
                                true,
                                format!(
                                    "gametype set to {} ({})",
                                    gametype.number(),
                                    gametype.variant()
                                ),
                            )
                        }
                        Err(error) => refused(error),
                    }
                }
                None => refused(format!(
                    "damka plays game types 21, 22, 24, 25, 26 and 29, not '{value}'"
                )),
            },
            "book" => match value.parse::<u32>().ok().and_then(book_setting) {
                Some((on, margin)) => {
                    let book = self.engine.set_option("Book", &on.to_string());
                    let margin =
                        margin.map(|m| self.engine.set_option("BookMargin", &m.to_string()));
                    match (book, margin.transpose()) {
                        (Ok(()), Ok(_)) => (true, format!("book set to {value}")),
                        (Err(error), _) | (_, Err(error)) => refused(error),
                    }
                }
                None => refused(format!(
                    "book is 0 (off) to 3 (best moves only), not '{value}'"
                )),
            },
            "bookfile" => match self.engine.set_option("BookFile", &value) {
                Ok(()) => (true, format!("bookfile set to {value}")),
                Err(error) => refused(error),
            },
            // The game type is the variant, kept with the history that goes with it.
            "variant" => refused("set the game type with set gametype N"),
            "gamehist" => {
                let gametype = self.gametype;
                match with_gametype!(gametype, R => read_history::<R>(args).map(AnyGame::from)) {
                    Ok(record) => {
                        let moves = record.ply();
                        self.gamehist = Some(record);
                        (true, format!("game history set: {moves} move(s)"))
                    }
                    Err(error) => {
                        self.gamehist = None;
                        refused(error)
                    }
                }
            }
            _ => {
                let name = match what {
                    "hashsize" => "Hash",
                    "searchthreads" => "Threads",
                    other => other,
                };
                let name = name.replace('_', " ");
                match self.engine.check_option(&name, &value) {
                    Err(crate::engine::EngineError::UnknownOption(_)) => unknown(),
                    Err(error) => refused(error),
                    Ok(setting) => {
                        let listed = setting.name();
                        match self.engine.apply(setting) {
                            Ok(()) => (true, format!("{listed} set to {value}")),
                            Err(error) => refused(error),
                        }
                    }
                }
            }
        }
    }

    /// The game the next `getmove` would search, as `set gamehist` gives one (CheckerBoard's
    /// numbers), or empty.
    fn history_text(&self) -> String {
        let Some(record) = self.gamehist.as_ref().or(self.game.as_ref()) else {
            return String::new();
        };
        with_gametype!(self.gametype, R => record.game::<R>().map(history_text_of))
            .unwrap_or_default()
    }

    fn static_evaluation(&mut self, fen: &str) -> (bool, String) {
        let gametype = self.gametype;
        let position = read_board_fen(fen, gametype).and_then(|(board, color)| {
            with_gametype!(gametype, R => {
                position_of_board::<R>(&board, color).map(|p| AnyGame::from(Game::new(p)))
            })
        });
        let game = match position {
            Ok(game) => game,
            Err(error) => return refused(error),
        };
        if let Err(error) = self.engine.set_position(game) {
            return refused(error);
        }
        (
            true,
            format!(
                "static evaluation: {:+} centi-men for {}, the side to move",
                self.engine.evaluate(),
                self.engine.session().side_to_move().name()
            ),
        )
    }

    /// `islegal`: the move from square `from` to square `to` (CheckerBoard's numbers) for
    /// `color` on `board`, if it is legal (the first such capture when several are).
    pub fn is_legal(
        &self,
        board: &Board8x8,
        color: i32,
        from: i32,
        to: i32,
    ) -> Result<Option<CbMove>, String> {
        with_gametype!(self.gametype, R => {
            let position = position_of_board::<R>(board, color)?;
            let found = position.legal_moves().iter().find(|mv| {
                i64::from(cb_number::<R>(mv.from)) == i64::from(from)
                    && i64::from(cb_number::<R>(mv.to)) == i64::from(to)
            }).copied();
            Ok(found.map(|mv| cb_move(&position, &mv)))
        })
    }

    /// `getmove`: searches the position on `board` with the request's colour to move and plays the move on
    /// `board`. `playnow` is polled while searching (true: stop now); `status` receives the
    /// status line after each iteration. An error leaves `board` as it was.
    pub fn get_move(
        &mut self,
        board: &mut Board8x8,
        request: Request,
        playnow: &dyn Fn() -> bool,
        status: &mut dyn FnMut(&str),
    ) -> Result<Answer, String> {
        with_gametype!(self.gametype, R => self.get_move_of::<R>(board, request, playnow, status))
    }

    /// [`CbEngine::get_move`] in the game type's rules `R`.
    fn get_move_of<R: Rules>(
        &mut self,
        board: &mut Board8x8,
        request: Request,
        playnow: &dyn Fn() -> bool,
        status: &mut dyn FnMut(&str),
    ) -> Result<Answer, String> {
        let Request {
            color,
            maxtime,
            info,
            moreinfo,
        } = request;
        let position = position_of_board::<R>(board, color)?;
        let go = limits(color_of(color)?, maxtime, info, moreinfo)?;
        if info & CB_RESET_MOVES != 0 {
            self.game = None;
        }
        let mut game = self.history_for(&position);
        self.engine
            .set_position(AnyGame::from(game.clone()))
            .map_err(|e| format!("cannot set up the game: {e}"))?;
        if game.legal_moves().is_empty() {
            status("no legal move: the game is lost");
            self.game = Some(AnyGame::from(game));
            return Ok(Answer {
                result: CB_LOSS,
                cbmove: None,
            });
        }
        let drawn = game.draw_reason().is_some();
        let (best, score) = self.search::<R>(go, playnow, status)?;
        let before = *game.position();
        game.play(best);
        *board = board_of_position(game.position());
        let result = match (game.outcome(), score) {
            (Some(Outcome::Win(winner)), _) => {
                if cb_color(winner) == color {
                    CB_WIN
                } else {
                    CB_LOSS
                }
            }
            (Some(Outcome::Draw(_)), _) => CB_DRAW,
            _ if drawn => CB_DRAW,
            (None, Some(Score::WinIn(_))) => CB_WIN,
            (None, Some(Score::LossIn(_))) => CB_LOSS,
            _ => CB_UNKNOWN,
        };
        self.game = Some(AnyGame::from(game));
        Ok(Answer {
            result,
            cbmove: Some(cb_move(&before, &best)),
        })
    }

    /// The game to search for a position: the host's history when it ends there, else
    /// damka's own record when the position is the one after its last move or one move later,
    /// else the position alone.
    fn history_for<R: Rules>(&mut self, position: &Position<R>) -> Game<R> {
        if let Some(record) = self.gamehist.take().and_then(AnyGame::into_game::<R>) {
            if record.position() == position {
                return record;
            }
            log::warn!(
                "set gamehist ended at {}, but getmove's position is {}: ignored",
                write_fen(record.position()),
                write_fen(position)
            );
        }
        self.game
            .take()
            .and_then(AnyGame::into_game::<R>)
            .and_then(|record| extend(record, position))
            .unwrap_or_else(|| Game::new(*position))
    }

    /// Runs one search under `go`, reporting each iteration on `status` and stopping when
    /// `playnow` says so: the move and the last score.
    fn search<R: Rules>(
        &mut self,
        go: Go,
        playnow: &dyn Fn() -> bool,
        status: &mut dyn FnMut(&str),
    ) -> Result<(Move, Option<Score>), String> {
        while self.events.try_recv().is_ok() {}
        let search = self.engine.go(go);
        let mut score = None;
        let mut stopped = false;
        let best = loop {
            match self.events.recv_timeout(Duration::from_millis(5)) {
                Ok(Event::Info(info)) if info.search == search && info.multipv == 1 => {
                    score = Some(info.score);
                    status(&status_line::<R>(&info));
                }
                Ok(Event::Book {
                    search: id,
                    chosen,
                    offered,
                }) if id == search => {
                    status(&book_status_line::<R>(&chosen, &offered));
                }
                Ok(Event::BestMove {
                    search: id, best, ..
                }) if id == search => break best,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    if !stopped && playnow() {
                        self.engine.stop();
                        stopped = true;
                    }
                    if !self.engine.is_searching() {
                        // The search thread is gone: its answer is in the channel, or it
                        // ended without one.
                        let last = self.events.try_iter().find_map(|event| match event {
                            Event::BestMove {
                                search: id, best, ..
                            } if id == search => Some(best),
                            _ => None,
                        });
                        match last {
                            Some(best) => break best,
                            None => return Err("the search ended without a move".into()),
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the engine's events ended".into());
                }
            }
        };
        self.engine.wait_search();
        let best = best.ok_or("the search found no move")?;
        Ok((best, score))
    }
}

/// The search limits of one `getmove`: the clock of the incremental bits, else `maxtime` as
/// the move time (infinite: until `playnow`).
fn limits(us: Color, maxtime: f64, info: i32, moreinfo: i32) -> Result<Go, String> {
    let mut go = Go::default();
    if let Some((remaining, increment)) = incremental_times(info, moreinfo) {
        let ms = |seconds: f64| Some((seconds * 1000.0).round() as i64);
        match us {
            Color::White => (go.wtime_ms, go.winc_ms) = (ms(remaining), ms(increment)),
            Color::Black => (go.btime_ms, go.binc_ms) = (ms(remaining), ms(increment)),
        }
    } else if maxtime.is_nan() || maxtime <= 0.0 {
        return Err(format!("maxtime {maxtime} is not a time"));
    } else if maxtime.is_infinite() {
        go.infinite = true;
    } else {
        go.movetime_ms = Some((maxtime * 1000.0).round().max(1.0) as u64);
    }
    Ok(go)
}

/// `record` taken on to `target`: unchanged when it is already there, one move longer when
/// one legal move gets there, else `None`.
fn extend<R: Rules>(mut record: Game<R>, target: &Position<R>) -> Option<Game<R>> {
    let last = *record.position();
    if last == *target {
        return Some(record);
    }
    let mv = last
        .legal_moves()
        .iter()
        .find(|mv| last.play(mv) == *target)
        .copied()?;
    record.play(mv);
    Some(record)
}

/// Reads `set gamehist`'s arguments: a FEN in CheckerBoard's numbers, then moves `from-to`
/// (or `fromxto`, with landing squares between if any) in CheckerBoard's numbers.
fn read_history<R: Rules>(args: &[&str]) -> Result<Game<R>, String> {
    let (fen, moves) = args.split_first().ok_or("set gamehist: no FEN")?;
    let gametype = super::gametype_of::<R>();
    let (board, color) = read_board_fen(fen, gametype)?;
    let mut game = Game::new(position_of_board::<R>(&board, color)?);
    for text in moves {
        let position = *game.position();
        let squares: Vec<u32> = text
            .split(['-', 'x', 'X'])
            .map(|s| s.trim().parse())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("set gamehist: bad move '{text}'"))?;
        let (Some(&from), Some(&to)) = (squares.first(), squares.last()) else {
            return Err(format!("set gamehist: bad move '{text}'"));
        };
        let mv = position
            .legal_moves()
            .iter()
            .find(|mv| cb_number::<R>(mv.from) == from && cb_number::<R>(mv.to) == to)
            .copied()
            .ok_or_else(|| {
                format!(
                    "set gamehist: '{text}' is not legal in {}",
                    write_fen(&position)
                )
            })?;
        game.play(mv);
    }
    Ok(game)
}

/// A record in `set gamehist`'s form (CheckerBoard's numbers).
fn history_text_of<R: Rules>(game: &Game<R>) -> String {
    let start = game.start();
    let mut text = board_fen(
        &board_of_position(start),
        cb_color(start.side_to_move()),
        super::gametype_of::<R>(),
    );
    for mv in game.moves() {
        text.push(' ');
        text.push_str(&cb_move_text::<R>(mv));
    }
    text
}

/// `get movelist FEN` for `R`.
fn move_list_of<R: Rules>(fen: &str) -> Result<String, String> {
    let (board, color) = read_board_fen(fen, super::gametype_of::<R>())?;
    let position = super::pieces_of_board::<R>(&board, color)?;
    move_list_reply(&position).ok_or_else(|| "the move list does not fit the reply".to_string())
}

/// The status line of an iteration: depth, score, nodes, time, speed and the line of play
/// in CheckerBoard's numbers.
fn status_line<R: Rules>(info: &Info) -> String {
    let score = match info.score {
        Score::Centi(cp) => format!("{cp:+}"),
        Score::WinIn(plies) => format!("win in {plies}"),
        Score::LossIn(plies) => format!("loss in {plies}"),
    };
    let mut line = format!(
        "depth {}/{} score {score} nodes {} time {:.2}s {:.1} Mnps pv",
        info.depth,
        info.seldepth,
        info.nodes,
        info.time_ms as f64 / 1000.0,
        info.nps as f64 / 1e6
    );
    for mv in &info.pv {
        line.push(' ');
        line.push_str(&cb_move_text::<R>(mv));
    }
    line
}

/// The status line of a move from the opening book: the move, its value and the others.
fn book_status_line<R: Rules>(chosen: &Move, offered: &[BookMove]) -> String {
    let listed: Vec<String> = offered
        .iter()
        .map(|m| format!("{} {:+}", cb_move_text::<R>(&m.mv), m.score))
        .collect();
    format!(
        "book move {} (of {}: {})",
        cb_move_text::<R>(chosen),
        offered.len(),
        listed.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkerboard::{CB_BLACK, CB_EXACT_TIME, CB_WHITE, pack_incremental_times};

    fn board(fen: &str, gametype: GameType) -> (Board8x8, i32) {
        read_board_fen(fen, gametype).unwrap()
    }

    fn never() -> bool {
        false
    }

    /// A 50 ms move, which must succeed.
    fn quick_move(engine: &mut CbEngine, cb: &mut Board8x8, color: i32, info: i32) -> Answer {
        engine
            .get_move(cb, req(color, 0.05, info, 0), &never, &mut |_| {})
            .unwrap()
    }

    fn req(color: i32, maxtime: f64, info: i32, moreinfo: i32) -> Request {
        Request {
            color,
            maxtime,
            info,
            moreinfo,
        }
    }

    #[test]
    fn commands_answer_as_checkerboard_expects() {
        let mut engine = CbEngine::new();
        assert_eq!(engine.command("name"), (true, engine_name()));
        assert_eq!(engine.command("get protocolversion"), (true, "2".into()));
        assert_eq!(engine.command("get gametype"), (true, "21".into()));
        // Cake's book levels: 2 (good moves) is the default margin.
        assert_eq!(engine.command("get book"), (true, "2".into()));
        assert!(engine.command("set book 3").0);
        assert_eq!(engine.command("get book"), (true, "3".into()));
        assert_eq!(engine.engine.options().book_margin, 0);
        assert!(engine.command("set book 0").0);
        assert_eq!(engine.command("get book"), (true, "0".into()));
        assert!(!engine.engine.options().book);
        assert!(engine.command("set book 1").0);
        assert_eq!(engine.command("get book"), (true, "1".into()));
        assert!(!engine.command("set book 4").0);
        assert_eq!(engine.command("get book"), (true, "1".into()));
        assert!(!engine.command("set bookfile /no/such/book").0);
        assert_eq!(engine.command("get bookfile"), (true, "".into()));
        assert!(engine.command("set hashsize 8").0);
        assert_eq!(engine.command("get hashsize"), (true, "8".into()));
        assert!(!engine.command("set hashsize 0").0);
        assert_eq!(engine.command("get hashsize"), (true, "8".into()));
        assert!(engine.command("set searchthreads 2").0);
        assert_eq!(engine.command("get searchthreads"), (true, "2".into()));
        assert!(engine.command("set move_overhead 5").0);
        assert_eq!(engine.command("get move_overhead"), (true, "5".into()));
        for unknown in [
            "bogus",
            "get enable_wld",
            "set enable_wld 0",
            "",
            "set",
            "get",
        ] {
            assert_eq!(engine.command(unknown), (false, "?".into()), "{unknown}");
        }
        assert!(engine.command("about").1.contains("Game type 21"));
        let (ok, reply) = engine.command("staticevaluation B:W21-32:B1-12");
        assert!(ok && reply.contains("black, the side to move"), "{reply}");
        assert!(!engine.command("staticevaluation B:W1:B").0);
        assert!(!engine.command("set gametype 20").0);
        assert!(!engine.command("set variant russian").0);
        assert_eq!(engine.gametype(), GameType::English);
        assert!(engine.command("set gametype 25").0);
        assert_eq!(engine.command("get gametype"), (true, "25".into()));
        assert_eq!(engine.gametype(), GameType::Russian);
        assert_eq!(
            engine.command("get movelist B:W1:B"),
            (true, "movelist 0".into())
        );
    }

    #[test]
    fn getmove_plays_a_legal_move_and_fills_the_cbmove() {
        let mut engine = CbEngine::new();
        engine.command("set hashsize 8");
        let (mut cb, color) = board("B:W21-32:B1-12", GameType::English);
        let before = cb;
        let mut lines = Vec::new();
        let answer = engine
            .get_move(
                &mut cb,
                req(color, 0.05, CB_EXACT_TIME, 0),
                &never,
                &mut |l| lines.push(l.to_string()),
            )
            .unwrap();
        assert_eq!(answer.result, CB_UNKNOWN);
        let position = position_of_board::<crate::rules::English>(&before, CB_BLACK).unwrap();
        let mv = super::super::move_to_board(&position, &cb).expect("a legal move");
        assert_eq!(answer.cbmove, Some(cb_move(&position, &mv)));
        assert!(lines.last().unwrap().starts_with("book move "), "{lines:?}");
        // Without the book, the status line reports the search.
        assert!(engine.command("set book 0").0);
        let mut lines = Vec::new();
        engine
            .get_move(
                &mut before.clone(),
                req(color, 0.05, CB_EXACT_TIME, 0),
                &never,
                &mut |l| lines.push(l.to_string()),
            )
            .unwrap();
        assert!(lines.last().unwrap().starts_with("depth "), "{lines:?}");
        // A bad board changes nothing.
        let mut bad = before;
        bad[0][1] = CB_WHITE | super::super::CB_MAN;
        let error = engine
            .get_move(&mut bad, req(CB_BLACK, 0.05, 0, 0), &never, &mut |_| {})
            .unwrap_err();
        assert!(error.contains("light square"), "{error}");
        assert!(
            engine
                .get_move(&mut cb, req(3, 0.05, 0, 0), &never, &mut |_| {})
                .is_err()
        );
        assert!(
            engine
                .get_move(&mut cb, req(CB_WHITE, f64::NAN, 0, 0), &never, &mut |_| {})
                .is_err()
        );
    }

    #[test]
    fn playnow_stops_an_infinite_search() {
        let mut engine = CbEngine::new();
        engine.command("set hashsize 8");
        let (mut cb, color) = board("B:W21-32:B1-12", GameType::English);
        let started = std::time::Instant::now();
        let stop_after = || started.elapsed() > Duration::from_millis(200);
        let answer = engine
            .get_move(
                &mut cb,
                req(color, f64::INFINITY, 0, 0),
                &stop_after,
                &mut |_| {},
            )
            .unwrap();
        assert!(answer.cbmove.is_some());
        assert!(started.elapsed() < Duration::from_secs(5));
        // A clock in the incremental bits: a move well within it.
        let (bits, moreinfo) = pack_incremental_times(2.0, 0.05);
        let started = std::time::Instant::now();
        let answer = engine
            .get_move(
                &mut cb,
                req(CB_WHITE, 100.0, bits, moreinfo),
                &never,
                &mut |_| {},
            )
            .unwrap();
        assert!(answer.cbmove.is_some());
        // Well within: the clock, not `maxtime` (100 s), set the budget; the bound is loose
        // because a loaded machine stretches any wall time.
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{:?}",
            started.elapsed()
        );
    }

    /// A third occurrence of the position, known only from the history, is a draw; the same
    /// position without history is not.
    #[test]
    fn the_history_counts_repetitions() {
        let mut engine = CbEngine::new();
        engine.command("set hashsize 8");
        let (ok, reply) =
            engine.command("set gamehist B:WK29:BK4,12 4-8 29-25 8-4 25-29 4-8 29-25 8-4 25-29");
        assert!(ok, "{reply}");
        assert_eq!(
            engine.command("get gamehist").1,
            "B:WK29:BK4,12 4-8 29-25 8-4 25-29 4-8 29-25 8-4 25-29"
        );
        let reset = CB_EXACT_TIME | CB_RESET_MOVES;
        let (mut cb, color) = board("B:WK29:BK4,12", GameType::English);
        assert_eq!(
            quick_move(&mut engine, &mut cb, color, reset).result,
            CB_DRAW
        );
        let (mut cb, color) = board("B:WK29:BK4,12", GameType::English);
        assert_ne!(
            quick_move(&mut engine, &mut cb, color, reset).result,
            CB_DRAW
        );
        // Without CB_RESET_MOVES and without a history, the engine's own record goes on by
        // the opponent's move.
        let ours = engine.history_text();
        assert_eq!(ours.split(' ').count(), 2, "{ours}");
        let position = position_of_board::<crate::rules::English>(&cb, CB_WHITE).unwrap();
        let reply = position.legal_moves().as_slice()[0];
        let mut cb = board_of_position(&position.play(&reply));
        quick_move(&mut engine, &mut cb, CB_BLACK, CB_EXACT_TIME);
        let longer = engine.history_text();
        assert!(longer.starts_with(&ours), "{ours} / {longer}");
        assert_eq!(longer.split(' ').count(), 4, "{longer}");
    }

    #[test]
    fn islegal_and_other_game_types() {
        let mut engine = CbEngine::new();
        engine.command("set hashsize 8");
        let (cb, color) = board("B:W21-32:B1-12", GameType::English);
        let mv = engine.is_legal(&cb, color, 9, 13).unwrap().unwrap();
        assert_eq!(
            (mv.jumps, mv.oldpiece),
            (0, CB_BLACK | super::super::CB_MAN)
        );
        assert_eq!(engine.is_legal(&cb, color, 9, 15).unwrap(), None);
        assert_eq!(engine.is_legal(&cb, color, 0, 99).unwrap(), None);
        for gametype in GameType::ALL {
            assert!(
                engine
                    .command(&format!("set gametype {}", gametype.number()))
                    .0
            );
            let start = with_gametype!(gametype, R => board_of_position(&Position::<R>::start()));
            let mut cb = start;
            let color = gametype.first_to_move();
            let answer = engine
                .get_move(
                    &mut cb,
                    req(color, 0.02, CB_EXACT_TIME, 0),
                    &never,
                    &mut |_| {},
                )
                .unwrap();
            let played = with_gametype!(gametype, R => {
                let position = position_of_board::<R>(&start, color).unwrap();
                super::super::move_of_cbmove(&position, &answer.cbmove.unwrap())
                    .map(|mv| board_of_position(&position.play(&mv)))
            });
            assert_eq!(played, Ok(cb), "{gametype:?}");
        }
    }
}
