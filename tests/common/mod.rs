//! Helpers shared by the integration tests (a module of the one test crate, `tests/integration.rs`); each test file takes what it needs from `crate::common`.

pub mod hub;
pub mod oracle;
pub mod peer;
pub mod process;
pub mod retro;

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

/// The seeded generator of every seeded test: the library's SplitMix64, so a test case is
/// fully described by its seed.
pub use damka::random::SplitMix;

/// One `#[test]` a line, `name: expression;` (doc comments allowed before a line), for the
/// tests that are one call of a shared check with their own arguments: each runs, and fails,
/// on its own.
macro_rules! test_cases {
    ($($(#[$attr:meta])* $name:ident: $check:expr;)*) => {
        $(
            $(#[$attr])*
            #[test]
            fn $name() {
                $check;
            }
        )*
    };
}
pub(crate) use test_cases;

/// The `go` commands the UCI stress tests cycle through (`tests/uci.rs`,
/// `tests/protocol_fuzz.rs`), each followed by a `stop`: every kind of limit, pondering and
/// `searchmoves` (of the English start position).
pub const STRESS_GOS: [&str; 7] = [
    "go infinite",
    "go depth 2",
    "go nodes 300",
    "go movetime 2",
    "go ponder",
    "go wtime 50 btime 50",
    "go depth 3 searchmoves 9-13 10-14",
];

/// The turn of the tests that time an engine or run searches whose timing they check: they
/// take it one at a time, as two searches at once disturb each other. One lock for the
/// whole test binary, whose tests of every file run in parallel.
pub fn serial() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Points a child process's default endgame-table directory (`$XDG_DATA_HOME/damka/egtb`,
/// which the engine reads at start) at a folder under `target/` that holds no tables, so
/// that tables a developer generated into the real default directory change no test.
pub fn without_default_tables(command: &mut Command) -> &mut Command {
    command.env(
        "XDG_DATA_HOME",
        repo_root().join("target").join("no-default-tables"),
    )
}

/// A fresh path `target/<folder>/<name>` for a file a test writes: the folder is made and an
/// old file of that name removed; the file is kept after the test for inspection.
pub fn scratch(folder: &str, name: &str) -> PathBuf {
    let dir = repo_root().join("target").join(folder);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("make {}: {e}", dir.display()));
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// A fresh, empty folder `target/tmp/<name>` for the files a test writes (an old one of that
/// name is removed first); kept after the test for inspection.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("make {}: {e}", dir.display()));
    dir
}

/// The JSON on the `summary ` line of a Python helper's output; fails, with the helper's
/// stderr and stdout, when `what` did not succeed or printed no summary.
pub fn json_summary(what: &str, output: &std::process::Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("summary "))
        .unwrap_or_else(|| panic!("no summary in:\n{stdout}"));
    serde_json::from_str(line).expect("summary is JSON")
}

/// Runs `command` (`what`, in failure messages) to its end; fails, with its stderr, when it
/// cannot start or does not succeed.
pub fn succeeded(command: &mut Command, what: &str) -> std::process::Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The python of a virtual environment holding `requirement`, made on first use by
/// `scripts/pyenv.sh` (which fails, with its reason, when Python 3, venv or pip is missing).
pub fn venv_python(name: &str, requirement: &str) -> PathBuf {
    let script = repo_root().join("scripts/pyenv.sh");
    let output = succeeded(
        Command::new("bash").arg(&script).arg(name).arg(requirement),
        &format!("{} {name} {requirement}", script.display()),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let path = stdout
        .lines()
        .last()
        .expect("pyenv.sh prints the python path")
        .trim();
    PathBuf::from(path)
}

/// pydraughts' report on each game of a PDN file in pydraughts' `variant`, one JSON object a
/// game (see tests/play/pdn_replay.py): pydraughts replays every move and checks the result.
pub fn pydraughts_replay(path: &std::path::Path, variant: &str) -> Vec<serde_json::Value> {
    let python = venv_python("pydraughts", "pydraughts==0.6.7");
    let script = repo_root().join("tests/play/pdn_replay.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(path)
        .arg(variant)
        .output()
        .expect("run pdn_replay.py");
    serde_json::from_value(json_summary("pdn_replay.py", &output))
        .expect("the summary is a list of games")
}
