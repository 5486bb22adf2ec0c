//! `damka tune gen`: self-play games that write quiet positions labelled with the game result, the data of `damka tune fit`.
//!
//! Each game starts with a few random ("balloted") plies from the start position, so that
//! games differ, then the engine plays both sides at a small fixed depth or node count on one
//! thread with a table of its own. Every quiet position after the opening (no capture for
//! either side: captures are compulsory, so a position with one is about to change and its
//! static score means little) is written as `FEN;RESULT`, the result from White's point of
//! view: 1, 0.5 or 0. Texel's tuning method (Peter Österlund's description on the
//! chessprogramming wiki) fits the evaluation to exactly such data.
//!
//! Games run on `--threads` threads, each game on one; a game depends only on the seed and
//! its number, and the file is written in game order, so the output does not depend on the
//! thread count; each game is written as soon as the games before it are, followed by a
//! comment line `# game N` (readers skip `#` lines). With `--resume` an interrupted run picks
//! up after the last game its file holds in full (anything after that marker is cut off) and
//! writes the same file an uninterrupted run would have written.
//!
//! Two options raise the quality of the labels. With `--egtb DIR` the search probes the
//! endgame tables and a game ends at its first position the tables hold (no capture
//! pending), with the tables' result: the result of best play from there, where a shallow
//! self-play search would often misplay a won or drawn ending and give every earlier position
//! a wrong label. With `--scores` each line also carries the score of the search made in
//! that position (`FEN;RESULT;SCORE`, centi-men from White's side, wins clamped to
//! +-`SCORE_CLAMP`), so that the fit can blend the result with the search's opinion
//! (`damka tune patterns --lambda`; the blend of game result and search score that
//! Stockfish's NNUE trainer calls lambda).

use super::matches::openings::opening_score;
use super::tune_fit::for_white;
use damka::egtb::Value;
use damka::egtb::probe::Tables;
use damka::game::{Game, Outcome};
use damka::notation::fen::write_fen;
use damka::position::Position;
use damka::random::SplitMix;
use damka::rules::{Color, Rules, Variant};
use damka::search::tt::TranspositionTable;
use damka::search::{Env, GameContext, Limits, think};
use damka::with_variant;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What `damka tune gen` was asked for (its command-line options).
#[derive(Clone, Debug, clap::Args)]
pub struct GenConfig {
    /// The rule set.
    #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
    pub variant: Variant,
    /// Games to play.
    #[arg(long)]
    pub games: usize,
    /// Plies searched a move.
    #[arg(long, default_value_t = 6, conflicts_with = "nodes")]
    pub depth: u32,
    /// Nodes searched a move, instead of a depth.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Random plies at the start of each game.
    #[arg(long, default_value_t = 8)]
    pub opening_plies: u32,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once, one thread each.
    #[arg(long, alias = "concurrency", default_value_t = 1)]
    pub threads: usize,
    /// Continue the file `--out` where an interrupted run with the same options left it.
    #[arg(long)]
    pub resume: bool,
    /// Plies after which an unfinished game counts as a draw.
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Largest score (centi-men) of a 4-ply search after the random opening; a more
    /// lopsided opening is drawn again.
    #[arg(long, default_value_t = 60)]
    pub max_opening_score: i32,
    /// Endgame tables (a directory as for `EGTBPath`): the search probes them and a game
    /// ends at its first position they hold, with their result.
    #[arg(long)]
    pub egtb: Option<PathBuf>,
    /// Write each position's search score too: `FEN;RESULT;SCORE`, centi-men from White's
    /// side (`damka tune patterns --lambda` blends it with the result).
    #[arg(long)]
    pub scores: bool,
    /// The output file.
    #[arg(long)]
    pub out: PathBuf,
}

/// The largest score `--scores` writes: a table or search win is written as this, which the
/// fit's logistic scale reads as a certain result.
pub const SCORE_CLAMP: i32 = 2000;

/// True when neither side has a capture: the position is quiet.
pub fn is_quiet<R: Rules>(position: &Position<R>) -> bool {
    !position.has_capture()
        && !position
            .with_side_to_move(position.side_to_move().opponent())
            .has_capture()
}

/// The result text of a finished game from White's point of view.
fn result_text(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        Some(Outcome::Win(Color::White)) => "1",
        Some(Outcome::Win(Color::Black)) => "0",
        _ => "0.5",
    }
}

/// The tables' result of `position` from White's point of view, when they hold it and no
/// capture is pending (a position with a capture is about to change; the search resolves it).
pub fn table_result<R: Rules>(tables: &Tables, position: &Position<R>) -> Option<&'static str> {
    let white_wins = match tables.probe_settled(position)? {
        Value::Draw => return Some("0.5"),
        Value::Win(_) | Value::Won => position.side_to_move() == Color::White,
        Value::Loss(_) | Value::Lost => position.side_to_move() == Color::Black,
    };
    Some(if white_wins { "1" } else { "0" })
}

/// Plays game number `index` and returns its `FEN;RESULT` (or `FEN;RESULT;SCORE`) lines.
pub fn play_game<R: Rules>(
    config: &GenConfig,
    tables: Option<&Arc<Tables>>,
    index: u64,
) -> Vec<String> {
    let mut rng = SplitMix(config.seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let tt = Arc::new(TranspositionTable::new(4));
    let limits = Limits {
        depth: if config.nodes.is_some() {
            None
        } else {
            Some(config.depth.max(1))
        },
        nodes: config.nodes,
        multipv: 1,
        ..Limits::default()
    };
    // The balloted opening. Random moves often give a man away (captures are compulsory),
    // so a line that a short search finds lopsided, or that ends the game, is drawn again:
    // the games should mostly start from playable positions, as in opening books.
    let mut game = Game::<R>::default();
    for attempt in 0..200 {
        game = Game::<R>::default();
        for _ in 0..config.opening_plies {
            let legal = game.legal_moves();
            if legal.is_empty() || game.outcome().is_some() {
                break;
            }
            game.play(legal.as_slice()[rng.below(legal.len())]);
        }
        if game.outcome().is_some() {
            continue;
        }
        let score = opening_score(game.position(), &tt);
        if score.abs() <= config.max_opening_score || attempt == 199 {
            break;
        }
    }
    tt.clear();
    let mut quiet: Vec<(String, i32)> = Vec::new();
    let mut table_said = None;
    while game.outcome().is_none() && game.ply() < config.max_plies {
        let position = *game.position();
        if let Some(tables) = tables
            && let Some(result) = table_result(tables, &position)
        {
            table_said = Some(result);
            break;
        }
        let quiet_here = is_quiet(&position);
        let context = GameContext::of_game(&game);
        tt.new_search();
        let env = Env {
            egtb: tables.cloned(),
            game: context,
            ..Env::new(Arc::clone(&tt))
        };
        let outcome = think(&position, &limits, &env, &mut |_| {});
        if quiet_here {
            let white_score = for_white(&position, outcome.score);
            quiet.push((
                write_fen(&position),
                white_score.clamp(-SCORE_CLAMP, SCORE_CLAMP),
            ));
        }
        let Some(best) = outcome.best else {
            break;
        };
        game.play(best);
    }
    let result = table_said.unwrap_or_else(|| result_text(game.outcome()));
    let mut lines: Vec<String> = quiet
        .into_iter()
        .map(|(fen, score)| {
            if config.scores {
                format!("{fen};{result};{score}")
            } else {
                format!("{fen};{result}")
            }
        })
        .collect();
    lines.push(format!("# game {index}"));
    lines
}

/// The units (games, blocks) a file holds in full, one more than the number of its last
/// `MARKER N` line (`# game N`, `# block N`), and the length of the file up to the end of
/// that line: what a resumed run keeps.
fn finished_units(text: &str, marker: &str) -> (usize, usize) {
    let (mut units, mut end, mut offset) = (0, 0, 0);
    for line in text.split_inclusive('\n') {
        offset += line.len();
        if !line.ends_with('\n') {
            break;
        }
        if let Some(number) = line.trim().strip_prefix(marker)
            && let Ok(number) = number.parse::<usize>()
        {
            units = number + 1;
            end = offset;
        }
    }
    (units, end)
}

/// The output file of a resumable run (`tune gen`, `tune score`): created afresh, or with
/// `resume` kept up to the end of its last whole unit (its last `MARKER N` line; what an
/// interruption left after it is cut) and opened to go on. Returns the file, the units it
/// keeps and the position lines among them; the error says what could not be read or written.
pub fn open_resumable(
    out: &std::path::Path,
    resume: bool,
    marker: &str,
) -> Result<(std::fs::File, usize, usize), String> {
    let cannot = |error: std::io::Error| format!("cannot write {}: {error}", out.display());
    if !resume || !out.exists() {
        return Ok((std::fs::File::create(out).map_err(cannot)?, 0, 0));
    }
    let text = std::fs::read_to_string(out)
        .map_err(|error| format!("cannot read {}: {error}", out.display()))?;
    let (units, end) = finished_units(&text, marker);
    let positions = text[..end]
        .lines()
        .filter(|line| !line.starts_with('#'))
        .count();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(out)
        .map_err(cannot)?;
    use std::io::Seek;
    // Cut a unit the interruption left half written.
    file.set_len(end as u64).map_err(cannot)?;
    file.seek(std::io::SeekFrom::End(0)).map_err(cannot)?;
    Ok((file, units, positions))
}

/// An output file written in unit order (games, blocks) by several threads: a finished unit
/// waits until every earlier one is written, so the file does not depend on the thread count
/// and a long run can be used before it ends.
pub struct OrderedOutput {
    file: std::io::BufWriter<std::fs::File>,
    pending: BTreeMap<usize, Vec<String>>,
    next: usize,
    failed: bool,
}

impl OrderedOutput {
    /// Writes to `file` from unit `first` on.
    pub fn new(file: std::fs::File, first: usize) -> Self {
        OrderedOutput {
            file: std::io::BufWriter::new(file),
            pending: BTreeMap::new(),
            next: first,
            failed: false,
        }
    }

    /// Takes unit `index`'s lines and writes every unit that is now next in order.
    pub fn finished(&mut self, index: usize, lines: Vec<String>) {
        self.pending.insert(index, lines);
        while let Some(lines) = self.pending.remove(&self.next) {
            for line in lines {
                self.failed |= writeln!(self.file, "{line}").is_err();
            }
            self.failed |= self.file.flush().is_err();
            self.next += 1;
        }
    }

    /// True when every line was written and flushed.
    pub fn close(mut self) -> bool {
        !self.failed && self.file.flush().is_ok()
    }
}

/// Runs `damka tune gen`; returns the exit code.
pub fn run_gen(config: &GenConfig) -> i32 {
    let tables = match &config.egtb {
        None => None,
        // Self-play probes far more widely than one game's search: a large block cache.
        Some(dir) => match damka::engine::load_tables(&dir.to_string_lossy(), config.variant, 1024)
        {
            Ok(loaded) => Some(loaded.tables),
            Err(error) => {
                eprintln!("damka tune gen: --egtb {}: {error}", dir.display());
                return 2;
            }
        },
    };
    let (file, first, positions_before) =
        match open_resumable(&config.out, config.resume, "# game ") {
            Ok(opened) => opened,
            Err(error) => {
                eprintln!("damka tune gen: {error}");
                return 2;
            }
        };
    if first > 0 {
        eprintln!(
            "damka tune gen: {} holds {first} games ({positions_before} positions); playing games {first} to {}",
            config.out.display(),
            config.games
        );
    }
    let bar = ProgressBar::new(config.games as u64);
    bar.set_position(first.min(config.games) as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} games, {msg} positions, eta {eta}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let next = AtomicUsize::new(first);
    let positions = AtomicUsize::new(positions_before);
    // Finished games wait here until every earlier game is written, so the file is in game
    // order whatever the thread count, and a long run can be used before it ends.
    let output = Mutex::new(OrderedOutput::new(file, first));
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games {
                        break;
                    }
                    let lines =
                        with_variant!(config.variant, R => play_game::<R>(config, tables.as_ref(), index as u64));
                    let count = lines.len() - 1;
                    let total = positions.fetch_add(count, Ordering::Relaxed) + count;
                    output
                        .lock()
                        .expect("no thread panicked")
                        .finished(index, lines);
                    bar.set_message(total.to_string());
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish();
    let count = positions.into_inner();
    if !output.into_inner().expect("no thread panicked").close() {
        eprintln!("damka tune gen: cannot write {}", config.out.display());
        return 2;
    }
    eprintln!(
        "damka tune gen: {count} positions from {} games written to {}",
        config.games,
        config.out.display()
    );
    0
}
