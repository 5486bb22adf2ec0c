//! Opening books: the book file (a sorted table of positions with minimax values), its checks, and the choice of a book move.
//!
//! A book is a set of positions keyed by [`book_key`], each with a value for its side to
//! move. A position whose children were all scored is *expanded*: its value is the best of
//! its children's (negated), and the book offers its moves. Other positions are leaves,
//! valued by a fixed-depth search when they were added. Positions are keyed, not moves, so
//! lines that transpose share one entry. The layout is in `docs/book.md` and in
//! [`Book::to_bytes`]; [`build`] grows a book by drop-out expansion.

pub mod build;
pub mod builtin;

use crate::eval::patterns::fnv1a64;
use crate::notation::fen::write_fen;
use crate::position::{Move, Position};
use crate::random::SplitMix;
use crate::rules::{Rules, Variant};
use std::fmt;
use std::path::Path;

const MAGIC: &[u8; 8] = b"DAMKABK\0";
/// The book format version this build reads and writes.
pub const VERSION: u32 = 1;
const HEADER: usize = 40;
const ENTRY: usize = 16;
const TRAILER: usize = 8;
/// Largest value a book entry holds; a won position is stored as this, a lost one as its
/// negation.
pub const BOOK_WIN: i32 = 30_000;

/// The entry's children were all scored: the book offers its moves.
pub const EXPANDED: u8 = 1;
/// The game is over in this position (no legal move): it is never expanded.
pub const TERMINAL: u8 = 2;

/// The key of a position in a book: FNV-1a 64 of its FEN as damka writes it (numeric
/// squares, each side's squares in increasing order, kings marked `K`, e.g.
/// `W:W21,22,K30:B1,2`). Defined by text, so that another program can compute it, and
/// independent of the engine's Zobrist keys.
pub fn book_key<R: Rules>(position: &Position<R>) -> u64 {
    fnv1a64(write_fen(position).as_bytes())
}

/// One position of a book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// [`book_key`] of the position.
    pub key: u64,
    /// Its value for the side to move, centi-men (clamped to `±BOOK_WIN`).
    pub value: i16,
    /// [`EXPANDED`], [`TERMINAL`] or neither (a leaf).
    pub flags: u8,
    /// Positions in the tree below it, itself included, counting a transposed position once
    /// for every line that reaches it (saturating).
    pub subtree: u32,
}

impl Entry {
    /// Whether the book offers this position's moves.
    pub fn is_expanded(&self) -> bool {
        self.flags & EXPANDED != 0
    }
}

message_error! {
    /// Why a book file was refused.
    BookError
}

/// A book move offered in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: Move,
    /// Its value for the side playing it (the child's value negated), centi-men.
    pub score: i32,
    /// The child's subtree size.
    pub subtree: u32,
    /// Whether the book goes on after this move (the child is expanded).
    pub expanded: bool,
}

/// An opening book of one variant.
#[derive(Clone, PartialEq, Eq)]
pub struct Book {
    variant: Variant,
    depth: u32,
    /// Sorted by key, keys distinct.
    entries: Vec<Entry>,
}

impl fmt::Debug for Book {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Book({}, depth {}, {} positions)",
            self.variant,
            self.depth,
            self.entries.len()
        )
    }
}

impl Book {
    /// A book of `variant` whose leaves were scored at `depth` plies; `entries` in any order,
    /// keys distinct.
    pub fn new(variant: Variant, depth: u32, mut entries: Vec<Entry>) -> Book {
        entries.sort_unstable_by_key(|entry| entry.key);
        entries.dedup_by_key(|entry| entry.key);
        Book {
            variant,
            depth,
            entries,
        }
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The depth of the searches that scored the leaves (plies).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the book holds no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, sorted by key.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry of `key`, if the book holds it.
    pub fn get(&self, key: u64) -> Option<&Entry> {
        self.entries
            .binary_search_by_key(&key, |entry| entry.key)
            .ok()
            .map(|index| &self.entries[index])
    }

    /// The entry of `position`, if the book holds it.
    pub fn entry<R: Rules>(&self, position: &Position<R>) -> Option<&Entry> {
        self.get(book_key(position))
    }

    /// The moves the book offers in `position`, best first (ties in move-generation order):
    /// none unless the position is expanded in the book.
    pub fn moves<R: Rules>(&self, position: &Position<R>) -> Vec<BookMove> {
        if R::VARIANT != self.variant || !self.entry(position).is_some_and(Entry::is_expanded) {
            return Vec::new();
        }
        let mut moves: Vec<BookMove> = position
            .legal_moves()
            .iter()
            .filter_map(|mv| {
                let child = self.entry(&position.play(mv))?;
                Some(BookMove {
                    mv: *mv,
                    score: -i32::from(child.value),
                    subtree: child.subtree,
                    expanded: child.is_expanded(),
                })
            })
            .collect();
        moves.sort_by_key(|book_move| std::cmp::Reverse(book_move.score));
        moves
    }

    /// The file's bytes (all integers little-endian):
    /// ```text
    ///  0  magic "DAMKABK\0"      8 bytes
    ///  8  version (1)            u32
    /// 12  leaf search depth      u32
    /// 16  variant name           16 bytes, ASCII, zero-padded
    /// 32  entries                u64
    /// 40  entries, by key        16 bytes each: key u64, value i16, flags u8, 0 u8, subtree u32
    ///     checksum               u64, FNV-1a 64 of every byte before it
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(HEADER + ENTRY * self.entries.len() + TRAILER);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&self.depth.to_le_bytes());
        let mut name = [0u8; 16];
        let text = self.variant.name().as_bytes();
        name[..text.len()].copy_from_slice(text);
        bytes.extend_from_slice(&name);
        bytes.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for entry in &self.entries {
            bytes.extend_from_slice(&entry.key.to_le_bytes());
            bytes.extend_from_slice(&entry.value.to_le_bytes());
            bytes.push(entry.flags);
            bytes.push(0);
            bytes.extend_from_slice(&entry.subtree.to_le_bytes());
        }
        let checksum = fnv1a64(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Reads a book from its bytes, checking everything [`Book::to_bytes`] writes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        let fail = |reason: String| Err(BookError(reason));
        if bytes.len() < HEADER + TRAILER || &bytes[..8] != MAGIC {
            return fail("not a damka book (bad magic)".into());
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let version = u32_at(8);
        if version != VERSION {
            return fail(format!(
                "book format version {version}; this build reads version {VERSION}"
            ));
        }
        let depth = u32_at(12);
        let name_bytes = &bytes[16..32];
        let name_end = name_bytes.iter().position(|&b| b == 0).unwrap_or(16);
        let Ok(name) = std::str::from_utf8(&name_bytes[..name_end]) else {
            return fail("the variant name is not text".into());
        };
        let Ok(variant) = name.parse::<Variant>() else {
            return fail(format!("unknown variant '{name}'"));
        };
        let count = u64::from_le_bytes(bytes[32..40].try_into().unwrap());
        let expected = (count as u128) * ENTRY as u128 + (HEADER + TRAILER) as u128;
        if expected != bytes.len() as u128 {
            return fail(format!(
                "{} bytes where {count} entries need {expected} (truncated or damaged)",
                bytes.len()
            ));
        }
        let body = bytes.len() - TRAILER;
        let stored = u64::from_le_bytes(bytes[body..].try_into().unwrap());
        if fnv1a64(&bytes[..body]) != stored {
            return fail("checksum mismatch (the file is damaged)".into());
        }
        let mut entries = Vec::with_capacity(count as usize);
        for chunk in bytes[HEADER..body].chunks_exact(ENTRY) {
            let entry = Entry {
                key: u64::from_le_bytes(chunk[0..8].try_into().unwrap()),
                value: i16::from_le_bytes(chunk[8..10].try_into().unwrap()),
                flags: chunk[10],
                subtree: u32::from_le_bytes(chunk[12..16].try_into().unwrap()),
            };
            if entry.flags & !(EXPANDED | TERMINAL) != 0 || chunk[11] != 0 {
                return fail(format!("entry {} has unknown flags", entries.len()));
            }
            if i32::from(entry.value).abs() > BOOK_WIN {
                return fail(format!("entry {} has value {}", entries.len(), entry.value));
            }
            if entries
                .last()
                .is_some_and(|last: &Entry| last.key >= entry.key)
            {
                return fail(format!("entry {} is out of key order", entries.len()));
            }
            entries.push(entry);
        }
        Ok(Book {
            variant,
            depth,
            entries,
        })
    }

    /// Reads and checks a book file.
    pub fn read(path: &Path) -> Result<Book, BookError> {
        let bytes =
            std::fs::read(path).map_err(|e| BookError(format!("book {}: {e}", path.display())))?;
        Book::from_bytes(&bytes).map_err(|e| BookError(format!("book {}: {e}", path.display())))
    }

    /// Writes the book to `path` through a temporary file, so a killed run leaves the old
    /// file or the new one.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        crate::egtb::file::write_atomically(path, &self.to_bytes())
    }
}

/// How the engine picks among the book's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Plies from the game's start during which any move within `margin` of the best may be
    /// played (Scan's `book-ply`); the best move after that.
    pub random_plies: u32,
    /// Centi-men below the best that a move may score and still be played at random (Scan's
    /// `book-margin`).
    pub margin: i32,
}

/// The move to play from `moves` (best first, as [`Book::moves`] gives them) at game ply
/// `ply`: uniformly at random among those within the margin while `ply` is below
/// `random_plies`, else the best. `None` when `moves` is empty.
pub fn choose(moves: &[BookMove], ply: usize, choice: Choice, rng: &mut SplitMix) -> Option<Move> {
    let best = moves.first()?;
    if ply >= choice.random_plies as usize {
        return Some(best.mv);
    }
    let within = moves
        .iter()
        .take_while(|m| m.score >= best.score - choice.margin)
        .count();
    Some(moves[rng.below(within)].mv)
}

/// A value for the book: a search score clamped into `±BOOK_WIN`.
pub fn book_value(score: i32) -> i16 {
    score.clamp(-BOOK_WIN, BOOK_WIN) as i16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::English;

    fn sample() -> Book {
        let start = Position::<English>::start();
        let mut entries = vec![Entry {
            key: book_key(&start),
            value: 5,
            flags: EXPANDED,
            subtree: 8,
        }];
        for (index, mv) in start.legal_moves().iter().enumerate() {
            entries.push(Entry {
                key: book_key(&start.play(mv)),
                value: -5 + 3 * index as i16,
                flags: 0,
                subtree: 1,
            });
        }
        Book::new(Variant::English, 12, entries)
    }

    #[test]
    fn a_book_survives_its_file_and_every_damage_is_caught() {
        let book = sample();
        let bytes = book.to_bytes();
        assert_eq!(Book::from_bytes(&bytes).unwrap(), book);
        for at in [0, 9, 20, 45, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(Book::from_bytes(&damaged).is_err(), "byte {at}");
        }
        assert!(Book::from_bytes(&bytes[..bytes.len() - 3]).is_err());
        assert!(Book::from_bytes(b"").is_err());
    }

    #[test]
    fn moves_come_best_first_and_the_margin_bounds_the_choice() {
        let book = sample();
        let start = Position::<English>::start();
        let moves = book.moves(&start);
        assert_eq!(moves.len(), 7);
        assert!(moves.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(moves[0].score, 5);
        let mut rng = SplitMix(7);
        let choice = Choice {
            random_plies: 4,
            margin: 3,
        };
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let mv = choose(&moves, 0, choice, &mut rng).unwrap();
            seen.insert(moves.iter().position(|m| m.mv == mv).unwrap());
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(choose(&moves, 4, choice, &mut rng), Some(moves[0].mv));
        // A leaf offers nothing.
        assert!(book.moves(&start.play(&moves[0].mv)).is_empty());
    }
}
