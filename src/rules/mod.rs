//! The rules of each variant as compile-time types, and the run-time `Variant` enum of the edges.
//!
//! Every variant is a zero-sized type implementing [`Rules`]; the move generator, position and
//! search are generic over it and monomorphised per variant, so a rule switch costs nothing
//! at run time. Front ends (CLI, protocols) hold a [`Variant`] and dispatch once with
//! [`with_variant!`](crate::with_variant).
//!
//! Facts come from the rule books (FMJD, WCDF/ACF, FID, national federations) as collected
//! in the shared `rules.md`; `docs/variants.md` states them as implemented.

use crate::board::{Board8, Board10, Board64, Geometry};
use std::fmt;
use std::str::FromStr;

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// White (in PDN, the side whose men start on the high-numbered squares, except in towers).
    White = 0,
    /// Black.
    Black = 1,
}

impl Color {
    /// The other side.
    #[inline(always)]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `W` or `B`, as in PDN FEN.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }

    /// `white` or `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

/// Which capture must be chosen when several are available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precedence {
    /// Any capture may be chosen (English, Russian, Pool).
    Free,
    /// The capture taking the most pieces; a king counts as one (FMJD art. 4.13).
    Majority,
    /// Most pieces, then most kings (Spanish).
    MostPiecesThenKings,
    /// FID art. 6: most pieces, then a capture made with a king, then most kings, then the
    /// capture that takes a king earliest.
    Italian,
    /// Free choice, but a king must capture in preference to a man (Czech).
    KingFirst,
    /// Frisian: the capture of the highest value, where `n` kings are worth more than
    /// `2n - 1` men and less than `2n` men (a king is "almost two men": lidraughts counts 199
    /// against 100, DCTL compares the same way); at equal value a capture with a king.
    FrisianValue,
}

/// What a side plays for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The side to move with no legal move loses (every variant but the two below).
    Normal,
    /// Antidraughts (lidraughts): the side to move with no legal move (all its pieces lost or
    /// blocked) wins.
    Reversed,
    /// Breakthrough (lidraughts): the first side to crown a king wins; a side with no legal
    /// move loses, as usual.
    FirstKing,
}

/// What happens to a man that reaches its promotion row in the middle of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MidCapturePromotion {
    /// It stays a man and goes on capturing as a man; crowned only if the move ends there
    /// (FMJD art. 3.8; Brazilian, Pool).
    StaysMan,
    /// It is crowned at once and goes on capturing as a king (Russian).
    CrownedAndContinues,
}

/// The draw rules a game of the variant applies (see `docs/variants.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// A position occurring this many times with the same side to move is a draw (0 = no
    /// repetition rule).
    pub repetitions: u32,
    /// Plies without a capture or a man move after which the game is drawn (0 = no such
    /// rule). Men only ever step forwards, so this is also English's "no man advanced".
    pub no_progress_plies: u32,
    /// The small-endgame rule, if any.
    pub small_endgame: SmallEndgame,
}

/// Small-endgame draw rules: the game is drawn after a number of plies in certain material
/// configurations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmallEndgame {
    /// No such rule.
    None,
    /// FMJD art. 8.3: three kings, two kings and a man, or a king and two men against a lone
    /// king: 16 more moves each; two kings, a king and a man, or one king against a lone king:
    /// 5 moves each.
    International,
    /// Russian rule: three kings (or more) against a lone king controlling the main diagonal:
    /// 15 moves each.
    Russian,
    /// Frisian rule (as lidraughts and pydraughts apply it): two kings against a lone king, 7
    /// moves each; a king against a king, 2 moves each.
    Frisian,
    /// Turkish rule (as pydraughts applies it): one piece, man or king, against one: 2 moves
    /// each.
    Turkish,
}

/// The rules of one variant. Implemented by zero-sized types; everything is a constant so the
/// generic move generator compiles to straight-line code per variant.
pub trait Rules:
    Copy + Default + PartialEq + Eq + std::hash::Hash + Send + Sync + fmt::Debug + 'static
{
    /// The board.
    type Geometry: Geometry;
    /// The run-time name of this variant.
    const VARIANT: Variant;
    /// Who moves first from the start position.
    const FIRST_TO_MOVE: Color;
    /// True when White's men start on the high-numbered squares and move towards square 1
    /// (every variant but towers, where White starts at the top).
    const WHITE_MOVES_UP: bool = true;
    /// Rows of men each side starts with.
    const START_ROWS: usize;
    /// Men may capture backwards.
    const MEN_CAPTURE_BACKWARD: bool;
    /// Kings move and capture any distance along a diagonal.
    const FLYING_KINGS: bool;
    /// A man reaching the promotion row during a capture (only matters where men capture
    /// backwards; men capturing forward only cannot go on from the last row).
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::StaysMan;
    /// Men may capture kings (false in Italian, FID art. 6.6).
    const MEN_CAPTURE_KINGS: bool = true;
    /// Capturing is compulsory (false in towers).
    const CAPTURE_COMPULSORY: bool = true;
    /// A capture may go on with further jumps (false in towers: one jump per turn).
    const MULTI_CAPTURE: bool = true;
    /// Which capture must be chosen.
    const PRECEDENCE: Precedence;
    /// The numbering is mirrored: the top-left corner square is playable and is square 1
    /// (Italian and Spanish boards, long diagonal on the right).
    const MIRRORED: bool = false;
    /// How moves are printed.
    const NOTATION: MoveNotation = MoveNotation::Numeric;
    /// Draw rules of a game.
    const DRAW_RULES: DrawRules;
    /// What a side plays for (normal, reversed, first king).
    const GOAL: Goal = Goal::Normal;
    /// Pieces also capture along rows and columns, jumping over the next playable square of
    /// the row or column (Frisian); moves without a capture stay diagonal.
    const ORTHOGONAL_CAPTURES: bool = false;
    /// The same king may make at most this many non-capturing moves in a row while its side
    /// still has men (Frisian: 3); 0 = no limit.
    const KING_MOVE_LIMIT: u8 = 0;
    /// Turkish movement on a board of 64 playable squares: men step and capture forward and
    /// sideways, kings fly along ranks and files and may not turn straight back between two
    /// jumps, and every jumped piece is removed at once (no Turkish strike: its square may be
    /// crossed again, and it cannot be jumped twice because it is gone).
    const ROOK_MOVES: bool = false;
    /// Empty rows between each side's back edge and its men at the start (Turkish: 1).
    const START_GAP: usize = 0;
}

/// How a variant's players write moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveNotation {
    /// PDN numbers: `11-15`, `22x15`.
    Numeric,
    /// Algebraic squares, a1 at White's near left: `c3-d4`, `c3:e5` (Russian, Brazilian).
    Algebraic,
    /// The towers assignment's cells, columns A-H and rows 1-8 from the top: `G6-F5`.
    Cells,
}

/// Threefold repetition and nothing else (Pool and Spanish: no agreed move-count rule).
const REPETITION_ONLY: DrawRules = DrawRules {
    repetitions: 3,
    no_progress_plies: 0,
    small_endgame: SmallEndgame::None,
};

macro_rules! rules_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
    };
}

rules_type!(
    /// English / American checkers (WCDF, ACF): 8x8, Black first, men capture forward only,
    /// short kings, free choice of capture.
    English
);
rules_type!(
    /// International draughts (FMJD): 10x10, White first, flying kings, majority rule.
    International
);
rules_type!(
    /// Brazilian draughts: international rules on 8x8.
    Brazilian
);
rules_type!(
    /// Russian draughts (shashki): 8x8, flying kings, free choice, a man crowned during a
    /// capture goes on as a king.
    Russian
);
rules_type!(
    /// Pool checkers: 8x8, Black first, men capture backwards, flying kings, free choice.
    Pool
);
rules_type!(
    /// Italian draughts (FID): mirrored 8x8, men capture forward only and never kings, short
    /// kings, the four-step precedence of FID art. 6.
    Italian
);
rules_type!(
    /// Spanish draughts: mirrored 8x8, men capture forward only, flying kings, most pieces
    /// then most kings.
    Spanish
);
rules_type!(
    /// Czech draughts: 8x8, men capture forward only, flying kings, a king must capture in
    /// preference to a man.
    Czech
);
rules_type!(
    /// Antidraughts (lidraughts): international rules with the goal reversed, the side that
    /// cannot move (no pieces left, or all blocked) wins.
    Antidraughts
);
rules_type!(
    /// Breakthrough (lidraughts): international rules, the first side to crown a king wins.
    Breakthrough
);
rules_type!(
    /// Frisian draughts (lidraughts `frisian`): 10x10, captures along diagonals, rows and
    /// columns, the capture of the highest value, at most three king moves in a row.
    Frisian
);
rules_type!(
    /// frysk! (lidraughts): Frisian rules from five men each on the back rows.
    Frysk
);
rules_type!(
    /// Turkish draughts (dama): all 64 squares, men step forward and sideways, flying kings
    /// along ranks and files, majority rule, captured pieces removed one by one.
    Turkish
);
rules_type!(
    /// The towers variant of the COMP10002 assignment: one jump per turn, optional capture,
    /// Black first from the bottom, crowned pieces ("towers") step in all four directions.
    Towers
);

impl Rules for English {
    type Geometry = Board8;
    const VARIANT: Variant = Variant::English;
    const FIRST_TO_MOVE: Color = Color::Black;
    const START_ROWS: usize = 3;
    const MEN_CAPTURE_BACKWARD: bool = false;
    const FLYING_KINGS: bool = false;
    const PRECEDENCE: Precedence = Precedence::Free;
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 3,
        no_progress_plies: 80,
        small_endgame: SmallEndgame::None,
    };
}

impl Rules for International {
    type Geometry = Board10;
    const VARIANT: Variant = Variant::International;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 4;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::Majority;
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 3,
        no_progress_plies: 50,
        small_endgame: SmallEndgame::International,
    };
}

impl Rules for Antidraughts {
    type Geometry = Board10;
    const VARIANT: Variant = Variant::Antidraughts;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 4;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::Majority;
    // As pydraughts 0.6.7 (`Game.is_draw`) has it: threefold repetition is the only draw.
    const DRAW_RULES: DrawRules = REPETITION_ONLY;
    const GOAL: Goal = Goal::Reversed;
}

impl Rules for Breakthrough {
    type Geometry = Board10;
    const VARIANT: Variant = Variant::Breakthrough;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 4;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::Majority;
    // No draw rule (pydraughts 0.6.7 `Game.is_draw`): the first king ends the game, so only
    // men are on the board in play, and men only move forwards, so no position repeats.
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 0,
        no_progress_plies: 0,
        small_endgame: SmallEndgame::None,
    };
    const GOAL: Goal = Goal::FirstKing;
}

/// Frisian draw rules: threefold repetition (lidraughts) and the small endgames.
const FRISIAN_DRAWS: DrawRules = DrawRules {
    repetitions: 3,
    no_progress_plies: 0,
    small_endgame: SmallEndgame::Frisian,
};

impl Rules for Frisian {
    type Geometry = Board10;
    const VARIANT: Variant = Variant::Frisian;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 4;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::FrisianValue;
    const DRAW_RULES: DrawRules = FRISIAN_DRAWS;
    const ORTHOGONAL_CAPTURES: bool = true;
    const KING_MOVE_LIMIT: u8 = 3;
}

impl Rules for Frysk {
    type Geometry = Board10;
    const VARIANT: Variant = Variant::Frysk;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 1;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::FrisianValue;
    const DRAW_RULES: DrawRules = FRISIAN_DRAWS;
    const ORTHOGONAL_CAPTURES: bool = true;
    const KING_MOVE_LIMIT: u8 = 3;
}

impl Rules for Turkish {
    type Geometry = Board64;
    const VARIANT: Variant = Variant::Turkish;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 2;
    const START_GAP: usize = 1;
    const MEN_CAPTURE_BACKWARD: bool = false;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::Majority;
    const NOTATION: MoveNotation = MoveNotation::Algebraic;
    // pydraughts 0.6.7 (`Game.is_draw`): threefold repetition; one piece against one, 2
    // moves each.
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 3,
        no_progress_plies: 0,
        small_endgame: SmallEndgame::Turkish,
    };
    const ROOK_MOVES: bool = true;
}

impl Rules for Brazilian {
    type Geometry = Board8;
    const VARIANT: Variant = Variant::Brazilian;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 3;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::Majority;
    const NOTATION: MoveNotation = MoveNotation::Algebraic;
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 3,
        no_progress_plies: 40,
        small_endgame: SmallEndgame::None,
    };
}

impl Rules for Russian {
    type Geometry = Board8;
    const VARIANT: Variant = Variant::Russian;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 3;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const MID_CAPTURE_PROMOTION: MidCapturePromotion = MidCapturePromotion::CrownedAndContinues;
    const PRECEDENCE: Precedence = Precedence::Free;
    const NOTATION: MoveNotation = MoveNotation::Algebraic;
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 3,
        no_progress_plies: 30,
        small_endgame: SmallEndgame::Russian,
    };
}

impl Rules for Pool {
    type Geometry = Board8;
    const VARIANT: Variant = Variant::Pool;
    const FIRST_TO_MOVE: Color = Color::Black;
    const START_ROWS: usize = 3;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::Free;
    const DRAW_RULES: DrawRules = REPETITION_ONLY;
}

impl Rules for Italian {
    type Geometry = Board8;
    const VARIANT: Variant = Variant::Italian;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 3;
    const MEN_CAPTURE_BACKWARD: bool = false;
    const FLYING_KINGS: bool = false;
    const MEN_CAPTURE_KINGS: bool = false;
    const PRECEDENCE: Precedence = Precedence::Italian;
    const MIRRORED: bool = true;
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 3,
        no_progress_plies: 80,
        small_endgame: SmallEndgame::None,
    };
}

impl Rules for Spanish {
    type Geometry = Board8;
    const VARIANT: Variant = Variant::Spanish;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 3;
    const MEN_CAPTURE_BACKWARD: bool = false;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::MostPiecesThenKings;
    const MIRRORED: bool = true;
    const DRAW_RULES: DrawRules = REPETITION_ONLY;
}

impl Rules for Czech {
    type Geometry = Board8;
    const VARIANT: Variant = Variant::Czech;
    const FIRST_TO_MOVE: Color = Color::White;
    const START_ROWS: usize = 3;
    const MEN_CAPTURE_BACKWARD: bool = false;
    const FLYING_KINGS: bool = true;
    const PRECEDENCE: Precedence = Precedence::KingFirst;
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 3,
        no_progress_plies: 30,
        small_endgame: SmallEndgame::None,
    };
}

impl Rules for Towers {
    type Geometry = Board8;
    const VARIANT: Variant = Variant::Towers;
    const FIRST_TO_MOVE: Color = Color::Black;
    const WHITE_MOVES_UP: bool = false;
    const START_ROWS: usize = 3;
    const MEN_CAPTURE_BACKWARD: bool = false;
    const FLYING_KINGS: bool = false;
    const CAPTURE_COMPULSORY: bool = false;
    const MULTI_CAPTURE: bool = false;
    const PRECEDENCE: Precedence = Precedence::Free;
    const NOTATION: MoveNotation = MoveNotation::Cells;
    // The assignment has no draw rule at all.
    const DRAW_RULES: DrawRules = DrawRules {
        repetitions: 0,
        no_progress_plies: 0,
        small_endgame: SmallEndgame::None,
    };
}

/// A variant chosen at run time (CLI, protocols). Dispatch into the generic code with
/// [`with_variant!`](crate::with_variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// English / American checkers (the default).
    #[default]
    English,
    /// International draughts.
    International,
    /// Brazilian draughts.
    Brazilian,
    /// Russian draughts.
    Russian,
    /// Pool checkers.
    Pool,
    /// Italian draughts.
    Italian,
    /// Spanish draughts.
    Spanish,
    /// Czech draughts.
    Czech,
    /// The COMP10002 towers variant.
    Towers,
    /// Antidraughts (international rules, reversed goal).
    Antidraughts,
    /// Breakthrough (international rules, the first king wins).
    Breakthrough,
    /// Frisian draughts.
    Frisian,
    /// frysk! (Frisian from five men each).
    Frysk,
    /// Turkish draughts (dama).
    Turkish,
}

impl Variant {
    /// Every supported variant, the default first.
    pub const ALL: [Variant; 14] = [
        Variant::English,
        Variant::International,
        Variant::Brazilian,
        Variant::Russian,
        Variant::Pool,
        Variant::Italian,
        Variant::Spanish,
        Variant::Czech,
        Variant::Towers,
        Variant::Antidraughts,
        Variant::Breakthrough,
        Variant::Frisian,
        Variant::Frysk,
        Variant::Turkish,
    ];

    /// The lower-case name used on the command line and in protocols.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::English => "english",
            Variant::International => "international",
            Variant::Brazilian => "brazilian",
            Variant::Russian => "russian",
            Variant::Pool => "pool",
            Variant::Italian => "italian",
            Variant::Spanish => "spanish",
            Variant::Czech => "czech",
            Variant::Towers => "towers",
            Variant::Antidraughts => "antidraughts",
            Variant::Breakthrough => "breakthrough",
            Variant::Frisian => "frisian",
            Variant::Frysk => "frysk",
            Variant::Turkish => "turkish",
        }
    }
}

impl Variant {
    /// Other names accepted for the variant (case-insensitive), as other programs call it:
    /// Hub's `normal` and `losing` (Scan 3.1), `dama`, `shashki`, `frysk!`.
    pub const fn aliases(self) -> &'static [&'static str] {
        match self {
            Variant::English => &["american", "checkers"],
            Variant::International => &["normal", "fmjd", "10x10"],
            Variant::Russian => &["shashki"],
            Variant::Antidraughts => &["anti", "giveaway", "losing"],
            Variant::Frysk => &["frysk!"],
            Variant::Turkish => &["dama"],
            _ => &[],
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a variant name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        write!(
            f,
            "unknown variant '{}' (expected one of: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(text: &str) -> Result<Variant, UnknownVariant> {
        let lower = text.trim().to_ascii_lowercase();
        Variant::ALL
            .iter()
            .copied()
            .find(|v| v.name() == lower || v.aliases().contains(&lower.as_str()))
            .ok_or_else(|| UnknownVariant(text.to_string()))
    }
}

/// Runs an expression with a type alias bound to the rules of a run-time [`Variant`]:
/// `with_variant!(variant, R => perft::<R>(...))`.
#[macro_export]
macro_rules! with_variant {
    ($variant:expr, $rules:ident => $body:expr) => {
        $crate::match_rules_type!($variant, $crate::rules::Variant, $rules => $body;
            English International Brazilian Russian Pool Italian Spanish Czech Towers
            Antidraughts Breakthrough Frisian Frysk Turkish)
    };
}

/// The `match` behind [`with_variant!`] (and the CheckerBoard interface's `with_gametype!`):
/// each listed value `Name` of the enum `$enum` runs `$body` with the type alias `$rules`
/// bound to `rules::Name`, the rules type of the same name.
#[doc(hidden)]
#[macro_export]
macro_rules! match_rules_type {
    ($value:expr, $enum:path, $rules:ident => $body:expr; $($name:ident)+) => {{
        use $enum as __E;
        match $value {
            $(__E::$name => {
                type $rules = $crate::rules::$name;
                $body
            })+
        }
    }};
}

/// Row (0 = top, White's far side) and column (0 = left, as White sees it) of a bit on the
/// physical board.
pub fn physical_row_col<R: Rules>(bit: u8) -> (usize, usize) {
    let index = R::Geometry::SQUARE_OF[bit as usize] as usize;
    let (row, col) = R::Geometry::row_col(index);
    if R::MIRRORED {
        (row, R::Geometry::SIZE - 1 - col)
    } else {
        (row, col)
    }
}
