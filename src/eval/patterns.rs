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
//! # King tables
//!
//! The men tables do not see kings, and English games are decided in long king endings.
//! A file may therefore carry a second set of tables over the same blocks that read each
//! square in base 5 (empty / own man / enemy man / own king / enemy king: 5^8 = 390,625
//! arrangements a table). The idea of patterns that tell kings from men is Cake's (Martin
//! Fierz, Cake 1.89's evaluation has 5-state "king patterns"); the design here is damka's:
//! the king tables are added to the men tables only while a king is on the board, so a
//! position without kings scores and costs exactly what it did, and a king table's weight
//! is what the arrangement is worth beyond its men-table weight (the fit pulls it to zero
//! where the data say nothing, so a rare arrangement falls back to the men table).
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
//! Version 2 is the same with the king tables after the men tables, before the checksum:
//!
//! | bytes | content |
//! |---|---|
//! | 4 x tables x 6561 | the men tables, as in version 1 |
//! | 4 x tables x 390625 | per king table and base-5 arrangement: opening and endgame weight, i16 each, in 1/16 centi-man |
//!
//! Version 3 stores the king tables sparsely: a fit leaves most king weights at zero (about
//! 43,000 of the 1,953,125 of the English fit are not), so the file lists only the others,
//! 8 bytes each instead of 7.8 MB of mostly zeros, and loads in about a millisecond:
//!
//! | bytes | content |
//! |---|---|
//! | 4 x tables x 6561 | the men tables, as in version 1 |
//! | 4 | `n`, the number of king weights that are not zero |
//! | 8 x n | per such weight, in increasing index order: the index `t * 390625 + i` (u32), then the opening and endgame weight (i16 each) |
//!
//! A file without king tables is written as version 1, so the files of every other variant
//! stay as they were; one with king tables as version 3, or as version 2 where that is
//! smaller (more than half the king weights not zero). A file with another magic, version or
//! family, a wrong length, a king index out of order or out of range, or a checksum that does
//! not match is refused with the reason ([`PatternError`]).

use crate::board::{Bitboard, Geometry};

/// Playable squares in one block (four rows of two).
pub const BLOCK_SQUARES: usize = 8;
/// Arrangements of one block: 3 states a square.
pub const BLOCK_STATES: usize = 6561;
/// Pattern weights are stored in this fraction of a centi-man.
pub const PATTERN_UNIT: i32 = 16;
/// Most tables of any board (10x10).
pub const MAX_TABLES: usize = 8;
/// Arrangements of one king table: 5 states a square (see "King tables" above).
pub const KING_STATES: usize = 390_625;

const MAGIC: &[u8; 8] = b"DAMKAEVL";
/// The version of a file with men tables only.
const VERSION: u16 = 1;
/// The version of a file with dense king tables.
const KING_VERSION: u16 = 2;
/// The version of a file with sparse king tables.
const SPARSE_KING_VERSION: u16 = 3;

/// The base-3 value of an 8-bit extract, its bit `i` the digit of weight 3^i.
const FORWARD_TRITS: [u32; 256] = digits(3, false);
/// The same with the digit order reversed: bit `i` is the digit of weight 3^(7 - i).
const REVERSED_TRITS: [u32; 256] = digits(3, true);
/// The base-5 value of an 8-bit extract (the king tables), its bit `i` the digit of weight
/// 5^i.
const FORWARD_QUINTS: [u32; 256] = digits(5, false);
/// The same with the digit order reversed: bit `i` is the digit of weight 5^(7 - i).
const REVERSED_QUINTS: [u32; 256] = digits(5, true);

/// For each 8-bit number, the number whose base-`base` digits are its bits (in reverse
/// order with `reversed`).
const fn digits(base: u32, reversed: bool) -> [u32; 256] {
    let mut out = [0u32; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut value = 0u32;
        let mut i = 0;
        while i < BLOCK_SQUARES {
            if bits & (1 << i) != 0 {
                let digit = if reversed { BLOCK_SQUARES - 1 - i } else { i };
                value += base.pow(digit as u32);
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
        // may run on has them. It reads no memory. docs/journal.md ("Pattern evaluation")
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
        // At most 3^8 - 1 = 6560: fits.
        up[t] = (own + 2 * enemy) as u16;
        // Half a turn reverses the bit order, so the twin's digits come out reversed.
        let own = REVERSED_TRITS[extract(down_men, layout.down[t])];
        let enemy = REVERSED_TRITS[extract(up_men, layout.down[t])];
        down[t] = (own + 2 * enemy) as u16;
    }
    (up, down)
}

/// The base-5 arrangement index of each king table's block for both sides, as [`indices`]
/// gives the base-3 one: digit 1 own man, 2 enemy man, 3 own king, 4 enemy king.
#[inline(always)]
pub fn king_indices<G: Geometry>(
    up_men: Bitboard,
    down_men: Bitboard,
    up_kings: Bitboard,
    down_kings: Bitboard,
) -> ([u32; MAX_TABLES], [u32; MAX_TABLES]) {
    let layout = G::LAYOUT;
    let mut up = [0u32; MAX_TABLES];
    let mut down = [0u32; MAX_TABLES];
    let read = |quints: &[u32; 256], mask, own_men, enemy_men, own_kings, enemy_kings| {
        quints[extract(own_men, mask)]
            + 2 * quints[extract(enemy_men, mask)]
            + 3 * quints[extract(own_kings, mask)]
            + 4 * quints[extract(enemy_kings, mask)]
    };
    for t in 0..layout.tables {
        up[t] = read(
            &FORWARD_QUINTS,
            layout.up[t],
            up_men,
            down_men,
            up_kings,
            down_kings,
        );
        // Half a turn reverses the bit order, as in `indices`.
        down[t] = read(
            &REVERSED_QUINTS,
            layout.down[t],
            down_men,
            up_men,
            down_kings,
            up_kings,
        );
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
                "weights file version {v}; this build reads versions {VERSION} to {SPARSE_KING_VERSION}"
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
    /// The king tables (see "King tables" in the module documentation): opening and endgame
    /// weight of base-5 arrangement `i` of table `t` at `t * 390625 + i`, in 1/16 centi-man;
    /// empty in a file without them.
    pub kings: Vec<[i16; 2]>,
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
            kings: Vec::new(),
            text,
        }
    }

    /// The same tables with all-zero king tables added (none where there were some already).
    pub fn with_king_tables(mut self) -> Patterns {
        if self.kings.is_empty() {
            let tables = self.weights.len() / BLOCK_STATES;
            self.kings = vec![[0, 0]; tables * KING_STATES];
        }
        self
    }

    /// The opening and endgame sums of the king tables (nothing when the file has none or
    /// no king is on the board), from the side moving up's point of view, in 1/16 centi-man.
    #[inline(always)]
    pub fn king_score<G: Geometry>(
        &self,
        up_men: Bitboard,
        down_men: Bitboard,
        up_kings: Bitboard,
        down_kings: Bitboard,
    ) -> (i32, i32) {
        let tables = G::LAYOUT.tables;
        if self.kings.is_empty() || (up_kings | down_kings) == 0 {
            return (0, 0);
        }
        let (up, down) = king_indices::<G>(up_men, down_men, up_kings, down_kings);
        let weights = &self.kings[..tables * KING_STATES];
        let (mut opening, mut endgame) = (0, 0);
        for t in 0..tables {
            let base = t * KING_STATES;
            let gain = weights[base + up[t] as usize];
            let loss = weights[base + down[t] as usize];
            opening += i32::from(gain[0]) - i32::from(loss[0]);
            endgame += i32::from(gain[1]) - i32::from(loss[1]);
        }
        (opening, endgame)
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
        let sparse: Vec<(usize, [i16; 2])> = self
            .kings
            .iter()
            .enumerate()
            .filter(|(_, pair)| **pair != [0, 0])
            .map(|(index, pair)| (index, *pair))
            .collect();
        let version = if self.kings.is_empty() {
            VERSION
        } else if 2 * sparse.len() > self.kings.len() {
            KING_VERSION
        } else {
            SPARSE_KING_VERSION
        };
        let kings_len = match version {
            KING_VERSION => 4 * self.kings.len(),
            SPARSE_KING_VERSION => 4 + 8 * sparse.len(),
            _ => 0,
        };
        let mut out = Vec::with_capacity(32 + self.text.len() + 4 * self.weights.len() + kings_len);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&self.family.to_le_bytes());
        out.extend_from_slice(&((self.weights.len() / BLOCK_STATES) as u16).to_le_bytes());
        out.extend_from_slice(&(BLOCK_SQUARES as u16).to_le_bytes());
        out.extend_from_slice(&(self.text.len() as u32).to_le_bytes());
        out.extend_from_slice(self.text.as_bytes());
        let dense: &[[i16; 2]] = if version == KING_VERSION {
            &self.kings
        } else {
            &[]
        };
        for pair in self.weights.iter().chain(dense) {
            out.extend_from_slice(&pair[0].to_le_bytes());
            out.extend_from_slice(&pair[1].to_le_bytes());
        }
        if version == SPARSE_KING_VERSION {
            out.extend_from_slice(&(sparse.len() as u32).to_le_bytes());
            for (index, pair) in sparse {
                out.extend_from_slice(&(index as u32).to_le_bytes());
                out.extend_from_slice(&pair[0].to_le_bytes());
                out.extend_from_slice(&pair[1].to_le_bytes());
            }
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
        if !(VERSION..=SPARSE_KING_VERSION).contains(&version) {
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
        let men_end = HEADER + text_len + 4 * tables * BLOCK_STATES;
        let u32_at = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let expected = match version {
            KING_VERSION => men_end + 4 * tables * KING_STATES + 8,
            SPARSE_KING_VERSION => match u32_at(men_end) {
                Some(count) => men_end + 4 + 8 * count + 8,
                None => men_end + 4 + 8,
            },
            _ => men_end + 8,
        };
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
        let pair_at = |c: &[u8]| {
            [
                i16::from_le_bytes([c[0], c[1]]),
                i16::from_le_bytes([c[2], c[3]]),
            ]
        };
        let weights: Vec<[i16; 2]> = body[HEADER + text_len..men_end]
            .chunks_exact(4)
            .map(pair_at)
            .collect();
        let kings = match version {
            KING_VERSION => body[men_end..].chunks_exact(4).map(pair_at).collect(),
            SPARSE_KING_VERSION => {
                // Zeroed memory costs nothing until a page is written (`vec!` of zeros
                // allocates it zeroed), so only the pages of listed weights are touched.
                let mut kings = vec![[0i16, 0]; tables * KING_STATES];
                let mut next = 0;
                for entry in body[men_end + 4..].chunks_exact(8) {
                    let index =
                        u32::from_le_bytes([entry[0], entry[1], entry[2], entry[3]]) as usize;
                    if index < next || index >= kings.len() {
                        return Err(PatternError::Shape(format!(
                            "king weight index {index} out of order or past {}",
                            kings.len()
                        )));
                    }
                    kings[index] = pair_at(&entry[4..]);
                    next = index + 1;
                }
                kings
            }
            _ => Vec::new(),
        };
        Ok(Patterns {
            family,
            weights,
            kings,
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
        // Without king tables the file stays version 1, as every file before them.
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 1);
    }

    #[test]
    fn a_file_with_king_tables_round_trips_and_damage_is_refused() {
        let mut patterns = Patterns::zero(8, "man 100\n".to_string()).with_king_tables();
        patterns.weights[17] = [5, -7];
        patterns.kings[3] = [0, 1];
        patterns.kings[4 * KING_STATES + 390_000] = [-300, 12];
        let bytes = patterns.to_bytes();
        // Two king weights are not zero: the sparse form, 8 bytes each after their count.
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 3);
        let men_end = 20 + 8 + 4 * 5 * BLOCK_STATES;
        assert_eq!(bytes.len(), men_end + 4 + 2 * 8 + 8);
        assert_eq!(bytes[men_end..men_end + 4], 2u32.to_le_bytes());
        assert_eq!(Patterns::from_bytes(&bytes, 8), Ok(patterns.clone()));
        // A version-3 header over a version-1 body (no count of king weights) is refused.
        let mut plain = Patterns::zero(8, "man 100\n".to_string()).to_bytes();
        plain[8] = 3;
        assert!(matches!(
            Patterns::from_bytes(&plain, 8),
            Err(PatternError::Length { .. })
        ));
        plain[8] = 2;
        assert!(matches!(
            Patterns::from_bytes(&plain, 8),
            Err(PatternError::Length { .. })
        ));
        let mut flipped = bytes.clone();
        flipped[bytes.len() - 12] ^= 4;
        assert_eq!(
            Patterns::from_bytes(&flipped, 8),
            Err(PatternError::Checksum)
        );
        assert!(matches!(
            Patterns::from_bytes(&bytes[..bytes.len() - 4], 8),
            Err(PatternError::Length { .. })
        ));
        // Indices out of order or past the tables are refused even with a good checksum.
        let with_checksum = |mut body: Vec<u8>| {
            body.truncate(body.len() - 8);
            let checksum = fnv1a64(&body);
            body.extend_from_slice(&checksum.to_le_bytes());
            body
        };
        let mut swapped = bytes.clone();
        let (first, second) = (men_end + 4, men_end + 12);
        let entry: Vec<u8> = swapped[first..first + 8].to_vec();
        swapped.copy_within(second..second + 8, first);
        swapped[second..second + 8].copy_from_slice(&entry);
        assert!(matches!(
            Patterns::from_bytes(&with_checksum(swapped), 8),
            Err(PatternError::Shape(_))
        ));
        let mut past = bytes.clone();
        past[men_end + 12..men_end + 16].copy_from_slice(&(5 * KING_STATES as u32).to_le_bytes());
        assert!(matches!(
            Patterns::from_bytes(&with_checksum(past), 8),
            Err(PatternError::Shape(_))
        ));

        // With more than half the king weights set, the dense form (version 2) is smaller.
        let mut dense = patterns.clone();
        dense
            .kings
            .iter_mut()
            .step_by(2)
            .for_each(|pair| *pair = [1, -1]);
        let bytes = dense.to_bytes();
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 2);
        assert_eq!(bytes.len(), men_end + 4 * 5 * KING_STATES + 8);
        assert_eq!(Patterns::from_bytes(&bytes, 8), Ok(dense));
    }

    /// The base-5 index reads every square of a block in its own digit, and the side moving
    /// down reads the twin block turned half a turn with the colours swapped.
    #[test]
    fn king_indices_read_both_sides_alike() {
        type G = Board8;
        let layout = G::LAYOUT;
        let turn = |set: Bitboard| {
            Bits(set)
                .map(|bit| {
                    let square = usize::from(G::SQUARE_OF[bit as usize]);
                    1u64 << G::BIT_OF[G::SQUARES - 1 - square]
                })
                .fold(0, |a, b| a | b)
        };
        let mut seen = vec![false; KING_STATES];
        let mut rng = crate::random::SplitMix(9);
        for _ in 0..20_000 {
            let mut sets = [0u64; 4];
            for bit in Bits(layout.up[0]) {
                let state = rng.below(5);
                if state > 0 {
                    sets[state - 1] |= 1 << bit;
                }
            }
            let (up, _) = king_indices::<G>(sets[0], sets[1], sets[2], sets[3]);
            seen[up[0] as usize] = true;
            // The same block seen from the other side of the board.
            let (_, down) =
                king_indices::<G>(turn(sets[1]), turn(sets[0]), turn(sets[3]), turn(sets[2]));
            assert_eq!(down[0], up[0]);
        }
        assert!(seen.iter().filter(|&&s| s).count() > 19_000 * 9 / 10);
    }
}
