//! The one driver of a running `damka` in the tests: lines in, lines out with the time each was read, stderr collected, every wait bounded.

use crossbeam_channel::{Receiver, RecvTimeoutError};
use damka::protocol::reader::spawn_line_reader;
use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, Instant};

/// How many of the last lines (both directions) a failure message shows.
const RECENT: usize = 80;

/// [`super::process::damka_command`] with all three streams piped, for tests that read the
/// pipes themselves.
pub fn damka_command(args: &[&str]) -> Command {
    let mut command = super::process::damka_command(args);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// A line cut short for a failure message.
pub fn shown(text: &str) -> String {
    let mut short: String = text.chars().take(160).collect();
    if short.len() < text.len() {
        short.push_str(&format!("... ({} bytes)", text.len()));
    }
    short
}

/// Why no line came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Silence {
    /// The deadline passed.
    Timeout,
    /// damka closed its stdout.
    Closed,
}

/// A `damka` child process: its stdin fed by a writer thread (so that a test never blocks on
/// a full pipe), its stdout as a channel of timed lines (bytes that are not UTF-8 shown as
/// U+FFFD), its stderr collected.
pub struct Peer {
    child: Child,
    input: Option<Sender<Vec<u8>>>,
    lines: Receiver<(Instant, String)>,
    stderr: Receiver<Vec<u8>>,
    /// What damka wrote on stderr so far, as far as it was taken from `stderr`.
    stderr_read: Vec<u8>,
    /// The last lines sent (`> `) and read (`< `), for failure messages.
    recent: VecDeque<String>,
    /// Said with every failure (for example the seed that replays a test).
    note: String,
}

impl Peer {
    /// Starts `damka ARGS`.
    pub fn start(args: &[&str]) -> Peer {
        let mut child = damka_command(args).spawn().expect("damka starts");
        let mut stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (input, chunks) = channel::<Vec<u8>>();
        std::thread::spawn(move || {
            for chunk in chunks {
                if stdin
                    .write_all(&chunk)
                    .and_then(|()| stdin.flush())
                    .is_err()
                {
                    break;
                }
            }
        });
        // Each line is timed as it is read, not when the test takes it.
        let lines = spawn_line_reader("peer-stdout", BufReader::new(stdout), |mut bytes| {
            if bytes.last() == Some(&b'\n') {
                bytes.pop();
            }
            Some((Instant::now(), String::from_utf8_lossy(&bytes).into_owned()))
        });
        let stderr = spawn_line_reader("peer-stderr", BufReader::new(stderr), Some);
        Peer {
            child,
            input: Some(input),
            lines,
            stderr,
            stderr_read: Vec::new(),
            recent: VecDeque::new(),
            note: String::new(),
        }
    }

    /// The same peer, saying `note` with every failure.
    pub fn with_note(mut self, note: String) -> Peer {
        self.note = note;
        self
    }

    fn remember(&mut self, entry: String) {
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(entry);
    }

    /// Queues raw bytes for damka's stdin and returns at once: the instant just before they
    /// were queued.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Instant {
        for line in String::from_utf8_lossy(bytes).lines() {
            self.remember(format!("> {}", shown(line)));
        }
        // Taken before the bytes are queued: a reply can only be read after it, however late
        // this thread runs again (a stamp taken after the send lost that order under load).
        let queued = Instant::now();
        let sent = self.input.as_ref().map(|input| input.send(bytes.to_vec()));
        if !matches!(sent, Some(Ok(()))) {
            self.fail("damka no longer reads its input");
        }
        queued
    }

    /// Sends one line; the instant just before it was queued.
    pub fn send(&mut self, line: &str) -> Instant {
        self.send_bytes(format!("{line}\n").as_bytes())
    }

    /// The next line and when it was read, or why none came before `deadline`.
    pub fn next_line(&mut self, deadline: Instant) -> Result<(Instant, String), Silence> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok((at, line)) => {
                self.remember(format!("< {}", shown(&line)));
                Ok((at, line))
            }
            Err(RecvTimeoutError::Timeout) => Err(Silence::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(Silence::Closed),
        }
    }

    /// The next line and when it was read, if one comes before `deadline`.
    pub fn next_before(&mut self, deadline: Instant) -> Option<(Instant, String)> {
        self.next_line(deadline).ok()
    }

    /// The next line if one comes before `deadline` (`None` then); fails when stdout closes.
    pub fn line_or_timeout(&mut self, deadline: Instant) -> Option<String> {
        match self.next_line(deadline) {
            Ok((_, line)) => Some(line),
            Err(Silence::Timeout) => None,
            Err(Silence::Closed) => {
                let status = self.child.try_wait().ok().flatten();
                self.fail(&format!("damka closed its stdout (exit status {status:?})"))
            }
        }
    }

    /// The next line, which must come before `deadline`: fails when the deadline passes
    /// (saying it waited for `what`) or stdout closes.
    pub fn line_before(&mut self, deadline: Instant, what: &str) -> String {
        match self.line_or_timeout(deadline) {
            Some(line) => line,
            None => self.fail(&format!("no line in time while waiting for {what}")),
        }
    }

    /// Every line up to and including the first that `last` accepts, read within `limit`;
    /// fails when it does not come.
    pub fn until(
        &mut self,
        limit: Duration,
        last: impl Fn(&str) -> bool,
    ) -> Vec<(Instant, String)> {
        let deadline = Instant::now() + limit;
        let mut lines = Vec::new();
        loop {
            let Some((at, line)) = self.next_before(deadline) else {
                self.fail(&format!("no awaited line within {limit:?}"));
            };
            let done = last(&line);
            lines.push((at, line));
            if done {
                return lines;
            }
        }
    }

    /// Lines read within `quiet` (all of them, until none comes for that long).
    pub fn drain(&mut self, quiet: Duration) -> Vec<String> {
        let mut lines = Vec::new();
        while let Some((_, line)) = self.next_before(Instant::now() + quiet) {
            lines.push(line);
        }
        lines
    }

    /// Fails when a line arrives within `quiet` (saying `why`).
    pub fn silent(&mut self, quiet: Duration, why: &str) {
        if let Ok((_, line)) = self.next_line(Instant::now() + quiet) {
            self.fail(&format!("{why}: unexpected line {}", shown(&line)));
        }
    }

    /// Closes damka's stdin (end of input).
    pub fn close(&mut self) {
        self.remember("> (end of input)".into());
        self.input = None;
    }

    /// Waits up to `limit` for the process to exit: its status, the lines it wrote before its
    /// stdout closed (which must close within 5 s of the exit), and its stderr.
    pub fn exit(&mut self, limit: Duration) -> (ExitStatus, Vec<String>, String) {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for damka") {
                break status;
            }
            if Instant::now() > deadline {
                self.fail(&format!("damka did not exit within {limit:?}"));
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let mut rest = Vec::new();
        loop {
            match self.next_line(Instant::now() + Duration::from_secs(5)) {
                Ok((_, line)) => rest.push(line),
                Err(Silence::Closed) => break,
                Err(Silence::Timeout) => self.fail("stdout stays open after the exit"),
            }
        }
        // damka has exited: its stderr ends too.
        self.stderr_read.extend(self.stderr.iter().flatten());
        let stderr = String::from_utf8_lossy(&self.stderr_read).into_owned();
        (status, rest, stderr)
    }

    /// True while the process runs.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("wait for damka").is_none()
    }

    /// What damka has written on stderr so far.
    pub fn stderr_so_far(&mut self) -> String {
        self.stderr_read.extend(self.stderr.try_iter().flatten());
        String::from_utf8_lossy(&self.stderr_read).into_owned()
    }

    /// Panics with `message`, the note and the last lines in both directions.
    pub fn fail(&self, message: &str) -> ! {
        let recent: Vec<&str> = self.recent.iter().map(String::as_str).collect();
        let note = if self.note.is_empty() {
            String::new()
        } else {
            format!("\n{}", self.note)
        };
        panic!("{message}{note}\nlast lines:\n{}", recent.join("\n"));
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
