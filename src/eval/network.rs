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
//! Little-endian, in this order (version 1):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `DAMKANET` |
//! | 2 | format version (1) |
//! | 2 | inputs (128) |
//! | 2 | first hidden layer ([`HIDDEN`]) |
//! | 2 | second and third hidden layers (32 each) |
//! | 4 | scale: centi-men per unit of the output, f32 |
//! | 4 x 128 x HIDDEN | first layer weights, input by input (f32) |
//! | 4 x HIDDEN | first layer biases |
//! | 4 x HIDDEN x 32 | second layer weights, input by input |
//! | 4 x 32 | second layer biases |
//! | 4 x 32 x 32 | third layer weights, input by input |
//! | 4 x 32 | third layer biases |
//! | 4 x 32 | output weights |
//! | 4 | output bias |
//! | 8 | FNV-1a 64 checksum of every byte before it |
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
/// The largest score the network gives, in centi-men: far below the search's won scores.
pub const MAX_SCORE: i32 = 10_000;
/// The first layer is summed in integers, its weights scaled by this: sums are then exact
/// whatever order pieces are added and taken away in, so a sum updated move by move equals
/// one made afresh, and the score does not depend on the path the search took.
const FIRST_SCALE: f32 = 4096.0;

const MAGIC: &[u8; 8] = b"DAMKANET";
const VERSION: u16 = 1;
const HEADER_BYTES: usize = 8 + 2 * 4 + 4;
const WEIGHT_COUNT: usize =
    INPUTS * HIDDEN + HIDDEN + HIDDEN * SMALL + SMALL + SMALL * SMALL + SMALL + SMALL + 1;

/// A network read from a file, ready to evaluate.
#[derive(Clone)]
pub struct Network {
    /// The file's checksum: two networks are the same when their files are.
    checksum: u64,
    scale: f32,
    first: Box<[[i32; HIDDEN]; INPUTS]>,
    first_bias: [i32; HIDDEN],
    second: Box<[[f32; SMALL]; HIDDEN]>,
    second_bias: [f32; SMALL],
    third: [[f32; SMALL]; SMALL],
    third_bias: [f32; SMALL],
    output: [f32; SMALL],
    output_bias: f32,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({INPUTS}-{HIDDEN}-{SMALL}-{SMALL}-1, scale {})",
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
        let expected = HEADER_BYTES + 4 * WEIGHT_COUNT + 8;
        if !Network::is_network_file(bytes) {
            return Err(NetworkError("no DAMKANET magic".into()));
        }
        if bytes.len() < HEADER_BYTES {
            return Err(NetworkError("shorter than its header".into()));
        }
        let version = u16_at(bytes, 8);
        if version != VERSION {
            return Err(NetworkError(format!(
                "format version {version}, this build reads {VERSION}"
            )));
        }
        let sizes = [u16_at(bytes, 10), u16_at(bytes, 12), u16_at(bytes, 14)];
        if sizes != [INPUTS as u16, HIDDEN as u16, SMALL as u16] {
            return Err(NetworkError(format!(
                "layers {}-{}-{}, this build evaluates {INPUTS}-{HIDDEN}-{SMALL}",
                sizes[0], sizes[1], sizes[2]
            )));
        }
        if bytes.len() != expected {
            return Err(NetworkError(format!(
                "{} bytes, a {INPUTS}-{HIDDEN}-{SMALL} network has {expected}",
                bytes.len()
            )));
        }
        let body = &bytes[..expected - 8];
        let stored = u64::from_le_bytes(bytes[expected - 8..].try_into().expect("8 bytes"));
        if fnv1a64(body) != stored {
            return Err(NetworkError("checksum does not match".into()));
        }
        let mut floats = Floats {
            bytes: &body[HEADER_BYTES - 4..],
        };
        let scale = floats.next()?;
        if scale <= 0.0 {
            return Err(NetworkError(format!("scale {scale} is not positive")));
        }
        let mut network = Network {
            checksum: stored,
            scale,
            first: Box::new([[0; HIDDEN]; INPUTS]),
            first_bias: [0; HIDDEN],
            second: Box::new([[0.0; SMALL]; HIDDEN]),
            second_bias: [0.0; SMALL],
            third: [[0.0; SMALL]; SMALL],
            third_bias: [0.0; SMALL],
            output: [0.0; SMALL],
            output_bias: 0.0,
        };
        let mut row = [0.0; HIDDEN];
        for target in network.first.iter_mut() {
            floats.fill(&mut row)?;
            *target = quantized(&row)?;
        }
        floats.fill(&mut row)?;
        network.first_bias = quantized(&row)?;
        for row in network.second.iter_mut() {
            floats.fill(row)?;
        }
        floats.fill(&mut network.second_bias)?;
        for row in network.third.iter_mut() {
            floats.fill(row)?;
        }
        floats.fill(&mut network.third_bias)?;
        floats.fill(&mut network.output)?;
        network.output_bias = floats.next()?;
        Ok(network)
    }

    /// The output of the network for `position`, in units of its logit (the side to move's
    /// view), with the first layer's sums made afresh.
    pub fn logit<R: Rules>(&self, position: &Position<R>) -> f32 {
        let mut state = NetworkState::default();
        self.logit_from(position, &mut state)
    }

    /// The output for `position`, with the first layer's sums updated from those of the last
    /// position `state` saw (the search evaluates positions one after another that differ by
    /// a few pieces), or made afresh when too much changed.
    pub fn logit_from<R: Rules>(&self, position: &Position<R>, state: &mut NetworkState) -> f32 {
        let planes = planes_of(position);
        let changes: u32 = planes
            .iter()
            .zip(&state.planes)
            .map(|(now, before)| (now ^ before).count_ones())
            .sum();
        if !state.valid || changes > REFRESH_CHANGES {
            self.refresh::<R>(&planes, state);
        } else {
            let previous = state.planes;
            for (plane, (&now, &before)) in planes.iter().zip(&previous).enumerate() {
                for bit in Bits(before & !now) {
                    self.update::<R, false>(state, plane, bit);
                }
                for bit in Bits(now & !before) {
                    self.update::<R, true>(state, plane, bit);
                }
            }
            state.planes = planes;
        }
        let view = usize::from(position.side_to_move() == Color::Black);
        let mut first = [0.0f32; HIDDEN];
        for (value, &sum) in first.iter_mut().zip(&state.sums[view]) {
            *value = sum as f32 * (1.0 / FIRST_SCALE);
        }
        let second = layer(&first, &self.second, &self.second_bias);
        let third = layer(&second, &self.third, &self.third_bias);
        let mut out = self.output_bias;
        for (value, weight) in third.iter().zip(&self.output) {
            out += value.clamp(0.0, 1.0) * weight;
        }
        out
    }

    /// Makes both views' sums afresh from `planes`.
    fn refresh<R: Rules>(&self, planes: &[Bitboard; 4], state: &mut NetworkState) {
        state.sums = [self.first_bias, self.first_bias];
        state.planes = [0; 4];
        for (plane, &set) in planes.iter().enumerate() {
            for bit in Bits(set) {
                self.update::<R, true>(state, plane, bit);
            }
        }
        state.planes = *planes;
        state.valid = true;
    }

    /// Adds (or takes away) the piece of `plane` (white men, white kings, black men, black
    /// kings) on `bit` to both views: White's reads it as it is, Black's with the colours
    /// swapped and the board turned.
    #[inline(always)]
    fn update<R: Rules, const ADD: bool>(&self, state: &mut NetworkState, plane: usize, bit: u32) {
        let square = usize::from(R::Geometry::SQUARE_OF[bit as usize]);
        let white_row = &self.first[plane * 32 + square];
        let black_row = &self.first[(plane ^ 2) * 32 + 31 - square];
        let [white, black] = &mut state.sums;
        for (sum, weight) in white.iter_mut().zip(white_row) {
            *sum = if ADD { *sum + weight } else { *sum - weight };
        }
        for (sum, weight) in black.iter_mut().zip(black_row) {
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

/// The first layer's sums of the last position evaluated, for both views (White to move,
/// Black to move), kept by each search thread.
#[derive(Clone)]
pub struct NetworkState {
    valid: bool,
    planes: [Bitboard; 4],
    sums: [[i32; HIDDEN]; 2],
}

impl Default for NetworkState {
    fn default() -> Self {
        NetworkState {
            valid: false,
            planes: [0; 4],
            sums: [[0; HIDDEN]; 2],
        }
    }
}

impl std::fmt::Debug for NetworkState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NetworkState(valid {})", self.valid)
    }
}

/// The first layer's weights as integers (see [`FIRST_SCALE`]).
fn quantized(row: &[f32; HIDDEN]) -> Result<[i32; HIDDEN], NetworkError> {
    let mut out = [0; HIDDEN];
    for (target, &weight) in out.iter_mut().zip(row) {
        if weight.abs() > 64.0 {
            return Err(NetworkError(format!(
                "first-layer weight {weight} is out of range"
            )));
        }
        *target = (weight * FIRST_SCALE).round() as i32;
    }
    Ok(out)
}

/// One fully connected layer after clipping its inputs to `[0, 1]`: each input's row is
/// added in turn, so the compiler keeps the 32 sums in vector registers.
#[inline(always)]
fn layer<const N: usize>(
    inputs: &[f32; N],
    weights: &[[f32; SMALL]; N],
    bias: &[f32; SMALL],
) -> [f32; SMALL] {
    let mut sums = *bias;
    for (input, row) in inputs.iter().zip(weights) {
        let x = input.clamp(0.0, 1.0);
        for (sum, weight) in sums.iter_mut().zip(row) {
            *sum += x * weight;
        }
    }
    sums
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
            let changes: u32 = planes_of(position)
                .iter()
                .zip(&state.planes)
                .map(|(now, before)| (now ^ before).count_ones())
                .sum();
            updated += usize::from(state.valid && changes <= REFRESH_CHANGES);
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

    /// A network file with every weight given by `weight(index)` and the scale `scale`.
    fn file_with(scale: f32, weight: impl Fn(usize) -> f32) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        for value in [VERSION, INPUTS as u16, HIDDEN as u16, SMALL as u16] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(&scale.to_le_bytes());
        for index in 0..WEIGHT_COUNT {
            bytes.extend_from_slice(&weight(index).to_le_bytes());
        }
        let checksum = fnv1a64(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
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
