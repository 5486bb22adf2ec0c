//! `damka tune score`: fit data given fresh search scores, each position searched to a fixed depth by the engine as it is now.
//!
//! A network fitted to a blend of game results and search scores plays far better than one
//! fitted to results alone (docs/nets.md: +47 Elo), but only the positions of games played
//! with `tune gen --scores` carry a score, and each score is that of the engine that played
//! the game. This command gives any `FEN;RESULT[;SCORE]` file the score of today's engine:
//! every position line is written again as `FEN;RESULT;SCORE` (the result kept, the score
//! that of a fixed-depth search, centi-men from White's side, wins clamped to
//! +-`SCORE_CLAMP` as `tune gen --scores` writes them); comment lines are copied.
//!
//! The lines are cut into blocks of `--block` lines (2,048); each block is searched in order on one
//! thread with a table of its own, cleared at the block's start, so a block's scores depend
//! on its lines alone: the file is the same whatever `--threads`, and the search keeps what
//! it learnt from a position for the next one of the same game. Each block ends with a
//! comment line `# block N`; with `--resume` an interrupted run keeps the blocks its file holds
//! in full and writes the rest, the file an uninterrupted run would have written.

use super::tune::{OrderedOutput, SCORE_CLAMP, open_resumable};
use super::tune_fit::for_white;
use damka::egtb::probe::Tables;
use damka::game::{Game, Outcome};
use damka::notation::fen::parse_fen;
use damka::rules::{Color, Rules, Variant};
use damka::search::tt::TranspositionTable;
use damka::search::{Env, Limits, think};
use damka::with_variant;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What `damka tune score` was asked for (its command-line options).
#[derive(Clone, Debug, clap::Args)]
pub struct ScoreConfig {
    /// The rule set of every position.
    #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
    pub variant: Variant,
    /// The depth of each position's search, in plies.
    #[arg(long, default_value_t = 7)]
    pub depth: u32,
    /// Endgame tables (a directory as for `EGTBPath`) for the search to probe.
    #[arg(long)]
    pub egtb: Option<PathBuf>,
    /// Threads, each searching a block of positions at a time.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Keep the blocks an interrupted run wrote to `--out` and score the rest.
    #[arg(long)]
    pub resume: bool,
    /// Lines in a block (searched in order on one thread with one table); a file is the
    /// same for the same block size.
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u32).range(1..))]
    pub block: u32,
    /// The files to score, `FEN;RESULT[;SCORE]` lines as `tune gen` writes them, in order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The output file: every line of the inputs, each position with its new score.
    #[arg(long)]
    pub out: PathBuf,
}

/// One input line: a position to score (its FEN and result) or a comment to copy.
enum Entry {
    Position { fen: String, result: String },
    Comment(String),
}

/// Reads every line of `files`; the error names the first line that is neither a comment nor
/// a readable `FEN;RESULT[;SCORE]`.
fn read_entries<R: Rules>(files: &[PathBuf]) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                entries.push(Entry::Comment(line.to_string()));
                continue;
            }
            let bad = |why: String| format!("{}:{}: {why}", path.display(), number + 1);
            let mut fields = line.split(';');
            let fen = fields.next().unwrap_or_default().trim();
            let result = fields.next().map(str::trim).unwrap_or_default();
            if !matches!(result, "1" | "0" | "0.5") {
                return Err(bad(format!(
                    "expected FEN;RESULT[;SCORE] with a result of 1, 0.5 or 0, found {line:?}"
                )));
            }
            parse_fen::<R>(fen).map_err(|error| bad(format!("bad FEN: {error}")))?;
            entries.push(Entry::Position {
                fen: fen.to_string(),
                result: result.to_string(),
            });
        }
    }
    Ok(entries)
}

/// The output lines of one block: each position with the score of a `depth`-ply search.
fn score_block<R: Rules>(
    entries: &[Entry],
    depth: u32,
    tables: Option<&Arc<Tables>>,
    tt: &Arc<TranspositionTable>,
    index: usize,
) -> Vec<String> {
    tt.clear();
    let limits = Limits {
        depth: Some(depth.max(1)),
        multipv: 1,
        ..Limits::default()
    };
    let mut lines = Vec::with_capacity(entries.len() + 1);
    for entry in entries {
        match entry {
            Entry::Comment(text) => lines.push(text.clone()),
            Entry::Position { fen, result } => {
                let position = parse_fen::<R>(fen).expect("read_entries checked every FEN");
                // A game that is over has its result as its score (the search of a position
                // with no move has no line to score); the variant's goal decides who won.
                let score = match Game::new(position).outcome() {
                    Some(Outcome::Win(Color::White)) => SCORE_CLAMP,
                    Some(Outcome::Win(Color::Black)) => -SCORE_CLAMP,
                    Some(Outcome::Draw(_)) => 0,
                    None => {
                        tt.new_search();
                        let env = Env {
                            egtb: tables.cloned(),
                            ..Env::new(Arc::clone(tt))
                        };
                        let outcome = think(&position, &limits, &env, &mut |_| {});
                        for_white(&position, outcome.score).clamp(-SCORE_CLAMP, SCORE_CLAMP)
                    }
                };
                lines.push(format!("{fen};{result};{score}"));
            }
        }
    }
    lines.push(format!("# block {index}"));
    lines
}

/// Scores every block from `first` on, on `config.threads` threads; false when a write failed.
fn score_blocks<R: Rules>(
    config: &ScoreConfig,
    tables: Option<&Arc<Tables>>,
    entries: &[Entry],
    first: usize,
    output: Mutex<OrderedOutput>,
) -> bool {
    let blocks: Vec<&[Entry]> = entries.chunks(config.block as usize).collect();
    let bar = ProgressBar::new(blocks.len() as u64);
    bar.set_position(first.min(blocks.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} blocks, eta {eta}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let next = AtomicUsize::new(first);
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                let tt = Arc::new(TranspositionTable::new(4));
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(block) = blocks.get(index) else {
                        break;
                    };
                    let lines = score_block::<R>(block, config.depth, tables, &tt, index);
                    output
                        .lock()
                        .expect("no thread panicked")
                        .finished(index, lines);
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish();
    output.into_inner().expect("no thread panicked").close()
}

/// Runs `damka tune score`; returns the exit code.
pub fn run_score(config: &ScoreConfig) -> i32 {
    let fail = |message: String| {
        eprintln!("damka tune score: {message}");
        2
    };
    let tables = match &config.egtb {
        None => None,
        Some(dir) => match damka::engine::load_tables(&dir.to_string_lossy(), config.variant, 1024)
        {
            Ok(loaded) => Some(loaded.tables),
            Err(error) => return fail(format!("--egtb {}: {error}", dir.display())),
        },
    };
    let entries = match with_variant!(config.variant, R => read_entries::<R>(&config.files)) {
        Ok(entries) => entries,
        Err(error) => return fail(error),
    };
    let (file, first, _) = match open_resumable(&config.out, config.resume, "# block ") {
        Ok(opened) => opened,
        Err(error) => return fail(error),
    };
    let positions = entries
        .iter()
        .filter(|entry| matches!(entry, Entry::Position { .. }))
        .count();
    if first > 0 {
        eprintln!(
            "damka tune score: {} holds {first} blocks; scoring the rest",
            config.out.display()
        );
    }
    let output = Mutex::new(OrderedOutput::new(file, first));
    let written = with_variant!(config.variant, R => score_blocks::<R>(config, tables.as_ref(), &entries, first, output));
    if !written {
        return fail(format!("cannot write {}", config.out.display()));
    }
    eprintln!(
        "damka tune score: {positions} positions scored at depth {}, written to {}",
        config.depth,
        config.out.display()
    );
    0
}
