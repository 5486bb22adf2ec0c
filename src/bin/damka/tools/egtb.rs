//! The `damka egtb` commands: gen, verify, probe, convert, speed, count, status and upgrade.

use super::given_position;
use crate::tools::egtb_convert::convert_wins;
use clap::Subcommand;
use damka::egtb::generate::{GenOptions, Progress, Solved, generate_bounded};
use damka::egtb::probe::Tables;
use damka::egtb::verify::{SliceCheck, VerifyOptions, verify_dir};
use damka::egtb::{ValueKind, family, positions_with};
use damka::rules::{Rules, Variant};
use damka::with_variant;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
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
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The most pieces of a slice.
        #[arg(long)]
        pieces: usize,
        /// The table directory (files go to DIR/VARIANT/; default: the default table
        /// directory, ~/.local/share/damka/egtb, which the engine reads at start).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Store win, draw or loss only (no distance) in the slices of this many pieces or
        /// more: smaller files, and no limit on how long a win may take (docs/egtb.md).
        #[arg(long, value_name = "PIECES")]
        wdl_from: Option<usize>,
        /// Memory the run may use, in GB (default: 80% of what the machine has available
        /// when the run starts). A slice pair too large to solve whole is solved a part at
        /// a time, and slices solved before are read from their files when holding them
        /// would pass the bound (docs/egtb.md, "Memory").
        #[arg(long, value_name = "GB", allow_negative_numbers = true)]
        memory: Option<f64>,
    },
    /// Check every stored value against its successors' values; exit 1 on any mismatch.
    ///
    /// Slices are checked a pair at a time and each result is recorded in the family's
    /// folder (`verified`), so that `--resume` goes on after a stopped run.
    ///
    /// Example: damka egtb verify --variant english --dir egtb --resume
    Verify {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The table directory (default: the default table directory).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Memory the check may use, in GB (default: 80% of the memory available when it
        /// starts). Slices checked before are read from their files when holding them
        /// would pass it.
        #[arg(long, value_name = "GB", allow_negative_numbers = true)]
        memory: Option<f64>,
        /// Skip the slices an earlier run found clean, if their files are unchanged.
        #[arg(long)]
        resume: bool,
    },
    /// Print `win`, `draw` or `loss` for the side to move (and the distance in plies, and
    /// each move's value with --moves); exit 2 when the position is not covered.
    ///
    /// Example: damka egtb probe --variant english "W:WK14:BK28,K32"
    Probe {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The table directory (default: the default table directory).
        #[arg(long)]
        dir: Option<PathBuf>,
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
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The table directory (default: the default table directory).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Sample positions of the slices with exactly this many pieces.
        #[arg(long)]
        pieces: usize,
        /// About how many won positions to play.
        #[arg(long, default_value_t = 200)]
        samples: u64,
        /// The engine's search depth per move.
        #[arg(long, default_value_t = 4)]
        depth: u32,
        /// Tables with distances for the loser's slowest loss and the promised plies
        /// (default: --dir's, which then must hold distances); needed when --dir holds
        /// win/draw/loss slices, whose wins the engine must then convert before any draw
        /// rule ends the game.
        #[arg(long)]
        defence: Option<PathBuf>,
    },
    /// Time table probes of positions without a capture pending, as the search makes them,
    /// and print nanoseconds per probe: tables loaded whole into memory, or with --cache
    /// read from their files on demand as the engine does (first round: blocks read;
    /// later rounds: from the cache, when it holds them all).
    ///
    /// Example: damka egtb speed --variant english --cache 1024
    Speed {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The table directory (default: the default table directory).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Probe from the files through a block cache of this many MB (as EGTBCache).
        #[arg(long)]
        cache: Option<usize>,
    },
    /// Print the number of positions (piece placements) with exactly N pieces, for N up to
    /// the given count, by summing the slices' index sizes (both sides' pieces may be absent).
    ///
    /// Example: damka egtb count --variant english --pieces 6
    Count {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The most pieces.
        #[arg(long)]
        pieces: usize,
    },
    /// List the tables in a directory: per variant and piece count, the slices present (of
    /// all there are), their positions and bytes on disk, and files the engine would refuse.
    ///
    /// Example: damka egtb status
    Status {
        /// The table directory (default: the default table directory).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Rewrite a variant's version-1 table files in the current format (version 2, with a
    /// checksum per block, which the engine checks when it reads a block); each file is
    /// checked whole first and replaced atomically. Files already current are left alone.
    ///
    /// Example: damka egtb upgrade --variant english
    Upgrade {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The table directory (default: the default table directory).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

/// The progress bar of `gen` and `verify` on stderr, drawn only when stderr is a terminal.
struct Bar {
    bar: ProgressBar,
    visible: bool,
}

impl Bar {
    /// A bar in `style` (indicatif's default style when `None`), not drawn before
    /// [`Progress::start`].
    fn new(style: Option<ProgressStyle>) -> Bar {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        if let Some(style) = style {
            bar.set_style(style);
        }
        Bar {
            bar,
            visible: std::io::stderr().is_terminal(),
        }
    }
}

impl Progress for Bar {
    /// As `ProgressBar::new(total)` would start: the length set and the clock started
    /// before the bar is first drawn.
    fn start(&mut self, total: u64) {
        self.bar.set_length(total);
        self.bar.reset_elapsed();
        if self.visible {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn message(&mut self, text: &str) {
        self.bar.set_message(text.to_string());
    }

    fn advance(&mut self, positions: u64) {
        self.bar.inc(positions);
    }

    fn finish(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The directory a command works on: the one given, else the default table directory.
fn table_dir(dir: Option<PathBuf>, command: &str) -> Result<PathBuf, i32> {
    match dir.or_else(damka::egtb::default_dir) {
        Some(dir) => Ok(dir),
        None => {
            eprintln!(
                "damka egtb {command}: no --dir given and no default table directory (neither XDG_DATA_HOME nor HOME is set)"
            );
            Err(2)
        }
    }
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
            wdl_from,
            memory,
        } => match table_dir(dir, "gen") {
            Ok(dir) => {
                let options = GenOptions {
                    threads: threads_or_all(threads),
                    wdl_from,
                    memory: None,
                    ..GenOptions::default()
                };
                with_variant!(variant, R => run_gen::<R>(&dir, pieces, options, memory))
            }
            Err(code) => code,
        },
        EgtbCommand::Verify {
            variant,
            dir,
            threads,
            memory,
            resume,
        } => match (table_dir(dir, "verify"), memory_bound(memory, "verify")) {
            (Ok(dir), Ok(memory)) => {
                let options = VerifyOptions {
                    threads: threads_or_all(threads),
                    memory,
                    resume,
                };
                with_variant!(variant, R => run_verify::<R>(&dir, &options))
            }
            (Err(code), _) | (_, Err(code)) => code,
        },
        EgtbCommand::Probe {
            variant,
            dir,
            moves,
            fen,
        } => match table_dir(dir, "probe") {
            Ok(dir) => with_variant!(variant, R => run_probe::<R>(&dir, &fen, moves)),
            Err(code) => code,
        },
        EgtbCommand::Convert {
            variant,
            dir,
            pieces,
            samples,
            depth,
            defence,
        } => match table_dir(dir, "convert") {
            Ok(dir) => {
                let defence = defence.unwrap_or_else(|| dir.clone());
                with_variant!(variant, R => run_convert::<R>(&dir, &defence, pieces, samples, depth))
            }
            Err(code) => code,
        },
        EgtbCommand::Speed {
            variant,
            dir,
            cache,
        } => match table_dir(dir, "speed") {
            Ok(dir) => with_variant!(variant, R => run_speed::<R>(&dir, cache)),
            Err(code) => code,
        },
        EgtbCommand::Count { variant, pieces } => {
            with_variant!(variant, R => run_count::<R>(pieces))
        }
        EgtbCommand::Status { dir } => match table_dir(dir, "status") {
            Ok(dir) => run_status(&dir),
            Err(code) => code,
        },
        EgtbCommand::Upgrade { variant, dir } => match table_dir(dir, "upgrade") {
            Ok(dir) => with_variant!(variant, R => run_upgrade::<R>(&dir)),
            Err(code) => code,
        },
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

/// Bytes of memory available now (Linux's `MemAvailable`), if known.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text
        .lines()
        .find(|line| line.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// What a run may take by default: 80% of the memory available now, if known (the rest is
/// left to the system and whatever else runs).
fn usable_memory() -> Option<u64> {
    available_memory().map(|bytes| bytes / 10 * 8)
}

/// The bytes `--memory GB` allows `damka egtb COMMAND`, by default [`usable_memory`]; exit
/// code 2 after one line when it is not a number of GB.
fn memory_bound(memory_gb: Option<f64>, command: &str) -> Result<Option<u64>, i32> {
    match memory_gb {
        Some(gb) if !(gb.is_finite() && gb >= 0.01) => {
            eprintln!("damka egtb {command}: --memory must be a number of GB, at least 0.01");
            Err(2)
        }
        Some(gb) => Ok(Some((gb * 1e9) as u64)),
        None => Ok(usable_memory()),
    }
}

fn run_gen<R: Rules>(
    dir: &Path,
    pieces: usize,
    mut options: GenOptions,
    memory_gb: Option<f64>,
) -> i32 {
    let wdl_from = options.wdl_from;
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
    if wdl_from.is_some_and(|from| !(2..=pieces).contains(&from)) {
        eprintln!("damka egtb gen: --wdl-from must be from 2 to --pieces ({pieces})");
        return 2;
    }
    options.memory = match memory_bound(memory_gb, "gen") {
        Ok(memory) => memory,
        Err(code) => return code,
    };
    let mut progress = Bar::new(Some(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} positions  {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    ));
    let bar = progress.bar.clone();
    // Each slice's line as soon as its file is written, flushed: a long run shows its
    // progress in a log too. The bar is taken off the screen while the line is written.
    let mut print_slice = |&(material, positions, seconds, bytes): &Solved| {
        bar.suspend(|| {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "{material}: {positions} positions, {seconds:.2} s, {bytes} bytes"
            );
            let _ = out.flush();
        });
    };
    match generate_bounded::<R>(dir, pieces, &options, &mut progress, &mut print_slice) {
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

fn run_verify<R: Rules>(dir: &Path, options: &VerifyOptions) -> i32 {
    let mut progress = Bar::new(None);
    let bar = progress.bar.clone();
    // Each slice's line as soon as it is checked, flushed (a long check shows its progress
    // in a log too).
    let mut print_slice = |check: &SliceCheck| {
        bar.suspend(|| {
            let mut out = std::io::stdout().lock();
            let found = &check.found;
            let _ = writeln!(
                out,
                "{}: {} positions, {} mismatches, {:.2} s{}",
                check.material,
                found.positions,
                found.mismatch_count,
                check.seconds,
                if check.on_demand {
                    " (read on demand: the pair does not fit the memory bound)"
                } else {
                    ""
                }
            );
            let _ = out.flush();
        });
    };
    let result = match verify_dir::<R>(dir, options, &mut progress, &mut print_slice) {
        Ok(result) => result,
        Err(error) => {
            eprintln!("damka egtb verify: {error}");
            return 2;
        }
    };
    for error in &result.errors {
        eprintln!("damka egtb verify: {error}");
    }
    let found = &result.found;
    for line in &found.mismatches {
        println!("mismatch: {line}");
    }
    let skipped = if result.skipped > 0 {
        format!(
            " ({} more skipped: found clean before, files unchanged)",
            result.skipped
        )
    } else {
        String::new()
    };
    println!(
        "verified {} slices{skipped}, {} stored positions ({} more with a capture pending derived): {} wins, {} draws, {} losses, {} mismatches",
        result.checked,
        found.positions,
        found.derived,
        found.wins,
        found.draws,
        found.losses,
        found.mismatch_count
    );
    if found.mismatch_count == 0 && result.errors.is_empty() {
        0
    } else {
        1
    }
}

fn run_probe<R: Rules>(dir: &Path, fen: &str, moves: bool) -> i32 {
    let position = match given_position::<R>(Some(fen), "damka egtb probe: bad FEN") {
        Ok(position) => position,
        Err(status) => return status,
    };
    let material = damka::egtb::Placement::of(&position).material();
    // Only headers are read; the blocks a lookup needs are read from the files.
    let (tables, errors) = Tables::open_on_demand::<R>(dir, 16 << 20);
    if let Some(error) = errors.first() {
        eprintln!("damka egtb probe: {error}");
        return 2;
    }
    let value = tables.probe(&position);
    let ranked = moves.then(|| tables.rank_moves(&position)).flatten();
    // A block that could not be read is a damaged file, not a position the tables lack.
    if let Some(error) = tables.failures().first() {
        eprintln!("damka egtb probe: {error}");
        return 2;
    }
    let Some(value) = value else {
        eprintln!(
            "damka egtb probe: not covered: no {} table for slice {material} under {}",
            R::VARIANT.name(),
            dir.display()
        );
        return 2;
    };
    println!("{}", value.wdl());
    println!("{value}");
    if let Some(ranked) = ranked {
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

fn run_convert<R: Rules>(
    dir: &Path,
    defence_dir: &Path,
    pieces: usize,
    samples: u64,
    depth: u32,
) -> i32 {
    let open = |dir: &Path| {
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
            return None;
        }
        Some(tables)
    };
    let Some(winner) = open(dir) else { return 2 };
    let defence = if defence_dir == dir {
        None
    } else {
        match open(defence_dir) {
            Some(tables) => Some(tables),
            None => return 2,
        }
    };
    let winner = std::sync::Arc::new(winner);
    let defence = defence.as_ref().unwrap_or(&winner);
    if let Some(slice) = defence
        .slices()
        .find(|s| s.indexer.material().total() <= pieces && s.kind == ValueKind::WinDrawLoss)
    {
        eprintln!(
            "damka egtb convert: {} under {} holds no distances, which the defence needs: give --defence DIR with distance tables (damka egtb gen without --wdl-from)",
            slice.indexer.material(),
            defence_dir.display()
        );
        return 2;
    }
    let started = std::time::Instant::now();
    let result = convert_wins::<R>(&winner, defence, pieces, samples, depth);
    for failure in &result.failures {
        println!("failed: {failure}");
    }
    // Wins the winner's tables hold without distance have no promise to keep.
    let criterion = if result.without_distance == 0 {
        "the promised plies".to_string()
    } else {
        format!(
            "the promised plies or, for the {} without distance, the draw rules",
            result.without_distance
        )
    };
    println!(
        "played {} won {pieces}-piece positions: {} converted within {criterion}, longest {} plies, {} past the no-progress rule, {:.1} s",
        result.played,
        result.converted,
        result.longest,
        result.past_no_progress_rule,
        started.elapsed().as_secs_f64()
    );
    i32::from(result.converted != result.played || result.played == 0)
}

fn run_speed<R: Rules>(dir: &Path, cache_mb: Option<usize>) -> i32 {
    let started = std::time::Instant::now();
    let (tables, errors) = match cache_mb {
        None => Tables::open::<R>(dir),
        Some(mb) => Tables::open_on_demand::<R>(dir, mb << 20),
    };
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
    let mut checksum = 0u64;
    let mut round_nanos = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let timer = std::time::Instant::now();
        for position in &positions {
            checksum += u64::from(tables.code(position).unwrap_or(0));
        }
        round_nanos.push(timer.elapsed().as_nanos() as f64 / positions.len().max(1) as f64);
    }
    let later = &round_nanos[1..];
    let steady = later.iter().sum::<f64>() / later.len() as f64;
    let how = match cache_mb {
        None => "loaded whole".to_string(),
        Some(mb) => format!("opened on demand ({mb} MB cache)"),
    };
    println!(
        "{} slices {how} in {load:.2} s; {} positions, {rounds} rounds: first round {:.0} ns per probe, later rounds {steady:.0} ns per probe (checksum {checksum})",
        tables.len(),
        positions.len(),
        round_nanos[0]
    );
    if let Some((hits, misses, capacity)) = tables.cache_counts() {
        println!("block cache: {hits} hits, {misses} blocks read, {capacity} blocks held at most");
    }
    0
}

fn run_status(dir: &Path) -> i32 {
    println!("{}", dir.display());
    if !dir.is_dir() {
        println!("no table directory (damka egtb gen --variant V --pieces N writes one)");
        return 0;
    }
    let mut any = false;
    for variant in Variant::ALL {
        if family(variant).is_none() || !dir.join(variant.name()).is_dir() {
            continue;
        }
        any = true;
        with_variant!(variant, R => print_status::<R>(dir));
    }
    if !any {
        println!("no tables");
    }
    0
}

/// One variant's lines of `damka egtb status`.
fn print_status<R: Rules>(dir: &Path) {
    use damka::egtb::Material;
    use damka::egtb::file::BlockFile;
    let present = Tables::materials_in::<R>(dir).unwrap_or_default();
    let family = family(R::VARIANT).unwrap_or("none");
    let most = present.iter().map(Material::total).max().unwrap_or(0);
    println!("{}:", R::VARIANT.name());
    let mut refused = Vec::new();
    let mut old = 0;
    let clean = damka::egtb::verify::found_clean::<R>(dir);
    for pieces in 2..=most {
        let all: Vec<Material> = Material::all::<R>(pieces)
            .into_iter()
            .filter(|m| m.total() == pieces)
            .collect();
        let (mut slices, mut positions, mut bytes, mut wdl) = (0, 0u64, 0u64, 0);
        for m in all.iter().filter(|m| present.contains(m)) {
            let indexer = damka::egtb::Indexer::new::<R>(*m);
            let path = damka::egtb::file::slice_path(dir, family, *m);
            match BlockFile::open(&path, R::VARIANT, *m, indexer.size()) {
                Ok(file) => {
                    slices += 1;
                    positions += indexer.size();
                    bytes += file.file_size();
                    old += usize::from(file.version() < damka::egtb::file::VERSION);
                    wdl += usize::from(file.kind() == damka::egtb::ValueKind::WinDrawLoss);
                }
                Err(error) => refused.push(error.to_string()),
            }
        }
        let complete = if slices == all.len() {
            "complete".to_string()
        } else {
            format!("incomplete, {} missing", all.len() - slices)
        };
        let kind = match wdl {
            0 => String::new(),
            n if n == slices => ", win/draw/loss".to_string(),
            n => format!(", {n} win/draw/loss"),
        };
        let verified = all.iter().filter(|m| clean.contains(m)).count();
        let verified = match verified {
            0 => String::new(),
            n if n == slices => ", verified".to_string(),
            n => format!(", {n} verified"),
        };
        println!(
            "  {pieces} pieces: {slices} of {} slices ({complete}), {positions} positions, {bytes} bytes{kind}{verified}",
            all.len()
        );
    }
    for saved in damka::egtb::generate::checkpoints::<R>(dir) {
        println!(
            "  {}: {} of {} parts solved by an unfinished generation (damka egtb gen with --pieces {} or more resumes from them)",
            saved.material,
            saved.saved,
            saved.parts,
            saved.material.total()
        );
    }
    if old > 0 {
        println!(
            "  {old} files in format version 1 (no block checksums): damka egtb upgrade --variant {} rewrites them",
            R::VARIANT.name()
        );
    }
    for reason in refused {
        println!("  refused: {reason}");
    }
}

fn run_upgrade<R: Rules>(dir: &Path) -> i32 {
    use damka::egtb::file::{SliceFile, VERSION, encode, slice_path, write_atomically};
    let materials = match Tables::materials_in::<R>(dir) {
        Ok(materials) => materials,
        Err(error) => {
            eprintln!("damka egtb upgrade: {error}");
            return 2;
        }
    };
    let family = family(R::VARIANT).unwrap_or("none");
    let (mut rewritten, mut current, mut failed) = (0, 0, 0);
    for m in materials {
        let path = slice_path(dir, family, m);
        let size = damka::egtb::Indexer::new::<R>(m).size();
        let result = SliceFile::open(&path, R::VARIANT, m, size).and_then(|file| {
            if file.version() >= VERSION {
                return Ok(false);
            }
            let values = file.decode_all(&path)?;
            write_atomically(&path, &encode(R::VARIANT, m, &values, file.kind()))
                .map(|()| true)
                .map_err(|e| damka::egtb::file::FileError {
                    path: path.clone(),
                    reason: e.to_string(),
                })
        });
        match result {
            Ok(true) => rewritten += 1,
            Ok(false) => current += 1,
            Err(error) => {
                eprintln!("damka egtb upgrade: {error}");
                failed += 1;
            }
        }
    }
    println!("rewrote {rewritten} files, {current} already current, {failed} refused");
    i32::from(failed > 0)
}
