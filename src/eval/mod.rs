//! Static evaluation per variant family, from the side to move's point of view.
//!
//! [`evaluate`] scores a position in centi-men (100 = one man) for the side to move with the
//! default weights of its variant; [`evaluate_with`] does the same with any [`Weights`] (for
//! a tuner). Every term is a handful of shifts and popcounts over the ghost-square bitboards:
//! no move generation, no allocation, no loop over pieces.
//!
//! Each side is scored by the same code seen from its own side of the board, with "forward"
//! meaning towards its promotion row and ranks counted from its own back row. Reversing the
//! directions and the rank order is exactly the 180-degree rotation of the board, and every
//! other square set used here (centre, main diagonal, the pair of halves) is mapped onto
//! itself by that rotation, so the score is colour-symmetric by construction: swapping the
//! colours, rotating the board and passing the move gives the same score.
//!
//! The terms and where they come from:
//! - material: men and kings, the king's worth set per variant and tapered from opening to
//!   endgame, plus a bonus for the first king (Scan 3.0, `eval.cpp`);
//! - advancement per rank, tapered so that it weighs more as material goes down, and the
//!   checkers tempo count, the sum of the ranks advanced (A. L. Samuel, "Some Studies in
//!   Machine Learning Using the Game of Checkers", 1959; J. Schaeffer et al., "A World
//!   Championship Caliber Checkers Program", 1992, on Chinook);
//! - back-rank guard, centre control and mobility (Samuel's BACK, CENT and MOB terms); here
//!   mobility counts only the men's steps to squares no enemy piece in front can take at once,
//!   and king mobility counts the squares each king can step to;
//! - left/right balance of the men (Scan 3.0);
//! - a weight per column of the men, counted from the side's own left (edge men and the two
//!   wings), locked men (no empty square ahead) and men backed on both squares behind: the
//!   "formation" features of classical draughts programs, with weights left to the tuner;
//! - these men terms and the back-rank, centre, balance and mobility terms have an endgame
//!   part too, blended in as the board empties (the tapered evaluation of the material);
//! - runaway men, whose way to promotion is clear (Chinook);
//! - kings on the main diagonal (flying kings) and in the centre (short kings; Samuel's
//!   KCENT);
//! - drawish material for flying kings: a lead with too few pieces against a king is divided
//!   down, as Scan 3.0 does for international draughts;
//! - a small bonus for the side to move;
//! - where a variant has them (international and breakthrough; English; Russian, Brazilian
//!   and Pool; Italian; Spanish; Czech; Frisian; frysk!: all but towers, antidraughts and
//!   Turkish), block tables: a learned opening and endgame weight for every arrangement of
//!   men in each overlapping 4x4 block of the board (Scan 2.0's patterns; [`patterns`]),
//!   blended with the other tapered terms.

pub mod defaults;
pub mod network;
pub mod patterns;
pub mod weights;

pub use network::Network;
pub use patterns::Patterns;
pub use weights::{Weights, weights};

use crate::board::{Bitboard, Dir, Geometry};
use crate::position::Position;
use crate::rules::{Color, Goal, Rules};
use weights::{MAX_RANKS, RUNAWAY_DISTANCES};

/// Scores `position` for the side to move with the built-in evaluation of its variant: its
/// network (English) or its weights and block tables.
#[inline]
pub fn evaluate<R: Rules>(position: &Position<R>) -> i32 {
    if let Some(network) = defaults::network_for(R::VARIANT) {
        return network.evaluate(position);
    }
    // Inlined with the weights as constants: zero weights drop their terms at compile time.
    score::<R>(position, weights::<R>(), default_patterns::<R>())
}

/// Scores `position` for the side to move with the weights `w` and no pattern tables (the
/// tuner reads the linear terms this way).
#[inline]
pub fn evaluate_with<R: Rules>(position: &Position<R>, w: &Weights) -> i32 {
    score::<R>(position, w, None)
}

/// A whole evaluation as a weights file gives it: the weights and, where the file has them,
/// the block tables.
#[derive(Clone, Debug)]
pub struct EvalSet {
    /// The material, advancement, ... weights.
    pub weights: Weights,
    /// The block tables, or `None` for an evaluation without them.
    pub patterns: Option<std::sync::Arc<Patterns>>,
    /// A network that replaces the whole evaluation ([`network`]), or `None`.
    pub network: Option<std::sync::Arc<Network>>,
}

impl EvalSet {
    /// Scores `position` for the side to move with this set.
    #[inline]
    pub fn evaluate<R: Rules>(&self, position: &Position<R>) -> i32 {
        if let Some(network) = &self.network {
            return network.evaluate(position);
        }
        score::<R>(position, &self.weights, self.patterns.as_deref())
    }
}

/// The contents of a weights file (`EvalFile`), checked when it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalFile {
    /// The text form of [`Weights`]: its fields replace those of a variant's built-in set,
    /// and the evaluation is the linear one, without block tables (a text set is fitted
    /// without them).
    Text(String),
    /// A binary weights file with block tables ([`patterns`]) and the other weights as text.
    Patterns(std::sync::Arc<Patterns>),
    /// A network file ([`network`]): English only, as its inputs are English's 32 squares
    /// and it was fitted to English games.
    Network(std::sync::Arc<Network>),
}

/// The board family (10 or 8) whose block tables `variant`'s evaluation can use, or `None`
/// for a variant whose evaluation is its own (antidraughts, Turkish).
pub fn pattern_family(variant: crate::rules::Variant) -> Option<u16> {
    crate::with_variant!(variant, R => pattern_family_of::<R>())
}

fn pattern_family_of<R: Rules>() -> Option<u16> {
    if R::GOAL == Goal::Reversed || R::ROOK_MOVES {
        None
    } else {
        Some(R::Geometry::SIZE as u16)
    }
}

impl EvalFile {
    /// Reads a file's bytes as weights for `variant`: a binary weights file (by its magic)
    /// or the text form; the error says what is wrong.
    pub fn read(bytes: &[u8], variant: crate::rules::Variant) -> Result<EvalFile, String> {
        let base = weights::for_variant(variant);
        if Network::is_network_file(bytes) {
            if variant != crate::rules::Variant::English {
                return Err(format!(
                    "a network file evaluates English only, not {}",
                    variant.name()
                ));
            }
            let network = Network::from_bytes(bytes).map_err(|e| e.to_string())?;
            return Ok(EvalFile::Network(std::sync::Arc::new(network)));
        }
        if Patterns::is_weights_file(bytes) {
            let family = pattern_family(variant).ok_or_else(|| {
                format!(
                    "{} has an evaluation of its own, without block tables",
                    variant.name()
                )
            })?;
            let patterns = Patterns::from_bytes(bytes, family).map_err(|e| e.to_string())?;
            base.parse_text(&patterns.text)
                .map_err(|e| format!("the file's weights text: {e}"))?;
            return Ok(EvalFile::Patterns(std::sync::Arc::new(patterns)));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| "neither a binary weights file nor UTF-8 text".to_string())?;
        base.parse_text(text).map_err(|e| e.to_string())?;
        Ok(EvalFile::Text(text.to_string()))
    }

    /// The evaluation this file gives `variant`, or `None` when it does not fit the variant
    /// (block tables of another board): the built-in set then stays in force.
    pub fn set_for(&self, variant: crate::rules::Variant) -> Option<EvalSet> {
        let base = weights::for_variant(variant);
        match self {
            EvalFile::Text(text) => Some(EvalSet {
                weights: base.parse_text(text).ok()?,
                patterns: None,
                network: None,
            }),
            EvalFile::Network(network) => {
                (variant == crate::rules::Variant::English).then(|| EvalSet {
                    weights: *base,
                    patterns: None,
                    network: Some(std::sync::Arc::clone(network)),
                })
            }
            EvalFile::Patterns(patterns) => {
                if pattern_family(variant) != Some(patterns.family) {
                    return None;
                }
                Some(EvalSet {
                    weights: base.parse_text(&patterns.text).ok()?,
                    patterns: Some(std::sync::Arc::clone(patterns)),
                    network: None,
                })
            }
        }
    }
}

/// The built-in block tables of variant `R`, or `None` where it has none.
#[inline(always)]
pub fn default_patterns<R: Rules>() -> Option<&'static Patterns> {
    defaults::for_variant(R::VARIANT)
}

/// The evaluation itself, for [`evaluate`] and [`evaluate_with`].
#[inline(always)]
fn score<R: Rules>(position: &Position<R>, w: &Weights, patterns: Option<&Patterns>) -> i32 {
    if R::GOAL == Goal::Reversed {
        return reversed_material(position);
    }
    if R::ROOK_MOVES {
        return rook_score(position);
    }
    let white = position.pieces(Color::White);
    let black = position.pieces(Color::Black);
    let kings = position.kings();
    let empty = position.empty();
    let (white_terms, black_terms) = if Position::<R>::moves_up(Color::White) {
        (
            side_terms::<R, true>(white, black, kings, empty, w),
            side_terms::<R, false>(black, white, kings, empty, w),
        )
    } else {
        (
            side_terms::<R, false>(white, black, kings, empty, w),
            side_terms::<R, true>(black, white, kings, empty, w),
        )
    };

    // Tapered blend: all the start material = opening, none = endgame.
    let full = (2 * R::START_ROWS * R::Geometry::PER_ROW) as i32;
    let phase = ((white | black).count_ones() as i32).min(full);
    let opening = white_terms.opening - black_terms.opening;
    let endgame = white_terms.endgame - black_terms.endgame;
    let tapered = match patterns {
        None => (opening * phase + endgame * (full - phase)) / full,
        Some(patterns) => {
            // The block weights are in 1/16 centi-man: blend at that scale, then round down
            // once, as the terms above are.
            let (up_color, down_color) = if Position::<R>::moves_up(Color::White) {
                (Color::White, Color::Black)
            } else {
                (Color::Black, Color::White)
            };
            let (up, down) = (position.men(up_color), position.men(down_color));
            let (mut block_opening, mut block_endgame) = patterns.score::<R::Geometry>(up, down);
            // The king tables count only while a king is on the board (patterns.rs, "King
            // tables"); `king_score` returns at once otherwise.
            let (up_kings, down_kings) =
                (position.kings_of(up_color), position.kings_of(down_color));
            let (king_opening, king_endgame) =
                patterns.king_score::<R::Geometry>(up, down, up_kings, down_kings);
            block_opening += king_opening;
            block_endgame += king_endgame;
            if !Position::<R>::moves_up(Color::White) {
                block_opening = -block_opening;
                block_endgame = -block_endgame;
            }
            let unit = patterns::PATTERN_UNIT;
            ((opening * unit + block_opening) * phase
                + (endgame * unit + block_endgame) * (full - phase))
                / (full * unit)
        }
    };
    let mut score = tapered + white_terms.flat - black_terms.flat;

    if score > 0 {
        score = scale_drawish::<R>(score, white, black, kings, w);
    } else if score < 0 {
        score = -scale_drawish::<R>(-score, black, white, kings, w);
    }

    let score = match position.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    };
    score + w.side_to_move
}

/// Antidraughts: the side that gets rid of its pieces first wins, so every piece of one's
/// own is a man's worth against, every piece of the opponent's a man's worth for (a king
/// counts as one piece: it is as much a liability as a man is).
#[inline(always)]
fn reversed_material<R: Rules>(position: &Position<R>) -> i32 {
    let side = position.side_to_move();
    let own = position.pieces(side).count_ones() as i32;
    let theirs = position.pieces(side.opponent()).count_ones() as i32;
    100 * (theirs - own)
}

/// Turkish: material and progress, for the side to move. A flying king that moves along
/// ranks and files controls whole lines and is worth about three men (hence 300); a man is
/// worth 6 more for each row it has advanced, since every man that gets through becomes such
/// a king and men never step back.
#[inline(always)]
fn rook_score<R: Rules>(position: &Position<R>) -> i32 {
    let side_score = |color: Color| {
        let men = position.men(color);
        let mut score =
            100 * men.count_ones() as i32 + 300 * position.kings_of(color).count_ones() as i32;
        for row in 0..R::Geometry::SIZE {
            let on_row = (men & R::Geometry::row_mask(row)).count_ones() as i32;
            let advanced = if Position::<R>::moves_up(color) {
                R::Geometry::SIZE - 1 - row
            } else {
                row
            };
            score += 6 * advanced as i32 * on_row;
        }
        score
    };
    let side = position.side_to_move();
    side_score(side) - side_score(side.opponent())
}

/// A side's terms: the opening and endgame parts to blend, and the part that is not tapered.
#[derive(Clone, Copy, Debug, Default)]
struct Terms {
    opening: i32,
    endgame: i32,
    flat: i32,
}

/// The square sets of a board that the evaluation uses, made at compile time.
trait Masks: Geometry {
    /// Each row, 0 at the top; rows past the board are empty.
    const ROWS: [Bitboard; MAX_RANKS] = rows(Self::SIZE, Self::PER_ROW, &Self::BIT_OF);
    /// The two middle rows without the two outer columns on each side (14, 15, 18, 19 on 8x8;
    /// 22-24 and 27-29 on 10x10).
    const CENTRE: Bitboard = region(
        Self::SIZE,
        Self::PER_ROW,
        &Self::BIT_OF,
        (Self::SIZE / 2 - 1, Self::SIZE / 2),
        (2, Self::SIZE - 3),
    );
    /// The central 4x4 squares.
    const KING_CENTRE: Bitboard = region(
        Self::SIZE,
        Self::PER_ROW,
        &Self::BIT_OF,
        (Self::SIZE / 2 - 2, Self::SIZE / 2 + 1),
        (Self::SIZE / 2 - 2, Self::SIZE / 2 + 1),
    );
    /// The left half of the board (columns a to d, or a to e).
    const LEFT: Bitboard = region(
        Self::SIZE,
        Self::PER_ROW,
        &Self::BIT_OF,
        (0, Self::SIZE - 1),
        (0, Self::SIZE / 2 - 1),
    );
    /// The right half of the board.
    const RIGHT: Bitboard = region(
        Self::SIZE,
        Self::PER_ROW,
        &Self::BIT_OF,
        (0, Self::SIZE - 1),
        (Self::SIZE / 2, Self::SIZE - 1),
    );
    /// Each column, 0 at the left; columns past the board are empty.
    const COLUMNS: [Bitboard; MAX_RANKS] = columns(Self::SIZE, Self::PER_ROW, &Self::BIT_OF);
    /// The main diagonal, from the bottom-left corner to the top-right one.
    const MAIN_DIAGONAL: Bitboard = main_diagonal(Self::SIZE, Self::PER_ROW, &Self::BIT_OF);
}

impl<G: Geometry> Masks for G {}

/// Row and column of a square index (the top-left corner square is not playable), or on a
/// board where every square plays (8 per row: Turkish) the plain row and column.
const fn row_col(square: usize, per_row: usize) -> (usize, usize) {
    if per_row == 8 {
        return (square / 8, square % 8);
    }
    let row = square / per_row;
    (row, 2 * (square % per_row) + (1 - row % 2))
}

const fn rows(size: usize, per_row: usize, bit_of: &[u8; 64]) -> [Bitboard; MAX_RANKS] {
    let mut out = [0; MAX_RANKS];
    let mut square = 0;
    while square < size * per_row {
        out[square / per_row] |= 1 << bit_of[square];
        square += 1;
    }
    out
}

const fn columns(size: usize, per_row: usize, bit_of: &[u8; 64]) -> [Bitboard; MAX_RANKS] {
    let mut out = [0; MAX_RANKS];
    let mut square = 0;
    while square < size * per_row {
        let (_, col) = row_col(square, per_row);
        out[col] |= 1 << bit_of[square];
        square += 1;
    }
    out
}

/// The squares with the row and column within the given inclusive ranges.
const fn region(
    size: usize,
    per_row: usize,
    bit_of: &[u8; 64],
    rows: (usize, usize),
    cols: (usize, usize),
) -> Bitboard {
    let mut out = 0;
    let mut square = 0;
    while square < size * per_row {
        let (row, col) = row_col(square, per_row);
        if row >= rows.0 && row <= rows.1 && col >= cols.0 && col <= cols.1 {
            out |= 1 << bit_of[square];
        }
        square += 1;
    }
    out
}

const fn main_diagonal(size: usize, per_row: usize, bit_of: &[u8; 64]) -> Bitboard {
    let mut out = 0;
    let mut square = 0;
    while square < size * per_row {
        let (row, col) = row_col(square, per_row);
        if row + col == size - 1 {
            out |= 1 << bit_of[square];
        }
        square += 1;
    }
    out
}

/// `dir` as seen by a side moving up (`UP`) or, rotated half a turn, by a side moving down.
#[inline(always)]
const fn oriented<const UP: bool>(dir: Dir) -> Dir {
    if UP { dir } else { dir.reverse() }
}

/// The squares of rank `rank` (0 = own back row) for a side moving up or down.
#[inline(always)]
fn rank<G: Geometry, const UP: bool>(rank: usize) -> Bitboard {
    if UP {
        G::ROWS[G::SIZE - 1 - rank]
    } else {
        G::ROWS[rank]
    }
}

/// The terms of the side owning `own`, whose men move up (`UP`) or down.
#[inline(always)]
fn side_terms<R: Rules, const UP: bool>(
    own: Bitboard,
    opp: Bitboard,
    kings: Bitboard,
    empty: Bitboard,
    w: &Weights,
) -> Terms {
    let size = R::Geometry::SIZE;
    let step = |set: Bitboard, dir: Dir| R::Geometry::step(set, dir);
    let ahead_left = oriented::<UP>(Dir::UpLeft);
    let ahead_right = oriented::<UP>(Dir::UpRight);
    let behind_left = oriented::<UP>(Dir::DownLeft);
    let behind_right = oriented::<UP>(Dir::DownRight);
    // The squares just behind some square of `set` (the squares that have it ahead).
    let behind = |set: Bitboard| step(set, behind_left) | step(set, behind_right);

    let men = own & !kings;
    let own_kings = own & kings;
    let opp_men = opp & !kings;
    let opp_kings = opp & kings;
    let mut terms = Terms::default();

    // Material.
    let king_count = own_kings.count_ones() as i32;
    terms.flat += w.man * men.count_ones() as i32;
    terms.opening += w.king_opening * king_count;
    terms.endgame += w.king_endgame * king_count;
    if own_kings != 0 {
        terms.flat += w.first_king;
    }

    // Advancement per rank and the tempo count.
    for r in 0..size {
        let count = (men & rank::<R::Geometry, UP>(r)).count_ones() as i32;
        let ranks = r as i32;
        terms.opening += count * (w.advance_opening[r] + ranks * w.tempo_opening);
        terms.endgame += count * (w.advance_endgame[r] + ranks * w.tempo_endgame);
    }

    // The men terms from here to the mobility are flat, each with an endgame part blended in
    // as the board empties (tapered evaluation, as for the material and advancement above).

    // Back-rank guard, while the opponent has men that could crown there.
    if opp_men != 0 {
        let guards = (men & rank::<R::Geometry, UP>(0)).count_ones() as i32;
        terms.flat += w.back_rank * guards;
        terms.endgame += w.back_rank_endgame * guards;
    }

    // Centre and left/right balance.
    let central = (men & R::Geometry::CENTRE).count_ones() as i32;
    terms.flat += w.centre * central;
    terms.endgame += w.centre_endgame * central;
    let left = (men & R::Geometry::LEFT).count_ones() as i32;
    let right = (men & R::Geometry::RIGHT).count_ones() as i32;
    let imbalance = (left - right).abs();
    terms.flat += w.balance * imbalance;
    terms.endgame += w.balance_endgame * imbalance;

    // Columns, counted from the side's own left: the board turned half a turn for the side
    // moving down.
    for c in 0..size {
        let column = if UP {
            R::Geometry::COLUMNS[c]
        } else {
            R::Geometry::COLUMNS[size - 1 - c]
        };
        let count = (men & column).count_ones() as i32;
        terms.flat += w.column[c] * count;
        terms.endgame += w.column_endgame[c] * count;
    }

    // Locked men (no empty square ahead) and men backed on both sides behind.
    let locked = (men & !behind(empty)).count_ones() as i32;
    terms.flat += w.locked_men * locked;
    terms.endgame += w.locked_men_endgame * locked;
    let supported = (men & step(own, ahead_left) & step(own, ahead_right)).count_ones() as i32;
    terms.flat += w.supported_men * supported;
    terms.endgame += w.supported_men_endgame * supported;

    // Safe steps of the men. A man stepping ahead-left to t can be taken at once by an enemy
    // piece ahead-left of t (it jumps onto the square the man left) or ahead-right of t when
    // the square behind-left of t is empty; the same mirrored for ahead-right steps.
    let to_left = step(men, ahead_left) & empty;
    let to_right = step(men, ahead_right) & empty;
    let enemy_ahead_left = step(opp, behind_right);
    let enemy_ahead_right = step(opp, behind_left);
    let unsafe_left = enemy_ahead_left | (enemy_ahead_right & step(empty, ahead_right));
    let unsafe_right = enemy_ahead_right | (enemy_ahead_left & step(empty, ahead_left));
    let safe_steps =
        (to_left & !unsafe_left).count_ones() + (to_right & !unsafe_right).count_ones();
    terms.flat += w.mobility * safe_steps as i32;
    terms.endgame += w.mobility_endgame * safe_steps as i32;

    // Runaway men. `blocked[d]` holds the squares with an occupied square in the cone of
    // depth d + 1 ahead (the squares a man could reach in d + 1 steps).
    let occupied = own | opp;
    let one_step = men & rank::<R::Geometry, UP>(size - 2) & behind(empty);
    let mut runaways = w.runaway[0] * one_step.count_ones() as i32;
    if opp_kings == 0 {
        let mut blocked = behind(occupied);
        for d in 1..RUNAWAY_DISTANCES {
            blocked = behind(occupied | blocked);
            let clear = men & rank::<R::Geometry, UP>(size - 2 - d) & !blocked;
            runaways += w.runaway[d] * clear.count_ones() as i32;
        }
    }
    terms.flat += runaways;

    // Kings: mobility, main diagonal, centre.
    if own_kings != 0 {
        // The squares the kings can move to: the move generator's count of the same rays.
        let reach = crate::movegen::king_reach::<R>(own_kings, empty);
        terms.flat += w.king_mobility * reach as i32
            + w.king_main_diagonal * (own_kings & R::Geometry::MAIN_DIAGONAL).count_ones() as i32
            + w.king_centre * (own_kings & R::Geometry::KING_CENTRE).count_ones() as i32;
    }
    terms
}

/// A lead of `score` > 0 for the side owning `strong`, divided down when the material left
/// rarely wins against the kings of `weak` (Scan 3.0's drawish-material rule).
#[inline(always)]
fn scale_drawish<R: Rules>(
    score: i32,
    strong: Bitboard,
    weak: Bitboard,
    kings: Bitboard,
    w: &Weights,
) -> i32 {
    match drawish_divisor::<R>(strong, weak, kings, w) {
        1 => score,
        divisor => score / divisor,
    }
}

/// The divisor [`scale_drawish`] applies to a lead of the side owning `strong` (1 = none).
#[inline(always)]
fn drawish_divisor<R: Rules>(
    strong: Bitboard,
    weak: Bitboard,
    kings: Bitboard,
    w: &Weights,
) -> i32 {
    let weak_kings = weak & kings;
    if weak_kings == 0 {
        return 1;
    }
    let strong_pieces = strong.count_ones() as i32;
    let lone_king_on_diagonal =
        weak.count_ones() == 1 && weak_kings & R::Geometry::MAIN_DIAGONAL != 0;
    if strong_pieces <= w.drawish_pieces
        || (lone_king_on_diagonal && strong_pieces <= w.drawish_pieces_diagonal)
    {
        return w.drawish_divisor.max(1);
    }
    let strong_kings = (strong & kings).count_ones() as i32;
    let men_difference =
        (strong & !kings).count_ones() as i32 - (weak & !kings).count_ones() as i32;
    if strong_kings == weak_kings.count_ones() as i32 && men_difference.abs() <= 1 {
        return w.king_parity_divisor.max(1);
    }
    1
}

/// The divisors the evaluation applies to a White lead and to a Black lead in `position`
/// under the drawish-material rules of `w` (1 = the lead counts in full). Besides these
/// divisions and the side-to-move bonus, the score is linear in the weights, which is what a
/// tuner needs to know.
pub fn lead_divisors<R: Rules>(position: &Position<R>, w: &Weights) -> (i32, i32) {
    let white = position.pieces(Color::White);
    let black = position.pieces(Color::Black);
    let kings = position.kings();
    (
        drawish_divisor::<R>(white, black, kings, w),
        drawish_divisor::<R>(black, white, kings, w),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Bits;
    use crate::random::SplitMix;
    use crate::rules::{
        Brazilian, Czech, English, Frisian, Frysk, International, Italian, Pool, Russian, Spanish,
        Towers,
    };

    /// Every position of `games` random playouts of up to `plies` plies from the start.
    pub(super) fn playout_positions<R: Rules>(
        seed: u64,
        games: usize,
        plies: usize,
    ) -> Vec<Position<R>> {
        let mut rng = SplitMix(seed);
        let mut out = Vec::new();
        for _ in 0..games {
            let mut position = Position::<R>::start();
            for _ in 0..plies {
                out.push(position);
                let legal = position.legal_moves();
                if legal.is_empty() {
                    break;
                }
                position = position.play(&legal.as_slice()[rng.below(legal.len())]);
            }
        }
        out
    }

    /// Rotates a set of bits half a turn: square s goes to square SQUARES - 1 - s.
    fn rotate<G: Geometry>(set: Bitboard) -> Bitboard {
        Bits(set)
            .map(|bit| {
                let square = usize::from(G::SQUARE_OF[bit as usize]);
                1u64 << G::BIT_OF[G::SQUARES - 1 - square]
            })
            .fold(0, |a, b| a | b)
    }

    /// The colour-flipped mirror: colours swapped, board rotated, the other side to move.
    pub(super) fn flipped<R: Rules>(position: &Position<R>) -> Position<R> {
        Position::from_parts(
            rotate::<R::Geometry>(position.pieces(Color::Black)),
            rotate::<R::Geometry>(position.pieces(Color::White)),
            rotate::<R::Geometry>(position.kings()),
            position.side_to_move().opponent(),
        )
    }

    /// A weight set with every weight non-zero and distinct, so that every term is exercised.
    fn busy_weights() -> Weights {
        let count = weights::INTERNATIONAL.to_vec().len();
        let values: Vec<i32> = (0..count as i32).map(|i| 3 + 7 * i % 23).collect();
        let mut w = weights::INTERNATIONAL
            .with_values(&values)
            .expect("right length");
        w.man = 100;
        w.drawish_pieces = 4;
        w.drawish_pieces_diagonal = 5;
        w.drawish_divisor = 3;
        w.king_parity_divisor = 2;
        w
    }

    /// Random placements of up to `max` pieces a side, some of them kings (not always legal
    /// positions, which the evaluation must survive all the same).
    fn random_boards<R: Rules>(seed: u64, count: usize, max: usize) -> Vec<Position<R>> {
        let mut rng = SplitMix(seed);
        let squares = R::Geometry::SQUARES;
        (0..count)
            .map(|_| {
                let mut sides = [0u64; 2];
                let mut kings = 0u64;
                let king_share = rng.below(4);
                for side in &mut sides {
                    for _ in 0..rng.below(max + 1) {
                        let bit = 1u64 << R::Geometry::BIT_OF[rng.below(squares)];
                        *side |= bit;
                        if rng.below(4) < king_share {
                            kings |= bit;
                        }
                    }
                }
                sides[1] &= !sides[0];
                kings &= sides[0] | sides[1];
                let side = if rng.below(2) == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                Position::from_parts(sides[0], sides[1], kings, side)
            })
            .collect()
    }

    fn start_scores_the_move_bonus<R: Rules>() {
        let start = Position::<R>::start();
        let w = weights::<R>();
        let other = start.with_side_to_move(start.side_to_move().opponent());
        // The start position turned half a turn with the colours swapped is itself, so
        // either side to move scores the same, by the weights or by a network.
        assert_eq!(evaluate(&start), evaluate(&other));
        if defaults::network_for(R::VARIANT).is_none() {
            assert_eq!(evaluate(&start), w.side_to_move);
        }
        assert_eq!(
            evaluate_with(&start, &busy_weights()),
            busy_weights().side_to_move
        );
    }

    fn colour_symmetric<R: Rules>() {
        let mut positions = playout_positions::<R>(0x5EED ^ R::VARIANT as u64, 60, 160);
        positions.extend(random_boards::<R>(7, 2000, R::Geometry::SQUARES / 2));
        let busy = busy_weights();
        for position in &positions {
            let mirror = flipped(position);
            // The board, kings and side to move come back; a Frisian position's count of
            // king moves in a row (which the evaluation does not read) is not carried over.
            let back = flipped(&mirror);
            let board = |p: &Position<R>| {
                (
                    p.pieces(Color::White),
                    p.pieces(Color::Black),
                    p.kings(),
                    p.side_to_move(),
                )
            };
            assert_eq!(board(&back), board(position));
            assert_eq!(evaluate(position), evaluate(&mirror), "{position:?}");
            assert_eq!(
                evaluate_with(position, &busy),
                evaluate_with(&mirror, &busy),
                "{position:?}"
            );
        }
    }

    /// Random men and king tables (every arrangement a weight of its own) keep the score
    /// colour-symmetric, and king tables change the score only where kings stand.
    fn king_tables_colour_symmetric<R: Rules>() {
        let family = pattern_family_of::<R>().expect("a variant with tables");
        let mut rng = SplitMix(0x4B1C);
        let mut random = || [rng.below(801) as i16 - 400, rng.below(801) as i16 - 400];
        let mut patterns = Patterns::zero(family, String::new()).with_king_tables();
        patterns
            .weights
            .iter_mut()
            .for_each(|pair| *pair = random());
        patterns.kings.iter_mut().for_each(|pair| *pair = random());
        let men_only = Patterns {
            kings: Vec::new(),
            ..patterns.clone()
        };
        let set = |patterns: Patterns| EvalSet {
            weights: *weights::<R>(),
            patterns: Some(std::sync::Arc::new(patterns)),
            network: None,
        };
        let (with_kings, without) = (set(patterns), set(men_only));
        let mut positions = playout_positions::<R>(0x4B, 30, 200);
        positions.extend(random_boards::<R>(11, 2000, R::Geometry::SQUARES / 2));
        let mut differ = 0;
        for position in &positions {
            let mirror = flipped(position);
            assert_eq!(
                with_kings.evaluate(position),
                with_kings.evaluate(&mirror),
                "{position:?}"
            );
            let (a, b) = (with_kings.evaluate(position), without.evaluate(position));
            if position.kings() == 0 {
                assert_eq!(a, b, "{position:?}");
            } else if a != b {
                differ += 1;
            }
        }
        assert!(
            differ > 100,
            "the king tables count where kings stand: {differ}"
        );
    }

    #[test]
    fn king_tables_colour_symmetric_english() {
        king_tables_colour_symmetric::<crate::rules::English>();
    }

    #[test]
    fn king_tables_colour_symmetric_international() {
        king_tables_colour_symmetric::<crate::rules::International>();
    }

    fn a_man_up_scores_positive<R: Rules>() {
        // Half a man at least by the weights and tables. A network's scores are its fitted
        // win chances put on the centi-man scale, and English's gives a man up at the start
        // 49 to 65 with either side to move: it is held to a positive score.
        let bar = if defaults::network_for(R::VARIANT).is_some() {
            0
        } else {
            50
        };
        let start = Position::<R>::start();
        for color in [Color::White, Color::Black] {
            let them = color.opponent();
            for bit in Bits(start.pieces(them)) {
                let mut pieces = [start.pieces(Color::White), start.pieces(Color::Black)];
                pieces[them.index()] &= !(1u64 << bit);
                for side in [color, them] {
                    let position = Position::<R>::from_parts(pieces[0], pieces[1], 0, side);
                    let score = evaluate(&position);
                    let ours = if side == color { score } else { -score };
                    assert!(ours > bar, "{position:?}: {ours}");
                }
            }
        }
    }

    fn a_king_beats_a_man<R: Rules>() {
        // Every man of the start position, and every man of playout positions that is not
        // within reach of promotion, is worth less than a king on its square.
        let mut positions = vec![Position::<R>::start()];
        positions.extend(playout_positions::<R>(99, 20, 120));
        for position in &positions {
            for color in [Color::White, Color::Black] {
                let far = (0..R::Geometry::SIZE - 1 - RUNAWAY_DISTANCES)
                    .map(|r| {
                        if Position::<R>::moves_up(color) {
                            R::Geometry::row_mask(R::Geometry::SIZE - 1 - r)
                        } else {
                            R::Geometry::row_mask(r)
                        }
                    })
                    .fold(0, |a, b| a | b);
                for bit in Bits(position.men(color) & far) {
                    let crowned = Position::<R>::from_parts(
                        position.pieces(Color::White),
                        position.pieces(Color::Black),
                        position.kings() | (1u64 << bit),
                        color,
                    );
                    let plain = position.with_side_to_move(color);
                    assert!(
                        evaluate(&crowned) > evaluate(&plain),
                        "{plain:?} vs {crowned:?}"
                    );
                }
            }
        }
    }

    /// Quiet positions with at most `max` pieces a side (one at least), men off the row
    /// where they would have been crowned, neither side with a capture pending.
    fn quiet_small_positions<R: Rules>(seed: u64, count: usize, max: usize) -> Vec<Position<R>> {
        let last_row = |color: Color| {
            if Position::<R>::moves_up(color) {
                R::Geometry::row_mask(0)
            } else {
                R::Geometry::row_mask(R::Geometry::SIZE - 1)
            }
        };
        random_boards::<R>(seed, count, max)
            .into_iter()
            .filter(|position| {
                let other = position.with_side_to_move(position.side_to_move().opponent());
                [Color::White, Color::Black].into_iter().all(|color| {
                    position.pieces(color) != 0 && position.men(color) & last_row(color) == 0
                }) && !position.has_capture()
                    && !other.has_capture()
            })
            .collect()
    }

    fn winning_material_raises_the_score<R: Rules>() {
        // What a player knows before any weight: in a quiet ending, taking one of the
        // opponent's pieces off the board (a man or a king) is good for the side to move, and
        // losing one of its own is bad. Checked on the whole evaluation, tables included,
        // where the drawish-material rule (a lead that rarely wins against kings counts
        // less, `drawish_divisor`) leaves both positions alone: that rule is knowledge too.
        let full_count = |position: &Position<R>| lead_divisors(position, weights::<R>()) == (1, 1);
        //
        // A network's score saturates where its fitted win chance is near certain (English's
        // won endings score 900 and more): among such positions its order is noise, so it is
        // held to the rule where both scores are within 500, and there in all but 1% of the
        // pairs (docs/nets.md, "What it does not know").
        let network = defaults::network_for(R::VARIANT).is_some();
        let positions = quiet_small_positions::<R>(0xC0FFEE ^ R::VARIANT as u64, 10_000, 5);
        assert!(positions.len() > 500, "{} positions", positions.len());
        let mut checked = 0;
        let mut wrong = Vec::new();
        for position in &positions {
            let us = position.side_to_move();
            let before = evaluate(position);
            for color in [us, us.opponent()] {
                for bit in Bits(position.pieces(color)) {
                    if position.pieces(color).count_ones() == 1 {
                        continue;
                    }
                    let after = position.without_piece(bit);
                    if !full_count(position) || !full_count(&after) {
                        continue;
                    }
                    let score = evaluate(&after);
                    if network && before.abs().max(score.abs()) >= 500 {
                        continue;
                    }
                    let right = if color == us {
                        score < before
                    } else {
                        score > before
                    };
                    if !right {
                        wrong.push(format!("{position:?}: {before} -> {after:?}: {score}"));
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked} removals");
        let allowed = if network { checked / 100 } else { 0 };
        assert!(
            wrong.len() <= allowed,
            "{} of {checked} removals scored the wrong way: {wrong:#?}",
            wrong.len()
        );
    }

    fn scores_stay_bounded<R: Rules>() {
        let full = R::START_ROWS * R::Geometry::PER_ROW;
        let mut positions = playout_positions::<R>(3, 30, 200);
        positions.extend(random_boards::<R>(11, 3000, full));
        // One side alone with all its pieces crowned.
        let start = Position::<R>::start();
        for color in [Color::White, Color::Black] {
            let pieces = start.pieces(color);
            let (white, black) = match color {
                Color::White => (pieces, 0),
                Color::Black => (0, pieces),
            };
            positions.push(Position::from_parts(white, black, pieces, color));
            positions.push(Position::from_parts(white, black, 0, color.opponent()));
        }
        for position in &positions {
            let score = evaluate(position);
            assert!(score.abs() < 12_000, "{position:?}: {score}");
        }
    }

    /// A module of tests a variant, each module with every generic check.
    macro_rules! variant_tests {
        ($($module:ident: $rules:ty,)*) => {$(
            mod $module {
                use super::*;

                crate::generic_tests! {
                    start_position_scores_the_side_to_move_bonus:
                        start_scores_the_move_bonus::<$rules>();
                    colour_flip_gives_the_same_score: colour_symmetric::<$rules>();
                    a_man_up_is_positive: a_man_up_scores_positive::<$rules>();
                    winning_material_in_a_quiet_ending_raises_the_score:
                        winning_material_raises_the_score::<$rules>();
                    scores_stay_well_inside_the_win_range: scores_stay_bounded::<$rules>();
                }
            }
        )*};
    }

    variant_tests! {
        english: English,
        international: International,
        brazilian: Brazilian,
        russian: Russian,
        pool: Pool,
        italian: Italian,
        spanish: Spanish,
        czech: Czech,
        frisian: Frisian,
        frysk: Frysk,
        towers: Towers,
    }

    // Crowning a man in place raises the score in the hand-set and fitted sets below.
    // Not asked of English: its fitted evaluation values a man on its own back row (which
    // keeps the opponent from crowning) above a king there in some endings, a judgement
    // the games it was fitted on support. Nor of Russian, Brazilian and Pool: their fitted
    // set puts the worth of a side's first king in `first_king` (343 + 74 in the endgame)
    // and leaves a second king in a quiet ending about level with an advanced man, because
    // in the games a side with one king had mostly won already. The fitted Italian set does
    // the same (a king 383 in the opening, 126 + 42 for the first in the endgame), and so do
    // the fitted Spanish and Czech tables where one side is far ahead (ten pieces against a
    // man: a second king scores below the man it was). What those sets are held to is
    // `winning_material_in_a_quiet_ending_raises_the_score` (issue 14, item 4).
    #[test]
    fn a_king_is_worth_more_than_a_man() {
        a_king_beats_a_man::<International>();
        a_king_beats_a_man::<Towers>();
    }

    #[test]
    fn masks_have_the_expected_squares() {
        use crate::board::{Board8, Board10};
        let squares = |set: Bitboard, squares_of: &[u8; 64]| -> Vec<u8> {
            Bits(set).map(|b| squares_of[b as usize] + 1).collect()
        };
        assert_eq!(
            squares(Board8::CENTRE, &Board8::SQUARE_OF),
            [14, 15, 18, 19]
        );
        assert_eq!(
            squares(Board10::CENTRE, &Board10::SQUARE_OF),
            [22, 23, 24, 27, 28, 29]
        );
        assert_eq!(
            squares(Board8::MAIN_DIAGONAL, &Board8::SQUARE_OF),
            [4, 8, 11, 15, 18, 22, 25, 29]
        );
        assert_eq!(
            squares(Board10::MAIN_DIAGONAL, &Board10::SQUARE_OF),
            [5, 10, 14, 19, 23, 28, 32, 37, 41, 46]
        );
        assert_eq!(Board8::KING_CENTRE.count_ones(), 8);
        assert_eq!(Board10::KING_CENTRE.count_ones(), 8);
        assert_eq!(Board8::LEFT | Board8::RIGHT, Board8::BOARD);
        assert_eq!(Board8::LEFT & Board8::RIGHT, 0);
        assert_eq!(Board10::LEFT.count_ones(), 25);
        for r in 0..10 {
            assert_eq!(Board10::ROWS[r], Board10::row_mask(r));
        }
        for r in 0..8 {
            assert_eq!(Board8::ROWS[r], Board8::row_mask(r));
        }
        assert_eq!(Board8::ROWS[8] | Board8::ROWS[9], 0);
    }
}
