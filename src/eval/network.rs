//! A small neural-network evaluation for English checkers: the network, its checked file, and its forward pass from a position.
//!
//! The idea is GuiNN's (Jonathan Kreuzer, GuiNN Checkers 2.0x, `checkersNN.cpp`): the
//! pieces of the side to move and of the other side, men and kings apart, one input per
//! square and kind (4 x 32 = 128 inputs), read from the side to move's view (Black to move
//! sees the board turned half a turn, square `s` as `31 - s`), then three fully connected
//! layers with clipped linear units (`min(max(x, 0), 1)`) and one output, the logit of the
//! side to move's expected result. The sizes (128 -> [`HIDDEN`] -> 32 -> 32 -> 1) and the
//! training are damka's: the network is fitted to damka's own self-play games by the
//! logistic loss (docs/nets.md has the command), and the output becomes centi-men by the
//! file's scale, `1 / K` of the pattern fit's `sigmoid(K s)`, so a man stays about 100.
//!
//! Reading the side to move's view makes the score colour-symmetric by construction:
//! swapping the colours, turning the board and passing the move gives the same inputs.
//!
//! # The network file
//!
//! Little-endian, in this order (version 2; version 1 is the same without the bucket count,
//! and has one bucket):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `DAMKANET` |
//! | 2 | format version (2) |
//! | 2 | inputs (128) |
//! | 2 | first hidden layer ([`HIDDEN`]) |
//! | 2 | second and third hidden layers (32 each) |
//! | 2 | buckets B (1 to [`MAX_BUCKETS`]; version 2 only) |
//! | 4 | scale: centi-men per unit of the output, f32 |
//! | 4 x 128 x HIDDEN | first layer weights, input by input (f32) |
//! | 4 x HIDDEN | first layer biases |
//! | | then B times, bucket by bucket: |
//! | 4 x HIDDEN x 32 | second layer weights, input by input |
//! | 4 x 32 | second layer biases |
//! | 4 x 32 x 32 | third layer weights, input by input |
//! | 4 x 32 | third layer biases |
//! | 4 x 32 | output weights |
//! | 4 | output bias |
//! | | and last: |
//! | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! # Buckets
//!
//! The layers after the first may come in B sets, one for each range of piece counts (the
//! "layer stacks" of Stockfish's networks): a position with `n` pieces uses the set
//! `min((n - 1) * B / 24, B - 1)`, so with 4 sets 1-6, 7-12, 13-18 and 19-24 pieces each
//! have their own. The first layer, the costly one, is shared, and a position costs the same
//! whatever B is.
//!
//! A file with another magic, version or size, a weight that is not finite, or a checksum
//! that does not match is refused with the reason.

use super::patterns::fnv1a64;
use crate::board::{Bitboard, Bits, Geometry};
use crate::position::Position;
use crate::rules::{Color, Rules};

/// Inputs: own men, own kings, enemy men, enemy kings, 32 squares each.
pub const INPUTS: usize = 128;
/// Neurons of the first hidden layer.
pub const HIDDEN: usize = 256;
/// Neurons of the second and third hidden layers.
pub const SMALL: usize = 32;
/// The most sets of later layers a file may have (see the module's "Buckets").
pub const MAX_BUCKETS: usize = 8;
/// The largest score the network gives, in centi-men: far below the search's won scores.
pub const MAX_SCORE: i32 = 10_000;
/// The first layer is summed in 16-bit integers, its weights scaled by this (2^9): sums are
/// then exact whatever order pieces are added and taken away in, so a sum updated move by move
/// equals one made afresh, and the score does not depend on the path the search took. At this
/// scale the fitted network's held-out loss does not change in the fourth decimal.
const FIRST_SCALE: f32 = 512.0;
/// A first-layer activation of 1 in integers (2^7): a sum becomes `clamp(sum >> 2, 0, 128)`.
const ACTIVATION_ONE: i16 = 128;
/// `FIRST_SCALE / ACTIVATION_ONE` as a shift.
const ACTIVATION_SHIFT: u32 = 2;
/// The weights after the first layer are 16-bit integers scaled by this (2^13), so that two
/// products of an activation and a weight sum in one 32-bit lane (x86's `pmaddwd`). With the
/// activations at 1/128, the fitted network's held-out loss grows by 0.0001.
const SECOND_SCALE: f32 = 8192.0;
/// Sums after the first layer are in units of `1 / (ACTIVATION_ONE * SECOND_SCALE)` (2^-20).
const LAYER_UNIT: f32 = 1.0 / (128.0 * 8192.0);
/// `SECOND_SCALE` as a shift: a sum becomes an activation as `clamp(sum >> 13, 0, 128)`.
const LAYER_SHIFT: u32 = 13;

const MAGIC: &[u8; 8] = b"DAMKANET";
/// The version written now; version 1 (one bucket, no bucket count) is still read.
const VERSION: u16 = 2;
/// Magic, version, three layer sizes and the scale; version 2 adds the bucket count.
const HEADER_BYTES_V1: usize = 8 + 2 * 4 + 4;
/// Weights of the first layer.
const FIRST_WEIGHTS: usize = INPUTS * HIDDEN + HIDDEN;
/// Weights of one bucket's later layers.
const HEAD_WEIGHTS: usize = HIDDEN * SMALL + SMALL + SMALL * SMALL + SMALL + SMALL + 1;

/// The layers after the first, for one bucket of piece counts.
#[derive(Clone)]
struct Head {
    /// The second layer's weights two inputs at a time: row `k` holds, for each output `j`,
    /// the weights from inputs `2k` and `2k + 1` side by side (the order `pmaddwd` reads).
    second: Box<[[i16; 2 * SMALL]; HIDDEN / 2]>,
    second_bias: [i32; SMALL],
    /// The third layer's weights, laid out as the second's.
    third: [[i16; 2 * SMALL]; SMALL / 2],
    third_bias: [i32; SMALL],
    output: [i16; SMALL],
    output_bias: f32,
}

/// A network read from a file, ready to evaluate.
#[derive(Clone)]
pub struct Network {
    /// The file's checksum: two networks are the same when their files are.
    checksum: u64,
    scale: f32,
    first: Box<[[i16; HIDDEN]; INPUTS]>,
    first_bias: [i16; HIDDEN],
    /// One set of later layers per bucket of piece counts.
    heads: Vec<Head>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({INPUTS}-{HIDDEN}-{SMALL}-{SMALL}-1, {} buckets, scale {})",
            self.heads.len(),
            self.scale
        )
    }
}

impl PartialEq for Network {
    fn eq(&self, other: &Network) -> bool {
        self.checksum == other.checksum
    }
}

impl Eq for Network {}

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkError(pub String);

impl std::fmt::Display for NetworkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad network file: {}", self.0)
    }
}

impl std::error::Error for NetworkError {}

/// Reads little-endian f32 values one after the other.
struct Floats<'a> {
    bytes: &'a [u8],
}

impl Floats<'_> {
    fn next(&mut self) -> Result<f32, NetworkError> {
        let (head, rest) = self.bytes.split_at(4);
        self.bytes = rest;
        let value = f32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        if value.is_finite() {
            Ok(value)
        } else {
            Err(NetworkError("a weight is not a finite number".into()))
        }
    }

    fn fill(&mut self, values: &mut [f32]) -> Result<(), NetworkError> {
        for value in values {
            *value = self.next()?;
        }
        Ok(())
    }
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

impl Network {
    /// Whether `bytes` starts like a network file (its magic), whatever else is wrong.
    pub fn is_network_file(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC)
    }

    /// Reads and checks a network file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if !Network::is_network_file(bytes) {
            return Err(NetworkError("no DAMKANET magic".into()));
        }
        if bytes.len() < HEADER_BYTES_V1 + 2 {
            return Err(NetworkError("shorter than its header".into()));
        }
        let version = u16_at(bytes, 8);
        let (buckets, header) = match version {
            1 => (1, HEADER_BYTES_V1),
            2 => (usize::from(u16_at(bytes, 16)), HEADER_BYTES_V1 + 2),
            _ => {
                return Err(NetworkError(format!(
                    "format version {version}, this build reads 1 and {VERSION}"
                )));
            }
        };
        let sizes = [u16_at(bytes, 10), u16_at(bytes, 12), u16_at(bytes, 14)];
        if sizes != [INPUTS as u16, HIDDEN as u16, SMALL as u16] {
            return Err(NetworkError(format!(
                "layers {}-{}-{}, this build evaluates {INPUTS}-{HIDDEN}-{SMALL}",
                sizes[0], sizes[1], sizes[2]
            )));
        }
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(NetworkError(format!(
                "{buckets} buckets, this build reads 1 to {MAX_BUCKETS}"
            )));
        }
        let expected = header + 4 * (FIRST_WEIGHTS + buckets * HEAD_WEIGHTS) + 8;
        if bytes.len() != expected {
            return Err(NetworkError(format!(
                "{} bytes, a {INPUTS}-{HIDDEN}-{SMALL} network of {buckets} buckets has {expected}",
                bytes.len()
            )));
        }
        let body = &bytes[..expected - 8];
        let stored = u64::from_le_bytes(bytes[expected - 8..].try_into().expect("8 bytes"));
        if fnv1a64(body) != stored {
            return Err(NetworkError("checksum does not match".into()));
        }
        let mut floats = Floats {
            bytes: &body[header - 4..],
        };
        let scale = floats.next()?;
        if scale <= 0.0 {
            return Err(NetworkError(format!("scale {scale} is not positive")));
        }
        let mut first = Box::new([[0; HIDDEN]; INPUTS]);
        let mut row = [0.0; HIDDEN];
        for target in first.iter_mut() {
            floats.fill(&mut row)?;
            *target = quantized(&row, FIRST_SCALE, "first-layer")?;
        }
        floats.fill(&mut row)?;
        let first_bias = quantized(&row, FIRST_SCALE, "first-layer")?;
        check_first_layer_bound(&first, &first_bias)?;
        let mut heads = Vec::with_capacity(buckets);
        for _ in 0..buckets {
            let mut head = Head {
                second: Box::new([[0; 2 * SMALL]; HIDDEN / 2]),
                second_bias: [0; SMALL],
                third: [[0; 2 * SMALL]; SMALL / 2],
                third_bias: [0; SMALL],
                output: [0; SMALL],
                output_bias: 0.0,
            };
            read_layer(&mut floats, &mut head.second[..], &mut head.second_bias)?;
            read_layer(&mut floats, &mut head.third, &mut head.third_bias)?;
            let mut outputs = [0.0; SMALL];
            floats.fill(&mut outputs)?;
            head.output = quantized(&outputs, SECOND_SCALE, "output")?;
            head.output_bias = floats.next()?;
            heads.push(head);
        }
        Ok(Network {
            checksum: stored,
            scale,
            first,
            first_bias,
            heads,
        })
    }

    /// The set of later layers for a position of `pieces` pieces (the module's "Buckets").
    fn head(&self, pieces: u32) -> &Head {
        let buckets = self.heads.len();
        let bucket = (pieces.saturating_sub(1) as usize * buckets / 24).min(buckets - 1);
        &self.heads[bucket]
    }

    /// The output of the network for `position`, in units of its logit (the side to move's
    /// view), with the first layer's sums made afresh.
    pub fn logit<R: Rules>(&self, position: &Position<R>) -> f32 {
        let mut state = NetworkState::default();
        self.logit_from(position, &mut state)
    }

    /// The output for `position`, with the first layer's sums of the side to move's view
    /// updated from those of the last position `state` saw in that view (the search
    /// evaluates positions one after another that differ by a few pieces), or made afresh
    /// when too much changed. Only the view the score is read from is brought up to date:
    /// the other one catches up when it is next read, by the difference between its last
    /// position and that one, which is never more work than following every position between.
    pub fn logit_from<R: Rules>(&self, position: &Position<R>, state: &mut NetworkState) -> f32 {
        let planes = planes_of(position);
        let view = usize::from(position.side_to_move() == Color::Black);
        let state = &mut state.views[view];
        let changes: u32 = planes
            .iter()
            .zip(&state.planes)
            .map(|(now, before)| (now ^ before).count_ones())
            .sum();
        if state.network != Some(self.checksum) || changes > REFRESH_CHANGES {
            self.refresh::<R>(view, &planes, state);
        } else {
            let previous = state.planes;
            for (plane, (&now, &before)) in planes.iter().zip(&previous).enumerate() {
                for bit in Bits(before & !now) {
                    self.update::<R, false>(view, &mut state.sums, plane, bit);
                }
                for bit in Bits(now & !before) {
                    self.update::<R, true>(view, &mut state.sums, plane, bit);
                }
            }
            state.planes = planes;
        }
        let mut activations = [0i16; HIDDEN];
        for (activation, &sum) in activations.iter_mut().zip(&state.sums) {
            *activation = (sum >> ACTIVATION_SHIFT).clamp(0, ACTIVATION_ONE);
        }
        let head = self.head(planes.iter().map(|plane| plane.count_ones()).sum());
        let second = dense(&activations, &head.second[..], &head.second_bias);
        let third = dense(&small_activations(&second), &head.third, &head.third_bias);
        let out: i32 = small_activations(&third)
            .iter()
            .zip(&head.output)
            .map(|(&value, &weight)| i32::from(value) * i32::from(weight))
            .sum();
        out as f32 * LAYER_UNIT + head.output_bias
    }

    /// Makes the sums of `view` afresh from `planes`.
    fn refresh<R: Rules>(&self, view: usize, planes: &[Bitboard; 4], state: &mut ViewState) {
        state.sums = self.first_bias;
        for (plane, &set) in planes.iter().enumerate() {
            for bit in Bits(set) {
                self.update::<R, true>(view, &mut state.sums, plane, bit);
            }
        }
        state.planes = *planes;
        state.network = Some(self.checksum);
    }

    /// Adds (or takes away) the piece of `plane` (white men, white kings, black men, black
    /// kings) on `bit` to the sums of `view`: White's (0) reads it as it is, Black's (1) with
    /// the colours swapped and the board turned.
    #[inline(always)]
    fn update<R: Rules, const ADD: bool>(
        &self,
        view: usize,
        sums: &mut [i16; HIDDEN],
        plane: usize,
        bit: u32,
    ) {
        let square = usize::from(R::Geometry::SQUARE_OF[bit as usize]);
        let row = if view == 0 {
            &self.first[plane * 32 + square]
        } else {
            &self.first[(plane ^ 2) * 32 + 31 - square]
        };
        // Each sum stays within `i16` (check_first_layer_bound), whatever the order.
        for (sum, weight) in sums.iter_mut().zip(row) {
            *sum = if ADD { *sum + weight } else { *sum - weight };
        }
    }

    /// Scores `position` for the side to move in centi-men.
    pub fn evaluate<R: Rules>(&self, position: &Position<R>) -> i32 {
        self.centi_men(self.logit(position))
    }

    /// Scores `position` for the side to move in centi-men, updating `state` (see
    /// [`Network::logit_from`]).
    pub fn evaluate_from<R: Rules>(&self, position: &Position<R>, state: &mut NetworkState) -> i32 {
        self.centi_men(self.logit_from(position, state))
    }

    fn centi_men(&self, logit: f32) -> i32 {
        let centi = (logit * self.scale).round();
        (centi as i32).clamp(-MAX_SCORE, MAX_SCORE)
    }
}

/// More changed pieces than this since the last position, and the sums are made afresh.
const REFRESH_CHANGES: u32 = 12;

/// White men, white kings, black men, black kings.
fn planes_of<R: Rules>(position: &Position<R>) -> [Bitboard; 4] {
    [
        position.men(Color::White),
        position.kings_of(Color::White),
        position.men(Color::Black),
        position.kings_of(Color::Black),
    ]
}

/// The first layer's sums of the last position evaluated in each view (White to move,
/// Black to move), kept by each search thread.
#[derive(Clone, Default)]
pub struct NetworkState {
    views: [ViewState; 2],
}

/// The sums of one view and the position they are of.
#[derive(Clone)]
struct ViewState {
    /// The checksum of the network whose sums these are, or `None` before the first: sums
    /// of another network (after `EvalFile` changed) are made afresh.
    network: Option<u64>,
    planes: [Bitboard; 4],
    sums: [i16; HIDDEN],
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            network: None,
            planes: [0; 4],
            sums: [0; HIDDEN],
        }
    }
}

impl std::fmt::Debug for NetworkState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [white, black] = &self.views;
        write!(
            f,
            "NetworkState(networks {:?}, {:?})",
            white.network, black.network
        )
    }
}

/// Weights as 16-bit integers at `scale`; a weight beyond the range is refused.
fn quantized<const N: usize>(
    row: &[f32; N],
    scale: f32,
    layer: &str,
) -> Result<[i16; N], NetworkError> {
    let mut out = [0; N];
    for (target, &weight) in out.iter_mut().zip(row) {
        let scaled = (weight * scale).round();
        if scaled.abs() > f32::from(i16::MAX) {
            return Err(NetworkError(format!(
                "{layer} weight {weight} is out of range"
            )));
        }
        *target = scaled as i16;
    }
    Ok(out)
}

/// Refuses a first layer whose 16-bit sums could overflow: for each neuron, its bias and the
/// largest weight of each square (one piece a square at most) must stay within `i16`. Every
/// sum the search makes, updated or afresh, is the sum of a board's pieces, so it holds then.
fn check_first_layer_bound(
    first: &[[i16; HIDDEN]; INPUTS],
    bias: &[i16; HIDDEN],
) -> Result<(), NetworkError> {
    for neuron in 0..HIDDEN {
        let mut bound = i32::from(bias[neuron]).abs();
        for square in 0..32 {
            bound += (0..4)
                .map(|plane| i32::from(first[plane * 32 + square][neuron]).abs())
                .max()
                .unwrap_or(0);
        }
        if bound > i32::from(i16::MAX) {
            return Err(NetworkError(format!(
                "first-layer neuron {neuron} can reach {} and overflow",
                bound as f32 / FIRST_SCALE
            )));
        }
    }
    Ok(())
}

/// Reads a layer after the first: its weights input by input (each row one input's weights to
/// the 32 outputs), stored two inputs a row as [`dense`] reads them, then its 32 biases.
fn read_layer(
    floats: &mut Floats<'_>,
    rows: &mut [[i16; 2 * SMALL]],
    bias: &mut [i32; SMALL],
) -> Result<(), NetworkError> {
    let mut outputs = [0.0; SMALL];
    for input in 0..2 * rows.len() {
        floats.fill(&mut outputs)?;
        let weights = quantized(&outputs, SECOND_SCALE, "hidden-layer")?;
        for (output, weight) in weights.into_iter().enumerate() {
            rows[input / 2][2 * output + input % 2] = weight;
        }
    }
    floats.fill(&mut outputs)?;
    for (target, value) in bias.iter_mut().zip(outputs) {
        if value.abs() > 64.0 {
            return Err(NetworkError(format!(
                "hidden-layer bias {value} is out of range"
            )));
        }
        *target = (value / LAYER_UNIT).round() as i32;
    }
    Ok(())
}

/// A layer's sums as the next layer's activations: clipped to `[0, 1]`, at 1/128.
fn small_activations(sums: &[i32; SMALL]) -> [i16; SMALL] {
    sums.map(|sum| (sum >> LAYER_SHIFT).clamp(0, i32::from(ACTIVATION_ONE)) as i16)
}

/// A fully connected layer to 32 outputs in integers (units [`LAYER_UNIT`]): the bias plus,
/// for each pair of inputs, both products in one step. The sums cannot overflow: activations
/// are at most 128, weights `i16`, biases at most 64 (2^26 units), so 256 inputs reach at most
/// 2^30 + 2^26. Exact, so every implementation gives the same sums.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
fn dense(activations: &[i16], weights: &[[i16; 2 * SMALL]], bias: &[i32; SMALL]) -> [i32; SMALL] {
    dense_portable(activations, weights, bias)
}

/// [`dense`] on any processor, in the order of its vector form.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
fn dense_portable(
    activations: &[i16],
    weights: &[[i16; 2 * SMALL]],
    bias: &[i32; SMALL],
) -> [i32; SMALL] {
    debug_assert_eq!(activations.len(), 2 * weights.len());
    let mut sums = *bias;
    for (pair, row) in activations.chunks_exact(2).zip(weights) {
        let (a, b) = (i32::from(pair[0]), i32::from(pair[1]));
        for (sum, both) in sums.iter_mut().zip(row.chunks_exact(2)) {
            *sum += a * i32::from(both[0]) + b * i32::from(both[1]);
        }
    }
    sums
}

/// [`dense`] with AVX2: each step multiplies a pair of activations by the pair's weights for
/// eight outputs and adds both products into each output's lane (`pmaddwd`), four registers
/// for the 32 outputs. A compiler does not find this form by itself: written as plain loops
/// the layer took three times as long (docs/journal.md, "The network in integers").
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
fn dense(activations: &[i16], weights: &[[i16; 2 * SMALL]], bias: &[i32; SMALL]) -> [i32; SMALL] {
    // SAFETY: this build is compiled for processors with AVX2 (`target_feature = "avx2"`),
    // so the processor running it has the instructions the function uses.
    unsafe { dense_avx2(activations, weights, bias) }
}

/// [`dense`]'s AVX2 body.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[target_feature(enable = "avx2")]
fn dense_avx2(
    activations: &[i16],
    weights: &[[i16; 2 * SMALL]],
    bias: &[i32; SMALL],
) -> [i32; SMALL] {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_set1_epi32,
        _mm256_storeu_si256,
    };
    debug_assert_eq!(activations.len(), 2 * weights.len());
    let mut sums: [__m256i; 4] = [0, 1, 2, 3].map(|quarter| {
        let lanes = &bias.as_chunks::<8>().0[quarter];
        // SAFETY: the load reads 32 bytes through a pointer made from a reference to exactly
        // 32 bytes (`[i32; 8]`), valid for reads; `loadu` asks no alignment.
        unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) }
    });
    for (pair, row) in activations.chunks_exact(2).zip(weights) {
        // Both activations in every 32-bit lane: the low half the even input, the high half
        // the odd one, as the weights are laid out.
        let both = u32::from(pair[0] as u16) | (u32::from(pair[1] as u16) << 16);
        let inputs = _mm256_set1_epi32(both as i32);
        for (sum, lanes) in sums.iter_mut().zip(row.as_chunks::<16>().0) {
            // SAFETY: as above, 32 bytes from a reference to `[i16; 16]`.
            let weights = unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) };
            *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(inputs, weights));
        }
    }
    let mut out = [0i32; SMALL];
    for (sum, lanes) in sums.iter().zip(out.as_chunks_mut::<8>().0) {
        // SAFETY: the store writes 32 bytes through a pointer made from a unique reference to
        // exactly 32 bytes (`[i32; 8]`); `storeu` asks no alignment.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), *sum) };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::tests::{flipped, playout_positions};
    use crate::rules::English;

    /// A network with small weights that vary from one to the next, so that every input and
    /// neuron counts.
    fn busy_network() -> Network {
        Network::from_bytes(&busy_file()).expect("a valid file")
    }

    fn busy_file() -> Vec<u8> {
        file_with(1000.0, |i| (((i * 7919) % 101) as f32 / 101.0 - 0.5) * 0.4)
    }

    #[test]
    fn sums_updated_position_by_position_equal_sums_made_afresh() {
        let network = busy_network();
        let mut state = NetworkState::default();
        let positions = playout_positions::<English>(7, 40, 120);
        let mut updated = 0;
        for position in &positions {
            let view = &state.views[usize::from(position.side_to_move() == Color::Black)];
            let changes: u32 = planes_of(position)
                .iter()
                .zip(&view.planes)
                .map(|(now, before)| (now ^ before).count_ones())
                .sum();
            updated += usize::from(view.network.is_some() && changes <= REFRESH_CHANGES);
            let logit = network.logit_from(position, &mut state);
            assert_eq!(
                logit.to_bits(),
                network.logit(position).to_bits(),
                "{position:?}"
            );
        }
        // Consecutive plies of a game: all but each game's first position (after the last
        // of the game before it) are updates.
        assert!(
            updated > positions.len() * 9 / 10,
            "{updated} of {}",
            positions.len()
        );
    }

    #[test]
    fn a_layer_gives_the_same_sums_on_every_processor() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..50 {
            let activations: [i16; HIDDEN] = std::array::from_fn(|_| match next() % 4 {
                0 => 0,
                1 => ACTIVATION_ONE,
                _ => (next() % 129) as i16,
            });
            let mut weights = Box::new([[0i16; 2 * SMALL]; HIDDEN / 2]);
            for weight in weights.as_flattened_mut() {
                *weight = if round % 10 == 0 {
                    if next() % 2 == 0 {
                        i16::MAX
                    } else {
                        i16::MIN + 1
                    }
                } else {
                    next() as i16
                };
            }
            let bias: [i32; SMALL] =
                std::array::from_fn(|_| (next() % 2_000_001) as i32 - 1_000_000);
            assert_eq!(
                dense(&activations, &weights[..], &bias),
                dense_portable(&activations, &weights[..], &bias)
            );
        }
    }

    #[test]
    fn sums_of_another_network_are_made_afresh() {
        let busy = busy_network();
        let other = Network::from_bytes(&file_with(100.0, |i| {
            ((i * 104_729) % 89) as f32 / 89.0 - 0.5
        }))
        .expect("a valid file");
        let mut state = NetworkState::default();
        for position in playout_positions::<English>(5, 4, 60) {
            busy.logit_from(&position, &mut state);
            assert_eq!(
                other.logit_from(&position, &mut state).to_bits(),
                other.logit(&position).to_bits()
            );
        }
    }

    #[test]
    fn a_first_layer_that_could_overflow_is_refused() {
        // 32 squares of weight 3 reach 96 > 64 (i16::MAX / 512).
        let bytes = file_with(100.0, |i| if i < INPUTS * HIDDEN { 3.0 } else { 0.0 });
        let refused = Network::from_bytes(&bytes).unwrap_err();
        assert!(refused.0.contains("overflow"), "{refused}");
    }

    #[test]
    fn the_score_is_colour_symmetric() {
        let network = busy_network();
        let mut distinct = std::collections::BTreeSet::new();
        for position in playout_positions::<English>(11, 20, 100) {
            let score = network.evaluate(&position);
            assert_eq!(score, network.evaluate(&flipped(&position)), "{position:?}");
            distinct.insert(score);
        }
        assert!(
            distinct.len() > 50,
            "the test network scores positions alike: {distinct:?}"
        );
    }

    /// A version 1 network file (one bucket) with every weight given by `weight(index)` and
    /// the scale `scale`.
    fn file_with(scale: f32, weight: impl Fn(usize) -> f32) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        for value in [1, INPUTS as u16, HIDDEN as u16, SMALL as u16] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        finish_file(bytes, scale, FIRST_WEIGHTS + HEAD_WEIGHTS, weight)
    }

    /// A version 2 file of `buckets` buckets, every weight given by `weight(index)`.
    fn file_with_buckets(buckets: u16, scale: f32, weight: impl Fn(usize) -> f32) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        for value in [VERSION, INPUTS as u16, HIDDEN as u16, SMALL as u16, buckets] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        let count = FIRST_WEIGHTS + usize::from(buckets) * HEAD_WEIGHTS;
        finish_file(bytes, scale, count, weight)
    }

    fn finish_file(
        mut bytes: Vec<u8>,
        scale: f32,
        count: usize,
        weight: impl Fn(usize) -> f32,
    ) -> Vec<u8> {
        bytes.extend_from_slice(&scale.to_le_bytes());
        for index in 0..count {
            bytes.extend_from_slice(&weight(index).to_le_bytes());
        }
        let checksum = fnv1a64(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn a_version_2_file_whose_buckets_are_alike_scores_as_version_1() {
        let weight = |i: usize| (((i * 7919) % 101) as f32 / 101.0 - 0.5) * 0.4;
        let one = Network::from_bytes(&file_with(1000.0, weight)).expect("version 1");
        let four = Network::from_bytes(&file_with_buckets(4, 1000.0, |i| {
            if i < FIRST_WEIGHTS {
                weight(i)
            } else {
                weight(FIRST_WEIGHTS + (i - FIRST_WEIGHTS) % HEAD_WEIGHTS)
            }
        }))
        .expect("version 2");
        for position in playout_positions::<English>(3, 10, 100) {
            assert_eq!(
                one.logit(&position).to_bits(),
                four.logit(&position).to_bits()
            );
        }
    }

    #[test]
    fn each_range_of_piece_counts_uses_its_own_bucket() {
        // Every weight 0 but each bucket's output bias, which is its number: the logit says
        // which bucket scored the position.
        let network = Network::from_bytes(&file_with_buckets(4, 100.0, |i| {
            let head = i
                .checked_sub(FIRST_WEIGHTS)
                .map(|j| (j / HEAD_WEIGHTS, j % HEAD_WEIGHTS));
            match head {
                Some((bucket, last)) if last == HEAD_WEIGHTS - 1 => bucket as f32,
                _ => 0.0,
            }
        }))
        .expect("a valid file");
        let cases = [
            ("W:W32:B1", 0.0),
            ("W:W29,30,31:B1,2,3", 0.0),
            ("W:W29,30,31,32:B1,2,3", 1.0),
            ("W:W21,22,23,24,25,26:B1,2,3,4,5,6", 1.0),
            ("W:W21,22,23,24,25,26,27:B1,2,3,4,5,6", 2.0),
            (
                "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
                3.0,
            ),
        ];
        for (fen, bucket) in cases {
            let position = crate::notation::fen::parse_fen::<English>(fen).expect(fen);
            assert_eq!(network.logit(&position), bucket, "{fen}");
        }
        let too_many = file_with_buckets(MAX_BUCKETS as u16 + 1, 100.0, |_| 0.0);
        let refused = Network::from_bytes(&too_many).unwrap_err();
        assert!(refused.0.contains("buckets"), "{refused}");
    }

    #[test]
    fn an_eval_file_takes_a_network_for_english_only() {
        use crate::eval::EvalFile;
        use crate::rules::Variant;
        let bytes = busy_file();
        let file = EvalFile::read(&bytes, Variant::English).expect("English reads it");
        let set = file.set_for(Variant::English).expect("it fits English");
        let position = Position::<English>::start();
        assert_eq!(set.evaluate(&position), busy_network().evaluate(&position));
        let refused = EvalFile::read(&bytes, Variant::Russian).unwrap_err();
        assert!(refused.contains("English only"), "{refused}");
        assert!(file.set_for(Variant::Italian).is_none());
    }

    #[test]
    fn a_file_is_read_and_damage_is_refused() {
        let bytes = file_with(110.0, |i| ((i * 7919) % 13) as f32 / 13.0 - 0.5);
        assert!(Network::from_bytes(&bytes).is_ok());
        let mut flipped = bytes.clone();
        flipped[100] ^= 1;
        assert!(
            Network::from_bytes(&flipped)
                .unwrap_err()
                .0
                .contains("checksum")
        );
        assert!(Network::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut version = bytes.clone();
        version[8] = 9;
        assert!(
            Network::from_bytes(&version)
                .unwrap_err()
                .0
                .contains("version")
        );
        assert!(Network::from_bytes(b"DAMKAEVL").is_err());
        let nan = file_with(110.0, |i| if i == 5 { f32::NAN } else { 0.0 });
        assert!(Network::from_bytes(&nan).unwrap_err().0.contains("finite"));
    }
}
