//! Table generation and verification: solves every slice up to N pieces in passes ordered by distance, on several threads, resumably.
//!
//! Slices are solved in [`Material::all`] order, a slice together with its colour-reversed
//! twin (a quiet move from one lands in the other). Every capture and promotion leads to a
//! slice solved earlier, whose values are final. Within the pair, pass 0 marks the positions
//! without a legal move `Loss(0)`; pass `k` then gives `Win(k)` (odd `k`) to every unsolved
//! position with a successor worth `Loss(k - 1)`, or `Loss(k)` (even `k`) to every unsolved
//! position whose successors are all wins, the slowest `Win(k - 1)`. This is retrograde
//! analysis (Thompson 1986): values appear in order of distance, so each is the exact
//! distance to the end of the game, and a pass only ever writes values of one parity, so
//! threads reading values written in the same pass see nothing that could change their
//! answer. A pass walks the un-moves of the positions decided in the pass before, and each
//! position counts its moves not yet known to lose (see `solve_part`); positions never
//! decided are draws.
//!
//! A pair is written to disk (atomically) as soon as it is solved; a later run loads the
//! slices whose files are present and valid and goes on with the rest.

use super::file::{SliceFile, slice_path, write_blocks_atomically};
use super::probe::{Slice, Tables};
use super::units::{UnitParts, distance, flipped};
pub use super::verify::{Verification, verify};
use super::{
    Indexer, Material, Placement, Value, ValueKind, Walker, bits_of, family, squares_of, turned,
};
use crate::board::{Bitboard, Dir, Geometry};
use crate::movegen::{MoveList, king_reach};
use crate::position::Position;
use crate::rules::{Color, Rules};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Positions one thread takes at a time.
const CHUNK: u64 = 1 << 14;

/// Where [`generate_with`] and [`verify`] report how far they are, for a progress display.
/// Every call comes from the thread that called them; each method does nothing by default.
pub trait Progress {
    /// The work begins: `total` positions.
    fn start(&mut self, _total: u64) {}
    /// What is being done now (a slice and its pass).
    fn message(&mut self, _text: &str) {}
    /// `positions` more are done.
    fn advance(&mut self, _positions: u64) {}
    /// The work is over.
    fn finish(&mut self) {}
}

/// No progress display.
pub struct NoProgress;

impl Progress for NoProgress {}

/// One solved slice: its material, positions, seconds (the pair's time shared between its
/// slices) and file bytes.
pub type Solved = (Material, u64, f64, usize);

/// What one generation run did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Slices solved in this run, with positions, seconds and file bytes.
    pub solved: Vec<Solved>,
    /// Slices loaded from valid files.
    pub loaded: usize,
    /// Time of the whole run.
    pub elapsed: Duration,
    /// Parts solved (pairs solved a part at a time; see [`GenOptions::memory`]).
    pub parts: usize,
    /// Slices read from their files on demand at the end of the run (not held in memory,
    /// for the memory bound).
    pub on_demand: usize,
    /// Pairs without men solved lean (without lists, for the memory bound).
    pub lean: usize,
}

/// Runs `work` on every placement of `indexer`'s slice with its index, on `threads`
/// threads, each walking chunks of consecutive indexes (one unranking a chunk, a colex step
/// a position) with a state of its own, made by `Default`; the threads' states are returned.
pub(super) fn parallel_walk<S: Default + Send>(
    indexer: &Indexer,
    threads: usize,
    work: &(dyn Fn(u64, &Placement, &mut S) + Sync),
) -> Vec<S> {
    let size = indexer.size();
    let next = AtomicU64::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut state = S::default();
                    loop {
                        let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                        if start >= size {
                            break;
                        }
                        let mut walker = Walker::new(indexer, start);
                        for index in start..(start + CHUNK).min(size) {
                            if index > start {
                                walker.advance();
                            }
                            work(index, walker.placement(), &mut state);
                        }
                    }
                    state
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a walking thread"))
            .collect()
    })
}

/// True when the side to move has a capture: some piece has a first jump (a man over an
/// adjacent target to the empty square behind it, a king over the first piece of a line
/// when it is a target with an empty square behind it). The same answer as
/// [`crate::position::Position::has_capture`], which searches every capture route to its end
/// (the whole capture tree of a flying king) where a first jump is all that is asked here.
#[inline]
pub fn can_capture<R: Rules>(position: &Position<R>) -> bool {
    if R::ORTHOGONAL_CAPTURES || R::ROOK_MOVES || !R::CAPTURE_COMPULSORY {
        return position.has_capture();
    }
    let us = position.side_to_move();
    let them = position.pieces(us.opponent());
    first_jump::<R>(
        position.men(us),
        position.kings_of(us),
        them,
        them & position.kings(),
        position.empty(),
        Position::<R>::moves_up(us),
    )
}

/// [`can_capture`] on bitboards: the mover's `men` and `kings` (moving up the board when
/// `up`), the opponent's pieces `them`, of which `their_kings` are kings. Diagonal captures
/// only (every variant with tables).
#[inline(always)]
fn first_jump<R: Rules>(
    men: u64,
    kings: u64,
    them: u64,
    their_kings: u64,
    empty: u64,
    up: bool,
) -> bool {
    let man_targets = if R::MEN_CAPTURE_KINGS {
        them
    } else {
        them & !their_kings
    };
    for dir in Dir::ALL {
        let forward = matches!(dir, Dir::UpLeft | Dir::UpRight) == up;
        if (forward || R::MEN_CAPTURE_BACKWARD)
            && R::Geometry::step(R::Geometry::step(men, dir) & man_targets, dir) & empty != 0
        {
            return true;
        }
        if kings != 0 {
            let mut reach = R::Geometry::step(kings, dir);
            if R::FLYING_KINGS {
                let mut ray = reach & empty;
                while ray != 0 {
                    ray = R::Geometry::step(ray, dir);
                    reach |= ray;
                    ray &= empty;
                }
            }
            if R::Geometry::step(reach & them, dir) & empty != 0 {
                return true;
            }
        }
    }
    false
}

/// A placement's bitboards from its mover's side (White's): men, kings, the other side's
/// pieces, its kings, and the empty squares, as [`first_jump`] takes them.
#[inline(always)]
fn bitboards<R: Rules>(p: &Placement) -> (Bitboard, Bitboard, Bitboard, Bitboard, Bitboard) {
    type G<R> = <R as Rules>::Geometry;
    let men = bits_of::<G<R>>(p.white_men);
    let kings = bits_of::<G<R>>(p.white_kings);
    let their_kings = bits_of::<G<R>>(p.black_kings);
    let them = bits_of::<G<R>>(p.black_men) | their_kings;
    let empty = G::<R>::BOARD & !(men | kings | them);
    (men, kings, them, their_kings, empty)
}

/// Calls `f` with every position (as a placement from its mover's side, so in the twin
/// slice) from which a quiet move of the side not to move leads to `child` (White to
/// move): that side's last move taken back. A man steps back towards its own side, a king
/// back along a diagonal over empty squares; positions where that move was not legal (a
/// capture was pending) are left out. Every quiet move into `child` is found exactly once,
/// which the counts of [`solve_part`] rely on. Works on bitboards: no position is built.
///
/// Without `men_back`, only the kings' moves are taken back (the caller knows that every
/// position a man's step leads from lies elsewhere).
#[inline]
fn for_each_predecessor<R: Rules>(
    child: &Placement,
    men_back: bool,
    mut f: impl FnMut(&Placement),
) {
    use crate::board::Bits;
    type G<R> = <R as Rules>::Geometry;
    let n = G::<R>::SQUARES;
    let white_kings = bits_of::<G<R>>(child.white_kings);
    let white = bits_of::<G<R>>(child.white_men) | white_kings;
    let black_men = bits_of::<G<R>>(child.black_men);
    let black_kings = bits_of::<G<R>>(child.black_kings);
    let empty = G::<R>::BOARD & !(white | black_men | black_kings);
    // The predecessor seen from Black, its mover: turned, colours swapped.
    let base = Placement {
        white_men: turned(child.black_men, n),
        white_kings: turned(child.black_kings, n),
        black_men: turned(child.white_men, n),
        black_kings: turned(child.white_kings, n),
    };
    let mut push = |from: u64, to: u64, king: bool| {
        let moved = from | to;
        let (men, kings) = if king {
            (black_men, black_kings ^ moved)
        } else {
            (black_men ^ moved, black_kings)
        };
        // Black moves down (White up, in every variant with tables).
        if first_jump::<R>(men, kings, white, white_kings, empty ^ moved, false) {
            return;
        }
        let square =
            |bit: u64| n - 1 - usize::from(G::<R>::SQUARE_OF[bit.trailing_zeros() as usize]);
        let turned_moved = (1u64 << square(from)) | (1u64 << square(to));
        let mut parent = base;
        if king {
            parent.white_kings ^= turned_moved;
        } else {
            parent.white_men ^= turned_moved;
        }
        f(&parent);
    };
    // Black's men move down: back is up.
    for bit in Bits(if men_back { black_men } else { 0 }) {
        let at = 1u64 << bit;
        for dir in Dir::UP {
            let from = G::<R>::step(at, dir);
            if from & empty != 0 {
                push(from, at, false);
            }
        }
    }
    for bit in Bits(black_kings) {
        let at = 1u64 << bit;
        for dir in Dir::ALL {
            let mut from = G::<R>::step(at, dir);
            while from & empty != 0 {
                push(from, at, true);
                if !R::FLYING_KINGS {
                    break;
                }
                from = G::<R>::step(from, dir);
            }
        }
    }
}

/// Runs `work` on every item of `items` on `threads` threads; each thread's outputs are
/// gathered.
fn parallel_items<T: Sync, O: Send>(
    items: &[T],
    threads: usize,
    work: &(dyn Fn(&T, &mut MoveList, &mut Vec<O>) + Sync),
) -> Vec<O> {
    parallel_items_per_thread(items, threads, work)
        .into_iter()
        .flatten()
        .collect()
}

/// [`parallel_items`], each thread's outputs apart (so the caller can take them one list at
/// a time, without a copy of them all).
fn parallel_items_per_thread<T: Sync, O: Send>(
    items: &[T],
    threads: usize,
    work: &(dyn Fn(&T, &mut MoveList, &mut Vec<O>) + Sync),
) -> Vec<Vec<O>> {
    let chunk = (CHUNK as usize).min(items.len().div_ceil(threads.max(1) * 4).max(64));
    parallel_batches_per_thread(items, threads, chunk, &|batch, out| {
        let mut list = MoveList::new();
        for item in batch {
            work(item, &mut list, out);
        }
    })
}

/// Runs `work` on batches of at most `batch` items of `items` on `threads` threads; each
/// thread's outputs are gathered.
fn parallel_batches<T: Sync, O: Send>(
    items: &[T],
    threads: usize,
    batch: usize,
    work: &(dyn Fn(&[T], &mut Vec<O>) + Sync),
) -> Vec<O> {
    parallel_batches_per_thread(items, threads, batch, work)
        .into_iter()
        .flatten()
        .collect()
}

/// [`parallel_batches`], each thread's outputs apart.
fn parallel_batches_per_thread<T: Sync, O: Send>(
    items: &[T],
    threads: usize,
    batch: usize,
    work: &(dyn Fn(&[T], &mut Vec<O>) + Sync),
) -> Vec<Vec<O>> {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let start = next.fetch_add(batch, Ordering::Relaxed);
                        if start >= items.len() {
                            break;
                        }
                        work(&items[start..(start + batch).min(items.len())], &mut out);
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a generator thread"))
            .collect()
    })
}

/// `need` of a position that can never be lost (a move leaves the pair into a draw or a
/// loss).
const NEVER: u8 = 255;

/// The working state of one slot of the part being solved, besides its values.
struct Work {
    /// Moves that stay in the part whose successor is not known to be won yet.
    remaining: Vec<AtomicU8>,
    /// The first pass at which the moves leaving the part allow a loss (the slowest win
    /// among them, plus one; 0 when there is none), or [`NEVER`]. Empty in a lean solve,
    /// where it is 0 for every position that has moves inside the pair.
    need: Vec<AtomicU8>,
}

impl Work {
    /// The pass from which a position may be lost (see [`Work::need`]).
    #[inline(always)]
    fn need(&self, local: usize) -> u8 {
        self.need
            .get(local)
            .map_or(0, |need| need.load(Ordering::Relaxed))
    }
}

/// What the first pass found for one position, besides what it wrote in [`Work`], packed
/// over its list entry (whose placement takes the low 48 bits, its slot bit 63): the pass
/// in bits 48 to 55, and bit 56 set when the position is decided now (no move, or only
/// captures: its value is written, and it joins the positions decided in that pass so
/// that its predecessors are looked at then), clear when it is to be looked at in that
/// pass (a win, odd, through a move out of the part into a loss; or a loss, even, once
/// every move inside the part leads to a win).
fn noted(decided: bool, pass: u8, entry: u64) -> u64 {
    entry | u64::from(pass) << 48 | u64::from(decided) << 56
}

/// The bits of [`noted`] above the placement and below the slot.
const NOTED_BITS: u64 = 0x1ff << 48;

/// The positions of a slice that one solve covers: all of them, or one part of the pair's
/// [`UnitParts`].
enum Part<'a> {
    /// The whole slice.
    Whole,
    /// Part `part` of the pair's parts, in the pair's slice `slice` (0, or 1 for the twin).
    Units {
        parts: &'a UnitParts,
        slice: usize,
        part: usize,
    },
}

/// One slice's share of a solve: its values (in memory, the whole slice's), the part of it
/// being solved, and the slice's capture bits (one a position: a capture is pending, so the
/// value is not stored in the file).
struct Slot<'a> {
    slice: &'a Slice,
    part: Part<'a>,
    captures: &'a [AtomicU64],
}

impl Slot<'_> {
    /// Positions in the part.
    fn size(&self) -> u64 {
        match &self.part {
            Part::Whole => self.slice.indexer.size(),
            Part::Units { parts, slice, part } => parts.size(*slice, *part),
        }
    }

    /// True when the position of slice index `index` lies in the part.
    #[inline]
    fn holds(&self, index: u64) -> bool {
        match &self.part {
            Part::Whole => true,
            Part::Units { parts, slice, part } => parts.local(*slice, *part, index).is_some(),
        }
    }

    /// The slice's index and the part's index of a placement of the slice, or `None` when
    /// it lies outside the part.
    #[inline]
    fn locate(&self, p: &Placement) -> Option<(usize, usize)> {
        match &self.part {
            Part::Whole => {
                let index = self.slice.indexer.index(p) as usize;
                Some((index, index))
            }
            Part::Units { parts, slice, part } => {
                let index = self.slice.indexer.index(p);
                parts
                    .local(*slice, *part, index)
                    .map(|local| (index as usize, local as usize))
            }
        }
    }
}

/// A walk over a part's placements in the part's index order.
enum PartWalker<'a> {
    Whole(Walker<'a>),
    Units {
        walker: Walker<'a>,
        indexer: &'a Indexer,
        parts: &'a UnitParts,
        slice: usize,
        part: usize,
        /// The part's index of the walk's placement, and its slice index.
        local: u64,
        index: u64,
    },
}

impl<'a> PartWalker<'a> {
    fn new(slot: &'a Slot<'a>, start: u64) -> PartWalker<'a> {
        match slot.part {
            Part::Whole => PartWalker::Whole(Walker::new(&slot.slice.indexer, start)),
            Part::Units { parts, slice, part } => {
                let index = parts.whole(slice, part, start);
                PartWalker::Units {
                    walker: Walker::new(&slot.slice.indexer, index),
                    indexer: &slot.slice.indexer,
                    parts,
                    slice,
                    part,
                    local: start,
                    index,
                }
            }
        }
    }

    #[inline(always)]
    fn placement(&self) -> &Placement {
        match self {
            PartWalker::Whole(walker) => walker.placement(),
            PartWalker::Units { walker, .. } => walker.placement(),
        }
    }

    /// The slice's index of the placement at the part's index `local` (the walk's).
    #[inline(always)]
    fn whole_index(&self, local: u64) -> usize {
        match self {
            PartWalker::Whole(_) => local as usize,
            PartWalker::Units { index, .. } => *index as usize,
        }
    }

    #[inline(always)]
    fn advance(&mut self) -> bool {
        match self {
            PartWalker::Whole(walker) => walker.advance(),
            PartWalker::Units {
                walker,
                indexer,
                parts,
                slice,
                part,
                local,
                index,
            } => {
                if *local + 1 >= parts.size(*slice, *part) {
                    return false;
                }
                *local += 1;
                let next = parts.whole(*slice, *part, *local);
                // The kings of a unit, and units that follow each other, are one colex
                // step apart; a jump to a unit further on is unranked.
                if next == *index + 1 {
                    walker.advance();
                } else {
                    *walker = Walker::new(indexer, next);
                }
                *index = next;
                true
            }
        }
    }
}

/// A position of the part in a list: its slot in bit 63 over its packed placement
/// ([`Placement::pack`]), so that walking its un-moves needs no unranking.
fn list_entry(slot: usize, placement: &Placement) -> u64 {
    (slot as u64) << 63 | placement.pack()
}

/// True when a solve can do without lists (see [`lean_pass`]): whole slices without men,
/// whose every move that leaves the pair is a capture. A position then has only moves out of the
/// pair (a capture is pending: decided in the first pass) or only moves inside it, so none
/// waits for the pass of a move out, and the positions decided in pass `k - 1` are exactly
/// those whose code is `k`.
fn is_lean(slots: &[Slot]) -> bool {
    slots
        .iter()
        .all(|slot| matches!(slot.part, Part::Whole) && slot.slice.indexer.material().men() == 0)
}

/// One pass of a lean solve: every position of the slots whose code is `pass` (decided in
/// the pass before) is found by a scan of the values and handed to `walk` in batches of
/// list entries ([`list_entry`]); returns how many positions `walk` decided. The scan
/// costs a read of one byte a position each pass, where lists would hold 8 bytes for each
/// position decided.
fn lean_pass(
    slots: &[Slot],
    pass: u8,
    threads: usize,
    walk: &(dyn Fn(&[u64], &mut Vec<u64>) + Sync),
) -> u64 {
    const BATCH: usize = 64;
    let chunks: Vec<(usize, u64)> = slots
        .iter()
        .enumerate()
        .flat_map(|(slot, s)| {
            (0..s.size())
                .step_by(CHUNK as usize)
                .map(move |start| (slot, start))
        })
        .collect();
    let counts = parallel_items(
        &chunks,
        threads,
        &|&(slot, start), _, out: &mut Vec<u64>| {
            let indexer = &slots[slot].slice.indexer;
            let codes = slots[slot].slice.memory();
            let end = (start + CHUNK).min(indexer.size());
            let mut batch: Vec<u64> = Vec::with_capacity(BATCH);
            let mut decided = Vec::new();
            let mut count = 0u64;
            // The placement of a match a few indexes on is walked to, a farther one unranked.
            let mut walker: Option<(u64, Walker)> = None;
            for index in start..end {
                if codes[index as usize].load(Ordering::Relaxed) != pass {
                    continue;
                }
                let placement = match &mut walker {
                    Some((at, w)) if index - *at <= 16 => {
                        while *at < index {
                            w.advance();
                            *at += 1;
                        }
                        *w.placement()
                    }
                    _ => {
                        let w = Walker::new(indexer, index);
                        let placement = *w.placement();
                        walker = Some((index, w));
                        placement
                    }
                };
                batch.push(list_entry(slot, &placement));
                if batch.len() == BATCH {
                    walk(&batch, &mut decided);
                    count += decided.len() as u64;
                    decided.clear();
                    batch.clear();
                }
            }
            walk(&batch, &mut decided);
            count += decided.len() as u64;
            out.push(count);
        },
    );
    counts.iter().sum()
}

/// Solves one part: a slice and its twin (or one part of their units, see [`UnitParts`]),
/// both already inserted in `tables` as slices in memory, every position outside the part
/// that a move reaches already solved.
///
/// Retrograde analysis with counts: one pass over every position notes how many of its
/// moves stay inside the part (quiet moves that promote nothing and land in the part) and
/// what the moves that leave it are worth (captures and promotions, into slices solved
/// before, and man moves into units of parts solved before). A position with a
/// capture pending has only such moves, so it is decided at once, as is one with no move
/// (`Loss(0)`). Then pass `k` takes the positions decided in pass `k - 1` and walks their
/// un-moves: after a `Loss(k - 1)` every undecided predecessor is `Win(k)`; after a
/// `Win(k - 1)` each undecided predecessor counts one more move into a won position, and
/// the one whose every move is now known to win for the opponent is `Loss(k)`, unless a
/// move out of the part wins more slowly, whose pass it then waits for. Every position is
/// decided by compare-and-swap on its value, so it joins its pass exactly once.
///
/// For a win/draw/loss pair (`kind`), every move out of the part counts as the quickest end
/// its value allows (a loss in 0 or a win in 1), so the passes count plies to the
/// conversion, which stay short where distances to the end would not fit a code.
///
/// `lean` (a whole pair without men, [`is_lean`]) keeps no lists: each pass finds the
/// positions decided in the one before by a scan of the values ([`lean_pass`]).
fn solve_part<R: Rules>(
    tables: &Tables,
    slots: &[Slot],
    kind: ValueKind,
    lean: bool,
    threads: usize,
    progress: &mut dyn Progress,
    name: &str,
) -> Result<(), String> {
    type G<R> = <R as Rules>::Geometry;
    assert!(
        !lean || is_lean(slots),
        "{name}: only whole pairs without men are solved lean"
    );
    let codes: Vec<&[AtomicU8]> = slots.iter().map(|slot| slot.slice.memory()).collect();
    let materials: Vec<Material> = slots.iter().map(|s| s.slice.indexer.material()).collect();
    let work: Vec<Work> = slots
        .iter()
        .map(|slot| {
            let size = slot.size() as usize;
            Work {
                remaining: (0..size).map(|_| AtomicU8::new(0)).collect(),
                need: (0..if lean { 0 } else { size })
                    .map(|_| AtomicU8::new(0))
                    .collect(),
            }
        })
        .collect();
    // A lean solve's highest code given in the first pass (0: none).
    let highest_first = AtomicU8::new(0);
    let open = |entry: u64| {
        let slot = (entry >> 63) as usize;
        (slot, Placement::unpack(entry & !(1 << 63), materials[slot]))
    };
    let twin = |slot: usize| if slots.len() == 1 { 0 } else { 1 - slot };
    // Positions decided in the first pass (by the pass whose value they hold) and those to
    // be looked at in a given pass.
    let mut decided_at: Vec<Vec<u64>> = vec![Vec::new(); 256];
    let mut scheduled: Vec<Vec<u64>> = vec![Vec::new(); 256];
    progress.message(&format!("{name} first pass"));
    // White's men are crowned on the first row; those on the second may promote.
    let crowning = Position::<R>::promotion_row(Color::White);
    let next_to_crown =
        G::<R>::step(crowning, Dir::DownLeft) | G::<R>::step(crowning, Dir::DownRight);
    for (slot_number, slot) in slots.iter().enumerate() {
        let size = slot.size();
        let state = &work[slot_number];
        let memory = codes[slot_number];
        let inside_part = &slots[twin(slot_number)];
        // A man's step may leave a part (it changes the men's placement, which may lie in a
        // part solved before), never a whole slice.
        let split = matches!(slot.part, Part::Units { .. });
        let starts: Vec<u64> = (0..size).step_by(CHUNK as usize).collect();
        // A position decided now joins the list of its pass; a lean solve lists none, and
        // only keeps the highest code given (its passes scan the values instead).
        let decided_now = |out: &mut Vec<u64>, highest: &mut u8, pass: u8, p: &Placement| {
            if lean {
                *highest = (*highest).max(pass + 1);
            } else {
                out.push(noted(true, pass, list_entry(slot_number, p)));
            }
        };
        // The codes of the twin slice, where every quiet move leads; a quiet move that
        // leaves a part lands in a part solved before, whose values are final.
        let twin_codes = codes[twin(slot_number)];
        let twin_indexer = &inside_part.slice.indexer;
        // A position's moves that lead out of the part, by what they are worth (see below).
        #[derive(Default)]
        struct Exits {
            moves: u32,
            quickest_loss: Option<u8>,
            slowest_win: u8,
            draw: bool,
        }
        impl Exits {
            fn add(&mut self, kind: ValueKind, code: u8) {
                self.moves += 1;
                let code = if kind == ValueKind::WinDrawLoss {
                    ValueKind::wdl_code(code)
                } else {
                    code
                };
                if code == 0 {
                    self.draw = true;
                } else if code % 2 == 1 {
                    self.quickest_loss = Some(self.quickest_loss.map_or(code, |q| q.min(code)));
                } else {
                    self.slowest_win = self.slowest_win.max(code);
                }
            }
        }
        let first = |&start: &u64, list: &mut MoveList, out: &mut Vec<u64>| {
            let end = (start + CHUNK).min(size);
            let mut highest = 0u8;
            let mut walker = PartWalker::new(slot, start);
            // A position without a capture: `inside` moves stay in the part, `exits` leave
            // it; the first pass from which it may be lost is noted, and when it is.
            let quiet_position =
                |l: usize, placement: &Placement, inside: u8, exits: &Exits, out: &mut Vec<u64>| {
                    state.remaining[l].store(inside, Ordering::Relaxed);
                    let need = if let Some(code) = exits.quickest_loss {
                        out.push(noted(false, code, list_entry(slot_number, placement)));
                        NEVER
                    } else if exits.draw {
                        NEVER
                    } else {
                        if exits.slowest_win > 0 {
                            out.push(noted(
                                false,
                                exits.slowest_win,
                                list_entry(slot_number, placement),
                            ));
                        }
                        exits.slowest_win
                    };
                    // 0, the value every position starts with, needs no store (nor has a
                    // lean solve anywhere to put it).
                    if need != 0 {
                        state.need[l].store(need, Ordering::Relaxed);
                    }
                };
            for local in start..end {
                if local > start {
                    walker.advance();
                }
                let placement = *walker.placement();
                let index = walker.whole_index(local);
                let l = local as usize;
                let (men, kings, them, their_kings, empty) = bitboards::<R>(&placement);
                let capture = first_jump::<R>(men, kings, them, their_kings, empty, true);
                if capture {
                    slot.captures[index / 64].fetch_or(1 << (index % 64), Ordering::Relaxed);
                }
                if !capture && men & next_to_crown == 0 {
                    // Quiet moves only, none crowning: king moves keep the men's placement,
                    // so they stay in the part; a man's step stays in a whole slice, and in a
                    // part when the placement it makes lies in the part (the child's index in
                    // the twin slice says so, found from the placement without playing the
                    // move), else its value is read from the part it lands in.
                    let mut inside = king_reach::<R>(kings, empty);
                    let mut exits = Exits::default();
                    for dir in Dir::UP {
                        let targets = G::<R>::step(men, dir) & empty;
                        if !split {
                            inside += targets.count_ones();
                            continue;
                        }
                        for to in crate::board::Bits(targets) {
                            let to = 1u64 << to;
                            let moved = squares_of::<G<R>>(to | G::<R>::step(to, dir.reverse()));
                            let child = flipped::<R>(&Placement {
                                white_men: placement.white_men ^ moved,
                                ..placement
                            });
                            let child_index = twin_indexer.index(&child);
                            if inside_part.holds(child_index) {
                                inside += 1;
                            } else {
                                exits.add(
                                    kind,
                                    twin_codes[child_index as usize].load(Ordering::Relaxed),
                                );
                            }
                        }
                    }
                    if inside == 0 && exits.moves == 0 {
                        memory[index].store(1, Ordering::Relaxed);
                        decided_now(out, &mut highest, 0, &placement);
                        continue;
                    }
                    quiet_position(l, &placement, inside as u8, &exits, out);
                    continue;
                }
                let position = placement.position::<R>();
                position.legal_moves_into(list);
                if list.is_empty() {
                    memory[index].store(1, Ordering::Relaxed);
                    decided_now(out, &mut highest, 0, &placement);
                    continue;
                }
                let mut inside = 0u8;
                let mut exits = Exits::default();
                for mv in list.iter() {
                    let quiet = !mv.is_capture() && !mv.promotes;
                    if quiet && !split {
                        inside += 1;
                        continue;
                    }
                    let child = position.play(mv);
                    let code = if quiet {
                        let child_index = twin_indexer.index(&Placement::of(&child));
                        if inside_part.holds(child_index) {
                            inside += 1;
                            continue;
                        }
                        twin_codes[child_index as usize].load(Ordering::Relaxed)
                    } else {
                        tables.code(&child).unwrap_or(0)
                    };
                    exits.add(kind, code);
                }
                if capture {
                    // Every move leaves the part: the value is known now.
                    let pass = match exits.quickest_loss {
                        Some(code) => Some(code),
                        None if !exits.draw => Some(exits.slowest_win),
                        None => None,
                    };
                    if let Some(pass) = pass {
                        memory[index].store(pass + 1, Ordering::Relaxed);
                        decided_now(out, &mut highest, pass, &placement);
                    }
                    continue;
                }
                debug_assert!(
                    !lean,
                    "a position of a pair without men has a quiet move out"
                );
                quiet_position(l, &placement, inside, &exits, out);
            }
            highest_first.fetch_max(highest, Ordering::Relaxed);
        };
        // Each thread's list is taken apart and dropped in turn: the lists of the passes
        // grow as it shrinks.
        for list in parallel_items_per_thread(&starts, threads, &first) {
            for noted in list {
                let pass = (noted >> 48) as u8 as usize;
                let entry = noted & !NOTED_BITS;
                if noted >> 56 & 1 == 1 {
                    decided_at[pass].push(entry);
                } else {
                    scheduled[pass].push(entry);
                }
            }
        }
    }
    let highest_first = highest_first.into_inner();
    let mut frontier: Vec<u64> = Vec::new();
    // Positions a lean solve decided in the pass before (their code is this pass).
    let mut lean_decided = 0u64;
    for pass in 0..=255usize {
        let mut decided = std::mem::take(&mut decided_at[pass]);
        let checks = std::mem::take(&mut scheduled[pass]);
        let done = if lean {
            pass > 0 && lean_decided == 0 && pass > usize::from(highest_first)
        } else {
            frontier.is_empty()
                && decided.is_empty()
                && checks.is_empty()
                && decided_at[pass..].iter().all(|d| d.is_empty())
                && scheduled[pass..].iter().all(|s| s.is_empty())
        };
        if done {
            return Ok(());
        }
        if pass >= 254 {
            return Err(format!(
                "slice {name} has a win longer than 253 plies, more than a one-byte code holds"
            ));
        }
        if pass > 0 {
            progress.message(&format!("{name} pass {pass}"));
            let code = pass as u8 + 1;
            let win = pass % 2 == 1;
            // Decides a position in this pass unless it was decided before.
            let decide = |slot: usize, index: usize, placement: &Placement, out: &mut Vec<u64>| {
                if codes[slot][index]
                    .compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
                {
                    out.push(list_entry(slot, placement));
                }
            };
            // The un-moves of a batch of positions are listed first and their values read
            // in one loop, whose loads (mostly cache misses in a large slice) overlap; only
            // then is each predecessor judged.
            let walk = |batch: &[u64], out: &mut Vec<u64>| {
                let mut found: Vec<(usize, usize, u64)> = Vec::with_capacity(batch.len() * 16);
                for &decided in batch {
                    let (slot, child) = open(decided);
                    let parent = twin(slot);
                    // Taking a man's step back adds one to the distance of the men's
                    // placement: from a position at its part's largest distance, that
                    // leads to a part solved later.
                    let men_back = match &slots[parent].part {
                        Part::Whole => true,
                        Part::Units { parts, part, .. } => {
                            distance::<R>(&child) < parts.top_distance(*part)
                        }
                    };
                    for_each_predecessor::<R>(&child, men_back, |placement| {
                        // A predecessor outside the part (its men further from their
                        // crowning rows) is solved later, with this position among its
                        // known successors.
                        if let Some((index, local)) = slots[parent].locate(placement) {
                            found.push((index, local, list_entry(parent, placement)));
                        }
                    });
                }
                let values: Vec<u8> = found
                    .iter()
                    .map(|&(index, _, entry)| {
                        codes[(entry >> 63) as usize][index].load(Ordering::Relaxed)
                    })
                    .collect();
                if !win {
                    // The same for the counts of the undecided ones.
                    let counts: u32 = found
                        .iter()
                        .zip(&values)
                        .filter(|&(_, &value)| value == 0)
                        .map(|(&(_, local, entry), _)| {
                            let state = &work[(entry >> 63) as usize];
                            u32::from(state.remaining[local].load(Ordering::Relaxed))
                                + u32::from(state.need(local))
                        })
                        .sum();
                    std::hint::black_box(counts);
                }
                for (&(index, local, entry), &value) in found.iter().zip(&values) {
                    if value != 0 {
                        continue;
                    }
                    let parent = (entry >> 63) as usize;
                    let state = &work[parent];
                    // After a loss every undecided predecessor wins; after a win, the one
                    // whose last move inside the part this was loses, if the moves out of
                    // the part allow it now.
                    if (win
                        || (state.remaining[local].fetch_sub(1, Ordering::Relaxed) == 1
                            && state.need(local) as usize <= pass))
                        && codes[parent][index]
                            .compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed)
                            .is_ok()
                    {
                        out.push(entry);
                    }
                }
            };
            if lean {
                lean_decided = lean_pass(slots, pass as u8, threads, &walk);
                continue;
            }
            decided.extend(parallel_batches(&frontier, threads, 64, &walk));
            let check = |&scheduled: &u64, _: &mut MoveList, out: &mut Vec<u64>| {
                let (slot, placement) = open(scheduled);
                let (index, local) = slots[slot]
                    .locate(&placement)
                    .expect("a scheduled position lies in its part");
                if win || work[slot].remaining[local].load(Ordering::Relaxed) == 0 {
                    decide(slot, index, &placement, out);
                }
            };
            decided.extend(parallel_items(&checks, threads, &check));
        }
        frontier = decided;
    }
    Ok(())
}

/// Checks that every successor of every slice of the pair lies in a held slice (a missing
/// one means the generation order is wrong, which must not pass silently).
fn check_successors_covered<R: Rules>(tables: &Tables, material: Material) -> Result<(), String> {
    let indexer = Indexer::new::<R>(material);
    let step = (indexer.size() / 500).max(1);
    let mut index = 0;
    while index < indexer.size() {
        let position = indexer.placement(index).position::<R>();
        for mv in position.legal_moves().iter() {
            let child = position.play(mv);
            if tables.code(&child).is_none() {
                return Err(format!(
                    "slice {material}: successor slice {} is missing",
                    Placement::of(&child).material()
                ));
            }
        }
        index += step;
    }
    Ok(())
}

/// Generates (or loads, where valid files exist) every slice of `R` up to `max_pieces`
/// pieces under `dir`, with distances.
pub fn generate<R: Rules>(dir: &Path, max_pieces: usize, threads: usize) -> Result<Report, String> {
    generate_with::<R>(dir, max_pieces, threads, None, &mut NoProgress, &mut |_| {})
}

/// [`generate`], with win/draw/loss values for the slices of `wdl_from` pieces or more (and
/// for every slice solved after a win/draw/loss slice, held or solved: a distance can only
/// be counted through successors that have one), reporting its progress to `progress` and
/// calling `on_solved` with each solved slice's line of [`Report::solved`] (material,
/// positions, seconds, file bytes) as soon as its file is written. A valid file already
/// present is kept, whatever its kind. Every slice is held in memory; see
/// [`generate_bounded`] for a bound.
pub fn generate_with<R: Rules>(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    wdl_from: Option<usize>,
    progress: &mut dyn Progress,
    on_solved: &mut dyn FnMut(&Solved),
) -> Result<Report, String> {
    let options = GenOptions {
        threads,
        wdl_from,
        ..GenOptions::default()
    };
    generate_bounded::<R>(dir, max_pieces, &options, progress, on_solved)
}

/// How a generation run may use the machine.
#[derive(Clone, Debug, Default)]
pub struct GenOptions {
    /// Threads (0 counts as 1).
    pub threads: usize,
    /// Win/draw/loss values from this many pieces on (see [`generate_with`]).
    pub wdl_from: Option<usize>,
    /// Bytes of memory the run may use, or `None` for no bound (every slice held in
    /// memory, each pair solved whole). With a bound, a pair too large to solve whole is
    /// solved a part at a time (see [`UnitParts`]), and slices solved before are read from
    /// their files through a block cache when holding them would pass the bound.
    pub memory: Option<u64>,
    /// For tests: end with an error after this many parts are solved, as a killed run
    /// would (the next run resumes from the parts' checkpoints).
    pub stop_after_parts: Option<usize>,
    /// For tests: solve every pair the leanest way, whatever the bound: a part at a time,
    /// or lean when it has no men (the files are the same as those of pairs solved whole).
    pub force_parts: bool,
}

/// Bytes a position of a pair solved whole takes while solving: its value, a capture bit,
/// and what a position of the part being solved takes ([`PART_BYTES`]).
const WHOLE_BYTES: u64 = 22;
/// Bytes a position of the part being solved takes besides its value: two counters, and
/// the 8-byte entries of the lists of the passes, which hold many of its positions twice
/// at the end of the first pass (a thread's list and the pass's).
const PART_BYTES: u64 = 20;
/// Bytes a position of a pair without men takes while solving (a lean solve, see
/// [`is_lean`]): its value, its count of moves, its capture bit, rounded up.
const LEAN_BYTES: u64 = 3;

/// How a pair is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Solve {
    /// Whole, with lists of the positions of each pass.
    Whole,
    /// Whole without lists ([`is_lean`]; pairs without men).
    Lean,
    /// A part at a time ([`UnitParts`]), each part of at most this many positions (a power
    /// of two, so that a run under a slightly different bound makes the same parts and
    /// resumes from their checkpoints).
    Parts(u64),
}

/// How a memory bound is shared out: the block cache, and the memory each pair needs.
struct MemoryPlan {
    budget: u64,
    cache: u64,
}

/// One pair's sizes: its positions, its largest slice, and what its parts need.
struct PairSizes {
    /// No men: never solved a part at a time (its only unit is the whole pair), but lean
    /// when it does not fit whole.
    menless: bool,
    positions: u64,
    largest_slice: u64,
    /// Positions of the smallest part: a unit with its twin.
    least_part: u64,
    /// Bytes of the tables of its parts ([`UnitParts::bytes`]).
    part_tables: u64,
}

impl PairSizes {
    fn of<R: Rules>(pair: &[Material]) -> PairSizes {
        let sizes: Vec<u64> = pair.iter().map(|&m| Indexer::new::<R>(m).size()).collect();
        let positions = sizes.iter().sum();
        PairSizes {
            menless: pair[0].men() == 0,
            positions,
            largest_slice: sizes.iter().copied().max().unwrap_or(0),
            least_part: (2 * Indexer::new::<R>(pair[0]).unit_size()).min(positions),
            part_tables: UnitParts::bytes::<R>(pair),
        }
    }

    /// Bytes to solve the pair whole (the file image of its largest slice included).
    fn whole(&self) -> u64 {
        self.positions * WHOLE_BYTES + self.file_image()
    }

    /// Bytes to solve a pair without men lean (see [`is_lean`]).
    fn lean(&self) -> u64 {
        self.positions * LEAN_BYTES + self.file_image()
    }

    /// Bytes the largest slice's file takes while it is coded and written: its block
    /// index (12 bytes a block), and the buffers of the writing and of the checksum's
    /// reading back (64 KB each).
    fn file_image(&self) -> u64 {
        self.largest_slice.div_ceil(4096) * 12 + (1 << 18)
    }

    /// Bytes to solve it a part at a time, whatever the parts: every value and capture bit
    /// of the pair, the file image and the tables of the parts.
    fn split_base(&self) -> u64 {
        self.positions + self.positions / 8 + self.file_image() + self.part_tables
    }

    /// Bytes to solve it in parts of at most `target` positions: [`PairSizes::split_base`]
    /// and the working state of the largest part.
    fn split(&self, target: u64) -> u64 {
        self.split_base() + target.max(self.least_part).min(self.positions) * PART_BYTES
    }
}

impl MemoryPlan {
    fn new(budget: u64) -> MemoryPlan {
        MemoryPlan {
            budget,
            cache: cache_within(budget),
        }
    }

    /// How the pair is solved, and the bytes it needs; an error when even its smallest
    /// parts (or, without men, its lean solve) do not fit the bound.
    fn for_pair(&self, pair: &[Material], sizes: &PairSizes) -> Result<(Solve, u64), String> {
        let room = self.budget.saturating_sub(self.cache);
        if sizes.whole() <= room {
            return Ok((Solve::Whole, sizes.whole()));
        }
        if sizes.menless && sizes.lean() <= room {
            return Ok((Solve::Lean, sizes.lean()));
        }
        if !sizes.menless {
            // The largest parts that fit, rounded down to a power of two.
            let fit = room.saturating_sub(sizes.split_base()) / PART_BYTES;
            if fit >= sizes.least_part {
                let target = 1u64 << (63 - fit.leading_zeros());
                return Ok((Solve::Parts(target), sizes.split(target)));
            }
        }
        let gb = |bytes: u64| bytes as f64 / 1e9;
        let (least, how) = if sizes.menless {
            (sizes.lean(), "solved lean (it has no men to split it by)")
        } else {
            (sizes.split(sizes.least_part), "even a part at a time")
        };
        Err(format!(
            "slice {} needs about {:.2} GB {how} (and {:.2} GB of cache); the memory bound is {:.2} GB",
            pair[0],
            gb(least),
            gb(self.cache),
            gb(self.budget)
        ))
    }
}

/// The block cache for the slices read on demand under a memory bound of `budget` bytes:
/// an eighth of it, from 16 MB (so a small bound still caches a useful set) to 1 GB, and
/// never more than half.
pub(super) fn cache_within(budget: u64) -> u64 {
    (budget / 8).clamp(16 << 20, 1 << 30).min(budget / 2)
}

/// Bytes the slices held in memory take (one a position).
pub(super) fn resident_bytes(tables: &Tables) -> u64 {
    tables
        .slices()
        .filter(|slice| tables.in_memory(slice.indexer.material()))
        .map(|slice| slice.indexer.size())
        .sum()
}

/// Reads slices held in memory (largest first, none of `keep`) from their files on demand
/// instead, until the ones left take at most `allowed` bytes.
pub(super) fn evict<R: Rules>(
    tables: &mut Tables,
    dir: &Path,
    allowed: u64,
    keep: &[Material],
) -> Result<(), String> {
    let mut held: Vec<(u64, Material)> = tables
        .slices()
        .map(|slice| (slice.indexer.size(), slice.indexer.material()))
        .filter(|&(_, m)| tables.in_memory(m) && !keep.contains(&m))
        .collect();
    held.sort();
    let mut resident = resident_bytes(tables);
    while resident > allowed {
        let Some((size, material)) = held.pop() else {
            break;
        };
        let slice = Tables::slice_on_demand::<R>(dir, material).map_err(|e| e.to_string())?;
        tables.insert(Arc::new(slice));
        resident -= size;
    }
    Ok(())
}

/// The checkpoint file of one slice's part: its values as solved (raw codes, the capture
/// positions' included) in the part's index order, in the slice file format, named by
/// [`part_label`].
fn part_path(
    dir: &Path,
    family: &str,
    material: Material,
    label: &str,
    kind: ValueKind,
) -> PathBuf {
    let kind = match kind {
        ValueKind::Distance => "dist",
        ValueKind::WinDrawLoss => "wdl",
    };
    dir.join(family)
        .join(format!("{}.{label}.{kind}.part", material.name()))
}

/// What names a part among a pair's checkpoints: the power of two of the parts' size
/// bound, the part's number and how many there are (`t20.p3-of-40`), so that a run that
/// cuts the pair otherwise finds none of its own.
fn part_label(target: u64, part: usize, parts: usize) -> String {
    format!("t{}.p{part}-of-{parts}", target.trailing_zeros())
}

/// Removes every part checkpoint of a slice (any run's).
fn remove_checkpoints(dir: &Path, family: &str, material: Material) {
    let prefix = format!("{}.", material.name());
    let Ok(entries) = std::fs::read_dir(dir.join(family)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".part") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The part checkpoints of one slice that an unfinished generation left (see
/// [`GenOptions::memory`]): the run that finishes the slice resumes from them, then
/// removes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoints {
    /// The slice.
    pub material: Material,
    /// Parts with a checkpoint file.
    pub saved: usize,
    /// Parts the slice's pair was cut into.
    pub parts: usize,
}

/// The part checkpoints under `dir` for `R`'s family, slice by slice in generation order
/// (an empty list when there are none or the directory cannot be read). Names that are not
/// [`part_label`]'s (an older build's) are left out.
pub fn checkpoints<R: Rules>(dir: &Path) -> Vec<Checkpoints> {
    let Some(family) = family(R::VARIANT) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir.join(family)) else {
        return Vec::new();
    };
    let known = Material::all::<R>(super::MAX_PIECES);
    let mut saved: std::collections::BTreeMap<(usize, usize, Material), (usize, usize)> =
        std::collections::BTreeMap::new();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        // SLICE.tT.pP-of-N.KIND.part, as `part_path` names them.
        let Some(stem) = name.strip_suffix(".part") else {
            continue;
        };
        let fields: Vec<&str> = stem.split('.').collect();
        let [slice, _, part, _] = fields[..] else {
            continue;
        };
        let (Some(material), Some(parts)) = (
            Material::parse(slice),
            part.split_once("-of-")
                .and_then(|(_, parts)| parts.parse::<usize>().ok()),
        ) else {
            continue;
        };
        if known.contains(&material) {
            let entry = saved
                .entry((material.total(), material.men(), material))
                .or_default();
            *entry = (entry.0 + 1, parts);
        }
    }
    saved
        .into_iter()
        .map(|((_, _, material), (saved, parts))| Checkpoints {
            material,
            saved,
            parts,
        })
        .collect()
}

/// Writes the checkpoint of each slot of a solved part.
fn save_part<R: Rules>(
    dir: &Path,
    family: &str,
    slots: &[Slot],
    kind: ValueKind,
    label: &str,
) -> Result<(), String> {
    for slot in slots {
        let Part::Units { parts, slice, part } = slot.part else {
            continue;
        };
        let material = slot.slice.indexer.material();
        let memory = slot.slice.memory();
        let path = part_path(dir, family, material, label, kind);
        write_blocks_atomically(
            &path,
            R::VARIANT,
            material,
            slot.size(),
            ValueKind::Distance,
            |range, out| {
                // Unit by unit: each is a run of the slice.
                let mut local = range.start as u64;
                while local < range.end as u64 {
                    let (index, run) = parts.run(slice, part, local);
                    let run = run.min(range.end as u64 - local);
                    let values = &memory[index as usize..(index + run) as usize];
                    out.extend(values.iter().map(|code| code.load(Ordering::Relaxed)));
                    local += run;
                }
            },
        )
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// Restores a solved part from its checkpoints (values and capture bits); false when a
/// slot has no valid checkpoint (the part is solved again).
fn restore_part<R: Rules>(
    dir: &Path,
    family: &str,
    slots: &[Slot],
    kind: ValueKind,
    label: &str,
) -> bool {
    let mut all = Vec::new();
    for slot in slots {
        let material = slot.slice.indexer.material();
        let path = part_path(dir, family, material, label, kind);
        let Ok(file) = SliceFile::open(&path, R::VARIANT, material, slot.size()) else {
            return false;
        };
        let Ok(values) = file.decode_all(&path) else {
            return false;
        };
        all.push(values);
    }
    for (slot, values) in slots.iter().zip(all) {
        let memory = slot.slice.memory();
        let mut walker = PartWalker::new(slot, 0);
        for (local, &code) in values.iter().enumerate() {
            if local > 0 {
                walker.advance();
            }
            let p = walker.placement();
            let index = walker.whole_index(local as u64);
            memory[index].store(code, Ordering::Relaxed);
            let (men, kings, them, their_kings, empty) = bitboards::<R>(p);
            if first_jump::<R>(men, kings, them, their_kings, empty, true) {
                slot.captures[index / 64].fetch_or(1 << (index % 64), Ordering::Relaxed);
            }
        }
    }
    true
}

/// The slices in pairs, each with its colour-reversed twin when it is among them, in the
/// order of `materials` (fewer pieces, then fewer men first: a capture or a promotion leads
/// to a pair before).
pub(super) fn pairs_of(materials: &[Material]) -> Vec<Vec<Material>> {
    let mut seen = std::collections::HashSet::new();
    let mut pairs = Vec::new();
    for &material in materials {
        if !seen.insert(material) {
            continue;
        }
        let twin = material.flipped();
        if twin != material && materials.contains(&twin) {
            seen.insert(twin);
            pairs.push(vec![material, twin]);
        } else {
            pairs.push(vec![material]);
        }
    }
    pairs
}

/// [`generate_with`] under the bounds of `options`.
pub fn generate_bounded<R: Rules>(
    dir: &Path,
    max_pieces: usize,
    options: &GenOptions,
    progress: &mut dyn Progress,
    on_solved: &mut dyn FnMut(&Solved),
) -> Result<Report, String> {
    let family =
        family(R::VARIANT).ok_or_else(|| format!("{} has no endgame tables", R::VARIANT.name()))?;
    let threads = options.threads.max(1);
    let started = Instant::now();
    let materials = Material::all::<R>(max_pieces);
    let pairs = pairs_of(&materials);
    let plan = options.memory.map(MemoryPlan::new);
    // Every pair's need is known before the first is solved: a bound too small fails now,
    // not hours into the run.
    let mut needs = Vec::with_capacity(pairs.len());
    for pair in &pairs {
        needs.push(match &plan {
            Some(plan) => plan.for_pair(pair, &PairSizes::of::<R>(pair))?,
            None => (Solve::Whole, 0),
        });
    }
    let total: u64 = materials.iter().map(|&m| Indexer::new::<R>(m).size()).sum();
    progress.start(total);
    let mut tables = Tables::new(R::VARIANT);
    if let Some(plan) = &plan {
        tables.set_cache(plan.cache as usize);
    }
    let mut report = Report::default();
    let mut parts_solved = 0usize;
    // Once a slice is win/draw/loss, so is every slice after it (it may be a successor).
    let mut wdl_seen = false;
    for (number, pair) in pairs.iter().enumerate() {
        let size: u64 = pair.iter().map(|&m| Indexer::new::<R>(m).size()).sum();
        // What the pairs still to come need at most: slices loaded now must leave it free.
        let upcoming = needs[number..]
            .iter()
            .map(|&(_, need)| need)
            .max()
            .unwrap_or(0);
        // Resume: a pair whose files are all present and valid is loaded, not solved.
        let present = pair
            .iter()
            .all(|&m| Tables::slice_on_demand::<R>(dir, m).is_ok());
        if present {
            for &m in pair {
                let fits = plan.as_ref().is_none_or(|plan| {
                    resident_bytes(&tables) + Indexer::new::<R>(m).size() + upcoming + plan.cache
                        <= plan.budget
                });
                let slice = if fits {
                    let mut slice = Tables::load_slice::<R>(dir, m).map_err(|e| e.to_string())?;
                    fill_captures::<R>(&tables, &mut slice, threads);
                    slice
                } else {
                    Tables::slice_on_demand::<R>(dir, m).map_err(|e| e.to_string())?
                };
                wdl_seen |= slice.kind == ValueKind::WinDrawLoss;
                tables.insert(Arc::new(slice));
            }
            report.loaded += pair.len();
            progress.advance(size);
            continue;
        }
        let (solve, need) = needs[number];
        let solve = match (options.force_parts, pair[0].men()) {
            (true, 0) => Solve::Lean,
            // About sixteen parts, whatever the bound.
            (true, _) => Solve::Parts((size / 16).max(1).next_power_of_two()),
            (false, _) => solve,
        };
        let split = matches!(solve, Solve::Parts(_));
        report.lean += usize::from(solve == Solve::Lean);
        if let Some(plan) = &plan {
            evict::<R>(&mut tables, dir, plan.budget - plan.cache - need, pair)?;
        }
        let pair_started = Instant::now();
        wdl_seen |= options.wdl_from.is_some_and(|from| pair[0].total() >= from);
        let kind = if wdl_seen {
            ValueKind::WinDrawLoss
        } else {
            ValueKind::Distance
        };
        for &m in pair {
            tables.insert(Arc::new(Slice::empty(Indexer::new::<R>(m), kind)));
        }
        for &m in pair {
            check_successors_covered::<R>(&tables, m)?;
        }
        let slices: Vec<&Slice> = pair
            .iter()
            .map(|&m| tables.slice(m).expect("inserted").as_ref())
            .collect();
        let captures: Vec<Vec<AtomicU64>> = slices
            .iter()
            .map(|slice| {
                (0..slice.indexer.size().div_ceil(64))
                    .map(|_| AtomicU64::new(0))
                    .collect()
            })
            .collect();
        if let Solve::Parts(target) = solve {
            progress.message(&format!("{} parts", pair[0]));
            let parts = UnitParts::new::<R>(pair, target);
            for part in 0..parts.parts() {
                let slots: Vec<Slot> = (0..pair.len())
                    .map(|slice| Slot {
                        slice: slices[slice],
                        part: Part::Units {
                            parts: &parts,
                            slice,
                            part,
                        },
                        captures: &captures[slice],
                    })
                    .collect();
                let label = part_label(target, part, parts.parts());
                if restore_part::<R>(dir, family, &slots, kind, &label) {
                    continue;
                }
                if options
                    .stop_after_parts
                    .is_some_and(|stop| parts_solved >= stop)
                {
                    return Err(format!("stopped after {parts_solved} parts, as asked"));
                }
                let name = format!("{} part {} of {}", pair[0], part + 1, parts.parts());
                solve_part::<R>(&tables, &slots, kind, false, threads, progress, &name)?;
                save_part::<R>(dir, family, &slots, kind, &label)?;
                parts_solved += 1;
            }
        } else {
            let slots: Vec<Slot> = slices
                .iter()
                .zip(&captures)
                .map(|(slice, captures)| Slot {
                    slice,
                    part: Part::Whole,
                    captures,
                })
                .collect();
            let lean = solve == Solve::Lean;
            let name = pair[0].name();
            solve_part::<R>(&tables, &slots, kind, lean, threads, progress, &name)?;
        }
        let seconds = pair_started.elapsed().as_secs_f64() / pair.len() as f64;
        for ((&m, slice), captures) in pair.iter().zip(&slices).zip(&captures) {
            let memory = slice.memory();
            // Each position with a capture pending takes the value of the position before
            // it: those values are never read from a file (a lookup works them out from
            // the successors, which lie in smaller slices), so copying the neighbour only
            // lengthens the runs the file codes (the "don't care" positions of Chinook's
            // and Kingsrow's databases, Schaeffer et al. 2003). A win/draw/loss slice keeps only the result, in memory
            // too, where later slices read it as a successor (the solver counted plies to
            // the conversion).
            let mut previous = 0u8;
            let path = slice_path(dir, family, m);
            let size = slice.indexer.size();
            let bytes = write_blocks_atomically(&path, R::VARIANT, m, size, kind, |range, out| {
                for index in range {
                    let mut code = memory[index].load(Ordering::Relaxed);
                    if kind == ValueKind::WinDrawLoss {
                        code = ValueKind::wdl_code(code);
                        memory[index].store(code, Ordering::Relaxed);
                    }
                    if captures[index / 64].load(Ordering::Relaxed) >> (index % 64) & 1 == 0 {
                        previous = code;
                    }
                    out.push(previous);
                }
            })
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let line = (m, size, seconds, bytes as usize);
            on_solved(&line);
            report.solved.push(line);
        }
        if split {
            for &m in pair {
                remove_checkpoints(dir, family, m);
            }
        }
        progress.advance(size);
    }
    progress.finish();
    report.elapsed = started.elapsed();
    report.parts = parts_solved;
    report.on_demand = tables
        .slices()
        .filter(|slice| !tables.in_memory(slice.indexer.material()))
        .count();
    Ok(report)
}

/// Works out, once, the value of every position of a slice loaded from a file that has a
/// capture pending (not stored there: see [`generate_bounded`]) from its successors, which
/// lie in smaller slices already held, and marks the slice complete: the generator's
/// lookups into it are then one index each, never a search of the successors.
pub(super) fn fill_captures<R: Rules>(tables: &Tables, slice: &mut Slice, threads: usize) {
    let filled: &Slice = slice;
    let size = filled.indexer.size();
    let starts: Vec<u64> = (0..size).step_by(CHUNK as usize).collect();
    let work = |&start: &u64, _: &mut MoveList, _: &mut Vec<()>| {
        let mut walker = Walker::new(&filled.indexer, start);
        for index in start..(start + CHUNK).min(size) {
            if index > start {
                walker.advance();
            }
            let position = walker.placement().position::<R>();
            if can_capture(&position)
                && let Some(code) = tables
                    .value_from_successors(&position)
                    .and_then(Value::code)
            {
                filled.memory()[index as usize].store(code, Ordering::Relaxed);
            }
        }
    };
    parallel_items(&starts, threads, &work);
    slice.captures_stored = true;
}
