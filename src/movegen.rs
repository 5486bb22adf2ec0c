//! Legal move generation for every variant: steps, capture sequences, precedence, and counts.
//!
//! Captures are found by a depth-first search over jumps. A jumped piece stays on the board
//! until the move ends (it blocks, and cannot be jumped twice: the Turkish strike, FMJD art.
//! 4.11) while the squares the capturing piece crossed stay free, and the moving piece's own
//! start square counts as empty (a capture may come back to it). Precedence rules give each
//! complete route a key; [`MoveList`] keeps only the routes with the highest key and folds
//! routes with the same start, end and captured set into one move.

use crate::board::{Bitboard, Bits, Dir, Geometry};
use crate::position::{Move, Position};
use crate::rules::{MidCapturePromotion, Precedence, Rules};
use std::marker::PhantomData;

/// The longest capture route we can meet (20 pieces on 10x10) plus room.
const MAX_ROUTE: usize = 32;

/// Receives every complete capture route found by the generator.
pub trait RouteSink {
    /// A complete route: the move it makes, its precedence key (higher must be preferred) and
    /// its path.
    fn route(&mut self, mv: Move, key: u32, path: RoutePath<'_>);

    /// Whether the sink reads the routes' paths. One that does not (it lists or counts
    /// moves) spares the search recording every jump; its paths are then empty.
    const READS_PATH: bool = true;
}

/// The path of one capture route.
#[derive(Clone, Copy, Debug)]
pub struct RoutePath<'a> {
    /// The bits the piece lands on after each jump, in order.
    pub landings: &'a [u8],
    /// The bits of the pieces it jumps, in order.
    pub taken: &'a [u8],
}

/// Where a capture route's precedence key stands against the best key met so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rank {
    /// Lower: the route is not legal.
    Below,
    /// The same: the route joins the ones kept.
    Equal,
    /// Higher: every route kept so far is no longer legal.
    Above,
}

/// The highest precedence key met so far. The one place of the precedence rule for every
/// sink that keeps routes: a route below the best is dropped, one above it drops the rest.
#[derive(Clone, Copy, Debug, Default)]
struct BestKey(u32);

impl BestKey {
    /// Ranks `key` and raises the best to it when it is higher.
    #[inline(always)]
    fn rank(&mut self, key: u32) -> Rank {
        if key < self.0 {
            Rank::Below
        } else if key > self.0 {
            self.0 = key;
            Rank::Above
        } else {
            Rank::Equal
        }
    }
}

/// A list of legal moves. Keeps only the captures of the highest precedence and never holds
/// the same (from, to, captured set) twice.
#[derive(Clone, Debug, Default)]
pub struct MoveList {
    moves: Vec<Move>,
    best: BestKey,
}

impl MoveList {
    /// An empty list.
    pub fn new() -> Self {
        MoveList {
            moves: Vec::with_capacity(64),
            best: BestKey::default(),
        }
    }

    /// Empties the list, keeping its memory.
    #[inline]
    pub fn clear(&mut self) {
        self.moves.clear();
        self.best = BestKey::default();
    }

    /// The number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// True when there is no move.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The moves.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.moves.iter()
    }

    /// Appends a move that is not a capture.
    #[inline(always)]
    pub fn push_step(&mut self, mv: Move) {
        self.moves.push(mv);
    }
}

impl RouteSink for MoveList {
    const READS_PATH: bool = false;

    #[inline]
    fn route(&mut self, mv: Move, key: u32, _path: RoutePath<'_>) {
        match self.best.rank(key) {
            Rank::Below => return,
            Rank::Above => self.moves.clear(),
            Rank::Equal => {}
        }
        // Two routes can only make the same move when they take at least two pieces.
        if mv.captured.count_ones() >= 2
            && self
                .moves
                .iter()
                .any(|m| m.captured == mv.captured && m.from == mv.from && m.to == mv.to)
        {
            return;
        }
        self.moves.push(mv);
    }
}

/// Counts legal captures without listing them: only routes that could repeat an earlier
/// move (two or more pieces taken) go through the list's duplicate check.
struct CaptureCounter<'a> {
    count: u64,
    may_repeat: &'a mut MoveList,
}

impl RouteSink for CaptureCounter<'_> {
    const READS_PATH: bool = false;

    #[inline]
    fn route(&mut self, mv: Move, key: u32, path: RoutePath<'_>) {
        let list = &mut *self.may_repeat;
        match list.best.rank(key) {
            Rank::Below => return,
            Rank::Above => {
                self.count = 0;
                list.moves.clear();
            }
            Rank::Equal => {}
        }
        if mv.captured.count_ones() >= 2 {
            let before = list.len();
            list.route(mv, key, path);
            self.count += (list.len() > before) as u64;
        } else {
            self.count += 1;
        }
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.moves.iter()
    }
}

/// The state of one capture search from one piece.
struct CaptureSearch<'s, R: Rules, S: RouteSink> {
    /// Opponent pieces a man may jump.
    man_targets: Bitboard,
    /// Opponent pieces a king may jump.
    king_targets: Bitboard,
    /// Opponent kings (for precedence keys).
    opponent_kings: Bitboard,
    /// Empty squares, the moving piece's start square included.
    empty: Bitboard,
    /// Where the moving side's men are crowned.
    promotion_row: Bitboard,
    from: u8,
    king_moving: bool,
    landings: [u8; MAX_ROUTE],
    taken: [u8; MAX_ROUTE],
    depth: usize,
    sink: &'s mut S,
    rules: PhantomData<R>,
}

impl<R: Rules, S: RouteSink> CaptureSearch<'_, R, S> {
    #[inline(always)]
    fn push(&mut self, landing: Bitboard, taken: Bitboard) {
        if Self::RECORDS_PATH {
            self.landings[self.depth] = landing.trailing_zeros() as u8;
            self.taken[self.depth] = taken.trailing_zeros() as u8;
            self.depth += 1;
        }
    }

    /// Whether the jumps are recorded: for a sink that reads the paths, and for the Italian
    /// precedence key, which looks for the earliest king taken.
    const RECORDS_PATH: bool = S::READS_PATH || matches!(R::PRECEDENCE, Precedence::Italian);

    #[inline(always)]
    fn pop(&mut self) {
        if Self::RECORDS_PATH {
            self.depth -= 1;
        }
    }

    /// Reports the route that ends on `landing` (the last pushed jump).
    #[inline(always)]
    fn emit(&mut self, landing: Bitboard, captured: Bitboard, promotes: bool) {
        let count = captured.count_ones();
        let key = match R::PRECEDENCE {
            Precedence::Free => 0,
            Precedence::Majority => count,
            Precedence::MostPiecesThenKings => {
                (count << 8) | (captured & self.opponent_kings).count_ones()
            }
            Precedence::KingFirst => u32::from(self.king_moving),
            Precedence::FrisianValue => {
                // n kings are worth 2n men less a little: compare 2 * kings + men, then the
                // fewer kings, then a capture made with a king.
                let kings = (captured & self.opponent_kings).count_ones();
                ((count + kings) << 16) | ((255 - kings) << 8) | u32::from(self.king_moving)
            }
            Precedence::Italian => {
                let kings = (captured & self.opponent_kings).count_ones();
                let earliest = self.taken[..self.depth]
                    .iter()
                    .position(|&bit| self.opponent_kings & (1u64 << bit) != 0)
                    .map_or(0, |index| MAX_ROUTE as u32 - index as u32);
                (count << 16) | (u32::from(self.king_moving) << 15) | (kings << 8) | earliest
            }
        };
        let mv = Move {
            from: self.from,
            to: landing.trailing_zeros() as u8,
            promotes,
            captured,
        };
        let path = RoutePath {
            landings: &self.landings[..self.depth],
            taken: &self.taken[..self.depth],
        };
        self.sink.route(mv, key, path);
    }

    /// The jumps of a man on `at` whose every jump ends the capture: each landing is in the
    /// direction's set of `landings` (see `Position::single_jump_landings`). The directions go
    /// in the order of [`CaptureSearch::man_jumps`], so the routes come in the same order.
    #[inline(always)]
    fn single_jumps<const UP: bool>(&mut self, at: Bitboard, landings: &[Bitboard; 4]) {
        if R::MEN_CAPTURE_BACKWARD || UP {
            self.single_jump::<0>(at, landings);
            self.single_jump::<1>(at, landings);
        }
        if R::MEN_CAPTURE_BACKWARD || !UP {
            self.single_jump::<2>(at, landings);
            self.single_jump::<3>(at, landings);
        }
    }

    /// The single jump of a man on `at` in diagonal direction `DIR`, if it has one.
    #[inline(always)]
    fn single_jump<const DIR: u8>(&mut self, at: Bitboard, landings: &[Bitboard; 4]) {
        let jumped = step_any::<R::Geometry>(at, DIR);
        let landing = step_any::<R::Geometry>(jumped, DIR) & landings[DIR as usize];
        if landing != 0 {
            self.push(landing, jumped);
            self.emit(landing, jumped, landing & self.promotion_row != 0);
            self.pop();
        }
    }

    /// Jumps of a man standing on `at` whose side moves up when `UP`; returns whether it
    /// found one.
    fn man_jumps<const UP: bool>(&mut self, at: Bitboard, captured: Bitboard) -> bool {
        // Each direction is a const parameter, so every shift is known at compile time.
        let mut found = if R::MEN_CAPTURE_BACKWARD {
            let up_left = self.man_jump::<UP, 0>(at, captured);
            let up_right = self.man_jump::<UP, 1>(at, captured);
            let down_left = self.man_jump::<UP, 2>(at, captured);
            let down_right = self.man_jump::<UP, 3>(at, captured);
            up_left | up_right | down_left | down_right
        } else if UP {
            let up_left = self.man_jump::<UP, 0>(at, captured);
            let up_right = self.man_jump::<UP, 1>(at, captured);
            up_left | up_right
        } else {
            let down_left = self.man_jump::<UP, 2>(at, captured);
            let down_right = self.man_jump::<UP, 3>(at, captured);
            down_left | down_right
        };
        if R::ORTHOGONAL_CAPTURES {
            found |= self.man_jump::<UP, 4>(at, captured);
            found |= self.man_jump::<UP, 5>(at, captured);
            found |= self.man_jump::<UP, 6>(at, captured);
            found |= self.man_jump::<UP, 7>(at, captured);
        }
        found
    }

    /// The jump of a man on `at` in direction `DIR` (a [`Dir`] index, or 4 + a line of
    /// [`Geometry::step_orthogonal`]) and everything that follows it.
    #[inline(always)]
    fn man_jump<const UP: bool, const DIR: u8>(
        &mut self,
        at: Bitboard,
        captured: Bitboard,
    ) -> bool {
        let jumped = step_any::<R::Geometry>(at, DIR) & self.man_targets & !captured;
        if jumped == 0 {
            return false;
        }
        let landing = step_any::<R::Geometry>(jumped, DIR) & self.empty;
        if landing == 0 {
            return false;
        }
        let now_captured = captured | jumped;
        let crowned = landing & self.promotion_row != 0;
        self.push(landing, jumped);
        if !R::MULTI_CAPTURE {
            self.emit(landing, now_captured, crowned);
        } else if crowned && R::MID_CAPTURE_PROMOTION == MidCapturePromotion::CrownedAndContinues {
            if !self.king_jumps(landing, now_captured, reverse_any(DIR), true) {
                self.emit(landing, now_captured, true);
            }
        } else if !(self.man_can_jump::<UP>(landing, now_captured)
            && self.man_jumps::<UP>(landing, now_captured))
        {
            self.emit(landing, now_captured, crowned);
        }
        self.pop();
        true
    }

    /// Whether a man on `at` has a jump, tested inline: most landings end the route, and
    /// this spares them the call into [`CaptureSearch::man_jumps`].
    #[inline(always)]
    fn man_can_jump<const UP: bool>(&self, at: Bitboard, captured: Bitboard) -> bool {
        let targets = self.man_targets & !captured;
        let mut can = false;
        each_man_capture_dir::<R, UP>(|dir| {
            let jumped = R::Geometry::step(at, dir) & targets;
            can |= R::Geometry::step(jumped, dir) & self.empty != 0;
        });
        if R::ORTHOGONAL_CAPTURES {
            for line in 0..4 {
                let jumped = R::Geometry::step_orthogonal(at, line) & targets;
                can |= R::Geometry::step_orthogonal(jumped, line) & self.empty != 0;
            }
        }
        can
    }

    /// Jumps of a king standing on `at` that may not go in direction `back` (the way it came:
    /// the piece it just jumped blocks it; [`NO_DIR`] at the start); returns whether it found
    /// one.
    fn king_jumps(&mut self, at: Bitboard, captured: Bitboard, back: u8, promotes: bool) -> bool {
        let mut found = false;
        if back != 0 {
            found |= self.king_jump::<0>(at, captured, promotes);
        }
        if back != 1 {
            found |= self.king_jump::<1>(at, captured, promotes);
        }
        if back != 2 {
            found |= self.king_jump::<2>(at, captured, promotes);
        }
        if back != 3 {
            found |= self.king_jump::<3>(at, captured, promotes);
        }
        if R::ORTHOGONAL_CAPTURES {
            if back != 4 {
                found |= self.king_jump::<4>(at, captured, promotes);
            }
            if back != 5 {
                found |= self.king_jump::<5>(at, captured, promotes);
            }
            if back != 6 {
                found |= self.king_jump::<6>(at, captured, promotes);
            }
            if back != 7 {
                found |= self.king_jump::<7>(at, captured, promotes);
            }
        }
        found
    }

    /// The capture of a king on `at` along direction `DIR` (see [`step_any`]) and everything
    /// that follows it.
    #[inline(always)]
    fn king_jump<const DIR: u8>(
        &mut self,
        at: Bitboard,
        captured: Bitboard,
        promotes: bool,
    ) -> bool {
        let mut target = step_any::<R::Geometry>(at, DIR);
        if R::FLYING_KINGS {
            while target & self.empty != 0 {
                target = step_any::<R::Geometry>(target, DIR);
            }
        }
        if target & self.king_targets & !captured == 0 {
            return false;
        }
        let first_landing = step_any::<R::Geometry>(target, DIR) & self.empty;
        if first_landing == 0 {
            return false;
        }
        let now_captured = captured | target;
        if !R::MULTI_CAPTURE {
            self.push(first_landing, target);
            self.emit(first_landing, now_captured, promotes);
            self.pop();
            return true;
        }
        if !R::FLYING_KINGS {
            self.push(first_landing, target);
            if !self.king_jumps(first_landing, now_captured, reverse_any(DIR), promotes) {
                self.emit(first_landing, now_captured, promotes);
            }
            self.pop();
            return true;
        }
        // A flying king must land where the capture goes on, if such a square exists
        // (FMJD art. 4.12); only otherwise may it stop on any square behind the piece.
        let mut goes_on = false;
        let mut landing = first_landing;
        while landing != 0 {
            self.push(landing, target);
            goes_on |= self.king_jumps(landing, now_captured, reverse_any(DIR), promotes);
            self.pop();
            landing = step_any::<R::Geometry>(landing, DIR) & self.empty;
        }
        if !goes_on {
            let mut landing = first_landing;
            while landing != 0 {
                self.push(landing, target);
                self.emit(landing, now_captured, promotes);
                self.pop();
                landing = step_any::<R::Geometry>(landing, DIR) & self.empty;
            }
        }
        true
    }
}

/// Turkish captures (`Rules::ROOK_MOVES`): a jumped piece is removed at once, so the
/// squares of `captured` count as empty and its pieces are no longer targets.
impl<R: Rules, S: RouteSink> CaptureSearch<'_, R, S> {
    /// Jumps of a man on `at` forward (up when `UP`) and sideways; returns whether it found
    /// one.
    fn rook_man_jumps<const UP: bool>(&mut self, at: Bitboard, captured: Bitboard) -> bool {
        let forward = if UP { 0 } else { 1 };
        let ahead = self.rook_man_jump::<UP>(at, captured, forward);
        let left = self.rook_man_jump::<UP>(at, captured, 2);
        let right = self.rook_man_jump::<UP>(at, captured, 3);
        ahead | left | right
    }

    /// The jump of a man on `at` along `line` (see [`Geometry::step_rook`]) and everything
    /// that follows it. A man that reaches the last row goes on capturing as a man
    /// (sideways) and is crowned where the move ends, on that row.
    #[inline(always)]
    fn rook_man_jump<const UP: bool>(
        &mut self,
        at: Bitboard,
        captured: Bitboard,
        line: u8,
    ) -> bool {
        let jumped = R::Geometry::step_rook(at, line) & self.king_targets & !captured;
        if jumped == 0 {
            return false;
        }
        let landing = R::Geometry::step_rook(jumped, line) & (self.empty | captured);
        if landing == 0 {
            return false;
        }
        let now_captured = captured | jumped;
        self.push(landing, jumped);
        if !self.rook_man_jumps::<UP>(landing, now_captured) {
            self.emit(landing, now_captured, landing & self.promotion_row != 0);
        }
        self.pop();
        true
    }

    /// Captures of a flying king on `at` that may not go along `back` (straight back, the
    /// 180-degree turn the rules forbid; [`NO_DIR`] at the start); returns whether it found
    /// one.
    fn rook_king_jumps(&mut self, at: Bitboard, captured: Bitboard, back: u8) -> bool {
        let mut found = false;
        for line in 0..4 {
            if line != back {
                found |= self.rook_king_jump(at, captured, line);
            }
        }
        found
    }

    /// The capture of a king on `at` along `line` and everything that follows it.
    fn rook_king_jump(&mut self, at: Bitboard, captured: Bitboard, line: u8) -> bool {
        let empty = self.empty | captured;
        let mut target = R::Geometry::step_rook(at, line);
        while target & empty != 0 {
            target = R::Geometry::step_rook(target, line);
        }
        if target & self.king_targets & !captured == 0 {
            return false;
        }
        let first_landing = R::Geometry::step_rook(target, line) & empty;
        if first_landing == 0 {
            return false;
        }
        let now_captured = captured | target;
        // Landing where the capture goes on takes more pieces than stopping, so the
        // majority rule leaves only those landings when there are any.
        let mut goes_on = false;
        let mut landing = first_landing;
        while landing != 0 {
            self.push(landing, target);
            goes_on |= self.rook_king_jumps(landing, now_captured, line ^ 1);
            self.pop();
            landing = R::Geometry::step_rook(landing, line) & empty;
        }
        if !goes_on {
            let mut landing = first_landing;
            while landing != 0 {
                self.push(landing, target);
                self.emit(landing, now_captured, false);
                self.pop();
                landing = R::Geometry::step_rook(landing, line) & empty;
            }
        }
        true
    }
}

/// No direction: the `back` of a king that has not captured yet.
const NO_DIR: u8 = 8;

/// How many moves the kings of `kings` have over the `empty` squares when none captures,
/// summed over the four diagonals: every square of each open line for flying kings, the next
/// square otherwise. The one statement of the flying-king ray for counting: the move counter
/// and the evaluation's king mobility both call it.
#[inline(always)]
pub fn king_reach<R: Rules>(kings: Bitboard, empty: Bitboard) -> u32 {
    let mut reach = 0;
    for dir in Dir::ALL {
        let mut ray = R::Geometry::step(kings, dir) & empty;
        reach += ray.count_ones();
        if R::FLYING_KINGS {
            // All kings slide at once: after k steps the set holds the k-th square of every
            // line still open.
            ray = R::Geometry::step(ray, dir) & empty;
            while ray != 0 {
                reach += ray.count_ones();
                ray = R::Geometry::step(ray, dir) & empty;
            }
        }
    }
    reach
}

/// One step in capture direction `dir`: 0 to 3 a [`Dir`], 4 to 7 a line of
/// [`Geometry::step_orthogonal`] (up, down, left, right).
#[inline(always)]
fn step_any<G: Geometry>(set: Bitboard, dir: u8) -> Bitboard {
    if dir < 4 {
        G::step(set, Dir::from_index(dir))
    } else {
        G::step_orthogonal(set, dir - 4)
    }
}

/// The opposite of capture direction `dir` (see [`step_any`]).
#[inline(always)]
const fn reverse_any(dir: u8) -> u8 {
    if dir < 4 { 3 - dir } else { dir ^ 1 }
}

/// Calls `f` with each direction men advance in, for the side that moves up when `UP`.
/// Each call gets a constant, so after inlining every shift is known at compile time (a loop
/// over a slice of directions compiled to a jump table instead).
#[inline(always)]
fn each_forward_dir<const UP: bool>(mut f: impl FnMut(Dir)) {
    if UP {
        f(Dir::UpLeft);
        f(Dir::UpRight);
    } else {
        f(Dir::DownLeft);
        f(Dir::DownRight);
    }
}

/// Calls `f` with each of the four directions (constants, see [`each_forward_dir`]).
#[inline(always)]
fn each_dir(mut f: impl FnMut(Dir)) {
    f(Dir::UpLeft);
    f(Dir::UpRight);
    f(Dir::DownLeft);
    f(Dir::DownRight);
}

/// Calls `f` with each direction men capture in.
#[inline(always)]
fn each_man_capture_dir<R: Rules, const UP: bool>(f: impl FnMut(Dir)) {
    if R::MEN_CAPTURE_BACKWARD {
        each_dir(f)
    } else {
        each_forward_dir::<UP>(f)
    }
}

/// Calls `f` with each direction the opponent's men advance in, when the side to move moves
/// up when `UP` (constants, see [`each_forward_dir`]).
#[inline(always)]
fn each_opponent_forward_dir<const UP: bool>(f: impl FnMut(Dir)) {
    if UP {
        each_forward_dir::<false>(f)
    } else {
        each_forward_dir::<true>(f)
    }
}

/// Calls `f` with each direction the opponent's men capture in: those of a side moving the
/// other way (see [`each_opponent_forward_dir`]).
#[inline(always)]
fn each_opponent_capture_dir<R: Rules, const UP: bool>(f: impl FnMut(Dir)) {
    if UP {
        each_man_capture_dir::<R, false>(f)
    } else {
        each_man_capture_dir::<R, true>(f)
    }
}

impl<R: Rules> Position<R> {
    /// The opponent's pieces, its kings among them, and the pieces a man of the side to move
    /// may jump (all of them, or the men alone where men may not take kings).
    #[inline(always)]
    fn capture_targets(&self) -> (Bitboard, Bitboard, Bitboard) {
        let them = self.pieces(self.side_to_move().opponent());
        let opponent_kings = them & self.kings();
        let man_targets = if R::MEN_CAPTURE_KINGS {
            them
        } else {
            them & !opponent_kings
        };
        (them, opponent_kings, man_targets)
    }

    /// The squares from which a man of the side to move would have a diagonal jump on this
    /// board (whether a man stands there or not), by the direction of the jump ([`Dir`]'s
    /// index; empty for a direction its men do not capture in): the men among them can
    /// capture, and a man landing on one of them after a jump goes on capturing.
    #[inline(always)]
    fn man_jump_sets<const UP: bool>(man_targets: Bitboard, empty: Bitboard) -> [Bitboard; 4] {
        let mut sets = [0; 4];
        each_man_capture_dir::<R, UP>(|dir| {
            let back = dir.reverse();
            sets[dir as usize] =
                R::Geometry::step(R::Geometry::step(empty, back) & man_targets, back);
        });
        sets
    }

    /// The squares of [`Position::man_jump_sets`] in any direction, orthogonal jumps included.
    #[inline(always)]
    fn man_jump_squares(sets: &[Bitboard; 4], man_targets: Bitboard, empty: Bitboard) -> Bitboard {
        let mut squares = sets.iter().fold(0, |all, &set| all | set);
        if R::ORTHOGONAL_CAPTURES {
            for line in 0..4 {
                let back = line ^ 1;
                let target = R::Geometry::step_orthogonal(empty, back) & man_targets;
                squares |= R::Geometry::step_orthogonal(target, back);
            }
        }
        squares
    }

    /// Where the single jumps of the `jumping` men land, by direction, and the men that need
    /// the route search: those with a jump that goes on. A jump goes on when its landing
    /// square is one of `jump_squares`: the only piece the man has jumped lies back the way
    /// it came, behind it is the square it left, and `jump_squares` counts that square as
    /// occupied, so no continuation is found over the piece already taken.
    #[inline(always)]
    fn single_jump_landings<const UP: bool>(
        &self,
        jumping: Bitboard,
        jump_sets: &[Bitboard; 4],
        jump_squares: Bitboard,
    ) -> ([Bitboard; 4], Bitboard) {
        let promotion_row = Self::promotion_row(self.side_to_move());
        let mut landings = [0; 4];
        let mut searched = 0;
        each_man_capture_dir::<R, UP>(|dir| {
            let back = dir.reverse();
            let movers = jumping & jump_sets[dir as usize];
            let landing = R::Geometry::step(R::Geometry::step(movers, dir), dir);
            let mut goes_on = if R::MULTI_CAPTURE {
                landing & jump_squares
            } else {
                0
            };
            if R::MULTI_CAPTURE
                && R::MID_CAPTURE_PROMOTION == MidCapturePromotion::CrownedAndContinues
            {
                // Crowned on the way: whether it goes on is a king's question.
                goes_on |= landing & promotion_row;
            }
            searched |= R::Geometry::step(R::Geometry::step(goes_on, back), back);
            landings[dir as usize] = landing;
        });
        (landings, searched)
    }

    /// Feeds every complete capture route of the side to move into `sink`.
    #[inline]
    pub fn generate_captures<S: RouteSink>(&self, sink: &mut S) {
        if Self::moves_up(self.side_to_move()) {
            self.generate_captures_for::<true, S>(sink)
        } else {
            self.generate_captures_for::<false, S>(sink)
        }
    }

    #[inline(always)]
    fn generate_captures_for<const UP: bool, S: RouteSink>(&self, sink: &mut S) {
        let us = self.side_to_move();
        let (them, opponent_kings, man_targets) = self.capture_targets();
        let empty = self.empty();
        let jump_sets = if R::ROOK_MOVES {
            [0; 4]
        } else {
            Self::man_jump_sets::<UP>(man_targets, empty)
        };
        let jump_squares = if R::ROOK_MOVES {
            0
        } else {
            Self::man_jump_squares(&jump_sets, man_targets, empty)
        };
        let jumping_men = if R::ROOK_MOVES {
            self.men(us)
        } else {
            jump_squares & self.men(us)
        };
        let kings = self.kings_of(us);
        if jumping_men == 0 && kings == 0 {
            return;
        }
        // Most captures by men are one jump: those are listed from whole-board shifts, and
        // only the men with a jump that goes on search their routes.
        let single_jumps = !R::ROOK_MOVES && !R::ORTHOGONAL_CAPTURES;
        let (landings, searched_men) = if single_jumps && jumping_men != 0 {
            self.single_jump_landings::<UP>(jumping_men, &jump_sets, jump_squares)
        } else {
            ([0; 4], jumping_men)
        };
        let mut search = CaptureSearch::<R, S> {
            man_targets,
            king_targets: them,
            opponent_kings,
            empty,
            promotion_row: Self::promotion_row(us),
            from: 0,
            king_moving: false,
            landings: [0; MAX_ROUTE],
            taken: [0; MAX_ROUTE],
            depth: 0,
            sink,
            rules: PhantomData,
        };
        for bit in Bits(jumping_men) {
            let at = 1u64 << bit;
            search.from = bit as u8;
            search.king_moving = false;
            search.empty = empty | at;
            if R::ROOK_MOVES {
                search.rook_man_jumps::<UP>(at, 0);
            } else if !single_jumps || searched_men & at != 0 {
                search.man_jumps::<UP>(at, 0);
            } else {
                search.single_jumps::<UP>(at, &landings);
            }
        }
        for bit in Bits(kings) {
            let at = 1u64 << bit;
            search.from = bit as u8;
            search.king_moving = true;
            search.empty = empty | at;
            if R::ROOK_MOVES {
                search.rook_king_jumps(at, 0, NO_DIR);
            } else {
                search.king_jumps(at, 0, NO_DIR, false);
            }
        }
    }

    /// Appends every non-capturing move of the side to move.
    pub fn generate_steps(&self, list: &mut MoveList) {
        self.for_each_step(|mv| list.push_step(mv));
    }

    /// Calls `visit` with every non-capturing move of the side to move, in the order of
    /// [`Position::generate_steps`], without listing them.
    #[inline(always)]
    pub fn for_each_step(&self, visit: impl FnMut(Move)) {
        if Self::moves_up(self.side_to_move()) {
            self.for_each_step_for::<true>(visit)
        } else {
            self.for_each_step_for::<false>(visit)
        }
    }

    #[inline(always)]
    fn for_each_step_for<const UP: bool>(&self, visit: impl FnMut(Move)) {
        let men = self.men(self.side_to_move());
        self.for_each_step_of::<UP>([men, men], visit)
    }

    /// [`Position::for_each_step`] for the men of `movers` alone (`movers[i]` for the i-th
    /// direction of [`each_forward_dir`]) and every king. Turkish steps ignore `movers`.
    #[inline(always)]
    fn for_each_step_of<const UP: bool>(&self, movers: [Bitboard; 2], mut visit: impl FnMut(Move)) {
        if R::ROOK_MOVES {
            return self.for_each_rook_step::<UP>(visit);
        }
        let us = self.side_to_move();
        let empty = self.empty();
        let promotion_row = Self::promotion_row(us);
        let mut way = 0;
        each_forward_dir::<UP>(|dir| {
            let back = dir.reverse();
            let men = movers[way];
            way += 1;
            for to in Bits(R::Geometry::step(men, dir) & empty) {
                let from = R::Geometry::step(1u64 << to, back).trailing_zeros();
                visit(Move {
                    from: from as u8,
                    to: to as u8,
                    promotes: promotion_row & (1u64 << to) != 0,
                    captured: 0,
                });
            }
        });
        for from in Bits(self.kings_of(us) & !self.king_steps_barred()) {
            each_dir(|dir| {
                let mut to = R::Geometry::step(1u64 << from, dir) & empty;
                while to != 0 {
                    visit(Move {
                        from: from as u8,
                        to: to.trailing_zeros() as u8,
                        promotes: false,
                        captured: 0,
                    });
                    if !R::FLYING_KINGS {
                        break;
                    }
                    to = R::Geometry::step(to, dir) & empty;
                }
            });
        }
    }

    /// Counts the non-capturing moves of the side to move without listing them.
    #[inline]
    pub fn count_steps(&self) -> u64 {
        if Self::moves_up(self.side_to_move()) {
            self.count_steps_for::<true>()
        } else {
            self.count_steps_for::<false>()
        }
    }

    #[inline(always)]
    fn count_steps_for<const UP: bool>(&self) -> u64 {
        if R::ROOK_MOVES {
            return self.count_rook_steps::<UP>();
        }
        let us = self.side_to_move();
        let empty = self.empty();
        let men = self.men(us);
        let mut count = 0u64;
        each_forward_dir::<UP>(|dir| {
            count += u64::from((R::Geometry::step(men, dir) & empty).count_ones());
        });
        let kings = self.kings_of(us) & !self.king_steps_barred();
        if kings != 0 {
            count += u64::from(king_reach::<R>(kings, empty));
        }
        count
    }

    /// Turkish steps: men one square forward or sideways, kings any distance along a rank
    /// or file.
    fn for_each_rook_step<const UP: bool>(&self, mut visit: impl FnMut(Move)) {
        let us = self.side_to_move();
        let empty = self.empty();
        let promotion_row = Self::promotion_row(us);
        let men = self.men(us);
        let forward = if UP { 0 } else { 1 };
        for line in [forward, 2, 3] {
            for to in Bits(R::Geometry::step_rook(men, line) & empty) {
                let from = R::Geometry::step_rook(1u64 << to, line ^ 1).trailing_zeros();
                visit(Move {
                    from: from as u8,
                    to: to as u8,
                    promotes: promotion_row & (1u64 << to) != 0,
                    captured: 0,
                });
            }
        }
        for from in Bits(self.kings_of(us)) {
            for line in 0..4 {
                let mut to = R::Geometry::step_rook(1u64 << from, line) & empty;
                while to != 0 {
                    visit(Move {
                        from: from as u8,
                        to: to.trailing_zeros() as u8,
                        promotes: false,
                        captured: 0,
                    });
                    to = R::Geometry::step_rook(to, line) & empty;
                }
            }
        }
    }

    /// The number of Turkish steps (see [`Position::for_each_step`]).
    fn count_rook_steps<const UP: bool>(&self) -> u64 {
        let us = self.side_to_move();
        let empty = self.empty();
        let men = self.men(us);
        let forward = if UP { 0 } else { 1 };
        let mut count = 0u64;
        for line in [forward, 2, 3] {
            count += u64::from((R::Geometry::step_rook(men, line) & empty).count_ones());
        }
        let kings = self.kings_of(us);
        for line in 0..4 {
            let mut ray = R::Geometry::step_rook(kings, line) & empty;
            while ray != 0 {
                count += u64::from(ray.count_ones());
                ray = R::Geometry::step_rook(ray, line) & empty;
            }
        }
        count
    }

    /// Every legal move, into `list` (cleared first).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        self.generate_captures(list);
        if list.is_empty() || !R::CAPTURE_COMPULSORY {
            self.generate_steps(list);
        }
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// The number of legal moves from whole-board shifts alone, when no route search is
    /// needed: the side to move has no king, and each capture of its men is a single jump
    /// with the same precedence key as the others (so each is one legal move). `None` when
    /// a route search has to count.
    #[inline(always)]
    fn count_by_shifts<const UP: bool>(&self) -> Option<u64> {
        if R::ROOK_MOVES || R::ORTHOGONAL_CAPTURES || !R::CAPTURE_COMPULSORY {
            return None;
        }
        let us = self.side_to_move();
        if self.kings_of(us) != 0 {
            return None;
        }
        let (_, opponent_kings, man_targets) = self.capture_targets();
        let empty = self.empty();
        let jump_sets = Self::man_jump_sets::<UP>(man_targets, empty);
        let jump_squares = Self::man_jump_squares(&jump_sets, man_targets, empty);
        let jumping = jump_squares & self.men(us);
        if jumping == 0 {
            return Some(self.count_steps_for::<UP>());
        }
        // Under these rules a single jump's key depends on nothing but the piece count and
        // the capturing piece (a man); under the others it depends on taking a king.
        let same_keys = matches!(
            R::PRECEDENCE,
            Precedence::Free | Precedence::Majority | Precedence::KingFirst
        ) || man_targets & opponent_kings == 0;
        if !same_keys {
            return None;
        }
        let (landings, searched) =
            self.single_jump_landings::<UP>(jumping, &jump_sets, jump_squares);
        if searched != 0 {
            return Self::count_double_jumps::<UP>(&landings, &jump_sets, jump_squares);
        }
        Some(landings.iter().map(|set| u64::from(set.count_ones())).sum())
    }

    /// The number of legal captures when some men's first jump goes on (see
    /// [`Position::count_by_shifts`], whose conditions hold) but no route is longer than two
    /// jumps; `None` when one is, or when a man crowned on the way goes on as a king.
    ///
    /// Up to three jumps a man's route needs no record of what it took: a jump can only meet
    /// a piece it took, or land on a square it left, by going straight back, because no two
    /// or three diagonal steps add up to nothing. So the second jump from each landing and
    /// whether a third follows are whole-board shifts of the board as it stands, leaving out
    /// the way back. Nor can two routes of two jumps make the same move (one start, one end,
    /// the same two pieces), so each route is one move.
    #[inline(always)]
    fn count_double_jumps<const UP: bool>(
        landings: &[Bitboard; 4],
        jump_from: &[Bitboard; 4],
        anywhere: Bitboard,
    ) -> Option<u64> {
        if R::MID_CAPTURE_PROMOTION == MidCapturePromotion::CrownedAndContinues {
            return None;
        }
        let mut ending_at_one = 0;
        let mut ending_at_two = 0;
        let mut any_third = false;
        each_man_capture_dir::<R, UP>(|first| {
            // The square the man left is occupied on this board: the way back is shut.
            let landing = landings[first as usize];
            ending_at_one += u64::from((landing & !anywhere).count_ones());
            let goes_on = landing & anywhere;
            if goes_on == 0 {
                return;
            }
            each_man_capture_dir::<R, UP>(|second| {
                if second == first.reverse() {
                    return;
                }
                let starts = goes_on & jump_from[second as usize];
                let ends = R::Geometry::step(R::Geometry::step(starts, second), second);
                // Jumping straight back over the second piece would land on the first
                // landing, empty on this board: left out.
                let back = second.reverse() as usize;
                let third = jump_from
                    .iter()
                    .enumerate()
                    .filter(|&(way, _)| way != back)
                    .fold(0, |all, (_, &set)| all | set);
                any_third |= ends & third != 0;
                ending_at_two += u64::from(ends.count_ones());
            });
        });
        if any_third {
            return None;
        }
        Some(match R::PRECEDENCE {
            // Every complete route is a move.
            Precedence::Free | Precedence::KingFirst => ending_at_one + ending_at_two,
            // Only the longest: there is a route of two, as some first jump goes on.
            _ => ending_at_two,
        })
    }

    /// The number of legal moves; `scratch` is working memory.
    #[inline(always)]
    pub fn count_legal_moves(&self, scratch: &mut MoveList) -> u64 {
        let by_shifts = if Self::moves_up(self.side_to_move()) {
            self.count_by_shifts::<true>()
        } else {
            self.count_by_shifts::<false>()
        };
        match by_shifts {
            Some(count) => count,
            None => self.count_legal_moves_by_search(scratch),
        }
    }

    /// [`Position::count_legal_moves`] when it takes the route search: kept out of line, so
    /// that the shifts of the common case inline into the caller's loop.
    #[inline(never)]
    fn count_legal_moves_by_search(&self, scratch: &mut MoveList) -> u64 {
        scratch.clear();
        let mut counter = CaptureCounter {
            count: 0,
            may_repeat: scratch,
        };
        self.generate_captures(&mut counter);
        let captures = counter.count;
        if captures == 0 || !R::CAPTURE_COMPULSORY {
            captures + self.count_steps()
        } else {
            captures
        }
    }

    /// The number of legal replies summed over every non-capturing move of the side to move:
    /// perft's last two plies below a node, for its steps. `scratch` is working memory.
    ///
    /// Most steps are counted without being played. When the opponent has no king and no
    /// man of it could jump on this board, a step of one of our men from `s` to `t` gives it
    /// a capture only by a jump over `t` or a jump that lands on `s` (every other jump would
    /// exist on this board already). Without one, its replies are its men's steps: those of
    /// this board, plus the men that can step into `s`, less those that could step into `t`.
    /// So every such step is counted from whole-board sets, a direction at a time; only the
    /// steps that give a capture or crown a man, and the kings' steps, are played.
    #[inline]
    pub fn count_replies_to_steps(&self, scratch: &mut MoveList) -> u64 {
        if Self::moves_up(self.side_to_move()) {
            self.count_replies_to_steps_for::<true>(scratch)
        } else {
            self.count_replies_to_steps_for::<false>(scratch)
        }
    }

    #[inline(always)]
    fn count_replies_to_steps_for<const UP: bool>(&self, scratch: &mut MoveList) -> u64 {
        let (mut total, played) = self.replies_counted_by_shifts::<UP>();
        self.for_each_step_of::<UP>(played, |mv| {
            total += self.play_unhashed(&mv).count_legal_moves(scratch);
        });
        total
    }

    /// The replies to our men's steps that can be counted without playing them (see
    /// [`Position::count_replies_to_steps`]), and the men whose steps must be played, by
    /// direction as in [`Position::for_each_step_of`].
    #[inline(always)]
    fn replies_counted_by_shifts<const UP: bool>(&self) -> (u64, [Bitboard; 2]) {
        let us = self.side_to_move();
        let men = self.men(us);
        let all_played = (0, [men, men]);
        let them = us.opponent();
        if R::ROOK_MOVES || R::ORTHOGONAL_CAPTURES || self.kings_of(them) != 0 {
            return all_played;
        }
        let their_men = self.men(them);
        let ours = self.pieces(us);
        let targets = if R::MEN_CAPTURE_KINGS {
            ours
        } else {
            ours & !self.kings()
        };
        let empty = self.empty();
        // Their men's jumps on this board; the empty squares where a man of ours arriving
        // would be jumped (their man on one side, an empty square on the other); the squares
        // of ours that, emptied, would be a landing (a piece of ours and their man behind).
        let mut jumps = 0;
        let mut jumped_on_arrival = 0;
        let mut landed_on_departure = 0;
        each_opponent_capture_dir::<R, UP>(|dir| {
            let back = dir.reverse();
            let beyond_target = R::Geometry::step(R::Geometry::step(empty, back) & targets, back);
            jumps |= beyond_target & their_men;
            let their_next = R::Geometry::step(their_men, dir);
            jumped_on_arrival |= their_next & R::Geometry::step(empty, back);
            landed_on_departure |= R::Geometry::step(their_next & targets, dir);
        });
        if jumps != 0 {
            return all_played;
        }
        // Where their men step to, whether the square is empty or not, by direction.
        let mut their_steps = [0; 2];
        let mut their_step_count = 0u64;
        let mut way = 0;
        each_opponent_forward_dir::<UP>(|dir| {
            their_steps[way] = R::Geometry::step(their_men, dir);
            their_step_count += u64::from((their_steps[way] & empty).count_ones());
            way += 1;
        });
        let promotion_row = Self::promotion_row(us);
        let mut gained = 0u64;
        let mut lost = 0u64;
        let mut played = [0; 2];
        let mut way = 0;
        each_forward_dir::<UP>(|dir| {
            let back = dir.reverse();
            let movers = men & R::Geometry::step(empty, back);
            // Their man just beyond the arrival square jumps back over it onto the square
            // the man left.
            let jumped = jumped_on_arrival | R::Geometry::step(their_men, back);
            let one_by_one =
                movers & (R::Geometry::step(jumped | promotion_row, back) | landed_on_departure);
            let counted = movers & !one_by_one;
            let arrivals = R::Geometry::step(counted, dir);
            gained += u64::from(counted.count_ones()) * their_step_count;
            for steps in their_steps {
                gained += u64::from((counted & steps).count_ones());
                lost += u64::from((arrivals & steps).count_ones());
            }
            played[way] = one_by_one;
            way += 1;
        });
        // Each counted step's replies are not negative, so neither is the sum.
        (gained - lost, played)
    }

    /// True when the side to move has a capture available.
    pub fn has_capture(&self) -> bool {
        struct Any(bool);
        impl RouteSink for Any {
            const READS_PATH: bool = false;

            fn route(&mut self, _: Move, _: u32, _: RoutePath<'_>) {
                self.0 = true;
            }
        }
        let mut any = Any(false);
        self.generate_captures(&mut any);
        any.0
    }

    /// The landing squares (bits) of every route that makes `mv` under the precedence rules,
    /// one vector per route; used to write and read the intermediate squares of a capture.
    pub fn routes_of(&self, mv: &Move) -> Vec<Vec<u8>> {
        struct Routes {
            target: Move,
            best: BestKey,
            found: Vec<Vec<u8>>,
        }
        impl RouteSink for Routes {
            fn route(&mut self, mv: Move, key: u32, path: RoutePath<'_>) {
                match self.best.rank(key) {
                    Rank::Below => return,
                    Rank::Above => self.found.clear(),
                    Rank::Equal => {}
                }
                if mv.from == self.target.from
                    && mv.to == self.target.to
                    && mv.captured == self.target.captured
                {
                    self.found.push(path.landings.to_vec());
                }
            }
        }
        if !mv.is_capture() {
            return vec![vec![mv.to]];
        }
        let mut routes = Routes {
            target: *mv,
            best: BestKey::default(),
            found: Vec::new(),
        };
        self.generate_captures(&mut routes);
        let mut out = routes.found;
        out.sort();
        out.dedup();
        out
    }
}

/// Every capture route of the highest precedence, duplicates kept: routes with the same
/// start, end and captured set but a different ORDER of captures stay separate entries (the
/// `keep_dup` convention of the older published tables, DCTL's `keep_duplicates`); routes
/// that differ only in where a flying king lands between two captures count once.
#[derive(Clone, Debug, Default)]
pub struct RouteList {
    routes: Vec<Move>,
    orders: Vec<Vec<u8>>,
    best: BestKey,
}

impl RouteList {
    /// The routes found.
    pub fn as_slice(&self) -> &[Move] {
        &self.routes
    }
}

impl RouteSink for RouteList {
    fn route(&mut self, mv: Move, key: u32, path: RoutePath<'_>) {
        match self.best.rank(key) {
            Rank::Below => return,
            Rank::Above => {
                self.routes.clear();
                self.orders.clear();
            }
            Rank::Equal => {}
        }
        let seen = self
            .routes
            .iter()
            .zip(&self.orders)
            .any(|(m, order)| m.from == mv.from && m.to == mv.to && order == path.taken);
        if !seen {
            self.routes.push(mv);
            self.orders.push(path.taken.to_vec());
        }
    }
}
