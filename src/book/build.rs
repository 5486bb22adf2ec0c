//! Growing a book by drop-out expansion: the cheapest leaves by depth and score loss are expanded in rounds, their children scored by fixed-depth searches on every thread.
//!
//! The method is Lincke's ("Strategies for the automatic construction of opening books",
//! Computers and Games 2000), as Kingsrow's book builder uses it: every position of the book
//! has a minimax value (a leaf's is its search score, an expanded position's the best of its
//! children's, negated), and a leaf's priority is the cost of the cheapest line from a root
//! to it, where each ply costs `drop_unit` and each move costs the centi-men it loses against
//! the best move of its position. The cheapest leaves are expanded first, so the book grows
//! deep along the good lines and shallow along the bad ones, and a line that turns bad after
//! a deeper look drops out of the book's main lines by itself.
//!
//! Each child is scored by a search of `depth` plies on one thread with a table cleared
//! before it, so a score depends on the position alone: a build is deterministic for given
//! options and roots whatever the number of threads, and a build resumed from its
//! checkpoint goes on exactly as the uninterrupted one would have.

use super::{BOOK_WIN, Book, EXPANDED, Entry, TERMINAL, book_key, book_value};
use crate::position::{Move, Position};
use crate::rules::{Color, Rules};
use crate::search::tt::TranspositionTable;
use crate::search::{Env, Limits, think};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How a book is grown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildConfig {
    /// Plies of the search that scores each new position.
    pub depth: u32,
    /// Leaves expanded per round (the selection is recomputed between rounds).
    pub batch: usize,
    /// Threads scoring positions.
    pub threads: usize,
    /// Centi-men of score loss that cost as much as one ply of depth.
    pub drop_unit: i32,
    /// No leaf further than this many plies from a root is expanded.
    pub max_ply: u32,
    /// Transposition table of each thread, MB.
    pub hash_mb: usize,
}

impl Default for BuildConfig {
    fn default() -> Self {
        BuildConfig {
            depth: 12,
            batch: 16,
            threads: 1,
            drop_unit: 10,
            max_ply: 60,
            hash_mb: 16,
        }
    }
}

/// One position of the growing book.
#[derive(Clone, Debug)]
struct Node<R: Rules> {
    position: Position<R>,
    /// For the side to move: the search score of a leaf, the backed-up value once expanded.
    value: i32,
    flags: u8,
    /// The children's keys, in move-generation order (empty unless expanded).
    children: Vec<u64>,
}

/// What one round did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    /// Leaves expanded.
    pub expanded: usize,
    /// Positions scored by a search.
    pub searched: usize,
}

/// A book being grown, from a start position and any number of further roots.
pub struct Builder<R: Rules> {
    config: BuildConfig,
    start: u64,
    /// Where the selection starts, at cost 0: the start and the ends of the seeded lines.
    roots: Vec<u64>,
    nodes: HashMap<u64, Node<R>>,
    searches: u64,
}

impl<R: Rules> Builder<R> {
    /// A book holding only `start`, scored by a search.
    pub fn new(config: BuildConfig, start: Position<R>) -> Self {
        let mut builder = Builder {
            start: book_key(&start),
            roots: vec![book_key(&start)],
            nodes: HashMap::new(),
            searches: 0,
            config,
        };
        let scored = builder.score_all(&[start]);
        builder.insert(start, scored[0]);
        builder
    }

    /// The builder of an existing book (a checkpoint): every position reachable from
    /// `start` through expanded positions is taken over with its flags and value; the
    /// book must hold every child of each expanded position.
    pub fn resume(config: BuildConfig, start: Position<R>, book: &Book) -> Result<Self, String> {
        if book.variant() != R::VARIANT {
            return Err(format!(
                "the book is for {}, not {}",
                book.variant(),
                R::VARIANT
            ));
        }
        if book.depth() != config.depth {
            return Err(format!(
                "the book's positions were scored at depth {}, not {} (give --depth {})",
                book.depth(),
                config.depth,
                book.depth()
            ));
        }
        let start_key = book_key(&start);
        let mut builder = Builder {
            start: start_key,
            roots: vec![start_key],
            nodes: HashMap::new(),
            searches: 0,
            config,
        };
        let mut queue = vec![start];
        while let Some(position) = queue.pop() {
            let key = book_key(&position);
            if builder.nodes.contains_key(&key) {
                continue;
            }
            let entry = book.get(key).ok_or_else(|| {
                format!(
                    "the book lacks position {}",
                    crate::notation::fen::write_fen(&position)
                )
            })?;
            let mut node = Node {
                position,
                value: i32::from(entry.value),
                flags: entry.flags,
                children: Vec::new(),
            };
            if entry.is_expanded() {
                for mv in position.legal_moves().iter() {
                    let child = position.play(mv);
                    node.children.push(book_key(&child));
                    queue.push(child);
                }
            }
            builder.nodes.insert(key, node);
        }
        if builder.nodes.len() != book.len() {
            return Err(format!(
                "{} of the book's {} positions cannot be reached from the start",
                book.len() - builder.nodes.len(),
                book.len()
            ));
        }
        Ok(builder)
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the book holds no position (never: it holds its start).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Positions scored by a search so far in this run.
    pub fn searches(&self) -> u64 {
        self.searches
    }

    /// Puts the line `moves` (legal from the start) into the book: each position on it is
    /// expanded, and its end becomes a root, from which the book grows as from the start.
    pub fn add_line(&mut self, moves: &[Move]) -> Result<(), String> {
        let mut position = self.nodes[&self.start].position;
        for (index, mv) in moves.iter().enumerate() {
            if !position.legal_moves().iter().any(|legal| legal == mv) {
                return Err(format!("move {} of the line is not legal", index + 1));
            }
            let key = book_key(&position);
            if self.nodes[&key].flags & (EXPANDED | TERMINAL) == 0 {
                self.expand(&[key]);
            }
            position = position.play(mv);
        }
        let end = book_key(&position);
        if !self.roots.contains(&end) {
            self.roots.push(end);
        }
        Ok(())
    }

    /// One round: the values are backed up, the `batch` cheapest leaves are chosen and
    /// expanded. `None` when no leaf within `max_ply` is left.
    pub fn step(&mut self) -> Option<Round> {
        self.back_up();
        let leaves = self.cheapest_leaves(self.config.batch.max(1));
        if leaves.is_empty() {
            return None;
        }
        Some(self.expand(&leaves))
    }

    /// The book as it stands, values backed up.
    pub fn book(&mut self) -> Book {
        self.back_up();
        let mut sizes: HashMap<u64, u32> = HashMap::with_capacity(self.nodes.len());
        let keys: Vec<u64> = self.nodes.keys().copied().collect();
        for key in keys {
            self.subtree(key, &mut sizes, &mut HashSet::new());
        }
        let entries = self
            .nodes
            .iter()
            .map(|(&key, node)| Entry {
                key,
                value: book_value(node.value),
                flags: node.flags,
                subtree: sizes[&key],
            })
            .collect();
        Book::new(R::VARIANT, self.config.depth, entries)
    }

    fn subtree(&self, key: u64, sizes: &mut HashMap<u64, u32>, open: &mut HashSet<u64>) -> u32 {
        if let Some(&size) = sizes.get(&key) {
            return size;
        }
        if !open.insert(key) {
            return 1;
        }
        let mut size = 1u32;
        for &child in &self.nodes[&key].children {
            size = size.saturating_add(self.subtree(child, sizes, open));
        }
        open.remove(&key);
        sizes.insert(key, size);
        size
    }

    /// Every expanded position's value becomes the best of its children's, negated
    /// (depth first from each root; a position met again on its own line, possible only
    /// with kings, counts with its stored value).
    fn back_up(&mut self) {
        let mut done = HashSet::with_capacity(self.nodes.len());
        for root in self.roots.clone() {
            self.back_up_from(root, &mut done, &mut HashSet::new());
        }
    }

    fn back_up_from(&mut self, key: u64, done: &mut HashSet<u64>, open: &mut HashSet<u64>) -> i32 {
        let node = &self.nodes[&key];
        if done.contains(&key) || node.flags & EXPANDED == 0 || !open.insert(key) {
            return node.value;
        }
        let children = node.children.clone();
        let mut best = -BOOK_WIN;
        for child in children {
            best = best.max(-self.back_up_from(child, done, open));
        }
        open.remove(&key);
        done.insert(key);
        self.nodes.get_mut(&key).expect("an expanded node").value = best;
        best
    }

    /// The `count` leaves with the cheapest lines from a root (Dijkstra over the book;
    /// ties by plies, then key, so the choice is deterministic).
    fn cheapest_leaves(&self, count: usize) -> Vec<u64> {
        let mut best_cost: HashMap<u64, i64> = HashMap::new();
        let mut heap = BinaryHeap::new();
        for &root in &self.roots {
            heap.push(Reverse((0i64, 0u32, root)));
        }
        let mut leaves = Vec::new();
        while let Some(Reverse((cost, plies, key))) = heap.pop() {
            if best_cost.get(&key).is_some_and(|&known| known <= cost) {
                continue;
            }
            best_cost.insert(key, cost);
            let node = &self.nodes[&key];
            if node.flags & TERMINAL != 0 {
                continue;
            }
            if node.flags & EXPANDED == 0 {
                if plies < self.config.max_ply {
                    leaves.push(key);
                    if leaves.len() == count {
                        break;
                    }
                }
                continue;
            }
            for &child in &node.children {
                let loss = (node.value + self.nodes[&child].value).max(0);
                let step = i64::from(self.config.drop_unit.max(1)) + i64::from(loss);
                heap.push(Reverse((cost + step, plies + 1, child)));
            }
        }
        leaves
    }

    /// Expands `leaves`: their children are added, those not yet in the book scored by
    /// searches on every thread.
    fn expand(&mut self, leaves: &[u64]) -> Round {
        let mut fresh: Vec<Position<R>> = Vec::new();
        let mut queued = HashSet::new();
        let mut round = Round::default();
        for &key in leaves {
            let position = self.nodes[&key].position;
            let children: Vec<Position<R>> = position
                .legal_moves()
                .iter()
                .map(|mv| position.play(mv))
                .collect();
            let node = self.nodes.get_mut(&key).expect("a leaf of the book");
            if winner(&position).is_some() {
                node.flags |= TERMINAL;
                continue;
            }
            node.flags |= EXPANDED;
            node.children = children.iter().map(book_key).collect();
            round.expanded += 1;
            for child in children {
                let child_key = book_key(&child);
                if !self.nodes.contains_key(&child_key) && queued.insert(child_key) {
                    fresh.push(child);
                }
            }
        }
        let scores = self.score_all(&fresh);
        round.searched = fresh.len();
        for (position, score) in fresh.into_iter().zip(scores) {
            self.insert(position, score);
        }
        round
    }

    fn insert(&mut self, position: Position<R>, value: i32) {
        let over = winner(&position).is_some();
        self.nodes.insert(
            book_key(&position),
            Node {
                position,
                value,
                flags: if over { TERMINAL } else { 0 },
                children: Vec::new(),
            },
        );
    }

    /// The value of each position for its side to move: a search of `depth` plies, or the
    /// game's result where it is over.
    fn score_all(&mut self, positions: &[Position<R>]) -> Vec<i32> {
        let next = AtomicUsize::new(0);
        let threads = self.config.threads.clamp(1, positions.len().max(1));
        let (depth, hash_mb) = (self.config.depth, self.config.hash_mb);
        let mut scores = vec![0; positions.len()];
        let parts: Vec<Vec<(usize, i32)>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    let next = &next;
                    scope.spawn(move || {
                        let tt = Arc::new(TranspositionTable::new(hash_mb));
                        let mut done = Vec::new();
                        loop {
                            let index = next.fetch_add(1, Ordering::Relaxed);
                            let Some(position) = positions.get(index) else {
                                break;
                            };
                            done.push((index, score_one(position, depth, &tt)));
                        }
                        done
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join().expect("a book search thread"))
                .collect()
        });
        for (index, score) in parts.into_iter().flatten() {
            scores[index] = score;
        }
        self.searches += positions.len() as u64;
        scores
    }
}

/// The winner when the game is over in `position`: decided by the variant's own rule, or
/// the side to move has no legal move.
fn winner<R: Rules>(position: &Position<R>) -> Option<Color> {
    position.decided_winner().or_else(|| {
        position
            .legal_moves()
            .is_empty()
            .then(|| position.winner_when_stuck())
    })
}

/// The value of `position` for its side to move: the game's result if it is over, else a
/// search of `depth` plies with `tt` cleared first.
fn score_one<R: Rules>(position: &Position<R>, depth: u32, tt: &Arc<TranspositionTable>) -> i32 {
    if let Some(winner) = winner(position) {
        return if winner == position.side_to_move() {
            BOOK_WIN
        } else {
            -BOOK_WIN
        };
    }
    tt.clear();
    let limits = Limits {
        depth: Some(depth.max(1)),
        multipv: 1,
        ..Limits::default()
    };
    let outcome = think(position, &limits, &Env::new(Arc::clone(tt)), &mut |_| {});
    outcome.score.clamp(-BOOK_WIN, BOOK_WIN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::English;

    fn config(threads: usize) -> BuildConfig {
        BuildConfig {
            depth: 3,
            batch: 4,
            threads,
            drop_unit: 10,
            max_ply: 30,
            hash_mb: 1,
        }
    }

    fn grow(threads: usize, rounds: usize) -> Book {
        let mut builder = Builder::new(config(threads), Position::<English>::start());
        for _ in 0..rounds {
            builder.step().expect("leaves to expand");
        }
        builder.book()
    }

    #[test]
    fn the_same_options_give_the_same_book_whatever_the_threads() {
        let one = grow(1, 6);
        let two = grow(2, 6);
        assert_eq!(one, two);
        assert!(one.len() > 40, "{} positions", one.len());
    }

    #[test]
    fn a_resumed_build_goes_on_as_the_uninterrupted_one() {
        let whole = grow(1, 8);
        let mut first = Builder::new(config(1), Position::<English>::start());
        for _ in 0..3 {
            first.step().unwrap();
        }
        let checkpoint = Book::from_bytes(&first.book().to_bytes()).unwrap();
        let mut resumed =
            Builder::resume(config(1), Position::<English>::start(), &checkpoint).unwrap();
        for _ in 0..5 {
            resumed.step().unwrap();
        }
        assert_eq!(resumed.book(), whole);
    }

    #[test]
    fn values_are_backed_up_and_every_expanded_position_offers_all_its_moves() {
        let book = grow(1, 5);
        let start = Position::<English>::start();
        let moves = book.moves(&start);
        assert_eq!(moves.len(), start.legal_moves().len());
        let root = book.entry(&start).unwrap();
        assert_eq!(i32::from(root.value), moves[0].score);
        assert!(root.subtree as usize >= book.len());
    }

    #[test]
    fn a_seeded_line_is_expanded_to_its_end() {
        let start = Position::<English>::start();
        let mut builder = Builder::new(config(1), start);
        let first = start.legal_moves().as_slice()[6];
        let after = start.play(&first);
        let second = after.legal_moves().as_slice()[0];
        builder.add_line(&[first, second]).unwrap();
        let book = builder.book();
        assert!(book.entry(&start).unwrap().is_expanded());
        assert!(book.entry(&after).unwrap().is_expanded());
        assert!(book.entry(&after.play(&second)).is_some());
        let illegal = start.legal_moves().as_slice()[0];
        assert!(builder.add_line(&[illegal, illegal]).is_err());
    }
}
