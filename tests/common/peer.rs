//! A running `damka` driven through pipes as a GUI drives it: lines in, lines out with the time each was read, every wait bounded.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// A `damka` child process and its stdout as a channel of timed lines.
pub struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
    /// Every line sent (`> `) and read (`< `), for failure messages.
    pub transcript: Vec<String>,
}

impl Peer {
    /// Starts `damka ARGS` with piped stdin and stdout (stderr dropped).
    pub fn start(args: &[&str]) -> Peer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damka"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("damka starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Peer {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: Vec::new(),
        }
    }

    /// Writes raw bytes to damka's stdin; the instant they were written.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Instant {
        self.transcript
            .push(format!("> {}", String::from_utf8_lossy(bytes).trim_end()));
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("damka reads its stdin");
        stdin.flush().expect("damka reads its stdin");
        Instant::now()
    }

    /// Writes one line; the instant it was written.
    pub fn send(&mut self, line: &str) -> Instant {
        self.send_bytes(format!("{line}\n").as_bytes())
    }

    /// The next line and when it was read, if one comes before `deadline`.
    pub fn next_before(&mut self, deadline: Instant) -> Option<(Instant, String)> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok((at, line)) => {
                self.transcript.push(format!("< {line}"));
                Some((at, line))
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Every line up to and including the first that `last` accepts, read within `limit`;
    /// panics with the transcript when it does not come.
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

    /// Closes damka's stdin (end of input).
    pub fn close(&mut self) {
        self.transcript.push("> (end of input)".into());
        self.stdin = None;
    }

    /// Waits up to `limit` for the process to exit; its status and the lines it wrote before
    /// its stdout closed.
    pub fn exit(&mut self, limit: Duration) -> (ExitStatus, Vec<String>) {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("waitpid") {
                let mut rest = Vec::new();
                while let Some((_, line)) = self.next_before(Instant::now() + limit) {
                    rest.push(line);
                }
                return (status, rest);
            }
            if Instant::now() > deadline {
                self.fail(&format!("damka did not exit within {limit:?}"));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Panics with `message` and the last lines of the transcript.
    pub fn fail(&self, message: &str) -> ! {
        let from = self.transcript.len().saturating_sub(60);
        panic!(
            "{message}\nlast lines:\n{}",
            self.transcript[from..].join("\n")
        );
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
