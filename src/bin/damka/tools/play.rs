//! `damka play`: a game against the engine at the terminal, or driven line by line through a pipe.
//!
//! The human's moves are read one line at a time: a move in the variant's notation, the
//! number of a move in the list printed before each turn, or a command (`undo`, `hint`,
//! `save FILE`, `moves`, `board`, `help`, `quit`). Bad input is explained and asked again; the
//! end of the input ends the game quietly. The engine is the same facade the protocols use.

use crate::tools::limit::Limit;
use crossbeam_channel::Receiver;
use damka::AnyGame;
use damka::board::Geometry;
use damka::engine::{Engine, Event, Info, Score};
use damka::game::{DrawReason, Game, Outcome};
use damka::notation::movetext::{parse_move_in, write_move_in};
use damka::notation::pdn::{pdn_text, today};
use damka::notation::{bit_at, number_of_bit, square_name};
use damka::position::{Move, Position};
use damka::rules::{Color, Goal, MoveNotation, Rules, Variant};
use damka::search::skill::MAX_LEVEL;
use damka::with_variant;
use std::io::{BufRead, IsTerminal, Write};

/// What one search found: the move and its last main line.
#[derive(Clone, Debug, Default)]
pub struct Thought {
    /// The move to play, legal in the searched position; `None` when the side to move has no
    /// move.
    pub best: Option<Move>,
    /// The last finished iteration of the first line, if any finished.
    pub info: Option<Info>,
}

/// Searches the engine's current position under `limit` and waits for the answer.
pub fn think(engine: &mut Engine, events: &Receiver<Event>, limit: Limit) -> Thought {
    // Events of an earlier search cannot be left over (each `go` is waited for), but a
    // stray one must not be mistaken for this search's answer.
    while events.try_recv().is_ok() {}
    let mut thought = Thought::default();
    engine.go(limit.go());
    while let Ok(event) = events.recv() {
        match event {
            Event::Info(info) if info.multipv == 1 => thought.info = Some(info),
            Event::Info(_) | Event::Book { .. } => {}
            Event::BestMove { best, .. } => {
                thought.best = best;
                break;
            }
        }
    }
    engine.wait_search();
    thought
}

/// A score for people: `+0.35` men, or the plies to a forced end.
pub fn score_text(score: Score) -> String {
    match score {
        Score::Centi(centi) => format!("{:+.2}", f64::from(centi) / 100.0),
        Score::WinIn(plies) => format!("wins in {plies} plies"),
        Score::LossIn(plies) => format!("loses in {plies} plies"),
    }
}

/// What the user asked for on the command line.
#[derive(Clone, Copy, Debug)]
pub struct PlaySettings {
    /// The rule set.
    pub variant: Variant,
    /// The human's side; `None`: the side that moves first.
    pub human: Option<Color>,
    /// The engine's thinking limit.
    pub limit: Limit,
    /// The engine's strength level when it plays (`Skill Level`, 0 to 20).
    pub level: u32,
    /// Draw with ANSI colours.
    pub colour: bool,
    /// Repeat each input line after the prompt (the input is not a terminal, so it would not
    /// show in the transcript).
    pub echo: bool,
}

/// Runs `damka play` on stdin and stdout; returns the exit code.
pub fn run(variant: Variant, human: Option<Color>, limit: Limit, level: u32) -> i32 {
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let settings = PlaySettings {
        variant,
        human,
        limit,
        level,
        colour,
        echo: !std::io::stdin().is_terminal(),
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    play(settings, &mut stdin.lock(), &mut stdout.lock())
}

/// Plays one game reading the human's lines from `input`; returns the exit code (0 unless
/// the output cannot be written).
pub fn play(settings: PlaySettings, input: &mut dyn BufRead, out: &mut dyn Write) -> i32 {
    with_variant!(settings.variant, R => {
        let mut session = PlaySession::<R>::new(settings);
        match session.run(input, out) {
            Ok(()) => 0,
            Err(_) => 1,
        }
    })
}

const HELP: &str = "\
Type a move in the variant's notation (11-15, 22x15, c3-d4, c3:e5, G6-F5) or the number of a
move in the list. A capture may name its landing squares (4x27x38x15) when two captures share
their start and end. Commands:
  undo        take back your last move and the engine's reply
  hint        ask the engine for a move
  save FILE   write the game so far as PDN
  moves       list the legal moves again
  board       draw the board again
  help        this text
  quit        leave (the end of the input does the same)
";

struct PlaySession<R: Rules> {
    settings: PlaySettings,
    human: Color,
    game: Game<R>,
    engine: Engine,
    events: Receiver<Event>,
    /// The board and the move list were shown since the last change.
    shown: bool,
    /// The result was announced.
    announced: bool,
}

impl<R: Rules> PlaySession<R> {
    fn new(settings: PlaySettings) -> Self {
        let (mut engine, events) = Engine::new();
        engine
            .set_variant(R::VARIANT)
            .expect("a new engine is not searching");
        PlaySession {
            settings,
            human: settings.human.unwrap_or(R::FIRST_TO_MOVE),
            game: Game::default(),
            engine,
            events,
            shown: false,
            announced: false,
        }
    }

    fn run(&mut self, input: &mut dyn BufRead, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(
            out,
            "damka play: {} draughts, you play {}, the engine {}; type help for commands.",
            R::VARIANT,
            self.human.name(),
            match self.settings.limit {
                Limit::Depth(1) => "searches 1 ply a move".to_string(),
                Limit::Depth(depth) => format!("searches {depth} plies a move"),
                Limit::MoveTime(time) => format!("thinks {} ms a move", time.as_millis()),
                other => format!("plays at {other}"),
            }
        )?;
        let mut bytes = Vec::new();
        loop {
            let outcome = self.game.outcome();
            if let Some(outcome) = outcome {
                if !self.announced {
                    writeln!(
                        out,
                        "{}",
                        board_text(self.game.position(), self.settings.colour)
                    )?;
                    writeln!(out, "{}", self.announcement(outcome))?;
                    writeln!(
                        out,
                        "The game is over: undo, save FILE or quit (or end the input)."
                    )?;
                    self.announced = true;
                }
            } else if self.game.position().side_to_move() != self.human {
                self.engine_moves(out)?;
                continue;
            } else if !self.shown {
                writeln!(
                    out,
                    "{}",
                    board_text(self.game.position(), self.settings.colour)
                )?;
                self.list_moves(out)?;
                self.shown = true;
            }
            write!(
                out,
                "{}> ",
                if outcome.is_some() {
                    "game over"
                } else {
                    "your move"
                }
            )?;
            out.flush()?;
            bytes.clear();
            // Bytes, not `read_line`: input that is not UTF-8 is a bad move, not an error.
            if input.read_until(b'\n', &mut bytes)? == 0 {
                writeln!(out)?;
                writeln!(out, "End of input: goodbye.")?;
                return Ok(());
            }
            let line = String::from_utf8_lossy(&bytes);
            if self.settings.echo {
                writeln!(out, "{}", line.trim_end())?;
            }
            if !self.command(line.trim(), out)? {
                return Ok(());
            }
        }
    }

    /// Handles one line of input; false to leave.
    fn command(&mut self, text: &str, out: &mut dyn Write) -> std::io::Result<bool> {
        let (word, rest) = match text.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, rest.trim()),
            None => (text, ""),
        };
        match word.to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "exit" | "q" => {
                writeln!(out, "Goodbye.")?;
                return Ok(false);
            }
            "help" | "?" => write!(out, "{HELP}")?,
            "board" => writeln!(
                out,
                "{}",
                board_text(self.game.position(), self.settings.colour)
            )?,
            "moves" => self.list_moves(out)?,
            "undo" => self.undo(out)?,
            "hint" => self.hint(out)?,
            "save" if rest.is_empty() => writeln!(out, "save needs a file name: save game.pdn")?,
            "save" => match std::fs::write(rest, self.pdn()) {
                Ok(()) => writeln!(out, "Saved the game to {rest}.")?,
                Err(error) => writeln!(out, "Cannot write {rest}: {error}")?,
            },
            _ if self.game.outcome().is_some() => writeln!(
                out,
                "The game is over; '{text}' is not undo, save FILE, help or quit."
            )?,
            _ => self.human_moves(text, out)?,
        }
        Ok(true)
    }

    /// The legal moves in list order: by start square, then end square, as written.
    fn sorted_moves(&self) -> Vec<(Move, String)> {
        let position = self.game.position();
        let legal = position.legal_moves();
        let mut moves: Vec<(Move, String)> = legal
            .iter()
            .map(|mv| (*mv, write_move_in(position, mv, &legal)))
            .collect();
        moves.sort_by_cached_key(|(mv, text)| {
            (
                number_of_bit::<R>(mv.from),
                number_of_bit::<R>(mv.to),
                text.clone(),
            )
        });
        moves
    }

    fn list_moves(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let moves = self.sorted_moves();
        if moves.is_empty() {
            return writeln!(out, "No legal moves.");
        }
        let must_capture = moves.iter().all(|(mv, _)| mv.is_capture());
        writeln!(
            out,
            "{} to move; legal moves{}:",
            capitalised(self.game.position().side_to_move().name()),
            if must_capture && R::CAPTURE_COMPULSORY {
                " (capturing is compulsory)"
            } else {
                ""
            }
        )?;
        let width = moves.iter().map(|(_, t)| t.len()).max().unwrap_or(0);
        let mut row = String::new();
        for (index, (_, text)) in moves.iter().enumerate() {
            let item = format!("{:>3}) {text:<width$}", index + 1);
            if !row.is_empty() && row.len() + item.len() + 2 > 78 {
                writeln!(out, "{}", row.trim_end())?;
                row.clear();
            }
            if !row.is_empty() {
                row.push_str("  ");
            }
            row.push_str(&item);
        }
        writeln!(out, "{}", row.trim_end())
    }

    fn human_moves(&mut self, text: &str, out: &mut dyn Write) -> std::io::Result<()> {
        let moves = self.sorted_moves();
        let chosen = if text.bytes().all(|b| b.is_ascii_digit()) {
            match text.parse::<usize>() {
                Ok(n) if (1..=moves.len()).contains(&n) => moves[n - 1].0,
                _ => {
                    return writeln!(
                        out,
                        "There is no move number {text}: pick 1 to {}, or type a move.",
                        moves.len()
                    );
                }
            }
        } else {
            let position = self.game.position();
            match parse_move_in(position, text, &position.legal_moves()) {
                Ok(mv) => mv,
                Err(error) => {
                    writeln!(out, "{}", capitalised(&error.to_string()))?;
                    return writeln!(out, "Type a move from the list, its number, or help.");
                }
            }
        };
        let written = write_move_in(
            self.game.position(),
            &chosen,
            &self.game.position().legal_moves(),
        );
        writeln!(out, "You play {written}.")?;
        self.game.play(chosen);
        self.shown = false;
        Ok(())
    }

    /// Sets the engine to the game's current position.
    fn sync_engine(&mut self) -> bool {
        let game = AnyGame::from(self.game.clone());
        self.engine.set_position(game).is_ok()
    }

    /// The engine's move at strength `level`.
    fn think_at(&mut self, level: u32) -> Thought {
        self.engine
            .set_option("Skill Level", &level.to_string())
            .expect("a level from 0 to 20 while no search runs");
        think(&mut self.engine, &self.events, self.settings.limit)
    }

    fn engine_moves(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let thought = if self.sync_engine() {
            self.think_at(self.settings.level)
        } else {
            Thought::default()
        };
        let position = *self.game.position();
        let legal = position.legal_moves();
        let Some(mv) = thought.best else {
            // Cannot happen with a legal position; leave rather than loop.
            writeln!(out, "The engine found no move; the game stops here.")?;
            return Err(std::io::Error::other("engine without a move"));
        };
        let written = write_move_in(&position, &mv, &legal);
        self.game.play(mv);
        let detail = thought.info.map_or_else(String::new, |info| {
            format!(
                "  (depth {}, {} for {})",
                info.depth,
                score_text(info.score),
                self.human.opponent().name()
            )
        });
        writeln!(
            out,
            "damka ({}) plays {written}{detail}",
            self.human.opponent().name()
        )?;
        self.shown = false;
        Ok(())
    }

    fn hint(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.game.outcome().is_some() {
            return writeln!(out, "The game is over: there is nothing to hint.");
        }
        if !self.sync_engine() {
            return writeln!(out, "The engine cannot take this position.");
        }
        let thought = self.think_at(MAX_LEVEL);
        let best = thought.best.map(|mv| {
            let position = self.game.position();
            write_move_in(position, &mv, &position.legal_moves())
        });
        match (best, thought.info) {
            (Some(best), Some(info)) => writeln!(
                out,
                "Hint: {best}  (depth {}, {} for {})",
                info.depth,
                score_text(info.score),
                self.human.name()
            ),
            (Some(best), None) => writeln!(out, "Hint: {best}"),
            (None, _) => writeln!(out, "No hint: there is no legal move."),
        }
    }

    /// Takes back moves until it is the human's turn again, at least one human move
    /// included: normally the engine's reply and the human's move before it.
    fn undo(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let human_moves = self
            .game
            .positions()
            .take(self.game.ply())
            .filter(|p| p.side_to_move() == self.human)
            .count();
        if human_moves == 0 {
            return writeln!(out, "Nothing to undo: you have not moved yet.");
        }
        let mut taken = Vec::new();
        while let Some(mv) = self.game.undo() {
            let position = self.game.position();
            taken.push(write_move_in(position, &mv, &position.legal_moves()));
            if position.side_to_move() == self.human {
                break;
            }
        }
        taken.reverse();
        writeln!(out, "Took back {}.", taken.join(" "))?;
        self.shown = false;
        self.announced = false;
        Ok(())
    }

    fn announcement(&self, outcome: Outcome) -> String {
        let result = outcome.pdn_result::<R>();
        match outcome {
            Outcome::Win(winner) => format!(
                "Result {result}: {} wins, {}{}.",
                capitalised(winner.name()),
                if R::GOAL == Goal::FirstKing {
                    format!("{} crowned the first king", capitalised(winner.name()))
                } else if R::GOAL == Goal::Reversed {
                    format!("{} cannot move", capitalised(winner.name()))
                } else {
                    format!(
                        "{} has no legal move",
                        capitalised(winner.opponent().name())
                    )
                },
                if winner == self.human {
                    " (you win)"
                } else {
                    " (damka wins)"
                }
            ),
            Outcome::Draw(reason) => format!("Result {result}: draw, {}.", draw_rule::<R>(reason)),
        }
    }

    fn pdn(&self) -> String {
        let names = |color: Color| {
            if color == self.human {
                "Human"
            } else {
                "damka"
            }
        };
        let result = self
            .game
            .outcome()
            .map_or("*", |outcome| outcome.pdn_result::<R>());
        pdn_text(
            &self.game,
            &[
                ("Event", "damka play".to_string()),
                ("Date", today()),
                ("White", names(Color::White).to_string()),
                ("Black", names(Color::Black).to_string()),
            ],
            result,
        )
    }
}

/// The draw rule that ended a game, explained.
pub fn draw_rule<R: Rules>(reason: DrawReason) -> String {
    let rules = R::DRAW_RULES;
    match reason {
        DrawReason::Repetition => format!(
            "the same position occurred {} times with the same side to move",
            rules.repetitions
        ),
        DrawReason::NoProgress => format!(
            "{} plies (moves of either side) in a row without a capture or a man move",
            rules.no_progress_plies
        ),
        DrawReason::SmallEndgame => {
            "the small-endgame move limit ran out (a lone king held out)".to_string()
        }
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

// ANSI colours of the terminal board (256-colour palette).
const LIGHT_SQUARE: &str = "\x1b[48;5;223m";
const DARK_SQUARE: &str = "\x1b[48;5;101m";
const WHITE_PIECE: &str = "\x1b[1;38;5;231m";
const BLACK_PIECE: &str = "\x1b[1;38;5;16m";
const SQUARE_NAME: &str = "\x1b[38;5;250m";
const RESET: &str = "\x1b[0m";

/// The board as White sees it: `w`/`b` men, `W`/`B` kings, every empty playable square showing
/// its name in the variant's notation; coordinates or the numbers of each row at the side.
pub fn board_text<R: Rules>(position: &Position<R>, colour: bool) -> String {
    let size = R::Geometry::SIZE;
    let mut text = String::new();
    let files: String = (0..size)
        .map(|col| format!("{:^4}", (b'a' + col as u8) as char))
        .collect();
    let edge = |row: usize| match R::NOTATION {
        MoveNotation::Numeric => "   ".to_string(),
        MoveNotation::Algebraic => format!("{:>2} ", size - row),
        MoveNotation::Cells => format!("{:>2} ", row + 1),
    };
    if R::NOTATION == MoveNotation::Cells {
        text.push_str(&format!("   {}\n", files.to_uppercase()));
    }
    for row in 0..size {
        text.push_str(&edge(row));
        let mut numbers = Vec::new();
        for col in 0..size {
            let Some(bit) = bit_at::<R>(row, col) else {
                if colour {
                    text.push_str(&format!("{LIGHT_SQUARE}    {RESET}"));
                } else {
                    text.push_str("    ");
                }
                continue;
            };
            numbers.push(number_of_bit::<R>(bit));
            let mask = 1u64 << bit;
            let king = position.kings() & mask != 0;
            let (letter, style) = if position.pieces(Color::White) & mask != 0 {
                (if king { "W" } else { "w" }, WHITE_PIECE)
            } else if position.pieces(Color::Black) & mask != 0 {
                (if king { "B" } else { "b" }, BLACK_PIECE)
            } else {
                ("", SQUARE_NAME)
            };
            let shown = if letter.is_empty() {
                square_name::<R>(bit)
            } else {
                letter.to_string()
            };
            if colour {
                text.push_str(&format!("{DARK_SQUARE}{style}{shown:^4}{RESET}"));
            } else {
                text.push_str(&format!("{shown:^4}"));
            }
        }
        if R::NOTATION == MoveNotation::Numeric
            && let (Some(low), Some(high)) = (numbers.iter().min(), numbers.iter().max())
        {
            text.push_str(&format!("  {low:>2}-{high}"));
        }
        text.push('\n');
    }
    if R::NOTATION == MoveNotation::Algebraic {
        text.push_str(&format!("   {files}\n"));
    }
    text.push_str(&format!(
        "   w/b men, W/B kings; {} to move\n",
        position.side_to_move().name()
    ));
    text
}
