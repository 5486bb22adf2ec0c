//! The command line: parses arguments with clap and runs the chosen subcommand.

use crate::tools::given_position;
use crate::tools::limit::Limit;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use damka::perft::{divide, perft};
use damka::rules::{Color, Rules, Variant};
use damka::with_variant;
use std::ffi::OsString;
use std::io::Write;
use std::time::Instant;

/// What `damka --help` shows under the commands: the engine itself runs with no command.
const TOP_LEVEL_EXAMPLES: &str = "\
With no command, damka speaks its UCI-style protocol on stdin and stdout (docs/protocol.md),
or Hub when the first command is `hub`. `damka hub` speaks Hub (docs/hub.md), `damka dxp`
DXP over TCP (docs/dxp.md); the CheckerBoard engine library is target/release/libdamka.so
(docs/checkerboard.md).

Examples:
  damka
  (printf 'uci\\nsetoption name Variant value international\\nposition startpos\\ngo depth 8\\n'; sleep 1) | damka
  (printf 'hub\\ninit\\npos\\nlevel move-time=0.5\\ngo think\\n'; sleep 1) | damka hub
  damka perft --variant international 6
  damka play --variant russian --depth 6
  damka match --variant russian --games 4 --pdn m.pdn --engine cmd=target/release/damka,depth=2 --engine cmd=target/release/damka,depth=4";

/// damka: a draughts and checkers engine.
#[derive(Parser, Debug)]
#[command(name = "damka", version, about, long_about = None, after_help = TOP_LEVEL_EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Search fixed positions of several variants to a fixed depth on one thread; the last
    /// line, `NODES nodes NPS nps`, carries the behaviour signature (the node count).
    ///
    /// Example: damka bench 8
    Bench {
        /// Plies to search each position.
        #[arg(default_value_t = crate::bench::DEFAULT_DEPTH)]
        depth: u32,
    },
    /// Count the leaves of the legal move tree (bulk counting at the last ply).
    ///
    /// Example: damka perft --variant international 6
    Perft {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// Start from this PDN FEN instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// First print each root move with its count.
        #[arg(long)]
        divide: bool,
        /// Plies to search.
        depth: u32,
    },
    /// Speak the Hub protocol (Scan's version 2) on stdin and stdout, for lidraughts bots
    /// (pydraughts) and py-draughts; see docs/hub.md.
    ///
    /// Example: (printf 'hub\ninit\npos\nlevel move-time=0.5\ngo think\n'; sleep 1) | damka hub
    Hub,
    /// Play international draughts over DamExchange (DXP, TCP): wait for game requests
    /// (--listen, as Scan's dxp-server) or connect and request games (--connect); see
    /// docs/dxp.md.
    ///
    /// Example: damka dxp --listen 27531 --movetime 500
    Dxp(Box<crate::dxp_args::DxpArgs>),
    /// Load a CheckerBoard engine library (getmove, enginecommand) and speak damka's UCI
    /// dialect for it on stdin and stdout: what `damka match` runs for `proto=cb` engines;
    /// see docs/checkerboard.md.
    ///
    /// Example: damka cb-engine /path/to/engine.so
    #[command(hide = true)]
    CbEngine(crate::cb_engine::CbEngineArgs),
    /// Run the COMP10002 "towers" assignment program: actions such as `G6-F5` (then
    /// optionally `A` or `P`) on stdin, the boards on stdout byte for byte as the assignment's
    /// tests expect; exit code 1 after an `ERROR:` line.
    ///
    /// Example: damka towers < tests/data/comp10002/test0.txt
    Towers,
    /// Play a game against the engine at the terminal (or through a pipe): type moves in the
    /// variant's notation or pick them by number; `help` lists the commands (undo, hint,
    /// save FILE, quit).
    ///
    /// Example: damka play --variant english --side black --depth 6
    Play {
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// Your side (default: the side that moves first).
        #[arg(long, value_enum)]
        side: Option<Side>,
        /// The engine searches this many plies a move.
        #[arg(long, conflicts_with = "movetime")]
        depth: Option<u32>,
        /// The engine thinks this many milliseconds a move (default 1000).
        #[arg(long)]
        movetime: Option<u64>,
        /// The engine's strength: 0 (a beginner) to 20 (full strength), as the `Skill Level`
        /// option; hints are always at full strength. See docs/tools.md for each level's
        /// measured strength.
        #[arg(long, default_value_t = damka::search::skill::MAX_LEVEL,
              value_parser = clap::value_parser!(u32).range(0..=damka::search::skill::MAX_LEVEL as i64))]
        level: u32,
    },
    /// Search each position of a test suite (one a line: `FEN; bm MOVE[,MOVE]; am MOVE; id
    /// NAME`, see docs/tools.md) and print whether the engine found the move, then
    /// `SOLVED/TOTAL solved`.
    ///
    /// Example: damka analyze tests/data/english_endgames.txt --depth 12
    Analyze {
        /// The suite file.
        file: std::path::PathBuf,
        /// The rule set of every position in the file.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// Plies to search each position.
        #[arg(long, conflicts_with = "movetime")]
        depth: Option<u32>,
        /// Milliseconds to search each position (default 1000).
        #[arg(long)]
        movetime: Option<u64>,
        /// Exit with code 1 unless every position is solved.
        #[arg(long)]
        strict: bool,
    },
    /// Play engines against each other (damka at other settings, or any UCI-dialect or Hub
    /// engine), refereed with damka's rules: paired openings, clocks, concurrent games, a PDN
    /// file, and the score with its Elo difference (and an optional SPRT).
    ///
    /// Example: damka match --variant russian --games 4 --pdn m.pdn --engine cmd=target/release/damka,name=d2,depth=2 --engine cmd=target/release/damka,name=d4,depth=4
    Match(Box<crate::tools::matches::MatchArgs>),
    /// Draw a position given as PDN FEN (or `start`): as text, or as an SVG diagram.
    ///
    /// Example: damka show "W:W21,22,K30:B5,K10,12" --svg position.svg
    Show {
        /// The position, PDN FEN (`W:W21,22,K30:B5,K10,12`) or `start`.
        fen: String,
        /// The rule set.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// Write an SVG diagram to this file (`-` for stdout) instead of the text board.
        #[arg(long)]
        svg: Option<std::path::PathBuf>,
    },
    /// Tune the evaluation weights: `gen` writes quiet self-play positions with the game
    /// result, `fit` fits the weights to them (Texel's method); see docs/tools.md.
    ///
    /// Example: damka tune gen --variant international --games 2000 --out data.txt
    #[command(subcommand)]
    Tune(TuneCommand),
    /// Endgame tables (docs/egtb.md): `gen` builds them, `verify` checks every value against
    /// its successors, `probe` looks a position up, `count` counts positions per piece count.
    ///
    /// Example: damka egtb gen --variant english --pieces 4 --dir egtb
    #[command(subcommand)]
    Egtb(crate::tools::egtb::EgtbCommand),
    /// Opening books (docs/book.md): `build` grows one by drop-out expansion, `probe` lists
    /// a position's book moves, `stats` summarises a book.
    ///
    /// Example: damka book build --variant english --positions 20000 --out english.dbk
    #[command(subcommand)]
    Book(crate::tools::book::BookCommand),
}

/// The steps of `damka tune`.
#[derive(Subcommand, Debug)]
enum TuneCommand {
    /// Play self-play games from random openings and write their quiet positions as
    /// `FEN;RESULT` lines (the result from White's side: 1, 0.5, 0).
    ///
    /// Example: damka tune gen --variant international --games 2000 --depth 7 --out data.txt
    Gen(crate::tools::tune::GenConfig),
    /// Write random quiet endings with the endgame tables' result as `FEN;RESULT` lines (the
    /// result from White's side), data for a fit beside `gen`'s games, which stop where the
    /// tables begin.
    ///
    /// Example: damka tune endings --egtb ~/.local/share/damka/egtb --positions 1000000 --out endings.txt
    Endings(crate::tools::tune_endings::EndingsConfig),
    /// Copy `FEN;RESULT[;SCORE]` files, replacing the result of each quiet position the
    /// endgame tables hold by theirs (games played without tables label their endings with
    /// what a shallow search made of them).
    ///
    /// Example: damka tune relabel --egtb ~/.local/share/damka/egtb data/selfplay/english-00*.txt --out english-relabelled.txt
    Relabel(crate::tools::tune_endings::RelabelConfig),
    /// Copy `FEN;RESULT[;SCORE]` files, giving each position the score of a fixed-depth
    /// search by the engine as it is now (`FEN;RESULT;SCORE`, centi-men from White's side),
    /// for a fit that blends results with scores (`--lambda`).
    ///
    /// Example: damka tune score --depth 7 --threads 2 english-relabelled.txt --out english-scored.txt
    Score(crate::tools::tune_score::ScoreConfig),
    /// Fit the block tables of the pattern evaluation and the other weights to `FEN;RESULT`
    /// lines by logistic regression and write a checked binary weights file (`EvalFile`
    /// loads it; docs/tools.md).
    ///
    /// Example: damka tune patterns data/*.txt --variant international --out intl.dkw
    Patterns(crate::tools::tune_patterns::PatternConfig),
    /// Fit the weights of a variant to `FEN;RESULT` lines by Texel's method and write them
    /// as a weights file (the `EvalFile` option loads it).
    ///
    /// Example: damka tune fit data.txt --variant international --out tuned.txt
    Fit {
        /// The positions, as `damka tune gen` writes them.
        file: std::path::PathBuf,
        /// The rule set of every position in the file.
        #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
        variant: Variant,
        /// Passes of gradient descent.
        #[arg(long, default_value_t = 1000)]
        epochs: usize,
        /// Adam's step size, in centi-men.
        #[arg(long, default_value_t = 1.0)]
        learning_rate: f64,
        /// Strength of the pull towards the hand-set values.
        #[arg(long, default_value_t = 0.0)]
        l2: f64,
        /// Weights to keep at their hand-set values (names or prefixes, comma-separated).
        #[arg(long, value_delimiter = ',')]
        fix: Vec<String>,
        /// Share of the positions (the file's end) held out to check the fit.
        #[arg(long, default_value_t = 0.1)]
        holdout: f64,
        /// The weights file to write.
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

/// A side of the board, as the command line names it.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Black,
    White,
}

/// Runs the command line; returns the process exit code.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> i32 {
    // The version line is made at run time: it says whether this processor has POPCNT and
    // BMI2. clap keeps it for the life of the process.
    let version: &'static str = Box::leak(crate::build_info::version_line().into_boxed_str());
    let parsed = Cli::command()
        .version(version)
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() { 2 } else { 0 };
        }
    };
    init_logging();
    match cli.command {
        Some(Command::Bench { depth }) => {
            crate::bench::run(depth, &mut std::io::stdout().lock());
            0
        }
        Some(Command::Perft {
            variant,
            fen,
            divide,
            depth,
        }) => with_variant!(variant, R => run_perft::<R>(fen.as_deref(), divide, depth)),
        Some(Command::Hub) => damka::protocol::hub::run(),
        Some(Command::Dxp(args)) => damka::protocol::dxp::run(args.into_config()),
        Some(Command::Towers) => crate::towers::run(),
        Some(Command::CbEngine(args)) => crate::cb_engine::run(args),
        Some(Command::Play {
            variant,
            side,
            depth,
            movetime,
            level,
        }) => crate::tools::play::run(
            variant,
            side.map(|side| match side {
                Side::Black => Color::Black,
                Side::White => Color::White,
            }),
            Limit::from_options(depth, movetime),
            level,
        ),
        Some(Command::Analyze {
            file,
            variant,
            depth,
            movetime,
            strict,
        }) => {
            crate::tools::analyze::run(&file, variant, Limit::from_options(depth, movetime), strict)
        }
        Some(Command::Match(args)) => crate::tools::matches::run(*args),
        Some(Command::Show { fen, variant, svg }) => {
            crate::tools::show::run(&fen, variant, svg.as_deref())
        }
        Some(Command::Tune(command)) => run_tune(command),
        Some(Command::Egtb(command)) => crate::tools::egtb::run(command),
        Some(Command::Book(command)) => crate::tools::book::run(command),
        None => damka::protocol::run_stdio(),
    }
}

fn run_tune(command: TuneCommand) -> i32 {
    use crate::tools::{tune, tune_fit};
    match command {
        TuneCommand::Gen(config) => tune::run_gen(&config),
        TuneCommand::Endings(config) => crate::tools::tune_endings::run_endings(&config),
        TuneCommand::Relabel(config) => crate::tools::tune_endings::run_relabel(&config),
        TuneCommand::Score(config) => crate::tools::tune_score::run_score(&config),
        TuneCommand::Patterns(config) => {
            let command: Vec<String> = std::env::args().collect();
            crate::tools::tune_patterns::run_patterns(&config, &command.join(" "))
        }
        TuneCommand::Fit {
            file,
            variant,
            epochs,
            learning_rate,
            l2,
            fix,
            holdout,
            out,
        } => {
            let config = tune_fit::FitConfig {
                epochs,
                learning_rate,
                l2,
                fixed: fix,
                holdout,
            };
            let command: Vec<String> = std::env::args().collect();
            tune_fit::run_fit(&file, variant, &config, &out, &command.join(" "))
        }
    }
}

/// Logging goes to stderr and is off unless `RUST_LOG` asks for it.
fn init_logging() {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
        .target(env_logger::Target::Stderr)
        .try_init();
}

fn run_perft<R: Rules>(fen: Option<&str>, show_divide: bool, depth: u32) -> i32 {
    let position = match given_position::<R>(fen, "damka perft: bad FEN") {
        Ok(position) => position,
        Err(status) => return status,
    };
    let out = std::io::stdout();
    let mut out = out.lock();
    let started = Instant::now();
    let total = if show_divide {
        let mut total = 0;
        for (text, count) in divide(&position, depth) {
            total += count;
            let _ = writeln!(out, "{text}: {count}");
            let _ = out.flush();
        }
        if depth == 0 { 1 } else { total }
    } else {
        perft(&position, depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    let rate = if seconds > 0.0 {
        total as f64 / seconds / 1e6
    } else {
        0.0
    };
    let _ = writeln!(
        out,
        "perft {depth}: {total} leaves in {seconds:.3} s ({rate:.1} M leaves/s)"
    );
    let _ = out.flush();
    0
}
