//! A bounded cache of decoded table blocks, shared by the search threads: the memory the tables take while probing from their files.
//!
//! Set-associative: a block's key (its slice and number) picks one set of [`WAYS`] entries,
//! each set behind its own lock, and the least recently used entry of the set makes room.
//! A hit costs one uncontended lock and one byte read; a miss reads and decodes one block
//! of its file (a few kilobytes) while holding only its set's lock. Hits are counted in
//! their set, under its lock: one counter shared by every thread cost a contended atomic
//! add a hit (a quarter of a lookup's time in a two-thread table generation).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Entries per set.
pub const WAYS: usize = 4;

/// A key no block has.
const EMPTY: u64 = u64::MAX;

/// One set: its keys, the ways from most to least recently used, its hits (modulo 2^32;
/// each wrap is carried into [`BlockCache::hit_wraps`]) and the values of its blocks side
/// by side (allocated when the set is first filled). With its lock it fits one 64-byte
/// cache line, so a hit touches that line and the line of the value.
#[derive(Debug)]
struct SetState {
    keys: [u64; WAYS],
    data: Box<[u8]>,
    recency: [u8; WAYS],
    hits: u32,
}

#[derive(Debug)]
#[repr(align(64))]
struct Set(Mutex<SetState>);

/// Decoded blocks of table files, at most about the byte budget given to [`BlockCache::new`].
#[derive(Debug)]
pub struct BlockCache {
    sets: Vec<Set>,
    block_size: usize,
    /// Times a set's hit count wrapped past `u32::MAX`.
    hit_wraps: AtomicU64,
    misses: AtomicU64,
}

/// What a lookup found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The value at the offset asked for.
    Value(u8),
    /// The block could not be read or decoded: why.
    Failed(String),
}

impl BlockCache {
    /// A cache of at most `bytes` of decoded blocks of `block_size` values each (at least
    /// one set: a budget below one set still caches [`WAYS`] blocks).
    pub fn new(bytes: usize, block_size: usize) -> BlockCache {
        let block_size = block_size.max(1);
        let sets = (bytes / (block_size * WAYS)).max(1);
        BlockCache {
            sets: (0..sets)
                .map(|_| {
                    Set(Mutex::new(SetState {
                        keys: [EMPTY; WAYS],
                        data: Box::default(),
                        recency: std::array::from_fn(|way| way as u8),
                        hits: 0,
                    }))
                })
                .collect(),
            block_size,
            hit_wraps: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Blocks the cache can hold.
    pub fn capacity(&self) -> usize {
        self.sets.len() * WAYS
    }

    /// Lookups answered from memory and lookups that read a block, so far (each set's
    /// lock is taken in turn: for reports, not for the probing path).
    pub fn counts(&self) -> (u64, u64) {
        let in_sets: u64 = self
            .sets
            .iter()
            .map(|set| {
                let state = set
                    .0
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                u64::from(state.hits)
            })
            .sum();
        (
            (self.hit_wraps.load(Ordering::Relaxed) << 32) + in_sets,
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// The value at `offset` of the block with `key`, read by `fill` (which decodes the
    /// block into its argument) when the block is not held. A block shorter than the cache's block size (a slice's last) is padded.
    pub fn get(
        &self,
        key: u64,
        offset: usize,
        fill: impl FnOnce(&mut Vec<u8>) -> Result<(), String>,
    ) -> Lookup {
        if offset >= self.block_size {
            return Lookup::Failed(format!("offset {offset} past the block's end"));
        }
        // Fibonacci hashing, then the high half of the product with the set count (Lemire's
        // reduction): every bit of the key (slice and block) reaches the set number.
        let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let set_index = ((u128::from(mixed) * self.sets.len() as u128) >> 64) as usize;
        // A thread that panicked while holding the lock left at worst a way without a key
        // (keys are written last); the cache stays usable.
        let mut set = self.sets[set_index]
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let way = match set.keys.iter().position(|&k| k == key) {
            Some(way) => {
                set.hits = set.hits.wrapping_add(1);
                if set.hits == 0 {
                    self.hit_wraps.fetch_add(1, Ordering::Relaxed);
                }
                way
            }
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                let way = usize::from(set.recency[WAYS - 1]);
                set.keys[way] = EMPTY;
                let mut values = Vec::new();
                if let Err(reason) = fill(&mut values) {
                    return Lookup::Failed(reason);
                }
                if values.len() > self.block_size {
                    return Lookup::Failed(format!(
                        "a block of {} values, more than {}",
                        values.len(),
                        self.block_size
                    ));
                }
                if set.data.is_empty() {
                    set.data = vec![0; WAYS * self.block_size].into_boxed_slice();
                }
                let start = way * self.block_size;
                let (block, rest) =
                    set.data[start..start + self.block_size].split_at_mut(values.len());
                block.copy_from_slice(&values);
                rest.fill(0);
                set.keys[way] = key;
                way
            }
        };
        // The way becomes the most recently used.
        let at = set
            .recency
            .iter()
            .position(|&w| usize::from(w) == way)
            .expect("every way is in the order");
        set.recency.copy_within(0..at, 1);
        set.recency[0] = way as u8;
        Lookup::Value(set.data[way * self.block_size + offset])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_of(key: u64) -> Vec<u8> {
        (0..16).map(|i| (key as u8).wrapping_add(i)).collect()
    }

    #[test]
    fn a_block_is_read_once_while_it_stays_and_values_come_back_exact() {
        let cache = BlockCache::new(16 * WAYS * 8, 16);
        let mut reads = 0;
        for round in 0..3 {
            for key in 0..8u64 {
                let value = cache.get(key, 5, |out| {
                    reads += 1;
                    *out = block_of(key);
                    Ok(())
                });
                assert_eq!(value, Lookup::Value(block_of(key)[5]), "round {round}");
            }
        }
        assert!((8..24).contains(&reads), "{reads} reads");
        let (hits, misses) = cache.counts();
        assert_eq!(hits + misses, 24);
        assert_eq!(misses, reads);
    }

    #[test]
    fn the_least_recently_used_entry_of_a_full_set_goes() {
        // One set: the fifth block evicts the one used longest ago.
        let cache = BlockCache::new(1, 16);
        assert_eq!(cache.capacity(), WAYS);
        let fill = |key: u64| {
            move |out: &mut Vec<u8>| {
                *out = block_of(key);
                Ok(())
            }
        };
        for key in 0..WAYS as u64 {
            cache.get(key, 0, fill(key));
        }
        // Touch every block but 1, then bring in a new one: 1 must be the one to go.
        for key in (0..WAYS as u64).filter(|&k| k != 1) {
            cache.get(key, 0, |_| panic!("block {key} is held"));
        }
        cache.get(100, 0, fill(100));
        for key in (0..WAYS as u64).filter(|&k| k != 1) {
            cache.get(key, 0, |_| panic!("block {key} is still held"));
        }
        let mut read_again = false;
        cache.get(1, 0, |out| {
            read_again = true;
            *out = block_of(1);
            Ok(())
        });
        assert!(read_again);
    }

    #[test]
    fn a_set_and_its_lock_fit_one_cache_line() {
        assert_eq!(std::mem::size_of::<Set>(), 64);
    }

    #[test]
    fn hits_past_a_sets_32_bit_count_are_carried() {
        let cache = BlockCache::new(1, 16);
        cache.get(3, 0, |out| {
            *out = block_of(3);
            Ok(())
        });
        // Just below the wrap, as if 2^32 - 2 hits had been counted.
        cache.sets[0].0.lock().unwrap().hits = u32::MAX - 1;
        for _ in 0..5 {
            cache.get(3, 1, |_| panic!("block 3 is held"));
        }
        assert_eq!(cache.counts(), ((1 << 32) + 3, 1));
    }

    #[test]
    fn a_failed_read_is_reported_and_not_kept() {
        let cache = BlockCache::new(1, 16);
        assert_eq!(
            cache.get(7, 0, |_| Err("disk on fire".into())),
            Lookup::Failed("disk on fire".into())
        );
        let value = cache.get(7, 3, |out| {
            *out = block_of(7);
            Ok(())
        });
        assert_eq!(value, Lookup::Value(block_of(7)[3]));
    }
}
