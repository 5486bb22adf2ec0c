//! Checks stored table values against their successors': the slices held, or a directory's files pair by pair within a memory bound, resumable from a record of the slices found clean.
//!
//! A check is local: each stored value must be the one its successors give. Tables of
//! many billions of positions do not fit in memory whole, so [`verify_dir`] goes through a
//! directory the way generation does: a slice with its colour-reversed twin (where quiet
//! moves lead) loaded whole, the slices checked before kept in memory while they fit the
//! bound and read from their files through a block cache after that. Each slice found
//! clean is recorded in the family's folder ([`RECORD`]) with its file's checksum, so a
//! run that is stopped goes on where it was (`damka egtb verify --resume`).

use super::file::{slice_path, stored_checksum};
use super::generate::{
    Progress, cache_within, can_capture, evict, fill_captures, pairs_of, parallel_walk,
    resident_bytes,
};
use super::probe::{Slice, Tables};
use super::{Indexer, Material, Placement, Value, family};
use crate::rules::Rules;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Mismatches a verification names (the others are only counted).
const NAMED: usize = 10;

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

impl Verification {
    /// Adds what another check found (its mismatches named while fewer than ten are).
    fn add(&mut self, other: Verification) {
        self.positions += other.positions;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.mismatch_count += other.mismatch_count;
        self.derived += other.derived;
        let room = NAMED.saturating_sub(self.mismatches.len());
        self.mismatches
            .extend(other.mismatches.into_iter().take(room));
    }
}

/// Checks every position of every slice held (in memory or read on demand, so that
/// tables larger than memory can be checked within the cache's bound): its stored value
/// must be the one its successors give ([`Tables::value_from_successors`]; in a
/// win/draw/loss slice, without the distance), and every successor must be covered.
/// Progress goes to `progress`.
pub fn verify<R: Rules>(
    tables: &Tables,
    threads: usize,
    progress: &mut dyn Progress,
) -> Verification {
    let slices: Vec<&Arc<Slice>> = tables.slices().collect();
    let total: u64 = slices.iter().map(|s| s.indexer.size()).sum();
    progress.start(total);
    let mut found = Verification::default();
    for slice in slices {
        progress.message(&slice.indexer.material().name());
        found.add(check_slice::<R>(tables, slice, threads));
        progress.advance(slice.indexer.size());
    }
    progress.finish();
    found
}

/// Checks every position of one slice of `tables` (see [`verify`]), each thread counting
/// in a [`Verification`] of its own (counters shared by the threads would move between the
/// cores at every position).
fn check_slice<R: Rules>(tables: &Tables, slice: &Slice, threads: usize) -> Verification {
    // A slice read from a file has no value of its own for a position with a capture
    // pending (the file holds its neighbour's; a lookup derives it, or the loader filled
    // it in from the successors): such positions are counted, not checked.
    let from_file = slice.file_size > 0 || !slice.captures_stored;
    let work = |index: u64, placement: &Placement, found: &mut Verification| {
        let position = placement.position::<R>();
        if from_file && can_capture(&position) {
            found.derived += 1;
            return;
        }
        let mut name = |line: String| {
            found.mismatch_count += 1;
            if found.mismatches.len() < NAMED {
                found.mismatches.push(line);
            }
        };
        let Some(code) = tables.code_at(slice, index) else {
            let material = slice.indexer.material();
            name(format!("{material}: index {index} cannot be read"));
            return;
        };
        let stored = slice.kind.value(code);
        // A win/draw/loss slice is checked as such: the successors' value without its
        // distance.
        let expected = tables
            .value_from_successors(&position)
            .and_then(|value| slice.kind.code(value));
        if expected != Some(code) {
            name(format!(
                "{} stored {stored}, successors give {:?}",
                crate::notation::fen::write_fen(&position),
                tables.value_from_successors(&position)
            ));
        }
        match stored {
            Value::Win(_) | Value::Won => found.wins += 1,
            Value::Draw => found.draws += 1,
            Value::Loss(_) | Value::Lost => found.losses += 1,
        }
        found.positions += 1;
    };
    let mut found = Verification::default();
    for part in parallel_walk(&slice.indexer, threads, &work) {
        found.add(part);
    }
    found
}

/// The file in each family's folder where [`verify_dir`] records every slice it checked:
/// one line a slice, `NAME CHECKSUM MISMATCHES` (the file's header checksum in hex), the
/// last line of a slice standing.
pub const RECORD: &str = "verified";

/// How [`verify_dir`] may use the machine.
#[derive(Clone, Debug, Default)]
pub struct VerifyOptions {
    /// Threads (0 counts as 1).
    pub threads: usize,
    /// Bytes of memory the check may use, or `None` for no bound (every slice loaded
    /// whole). With a bound, a slice pair larger than it (less the cache) is read on
    /// demand, and slices checked before are read from their files when holding them
    /// would pass it.
    pub memory: Option<u64>,
    /// Skips the slices whose last line in the record ([`RECORD`]) says they were found
    /// clean, when their file's checksum is still the one recorded.
    pub resume: bool,
}

/// One slice checked by [`verify_dir`].
#[derive(Clone, Debug)]
pub struct SliceCheck {
    /// The slice.
    pub material: Material,
    /// What its check found.
    pub found: Verification,
    /// Seconds it took.
    pub seconds: f64,
    /// True when the slice was read on demand (its pair does not fit the bound).
    pub on_demand: bool,
}

/// What [`verify_dir`] did.
#[derive(Clone, Debug, Default)]
pub struct DirVerification {
    /// Everything the slices checked found.
    pub found: Verification,
    /// Slices checked.
    pub checked: usize,
    /// Slices skipped: found clean by an earlier run, unchanged since.
    pub skipped: usize,
    /// Files that could not be read (each makes the check fail), and a record that could
    /// not be written.
    pub errors: Vec<String>,
}

/// Checks every slice file of `R`'s family under `dir` (see [`verify`]), a pair at a time
/// within `options.memory`, recording each slice's result in [`RECORD`]; `on_checked`
/// hears of each slice as soon as it is checked. An error when there is nothing to check.
pub fn verify_dir<R: Rules>(
    dir: &Path,
    options: &VerifyOptions,
    progress: &mut dyn Progress,
    on_checked: &mut dyn FnMut(&SliceCheck),
) -> Result<DirVerification, String> {
    let family =
        family(R::VARIANT).ok_or_else(|| format!("{} has no endgame tables", R::VARIANT.name()))?;
    let materials = Tables::materials_in::<R>(dir).map_err(|e| e.to_string())?;
    if materials.is_empty() {
        return Err(format!(
            "no {} tables under {}",
            R::VARIANT.name(),
            dir.display()
        ));
    }
    let threads = options.threads.max(1);
    let cache = options.memory.map_or(1 << 30, cache_within);
    let room = options.memory.map(|budget| budget.saturating_sub(cache));
    let mut tables = Tables::new(R::VARIANT);
    tables.set_cache(cache as usize);
    let mut result = DirVerification::default();
    // Every slice is opened on demand first, so that each pair finds its successors held.
    for &material in &materials {
        match Tables::slice_on_demand::<R>(dir, material) {
            Ok(slice) => tables.insert(Arc::new(slice)),
            Err(e) => result.errors.push(e.to_string()),
        }
    }
    let held: Vec<Material> = materials
        .into_iter()
        .filter(|&m| tables.slice(m).is_some())
        .collect();
    let record_path = dir.join(family).join(RECORD);
    let clean = if options.resume {
        read_record(&record_path)
    } else {
        HashMap::new()
    };
    let size_of = |m: Material| Indexer::new::<R>(m).size();
    progress.start(held.iter().map(|&m| size_of(m)).sum());
    let mut unreadable = HashSet::new();
    for pair in pairs_of(&held) {
        let size: u64 = pair.iter().map(|&m| size_of(m)).sum();
        let checksums: Vec<Option<u64>> = pair
            .iter()
            .map(|&m| stored_checksum(&slice_path(dir, family, m)).ok())
            .collect();
        let skip = options.resume
            && pair
                .iter()
                .zip(&checksums)
                .all(|(m, sum)| sum.is_some() && clean.get(m) == sum.as_ref());
        let fits = room.is_none_or(|room| size <= room);
        // A pair to check is loaded whole, the largest slices held before making room; a
        // pair skipped only while it fits beside them (a later pair may look it up).
        let loaded =
            fits && (!skip || room.is_none_or(|room| resident_bytes(&tables) + size <= room));
        if loaded {
            if let Some(room) = room {
                evict::<R>(&mut tables, dir, room - size, &pair)?;
            }
            for &m in &pair {
                match Tables::load_slice::<R>(dir, m) {
                    Ok(mut slice) => {
                        // Lookups of positions with a capture pending become one index.
                        fill_captures::<R>(&tables, &mut slice, threads);
                        tables.insert(Arc::new(slice));
                    }
                    Err(e) => {
                        unreadable.insert(m);
                        result.errors.push(e.to_string());
                    }
                }
            }
        }
        if skip {
            result.skipped += pair.len();
            progress.advance(size);
            continue;
        }
        for (&material, checksum) in pair.iter().zip(&checksums) {
            let started = Instant::now();
            let slice = Arc::clone(tables.slice(material).expect("held"));
            progress.message(&material.name());
            let found = check_slice::<R>(&tables, &slice, threads);
            if let Some(checksum) = checksum {
                let mismatches = found.mismatch_count + u64::from(unreadable.contains(&material));
                if let Err(e) = append_record(&record_path, material, *checksum, mismatches) {
                    result.errors.push(format!(
                        "cannot write {}: {e} (a later --resume checks again)",
                        record_path.display()
                    ));
                }
            }
            on_checked(&SliceCheck {
                material,
                found: found.clone(),
                seconds: started.elapsed().as_secs_f64(),
                on_demand: !fits,
            });
            result.found.add(found);
            result.checked += 1;
            progress.advance(slice.indexer.size());
        }
    }
    progress.finish();
    Ok(result)
}

/// The slices of `R`'s family under `dir` that the record ([`RECORD`]) says were found
/// clean, with the file checksum they still have (what `damka egtb status` counts).
pub fn found_clean<R: Rules>(dir: &Path) -> HashSet<Material> {
    let Some(family) = family(R::VARIANT) else {
        return HashSet::new();
    };
    read_record(&dir.join(family).join(RECORD))
        .into_iter()
        .filter(|&(material, checksum)| {
            stored_checksum(&slice_path(dir, family, material)).ok() == Some(checksum)
        })
        .map(|(material, _)| material)
        .collect()
}

/// The checksums of the slices the record names as clean (their last line).
fn read_record(path: &Path) -> HashMap<Material, u64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut last = HashMap::new();
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, checksum, mismatches] = fields[..] else {
            continue;
        };
        let (Some(material), Ok(checksum), Ok(mismatches)) = (
            Material::parse(name),
            u64::from_str_radix(checksum, 16),
            mismatches.parse::<u64>(),
        ) else {
            continue;
        };
        last.insert(material, (checksum, mismatches));
    }
    last.into_iter()
        .filter(|(_, (_, mismatches))| *mismatches == 0)
        .map(|(material, (checksum, _))| (material, checksum))
        .collect()
}

/// Appends one slice's line to the record (synced: a killed run keeps what it checked).
fn append_record(
    path: &Path,
    material: Material,
    checksum: u64,
    mismatches: u64,
) -> std::io::Result<()> {
    let fresh = !path.exists();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    if fresh {
        writeln!(
            file,
            "# damka egtb verify: slice, file checksum, mismatches (the last line of a slice stands)"
        )?;
    }
    writeln!(file, "{material} {checksum:016x} {mismatches}")?;
    file.sync_data()
}
