//! Property tests over random playouts in every variant: hashing, FEN and move-text round trips, legal-move-list invariants, and `Game` play/undo/outcome.
//!
//! Each case is a seed and a length: from the start position a small seeded RNG picks a random
//! legal move each ply until the side to move has none or the length is reached, and every
//! position on the way is checked. The properties are generic over `R: Rules`; the macro at
//! the bottom stamps out one module of tests per variant (`english::move_text_round_trips`).
//! The Hub capture text has its own test so that a failure there does not hide the others.

use crate::common;

use common::SplitMix;
use damka::game::{Game, Outcome};
use damka::movegen::{RoutePath, RouteSink};
use damka::notation::fen::{parse_fen, write_fen};
use damka::notation::movetext::{parse_move, write_move, write_move_full};
use damka::notation::number_of_bit;
use damka::rules::Precedence;
use damka::{Bits, Move, Position, Rules};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};
use std::collections::HashSet;

/// Cases per property and variant: enough to meet kings and long captures often; a playout
/// costs well under a millisecond, so the whole file runs in a few seconds in release (a
/// local run of 20,000 cases per property took 33 s and passed).
const CASES: u32 = 2048;
/// Longest playout, in plies.
const MAX_PLIES: usize = 200;

fn config() -> Config {
    Config {
        cases: CASES,
        // Failing seeds are printed in the report; do not write regression files into tests/.
        failure_persistence: None,
        ..Config::default()
    }
}

/// Runs `check` on every position of the random playout `(seed, length)`. The playout goes on
/// past draw rules (those positions are still legal positions) and stops only when the side
/// to move has no legal move or after `length` plies.
fn for_each_position<R: Rules>(
    seed: u64,
    length: usize,
    mut check: impl FnMut(&Position<R>) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let mut rng = SplitMix(seed);
    let mut position = Position::<R>::start();
    for _ in 0..=length {
        check(&position)?;
        let legal = position.legal_moves();
        if legal.is_empty() {
            break;
        }
        position = position.play(&legal.as_slice()[rng.below(legal.len())]);
    }
    Ok(())
}

/// The (from, to, captured) identity of a move: two routes agreeing on it are one move.
fn key(mv: &Move) -> (u8, u8, u64) {
    (mv.from, mv.to, mv.captured)
}

/// Collects every complete capture route, before any precedence filtering.
#[derive(Default)]
struct AllRoutes(Vec<Move>);

impl RouteSink for AllRoutes {
    fn route(&mut self, mv: Move, _key: u32, _path: RoutePath<'_>) {
        self.0.push(mv);
    }
}

/// Hash, FEN round trip, distinct moves, compulsory capture and the precedence rules.
fn check_position<R: Rules>(position: &Position<R>) -> Result<(), TestCaseError> {
    let fen = write_fen(position);
    prop_assert_eq!(
        position.hash(),
        position.compute_hash(),
        "incremental hash in {}",
        fen
    );

    let reparsed = parse_fen::<R>(&fen);
    prop_assert!(
        reparsed.is_ok(),
        "{} does not re-parse: {:?}",
        fen,
        reparsed
    );
    let reparsed = reparsed.unwrap();
    prop_assert_eq!(
        reparsed.pieces(damka::Color::White),
        position.pieces(damka::Color::White)
    );
    prop_assert_eq!(
        reparsed.pieces(damka::Color::Black),
        position.pieces(damka::Color::Black)
    );
    prop_assert_eq!(reparsed.kings(), position.kings());
    prop_assert_eq!(reparsed.side_to_move(), position.side_to_move());
    prop_assert_eq!(reparsed.hash(), position.hash());
    prop_assert_eq!(reparsed, *position);

    let legal = position.legal_moves();
    let mut seen = HashSet::new();
    for mv in &legal {
        prop_assert!(seen.insert(key(mv)), "{:?} listed twice in {}", mv, fen);
    }

    // The count that perft's leaves and the search use takes whole-board shortcuts where it
    // can: it must agree with the list.
    let mut scratch = damka::movegen::MoveList::new();
    prop_assert_eq!(
        position.count_legal_moves(&mut scratch),
        legal.len() as u64,
        "count of the legal moves in {}",
        fen
    );
    // Perft's last two plies count most steps' replies from whole-board sets without playing
    // the steps: the sum must equal playing every step and counting the replies.
    let mut replies_by_playing = 0;
    position.for_each_step(|mv| {
        replies_by_playing += position.play(&mv).legal_moves().len() as u64;
    });
    prop_assert_eq!(
        position.count_replies_to_steps(&mut scratch),
        replies_by_playing,
        "replies to the steps in {}",
        fen
    );

    let captures: Vec<&Move> = legal.iter().filter(|m| m.is_capture()).collect();
    if R::CAPTURE_COMPULSORY && !captures.is_empty() {
        prop_assert_eq!(
            captures.len(),
            legal.len(),
            "a step is listed beside a compulsory capture in {}",
            fen
        );
    }

    // The rules say which complete routes are legal; compare with every route the search finds.
    let mut routes = AllRoutes::default();
    position.generate_captures(&mut routes);
    let route_keys = |filter: &dyn Fn(&Move) -> bool| -> HashSet<(u8, u8, u64)> {
        routes.0.iter().filter(|m| filter(m)).map(key).collect()
    };
    let capture_keys: HashSet<_> = captures.iter().map(|m| key(m)).collect();
    match R::PRECEDENCE {
        // Free choice: every complete capture route is a legal move.
        Precedence::Free => prop_assert_eq!(&capture_keys, &route_keys(&|_| true), "in {}", fen),
        // Majority: exactly the routes taking the most pieces.
        Precedence::Majority => {
            let most = routes.0.iter().map(Move::capture_count).max().unwrap_or(0);
            for mv in &captures {
                prop_assert_eq!(
                    mv.capture_count(),
                    most,
                    "{:?} is not maximal in {}",
                    mv,
                    fen
                );
            }
            prop_assert_eq!(
                &capture_keys,
                &route_keys(&|m| m.capture_count() == most),
                "in {}",
                fen
            );
        }
        // The other precedences choose among the routes; at least the choice must be a subset.
        _ => prop_assert!(capture_keys.is_subset(&route_keys(&|_| true)), "in {}", fen),
    }
    Ok(())
}

/// `write_move` and `write_move_full` of every legal move parse back to that move.
fn check_move_text<R: Rules>(position: &Position<R>) -> Result<(), TestCaseError> {
    for mv in &position.legal_moves() {
        for text in [write_move(position, mv), write_move_full(position, mv)] {
            let parsed = parse_move(position, &text);
            prop_assert_eq!(
                parsed.clone(),
                Ok(*mv),
                "'{}' in {} parses to {:?}",
                text,
                write_fen(position),
                parsed
            );
        }
    }
    Ok(())
}

/// The Hub protocol's capture text, `from x to x captured x captured...` in numbers with the
/// captured squares in any order (protocols.md section 1), parses back to the move.
fn check_hub_text<R: Rules>(position: &Position<R>) -> Result<(), TestCaseError> {
    for mv in position.legal_moves().iter().filter(|m| m.is_capture()) {
        let mut captured: Vec<u32> = Bits(mv.captured)
            .map(|b| number_of_bit::<R>(b as u8))
            .collect();
        captured.sort_unstable();
        let mut orders = vec![captured.clone()];
        captured.reverse();
        orders.push(captured);
        for order in orders {
            let mut text = format!(
                "{}x{}",
                number_of_bit::<R>(mv.from),
                number_of_bit::<R>(mv.to)
            );
            for n in order {
                text.push_str(&format!("x{n}"));
            }
            let parsed = parse_move(position, &text);
            prop_assert_eq!(
                parsed.clone(),
                Ok(*mv),
                "Hub text '{}' in {} parses to {:?}",
                text,
                write_fen(position),
                parsed
            );
        }
    }
    Ok(())
}

/// Plays a random game through `Game`: the outcome is a win for the opponent exactly when the
/// side to move has no legal move; playing any legal move and undoing it restores everything;
/// the no-progress counter follows its definition.
fn check_game<R: Rules>(seed: u64, length: usize) -> Result<(), TestCaseError> {
    let mut rng = SplitMix(seed);
    let mut game = Game::<R>::default();
    for _ in 0..=length {
        let position = *game.position();
        let fen = write_fen(&position);
        let legal = game.legal_moves();
        let outcome = game.outcome();
        if legal.is_empty() {
            prop_assert_eq!(
                outcome,
                Some(Outcome::Win(position.side_to_move().opponent())),
                "no legal move in {}",
                fen
            );
            break;
        }
        prop_assert!(
            !matches!(outcome, Some(Outcome::Win(_))),
            "{:?} with {} legal moves in {}",
            outcome,
            legal.len(),
            fen
        );

        let (ply, reversible, repetitions) =
            (game.ply(), game.reversible_plies(), game.repetitions());
        for mv in &legal {
            game.play(*mv);
            prop_assert_eq!(*game.position(), position.play(mv), "{:?} in {}", mv, fen);
            prop_assert_eq!(game.ply(), ply + 1);
            // Plies since the last capture or man move.
            let man_moved = position.kings() & (1u64 << mv.from) == 0;
            let expected = if mv.is_capture() || man_moved {
                0
            } else {
                reversible + 1
            };
            prop_assert_eq!(game.reversible_plies(), expected, "{:?} in {}", mv, fen);
            prop_assert_eq!(game.undo(), Some(*mv));
            prop_assert_eq!(*game.position(), position, "undo of {:?} in {}", mv, fen);
            prop_assert_eq!(game.ply(), ply);
            prop_assert_eq!(game.reversible_plies(), reversible);
            prop_assert_eq!(game.repetitions(), repetitions);
            prop_assert_eq!(game.outcome(), outcome);
        }
        if ply == length {
            break;
        }
        game.play(legal.as_slice()[rng.below(legal.len())]);
    }
    Ok(())
}

macro_rules! variant_properties {
    ($($module:ident => $rules:ty),* $(,)?) => {$(
        mod $module {
            use super::*;

            proptest! {
                #![proptest_config(config())]

                #[test]
                fn hash_fen_and_move_list_invariants(seed in any::<u64>(), length in 0..MAX_PLIES) {
                    for_each_position::<$rules>(seed, length, check_position)?;
                }

                #[test]
                fn move_text_round_trips(seed in any::<u64>(), length in 0..MAX_PLIES) {
                    for_each_position::<$rules>(seed, length, check_move_text)?;
                }

                #[test]
                fn hub_capture_text_round_trips(seed in any::<u64>(), length in 0..MAX_PLIES) {
                    for_each_position::<$rules>(seed, length, check_hub_text)?;
                }

                #[test]
                fn game_play_undo_and_outcome(seed in any::<u64>(), length in 0..MAX_PLIES) {
                    check_game::<$rules>(seed, length)?;
                }
            }
        }
    )*};
}

variant_properties! {
    english => damka::rules::English,
    international => damka::rules::International,
    brazilian => damka::rules::Brazilian,
    russian => damka::rules::Russian,
    pool => damka::rules::Pool,
    italian => damka::rules::Italian,
    spanish => damka::rules::Spanish,
    czech => damka::rules::Czech,
    towers => damka::rules::Towers,
}
