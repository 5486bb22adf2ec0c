//! `damka tune fit`: Texel's tuning method, fitting the evaluation weights so that a logistic of the score predicts game results.
//!
//! Texel's method (Peter Österlund, described on the chessprogramming wiki): with `R` the
//! result of the game a position came from (1, 0.5, 0 for White) and `e` the evaluation
//! from White's side, minimise the mean of `(R - sigmoid(K * e))^2`. `K` is fitted first with
//! the hand-set weights and then held, so the weights keep their scale; the man stays at
//! 100 for the same reason.
//!
//! The evaluation is linear in its weights except for the drawish-material divisions and
//! the side-to-move bonus (see [`damka::eval::lead_divisors`]). So each position is read once
//! into a feature vector, the score's coefficient of each weight, found by evaluating with
//! one weight set to a large unit and the others zero, and the error and its gradient are
//! then sums of products. Adam (Kingma and Ba, 2015) over full batches does the descent,
//! optionally with an L2 pull towards the hand-set values. The errors printed before and
//! after come from the real integer evaluation, not from the feature model.

use super::training_data;
use damka::eval::weights::for_variant;
use damka::eval::{Weights, evaluate_with, lead_divisors};
use damka::notation::fen::parse_fen;
use damka::position::Position;
use damka::rules::{Color, Rules, Variant};
use damka::with_variant;
use std::path::PathBuf;

/// What `damka tune fit` was asked for.
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Passes of gradient descent over the data.
    pub epochs: usize,
    /// Adam's step size, in weight units (centi-men).
    pub learning_rate: f64,
    /// Weight of the L2 pull towards the starting values, per (100 centi-men)^2.
    pub l2: f64,
    /// Names (or name prefixes) of weights kept at their starting values besides the man and
    /// the drawish-material rules.
    pub fixed: Vec<String>,
    /// Share of the data, taken from the end of the file, kept out of the fit to check it.
    pub holdout: f64,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            epochs: 1000,
            learning_rate: 1.0,
            l2: 0.0,
            fixed: Vec::new(),
            holdout: 0.1,
        }
    }
}

/// The multiplier of the unit weight used to read the features: large enough that the
/// evaluation's integer division of the tapered terms loses nothing that matters.
const UNIT: i32 = 1 << 12;

/// The weights that are not plain coefficients of the score.
const NONLINEAR: [&str; 5] = [
    "side_to_move",
    "drawish_pieces",
    "drawish_pieces_diagonal",
    "drawish_divisor",
    "king_parity_divisor",
];

/// The data read into the linear model.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// Indices (into [`Weights::to_vec`]) of the linear weights, the feature order.
    pub linear: Vec<usize>,
    /// Index of `side_to_move`.
    pub stm: usize,
    /// Features, `linear.len()` per sample.
    pub features: Vec<f32>,
    /// +1 when White is to move, -1 otherwise.
    pub sign: Vec<f32>,
    /// The divisors of a White lead and of a Black lead.
    pub divisors: Vec<[f32; 2]>,
    /// Results from White's side.
    pub results: Vec<f32>,
}

impl Dataset {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// The model's score of sample `i` from White's side, for the flat weights `theta`.
    fn score(&self, i: usize, theta: &[f64]) -> (f64, f64) {
        let width = self.linear.len();
        let row = &self.features[i * width..(i + 1) * width];
        let linear: f64 = row
            .iter()
            .zip(&self.linear)
            .map(|(&f, &k)| f64::from(f) * theta[k])
            .sum();
        let divisor = if linear >= 0.0 {
            self.divisors[i][0]
        } else {
            self.divisors[i][1]
        };
        let divisor = f64::from(divisor);
        (
            linear / divisor + f64::from(self.sign[i]) * theta[self.stm],
            divisor,
        )
    }
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Logistic loss of a prediction `p` for a result `r`.
pub fn log_loss(p: f64, r: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(r * p.ln() + (1.0 - r) * (1.0 - p).ln())
}

/// The mean logistic loss and the mean squared error of predicting each result `r` (1, 0.5,
/// 0 for White) by `sigmoid(k * s)`, over pairs `(s, r)` with `s` a score from White's side:
/// the one loss report of `tune fit` and `tune patterns`, for the real evaluation and for
/// their models. Both are 0 for no pairs.
pub fn mean_losses(k: f64, scored: impl ExactSizeIterator<Item = (f64, f64)>) -> (f64, f64) {
    let n = scored.len().max(1) as f64;
    let (mut log, mut squared) = (0.0, 0.0);
    for (s, r) in scored {
        let p = sigmoid(k * s);
        log += log_loss(p, r);
        squared += (p - r) * (p - r);
    }
    (log / n, squared / n)
}

/// `score`, an evaluation of `position` from its side to move, from White's side.
pub fn for_white<R: Rules>(position: &Position<R>, score: i32) -> i32 {
    match position.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    }
}

/// The evaluation from White's side.
fn white_score<R: Rules>(position: &Position<R>, w: &Weights) -> i32 {
    for_white(position, evaluate_with(position, w))
}

/// Reads the samples into features under the drawish rules of `base`.
pub fn extract<R: Rules>(samples: &[(Position<R>, f64)], base: &Weights) -> Dataset {
    let names = Weights::names();
    let field = |name: &str| name.split('[').next().unwrap_or(name).to_string();
    let index_of = |wanted: &str| {
        names
            .iter()
            .position(|n| n == wanted)
            .expect("a field of Weights")
    };
    let linear: Vec<usize> = (0..names.len())
        .filter(|&i| !NONLINEAR.contains(&field(&names[i]).as_str()))
        .collect();
    // Every weight zero and the drawish rules off: the score is then exactly linear.
    let mut zero = vec![0; names.len()];
    zero[index_of("drawish_divisor")] = 1;
    zero[index_of("king_parity_divisor")] = 1;
    let units: Vec<Weights> = linear
        .iter()
        .map(|&k| {
            let mut values = zero.clone();
            values[k] = UNIT;
            base.with_values(&values).expect("the right length")
        })
        .collect();
    let mut data = Dataset {
        linear,
        stm: index_of("side_to_move"),
        ..Dataset::default()
    };
    for (position, result) in samples {
        for unit in &units {
            data.features
                .push(white_score(position, unit) as f32 / UNIT as f32);
        }
        data.sign.push(match position.side_to_move() {
            Color::White => 1.0,
            Color::Black => -1.0,
        });
        let (white, black) = lead_divisors(position, base);
        data.divisors.push([white as f32, black as f32]);
        data.results.push(*result as f32);
    }
    data
}

/// The mean squared error of the real evaluation with `w` on `samples`, at scale `k`.
pub fn eval_error<R: Rules>(samples: &[(Position<R>, f64)], w: &Weights, k: f64) -> f64 {
    let scored = samples
        .iter()
        .map(|(position, result)| (f64::from(white_score(position, w)), *result));
    mean_losses(k, scored).1
}

/// The `K` that minimises [`eval_error`] with `w` (golden-section search on a log scale).
pub fn fit_k<R: Rules>(samples: &[(Position<R>, f64)], w: &Weights) -> f64 {
    let (mut lo, mut hi) = ((1e-5f64).ln(), (1.0f64).ln());
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let error = |x: f64| eval_error(samples, w, x.exp());
    let mut a = hi - ratio * (hi - lo);
    let mut b = lo + ratio * (hi - lo);
    let (mut fa, mut fb) = (error(a), error(b));
    for _ in 0..40 {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - ratio * (hi - lo);
            fa = error(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + ratio * (hi - lo);
            fb = error(b);
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// The model's mean squared error and its gradient, at scale `k`.
fn model_error(data: &Dataset, theta: &[f64], k: f64, gradient: &mut [f64]) -> f64 {
    gradient.iter_mut().for_each(|g| *g = 0.0);
    let width = data.linear.len();
    let mut sum = 0.0;
    for i in 0..data.len() {
        let (e, divisor) = data.score(i, theta);
        let p = sigmoid(k * e);
        let r = f64::from(data.results[i]);
        sum += (r - p) * (r - p);
        let g = 2.0 * (p - r) * p * (1.0 - p) * k;
        let row = &data.features[i * width..(i + 1) * width];
        let scaled = g / divisor;
        for (&f, &index) in row.iter().zip(&data.linear) {
            gradient[index] += scaled * f64::from(f);
        }
        gradient[data.stm] += g * f64::from(data.sign[i]);
    }
    let n = data.len().max(1) as f64;
    gradient.iter_mut().for_each(|g| *g /= n);
    sum / n
}

/// Which entries of the flat vector the fit may change.
pub fn trainable(config: &FitConfig) -> Vec<bool> {
    Weights::names()
        .iter()
        .map(|name| {
            let field = name.split('[').next().unwrap_or(name);
            let fixed = field == "man"
                || (NONLINEAR.contains(&field) && field != "side_to_move")
                || config
                    .fixed
                    .iter()
                    .any(|f| name == f || field == f || name.starts_with(f.as_str()));
            !fixed
        })
        .collect()
}

/// Fits the weights to `data` from `start` at scale `k`; calls `progress` with each epoch
/// and the model's error. Returns the fitted values (not rounded).
pub fn fit(
    data: &Dataset,
    start: &Weights,
    k: f64,
    config: &FitConfig,
    progress: &mut dyn FnMut(usize, f64),
) -> Vec<f64> {
    let initial: Vec<f64> = start.to_vec().iter().map(|&v| f64::from(v)).collect();
    let mask = trainable(config);
    let mut theta = initial.clone();
    let mut gradient = vec![0.0; theta.len()];
    let (mut m, mut v) = (vec![0.0; theta.len()], vec![0.0; theta.len()]);
    let (beta1, beta2, epsilon) = (0.9f64, 0.999f64, 1e-12);
    let epochs = config.epochs.max(1);
    for epoch in 0..epochs {
        let error = model_error(data, &theta, k, &mut gradient);
        progress(epoch, error);
        // A linear decay of the step to a tenth lets the end settle.
        let rate = config.learning_rate * (1.0 - 0.9 * epoch as f64 / epochs as f64);
        let t = (epoch + 1) as i32;
        for j in 0..theta.len() {
            if !mask[j] {
                continue;
            }
            let g = gradient[j] + 2.0 * config.l2 * (theta[j] - initial[j]) / 1e4;
            m[j] = beta1 * m[j] + (1.0 - beta1) * g;
            v[j] = beta2 * v[j] + (1.0 - beta2) * g * g;
            let m_hat = m[j] / (1.0 - beta1.powi(t));
            let v_hat = v[j] / (1.0 - beta2.powi(t));
            theta[j] -= rate * m_hat / (v_hat.sqrt() + epsilon);
        }
    }
    theta
}

/// The fitted values rounded into a weight set.
pub fn rounded(start: &Weights, theta: &[f64]) -> Weights {
    let values: Vec<i32> = theta.iter().map(|v| v.round() as i32).collect();
    start.with_values(&values).expect("the right length")
}

/// Reads `FEN;RESULT` lines (a result from 0 to 1); blank and `#` lines are skipped, bad
/// lines counted and skipped. A search score after the result (`FEN;RESULT;SCORE`, as
/// `damka tune gen --scores` writes) is read and left out.
pub fn read_samples<'a, R: Rules>(
    lines: impl IntoIterator<Item = &'a str>,
) -> (Vec<(Position<R>, f64)>, usize) {
    let read = read_scored_samples(lines);
    (read.samples, read.bad)
}

/// Positions with their results, the search score of each where its line gave one, and the
/// number of lines that did not read.
pub struct ScoredSamples<R: Rules> {
    /// The positions and results (1, 0.5, 0 for White).
    pub samples: Vec<(Position<R>, f64)>,
    /// Each sample's search score, centi-men from White's side, if its line had one.
    pub scores: Vec<Option<i32>>,
    /// Lines that did not read.
    pub bad: usize,
}

/// Reads `FEN;RESULT` and `FEN;RESULT;SCORE` lines.
pub fn read_scored_samples<'a, R: Rules>(
    lines: impl IntoIterator<Item = &'a str>,
) -> ScoredSamples<R> {
    let mut samples = Vec::new();
    let mut scores = Vec::new();
    let mut bad = 0;
    for line in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = (|| {
            let mut fields = line.split(';');
            let fen = fields.next()?;
            let result: f64 = fields.next()?.trim().parse().ok()?;
            let score = match fields.next() {
                None => None,
                Some(text) => Some(text.trim().parse::<i32>().ok()?),
            };
            if fields.next().is_some() || !(0.0..=1.0).contains(&result) {
                return None;
            }
            let position = parse_fen::<R>(fen.trim()).ok()?;
            Some((position, result, score))
        })();
        match parsed {
            Some((position, result, score)) => {
                samples.push((position, result));
                scores.push(score);
            }
            None => bad += 1,
        }
    }
    ScoredSamples {
        samples,
        scores,
        bad,
    }
}

/// Runs `damka tune fit`; returns the exit code.
pub fn run_fit(
    file: &PathBuf,
    variant: Variant,
    config: &FitConfig,
    out: &PathBuf,
    command: &str,
) -> i32 {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("damka tune fit: cannot read {}: {error}", file.display());
            return 2;
        }
    };
    if let Err(message) = training_data::check(file, text.as_bytes()) {
        eprintln!("damka tune fit: {message}");
        return 2;
    }
    let report = with_variant!(variant, R => fit_file::<R>(&text, config));
    let Some((tuned, summary)) = report else {
        eprintln!("damka tune fit: no usable positions in {}", file.display());
        return 2;
    };
    print!("{summary}");
    let mut body = String::new();
    body.push_str(&format!("# {variant} weights fitted by: {command}\n"));
    for line in summary.lines() {
        body.push_str(&format!("# {line}\n"));
    }
    body.push_str(&tuned.to_text());
    if let Err(error) = std::fs::write(out, body) {
        eprintln!("damka tune fit: cannot write {}: {error}", out.display());
        return 2;
    }
    println!("weights written to {}", out.display());
    0
}

/// Fits the data of one variant; the tuned set and a summary to print.
fn fit_file<R: Rules>(text: &str, config: &FitConfig) -> Option<(Weights, String)> {
    let (samples, bad) = read_samples::<R>(text.lines());
    if samples.is_empty() {
        return None;
    }
    let start = *for_variant(R::VARIANT);
    let cut = ((samples.len() as f64) * (1.0 - config.holdout.clamp(0.0, 0.9))) as usize;
    let (train, check) = samples.split_at(cut.max(1));
    let mut summary = String::new();
    summary.push_str(&format!(
        "{} positions ({} to fit, {} held out), {bad} bad lines skipped\n",
        samples.len(),
        train.len(),
        check.len()
    ));
    let k = fit_k(train, &start);
    summary.push_str(&format!("K = {k:.6} (fitted on the hand-set weights)\n"));
    let data = extract(train, &start);
    let every = (config.epochs / 10).max(1);
    let theta = fit(&data, &start, k, config, &mut |epoch, error| {
        if epoch % every == 0 {
            eprintln!("epoch {epoch}: model error {error:.6}");
        }
    });
    let tuned = rounded(&start, &theta);
    summary.push_str(&format!(
        "error before: {:.6} fit, {:.6} held out\n",
        eval_error(train, &start, k),
        eval_error(check, &start, k)
    ));
    summary.push_str(&format!(
        "error after:  {:.6} fit, {:.6} held out\n",
        eval_error(train, &tuned, k),
        eval_error(check, &tuned, k)
    ));
    Some((tuned, summary))
}

/// Test data of the tuners: the positions of `games` random playouts from the start (at
/// most `plies` plies each, moves drawn from `SplitMix(seed)`), each passed with its ply and
/// the generator to `label`, which gives its result or drops it.
#[cfg(test)]
pub fn random_playouts<R: Rules>(
    seed: u64,
    games: usize,
    plies: usize,
    mut label: impl FnMut(&Position<R>, usize, &mut damka::random::SplitMix) -> Option<f64>,
) -> Vec<(Position<R>, f64)> {
    let mut rng = damka::random::SplitMix(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut position = Position::<R>::start();
        for ply in 0..plies {
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            position = position.play(&legal.as_slice()[rng.below(legal.len())]);
            if let Some(result) = label(&position, ply, &mut rng) {
                out.push((position, result));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::rules::{English, International};

    /// The men of `color` in the half of the board nearer its promotion row.
    fn advanced_men<R: Rules>(position: &Position<R>, color: Color) -> u32 {
        use damka::board::Geometry;
        let size = R::Geometry::SIZE;
        let rows = if Position::<R>::moves_up(color) {
            0..size / 2
        } else {
            size / 2..size
        };
        let half = rows.fold(0, |set, r| set | R::Geometry::row_mask(r));
        (position.men(color) & half).count_ones()
    }

    /// Positions of random playouts, each labelled by a rule the hand-set weights barely
    /// know: the side with more men in the far half of the board wins.
    fn synthetic<R: Rules>(seed: u64, games: usize) -> Vec<(Position<R>, f64)> {
        random_playouts(seed, games, 60, |position, ply, _| {
            if ply % 3 != 0 || !crate::tools::tune::is_quiet(position) {
                return None;
            }
            let white = advanced_men(position, Color::White);
            let black = advanced_men(position, Color::Black);
            Some(match white.cmp(&black) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => 0.5,
            })
        })
    }

    fn fit_lowers_the_error<R: Rules>() {
        let samples = synthetic::<R>(7, 150);
        let start = *for_variant(R::VARIANT);
        let k = fit_k(&samples, &start);
        let config = FitConfig {
            epochs: 200,
            ..FitConfig::default()
        };
        let data = extract(&samples, &start);
        let mut errors = Vec::new();
        let theta = fit(&data, &start, k, &config, &mut |_, e| errors.push(e));
        let tuned = rounded(&start, &theta);
        let before = eval_error(&samples, &start, k);
        let after = eval_error(&samples, &tuned, k);
        assert!(after < before, "{before} -> {after}");
        assert!(errors.last() < errors.first(), "{errors:?}");
        // The fixed weights kept their values.
        assert_eq!(tuned.man, start.man);
        assert_eq!(tuned.drawish_divisor, start.drawish_divisor);
    }

    damka::generic_tests! {
        fit_lowers_the_error_international: fit_lowers_the_error::<International>();
        fit_lowers_the_error_english: fit_lowers_the_error::<English>();
    }

    /// The feature model reproduces the real evaluation (up to its integer rounding).
    #[test]
    fn features_reproduce_the_evaluation() {
        let samples = synthetic::<International>(11, 40);
        let start = *for_variant(Variant::International);
        let data = extract(&samples, &start);
        let theta: Vec<f64> = start.to_vec().iter().map(|&v| f64::from(v)).collect();
        for (i, (position, _)) in samples.iter().enumerate() {
            let model = data.score(i, &theta).0;
            let real = f64::from(white_score(position, &start));
            assert!(
                (model - real).abs() <= 2.0,
                "{position:?}: {model} vs {real}"
            );
        }
    }
}
