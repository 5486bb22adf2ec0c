//! `damka tune endings` and `damka tune relabel`: fit data whose endings carry the endgame tables' result instead of a game's.
//!
//! Self-play with `tune gen --egtb` ends each game at its first position the tables hold, so
//! the fitted evaluation never sees an ending of that size: English's network scored two
//! kings against one at 66 to 85 centi-men (docs/nets.md). These positions fill the hole
//! with exact labels instead of game results: each is drawn at random (a piece count, the
//! pieces split between the sides, each piece a king with a share drawn per position, men
//! off the row where they would be crowned), kept only when neither side has a capture and
//! the side to move has a move, and written as `FEN;RESULT` with the tables' result from
//! White's point of view, the format `tune gen` writes.
//!
//! `relabel` mends older data the other way: games played to the end without tables label
//! every ending with what a shallow search made of it, often a draw thrown away or a win
//! missed. It copies `FEN;RESULT[;SCORE]` files and replaces the result of each quiet
//! position the tables hold by theirs (a score by the clamped win or 0 of `tune gen
//! --scores`).

use super::tune::{SCORE_CLAMP, is_quiet, table_result};
use damka::board::Geometry;
use damka::egtb::probe::Tables;
use damka::notation::fen::{parse_fen, write_fen};
use damka::position::Position;
use damka::random::SplitMix;
use damka::rules::{Color, Rules, Variant};
use damka::with_variant;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::PathBuf;

/// What `damka tune endings` was asked for (its command-line options).
#[derive(Clone, Debug, clap::Args)]
pub struct EndingsConfig {
    /// The rule set.
    #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
    pub variant: Variant,
    /// The endgame tables that label the positions (a directory as for `EGTBPath`).
    #[arg(long)]
    pub egtb: PathBuf,
    /// Positions to write.
    #[arg(long)]
    pub positions: usize,
    /// The fewest pieces on the board (both sides together).
    #[arg(long, default_value_t = 2)]
    pub min_pieces: usize,
    /// The most pieces on the board; at most what the tables hold.
    #[arg(long)]
    pub max_pieces: Option<usize>,
    /// Seed of the random positions: the same seed writes the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The output file.
    #[arg(long)]
    pub out: PathBuf,
}

/// A random board of `count` pieces (at least two), at least one a side, no man on the row
/// where it would have been crowned; the side to move drawn too.
fn random_ending<R: Rules>(rng: &mut SplitMix, count: usize) -> Position<R> {
    let squares = R::Geometry::SQUARES;
    let white_count = 1 + rng.below(count - 1);
    // Endings range from all men to all kings: the share of kings is drawn per position.
    let king_quarters = rng.below(5);
    let mut sides = [0u64; 2];
    let mut kings = 0u64;
    for index in 0..count {
        let (side, color) = if index < white_count {
            (0, Color::White)
        } else {
            (1, Color::Black)
        };
        let king = rng.below(4) < king_quarters;
        loop {
            let bit = 1u64 << R::Geometry::BIT_OF[rng.below(squares)];
            if (sides[0] | sides[1]) & bit != 0
                || (!king && Position::<R>::promotion_row(color) & bit != 0)
            {
                continue;
            }
            sides[side] |= bit;
            if king {
                kings |= bit;
            }
            break;
        }
    }
    let side = if rng.below(2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    Position::from_parts(sides[0], sides[1], kings, side)
}

/// Writes `config.positions` labelled endings; returns how many of each result (White's
/// wins, draws, losses).
fn write_endings<R: Rules>(
    config: &EndingsConfig,
    tables: &Tables,
    max_pieces: usize,
    out: &mut impl Write,
    bar: &ProgressBar,
) -> std::io::Result<[usize; 3]> {
    let mut rng = SplitMix(config.seed);
    let mut tally = [0usize; 3];
    let mut written = 0;
    let mut misses = 0u64;
    while written < config.positions {
        // Tables with a slice missing could leave nothing to write: stop rather than spin.
        if misses > 10_000_000 {
            return Err(std::io::Error::other(
                "ten million draws in a row were not covered by the tables",
            ));
        }
        let count = config.min_pieces + rng.below(max_pieces - config.min_pieces + 1);
        let position = random_ending::<R>(&mut rng, count);
        if !is_quiet(&position) || position.legal_moves().is_empty() {
            continue;
        }
        let Some(result) = table_result(tables, &position) else {
            misses += 1;
            continue;
        };
        misses = 0;
        tally[match result {
            "1" => 0,
            "0.5" => 1,
            _ => 2,
        }] += 1;
        writeln!(out, "{};{result}", write_fen(&position))?;
        written += 1;
        if written % 4096 == 0 {
            bar.set_position(written as u64);
        }
    }
    Ok(tally)
}

/// The tables in `dir` and a writer on `out` for `command` (`endings` or `relabel`), or
/// `None` once the message of what failed is on stderr.
fn open_tables_and_output(
    command: &str,
    dir: &std::path::Path,
    variant: Variant,
    out: &std::path::Path,
) -> Option<(
    damka::engine::LoadedTables,
    std::io::BufWriter<std::fs::File>,
)> {
    let fail = |message: String| eprintln!("damka tune {command}: {message}");
    // Random draws probe all over the tables: a large block cache.
    let loaded = damka::engine::load_tables(&dir.to_string_lossy(), variant, 1024)
        .map_err(|error| fail(format!("--egtb {}: {error}", dir.display())))
        .ok()?;
    let file = std::fs::File::create(out)
        .map_err(|error| fail(format!("cannot write {}: {error}", out.display())))
        .ok()?;
    Some((loaded, std::io::BufWriter::new(file)))
}

/// Runs `damka tune endings`; returns the exit code.
pub fn run_endings(config: &EndingsConfig) -> i32 {
    let Some((loaded, mut out)) =
        open_tables_and_output("endings", &config.egtb, config.variant, &config.out)
    else {
        return 2;
    };
    let held = loaded.tables.max_pieces();
    let max_pieces = config.max_pieces.unwrap_or(held);
    if held < 2 || max_pieces > held || config.min_pieces < 2 || config.min_pieces > max_pieces {
        eprintln!(
            "damka tune endings: the tables in {} hold up to {held} pieces; --min-pieces {} and --max-pieces {max_pieces} must satisfy 2 <= min <= max <= {held}",
            config.egtb.display(),
            config.min_pieces
        );
        return 2;
    }
    let bar = ProgressBar::new(config.positions as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} positions, eta {eta}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let tables = &loaded.tables;
    let written = with_variant!(config.variant, R => write_endings::<R>(config, tables, max_pieces, &mut out, &bar))
        .and_then(|tally| out.flush().map(|()| tally));
    bar.finish();
    match written {
        Ok([wins, draws, losses]) => {
            eprintln!(
                "damka tune endings: {} positions of {} to {max_pieces} pieces written to {} (White wins {wins}, draws {draws}, White loses {losses})",
                config.positions,
                config.min_pieces,
                config.out.display()
            );
            0
        }
        Err(error) => {
            eprintln!(
                "damka tune endings: cannot write {}: {error}",
                config.out.display()
            );
            2
        }
    }
}

/// What `damka tune relabel` was asked for (its command-line options).
#[derive(Clone, Debug, clap::Args)]
pub struct RelabelConfig {
    /// The rule set of every position.
    #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
    pub variant: Variant,
    /// The endgame tables (a directory as for `EGTBPath`).
    #[arg(long)]
    pub egtb: PathBuf,
    /// The files to copy, `FEN;RESULT[;SCORE]` lines as `tune gen` writes them, in order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The output file: every line of the inputs, relabelled where the tables hold it.
    #[arg(long)]
    pub out: PathBuf,
}

/// How many lines `relabel` read, found in the tables and changed.
#[derive(Default)]
struct RelabelTally {
    lines: usize,
    held: usize,
    changed: usize,
}

/// The line with the tables' result in place of its own, when the tables hold its position.
fn relabelled_line<R: Rules>(tables: &Tables, line: &str) -> Option<String> {
    let mut fields = line.split(';');
    let fen = fields.next()?;
    let _result = fields.next()?;
    let score = fields.next();
    let position = parse_fen::<R>(fen.trim()).ok()?;
    if !is_quiet(&position) {
        return None;
    }
    let result = table_result(tables, &position)?;
    Some(match score {
        None => format!("{fen};{result}"),
        Some(_) => {
            let score = match result {
                "1" => SCORE_CLAMP,
                "0" => -SCORE_CLAMP,
                _ => 0,
            };
            format!("{fen};{result};{score}")
        }
    })
}

/// Copies every input line to `out`, relabelled where the tables hold its position.
fn relabel_files<R: Rules>(
    config: &RelabelConfig,
    tables: &Tables,
    out: &mut impl Write,
) -> Result<RelabelTally, String> {
    use std::io::BufRead;
    let mut tally = RelabelTally::default();
    for path in &config.files {
        let file = std::fs::File::open(path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        for line in std::io::BufReader::new(file).lines() {
            let line = line.map_err(|error| format!("cannot read {}: {error}", path.display()))?;
            let written = if line.starts_with('#') {
                line
            } else {
                tally.lines += 1;
                match relabelled_line::<R>(tables, &line) {
                    Some(relabelled) => {
                        tally.held += 1;
                        if relabelled.split(';').nth(1) != line.split(';').nth(1) {
                            tally.changed += 1;
                        }
                        relabelled
                    }
                    None => line,
                }
            };
            writeln!(out, "{written}")
                .map_err(|error| format!("cannot write {}: {error}", config.out.display()))?;
        }
    }
    out.flush()
        .map_err(|error| format!("cannot write {}: {error}", config.out.display()))?;
    Ok(tally)
}

/// Runs `damka tune relabel`; returns the exit code.
pub fn run_relabel(config: &RelabelConfig) -> i32 {
    let Some((loaded, mut out)) =
        open_tables_and_output("relabel", &config.egtb, config.variant, &config.out)
    else {
        return 2;
    };
    let tables = &loaded.tables;
    match with_variant!(config.variant, R => relabel_files::<R>(config, tables, &mut out)) {
        Ok(tally) => {
            eprintln!(
                "damka tune relabel: {} positions, {} held by the tables, {} of them with a new result, written to {}",
                tally.lines,
                tally.held,
                tally.changed,
                config.out.display()
            );
            0
        }
        Err(error) => {
            eprintln!("damka tune relabel: {error}");
            2
        }
    }
}
