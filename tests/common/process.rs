//! Running the damka binary in tests: given arguments and stdin, with a time limit, collecting its output.

use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub const DAMKA: &str = env!("CARGO_BIN_EXE_damka");

/// What a finished run left behind.
#[derive(Debug)]
pub struct Run {
    /// Everything written to stdout.
    pub stdout: String,
    /// Everything written to stderr.
    pub stderr: String,
    /// The exit code (`None` when killed by a signal).
    pub code: Option<i32>,
}

/// `damka ARGS` as every test starts it: logging off (RUST_LOG removed), no colours, and no
/// endgame tables from the default directory ([`super::without_default_tables`]).
pub fn damka_command(args: &[&str]) -> Command {
    let mut command = Command::new(DAMKA);
    command
        .args(args)
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1");
    super::without_default_tables(&mut command);
    command
}

/// Runs `damka ARGS` with `input` on stdin (closed after it); panics when it takes longer
/// than `limit` (the process is killed first).
pub fn run_damka(args: &[&str], input: &[u8], limit: Duration) -> Run {
    let (run, finished) = run_limited(&mut damka_command(args), input, limit);
    assert!(
        finished,
        "damka {args:?} took more than {limit:?}:\n{}\n{}",
        run.stderr, run.stdout
    );
    run
}

/// [`run_damka`] with `args` after `command`, asserting that it exits with code 0.
pub fn run_damka_ok(command: &str, args: &[&str], input: &[u8], limit: Duration) -> Run {
    let mut all = vec![command];
    all.extend_from_slice(args);
    let run = run_damka(&all, input, limit);
    assert_eq!(
        run.code,
        Some(0),
        "damka {all:?} failed:\n{}\n{}",
        run.stderr,
        run.stdout
    );
    run
}

/// Waits for `child` to exit, calling `poke` before each look (every 20 ms); fails with `what`
/// once `deadline` has passed.
pub fn wait_for_exit(
    child: &mut Child,
    deadline: Instant,
    mut poke: impl FnMut(),
    what: &str,
) -> ExitStatus {
    loop {
        poke();
        if let Some(status) = child.try_wait().expect("wait for the child process") {
            return status;
        }
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `command` with `input` on stdin (closed after it), collecting stdout and stderr;
/// kills it when it takes longer than `limit`. Returns the run and whether it finished in time.
pub fn run_limited(command: &mut Command, input: &[u8], limit: Duration) -> (Run, bool) {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    // A writer thread: the child may stop reading early (quit), so a broken pipe is fine.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child process") {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = writer.join();
    let run = Run {
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
        code: status.and_then(|s| s.code()),
    };
    (run, status.is_some())
}
