//! A position of one variant: the pieces, the side to move, its Zobrist hash, and making moves.

use crate::board::{Bitboard, Bits, Geometry};
use crate::rules::{Color, Goal, Rules};
use std::marker::PhantomData;

/// One legal move: a whole step or a whole capture sequence.
///
/// Squares are bit indices of the board's ghost layout (see [`crate::board`]); notation
/// converts them. Two capture routes with the same `from`, `to` and `captured` set are the
/// same move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Move {
    /// Bit of the moving piece.
    pub from: u8,
    /// Bit where it ends (equal to `from` for a capture that comes back to its start).
    pub to: u8,
    /// The moving man is crowned by this move.
    pub promotes: bool,
    /// The captured pieces (empty for a step).
    pub captured: Bitboard,
}

impl Move {
    /// True for a capture.
    #[inline(always)]
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// How many pieces it captures.
    #[inline(always)]
    pub fn capture_count(&self) -> u32 {
        self.captured.count_ones()
    }
}

/// A side's run of non-capturing moves with one king, for the limit some variants put on it
/// (Frisian: [`Rules::KING_MOVE_LIMIT`]). Always empty in the other variants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KingRun {
    /// Where the king that made the run stands.
    pub bit: u8,
    /// Its non-capturing moves in a row (capped at the limit; 0 = no run).
    pub moves: u8,
}

/// Zobrist keys: one per (colour, man/king, bit), and one for Black to move.
/// Made at compile time by SplitMix64 (Steele, Lea, Flood 2014) from a fixed seed, so hashes
/// are the same in every build and run.
pub(crate) mod zobrist {
    use crate::random::split_mix;

    const fn make() -> ([[u64; 64]; 4], u64) {
        let mut keys = [[0u64; 64]; 4];
        let mut state = 0x6461_6D6B_6121_u64; // "damka!"
        let mut kind = 0;
        while kind < 4 {
            let mut bit = 0;
            while bit < 64 {
                let (s, k) = split_mix(state);
                state = s;
                keys[kind][bit] = k;
                bit += 1;
            }
            kind += 1;
        }
        let (_, side) = split_mix(state);
        (keys, side)
    }

    const TABLES: ([[u64; 64]; 4], u64) = make();
    /// Index: colour * 2 + (1 for a king).
    pub const PIECE: [[u64; 64]; 4] = TABLES.0;
    /// XORed in when Black is to move.
    pub const BLACK_TO_MOVE: u64 = TABLES.1;
}

/// A position: who stands where and who moves. Immutable value; [`Position::play`] returns
/// the successor.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position<R: Rules> {
    pieces: [Bitboard; 2],
    kings: Bitboard,
    side: Color,
    /// Each side's king run (see [`KingRun`]); part of the hash, as it changes the moves.
    runs: [KingRun; 2],
    hash: u64,
    rules: PhantomData<R>,
}

impl<R: Rules> Default for Position<R> {
    fn default() -> Self {
        Self::start()
    }
}

impl<R: Rules> Position<R> {
    /// The variant's start position.
    pub fn start() -> Self {
        let rows = R::START_ROWS;
        let last = <R::Geometry as Geometry>::SIZE;
        let mut top = 0;
        let mut bottom = 0;
        for row in R::START_GAP..R::START_GAP + rows {
            top |= R::Geometry::row_mask(row);
            bottom |= R::Geometry::row_mask(last - 1 - row);
        }
        let (white, black) = if R::WHITE_MOVES_UP {
            (bottom, top)
        } else {
            (top, bottom)
        };
        Self::from_parts(white, black, 0, R::FIRST_TO_MOVE)
    }

    /// A position from its parts; the caller guarantees the sets are disjoint subsets of the
    /// board and `kings` lies within them (the FEN reader validates user input).
    pub fn from_parts(white: Bitboard, black: Bitboard, kings: Bitboard, side: Color) -> Self {
        debug_assert_eq!(white & black, 0);
        debug_assert_eq!((white | black) & !R::Geometry::BOARD, 0);
        debug_assert_eq!(kings & !(white | black), 0);
        let mut position = Position {
            pieces: [white, black],
            kings,
            side,
            runs: [KingRun::default(); 2],
            hash: 0,
            rules: PhantomData,
        };
        position.hash = position.compute_hash();
        position
    }

    /// The pieces of one side.
    #[inline(always)]
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.pieces[color.index()]
    }

    /// All kings of both sides.
    #[inline(always)]
    pub fn kings(&self) -> Bitboard {
        self.kings
    }

    /// The men of one side.
    #[inline(always)]
    pub fn men(&self, color: Color) -> Bitboard {
        self.pieces[color.index()] & !self.kings
    }

    /// The kings of one side.
    #[inline(always)]
    pub fn kings_of(&self, color: Color) -> Bitboard {
        self.pieces[color.index()] & self.kings
    }

    /// Every occupied bit.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.pieces[0] | self.pieces[1]
    }

    /// Every empty playable bit.
    #[inline(always)]
    pub fn empty(&self) -> Bitboard {
        R::Geometry::BOARD & !self.occupied()
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The winner when the game is over whatever the legal moves are: in breakthrough the
    /// side that has a king (the side that has just moved, when a set-up position gives
    /// both sides kings). `None` in every other variant.
    #[inline(always)]
    pub fn decided_winner(&self) -> Option<Color> {
        if R::GOAL != Goal::FirstKing || self.kings == 0 {
            return None;
        }
        let last_mover = self.side.opponent();
        if self.kings_of(last_mover) != 0 {
            Some(last_mover)
        } else {
            Some(self.side)
        }
    }

    /// The winner when the side to move has no legal move: its opponent, except in
    /// antidraughts, where the side that cannot move wins.
    #[inline(always)]
    pub fn winner_when_stuck(&self) -> Color {
        if R::GOAL == Goal::Reversed {
            self.side
        } else {
            self.side.opponent()
        }
    }

    /// The Zobrist hash, kept up to date incrementally.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash computed from scratch (for tests of the incremental update).
    pub fn compute_hash(&self) -> u64 {
        let mut hash = 0;
        for color in [Color::White, Color::Black] {
            for bit in Bits(self.pieces(color)) {
                hash ^= Self::piece_key(color, self.kings & (1 << bit) != 0, bit);
            }
        }
        if self.side == Color::Black {
            hash ^= zobrist::BLACK_TO_MOVE;
        }
        for color in [Color::White, Color::Black] {
            hash ^= Self::run_key(color, self.runs[color.index()]);
        }
        hash
    }

    /// The hash key of a side's king run: a king key of its square, turned by the number
    /// of moves (0 for no run, so the variants without the limit never see one).
    #[inline(always)]
    fn run_key(color: Color, run: KingRun) -> u64 {
        if run.moves == 0 {
            0
        } else {
            Self::piece_key(color, true, u32::from(run.bit)).rotate_left(17 * u32::from(run.moves))
        }
    }

    /// A side's run of non-capturing moves with one king (Frisian's limit).
    #[inline(always)]
    pub fn king_run(&self, color: Color) -> KingRun {
        self.runs[color.index()]
    }

    /// The king of the side to move that may not make a non-capturing move now (it made
    /// [`Rules::KING_MOVE_LIMIT`] of them in a row and its side still has men), as a set of
    /// at most one bit; always empty in variants without the limit.
    #[inline(always)]
    pub fn king_steps_barred(&self) -> Bitboard {
        if R::KING_MOVE_LIMIT == 0 {
            return 0;
        }
        let run = self.runs[self.side.index()];
        if run.moves >= R::KING_MOVE_LIMIT && self.men(self.side) != 0 {
            (1u64 << run.bit) & self.kings_of(self.side)
        } else {
            0
        }
    }

    #[inline(always)]
    fn piece_key(color: Color, king: bool, bit: u32) -> u64 {
        zobrist::PIECE[color.index() * 2 + usize::from(king)][bit as usize]
    }

    /// True when `color`'s men move towards square 1.
    #[inline(always)]
    pub fn moves_up(color: Color) -> bool {
        (color == Color::White) == R::WHITE_MOVES_UP
    }

    /// The row where `color`'s men are crowned.
    #[inline(always)]
    pub fn promotion_row(color: Color) -> Bitboard {
        if Self::moves_up(color) {
            R::Geometry::row_mask(0)
        } else {
            R::Geometry::row_mask(R::Geometry::SIZE - 1)
        }
    }

    /// True when `mv` leaves a position that could come back: a king move that captures
    /// nothing. Repetitions and the no-progress count run over such moves only (the one
    /// statement of the rule, for the game record and the search alike).
    #[inline]
    pub fn is_reversible(&self, mv: &Move) -> bool {
        !mv.is_capture() && self.kings() & (1u64 << mv.from) != 0
    }

    /// The successor after a move that must be legal in this position (from
    /// [`Position::legal_moves`] or a parsed move text). Updates the hash incrementally.
    #[inline]
    pub fn play(&self, mv: &Move) -> Self {
        self.play_hashing::<true>(mv)
    }

    /// The successor without updating the hash (which is left stale): for perft, whose
    /// positions are never looked up.
    #[inline]
    pub(crate) fn play_unhashed(&self, mv: &Move) -> Self {
        self.play_hashing::<false>(mv)
    }

    #[inline(always)]
    fn play_hashing<const HASH: bool>(&self, mv: &Move) -> Self {
        let us = self.side.index();
        let them = 1 - us;
        let from = 1u64 << mv.from;
        let to = 1u64 << mv.to;
        let was_king = self.kings & from != 0;
        let mut next = *self;
        let mut hash = self.hash ^ zobrist::BLACK_TO_MOVE;
        // From and to may be the same bit (a circular capture): remove first, then place.
        next.pieces[us] &= !from;
        next.kings &= !from;
        if HASH {
            hash ^= Self::piece_key(self.side, was_king, mv.from as u32);
        }
        // The captured pieces go before the mover is placed: in Turkish a jumped piece
        // leaves the board at once, so a king may end its capture on the square of a piece
        // it took, and clearing the captured squares' king marks afterwards would turn the
        // king that landed there into a man (`kings` is shared by both sides).
        if mv.captured != 0 {
            if HASH {
                let opponent = self.side.opponent();
                for bit in Bits(mv.captured & !self.kings) {
                    hash ^= Self::piece_key(opponent, false, bit);
                }
                for bit in Bits(mv.captured & self.kings) {
                    hash ^= Self::piece_key(opponent, true, bit);
                }
            }
            next.pieces[them] &= !mv.captured;
            next.kings &= !mv.captured;
        }
        let is_king = was_king || mv.promotes;
        next.pieces[us] |= to;
        if is_king {
            next.kings |= to;
        }
        if HASH {
            hash ^= Self::piece_key(self.side, is_king, mv.to as u32);
        }
        if R::KING_MOVE_LIMIT > 0 {
            // A king's non-capturing move extends its run (or starts one, if another king
            // made the last run); any other move ends the side's run. The limit only holds
            // while the side has men, so a side without men keeps no run (repetitions of
            // kings-only endings then compare equal). A captured king's run ends with it.
            let old = self.runs[us];
            let new = if was_king && mv.captured == 0 && next.men(self.side) != 0 {
                let moves = if old.moves > 0 && old.bit == mv.from {
                    old.moves + 1
                } else {
                    1
                };
                KingRun {
                    bit: mv.to,
                    moves: moves.min(R::KING_MOVE_LIMIT),
                }
            } else {
                KingRun::default()
            };
            next.runs[us] = new;
            let theirs = self.runs[them];
            let theirs_new = if theirs.moves > 0
                && (mv.captured & (1u64 << theirs.bit) != 0 || next.men(self.side.opponent()) == 0)
            {
                KingRun::default()
            } else {
                theirs
            };
            next.runs[them] = theirs_new;
            if HASH {
                hash ^= Self::run_key(self.side, old) ^ Self::run_key(self.side, new);
                let opponent = self.side.opponent();
                hash ^= Self::run_key(opponent, theirs) ^ Self::run_key(opponent, theirs_new);
            }
        }
        next.side = self.side.opponent();
        next.hash = hash;
        next
    }

    /// The same pieces with the other side to move (for null-move style probes and tests).
    pub fn with_side_to_move(&self, side: Color) -> Self {
        let mut position = Self::from_parts(self.pieces[0], self.pieces[1], self.kings, side);
        position.runs = self.runs;
        position.hash = position.compute_hash();
        position
    }

    /// The same position with the piece on `bit` (a man or a king of either side) taken off,
    /// as a new position (no king-move runs): the evaluation's tests and the tuner's material
    /// prior compare the two.
    pub fn without_piece(&self, bit: u32) -> Self {
        let keep = !(1u64 << bit);
        Self::from_parts(
            self.pieces[0] & keep,
            self.pieces[1] & keep,
            self.kings & keep,
            self.side,
        )
    }
}
