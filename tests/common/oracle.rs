//! The oracle side of the cross-checks: running the Python oracles and comparing their move sets (and winners) with damka's.

use super::{repo_root, succeeded, venv_python};
use damka::notation::fen::parse_fen;
use damka::notation::number_of_bit;
use damka::{Bits, Color, Move, Position, Rules};
use std::path::PathBuf;
use std::process::Command;

/// Positions compared per variant and library (the issue asks for at least 2,000).
pub const POSITIONS: usize = 2500;

/// One oracle line: a FEN and its sorted legal moves.
pub struct OracleLine {
    pub fen: String,
    pub moves: Vec<String>,
    /// The winner pydraughts sees (`W`, `B`, `-`), for the variants with their own goal.
    pub winner: Option<String>,
}

/// The two oracle libraries, each in its own virtual environment with its own script.
#[derive(Clone, Copy)]
pub enum Library {
    /// pydraughts 0.6.7 (`pydraughts_oracle.py`).
    Pydraughts,
    /// py-draughts 1.10.1 (`pydraughts2_oracle.py`).
    PyDraughts,
}

impl Library {
    /// The name the mismatch reports give.
    pub fn name(self) -> &'static str {
        match self {
            Library::Pydraughts => "pydraughts",
            Library::PyDraughts => "py-draughts",
        }
    }

    /// The oracle script, in `tests/crosscheck/`.
    pub fn script(self) -> &'static str {
        match self {
            Library::Pydraughts => "pydraughts_oracle.py",
            Library::PyDraughts => "pydraughts2_oracle.py",
        }
    }

    /// The Python of its virtual environment (made on first use).
    pub fn python(self) -> PathBuf {
        match self {
            Library::Pydraughts => pydraughts(),
            Library::PyDraughts => py_draughts(),
        }
    }
}

/// One cross-check: [`POSITIONS`] positions of `variant` that `library` reaches from `seed`,
/// their move sets [`compare_with_kings`]d with damka's (`R`).
pub fn cross_check<R: Rules>(library: Library, variant: &str, seed: u64, kings_every: usize) {
    let lines = run_oracle(library, variant, seed, POSITIONS, &[]);
    compare_with_kings::<R>(&lines, library.name(), kings_every);
}

/// The oracle lines of `library` for `variant`: `positions` positions from random games
/// seeded with `seed`, with `extra` oracle arguments.
pub fn run_oracle(
    library: Library,
    variant: &str,
    seed: u64,
    positions: usize,
    extra: &[&str],
) -> Vec<OracleLine> {
    let script = library.script();
    let output = succeeded(
        Command::new(library.python())
            .arg(repo_root().join("tests/crosscheck").join(script))
            .args(["--variant", variant])
            .args(["--positions", &positions.to_string()])
            .args(extra)
            .args(["--seed", &seed.to_string()]),
        &format!("{script} --variant {variant}"),
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

/// A move in the oracles' format: `fromxto:captured,...` (captured squares sorted) or
/// `from-to`, in PDN numbers.
pub fn oracle_move<R: Rules>(mv: &Move) -> String {
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
}

/// damka's legal moves in a position in the oracles' format, sorted.
pub fn oracle_moves<R: Rules>(position: &Position<R>) -> Vec<String> {
    let mut moves: Vec<String> = position
        .legal_moves()
        .iter()
        .map(oracle_move::<R>)
        .collect();
    moves.sort();
    moves
}

/// damka's legal moves in the oracles' format, sorted.
pub fn damka_moves<R: Rules>(fen: &str) -> Vec<String> {
    let position =
        parse_fen::<R>(fen).unwrap_or_else(|e| panic!("damka rejects oracle FEN {fen}: {e}"));
    oracle_moves(&position)
}

/// The winner damka sees in a position, as the oracle writes it (`W`, `B`, `-`), draw rules
/// aside: the first king in breakthrough, the side that cannot move in antidraughts.
pub fn damka_winner<R: Rules>(fen: &str) -> String {
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

/// The oracle's move sets (and winners, where it gives them) against damka's for `R`, on a
/// sample with enough captures (one position in ten), kings (one in `kings_every`) and,
/// where winners are compared, finished games.
pub fn compare_with_kings<R: Rules>(lines: &[OracleLine], library: &str, kings_every: usize) {
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

pub fn pydraughts() -> PathBuf {
    venv_python("pydraughts", "pydraughts==0.6.7")
}

pub fn py_draughts() -> PathBuf {
    venv_python("pydraughts2", "py-draughts==1.10.1")
}
