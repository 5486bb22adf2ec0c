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
//! position counts its moves not yet known to lose (see `solve_pair`); positions never
//! decided are draws.
//!
//! A pair is written to disk (atomically) as soon as it is solved; a later run loads the
//! slices whose files are present and valid and goes on with the rest.

use super::file::{encode, slice_path, write_atomically};
use super::probe::{Slice, Tables};
use super::{Indexer, Material, Placement, Value, ValueKind, Walker, bits_of, family, turned};
use crate::board::{Dir, Geometry};
use crate::movegen::{MoveList, king_reach};
use crate::position::Position;
use crate::rules::{Color, Rules};
use std::path::Path;
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
}

/// Runs `work(index)` for every index below `size` on `threads` threads.
fn parallel(size: u64, threads: usize, work: &(dyn Fn(u64, &mut MoveList) + Sync)) {
    let next = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut list = MoveList::new();
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= size {
                        break;
                    }
                    for index in start..(start + CHUNK).min(size) {
                        work(index, &mut list);
                    }
                }
            });
        }
    });
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

/// Calls `f` with every position (as a placement from its mover's side, so in the twin
/// slice) from which a quiet move of the side not to move leads to `child` (White to
/// move): that side's last move taken back. A man steps back towards its own side, a king
/// back along a diagonal over empty squares; positions where that move was not legal (a
/// capture was pending) are left out. Every quiet move into `child` is found exactly once,
/// which the counts of [`solve_pair`] rely on. Works on bitboards: no position is built.
#[inline]
fn for_each_predecessor<R: Rules>(child: &Placement, mut f: impl FnMut(&Placement)) {
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
    for bit in Bits(black_men) {
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
    let chunk = (CHUNK as usize).min(items.len().div_ceil(threads.max(1) * 4).max(64));
    parallel_batches(items, threads, chunk, &|batch, out| {
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
            .flat_map(|h| h.join().expect("a generator thread"))
            .collect()
    })
}

/// `need` of a position that can never be lost (a move leaves the pair into a draw or a
/// loss).
const NEVER: u8 = 255;

/// The working state of one slice of the pair being solved, besides its values.
struct Work {
    /// Moves that stay in the pair whose successor is not known to be won yet.
    remaining: Vec<AtomicU8>,
    /// The first pass at which the moves leaving the pair allow a loss (the slowest win
    /// among them, plus one; 0 when there is none), or [`NEVER`].
    need: Vec<AtomicU8>,
    /// One bit per position: a capture is pending (so its value is not stored in the file).
    captures: Vec<AtomicU64>,
}

/// What the first pass found for one position, besides what it wrote in [`Work`].
enum Noted {
    /// Decided now (no move, or only captures): its value is written; it joins the
    /// positions decided in this pass, so that its predecessors are looked at then.
    Decided(u8),
    /// To be looked at in this pass: a win (odd) through a promotion into a loss, or a loss
    /// (even) once every move inside the pair leads to a win.
    Scheduled(u8),
}

/// Solves one slice and its twin, both already inserted in `tables` as empty slices.
///
/// Retrograde analysis with counts: one pass over every position notes how many of its
/// moves stay inside the pair (quiet moves that promote nothing) and what the moves that
/// leave it are worth (captures and promotions, into slices solved before). A position
/// with a capture pending has only such moves, so it is decided at once, as is one with no
/// move (`Loss(0)`). Then pass `k` takes the positions decided in pass `k - 1` and walks
/// their un-moves: after a `Loss(k - 1)` every undecided predecessor is `Win(k)`; after a
/// `Win(k - 1)` each undecided predecessor counts one more move into a won position, and
/// the one whose every move is now known to win for the opponent is `Loss(k)`, unless a
/// move out of the pair wins more slowly, whose pass it then waits for. Every position is
/// decided by compare-and-swap on its value, so it joins its pass exactly once.
///
/// For a win/draw/loss pair (`kind`), every move out of the pair counts as the quickest end
/// its value allows (a loss in 0 or a win in 1), so the passes count plies to the
/// conversion, which stay short where distances to the end would not fit a code.
fn solve_pair<R: Rules>(
    tables: &Tables,
    pair: &[Material],
    kind: ValueKind,
    threads: usize,
    progress: &mut dyn Progress,
) -> Result<Vec<Vec<AtomicU64>>, String> {
    type G<R> = <R as Rules>::Geometry;
    let slices: Vec<&Arc<Slice>> = pair
        .iter()
        .map(|&m| tables.slice(m).expect("the pair was inserted"))
        .collect();
    let codes: Vec<&[AtomicU8]> = slices.iter().map(|slice| slice.memory()).collect();
    let work: Vec<Work> = slices
        .iter()
        .map(|slice| {
            let size = slice.indexer.size() as usize;
            Work {
                remaining: (0..size).map(|_| AtomicU8::new(0)).collect(),
                need: (0..size).map(|_| AtomicU8::new(0)).collect(),
                captures: (0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            }
        })
        .collect();
    // A position of the pair in a list: its slot in bit 63 over its packed placement
    // ([`Placement::pack`]), so that walking its un-moves needs no unranking.
    let entry = |slot: usize, placement: &Placement| (slot as u64) << 63 | placement.pack();
    let open = |entry: u64| {
        let slot = (entry >> 63) as usize;
        (slot, Placement::unpack(entry & !(1 << 63), pair[slot]))
    };
    // Positions decided in the first pass (by the pass whose value they hold) and those to
    // be looked at in a given pass.
    let mut decided_at: Vec<Vec<u64>> = vec![Vec::new(); 256];
    let mut scheduled: Vec<Vec<u64>> = vec![Vec::new(); 256];
    progress.message(&format!("{} first pass", pair[0]));
    // White's men are crowned on the first row; those on the second may promote.
    let crowning = Position::<R>::promotion_row(Color::White);
    let next_to_crown =
        G::<R>::step(crowning, Dir::DownLeft) | G::<R>::step(crowning, Dir::DownRight);
    for (slot, slice) in slices.iter().enumerate() {
        let size = slice.indexer.size();
        let state = &work[slot];
        let starts: Vec<u64> = (0..size).step_by(CHUNK as usize).collect();
        let first = |&start: &u64, list: &mut MoveList, out: &mut Vec<(Noted, u64)>| {
            let end = (start + CHUNK).min(size);
            let mut walker = Walker::new(&slice.indexer, start);
            let mut capture_bits = 0u64;
            for index in start..end {
                if index > start {
                    walker.advance();
                }
                let placement = walker.placement();
                let i = index as usize;
                let men = bits_of::<G<R>>(placement.white_men);
                let kings = bits_of::<G<R>>(placement.white_kings);
                let their_kings = bits_of::<G<R>>(placement.black_kings);
                let them = bits_of::<G<R>>(placement.black_men) | their_kings;
                let empty = G::<R>::BOARD & !(men | kings | them);
                let capture = first_jump::<R>(men, kings, them, their_kings, empty, true);
                if capture {
                    capture_bits |= 1 << (index % 64);
                }
                if index % 64 == 63 || index + 1 == end {
                    state.captures[i / 64].store(capture_bits, Ordering::Relaxed);
                    capture_bits = 0;
                }
                if !capture && men & next_to_crown == 0 {
                    // Quiet moves only, none crowning: all stay in the pair.
                    let moves = (G::<R>::step(men, Dir::UpLeft) & empty).count_ones()
                        + (G::<R>::step(men, Dir::UpRight) & empty).count_ones()
                        + king_reach::<R>(kings, empty);
                    if moves == 0 {
                        slice.memory()[i].store(1, Ordering::Relaxed);
                        out.push((Noted::Decided(0), entry(slot, placement)));
                    }
                    state.remaining[i].store(moves as u8, Ordering::Relaxed);
                    continue;
                }
                let position = placement.position::<R>();
                position.legal_moves_into(list);
                if list.is_empty() {
                    slice.memory()[i].store(1, Ordering::Relaxed);
                    out.push((Noted::Decided(0), entry(slot, placement)));
                    continue;
                }
                let mut inside = 0u8;
                let mut quickest_loss: Option<u8> = None;
                let mut slowest_win = 0u8;
                let mut draw = false;
                for mv in list.iter() {
                    if !mv.is_capture() && !mv.promotes {
                        inside += 1;
                        continue;
                    }
                    let mut code = tables.code(&position.play(mv)).unwrap_or(0);
                    if kind == ValueKind::WinDrawLoss {
                        code = ValueKind::wdl_code(code);
                    }
                    if code == 0 {
                        draw = true;
                    } else if code % 2 == 1 {
                        quickest_loss = Some(quickest_loss.map_or(code, |q| q.min(code)));
                    } else {
                        slowest_win = slowest_win.max(code);
                    }
                }
                if capture {
                    // Every move leaves the pair: the value is known now.
                    let pass = match quickest_loss {
                        Some(code) => Some(code),
                        None if !draw => Some(slowest_win),
                        None => None,
                    };
                    if let Some(pass) = pass {
                        slice.memory()[i].store(pass + 1, Ordering::Relaxed);
                        out.push((Noted::Decided(pass), entry(slot, placement)));
                    }
                    continue;
                }
                state.remaining[i].store(inside, Ordering::Relaxed);
                let need = if let Some(code) = quickest_loss {
                    out.push((Noted::Scheduled(code), entry(slot, placement)));
                    NEVER
                } else if draw {
                    NEVER
                } else {
                    if slowest_win > 0 {
                        out.push((Noted::Scheduled(slowest_win), entry(slot, placement)));
                    }
                    slowest_win
                };
                state.need[i].store(need, Ordering::Relaxed);
            }
        };
        for (noted, entry) in parallel_items(&starts, threads, &first) {
            match noted {
                Noted::Decided(pass) => decided_at[pass as usize].push(entry),
                Noted::Scheduled(pass) => scheduled[pass as usize].push(entry),
            }
        }
    }
    let twin = |slot: usize| if pair.len() == 1 { 0 } else { 1 - slot };
    let mut frontier: Vec<u64> = Vec::new();
    for pass in 0..=255usize {
        let mut decided = std::mem::take(&mut decided_at[pass]);
        let checks = std::mem::take(&mut scheduled[pass]);
        if frontier.is_empty()
            && decided.is_empty()
            && checks.is_empty()
            && decided_at[pass..].iter().all(|d| d.is_empty())
            && scheduled[pass..].iter().all(|s| s.is_empty())
        {
            return Ok(work.into_iter().map(|w| w.captures).collect());
        }
        if pass >= 254 {
            return Err(format!(
                "slice {} has a win longer than 253 plies, more than a one-byte code holds",
                pair[0]
            ));
        }
        if pass > 0 {
            progress.message(&format!("{} pass {pass}", pair[0]));
            let code = pass as u8 + 1;
            let win = pass % 2 == 1;
            // Decides a position in this pass unless it was decided before.
            let decide = |slot: usize, index: usize, placement: &Placement, out: &mut Vec<u64>| {
                if codes[slot][index]
                    .compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
                {
                    out.push(entry(slot, placement));
                }
            };
            // The un-moves of a batch of positions are listed first and their values read
            // in one loop, whose loads (mostly cache misses in a large slice) overlap; only
            // then is each predecessor judged.
            let walk = |batch: &[u64], out: &mut Vec<u64>| {
                let mut found: Vec<(usize, u64)> = Vec::with_capacity(batch.len() * 16);
                for &decided in batch {
                    let (slot, child) = open(decided);
                    let parent = twin(slot);
                    let indexer = &slices[parent].indexer;
                    for_each_predecessor::<R>(&child, |placement| {
                        found.push((indexer.index(placement) as usize, entry(parent, placement)));
                    });
                }
                let values: Vec<u8> = found
                    .iter()
                    .map(|&(index, entry)| {
                        codes[(entry >> 63) as usize][index].load(Ordering::Relaxed)
                    })
                    .collect();
                if !win {
                    // The same for the counts of the undecided ones.
                    let counts: u32 = found
                        .iter()
                        .zip(&values)
                        .filter(|&(_, &value)| value == 0)
                        .map(|(&(index, entry), _)| {
                            let state = &work[(entry >> 63) as usize];
                            u32::from(state.remaining[index].load(Ordering::Relaxed))
                                + u32::from(state.need[index].load(Ordering::Relaxed))
                        })
                        .sum();
                    std::hint::black_box(counts);
                }
                for (&(index, entry), &value) in found.iter().zip(&values) {
                    if value != 0 {
                        continue;
                    }
                    let parent = (entry >> 63) as usize;
                    let state = &work[parent];
                    // After a loss every undecided predecessor wins; after a win, the one
                    // whose last move inside the pair this was loses, if the moves out of
                    // the pair allow it now.
                    if (win
                        || (state.remaining[index].fetch_sub(1, Ordering::Relaxed) == 1
                            && state.need[index].load(Ordering::Relaxed) as usize <= pass))
                        && codes[parent][index]
                            .compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed)
                            .is_ok()
                    {
                        out.push(entry);
                    }
                }
            };
            decided.extend(parallel_batches(&frontier, threads, 64, &walk));
            let check = |&scheduled: &u64, _: &mut MoveList, out: &mut Vec<u64>| {
                let (slot, placement) = open(scheduled);
                let index = slices[slot].indexer.index(&placement) as usize;
                if win || work[slot].remaining[index].load(Ordering::Relaxed) == 0 {
                    decide(slot, index, &placement, out);
                }
            };
            decided.extend(parallel_items(&checks, threads, &check));
        }
        frontier = decided;
    }
    Ok(work.into_iter().map(|w| w.captures).collect())
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
/// present is kept, whatever its kind.
pub fn generate_with<R: Rules>(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    wdl_from: Option<usize>,
    progress: &mut dyn Progress,
    on_solved: &mut dyn FnMut(&Solved),
) -> Result<Report, String> {
    let family =
        family(R::VARIANT).ok_or_else(|| format!("{} has no endgame tables", R::VARIANT.name()))?;
    let started = Instant::now();
    let materials = Material::all::<R>(max_pieces);
    let total: u64 = materials.iter().map(|&m| Indexer::new::<R>(m).size()).sum();
    progress.start(total);
    let mut tables = Tables::new(R::VARIANT);
    let mut report = Report::default();
    let mut longest = 0u32;
    let mut done = std::collections::HashSet::new();
    // Once a slice is win/draw/loss, so is every slice after it (it may be a successor).
    let mut wdl_seen = false;
    for &material in &materials {
        if done.contains(&material) {
            continue;
        }
        let twin = material.flipped();
        let pair: Vec<Material> = if twin == material {
            vec![material]
        } else {
            vec![material, twin]
        };
        done.extend(pair.iter().copied());
        let size: u64 = pair.iter().map(|&m| Indexer::new::<R>(m).size()).sum();
        // Resume: a pair whose files are all present and valid is loaded, not solved.
        let loaded: Vec<Slice> = pair
            .iter()
            .filter_map(|&m| Tables::load_slice::<R>(dir, m).ok())
            .collect();
        if loaded.len() == pair.len() {
            for mut slice in loaded {
                wdl_seen |= slice.kind == ValueKind::WinDrawLoss;
                if slice.kind == ValueKind::Distance {
                    longest = longest.max(max_code(&slice));
                }
                fill_captures::<R>(&tables, &mut slice, threads);
                tables.insert(Arc::new(slice));
            }
            report.loaded += pair.len();
            progress.advance(size);
            continue;
        }
        let pair_started = Instant::now();
        wdl_seen |= wdl_from.is_some_and(|from| material.total() >= from);
        let kind = if wdl_seen {
            ValueKind::WinDrawLoss
        } else {
            ValueKind::Distance
        };
        for &m in &pair {
            tables.insert(Arc::new(Slice::empty(Indexer::new::<R>(m), kind)));
        }
        for &m in &pair {
            check_successors_covered::<R>(&tables, m)?;
        }
        let captures = solve_pair::<R>(&tables, &pair, kind, threads, progress)?;
        let seconds = pair_started.elapsed().as_secs_f64() / pair.len() as f64;
        for (&m, captures) in pair.iter().zip(&captures) {
            let slice = tables.slice(m).expect("inserted");
            if kind == ValueKind::WinDrawLoss {
                // The solver counted plies to the conversion; only win, draw or loss stays
                // (in memory too, where later slices read it as a successor).
                for code in slice.memory() {
                    let wdl = ValueKind::wdl_code(code.load(Ordering::Relaxed));
                    code.store(wdl, Ordering::Relaxed);
                }
            }
            let mut codes = slice.snapshot();
            if kind == ValueKind::Distance {
                longest = longest.max(codes.iter().map(|&c| u32::from(c)).max().unwrap_or(0));
            }
            blank_captures(captures, &mut codes);
            let bytes = encode(R::VARIANT, m, &codes, kind);
            let path = slice_path(dir, family, m);
            write_atomically(&path, &bytes)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let line = (m, slice.indexer.size(), seconds, bytes.len());
            on_solved(&line);
            report.solved.push(line);
        }
        progress.advance(size);
    }
    progress.finish();
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Gives each position with a capture pending (a bit of `captures`) the value of the
/// position before it: those values are never read from a file (a lookup works them out
/// from the successors, which lie in smaller slices), so copying the neighbour only
/// lengthens the runs the file codes. The same "don't care" trick as Chinook's and
/// Kingsrow's databases (Schaeffer et al. 2003).
fn blank_captures(captures: &[AtomicU64], codes: &mut [u8]) {
    let mut previous = 0;
    for (index, code) in codes.iter_mut().enumerate() {
        if captures[index / 64].load(Ordering::Relaxed) >> (index % 64) & 1 != 0 {
            *code = previous;
        } else {
            previous = *code;
        }
    }
}

/// Works out, once, the value of every position of a slice loaded from a file that has a
/// capture pending (not stored there, see [`blank_captures`]) from its successors, which
/// lie in smaller slices already held, and marks the slice complete: the generator's
/// lookups into it are then one index each, never a search of the successors.
fn fill_captures<R: Rules>(tables: &Tables, slice: &mut Slice, threads: usize) {
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

fn max_code(slice: &Slice) -> u32 {
    slice
        .memory()
        .iter()
        .map(|v| u32::from(v.load(Ordering::Relaxed)))
        .max()
        .unwrap_or(0)
}

/// What a verification pass found.
#[derive(Clone, Debug, Default)]
pub struct Verification {
    /// Positions checked.
    pub positions: u64,
    /// Wins, draws and losses among them.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Up to ten positions (FEN) whose stored value disagrees with their successors.
    pub mismatches: Vec<String>,
    /// All mismatches.
    pub mismatch_count: u64,
    /// Positions with a capture pending, whose values are not stored but derived.
    pub derived: u64,
}

/// Checks every position of every loaded slice: its stored value must be the one its
/// successors give ([`Tables::value_from_successors`]; in a win/draw/loss slice, without
/// the distance), and every successor must be covered.
/// Progress goes to `progress`.
pub fn verify<R: Rules>(
    tables: &Tables,
    threads: usize,
    progress: &mut dyn Progress,
) -> Verification {
    let slices: Vec<&Arc<Slice>> = tables.slices().collect();
    let total: u64 = slices.iter().map(|s| s.indexer.size()).sum();
    progress.start(total);
    let counts = [
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
    ];
    let mismatches = std::sync::Mutex::new(Vec::new());
    for slice in slices {
        progress.message(&slice.indexer.material().name());
        let work = |index: u64, _: &mut MoveList| {
            let position = slice.indexer.placement(index).position::<R>();
            if !slice.captures_stored && position.has_capture() {
                // Not stored: derived from the successors on lookup.
                counts[4].fetch_add(1, Ordering::Relaxed);
                return;
            }
            let code = slice.memory()[index as usize].load(Ordering::Relaxed);
            let stored = slice.kind.value(code);
            let which = match stored {
                Value::Win(_) | Value::Won => 0,
                Value::Draw => 1,
                Value::Loss(_) | Value::Lost => 2,
            };
            counts[which].fetch_add(1, Ordering::Relaxed);
            // A win/draw/loss slice is checked as such: the successors' value without its
            // distance.
            let expected = tables
                .value_from_successors(&position)
                .and_then(|value| slice.kind.code(value));
            if expected != Some(code) {
                counts[3].fetch_add(1, Ordering::Relaxed);
                let mut list = mismatches.lock().expect("no thread panics holding it");
                if list.len() < 10 {
                    list.push(format!(
                        "{} stored {stored}, successors give {:?}",
                        crate::notation::fen::write_fen(&position),
                        tables.value_from_successors(&position)
                    ));
                }
            }
        };
        parallel(slice.indexer.size(), threads, &work);
        progress.advance(slice.indexer.size());
    }
    progress.finish();
    let [wins, draws, losses, bad, derived] = counts.map(|c| c.into_inner());
    Verification {
        positions: wins + draws + losses,
        derived,
        wins,
        draws,
        losses,
        mismatches: mismatches
            .into_inner()
            .expect("no thread panics holding it"),
        mismatch_count: bad,
    }
}
