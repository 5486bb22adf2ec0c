//! Match statistics: score, Elo difference with 95% intervals (trinomial and pentanomial), GSPRT.
//!
//! Sources of the formulas:
//! - Elo from a score fraction, logistic model: `Elo = -400 log10(1/s - 1)` (A. Elo, *The
//!   Rating of Chessplayers, Past and Present*, 1978; the form cutechess-cli and fastchess print).
//! - Intervals: the normal approximation of the mean score, `s ± 1.96 σ/√n`, with `σ²` the
//!   sample variance of the game results (trinomial: 0, ½, 1 per game) or of the pair
//!   results (pentanomial: 0, ¼, ½, ¾, 1 per opening pair, which removes the variance the
//!   openings bring); each bound is mapped through the Elo formula. The pentanomial model is
//!   the one fishtest uses for paired openings (M. Van den Bergh, "Normalized Elo", fishtest
//!   documentation, 2020).
//! - GSPRT: M. Van den Bergh, "A simple approximation to the GSPRT" (2016, the approximation
//!   fishtest and fastchess use): `LLR ≈ n (s1 - s0)(2 s - s0 - s1) / (2 σ²)`, with `s0`, `s1`
//!   the expected scores of the two hypotheses' Elo (logistic), `s` the mean and `σ²` the
//!   variance of the `n` samples (pairs when there are any, games otherwise); Wald's bounds
//!   (A. Wald, "Sequential tests of statistical hypotheses", 1945): accept H0 when
//!   `LLR ≤ ln(β/(1-α))`, H1 when `LLR ≥ ln((1-β)/α)`.

/// The 97.5% quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_985;

/// Results counted from the first engine's side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Complete opening pairs by their points, in half points: 0, ½, 1, 1½, 2.
    pub pairs: [u32; 5],
}

/// An Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The estimate.
    pub elo: f64,
    /// Lower bound of the interval.
    pub low: f64,
    /// Upper bound of the interval.
    pub high: f64,
}

impl Estimate {
    /// The half-width of the interval (its mean distance from the estimate), for `± X`.
    pub fn margin(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// The Elo difference that gives the score fraction `s` (logistic model).
pub fn elo_of_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// The expected score of an Elo difference (logistic model).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean and variance of samples given as (value, count).
fn moments(samples: &[(f64, u32)]) -> Option<(f64, f64, f64)> {
    weighted_moments(samples, 0.0)
}

/// Mean and variance of samples given as (value, count), each count raised by `prior`;
/// the sample size returned is the one without the prior.
fn weighted_moments(samples: &[(f64, u32)], prior: f64) -> Option<(f64, f64, f64)> {
    let n: f64 = samples.iter().map(|&(_, c)| f64::from(c)).sum();
    if n == 0.0 {
        return None;
    }
    let weight = |c: u32| f64::from(c) + prior;
    let total: f64 = samples.iter().map(|&(_, c)| weight(c)).sum();
    let mean = samples.iter().map(|&(v, c)| v * weight(c)).sum::<f64>() / total;
    let variance = samples
        .iter()
        .map(|&(v, c)| weight(c) * (v - mean).powi(2))
        .sum::<f64>()
        / total;
    Some((n, mean, variance))
}

/// The pseudo-count the SPRT adds to every outcome (pair scores 0 to 2, or win, draw,
/// loss) before it takes the mean and variance: the Jeffreys prior of a multinomial,
/// Dirichlet(½, ..., ½) (Krichevsky and Trofimov's "add one half" estimator). Draughts
/// pairs are mostly 1-1, so the first pairs can all score the same; their plain variance is
/// then near zero and the LLR, divided by it, reached -8.9 after ten pairs of a test whose
/// bounds are ±2.94. With the prior the first pairs weigh as little as they should, and
/// after a few hundred pairs it changes nothing that matters.
const SPRT_PRIOR: f64 = 0.5;

fn estimate(samples: &[(f64, u32)]) -> Option<Estimate> {
    let (n, mean, variance) = moments(samples)?;
    let half = Z95 * (variance / n).sqrt();
    Some(Estimate {
        elo: elo_of_score(mean),
        low: elo_of_score(mean - half),
        high: elo_of_score(mean + half),
    })
}

impl Tally {
    /// Counts one game: 1 won, ½ drawn, 0 lost.
    pub fn add_game(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
    }

    /// Counts one complete opening pair by its points (0 to 2).
    pub fn add_pair(&mut self, points: f64) {
        let index = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.pairs[index] += 1;
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Complete pairs counted.
    pub fn pair_count(&self) -> u32 {
        self.pairs.iter().sum()
    }

    /// The score fraction.
    pub fn score(&self) -> f64 {
        let games = self.games();
        if games == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(games)
    }

    fn game_samples(&self) -> [(f64, u32); 3] {
        [(1.0, self.wins), (0.5, self.draws), (0.0, self.losses)]
    }

    fn pair_samples(&self) -> [(f64, u32); 5] {
        std::array::from_fn(|i| (i as f64 / 4.0, self.pairs[i]))
    }

    /// Elo difference with its 95% interval over the games (trinomial).
    pub fn trinomial(&self) -> Option<Estimate> {
        estimate(&self.game_samples())
    }

    /// Elo difference with its 95% interval over the opening pairs (pentanomial).
    pub fn pentanomial(&self) -> Option<Estimate> {
        estimate(&self.pair_samples())
    }
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo of the null hypothesis.
    pub elo0: f64,
    /// Elo of the alternative.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Not decided yet.
    Continue,
    /// H0 accepted: the difference is `elo0` or less.
    H0,
    /// H1 accepted: the difference is `elo1` or more.
    H1,
}

impl Sprt {
    /// Checks the parameters (`alpha`, `beta` in (0, ½), `elo0 < elo1`).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        let rate = |x: f64| x > 0.0 && x < 0.5;
        if elo0.partial_cmp(&elo1) != Some(std::cmp::Ordering::Less) || !rate(alpha) || !rate(beta)
        {
            return Err(format!(
                "--sprt {elo0} {elo1} {alpha} {beta}: need ELO0 < ELO1 and 0 < ALPHA, BETA < 0.5"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Wald's bounds `(ln(β/(1-α)), ln((1-β)/α))`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of the results, over pairs when there are any; mean and
    /// variance carry the [`SPRT_PRIOR`].
    pub fn llr(&self, tally: &Tally) -> f64 {
        let moments = if tally.pair_count() > 0 {
            weighted_moments(&tally.pair_samples(), SPRT_PRIOR)
        } else {
            weighted_moments(&tally.game_samples(), SPRT_PRIOR)
        };
        let Some((n, mean, variance)) = moments else {
            return 0.0;
        };
        if variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
    }

    /// The decision the results give.
    pub fn decide(&self, tally: &Tally) -> Decision {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Decision::H1
        } else if llr <= lower {
            Decision::H0
        } else {
            Decision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_known_scores() {
        assert!((elo_of_score(0.5)).abs() < 1e-9);
        // 3 to 1: Elo = 400 log10(3) = 190.85.
        assert!((elo_of_score(0.75) - 190.848).abs() < 1e-3);
        assert!((score_of_elo(190.848) - 0.75).abs() < 1e-6);
    }

    #[test]
    fn intervals_and_sprt_bounds() {
        let tally = Tally {
            wins: 30,
            draws: 40,
            losses: 30,
            pairs: [0; 5],
        };
        let e = tally.trinomial().unwrap();
        assert!(e.elo.abs() < 1e-9 && e.low < 0.0 && e.high > 0.0);
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let (lower, upper) = sprt.bounds();
        assert!((lower + 2.944).abs() < 1e-3 && (upper - 2.944).abs() < 1e-3);
        assert!(Sprt::new(10.0, 0.0, 0.05, 0.05).is_err());
    }

    /// A tally of complete pairs only (the SPRT reads the pairs when there are any).
    fn pair_tally(pairs: [u32; 5]) -> Tally {
        Tally {
            wins: 0,
            draws: 2 * pairs.iter().sum::<u32>(),
            losses: 0,
            pairs,
        }
    }

    /// Ten pairs of which nine scored 1-1 and one 1½-½ (a match that stopped there with
    /// LLR -8.90 for [30, 90]) decide nothing; the same results a hundred times over do.
    #[test]
    fn a_few_alike_pairs_do_not_decide_the_sprt() {
        let sprt = Sprt::new(30.0, 90.0, 0.05, 0.05).unwrap();
        let few = pair_tally([0, 0, 9, 1, 0]);
        assert_eq!(sprt.decide(&few), Decision::Continue, "{}", sprt.llr(&few));
        let many = pair_tally([0, 0, 900, 100, 0]);
        assert_eq!(sprt.decide(&many), Decision::H0, "{}", sprt.llr(&many));
    }

    /// Two identical engines (every pair 1-1) are shown to be no better: before, the zero
    /// variance kept the LLR at 0 for ever.
    #[test]
    fn identical_engines_accept_h0() {
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let alike = pair_tally([0, 0, 1000, 0, 0]);
        assert_eq!(sprt.decide(&alike), Decision::H0, "{}", sprt.llr(&alike));
    }
}
