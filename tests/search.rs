//! Search and engine facade: legal best moves everywhere, prompt stop, deterministic node counts.

use crate::common;

use common::{SplitMix, serial};
use damka::engine::{Engine, Event, Go};
use damka::rules::Variant;
use damka::search::score::WIN_BOUND;
use damka::search::tt::TranspositionTable;
use damka::search::{Env, Limits, Outcome, think};
use damka::{Move, Position, Rules, with_variant};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Positions reached by random playouts from the start.
fn random_positions<R: Rules>(seed: u64, count: usize) -> Vec<Position<R>> {
    let mut rng = SplitMix(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut position = Position::<R>::start();
        let length = rng.next_u64() % 80;
        for _ in 0..length {
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            let index = (rng.next_u64() % legal.len() as u64) as usize;
            position = position.play(&legal.as_slice()[index]);
        }
        positions.push(position);
    }
    positions
}

/// One single-thread search of `position` within `limits` (one principal variation).
fn search_with<R: Rules>(position: &Position<R>, limits: Limits) -> (Option<damka::Move>, u64) {
    let outcome = search_on_threads(position, limits, 1);
    (outcome.best, outcome.nodes)
}

/// One search of `position` within `limits` on `threads` threads (one principal variation).
fn search_on_threads<R: Rules>(position: &Position<R>, limits: Limits, threads: usize) -> Outcome {
    let env = Env {
        threads,
        ..Env::new(Arc::new(TranspositionTable::new(4)))
    };
    let limits = Limits {
        multipv: 1,
        ..limits
    };
    think(position, &limits, &env, &mut |_| {})
}

fn search_fixed<R: Rules>(position: &Position<R>, depth: u32) -> (Option<damka::Move>, u64) {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    search_with(position, limits)
}

/// Fails unless `best` is a legal move of `position`, or `None` where there is none or the
/// game is already decided.
fn assert_legal_best<R: Rules>(position: &Position<R>, best: Option<damka::Move>, after: &str) {
    let legal = position.legal_moves();
    match best {
        // A decided game (breakthrough: a king on the board) has no move to play either.
        None => assert!(
            legal.is_empty() || position.decided_winner().is_some(),
            "no best move {after} in {position:?}"
        ),
        Some(mv) => assert!(
            legal.as_slice().contains(&mv),
            "illegal best move {mv:?} {after} in {position:?}"
        ),
    }
}

fn best_moves_are_legal<R: Rules>() {
    for position in random_positions::<R>(7, 60) {
        let (best, _) = search_fixed(&position, 4);
        assert_legal_best(&position, best, "at depth 4");
    }
}

/// Two threads (the main one and a Lazy SMP helper over the same table) finish the depth
/// asked for, and within a node limit still answer with a legal move.
fn two_thread_best_moves_are_legal<R: Rules>() {
    for position in random_positions::<R>(17, 20) {
        let limits = Limits {
            depth: Some(7),
            ..Limits::default()
        };
        let outcome = search_on_threads(&position, limits, 2);
        assert_legal_best(&position, outcome.best, "at depth 7 on two threads");
        // A proven win or loss ends the deepening early.
        if outcome.best.is_some() && outcome.score.abs() <= WIN_BOUND {
            assert_eq!(
                outcome.depth, 7,
                "depth reached on two threads in {position:?}"
            );
        }
        let limits = Limits {
            nodes: Some(30_000),
            ..Limits::default()
        };
        let outcome = search_on_threads(&position, limits, 2);
        assert_legal_best(&position, outcome.best, "after 30,000 nodes on two threads");
    }
}

/// Searches stopped by a node limit, mostly in the middle of an iteration (where the move
/// that beat the previous best so far is played), still give a legal move.
fn node_limited_best_moves_are_legal<R: Rules>() {
    for position in random_positions::<R>(13, 30) {
        for nodes in [200, 2_000, 20_000] {
            let limits = Limits {
                nodes: Some(nodes),
                ..Limits::default()
            };
            let (best, _) = search_with(&position, limits);
            assert_legal_best(&position, best, &format!("after {nodes} nodes"));
        }
    }
}

fn node_counts_repeat<R: Rules>() {
    for position in random_positions::<R>(11, 5) {
        let first = search_fixed(&position, 6);
        let second = search_fixed(&position, 6);
        assert_eq!(first, second, "fixed-depth search differs in {position:?}");
    }
}

/// Runs `check::<R>()` for the rules `R` of every variant, in the timed tests' turn.
macro_rules! in_every_variant {
    ($check:ident) => {{
        let _serial = serial();
        for variant in Variant::ALL {
            with_variant!(variant, R => $check::<R>());
        }
    }};
}

common::test_cases! {
    best_moves_are_legal_in_every_variant: in_every_variant!(best_moves_are_legal);
    node_limited_best_moves_are_legal_in_every_variant:
        in_every_variant!(node_limited_best_moves_are_legal);
    fixed_depth_single_thread_is_deterministic: in_every_variant!(node_counts_repeat);
    two_thread_best_moves_are_legal_in_every_variant:
        in_every_variant!(two_thread_best_moves_are_legal);
}

fn wait_best_move(events: &crossbeam_channel::Receiver<Event>, limit: Duration) -> Option<Move> {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match events.recv_timeout(left) {
            Ok(Event::BestMove { best, .. }) => return best,
            Ok(Event::Info(_) | Event::Book { .. }) => continue,
            Err(_) => panic!("no bestmove within {limit:?}"),
        }
    }
}

/// `best` is one of the legal moves of the engine's position.
fn assert_legal(engine: &Engine, best: Move) {
    let session = engine.session();
    let text = session.line_text(&[best]);
    assert!(
        text.len() == 1 && session.legal_moves().contains(&text[0]),
        "{best:?} is not legal in {}",
        session.fen()
    );
}

#[test]
fn stop_during_infinite_ends_it_with_a_legal_move() {
    let _serial = serial();
    let (mut engine, events) = Engine::new();
    engine.set_variant(Variant::International).unwrap();
    engine.go(Go {
        infinite: true,
        ..Go::default()
    });
    std::thread::sleep(Duration::from_millis(300));
    // Liveness: the infinite search ends with a move because of `stop` (how promptly is a
    // benchmark, scripts/stop_latency.py, not a test).
    engine.stop();
    let best = wait_best_move(&events, Duration::from_secs(10)).expect("a move after stop");
    assert_legal(&engine, best);
}

#[test]
fn movetime_ends_the_search_by_itself() {
    let _serial = serial();
    let (mut engine, events) = Engine::new();
    engine.go(Go {
        movetime_ms: Some(200),
        ..Go::default()
    });
    // Liveness: the move comes with no `stop` (how close to 200 ms is a benchmark,
    // scripts/stop_latency.py; under load a timed assertion here would fail for the load).
    let best = wait_best_move(&events, Duration::from_secs(20)).expect("a move without stop");
    assert_legal(&engine, best);
}

#[test]
fn a_finished_game_has_no_best_move() {
    let _serial = serial();
    let (mut engine, events) = Engine::new();
    // White to move with no pieces left: the game is over.
    let game = damka::game::Game::<damka::rules::English>::from_fen("W:W:B1,2").unwrap();
    engine.set_position(game.into()).unwrap();
    engine.go(Go {
        depth: Some(3),
        ..Go::default()
    });
    assert_eq!(wait_best_move(&events, Duration::from_secs(20)), None);
}
