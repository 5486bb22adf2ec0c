//! Board geometry: ghost-square bitboards for 8x8 and 10x10 and the square <-> bit maps.
//!
//! The playable squares of a board live in one `u64` with one unused "ghost" bit after
//! every two rows (the layout of Scan's `bit.hpp`). With it every diagonal step is a fixed
//! shift (4 or 5 on 8x8, 5 or 6 on 10x10), and a step off the left or right edge lands on a
//! ghost bit or outside the board mask, so no edge masks are needed.
//!
//! Layout on 10x10 (bit index = square index + square index / 10, squares counted from 0):
//! ```text
//!  row 0:    0   1   2   3   4        (PDN  1..5,  columns b d f h j)
//!  row 1:  5   6   7   8   9          (PDN  6..10, columns a c e g i)
//!  ghost 10
//!  row 2:   11  12  13  14  15        (PDN 11..15)
//!  row 3: 16  17  18  19  20          ...
//! ```
//! Up-left is `>> 6`, up-right `>> 5`, down-left `<< 5`, down-right `<< 6`; on 8x8 the same
//! with 5 and 4.

/// A set of board bits (ghost layout, see the module documentation).
pub type Bitboard = u64;

/// One of the four diagonal directions, as seen by White (up = towards square 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Towards square 1 and the left edge.
    UpLeft = 0,
    /// Towards square 1 and the right edge.
    UpRight = 1,
    /// Towards the last square and the left edge.
    DownLeft = 2,
    /// Towards the last square and the right edge.
    DownRight = 3,
}

impl Dir {
    /// All four directions.
    pub const ALL: [Dir; 4] = [Dir::UpLeft, Dir::UpRight, Dir::DownLeft, Dir::DownRight];
    /// The two directions towards square 1.
    pub const UP: [Dir; 2] = [Dir::UpLeft, Dir::UpRight];
    /// The two directions towards the last square.
    pub const DOWN: [Dir; 2] = [Dir::DownLeft, Dir::DownRight];

    /// The direction with index `index` (0 to 3, in declaration order).
    #[inline(always)]
    pub const fn from_index(index: u8) -> Dir {
        match index & 3 {
            0 => Dir::UpLeft,
            1 => Dir::UpRight,
            2 => Dir::DownLeft,
            _ => Dir::DownRight,
        }
    }

    /// The opposite direction.
    #[inline(always)]
    pub const fn reverse(self) -> Dir {
        match self {
            Dir::UpLeft => Dir::DownRight,
            Dir::UpRight => Dir::DownLeft,
            Dir::DownLeft => Dir::UpRight,
            Dir::DownRight => Dir::UpLeft,
        }
    }
}

/// The shape of a board: its size and how squares map onto bits.
pub trait Geometry: Copy + Default + Send + Sync + std::fmt::Debug + 'static {
    /// Squares per side (8 or 10).
    const SIZE: usize;
    /// Playable squares (32 or 50).
    const SQUARES: usize;
    /// Playable squares in one row (4 or 5).
    const PER_ROW: usize;
    /// The shift of the up-right / down-left diagonal.
    const SHORT: u32;
    /// The shift of the up-left / down-right diagonal.
    const LONG: u32;
    /// Every playable bit.
    const BOARD: Bitboard;
    /// Bit index of each square index (0-based PDN square).
    const BIT_OF: [u8; 64];
    /// Square index of each bit (255 for ghost and off-board bits).
    const SQUARE_OF: [u8; 64];

    /// Shifts a set one step in a direction; bits leaving the board are dropped.
    #[inline(always)]
    fn step(set: Bitboard, dir: Dir) -> Bitboard {
        let moved = match dir {
            Dir::UpLeft => set >> Self::LONG,
            Dir::UpRight => set >> Self::SHORT,
            Dir::DownLeft => set << Self::SHORT,
            Dir::DownRight => set << Self::LONG,
        };
        moved & Self::BOARD
    }

    /// Bits of the first (leftmost) playable square of each row.
    const ROW_FIRST: Bitboard;
    /// Bits of the last (rightmost) playable square of each row.
    const ROW_LAST: Bitboard;

    /// Shifts a set to the next playable square along a row or column (Frisian captures):
    /// `0` up (two rows: the same column), `1` down, `2` left and `3` right (the next
    /// playable square of the row, two columns away); bits leaving the board are dropped.
    #[inline(always)]
    fn step_orthogonal(set: Bitboard, line: u8) -> Bitboard {
        let moved = match line {
            0 => set >> (Self::SHORT + Self::LONG),
            1 => set << (Self::SHORT + Self::LONG),
            // A row's first square never moves left, its last never right; every other bit
            // of the ghost layout is one index away from its neighbour in the row.
            2 => (set & !Self::ROW_FIRST) >> 1,
            _ => (set & !Self::ROW_LAST) << 1,
        };
        moved & Self::BOARD
    }

    /// Shifts a set one square along a rank or file of a board where every square is
    /// playable (Turkish): `0` up, `1` down, `2` left, `3` right; bits leaving the board are
    /// dropped. Only meaningful on [`Board64`].
    #[inline(always)]
    fn step_rook(set: Bitboard, line: u8) -> Bitboard {
        let size = Self::SIZE as u32;
        let moved = match line {
            0 => set >> size,
            1 => set << size,
            2 => (set & !Self::ROW_FIRST) >> 1,
            _ => (set & !Self::ROW_LAST) << 1,
        };
        moved & Self::BOARD
    }

    /// The bits of one row (0 = the top row, where Black men start).
    fn row_mask(row: usize) -> Bitboard {
        let mut mask = 0;
        for i in 0..Self::PER_ROW {
            mask |= 1u64 << Self::BIT_OF[row * Self::PER_ROW + i];
        }
        mask
    }

    /// Row (0 = top) and column (0 = left) of a square index, in the standard colouring
    /// where the top-left corner square is not playable.
    fn row_col(square: usize) -> (usize, usize) {
        if Self::PER_ROW == Self::SIZE {
            return (square / Self::SIZE, square % Self::SIZE);
        }
        let row = square / Self::PER_ROW;
        let index = square % Self::PER_ROW;
        let col = 2 * index + usize::from(row.is_multiple_of(2));
        (row, col)
    }
}

const fn ghost_tables<const SQUARES: usize, const PER_PAIR: usize>() -> ([u8; 64], [u8; 64]) {
    let mut bit_of = [255u8; 64];
    let mut square_of = [255u8; 64];
    let mut sq = 0;
    while sq < SQUARES {
        let bit = sq + sq / PER_PAIR;
        bit_of[sq] = bit as u8;
        square_of[bit] = sq as u8;
        sq += 1;
    }
    (bit_of, square_of)
}

/// Which playable squares a mask of [`ghost_mask`] holds.
#[derive(Clone, Copy)]
enum Squares {
    All,
    FirstOfRow,
    LastOfRow,
}

/// The bits of the playable squares `which` of a ghost-layout board.
const fn ghost_mask<const SQUARES: usize, const PER_ROW: usize, const PER_PAIR: usize>(
    which: Squares,
) -> u64 {
    let mut mask = 0u64;
    let mut sq = 0;
    while sq < SQUARES {
        let in_row = sq % PER_ROW;
        let wanted = match which {
            Squares::All => true,
            Squares::FirstOfRow => in_row == 0,
            Squares::LastOfRow => in_row == PER_ROW - 1,
        };
        if wanted {
            mask |= 1u64 << (sq + sq / PER_PAIR);
        }
        sq += 1;
    }
    mask
}

/// The [`Geometry`] of a board in the ghost layout with `$size` squares a side: half of
/// them playable, `$size / 2` a row, one ghost bit after every two rows, so a diagonal step
/// is a shift by half a row (`SHORT`) or one more (`LONG`).
macro_rules! ghost_geometry {
    ($board:ident, $size:literal) => {
        impl Geometry for $board {
            const SIZE: usize = $size;
            const SQUARES: usize = $size * $size / 2;
            const PER_ROW: usize = $size / 2;
            const SHORT: u32 = $size / 2;
            const LONG: u32 = $size / 2 + 1;
            const BOARD: Bitboard =
                ghost_mask::<{ $size * $size / 2 }, { $size / 2 }, $size>(Squares::All);
            const ROW_FIRST: Bitboard =
                ghost_mask::<{ $size * $size / 2 }, { $size / 2 }, $size>(Squares::FirstOfRow);
            const ROW_LAST: Bitboard =
                ghost_mask::<{ $size * $size / 2 }, { $size / 2 }, $size>(Squares::LastOfRow);
            const BIT_OF: [u8; 64] = ghost_tables::<{ $size * $size / 2 }, $size>().0;
            const SQUARE_OF: [u8; 64] = ghost_tables::<{ $size * $size / 2 }, $size>().1;
        }
    };
}

/// The 8x8 board: 32 squares in 35 bits, ghosts at bits 8, 17 and 26.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Board8;

ghost_geometry!(Board8, 8);

/// The 10x10 board: 50 squares in 54 bits, ghosts at bits 10, 21, 32 and 43.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Board10;

ghost_geometry!(Board10, 10);

/// The full 8x8 board of Turkish draughts: all 64 squares playable, bit = square index
/// (a8 = 0, h8 = 7, a1 = 56), no ghost bits. Its `SHORT`/`LONG` diagonal shifts wrap around
/// the edges and are never used: Turkish moves along ranks and files only
/// ([`Geometry::step_rook`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Board64;

const fn identity_table() -> [u8; 64] {
    let mut table = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        table[i] = i as u8;
        i += 1;
    }
    table
}

impl Geometry for Board64 {
    const SIZE: usize = 8;
    const SQUARES: usize = 64;
    const PER_ROW: usize = 8;
    const SHORT: u32 = 7;
    const LONG: u32 = 9;
    const BOARD: Bitboard = u64::MAX;
    const BIT_OF: [u8; 64] = identity_table();
    const SQUARE_OF: [u8; 64] = identity_table();
    const ROW_FIRST: Bitboard = 0x0101_0101_0101_0101;
    const ROW_LAST: Bitboard = 0x8080_8080_8080_8080;
}

/// Iterates over the bit indices of a set, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Bits(pub Bitboard);

impl Iterator for Bits {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            let bit = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(bit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Neighbours computed from row and column must equal the shift steps.
    fn check_steps<G: Geometry>() {
        for sq in 0..G::SQUARES {
            let (row, col) = G::row_col(sq);
            let bit = 1u64 << G::BIT_OF[sq];
            for dir in Dir::ALL {
                let (dr, dc): (isize, isize) = match dir {
                    Dir::UpLeft => (-1, -1),
                    Dir::UpRight => (-1, 1),
                    Dir::DownLeft => (1, -1),
                    Dir::DownRight => (1, 1),
                };
                let (r, c) = (row as isize + dr, col as isize + dc);
                let expected = if r < 0 || c < 0 || r >= G::SIZE as isize || c >= G::SIZE as isize {
                    0
                } else {
                    let target = (0..G::SQUARES)
                        .find(|&s| G::row_col(s) == (r as usize, c as usize))
                        .expect("a diagonal neighbour is a playable square");
                    1u64 << G::BIT_OF[target]
                };
                assert_eq!(G::step(bit, dir), expected, "square {} {:?}", sq + 1, dir);
            }
        }
    }

    /// Orthogonal steps computed from row and column must equal the shift steps.
    fn check_orthogonal_steps<G: Geometry>() {
        for sq in 0..G::SQUARES {
            let (row, col) = G::row_col(sq);
            let bit = 1u64 << G::BIT_OF[sq];
            for (line, (dr, dc)) in [(-2isize, 0isize), (2, 0), (0, -2), (0, 2)]
                .into_iter()
                .enumerate()
            {
                let (r, c) = (row as isize + dr, col as isize + dc);
                let expected = (0..G::SQUARES)
                    .find(|&s| {
                        let (sr, sc) = G::row_col(s);
                        (sr as isize, sc as isize) == (r, c)
                    })
                    .map_or(0, |target| 1u64 << G::BIT_OF[target]);
                assert_eq!(
                    G::step_orthogonal(bit, line as u8),
                    expected,
                    "square {} line {line}",
                    sq + 1
                );
            }
        }
    }

    #[test]
    fn rook_steps_on_the_full_board() {
        for sq in 0..64usize {
            let (row, col) = Board64::row_col(sq);
            assert_eq!((row, col), (sq / 8, sq % 8));
            for (line, (dr, dc)) in [(-1isize, 0isize), (1, 0), (0, -1), (0, 1)]
                .into_iter()
                .enumerate()
            {
                let (r, c) = (row as isize + dr, col as isize + dc);
                let expected = if (0..8).contains(&r) && (0..8).contains(&c) {
                    1u64 << (r * 8 + c)
                } else {
                    0
                };
                assert_eq!(Board64::step_rook(1u64 << sq, line as u8), expected);
            }
        }
    }

    crate::generic_tests! {
        orthogonal_steps_match_row_and_column:
            check_orthogonal_steps::<Board8>(), check_orthogonal_steps::<Board10>();
        steps_match_row_and_column_8x8: check_steps::<Board8>();
        steps_match_row_and_column_10x10: check_steps::<Board10>();
    }
}
