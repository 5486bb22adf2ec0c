//! Strength levels: how a deliberately weaker search spends its nodes and picks its move.
//!
//! A level below full strength does two things, both graded by the level:
//! - it searches a fixed number of nodes, growing geometrically with the level, so a weak
//!   level answers at once and plays the same on a fast or a slow machine;
//! - at the lowest levels it looks at a few root moves (MultiPV) and picks one at random,
//!   the better a move's score the likelier (a softmax over the scores, whose temperature
//!   falls as the level rises). A weak level thus prefers sound moves and only sometimes
//!   plays a worse one, the way a weaker player does, instead of blundering at random.
//!
//! The levels were calibrated by matches between neighbours (docs/bench.md, "Strength
//! levels"); `Skill Level`, `UCI_Elo` and Hub's `level handicap` all map onto them.

use super::score::WIN_BOUND;
use crate::random::SplitMix;

/// Full strength: `Skill Level` 20 is no handicap at all.
pub const MAX_LEVEL: u32 = 20;

/// The node budget of level 0.
const LEVEL_0_NODES: f64 = 100.0;
/// The growth of the node budget from one level to the next.
const NODES_PER_LEVEL: f64 = 1.55;
/// The levels below this one choose among several root moves at random.
const RANDOM_BELOW_LEVEL: f64 = 12.0;
/// The temperature of the choice at level 0 would be this, centi-men, without the offset
/// that brings it to zero at [`RANDOM_BELOW_LEVEL`].
const TEMPERATURE_AT_0: f64 = 100.0;
/// The temperature falls by this factor a level: the lowest levels, whose searches are
/// all about as shallow, differ by their choice.
const TEMPERATURE_PER_LEVEL: f64 = 0.8;
/// Root moves compared by a level that chooses at random.
const RANDOM_LINES: usize = 4;

/// `UCI_Elo` of full strength (0.3 s a move, one thread): the anchor of damka's Elo scale,
/// on which the other levels sit by their measured distances from it.
pub const FULL_STRENGTH_ELO: i32 = 2400;

/// The Elo of each level 0 to [`MAX_LEVEL`] on that scale: the sums of the differences
/// measured between neighbouring levels (international, 0.3 s a move; docs/bench.md,
/// "Strength levels").
const LEVEL_ELO: [i32; MAX_LEVEL as usize + 1] = [
    201,
    240,
    290,
    479,
    731,
    829,
    993,
    1191,
    1300,
    1448,
    1571,
    1704,
    1876,
    1954,
    1999,
    2048,
    2112,
    2182,
    2258,
    2305,
    FULL_STRENGTH_ELO,
];

/// The lowest `UCI_Elo`: that of level 0.
pub const LOWEST_ELO: i32 = LEVEL_ELO[0];

/// The level, with a fraction, whose Elo is `elo` (interpolated between neighbouring levels;
/// clamped to the scale).
pub fn level_for_elo(elo: i32) -> f64 {
    let elo = elo.clamp(LOWEST_ELO, FULL_STRENGTH_ELO);
    let above = LEVEL_ELO
        .iter()
        .position(|&level_elo| level_elo >= elo)
        .unwrap_or(MAX_LEVEL as usize);
    if above == 0 {
        return 0.0;
    }
    let (low, high) = (LEVEL_ELO[above - 1], LEVEL_ELO[above]);
    (above - 1) as f64 + f64::from(elo - low) / f64::from(high - low)
}

/// A strength below full strength, with the seed of its random choice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Skill {
    /// From 0.0 (weakest) up to, not including, [`MAX_LEVEL`]; `UCI_Elo` gives fractions.
    level: f64,
    /// Seeds the random choice of this one search.
    seed: u64,
}

impl Skill {
    /// The handicap of `level` (0.0 up to [`MAX_LEVEL`]), or `None` at full strength.
    pub fn new(level: f64, seed: u64) -> Option<Skill> {
        (level < f64::from(MAX_LEVEL)).then_some(Skill {
            level: level.max(0.0),
            seed,
        })
    }

    /// The level.
    pub fn level(&self) -> f64 {
        self.level
    }

    /// The nodes a search at this level may spend: 100 at level 0, 1.55 times more a level,
    /// about 413,000 at level 19 (full strength searches 0.8 to 1.5 million in 0.3 s).
    pub fn node_budget(&self) -> u64 {
        (LEVEL_0_NODES * NODES_PER_LEVEL.powf(self.level)).round() as u64
    }

    /// The temperature of the random choice, centi-men: 93 at level 0, 45 at 3, 14 at 7,
    /// none from level 12.
    fn temperature(&self) -> f64 {
        let at = |level: f64| TEMPERATURE_AT_0 * TEMPERATURE_PER_LEVEL.powf(level);
        (at(self.level) - at(RANDOM_BELOW_LEVEL)).max(0.0)
    }

    /// Root moves the search must score for the choice (1: the best move is played).
    pub fn lines(&self) -> usize {
        if self.temperature() > 0.0 {
            RANDOM_LINES
        } else {
            1
        }
    }

    /// Which of the root moves scored `scores` (best first, from the same iteration) to
    /// play: move `i` with a probability proportional to `exp(-(best - score_i) / T)`. A
    /// forced win found is always played, and a move into a forced loss only when all are.
    pub fn choose(&self, scores: &[i32]) -> usize {
        let temperature = self.temperature();
        let Some(&best) = scores.first() else {
            return 0;
        };
        // A forced win is played; when every move loses, the slowest loss is.
        if temperature <= 0.0 || best.abs() > WIN_BOUND {
            return 0;
        }
        let weights: Vec<f64> = scores
            .iter()
            .map(|&score| {
                if score < -WIN_BOUND {
                    0.0
                } else {
                    (-f64::from(best.saturating_sub(score)) / temperature).exp()
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        // 53 random bits make a uniform fraction of [0, 1).
        let fraction = (SplitMix(self.seed).next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut left = fraction * total;
        for (index, weight) in weights.iter().enumerate() {
            if left < *weight {
                return index;
            }
            left -= weight;
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::WIN;

    #[test]
    fn full_strength_has_no_handicap() {
        assert!(Skill::new(20.0, 1).is_none());
        assert!(Skill::new(19.5, 1).is_some());
        assert_eq!(Skill::new(-3.0, 1).unwrap().level(), 0.0);
    }

    #[test]
    fn elo_maps_onto_the_levels() {
        assert_eq!(level_for_elo(FULL_STRENGTH_ELO), f64::from(MAX_LEVEL));
        assert_eq!(level_for_elo(LOWEST_ELO), 0.0);
        assert_eq!(level_for_elo(0), 0.0);
        assert_eq!(level_for_elo(9999), f64::from(MAX_LEVEL));
        for (level, &elo) in LEVEL_ELO.iter().enumerate() {
            assert_eq!(level_for_elo(elo), level as f64);
        }
        let between = level_for_elo((LEVEL_ELO[3] + LEVEL_ELO[4]) / 2);
        assert!(between > 3.0 && between < 4.0, "{between}");
        assert!(LEVEL_ELO.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn budgets_grow_with_the_level() {
        let budgets: Vec<u64> = (0..MAX_LEVEL)
            .map(|level| Skill::new(f64::from(level), 0).unwrap().node_budget())
            .collect();
        assert_eq!(budgets[0], 100);
        assert!(budgets.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn high_levels_play_the_best_move() {
        let skill = Skill::new(12.0, 7).unwrap();
        assert_eq!(skill.lines(), 1);
        for seed in 0..100 {
            let skill = Skill::new(12.0, seed).unwrap();
            assert_eq!(skill.choose(&[10, 9, 8, 7]), 0);
        }
    }

    /// Level 0 mostly plays the best move, often a close one, less than a fifth of the time a
    /// move a man worse,
    /// never a move into a forced loss, and always a forced win.
    #[test]
    fn low_levels_prefer_better_moves() {
        let mut counts = [0usize; 4];
        for seed in 0..10_000 {
            let skill = Skill::new(0.0, seed).unwrap();
            counts[skill.choose(&[20, 10, -80, -WIN + 5])] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[2], "{counts:?}");
        assert!(counts[2] > 0 && counts[2] < 2000, "{counts:?}");
        assert_eq!(counts[3], 0);
        for seed in 0..100 {
            let skill = Skill::new(0.0, seed).unwrap();
            assert_eq!(skill.choose(&[WIN - 3, 0, 0]), 0);
            assert_eq!(skill.choose(&[-WIN + 9, -WIN + 3]), 0);
        }
    }
}
