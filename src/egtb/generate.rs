//! Table generation and verification: solves every slice up to N pieces by level-synchronous forward passes, on several threads, resumably.
//!
//! Slices are solved in [`Material::all`] order, a slice together with its colour-reversed
//! twin (a quiet move from one lands in the other). Every capture and promotion leads to a
//! slice solved earlier, whose values are final. Within the pair, pass 0 marks the positions
//! without a legal move `Loss(0)`; pass `k` then gives `Win(k)` (odd `k`) to every unsolved
//! position with a successor worth `Loss(k - 1)`, or `Loss(k)` (even `k`) to every unsolved
//! position whose successors are all wins, the slowest `Win(k - 1)`. This is retrograde
//! analysis (Thompson 1986) run forwards: values appear in order of distance, so each is
//! the exact distance to the end of the game, and a pass only ever writes values of one
//! parity, so threads reading values written in the same pass see nothing that could change
//! their answer. Positions still unsolved when passes stop producing values (and no stored
//! distance from an earlier slice can still feed one) are draws.
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

/// Solves one slice and its twin, both already inserted in `tables` as empty slices.
fn solve_pair<R: Rules>(
    tables: &Tables,
    pair: &[Material],
    longest_known: u32,
    threads: usize,
    bar: &ProgressBar,
) -> Result<(), String> {
    let slices: Vec<&Arc<Slice>> = pair
        .iter()
        .map(|&m| tables.slice(m).expect("the pair was inserted"))
        .collect();
    let changed = AtomicUsize::new(0);
    let mut quiet_passes = 0;
    let mut pass = 0u32;
    loop {
        if pass >= 254 {
            return Err(format!(
                "slice {} has a win longer than 253 plies, more than a one-byte code holds",
                pair[0]
            ));
        }
        bar.set_message(format!("{} pass {pass}", pair[0]));
        changed.store(0, Ordering::Relaxed);
        for slice in &slices {
            let work = |index: u64, list: &mut MoveList| {
                let cell = &slice.values[index as usize];
                if cell.load(Ordering::Relaxed) != 0 {
                    return;
                }
                let position = slice.indexer.placement(index).position::<R>();
                position.legal_moves_into(list);
                let found = if pass == 0 {
                    list.is_empty()
                } else if pass % 2 == 1 {
                    // Win(pass): some successor is Loss(pass - 1), code `pass`.
                    list.iter()
                        .any(|mv| tables.code(&position.play(mv)) == Some(pass as u8))
                } else {
                    // Loss(pass): every successor a win, the slowest Win(pass - 1).
                    let mut slowest = 0u8;
                    let all_win = list.iter().all(|mv| {
                        let code = tables.code(&position.play(mv)).unwrap_or(0);
                        slowest = slowest.max(code);
                        code != 0 && code.is_multiple_of(2)
                    });
                    all_win && slowest == pass as u8
                };
                if found {
                    cell.store(pass as u8 + 1, Ordering::Relaxed);
                    changed.fetch_add(1, Ordering::Relaxed);
                }
            };
            parallel(slice.indexer.size(), threads, &work);
        }
        if changed.load(Ordering::Relaxed) == 0 {
            quiet_passes += 1;
        } else {
            quiet_passes = 0;
        }
        // Two passes without news (one of each parity) and past every distance an earlier
        // slice could feed in: nothing more can be decided.
        if quiet_passes >= 2 && pass > longest_known + 1 {
            return Ok(());
        }
        pass += 1;
    }
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
        solve_pair::<R>(&tables, &pair, longest, threads, &bar)?;
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
