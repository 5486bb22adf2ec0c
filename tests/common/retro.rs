//! A retrograde endgame solver for tests: the exact game-theoretic value (win or loss in n plies, or draw) of every position with few pieces.
//!
//! Values are from the side to move's point of view and follow the rules of the variant
//! only: the side to move with no legal move has lost, and nothing else ends a game (no
//! repetition or move-count draws), so a position neither side can force to an end is a
//! draw. `Win(n)`: the side to move can make the game end in its favour after exactly `n`
//! plies against any defence and not sooner against the best defence; `Loss(n)` likewise.
//!
//! The positions are split by material (men and kings of each side). A move either stays
//! within its material (a step that does not crown) or leaves it for good (a capture removes
//! pieces, a crowning turns a man into a king), so materials are solved one at a time, fewer
//! pieces first and, among equal totals, fewer men first: every material a move leaves for is
//! then already solved. Within a material the solver is the classical retrograde analysis
//! (Ströhlein 1970; Thompson 1986): one forward pass with the library's move generator seeds
//! the positions whose value follows from other materials or from having no move, then a
//! bucket queue ordered by distance propagates values backwards through un-moves. Un-moves
//! are generated here (a step taken back), not by the library; a mismatch with the library's
//! steps shows up as a counter going below zero (a panic) or as an inconsistency that the
//! tests in `tests/retro.rs` check against the library's forward moves.
//!
//! Each material has a dense index: one combinatorial rank per group of identical pieces
//! (white men, white kings, black men, black kings) over the squares that group may stand on,
//! times the side to move. Slots whose groups overlap are invalid and stay unused; that wastes
//! a few percent but needs no hash map, so a value costs two bytes.

use damka::board::{Bitboard, Bits, Dir, Geometry};
use damka::notation::fen::write_fen;
use damka::rules::{English, International, Russian};
use damka::{Color, Position, Rules};
use std::collections::{BinaryHeap, HashMap};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The game-theoretic value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins; the opponent is left without a move after exactly this many
    /// plies with best play (the winner hurries, the loser delays).
    Win(u32),
    /// The side to move loses after exactly this many plies with best play; `Loss(0)`: it
    /// has no legal move now.
    Loss(u32),
    /// Neither side can force the end of the game.
    Draw,
}

impl Value {
    /// The value, for the side that moved, of a move leading to a position worth `self` for
    /// the side then to move.
    pub fn for_parent(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Plies to the end of the game, for a win or a loss.
    pub fn distance(self) -> Option<u32> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw => None,
        }
    }

    /// True for a win of the side to move.
    pub fn is_win(self) -> bool {
        matches!(self, Value::Win(_))
    }

    /// True for a loss of the side to move.
    pub fn is_loss(self) -> bool {
        matches!(self, Value::Loss(_))
    }

    /// A total order from the side to move's point of view: worse values first (quick losses,
    /// slow losses, draws, slow wins, quick wins). Sorting samples by it keeps them readable.
    pub fn preference(self) -> i64 {
        match self {
            Value::Loss(n) => -1_000_000 + i64::from(n),
            Value::Draw => 0,
            Value::Win(n) => 1_000_000 - i64::from(n),
        }
    }
}

// Stored values, two bytes each.
const INVALID: u16 = u16::MAX;
const DRAW: u16 = 0;

fn encode(value: Value) -> u16 {
    match value {
        Value::Draw => DRAW,
        Value::Win(n) => 1 + 2 * u16::try_from(n).expect("distance fits the encoding"),
        Value::Loss(n) => 2 + 2 * u16::try_from(n).expect("distance fits the encoding"),
    }
}

fn decode(code: u16) -> Option<Value> {
    match code {
        INVALID => None,
        DRAW => Some(Value::Draw),
        odd if odd % 2 == 1 => Some(Value::Win(u32::from(odd / 2))),
        even => Some(Value::Loss(u32::from(even / 2 - 1))),
    }
}

/// The pieces of each kind on the board.
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
    fn of_bits(white: Bitboard, black: Bitboard, kings: Bitboard) -> Self {
        Material {
            white_men: (white & !kings).count_ones() as u8,
            white_kings: (white & kings).count_ones() as u8,
            black_men: (black & !kings).count_ones() as u8,
            black_kings: (black & kings).count_ones() as u8,
        }
    }

    /// Pieces on the board.
    pub fn total(&self) -> usize {
        self.men() + self.kings()
    }

    /// Men of both sides.
    pub fn men(&self) -> usize {
        usize::from(self.white_men) + usize::from(self.black_men)
    }

    /// Kings of both sides.
    pub fn kings(&self) -> usize {
        usize::from(self.white_kings) + usize::from(self.black_kings)
    }

    fn counts(&self) -> [usize; 4] {
        [
            usize::from(self.white_men),
            usize::from(self.white_kings),
            usize::from(self.black_men),
            usize::from(self.black_kings),
        ]
    }

    /// `KKM v K`: White's kings then men, against Black's; `-` for a side with nothing.
    pub fn name(&self) -> String {
        let side = |kings: u8, men: u8| {
            let text = "K".repeat(usize::from(kings)) + &"M".repeat(usize::from(men));
            if text.is_empty() {
                "-".to_string()
            } else {
                text
            }
        };
        format!(
            "{} v {}",
            side(self.white_kings, self.white_men),
            side(self.black_kings, self.black_men)
        )
    }
}

/// What one material's table holds.
#[derive(Clone, Debug)]
pub struct MaterialStats {
    /// The material.
    pub material: Material,
    /// Legal positions (both sides to move).
    pub positions: usize,
    /// Positions won by the side to move.
    pub wins: usize,
    /// Drawn positions.
    pub draws: usize,
    /// Positions lost by the side to move.
    pub losses: usize,
    /// The longest win, in plies.
    pub longest_win: u32,
    /// The longest loss, in plies.
    pub longest_loss: u32,
    /// Time spent solving it.
    pub time: Duration,
}

/// Binomial coefficients C(n, k) for n <= 64, k <= 8 (pieces per group stay far below).
const MAX_GROUP: usize = 8;
const BINOMIAL: [[u64; MAX_GROUP + 1]; 65] = {
    let mut table = [[0u64; MAX_GROUP + 1]; 65];
    let mut n = 0;
    while n <= 64 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= MAX_GROUP && k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
};

/// A group of identical pieces: every set of `count` squares out of `allowed`, ranked in
/// colex order (rank = sum over the i-th lowest square's local index l_i of C(l_i, i + 1)).
#[derive(Debug)]
struct Group {
    count: usize,
    /// The sets, by rank.
    combos: Vec<Bitboard>,
    /// Local index (0-based position within `allowed`) of each board bit; 255 when the bit
    /// is not allowed.
    local: [u8; 64],
}

impl Group {
    fn new(allowed: Bitboard, count: usize) -> Self {
        assert!(count <= MAX_GROUP, "at most {MAX_GROUP} identical pieces");
        let bits: Vec<u32> = Bits(allowed).collect();
        let mut local = [255u8; 64];
        for (index, &bit) in bits.iter().enumerate() {
            local[bit as usize] = index as u8;
        }
        let size = BINOMIAL[bits.len()][count] as usize;
        let mut group = Group {
            count,
            combos: vec![0; size],
            local,
        };
        // Enumerate the subsets, then store each at its rank (the rank is the definition;
        // no need to rely on an enumeration order).
        let mut chosen = Vec::with_capacity(count);
        let mut all = Vec::with_capacity(size);
        fn subsets(
            bits: &[u32],
            start: usize,
            left: usize,
            chosen: &mut Vec<u32>,
            all: &mut Vec<Bitboard>,
        ) {
            if left == 0 {
                all.push(chosen.iter().fold(0, |set, &bit| set | 1u64 << bit));
                return;
            }
            for index in start..=bits.len() - left {
                chosen.push(bits[index]);
                subsets(bits, index + 1, left - 1, chosen, all);
                chosen.pop();
            }
        }
        subsets(&bits, 0, count, &mut chosen, &mut all);
        for set in all {
            let rank = group.rank(set).expect("an allowed set has a rank");
            group.combos[rank] = set;
        }
        group
    }

    /// The rank of a set of `count` squares, or `None` if one of them is not allowed.
    #[inline]
    fn rank(&self, set: Bitboard) -> Option<usize> {
        debug_assert_eq!(set.count_ones() as usize, self.count);
        let mut rank = 0u64;
        for (i, bit) in Bits(set).enumerate() {
            let local = self.local[bit as usize];
            if local == 255 {
                return None;
            }
            rank += BINOMIAL[local as usize][i + 1];
        }
        Some(rank as usize)
    }

    fn size(&self) -> usize {
        self.combos.len()
    }
}

/// One material's table. Slot = side + 2 * (r0 + n0 * (r1 + n1 * (r2 + n2 * r3))) with r_i
/// the rank of group i (white men, white kings, black men, black kings) and n_i its size.
struct Class {
    material: Material,
    groups: [Arc<Group>; 4],
    values: Vec<u16>,
    stats: Option<MaterialStats>,
}

/// A position as raw sets: white, black, kings, side to move.
type Bits4 = (Bitboard, Bitboard, Bitboard, Color);

impl Class {
    fn slots(&self) -> usize {
        2 * self.groups.iter().map(|g| g.size()).product::<usize>()
    }

    #[inline]
    fn unrank(&self, slot: usize) -> Option<Bits4> {
        let side = if slot & 1 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut rest = slot >> 1;
        let mut sets = [0u64; 4];
        for (set, group) in sets.iter_mut().zip(&self.groups) {
            *set = group.combos[rest % group.size()];
            rest /= group.size();
        }
        let all = sets[0] | sets[1] | sets[2] | sets[3];
        if all.count_ones() as usize != self.material.total() {
            return None; // two groups on one square
        }
        Some((
            sets[0] | sets[1],
            sets[2] | sets[3],
            sets[1] | sets[3],
            side,
        ))
    }

    /// The slot of a position of this material, or `None` if a man stands on its own
    /// promotion row.
    #[inline]
    fn slot_of(
        &self,
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        side: Color,
    ) -> Option<usize> {
        let sets = [white & !kings, white & kings, black & !kings, black & kings];
        let mut slot = 0;
        for (set, group) in sets.iter().zip(&self.groups).rev() {
            slot = slot * group.size() + group.rank(*set)?;
        }
        Some(2 * slot + side.index())
    }
}

// Per-slot flags while a material is being solved.
const VALID: u8 = 1;
/// The value is final and has been propagated.
const FINAL: u8 = 2;
/// A win is known; `dist` holds the shortest so far.
const WIN_PENDING: u8 = 4;
/// Every move is known to lose; `dist` holds the loss distance.
const LOSS_PENDING: u8 = 8;
/// Some move leads to a drawn position of another material: never a loss.
const EXT_DRAW: u8 = 16;
/// The position's legal moves include its steps (no compulsory capture), so taking a step
/// back from one of its successors lands on a true predecessor.
const STEPS_LEGAL: u8 = 32;

/// Exact values of every legal position with few pieces, for the variant `R`.
pub struct Tablebase<R: Rules> {
    classes: Vec<Class>,
    /// Class index by material code (see [`Tablebase::code`]), `u32::MAX` when absent.
    index: Vec<u32>,
    max_pieces: usize,
    build_time: Duration,
    rules: PhantomData<R>,
}

impl<R: Rules> Tablebase<R> {
    /// Every position with 1 to `max_pieces` pieces in all.
    pub fn build(max_pieces: usize) -> Self {
        Self::build_classes(max_pieces, |_| true)
    }

    /// Every position with 1 to `max_pieces` pieces in all, kings only.
    pub fn build_kings_only(max_pieces: usize) -> Self {
        Self::build_classes(max_pieces, |material| material.men() == 0)
    }

    /// Every position with 1 to `max_pieces` pieces whose material passes `include`. The
    /// selection must be closed under moves (a capture or crowning from an included material
    /// must reach an included one); the build panics otherwise.
    pub fn build_classes(max_pieces: usize, include: impl Fn(Material) -> bool) -> Self {
        let start = Instant::now();
        let side = max_pieces + 1;
        let mut materials = Vec::new();
        for wm in 0..side {
            for wk in 0..side {
                for bm in 0..side {
                    for bk in 0..side {
                        let material = Material {
                            white_men: wm as u8,
                            white_kings: wk as u8,
                            black_men: bm as u8,
                            black_kings: bk as u8,
                        };
                        let total = material.total();
                        if (1..=max_pieces).contains(&total) && include(material) {
                            materials.push(material);
                        }
                    }
                }
            }
        }
        // Dependency order: captures lower the total, crownings lower the men.
        materials.sort_by_key(|m| (m.total(), m.men(), *m));
        let mut table = Tablebase {
            classes: Vec::with_capacity(materials.len()),
            index: vec![u32::MAX; side.pow(4)],
            max_pieces,
            build_time: Duration::ZERO,
            rules: PhantomData,
        };
        let board = R::Geometry::BOARD;
        let allowed = [
            board & !Position::<R>::promotion_row(Color::White),
            board,
            board & !Position::<R>::promotion_row(Color::Black),
            board,
        ];
        let mut groups: HashMap<(Bitboard, usize), Arc<Group>> = HashMap::new();
        for material in materials {
            let counts = material.counts();
            let class_groups: [Arc<Group>; 4] = std::array::from_fn(|i| {
                groups
                    .entry((allowed[i], counts[i]))
                    .or_insert_with(|| Arc::new(Group::new(allowed[i], counts[i])))
                    .clone()
            });
            let mut class = Class {
                material,
                groups: class_groups,
                values: Vec::new(),
                stats: None,
            };
            let began = Instant::now();
            class.values = table.solve(&class);
            class.stats = Some(Self::stats_of(&class, began.elapsed()));
            let code = table.code(&material).expect("within max_pieces");
            table.index[code] = table.classes.len() as u32;
            table.classes.push(class);
        }
        table.build_time = start.elapsed();
        table
    }

    /// Index of a material in `index`, if each count is within range.
    fn code(&self, material: &Material) -> Option<usize> {
        let side = self.max_pieces + 1;
        let counts = material.counts();
        if counts.iter().any(|&c| c >= side) {
            return None;
        }
        Some(counts.iter().fold(0, |code, &c| code * side + c))
    }

    fn class_of(&self, material: &Material) -> Option<&Class> {
        let code = self.code(material)?;
        self.classes.get(self.index[code] as usize)
    }

    /// The stored value of a raw position, if its material is in the table.
    #[inline]
    fn lookup(
        &self,
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        side: Color,
    ) -> Option<Value> {
        let class = self.class_of(&Material::of_bits(white, black, kings))?;
        decode(class.values[class.slot_of(white, black, kings, side)?])
    }

    /// The value of a position, or `None` when its material is not in the table or a man
    /// stands on its own promotion row.
    pub fn probe(&self, position: &Position<R>) -> Option<Value> {
        self.lookup(
            position.pieces(Color::White),
            position.pieces(Color::Black),
            position.kings(),
            position.side_to_move(),
        )
    }

    /// The materials held, in the order they were solved.
    pub fn materials(&self) -> Vec<Material> {
        self.classes.iter().map(|c| c.material).collect()
    }

    /// Counts per material, in the order they were solved.
    pub fn stats(&self) -> Vec<MaterialStats> {
        self.classes
            .iter()
            .map(|c| c.stats.clone().expect("solved"))
            .collect()
    }

    /// A table of the counts, one line per material, for test output.
    pub fn report(&self) -> String {
        let mut text = format!(
            "{} materials, {} positions, built in {:.2?}\n",
            self.classes.len(),
            self.stats().iter().map(|s| s.positions).sum::<usize>(),
            self.build_time
        );
        text += "material        positions       wins      draws     losses  max win  max loss     time\n";
        for s in self.stats() {
            text += &format!(
                "{:<12} {:>12} {:>10} {:>10} {:>10} {:>8} {:>9} {:>8.2?}\n",
                s.material.name(),
                s.positions,
                s.wins,
                s.draws,
                s.losses,
                s.longest_win,
                s.longest_loss,
                s.time
            );
        }
        text
    }

    /// Every legal position of one material with its value.
    pub fn positions_of(
        &self,
        material: Material,
    ) -> impl Iterator<Item = (Position<R>, Value)> + '_ {
        self.class_of(&material)
            .into_iter()
            .flat_map(|class| Self::class_positions(class, 0, class.slots(), 1))
    }

    /// Every legal position in the table with its value.
    pub fn positions(&self) -> impl Iterator<Item = (Position<R>, Value)> + '_ {
        self.classes
            .iter()
            .flat_map(|class| Self::class_positions(class, 0, class.slots(), 1))
    }

    fn class_positions(
        class: &Class,
        start: usize,
        end: usize,
        stride: usize,
    ) -> impl Iterator<Item = (Position<R>, Value)> + '_ {
        (start..end).step_by(stride).filter_map(move |slot| {
            let value = decode(class.values[slot])?;
            let (white, black, kings, side) = class.unrank(slot)?;
            Some((Position::from_parts(white, black, kings, side), value))
        })
    }

    /// Runs `check` on every `stride`-th slot of every material (1: every position) on all
    /// cores. Returns how many positions were checked and the first few failures.
    pub fn par_check(
        &self,
        stride: usize,
        check: impl Fn(&Position<R>, Value) -> Result<(), String> + Sync,
    ) -> (usize, Vec<String>) {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let check = &check;
        let mut checked = 0;
        let mut failures = Vec::new();
        for class in &self.classes {
            let slots = class.slots();
            // Each thread takes every `threads`-th stride step, so work stays balanced.
            let results: Vec<(usize, Vec<String>)> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        scope.spawn(move || {
                            let mut count = 0;
                            let mut errors = Vec::new();
                            for (position, value) in
                                Self::class_positions(class, t * stride, slots, stride * threads)
                            {
                                count += 1;
                                if let Err(e) = check(&position, value)
                                    && errors.len() < 10
                                {
                                    errors.push(format!("{}: {e}", write_fen(&position)));
                                }
                            }
                            (count, errors)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("checker thread"))
                    .collect()
            });
            for (count, errors) in results {
                checked += count;
                failures.extend(errors);
            }
        }
        failures.truncate(20);
        (checked, failures)
    }

    /// A deterministic sample: for every distinct value (each win distance, each loss
    /// distance, draw), up to `per_value` positions that pass `keep`, chosen by a seeded hash
    /// of the position so the choice is spread over all materials and repeatable. Sorted by
    /// value from the side to move's point of view (quick losses first, quick wins last).
    pub fn sample(
        &self,
        per_value: usize,
        seed: u64,
        keep: impl Fn(&Position<R>, Value) -> bool,
    ) -> Vec<(Position<R>, Value)> {
        // Per value, a max-heap of the `per_value` smallest scores seen.
        let mut chosen: HashMap<Value, BinaryHeap<(u64, usize, usize)>> = HashMap::new();
        for (class_index, class) in self.classes.iter().enumerate() {
            for slot in 0..class.slots() {
                let Some(value) = decode(class.values[slot]) else {
                    continue;
                };
                let Some((white, black, kings, side)) = class.unrank(slot) else {
                    continue;
                };
                let position = Position::<R>::from_parts(white, black, kings, side);
                let score = super::SplitMix(position.hash() ^ seed).next_u64();
                let heap = chosen.entry(value).or_default();
                if heap.len() < per_value {
                    if keep(&position, value) {
                        heap.push((score, class_index, slot));
                    }
                } else if heap.peek().is_some_and(|top| score < top.0) && keep(&position, value) {
                    heap.pop();
                    heap.push((score, class_index, slot));
                }
            }
        }
        let mut sample: Vec<(u64, Position<R>, Value)> = chosen
            .into_iter()
            .flat_map(|(value, heap)| {
                heap.into_iter()
                    .map(move |(score, class_index, slot)| (score, class_index, slot, value))
            })
            .map(|(score, class_index, slot, value)| {
                let (white, black, kings, side) = self.classes[class_index]
                    .unrank(slot)
                    .expect("a valid slot");
                (
                    score,
                    Position::from_parts(white, black, kings, side),
                    value,
                )
            })
            .collect();
        sample.sort_by_key(|&(score, _, value)| (value.preference(), score));
        sample.into_iter().map(|(_, p, v)| (p, v)).collect()
    }

    fn stats_of(class: &Class, time: Duration) -> MaterialStats {
        let mut stats = MaterialStats {
            material: class.material,
            positions: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            longest_win: 0,
            longest_loss: 0,
            time,
        };
        for &code in &class.values {
            match decode(code) {
                None => continue,
                Some(Value::Win(n)) => {
                    stats.wins += 1;
                    stats.longest_win = stats.longest_win.max(n);
                }
                Some(Value::Loss(n)) => {
                    stats.losses += 1;
                    stats.longest_loss = stats.longest_loss.max(n);
                }
                Some(Value::Draw) => stats.draws += 1,
            }
            stats.positions += 1;
        }
        stats
    }

    /// Solves one material; every material its moves leave for is already in `self`.
    fn solve(&self, class: &Class) -> Vec<u16> {
        let slots = class.slots();
        assert!(slots < u32::MAX as usize, "slot numbers fit in u32");
        let mut state = vec![0u8; slots];
        // In-material successors not yet known to be won for the opponent.
        let mut count = vec![0u8; slots];
        // The pending win distance, or (no win known) the longest loss so far + 1.
        let mut dist = vec![0u16; slots];
        let mut buckets: Vec<Vec<u32>> = Vec::new();
        let push = |buckets: &mut Vec<Vec<u32>>, slot: usize, d: u16| {
            let d = usize::from(d);
            if buckets.len() <= d {
                buckets.resize_with(d + 1, Vec::new);
            }
            buckets[d].push(slot as u32);
        };

        // Forward pass, split over the cores: each thread owns a contiguous range of slots.
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let chunk = slots.div_ceil(threads).max(1);
        let seeds: Vec<Vec<(u32, u16)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = state
                .chunks_mut(chunk)
                .zip(count.chunks_mut(chunk))
                .zip(dist.chunks_mut(chunk))
                .enumerate()
                .map(|(t, ((state, count), dist))| {
                    scope.spawn(move || self.forward(class, t * chunk, state, count, dist))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("solver thread"))
                .collect()
        });
        for (slot, d) in seeds.into_iter().flatten() {
            push(&mut buckets, slot as usize, d);
        }

        // Backward pass in order of distance: when bucket d is taken, every value at a
        // distance below d is final, so the first loss reaching a predecessor gives its
        // shortest win, and the last win reaching it gives its longest loss.
        let mut d = 0;
        while d < buckets.len() {
            let bucket = std::mem::take(&mut buckets[d]);
            for &slot in &bucket {
                let slot = slot as usize;
                let flags = state[slot];
                if flags & FINAL != 0 || usize::from(dist[slot]) != d {
                    continue; // already done, or a stale entry superseded by a shorter win
                }
                let lost = flags & LOSS_PENDING != 0;
                assert!(
                    lost != (flags & WIN_PENDING != 0),
                    "a queued position is either won or lost"
                );
                state[slot] |= FINAL;
                let next = u16::try_from(d + 1).expect("distances fit u16");
                let (white, black, kings, side) =
                    class.unrank(slot).expect("queued slots are valid");
                for_each_unmove::<R>(white, black, kings, side, |pw, pb, pk| {
                    let before = class
                        .slot_of(pw, pb, pk, side.opponent())
                        .expect("a step back stays within the material");
                    let flags = state[before];
                    assert!(flags & VALID != 0, "a step back reaches a legal position");
                    if flags & FINAL != 0 || flags & STEPS_LEGAL == 0 {
                        return;
                    }
                    if lost {
                        assert!(
                            flags & LOSS_PENDING == 0,
                            "a lost position has no losing successor"
                        );
                        if flags & WIN_PENDING == 0 || dist[before] > next {
                            state[before] |= WIN_PENDING;
                            dist[before] = next;
                            push(&mut buckets, before, next);
                        }
                    } else if flags & WIN_PENDING == 0 {
                        assert!(
                            count[before] > 0,
                            "un-move {} from {} is not a library move",
                            write_fen(&Position::<R>::from_parts(pw, pb, pk, side.opponent())),
                            write_fen(&Position::<R>::from_parts(white, black, kings, side)),
                        );
                        count[before] -= 1;
                        dist[before] = dist[before].max(next);
                        if count[before] == 0 && flags & EXT_DRAW == 0 {
                            state[before] |= LOSS_PENDING;
                            push(&mut buckets, before, dist[before]);
                        }
                    }
                });
            }
            d += 1;
        }

        state
            .iter()
            .zip(&dist)
            .map(|(&flags, &d)| {
                if flags & VALID == 0 {
                    INVALID
                } else if flags & FINAL == 0 {
                    DRAW
                } else if flags & WIN_PENDING != 0 {
                    encode(Value::Win(u32::from(d)))
                } else {
                    encode(Value::Loss(u32::from(d)))
                }
            })
            .collect()
    }

    /// The forward pass over slots `first..first + state.len()`: looks at every move with the
    /// library's generator, counts the successors within the material and takes the values
    /// of the others from the solved tables. Returns the positions whose value is already
    /// settled (no move, a win through a capture or crowning, or every move leaving the
    /// material and none drawing) with their distances.
    fn forward(
        &self,
        class: &Class,
        first: usize,
        state: &mut [u8],
        count: &mut [u8],
        dist: &mut [u16],
    ) -> Vec<(u32, u16)> {
        let mut seeds = Vec::new();
        let mut moves = damka::MoveList::new();
        for i in 0..state.len() {
            let slot = first + i;
            let Some((white, black, kings, side)) = class.unrank(slot) else {
                continue;
            };
            let position = Position::<R>::from_parts(white, black, kings, side);
            position.legal_moves_into(&mut moves);
            let mut flags = VALID;
            if moves.is_empty() {
                state[i] = flags | LOSS_PENDING;
                dist[i] = 0;
                seeds.push((slot as u32, 0));
                continue;
            }
            let mut any_capture = false;
            let mut shortest_win = u16::MAX;
            let mut longest_loss = 0u16;
            let mut inside = 0u8;
            for mv in moves.iter() {
                any_capture |= mv.is_capture();
                let next = position.play(mv);
                let (nw, nb, nk) = (
                    next.pieces(Color::White),
                    next.pieces(Color::Black),
                    next.kings(),
                );
                if Material::of_bits(nw, nb, nk) == class.material {
                    inside = inside.checked_add(1).expect("fewer than 256 moves");
                    continue;
                }
                let value = self.lookup(nw, nb, nk, next.side_to_move()).unwrap_or_else(|| {
                    panic!(
                        "{} (from {}) is outside the table: the material selection is not closed under moves",
                        write_fen(&next),
                        write_fen(&position)
                    )
                });
                match value {
                    Value::Loss(n) => shortest_win = shortest_win.min(n as u16 + 1),
                    Value::Win(n) => longest_loss = longest_loss.max(n as u16 + 1),
                    Value::Draw => flags |= EXT_DRAW,
                }
            }
            if !any_capture || !R::CAPTURE_COMPULSORY {
                flags |= STEPS_LEGAL;
            }
            if shortest_win != u16::MAX {
                flags |= WIN_PENDING;
                dist[i] = shortest_win;
                seeds.push((slot as u32, shortest_win));
            } else if inside == 0 {
                if flags & EXT_DRAW == 0 {
                    flags |= LOSS_PENDING;
                    dist[i] = longest_loss;
                    seeds.push((slot as u32, longest_loss));
                }
            } else {
                dist[i] = longest_loss;
            }
            count[i] = inside;
            state[i] = flags;
        }
        seeds
    }
}

/// Calls `f(white, black, kings)` for every position from which the side that just moved
/// (the opponent of `side`) could have reached this one by a step that stays within the
/// material: a king taken back along a diagonal over empty squares (one square for short
/// kings), a man taken back one square towards its own side. Whether that step was legal
/// there (no capture was compulsory) is the caller's business.
fn for_each_unmove<R: Rules>(
    white: Bitboard,
    black: Bitboard,
    kings: Bitboard,
    side: Color,
    mut f: impl FnMut(Bitboard, Bitboard, Bitboard),
) {
    let mover = side.opponent();
    let pieces = [white, black];
    let own = pieces[mover.index()];
    let empty = R::Geometry::BOARD & !(white | black);
    let back = if Position::<R>::moves_up(mover) {
        Dir::DOWN
    } else {
        Dir::UP
    };
    for bit in Bits(own) {
        let at = 1u64 << bit;
        let king = kings & at != 0;
        let dirs: &[Dir] = if king { &Dir::ALL } else { &back };
        for &dir in dirs {
            let mut from = R::Geometry::step(at, dir);
            while from & empty != 0 {
                let mut before = pieces;
                before[mover.index()] = own ^ at ^ from;
                let before_kings = if king { kings ^ at ^ from } else { kings };
                f(before[0], before[1], before_kings);
                if !(king && R::FLYING_KINGS) {
                    break;
                }
                from = R::Geometry::step(from, dir);
            }
        }
    }
}

/// Functions that each give a table built once for the whole test binary, by the first test
/// that asks (the tests of `tests/retro.rs` and `tests/analyze.rs` share them); each build's
/// report goes to stderr (`--nocapture` shows it).
macro_rules! shared_tables {
    ($($(#[$doc:meta])* $name:ident: $rules:ty = $build:expr;)*) => {
        $(
            $(#[$doc])*
            pub fn $name() -> &'static Tablebase<$rules> {
                static TABLE: OnceLock<Tablebase<$rules>> = OnceLock::new();
                TABLE.get_or_init(|| {
                    let table = $build;
                    eprintln!("{}:\n{}", stringify!($name), table.report());
                    table
                })
            }
        )*
    };
}

shared_tables! {
    /// English, every material of up to 4 pieces.
    english: English = Tablebase::build(4);
    /// International, every material of up to 3 pieces and of 4 kings (kings-only materials
    /// are closed under moves, so the 4-king tables only need the 3-piece ones).
    international: International =
        Tablebase::build_classes(4, |m| m.total() <= 3 || m.men() == 0);
    /// Russian, every material of up to 4 kings.
    russian_kings: Russian = Tablebase::build_kings_only(4);
}
