//! SplitMix64, the one seeded generator of the library, the programs and the tests.
//!
//! SplitMix64 (Steele, Lea, Flood 2014) is tiny and well mixed, and a run that uses it is
//! fully described by its seed. The Zobrist keys are made by [`split_mix`] at compile time;
//! the match tool's balloted openings, `damka tune`'s self-play and every seeded test draw
//! from a [`SplitMix`].

/// One step of SplitMix64 from `state`: the next state and 64 random bits. A `const fn`, so
/// that tables made at compile time use it too.
pub const fn split_mix(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

/// A SplitMix64 generator; the number is its state, so `SplitMix(seed)` starts one.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let (state, bits) = split_mix(self.0);
        self.0 = state;
        bits
    }

    /// A number below `n` (which must not be 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn percent(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// A number in `low..=high`.
    pub fn between(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next_u64() % (high - low + 1) as u64) as i64
    }

    /// Shuffles `items` in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outputs for seed 0 of the reference implementation (Vigna's splitmix64.c).
    #[test]
    fn reference_values() {
        let mut random = SplitMix(0);
        assert_eq!(random.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(random.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(random.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn draws_stay_in_range() {
        let mut random = SplitMix(7);
        for _ in 0..1000 {
            assert!(random.below(6) < 6);
            assert!((-3..=4).contains(&random.between(-3, 4)));
        }
        let mut items = [1, 2, 3, 4, 5];
        random.shuffle(&mut items);
        items.sort_unstable();
        assert_eq!(items, [1, 2, 3, 4, 5]);
    }
}
