//! The command driver of both text protocols: stdin read on its own thread, one loop that owns the engine and applies commands in order.
//!
//! The UCI dialect ([`super::uci`]) and the Hub protocol ([`super::hub`]) only turn a line into
//! a [`Step`] and events into text (a [`Dialect`]); when and in which order things happen is
//! decided here, the same way for both:
//!
//! - **stdin is always read.** A reader thread reads line after line and sends each into a
//!   channel; nothing the loop does ever stops it from reading, so `stop`, `isready`/`ping`,
//!   `ponderhit` and `quit` are seen while a search runs.
//! - **Commands are applied in the order they arrive**, one at a time, and none of them waits
//!   for a search: a search never holds up the loop.
//! - **A command that changes the engine's state stops the search first** ([`Step::Change`]:
//!   `position`, `go`, `setoption`, `ucinewgame`; Hub `pos`, `level`, `go`, `set-param`,
//!   `new-game`). The search's last lines (its final `info` and its `bestmove`/`done`) are
//!   written before anything the new command writes. A command that is refused (a bad FEN, an
//!   unknown option, an illegal move) is refused *before* that, so it leaves a running search
//!   alone. Commands that only read the state ([`Step::Query`]: `isready`, `ping`, `uci`, `d`,
//!   `eval`) are answered at once, the search going on.
//! - **`quit` and the end of input** stop the search; its `bestmove`/`done` is still written
//!   (every accepted `go` gets exactly one), then nothing more: the lines after `quit` are not
//!   read, and the exit code is 0.
//! - **A closed stdout** (the client went away) is the same as `quit`, without a word.
//!
//! The engine's events arrive on a second channel and are written by the same loop, so output
//! never interleaves and needs no lock.

use super::reader::spawn_line_reader;
use crate::engine::{Engine, Event};
use crossbeam_channel::{Receiver, select};
use std::io::{BufRead, Write};
use std::time::Instant;

/// What one input line asks for, as a dialect reads it.
pub enum Step<C> {
    /// Nothing (a blank line, a command the dialect ignores).
    Nothing,
    /// The line is refused with this message; nothing changes and a search goes on.
    Refused(String),
    /// A command that reads the state or writes an answer: applied at once, a search goes on.
    Query(C),
    /// A command that changes the state: a running search is stopped first and its last lines
    /// written, then the command is applied.
    Change(C),
    /// End the search (its `bestmove`/`done` follows).
    Stop,
    /// The expected move was played: a ponder search goes on under the clock.
    PonderHit,
    /// Stop any search, write its last lines, exit.
    Quit,
}

/// A text protocol: its grammar, the numbering of its squares and the wording of its answers.
pub trait Dialect {
    /// A command of the dialect, as read from one line.
    type Command;

    /// Reads one input line (with its `\n` if it had one; maybe not UTF-8). A command that would be
    /// refused must be refused here, against `engine`'s present state, so that it never stops
    /// a search.
    fn read(&mut self, line: &[u8], engine: &Engine) -> Step<Self::Command>;

    /// Carries out a command that [`Dialect::read`] accepted.
    fn apply(&mut self, command: Self::Command, engine: &mut Engine);

    /// Writes the answer to a refused line (or only logs it, as the Hub protocol does).
    fn refuse(&mut self, message: &str);

    /// Writes one engine event. The engine's position is the one the event's search searched
    /// (whatever would change it stops the search and writes its events first). `superseded`
    /// is true when the search was stopped by a later command (its client did not wait for
    /// the answer).
    fn event(&mut self, event: Event, engine: &Engine, superseded: bool);

    /// When the dialect wants [`Dialect::wake`] called (a held-back line), if ever.
    fn wake_at(&self) -> Option<Instant> {
        None
    }

    /// Called at the time [`Dialect::wake_at`] asked for.
    fn wake(&mut self) {}

    /// True once a write to the client has failed (the client closed its end).
    fn output_closed(&self) -> bool;
}

/// The loop: the engine, its events and the dialect that speaks for them.
struct Driver<D: Dialect> {
    dialect: D,
    engine: Engine,
    events: Receiver<Event>,
}

impl<D: Dialect> Driver<D> {
    /// Stops a running search and writes its remaining events, so that whatever comes next is
    /// written after them.
    fn settle(&mut self, superseded: bool) {
        // After the join every event of the search is in the channel (its `BestMove` is the
        // last thing the search thread does).
        self.engine.finish_search();
        for event in self.events.try_iter() {
            self.dialect.event(event, &self.engine, superseded);
        }
    }

    /// Handles one line; false when the loop should end.
    fn line(&mut self, line: &[u8]) -> bool {
        match self.dialect.read(line, &self.engine) {
            Step::Nothing => {}
            Step::Refused(message) => self.dialect.refuse(&message),
            Step::Query(command) => self.dialect.apply(command, &mut self.engine),
            Step::Change(command) => {
                self.settle(true);
                self.dialect.apply(command, &mut self.engine);
            }
            Step::Stop => self.engine.stop(),
            Step::PonderHit => self.engine.ponderhit(),
            Step::Quit => return false,
        }
        true
    }

    fn run(&mut self, lines: Receiver<Vec<u8>>) {
        while !self.dialect.output_closed() {
            let wake_at = self.dialect.wake_at();
            let timeout = wake_at.map(|at| at.saturating_duration_since(Instant::now()));
            let never = crossbeam_channel::never();
            let waker = match timeout {
                Some(timeout) => crossbeam_channel::after(timeout),
                None => never,
            };
            select! {
                recv(lines) -> line => match line {
                    Ok(line) => {
                        if !self.line(&line) {
                            break;
                        }
                    }
                    // End of input: as `quit`.
                    Err(_) => break,
                },
                recv(self.events) -> event => {
                    if let Ok(event) = event {
                        self.dialect.event(event, &self.engine, false);
                    }
                }
                recv(waker) -> _ => self.dialect.wake(),
            }
        }
        if self.dialect.output_closed() {
            // Nobody reads any more: stop without writing.
            self.engine.finish_search();
        } else {
            self.settle(false);
            if self.dialect.wake_at().is_some() {
                self.dialect.wake();
            }
        }
    }
}

/// Runs `dialect` over `engine` with commands from `input` until `quit`, the end of the input
/// or a closed output; returns the exit code (0).
pub fn drive<D: Dialect, I: BufRead + Send + 'static>(
    dialect: D,
    engine: Engine,
    events: Receiver<Event>,
    input: I,
) -> i32 {
    // Each line as read, with its `\n`: the dialects see exactly what the client sent.
    let lines = spawn_line_reader("stdin-reader", input, Some);
    let mut driver = Driver {
        dialect,
        engine,
        events,
    };
    driver.run(lines);
    0
}

/// Lines to the client, each flushed; remembers a failed write (a closed pipe) so that the
/// driver can stop.
pub struct Sink {
    out: Box<dyn Write + Send>,
    closed: bool,
}

impl Sink {
    /// A sink over `out`.
    pub fn new(out: Box<dyn Write + Send>) -> Sink {
        Sink { out, closed: false }
    }

    /// Writes one line and flushes it; after a failed write nothing more is written.
    pub fn line(&mut self, text: &str) {
        if self.closed {
            return;
        }
        if writeln!(self.out, "{text}")
            .and_then(|()| self.out.flush())
            .is_err()
        {
            self.closed = true;
        }
    }

    /// True once a write has failed.
    pub fn closed(&self) -> bool {
        self.closed
    }
}
