//! The `damka book` commands: build (drop-out expansion, resumable), probe and stats.

use crate::tools::matches::openings;
use clap::Subcommand;
use damka::book::build::{BuildConfig, Builder};
use damka::book::builtin::{builtin_book, builtin_file};
use damka::book::{Book, book_key};
use damka::game::Game;
use damka::notation::fen::parse_fen;
use damka::position::Position;
use damka::rules::{Rules, Variant};
use damka::with_variant;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The steps of `damka book`.
#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Grow a book by drop-out expansion until it holds --positions positions; an existing
    /// --out file is resumed (a checkpoint is written every --checkpoint seconds).
    ///
    /// Example: damka book build --variant english --depth 12 --positions 200000 --out english.dbk
    Build {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The book file to write (and to resume when it exists).
        #[arg(long)]
        out: PathBuf,
        /// Plies of the search that scores each new position.
        #[arg(long, default_value_t = BuildConfig::default().depth)]
        depth: u32,
        /// Stop when the book holds this many positions.
        #[arg(long)]
        positions: usize,
        /// Threads scoring positions (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Leaves expanded per round.
        #[arg(long, default_value_t = BuildConfig::default().batch)]
        batch: usize,
        /// Centi-men of score loss that cost as much as one ply of depth (smaller: a
        /// narrower, deeper book).
        #[arg(long, default_value_t = BuildConfig::default().drop_unit)]
        drop_unit: i32,
        /// No leaf further than this many plies from a root is expanded.
        #[arg(long, default_value_t = BuildConfig::default().max_ply)]
        max_ply: u32,
        /// Transposition table of each thread, MB (cleared before every search).
        #[arg(long, default_value_t = BuildConfig::default().hash_mb)]
        hash: usize,
        /// Lines the book must cover (PDN games or FENs-with-moves as `damka match
        /// --openings` reads them, from the start position): each is expanded to its end,
        /// and the book grows from its end as from the start.
        #[arg(long)]
        openings: Option<PathBuf>,
        /// With --openings: only the first N plies of each game.
        #[arg(long)]
        opening_plies: Option<usize>,
        /// Seconds between checkpoints (the book file rewritten whole).
        #[arg(long, default_value_t = 60)]
        checkpoint: u64,
    },
    /// List the book's moves in a position (best first): value for the side playing it,
    /// the positions below it, and whether the book goes on after it.
    ///
    /// Example: damka book probe --variant english startpos --moves "11-15"
    Probe {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// The book file (default: the variant's built-in book).
        #[arg(long)]
        book: Option<PathBuf>,
        /// The position: PDN FEN, or `startpos`.
        #[arg(default_value = "startpos")]
        position: String,
        /// Moves played from that position, separated by spaces.
        #[arg(long, default_value = "")]
        moves: String,
    },
    /// Summarise a book: positions, expanded ones, depth reached, by ply.
    ///
    /// Example: damka book stats --book english.dbk
    Stats {
        /// The book file (default: the built-in book of --variant).
        #[arg(long)]
        book: Option<PathBuf>,
        /// The rule set whose built-in book to summarise when no --book is given.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
    },
}

/// Runs a `damka book` command; the exit code.
pub fn run(command: BookCommand) -> i32 {
    let result = match command {
        BookCommand::Build {
            variant,
            out,
            depth,
            positions,
            threads,
            batch,
            drop_unit,
            max_ply,
            hash,
            openings,
            opening_plies,
            checkpoint,
        } => {
            let config = BuildConfig {
                depth,
                batch,
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                drop_unit,
                max_ply,
                hash_mb: hash,
            };
            let plan = BuildPlan {
                out,
                positions,
                openings,
                opening_plies,
                checkpoint: Duration::from_secs(checkpoint),
            };
            with_variant!(variant, R => build::<R>(config, &plan))
        }
        BookCommand::Probe {
            variant,
            book,
            position,
            moves,
        } => load(book.as_deref(), variant)
            .and_then(|loaded| with_variant!(variant, R => probe::<R>(&loaded, &position, &moves))),
        BookCommand::Stats { book, variant } => load(book.as_deref(), variant).and_then(|loaded| {
            let variant = loaded.book.variant();
            with_variant!(variant, R => stats_of::<R>(&loaded))
        }),
    };
    match result {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("damka book: {error}");
            1
        }
    }
}

/// What `damka book build` was asked beyond the builder's own options.
struct BuildPlan {
    out: PathBuf,
    positions: usize,
    openings: Option<PathBuf>,
    opening_plies: Option<usize>,
    checkpoint: Duration,
}

fn build<R: Rules>(config: BuildConfig, plan: &BuildPlan) -> Result<(), String> {
    if config.depth == 0 || config.batch == 0 {
        return Err("--depth and --batch must be at least 1".into());
    }
    let lines = match &plan.openings {
        None => Vec::new(),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--openings {}: {e}", path.display()))?;
            let read = openings::load::<R>(&text, plan.opening_plies)
                .map_err(|e| format!("--openings {}: {e}", path.display()))?;
            let start = Position::<R>::start();
            if let Some(index) = read.iter().position(|o| o.start != start) {
                return Err(format!(
                    "--openings {}: opening {} does not start from the start position",
                    path.display(),
                    index + 1
                ));
            }
            read.into_iter().map(|o| o.moves).collect()
        }
    };
    let started = Instant::now();
    let mut builder = if plan.out.exists() {
        let book = Book::read(&plan.out).map_err(|e| e.to_string())?;
        let builder = Builder::<R>::resume(config.clone(), Position::start(), &book)
            .map_err(|e| format!("cannot resume {}: {e}", plan.out.display()))?;
        eprintln!(
            "damka book: resuming {} ({} positions)",
            plan.out.display(),
            builder.len()
        );
        builder
    } else {
        Builder::<R>::new(config.clone(), Position::start())
    };
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let bar = ProgressBar::new(plan.positions as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} positions, {msg} (eta {eta})",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    bar.set_position(builder.len() as u64);
    for (index, line) in lines.iter().enumerate() {
        builder
            .add_line(line)
            .map_err(|e| format!("opening {}: {e}", index + 1))?;
        bar.set_position(builder.len() as u64);
    }
    let save = |builder: &mut Builder<R>| -> Result<(), String> {
        builder
            .book()
            .write(&plan.out)
            .map_err(|e| format!("cannot write {}: {e}", plan.out.display()))
    };
    save(&mut builder)?;
    let mut last_save = Instant::now();
    let mut complete = false;
    while builder.len() < plan.positions {
        let Some(_round) = builder.step() else {
            complete = true;
            break;
        };
        let seconds = started.elapsed().as_secs_f64().max(1e-3);
        bar.set_position(builder.len() as u64);
        bar.set_message(format!(
            "{:.0} positions scored a minute",
            builder.searches() as f64 * 60.0 / seconds
        ));
        if last_save.elapsed() >= plan.checkpoint {
            save(&mut builder)?;
            last_save = Instant::now();
        }
    }
    save(&mut builder)?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}: {} positions, {} scored by depth-{} searches in {:.0} s ({:.0} a minute, {} thread{}){}",
        plan.out.display(),
        builder.len(),
        builder.searches(),
        config.depth,
        seconds,
        builder.searches() as f64 * 60.0 / seconds.max(1e-3),
        config.threads,
        if config.threads == 1 { "" } else { "s" },
        if complete {
            "; no leaf left within --max-ply"
        } else {
            ""
        }
    );
    Ok(())
}

/// A book to probe or summarise: from a file, or built into damka.
struct LoadedBook {
    book: Arc<Book>,
    /// The file's path, or "the built-in VARIANT book".
    name: String,
    /// The file's size in bytes.
    bytes: usize,
}

/// The book of `path`, or the built-in book of `variant` when there is no path.
fn load(path: Option<&Path>, variant: Variant) -> Result<LoadedBook, String> {
    let Some(path) = path else {
        let book = builtin_book(variant).ok_or_else(|| {
            format!("damka has no built-in {variant} book (built in: english, international); give --book FILE")
        })?;
        let bytes = builtin_file(variant).map_or(0, <[u8]>::len);
        return Ok(LoadedBook {
            book,
            name: format!("the built-in {variant} book"),
            bytes,
        });
    };
    let book = Book::read(path).map_err(|e| e.to_string())?;
    Ok(LoadedBook {
        book: Arc::new(book),
        name: path.display().to_string(),
        bytes: std::fs::metadata(path).map_or(0, |m| m.len() as usize),
    })
}

fn probe<R: Rules>(loaded: &LoadedBook, position: &str, moves: &str) -> Result<(), String> {
    let book = &loaded.book;
    if book.variant() != R::VARIANT {
        return Err(format!(
            "{} is a book of {}, not {}",
            loaded.name,
            book.variant(),
            R::VARIANT
        ));
    }
    let mut game = if position.trim() == "startpos" {
        Game::<R>::default()
    } else {
        Game::new(parse_fen::<R>(position).map_err(|e| format!("FEN: {e}"))?)
    };
    for text in moves.split_whitespace() {
        game.play_text(text)
            .map_err(|e| format!("move '{text}': {e}"))?;
    }
    let here = *game.position();
    let Some(entry) = book.entry(&here) else {
        println!("not in the book");
        return Ok(());
    };
    println!(
        "value {} for the side to move, {} positions below, {}",
        entry.value,
        entry.subtree,
        if entry.is_expanded() {
            "expanded"
        } else {
            "a leaf (no book moves)"
        }
    );
    for book_move in book.moves(&here) {
        let name = damka::notation::movetext::write_move(&here, &book_move.mv);
        println!(
            "{name:>10} {:>6} {:>9}{}",
            book_move.score,
            book_move.subtree,
            if book_move.expanded { "" } else { "  (leaf)" }
        );
    }
    Ok(())
}

fn stats_of<R: Rules>(loaded: &LoadedBook) -> Result<(), String> {
    let book = &loaded.book;
    let expanded = book.entries().iter().filter(|e| e.is_expanded()).count();
    let terminal = book
        .entries()
        .iter()
        .filter(|e| e.flags & damka::book::TERMINAL != 0)
        .count();
    println!(
        "{}: {} book, leaves scored at depth {}, {} bytes",
        loaded.name,
        book.variant(),
        book.depth(),
        loaded.bytes
    );
    println!(
        "{} positions: {} expanded, {} leaves, {} games over",
        book.len(),
        expanded,
        book.len() - expanded - terminal,
        terminal
    );
    // Breadth first from the start: each position at the ply where it is first reached.
    let start = Position::<R>::start();
    let mut ply_of: HashMap<u64, usize> = HashMap::new();
    let mut queue = VecDeque::from([(start, 0usize)]);
    let mut by_ply: Vec<(usize, usize)> = Vec::new();
    while let Some((position, ply)) = queue.pop_front() {
        let key = book_key(&position);
        if ply_of.contains_key(&key) {
            continue;
        }
        let Some(entry) = book.get(key) else { continue };
        ply_of.insert(key, ply);
        if by_ply.len() <= ply {
            by_ply.resize(ply + 1, (0, 0));
        }
        by_ply[ply].0 += 1;
        if entry.is_expanded() {
            by_ply[ply].1 += 1;
            for mv in position.legal_moves().iter() {
                queue.push_back((position.play(mv), ply + 1));
            }
        }
    }
    if let Some(root) = book.entry(&start) {
        println!(
            "start position: value {}, {} book moves",
            root.value,
            book.moves(&start).len()
        );
    }
    println!(
        "{} positions reached from the start, deepest at ply {}",
        ply_of.len(),
        by_ply.len().saturating_sub(1)
    );
    println!("{:>4} {:>9} {:>9}", "ply", "positions", "expanded");
    for (ply, (count, open)) in by_ply.iter().enumerate() {
        println!("{ply:>4} {count:>9} {open:>9}");
    }
    Ok(())
}
