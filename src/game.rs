//! A game: positions and moves played, undo, and the end of the game (win or the variant's draw rules).

use crate::board::{Bits, Geometry};
use crate::movegen::MoveList;
use crate::position::{Move, Position};
use crate::rules::{Color, Goal, Rules, SmallEndgame, physical_row_col};
use std::fmt;

/// Why a game ended in a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The same position with the same side to move occurred the variant's number of times.
    Repetition,
    /// The variant's number of moves without a capture or a man move.
    NoProgress,
    /// The variant's small-endgame limit ran out.
    SmallEndgame,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This side wins: the side to move has no legal move (no pieces, or all blocked) and
    /// loses, or in antidraughts wins; in breakthrough the first side to crown a king wins.
    Win(Color),
    /// A draw rule applies.
    Draw(DrawReason),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win(color) => write!(
                f,
                "{} wins ({} has no legal move)",
                color.name(),
                color.opponent().name()
            ),
            Outcome::Draw(DrawReason::Repetition) => write!(f, "draw by repetition"),
            Outcome::Draw(DrawReason::NoProgress) => {
                write!(f, "draw: no capture and no man move for too long")
            }
            Outcome::Draw(DrawReason::SmallEndgame) => {
                write!(f, "draw: small-endgame move limit reached")
            }
        }
    }
}

impl Outcome {
    /// The PDN result tag text: `2-0`, `0-2` or `1-1` on 10x10, `1-0`, `0-1` or `1/2-1/2` on 8x8.
    pub fn pdn_result<R: Rules>(&self) -> &'static str {
        let ten = R::Geometry::SIZE == 10;
        match (self, ten) {
            (Outcome::Win(Color::White), true) => "2-0",
            (Outcome::Win(Color::Black), true) => "0-2",
            (Outcome::Draw(_), true) => "1-1",
            (Outcome::Win(Color::White), false) => "1-0",
            (Outcome::Win(Color::Black), false) => "0-1",
            (Outcome::Draw(_), false) => "1/2-1/2",
        }
    }
}

/// What one played move changed, for undo.
#[derive(Clone, Copy, Debug)]
struct Record<R: Rules> {
    before: Position<R>,
    mv: Move,
    reversible_plies: u32,
    small_endgame: Option<SmallEndgameCount>,
}

/// A game of variant `R` from some start position.
#[derive(Clone, Debug)]
pub struct Game<R: Rules> {
    start: Position<R>,
    position: Position<R>,
    history: Vec<Record<R>>,
    /// Plies since the last capture or man move.
    reversible_plies: u32,
    /// The count of the small-endgame rule, while the position is in one of its
    /// configurations.
    small_endgame: Option<SmallEndgameCount>,
}

impl<R: Rules> Default for Game<R> {
    fn default() -> Self {
        Self::new(Position::start())
    }
}

impl<R: Rules> Game<R> {
    /// A game from `start`.
    pub fn new(start: Position<R>) -> Self {
        Game {
            start,
            position: start,
            history: Vec::new(),
            reversible_plies: 0,
            small_endgame: SmallEndgameCount::at_start(&start),
        }
    }

    /// The start position.
    pub fn start(&self) -> &Position<R> {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position<R> {
        &self.position
    }

    /// The moves played, in order.
    pub fn moves(&self) -> impl Iterator<Item = &Move> + '_ {
        self.history.iter().map(|r| &r.mv)
    }

    /// The positions before each move, oldest first, followed by the current one.
    pub fn positions(&self) -> impl Iterator<Item = &Position<R>> + '_ {
        self.history
            .iter()
            .map(|r| &r.before)
            .chain(std::iter::once(&self.position))
    }

    /// Plies played.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// Plies since the last capture or man move.
    pub fn reversible_plies(&self) -> u32 {
        self.reversible_plies
    }

    /// The count of the variant's small-endgame rule (see [`SmallEndgame`]) while the current
    /// position is in one of its configurations, `None` otherwise.
    pub fn small_endgame(&self) -> Option<SmallEndgameCount> {
        self.small_endgame
    }

    /// The legal moves in the current position.
    pub fn legal_moves(&self) -> MoveList {
        self.position.legal_moves()
    }

    /// Plays a move that is legal in the current position.
    pub fn play(&mut self, mv: Move) {
        let before = self.position;
        self.history.push(Record {
            before,
            mv,
            reversible_plies: self.reversible_plies,
            small_endgame: self.small_endgame,
        });
        self.position = before.play(&mv);
        self.reversible_plies = if before.is_reversible(&mv) {
            self.reversible_plies + 1
        } else {
            0
        };
        self.small_endgame = SmallEndgameCount::after(self.small_endgame, &mv, &self.position);
    }

    /// Takes back the last move, returning it; `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let record = self.history.pop()?;
        self.position = record.before;
        self.reversible_plies = record.reversible_plies;
        self.small_endgame = record.small_endgame;
        Some(record.mv)
    }

    /// How often the current position (same side to move) has occurred, this time included.
    pub fn repetitions(&self) -> u32 {
        let hash = self.position.hash();
        // Only positions since the last capture or man move can repeat.
        let window = self.reversible_plies as usize;
        let mut count = 1;
        let len = self.history.len();
        let mut back = 2;
        while back <= window && back <= len {
            if self.history[len - back].before.hash() == hash {
                count += 1;
            }
            back += 2;
        }
        count
    }

    /// The outcome, if the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(winner) = self.position.decided_winner() {
            return Some(Outcome::Win(winner));
        }
        let mut scratch = MoveList::new();
        if self.position.count_legal_moves(&mut scratch) == 0 {
            return Some(Outcome::Win(self.position.winner_when_stuck()));
        }
        self.draw_reason().map(Outcome::Draw)
    }

    /// The outcome as a sentence that names the variant's reason (`white wins (black has no
    /// legal move)`, `black wins (black cannot move)` in antidraughts, `white wins (first
    /// king)` in breakthrough, `draw by repetition`).
    pub fn outcome_text(&self) -> Option<String> {
        let outcome = self.outcome()?;
        let Outcome::Win(winner) = outcome else {
            return Some(outcome.to_string());
        };
        Some(if self.position.decided_winner().is_some() {
            format!("{} wins (first king)", winner.name())
        } else if R::GOAL == Goal::Reversed {
            format!("{} wins ({} cannot move)", winner.name(), winner.name())
        } else {
            outcome.to_string()
        })
    }

    /// The draw rule that applies now, if any.
    pub fn draw_reason(&self) -> Option<DrawReason> {
        let rules = R::DRAW_RULES;
        if rules.repetitions > 0 && self.repetitions() >= rules.repetitions {
            return Some(DrawReason::Repetition);
        }
        if rules.no_progress_plies > 0 && self.reversible_plies >= rules.no_progress_plies {
            return Some(DrawReason::NoProgress);
        }
        if self.small_endgame.is_some_and(|count| count.is_over()) {
            return Some(DrawReason::SmallEndgame);
        }
        None
    }
}

/// Where a game stands in a small-endgame configuration: the plies played in it and the
/// plies it may last (see [`small_endgame_limit`]). The game and the search count alike: the
/// count starts at 0 when a position enters a configuration and goes up by one with each
/// move that stays in one without a capture or a crowning; any other move starts it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallEndgameCount {
    /// Plies played since the configuration began.
    pub plies: u32,
    /// The plies after which the game is drawn.
    pub limit: u32,
}

impl SmallEndgameCount {
    /// The count of a game that starts at `position` (no move played in it yet).
    pub fn at_start<R: Rules>(position: &Position<R>) -> Option<Self> {
        small_endgame_limit(position).map(|limit| SmallEndgameCount { plies: 0, limit })
    }

    /// The count after `mv` led to `child` from a position whose count was `parent`.
    #[inline]
    pub fn after<R: Rules>(parent: Option<Self>, mv: &Move, child: &Position<R>) -> Option<Self> {
        let limit = small_endgame_limit(child)?;
        let plies = match parent {
            Some(count) if !mv.is_capture() && !mv.promotes => count.plies + 1,
            _ => 0,
        };
        Some(SmallEndgameCount { plies, limit })
    }

    /// True when the limit is reached: the game is drawn.
    pub fn is_over(&self) -> bool {
        self.plies >= self.limit
    }

    /// Plies left before the game is drawn.
    pub fn remaining(&self) -> u32 {
        self.limit.saturating_sub(self.plies)
    }
}

/// The plies a small-endgame configuration may last before it is drawn, for the variant's
/// rule (see [`SmallEndgame`]), or `None` when the position is not such an endgame.
pub fn small_endgame_limit<R: Rules>(position: &Position<R>) -> Option<u32> {
    let counts = |color: Color| {
        (
            position.pieces(color).count_ones(),
            position.kings_of(color).count_ones(),
        )
    };
    if R::DRAW_RULES.small_endgame == SmallEndgame::None {
        return None;
    }
    let (white, black) = (counts(Color::White), counts(Color::Black));
    if R::DRAW_RULES.small_endgame == SmallEndgame::Turkish {
        return (white.0 == 1 && black.0 == 1).then_some(4);
    }
    // The lone king and its opponent, whichever side that is.
    let (strong, lone_color) = match (white, black) {
        (w, (1, 1)) if w.1 >= 1 => (w, Color::Black),
        ((1, 1), b) if b.1 >= 1 => (b, Color::White),
        _ => return None,
    };
    match R::DRAW_RULES.small_endgame {
        SmallEndgame::None | SmallEndgame::Turkish => None,
        // FMJD art. 8.3.
        SmallEndgame::International => match strong.0 {
            3 => Some(32),
            1 | 2 => Some(10),
            _ => None,
        },
        // Three kings against a lone king holding the main diagonal (a1-h8): 15 moves each.
        SmallEndgame::Russian => {
            let lone = position.kings_of(lone_color);
            let on_main_diagonal = Bits(lone).all(|bit| {
                let (row, col) = physical_row_col::<R>(bit as u8);
                row + col == R::Geometry::SIZE - 1
            });
            (strong.1 >= 3 && strong.0 == strong.1 && on_main_diagonal).then_some(30)
        }
        // Frisian (lidraughts, pydraughts): two kings against one, 7 moves each; one king
        // against one, 2 moves each (the official rule draws at once unless a capture is
        // forced; the two moves leave room for the forced ones).
        SmallEndgame::Frisian => match strong {
            (2, 2) => Some(14),
            (1, 1) => Some(4),
            _ => None,
        },
    }
}
