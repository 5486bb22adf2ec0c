//! Turkish draughts rules: the start position, perft against kish's published counts, and king captures on hand-worked positions.
//!
//! pydraughts 0.6.7 gets Turkish kings wrong (`tests/data/perft.json` notes), so its
//! comparison in `tests/crosscheck_variants.rs` leaves out positions where the side to move has a king.
//! The king captures are checked here against the rules text (`rules.md`: flying kings along
//! ranks and files that may not turn 180 degrees between jumps, the majority rule, each jumped
//! piece removed at once) on positions worked out by hand; kish 1.1.7 (PyPI, an independent
//! Turkish engine) gives the same move sets for every one of them.

use damka::notation::fen::parse_fen;
use damka::notation::movetext::write_move_in;
use damka::notation::{algebraic_of_bit, bit_of_algebraic};
use damka::perft::perft;
use damka::rules::Turkish;
use damka::{Bits, Position};
use serde_json::Value;

/// The legal moves as `from-to:captured,...` in algebraic squares (captured sorted).
fn moves(fen: &str) -> Vec<String> {
    let position = parse_fen::<Turkish>(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut out: Vec<String> = position
        .legal_moves()
        .iter()
        .map(|mv| {
            let mut taken: Vec<String> = Bits(mv.captured)
                .map(|bit| algebraic_of_bit::<Turkish>(bit as u8))
                .collect();
            taken.sort();
            format!(
                "{}-{}:{}",
                algebraic_of_bit::<Turkish>(mv.from),
                algebraic_of_bit::<Turkish>(mv.to),
                taken.join(",")
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn start_position() {
    let start = Position::<Turkish>::start();
    assert_eq!(
        start,
        parse_fen::<Turkish>("W:W41-56:B9-24").expect("pydraughts' start FEN")
    );
    // White's men on the second and third ranks, Black's on the sixth and seventh; the back
    // ranks empty. White moves first, eight moves: each a-to-h man of the third rank up.
    let at = |name: &str| 1u64 << bit_of_algebraic::<Turkish>(name).expect("a square");
    assert_ne!(start.pieces(damka::Color::White) & at("a2"), 0);
    assert_ne!(start.pieces(damka::Color::Black) & at("h7"), 0);
    assert_eq!(start.occupied() & (at("a1") | at("h8")), 0);
    assert_eq!(start.legal_moves().len(), 8);
}

/// kish 1.1.7's `Board().perft` (`tests/data/perft.json`, `turkish_8x8`). kish counts a flying
/// king's capture once per square it lands on between two jumps, where damka folds routes
/// with the same start, end and captured set into one move; the first such capture comes at
/// depth 7, so depths 1-6 compare as published. Folding kish's moves the same way (one move
/// per resulting position, `Action.delta()`) gives 10,782,308 at depth 7.
#[test]
fn perft_against_kish() {
    let reference: Value =
        serde_json::from_str(include_str!("data/perft.json")).expect("perft.json");
    let values = reference["start_positions"]["turkish_8x8"]["values"]
        .as_array()
        .expect("kish's counts");
    let start = Position::<Turkish>::start();
    for depth in 1..=6u32 {
        let want = values[depth as usize - 1].as_u64().expect("a count");
        assert_eq!(perft(&start, depth), want, "perft({depth})");
    }
    assert_eq!(perft(&start, 7), 10_782_308, "perft(7), duplicates folded");
}

/// A jumped piece leaves the board at once: the king on a1 takes a3, c4, d2 and b1 round a
/// square, comes back through a1 and a3 (empty now) and takes a6 as well.
#[test]
fn jumped_pieces_are_removed_at_once() {
    assert_eq!(
        moves("W:WKa1:Ba3,c4,d2,Kb1,a6"),
        ["a1-a7:a3,a6,b1,c4,d2", "a1-a8:a3,a6,b1,c4,d2"]
    );
}

/// A king may not turn straight back: from d4, after taking d6 it may not come back down
/// the d-file (empty again) to take d2; each capture takes one piece.
#[test]
fn no_half_turn_between_jumps() {
    assert_eq!(moves("W:WKd4:Bd6,d2"), ["d4-d1:d2", "d4-d7:d6", "d4-d8:d6"]);
}

/// After the first jump the king turns left, right or goes on; each way takes two pieces,
/// and it must stop where the capture can still go on (all three routes take two).
#[test]
fn king_turns_after_a_jump() {
    assert_eq!(
        moves("W:WKd1:Bd3,b5,f5,d7"),
        ["d1-a5:b5,d3", "d1-d8:d3,d7", "d1-g5:d3,f5", "d1-h5:d3,f5"]
    );
}

/// Men capture forward and sideways, never backwards.
#[test]
fn men_capture_forward_and_sideways() {
    assert_eq!(moves("W:Wd4:Bd3,c4,d5"), ["d4-b4:c4", "d4-d6:d5"]);
}

/// A man reaching the last row in a capture goes on sideways as a man and is crowned where
/// it ends; the majority rule prefers it (two pieces) to the king's single captures.
#[test]
fn man_crowned_at_the_end_of_its_capture() {
    assert_eq!(moves("W:Wd6:Bd7,e8"), ["d6-f8:d7,e8"]);
    let position = parse_fen::<Turkish>("W:Wd6:Bd7,e8").expect("FEN");
    let legal = position.legal_moves();
    assert!(legal.as_slice()[0].promotes);
    assert_eq!(
        write_move_in(&position, &legal.as_slice()[0], &legal),
        "d6:f8"
    );
    // With a king that can take two as well, both are legal.
    assert_eq!(
        moves("W:Wd6,Ka1:Bd7,e8,a3"),
        [
            "a1-e7:a3,d7",
            "a1-f7:a3,d7",
            "a1-f8:a3,e8",
            "a1-g7:a3,d7",
            "a1-g8:a3,e8",
            "a1-h7:a3,d7",
            "a1-h8:a3,e8",
            "d6-f8:d7,e8"
        ]
    );
}

/// A king may end its capture on the square of a piece it took earlier in the same move (the
/// piece left the board at once, so the square is empty again): it is still a king there.
/// The king on h1 takes h2, g4, f3 and g2 and lands on h2; damka used to clear the king mark
/// of every captured square after placing the mover, and so made it a man there, which then
/// stepped a2-a1 in a Hub game where pydraughts (rightly) still had a king with a capture.
#[test]
fn king_ending_on_a_square_it_emptied_stays_a_king() {
    let fen = "B:Wh2,g4,f3,g2,c6:BKh1";
    assert_eq!(moves(fen), ["h1-h2:f3,g2,g4,h2"]);
    let position = parse_fen::<Turkish>(fen).expect("FEN");
    let next = position.play(&position.legal_moves().as_slice()[0]);
    let h2 = 1u64 << bit_of_algebraic::<Turkish>("h2").expect("a square");
    assert_ne!(next.kings_of(damka::Color::Black) & h2, 0, "a man on h2");
    // The incremental hash counted a king there all along: the board must agree with it.
    assert_eq!(next.hash(), next.compute_hash());
    // As a king it goes on playing along the whole row and file (a man would have h1 and g2).
    let after = next.with_side_to_move(damka::Color::Black);
    assert_eq!(
        moves(&damka::notation::fen::write_fen(&after)),
        [
            "h2-a2:", "h2-b2:", "h2-c2:", "h2-d2:", "h2-e2:", "h2-f2:", "h2-g2:", "h2-h1:",
            "h2-h3:", "h2-h4:", "h2-h5:", "h2-h6:", "h2-h7:", "h2-h8:"
        ]
    );
}
