//! The retrograde endgame tables of `tests/common/retro.rs`, checked against known endgame facts and, position by position, against the library's move generator.
//!
//! Tables built here (each once per run, shared by the tests through a `OnceLock`):
//! - English, every position with up to 4 pieces;
//! - International, every position with up to 3 pieces, and 4 pieces when all are kings
//!   (all 4-piece positions take 20-45 s on two cores: see the ignored test at the bottom);
//! - Russian, kings only, up to 4 pieces (Petrov's triangle, a long forced win).
//!
//! Run with `-- --nocapture` to see the counts per material and the build times.

use crate::common;

use common::retro::{Material, Tablebase, Value, english, international, russian_kings};
use damka::game::small_endgame_limit;
use damka::notation::fen::{parse_fen, write_fen};
use damka::notation::number_of_bit;
use damka::rules::{English, International};
use damka::{Bits, Color, Geometry, Position, Rules};
use std::collections::HashMap;

fn probe<R: Rules>(table: &Tablebase<R>, fen: &str) -> Value {
    let position = parse_fen::<R>(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    table
        .probe(&position)
        .unwrap_or_else(|| panic!("{fen} is not in the table"))
}

/// King against king: each of `drawn` is a draw in `table`, and in `caught` the side to
/// move loses its king at once (lost in 2 plies).
fn drawn_but_caught<R: Rules>(table: &Tablebase<R>, drawn: &[&str], caught: &str) {
    for fen in drawn {
        assert_eq!(probe(table, fen), Value::Draw, "{fen}");
    }
    assert_eq!(probe(table, caught), Value::Loss(2), "{caught}");
}

/// Neither side could capture if it were to move: no tactic is pending.
fn quiet<R: Rules>(position: &Position<R>) -> bool {
    !position.has_capture()
        && !position
            .with_side_to_move(position.side_to_move().opponent())
            .has_capture()
}

/// How many of `color`'s pieces stand on the squares numbered `squares`.
fn count_on<R: Rules>(position: &Position<R>, color: Color, squares: &[u32]) -> usize {
    Bits(position.pieces(color))
        .filter(|&bit| squares.contains(&number_of_bit::<R>(bit as u8)))
        .count()
}

const THREE_KINGS_V_KING: Material = Material {
    white_men: 0,
    white_kings: 3,
    black_men: 0,
    black_kings: 1,
};
const TWO_KINGS_V_KING: Material = Material {
    white_men: 0,
    white_kings: 2,
    black_men: 0,
    black_kings: 1,
};
const KING_V_KING: Material = Material {
    white_men: 0,
    white_kings: 1,
    black_men: 0,
    black_kings: 1,
};

// ---------------------------------------------------------------------------------------
// Consistency with the move generator: the labels are the minimax fixpoint.
// ---------------------------------------------------------------------------------------

/// Checks the defining equations of the values on every `stride`-th position:
/// - no legal move: `Loss(0)`;
/// - `Win(n)`: some move reaches `Loss(n-1)` and none reaches a shorter loss;
/// - `Loss(n)`, n > 0: every move reaches `Win(k)` with k <= n-1, and one reaches `Win(n-1)`;
/// - `Draw`: no move reaches a loss, and some move reaches a draw.
///
/// Win and loss labels satisfying these are right by induction on the distance; draw labels
/// satisfying them let either side stay among draws forever, so they are right too. Together
/// with the completeness test below this proves every label, given the move generator.
fn check_consistency<R: Rules>(table: &Tablebase<R>, stride: usize) -> usize {
    let (checked, failures) = table.par_check(stride, |position, value| {
        if table.probe(position) != Some(value) {
            return Err(format!(
                "probe gives {:?}, listed {value:?}",
                table.probe(position)
            ));
        }
        let moves = position.legal_moves();
        let mut children = Vec::with_capacity(moves.len());
        for mv in moves.iter() {
            let child = position.play(mv);
            match table.probe(&child) {
                Some(v) => children.push(v),
                None => {
                    return Err(format!(
                        "successor {} is not in the table",
                        write_fen(&child)
                    ));
                }
            }
        }
        let losses: Vec<u32> = children
            .iter()
            .filter_map(|v| match v {
                Value::Loss(n) => Some(*n),
                _ => None,
            })
            .collect();
        let ok = match value {
            Value::Loss(0) => moves.is_empty(),
            Value::Win(n) => n >= 1 && losses.iter().min() == Some(&(n - 1)),
            Value::Loss(n) => {
                !moves.is_empty()
                    && children
                        .iter()
                        .all(|v| matches!(v, Value::Win(k) if *k < n))
                    && children.contains(&Value::Win(n - 1))
            }
            Value::Draw => {
                !moves.is_empty() && losses.is_empty() && children.contains(&Value::Draw)
            }
        };
        if ok {
            Ok(())
        } else {
            Err(format!("labelled {value:?}, successors {children:?}"))
        }
    });
    assert!(
        failures.is_empty(),
        "{} inconsistent positions, first: {failures:#?}",
        failures.len()
    );
    checked
}

#[test]
fn english_values_agree_with_the_move_generator() {
    let checked = check_consistency(english(), 1);
    assert!(checked > 14_000_000, "checked {checked}");
}

#[test]
fn international_values_agree_with_the_move_generator() {
    let checked = check_consistency(international(), 1);
    assert!(checked > 9_000_000, "checked {checked}");
}

#[test]
fn russian_king_values_agree_with_the_move_generator() {
    check_consistency(russian_kings(), 1);
}

/// Legal placements of a material, counted square by square (independently of the table's
/// indexing): each square is empty or holds one piece, men never on their own crowning row.
fn legal_placements<R: Rules>(material: Material) -> u64 {
    let target = [
        usize::from(material.white_men),
        usize::from(material.white_kings),
        usize::from(material.black_men),
        usize::from(material.black_kings),
    ];
    let white_row = Position::<R>::promotion_row(Color::White);
    let black_row = Position::<R>::promotion_row(Color::Black);
    let mut ways: HashMap<[usize; 4], u64> = HashMap::from([([0; 4], 1)]);
    for square in 0..R::Geometry::SQUARES {
        let bit = 1u64 << R::Geometry::BIT_OF[square];
        let allowed = [bit & white_row == 0, true, bit & black_row == 0, true];
        let mut next = ways.clone(); // the square left empty
        for (used, &count) in &ways {
            for kind in 0..4 {
                if allowed[kind] && used[kind] < target[kind] {
                    let mut more = *used;
                    more[kind] += 1;
                    *next.entry(more).or_default() += count;
                }
            }
        }
        ways = next;
    }
    ways.get(&target).copied().unwrap_or(0)
}

/// Every legal position is in the table: the counts per material match an independent count
/// (two sides to move each), so the consistency check above covers them all.
fn check_complete<R: Rules>(table: &Tablebase<R>) {
    for stats in table.stats() {
        assert_eq!(
            stats.positions as u64,
            2 * legal_placements::<R>(stats.material),
            "{}",
            stats.material.name()
        );
        assert_eq!(stats.positions, stats.wins + stats.draws + stats.losses);
    }
}

#[test]
fn tables_hold_every_legal_position() {
    check_complete(english());
    check_complete(international());
    check_complete(russian_kings());
    assert_eq!(english().materials().len(), 69, "1 to 4 pieces of 4 kinds");
    assert_eq!(international().materials().len(), 34 + 5);
}

#[test]
fn probe_rejects_positions_outside_the_table() {
    // Five pieces: beyond the table.
    let five = parse_fen::<English>("W:W21,22,23:B1,2").unwrap();
    assert_eq!(english().probe(&five), None);
    // A man on its own crowning row is not a legal position (the FEN reader refuses it too).
    let crowned_man =
        Position::<English>::from_parts(1 << english_bit(1), 1 << english_bit(32), 0, Color::White);
    assert_eq!(english().probe(&crowned_man), None);
    // International 4 pieces with a man: not built.
    let man = parse_fen::<International>("W:W28,K33:BK3,K4").unwrap();
    assert_eq!(international().probe(&man), None);
}

fn english_bit(square: u32) -> u8 {
    damka::notation::bit_of_number::<English>(square).expect("a square")
}

#[test]
fn sample_is_deterministic_and_spans_values() {
    let table = english();
    let keep = |p: &Position<English>, _: Value| quiet(p);
    let a = table.sample(2, 7, keep);
    let b = table.sample(2, 7, keep);
    assert_eq!(a, b, "same seed, same sample");
    for (position, value) in &a {
        assert_eq!(table.probe(position), Some(*value));
        assert!(quiet(position));
    }
    let longest = table.stats().iter().map(|s| s.longest_win).max().unwrap();
    for n in [1, 3, 11, longest] {
        assert!(
            a.iter().any(|(_, v)| *v == Value::Win(n)),
            "Win({n}) sampled"
        );
    }
    assert!(a.iter().any(|(_, v)| *v == Value::Draw));
    assert!(a.iter().any(|(_, v)| *v == Value::Loss(0)));
    // Ordered from the side to move's worst to best.
    assert!(
        a.windows(2)
            .all(|w| w[0].1.preference() <= w[1].1.preference())
    );
}

// ---------------------------------------------------------------------------------------
// English checkers.
// ---------------------------------------------------------------------------------------

/// A side to move with no piece, or no move, has lost (the rule of every variant); a side to
/// move whose opponent has nothing left wins with any move.
#[test]
fn english_no_piece_or_no_move_loses() {
    let table = english();
    assert_eq!(
        probe(table, "B:W18:B"),
        Value::Loss(0),
        "Black has no piece"
    );
    assert_eq!(
        probe(table, "W:W18:B"),
        Value::Win(1),
        "any move leaves Black without a move"
    );
    // White's man on 5 is blocked by the king on 1 (nothing to jump to beyond the edge).
    assert_eq!(probe(table, "W:W5:BK1"), Value::Loss(0));
}

/// Two kings beat one king in checkers (the standard technique drives the lone king out of
/// the double corner: irishdraughts.org "Endings", diagram one; "to ensure a win you need two
/// kings", mindsports.nl, Draughts dissected). The exceptions are tactical: a fork of both
/// kings, or the two kings bottled up in the single corner (`W:WK4,K8:BK7`: 8-11 is jumped,
/// and the lone king keeps them shut in). With the two kings to move, 34 of 14,880 positions.
#[test]
fn english_two_kings_beat_one() {
    let table = english();
    assert!(probe(table, "W:WK1,K3:BK32").is_win());
    assert!(probe(table, "B:WK1,K3:BK32").is_loss());
    assert!(probe(table, "W:WK19,K23:BK1").is_win());
    // The bottled-up exception: 8-11 is jumped, 8-12 or 8-3 is met by the lone king
    // shuttling between 7 and 11, and the king on 4 can only ever leave through 8.
    assert_eq!(probe(table, "W:WK4,K8:BK7"), Value::Draw);
    let (mut wins, mut others) = (0, 0);
    for (position, value) in table.positions_of(TWO_KINGS_V_KING) {
        if position.side_to_move() == Color::White {
            if value.is_win() {
                wins += 1;
            } else {
                // Two kings never lose to one.
                assert_eq!(value, Value::Draw, "{}", write_fen(&position));
                others += 1;
            }
        }
    }
    assert!(others * 200 < wins, "{others} draws against {wins} wins");
}

/// King against king: a draw unless the weaker placed king is caught in the single corner
/// ("on 8x8 it can go either way ... to ensure a win you need two kings", mindsports.nl,
/// Draughts dissected, King versus kings).
#[test]
fn english_king_against_king() {
    let table = english();
    // White's king in the single corner 4 can only go to 8, where the king on 11 jumps it.
    let drawn = ["W:WK14:BK23", "B:WK14:BK23", "W:WK10:BK23", "B:WK10:BK23"];
    drawn_but_caught(table, &drawn, "W:WK4:BK11");
    let stats = table.stats();
    let kk = stats.iter().find(|s| s.material == KING_V_KING).unwrap();
    assert!(kk.draws * 2 > kk.positions, "mostly drawn: {kk:?}");
    assert!(kk.wins > 0 && kk.losses > 0, "but not always: {kk:?}");
}

// ---------------------------------------------------------------------------------------
// International draughts.
// ---------------------------------------------------------------------------------------

/// Every win and loss of a small-endgame configuration (FMJD art. 8.3: 5 moves each for two
/// kings, a king and a man, or a king against a lone king, 16 for three pieces with a king;
/// Russian: 15 moves each for three kings against a lone king on the main diagonal) ends
/// within the rule's plies when the count starts: so a table value, which follows the move
/// rules only, is the value the game's rules give wherever the count starts, and the search
/// needs the count only once it is under way (docs/egtb.md). `materials` is how many
/// configurations the table holds; the ignored test at the bottom covers the international
/// ones with men.
fn small_endgame_values_fit_the_rule<R: Rules>(table: &Tablebase<R>, materials: usize) {
    let mut seen = HashMap::new();
    for material in table.materials() {
        for (position, value) in table.positions_of(material) {
            let Some(limit) = small_endgame_limit(&position) else {
                continue;
            };
            *seen.entry(material).or_insert(0u64) += 1;
            if let Some(plies) = value.distance() {
                assert!(
                    plies <= limit,
                    "{} is {value:?}, the rule draws after {limit} plies",
                    write_fen(&position)
                );
            }
        }
    }
    assert_eq!(seen.len(), materials, "{seen:?}");
}

#[test]
fn small_endgame_values_fit_the_international_rule() {
    // K v K; KK v K, KM v K, KKK v K and their colour swaps.
    small_endgame_values_fit_the_rule(international(), 7);
}

#[test]
fn small_endgame_values_fit_the_russian_rule() {
    // KKK v K and K v KKK.
    small_endgame_values_fit_the_rule(russian_kings(), 2);
}

/// The long diagonal 46-5.
const LONG_DIAGONAL_10: [u32; 10] = [5, 10, 14, 19, 23, 28, 32, 37, 41, 46];

/// A lone king cannot be caught by a lone king: only an immediate tactic decides (FMJD
/// endgame theory: 1 v 1 is a draw). In the corner of the long diagonal, with the other king
/// on the far corner, the side to move must step onto the diagonal and is taken.
#[test]
fn international_king_against_king() {
    let drawn = ["W:WK28:BK24", "B:WK28:BK24", "W:WK33:BK18", "B:WK33:BK18"];
    drawn_but_caught(international(), &drawn, "W:WK5:BK46");
    for (position, value) in international().positions_of(KING_V_KING) {
        assert!(
            value == Value::Draw || value.distance().unwrap() <= 3,
            "{} {value:?}",
            write_fen(&position)
        );
    }
}

/// Two kings cannot force a win against one king in international draughts, apart from
/// immediate tactics (FMJD endgame theory; the small-endgame rule art. 8.3 allows 5 moves
/// for it). Almost every quiet position with the two kings to move is drawn.
#[test]
fn international_two_kings_against_one_is_a_draw() {
    let table = international();
    assert_eq!(probe(table, "W:WK28,K33:BK3"), Value::Draw);
    assert_eq!(probe(table, "B:WK28,K33:BK3"), Value::Draw);
    assert_eq!(probe(table, "W:WK46,K50:BK24"), Value::Draw);
    let (mut draws, mut quiet_positions) = (0, 0);
    for (position, value) in table.positions_of(TWO_KINGS_V_KING) {
        if position.side_to_move() == Color::White && quiet(&position) {
            quiet_positions += 1;
            draws += usize::from(value == Value::Draw);
        }
    }
    assert!(
        draws * 100 >= quiet_positions * 95,
        "{draws} of {quiet_positions}"
    );
}

/// Three kings against one: the lone king holding the long diagonal draws (FMJD endgame
/// theory; the reason the small-endgame rule of art. 8.3 exists). Checked on every position
/// where the lone king stands on the long diagonal with the move, no white king is on it and
/// no capture is pending. With the three kings to move it does not hold: a king in the
/// corner can be shut in, and sacrifices on the diagonal force the lone king off it.
///
/// On 10x10, holding the diagonal themselves does not let the three kings win either ("when
/// in International Checkers 3 kings have to catch a single king, the game will be a draw
/// ... unless you are successful with some dirty tricks", boardgamegeek mini course 1,
/// "Winning with three kings against one", which gives the win for the 8x8 variants only).
#[test]
fn international_three_kings_against_one() {
    let table = international();
    let mut held = 0;
    for (position, value) in table.positions_of(THREE_KINGS_V_KING) {
        if position.side_to_move() == Color::Black
            && count_on(&position, Color::Black, &LONG_DIAGONAL_10) == 1
            && count_on(&position, Color::White, &LONG_DIAGONAL_10) == 0
            && quiet(&position)
        {
            held += 1;
            assert_eq!(value, Value::Draw, "{}", write_fen(&position));
        }
    }
    assert!(held > 70_000, "{held}");
    assert_eq!(probe(table, "B:WK3,K8,K9:BK28"), Value::Draw);
    assert_eq!(probe(table, "W:WK3,K8,K9:BK28"), Value::Draw);
    // The three kings on the long diagonal, the lone king off it: still a draw.
    assert_eq!(probe(table, "B:WK14,K28,K37:BK1"), Value::Draw);
    // Tricks exist: the lone king shut in its corner of the diagonal.
    assert!(probe(table, "W:WK9,K39,K50:BK5").is_win());
    let stats = table.stats();
    let kkk = stats
        .iter()
        .find(|s| s.material == THREE_KINGS_V_KING)
        .unwrap();
    assert!(kkk.wins > 0 && kkk.draws > kkk.positions / 2, "{kkk:?}");
}

// ---------------------------------------------------------------------------------------
// Russian draughts: 8x8 with flying kings.
// ---------------------------------------------------------------------------------------

/// The main road a1-h8, in PDN numbers.
const MAIN_ROAD_8: [u32; 8] = [4, 8, 11, 15, 18, 22, 25, 29];

/// Three kings against one on 8x8 with flying kings: the lone king holding the main road
/// draws; off it, the three kings win with Petrov's triangle (Russian shashki theory; the
/// boardgamegeek mini course above gives the same method for Russian, Brazilian, Pool and
/// Spanish). Checked on every quiet position of each kind.
#[test]
fn russian_three_kings_against_one_petrov_triangle() {
    let table = russian_kings();
    let (mut wins, mut holds) = (0, 0);
    let mut longest = 0;
    for (position, value) in table.positions_of(THREE_KINGS_V_KING) {
        if !quiet(&position) {
            continue;
        }
        let lone_on_road = count_on(&position, Color::Black, &MAIN_ROAD_8) == 1;
        let kings_on_road = count_on(&position, Color::White, &MAIN_ROAD_8);
        if position.side_to_move() == Color::White && !lone_on_road {
            assert!(value.is_win(), "{} {value:?}", write_fen(&position));
            longest = longest.max(value.distance().unwrap());
            wins += 1;
        }
        if position.side_to_move() == Color::Black && lone_on_road && kings_on_road == 0 {
            assert_eq!(value, Value::Draw, "{}", write_fen(&position));
            holds += 1;
        }
    }
    assert!(wins > 40_000 && holds > 10_000, "{wins} {holds}");
    // A real chase, not a tactic: Petrov's triangle takes many moves.
    assert!(longest >= 20, "longest win {longest} plies");
}

// ---------------------------------------------------------------------------------------
// The full international 4-piece table: too slow for the default run.
// ---------------------------------------------------------------------------------------

/// All 98 million international positions with up to 4 pieces (on two cores, 20 s to build
/// when the machine is otherwise idle, 45 s beside other test binaries; 400 MB), checked on
/// a sample of one slot in 97.
#[test]
#[ignore = "20-60 s and 400 MB: run with --ignored"]
fn international_four_pieces_full() {
    let table = Tablebase::<International>::build(4);
    eprintln!("international, up to 4 pieces:\n{}", table.report());
    check_complete(&table);
    check_consistency(&table, 97);
    // The 11 small-endgame configurations: K v K; KK, KM, KKK, KKM, KMM against a lone king
    // and their colour swaps.
    small_endgame_values_fit_the_rule(&table, 11);
}

// The search against the tables: every win found with its exact distance, every loss
// delayed exactly as long as the table says, and no win or loss claimed in a drawn position.

use damka::search::score::{WIN, WIN_BOUND};
use damka::search::tt::TranspositionTable;
use damka::search::{Env, Limits, think};

fn search<R: Rules>(position: &Position<R>, depth: u32) -> (Option<damka::Move>, i32) {
    let env = Env::new(std::sync::Arc::new(TranspositionTable::new(8)));
    let limits = Limits {
        depth: Some(depth),
        multipv: 1,
        ..Limits::default()
    };
    let outcome = think(position, &limits, &env, &mut |_| {});
    (outcome.best, outcome.score)
}

fn search_agrees_with_table<R: Rules>(table: &Tablebase<R>, longest: u32, draw_depth: u32) {
    let sample = table.sample(2, 17, |_, value| {
        value.distance().is_none_or(|plies| plies <= longest)
    });
    assert!(sample.len() > 10, "too small a sample: {}", sample.len());
    let mut failures = Vec::new();
    for (position, value) in &sample {
        let (depth, expected_ok): (u32, Box<dyn Fn(i32) -> bool>) = match *value {
            Value::Win(n) => (n + 1, Box::new(move |s| s == WIN - n as i32)),
            Value::Loss(0) => {
                assert_eq!(search(position, 1).0, None, "{position:?} has no move");
                continue;
            }
            Value::Loss(n) => (n + 1, Box::new(move |s| s == -(WIN - n as i32))),
            Value::Draw => (draw_depth, Box::new(|s: i32| s.abs() <= WIN_BOUND)),
        };
        let (best, score) = search(position, depth);
        let legal = position.legal_moves();
        assert!(best.is_some_and(|mv| legal.as_slice().contains(&mv)));
        if !expected_ok(score) {
            failures.push(format!(
                "{position:?}: table {value:?}, search {score} at depth {depth}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        sample.len(),
        failures.join("\n")
    );
}

common::test_cases! {
    search_finds_english_endgame_values: search_agrees_with_table(english(), 25, 14);
    search_finds_international_endgame_values: search_agrees_with_table(international(), 15, 12);
}
