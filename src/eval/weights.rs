//! The evaluation weights: the `Weights` struct, the default set of each variant family, and a flat and a text form for tuners.
//!
//! Every number the evaluation uses lives here. A tuner (Texel's method: fit the weights so
//! that a logistic of the score predicts game results) can read a set as a flat vector with
//! [`Weights::to_vec`], write one back with [`Weights::with_values`], and store or load it as
//! text with [`Weights::to_text`] and [`Weights::parse_text`]; the search then runs with it
//! through [`crate::eval::evaluate_with`].
//!
//! Units are centi-men: a man is worth 100. "Opening" and "endgame" weights are blended by the
//! amount of material left (all pieces on the board at the start = opening, none = endgame),
//! as in Fruit-style tapered evaluation and in Scan 3.0 (`eval.cpp`, a middle-game and an
//! endgame weight per feature interpolated by the game stage). Ranks count from the side's own
//! back row (rank 0) towards its promotion row (rank `SIZE - 1`).
//!
//! The international set is tuned (`damka tune fit`, Texel's method: [`INTERNATIONAL_LINEAR`];
//! then `damka tune patterns` together with the block tables of the pattern evaluation:
//! [`INTERNATIONAL`] and `src/eval/data/international.dkw`); so is the English set, by
//! `damka tune patterns` from [`ENGLISH_HAND_SET`] ([`ENGLISH`] and
//! `src/eval/data/english.dkw`), and the Russian set, shared by Brazilian and Pool ([`RUSSIAN`]
//! and `src/eval/data/russian.dkw`), the Italian set ([`ITALIAN`] and
//! `src/eval/data/italian.dkw`), the Spanish set ([`SPANISH`] and
//! `src/eval/data/spanish.dkw`), the Czech set ([`CZECH`] and `src/eval/data/czech.dkw`), the
//! Frisian set ([`FRISIAN`] and `src/eval/data/frisian.dkw`) and the frysk! set ([`FRYSK`]
//! and `src/eval/data/frysk.dkw`). The other defaults are
//! hand-set starting points, not tuned: the king values follow the usual rules of thumb of
//! each game (Russian king two and a half to three men, checkers king about one and a half;
//! the hand-set international king was about three), the rest are small positional nudges
//! chosen so that no combination of them outweighs a man.

use crate::rules::{Rules, Variant};
use std::fmt;

// `built_in_weights!(variant)`: the linear weights of `src/eval/data/VARIANT.dkw`, turned into
// a `Weights` literal by build.rs.
include!(concat!(env!("OUT_DIR"), "/built_in_weights.rs"));

/// The most ranks a board has (10x10).
pub const MAX_RANKS: usize = 10;

/// The number of distances from promotion for which [`Weights::runaway`] has a weight.
pub const RUNAWAY_DISTANCES: usize = 3;

/// A weight field of [`Weights`]: one number or a fixed-size array of them.
trait Slot {
    /// True for an array (written with all its values on one line).
    const ARRAY: bool;
    fn values(&self) -> &[i32];
    fn values_mut(&mut self) -> &mut [i32];
}

impl Slot for i32 {
    const ARRAY: bool = false;
    fn values(&self) -> &[i32] {
        std::slice::from_ref(self)
    }
    fn values_mut(&mut self) -> &mut [i32] {
        std::slice::from_mut(self)
    }
}

impl<const N: usize> Slot for [i32; N] {
    const ARRAY: bool = true;
    fn values(&self) -> &[i32] {
        self
    }
    fn values_mut(&mut self) -> &mut [i32] {
        self
    }
}

/// Declares [`Weights`] and, from the same list, the visitors that give every field its name,
/// so the flat and text forms can never miss a field.
macro_rules! weights_struct {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        /// One complete set of evaluation weights (centi-men; see the module documentation).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Weights {
            $($(#[$doc])* pub $field: $ty,)*
        }

        impl Weights {
            /// Calls `f` with the name, the array flag and the values of every field, in
            /// declaration order.
            fn visit(&self, f: &mut dyn FnMut(&'static str, bool, &[i32])) {
                $(f(stringify!($field), <$ty as Slot>::ARRAY, self.$field.values());)*
            }

            /// Like [`Weights::visit`], with the values writable.
            fn visit_mut(&mut self, f: &mut dyn FnMut(&'static str, bool, &mut [i32])) {
                $(f(stringify!($field), <$ty as Slot>::ARRAY, self.$field.values_mut());)*
            }
        }
    };
}

weights_struct! {
    /// A man. The unit of the scale: 100 in every default set.
    man: i32,
    /// A king, with all the material on the board.
    king_opening: i32,
    /// A king, in a bare endgame.
    king_endgame: i32,
    /// Extra for having at least one king: the first king changes the game far more than
    /// the next ones (Scan 3.0 gives the first king and the further kings separate weights).
    first_king: i32,
    /// Per man on each rank (index = rank, 0 = own back row), with all the material on.
    advance_opening: [i32; MAX_RANKS],
    /// Per man on each rank, in a bare endgame: progress towards promotion counts more as
    /// the board empties.
    advance_endgame: [i32; MAX_RANKS],
    /// Per rank advanced, summed over the men (the checkers "tempo" count, Samuel 1959 and
    /// Chinook), with all the material on. Adds a linear part to the advancement tables.
    tempo_opening: i32,
    /// Per rank advanced, summed over the men, in a bare endgame.
    tempo_endgame: i32,
    /// Per man on its own back row while the opponent still has men to crown (Samuel's
    /// BACK term; Chinook's back-rank guard).
    back_rank: i32,
    /// Per man on the central squares (the two middle rows, without the two outer columns
    /// on each side; Samuel's CENT term).
    centre: i32,
    /// Per man of difference between the men on the left and right halves, usually
    /// negative: Scan 3.0 scores the left/right balance of each side.
    balance: i32,
    /// Per non-capturing step of a man to a square where no enemy piece in front can take
    /// it at once (Samuel's MOB, restricted to safe steps).
    mobility: i32,
    /// Per square a king can step to (flying kings: every square along the open lines;
    /// short kings: the empty neighbours). Scan 3.0 also scores king mobility.
    king_mobility: i32,
    /// Per runaway man, by distance from promotion (index 0 = one step): a man whose way
    /// to the promotion row is clear (Chinook's "runaway checker"). One step away the man
    /// needs one empty square ahead; farther, the whole cone ahead must be empty and the
    /// opponent must have no king.
    runaway: [i32; RUNAWAY_DISTANCES],
    /// Per king on the main (long) diagonal, which a flying king holds against several
    /// kings (Petrov's triangle needs it free in Russian draughts).
    king_main_diagonal: i32,
    /// Per king on the central 4x4 squares (Samuel's KCENT: short kings belong in the centre,
    /// away from the edges and corners where they are trapped).
    king_centre: i32,
    /// Per man on each column, counted from the side's own left (index 0 = the leftmost
    /// column as the side sees the board): edge men have half the ways forward and are
    /// easier to block, and the two wings of a 10x10 board play differently.
    column: [i32; MAX_RANKS],
    /// Per man with no empty square ahead of it (a locked man cannot move until the
    /// position opens; many locked men are the "frozen" formations that lose on tempo).
    locked_men: i32,
    /// Per man with pieces of its own side on both squares behind it: it cannot be taken
    /// from in front, and an exchange on it is answered at once.
    supported_men: i32,
    /// The endgame part of [`Weights::back_rank`]: added in full with no material left and
    /// blended in as the board empties, like the `_endgame` weights of the tapered terms
    /// (0 = the same weight in every phase).
    back_rank_endgame: i32,
    /// The endgame part of [`Weights::centre`] (see [`Weights::back_rank_endgame`]).
    centre_endgame: i32,
    /// The endgame part of [`Weights::balance`] (see [`Weights::back_rank_endgame`]).
    balance_endgame: i32,
    /// The endgame part of [`Weights::mobility`] (see [`Weights::back_rank_endgame`]).
    mobility_endgame: i32,
    /// The endgame part of [`Weights::column`] (see [`Weights::back_rank_endgame`]).
    column_endgame: [i32; MAX_RANKS],
    /// The endgame part of [`Weights::locked_men`] (see [`Weights::back_rank_endgame`]).
    locked_men_endgame: i32,
    /// The endgame part of [`Weights::supported_men`] (see [`Weights::back_rank_endgame`]).
    supported_men_endgame: i32,
    /// For the side to move (the move itself is worth something).
    side_to_move: i32,
    /// Drawish material, as in Scan 3.0: a side ahead with at most this many pieces against
    /// an opponent with a king can rarely win; its score is divided by `drawish_divisor`
    /// (0 = no such rule).
    drawish_pieces: i32,
    /// The same, against a lone king on the main diagonal (the Russian three-kings rule); 0 =
    /// no such rule.
    drawish_pieces_diagonal: i32,
    /// The divisor of drawish material (1 = no scaling).
    drawish_divisor: i32,
    /// Divisor of a lead when both sides have the same number of kings (at least one) and
    /// their men differ by at most one, as in Scan 3.0 (1 = no scaling).
    king_parity_divisor: i32,
}

/// International draughts (10x10, flying kings), the linear evaluation before the block
/// tables (still the base of Frisian): tuned by Texel's method (docs/journal.md,
/// "Tuned evaluation"). First fitted from [`INTERNATIONAL_HAND_SET`] on 2026-11-23 (323,778
/// positions of 3000 depth-6 games; held-out error 0.08638 -> 0.08394), then refitted the
/// same day with the column, locked-men and supported-men terms added (all three started at
/// 0), from the first tuned set:
///
/// ```text
/// damka tune gen --variant international --games 3000 --depth 6 --seed 5 --threads 2 --out intl-gen5.txt
/// damka tune fit intl-gen5.txt --variant international --epochs 1000 --l2 0.0001 --out w-new.txt
/// ```
///
/// (345,647 quiet positions; held-out error 0.07198 -> 0.07027, of which the refit of the old
/// terms alone gives 0.07149). Then refitted once more from that set on those positions and
/// 334,868 more from 3000 games of the engine with it (`--seed 6`, the file appended after
/// the first, so the held-out tenth comes from the new games; held-out error 0.079235 ->
/// 0.078832). Then refitted from that set with the endgame parts of the back-rank, centre,
/// balance, mobility, column, locked-men and supported-men weights added (started at 0), on
/// those 680,515 positions and 337,673 more from 3000 games of the engine with it (`--seed
/// 7`; held-out error 0.078406 -> 0.077925, against 0.078196 for a refit without the new
/// parts). The man and the drawish-material rules were held fixed.
pub const INTERNATIONAL_LINEAR: Weights = Weights {
    man: 100,
    king_opening: 377,
    king_endgame: 112,
    first_king: 173,
    advance_opening: [67, 79, 60, 41, 29, 1, -45, -36, 34, 0],
    advance_endgame: [-42, -33, -28, -17, -13, 5, 39, 67, 20, 0],
    tempo_opening: 16,
    tempo_endgame: -5,
    back_rank: 17,
    centre: -21,
    balance: 2,
    mobility: 0,
    king_mobility: 2,
    runaway: [178, 70, 36],
    king_main_diagonal: 21,
    king_centre: -6,
    column: [-3, -5, 0, 3, 22, 10, 9, -6, -5, 12],
    locked_men: 1,
    supported_men: -6,
    back_rank_endgame: -4,
    centre_endgame: 32,
    balance_endgame: -15,
    mobility_endgame: 7,
    column_endgame: [-3, 5, 16, 5, -20, -6, -8, 17, 8, -19],
    locked_men_endgame: 14,
    supported_men_endgame: -5,
    side_to_move: 4,
    drawish_pieces: 3,
    drawish_pieces_diagonal: 0,
    drawish_divisor: 8,
    king_parity_divisor: 2,
};

/// International draughts (10x10, flying kings), the weights beside the block tables of the
/// pattern evaluation: fitted together with them by `damka tune patterns` (docs/journal.md,
/// "Pattern evaluation" and "International tables on 14.7 M positions") on 14,684,994 quiet
/// positions of 130,000 self-play games of three generations (`data/selfplay`), starting from
/// [`INTERNATIONAL_LINEAR`]; held-out logistic loss 0.614761 -> 0.609246 on the last 5%. They
/// are the text of the built-in weights file `src/eval/data/international.dkw`, read from that
/// file when the crate is built (build.rs), so that the compiler can fold them.
pub const INTERNATIONAL: Weights = built_in_weights!(international);

/// the hand-set international weights that [`INTERNATIONAL_LINEAR`] was tuned from, kept to compare
/// against (write them with [`Weights::to_text`] and load them with the `EvalFile` option).
pub const INTERNATIONAL_HAND_SET: Weights = Weights {
    man: 100,
    king_opening: 270,
    king_endgame: 300,
    first_king: 40,
    advance_opening: [0, 0, 1, 2, 3, 4, 5, 6, 8, 0],
    advance_endgame: [0, 2, 4, 6, 9, 13, 18, 25, 35, 0],
    tempo_opening: 0,
    tempo_endgame: 0,
    back_rank: 3,
    centre: 6,
    balance: -3,
    mobility: 2,
    king_mobility: 1,
    runaway: [70, 35, 15],
    king_main_diagonal: 20,
    king_centre: 0,
    column: [0; MAX_RANKS],
    locked_men: 0,
    supported_men: 0,
    back_rank_endgame: 0,
    centre_endgame: 0,
    balance_endgame: 0,
    mobility_endgame: 0,
    column_endgame: [0; MAX_RANKS],
    locked_men_endgame: 0,
    supported_men_endgame: 0,
    side_to_move: 5,
    drawish_pieces: 3,
    drawish_pieces_diagonal: 0,
    drawish_divisor: 8,
    king_parity_divisor: 2,
};

/// Flying kings on 8x8, hand-set: the start of the Russian, Spanish and Czech fits.
pub const FLYING_8X8: Weights = Weights {
    man: 100,
    king_opening: 240,
    king_endgame: 270,
    first_king: 30,
    advance_opening: [0, 1, 2, 3, 4, 6, 8, 0, 0, 0],
    advance_endgame: [0, 3, 6, 10, 15, 22, 32, 0, 0, 0],
    tempo_opening: 0,
    tempo_endgame: 0,
    back_rank: 5,
    centre: 8,
    balance: -2,
    mobility: 2,
    king_mobility: 1,
    runaway: [70, 35, 15],
    king_main_diagonal: 25,
    king_centre: 0,
    column: [0; MAX_RANKS],
    locked_men: 0,
    supported_men: 0,
    back_rank_endgame: 0,
    centre_endgame: 0,
    balance_endgame: 0,
    mobility_endgame: 0,
    column_endgame: [0; MAX_RANKS],
    locked_men_endgame: 0,
    supported_men_endgame: 0,
    side_to_move: 5,
    drawish_pieces: 2,
    drawish_pieces_diagonal: 3,
    drawish_divisor: 8,
    king_parity_divisor: 2,
};

/// Russian draughts (8x8, flying kings, men capture backwards), also Brazilian and Pool
/// checkers: the linear part of the built-in weights file `src/eval/data/russian.dkw`, fitted
/// by `damka tune patterns` from [`FLYING_8X8`] together with the block tables on 3.6 M Russian
/// self-play positions (docs/journal.md, "Russian, Brazilian and Pool with block tables"); read
/// from that file when the crate is built (build.rs), so that the compiler can fold them.
pub const RUSSIAN: Weights = built_in_weights!(russian);

/// Spanish draughts (8x8 mirrored, flying kings, men capture forwards only): the linear part of
/// the built-in weights file `src/eval/data/spanish.dkw`, fitted by `damka tune patterns` from
/// [`FLYING_8X8`] together with the block tables on 3.0 M Spanish self-play positions
/// (docs/journal.md, "Spanish with block tables"); read from that file when the crate is built
/// (build.rs), so that the compiler can fold them.
pub const SPANISH: Weights = built_in_weights!(spanish);

/// Czech draughts (8x8, flying kings, men capture forwards only, a capture by a king first):
/// the linear part of the built-in weights file `src/eval/data/czech.dkw`, fitted by `damka
/// tune patterns` from [`FLYING_8X8`] together with the block tables on 1.3 M Czech self-play
/// positions (docs/journal.md, "Czech with block tables"); read from that file when the crate
/// is built (build.rs), so that the compiler can fold them.
pub const CZECH: Weights = built_in_weights!(czech);

/// English / American checkers: the linear part of the built-in weights file
/// (`src/eval/data/english.dkw`, men and king tables fitted together with these weights by
/// `damka tune patterns --kings --lambda 0` on 10.0 M published self-play positions, the
/// commands of data/README.md), read from that file when the crate is built (build.rs).
/// English plays with its network ([`super::network`]); these weights are the start of an
/// English fit and what `EvalFile english.dkw` plays.
pub const ENGLISH: Weights = built_in_weights!(english);

/// Short kings on 8x8, set by hand: the base of towers (and where the Italian fit started), the stand-in for
/// Turkish's weight text, and English's set before the fit.
pub const ENGLISH_HAND_SET: Weights = Weights {
    man: 100,
    king_opening: 140,
    king_endgame: 150,
    first_king: 0,
    advance_opening: [0, 0, 0, 0, 0, 2, 4, 0, 0, 0],
    advance_endgame: [0, 0, 0, 0, 2, 5, 10, 0, 0, 0],
    tempo_opening: 1,
    tempo_endgame: 4,
    back_rank: 8,
    centre: 6,
    balance: 0,
    mobility: 2,
    king_mobility: 3,
    runaway: [40, 20, 10],
    king_main_diagonal: 0,
    king_centre: 8,
    column: [0; MAX_RANKS],
    locked_men: 0,
    supported_men: 0,
    back_rank_endgame: 0,
    centre_endgame: 0,
    balance_endgame: 0,
    mobility_endgame: 0,
    column_endgame: [0; MAX_RANKS],
    locked_men_endgame: 0,
    supported_men_endgame: 0,
    side_to_move: 5,
    drawish_pieces: 0,
    drawish_pieces_diagonal: 0,
    drawish_divisor: 1,
    king_parity_divisor: 1,
};

/// Italian draughts (8x8, short kings that men may not capture): the linear part of the
/// built-in weights file `src/eval/data/italian.dkw`, fitted by `damka tune patterns` from
/// [`ITALIAN_HAND_SET`] together with the block tables on 3.0 M Italian self-play positions
/// (docs/journal.md, "Italian with block tables"); read from that file when the crate is built
/// (build.rs), so that the compiler can fold them.
pub const ITALIAN: Weights = built_in_weights!(italian);

/// Italian, set by hand: the English hand-set weights with a king at 160 / 170 and runaways
/// at 55 / 28 / 12, where the Italian fit started from.
pub const ITALIAN_HAND_SET: Weights = Weights {
    king_opening: 160,
    king_endgame: 170,
    runaway: [55, 28, 12],
    ..ENGLISH_HAND_SET
};

/// The sets that the built-in weights files were fitted from, by name: `damka tune patterns
/// --start-set NAME` starts there, so that data/README.md's commands reproduce each file.
pub const STARTING_SETS: [(&str, &Weights); 6] = [
    ("INTERNATIONAL_LINEAR", &INTERNATIONAL_LINEAR),
    ("INTERNATIONAL_HAND_SET", &INTERNATIONAL_HAND_SET),
    ("FLYING_8X8", &FLYING_8X8),
    ("ENGLISH_HAND_SET", &ENGLISH_HAND_SET),
    ("ITALIAN_HAND_SET", &ITALIAN_HAND_SET),
    ("ORTHOGONAL_START", &ORTHOGONAL_START),
];

/// The COMP10002 towers variant: towers step one square in every direction; capturing is
/// optional and one jump at a time, so a tower is hard to win back. The assignment's own
/// board cost counts a tower as three men; here it sits between that and a checkers king.
pub const TOWERS: Weights = Weights {
    king_opening: 170,
    king_endgame: 180,
    runaway: [60, 30, 12],
    ..ENGLISH_HAND_SET
};

/// Breakthrough: the international set fitted with the block tables (which breakthrough
/// shares), with a man whose way to the last row is clear worth close to the game (the first
/// king wins), in place of the few tenths of a man it is worth when a king is only a strong
/// piece.
pub const BREAKTHROUGH: Weights = Weights {
    runaway: [1500, 900, 500],
    ..INTERNATIONAL
};

/// The international linear set without the bonus for a king on the long diagonal (with
/// captures along rows and columns a king's reach does not hang on one diagonal): where the
/// Frisian and frysk! fits started from.
pub const ORTHOGONAL_START: Weights = Weights {
    king_main_diagonal: 0,
    ..INTERNATIONAL_LINEAR
};

/// Frysk! (Frisian rules, five men a side): the linear part of the built-in weights file
/// `src/eval/data/frysk.dkw`, fitted by `damka tune patterns` from [`ORTHOGONAL_START`]
/// together with the block tables and the material prior on 2.1 M frysk! self-play positions
/// (docs/journal.md, "Frysk! with block tables and the material prior"); read from that file
/// when the crate is built (build.rs), so that the compiler can fold them.
pub const FRYSK: Weights = built_in_weights!(frysk);

/// Frisian draughts (10x10, men and kings capture along rows and columns too): the linear part
/// of the built-in weights file `src/eval/data/frisian.dkw`, fitted by `damka tune patterns`
/// from [`ORTHOGONAL_START`] together with the block tables on 3.0 M Frisian self-play
/// positions (docs/journal.md, "Frisian with block tables"); read from that file when the crate
/// is built (build.rs), so that the compiler can fold them.
pub const FRISIAN: Weights = built_in_weights!(frisian);

/// The default weights of a variant.
pub const fn for_variant(variant: Variant) -> &'static Weights {
    match variant {
        // Antidraughts does not use the weights: its evaluation counts material reversed
        // (`eval::score`); the international set stands in for `EvalFile` parsing.
        Variant::International | Variant::Antidraughts => &INTERNATIONAL,
        Variant::Breakthrough => &BREAKTHROUGH,
        Variant::Frisian => &FRISIAN,
        Variant::Frysk => &FRYSK,
        // Turkish does not use the weights: its evaluation is its own (`eval::rook_score`);
        // the English set stands in for `EvalFile` parsing.
        Variant::Turkish => &ENGLISH_HAND_SET,
        Variant::Russian | Variant::Brazilian | Variant::Pool => &RUSSIAN,
        Variant::Spanish => &SPANISH,
        Variant::Czech => &CZECH,
        Variant::English => &ENGLISH,
        Variant::Italian => &ITALIAN,
        Variant::Towers => &TOWERS,
    }
}

/// The default weights of the variant `R`.
#[inline(always)]
pub const fn weights<R: Rules>() -> &'static Weights {
    for_variant(R::VARIANT)
}

/// Why a weight text was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    /// A line names no field of [`Weights`].
    UnknownName(String),
    /// A field's line has the wrong number of values or a value that is not an integer.
    BadValues(String),
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::UnknownName(name) => write!(f, "unknown weight '{name}'"),
            WeightsError::BadValues(line) => write!(f, "bad weight values in '{line}'"),
        }
    }
}

impl std::error::Error for WeightsError {}

impl Weights {
    /// Every weight as one flat vector, fields in declaration order and arrays in index
    /// order (the parameter vector of a tuner).
    pub fn to_vec(&self) -> Vec<i32> {
        let mut out = Vec::new();
        self.visit(&mut |_, _, values| out.extend_from_slice(values));
        out
    }

    /// The name of each entry of [`Weights::to_vec`]: the field, with `[i]` for arrays.
    pub fn names() -> Vec<String> {
        let mut out = Vec::new();
        ENGLISH.visit(&mut |name, array, values| {
            if array {
                out.extend((0..values.len()).map(|i| format!("{name}[{i}]")));
            } else {
                out.push(name.to_string());
            }
        });
        out
    }

    /// A set made from a flat vector in the order of [`Weights::to_vec`]; `None` when the
    /// length is wrong.
    pub fn with_values(&self, values: &[i32]) -> Option<Weights> {
        if values.len() != self.to_vec().len() {
            return None;
        }
        let mut out = *self;
        let mut rest = values;
        out.visit_mut(&mut |_, _, slot| {
            let (head, tail) = rest.split_at(slot.len());
            slot.copy_from_slice(head);
            rest = tail;
        });
        Some(out)
    }

    /// The set as text: one line per field, `name value` or `name v0 v1 ...` for arrays.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.visit(&mut |name, _, values| {
            out.push_str(name);
            for value in values {
                out.push(' ');
                out.push_str(&value.to_string());
            }
            out.push('\n');
        });
        out
    }

    /// This set with the fields given in `text` replaced (the format of
    /// [`Weights::to_text`]; blank lines and `#` comments are ignored, fields not named keep
    /// their values).
    pub fn parse_text(&self, text: &str) -> Result<Weights, WeightsError> {
        let mut out = *self;
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace();
            let Some(name) = words.next() else {
                continue;
            };
            let values: Result<Vec<i32>, _> = words.map(str::parse::<i32>).collect();
            let values = values.map_err(|_| WeightsError::BadValues(line.to_string()))?;
            let mut found = false;
            let mut fits = false;
            out.visit_mut(&mut |field, _, slot| {
                if field == name {
                    found = true;
                    if slot.len() == values.len() {
                        fits = true;
                        slot.copy_from_slice(&values);
                    }
                }
            });
            if !found {
                return Err(WeightsError::UnknownName(name.to_string()));
            }
            if !fits {
                return Err(WeightsError::BadValues(line.to_string()));
            }
        }
        Ok(out)
    }
}

impl Default for Weights {
    /// The international set.
    fn default() -> Self {
        INTERNATIONAL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_text_forms_round_trip() {
        for variant in Variant::ALL {
            let weights = for_variant(variant);
            let flat = weights.to_vec();
            assert_eq!(flat.len(), Weights::names().len());
            assert_eq!(ENGLISH.with_values(&flat).as_ref(), Some(weights));
            assert_eq!(ENGLISH.parse_text(&weights.to_text()).as_ref(), Ok(weights));
        }
        assert_eq!(ENGLISH.with_values(&[1, 2, 3]), None);
    }

    #[test]
    fn text_overrides_only_the_named_fields() {
        let text = "# a comment\n\nking_opening 123\nrunaway 1 2 3 # trailing\n";
        let parsed = ENGLISH.parse_text(text).expect("valid text");
        assert_eq!(parsed.king_opening, 123);
        assert_eq!(parsed.runaway, [1, 2, 3]);
        assert_eq!(parsed.king_endgame, ENGLISH.king_endgame);
        assert!(matches!(
            ENGLISH.parse_text("kingg 1"),
            Err(WeightsError::UnknownName(_))
        ));
        assert!(matches!(
            ENGLISH.parse_text("runaway 1 2"),
            Err(WeightsError::BadValues(_))
        ));
        assert!(matches!(
            ENGLISH.parse_text("man x"),
            Err(WeightsError::BadValues(_))
        ));
    }

    /// The first king outweighs a man in every phase. (Further kings may be worth less in a
    /// fitted set, where the other terms carry part of their worth: whether crowning a man
    /// raises the score in real positions is checked on the whole evaluation, in
    /// `eval::tests`, `a_king_is_worth_more_than_a_man`.)
    #[test]
    fn a_first_king_is_worth_more_than_a_man_in_every_set() {
        for variant in Variant::ALL {
            let w = for_variant(variant);
            assert!(w.king_opening + w.first_king > w.man, "{variant}");
            assert!(w.king_endgame + w.first_king > w.man, "{variant}");
            assert!(w.drawish_divisor >= 1 && w.king_parity_divisor >= 1);
        }
    }
}
