//! `damka match` end to end: two damka processes at tiny limits make a PDN file that pydraughts
//! (`tests/play/pdn_replay.py`, in the venv of `scripts/pyenv.sh`) reads and replays with the
//! written results; broken engines (`tests/match/bad_engine.py`) lose by forfeit and the match
//! goes on; bad command lines fail with one line.

use crate::common;

use common::process::{DAMKA, Run, run_damka, run_damka_ok};
use common::{pydraughts_replay, repo_root};
use std::path::{Path, PathBuf};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

/// A fresh path under target/test-match for a file a test writes.
fn scratch(name: &str) -> PathBuf {
    common::scratch("test-match", name)
}

fn engine(spec: &str) -> String {
    format!("cmd={DAMKA},{spec}")
}

fn run_match(args: &[&str]) -> Run {
    run_damka_ok("match", args, b"", LIMIT)
}

/// [`run_match`] of `--variant VARIANT --games GAMES`, then `options`, the PDN file and the
/// two engines (as `--engine` takes them), in that order.
fn play_match(variant: &str, games: &str, options: &[&str], pdn: &Path, engines: [&str; 2]) -> Run {
    let pdn = pdn.to_str().unwrap();
    let mut args = vec!["--variant", variant, "--games", games];
    args.extend_from_slice(options);
    args.extend(["--pdn", pdn, "--engine", engines[0], "--engine", engines[1]]);
    run_match(&args)
}

/// [`play_match`] of `games` games into `target/test-match/<pdn>`, checked by
/// [`check_match`] (the first engine is the one its spec names with `name=`): the PDN file.
fn checked_match(
    pdn: &str,
    variant: &str,
    games: usize,
    options: &[&str],
    engines: [&str; 2],
) -> PathBuf {
    let pdn = scratch(pdn);
    let run = play_match(variant, &games.to_string(), options, &pdn, engines);
    let first = engines[0]
        .split(',')
        .find_map(|field| field.strip_prefix("name="))
        .expect("the first engine has a name=");
    let pydraughts_variant = if variant == "international" {
        "standard"
    } else {
        variant
    };
    check_match(&pdn, pydraughts_variant, &run, first, games);
    pdn
}

/// The table's `wins draws losses` of the first engine.
fn table_counts(stdout: &str, name: &str) -> (u32, u32, u32) {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no table row for {name}:\n{stdout}"));
    let numbers: Vec<u32> = line
        .split_whitespace()
        .skip(2)
        .take(3)
        .map(|w| w.parse().expect("a count"))
        .collect();
    (numbers[0], numbers[1], numbers[2])
}

/// Replays every game with pydraughts and checks it against its tags and the table: every
/// move legal, a decisive game ended by the rules is over with that winner by pydraughts'
/// rules too, and the first engine's wins, draws and losses add up to the table's.
fn check_match(pdn: &Path, pydraughts_variant: &str, run: &Run, first: &str, games: usize) {
    let reports = pydraughts_replay(pdn, pydraughts_variant);
    assert_eq!(reports.len(), games, "games in {}", pdn.display());
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for report in &reports {
        let tags = &report["tags"];
        assert!(
            report["illegal"].is_null(),
            "pydraughts: illegal move in {report}"
        );
        assert_eq!(report["replayed"], report["moves"], "{report}");
        let result = tags["Result"].as_str().expect("Result tag");
        let termination = tags["Termination"].as_str().expect("Termination tag");
        let winner = match result {
            "2-0" | "1-0" => "white",
            "0-2" | "0-1" => "black",
            "1-1" | "1/2-1/2" => "draw",
            other => panic!("unexpected result {other}"),
        };
        if termination == "normal" && winner != "draw" {
            assert_eq!(report["winner"], winner, "pydraughts' verdict: {report}");
        }
        let first_color = if tags["White"] == first {
            "white"
        } else {
            "black"
        };
        assert!(tags["White"] == first || tags["Black"] == first, "{tags}");
        match winner {
            "draw" => draws += 1,
            w if w == first_color => wins += 1,
            _ => losses += 1,
        }
    }
    assert_eq!(
        table_counts(&run.stdout, first),
        (wins, draws, losses),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Elo "), "{}", run.stdout);
}

#[test]
fn russian_depths_play_paired_openings_that_pydraughts_replays() {
    let pdn = checked_match(
        "russian.pdn",
        "russian",
        6,
        &["--concurrency", "2", "--opening-plies", "2", "--seed", "5"],
        [&engine("name=d1,depth=1"), &engine("name=d3,depth=3")],
    );
    // Both colours on each opening: the two games of a pair (rounds 2k+1, 2k+2) start with
    // the same two plies, and the first engine has White in one and Black in the other.
    let text = std::fs::read_to_string(&pdn).unwrap();
    let mut openings = std::collections::BTreeMap::new();
    for game in text.split("[Event ").skip(1) {
        let tag = |name: &str| {
            let start = game.find(&format!("[{name} \"")).expect("tag") + name.len() + 3;
            game[start..start + game[start..].find('"').unwrap()].to_string()
        };
        let round: usize = tag("Round").parse().unwrap();
        let moves = game.lines().find(|l| l.starts_with("1. ")).expect("moves");
        let plies: Vec<&str> = moves.split_whitespace().skip(1).take(2).collect();
        openings
            .entry((round - 1) / 2)
            .or_insert_with(Vec::new)
            .push((plies.join(" "), tag("White")));
    }
    assert_eq!(openings.len(), 3, "{text}");
    for (pair, games) in &openings {
        assert_eq!(games.len(), 2, "pair {pair}: {games:?}");
        assert_eq!(games[0].0, games[1].0, "pair {pair}: {games:?}");
        assert_ne!(games[0].1, games[1].1, "pair {pair}: {games:?}");
    }
}

#[test]
fn english_movetime_against_depth_replays() {
    checked_match(
        "english.pdn",
        "english",
        2,
        &[],
        [&engine("name=mt,movetime=20"), &engine("name=d2,depth=2")],
    );
}

#[test]
fn international_uci_against_hub_on_a_clock_replays() {
    let hub = format!("cmd={DAMKA} hub,proto=hub,name=hub,option.hash=8");
    checked_match(
        "international.pdn",
        "international",
        2,
        &["--tc", "1+0.02", "--max-plies", "120"],
        [&engine("name=uci,option.Hash=8"), &hub],
    );
}

fn bad_engine(mode: &str) -> String {
    let script = repo_root().join("tests/match/bad_engine.py");
    format!("cmd=python3 {} {mode},name=bad", script.display())
}

#[test]
fn broken_engines_lose_by_forfeit_and_the_match_goes_on() {
    for (mode, termination, limit) in [
        ("illegal", "rules infraction", "--depth"),
        ("garbage", "rules infraction", "--depth"),
        ("hang", "stalled connection", "--depth"),
        ("hang", "time forfeit", "--tc"),
        ("crash", "abandoned", "--depth"),
    ] {
        let pdn = scratch(&format!("bad-{mode}.pdn"));
        let limit_value = if limit == "--tc" { "0.5+0.01" } else { "2" };
        let run = play_match(
            "russian",
            "3",
            &[limit, limit_value, "--hang-timeout", "1", "--verbose"],
            &pdn,
            [&engine("name=good"), &bad_engine(mode)],
        );
        assert_eq!(
            table_counts(&run.stdout, "good"),
            (3, 0, 0),
            "{mode}: {}",
            run.stdout
        );
        let text = std::fs::read_to_string(&pdn).unwrap();
        assert_eq!(
            text.matches(&format!("[Termination \"{termination}\"]"))
                .count(),
            3,
            "{mode}:\n{text}"
        );
        assert_eq!(
            text.matches("[TerminationDetails \"bad (").count(),
            3,
            "{text}"
        );
        assert_eq!(
            run.stderr
                .lines()
                .filter(|l| l.contains(termination))
                .count(),
            3
        );
        // Every game is still a valid PDN game for pydraughts.
        let reports = pydraughts_replay(&pdn, "russian");
        assert_eq!(reports.len(), 3);
        assert!(
            reports.iter().all(|r| r["illegal"].is_null()),
            "{reports:?}"
        );
    }
}

#[test]
fn bad_command_lines_fail_with_one_line() {
    let pdn = scratch("never.pdn");
    let pdn = pdn.to_str().unwrap();
    let damka = engine("name=x");
    for (args, needle) in [
        (
            vec![
                "--depth",
                "2",
                "--engine",
                "cmd=/no/such/engine",
                "--engine",
                &damka,
            ],
            "cannot start",
        ),
        (
            vec![
                "--depth",
                "2",
                "--engine",
                &format!("cmd={DAMKA},option.Nope=1"),
                "--engine",
                &damka,
            ],
            "unknown option 'Nope'",
        ),
        (
            vec![
                "--depth",
                "2",
                "--engine",
                &format!("cmd={DAMKA},colour=red"),
                "--engine",
                &damka,
            ],
            "unknown key 'colour'",
        ),
        (vec!["--engine", &damka, "--engine", &damka], "has no limit"),
        (
            vec![
                "--depth", "2", "--sprt", "10", "0", "0.05", "0.05", "--engine", &damka,
                "--engine", &damka,
            ],
            "--sprt",
        ),
    ] {
        let mut all = vec!["match", "--pdn", pdn];
        all.extend(args.iter().copied());
        let run = run_damka(&all, b"", LIMIT);
        assert_eq!(run.code, Some(2), "{all:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{all:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{all:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"));
    }
}

#[test]
fn sprt_stops_as_soon_as_the_test_decides() {
    let pdn = scratch("sprt.pdn");
    let run = play_match(
        "russian",
        "400",
        &["--sprt", "0", "50", "0.05", "0.05"],
        &pdn,
        [&engine("name=d4,depth=4"), &engine("name=d1,depth=1")],
    );
    assert!(run.stdout.contains("H1 accepted"), "{}", run.stdout);
    let (w, d, l) = table_counts(&run.stdout, "d4");
    let games = (w + d + l) as usize;
    assert!(games < 400, "{}", run.stdout);
    check_match(&pdn, "russian", &run, "d4", games);
}

#[test]
fn score_adjudication_ends_lopsided_games() {
    let pdn = checked_match(
        "adjudicate.pdn",
        "russian",
        6,
        &["--adjudicate", "300:3"],
        [&engine("name=d5,depth=5"), &engine("name=d1,depth=1")],
    );
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert!(text.contains("[Termination \"adjudication\"]"), "{text}");
    assert!(
        text.contains("by adjudication: both engines scored it"),
        "{text}"
    );
}

/// A four-game Russian match from the openings in the file `openings` (written with
/// `contents`) into the PDN file `pdn`, checked with [`check_match`]; the PDN's text.
fn match_from_openings(openings: &str, contents: &str, pdn: &str) -> String {
    let openings = scratch(openings);
    std::fs::write(&openings, contents).unwrap();
    let pdn = checked_match(
        pdn,
        "russian",
        4,
        &["--depth", "2", "--openings", openings.to_str().unwrap()],
        [&engine("name=a"), &engine("name=b,depth=3")],
    );
    std::fs::read_to_string(&pdn).unwrap()
}

#[test]
fn openings_from_fen_and_pdn_files() {
    // Russian after 1. c3-d4 (Black to move) and after 1. c3-d4 f6-g5 (White to move).
    let text = match_from_openings(
        "openings.fen",
        "# two openings\nB:W18,21,23-32:B1-12\nW:W18,21,23-32:B1-10,12,16\n",
        "from-fen.pdn",
    );
    assert_eq!(text.matches("[FEN \"").count(), 4, "{text}");

    let text = match_from_openings(
        "openings.pdn",
        "[Event \"openings\"]\n[Result \"*\"]\n\n1. c3-d4 f6-g5 2. g3-f4 {main line} *\n\n\
         [Event \"openings\"]\n[Result \"*\"]\n\n1. a3-b4 b6-a5 *\n",
        "from-pdn.pdn",
    );
    assert_eq!(
        text.matches("1. c3-d4 f6-g5 2. g3-f4 ").count(),
        2,
        "{text}"
    );
    assert_eq!(text.matches("1. a3-b4 b6-a5 2. ").count(), 2, "{text}");
}

#[test]
fn hub_and_uci_damka_play_the_same_moves_in_every_numbering() {
    // At a fixed depth damka is deterministic, so the Hub engine (positions and moves in
    // pydraughts' numbering on 8x8 boards, docs/hub.md) must play exactly the game the UCI
    // engine plays with the colours swapped: the two games of the pair are the same.
    for variant in ["russian", "english", "international"] {
        let pdn = scratch(&format!("hub-uci-{variant}.pdn"));
        let hub = format!("cmd={DAMKA} hub,proto=hub,name=hub");
        play_match(
            variant,
            "2",
            &["--depth", "3"],
            &pdn,
            [&engine("name=uci"), &hub],
        );
        let text = std::fs::read_to_string(&pdn).unwrap();
        let games: Vec<&str> = text
            .split("[Event ")
            .skip(1)
            .map(|g| &g[g.find("\n\n").expect("moves after the tags")..])
            .collect();
        assert_eq!(games.len(), 2, "{text}");
        assert_eq!(games[0], games[1], "{variant}:\n{text}");
    }
}

/// A free TCP port on 127.0.0.1 (bound, then released for the engine to take).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

#[test]
fn a_dxp_engine_plays_through_its_port_and_pydraughts_replays_the_games() {
    let port = free_port();
    // The match starts `damka dxp --listen` and connects to it; the game requests carry a
    // one-minute clock (the engine itself thinks 20 ms a move).
    let dxp = format!(
        "cmd={DAMKA} dxp --listen 127.0.0.1:{port} --movetime 20 --hash 16,proto=dxp,\
         addr=127.0.0.1:{port},name=dxp,tc=60"
    );
    let pdn = checked_match(
        "dxp.pdn",
        "international",
        4,
        &[],
        [&dxp, &engine("name=uci,movetime=20,option.Hash=16")],
    );
    // Every game was played to its end by the rules (or the ply cap): no forfeit.
    let text = std::fs::read_to_string(&pdn).expect("the PDN");
    assert_eq!(
        text.matches("[Termination \"normal\"]").count()
            + text.matches("[Termination \"adjudication\"]").count(),
        4,
        "{text}"
    );
    // DXP engines: international only, on a whole-minute clock, one game at a time.
    let port = free_port();
    let dxp = format!("cmd={DAMKA} dxp --listen 127.0.0.1:{port},proto=dxp,addr=127.0.0.1:{port}");
    for (args, expected) in [
        (
            vec!["--variant", "russian", "--tc", "60"],
            "international draughts only",
        ),
        (
            vec!["--variant", "international", "--movetime", "100"],
            "whole minutes",
        ),
        (
            vec!["--variant", "international", "--tc", "60+1"],
            "whole minutes",
        ),
        (
            vec![
                "--variant",
                "international",
                "--tc",
                "60",
                "--concurrency",
                "2",
                "--games",
                "2",
            ],
            "one at a time",
        ),
    ] {
        let mut all = vec!["match"];
        all.extend(args);
        all.extend(["--pdn", pdn.to_str().unwrap(), "--engine", &dxp, "--engine"]);
        let uci = engine("movetime=20");
        all.push(&uci);
        let run = run_damka(&all, b"", LIMIT);
        assert_eq!(run.code, Some(2), "{all:?}: {}", run.stdout);
        assert!(run.stderr.contains(expected), "{all:?}: {}", run.stderr);
    }
}

/// A terminal's Ctrl-C: SIGINT to the whole process group (the match and the engines it
/// started) in the middle of a match. Every game the match reported as finished is in the PDN,
/// complete, and pydraughts replays each one; the file holds no half-written game.
///
/// The match starts with SIGINT's default action, as under a terminal, whatever the suite
/// inherited: a background job of a shell script (`nohup bash .ci/run &`) starts with SIGINT
/// ignored, which every child inherits, and the signal would then do nothing. GNU env's
/// `--default-signal` sets the default back before it runs damka.
#[test]
fn ctrl_c_leaves_every_finished_game_in_a_pdn_that_pydraughts_reads() {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    use std::time::Instant;
    let resets = Command::new("env")
        .args(["--default-signal=INT", "true"])
        .status();
    assert!(
        resets.is_ok_and(|status| status.success()),
        "this test needs GNU env (coreutils 8.31 or later) for --default-signal"
    );
    let pdn = scratch("ctrl-c.pdn");
    let stderr_path = scratch("ctrl-c.err");
    let mut child = common::without_default_tables(&mut Command::new("env"))
        .args(["--default-signal=INT", DAMKA])
        .args(["match", "--variant", "english", "--games", "200"])
        .args([
            "--concurrency",
            "2",
            "--movetime",
            "20",
            "--verbose",
            "--seed",
            "3",
        ])
        .arg("--pdn")
        .arg(&pdn)
        .arg("--engine")
        .arg(engine("name=a"))
        .arg("--engine")
        .arg(engine("name=b"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .process_group(0)
        .spawn()
        .expect("start damka match");
    let started = Instant::now();
    let finished_games = |text: &str| text.matches("[Result ").count();
    while finished_games(&std::fs::read_to_string(&pdn).unwrap_or_default()) < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "fewer than 3 games in 120 s"
        );
        assert!(child.try_wait().unwrap().is_none(), "the match ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Mid-game for the next games: both slots are playing.
    std::thread::sleep(Duration::from_millis(300));
    let group = format!("-{}", child.id());
    let status = Command::new("kill")
        .args(["-INT", "--", &group])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -INT {group}");
    let exit = common::process::wait_for_exit(
        &mut child,
        started + Duration::from_secs(180),
        || {},
        "the match did not end on SIGINT",
    );
    assert!(!exit.success(), "interrupted, yet a success: {exit:?}");
    let progress = std::fs::read_to_string(&stderr_path).unwrap();
    let reported = progress.lines().filter(|l| l.starts_with("game ")).count();
    let text = std::fs::read_to_string(&pdn).unwrap();
    let in_file = finished_games(&text);
    // The match writes and flushes a game before it reports it, so the file may hold a game
    // whose report line the signal cut off, never fewer.
    assert!(
        in_file >= reported && (3..200).contains(&in_file),
        "{in_file} games in the PDN, {reported} reported:\n{progress}"
    );
    assert_eq!(
        text.matches("[Event ").count(),
        in_file,
        "a partial game:\n{text}"
    );
    let reports = pydraughts_replay(&pdn, "english");
    assert_eq!(reports.len(), in_file, "games pydraughts read");
    for report in &reports {
        assert!(report["illegal"].is_null(), "pydraughts: {report}");
        assert_eq!(report["replayed"], report["moves"], "{report}");
    }
}

#[test]
fn the_first_hub_dialect_as_scan_speaks_it_agrees_with_pydraughts() {
    // The engine on the other side keeps its board with pydraughts' rules and answers
    // `error` to a position or move it cannot read or play, which forfeits the game: every
    // game ending normally shows that our 51-letter positions and moves are what it reads.
    let log = scratch("hub1.log");
    let _ = std::fs::remove_file(&log);
    let python = common::venv_python("pydraughts", "pydraughts==0.6.7");
    let script = repo_root().join("tests/match/hub1_engine.py");
    let hub1 = format!(
        "cmd={} {} {},proto=hub1,name=hub1,tc=60+0.5",
        python.display(),
        script.display(),
        log.display()
    );
    let pdn = checked_match(
        "hub1.pdn",
        "international",
        2,
        &["--max-plies", "160"],
        [&engine("name=uci,depth=2"), &hub1],
    );
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert!(
        !text.contains("forfeit") && !text.contains("infraction"),
        "{text}"
    );
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(sent.lines().any(|l| l == "new"), "{sent}");
    // The clock it is told: what it has left, less the increment that it counts as its
    // own for the move (Scan's time allocation does). At each game's first move: 60 s.
    let lines: Vec<&str> = sent.lines().collect();
    let clocks: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("level 0 "))
        .collect();
    assert!(!clocks.is_empty(), "{sent}");
    for (at, _) in lines.iter().enumerate().filter(|(_, l)| **l == "new") {
        let first = lines[at..].iter().find(|l| l.starts_with("level "));
        assert_eq!(first, Some(&"level 0 59500 500"), "{sent}");
    }
    let positions = sent.lines().filter(|l| l.starts_with("pos ")).count();
    assert_eq!(positions, clocks.len(), "one position a move:\n{sent}");
}

#[test]
fn the_first_hub_dialect_refuses_what_it_cannot_express() {
    let script = repo_root().join("tests/match/hub1_engine.py");
    for (variant, limit, expected) in [
        ("english", "depth=2", "international draughts only"),
        ("international", "nodes=1000", "no node limit"),
    ] {
        let hub1 = format!(
            "cmd=python3 {} /dev/null,proto=hub1,{limit}",
            script.display()
        );
        let pdn = scratch("hub1-refused.pdn");
        let run = run_damka(
            &[
                "match",
                "--variant",
                variant,
                "--pdn",
                pdn.to_str().unwrap(),
                "--engine",
                &engine("depth=1"),
                "--engine",
                &hub1,
            ],
            b"",
            LIMIT,
        );
        assert_ne!(run.code, Some(0), "{variant} {limit}");
        assert!(run.stderr.contains(expected), "{}", run.stderr);
    }
}
