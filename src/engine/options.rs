//! The option values in force (`Options`), what kind of value each option takes (`OptionKind`, `OptionSpec`) and the options' bounds and defaults.

use crate::book::Book;
use crate::eval::{EvalFile, EvalSet};
use crate::rules::Variant;
use crate::search::skill::{self, MAX_LEVEL};
use std::sync::Arc;

/// The kind and range of an option, for `uci`/`hub` listings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer in a range.
    Spin {
        /// The value before any `setoption`.
        default: i64,
        /// Least allowed.
        min: i64,
        /// Most allowed.
        max: i64,
    },
    /// A boolean.
    Check {
        /// The value before any `setoption`.
        default: bool,
    },
    /// One of a list of words.
    Combo {
        /// The value before any `setoption`.
        default: &'static str,
        /// The words.
        values: Vec<&'static str>,
    },
    /// An action without a value.
    Button,
    /// Free text (a file name); `<empty>` is written for the empty default, as UCI GUIs
    /// expect.
    Text {
        /// The value before any `setoption`.
        default: &'static str,
    },
}

/// One option the engine understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name, as written in `setoption name ...`.
    pub name: &'static str,
    /// Kind, default and range.
    pub kind: OptionKind,
}

/// Largest `Hash` in MB.
pub const MAX_HASH_MB: i64 = 4096;
/// Default `EGTBCache` in MB: decoded table blocks kept in memory (0: no tables).
pub const DEFAULT_EGTB_CACHE_MB: usize = 64;
/// Most `Threads`.
pub const MAX_THREADS: i64 = 256;
/// Default `BookPly`: plies from the game's start in which the book plays any move within
/// `BookMargin` of its best.
pub const DEFAULT_BOOK_PLY: u32 = 6;
/// Default `BookMargin`, centi-men.
pub const DEFAULT_BOOK_MARGIN: i32 = 20;

/// The current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Transposition table size, MB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Lines reported.
    pub multipv: usize,
    /// The front end may ask for pondering.
    pub ponder: bool,
    /// Milliseconds kept in hand per move for communication delays.
    pub move_overhead_ms: u64,
    /// The weights file loaded by `EvalFile` (empty: the built-in weights).
    pub eval_file: String,
    /// That file's contents, checked when it was loaded; they replace the current variant's
    /// built-in weights at each search.
    pub eval_data: Option<EvalFile>,
    /// The endgame-table directory of `EGTBPath` (empty: the default directory,
    /// [`crate::egtb::default_dir`], when it holds tables).
    pub egtb_path: String,
    /// `EGTBCache`: MB of decoded table blocks kept in memory (0: tables off).
    pub egtb_cache_mb: usize,
    /// `Book`: a `go` that plays a game (with a clock or a move time) takes its move from
    /// the opening book when the book offers one.
    pub book: bool,
    /// The book file of `BookFile` (empty: the variant's built-in book).
    pub book_file: String,
    /// That file's book, checked when it was loaded (used in its own variant only; in
    /// another, the built-in book of that variant is).
    pub book_data: Option<Arc<Book>>,
    /// `BookPly`.
    pub book_ply: u32,
    /// `BookMargin`, centi-men.
    pub book_margin: i32,
    /// `Skill Level`: 0 (weakest) to [`MAX_LEVEL`] (full strength).
    pub skill_level: u32,
    /// `UCI_LimitStrength`: the level comes from `UCI_Elo` instead of `Skill Level`.
    pub limit_strength: bool,
    /// `UCI_Elo`, on the scale of docs/bench.md's calibration (full strength is
    /// [`skill::FULL_STRENGTH_ELO`]).
    pub elo: i32,
}

impl Options {
    /// The weights `EvalFile` gives `variant`, or `None` for its built-in set.
    pub fn weights_for(&self, variant: Variant) -> Option<EvalSet> {
        self.eval_data.as_ref()?.set_for(variant)
    }

    /// The strength level the options ask for, 0.0 to [`MAX_LEVEL`]: from `UCI_Elo` under
    /// `UCI_LimitStrength` (between two levels for an Elo between theirs), else `Skill Level`.
    pub fn strength(&self) -> f64 {
        if self.limit_strength {
            skill::level_for_elo(self.elo)
        } else {
            f64::from(self.skill_level)
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 64,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: 30,
            eval_file: String::new(),
            eval_data: None,
            egtb_path: String::new(),
            egtb_cache_mb: DEFAULT_EGTB_CACHE_MB,
            book: true,
            book_file: String::new(),
            book_data: None,
            book_ply: DEFAULT_BOOK_PLY,
            book_margin: DEFAULT_BOOK_MARGIN,
            skill_level: MAX_LEVEL,
            limit_strength: false,
            elo: skill::FULL_STRENGTH_ELO,
        }
    }
}
