//! Cross-checks damka's legal move sets against two independent libraries, pydraughts and py-draughts, on positions they reach by random playouts.
//!
//! The oracles (`tests/crosscheck/*.py`) run in their own virtual environments under
//! `target/pyenv/`, made by `scripts/pyenv.sh`; they print each position as a PDN FEN and its
//! legal moves as `from-to` or `fromxto:captured,...`. A missing Python or a failed install
//! fails these tests with the script's message: they are never skipped.

mod common;

use common::{repo_root, venv_python};
use damka::notation::fen::parse_fen;
use damka::notation::number_of_bit;
use damka::{Bits, Color, Rules};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Positions compared per variant and library (the issue asks for at least 2,000).
const POSITIONS: usize = 2500;

/// One oracle line: a FEN and its sorted legal moves.
struct OracleLine {
    fen: String,
    moves: Vec<String>,
    /// The winner pydraughts sees (`W`, `B`, `-`), for the variants with their own goal.
    winner: Option<String>,
}

fn run_oracle(python: &Path, script: &str, variant: &str, seed: u64) -> Vec<OracleLine> {
    run_oracle_script(python, script, variant, seed, POSITIONS, &[])
}

/// [`run_oracle`] of pydraughts with `positions` positions and extra oracle arguments.
fn run_oracle_n(
    python: &Path,
    variant: &str,
    seed: u64,
    positions: usize,
    extra: &[&str],
) -> Vec<OracleLine> {
    run_oracle_script(
        python,
        "pydraughts_oracle.py",
        variant,
        seed,
        positions,
        extra,
    )
}

fn run_oracle_script(
    python: &Path,
    script: &str,
    variant: &str,
    seed: u64,
    positions: usize,
    extra: &[&str],
) -> Vec<OracleLine> {
    let output = Command::new(python)
        .arg(repo_root().join("tests/crosscheck").join(script))
        .args(["--variant", variant])
        .args(["--positions", &positions.to_string()])
        .args(extra)
        .args(["--seed", &seed.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    assert!(
        output.status.success(),
        "{script} --variant {variant} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("oracle output is UTF-8");
    let lines: Vec<OracleLine> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split('\t');
            let fen = fields.next().unwrap_or_default();
            let moves = fields
                .next()
                .unwrap_or_else(|| panic!("oracle line without a tab: {line:?}"));
            let mut moves: Vec<String> = moves.split_whitespace().map(str::to_string).collect();
            moves.sort();
            OracleLine {
                fen: fen.to_string(),
                moves,
                winner: fields.next().map(str::to_string),
            }
        })
        .collect();
    assert!(
        lines.len() >= 2000,
        "{script} gave only {} positions for {variant}",
        lines.len()
    );
    lines
}

/// damka's legal moves in the oracles' format, sorted.
fn damka_moves<R: Rules>(fen: &str) -> Vec<String> {
    let position =
        parse_fen::<R>(fen).unwrap_or_else(|e| panic!("damka rejects oracle FEN {fen}: {e}"));
    let mut moves: Vec<String> = position
        .legal_moves()
        .iter()
        .map(|mv| {
            let from = number_of_bit::<R>(mv.from);
            let to = number_of_bit::<R>(mv.to);
            if mv.is_capture() {
                let mut captured: Vec<u32> = Bits(mv.captured)
                    .map(|bit| number_of_bit::<R>(bit as u8))
                    .collect();
                captured.sort_unstable();
                let list: Vec<String> = captured.iter().map(u32::to_string).collect();
                format!("{from}x{to}:{}", list.join(","))
            } else {
                format!("{from}-{to}")
            }
        })
        .collect();
    moves.sort();
    moves
}

/// The winner damka sees in a position, as the oracle writes it (`W`, `B`, `-`), draw rules
/// aside: the first king in breakthrough, the side that cannot move in antidraughts.
fn damka_winner<R: Rules>(fen: &str) -> String {
    let position = parse_fen::<R>(fen).expect("oracle FEN");
    let winner = position.decided_winner().or_else(|| {
        position
            .legal_moves()
            .is_empty()
            .then(|| position.winner_when_stuck())
    });
    match winner {
        Some(Color::White) => "W".to_string(),
        Some(Color::Black) => "B".to_string(),
        None => "-".to_string(),
    }
}

fn compare<R: Rules>(lines: &[OracleLine], library: &str) {
    compare_with_kings::<R>(lines, library, 10);
}

/// [`compare`], with at least one position in `kings_every` holding a king.
fn compare_with_kings<R: Rules>(lines: &[OracleLine], library: &str, kings_every: usize) {
    let mut mismatches = Vec::new();
    let mut decided = 0;
    let mut captures = 0;
    let mut with_kings = 0;
    for line in lines {
        let ours = damka_moves::<R>(&line.fen);
        if line.moves.iter().any(|m| m.contains('x')) {
            captures += 1;
        }
        if line.fen.contains('K') {
            with_kings += 1;
        }
        if let Some(theirs) = &line.winner {
            let winner = damka_winner::<R>(&line.fen);
            if winner != "-" {
                decided += 1;
            }
            if &winner != theirs {
                mismatches.push(format!(
                    "{}\n  winner by {library}: {theirs}, by damka: {winner}",
                    line.fen
                ));
            }
        }
        if ours != line.moves {
            mismatches.push(format!(
                "{}\n  {library}: {}\n  damka:   {}",
                line.fen,
                line.moves.join(" "),
                ours.join(" ")
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} {} positions differ from {library}; first ones:\n{}",
        mismatches.len(),
        lines.len(),
        R::VARIANT,
        mismatches
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The sample must exercise captures and kings, or the comparison proves little.
    assert!(captures * 10 >= lines.len(), "too few captures: {captures}");
    assert!(
        with_kings * kings_every >= lines.len(),
        "too few kings: {with_kings}"
    );
    // Where the goal is compared, finished games must be among the positions.
    if lines.iter().any(|line| line.winner.is_some()) {
        assert!(decided >= 10, "too few finished games: {decided}");
    }
}

fn pydraughts() -> PathBuf {
    venv_python("pydraughts", "pydraughts==0.6.7")
}

fn py_draughts() -> PathBuf {
    venv_python("pydraughts2", "py-draughts==1.10.1")
}

#[test]
fn pydraughts_international() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "international", 11);
    compare::<damka::rules::International>(&lines, "pydraughts");
}

#[test]
fn pydraughts_english() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "english", 12);
    compare::<damka::rules::English>(&lines, "pydraughts");
}

#[test]
fn pydraughts_russian() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "russian", 13);
    compare::<damka::rules::Russian>(&lines, "pydraughts");
}

#[test]
fn pydraughts_brazilian() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "brazilian", 14);
    compare::<damka::rules::Brazilian>(&lines, "pydraughts");
}

#[test]
fn pydraughts_antidraughts() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "antidraughts", 15);
    compare::<damka::rules::Antidraughts>(&lines, "pydraughts");
}

/// The first king ends a breakthrough game, so only the last position of a game holds one.
#[test]
fn pydraughts_breakthrough() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "breakthrough", 16);
    compare_with_kings::<damka::rules::Breakthrough>(&lines, "pydraughts", 100);
}

/// Frisian: pydraughts counts a king as 1.501 men where the rules (lidraughts' 199 against
/// 100, DCTL) make `n` kings worth just under `2n` men; the two only part when one capture
/// takes three kings more and five men fewer than another, which random games never reach.
/// The oracle computes each move set from the FEN alone (no limit on a king's moves in a
/// row, which depends on the moves before), as damka reads the FEN.
#[test]
fn pydraughts_frisian() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "frisian", 17);
    compare::<damka::rules::Frisian>(&lines, "pydraughts");
}

#[test]
fn pydraughts_frysk() {
    let lines = run_oracle(&pydraughts(), "pydraughts_oracle.py", "frysk", 18);
    compare::<damka::rules::Frysk>(&lines, "pydraughts");
}

/// Turkish: pydraughts 0.6.7's flying kings are wrong (`tests/data/perft.json` notes; a king
/// slides through its own men), so positions where the side to move has a king are left out
/// here; `tests/turkish.rs` checks king moves on hand-worked positions and against kish.
/// The random games give more than 2,500 positions, keeping every quiet one (the oracle
/// otherwise keeps positions with kings first), so that enough remain.
#[test]
fn pydraughts_turkish() {
    let lines = run_oracle_n(&pydraughts(), "turkish", 19, 3900, &["--quiet-keep", "1"]);
    let without_kings: Vec<OracleLine> = lines
        .into_iter()
        .filter(|line| {
            let mut parts = line.fen.split(':');
            let side = parts.next().unwrap_or_default();
            !parts.any(|list| list.starts_with(side) && list.contains('K'))
        })
        .collect();
    assert!(
        without_kings.len() >= POSITIONS,
        "only {} Turkish positions without a king of the side to move",
        without_kings.len()
    );
    compare_with_kings::<damka::rules::Turkish>(&without_kings, "pydraughts", 1000);
}

#[test]
fn py_draughts_international() {
    let lines = run_oracle(&py_draughts(), "pydraughts2_oracle.py", "international", 21);
    compare::<damka::rules::International>(&lines, "py-draughts");
}

#[test]
fn py_draughts_russian() {
    let lines = run_oracle(&py_draughts(), "pydraughts2_oracle.py", "russian", 22);
    compare::<damka::rules::Russian>(&lines, "py-draughts");
}

#[test]
fn py_draughts_brazilian() {
    let lines = run_oracle(&py_draughts(), "pydraughts2_oracle.py", "brazilian", 23);
    compare::<damka::rules::Brazilian>(&lines, "py-draughts");
}
