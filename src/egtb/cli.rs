//! The `damka egtb` commands: gen, verify, probe and count.

use super::generate::{generate, verify};
use super::probe::Tables;
use super::{Indexer, Material, family};
use crate::board::Geometry;
use crate::notation::fen::parse_fen;
use crate::rules::{Rules, Variant};
use crate::with_variant;
use clap::Subcommand;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The steps of `damka egtb`.
#[derive(Subcommand, Debug)]
pub enum EgtbCommand {
    /// Generate every slice up to N pieces (resumes: valid files already present are kept).
    ///
    /// Example: damka egtb gen --variant english --pieces 4 --dir egtb
    Gen {
        /// The rule set.
        #[arg(long, short, default_value = "english")]
        variant: Variant,
        /// The most pieces of a slice.
        #[arg(long)]
        pieces: usize,
        /// The table directory (files go to DIR/VARIANT/).
        #[arg(long, default_value = "egtb")]
        dir: PathBuf,
        /// Threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Check every stored value against its successors' values; exit 1 on any mismatch.
    ///
    /// Example: damka egtb verify --variant english --dir egtb
    Verify {
        /// The rule set.
        #[arg(long, short, default_value = "english")]
        variant: Variant,
        /// The table directory.
        #[arg(long, default_value = "egtb")]
        dir: PathBuf,
        /// Threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print `win`, `draw` or `loss` for the side to move (and the distance in plies, and
    /// each move's value with --moves); exit 2 when the position is not covered.
    ///
    /// Example: damka egtb probe --variant english "W:WK14:BK28,K32"
    Probe {
        /// The rule set.
        #[arg(long, short, default_value = "english")]
        variant: Variant,
        /// The table directory.
        #[arg(long, default_value = "egtb")]
        dir: PathBuf,
        /// Also list every legal move with its value.
        #[arg(long)]
        moves: bool,
        /// The position, PDN FEN.
        fen: String,
    },
    /// Play sampled won positions to the end: the winner is the engine searching with the
    /// tables, the loser defends with the tables' slowest loss; every game must end in the
    /// winner's favour within the promised number of plies (exit 1 otherwise).
    ///
    /// Example: damka egtb convert --variant international --pieces 4 --samples 200
    Convert {
        /// The rule set.
        #[arg(long, short, default_value = "english")]
        variant: Variant,
        /// The table directory.
        #[arg(long, default_value = "egtb")]
        dir: PathBuf,
        /// Sample positions of the slices with exactly this many pieces.
        #[arg(long)]
        pieces: usize,
        /// About how many won positions to play.
        #[arg(long, default_value_t = 200)]
        samples: u64,
        /// The engine's search depth per move.
        #[arg(long, default_value_t = 4)]
        depth: u32,
    },
    /// Time table probes of positions without a capture pending, as the search makes them
    /// (tables already in memory), and print nanoseconds per probe.
    ///
    /// Example: damka egtb speed --variant english --dir egtb
    Speed {
        /// The rule set.
        #[arg(long, short, default_value = "english")]
        variant: Variant,
        /// The table directory.
        #[arg(long, default_value = "egtb")]
        dir: PathBuf,
    },
    /// Print the number of positions (piece placements) with exactly N pieces, for N up to
    /// the given count, by summing the slices' index sizes (both sides' pieces may be absent).
    ///
    /// Example: damka egtb count --variant english --pieces 6
    Count {
        /// The rule set.
        #[arg(long, short, default_value = "english")]
        variant: Variant,
        /// The most pieces.
        #[arg(long)]
        pieces: usize,
    },
}

fn threads_or_all(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// Runs one `damka egtb` command; returns the exit code.
pub fn run(command: EgtbCommand) -> i32 {
    match command {
        EgtbCommand::Gen {
            variant,
            pieces,
            dir,
            threads,
        } => with_variant!(variant, R => run_gen::<R>(&dir, pieces, threads_or_all(threads))),
        EgtbCommand::Verify {
            variant,
            dir,
            threads,
        } => with_variant!(variant, R => run_verify::<R>(&dir, threads_or_all(threads))),
        EgtbCommand::Probe {
            variant,
            dir,
            moves,
            fen,
        } => with_variant!(variant, R => run_probe::<R>(&dir, &fen, moves)),
        EgtbCommand::Convert {
            variant,
            dir,
            pieces,
            samples,
            depth,
        } => with_variant!(variant, R => run_convert::<R>(&dir, pieces, samples, depth)),
        EgtbCommand::Speed { variant, dir } => with_variant!(variant, R => run_speed::<R>(&dir)),
        EgtbCommand::Count { variant, pieces } => {
            with_variant!(variant, R => run_count::<R>(pieces))
        }
    }
}

/// Placements with exactly `pieces` pieces, both colours' pieces counted (either side may
/// have none), for the published totals of checkers positions.
pub fn positions_with<R: Rules>(pieces: usize) -> u64 {
    let man_squares = R::Geometry::SQUARES - R::Geometry::PER_ROW;
    let n = pieces as u8;
    let mut total = 0;
    for wm in 0..=n {
        for wk in 0..=n - wm {
            for bm in 0..=n - wm - wk {
                let bk = n - wm - wk - bm;
                if usize::from(wm) > man_squares || usize::from(bm) > man_squares {
                    continue;
                }
                total += Indexer::new::<R>(Material::new(wm, wk, bm, bk)).size();
            }
        }
    }
    total
}

fn run_count<R: Rules>(pieces: usize) -> i32 {
    if pieces > super::MAX_PIECES {
        eprintln!("damka egtb count: at most {} pieces", super::MAX_PIECES);
        return 2;
    }
    for n in 1..=pieces {
        println!("{n} pieces: {} positions", positions_with::<R>(n));
    }
    0
}

fn run_gen<R: Rules>(dir: &Path, pieces: usize, threads: usize) -> i32 {
    if family(R::VARIANT).is_none() {
        eprintln!(
            "damka egtb gen: {} has no endgame tables (see docs/egtb.md)",
            R::VARIANT.name()
        );
        return 2;
    }
    if !(2..=super::MAX_PIECES).contains(&pieces) {
        eprintln!(
            "damka egtb gen: --pieces must be from 2 to {}",
            super::MAX_PIECES
        );
        return 2;
    }
    let progress = std::io::stderr().is_terminal();
    match generate::<R>(dir, pieces, threads, progress) {
        Ok(report) => {
            for (material, positions, seconds, bytes) in &report.solved {
                println!("{material}: {positions} positions, {seconds:.2} s, {bytes} bytes");
            }
            let positions: u64 = report.solved.iter().map(|s| s.1).sum();
            let bytes: usize = report.solved.iter().map(|s| s.3).sum();
            println!(
                "generated {} slices ({positions} positions, {bytes} bytes), kept {} valid files, {:.1} s",
                report.solved.len(),
                report.loaded,
                report.elapsed.as_secs_f64()
            );
            0
        }
        Err(error) => {
            eprintln!("damka egtb gen: {error}");
            1
        }
    }
}

fn run_verify<R: Rules>(dir: &Path, threads: usize) -> i32 {
    let (tables, errors) = Tables::open::<R>(dir);
    for error in &errors {
        eprintln!("damka egtb verify: {error}");
    }
    if tables.is_empty() {
        eprintln!(
            "damka egtb verify: no {} tables under {}",
            R::VARIANT.name(),
            dir.display()
        );
        return 2;
    }
    let progress = std::io::stderr().is_terminal();
    let result = verify::<R>(&tables, threads, progress);
    for line in &result.mismatches {
        println!("mismatch: {line}");
    }
    println!(
        "verified {} slices, {} stored positions ({} more with a capture pending derived): {} wins, {} draws, {} losses, {} mismatches",
        tables.len(),
        result.positions,
        result.derived,
        result.wins,
        result.draws,
        result.losses,
        result.mismatch_count
    );
    if result.mismatch_count == 0 && errors.is_empty() {
        0
    } else {
        1
    }
}

fn run_probe<R: Rules>(dir: &Path, fen: &str, moves: bool) -> i32 {
    let position = match parse_fen::<R>(fen) {
        Ok(position) => position,
        Err(error) => {
            eprintln!("damka egtb probe: bad FEN: {error}");
            return 2;
        }
    };
    let material = super::Placement::of(&position).material();
    let family = family(R::VARIANT).unwrap_or("none");
    // Only the slice asked for (and, for --moves, its successors') is loaded.
    let mut tables = Tables::new(R::VARIANT);
    let mut wanted = vec![material];
    if moves {
        for mv in position.legal_moves().iter() {
            wanted.push(super::Placement::of(&position.play(mv)).material());
        }
    }
    for m in wanted {
        if m.white_men + m.white_kings == 0 || m.black_men + m.black_kings == 0 {
            continue;
        }
        if tables.slice(m).is_some() {
            continue;
        }
        let path = super::file::slice_path(dir, family, m);
        if !path.exists() {
            continue;
        }
        match Tables::load_slice::<R>(dir, m) {
            Ok(slice) => tables.insert(std::sync::Arc::new(slice)),
            Err(error) => {
                eprintln!("damka egtb probe: {error}");
                return 2;
            }
        }
    }
    let Some(value) = tables.probe(&position) else {
        eprintln!(
            "damka egtb probe: not covered: no {} table for slice {material} under {}",
            R::VARIANT.name(),
            dir.display()
        );
        return 2;
    };
    println!("{}", value.wdl());
    println!("{value}");
    if moves && let Some(ranked) = tables.rank_moves(&position) {
        let legal = position.legal_moves();
        for (mv, value) in ranked {
            println!(
                "{} {value}",
                crate::notation::movetext::write_move_in(&position, &mv, &legal)
            );
        }
    }
    0
}

/// What [`convert_wins`] found.
#[derive(Clone, Debug, Default)]
pub struct Conversion {
    /// Won positions played.
    pub played: u64,
    /// Games the winner won within the promised plies.
    pub converted: u64,
    /// The longest game, plies.
    pub longest: u32,
    /// Games the winner won with more than the variant's no-progress plies between two
    /// captures or man moves (a real game would have been drawn by that rule).
    pub past_no_progress_rule: u64,
    /// The first few failures (FEN and what happened).
    pub failures: Vec<String>,
}

/// Plays about `samples` won positions with `pieces` pieces to the end (see
/// [`EgtbCommand::Convert`]).
pub fn convert_wins<R: Rules>(
    tables: &std::sync::Arc<Tables>,
    pieces: usize,
    samples: u64,
    depth: u32,
) -> Conversion {
    use super::Value;
    use crate::search::tt::TranspositionTable;
    use crate::search::{GameContext, Limits, Searcher, Shared};
    let slices: Vec<_> = tables
        .slices()
        .filter(|s| s.indexer.material().total() == pieces)
        .collect();
    let total: u64 = slices.iter().map(|s| s.indexer.size()).sum();
    let mut result = Conversion::default();
    if total == 0 {
        return result;
    }
    // Won positions are about a third to a half of all: sample twice as densely.
    let step = (total / samples.max(1) / 2).max(1);
    let tt = std::sync::Arc::new(TranspositionTable::new(16));
    let limits = Limits {
        depth: Some(depth),
        multipv: 1,
        ..Limits::default()
    };
    let no_progress = R::DRAW_RULES.no_progress_plies;
    let mut offset = 0u64;
    for slice in slices {
        let size = slice.indexer.size();
        let mut index = offset % step;
        while index < size {
            let start = slice.indexer.placement(index).position::<R>();
            index += step;
            let Some(Value::Win(promised)) = tables.probe(&start) else {
                continue;
            };
            result.played += 1;
            let mut position = start;
            let mut plies = 0u32;
            let mut quiet = 0u32;
            let mut worst_quiet = 0u32;
            let outcome = loop {
                let legal = position.legal_moves();
                if legal.is_empty() {
                    break if plies % 2 == 1 {
                        Ok(())
                    } else {
                        Err("the winner has no move".to_string())
                    };
                }
                if plies > promised {
                    break Err(format!("not over after {promised} plies"));
                }
                let mv = if plies.is_multiple_of(2) {
                    tt.clear();
                    let shared = Shared::new(std::sync::Arc::clone(&tt), false)
                        .with_egtb(Some(std::sync::Arc::clone(tables)));
                    let outcome = Searcher::<R>::new(&shared, &limits, 0).run(
                        &position,
                        &GameContext::default(),
                        &mut |_| {},
                    );
                    match outcome.best {
                        Some(mv) => mv,
                        None => break Err("the engine gave no move".to_string()),
                    }
                } else {
                    match tables.rank_moves(&position) {
                        Some(ranked) => ranked[0].0,
                        None => break Err("a position left the tables".to_string()),
                    }
                };
                let man_moved = position.kings() & (1u64 << mv.from) == 0;
                quiet = if mv.is_capture() || man_moved {
                    0
                } else {
                    quiet + 1
                };
                worst_quiet = worst_quiet.max(quiet);
                position = position.play(&mv);
                plies += 1;
            };
            match outcome {
                Ok(()) => {
                    result.converted += 1;
                    result.longest = result.longest.max(plies);
                    if no_progress > 0 && worst_quiet >= no_progress {
                        result.past_no_progress_rule += 1;
                    }
                }
                Err(error) => {
                    if result.failures.len() < 10 {
                        result.failures.push(format!(
                            "{} (win in {promised}): {error}",
                            crate::notation::fen::write_fen(&start)
                        ));
                    }
                }
            }
        }
        offset += size;
    }
    result
}

fn run_convert<R: Rules>(dir: &Path, pieces: usize, samples: u64, depth: u32) -> i32 {
    let (tables, errors) = Tables::open::<R>(dir);
    for error in &errors {
        eprintln!("damka egtb convert: {error}");
    }
    if !errors.is_empty() || tables.max_pieces() < pieces {
        eprintln!(
            "damka egtb convert: the {} tables under {} must hold every slice up to {pieces} pieces",
            R::VARIANT.name(),
            dir.display()
        );
        return 2;
    }
    let started = std::time::Instant::now();
    let result = convert_wins::<R>(&std::sync::Arc::new(tables), pieces, samples, depth);
    for failure in &result.failures {
        println!("failed: {failure}");
    }
    println!(
        "played {} won {pieces}-piece positions: {} converted within the promised plies, longest {} plies, {} past the no-progress rule, {:.1} s",
        result.played,
        result.converted,
        result.longest,
        result.past_no_progress_rule,
        started.elapsed().as_secs_f64()
    );
    i32::from(result.converted != result.played || result.played == 0)
}

fn run_speed<R: Rules>(dir: &Path) -> i32 {
    let started = std::time::Instant::now();
    let (tables, errors) = Tables::open::<R>(dir);
    if !errors.is_empty() || tables.is_empty() {
        for error in &errors {
            eprintln!("damka egtb speed: {error}");
        }
        eprintln!("damka egtb speed: no usable {} tables", R::VARIANT.name());
        return 2;
    }
    let load = started.elapsed().as_secs_f64();
    // About 100,000 positions spread over every slice, those with a capture pending left out
    // (the search does not probe them).
    let total: u64 = tables.slices().map(|s| s.indexer.size()).sum();
    let step = (total / 100_000).max(1);
    let mut positions = Vec::new();
    let mut offset = 0;
    for slice in tables.slices() {
        let mut index = offset % step;
        while index < slice.indexer.size() {
            let position = slice.indexer.placement(index).position::<R>();
            if !position.has_capture() {
                positions.push(position);
            }
            index += step;
        }
        offset += slice.indexer.size();
    }
    let rounds = 20;
    let timer = std::time::Instant::now();
    let mut checksum = 0u64;
    for _ in 0..rounds {
        for position in &positions {
            checksum += u64::from(tables.code(position).unwrap_or(0));
        }
    }
    let probes = positions.len() as u64 * rounds;
    let nanos = timer.elapsed().as_nanos() as f64 / probes as f64;
    println!(
        "{} slices loaded in {load:.2} s; {probes} probes of {} positions: {nanos:.0} ns per probe (checksum {checksum})",
        tables.len(),
        positions.len()
    );
    0
}
