//! `damka tune patterns`: fits the block tables of the pattern evaluation, together with the other weights, to game results by logistic regression and writes a checked weights file.
//!
//! The model is the evaluation itself: the linear terms of [`damka::eval::Weights`] read as
//! features (as `damka tune fit` reads them, see [`super::tune_fit::extract`]) plus, for each
//! block table of [`damka::eval::patterns`], the opening and endgame weight of the
//! arrangement each side sees, blended by the phase as the evaluation blends them. With `s`
//! the score from White's side and `R` the game result (1, 0.5, 0), the fit minimises the
//! logistic loss `-(R ln p + (1 - R) ln(1 - p))`, `p = sigmoid(K s)`, plus an L2 penalty on
//! the block weights (and the pull of `--l2` towards the starting values of the others).
//! `K` is fitted to the starting weights first and then held, so a centi-man stays a
//! centi-man.
//!
//! The optional material prior (`--material-positions`) adds what the games cannot teach
//! where one side's lead makes every result the same: for endings of the fitted data and
//! each of their pieces, the score with the piece taken off must be at least
//! `--material-margin` centi-men worse for its owner, or a hinge loss (the constraint as a
//! penalty, as in a soft-margin classifier) pulls the weights that way.
//!
//! With `--kings` the file gets king tables too ([`damka::eval::patterns`], "King tables":
//! base-5 blocks that tell kings from men, added while a king is on the board), fitted in
//! the same descent beside the men tables; the L2 penalty pulls each king weight to zero,
//! which is the men table's value of the arrangement.
//!
//! The descent is Adam (Kingma and Ba, 2015) over shuffled mini-batches, the gradient of a
//! batch summed by `--threads` threads. After each pass over the data the loss on the
//! held-out positions (the end of the data: the last games) is measured; the step is halved
//! when it did not improve, and the fit stops after `--patience` passes without improvement,
//! keeping the best weights seen (early stopping). The losses printed at the end come from
//! the real integer evaluation with the written file, beside those of the starting weights.

use super::training_data::{self, Provenance};
use super::tune_fit::{
    Dataset, FitConfig, ScoredSamples, extract, fit_k, for_white, log_loss, mean_losses,
    read_scored_samples, sigmoid, trainable,
};
use damka::board::Bits;
use damka::board::Geometry;
use damka::eval::patterns::{
    BLOCK_STATES, KING_STATES, PATTERN_UNIT, PatternLayout, Patterns, indices, king_indices,
    tables_of,
};
use damka::eval::weights::{STARTING_SETS, for_variant};
use damka::eval::{EvalSet, Weights, lead_divisors, pattern_family};
use damka::position::Position;
use damka::random::SplitMix;
use damka::rules::{Color, Rules, Variant};
use damka::with_variant;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Arc;

/// What `damka tune patterns` was asked for (its command-line options).
#[derive(Clone, Debug, clap::Args)]
pub struct PatternConfig {
    /// Files of `FEN;RESULT` lines, as `damka tune gen` writes them, read in this order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The rule set of every position.
    #[arg(long, short, default_value = "international", value_parser = crate::variant_arg::variant_parser(), ignore_case = true)]
    pub variant: Variant,
    /// Start from this weights file (binary or text) instead of the built-in weights.
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// Start from one of the sets the built-in files were fitted from, without block tables
    /// (data/README.md names each file's).
    #[arg(long, conflicts_with = "start", ignore_case = true,
          value_parser = clap::builder::PossibleValuesParser::new(STARTING_SETS.map(|(name, _)| name)))]
    pub start_set: Option<String>,
    /// Most passes over the data.
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// Positions per step of the descent.
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// Adam's first step size, in centi-men.
    #[arg(long, default_value_t = 1.0)]
    pub learning_rate: f64,
    /// L2 penalty on the block weights (per centi-man squared).
    #[arg(long, default_value_t = 1e-8)]
    pub l2: f64,
    /// Pull of the other weights towards their starting values (as in `damka tune fit`).
    #[arg(long, default_value_t = 0.0001)]
    pub l2_weights: f64,
    /// Weights (names or prefixes, comma-separated) kept at their starting values.
    #[arg(long, value_delimiter = ',')]
    pub fix: Vec<String>,
    /// Share of the positions (the end of the data) held out to check the fit.
    #[arg(long, default_value_t = 0.05)]
    pub holdout: f64,
    /// Passes without a better held-out loss before the fit stops.
    #[arg(long, default_value_t = 3)]
    pub patience: usize,
    /// Fit the linear weights only (the block tables stay zero): the baseline to compare
    /// the pattern model with.
    #[arg(long)]
    pub linear_only: bool,
    /// Fit king tables too (5 states a square, counted while a king is on the board) and
    /// write them into the file (version 3: the king weights that are not zero); a starting
    /// file with king tables implies it.
    #[arg(long)]
    pub kings: bool,
    /// Endings drawn from the fitted positions (at most `--material-pieces` pieces a side)
    /// whose every piece removal the fit holds to "a piece less is worse for its owner"
    /// (the material prior, see the module doc); 0 leaves the prior out.
    #[arg(long, default_value_t = 0)]
    pub material_positions: usize,
    /// Most pieces a side in the endings of the material prior.
    #[arg(long, default_value_t = 5)]
    pub material_pieces: u32,
    /// Centi-men that a removal must at least cost its owner under the material prior.
    #[arg(long, default_value_t = 10.0)]
    pub material_margin: f64,
    /// Weight of a removal that costs less than the margin, against one position's loss.
    #[arg(long, default_value_t = 1.0)]
    pub material_weight: f64,
    /// Threads.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Weight of the search score in the label of a fitted position whose line carries one
    /// (`FEN;RESULT;SCORE`): the label is `(1 - lambda) * RESULT + lambda * sigmoid(K *
    /// SCORE)`. The held-out positions keep their game results, so held-out losses stay
    /// comparable between fits.
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
    /// Seed of the shuffle.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The weights file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// The block indices and phase of each sample, beside the linear features of a [`Dataset`].
#[derive(Debug, Default)]
struct Blocks {
    /// Tables in use.
    tables: usize,
    /// Per sample: the `tables` indices of the side moving up, then those of the side moving
    /// down (each already offset by its table).
    index: Vec<u32>,
    /// Per sample: the opening share of the blend (the phase / the full phase).
    opening_share: Vec<f32>,
    /// +1 when White moves up (its blocks are the `up` ones), -1 otherwise.
    orientation: f32,
    /// Per sample, when the king tables are fitted: the `tables` king-table indices of the
    /// side moving up, then those of the side moving down (offset past the men tables), or
    /// `u32::MAX` throughout when no king is on the board; empty without king tables.
    king_index: Vec<u32>,
}

impl Blocks {
    /// The parameter indices (before interleaving the phases) that sample `i` adds (`+1`)
    /// and subtracts (`-1`): men tables of both sides, then king tables where they count.
    #[inline]
    fn rows(&self, i: usize) -> [(&[u32], f32); 4] {
        let t = self.tables;
        let men = &self.index[i * 2 * t..(i + 1) * 2 * t];
        let kings = match self.king_index.get(i * 2 * t..(i + 1) * 2 * t) {
            Some(kings) if kings[0] != u32::MAX => kings,
            _ => &[],
        };
        let (kings_up, kings_down) = kings.split_at(kings.len() / 2);
        [
            (&men[..t], 1.0),
            (&men[t..], -1.0),
            (kings_up, 1.0),
            (kings_down, -1.0),
        ]
    }
}

/// The parameters: the flat linear weights and the block weights (opening, endgame
/// interleaved: `2 * (table * 6561 + index) + phase`), in centi-men.
#[derive(Clone, Debug)]
struct Model {
    theta: Vec<f64>,
    blocks: Vec<f32>,
}

impl Model {
    /// The score of sample `i` from White's side and the divisor applied to it.
    #[inline]
    fn score(&self, data: &Dataset, blocks: &Blocks, i: usize) -> (f64, f64) {
        let width = data.linear.len();
        let row = &data.features[i * width..(i + 1) * width];
        let mut total: f64 = row
            .iter()
            .zip(&data.linear)
            .map(|(&f, &k)| f64::from(f) * self.theta[k])
            .sum();
        let (mut opening, mut endgame) = (0f32, 0f32);
        for (ids, sign) in blocks.rows(i) {
            for &j in ids {
                opening += sign * self.blocks[2 * j as usize];
                endgame += sign * self.blocks[2 * j as usize + 1];
            }
        }
        let share = blocks.opening_share[i];
        total += f64::from(blocks.orientation * (share * opening + (1.0 - share) * endgame));
        let divisor = f64::from(if total >= 0.0 {
            data.divisors[i][0]
        } else {
            data.divisors[i][1]
        });
        (
            total / divisor + f64::from(data.sign[i]) * self.theta[data.stm],
            divisor,
        )
    }

    /// Adds the loss gradient of the samples `ids` into `g_theta` and `g_blocks`; returns
    /// the summed loss.
    fn gradient(
        &self,
        data: &Dataset,
        blocks: &Blocks,
        ids: &[u32],
        k: f64,
        g_theta: &mut [f64],
        g_blocks: &mut [f32],
    ) -> f64 {
        let mut loss = 0.0;
        for &i in ids {
            let i = i as usize;
            let (s, divisor) = self.score(data, blocks, i);
            let r = f64::from(data.results[i]);
            let p = sigmoid(k * s);
            loss += log_loss(p, r);
            self.add_gradient(data, blocks, i, divisor, k * (p - r), g_theta, g_blocks);
        }
        loss
    }

    /// Adds `g` times the gradient of sample `i`'s score (from White's side, divided by
    /// `divisor`) into `g_theta` and `g_blocks`.
    #[allow(clippy::too_many_arguments)]
    fn add_gradient(
        &self,
        data: &Dataset,
        blocks: &Blocks,
        i: usize,
        divisor: f64,
        g: f64,
        g_theta: &mut [f64],
        g_blocks: &mut [f32],
    ) {
        let width = data.linear.len();
        let scaled = g / divisor;
        let row = &data.features[i * width..(i + 1) * width];
        for (&f, &index) in row.iter().zip(&data.linear) {
            g_theta[index] += scaled * f64::from(f);
        }
        g_theta[data.stm] += g * f64::from(data.sign[i]);
        let share = blocks.opening_share[i];
        let go = (scaled as f32) * blocks.orientation * share;
        let ge = (scaled as f32) * blocks.orientation * (1.0 - share);
        for (ids, sign) in blocks.rows(i) {
            for &j in ids {
                g_blocks[2 * j as usize] += sign * go;
                g_blocks[2 * j as usize + 1] += sign * ge;
            }
        }
    }

    /// How far removal pair `p` of `pairs` falls short of `margin` (0 when it keeps it),
    /// and the divisors of its two scores: pair `p` is samples `2p` (before) and `2p + 1`
    /// (after) of `data`.
    fn shortfall(&self, pairs: &RemovalPairs, p: usize, margin: f64) -> (f64, f64, f64) {
        let (before, d_before) = self.score(&pairs.data, &pairs.blocks, 2 * p);
        let (after, d_after) = self.score(&pairs.data, &pairs.blocks, 2 * p + 1);
        let short = (margin - f64::from(pairs.owner[p]) * (before - after)).max(0.0);
        (short, d_before, d_after)
    }

    /// Adds the material prior's gradient of pairs `ids` (weight `weight` per centi-man of
    /// shortfall) into `g_theta` and `g_blocks`; returns how many fell short.
    #[allow(clippy::too_many_arguments)]
    fn prior_gradient(
        &self,
        pairs: &RemovalPairs,
        ids: &[u32],
        margin: f64,
        weight: f64,
        g_theta: &mut [f64],
        g_blocks: &mut [f32],
    ) -> usize {
        let mut short = 0;
        for &p in ids {
            let p = p as usize;
            let (shortfall, d_before, d_after) = self.shortfall(pairs, p, margin);
            if shortfall > 0.0 {
                short += 1;
                // The shortfall is margin - owner * (before - after): raise the owner's
                // side of `before`, lower it in `after`.
                let g = weight * f64::from(pairs.owner[p]);
                let (data, blocks) = (&pairs.data, &pairs.blocks);
                self.add_gradient(data, blocks, 2 * p, d_before, -g, g_theta, g_blocks);
                self.add_gradient(data, blocks, 2 * p + 1, d_after, g, g_theta, g_blocks);
            }
        }
        short
    }

    /// Mean logistic loss and mean squared error over samples `ids`.
    fn losses(
        &self,
        data: &Dataset,
        blocks: &Blocks,
        ids: std::ops::Range<usize>,
        k: f64,
    ) -> (f64, f64) {
        let scored = ids.map(|i| (self.score(data, blocks, i).0, f64::from(data.results[i])));
        mean_losses(k, scored)
    }

    /// The model rounded into a weights file.
    fn to_patterns(&self, start: &Weights, family: u16) -> Patterns {
        let values: Vec<i32> = self.theta.iter().map(|v| v.round() as i32).collect();
        let weights = start.with_values(&values).expect("the right length");
        let unit = PATTERN_UNIT as f32;
        let mut patterns = Patterns::zero(family, weights.to_text());
        if self.blocks.len() > 2 * patterns.weights.len() {
            patterns = patterns.with_king_tables();
        }
        let round = |v: f32| (v * unit).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
        let pairs = patterns.weights.iter_mut().chain(patterns.kings.iter_mut());
        for (pair, values) in pairs.zip(self.blocks.chunks_exact(2)) {
            *pair = [round(values[0]), round(values[1])];
        }
        patterns
    }
}

/// Positions with their game results (1, 0.5, 0 for White).
type Samples<R> = Vec<(Position<R>, f64)>;

/// The removal pairs of the material prior: endings of the fitted data, each before and
/// after one of its pieces is taken off (samples `2p` and `2p + 1` of `data`).
#[derive(Debug, Default)]
struct RemovalPairs {
    data: Dataset,
    blocks: Blocks,
    /// +1 when the piece taken off is White's, -1 when it is Black's.
    owner: Vec<f32>,
}

impl RemovalPairs {
    fn len(&self) -> usize {
        self.owner.len()
    }
}

/// The removal pairs of up to `count` quiet endings of `samples` with at most `max_pieces`
/// pieces a side, spread evenly over the data. Only pairs the drawish-material rule leaves
/// alone are kept (where it divides a lead, a piece more may rightly count for little), as
/// in the evaluation's test of the same knowledge.
fn removal_pairs<R: Rules>(
    samples: &[(Position<R>, f64)],
    count: usize,
    max_pieces: u32,
    start: &Weights,
    threads: usize,
    kings: bool,
) -> (RemovalPairs, Samples<R>) {
    let full_count = |position: &Position<R>| lead_divisors(position, start) == (1, 1);
    // Off (the default): not even the scan for endings.
    let samples = if count == 0 { &[] } else { samples };
    let endings: Vec<&Position<R>> = samples
        .iter()
        .map(|(position, _)| position)
        .filter(|position| {
            let other = position.with_side_to_move(position.side_to_move().opponent());
            [Color::White, Color::Black]
                .into_iter()
                .all(|color| (1..=max_pieces).contains(&position.pieces(color).count_ones()))
                && !position.has_capture()
                && !other.has_capture()
                && full_count(position)
        })
        .collect();
    let step = (endings.len() / count.max(1)).max(1);
    let mut positions = Vec::new();
    let mut owner = Vec::new();
    for &position in endings.iter().step_by(step).take(count) {
        for color in [Color::White, Color::Black] {
            if position.pieces(color).count_ones() < 2 {
                continue;
            }
            for bit in Bits(position.pieces(color)) {
                let after = position.without_piece(bit);
                if full_count(&after) {
                    positions.push((*position, 0.5));
                    positions.push((after, 0.5));
                    owner.push(if color == Color::White { 1.0 } else { -1.0 });
                }
            }
        }
    }
    let (data, blocks) = features(&positions, start, threads, kings);
    let pairs = RemovalPairs {
        data,
        blocks,
        owner,
    };
    (pairs, positions)
}

/// Reads `FEN;RESULT[;SCORE]` lines of every file, in order, on `threads` threads; returns
/// the samples, their search scores where given and the number of bad lines.
fn read_files<R: Rules>(files: &[PathBuf], threads: usize) -> Result<ScoredSamples<R>, String> {
    let mut samples = Vec::new();
    let mut scores = Vec::new();
    let mut bad = 0;
    let mut published = 0;
    for file in files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        if training_data::check(file, text.as_bytes())? == Provenance::Published {
            published += 1;
        }
        let lines: Vec<&str> = text.lines().collect();
        let chunk = lines.len().div_ceil(threads.max(1)).max(1);
        let parts: Vec<ScoredSamples<R>> = std::thread::scope(|scope| {
            let handles: Vec<_> = lines
                .chunks(chunk)
                .map(|part| scope.spawn(move || read_scored_samples::<R>(part.iter().copied())))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("no panic"))
                .collect()
        });
        for part in parts {
            samples.extend(part.samples);
            scores.extend(part.scores);
            bad += part.bad;
        }
    }
    eprintln!(
        "{published} of {} files are published chunks, each as data/selfplay.sha256 has it",
        files.len()
    );
    Ok(ScoredSamples {
        samples,
        scores,
        bad,
    })
}

/// The linear features and block indices of `samples` (king-table indices too with
/// `kings`), on `threads` threads.
fn features<R: Rules>(
    samples: &[(Position<R>, f64)],
    start: &Weights,
    threads: usize,
    kings: bool,
) -> (Dataset, Blocks) {
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Dataset> = std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| scope.spawn(move || extract(part, start)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    let mut data = Dataset::default();
    for part in parts {
        data.linear = part.linear;
        data.stm = part.stm;
        data.features.extend(part.features);
        data.sign.extend(part.sign);
        data.divisors.extend(part.divisors);
        data.results.extend(part.results);
    }
    let tables = <R::Geometry as PatternLayout>::LAYOUT.tables;
    let white_up = Position::<R>::moves_up(Color::White);
    let full = (2 * R::START_ROWS * R::Geometry::PER_ROW) as f32;
    let mut blocks = Blocks {
        tables,
        index: Vec::with_capacity(samples.len() * 2 * tables),
        opening_share: Vec::with_capacity(samples.len()),
        orientation: if white_up { 1.0 } else { -1.0 },
        king_index: Vec::with_capacity(if kings { samples.len() * 2 * tables } else { 0 }),
    };
    let men_params = (tables * BLOCK_STATES) as u32;
    let (up_color, down_color) = if white_up {
        (Color::White, Color::Black)
    } else {
        (Color::Black, Color::White)
    };
    for (position, _) in samples {
        let (up, down) = (position.men(up_color), position.men(down_color));
        let (up_index, down_index) = indices::<R::Geometry>(up, down);
        for side in [&up_index, &down_index] {
            for (t, &index) in side[..tables].iter().enumerate() {
                blocks
                    .index
                    .push((t * BLOCK_STATES) as u32 + u32::from(index));
            }
        }
        if kings {
            let (up_kings, down_kings) =
                (position.kings_of(up_color), position.kings_of(down_color));
            if up_kings | down_kings == 0 {
                blocks
                    .king_index
                    .extend(std::iter::repeat_n(u32::MAX, 2 * tables));
            } else {
                let (up_index, down_index) =
                    king_indices::<R::Geometry>(up, down, up_kings, down_kings);
                for side in [&up_index, &down_index] {
                    for (t, &index) in side[..tables].iter().enumerate() {
                        let offset = men_params + (t * KING_STATES) as u32;
                        blocks.king_index.push(offset + index);
                    }
                }
            }
        }
        let phase = (position.occupied().count_ones() as f32).min(full);
        blocks.opening_share.push(phase / full);
    }
    (data, blocks)
}

/// The real evaluation's mean logistic loss and squared error on `samples` with `set`.
fn real_losses<R: Rules>(samples: &[(Position<R>, f64)], set: &EvalSet, k: f64) -> (f64, f64) {
    let scored = samples.iter().map(|(position, result)| {
        let white = for_white(position, set.evaluate(position));
        (f64::from(white), *result)
    });
    mean_losses(k, scored)
}

/// Runs `damka tune patterns`; returns the exit code.
pub fn run_patterns(config: &PatternConfig, command: &str) -> i32 {
    match with_variant!(config.variant, R => fit_patterns::<R>(config, command)) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("damka tune patterns: {message}");
            2
        }
    }
}

fn fit_patterns<R: Rules>(config: &PatternConfig, command: &str) -> Result<(), String> {
    let family = pattern_family(R::VARIANT)
        .ok_or_else(|| format!("{} has no block tables", R::VARIANT.name()))?;
    let tables = tables_of(family).expect("a known family");
    let threads = config.threads.max(1);
    // The starting point: a named starting set, a weights file, or the built-in weights (and
    // built-in tables).
    let named = config.start_set.as_deref().and_then(|wanted| {
        STARTING_SETS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(wanted))
    });
    let start_set = match (&config.start, named) {
        (_, Some((_, weights))) => EvalSet {
            weights: **weights,
            patterns: None,
            network: None,
        },
        (Some(path), None) => {
            let bytes =
                std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            damka::eval::EvalFile::read(&bytes, R::VARIANT)?
                .set_for(R::VARIANT)
                .ok_or_else(|| format!("{} does not fit {}", path.display(), R::VARIANT.name()))?
        }
        (None, None) => EvalSet {
            weights: *for_variant(R::VARIANT),
            patterns: damka::eval::default_patterns::<R>().map(|p| Arc::new(p.clone())),
            network: None,
        },
    };
    let start = start_set.weights;
    let kings = !config.linear_only
        && (config.kings
            || start_set
                .patterns
                .as_ref()
                .is_some_and(|p| !p.kings.is_empty()));

    let clock = std::time::Instant::now();
    let ScoredSamples {
        mut samples,
        scores,
        bad,
    } = read_files::<R>(&config.files, threads)?;
    if samples.len() < 2 {
        return Err("fewer than two usable positions".to_string());
    }
    let cut = ((samples.len() as f64) * (1.0 - config.holdout.clamp(0.001, 0.5))) as usize;
    eprintln!(
        "{} positions read ({bad} bad lines skipped) in {:.1} s; {} to fit, {} held out",
        samples.len(),
        clock.elapsed().as_secs_f64(),
        cut,
        samples.len() - cut
    );
    let linear_start = EvalSet {
        weights: start,
        patterns: None,
        network: None,
    };
    let k = fit_k(&samples[..cut.min(200_000)], &start);
    let lambda = config.lambda.clamp(0.0, 1.0);
    if lambda > 0.0 {
        let mut blended = 0;
        for ((_, result), score) in samples[..cut].iter_mut().zip(&scores) {
            if let Some(score) = score {
                *result = (1.0 - lambda) * *result + lambda * sigmoid(k * f64::from(*score));
                blended += 1;
            }
        }
        eprintln!("lambda {lambda}: {blended} fitted labels blended with their search scores");
    }
    let (data, blocks) = features(&samples, &start, threads, kings);
    eprintln!(
        "features read in {:.1} s; K = {k:.6}",
        clock.elapsed().as_secs_f64()
    );
    let (pairs, pair_positions) = removal_pairs(
        &samples[..cut],
        config.material_positions,
        config.material_pieces,
        &start,
        threads,
        kings,
    );
    let (margin, prior_weight) = (config.material_margin, config.material_weight * k);
    if config.material_positions > 0 {
        eprintln!(
            "material prior: {} removal pairs, margin {margin} centi-men",
            pairs.len()
        );
    }
    let short_pairs = |model: &Model| {
        (0..pairs.len())
            .filter(|&p| model.shortfall(&pairs, p, margin).0 > 0.0)
            .count()
    };
    let mut pair_order: Vec<u32> = (0..pairs.len() as u32).collect();

    let king_params = if kings { tables * KING_STATES } else { 0 };
    let mut model = Model {
        theta: start.to_vec().iter().map(|&v| f64::from(v)).collect(),
        blocks: vec![0.0; 2 * (tables * BLOCK_STATES + king_params)],
    };
    if let Some(patterns) = &start_set.patterns
        && !config.linear_only
    {
        let pairs = patterns.weights.iter().chain(&patterns.kings);
        for (values, pair) in model.blocks.chunks_exact_mut(2).zip(pairs) {
            values[0] = f32::from(pair[0]) / PATTERN_UNIT as f32;
            values[1] = f32::from(pair[1]) / PATTERN_UNIT as f32;
        }
    }
    let initial = model.theta.clone();
    let mask = trainable(&FitConfig {
        fixed: config.fix.clone(),
        ..FitConfig::default()
    });

    let mut order: Vec<u32> = (0..cut as u32).collect();
    let mut rng = SplitMix(config.seed);
    let (beta1, beta2, epsilon) = (0.9f64, 0.999f64, 1e-8);
    let (mut m_theta, mut v_theta) = (vec![0.0; model.theta.len()], vec![0.0; model.theta.len()]);
    let (mut m_blocks, mut v_blocks) = (
        vec![0f32; model.blocks.len()],
        vec![0f32; model.blocks.len()],
    );
    let mut rate = config.learning_rate;
    let mut step = 0i32;
    let held = cut..samples.len();
    let (mut best_loss, _) = model.losses(&data, &blocks, held.clone(), k);
    eprintln!("start: held-out loss {best_loss:.6}");
    let mut best = model.clone();
    let mut since_best = 0;
    let batch = config.batch.max(1);
    for epoch in 0..config.epochs {
        // Fisher-Yates shuffle of the fitted positions.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let bar = ProgressBar::new(order.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("epoch {msg} [{bar:40}] {pos}/{len} positions, eta {eta}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar.set_message(epoch.to_string());
        let mut train_loss = 0.0;
        for i in (1..pair_order.len()).rev() {
            pair_order.swap(i, rng.below(i + 1));
        }
        // The pairs are spread over the batches of a pass: each pair once a pass.
        let pairs_per_batch = (pairs.len() * batch).div_ceil(cut.max(1));
        for (b, ids) in order.chunks(batch).enumerate() {
            let part = ids.len().div_ceil(threads).max(1);
            let results: Vec<(Vec<f64>, Vec<f32>, f64)> = std::thread::scope(|scope| {
                let handles: Vec<_> = ids
                    .chunks(part)
                    .map(|slice| {
                        let model = &model;
                        let (data, blocks) = (&data, &blocks);
                        scope.spawn(move || {
                            let mut g_theta = vec![0.0; model.theta.len()];
                            let mut g_blocks = vec![0f32; model.blocks.len()];
                            let loss =
                                model.gradient(data, blocks, slice, k, &mut g_theta, &mut g_blocks);
                            (g_theta, g_blocks, loss)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("no panic"))
                    .collect()
            });
            let n = ids.len() as f64;
            let mut g_theta = vec![0.0; model.theta.len()];
            let mut g_blocks = vec![0f32; model.blocks.len()];
            for (gt, gb, loss) in results {
                train_loss += loss;
                g_theta.iter_mut().zip(gt).for_each(|(a, b)| *a += b);
                g_blocks.iter_mut().zip(gb).for_each(|(a, b)| *a += b);
            }
            let first = (b * pairs_per_batch).min(pair_order.len());
            let last = (first + pairs_per_batch).min(pair_order.len());
            model.prior_gradient(
                &pairs,
                &pair_order[first..last],
                margin,
                prior_weight,
                &mut g_theta,
                &mut g_blocks,
            );
            step += 1;
            let c1 = 1.0 - beta1.powi(step);
            let c2 = 1.0 - beta2.powi(step);
            for j in 0..model.theta.len() {
                if !mask[j] {
                    continue;
                }
                let g =
                    g_theta[j] / n + 2.0 * config.l2_weights * (model.theta[j] - initial[j]) / 1e4;
                m_theta[j] = beta1 * m_theta[j] + (1.0 - beta1) * g;
                v_theta[j] = beta2 * v_theta[j] + (1.0 - beta2) * g * g;
                model.theta[j] -= rate * (m_theta[j] / c1) / ((v_theta[j] / c2).sqrt() + epsilon);
            }
            if !config.linear_only {
                let (b1, b2, eps) = (beta1 as f32, beta2 as f32, epsilon as f32);
                let (c1, c2, lr, inv_n) = (c1 as f32, c2 as f32, rate as f32, (1.0 / n) as f32);
                let l2 = config.l2 as f32;
                for j in 0..model.blocks.len() {
                    let g = g_blocks[j] * inv_n + l2 * model.blocks[j];
                    if g == 0.0 && m_blocks[j] == 0.0 {
                        continue;
                    }
                    m_blocks[j] = b1 * m_blocks[j] + (1.0 - b1) * g;
                    v_blocks[j] = b2 * v_blocks[j] + (1.0 - b2) * g * g;
                    model.blocks[j] -= lr * (m_blocks[j] / c1) / ((v_blocks[j] / c2).sqrt() + eps);
                }
            }
            bar.inc(ids.len() as u64);
        }
        bar.finish_and_clear();
        let (held_loss, held_mse) = model.losses(&data, &blocks, held.clone(), k);
        eprintln!(
            "epoch {epoch}: fitted loss {:.6}, held-out loss {held_loss:.6} (squared error {held_mse:.6}), step {rate:.3}, {:.0} s",
            train_loss / cut as f64,
            clock.elapsed().as_secs_f64()
        );
        if pairs.len() > 0 {
            eprintln!(
                "  material prior: {} of {} removal pairs short of the margin",
                short_pairs(&model),
                pairs.len()
            );
        }
        if held_loss < best_loss - 1e-7 {
            best_loss = held_loss;
            best = model.clone();
            since_best = 0;
        } else {
            since_best += 1;
            rate *= 0.5;
            if since_best >= config.patience {
                break;
            }
        }
    }

    let patterns = best.to_patterns(&start, family);
    let fitted = EvalSet {
        weights: start
            .parse_text(&patterns.text)
            .map_err(|e| format!("the fitted weights' text: {e}"))?,
        patterns: (!config.linear_only).then(|| Arc::new(patterns.clone())),
        network: None,
    };
    let check = &samples[cut..];
    let (start_log, start_mse) = real_losses(check, &start_set, k);
    let (linear_log, linear_mse) = real_losses(check, &linear_start, k);
    let (fitted_log, fitted_mse) = real_losses(check, &fitted, k);
    println!("# {} weights fitted by: {command}", R::VARIANT.name());
    println!(
        "# {} positions ({} fitted, {} held out), K = {k:.6}",
        samples.len(),
        cut,
        check.len()
    );
    println!("# held-out loss of the real evaluation (logistic / squared error):");
    println!("#   starting linear weights:  {linear_log:.6} / {linear_mse:.6}");
    if start_set.patterns.is_some() {
        println!("#   starting weights and tables: {start_log:.6} / {start_mse:.6}");
    }
    println!("#   fitted:                  {fitted_log:.6} / {fitted_mse:.6}");
    if pairs.len() > 0 {
        // The real evaluation with the written file, on every removal pair of the prior.
        let white = |position: &Position<R>| for_white(position, fitted.evaluate(position));
        let wrong = pair_positions
            .chunks(2)
            .zip(&pairs.owner)
            .filter(|(pair, owner)| **owner * (white(&pair[0].0) - white(&pair[1].0)) as f32 <= 0.0)
            .count();
        println!(
            "# material prior: {wrong} of {} removals gain nothing for the other side in the real evaluation",
            pairs.len()
        );
    }
    let bytes = if config.linear_only {
        // The linear baseline is written in the text form, which every build reads.
        fitted.weights.to_text().into_bytes()
    } else {
        patterns.to_bytes()
    };
    let temporary = config.out.with_extension("partial");
    std::fs::write(&temporary, &bytes)
        .and_then(|()| std::fs::rename(&temporary, &config.out))
        .map_err(|e| format!("cannot write {}: {e}", config.out.display()))?;
    println!(
        "# weights written to {} ({} bytes)",
        config.out.display(),
        bytes.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::rules::{English, International};

    /// Positions of random playouts with random results.
    fn samples<R: Rules>(seed: u64, games: usize) -> Vec<(Position<R>, f64)> {
        super::super::tune_fit::random_playouts(seed, games, 40, |_, _, rng| {
            Some([0.0, 0.5, 1.0][rng.below(3)])
        })
    }

    /// The analytic gradient of the loss agrees with finite differences, for the linear
    /// weights and the block weights of both phases (king tables too with `kings`).
    fn gradient_matches_finite_differences<R: Rules>(kings: bool) {
        let samples = samples::<R>(5, if kings { 12 } else { 3 });
        let start = *for_variant(R::VARIANT);
        let (data, blocks) = features(&samples, &start, 1, kings);
        let mut rng = SplitMix(17);
        let king_params = if kings { KING_STATES } else { 0 };
        let mut model = Model {
            theta: start.to_vec().iter().map(|&v| f64::from(v)).collect(),
            blocks: (0..2 * blocks.tables * (BLOCK_STATES + king_params))
                .map(|_| rng.below(41) as f32 - 20.0)
                .collect(),
        };
        let ids: Vec<u32> = (0..samples.len() as u32).collect();
        let k = 0.007;
        let mut g_theta = vec![0.0; model.theta.len()];
        let mut g_blocks = vec![0f32; model.blocks.len()];
        model.gradient(&data, &blocks, &ids, k, &mut g_theta, &mut g_blocks);
        let loss = |model: &Model| {
            model.losses(&data, &blocks, 0..samples.len(), k).0 * samples.len() as f64
        };
        // The blocks some sample uses, both phases; and some linear weights.
        let king_ids = blocks.king_index.iter().filter(|&&j| j != u32::MAX);
        assert_eq!(king_ids.clone().count() > 100, kings);
        let used: Vec<usize> = blocks
            .index
            .iter()
            .take(12)
            .chain(king_ids.take(12))
            .flat_map(|&j| [2 * j as usize, 2 * j as usize + 1])
            .collect();
        for &j in &used {
            let h = 0.05f32;
            let mut plus = model.clone();
            plus.blocks[j] += h;
            let mut minus = model.clone();
            minus.blocks[j] -= h;
            let numeric = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(h));
            assert!(
                (numeric - f64::from(g_blocks[j])).abs() < 1e-3 + 0.02 * numeric.abs(),
                "block {j}: {numeric} vs {}",
                g_blocks[j]
            );
        }
        for &j in data.linear.iter().take(8) {
            let h = 0.5;
            model.theta[j] += h;
            let up = loss(&model);
            model.theta[j] -= 2.0 * h;
            let down = loss(&model);
            model.theta[j] += h;
            let numeric = (up - down) / (2.0 * h);
            assert!(
                (numeric - g_theta[j]).abs() < 1e-3 + 0.02 * numeric.abs(),
                "weight {j}: {numeric} vs {}",
                g_theta[j]
            );
        }
    }

    damka::generic_tests! {
        gradient_matches_finite_differences_international:
            gradient_matches_finite_differences::<International>(false);
        gradient_matches_finite_differences_english:
            gradient_matches_finite_differences::<English>(false);
        gradient_matches_finite_differences_english_king_tables:
            gradient_matches_finite_differences::<English>(true);
    }

    /// The material prior: each pair takes one piece of its owner off, and the prior's
    /// gradient is that of its hinge loss (every pair short of a margin no score reaches).
    #[test]
    fn removal_pairs_and_the_prior_gradient() {
        let samples = samples::<International>(11, 4);
        let start = damka::eval::weights::INTERNATIONAL;
        let (pairs, positions) = removal_pairs(&samples, 1000, 20, &start, 1, false);
        assert!(pairs.len() > 100, "{} pairs", pairs.len());
        for (pair, &owner) in positions.chunks(2).zip(&pairs.owner) {
            let (before, after) = (&pair[0].0, &pair[1].0);
            let (own, other) = if owner > 0.0 {
                (Color::White, Color::Black)
            } else {
                (Color::Black, Color::White)
            };
            assert_eq!(
                after.pieces(own).count_ones() + 1,
                before.pieces(own).count_ones()
            );
            assert_eq!(after.pieces(own) & !before.pieces(own), 0);
            assert_eq!(after.pieces(other), before.pieces(other));
            assert_eq!(after.side_to_move(), before.side_to_move());
        }
        let mut rng = SplitMix(23);
        let model = Model {
            theta: start.to_vec().iter().map(|&v| f64::from(v)).collect(),
            blocks: (0..2 * pairs.blocks.tables * BLOCK_STATES)
                .map(|_| rng.below(41) as f32 - 20.0)
                .collect(),
        };
        let (margin, weight) = (1e6, 0.01);
        let ids: Vec<u32> = (0..pairs.len() as u32).collect();
        let mut g_theta = vec![0.0; model.theta.len()];
        let mut g_blocks = vec![0f32; model.blocks.len()];
        let short = model.prior_gradient(&pairs, &ids, margin, weight, &mut g_theta, &mut g_blocks);
        assert_eq!(short, pairs.len());
        let loss = |model: &Model| {
            (0..pairs.len())
                .map(|p| weight * model.shortfall(&pairs, p, margin).0)
                .sum::<f64>()
        };
        let used: Vec<usize> = pairs
            .blocks
            .index
            .iter()
            .take(24)
            .flat_map(|&j| [2 * j as usize, 2 * j as usize + 1])
            .collect();
        for &j in &used {
            let mut plus = model.clone();
            plus.blocks[j] += 0.5;
            let mut minus = model.clone();
            minus.blocks[j] -= 0.5;
            let numeric = loss(&plus) - loss(&minus);
            assert!(
                (numeric - f64::from(g_blocks[j])).abs() < 1e-3 + 0.02 * numeric.abs(),
                "block {j}: {numeric} vs {}",
                g_blocks[j]
            );
        }
        let man = Weights::names()
            .iter()
            .position(|n| n == "man")
            .expect("a man weight");
        let mut plus = model.clone();
        plus.theta[man] += 0.5;
        let mut minus = model.clone();
        minus.theta[man] -= 0.5;
        let numeric = loss(&plus) - loss(&minus);
        assert!(
            numeric < 0.0,
            "a man worth more keeps more pairs: {numeric}"
        );
        assert!(
            (numeric - g_theta[man]).abs() < 1e-3 + 0.02 * numeric.abs(),
            "man: {numeric} vs {}",
            g_theta[man]
        );
    }

    /// The model's score with the tables of a file is the real evaluation's (up to rounding),
    /// with king tables where `kings`, and the model writes the file it was read from.
    fn the_model_scores_as_the_evaluation_does<R: Rules>(kings: bool) {
        let samples = samples::<R>(8, 6);
        let start = *for_variant(R::VARIANT);
        let (data, blocks) = features(&samples, &start, 2, kings);
        let family = R::Geometry::SIZE as u16;
        let mut patterns = Patterns::zero(family, start.to_text());
        if kings {
            patterns = patterns.with_king_tables();
        }
        let mut rng = SplitMix(3);
        for pair in patterns.weights.iter_mut().chain(patterns.kings.iter_mut()) {
            *pair = [rng.below(801) as i16 - 400, rng.below(801) as i16 - 400];
        }
        let set = EvalSet {
            weights: start,
            patterns: Some(Arc::new(patterns.clone())),
            network: None,
        };
        let model = Model {
            theta: start.to_vec().iter().map(|&v| f64::from(v)).collect(),
            blocks: patterns
                .weights
                .iter()
                .chain(&patterns.kings)
                .flat_map(|pair| pair.map(|v| f32::from(v) / PATTERN_UNIT as f32))
                .collect(),
        };
        assert_eq!(model.to_patterns(&start, family), patterns);
        for (i, (position, _)) in samples.iter().enumerate() {
            let real = for_white(position, set.evaluate(position));
            let modelled = model.score(&data, &blocks, i).0;
            assert!(
                (modelled - f64::from(real)).abs() <= 2.5,
                "{position:?}: {modelled} vs {real}"
            );
        }
    }

    damka::generic_tests! {
        the_model_scores_as_the_evaluation_does_international:
            the_model_scores_as_the_evaluation_does::<International>(false);
        the_model_scores_as_the_evaluation_does_english_king_tables:
            the_model_scores_as_the_evaluation_does::<English>(true);
    }
}
