//! The `damka egtb` commands: gen, verify, probe, convert, speed and count.

use clap::Subcommand;
use damka::egtb::convert::convert_wins;
use damka::egtb::generate::{Solved, generate_with, verify};
use damka::egtb::probe::Tables;
use damka::egtb::{family, positions_with};
use damka::notation::fen::parse_fen;
use damka::rules::{Rules, Variant};
use damka::with_variant;
use std::io::{IsTerminal, Write};
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

fn run_count<R: Rules>(pieces: usize) -> i32 {
    if pieces > damka::egtb::MAX_PIECES {
        eprintln!(
            "damka egtb count: at most {} pieces",
            damka::egtb::MAX_PIECES
        );
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
    if !(2..=damka::egtb::MAX_PIECES).contains(&pieces) {
        eprintln!(
            "damka egtb gen: --pieces must be from 2 to {}",
            damka::egtb::MAX_PIECES
        );
        return 2;
    }
    let progress = std::io::stderr().is_terminal();
    // Each slice's line as soon as its file is written, flushed: a long run shows its
    // progress in a log too.
    let mut print_slice = |&(material, positions, seconds, bytes): &Solved| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "{material}: {positions} positions, {seconds:.2} s, {bytes} bytes"
        );
        let _ = out.flush();
    };
    match generate_with::<R>(dir, pieces, threads, progress, &mut print_slice) {
        Ok(report) => {
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
    let material = damka::egtb::Placement::of(&position).material();
    let family = family(R::VARIANT).unwrap_or("none");
    // Only the slice asked for (and, for --moves, its successors') is loaded.
    let mut tables = Tables::new(R::VARIANT);
    let mut wanted = vec![material];
    if moves {
        for mv in position.legal_moves().iter() {
            wanted.push(damka::egtb::Placement::of(&position.play(mv)).material());
        }
    }
    for m in wanted {
        if m.white_men + m.white_kings == 0 || m.black_men + m.black_kings == 0 {
            continue;
        }
        if tables.slice(m).is_some() {
            continue;
        }
        let path = damka::egtb::file::slice_path(dir, family, m);
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
                damka::notation::movetext::write_move_in(&position, &mv, &legal)
            );
        }
    }
    0
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
