//! The transposition table: a lockless table shared by all search threads.
//!
//! All search threads (Lazy SMP) read and write one table through `&self`, without locks.
//! Each entry is two `AtomicU64`: the position key XOR the data word, and the data word
//! (Hyatt and Mann, "A lock-less transposition table implementation for parallel search",
//! ICGA Journal 2002). A reader recomputes `key_word ^ data_word` and accepts the entry only
//! when that equals its full 64-bit key, so a write torn by another thread (new key word,
//! old data word or the reverse) fails the check instead of handing back another position's
//! data.
//!
//! Four entries form a 64-byte bucket, aligned to a cache line. A key selects its bucket by
//! its LOW bits (`key & mask`, the number of buckets being a power of two); the check inside
//! the bucket uses the whole 64-bit key.
//!
//! Scores that say "win in n plies" are stored relative to the node, not to the root: the
//! caller passes scores through [`score_to_tt`](super::score::score_to_tt) before
//! [`TranspositionTable::store`] and through [`score_from_tt`](super::score::score_from_tt)
//! after reading [`TtEntry::score`]; the table never converts.

use std::fmt;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::position::Move;

/// What a stored score says about the true value of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The true value is at most the score (the search failed low: an all-node).
    Upper = 1,
    /// The true value is at least the score (the search failed high: a cut-node).
    Lower = 2,
    /// The score is the true value (a PV node).
    Exact = 3,
}

impl Bound {
    #[inline]
    fn from_bits(bits: u64) -> Option<Bound> {
        match bits & 3 {
            1 => Some(Bound::Upper),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Exact),
            _ => None,
        }
    }
}

// The data word, 64 bits:
//
//  63      56 55      48 47             32 31             16 15  14 13 12 11    6 5     0
// +----------+----------+-----------------+-----------------+------+--+--+-------+-------+
// |generation|  depth   |   score (i16)   | captured hash   |bound |pr|mv|  to   | from  |
// |    u8    |    i8    |  node-relative  | u16 of the set  |2 bits|  |  |6 bits |6 bits |
// +----------+----------+-----------------+-----------------+------+--+--+-------+-------+
//
// mv    = 1 when a move is stored (from, to, pr, captured hash are meaningful);
// pr    = the move promotes;
// bound = 0 for an empty slot, else the `Bound` discriminant (1 upper, 2 lower, 3 exact).
// An all-zero slot (key word 0, data word 0) is empty, which is what `clear` writes.
const FROM_SHIFT: u32 = 0;
const TO_SHIFT: u32 = 6;
const HAS_MOVE_BIT: u64 = 1 << 12;
const PROMOTES_BIT: u64 = 1 << 13;
const BOUND_SHIFT: u32 = 14;
const CAPTURED_SHIFT: u32 = 16;
const SCORE_SHIFT: u32 = 32;
const DEPTH_SHIFT: u32 = 48;
const GENERATION_SHIFT: u32 = 56;
/// The bits that describe the move (kept when a move-less store hits the same key).
const MOVE_MASK: u64 = (0x3f << FROM_SHIFT)
    | (0x3f << TO_SHIFT)
    | HAS_MOVE_BIT
    | PROMOTES_BIT
    | (0xffff << CAPTURED_SHIFT);

/// Entries per bucket.
const BUCKET_ENTRIES: usize = 4;
/// How many slots `hashfull` looks at.
const HASHFULL_SAMPLE: usize = 1000;
/// Weight of one generation of age against one ply of depth when choosing what to replace.
const AGE_WEIGHT: i32 = 8;

/// A 16-bit digest of a captured set, to tell apart moves with the same `from` and `to`.
#[inline]
fn captured_hash(captured: u64) -> u16 {
    // Fibonacci hashing: the top bits of the product depend on every bit of the set.
    (captured.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48) as u16
}

/// One entry read from the table (a copy: later writes by other threads do not change it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    data: u64,
}

impl TtEntry {
    /// True when the entry carries a best (or refutation) move.
    #[inline]
    pub fn has_move(&self) -> bool {
        self.data & HAS_MOVE_BIT != 0
    }

    /// True when `mv` is the stored move: same `from`, `to`, promotion and (hash of the)
    /// captured set. False when no move is stored. Use it to pick the stored move out of the
    /// legal moves of the position (see [`TtEntry::find_move`]).
    #[inline]
    pub fn matches(&self, mv: &Move) -> bool {
        self.has_move() && (self.data & MOVE_MASK) == move_bits(mv)
    }

    /// The first move of `moves` that [`TtEntry::matches`], if any.
    #[inline]
    pub fn find_move(&self, moves: &[Move]) -> Option<Move> {
        if !self.has_move() {
            return None;
        }
        moves.iter().copied().find(|mv| self.matches(mv))
    }

    /// The stored `from` bit, if a move is stored.
    #[inline]
    pub fn from(&self) -> Option<u8> {
        self.has_move()
            .then_some(((self.data >> FROM_SHIFT) & 0x3f) as u8)
    }

    /// The stored `to` bit, if a move is stored.
    #[inline]
    pub fn to(&self) -> Option<u8> {
        self.has_move()
            .then_some(((self.data >> TO_SHIFT) & 0x3f) as u8)
    }

    /// The score as stored: wins and losses counted from this node. Pass it through
    /// [`score_from_tt`](super::score::score_from_tt) with the ply of the probing node to get a root-relative score.
    #[inline]
    pub fn score(&self) -> i32 {
        i32::from((self.data >> SCORE_SHIFT) as u16 as i16)
    }

    /// The depth of the search that produced the entry (clamped to `-128..=127` on store).
    #[inline]
    pub fn depth(&self) -> i32 {
        i32::from((self.data >> DEPTH_SHIFT) as u8 as i8)
    }

    /// What the score says about the true value.
    #[inline]
    pub fn bound(&self) -> Bound {
        // A `TtEntry` is only made from an occupied slot, whose bound bits are non-zero.
        Bound::from_bits(self.data >> BOUND_SHIFT).unwrap_or(Bound::Upper)
    }

    /// The generation (search number, modulo 256) that stored the entry.
    #[inline]
    pub fn generation(&self) -> u8 {
        (self.data >> GENERATION_SHIFT) as u8
    }
}

/// The move fields of the data word for `mv` (including the "has move" flag).
#[inline]
fn move_bits(mv: &Move) -> u64 {
    debug_assert!(mv.from < 64 && mv.to < 64);
    (u64::from(mv.from & 0x3f) << FROM_SHIFT)
        | (u64::from(mv.to & 0x3f) << TO_SHIFT)
        | HAS_MOVE_BIT
        | if mv.promotes { PROMOTES_BIT } else { 0 }
        | (u64::from(captured_hash(mv.captured)) << CAPTURED_SHIFT)
}

#[inline]
fn bound_bits(data: u64) -> u64 {
    (data >> BOUND_SHIFT) & 3
}

#[inline]
fn generation_of(data: u64) -> u8 {
    (data >> GENERATION_SHIFT) as u8
}

#[inline]
fn depth_of(data: u64) -> i32 {
    i32::from((data >> DEPTH_SHIFT) as u8 as i8)
}

/// One entry: the key XOR the data, and the data.
#[derive(Default)]
struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

/// Four slots in one cache line.
#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; BUCKET_ENTRIES],
}

const _: () = assert!(size_of::<Slot>() == 16);
const _: () = assert!(size_of::<Bucket>() == 64);
const _: () = assert!(align_of::<Bucket>() == 64);

/// Bytes in one bucket.
const BUCKET_BYTES: usize = size_of::<Bucket>();

/// The shared transposition table. All methods but [`TranspositionTable::resize`] take
/// `&self`, so one table can be shared by reference (or `Arc`) among search threads.
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    /// `buckets.len() - 1`; the bucket of a key is `key & mask`.
    mask: u64,
    generation: AtomicU8,
}

impl fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TranspositionTable")
            .field("buckets", &self.buckets.len())
            .field("generation", &self.generation.load(Ordering::Relaxed))
            .finish()
    }
}

/// The number of buckets for `mb` megabytes: rounded down to a power of two, at least 1.
fn bucket_count(mb: usize) -> usize {
    let n = mb.saturating_mul(1024 * 1024) / BUCKET_BYTES;
    if n == 0 { 1 } else { 1 << n.ilog2() }
}

fn allocate(count: usize) -> Result<Vec<Bucket>, std::collections::TryReserveError> {
    let mut buckets = Vec::new();
    buckets.try_reserve_exact(count)?;
    // Before the first write, so that the kernel backs the pages with huge pages as the
    // writes below fault them in.
    advise_huge_pages(&mut buckets);
    buckets.resize_with(count, Bucket::default);
    Ok(buckets)
}

/// Asks Linux to back the table's memory with transparent huge pages (2 MiB).
///
/// Every probe lands in a random bucket, so with 4 KiB pages nearly every probe of a table
/// of tens of megabytes also misses the TLB; with 2 MiB pages a 64 MB table needs 32 TLB
/// entries. Most kernels give huge pages only on request (`transparent_hugepage/enabled`
/// set to `madvise`); docs/journal.md ("Huge pages for the table") measures the gain. Only
/// the 2 MiB-aligned interior of the reserved memory is advised (the allocator aligns the
/// table to 64 bytes only). A kernel that refuses leaves ordinary pages, which work the same.
#[cfg(target_os = "linux")]
fn advise_huge_pages(buckets: &mut Vec<Bucket>) {
    const HUGE_PAGE: usize = 2 << 20;
    let spare = buckets.spare_capacity_mut();
    let bytes = size_of_val(spare);
    let base = spare.as_mut_ptr().cast::<u8>();
    let offset = base.align_offset(HUGE_PAGE);
    if offset >= bytes {
        return;
    }
    let len = (bytes - offset) / HUGE_PAGE * HUGE_PAGE;
    if len == 0 {
        return;
    }
    // SAFETY: `[base + offset, base + offset + len)` lies inside the allocation this `Vec`
    // owns (its spare capacity, `bytes` long from `base`), and it is page-aligned, as
    // `madvise` requires. `MADV_HUGEPAGE` neither reads nor writes the memory nor changes
    // what it holds or whether it is valid: it only tells the kernel which page size to
    // back it with. No other reference to the memory exists while `buckets` is borrowed
    // mutably. A failure (a kernel without transparent huge pages) changes nothing.
    let _ = unsafe {
        rustix::mm::madvise(
            base.add(offset).cast(),
            len,
            rustix::mm::Advice::LinuxHugepage,
        )
    };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_buckets: &mut Vec<Bucket>) {}

/// Starts loading the cache line of `target` without waiting for it (`prefetcht0`): a hint
/// that changes no result, for data that a search reads soon after it knows where.
#[inline(always)]
pub(crate) fn prefetch_line<T>(target: &T) {
    let address: *const T = target;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` only hints the cache; it reads nothing into the program, writes
    // nothing and never faults, and `address` comes from a live reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

impl TranspositionTable {
    /// A table of at most `mb` megabytes: the largest power-of-two number of 64-byte buckets
    /// that fits (at least one bucket, even for `mb == 0`), all empty.
    ///
    /// Panics when the memory cannot be had; [`TranspositionTable::try_new`] reports it.
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb).expect("memory for the transposition table")
    }

    /// As [`TranspositionTable::new`], but a failed allocation is an error, not an abort.
    pub fn try_new(mb: usize) -> Result<TranspositionTable, std::collections::TryReserveError> {
        let count = bucket_count(mb);
        Ok(TranspositionTable {
            buckets: allocate(count)?,
            mask: count as u64 - 1,
            generation: AtomicU8::new(0),
        })
    }

    /// Reallocates the table for `mb` megabytes (as [`TranspositionTable::new`]); the
    /// contents are lost and the generation restarts.
    pub fn resize(&mut self, mb: usize) {
        assert!(
            self.try_resize(mb, mb),
            "memory for the transposition table"
        );
    }

    /// Reallocates the table for `mb` megabytes, or for `fallback_mb` when `mb` cannot be had;
    /// true when the table has `mb`. The old table is freed first, so the two are never held
    /// at once; the contents are lost either way.
    pub fn try_resize(&mut self, mb: usize, fallback_mb: usize) -> bool {
        self.buckets = Vec::new();
        match TranspositionTable::try_new(mb) {
            Ok(table) => {
                *self = table;
                true
            }
            Err(_) => {
                *self = TranspositionTable::new(fallback_mb);
                false
            }
        }
    }

    /// Empties every entry and resets the generation (for a new game). Large tables are
    /// cleared by several threads.
    pub fn clear(&self) {
        const PER_THREAD_MIN: usize = 1 << 16; // 4 MB
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(self.buckets.len().div_ceil(PER_THREAD_MIN))
            .max(1);
        if threads == 1 {
            clear_buckets(&self.buckets);
        } else {
            let chunk = self.buckets.len().div_ceil(threads);
            std::thread::scope(|scope| {
                for part in self.buckets.chunks(chunk) {
                    scope.spawn(move || clear_buckets(part));
                }
            });
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: advances the generation (modulo 256), so that entries of older
    /// searches become preferred victims for replacement and stop counting in `hashfull`.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// The current generation.
    pub fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    /// The number of 64-byte buckets (a power of two).
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    /// The number of entries (four per bucket).
    pub fn capacity(&self) -> usize {
        self.buckets.len() * BUCKET_ENTRIES
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // `mask < buckets.len()`, so the index is in range and fits a usize.
        &self.buckets[(key & self.mask) as usize]
    }

    /// Starts loading the bucket of `key` into the cache without waiting for it, so that a
    /// [`probe`](Self::probe) of the same key soon after finds it there. A search calls it
    /// as soon as a child position's key is known: in a table of tens of megabytes nearly
    /// every probe misses the cache, and that one load was half of `pvs`'s time
    /// (docs/journal.md, "Prefetching the bucket"). A hint only: it changes no result.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch_line(self.bucket(key));
    }

    /// The entry stored for `key`, if any. The full 64-bit key is checked, so a hit is for
    /// this key (barring a 64-bit collision); the move in it must still be found among the
    /// legal moves with [`TtEntry::matches`] or [`TtEntry::find_move`].
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for slot in &self.bucket(key).slots {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.key.load(Ordering::Relaxed);
            if check ^ data == key && bound_bits(data) != 0 {
                return Some(TtEntry { data });
            }
        }
        None
    }

    /// Stores the result of a search of the position `key`: the best move (`None` when there
    /// is none, e.g. a fail-low), the score in table form (already passed through
    /// [`score_to_tt`](super::score::score_to_tt); clamped to `i16`), the depth (clamped to `-128..=127`) and the
    /// bound.
    ///
    /// Within the bucket it replaces the entry with the same key, unless that one is deeper
    /// (then only its age is refreshed), else an empty one, else the one with the lowest
    /// `depth - 8 * age`, where age is how many searches ago it was written. A store without
    /// a move keeps the move of an entry for the same key.
    pub fn store(&self, key: u64, mv: Option<&Move>, score: i32, depth: i32, bound: Bound) {
        let generation = self.generation();
        let bucket = self.bucket(key);
        let depth = depth.clamp(i32::from(i8::MIN), i32::from(i8::MAX));

        let mut victim = 0;
        let mut victim_priority = i32::MAX;
        let mut kept_move = 0;
        for (i, slot) in bucket.slots.iter().enumerate() {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.key.load(Ordering::Relaxed);
            if bound_bits(data) == 0 {
                // Empty: better than any occupied slot, but a same-key slot may follow.
                if victim_priority > i32::MIN {
                    victim = i;
                    victim_priority = i32::MIN;
                }
                continue;
            }
            if check ^ data == key {
                if depth_of(data) > depth {
                    // A deeper result for the same position is worth more than this one
                    // (Scan 2.0 keeps it too): only its age is refreshed, so that it is
                    // not replaced as stale.
                    let refreshed = (data & !(0xFF << GENERATION_SHIFT))
                        | (u64::from(generation) << GENERATION_SHIFT);
                    slot.key.store(key ^ refreshed, Ordering::Relaxed);
                    slot.data.store(refreshed, Ordering::Relaxed);
                    return;
                }
                victim = i;
                kept_move = data & MOVE_MASK;
                break;
            }
            let age = i32::from(generation.wrapping_sub(generation_of(data)));
            let priority = depth_of(data) - AGE_WEIGHT * age;
            if priority < victim_priority {
                victim = i;
                victim_priority = priority;
            }
        }

        let move_field = match mv {
            Some(mv) => move_bits(mv),
            None => kept_move,
        };
        let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX));
        let data = move_field
            | ((bound as u64) << BOUND_SHIFT)
            | (u64::from(score as i16 as u16) << SCORE_SHIFT)
            | (u64::from(depth as i8 as u8) << DEPTH_SHIFT)
            | (u64::from(generation) << GENERATION_SHIFT);

        let slot = &bucket.slots[victim];
        slot.key.store(key ^ data, Ordering::Relaxed);
        slot.data.store(data, Ordering::Relaxed);
    }

    /// How full the table is, in permille: the share of the first 1000 entries (all of them
    /// in a smaller table) that were written in the current generation, as UCI `hashfull`.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sample = self.capacity().min(HASHFULL_SAMPLE);
        let used = self
            .buckets
            .iter()
            .flat_map(|bucket| bucket.slots.iter())
            .take(sample)
            .filter(|slot| {
                let data = slot.data.load(Ordering::Relaxed);
                bound_bits(data) != 0 && generation_of(data) == generation
            })
            .count();
        (used * 1000 / sample) as u32
    }
}

fn clear_buckets(buckets: &[Bucket]) {
    for slot in buckets.iter().flat_map(|bucket| bucket.slots.iter()) {
        slot.key.store(0, Ordering::Relaxed);
        slot.data.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SplitMix;
    use crate::search::score::{WIN, score_from_tt, score_to_tt};

    fn mv(from: u8, to: u8, promotes: bool, captured: u64) -> Move {
        Move {
            from,
            to,
            promotes,
            captured,
        }
    }

    /// Keys that all fall into bucket 0 of any table of at most 2^16 buckets.
    fn same_bucket_keys(n: usize) -> Vec<u64> {
        let mut random = SplitMix(7);
        (0..n).map(|_| random.next_u64() << 16).collect()
    }

    #[test]
    fn a_win_stored_at_one_ply_reads_right_at_another() {
        let tt = TranspositionTable::new(1);
        tt.store(9, None, score_to_tt(WIN - 8, 5), 3, Bound::Exact);
        let e = tt.probe(9).unwrap();
        assert_eq!(e.score(), WIN - 3);
        assert_eq!(score_from_tt(e.score(), 2), WIN - 5);
    }

    #[test]
    fn round_trip_every_field() {
        let tt = TranspositionTable::new(1);
        let key = 0x0123_4567_89AB_CDEF;
        let m = mv(53, 0, true, (1 << 7) | (1 << 30));
        // Depths rise, so that each store replaces the one before (a shallower one would
        // not, see below).
        for (bound, score, depth) in [
            (Bound::Lower, -32_000, -5),
            (Bound::Exact, WIN - 3, 0),
            (Bound::Lower, -(WIN - 3), 1),
            (Bound::Exact, 123, 17),
            (Bound::Upper, 0, 127),
        ] {
            tt.store(key, Some(&m), score, depth, bound);
            let e = tt.probe(key).expect("stored entry is found");
            assert!(e.has_move());
            assert!(e.matches(&m));
            assert_eq!(e.from(), Some(53));
            assert_eq!(e.to(), Some(0));
            assert_eq!(e.score(), score);
            assert_eq!(e.depth(), depth);
            assert_eq!(e.bound(), bound);
            assert_eq!(e.generation(), 0);
        }
        // Near misses do not match.
        let e = tt.probe(key).unwrap();
        assert!(!e.matches(&mv(53, 0, false, m.captured)));
        assert!(!e.matches(&mv(52, 0, true, m.captured)));
        assert!(!e.matches(&mv(53, 1, true, m.captured)));
        assert!(!e.matches(&mv(53, 0, true, 1 << 7)));
        let moves = [mv(53, 0, true, 1 << 7), m, mv(1, 2, false, 0)];
        assert_eq!(e.find_move(&moves), Some(m));

        // Clamping of out-of-range depth and score.
        tt.store(key, None, 100_000, 1000, Bound::Exact);
        let e = tt.probe(key).unwrap();
        assert_eq!(e.depth(), 127);
        assert_eq!(e.score(), i32::from(i16::MAX));

        // Another key misses. A shallower result for the same key leaves the deeper entry
        // as it was, but marks it as used by the current search.
        assert!(tt.probe(key ^ 1).is_none());
        tt.new_search();
        tt.store(key, None, 5, 3, Bound::Upper);
        let e = tt.probe(key).unwrap();
        assert_eq!(e.generation(), 1);
        assert_eq!(
            (e.depth(), e.score(), e.bound()),
            (127, i32::from(i16::MAX), Bound::Exact)
        );
    }

    #[test]
    fn move_less_store_keeps_the_move() {
        let tt = TranspositionTable::new(1);
        let m = mv(10, 15, false, 0);
        tt.store(42, Some(&m), 10, 4, Bound::Lower);
        tt.store(42, None, -10, 6, Bound::Upper);
        let e = tt.probe(42).unwrap();
        assert!(e.matches(&m));
        assert_eq!((e.score(), e.depth(), e.bound()), (-10, 6, Bound::Upper));
        // A move-less entry for a new key has no move.
        tt.store(43, None, 0, 1, Bound::Upper);
        let e = tt.probe(43).unwrap();
        assert!(!e.has_move());
        assert_eq!((e.from(), e.to()), (None, None));
        assert!(!e.matches(&Move::default()));
        assert_eq!(e.find_move(&[Move::default()]), None);
    }

    #[test]
    fn replacement_prefers_deep_and_current_entries() {
        let tt = TranspositionTable::new(1);
        let keys = same_bucket_keys(6);
        // Fill the bucket: depths 10, 3, 7, 12.
        for (key, depth) in keys.iter().zip([10, 3, 7, 12]) {
            tt.store(*key, None, 0, depth, Bound::Exact);
        }
        for key in &keys[..4] {
            assert!(tt.probe(*key).is_some());
        }
        // A fifth key evicts the shallowest (depth 3).
        tt.store(keys[4], None, 0, 1, Bound::Exact);
        assert!(tt.probe(keys[1]).is_none());
        for i in [0, 2, 3, 4] {
            assert!(tt.probe(keys[i]).is_some(), "entry {i} kept");
        }
        // The same key is replaced in place by a result as deep or deeper, and kept when
        // the new one is shallower.
        tt.store(keys[3], None, 55, 14, Bound::Lower);
        let e = tt.probe(keys[3]).unwrap();
        assert_eq!((e.depth(), e.score()), (14, 55));
        tt.store(keys[3], None, 66, 2, Bound::Upper);
        let e = tt.probe(keys[3]).unwrap();
        assert_eq!((e.depth(), e.score(), e.bound()), (14, 55, Bound::Lower));
        for i in [0, 2, 4] {
            assert!(tt.probe(keys[i]).is_some(), "entry {i} kept");
        }
        // Now: 10 (key0), 7 (key2), 14 (key3), 1 (key4), all generation 0.
        // Two searches later, use key4 and key3 again; the old deep entries age out:
        // key0: 10 - 16 = -6, key2: 7 - 16 = -9, key3/key4 current.
        tt.new_search();
        tt.new_search();
        tt.store(keys[4], None, 0, 1, Bound::Exact);
        tt.store(keys[3], None, 0, 2, Bound::Exact);
        assert_eq!(
            tt.probe(keys[3]).unwrap().generation(),
            2,
            "a kept entry is refreshed"
        );
        tt.store(keys[5], None, 0, 1, Bound::Exact);
        assert!(
            tt.probe(keys[2]).is_none(),
            "the oldest, shallowest one goes"
        );
        for i in [0, 3, 4, 5] {
            assert!(tt.probe(keys[i]).is_some(), "entry {i} kept");
        }
    }

    #[test]
    fn empty_slot_before_old_entries() {
        let tt = TranspositionTable::new(1);
        let keys = same_bucket_keys(4);
        tt.store(keys[0], None, 0, 0, Bound::Exact);
        tt.store(keys[1], None, 0, 50, Bound::Exact);
        tt.store(keys[2], None, 0, 50, Bound::Exact);
        tt.store(keys[3], None, 0, 50, Bound::Exact);
        for key in &keys {
            assert!(tt.probe(*key).is_some());
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(size_of::<Bucket>(), 64);
        assert_eq!(TranspositionTable::new(1).bucket_count(), 16_384);
        assert_eq!(TranspositionTable::new(1).capacity(), 65_536);
        assert_eq!(TranspositionTable::new(0).bucket_count(), 1);
        assert_eq!(TranspositionTable::new(3).bucket_count(), 32_768);
        assert_eq!(TranspositionTable::new(16).bucket_count(), 262_144);
        let mut tt = TranspositionTable::new(1);
        tt.store(5, None, 1, 1, Bound::Exact);
        tt.resize(2);
        assert_eq!(tt.bucket_count(), 32_768);
        assert!(tt.probe(5).is_none());
    }

    #[test]
    fn hashfull_rises_and_clears() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.hashfull(), 0);
        let mut random = SplitMix(1);
        for _ in 0..200_000 {
            let key = random.next_u64();
            tt.store(key, None, 0, 1, Bound::Exact);
        }
        let full = tt.hashfull();
        assert!(full > 900, "hashfull {full}");
        assert!(full <= 1000);
        // Entries of a previous search do not count.
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        tt.store(0, None, 0, 1, Bound::Exact);
        assert!(tt.hashfull() <= 1);
        tt.clear();
        assert_eq!(tt.hashfull(), 0);
        assert_eq!(tt.generation(), 0);
        assert!(tt.probe(0).is_none());
        // A one-bucket table samples its four entries.
        let tiny = TranspositionTable::new(0);
        tiny.store(1, None, 0, 1, Bound::Exact);
        assert_eq!(tiny.hashfull(), 250);
    }

    #[test]
    fn clear_large_table_in_parallel() {
        let tt = TranspositionTable::new(64);
        let mut random = SplitMix(3);
        let keys: Vec<u64> = (0..10_000).map(|_| random.next_u64()).collect();
        for &key in &keys {
            tt.store(key, None, 0, 1, Bound::Exact);
        }
        tt.clear();
        assert!(keys.iter().all(|&key| tt.probe(key).is_none()));
    }

    /// The entry data a test thread writes for `key`: every field derived from the key.
    fn expected(key: u64) -> (Move, i32, i32, Bound) {
        let m = mv(
            (key % 54) as u8,
            ((key >> 8) % 54) as u8,
            (key >> 16) & 1 == 1,
            key.rotate_left(23) & 0x003f_ffff_ffff_ffff,
        );
        let score = ((key >> 20) % 40_000) as i32 - 20_000;
        let depth = ((key >> 40) % 100) as i32;
        let bound = match (key >> 50) % 3 {
            0 => Bound::Upper,
            1 => Bound::Lower,
            _ => Bound::Exact,
        };
        (m, score, depth, bound)
    }

    #[test]
    fn threads_never_see_mixed_entries() {
        // One bucket, 16 keys, two writers and readers: heavy contention on the same slots.
        // (With a plain key word instead of `key ^ data`, this test fails within a fraction of
        // a second on a two-core machine: torn entries do occur.)
        let tt = TranspositionTable::new(0);
        let mut random = SplitMix(11);
        let keys: Vec<u64> = (0..16).map(|_| random.next_u64()).collect();
        let hits = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for t in 0..2u64 {
                let (tt, keys, hits) = (&tt, &keys, &hits);
                scope.spawn(move || {
                    let mut random = SplitMix(t + 100);
                    for round in 0..8_000_000u64 {
                        let r = random.next_u64();
                        let key = keys[(r % keys.len() as u64) as usize];
                        if r & 0x100 != 0 {
                            let (m, score, depth, bound) = expected(key);
                            let m = (r & 0x200 != 0).then_some(&m);
                            tt.store(key, m, score, depth, bound);
                        } else if let Some(e) = tt.probe(key) {
                            let (m, score, depth, bound) = expected(key);
                            assert!(!e.has_move() || e.matches(&m), "move of another key");
                            assert_eq!(e.score(), score);
                            assert_eq!(e.depth(), depth);
                            assert_eq!(e.bound(), bound);
                            hits.fetch_add(1, Ordering::Relaxed);
                        }
                        if round % 500_000 == 0 {
                            tt.new_search();
                        }
                    }
                });
            }
        });
        assert!(hits.load(Ordering::Relaxed) > 0);
    }
}
