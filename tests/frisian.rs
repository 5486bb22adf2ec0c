//! Frisian and frysk! rules on hand-worked positions: the value of a capture, a king's limit of three moves in a row, the small-endgame draws.
//!
//! The capture positions were worked out from the rules (lidraughts: a man 100, a king 199;
//! DCTL: `n` kings are worth more than `2n - 1` men and less than `2n`; at equal value a king
//! must capture) and pydraughts 0.6.7 gives the same move sets for them. The random-position
//! comparison with pydraughts is in `tests/crosscheck_variants.rs`; it reads positions from FENs, which
//! carry no history, so the king-move limit is checked here, in whole pydraughts games there
//! (`pydraughts_frisian_games_with_history`) and in the Hub games.

use crate::common;

use common::oracle::oracle_moves as moves;
use damka::Position;
use damka::game::{DrawReason, Game, Outcome, small_endgame_limit};
use damka::notation::bit_of_number;
use damka::notation::fen::{parse_fen, write_fen};
use damka::notation::movetext::write_move_in;
use damka::rules::{Frisian, Frysk};

fn frisian(fen: &str) -> Position<Frisian> {
    parse_fen::<Frisian>(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Two kings (2 x 199) outweigh three men (300): the man on 33 must take 34 and 25 along
/// the row and the column, not 32, 21 and 12.
#[test]
fn two_kings_outweigh_three_men() {
    assert_eq!(moves(&frisian("W:W33:B32,21,12,K34,K25")), ["33x15:25,34"]);
    // With men on 34 and 25 the three men are worth more.
    assert_eq!(moves(&frisian("W:W33:B32,21,12,34,25")), ["33x13:12,21,32"]);
}

/// A king (199) is worth less than two men (200).
#[test]
fn one_king_is_worth_less_than_two_men() {
    assert_eq!(moves(&frisian("W:W33:B32,21,K34")), ["33x11:21,32"]);
}

/// At equal value the capture with a king is compulsory: the king on 1 takes 21 down its
/// column (landing on 31 or 41) or 40 along its diagonal; the man on 50 may not take 40 up
/// its column (`50x30`).
#[test]
fn at_equal_value_the_king_captures() {
    assert_eq!(
        moves(&frisian("W:WK1,50:B21,40")),
        ["1x31:21", "1x41:21", "1x45:40"]
    );
}

/// A capture along a column or a row is written like any other: `33x15`, readable back.
#[test]
fn orthogonal_captures_are_written_and_read() {
    let position = frisian("W:W33:B32,21,12,K34,K25");
    let legal = position.legal_moves();
    let text = write_move_in(&position, &legal.as_slice()[0], &legal);
    assert_eq!(text, "33x15");
    let mut game = Game::<Frisian>::new(position);
    game.play_text("33x15").expect("the capture reads back");
    assert_eq!(write_fen(game.position()), "B:W15:B12,21,32");
}

/// How many non-capturing moves the piece on square `number` has.
fn steps_from(game: &Game<Frisian>, number: u32) -> usize {
    let bit = bit_of_number::<Frisian>(number).expect("a square");
    game.legal_moves()
        .iter()
        .filter(|mv| mv.from == bit && !mv.is_capture())
        .count()
}

fn play(game: &mut Game<Frisian>, texts: &[&str]) {
    for text in texts {
        game.play_text(text)
            .unwrap_or_else(|e| panic!("{text} in {}: {e}", write_fen(game.position())));
    }
}

/// The same king may make three non-capturing moves in a row while its side has men; then
/// it must wait one move of another piece. Black's king on 1/6 can neither capture nor be
/// captured (every line from it to a white piece ends at the edge).
#[test]
fn a_king_makes_at_most_three_moves_in_a_row() {
    let start = "W:WK46,K47,50:BK1";
    let mut game = Game::<Frisian>::from_fen(start).expect("FEN");
    play(&mut game, &["46-41", "1-6", "41-46", "6-1", "46-41", "1-6"]);
    assert_eq!(
        steps_from(&game, 41),
        0,
        "the fourth move in a row is barred"
    );
    assert!(steps_from(&game, 47) > 0, "another king may move");
    assert!(steps_from(&game, 50) > 0, "a man may move");
    // Another king's move starts its own run: the first king is free again.
    let mut other_king = game.clone();
    play(&mut other_king, &["47-42", "6-1"]);
    assert!(steps_from(&other_king, 41) > 0);
    // So is it after a man's move.
    play(&mut game, &["50-45", "6-1"]);
    assert!(steps_from(&game, 41) > 0);
    // The run is over (and Black, without men, keeps none): the position hashes like the
    // same pieces read from a FEN.
    let fresh = Game::<Frisian>::from_fen(&write_fen(game.position())).expect("FEN");
    assert_eq!(fresh.position().hash(), game.position().hash());
}

/// Without men the limit does not apply.
#[test]
fn the_limit_needs_men() {
    let mut game = Game::<Frisian>::from_fen("W:WK46,K47:BK1").expect("FEN");
    play(&mut game, &["46-41", "1-6", "41-46", "6-1", "46-41", "1-6"]);
    assert!(steps_from(&game, 41) > 0);
}

/// lidraughts' and pydraughts' small-endgame draws: two kings against one, 7 moves each;
/// one king against one, 2 moves each.
#[test]
fn small_endgame_draws() {
    assert_eq!(small_endgame_limit(&frisian("W:WK46,K47:BK1")), Some(14));
    assert_eq!(small_endgame_limit(&frisian("W:WK46:BK1")), Some(4));
    assert_eq!(small_endgame_limit(&frisian("W:WK46,K47,K48:BK1")), None);
    assert_eq!(small_endgame_limit(&frisian("W:WK46,50:BK1")), None);
    let mut game = Game::<Frisian>::from_fen("W:WK46:BK1").expect("FEN");
    play(&mut game, &["46-41", "1-6", "41-46"]);
    assert_eq!(game.outcome(), None);
    play(&mut game, &["6-1"]);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(DrawReason::SmallEndgame))
    );
}

/// frysk!: Frisian rules from five men each on the back rows (lidraughts'
/// `W:W46,47,48,49,50:B1,2,3,4,5`).
#[test]
fn frysk_start() {
    assert_eq!(
        Position::<Frysk>::start(),
        parse_fen::<Frysk>("W:W46,47,48,49,50:B1,2,3,4,5").expect("FEN")
    );
    assert_eq!(Position::<Frysk>::start().legal_moves().len(), 9);
}
