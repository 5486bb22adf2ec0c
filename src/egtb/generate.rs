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
//! answer. Which positions a pass looks at is told by un-moves and by a first full pass (see
//! [`solve_pair`]); positions never decided are draws.
//!
//! A pair is written to disk (atomically) as soon as it is solved; a later run loads the
//! slices whose files are present and valid and goes on with the rest.

use super::file::{encode, slice_path, write_atomically};
use super::probe::{Slice, Tables};
use super::{Indexer, Material, Placement, Value, family};
use crate::movegen::MoveList;
use crate::rules::Rules;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Positions one thread takes at a time.
const CHUNK: u64 = 1 << 14;

/// What one generation run did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Slices solved in this run, with positions, seconds and file bytes.
    pub solved: Vec<(Material, u64, f64, usize)>,
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

/// What a position's successors say at some moment of the solution: the pass at which it
/// gets its value (`Some(t)`: `Win(t)` for odd `t`, `Loss(t)` for even), or `None` while a
/// successor in the pair is still unknown (or one is a draw).
#[inline]
fn target_pass<R: Rules>(
    tables: &Tables,
    position: &crate::position::Position<R>,
    list: &mut MoveList,
) -> Option<u32> {
    position.legal_moves_into(list);
    if list.is_empty() {
        return Some(0);
    }
    let mut quickest_loss: Option<u8> = None;
    let mut slowest_win = 0u8;
    let mut all_win = true;
    for mv in list.iter() {
        let code = tables.code(&position.play(mv)).unwrap_or(0);
        if code == 0 {
            all_win = false;
        } else if code % 2 == 1 {
            all_win = false;
            quickest_loss = Some(quickest_loss.map_or(code, |q| q.min(code)));
        } else {
            slowest_win = slowest_win.max(code);
        }
    }
    match quickest_loss {
        Some(code) => Some(u32::from(code)),
        None if all_win => Some(u32::from(slowest_win)),
        None => None,
    }
}

/// The positions (slice of the pair, index) from which a quiet move of the side not to move
/// leads to `position`: that side's last move taken back. A man steps back towards its own
/// side, a king back along a diagonal over empty squares. Positions where that move would
/// not have been legal (a capture was pending) are left out; a few extra candidates would
/// cost time only, since every candidate is judged by its own successors.
fn predecessors<R: Rules>(
    tables: &Tables,
    pair: &[Material],
    position: &crate::position::Position<R>,
    out: &mut Vec<(u8, u32)>,
) {
    use crate::board::{Bits, Dir, Geometry};
    use crate::position::Position;
    use crate::rules::Color;
    let white = position.pieces(Color::White);
    let black = position.pieces(Color::Black);
    let kings = position.kings();
    let empty = position.empty();
    let mut push = |from: u64, to: u64, king: bool| {
        let black = black ^ from ^ to;
        let kings = if king { kings ^ from ^ to } else { kings };
        let before = Position::<R>::from_parts(white, black, kings, Color::Black);
        if before.has_capture() {
            return;
        }
        let placement = Placement::of(&before);
        let material = placement.material();
        if let Some(slot) = pair.iter().position(|&m| m == material)
            && let Some(slice) = tables.slice(material)
        {
            out.push((slot as u8, slice.indexer.index(&placement) as u32));
        }
    };
    // Black's men move down (White's up, in every variant with tables): back is up.
    for bit in Bits(position.men(Color::Black)) {
        let at = 1u64 << bit;
        for dir in Dir::UP {
            let from = R::Geometry::step(at, dir);
            if from & empty != 0 {
                push(at, from, false);
            }
        }
    }
    for bit in Bits(position.kings_of(Color::Black)) {
        let at = 1u64 << bit;
        for dir in Dir::ALL {
            let mut from = R::Geometry::step(at, dir);
            while from & empty != 0 {
                push(at, from, true);
                if !R::FLYING_KINGS {
                    break;
                }
                from = R::Geometry::step(from, dir);
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
    let next = AtomicUsize::new(0);
    let chunk = CHUNK as usize;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut list = MoveList::new();
                    let mut out = Vec::new();
                    loop {
                        let start = next.fetch_add(chunk, Ordering::Relaxed);
                        if start >= items.len() {
                            break;
                        }
                        for item in &items[start..(start + chunk).min(items.len())] {
                            work(item, &mut list, &mut out);
                        }
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

/// Solves one slice and its twin, both already inserted in `tables` as empty slices.
///
/// One full pass finds, for every position, the pass at which the values of the slices
/// solved before decide it (a capture or crowning into a lost position, or every move
/// leaving the pair into won ones); after that, pass `k` looks only at those scheduled for
/// it and at the predecessors of the positions decided in pass `k - 1`. A candidate whose
/// successors decide it for a later pass is scheduled for that pass.
fn solve_pair<R: Rules>(
    tables: &Tables,
    pair: &[Material],
    threads: usize,
    bar: &ProgressBar,
) -> Result<(), String> {
    let slices: Vec<&Arc<Slice>> = pair
        .iter()
        .map(|&m| tables.slice(m).expect("the pair was inserted"))
        .collect();
    let mut schedule: Vec<Vec<(u8, u32)>> = vec![Vec::new(); 256];
    // Pass 0 over everything: no move means Loss(0); otherwise note when it is decided.
    bar.set_message(format!("{} first pass", pair[0]));
    for (slot, slice) in slices.iter().enumerate() {
        let size = slice.indexer.size();
        let starts: Vec<u64> = (0..size).step_by(CHUNK as usize).collect();
        let work = |&start: &u64, list: &mut MoveList, out: &mut Vec<(u32, u32)>| {
            for index in start..(start + CHUNK).min(size) {
                let position = slice.indexer.placement(index).position::<R>();
                if let Some(pass) = target_pass::<R>(tables, &position, list) {
                    out.push((pass, index as u32));
                }
            }
        };
        for (pass, index) in parallel_items(&starts, threads, &work) {
            schedule[pass as usize].push((slot as u8, index));
        }
    }
    let mut frontier: Vec<(u8, u32)> = Vec::new();
    for pass in 0..=255u32 {
        let mut candidates = std::mem::take(&mut schedule[pass as usize]);
        if pass > 0 {
            bar.set_message(format!("{} pass {pass}", pair[0]));
            let work = |&(slot, index): &(u8, u32), _: &mut MoveList, out: &mut Vec<(u8, u32)>| {
                let slice = slices[slot as usize];
                let position = slice.indexer.placement(u64::from(index)).position::<R>();
                predecessors::<R>(tables, pair, &position, out);
            };
            candidates.extend(parallel_items(&frontier, threads, &work));
        }
        candidates.sort_unstable();
        candidates.dedup();
        if candidates.is_empty() && schedule[pass as usize..].iter().all(|s| s.is_empty()) {
            return Ok(());
        }
        if pass >= 254 {
            return Err(format!(
                "slice {} has a win longer than 253 plies, more than a one-byte code holds",
                pair[0]
            ));
        }
        let work =
            |&(slot, index): &(u8, u32), list: &mut MoveList, out: &mut Vec<(u8, u32, u32)>| {
                let slice = slices[slot as usize];
                let cell = &slice.values[index as usize];
                if cell.load(Ordering::Relaxed) != 0 {
                    return;
                }
                let position = slice.indexer.placement(u64::from(index)).position::<R>();
                match target_pass::<R>(tables, &position, list) {
                    Some(t) if t == pass => {
                        cell.store(pass as u8 + 1, Ordering::Relaxed);
                        out.push((slot, index, pass));
                    }
                    Some(t) if t > pass => out.push((slot, index, t)),
                    _ => {}
                }
            };
        let results = parallel_items(&candidates, threads, &work);
        frontier.clear();
        for (slot, index, t) in results {
            if t == pass {
                frontier.push((slot, index));
            } else if (t as usize) < schedule.len() {
                schedule[t as usize].push((slot, index));
            }
        }
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
/// pieces under `dir`, with a progress bar on stderr.
pub fn generate<R: Rules>(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    show_progress: bool,
) -> Result<Report, String> {
    let family =
        family(R::VARIANT).ok_or_else(|| format!("{} has no endgame tables", R::VARIANT.name()))?;
    let started = Instant::now();
    let materials = Material::all::<R>(max_pieces);
    let total: u64 = materials.iter().map(|&m| Indexer::new::<R>(m).size()).sum();
    let bar = if show_progress {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} positions  {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let mut tables = Tables::new(R::VARIANT);
    let mut report = Report::default();
    let mut longest = 0u32;
    let mut done = std::collections::HashSet::new();
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
            for slice in loaded {
                longest = longest.max(max_code(&slice));
                tables.insert(Arc::new(slice));
            }
            report.loaded += pair.len();
            bar.inc(size);
            continue;
        }
        let pair_started = Instant::now();
        for &m in &pair {
            tables.insert(Arc::new(Slice::empty(Indexer::new::<R>(m))));
        }
        for &m in &pair {
            check_successors_covered::<R>(&tables, m)?;
        }
        solve_pair::<R>(&tables, &pair, threads, &bar)?;
        let seconds = pair_started.elapsed().as_secs_f64() / pair.len() as f64;
        for &m in &pair {
            let slice = tables.slice(m).expect("inserted");
            let mut codes = slice.codes();
            longest = longest.max(codes.iter().map(|&c| u32::from(c)).max().unwrap_or(0));
            blank_captures::<R>(&slice.indexer, &mut codes);
            let bytes = encode(R::VARIANT, m, &codes);
            let path = slice_path(dir, family, m);
            write_atomically(&path, &bytes)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            report
                .solved
                .push((m, slice.indexer.size(), seconds, bytes.len()));
        }
        bar.inc(size);
    }
    bar.finish_and_clear();
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Gives each position with a capture pending the value of the position before it: those
/// values are never read from a file (a lookup works them out from the successors, which lie
/// in smaller slices), so copying the neighbour only lengthens the runs the file codes. The
/// same "don't care" trick as Chinook's and Kingsrow's databases (Schaeffer et al. 2003).
fn blank_captures<R: Rules>(indexer: &Indexer, codes: &mut [u8]) {
    let mut previous = 0;
    for (index, code) in codes.iter_mut().enumerate() {
        if indexer
            .placement(index as u64)
            .position::<R>()
            .has_capture()
        {
            *code = previous;
        } else {
            previous = *code;
        }
    }
}

fn max_code(slice: &Slice) -> u32 {
    slice
        .values
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
/// successors give ([`Tables::value_from_successors`]), and every successor must be covered.
pub fn verify<R: Rules>(tables: &Tables, threads: usize, show_progress: bool) -> Verification {
    let slices: Vec<&Arc<Slice>> = tables.slices().collect();
    let total: u64 = slices.iter().map(|s| s.indexer.size()).sum();
    let bar = if show_progress {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    let counts = [
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
    ];
    let mismatches = std::sync::Mutex::new(Vec::new());
    for slice in slices {
        bar.set_message(slice.indexer.material().name());
        let work = |index: u64, _: &mut MoveList| {
            let position = slice.indexer.placement(index).position::<R>();
            if !slice.captures_stored && position.has_capture() {
                // Not stored: derived from the successors on lookup.
                counts[4].fetch_add(1, Ordering::Relaxed);
                return;
            }
            let stored = Value::from_code(slice.values[index as usize].load(Ordering::Relaxed));
            let which = match stored {
                Value::Win(_) => 0,
                Value::Draw => 1,
                Value::Loss(_) => 2,
            };
            counts[which].fetch_add(1, Ordering::Relaxed);
            if tables.value_from_successors(&position) != Some(stored) {
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
        bar.inc(slice.indexer.size());
    }
    bar.finish_and_clear();
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
