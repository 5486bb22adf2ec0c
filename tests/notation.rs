//! Example-based tests of FEN and move text (good and bad input) and of the `Game` draw rules, with expected values taken from the rules, not from damka's own output.
//!
//! Square facts used below (PDN numbering, reference/rules.md): on 8x8, 1 = b8, 2 = d8, 4 = h8,
//! 5 = a7, 9 = b6, 13 = a5, 15 = e5, 18 = d4, 22 = c3, 29 = a1, 30 = c1, 32 = g1; Black's men
//! start on 1-12 and White's on 21-32 (10x10: 1-20 and 31-50). Towers cells count rows from the
//! top, a cell being playable when row index + column index is odd, so G6 = 24 and F5 = 19.

use crate::common;
use damka::game::{DrawReason, Game, Outcome};
use damka::notation::bit_of_number;
use damka::notation::fen::{ParseFenError, parse_fen, write_fen};
use damka::notation::movetext::{ParseMoveError, parse_move, write_move, write_move_full};
use damka::rules::{Brazilian, Czech, English, International, Pool, Russian, Towers};
use damka::{Color, Move, Position, Rules, Variant, with_variant};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::collections::BTreeSet;

// ---------------------------------------------------------------- helpers

/// The bit of a PDN square number.
fn bit<R: Rules>(number: u32) -> u8 {
    bit_of_number::<R>(number).unwrap_or_else(|| panic!("{number} is on the board"))
}

/// The set of bits of some PDN square numbers.
fn set<R: Rules>(numbers: impl IntoIterator<Item = u32>) -> u64 {
    numbers.into_iter().fold(0, |s, n| s | 1u64 << bit::<R>(n))
}

fn fen<R: Rules>(text: &str) -> Position<R> {
    parse_fen::<R>(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn fen_error<R: Rules>(text: &str) -> ParseFenError {
    match parse_fen::<R>(text) {
        Ok(p) => panic!("{text} was accepted as {}", write_fen(&p)),
        Err(e) => e,
    }
}

/// The legal move from `from` to `to` (PDN numbers) taking exactly `captured`.
fn legal<R: Rules>(position: &Position<R>, from: u32, to: u32, captured: &[u32]) -> Move {
    let captured = set::<R>(captured.iter().copied());
    *position
        .legal_moves()
        .iter()
        .find(|m| m.from == bit::<R>(from) && m.to == bit::<R>(to) && m.captured == captured)
        .unwrap_or_else(|| {
            panic!(
                "{from}->{to} taking {captured:#x} is not legal in {}",
                write_fen(position)
            )
        })
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------- FEN: accepted forms

#[test]
fn fen_ranges_give_the_international_start() {
    let p = fen::<International>("W:W31-50:B1-20");
    assert_eq!(p.pieces(Color::White), set::<International>(31..=50));
    assert_eq!(p.pieces(Color::Black), set::<International>(1..=20));
    assert_eq!(p.kings(), 0);
    assert_eq!(p.side_to_move(), Color::White);
    assert_eq!(p, Position::<International>::start());
}

#[test]
fn fen_ranges_give_the_english_start_with_black_to_move() {
    let p = fen::<English>("B:W21-32:B1-12");
    assert_eq!(p, Position::<English>::start());
    assert_eq!(p.side_to_move(), Color::Black);
}

#[test]
fn towers_start_has_black_at_the_bottom_moving_first() {
    // Rows 6-8 counted from the top are PDN 21-32; White is on rows 1-3 = 1-12.
    let start = Position::<Towers>::start();
    assert_eq!(start.side_to_move(), Color::Black);
    assert_eq!(start.pieces(Color::Black), set::<Towers>(21..=32));
    assert_eq!(start.pieces(Color::White), set::<Towers>(1..=12));
    assert_eq!(fen::<Towers>("B:W1-12:B21-32"), start);
}

#[test]
fn fen_lists_in_either_order_and_either_side_to_move() {
    let start = Position::<International>::start();
    assert_eq!(fen::<International>("W:B1-20:W31-50"), start);
    let black = fen::<International>("B:W31-50:B1-20");
    assert_eq!(black.side_to_move(), Color::Black);
    assert_eq!(black.pieces(Color::White), start.pieces(Color::White));
    assert_eq!(black.pieces(Color::Black), start.pieces(Color::Black));
    assert_ne!(
        black.hash(),
        start.hash(),
        "the side to move is part of the hash"
    );
    assert_eq!(fen::<International>("B:B1-20:W31-50"), black);
}

#[test]
fn fen_kings() {
    let p = fen::<International>("W:WK4,33:B13,K20");
    assert_eq!(p.pieces(Color::White), set::<International>([4, 33]));
    assert_eq!(p.pieces(Color::Black), set::<International>([13, 20]));
    assert_eq!(p.kings(), set::<International>([4, 20]));
    // A king may stand on any row, its own promotion row included.
    let p = fen::<English>("B:WK1:BK32");
    assert_eq!(p.kings(), set::<English>([1, 32]));
}

#[test]
fn fen_algebraic_squares_on_8x8() {
    // a1 = 29, c3 = 22, b6 = 9, d8 = 2.
    let p = fen::<Russian>("W:Wa1,c3:Bb6,Kd8");
    assert_eq!(p.pieces(Color::White), set::<Russian>([29, 22]));
    assert_eq!(p.pieces(Color::Black), set::<Russian>([9, 2]));
    assert_eq!(p.kings(), set::<Russian>([2]));
    assert_eq!(p, fen::<Russian>("W:W22,29:B9,K2"));
    // Numbers and algebraic squares mix, in any case.
    assert_eq!(
        fen::<Brazilian>("W:WA1,22:B9,kD8"),
        fen::<Brazilian>("W:W22,29:B9,K2")
    );
}

#[test]
fn fen_quotes_and_final_period_are_tolerated() {
    let start = Position::<International>::start();
    assert_eq!(fen::<International>("\"W:W31-50:B1-20\""), start);
    assert_eq!(fen::<International>("W:W31-50:B1-20."), start);
    assert_eq!(fen::<International>("\"W:W31-50:B1-20.\""), start);
    assert_eq!(fen::<International>("  W:W31-50:B1-20  "), start);
}

#[test]
fn fen_is_written_with_sorted_numbers() {
    let p = fen::<Russian>("B:Wc3,a1:BKd8,b6");
    assert_eq!(write_fen(&p), "B:W22,29:BK2,9");
}

// ---------------------------------------------------------------- FEN: bad input

/// Every line of `tests/data/fen_refusals.txt`: the FEN, read by its variant, is refused with
/// the error the line names (its kind only, for `Kind(_)`).
#[test]
fn bad_fens_are_refused_naming_what_is_wrong() {
    let path = common::repo_root().join("tests/data/fen_refusals.txt");
    let text = std::fs::read_to_string(&path).expect("read fen_refusals.txt");
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let fields: Vec<&str> = line.split(" | ").collect();
        let [variant, fen, expected] = fields[..] else {
            panic!("not VARIANT | FEN | ERROR: {line}");
        };
        let variant: Variant = variant.parse().expect("a variant");
        let fen = fen.trim();
        let error = format!("{:?}", with_variant!(variant, R => fen_error::<R>(fen)));
        match expected.strip_suffix("(_)") {
            Some(kind) => assert!(error.starts_with(&format!("{kind}(")), "{line}: {error}"),
            None => assert_eq!(error, expected, "{line}"),
        }
        checked += 1;
    }
    assert!(checked > 0, "no FEN in {}", path.display());
}

#[test]
fn fen_full_sets_and_men_on_their_own_back_row_are_fine() {
    // Exactly a full set.
    assert!(parse_fen::<English>("W:W21-32:B1-12").is_ok());
    // A man on the opponent's promotion row (its own back row).
    assert!(parse_fen::<International>("W:W50:B1").is_ok());
    assert!(parse_fen::<English>("W:W32:B1").is_ok());
}

#[test]
fn fen_towers_man_on_its_own_promotion_row() {
    // Towers: White starts at the top and moves DOWN, so its promotion row is 29-32 (row 8,
    // cells A8..G8; 30 = C8) and a white man on square 1 is fine.
    for (fen, names) in [("W:W30:B5", ["30", "C8"]), ("W:W9:B3", ["3", "F1"])] {
        match fen_error::<Towers>(fen) {
            ParseFenError::ManOnPromotionRow(s) => {
                assert!(names.contains(&s.as_str()), "{fen} names {s}")
            }
            other => panic!("{fen}: expected ManOnPromotionRow, got {other:?}"),
        }
    }
    assert!(parse_fen::<Towers>("W:W1:B30").is_ok());
}

#[test]
fn towers_cell_with_row_zero_is_rejected_without_panicking() {
    // Rows are 1-8; "A0" must be an error, not an arithmetic overflow.
    let result = std::panic::catch_unwind(|| parse_fen::<Towers>("W:WA0:B21"));
    assert!(
        matches!(result, Ok(Err(_))),
        "parse_fen panicked or accepted A0: {result:?}"
    );
    let start = Position::<Towers>::start();
    let result = std::panic::catch_unwind(|| parse_move(&start, "A0-B1"));
    assert!(
        matches!(result, Ok(Err(_))),
        "parse_move panicked or accepted A0: {result:?}"
    );
}

// ---------------------------------------------------------------- FEN: fuzzing

/// Valid FENs of each fuzzed variant, the seeds of the mutation fuzz.
const SEED_FENS: &[&str] = &[
    "W:W31-50:B1-20",
    "B:WK4,33,K46:B13,K20,32-35",
    "W:W21-32:B1-12",
    "B:Wa1,c3:Bb6,Kd8",
    "\"W:WK29:BK4.\"",
];

/// A character alphabet that makes FEN-like text likely.
fn fen_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::sample::select("WBKwbk0123456789,:-. \"aAcCgGhHjJ".chars().collect::<Vec<_>>()),
        1 => any::<char>(),
    ]
}

/// Applies (operation, position, character) edits to a text.
fn mutate(text: &str, edits: &[(u8, usize, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(op, at, c) in edits {
        match op % 3 {
            0 => chars.insert(at % (chars.len() + 1), c),
            1 if !chars.is_empty() => {
                chars.remove(at % chars.len());
            }
            _ if !chars.is_empty() => {
                let at = at % chars.len();
                chars[at] = c;
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// parse_fen never panics, and whatever it accepts writes back to a FEN naming the same position.
fn fen_survives<R: Rules>(text: &str) -> Result<(), TestCaseError> {
    if let Ok(position) = parse_fen::<R>(text) {
        let written = write_fen(&position);
        prop_assert_eq!(
            parse_fen::<R>(&written),
            Ok(position),
            "{:?} -> {}",
            text,
            written
        );
        prop_assert_eq!(position.hash(), position.compute_hash());
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn fuzz_fen_arbitrary_strings(text in any::<String>()) {
        fen_survives::<International>(&text)?;
        fen_survives::<Russian>(&text)?;
        fen_survives::<English>(&text)?;
        fen_survives::<Towers>(&text)?;
    }

    #[test]
    fn fuzz_fen_like_strings(chars in proptest::collection::vec(fen_char(), 0..40)) {
        let text: String = chars.into_iter().collect();
        fen_survives::<International>(&text)?;
        fen_survives::<Russian>(&text)?;
        fen_survives::<English>(&text)?;
        fen_survives::<Towers>(&text)?;
    }

    #[test]
    fn fuzz_fen_mutations_of_valid_fens(
        seed in proptest::sample::select(SEED_FENS),
        edits in proptest::collection::vec((any::<u8>(), any::<usize>(), fen_char()), 1..6),
    ) {
        let text = mutate(seed, &edits);
        fen_survives::<International>(&text)?;
        fen_survives::<Russian>(&text)?;
        fen_survives::<English>(&text)?;
        fen_survives::<Towers>(&text)?;
    }
}

// ---------------------------------------------------------------- move text

#[test]
fn english_start_black_moves_are_the_seven_steps() {
    let start = Position::<English>::start();
    let written: BTreeSet<String> = start
        .legal_moves()
        .iter()
        .map(|m| write_move(&start, m))
        .collect();
    let expected: BTreeSet<String> = ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(written, expected);
    assert_eq!(parse_move(&start, "11-15"), Ok(legal(&start, 11, 15, &[])));
    assert_eq!(parse_move(&start, "11-16"), Ok(legal(&start, 11, 16, &[])));
    assert_eq!(
        parse_move(&start, " 11-15 "),
        Ok(legal(&start, 11, 15, &[]))
    );
}

#[test]
fn algebraic_move_text_on_russian_and_brazilian() {
    fn check<R: Rules>() {
        let start = Position::<R>::start();
        let c3_d4 = legal(&start, 22, 18, &[]);
        assert_eq!(parse_move(&start, "c3-d4"), Ok(c3_d4));
        assert_eq!(parse_move(&start, "C3-D4"), Ok(c3_d4));
        assert_eq!(
            parse_move(&start, "22-18"),
            Ok(c3_d4),
            "numbers are always accepted"
        );
        assert_eq!(write_move(&start, &c3_d4), "c3-d4");
        // A capture is written with ':' (c3 takes d4 and lands on e5 = 15).
        let p = fen::<R>("W:Wc3:Bd4");
        let take = legal(&p, 22, 15, &[18]);
        assert_eq!(write_move(&p, &take), "c3:e5");
        assert_eq!(parse_move(&p, "c3:e5"), Ok(take));
        assert_eq!(parse_move(&p, "22x15"), Ok(take));
    }
    check::<Russian>();
    check::<Brazilian>();
}

#[test]
fn algebraic_move_text_accepted_in_other_8x8_variants() {
    let start = Position::<English>::start();
    // b6 = 9, a5 = 13: a black man's step.
    assert_eq!(parse_move(&start, "b6-a5"), Ok(legal(&start, 9, 13, &[])));
    assert_eq!(write_move(&start, &legal(&start, 9, 13, &[])), "9-13");
}

#[test]
fn towers_cells() {
    let start = Position::<Towers>::start();
    let first = legal(&start, 24, 19, &[]);
    assert_eq!(parse_move(&start, "G6-F5"), Ok(first));
    assert_eq!(parse_move(&start, "g6-f5"), Ok(first));
    assert_eq!(parse_move(&start, "24-19"), Ok(first));
    assert_eq!(write_move(&start, &first), "G6-F5");
    // Black moves towards row 1: G6-H5 and A6-B5 are steps, G6-F7 is not.
    assert!(parse_move(&start, "G6-H5").is_ok());
    assert!(parse_move(&start, "A6-B5").is_ok());
    assert!(matches!(
        parse_move(&start, "G6-F7"),
        Err(ParseMoveError::Illegal { .. })
    ));
    assert_eq!(start.legal_moves().len(), 7);
}

/// `W:WK4:B13,32,37,20`: the king takes 13 then either 32 (via 27, landing 38) or 37 (via 31,
/// landing 42), then 20, ending on 15 both times: two moves with the same ends.
#[test]
fn international_same_ends_capture_needs_its_landing_squares() {
    let p = fen::<International>("W:WK4:B13,32,37,20");
    let via_27 = legal(&p, 4, 15, &[13, 32, 20]);
    let via_31 = legal(&p, 4, 15, &[13, 37, 20]);
    assert_eq!(p.legal_moves().len(), 2);
    match parse_move(&p, "4x15") {
        Err(ParseMoveError::Ambiguous { candidates, .. }) => {
            let got: BTreeSet<_> = candidates.into_iter().collect();
            let want: BTreeSet<_> = ["4x27x38x15".to_string(), "4x31x42x15".to_string()].into();
            assert_eq!(got, want);
        }
        other => panic!("4x15 should be ambiguous, got {other:?}"),
    }
    assert_eq!(parse_move(&p, "4x27x38x15"), Ok(via_27));
    assert_eq!(parse_move(&p, "4x31x42x15"), Ok(via_31));
    assert_eq!(write_move(&p, &via_27), "4x27x38x15");
    assert_eq!(write_move(&p, &via_31), "4x31x42x15");
    assert_eq!(write_move_full(&p, &via_27), "4x27x38x15");
    assert_eq!(write_move_full(&p, &via_31), "4x31x42x15");
}

/// `W:WK2:B7,8,17,18`: the king goes round the four men and comes back to 2.
#[test]
fn international_capture_back_to_its_start() {
    let p = fen::<International>("W:WK2:B7,8,17,18");
    let round = legal(&p, 2, 2, &[7, 8, 17, 18]);
    assert_eq!(p.legal_moves().len(), 1);
    let short = write_move(&p, &round);
    assert!(short.starts_with("2x") && short.ends_with("x2"), "{short}");
    assert_eq!(parse_move(&p, &short), Ok(round));
    assert_eq!(parse_move(&p, "2x2"), Ok(round));
    let full = write_move_full(&p, &round);
    assert!(full == "2x11x22x13x2" || full == "2x13x22x11x2", "{full}");
    assert_eq!(parse_move(&p, "2x11x22x13x2"), Ok(round));
    assert_eq!(parse_move(&p, "2x13x22x11x2"), Ok(round));
    assert_eq!(p.play(&round), fen::<International>("B:WK2:B"));
}

/// Under free choice a king's complete route can lie inside a longer route with the same ends.
/// The complete route of the shorter capture names it exactly and must not be ambiguous
/// (rules.md: the intermediate squares tell such moves apart). Positions found by
/// tests/properties.rs.
#[test]
fn a_complete_route_is_not_ambiguous_with_a_longer_route_through_it() {
    // Pool: the king on 1 takes 6 and 14 landing on 10 then 17, or takes 6 landing on 19 and
    // goes round 19-12-3-10-17 taking 16, 8, 7 and 14 as well.
    let p = fen::<Pool>("W:WK1,20,21,25,30:B4,6,7,8,11,14,16");
    let short = legal(&p, 1, 17, &[6, 14]);
    let long = legal(&p, 1, 17, &[6, 16, 8, 7, 14]);
    assert_eq!(parse_move(&p, "1x19x12x3x10x17"), Ok(long));
    assert_eq!(parse_move(&p, "1x10x17"), Ok(short));
    for mv in [short, long] {
        assert_eq!(parse_move(&p, &write_move(&p, &mv)), Ok(mv));
        assert_eq!(parse_move(&p, &write_move_full(&p, &mv)), Ok(mv));
    }
    // Russian: the man on a5 (13) takes b4 and b2 and is crowned on a1, or takes b4 and d2,
    // is crowned on e1 and goes on as a king taking f2, f4 and b2 to a1.
    let p = fen::<Russian>("B:W17,19,21,25,26,27,30,32:B2,4,5,10,12,13,14,16");
    let short = legal(&p, 13, 29, &[17, 25]);
    let long = legal(&p, 13, 29, &[17, 26, 27, 19, 25]);
    assert!(matches!(
        parse_move(&p, "a5:a1"),
        Err(ParseMoveError::Ambiguous { .. })
    ));
    assert_eq!(parse_move(&p, "a5:c3:e1:g3:e5:a1"), Ok(long));
    assert_eq!(parse_move(&p, "a5:c3:a1"), Ok(short));
    for mv in [short, long] {
        assert_eq!(parse_move(&p, &write_move(&p, &mv)), Ok(mv));
        assert_eq!(parse_move(&p, &write_move_full(&p, &mv)), Ok(mv));
    }
}

/// The Hub protocol writes a capture as `from x to x captured...` (protocols.md: `28x19x23` =
/// from 28 to 19 taking 23).
#[test]
fn hub_capture_text_is_from_to_then_captured() {
    let p = fen::<International>("W:W28:B23");
    let take = legal(&p, 28, 19, &[23]);
    assert_eq!(parse_move(&p, "28x19x23"), Ok(take));
    let p = fen::<International>("W:WK2:B7,8,17,18");
    let round = legal(&p, 2, 2, &[7, 8, 17, 18]);
    assert_eq!(parse_move(&p, "2x2x7x8x17x18"), Ok(round));
    assert_eq!(parse_move(&p, "2x2x18x7x17x8"), Ok(round));
    let p = fen::<English>("B:W18:B14,1");
    assert_eq!(parse_move(&p, "14x23x18"), Ok(legal(&p, 14, 23, &[18])));
}

fn expect_illegal<R: Rules>(position: &Position<R>, text: &str) -> String {
    match parse_move(position, text) {
        Err(ParseMoveError::Illegal { reason, .. }) => {
            assert!(!reason.is_empty(), "{text}: empty reason");
            reason
        }
        other => panic!("'{text}' should be Illegal, got {other:?}"),
    }
}

/// Not a move at all, or a square off the board: rejected with a reason (Syntax or Illegal).
fn expect_rejected<R: Rules>(position: &Position<R>, text: &str) {
    match parse_move(position, text) {
        Err(ParseMoveError::Syntax { reason, .. } | ParseMoveError::Illegal { reason, .. }) => {
            assert!(!reason.is_empty(), "{text:?}: empty reason")
        }
        other => panic!("{text:?} should be rejected, got {other:?}"),
    }
}

#[test]
fn illegal_and_malformed_move_text() {
    let start = Position::<English>::start();
    expect_illegal(&start, "15-19"); // empty square
    expect_illegal(&start, "22-18"); // White's man, but Black is to move
    expect_illegal(&start, "1-5"); // a black man that cannot move
    expect_illegal(&start, "9-18"); // cannot reach
    expect_illegal(&start, "11x18"); // nothing to capture
    for text in [
        "33-29", "0-5", "99-100", "abc", "11-", "-15", "", "   ", "11--15", "x", "11x", "i1-b2",
        "a2-b3", "11 15", "11-15-",
    ] {
        expect_rejected(&start, text);
    }
    // Black's man on 14 must take 18 (landing on 23); the man on 1 may not step.
    let p = fen::<English>("B:W18:B14,1");
    let reason = expect_illegal(&p, "1-6");
    assert!(reason.contains("captur"), "{reason}");
    assert_eq!(parse_move(&p, "14x23"), Ok(legal(&p, 14, 23, &[18])));
    assert_eq!(parse_move(&p, "14-23"), Ok(legal(&p, 14, 23, &[18])));
    // Towers: capturing is optional, so the step stays legal beside the capture.
    let p = fen::<Towers>("B:W18:B23,30");
    assert!(p.legal_moves().iter().any(Move::is_capture));
    assert_eq!(parse_move(&p, "30-26"), Ok(legal(&p, 30, 26, &[])));
    assert_eq!(parse_move(&p, "30-25"), Ok(legal(&p, 30, 25, &[])));
    assert_eq!(parse_move(&p, "23-14"), Ok(legal(&p, 23, 14, &[18])));
}

#[test]
fn failed_move_text_leaves_the_game_unchanged() {
    let mut game = Game::<English>::default();
    let before = *game.position();
    assert!(game.play_text("22-18").is_err());
    assert!(game.play_text("garbage").is_err());
    assert_eq!(*game.position(), before);
    assert_eq!(game.ply(), 0);
    assert_eq!(game.play_text("11-15"), Ok(legal(&before, 11, 15, &[])));
    let after = *game.position();
    assert!(game.play_text("11-15").is_err(), "White is to move now");
    assert_eq!(*game.position(), after);
    assert_eq!(game.ply(), 1);
    assert_eq!(game.reversible_plies(), 0);
}

/// Positions the move-text fuzz runs against: starts, kings, captures, same-ends captures.
struct FuzzPositions {
    english: Vec<Position<English>>,
    international: Vec<Position<International>>,
    russian: Vec<Position<Russian>>,
    towers: Vec<Position<Towers>>,
}

fn fuzz_positions() -> FuzzPositions {
    FuzzPositions {
        english: vec![Position::start(), fen("B:W18:B14,1"), fen("W:WK29:BK4")],
        international: vec![
            Position::start(),
            fen("W:WK4:B13,32,37,20"),
            fen("W:WK2:B7,8,17,18"),
        ],
        russian: vec![
            Position::start(),
            fen("W:Wc3:Bd4"),
            fen("B:W17,19,21,25,26,27,30,32:B2,4,5,10,12,13,14,16"),
        ],
        towers: vec![Position::start(), fen("B:W18:B23,30")],
    }
}

/// parse_move never panics, and anything it accepts is a legal move of the position.
fn move_survives<R: Rules>(positions: &[Position<R>], text: &str) -> Result<(), TestCaseError> {
    for p in positions {
        if let Ok(mv) = parse_move(p, text) {
            prop_assert!(
                p.legal_moves().iter().any(|m| *m == mv),
                "{:?} gave {:?} in {}",
                text,
                mv,
                write_fen(p)
            );
        }
    }
    Ok(())
}

fn move_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => proptest::sample::select("0123456789-xX: abcdefghABCDEFGH".chars().collect::<Vec<_>>()),
        1 => any::<char>(),
    ]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn fuzz_move_text(arbitrary in any::<String>(), chars in proptest::collection::vec(move_char(), 0..16)) {
        let positions = fuzz_positions();
        let movelike: String = chars.into_iter().collect();
        for text in [arbitrary.as_str(), movelike.as_str()] {
            move_survives(&positions.english, text)?;
            move_survives(&positions.international, text)?;
            move_survives(&positions.russian, text)?;
            move_survives(&positions.towers, text)?;
        }
    }
}

// ---------------------------------------------------------------- draw rules

#[test]
fn threefold_repetition_by_shuffling_kings() {
    // a1 = 29 <-> b2 = 25 for White, h8 = 4 <-> g7 = 8 for Black.
    let mut game = Game::<English>::from_fen("W:WK29:BK4").expect("valid FEN");
    let cycle = ["29-25", "4-8", "25-29", "8-4"];
    for ply in 0..8 {
        // Plies 4-7 repeat plies 0-3 once.
        let occurrences = if ply >= 4 { 2 } else { 1 };
        assert_eq!(game.repetitions(), occurrences, "at ply {ply}");
        assert_eq!(game.outcome(), None, "at ply {ply}");
        game.play_text(cycle[ply % 4]).expect("legal king move");
    }
    // The start position with White to move, for the third time.
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    game.undo();
    assert_eq!(game.outcome(), None, "undo takes the third occurrence back");
}

/// Plays king moves only, never allowing a capture and never letting a position occur a
/// third time, and checks the no-progress draw comes at exactly `plies` and not before.
fn no_progress_draw<R: Rules>(start: &str, plies: u32) {
    let mut game = Game::<R>::from_fen(start).expect("valid FEN");
    for ply in 0..plies {
        assert_eq!(game.reversible_plies(), ply);
        assert_eq!(game.outcome(), None, "{} at ply {ply}", R::VARIANT);
        let seen: Vec<u64> = game.positions().map(Position::hash).collect();
        let position = *game.position();
        let choice = position
            .legal_moves()
            .iter()
            .inspect(|m| {
                assert!(
                    !m.is_capture(),
                    "the walk ran into a capture in {}",
                    write_fen(&position)
                )
            })
            .map(|m| {
                let next = position.play(m);
                let repeats = seen.iter().filter(|&&h| h == next.hash()).count();
                ((next.has_capture(), repeats), *m)
            })
            .min_by_key(|(score, _)| *score)
            .expect("a king can move");
        let ((gives_capture, repeats), mv) = choice;
        assert!(
            !gives_capture,
            "every move allows a capture in {}",
            write_fen(&position)
        );
        assert!(
            repeats < 2,
            "every move repeats a position a third time in {}",
            write_fen(&position)
        );
        game.play(mv);
    }
    assert_eq!(game.reversible_plies(), plies);
    assert!(game.repetitions() < 3);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(DrawReason::NoProgress)),
        "{}",
        R::VARIANT
    );
    // Undo restores the counters.
    game.undo();
    assert_eq!(game.reversible_plies(), plies - 1);
    assert_eq!(game.outcome(), None);
    while game.undo().is_some() {}
    assert_eq!(game.reversible_plies(), 0);
    assert_eq!(game.ply(), 0);
}

common::test_cases! {
    english_no_progress_draw_after_40_moves_each:
        no_progress_draw::<English>("W:WK29,K30:BK3,K4", 80);
    /// Three kings each: no small-endgame rule applies (that needs a lone king).
    international_no_progress_draw_after_25_moves_each:
        no_progress_draw::<International>("W:WK46,K47,K48:BK1,K2,K3", 50);
    russian_and_czech_no_progress_draw_after_15_moves_each: {
        no_progress_draw::<Russian>("W:WK29,K30:BK3,K4", 30);
        no_progress_draw::<Czech>("W:WK29,K30:BK3,K4", 30)
    };
}

#[test]
fn a_man_move_resets_the_no_progress_count_and_undo_restores_it() {
    // White king c1 = 30, man b2 = 25; Black king h8 = 4, man b6 = 9.
    let mut game = Game::<English>::from_fen("W:WK30,25:BK4,9").expect("valid FEN");
    game.play_text("30-26").expect("king step");
    game.play_text("4-8").expect("king step");
    assert_eq!(game.reversible_plies(), 2);
    game.play_text("25-21").expect("man step");
    assert_eq!(game.reversible_plies(), 0);
    game.undo();
    assert_eq!(game.reversible_plies(), 2);
    game.undo();
    assert_eq!(game.reversible_plies(), 1);
}

/// A capture whose whole route is one jump is named by its two ends, even when a longer
/// capture shares them (found by the property tests in Czech).
#[test]
fn a_one_jump_capture_is_not_ambiguous_with_a_longer_one_between_the_same_squares() {
    let position = parse_fen::<Czech>("B:W17,18,19,27,29,32:B1,5,6,7,11,12,K31").unwrap();
    let short = parse_move(&position, "31x13").expect("the one-jump capture");
    assert_eq!(short.capture_count(), 1);
    let long = parse_move(&position, "31x24x15x22x13").expect("the long capture");
    assert!(long.capture_count() > 1);
    assert_eq!(write_move(&position, &short), "31x13");
}

// ---------------------------------------------------------------- the ACF three-move deck

/// docs/openings/english-acf-3move.pdn holds the ballots of the American Checker Federation's
/// list of 174 that are not barred: 156 (a published count), each three legal plies from the
/// start, each its own ACF number and its own position.
#[test]
fn the_acf_three_move_deck_is_156_legal_distinct_ballots() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/openings/english-acf-3move.pdn"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut numbers = BTreeSet::new();
    let mut positions = BTreeSet::new();
    for line in text.lines() {
        if let Some(number) = line.strip_prefix("[Event \"ACF ") {
            let number: u32 = number.trim_end_matches("\"]").parse().unwrap();
            assert!((1..=174).contains(&number), "{line}");
            assert!(numbers.insert(number), "ACF {number} twice");
        }
        let Some(moves) = line.strip_prefix("1. ") else {
            continue;
        };
        let plies: Vec<&str> = moves
            .split_whitespace()
            .filter(|word| word.contains(['-', 'x']))
            .collect();
        assert_eq!(plies.len(), 3, "{line}");
        let mut game = Game::<English>::default();
        for ply in plies {
            let mv = parse_move(game.position(), ply)
                .unwrap_or_else(|e| panic!("{line}: {ply} is not legal: {e:?}"));
            game.play(mv);
        }
        assert!(positions.insert(write_fen(game.position())), "{line}");
    }
    assert_eq!(numbers.len(), 156);
    assert_eq!(positions.len(), 156);
}
