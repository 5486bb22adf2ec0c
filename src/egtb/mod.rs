//! Endgame tables: exact distance-to-end values of every position with few pieces, split into material slices with a perfect index.
//!
//! A table holds, for every position of one *material slice* (white men, white kings, black
//! men, black kings) with White to move, the value under the variant's move rules alone: the
//! side with no legal move has lost, and nothing else ends a game (no repetition, move-count
//! or small-endgame draws; the search applies those). A value is `Win(n)` / `Loss(n)`: the
//! game ends after exactly `n` plies with best play (the winner hurries, the loser delays),
//! counted across captures and promotions into other slices, or `Draw` when neither side can
//! force an end. Playing a move to a `Loss(n - 1)` successor from every `Win(n)` position
//! therefore wins in `n` plies against any defence: the distance is the progress guarantee.
//!
//! Positions with Black to move are looked up as their colour-reversed twin (the board
//! turned by 180 degrees and the colours swapped, which every supported rule set treats
//! alike), so each slice stores White to move only.
//!
//! Index of a slice (perfect: every index is a legal placement and every legal placement has
//! one index): white men are ranked over the squares they may stand on (not their promotion
//! row), black men over theirs minus the white men, then white kings and black kings over
//! what is left. Ranks are combinatorial (colex); the number of black-men placements depends
//! on how many white men stand on black-man squares, so a prefix table over white-men ranks
//! gives each its offset.

pub mod cache;
pub mod file;
pub mod generate;
pub mod probe;
pub mod units;
pub mod verify;

use crate::board::{Bitboard, Bits, Geometry};
use crate::position::Position;
use crate::rules::{Color, Rules, Variant};
use std::fmt;

/// The most pieces a slice may hold (binomial tables and value ranges are sized for it).
pub const MAX_PIECES: usize = 8;

/// The game-theoretic value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins; the game ends after exactly this many plies with best play.
    Win(u32),
    /// The side to move loses after exactly this many plies with best play (`Loss(0)`: no
    /// legal move now).
    Loss(u32),
    /// Neither side can force the end of the game.
    Draw,
    /// The side to move wins, by a win/draw/loss table: how soon is not stored.
    Won,
    /// The side to move loses, by a win/draw/loss table: how soon is not stored.
    Lost,
}

/// What a slice stores for each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// The distance to the end in plies ([`Value::Win`], [`Value::Loss`], [`Value::Draw`]),
    /// one code of [`Value::code`] a position.
    Distance,
    /// Win, draw or loss only ([`Value::Won`], [`Value::Lost`], [`Value::Draw`]): the code
    /// [`WDL_LOST`], [`WDL_WON`] or 0 a position. A slice whose distances are not needed (or
    /// would not fit a byte) codes far longer runs this way.
    WinDrawLoss,
}

/// The code of a lost position in a win/draw/loss slice: the code of `Loss(0)`, so that the
/// generator, reading it as a distance, takes a win/draw/loss successor as the quickest
/// possible end (the parent's distances are then counted to the conversion into it).
pub const WDL_LOST: u8 = 1;
/// The code of a won position in a win/draw/loss slice: the code of `Win(1)` (see
/// [`WDL_LOST`]).
pub const WDL_WON: u8 = 2;

impl ValueKind {
    /// The value of a code of a slice of this kind.
    #[inline]
    pub fn value(self, code: u8) -> Value {
        match self {
            ValueKind::Distance => Value::from_code(code),
            ValueKind::WinDrawLoss => match code {
                0 => Value::Draw,
                c if c % 2 == 1 => Value::Lost,
                _ => Value::Won,
            },
        }
    }

    /// The code of `value` in a slice of this kind (`None`: a distance past what a code
    /// holds, or a value without distance in a distance slice).
    #[inline]
    pub fn code(self, value: Value) -> Option<u8> {
        match (self, value) {
            (_, Value::Draw) => Some(0),
            (ValueKind::WinDrawLoss, Value::Win(_) | Value::Won) => Some(WDL_WON),
            (ValueKind::WinDrawLoss, Value::Loss(_) | Value::Lost) => Some(WDL_LOST),
            (ValueKind::Distance, _) => value.code(),
        }
    }

    /// The code a win/draw/loss slice stores for a distance code of the generator: 0, or
    /// [`WDL_LOST`] for a loss (odd), [`WDL_WON`] for a win (even).
    #[inline]
    pub fn wdl_code(code: u8) -> u8 {
        match code {
            0 => 0,
            c if c % 2 == 1 => WDL_LOST,
            _ => WDL_WON,
        }
    }

    /// `distance` or `win/draw/loss`, as `damka egtb status` and the docs name the kinds.
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::Distance => "distance",
            ValueKind::WinDrawLoss => "win/draw/loss",
        }
    }
}

impl Value {
    /// The value, for the side that moved, of a move leading to a position worth `self`.
    pub fn for_parent(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
            Value::Won => Value::Lost,
            Value::Lost => Value::Won,
        }
    }

    /// True for a win of the side to move, with or without its distance.
    pub fn is_win(self) -> bool {
        matches!(self, Value::Win(_) | Value::Won)
    }

    /// True for a loss of the side to move, with or without its distance.
    pub fn is_loss(self) -> bool {
        matches!(self, Value::Loss(_) | Value::Lost)
    }

    /// The distance to the end in plies, when known (a win or loss of a distance table).
    pub fn distance(self) -> Option<u32> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            _ => None,
        }
    }

    /// The one-byte code of a value: 0 for a draw, `n + 1` for a win or loss in `n` plies
    /// (wins have odd `n`, losses even, so the parity tells them apart). `None` past 254.
    pub fn code(self) -> Option<u8> {
        match self {
            Value::Draw => Some(0),
            Value::Win(n) | Value::Loss(n) => u8::try_from(n + 1).ok().filter(|&c| c < 255),
            Value::Won | Value::Lost => None,
        }
    }

    /// The value of a code written by [`Value::code`].
    pub fn from_code(code: u8) -> Value {
        match code {
            0 => Value::Draw,
            c => {
                let n = u32::from(c) - 1;
                if n % 2 == 1 {
                    Value::Win(n)
                } else {
                    Value::Loss(n)
                }
            }
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn wdl(self) -> &'static str {
        match self {
            Value::Win(_) | Value::Won => "win",
            Value::Loss(_) | Value::Lost => "loss",
            Value::Draw => "draw",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n} plies"),
            Value::Loss(n) => write!(f, "loss in {n} plies"),
            Value::Draw => f.write_str("draw"),
            Value::Won => f.write_str("win (distance not stored)"),
            Value::Lost => f.write_str("loss (distance not stored)"),
        }
    }
}

/// The pieces of a slice, White to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// White men.
    pub white_men: u8,
    /// White kings.
    pub white_kings: u8,
    /// Black men.
    pub black_men: u8,
    /// Black kings.
    pub black_kings: u8,
}

impl Material {
    /// A material from its four counts.
    pub const fn new(white_men: u8, white_kings: u8, black_men: u8, black_kings: u8) -> Self {
        Material {
            white_men,
            white_kings,
            black_men,
            black_kings,
        }
    }

    /// All pieces.
    pub fn total(&self) -> usize {
        usize::from(self.white_men + self.white_kings + self.black_men + self.black_kings)
    }

    /// All men.
    pub fn men(&self) -> usize {
        usize::from(self.white_men + self.black_men)
    }

    /// The colour-reversed material (the twin with the other side to move).
    pub fn flipped(&self) -> Material {
        Material::new(
            self.black_men,
            self.black_kings,
            self.white_men,
            self.white_kings,
        )
    }

    /// The file-name stem, e.g. `w1m2k-b0m1k` style: `wm1wk2bm0bk1`.
    pub fn name(&self) -> String {
        format!(
            "wm{}wk{}bm{}bk{}",
            self.white_men, self.white_kings, self.black_men, self.black_kings
        )
    }

    /// Parses [`Material::name`].
    pub fn parse(text: &str) -> Option<Material> {
        let rest = text.strip_prefix("wm")?;
        let (wm, rest) = rest.split_once("wk")?;
        let (wk, rest) = rest.split_once("bm")?;
        let (bm, bk) = rest.split_once("bk")?;
        Some(Material::new(
            wm.parse().ok()?,
            wk.parse().ok()?,
            bm.parse().ok()?,
            bk.parse().ok()?,
        ))
    }

    /// Every material with both sides present and at most `max_pieces` pieces that fits the
    /// board of `R`, in generation order: fewer pieces first, then fewer men (captures and
    /// promotions only ever lead to slices earlier in this order, or to the twin).
    pub fn all<R: Rules>(max_pieces: usize) -> Vec<Material> {
        let squares = R::Geometry::SQUARES;
        let man_squares = squares - R::Geometry::PER_ROW;
        let mut all = Vec::new();
        let max = max_pieces.min(MAX_PIECES) as u8;
        for wm in 0..=max {
            for wk in 0..=max - wm {
                for bm in 0..=max - wm - wk {
                    for bk in 0..=max - wm - wk - bm {
                        let m = Material::new(wm, wk, bm, bk);
                        if wm + wk == 0 || bm + bk == 0 {
                            continue;
                        }
                        if usize::from(wm) > man_squares
                            || usize::from(bm) > man_squares
                            || m.total() > squares
                        {
                            continue;
                        }
                        all.push(m);
                    }
                }
            }
        }
        all.sort_by_key(|m| (m.total(), m.men(), *m));
        all
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Binomial coefficients C(n, k) for n < 64, k <= MAX_PIECES.
const BINOMIAL: [[u64; MAX_PIECES + 1]; 65] = {
    let mut table = [[0u64; MAX_PIECES + 1]; 65];
    let mut n = 0;
    while n < 65 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= MAX_PIECES {
            table[n][k] = if n == 0 {
                0
            } else {
                table[n - 1][k - 1] + table[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    table
};

/// C(n, k).
#[inline(always)]
pub fn binomial(n: usize, k: usize) -> u64 {
    BINOMIAL[n][k]
}

/// The colex rank of a set of squares among the squares of `allowed` (the set must lie
/// within `allowed`; both are square-index masks).
#[inline(always)]
fn rank_within(set: u64, allowed: u64) -> u64 {
    let mut rank = 0;
    for (i, square) in Bits(set).enumerate() {
        let below = (allowed & ((1u64 << square) - 1)).count_ones() as usize;
        rank += binomial(below, i + 1);
    }
    rank
}

/// The set of `k` squares of `allowed` with colex rank `rank`.
#[inline]
fn unrank_within(mut rank: u64, k: usize, allowed: u64) -> u64 {
    let available = allowed.count_ones() as usize;
    let mut positions = [0usize; MAX_PIECES];
    let mut top = available;
    for i in (1..=k).rev() {
        // The largest c < top with C(c, i) <= rank.
        let mut c = top - 1;
        while binomial(c, i) > rank {
            c -= 1;
        }
        rank -= binomial(c, i);
        positions[i - 1] = c;
        top = c;
    }
    let mut set = 0;
    let mut next = 0;
    for (seen, square) in Bits(allowed).enumerate() {
        if next == k {
            break;
        }
        if seen == positions[next] {
            set |= 1u64 << square;
            next += 1;
        }
    }
    set
}

/// A position of a slice as four square-index masks (squares numbered 0 to SQUARES - 1 in
/// PDN order), White to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Placement {
    /// White men.
    pub white_men: u64,
    /// White kings.
    pub white_kings: u64,
    /// Black men.
    pub black_men: u64,
    /// Black kings.
    pub black_kings: u64,
}

/// Square-index mask of a ghost-layout bitboard. On a board with ghost bits (one after
/// every two rows) each two rows' squares are one run of bits, moved by one shift.
#[inline(always)]
pub fn squares_of<G: Geometry>(bits: Bitboard) -> u64 {
    relaid::<G>(bits, &G::SQUARE_OF, 1, 0)
}

/// Ghost-layout bitboard of a square-index mask (see [`squares_of`]).
#[inline(always)]
pub fn bits_of<G: Geometry>(squares: u64) -> Bitboard {
    relaid::<G>(squares, &G::BIT_OF, 0, 1)
}

/// `set` moved from one layout to the other: on a board without ghost bits (Turkish's) bit
/// by bit through `table`; else two rows at a time, the run of two rows' squares of group
/// `g` moved from bit `g * (pair + from_gap)` to bit `g * (pair + to_gap)`, where a gap of 1
/// is the ghost layout's and 0 the square indices'.
#[inline(always)]
fn relaid<G: Geometry>(set: u64, table: &[u8; 64], from_gap: usize, to_gap: usize) -> u64 {
    let mut moved = 0;
    if G::PER_ROW == G::SIZE {
        for index in Bits(set) {
            moved |= 1u64 << table[index as usize];
        }
        return moved;
    }
    let pair = 2 * G::PER_ROW;
    let run = (1u64 << pair) - 1;
    for group in 0..G::SQUARES / pair {
        moved |= ((set >> (group * (pair + from_gap))) & run) << (group * (pair + to_gap));
    }
    moved
}

/// The square mask turned by 180 degrees (square s becomes SQUARES - 1 - s).
#[inline(always)]
pub fn turned(squares: u64, count: usize) -> u64 {
    squares.reverse_bits() >> (64 - count)
}

impl Placement {
    /// The placement of a position from the side to move's point of view (turned and
    /// colour-swapped when Black moves), so that the mover is "White".
    #[inline]
    pub fn of<R: Rules>(position: &Position<R>) -> Placement {
        type G<R> = <R as Rules>::Geometry;
        let wm = squares_of::<G<R>>(position.men(Color::White));
        let wk = squares_of::<G<R>>(position.kings_of(Color::White));
        let bm = squares_of::<G<R>>(position.men(Color::Black));
        let bk = squares_of::<G<R>>(position.kings_of(Color::Black));
        match position.side_to_move() {
            Color::White => Placement {
                white_men: wm,
                white_kings: wk,
                black_men: bm,
                black_kings: bk,
            },
            Color::Black => {
                let n = G::<R>::SQUARES;
                Placement {
                    white_men: turned(bm, n),
                    white_kings: turned(bk, n),
                    black_men: turned(wm, n),
                    black_kings: turned(wk, n),
                }
            }
        }
    }

    /// The position with White to move.
    pub fn position<R: Rules>(&self) -> Position<R> {
        type G<R> = <R as Rules>::Geometry;
        let white = bits_of::<G<R>>(self.white_men | self.white_kings);
        let black = bits_of::<G<R>>(self.black_men | self.black_kings);
        let kings = bits_of::<G<R>>(self.white_kings | self.black_kings);
        Position::from_parts(white, black, kings, Color::White)
    }

    /// The squares as 6-bit numbers, white men first, then white kings, black men and black
    /// kings, each set from its lowest square (48 bits for 8 pieces); [`Placement::unpack`]
    /// reads it back given the material.
    #[inline]
    pub fn pack(&self) -> u64 {
        let mut code = 0;
        let mut shift = 0;
        for set in [
            self.white_men,
            self.white_kings,
            self.black_men,
            self.black_kings,
        ] {
            for square in Bits(set) {
                code |= u64::from(square) << shift;
                shift += 6;
            }
        }
        code
    }

    /// The placement of [`Placement::pack`]'s code for a slice of `material`.
    #[inline]
    pub fn unpack(mut code: u64, material: Material) -> Placement {
        let mut sets = [0u64; 4];
        let counts = [
            material.white_men,
            material.white_kings,
            material.black_men,
            material.black_kings,
        ];
        for (set, &count) in sets.iter_mut().zip(&counts) {
            for _ in 0..count {
                *set |= 1u64 << (code & 63);
                code >>= 6;
            }
        }
        Placement {
            white_men: sets[0],
            white_kings: sets[1],
            black_men: sets[2],
            black_kings: sets[3],
        }
    }

    /// The material.
    pub fn material(&self) -> Material {
        Material::new(
            self.white_men.count_ones() as u8,
            self.white_kings.count_ones() as u8,
            self.black_men.count_ones() as u8,
            self.black_kings.count_ones() as u8,
        )
    }
}

/// What every index of a slice or part shares past the men's ranks: a block for each
/// white-men rank (a prefix table, since how many black-men placements there are depends on
/// the white men), within it one for each black-men rank, and within that the kings:
/// white kings ranked (colex) over the squares the men leave, black kings over the rest.
#[derive(Clone, Debug)]
struct Blocks {
    material: Material,
    all_squares: u64,
    /// Start of each white-men rank's block of men placements (one more entry than ranks).
    men_offsets: Vec<u64>,
    kings_factor: u64,
    black_kings_factor: u64,
}

impl Blocks {
    /// The blocks of `material` on a board of `squares` squares, given how many black-men
    /// placements each white-men rank leaves.
    fn new(material: Material, squares: usize, black_counts: impl Iterator<Item = u64>) -> Blocks {
        let mut men_offsets = vec![0];
        let mut total = 0u64;
        for count in black_counts {
            total += count;
            men_offsets.push(total);
        }
        let men = usize::from(material.white_men + material.black_men);
        let wk = usize::from(material.white_kings);
        let bk = usize::from(material.black_kings);
        let black_kings_factor = binomial(squares - men - wk, bk);
        Blocks {
            material,
            all_squares: (1u64 << squares) - 1,
            men_offsets,
            kings_factor: binomial(squares - men, wk) * black_kings_factor,
            black_kings_factor,
        }
    }

    /// Positions in all the blocks.
    fn size(&self) -> u64 {
        self.men_offsets.last().copied().unwrap_or(0) * self.kings_factor
    }

    /// The index of a placement whose men have ranks `white_rank` and `black_rank`.
    #[inline]
    fn index(&self, p: &Placement, white_rank: u64, black_rank: u64) -> u64 {
        let free = self.all_squares & !(p.white_men | p.black_men);
        let wk_rank = rank_within(p.white_kings, free);
        let bk_rank = rank_within(p.black_kings, free & !p.white_kings);
        (self.men_offsets[white_rank as usize] + black_rank) * self.kings_factor
            + wk_rank * self.black_kings_factor
            + bk_rank
    }

    /// The white-men rank, black-men rank and kings' rank of an index.
    fn ranks(&self, index: u64) -> (u64, u64, u64) {
        let men_index = index / self.kings_factor;
        let white_rank = self
            .men_offsets
            .partition_point(|&start| start <= men_index)
            - 1;
        (
            white_rank as u64,
            men_index - self.men_offsets[white_rank],
            index % self.kings_factor,
        )
    }

    /// The placement of given men and a kings' rank.
    fn placement(&self, white_men: u64, black_men: u64, kings_rank: u64) -> Placement {
        let m = self.material;
        let free = self.all_squares & !(white_men | black_men);
        let white_kings = unrank_within(
            kings_rank / self.black_kings_factor,
            usize::from(m.white_kings),
            free,
        );
        let black_kings = unrank_within(
            kings_rank % self.black_kings_factor,
            usize::from(m.black_kings),
            free & !white_kings,
        );
        Placement {
            white_men,
            white_kings,
            black_men,
            black_kings,
        }
    }
}

/// The perfect index of one slice.
#[derive(Clone, Debug)]
pub struct Indexer {
    blocks: Blocks,
    white_man_squares: u64,
    black_man_squares: u64,
    size: u64,
}

impl Indexer {
    /// The index of `material` on the board of `R`.
    pub fn new<R: Rules>(material: Material) -> Indexer {
        let squares = R::Geometry::SQUARES;
        let per_row = R::Geometry::PER_ROW;
        let all_squares = (1u64 << squares) - 1;
        // White's men move up (towards square 1 = index 0) in every variant with tables;
        // they are crowned on the first row and Black's on the last.
        debug_assert!(R::WHITE_MOVES_UP);
        let first_row = (1u64 << per_row) - 1;
        let last_row = first_row << (squares - per_row);
        let white_man_squares = all_squares & !first_row;
        let black_man_squares = all_squares & !last_row;
        let wm = usize::from(material.white_men);
        let bm = usize::from(material.black_men);
        let white_ranks = binomial(white_man_squares.count_ones() as usize, wm);
        let black_counts = (0..white_ranks).map(|rank| {
            let white = unrank_within(rank, wm, white_man_squares);
            binomial((black_man_squares & !white).count_ones() as usize, bm)
        });
        let blocks = Blocks::new(material, squares, black_counts);
        Indexer {
            size: blocks.size(),
            blocks,
            white_man_squares,
            black_man_squares,
        }
    }

    /// The slice.
    pub fn material(&self) -> Material {
        self.blocks.material
    }

    /// Positions in the slice (legal placements, White to move).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Positions that share one placement of the men (the placements of the kings on the
    /// squares the men leave): consecutive indexes, the men's placement being the index
    /// divided by this.
    pub fn unit_size(&self) -> u64 {
        self.blocks.kings_factor
    }

    /// The index of a placement of this slice.
    #[inline]
    pub fn index(&self, p: &Placement) -> u64 {
        let white_rank = rank_within(p.white_men, self.white_man_squares);
        let black_rank = rank_within(p.black_men, self.black_man_squares & !p.white_men);
        self.blocks.index(p, white_rank, black_rank)
    }

    /// The placement with index `index` (below [`Indexer::size`]).
    pub fn placement(&self, index: u64) -> Placement {
        let (white_rank, black_rank, kings_rank) = self.blocks.ranks(index);
        let m = self.blocks.material;
        let white_men = unrank_within(white_rank, usize::from(m.white_men), self.white_man_squares);
        let black_men = unrank_within(
            black_rank,
            usize::from(m.black_men),
            self.black_man_squares & !white_men,
        );
        self.blocks.placement(white_men, black_men, kings_rank)
    }
}

/// The colex successor of `set` among the sets of as many squares of `allowed` (both
/// square-index masks), or `None` after the last one. Adding the lowest square with every
/// square outside `allowed` set carries through the lowest run of `set` to the next free
/// square of `allowed`; the rest of the run goes back to the lowest squares of `allowed`.
#[inline(always)]
fn next_within(set: u64, allowed: u64) -> Option<u64> {
    if set == 0 {
        return None;
    }
    let low = set & set.wrapping_neg();
    let (sum, overflow) = (set | !allowed).overflowing_add(low);
    if overflow {
        return None;
    }
    let raised = sum & allowed;
    let run = (set & !raised).count_ones();
    Some(raised | lowest_within(run - 1, allowed))
}

/// The `k` lowest squares of `allowed` (the colex-first set).
#[inline(always)]
fn lowest_within(k: u32, allowed: u64) -> u64 {
    let mut rest = allowed;
    let mut set = 0;
    for _ in 0..k {
        let low = rest & rest.wrapping_neg();
        set |= low;
        rest ^= low;
    }
    set
}

/// The placements of a slice in index order from a given index on, each found from the one
/// before by a colex step of its last set (black kings, then white kings, black men, white
/// men), which costs a few instructions where [`Indexer::placement`] unranks all four.
#[derive(Clone, Debug)]
pub struct Walker<'a> {
    indexer: &'a Indexer,
    current: Placement,
}

impl<'a> Walker<'a> {
    /// A walk that starts at `index` (below [`Indexer::size`]).
    pub fn new(indexer: &'a Indexer, index: u64) -> Walker<'a> {
        Walker {
            indexer,
            current: indexer.placement(index),
        }
    }

    /// The placement at the walk's index.
    #[inline(always)]
    pub fn placement(&self) -> &Placement {
        &self.current
    }

    /// Moves to the next index; `false` after the last placement of the slice.
    #[inline]
    pub fn advance(&mut self) -> bool {
        let ix = self.indexer;
        let (m, all_squares) = (ix.blocks.material, ix.blocks.all_squares);
        let p = &mut self.current;
        if next_kings(p, all_squares, m) {
            return true;
        }
        let black_allowed = ix.black_man_squares & !p.white_men;
        if let Some(bm) = next_within(p.black_men, black_allowed) {
            p.black_men = bm;
        } else if let Some(wm) = next_within(p.white_men, ix.white_man_squares) {
            p.white_men = wm;
            p.black_men = lowest_within(u32::from(m.black_men), ix.black_man_squares & !wm);
        } else {
            return false;
        }
        first_kings(p, all_squares, m);
        true
    }
}

/// Moves the kings of a placement to their colex successor over the squares its men leave
/// (black kings first, then white kings with the black kings back on their first squares);
/// false when they were the last, and then unchanged.
#[inline(always)]
fn next_kings(p: &mut Placement, all_squares: u64, material: Material) -> bool {
    let free = all_squares & !(p.white_men | p.black_men);
    if let Some(bk) = next_within(p.black_kings, free & !p.white_kings) {
        p.black_kings = bk;
        return true;
    }
    if let Some(wk) = next_within(p.white_kings, free) {
        p.white_kings = wk;
        p.black_kings = lowest_within(u32::from(material.black_kings), free & !wk);
        return true;
    }
    false
}

/// Puts the kings of a placement on their colex-first squares over what its men leave.
#[inline(always)]
fn first_kings(p: &mut Placement, all_squares: u64, material: Material) {
    let free = all_squares & !(p.white_men | p.black_men);
    p.white_kings = lowest_within(u32::from(material.white_kings), free);
    p.black_kings = lowest_within(u32::from(material.black_kings), free & !p.white_kings);
}

/// The directory the tables live in when no other is named: `$XDG_DATA_HOME/damka/egtb`,
/// else `~/.local/share/damka/egtb` (the XDG Base Directory default), on Windows
/// `%LOCALAPPDATA%\damka\egtb`. `damka egtb gen` writes there by default and the engine
/// reads it at start (`EGTBPath` names another). `None` when the environment names no home.
pub fn default_dir() -> Option<std::path::PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(std::path::PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    let tail = |base: std::path::PathBuf| base.join("damka").join("egtb");
    if let Some(data) = absolute("XDG_DATA_HOME") {
        return Some(tail(data));
    }
    if cfg!(windows)
        && let Some(local) = absolute("LOCALAPPDATA")
    {
        return Some(tail(local));
    }
    absolute("HOME").map(|home| tail(home.join(".local").join("share")))
}

/// The table family of a variant: the directory name its files live under, or `None` for
/// a variant without tables: towers (captures are optional, so the capture rule the
/// generator relies on does not hold) and the variants whose goal is not "the side left
/// without a move loses" (antidraughts, breakthrough), which the values assume, and Frisian
/// and frysk!, whose limit on a king's moves in a row depends on the moves before the
/// position, which a table index does not hold, and Turkish, whose orthogonal moves the
/// generator's diagonal un-moves do not know. Every other
/// variant has its own family: their endgame rules differ (board size, flying kings, men
/// capturing backwards or kings, the capture precedence, crowning in a capture).
pub fn family(variant: Variant) -> Option<&'static str> {
    let usable = crate::with_variant!(variant, R => {
        matches!(<R as Rules>::GOAL, crate::rules::Goal::Normal)
            && <R as Rules>::CAPTURE_COMPULSORY
            && <R as Rules>::KING_MOVE_LIMIT == 0
            && !<R as Rules>::ROOK_MOVES
    });
    usable.then(|| variant.name())
}

/// Placements with exactly `pieces` pieces, both colours' pieces counted (either side may
/// have none), for the published totals of checkers positions.
pub fn positions_with<R: Rules>(pieces: usize) -> u64 {
    let man_squares = R::Geometry::SQUARES - R::Geometry::PER_ROW;
    let n = pieces as u8;
    let mut total = 0;
    for wm in 0..=n {
        for wk in 0..=n - wm {
            for bm in 0..=n - wm - wk {
                let bk = n - wm - wk - bm;
                if usize::from(wm) > man_squares || usize::from(bm) > man_squares {
                    continue;
                }
                total += Indexer::new::<R>(Material::new(wm, wk, bm, bk)).size();
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International};

    fn round_trip<R: Rules>(material: Material) {
        let indexer = Indexer::new::<R>(material);
        let step = (indexer.size() / 2000).max(1);
        let mut index = 0;
        while index < indexer.size() {
            let p = indexer.placement(index);
            assert_eq!(p.material(), material);
            assert_eq!(indexer.index(&p), index, "{material} {index}");
            index += step;
        }
    }

    /// Runs a check on every English material of up to four pieces, then on every
    /// international one of up to three.
    fn on_small_materials(english: fn(Material), international: fn(Material)) {
        Material::all::<English>(4).into_iter().for_each(english);
        Material::all::<International>(3)
            .into_iter()
            .for_each(international);
    }

    #[test]
    fn index_round_trips() {
        on_small_materials(round_trip::<English>, round_trip::<International>);
    }

    fn walk<R: Rules>(material: Material) {
        let indexer = Indexer::new::<R>(material);
        let mut walker = Walker::new(&indexer, 0);
        let mut index = 0;
        loop {
            if index % 97 == 0 || index + 5 > indexer.size() {
                assert_eq!(
                    *walker.placement(),
                    indexer.placement(index),
                    "{material} {index}"
                );
            }
            index += 1;
            if !walker.advance() {
                break;
            }
        }
        assert_eq!(index, indexer.size(), "{material}");
    }

    #[test]
    fn packs_and_square_maps_round_trip() {
        for m in Material::all::<International>(4) {
            let indexer = Indexer::new::<International>(m);
            let step = (indexer.size() / 300).max(1);
            let mut index = 0;
            while index < indexer.size() {
                let p = indexer.placement(index);
                assert_eq!(Placement::unpack(p.pack(), m), p);
                let position = p.position::<International>();
                assert_eq!(Placement::of(&position), p);
                index += step;
            }
        }
        type G = <English as Rules>::Geometry;
        for square in 0..32 {
            assert_eq!(bits_of::<G>(1 << square), 1 << G::BIT_OF[square]);
            assert_eq!(squares_of::<G>(1 << G::BIT_OF[square]), 1 << square);
        }
    }

    #[test]
    fn walks_follow_the_index() {
        on_small_materials(walk::<English>, walk::<International>);
    }

    #[test]
    fn only_variants_where_no_move_loses_have_tables() {
        assert_eq!(family(Variant::English), Some("english"));
        assert_eq!(family(Variant::International), Some("international"));
        assert_eq!(family(Variant::Towers), None);
        assert_eq!(family(Variant::Antidraughts), None);
        assert_eq!(family(Variant::Breakthrough), None);
    }

    #[test]
    fn codes_round_trip() {
        for v in [Value::Draw, Value::Win(1), Value::Loss(0), Value::Win(253)] {
            assert_eq!(Value::from_code(v.code().unwrap()), v);
        }
        assert_eq!(Value::Loss(254).code(), None);
    }
}
