//! `damka cb-engine LIB`: a CheckerBoard engine library loaded into this process and spoken to in damka's UCI dialect on stdin and stdout, as CheckerBoard drives it (docs/checkerboard.md).
//!
//! The match tool starts this for `proto=cb` engines: a library in a process of its own can
//! crash or hang without taking the referee with it, and two games at once get two processes
//! (a library has one global state, and loading the same file twice in one process gives the
//! same copy). Any UCI host can use it as well.
//!
//! What it does, CheckerBoard's way (its CheckerBoard.c, utility.c, fen.c):
//! - at start: `name`, `get book`, `get movelist B:W1:B` (an engine that answers `movelist 0`
//!   lists moves itself), `get gametype`;
//! - `setoption name Variant` asks for the game type (`set gametype N` when the library plays
//!   another one); any other option `X` is `enginecommand "set X V"`, unchecked, as the API
//!   has no list of options;
//! - `go`: `set gamehist` (the position after the last capture or man move and the king moves
//!   since), then `getmove` on a thread of its own with the board, the colour and the time:
//!   `movetime` is `maxtime` with `CB_EXACT_TIME` (a hard limit, as the referee keeps it); a
//!   clock is CheckerBoard's incremental bits (remaining time and increment) with its `maxtime`
//!   for engines that do not read them; `infinite` waits for `stop`. `CB_RESET_MOVES` goes with
//!   the first `getmove` of each game;
//! - `*playnow` is set (CheckerBoard's Play! button) on `stop`, `quit`, or when the move's
//!   time (the move time, or the whole clock) has run out, and set again every 10 ms until
//!   `getmove` returns (an engine may clear it as its search starts);
//! - the move: for English, or an engine with `get movelist`, the legal move whose result is
//!   the board `getmove` returned; for the other game types the legal move its `CBmove`
//!   describes. Neither: `info string illegal PLAYED REASON`, then `bestmove (none)`.
//!
//! The library's own stdout goes to stderr (on Unix), so that stdout carries only protocol.

use crossbeam_channel::{Receiver, after, never, select};
use damka::checkerboard::host::{HostPosition, host_position};
use damka::checkerboard::{
    CB_EXACT_TIME, CB_RESET_MOVES, CbMove, GameType, REPLY_SIZE, STATUS_SIZE,
    maxtime_for_incremental, pack_incremental_times,
};
use damka::engine::Go;
use damka::protocol::reader::spawn_line_reader;
use damka::protocol::uci::{Command, parse_command};
use damka::rules::Variant;
use std::ffi::{CString, c_char, c_double, c_int};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// The command line of `damka cb-engine`.
#[derive(clap::Args, Debug)]
pub struct CbEngineArgs {
    /// The engine library (a CheckerBoard engine: `getmove`, `enginecommand`).
    pub library: PathBuf,
    /// The working folder while the engine runs (default: the library's folder, where
    /// engines find their files).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// `int getmove(int board[8][8], int color, double maxtime, char str[1024], int *playnow,
/// int info, int moreinfo, struct CBmove *move)`.
type GetMove = unsafe extern "system" fn(
    *mut [c_int; 8],
    c_int,
    c_double,
    *mut c_char,
    *mut c_int,
    c_int,
    c_int,
    *mut CbMove,
) -> c_int;

/// `int enginecommand(char command[256], char reply[1024])`.
type EngineCommand = unsafe extern "system" fn(*const c_char, *mut c_char) -> c_int;

/// The loaded library and its two functions.
struct Library {
    getmove: GetMove,
    enginecommand: EngineCommand,
    /// Keeps the code of the two functions mapped, for the life of the process: it is never
    /// unloaded, as a `getmove` that ignored `*playnow` may still run in it when we exit
    /// (CheckerBoard does not unload a working engine either).
    _library: std::mem::ManuallyDrop<libloading::Library>,
}

impl Library {
    fn load(path: &Path) -> Result<Library, String> {
        // SAFETY: loading a library runs its initialisers; the user chose this engine library
        // to be run, as CheckerBoard runs whatever is in its engines folder.
        let library = unsafe { libloading::Library::new(path) }
            .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
        // SAFETY: the symbols are CheckerBoard's API functions, whose C types are `GetMove`
        // and `EngineCommand`; the pointers are used only while `library` is loaded (it is
        // kept in the same struct).
        let (getmove, enginecommand) = unsafe {
            let getmove = *library
                .get::<GetMove>(b"getmove\0")
                .map_err(|e| format!("{} has no getmove: {e}", path.display()))?;
            let enginecommand = *library
                .get::<EngineCommand>(b"enginecommand\0")
                .map_err(|e| format!("{} has no enginecommand: {e}", path.display()))?;
            (getmove, enginecommand)
        };
        Ok(Library {
            getmove,
            enginecommand,
            _library: std::mem::ManuallyDrop::new(library),
        })
    }

    /// `enginecommand`: its value and reply.
    fn command(&self, command: &str) -> (c_int, String) {
        let Ok(text) = CString::new(command) else {
            return (0, "the command holds a NUL byte".into());
        };
        // The API's reply is 1024 bytes; a larger buffer costs nothing and forgives an
        // engine that writes a little past it.
        let mut reply = vec![0u8; 4 * REPLY_SIZE];
        // SAFETY: `text` is NUL-terminated and `reply` is larger than the API's 1024 bytes;
        // both outlive the call. The library is not inside `getmove` now: `Shim` sends
        // commands only between searches.
        let value = unsafe { (self.enginecommand)(text.as_ptr(), reply.as_mut_ptr().cast()) };
        let reply = c_text(&reply);
        log::debug!("enginecommand '{command}' = {value}: '{reply}'");
        (value, reply)
    }
}

/// The text of a C string in a buffer (up to its NUL, or the whole buffer).
fn c_text(buffer: &[u8]) -> String {
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

/// What a finished `getmove` gave.
struct Returned {
    value: c_int,
    board: damka::checkerboard::Board8x8,
    cbmove: CbMove,
    status: String,
    elapsed: Duration,
}

/// A `getmove` running on its thread.
struct Search {
    position: HostPosition,
    playnow: Arc<AtomicI32>,
    done: Receiver<Returned>,
    /// When its time has run out (`None`: only `stop` ends it).
    deadline: Option<Instant>,
    /// `*playnow` has been set: set it again every 10 ms until `getmove` returns.
    stopping: bool,
}

/// The protocol's state over the library.
struct Shim {
    library: Arc<Library>,
    out: Box<dyn Write>,
    name: String,
    gametype: GameType,
    /// Whether the library answers `get movelist` (CheckerBoard then finds moves by board).
    lists_moves: bool,
    fen: Option<String>,
    moves: Vec<String>,
    /// The next `getmove` starts a game: `CB_RESET_MOVES`.
    new_game: bool,
    /// The largest clock seen this game, CheckerBoard's initial time (its `maxtime` depends on
    /// how long the control is).
    initial_clock: f64,
    search: Option<Search>,
}

/// Runs `damka cb-engine`; returns the exit code.
pub fn run(args: CbEngineArgs) -> i32 {
    match start(args) {
        Ok(mut shim) => {
            shim.serve();
            0
        }
        Err(error) => {
            eprintln!("damka cb-engine: {error}");
            2
        }
    }
}

fn start(args: CbEngineArgs) -> Result<Shim, String> {
    let path = std::path::absolute(&args.library)
        .map_err(|e| format!("{}: {e}", args.library.display()))?;
    if !path.is_file() {
        return Err(format!("cannot load {}: no such file", path.display()));
    }
    let dir = match args.dir {
        Some(dir) => dir,
        None => path.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    if !dir.as_os_str().is_empty() {
        std::env::set_current_dir(&dir)
            .map_err(|e| format!("cannot work in {}: {e}", dir.display()))?;
    }
    let out = protocol_output()?;
    let library = Library::load(&path)?;
    // CheckerBoard's questions when it loads an engine (`setcurrentengine`, `gametype`).
    let (named, name) = library.command("name");
    let name = if named != 0 && !name.is_empty() {
        name
    } else {
        path.file_name()
            .map_or("engine".into(), |n| n.to_string_lossy().into_owned())
    };
    library.command("get book");
    let (listed, reply) = library.command("get movelist B:W1:B");
    let lists_moves = listed != 0 && reply == "movelist 0";
    let gametype = engine_gametype(&library).unwrap_or(GameType::English);
    Ok(Shim {
        library: Arc::new(library),
        out,
        name,
        gametype,
        lists_moves,
        fen: None,
        moves: Vec::new(),
        new_game: true,
        initial_clock: 0.0,
        search: None,
    })
}

/// The game type the library says it plays (`None`: one damka does not play).
fn engine_gametype(library: &Library) -> Option<GameType> {
    let (value, reply) = library.command("get gametype");
    if value == 0 {
        // CheckerBoard's default for an engine that does not say.
        return Some(GameType::English);
    }
    reply.trim().parse().ok().and_then(GameType::from_number)
}

/// Our stdout for protocol lines. On Unix the process's stdout is then pointed at stderr, so
/// that whatever the library prints does not mix with the protocol.
fn protocol_output() -> Result<Box<dyn Write>, String> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let stdout = std::io::stdout();
        let copy = stdout
            .as_fd()
            .try_clone_to_owned()
            .map_err(|e| format!("cannot keep stdout: {e}"))?;
        rustix::stdio::dup2_stdout(std::io::stderr().as_fd())
            .map_err(|e| format!("cannot send the library's output to stderr: {e}"))?;
        Ok(Box::new(std::fs::File::from(copy)))
    }
    #[cfg(not(unix))]
    {
        Ok(Box::new(std::io::stdout()))
    }
}

/// Reads stdin lines on a thread of their own, without their `\n` or `\r\n` (closed at the end
/// of input, or at a line that is not UTF-8).
fn spawn_reader() -> Receiver<String> {
    spawn_line_reader("stdin-reader", BufReader::new(std::io::stdin()), |bytes| {
        let mut line = String::from_utf8(bytes).ok()?;
        if line.ends_with('\n') {
            line.pop();
            if line.ends_with('\r') {
                line.pop();
            }
        }
        Some(line)
    })
}

impl Shim {
    fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{text}").and_then(|()| self.out.flush());
    }

    fn info(&mut self, text: &str) {
        let text: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.line(&format!("info string {text}"));
    }

    fn serve(&mut self) {
        let lines = spawn_reader();
        loop {
            let wake = self.search.as_ref().and_then(|search| {
                if search.stopping {
                    Some(Duration::from_millis(10))
                } else {
                    search
                        .deadline
                        .map(|at| at.saturating_duration_since(Instant::now()))
                }
            });
            let timer = wake.map_or_else(never, after);
            let done = self
                .search
                .as_ref()
                .map_or_else(never, |search| search.done.clone());
            select! {
                // The end of input ends the session, as `quit` does.
                recv(lines) -> line => if !line.is_ok_and(|line| self.command(&line)) {
                    break;
                },
                recv(done) -> returned => if let Ok(returned) = returned {
                    self.answer(returned);
                },
                recv(timer) -> _ => self.play_now(),
            }
        }
        self.settle();
    }

    /// Sets `*playnow` of the running search (again).
    fn play_now(&mut self) {
        if let Some(search) = &mut self.search {
            if !search.stopping {
                log::debug!("setting playnow");
            }
            search.playnow.store(1, Ordering::Relaxed);
            search.stopping = true;
        }
    }

    /// Stops a running search and writes its answer, so that what comes next comes after it.
    /// An engine that does not return within a second of `*playnow` is left running (it is
    /// the host's to kill).
    fn settle(&mut self) {
        let Some(done) = self.search.as_ref().map(|s| s.done.clone()) else {
            return;
        };
        let give_up = Instant::now() + Duration::from_secs(1);
        while Instant::now() < give_up {
            self.play_now();
            if let Ok(returned) = done.recv_timeout(Duration::from_millis(10)) {
                self.answer(returned);
                return;
            }
        }
        log::warn!("getmove did not return after playnow");
    }

    /// One input line; false to end.
    fn command(&mut self, line: &str) -> bool {
        let command = match parse_command(line) {
            Ok(Some(command)) => command,
            Ok(None) => return true,
            Err(error) => {
                self.info(&format!("error: {error}"));
                return true;
            }
        };
        match command {
            Command::Uci => self.identify(),
            Command::IsReady => self.line("readyok"),
            Command::Debug(_) | Command::PonderHit => {}
            Command::Stop => self.play_now(),
            Command::Quit => return false,
            Command::SetOption { name, value } => {
                self.settle();
                self.set_option(&name, value.as_deref().unwrap_or(""));
            }
            Command::UciNewGame => {
                self.settle();
                self.new_game = true;
                self.initial_clock = 0.0;
            }
            Command::Position { fen, moves } => {
                let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
                match host_position(self.gametype, fen.as_deref(), &texts) {
                    Ok(_) => {
                        self.settle();
                        self.fen = fen;
                        self.moves = moves;
                    }
                    Err(error) => self.info(&format!("error: {error}")),
                }
            }
            Command::Go { go, searchmoves } => match self.check_go(&go, &searchmoves) {
                Ok(()) => {
                    self.settle();
                    self.go(&go);
                }
                Err(error) => self.info(&format!("error: {error}")),
            },
            Command::Display => self.display(),
            Command::Eval => match self.position() {
                Ok(position) => {
                    let fen = damka::checkerboard::board_fen(
                        &position.board,
                        position.color,
                        self.gametype,
                    );
                    let (_, reply) = self.library.command(&format!("staticevaluation {fen}"));
                    for line in reply.lines() {
                        self.info(line);
                    }
                }
                Err(error) => self.info(&format!("error: {error}")),
            },
            Command::Perft(_) => self.info("error: perft is not part of CheckerBoard's API"),
        }
        true
    }

    fn identify(&mut self) {
        self.line(&format!("id name {} (CheckerBoard engine)", self.name));
        self.line("id author the engine's authors; damka cb-engine");
        let names: Vec<&str> = GameType::ALL.iter().map(|t| t.variant().name()).collect();
        self.line(&format!(
            "option name Variant type combo default {} var {}",
            self.gametype.variant(),
            names.join(" var ")
        ));
        self.line("uciok");
    }

    fn set_option(&mut self, name: &str, value: &str) {
        if name.eq_ignore_ascii_case("variant") {
            match value.parse::<Variant>() {
                Ok(variant) => match GameType::of_variant(variant) {
                    Some(wanted) => self.set_gametype(wanted),
                    None => self.info(&format!(
                        "error: CheckerBoard has no game type for {variant}"
                    )),
                },
                Err(error) => self.info(&format!("error: {error}")),
            }
            return;
        }
        let command = format!("set {name} {value}");
        let (done, reply) = self.library.command(&command);
        // Engines answer 0 to settings they took (Cake does for enable_wld): say what it said.
        self.info(&format!("enginecommand '{command}' = {done}: {reply}"));
    }

    fn set_gametype(&mut self, wanted: GameType) {
        if engine_gametype(&self.library) != Some(wanted) {
            self.library
                .command(&format!("set gametype {}", wanted.number()));
        }
        match engine_gametype(&self.library) {
            Some(gametype) if gametype == wanted => {
                self.gametype = wanted;
                self.fen = None;
                self.moves.clear();
            }
            other => {
                let plays = other.map_or("another game type".to_string(), |t| {
                    format!("game type {} ({})", t.number(), t.variant())
                });
                self.info(&format!(
                    "error: the engine plays {plays}, not {} ({})",
                    wanted.number(),
                    wanted.variant()
                ));
            }
        }
    }

    fn position(&self) -> Result<HostPosition, String> {
        let texts: Vec<&str> = self.moves.iter().map(String::as_str).collect();
        host_position(self.gametype, self.fen.as_deref(), &texts)
    }

    fn display(&mut self) {
        let lines = match self.position() {
            Ok(position) => vec![
                format!("Engine: {}", self.name),
                format!(
                    "Game type: {} ({})",
                    self.gametype.number(),
                    self.gametype.variant()
                ),
                format!(
                    "Board: {}",
                    damka::checkerboard::board_fen(&position.board, position.color, self.gametype)
                ),
                format!("Legal moves: {}", position.legal_moves),
                format!("History: {}", position.gamehist),
            ],
            Err(error) => vec![format!("info string error: {error}")],
        };
        for line in lines {
            self.line(&line);
        }
    }

    /// Refuses what CheckerBoard's API cannot say (before a running search is stopped).
    fn check_go(&self, go: &Go, searchmoves: &[String]) -> Result<(), String> {
        if go.depth.is_some() || go.nodes.is_some() {
            return Err("a CheckerBoard engine takes a time, not a depth or node count".into());
        }
        if go.ponder {
            return Err("CheckerBoard's API has no pondering".into());
        }
        if !searchmoves.is_empty() {
            return Err("CheckerBoard's API has no searchmoves".into());
        }
        Ok(())
    }

    fn go(&mut self, go: &Go) {
        let position = match self.position() {
            Ok(position) => position,
            Err(error) => {
                self.info(&format!("error: {error}"));
                return;
            }
        };
        if position.legal_moves == 0 {
            self.info("game over: no legal move");
            self.line("bestmove (none)");
            return;
        }
        let white = position.color == damka::checkerboard::CB_WHITE;
        let clock = if white {
            (go.wtime_ms, go.winc_ms)
        } else {
            (go.btime_ms, go.binc_ms)
        };
        let mut info = if self.new_game { CB_RESET_MOVES } else { 0 };
        let mut moreinfo = 0;
        let seconds = |ms: i64| ms.max(0) as f64 / 1000.0;
        let (maxtime, deadline) = match (go.movetime_ms, clock) {
            (Some(ms), _) => {
                info |= CB_EXACT_TIME;
                (ms.max(1) as f64 / 1000.0, Some(Duration::from_millis(ms)))
            }
            (None, (Some(time), increment)) if !go.infinite => {
                let (remaining, increment) = (seconds(time), seconds(increment.unwrap_or(0)));
                self.initial_clock = self.initial_clock.max(remaining);
                let (bits, packed) = pack_incremental_times(remaining, increment);
                info |= bits;
                moreinfo = packed;
                (
                    maxtime_for_incremental(remaining, self.initial_clock, increment),
                    Some(Duration::from_millis(time.max(0) as u64)),
                )
            }
            // `go infinite` or no limit: until `stop`.
            _ => (86_400.0, None),
        };
        let (_, reply) = self.library.command(&position.gamehist);
        log::debug!("gamehist: {reply}");
        self.new_game = false;
        let playnow = Arc::new(AtomicI32::new(0));
        let (sender, done) = crossbeam_channel::bounded(1);
        let library = Arc::clone(&self.library);
        let flag = Arc::clone(&playnow);
        let mut board = position.board;
        let color = position.color;
        std::thread::spawn(move || {
            let mut status = vec![0u8; STATUS_SIZE];
            let mut cbmove = CbMove::default();
            let started = Instant::now();
            // SAFETY: every pointer is to memory this thread owns or shares through an Arc
            // for the whole call: the 64 ints of `board`, the 1024 bytes of `status`, the
            // playnow flag (an AtomicI32 has the layout of an int, and we only store to it
            // atomically from the other thread), `cbmove`. No other call into the library
            // runs meanwhile: the main thread sends commands only between searches.
            let value = unsafe {
                (library.getmove)(
                    board.as_mut_ptr(),
                    color,
                    maxtime,
                    status.as_mut_ptr().cast(),
                    flag.as_ptr(),
                    info,
                    moreinfo,
                    &mut cbmove,
                )
            };
            let _ = sender.send(Returned {
                value,
                board,
                cbmove,
                status: c_text(&status),
                elapsed: started.elapsed(),
            });
        });
        self.search = Some(Search {
            position,
            playnow,
            done,
            deadline: deadline.map(|d| Instant::now() + d),
            stopping: false,
        });
    }

    /// Writes the move `getmove` made (or why it made none).
    fn answer(&mut self, returned: Returned) {
        let Some(search) = self.search.take() else {
            return;
        };
        let value = match returned.value {
            0 => "draw",
            1 => "win",
            2 => "loss",
            3 => "unknown",
            _ => "?",
        };
        self.info(&format!(
            "getmove = {} ({value}) after {} ms: {}",
            returned.value,
            returned.elapsed.as_millis(),
            returned.status
        ));
        let position = &search.position;
        let by_board = self.gametype == GameType::English || self.lists_moves;
        let found = if by_board {
            position.move_by_board(&returned.board)
        } else {
            position.move_by_cbmove(&returned.cbmove)
        };
        match found {
            Ok(text) => self.line(&format!("bestmove {text}")),
            Err(illegal) => {
                self.info(&format!("illegal {} {}", illegal.played, illegal.why));
                self.line("bestmove (none)");
            }
        }
    }
}
