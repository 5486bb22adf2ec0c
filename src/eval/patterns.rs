//! Pattern evaluation: a learned weight for every arrangement of men in each overlapping 4x4 block of the board, and the checked file that carries those weights.
//!
//! The idea is Scan 2.0's (Fabien Letouzey, `eval.cpp`): cover the board with overlapping
//! blocks of four rows by four columns, read the eight playable squares of a block as a
//! number in base 3 (empty or king / own man / enemy man: kings are left to the other
//! terms), and add the weight that number indexes in the block's table. The tables are
//! fitted to game results by logistic regression (`damka tune patterns`), so they learn
//! formations, outposts, locks and tempo that no hand-named term describes.
//!
//! The blocks start on every second row and column, so on 10x10 there are 4 x 4 = 16 blocks
//! and on 8x8 3 x 3 = 9. Half a turn of the board maps the block set onto itself; a block
//! and its rotated twin share one table, read by each side from its own side of the board
//! (the side moving up reads the block, the side moving down its twin, with the colours
//! swapped), so the score is colour-symmetric by construction: 8 tables on 10x10 and 5 on
//! 8x8 (the centre block of 8x8 is its own twin and is read by both sides). Each table holds
//! an opening and an endgame weight per arrangement, blended by the evaluation's phase.
//!
//! The index of a block comes from the bitboards with one parallel bit extract per colour
//! (PEXT, BMI2) into an 8-bit number and a 256-entry table that turns it into base 3; where
//! the processor lacks BMI2 a short loop does the extract.
//!
//! # The weights file
//!
//! Little-endian, in this order (version 1):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `DAMKAEVL` |
//! | 2 | format version (1) |
//! | 2 | board family: 10 (10x10 blocks) or 8 (8x8 blocks) |
//! | 2 | number of tables; must be the family's (8 or 5) |
//! | 2 | squares per block (8) |
//! | 4 | length of the text that follows |
//! | n | the other weights as text, `name v0 v1 ...` per line ([`crate::eval::Weights`]) |
//! | 4 x tables x 6561 | per table and arrangement: opening and endgame weight, i16 each, in 1/16 centi-man |
//! | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! A file with another magic, version or family, a wrong length or a checksum that does not
//! match is refused with the reason ([`PatternError`]).

use crate::board::{Bitboard, Geometry};

/// Playable squares in one block (four rows of two).
pub const BLOCK_SQUARES: usize = 8;
/// Arrangements of one block: 3 states a square.
pub const BLOCK_STATES: usize = 6561;
/// Pattern weights are stored in this fraction of a centi-man.
pub const PATTERN_UNIT: i32 = 16;
/// Most tables of any board (10x10).
pub const MAX_TABLES: usize = 8;

const MAGIC: &[u8; 8] = b"DAMKAEVL";
const VERSION: u16 = 1;

/// The base-3 value of an 8-bit extract, its bit `i` the digit of weight 3^i.
const FORWARD_TRITS: [u16; 256] = trits(false);
/// The same with the digit order reversed: bit `i` is the digit of weight 3^(7 - i).
const REVERSED_TRITS: [u16; 256] = trits(true);

const fn trits(reversed: bool) -> [u16; 256] {
    let mut out = [0u16; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut value = 0u16;
        let mut i = 0;
        while i < BLOCK_SQUARES {
            if bits & (1 << i) != 0 {
                let digit = if reversed { BLOCK_SQUARES - 1 - i } else { i };
                value += 3u16.pow(digit as u32);
            }
            i += 1;
        }
        out[bits] = value;
        bits += 1;
    }
    out
}

/// The block masks of a board: for each table, the block read by the side moving up and
/// its rotated twin read by the side moving down.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Tables in use.
    pub tables: usize,
    /// The block of each table as the side moving up sees it.
    pub up: [Bitboard; MAX_TABLES],
    /// The same block turned half a turn: what the side moving down reads.
    pub down: [Bitboard; MAX_TABLES],
}

/// The layout of a board of `size` rows with `per_row` playable squares each, squares
/// mapped to bits by `bit_of`.
const fn layout(size: usize, per_row: usize, bit_of: &[u8; 64]) -> Layout {
    let mut out = Layout {
        tables: 0,
        up: [0; MAX_TABLES],
        down: [0; MAX_TABLES],
    };
    let last = size - 4;
    let mut row = 0;
    while row <= last {
        let mut col = 0;
        while col <= last {
            // One table per pair of twins: keep the block that comes first in reading order.
            let twin = (last - row, last - col);
            if row < twin.0 || (row == twin.0 && col <= twin.1) {
                out.up[out.tables] = block(size, per_row, bit_of, row, col);
                out.down[out.tables] = block(size, per_row, bit_of, twin.0, twin.1);
                out.tables += 1;
            }
            col += 2;
        }
        row += 2;
    }
    out
}

/// The playable squares of rows `row..row + 4` and columns `col..col + 4`.
const fn block(size: usize, per_row: usize, bit_of: &[u8; 64], row: usize, col: usize) -> Bitboard {
    let mut out = 0;
    let mut square = 0;
    while square < size * per_row {
        let r = square / per_row;
        // Even rows (0 at the top) start on the second column.
        let c = 2 * (square % per_row) + (1 - r % 2);
        if r >= row && r < row + 4 && c >= col && c < col + 4 {
            out |= 1 << bit_of[square];
        }
        square += 1;
    }
    out
}

/// The block layout of each board.
pub trait PatternLayout: Geometry {
    /// The blocks of this board.
    const LAYOUT: Layout = layout(Self::SIZE, Self::PER_ROW, &Self::BIT_OF);
}

impl<G: Geometry> PatternLayout for G {}

/// The bits of `value` under `mask`, packed to the low end (PEXT).
#[inline(always)]
fn extract(value: Bitboard, mask: Bitboard) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: `_pext_u64` needs the BMI2 instructions, and this branch is compiled only
        // when BMI2 is enabled for the whole build (`target_feature = "bmi2"`, as
        // `-C target-cpu=native` on a BMI2 machine sets it), so every processor the binary
        // may run on has them. It reads no memory. docs/bench.md ("Pattern evaluation")
        // measures what it saves over the loop below.
        unsafe { std::arch::x86_64::_pext_u64(value, mask) as usize }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut out = 0;
        let mut bit = 0;
        let mut rest = mask;
        while rest != 0 {
            let lowest = rest & rest.wrapping_neg();
            if value & lowest != 0 {
                out |= 1 << bit;
            }
            bit += 1;
            rest &= rest - 1;
        }
        out
    }
}

/// The arrangement index of each table's block for both sides: `up[t]` as the side moving
/// up reads its block, `down[t]` as the side moving down reads the twin. `up_men` and
/// `down_men` are the men of the side moving up and down.
#[inline(always)]
pub fn indices<G: Geometry>(
    up_men: Bitboard,
    down_men: Bitboard,
) -> ([u16; MAX_TABLES], [u16; MAX_TABLES]) {
    let layout = G::LAYOUT;
    let mut up = [0u16; MAX_TABLES];
    let mut down = [0u16; MAX_TABLES];
    for t in 0..layout.tables {
        let own = FORWARD_TRITS[extract(up_men, layout.up[t])];
        let enemy = FORWARD_TRITS[extract(down_men, layout.up[t])];
        up[t] = own + 2 * enemy;
        // Half a turn reverses the bit order, so the twin's digits come out reversed.
        let own = REVERSED_TRITS[extract(down_men, layout.down[t])];
        let enemy = REVERSED_TRITS[extract(up_men, layout.down[t])];
        down[t] = own + 2 * enemy;
    }
    (up, down)
}

/// Why a weights file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternError {
    /// The file does not start with the magic bytes.
    NotAWeightsFile,
    /// A version this build cannot read.
    Version(u16),
    /// Another board family than the variant's.
    Family {
        /// The family in the file.
        found: u16,
        /// The family the variant needs.
        wanted: u16,
    },
    /// The header's counts do not fit the family.
    Shape(String),
    /// The file ends early or has bytes after the checksum.
    Length {
        /// Bytes the header promises.
        expected: usize,
        /// Bytes present.
        found: usize,
    },
    /// The checksum does not match: the file is damaged.
    Checksum,
    /// The text of the other weights is not UTF-8 or names unknown weights.
    Text(String),
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PatternError::NotAWeightsFile => {
                write!(f, "not a damka weights file (no DAMKAEVL magic)")
            }
            PatternError::Version(v) => write!(
                f,
                "weights file version {v}; this build reads version {VERSION}"
            ),
            PatternError::Family { found, wanted } => write!(
                f,
                "weights for {found}x{found} boards, but the variant plays on {wanted}x{wanted}"
            ),
            PatternError::Shape(what) => write!(f, "bad weights file header: {what}"),
            PatternError::Length { expected, found } => write!(
                f,
                "weights file truncated or padded: {found} bytes where the header promises {expected}"
            ),
            PatternError::Checksum => {
                write!(f, "weights file checksum mismatch (the file is damaged)")
            }
            PatternError::Text(what) => write!(f, "bad weights in the file's text: {what}"),
        }
    }
}

impl std::error::Error for PatternError {}

/// FNV-1a, 64 bits (Fowler, Noll, Vo): a checksum against damage, not against tampering.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The learned block weights of one board family, with the text of the other weights that
/// came in the same file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patterns {
    /// 10 or 8: the board the blocks lie on.
    pub family: u16,
    /// Opening and endgame weight of arrangement `i` of table `t` at `t * 6561 + i`, in
    /// 1/16 centi-man.
    pub weights: Vec<[i16; 2]>,
    /// The other weights (material, advancement, ...), as [`crate::eval::Weights::to_text`]
    /// writes them.
    pub text: String,
}

/// The number of tables of a board family.
pub fn tables_of(family: u16) -> Option<usize> {
    match family {
        10 => Some(crate::board::Board10::LAYOUT.tables),
        8 => Some(crate::board::Board8::LAYOUT.tables),
        _ => None,
    }
}

impl Patterns {
    /// All-zero tables for a family (10 or 8), with `text` for the other weights.
    pub fn zero(family: u16, text: String) -> Patterns {
        let tables = tables_of(family).expect("family 10 or 8");
        Patterns {
            family,
            weights: vec![[0, 0]; tables * BLOCK_STATES],
            text,
        }
    }

    /// The opening and endgame sums of the blocks, from the side moving up's point of view,
    /// in 1/16 centi-man.
    #[inline(always)]
    pub fn score<G: Geometry>(&self, up_men: Bitboard, down_men: Bitboard) -> (i32, i32) {
        let (up, down) = indices::<G>(up_men, down_men);
        let tables = G::LAYOUT.tables;
        let weights = &self.weights[..tables * BLOCK_STATES];
        let (mut opening, mut endgame) = (0, 0);
        for t in 0..tables {
            let base = t * BLOCK_STATES;
            let gain = weights[base + usize::from(up[t])];
            let loss = weights[base + usize::from(down[t])];
            opening += i32::from(gain[0]) - i32::from(loss[0]);
            endgame += i32::from(gain[1]) - i32::from(loss[1]);
        }
        (opening, endgame)
    }

    /// The file's bytes (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.text.len() + 4 * self.weights.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.family.to_le_bytes());
        out.extend_from_slice(&((self.weights.len() / BLOCK_STATES) as u16).to_le_bytes());
        out.extend_from_slice(&(BLOCK_SQUARES as u16).to_le_bytes());
        out.extend_from_slice(&(self.text.len() as u32).to_le_bytes());
        out.extend_from_slice(self.text.as_bytes());
        for pair in &self.weights {
            out.extend_from_slice(&pair[0].to_le_bytes());
            out.extend_from_slice(&pair[1].to_le_bytes());
        }
        let checksum = fnv1a64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// True when `bytes` start like a weights file (the magic), so a caller can tell it from
    /// the text form of the weights.
    pub fn is_weights_file(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC)
    }

    /// Reads a file's bytes, checking everything; `family` is the board the caller plays on.
    pub fn from_bytes(bytes: &[u8], family: u16) -> Result<Patterns, PatternError> {
        if !Self::is_weights_file(bytes) {
            return Err(PatternError::NotAWeightsFile);
        }
        const HEADER: usize = 20;
        if bytes.len() < HEADER {
            return Err(PatternError::Length {
                expected: HEADER,
                found: bytes.len(),
            });
        }
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let version = u16_at(8);
        if version != VERSION {
            return Err(PatternError::Version(version));
        }
        let found = u16_at(10);
        if found != family {
            return Err(PatternError::Family {
                found,
                wanted: family,
            });
        }
        let tables = usize::from(u16_at(12));
        let wanted_tables = tables_of(family).ok_or(PatternError::Family {
            found,
            wanted: family,
        })?;
        if tables != wanted_tables {
            return Err(PatternError::Shape(format!(
                "{tables} tables where {family}x{family} has {wanted_tables}"
            )));
        }
        if usize::from(u16_at(14)) != BLOCK_SQUARES {
            return Err(PatternError::Shape(format!(
                "{} squares a block where damka uses {BLOCK_SQUARES}",
                u16_at(14)
            )));
        }
        let text_len = u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]) as usize;
        let expected = HEADER + text_len + 4 * tables * BLOCK_STATES + 8;
        if bytes.len() != expected {
            return Err(PatternError::Length {
                expected,
                found: bytes.len(),
            });
        }
        let (body, checksum) = bytes.split_at(expected - 8);
        let checksum = u64::from_le_bytes(checksum.try_into().expect("8 bytes"));
        if fnv1a64(body) != checksum {
            return Err(PatternError::Checksum);
        }
        let text = std::str::from_utf8(&body[HEADER..HEADER + text_len])
            .map_err(|_| PatternError::Text("not UTF-8".to_string()))?
            .to_string();
        let weights = body[HEADER + text_len..]
            .chunks_exact(4)
            .map(|c| {
                [
                    i16::from_le_bytes([c[0], c[1]]),
                    i16::from_le_bytes([c[2], c[3]]),
                ]
            })
            .collect();
        Ok(Patterns {
            family,
            weights,
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Bits, Board8, Board10};

    #[test]
    fn the_blocks_cover_the_board_and_pair_by_rotation() {
        fn check<G: Geometry>(tables: usize) {
            let layout = G::LAYOUT;
            assert_eq!(layout.tables, tables);
            let mut covered = 0;
            for t in 0..layout.tables {
                assert_eq!(layout.up[t].count_ones() as usize, BLOCK_SQUARES);
                assert_eq!(layout.down[t].count_ones() as usize, BLOCK_SQUARES);
                // The twin is the block turned half a turn: square s <-> SQUARES - 1 - s.
                let turned = Bits(layout.up[t])
                    .map(|bit| {
                        let square = usize::from(G::SQUARE_OF[bit as usize]);
                        1u64 << G::BIT_OF[G::SQUARES - 1 - square]
                    })
                    .fold(0, |a, b| a | b);
                assert_eq!(turned, layout.down[t]);
                covered |= layout.up[t] | layout.down[t];
            }
            assert_eq!(covered, G::BOARD);
        }
        check::<Board10>(8);
        check::<Board8>(5);
    }

    #[test]
    fn a_file_round_trips_and_damage_is_refused() {
        let mut patterns = Patterns::zero(8, "man 100\n".to_string());
        patterns.weights[17] = [5, -7];
        let bytes = patterns.to_bytes();
        assert_eq!(Patterns::from_bytes(&bytes, 8), Ok(patterns.clone()));
        assert!(matches!(
            Patterns::from_bytes(&bytes, 10),
            Err(PatternError::Family {
                found: 8,
                wanted: 10
            })
        ));
        assert!(matches!(
            Patterns::from_bytes(&bytes[..bytes.len() - 1], 8),
            Err(PatternError::Length { .. })
        ));
        let mut flipped = bytes.clone();
        flipped[40] ^= 1;
        assert_eq!(
            Patterns::from_bytes(&flipped, 8),
            Err(PatternError::Checksum)
        );
        assert_eq!(
            Patterns::from_bytes(b"man 100\n", 8),
            Err(PatternError::NotAWeightsFile)
        );
        let mut version = bytes.clone();
        version[8] = 9;
        assert_eq!(
            Patterns::from_bytes(&version, 8),
            Err(PatternError::Version(9))
        );
    }
}
