//! `damka match`: engines against each other over UCI, Hub, DXP or CheckerBoard's API, refereed with damka's rules, with
//! paired openings, clocks, concurrency, a PDN file, Elo with intervals and an optional SPRT.

pub mod client;
pub mod dxp_link;
pub mod openings;
pub mod referee;
pub mod reply;
pub mod spec;
pub mod stats;

use crate::tools::limit::{Limit, parse_tc};
use client::Player;
use damka::notation::pdn::{pdn_text, today};
use damka::rules::{Color, Rules, Variant};
use damka::with_variant;
use openings::Opening;
use referee::{Adjudication, Finished, Referee, Termination};
use spec::EngineSpec;
use stats::{Decision, Sprt, Tally};
use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

const EXAMPLES: &str = "\
Examples (from the repository, after cargo build --release):
  damka match --variant russian --games 20 --pdn d2-d5.pdn \\
    --engine cmd=target/release/damka,name=d2,depth=2 \\
    --engine cmd=target/release/damka,name=d5,depth=5
  damka match --variant english --movetime 50 --games 10 --concurrency 2 --pdn mt.pdn \\
    --engine cmd=target/release/damka,name=fast \\
    --engine cmd=target/release/damka,name=d4,depth=4
  damka match --variant international --tc 2+0.05 --games 4 --pdn hub.pdn --verbose \\
    --engine cmd=target/release/damka,name=uci \\
    --engine \"cmd=target/release/damka hub,proto=hub,name=hub,option.hash=16\"
  damka match --variant russian --games 400 --sprt 0 50 0.05 0.05 --pdn sprt.pdn \\
    --engine cmd=target/release/damka,name=d5,depth=5 \\
    --engine cmd=target/release/damka,name=d4,depth=4
  damka match --movetime 100 --games 20 --pdn cb.pdn \
    --engine proto=cb,cmd=target/release/libdamka.so,name=cb,option.hashsize=64 \
    --engine cmd=target/release/damka,name=uci

An engine is KEY=VALUE pairs separated by commas: cmd=PROGRAM [ARGS] (required), name=NAME,
proto=uci|hub|hub1|dxp|cb (default uci, damka's dialect; cb: cmd= is a CheckerBoard engine
library), option.NAME=VALUE (setoption / set-param / CheckerBoard's set NAME VALUE),
its own limit depth=N, movetime=MS, nodes=N or tc=SECONDS+INC, dir=DIR (its working folder),
and for DXP addr=HOST:PORT and dxp-moves=N. See docs/match.md and docs/checkerboard.md.";

/// The command line of `damka match`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct MatchArgs {
    /// The rule set.
    #[arg(long, short, default_value = "english", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
    pub variant: Variant,
    /// An engine (give exactly two): cmd=PROGRAM [ARGS],name=NAME,proto=uci|hub|hub1|dxp|cb,
    /// option.NAME=VALUE,depth=N|movetime=MS|nodes=N|tc=S+I.
    #[arg(long = "engine", required = true, value_name = "SPEC")]
    pub engines: Vec<String>,
    /// Plies per move (for engines without their own limit).
    #[arg(long, group = "limit")]
    pub depth: Option<u32>,
    /// Milliseconds per move.
    #[arg(long, group = "limit")]
    pub movetime: Option<u64>,
    /// Nodes per move.
    #[arg(long, group = "limit")]
    pub nodes: Option<u64>,
    /// A clock kept by the match tool: SECONDS+INCREMENT (e.g. 10+0.1).
    #[arg(long, group = "limit", value_name = "SECONDS+INC")]
    pub tc: Option<String>,
    /// Games to play (pairs of games on the same opening with colours swapped).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Write every game to this PDN file.
    #[arg(long)]
    pub pdn: PathBuf,
    /// Games played at once, each with its own engine processes.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Openings: FENs one a line, or PDN games (default: random balloted openings).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Plies of each random opening (default 4), or the plies kept of each PDN opening.
    #[arg(long)]
    pub opening_plies: Option<usize>,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Largest score (centi-men, for either side) that a 4-ply search by damka may give a
    /// random opening; a more lopsided one is drawn again. `off` keeps every random line
    /// (the ballots of damka before this option). Default 60.
    #[arg(long, value_name = "CP|off", value_parser = parse_opening_limit)]
    pub opening_max_score: Option<OpeningLimit>,
    /// Stop as soon as a GSPRT of H0: Elo = ELO0 against H1: Elo = ELO1 decides.
    #[arg(long, num_args = 4, allow_negative_numbers = true,
          value_names = ["ELO0", "ELO1", "ALPHA", "BETA"])]
    pub sprt: Option<Vec<f64>>,
    /// Win for a side when both engines score it at least SCORE_CP centi-men for MOVES moves
    /// each in a row.
    #[arg(long, value_name = "SCORE_CP:MOVES")]
    pub adjudicate: Option<String>,
    /// A game still going at this many plies (openings included) is a draw.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
    /// Seconds an engine with a depth or node limit may think before it forfeits as hung.
    #[arg(long, default_value_t = 60.0)]
    pub hang_timeout: f64,
    /// Milliseconds a clock may be overrun before the engine loses on time (for the pipes
    /// and a loaded machine; the overrun still comes off the clock).
    #[arg(long, default_value_t = 50)]
    pub time_margin: u64,
    /// Milliseconds an engine with a movetime may take beyond it before it forfeits as hung
    /// (a loaded machine delays answers that the engine timed correctly).
    #[arg(long, default_value_t = 1000)]
    pub movetime_margin: u64,
    /// A line per game on stderr (with the reason of every forfeit).
    #[arg(long)]
    pub verbose: bool,
}

/// The `--opening-max-score` value: a limit in centi-men, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpeningLimit(Option<i32>);

fn parse_opening_limit(text: &str) -> Result<OpeningLimit, String> {
    if text.eq_ignore_ascii_case("off") {
        return Ok(OpeningLimit(None));
    }
    match text.parse::<i32>() {
        Ok(centi) if centi >= 0 => Ok(OpeningLimit(Some(centi))),
        _ => Err(format!(
            "expected centi-men (0 or more) or 'off', not '{text}'"
        )),
    }
}

/// Everything the games need, checked.
struct Settings {
    variant: Variant,
    specs: [EngineSpec; 2],
    limits: [Limit; 2],
    games: usize,
    pdn: PathBuf,
    concurrency: usize,
    openings: Option<PathBuf>,
    opening_plies: Option<usize>,
    opening_max_score: Option<i32>,
    seed: u64,
    sprt: Option<Sprt>,
    referee: Referee,
    verbose: bool,
}

/// Runs `damka match`; returns the exit code (2 after a usage or start-up error, one line on
/// stderr).
pub fn run(args: MatchArgs) -> i32 {
    match settings(args).and_then(|s| with_variant!(s.variant, R => run_match::<R>(&s))) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("damka match: {error}");
            2
        }
    }
}

fn settings(args: MatchArgs) -> Result<Settings, String> {
    if args.engines.len() != 2 {
        return Err(format!(
            "give exactly two --engine specs, not {}",
            args.engines.len()
        ));
    }
    let mut specs = Vec::new();
    for text in &args.engines {
        specs.push(EngineSpec::parse(text).map_err(|e| format!("--engine '{text}': {e}"))?);
    }
    let mut specs: [EngineSpec; 2] = specs.try_into().expect("two specs");
    if specs[0].name == specs[1].name {
        specs[0].name.push_str("-1");
        specs[1].name.push_str("-2");
    }
    let global = match (args.depth, args.movetime, args.nodes, &args.tc) {
        (Some(0), ..) => return Err("--depth must be at least 1".into()),
        (Some(d), ..) => Some(Limit::Depth(d)),
        (_, Some(0), ..) => return Err("--movetime must be at least 1".into()),
        (_, Some(ms), ..) => Some(Limit::MoveTime(Duration::from_millis(ms))),
        (_, _, Some(0), _) => return Err("--nodes must be at least 1".into()),
        (_, _, Some(n), _) => Some(Limit::Nodes(n)),
        (_, _, _, Some(tc)) => Some(parse_tc(tc).map_err(|e| format!("--tc: {e}"))?),
        _ => None,
    };
    let limit_of = |spec: &EngineSpec| {
        spec.limit.or(global).ok_or_else(|| {
            format!(
                "engine {} has no limit: give --depth, --movetime, --nodes or --tc, or \
                 depth=/movetime=/nodes=/tc= in its spec",
                spec.name
            )
        })
    };
    let limits = [limit_of(&specs[0])?, limit_of(&specs[1])?];
    if args.concurrency > 1 && specs.iter().any(|s| s.proto == spec::Proto::Dxp) {
        return Err(
            "a DXP engine listens on one port: play its games one at a time (--concurrency 1)"
                .into(),
        );
    }
    if args.openings.is_some() && args.opening_max_score.is_some() {
        return Err(
            "--opening-max-score judges random openings only: drop it or drop --openings".into(),
        );
    }
    if args.games == 0 {
        return Err("--games must be at least 1".into());
    }
    if args.concurrency == 0 {
        return Err("--concurrency must be at least 1".into());
    }
    let sprt = match args.sprt.as_deref() {
        Some(&[elo0, elo1, alpha, beta]) => Some(Sprt::new(elo0, elo1, alpha, beta)?),
        Some(_) => return Err("--sprt takes ELO0 ELO1 ALPHA BETA".into()),
        None => None,
    };
    let adjudication = match &args.adjudicate {
        None => None,
        Some(text) => {
            let bad = || format!("--adjudicate {text}: expected SCORE_CP:MOVES, e.g. 400:4");
            let (score, moves) = text.split_once(':').ok_or_else(bad)?;
            let centi: i32 = score.trim().parse().map_err(|_| bad())?;
            let moves: usize = moves.trim().parse().map_err(|_| bad())?;
            if centi <= 0 || moves == 0 {
                return Err(bad());
            }
            Some(Adjudication { centi, moves })
        }
    };
    if !(args.hang_timeout.is_finite() && args.hang_timeout > 0.0) {
        return Err("--hang-timeout must be a positive number of seconds".into());
    }
    Ok(Settings {
        variant: args.variant,
        specs,
        limits,
        games: args.games,
        pdn: args.pdn,
        concurrency: args.concurrency.min(args.games),
        openings: args.openings,
        opening_plies: args.opening_plies,
        opening_max_score: args
            .opening_max_score
            .map_or(Some(openings::DEFAULT_OPENING_MAX_SCORE), |limit| limit.0),
        seed: args.seed,
        sprt,
        referee: Referee {
            max_plies: args.max_plies,
            adjudication,
            hang: Duration::from_secs_f64(args.hang_timeout),
            time_margin: Duration::from_millis(args.time_margin),
            movetime_margin: Duration::from_millis(args.movetime_margin),
        },
        verbose: args.verbose,
    })
}

/// A finished game, with its round.
struct Report<R: Rules> {
    round: usize,
    finished: Finished<R>,
}

fn run_match<R: Rules>(settings: &Settings) -> Result<(), String> {
    let pairs = settings.games.div_ceil(2);
    let openings: Vec<Opening<R>> = match &settings.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            openings::load::<R>(&text, settings.opening_plies)
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => openings::balloted::<R>(
            pairs,
            settings.opening_plies.unwrap_or(4),
            settings.seed,
            settings.opening_max_score,
        ),
    };
    let mut file = std::fs::File::create(&settings.pdn)
        .map_err(|e| format!("cannot write {}: {e}", settings.pdn.display()))?;
    // Every worker's engines are started before the first game, so a bad spec, a missing
    // program or an unknown option stops the match at once with one line.
    let mut pairs_of_players = Vec::with_capacity(settings.concurrency);
    for _ in 0..settings.concurrency {
        let mut pair = Vec::with_capacity(2);
        for (spec, limit) in settings.specs.iter().zip(settings.limits) {
            pair.push(
                Player::start(spec, limit, settings.variant)
                    .map_err(|e| format!("engine {}: {e}", spec.name))?,
            );
        }
        let pair: [Player; 2] = pair.try_into().map_err(|_| "two players")?;
        pairs_of_players.push(pair);
    }
    let names = [
        settings.specs[0].name.clone(),
        settings.specs[1].name.clone(),
    ];
    let progress = Progress::new(settings.games as u64, settings.verbose);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = crossbeam_channel::unbounded::<Report<R>>();
    let mut tally = Tally::default();
    let mut half_pairs: HashMap<usize, f64> = HashMap::new();
    let mut terminations: BTreeMap<&'static str, u32> = BTreeMap::new();
    let mut decision = Decision::Continue;
    let mut write_error = None;
    std::thread::scope(|scope| {
        for mut players in pairs_of_players {
            let sender = sender.clone();
            let (next, stop, openings) = (&next, &stop, &openings);
            let referee = settings.referee;
            let games = settings.games;
            scope.spawn(move || {
                loop {
                    let round = next.fetch_add(1, Ordering::SeqCst);
                    if round >= games || stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let opening = &openings[(round / 2) % openings.len()];
                    let [a, b] = &mut players;
                    // The first engine plays White in the first game of each pair.
                    let seats = if round % 2 == 0 { [a, b] } else { [b, a] };
                    match referee::play_game(seats, opening, referee, stop) {
                        Some(finished) => {
                            if sender.send(Report { round, finished }).is_err() {
                                break;
                            }
                        }
                        None => break,
                    }
                }
            });
        }
        drop(sender);
        for report in receiver.iter() {
            let round = report.round;
            let first_white = round % 2 == 0;
            let first_color = if first_white {
                Color::White
            } else {
                Color::Black
            };
            let points = match report.finished.winner {
                Some(color) if color == first_color => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            tally.add_game(points);
            let pair = round / 2;
            if let Some(other) = half_pairs.remove(&pair) {
                tally.add_pair(other + points);
            } else {
                half_pairs.insert(pair, points);
            }
            *terminations
                .entry(report.finished.termination.tag())
                .or_default() += 1;
            let (white, black) = if first_white {
                (&names[0], &names[1])
            } else {
                (&names[1], &names[0])
            };
            let result = result_text::<R>(report.finished.winner);
            let pdn = game_pdn(&report, settings.variant, white, black, result);
            if let Err(e) = file.write_all(pdn.as_bytes()).and_then(|()| file.flush())
                && write_error.is_none()
            {
                write_error = Some(format!("cannot write {}: {e}", settings.pdn.display()));
                stop.store(true, Ordering::SeqCst);
            }
            progress.game(
                &tally,
                &names,
                &format!(
                    "game {}/{}: {white} - {black} {result} ({}: {}); {} {}/{}",
                    round + 1,
                    settings.games,
                    report.finished.termination.tag(),
                    report.finished.reason,
                    names[0],
                    f64::from(tally.wins) + f64::from(tally.draws) / 2.0,
                    tally.games()
                ),
            );
            if let Some(sprt) = &settings.sprt {
                decision = sprt.decide(&tally);
                if decision != Decision::Continue {
                    stop.store(true, Ordering::SeqCst);
                }
            }
        }
    });
    progress.finish();
    if let Some(error) = write_error {
        return Err(error);
    }
    print_table(settings, &names, &tally, &terminations, decision);
    Ok(())
}

/// The PDN result of a game: `2-0`/`1-1`/`0-2` on 10x10, `1-0`/`1/2-1/2`/`0-1` on 8x8.
fn result_text<R: Rules>(winner: Option<Color>) -> &'static str {
    use damka::game::{DrawReason, Outcome};
    match winner {
        Some(color) => Outcome::Win(color).pdn_result::<R>(),
        None => Outcome::Draw(DrawReason::Repetition).pdn_result::<R>(),
    }
}

fn game_pdn<R: Rules>(
    report: &Report<R>,
    variant: Variant,
    white: &str,
    black: &str,
    result: &str,
) -> String {
    let finished = &report.finished;
    let mut tags = vec![
        ("Event", format!("damka match ({variant})")),
        ("Site", "?".to_string()),
        ("Date", today()),
        ("Round", (report.round + 1).to_string()),
        ("White", white.to_string()),
        ("Black", black.to_string()),
        ("Termination", finished.termination.tag().to_string()),
    ];
    if finished.termination != Termination::Normal {
        tags.push(("TerminationDetails", finished.reason.clone()));
    }
    pdn_text(&finished.game, &tags, result)
}

/// The progress bar (stderr, only on a terminal) and the `--verbose` lines.
struct Progress {
    bar: indicatif::ProgressBar,
    verbose: bool,
}

impl Progress {
    fn new(games: u64, verbose: bool) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(games);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar
        } else {
            indicatif::ProgressBar::hidden()
        };
        Progress { bar, verbose }
    }

    fn game(&self, tally: &Tally, names: &[String; 2], line: &str) {
        self.bar.set_message(format!(
            "{} +{} ={} -{} ({:.1}%)",
            names[0],
            tally.wins,
            tally.draws,
            tally.losses,
            100.0 * tally.score()
        ));
        self.bar.inc(1);
        if self.verbose {
            if self.bar.is_hidden() {
                eprintln!("{line}");
            } else {
                self.bar.println(line);
            }
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn elo_text(elo: f64) -> String {
    if elo.is_finite() {
        // `+ 0.0` turns a negative zero into zero.
        format!("{:+.1}", elo + 0.0)
    } else if elo > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

/// `+12.3 ± 45.6` when the interval is finite, else the estimate alone.
fn estimate_text(e: &stats::Estimate) -> String {
    if e.margin().is_finite() {
        format!("{} ± {:.1}", elo_text(e.elo), e.margin())
    } else {
        elo_text(e.elo)
    }
}

fn print_table(
    settings: &Settings,
    names: &[String; 2],
    tally: &Tally,
    terminations: &BTreeMap<&'static str, u32>,
    decision: Decision,
) {
    let mut out = String::new();
    let describe = |i: usize| format!("{} ({})", names[i], settings.limits[i]);
    out.push_str(&format!(
        "Match {} vs {}, {}, {} games\n",
        describe(0),
        describe(1),
        settings.variant,
        tally.games()
    ));
    let width = names[0].len().max(6);
    out.push_str(&format!(
        "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>6}\n",
        "engine", "games", "wins", "draws", "losses", "score"
    ));
    out.push_str(&format!(
        "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>5.1}%\n",
        names[0],
        tally.games(),
        tally.wins,
        tally.draws,
        tally.losses,
        100.0 * tally.score()
    ));
    if let Some(e) = tally.trinomial() {
        out.push_str(&format!(
            "Elo {} - {}: {} (95%, trinomial: {} to {})\n",
            names[0],
            names[1],
            estimate_text(&e),
            elo_text(e.low),
            elo_text(e.high)
        ));
    }
    if tally.pair_count() > 0
        && let Some(e) = tally.pentanomial()
    {
        out.push_str(&format!(
            "Elo {} - {}: {} (95%, pentanomial over {} opening pairs: {} to {}; pairs \
             0/0.5/1/1.5/2 points: {})\n",
            names[0],
            names[1],
            estimate_text(&e),
            tally.pair_count(),
            elo_text(e.low),
            elo_text(e.high),
            tally
                .pairs
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("/")
        ));
    }
    if let Some(sprt) = &settings.sprt {
        let (lower, upper) = sprt.bounds();
        out.push_str(&format!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} (bounds {:.2}, {:.2}): {}\n",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.llr(tally),
            lower,
            upper,
            match decision {
                Decision::H0 => "H0 accepted",
                Decision::H1 => "H1 accepted",
                Decision::Continue => "no decision yet",
            }
        ));
    }
    let ends: Vec<String> = terminations
        .iter()
        .map(|(tag, count)| format!("{tag} {count}"))
        .collect();
    out.push_str(&format!("Terminations: {}\n", ends.join(", ")));
    out.push_str(&format!("PDN: {}\n", settings.pdn.display()));
    print!("{out}");
    let _ = std::io::stdout().flush();
}
