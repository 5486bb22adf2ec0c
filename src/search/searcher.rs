//! One search thread: the `Searcher` (iterative deepening, NegaScout, reductions, ProbCut, capture resolution, move ordering) over the `Shared` state of one search, and the limits and results it works with.
//!
//! Scores are in centi-men from the side to move's point of view. A win is `WIN - plies`
//! where `plies` counts to the end of the game (the loser has no legal move); see
//! [`WIN`].

use super::env::{Control, Env, GameContext};
use super::score::{
    TABLE_PROGRESS, TABLE_WIN, TABLE_WIN_SPREAD, WIN, WIN_BOUND, score_from_tt, score_to_tt,
};
use super::score_cache::ScoreCache;
use super::skill::Skill;
use super::time::TimeBudget;
use super::tt::{Bound, TranspositionTable};
use crate::egtb::Value;
use crate::egtb::probe::Tables;
use crate::eval::{EvalSet, evaluate};
use crate::game::SmallEndgameCount;
use crate::movegen::MoveList;
use crate::position::{Move, Position};
use crate::rules::Rules;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The deepest ply the search reaches (iterations, extensions and capture resolution).
pub const MAX_PLY: usize = 128;
/// The score of a draw.
pub const DRAW: i32 = 0;
/// Larger than any score.
pub const INFINITE: i32 = WIN + 1;
/// Entries of a search thread's network score cache (512 KiB): more measured no faster
/// (docs/journal.md, "An evaluation cache for the network").
const SCORE_CACHE_ENTRIES: usize = 1 << 16;
/// ProbCut's margin per ply of depth, centi-men (Scan 2.0: 5 per ply on its scale of 100 a
/// man).
const PROBCUT_MARGIN_PER_PLY: i32 = 5;
/// Fewer pieces than this on the board: no reduction and no ProbCut. Endgames are won by long
/// exact lines (and endgame tables cover the smallest), where a reduced move can hide the
/// shortest win; a search to depth `n` there still sees every line of `n` plies.
const SELECTIVE_MIN_PIECES: u32 = 8;
/// Singular extensions from this depth on (see [`Searcher::singular_beta`]).
const SINGULAR_MIN_DEPTH: i32 = 6;
/// The margin below the table's score, per ply of depth, that every other move must fail
/// to reach for the table's move to count as singular (centi-men).
const SINGULAR_MARGIN_PER_PLY: i32 = 2;

/// Whether the search extends singular moves in variant `R`: measured in English only (an
/// SPRT in docs/bench.md); the other variants keep the search they were measured with.
const fn extends_singular_moves<R: Rules>() -> bool {
    matches!(R::VARIANT, crate::rules::Variant::English)
}
/// From this depth on, a node whose table entry holds no move is searched a ply shallower
/// (see [`Searcher::pvs`]).
const NO_TABLE_MOVE_REDUCTION_MIN_DEPTH: i32 = 4;

/// Whether the search reduces nodes without a table move in variant `R`: measured in English
/// only (an SPRT in docs/bench.md), as [`extends_singular_moves`].
const fn reduces_nodes_without_table_move<R: Rules>() -> bool {
    matches!(R::VARIANT, crate::rules::Variant::English)
}

/// A search cut short by `stop`, a node limit or the clock: the score it would have given is
/// unknown, so every caller up to the root hands it on with `?` and no placeholder score can
/// be mistaken for a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Aborted;

/// A score, or the abort that left it unknown.
type Searched = Result<i32, Aborted>;

/// The score, for the side to move at `ply`, of a position where it has no legal move: a loss,
/// or a win in antidraughts.
#[inline(always)]
fn stuck_score<R: Rules>(position: &Position<R>, ply: usize) -> i32 {
    if position.winner_when_stuck() == position.side_to_move() {
        WIN - ply as i32
    } else {
        -(WIN - ply as i32)
    }
}

/// The score of a position whose game is over whatever the moves (breakthrough: a side has a
/// king), `None` otherwise; compiled away in the other variants.
#[inline(always)]
fn decided_score<R: Rules>(position: &Position<R>, ply: usize) -> Option<i32> {
    let winner = position.decided_winner()?;
    Some(if winner == position.side_to_move() {
        WIN - ply as i32
    } else {
        -(WIN - ply as i32)
    })
}

/// What limits one search. Time limits are turned into a [`TimeBudget`] by the caller.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Stop after about this many nodes (all threads together).
    pub nodes: Option<u64>,
    /// Soft and hard time limits, if any.
    pub budget: Option<TimeBudget>,
    /// Principal variations to report (at least 1).
    pub multipv: usize,
    /// Restrict the root to these moves (empty: all legal moves).
    pub searchmoves: Vec<Move>,
    /// A strength level below full strength: the move is chosen among the best lines of
    /// the last finished iteration (the node budget is the caller's, in `nodes`).
    pub skill: Option<Skill>,
}

/// State shared by the threads of one search, made by [`think`](super::think) from its
/// [`Env`]; other threads reach a running search through its [`Control`] only.
#[derive(Debug)]
pub(crate) struct Shared {
    /// Stop, `ponderhit` and the clock.
    pub(super) control: Arc<Control>,
    /// Nodes searched by all threads (updated in batches).
    nodes: AtomicU64,
    /// The transposition table.
    tt: Arc<TranspositionTable>,
    /// Endgame tables to probe (the `EGTBPath` option; see docs/egtb.md), or `None`.
    egtb: Option<Arc<Tables>>,
    /// Positions found in the endgame tables, all threads.
    tbhits: AtomicU64,
    /// Weights to evaluate with instead of the variant's built-in set (the `EvalFile`
    /// option); `None` keeps the built-in set, which the compiler inlines as constants.
    weights: Option<EvalSet>,
}

impl Shared {
    /// Fresh state for one search in `env`, stopped and timed through `control`.
    pub(super) fn new(env: &Env, control: Arc<Control>) -> Self {
        Shared {
            control,
            nodes: AtomicU64::new(0),
            tt: Arc::clone(&env.tt),
            weights: env.weights.clone(),
            egtb: env.egtb.clone(),
            tbhits: AtomicU64::new(0),
        }
    }

    /// Positions found in the endgame tables so far, all threads (`None` when no tables are
    /// probed).
    fn tbhits(&self) -> Option<u64> {
        self.egtb
            .as_ref()
            .map(|_| self.tbhits.load(Ordering::Relaxed))
    }
}

/// One finished iteration (or principal variation, with MultiPV), for reporting.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1-based index of the principal variation.
    pub multipv: usize,
    /// Score of the line.
    pub score: i32,
    /// Nodes of all threads so far.
    pub nodes: u64,
    /// Milliseconds since the start.
    pub time_ms: u64,
    /// Positions found in the endgame tables so far, all threads (`None` when no tables are
    /// probed).
    pub tbhits: Option<u64>,
    /// The line, its first move first.
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The move to play (`None` when there is no legal move).
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// Score of the best move.
    pub score: i32,
    /// Deepest finished iteration.
    pub depth: u32,
    /// Nodes of the main thread (thread 0; all nodes on one thread).
    pub nodes: u64,
}

#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    score: i32,
    previous_score: i32,
    pv: Vec<Move>,
}

/// How often (in nodes) a thread looks at the clock and publishes its node count.
const POLL_INTERVAL: u64 = 1024;

/// A history rate of one (the move was always the best): 4096, as in Scan 2.0's `sort.cpp`.
const HISTORY_ONE: u16 = 1 << 12;
/// A history rate moves `1 / 2^HISTORY_SHIFT` of the way on each update.
const HISTORY_SHIFT: u32 = 6;

/// One thread's search.
pub(crate) struct Searcher<'a, R: Rules> {
    shared: &'a Shared,
    limits: &'a Limits,
    thread_id: usize,
    nodes: u64,
    unpublished_nodes: u64,
    /// Nodes between two looks at the clock and the node limit.
    poll_interval: u64,
    /// An iteration has finished: the node limit applies from then on, so that even a tiny
    /// budget answers with a searched move, not the first one generated.
    iteration_finished: bool,
    seldepth: usize,
    /// Hashes along the game and the search path, for repetition checks.
    path: Vec<u64>,
    /// Plies since the last capture or man move at each entry of `path`.
    reversible: Vec<u32>,
    /// The small-endgame rule's count at each entry of `path` (kept for the search's nodes;
    /// the game's positions before the root hold `None`, only the top is ever read).
    small_endgame: Vec<Option<SmallEndgameCount>>,
    /// Per from and to square: how often the move was the best of a node that it raised
    /// alpha in, as a rate in 1/4096 (see [`HISTORY_ONE`]).
    history: Box<[[u16; 64]; 64]>,
    lists: Vec<MoveList>,
    /// Per ply: the moves with their ordering scores (kept to reuse their memory).
    orders: Vec<Vec<(i32, Move)>>,
    pv: Vec<Vec<Move>>,
    /// A root move that beat the first move of the iteration in progress: played when time
    /// runs out before the iteration ends, since it already searched better at that depth.
    root_improvement: Option<Move>,
    /// Greater than zero inside a ProbCut search: no ProbCut below it, while the late move
    /// reductions go on (Scan passes `prune = false` down the reduced search, which turns
    /// off its ProbCut only).
    probcut_nesting: u32,
    /// Plies since the last capture or man move at the root: a node `ply` plies deeper whose
    /// count is less than this plus `ply` was reached through a capture or a man move (see
    /// [`Searcher::stepped_since_root`]).
    root_reversible: u32,
    /// The nominal depth of the iteration in progress: extensions stop at twice it.
    root_depth: i32,
    /// The network's first-layer sums of the last position evaluated, when the evaluation
    /// in force is a network (English's built-in one or an `EvalFile`): the next evaluation
    /// updates them.
    network_state: Box<crate::eval::network::NetworkState>,
    /// Network scores of positions evaluated before (see [`Searcher::network_score`]).
    score_cache: ScoreCache,
    /// Whether the evaluation in force is a network, whose scores go through `score_cache`.
    network_in_force: bool,
    rules: std::marker::PhantomData<R>,
}

impl<'a, R: Rules> Searcher<'a, R> {
    /// A searcher for one thread.
    pub fn new(shared: &'a Shared, limits: &'a Limits, thread_id: usize) -> Self {
        Searcher {
            shared,
            limits,
            thread_id,
            nodes: 0,
            unpublished_nodes: 0,
            // A small node limit is looked at often enough to be kept within a sixteenth.
            poll_interval: limits
                .nodes
                .map_or(POLL_INTERVAL, |nodes| (nodes / 16).clamp(1, POLL_INTERVAL)),
            iteration_finished: false,
            seldepth: 0,
            path: Vec::with_capacity(256),
            reversible: Vec::with_capacity(256),
            small_endgame: Vec::with_capacity(256),
            history: Box::new([[HISTORY_ONE / 2; 64]; 64]),
            lists: (0..=MAX_PLY).map(|_| MoveList::new()).collect(),
            orders: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            pv: vec![Vec::new(); MAX_PLY + 1],
            root_improvement: None,
            probcut_nesting: 0,
            root_reversible: 0,
            root_depth: 0,
            network_state: Box::default(),
            score_cache: ScoreCache::new(SCORE_CACHE_ENTRIES),
            network_in_force: match &shared.weights {
                None => crate::eval::defaults::network_for(R::VARIANT).is_some(),
                Some(set) => set.network.is_some(),
            },
            rules: std::marker::PhantomData,
        }
    }

    /// Iterative deepening from `root`; `report` gets every finished iteration (thread 0
    /// only).
    pub fn run(
        &mut self,
        root: &Position<R>,
        game: &GameContext,
        report: &mut dyn FnMut(&Iteration),
    ) -> Outcome {
        // A decided game (breakthrough: a king is on the board) has no move left to play.
        let legal = if root.decided_winner().is_some() {
            MoveList::new()
        } else {
            root.legal_moves()
        };
        let mut root_moves: Vec<RootMove> = legal
            .iter()
            .filter(|m| self.limits.searchmoves.is_empty() || self.limits.searchmoves.contains(m))
            .map(|&mv| RootMove {
                mv,
                score: -INFINITE,
                previous_score: -INFINITE,
                pv: vec![mv],
            })
            .collect();
        if root_moves.is_empty() {
            return Outcome::default();
        }
        self.path.clear();
        self.reversible.clear();
        self.small_endgame.clear();
        let count = game.reversible_hashes.len();
        for (index, &hash) in game.reversible_hashes.iter().enumerate() {
            self.path.push(hash);
            self.reversible.push(index as u32);
            self.small_endgame.push(None);
        }
        self.path.push(root.hash());
        self.reversible.push(count as u32);
        let root_count = SmallEndgameCount::at_start(root).map(|count| SmallEndgameCount {
            plies: game.small_endgame_plies,
            ..count
        });
        self.small_endgame.push(root_count);
        self.root_reversible = count as u32;
        self.keep_table_moves(root, &mut root_moves);

        let lines = self.limits.skill.map_or(1, |skill| skill.lines());
        let multipv = self.limits.multipv.max(lines).clamp(1, root_moves.len());
        // The best lines of the last finished iteration, for a level's choice: move, score,
        // reply.
        let mut finished_lines: Vec<(Move, i32, Option<Move>)> = Vec::new();
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 8)
            .min(MAX_PLY as u32 - 8);
        let mut outcome = Outcome {
            best: Some(root_moves[0].mv),
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
        };
        // Lazy SMP: helpers start one iteration deeper every other thread, so threads spread
        // over depths and fill the table with different work.
        let first_depth = 1 + (self.thread_id % 2) as u32;
        'deepening: for depth in first_depth..=max_depth {
            self.root_improvement = None;
            self.root_depth = depth as i32;
            for pv_index in 0..multipv {
                self.seldepth = 0;
                let previous = root_moves[pv_index].previous_score;
                let Ok(score) = self.aspiration(root, &mut root_moves, pv_index, depth, previous)
                else {
                    self.adopt_root_improvement(&root_moves, multipv, &mut outcome);
                    break 'deepening;
                };
                // Stable sort keeps the earlier order among equal scores.
                root_moves[pv_index..].sort_by_key(|m| std::cmp::Reverse(m.score));
                if self.thread_id == 0 {
                    let line = &root_moves[pv_index];
                    report(&Iteration {
                        depth,
                        seldepth: self.seldepth as u32,
                        multipv: pv_index + 1,
                        score,
                        nodes: self.shared.nodes.load(Ordering::Relaxed) + self.unpublished_nodes,
                        time_ms: self.shared.control.elapsed_ms(),
                        tbhits: self.shared.tbhits(),
                        pv: line.pv.clone(),
                    });
                }
            }
            for root_move in root_moves.iter_mut() {
                root_move.previous_score = root_move.score;
            }
            self.iteration_finished = true;
            if lines > 1 {
                finished_lines.clear();
                finished_lines.extend(
                    root_moves[..multipv]
                        .iter()
                        .map(|line| (line.mv, line.score, line.pv.get(1).copied())),
                );
            }
            let best = &root_moves[0];
            outcome = Outcome {
                best: Some(best.mv),
                ponder: best.pv.get(1).copied(),
                score: best.score,
                depth,
                nodes: self.nodes,
            };
            if self.thread_id == 0 && self.should_stop_after_iteration(&root_moves, depth) {
                break;
            }
        }
        self.publish_nodes();
        outcome.nodes = self.nodes;
        if let Some(skill) = self.limits.skill.filter(|_| !finished_lines.is_empty()) {
            let scores: Vec<i32> = finished_lines.iter().map(|line| line.1).collect();
            let (mv, score, reply) = finished_lines[skill.choose(&scores)];
            (outcome.best, outcome.score, outcome.ponder) = (Some(mv), score, reply);
        }
        outcome
    }

    /// With tables covering the root (and one line asked for), keeps only the root moves the
    /// tables rank best: the quickest win, else every drawing move, else the slowest loss.
    /// The search then chooses among them; a quickest-win move always shortens the distance
    /// to the end by one ply, so a won position is converted, never just kept.
    fn keep_table_moves(&self, root: &Position<R>, root_moves: &mut Vec<RootMove>) {
        let Some(tables) = self.shared.egtb.as_deref() else {
            return;
        };
        // Late in a small-endgame count, a win the tables promise may take longer than the
        // rule allows, and a move the tables rank lower (a crowning that starts the count
        // again) may be the one that still wins: the search decides among all moves.
        if self.limits.multipv > 1
            || root.occupied().count_ones() as usize > tables.max_pieces()
            || self.settled_by_rule(tables.probe(root)).is_none()
        {
            return;
        }
        let Some(ranked) = tables.rank_moves(root) else {
            return;
        };
        let values: Vec<(Move, Value)> = ranked
            .into_iter()
            .filter(|(mv, _)| root_moves.iter().any(|r| r.mv == *mv))
            .collect();
        let Some(&(_, best)) = values.first() else {
            return;
        };
        let keep = |value: Value| match best {
            Value::Draw => value == Value::Draw,
            _ => value == best,
        };
        root_moves.retain(|r| values.iter().any(|&(mv, v)| mv == r.mv && keep(v)));
    }

    /// The score of a position the tables cover, without a capture pending (a capture's
    /// value is not stored but worked out, which costs more than searching it): exact, from
    /// the side to move's point of view, as a win or loss `plies` from the root.
    #[inline]
    fn probe_tables(
        &mut self,
        position: &Position<R>,
        ply: usize,
        at_horizon: bool,
    ) -> Option<i32> {
        let value = self.shared.egtb.as_deref()?.probe_settled(position)?;
        let value = self.settled_by_rule(Some(value))?;
        self.shared.tbhits.fetch_add(1, Ordering::Relaxed);
        Some(match value {
            Value::Win(n) => WIN - (ply as i32 + n as i32),
            Value::Loss(n) => -(WIN - (ply as i32 + n as i32)),
            Value::Draw => DRAW,
            // Without a distance, a won position's score says nothing about which move
            // makes progress. One reached after a capture or a man move since the root has
            // made some that no line can undo: it is settled, and the nearest such step
            // scores best (see [`TABLE_PROGRESS`]). Until then the search goes on (the root
            // keeps its winning moves only; settling there too would end the search one ply
            // deep). Scan settles its win/draw/loss bitbases only below the root's piece
            // count, which misses the crownings and man moves that long 8x8 wins are made
            // of. At the horizon the win is scored with a measure of progress (see
            // [`table_win_progress`]), below every step.
            Value::Won | Value::Lost if self.stepped_since_root(ply) => {
                if value == Value::Won {
                    TABLE_PROGRESS - ply as i32
                } else {
                    -(TABLE_PROGRESS - ply as i32)
                }
            }
            Value::Won | Value::Lost if !at_horizon => return None,
            Value::Won | Value::Lost => {
                let progress =
                    table_win_progress(position).clamp(-TABLE_WIN_SPREAD, TABLE_WIN_SPREAD);
                if value == Value::Won {
                    TABLE_WIN + progress
                } else {
                    -TABLE_WIN + progress
                }
            }
        })
    }

    /// True when a capture or a man move was played between the root and the node on top of
    /// the path, `ply` plies below it.
    fn stepped_since_root(&self, ply: usize) -> bool {
        let reversible = *self.reversible.last().expect("the path holds the node");
        (reversible as usize) < self.root_reversible as usize + ply
    }

    /// A table value of the node on top of the path as the game's rules give it, or `None`
    /// when they may not give it. The tables follow the move rules only, while the
    /// small-endgame rule (FMJD art. 8.3, Russian's three kings) draws a configuration after a
    /// number of plies. A win or loss that ends within the plies left stands (the game ends
    /// before the count runs out), as does a draw (the rule only adds draws). A longer one is
    /// left to the search: the count may run out first, or a capture or crowning on the way
    /// may start it again. At the start of a count every win and loss of the international
    /// and Russian tables ends in time (docs/egtb.md), so only counts already under way need
    /// the search.
    fn settled_by_rule(&self, value: Option<Value>) -> Option<Value> {
        let value = value?;
        let Some(count) = self.small_endgame.last().copied().flatten() else {
            return Some(value);
        };
        match value {
            Value::Win(n) | Value::Loss(n) if n > count.remaining() => None,
            // Where the count starts, a win or loss stands (see above); later, how long it
            // takes is not known.
            Value::Won | Value::Lost if count.plies > 0 => None,
            _ => Some(value),
        }
    }

    /// When an iteration is cut short, a move that already beat the iteration's first move
    /// (the previous best) at the new depth replaces it: the time spent on the unfinished
    /// iteration is not thrown away (Stockfish does the same with its partly sorted root
    /// moves). Only with one principal variation, where "beat" means beat the best.
    fn adopt_root_improvement(
        &self,
        root_moves: &[RootMove],
        multipv: usize,
        outcome: &mut Outcome,
    ) {
        if multipv != 1 || outcome.depth == 0 {
            return;
        }
        let Some(mv) = self.root_improvement else {
            return;
        };
        if let Some(better) = root_moves.iter().find(|root_move| root_move.mv == mv) {
            outcome.best = Some(better.mv);
            outcome.ponder = better.pv.get(1).copied();
            outcome.score = better.score;
        }
    }

    /// True when no further iteration should start.
    fn should_stop_after_iteration(&self, root_moves: &[RootMove], depth: u32) -> bool {
        let untimed = self.shared.control.untimed();
        if untimed {
            return false;
        }
        if let Some(budget) = &self.limits.budget {
            if root_moves.len() == 1 && self.limits.depth.is_none() && depth >= 4 {
                // One legal move: no time needs spending on it.
                return true;
            }
            if self.shared.control.timed_ms() >= budget.soft_ms {
                return true;
            }
        }
        // A proven result needs no deeper search.
        root_moves[0].score.abs() > WIN_BOUND && depth as i32 > WIN - root_moves[0].score.abs()
    }

    /// A root search in a window around the previous score, widened on failure.
    fn aspiration(
        &mut self,
        root: &Position<R>,
        root_moves: &mut [RootMove],
        pv_index: usize,
        depth: u32,
        previous: i32,
    ) -> Searched {
        let mut delta = 30;
        let (mut alpha, mut beta) = if depth >= 4 && previous.abs() < WIN_BOUND {
            (previous - delta, previous + delta)
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let score = self.root_search(root, root_moves, pv_index, depth, alpha, beta)?;
            if score <= alpha {
                alpha = (alpha - delta).max(-INFINITE);
            } else if score >= beta {
                beta = (beta + delta).min(INFINITE);
            } else {
                return Ok(score);
            }
            delta *= 2;
            if delta > 1000 {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    fn root_search(
        &mut self,
        root: &Position<R>,
        root_moves: &mut [RootMove],
        pv_index: usize,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> Searched {
        let mut best = -INFINITE;
        for (offset, root_move) in root_moves[pv_index..].iter_mut().enumerate() {
            let mv = root_move.mv;
            let child = root.play(&mv);
            let depth = depth as i32;
            let score = self.on_path(root, &mv, &child, |this| {
                if offset == 0 {
                    return Ok(-this.pvs(&child, depth - 1, -beta, -alpha, 1, true)?);
                }
                let probe = -this.pvs(&child, depth - 1, -alpha - 1, -alpha, 1, false)?;
                if probe > alpha && probe < beta {
                    Ok(-this.pvs(&child, depth - 1, -beta, -alpha, 1, true)?)
                } else {
                    Ok(probe)
                }
            })?;
            if offset > 0 && score > alpha {
                self.root_improvement = Some(mv);
            }
            if offset == 0 || score > alpha {
                root_move.score = score;
                root_move.pv.clear();
                root_move.pv.push(mv);
                root_move.pv.extend_from_slice(&self.pv[1]);
            } else {
                // Only a bound is known: sort it below the best.
                root_move.score = -INFINITE;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        Ok(best)
    }

    /// Runs `work` with `child` (reached from `parent` by `mv`) on top of the path, and takes
    /// it off again however `work` ends.
    #[inline(always)]
    fn on_path<T>(
        &mut self,
        parent: &Position<R>,
        mv: &Move,
        child: &Position<R>,
        work: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let reversible = if parent.is_reversible(mv) {
            self.reversible.last().copied().unwrap_or(0) + 1
        } else {
            0
        };
        let count = self.small_endgame.last().copied().flatten();
        self.path.push(child.hash());
        self.reversible.push(reversible);
        self.small_endgame
            .push(SmallEndgameCount::after(count, mv, child));
        let result = work(self);
        self.path.pop();
        self.reversible.pop();
        self.small_endgame.pop();
        result
    }

    /// Lends the buffer of `ply` from the per-ply pool `pool` to `work` and puts it back
    /// however `work` ends (an abort included): no exit path can keep it, and the next
    /// search at this ply reuses its memory.
    #[inline(always)]
    fn with_buffer<B: Default, T>(
        &mut self,
        pool: fn(&mut Self) -> &mut Vec<B>,
        ply: usize,
        work: impl FnOnce(&mut Self, &mut B) -> T,
    ) -> T {
        let mut buffer = std::mem::take(&mut pool(self)[ply]);
        let result = work(self, &mut buffer);
        pool(self)[ply] = buffer;
        result
    }

    /// True when the position on top of the path repeats an earlier one (a draw inside the
    /// search) or the variant's no-progress or small-endgame rule ends the game.
    fn is_draw(&self) -> bool {
        let reversible = *self.reversible.last().expect("the path holds the node") as usize;
        let rules = R::DRAW_RULES;
        if rules.no_progress_plies > 0 && reversible >= rules.no_progress_plies as usize {
            return true;
        }
        if self
            .small_endgame
            .last()
            .is_some_and(|count| count.is_some_and(|count| count.is_over()))
        {
            return true;
        }
        if rules.repetitions == 0 {
            return false;
        }
        let hash = *self.path.last().expect("the path holds the node");
        let len = self.path.len();
        let mut back = 4;
        while back <= reversible && back < len {
            if self.path[len - 1 - back] == hash {
                return true;
            }
            back += 2;
        }
        false
    }

    /// Counts a node; every `poll_interval` nodes publishes the count and checks limits,
    /// and is [`Aborted`] when the search must end.
    #[inline]
    fn count_node(&mut self) -> Result<(), Aborted> {
        self.nodes += 1;
        self.unpublished_nodes += 1;
        if self.unpublished_nodes >= self.poll_interval {
            self.publish_nodes();
            self.check_limits()?;
        }
        Ok(())
    }

    fn publish_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unpublished_nodes, Ordering::Relaxed);
        self.unpublished_nodes = 0;
    }

    /// [`Aborted`] when another thread or the front end stopped the search, or (thread 0)
    /// when the node limit or the hard time limit is reached, which then stops every thread.
    fn check_limits(&self) -> Result<(), Aborted> {
        if self.shared.control.stopped() {
            return Err(Aborted);
        }
        if self.thread_id != 0 {
            return Ok(());
        }
        let out_of_nodes = self.iteration_finished
            && self
                .limits
                .nodes
                .is_some_and(|limit| self.shared.nodes.load(Ordering::Relaxed) >= limit);
        let out_of_time = self.limits.budget.as_ref().is_some_and(|budget| {
            !self.shared.control.untimed() && self.shared.control.timed_ms() >= budget.hard_ms
        });
        if out_of_nodes || out_of_time {
            self.shared.control.halt();
            return Err(Aborted);
        }
        Ok(())
    }

    /// NegaScout (Reinefeld 1983): the first move with the full window, the others with a
    /// null window and a re-search when they beat alpha.
    fn pvs(
        &mut self,
        position: &Position<R>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> Searched {
        self.pv[ply].clear();
        if self.is_draw() {
            return Ok(DRAW);
        }
        if let Some(score) = decided_score(position, ply) {
            return Ok(score);
        }
        if self.shared.egtb.is_some()
            && let Some(score) = self.probe_tables(position, ply, depth <= 0)
        {
            self.count_node()?;
            return Ok(score);
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiescence(position, alpha, beta, ply);
        }
        self.count_node()?;
        self.seldepth = self.seldepth.max(ply);
        // A win can be no shorter than the plies already played: mate-distance pruning.
        let alpha_floor = -(WIN - ply as i32);
        let beta_ceiling = WIN - ply as i32 - 1;
        let (alpha_bound, beta_bound) = (alpha.max(alpha_floor), beta.min(beta_ceiling));
        if alpha_bound >= beta_bound {
            return Ok(alpha_bound);
        }

        let key = position.hash();
        let entry = self.shared.tt.probe(key);
        let mut tt_move = None;
        if let Some(entry) = entry {
            let score = score_from_tt(entry.score(), ply);
            if !pv_node && entry.depth() >= depth {
                let cutoff = match entry.bound() {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cutoff {
                    return Ok(score);
                }
            }
            tt_move = Some(entry);
        }

        // ProbCut as Scan 2.0 does it: in a non-PV node, a search at 40% of the depth that
        // beats beta by a margin growing with the depth is taken as a cut. A capture pending
        // does not prevent it (the reduced search resolves the capture like any other move).
        let selective = position.occupied().count_ones() >= SELECTIVE_MIN_PIECES;
        if !pv_node
            && depth >= 3
            && selective
            && self.probcut_nesting == 0
            && beta.abs() < WIN_BOUND
        {
            let margin = depth * PROBCUT_MARGIN_PER_PLY;
            let raised = beta + margin;
            self.probcut_nesting += 1;
            let score = self.pvs(position, depth * 40 / 100, raised - 1, raised, ply, false);
            self.probcut_nesting -= 1;
            let score = score?;
            if score >= raised {
                return Ok(score - margin);
            }
        }

        // Internal iterative reduction (what chess engines such as Stockfish do in place of
        // internal iterative deepening): a node whose table entry holds no move has never
        // been searched to a best move, so its ordering is blind; it is searched a ply
        // shallower, and the next iteration finds it with a move to try first. Only where
        // the search is selective anyway (from 8 pieces, as LMR and ProbCut): below that it
        // stays full width, so that a fixed depth finds exact distances to a win. Nor in
        // positions the tables hold (see [`Searcher::held_by_tables`]).
        let depth = if reduces_nodes_without_table_move::<R>()
            && depth >= NO_TABLE_MOVE_REDUCTION_MIN_DEPTH
            && selective
            && !tt_move.as_ref().is_some_and(|entry| entry.has_move())
            && !self.held_by_tables(position)
        {
            depth - 1
        } else {
            depth
        };
        let singular_beta = self.singular_beta(position, tt_move.as_ref(), depth, ply);
        self.with_buffer(Self::order_pool, ply, |this, order| {
            let move_count = this.with_buffer(Self::list_pool, ply, |this, list| {
                position.legal_moves_into(list);
                // The table's move is searched first: its child's bucket loads while the
                // moves are scored and sorted (the later ones are prefetched one ahead).
                if depth > 1
                    && let Some(first) = tt_move
                        .as_ref()
                        .and_then(|entry| entry.find_move(list.as_slice()))
                {
                    this.shared.tt.prefetch(position.play(&first).hash());
                }
                order.clear();
                order.extend(
                    list.iter()
                        .map(|&mv| (this.order_score(&mv, tt_move.as_ref()), mv)),
                );
                list.len()
            });
            if move_count == 0 {
                return Ok(stuck_score(position, ply));
            }
            // A forced move costs no width: look one ply further (Scan does the same).
            let extension = i32::from(move_count == 1);
            order.sort_unstable_by_key(|entry| std::cmp::Reverse(entry.0));
            // The table's move sorts first when it is legal here; a singular one is
            // searched a ply deeper.
            let first_extension = match singular_beta {
                Some(singular_beta) if extension == 0 && order[0].0 == i32::MAX => i32::from(
                    this.all_fail_low(position, &order[1..], singular_beta, depth, ply)?,
                ),
                _ => 0,
            };

            let original_alpha = alpha;
            let mut best_score = -INFINITE;
            let mut best_move = None;
            let mut best_index = None;
            let new_depth = depth - 1 + extension;
            // Each child is made one move ahead and its table bucket prefetched, so that
            // the load runs while the move before it is searched (the child probes the
            // table first thing). The horizon's capture resolution does not probe the table
            // but evaluates: there the entry of its score in the network's cache is loaded.
            let make = |this: &Self, mv: &Move| {
                let child = position.play(mv);
                if new_depth > 0 {
                    this.shared.tt.prefetch(child.hash());
                } else if this.network_in_force {
                    this.score_cache.prefetch(child.hash());
                }
                child
            };
            let mut next_child = make(this, &order[0].1);
            for (index, &(_, mv)) in order.iter().enumerate() {
                let child = match order.get(index + 1) {
                    Some((_, following)) => {
                        std::mem::replace(&mut next_child, make(this, following))
                    }
                    None => next_child,
                };
                // Late move reductions as Scan 2.0 makes them: quiet moves (no capture, no
                // promotion) after the first three in PV nodes and after the first elsewhere,
                // one ply, two from the seventh move in non-PV nodes.
                let reduction = if depth >= 3
                    && selective
                    && index >= if pv_node { 3 } else { 1 }
                    && !mv.is_capture()
                    && !mv.promotes
                {
                    1 + i32::from(!pv_node && index >= 6)
                } else {
                    0
                };
                let score = this.on_path(position, &mv, &child, |this| {
                    if index == 0 {
                        return Ok(-this.pvs(
                            &child,
                            new_depth + first_extension,
                            -beta,
                            -alpha,
                            ply + 1,
                            pv_node,
                        )?);
                    }
                    let probe = -this.pvs(
                        &child,
                        new_depth - reduction,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                        false,
                    )?;
                    if probe > alpha && (reduction > 0 || (probe < beta && pv_node)) {
                        Ok(-this.pvs(&child, new_depth, -beta, -alpha, ply + 1, pv_node)?)
                    } else {
                        Ok(probe)
                    }
                })?;
                if score > best_score {
                    best_score = score;
                    best_move = Some(mv);
                    if score > alpha {
                        alpha = score;
                        best_index = Some(index);
                        this.update_pv(ply, mv);
                        if score >= beta {
                            break;
                        }
                    }
                }
            }
            if let Some(best) = best_index {
                this.update_history(&order[..=best]);
            }
            let bound = if best_score >= beta {
                Bound::Lower
            } else if best_score > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            // A node where every move failed low has no best move worth keeping: the one
            // with the highest bound is noise, and the entry's earlier move stays (Scan 2.0
            // stores no move then either).
            let stored_move = best_index.and(best_move);
            this.shared.tt.store(
                key,
                stored_move.as_ref(),
                score_to_tt(best_score, ply),
                depth,
                bound,
            );
            Ok(best_score)
        })
    }

    /// The bound of a singular-extension test at this node, or `None` when there is none to
    /// make: singular extensions (Anantharaman, Campbell and Hsu, "Singular extensions:
    /// adding selectivity to brute-force searching", Artificial Intelligence 43, 1990), in the
    /// simplified form of today's chess engines. When the table holds a move whose score is
    /// a lower bound (or exact) from a search at most three plies shallower, and every other
    /// move fails low at half the depth against that score less a margin, the table's move
    /// is the only good one and is searched a ply deeper. English is decided by long forced
    /// lines (Cake and GuiNN extend them in their own ways), which this finds without rules
    /// of its own. Positions the endgame tables hold, and scores from the tables or past a
    /// won line, take no test: the tables and the progress measure steer those lines, and
    /// tests there only multiply the tree.
    fn singular_beta(
        &self,
        position: &Position<R>,
        tt_move: Option<&super::tt::TtEntry>,
        depth: i32,
        ply: usize,
    ) -> Option<i32> {
        if !extends_singular_moves::<R>()
            || depth < SINGULAR_MIN_DEPTH
            || ply as i32 >= 2 * self.root_depth
        {
            return None;
        }
        if self.held_by_tables(position) {
            return None;
        }
        let entry = tt_move?;
        let score = score_from_tt(entry.score(), ply);
        (entry.bound() != Bound::Upper
            && entry.depth() >= depth - 3
            && score.abs() < TABLE_WIN - TABLE_WIN_SPREAD)
            .then(|| score - SINGULAR_MARGIN_PER_PLY * depth)
    }

    /// Whether the loaded endgame tables hold `position` (its piece count or fewer): the
    /// singular test and the reduction without a table move leave such positions alone, since
    /// the conversion of a win the tables know without a distance relies on every line of
    /// the nominal depth being searched (docs/egtb.md).
    fn held_by_tables(&self, position: &Position<R>) -> bool {
        let pieces = position.occupied().count_ones() as usize;
        self.shared
            .egtb
            .as_ref()
            .is_some_and(|tables| pieces <= tables.max_pieces())
    }

    /// Whether every move of `others` fails low against `singular_beta` in a null-window
    /// search at half of `depth` (the test of [`Searcher::singular_beta`]).
    fn all_fail_low(
        &mut self,
        position: &Position<R>,
        others: &[(i32, Move)],
        singular_beta: i32,
        depth: i32,
        ply: usize,
    ) -> Result<bool, Aborted> {
        for &(_, mv) in others {
            let child = position.play(&mv);
            let score = self.on_path(position, &mv, &child, |this| {
                Ok(-this.pvs(
                    &child,
                    (depth - 1) / 2,
                    -singular_beta,
                    -singular_beta + 1,
                    ply + 1,
                    false,
                )?)
            })?;
            if score >= singular_beta {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The move lists, one per ply.
    fn list_pool(&mut self) -> &mut Vec<MoveList> {
        &mut self.lists
    }

    /// The ordered moves, one list per ply.
    fn order_pool(&mut self) -> &mut Vec<Vec<(i32, Move)>> {
        &mut self.orders
    }

    /// Capture resolution at the horizon. Captures are compulsory, so a side that has one
    /// may not stand pat: all its captures are searched. Otherwise the static evaluation
    /// stands.
    fn quiescence(
        &mut self,
        position: &Position<R>,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Searched {
        self.pv[ply].clear();
        self.count_node()?;
        self.seldepth = self.seldepth.max(ply);
        if let Some(score) = decided_score(position, ply) {
            return Ok(score);
        }
        if ply >= MAX_PLY - 1 {
            return Ok(self.evaluate(position));
        }
        self.with_buffer(Self::list_pool, ply, |this, list| {
            list.clear();
            position.generate_captures(list);
            if list.is_empty() || !R::CAPTURE_COMPULSORY {
                if position.count_steps() == 0 && !position.has_capture() {
                    return Ok(stuck_score(position, ply));
                }
                return Ok(this.evaluate(position));
            }
            let mut best = -INFINITE;
            for &mv in list.iter() {
                let child = position.play(&mv);
                if this.network_in_force {
                    this.score_cache.prefetch(child.hash());
                }
                let score = -this.quiescence(&child, -beta, -alpha, ply + 1)?;
                if score > best {
                    best = score;
                    if score > alpha {
                        alpha = score;
                        if score >= beta {
                            break;
                        }
                    }
                }
            }
            Ok(best)
        })
    }

    /// The static evaluation, with the weights in force.
    #[inline(always)]
    fn evaluate(&mut self, position: &Position<R>) -> i32 {
        match &self.shared.weights {
            None => match crate::eval::defaults::network_for(R::VARIANT) {
                Some(network) => self.network_score(network, position),
                None => evaluate(position),
            },
            Some(EvalSet {
                network: Some(network),
                ..
            }) => self.network_score(network, position),
            Some(set) => set.evaluate(position),
        }
    }

    /// The network's score of `position`, from the cache when the position was evaluated
    /// before. The network is most of the time of an English search and the quiescence
    /// search meets the same leaves again by other move orders that the table does not see
    /// (it is not probed at leaves); its scores are exact, so a hit changes nothing but the
    /// time (docs/journal.md, "An evaluation cache for the network").
    #[inline(always)]
    fn network_score(
        &mut self,
        network: &crate::eval::network::Network,
        position: &Position<R>,
    ) -> i32 {
        let hash = position.hash();
        if let Some(score) = self.score_cache.get(hash) {
            return score;
        }
        let score = network.evaluate_from(position, &mut self.network_state);
        self.score_cache.put(hash, score);
        score
    }

    fn order_score(&self, mv: &Move, tt_move: Option<&super::tt::TtEntry>) -> i32 {
        if tt_move.is_some_and(|entry| entry.matches(mv)) {
            return i32::MAX;
        }
        let rate = i32::from(self.history[mv.from as usize][mv.to as usize]);
        if mv.is_capture() {
            return 1 << 28 | (mv.capture_count() as i32) << 16 | rate;
        }
        rate
    }

    /// Scan 2.0's move-ordering statistics: the last of `searched` raised alpha and is the
    /// node's best, the ones before it did not. Each rate moves 1/64 of the way to one or
    /// to zero, whatever the depth.
    fn update_history(&mut self, searched: &[(i32, Move)]) {
        let (best, before) = searched.split_last().expect("the best move was searched");
        for (_, mv) in before {
            let slot = &mut self.history[mv.from as usize][mv.to as usize];
            *slot -= *slot >> HISTORY_SHIFT;
        }
        let slot = &mut self.history[best.1.from as usize][best.1.to as usize];
        *slot += (HISTORY_ONE - *slot) >> HISTORY_SHIFT;
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }
}

/// How far the side to move has come in an ending the tables call won or lost without a
/// distance, from its own point of view (the other side's is the negative): the usual
/// "mop-up" measures of engines that play such endings from win/draw/loss databases. More
/// pieces and kings than the other side (a conversion), men nearer the crown, more moves
/// than the other side has (a side hemmed in is near its end: its last move is where it
/// loses), and kings close to the other side's pieces (which they must attack) score more.
fn table_win_progress<R: Rules>(position: &Position<R>) -> i32 {
    use crate::rules::physical_row_col;
    let me = position.side_to_move();
    let them = me.opponent();
    let count = |bits: u64| bits.count_ones() as i32;
    let mut scratch = MoveList::new();
    let my_moves = position.count_legal_moves(&mut scratch) as i32;
    let their_moves = position
        .with_side_to_move(them)
        .count_legal_moves(&mut scratch) as i32;
    let crown_row = |color| {
        let row = Position::<R>::promotion_row(color);
        physical_row_col::<R>(row.trailing_zeros() as u8).0 as i32
    };
    let advancement = |color| {
        let target = crown_row(color);
        crate::board::Bits(position.men(color))
            .map(|bit| 9 - (physical_row_col::<R>(bit as u8).0 as i32 - target).abs())
            .sum::<i32>()
    };
    // King steps from each king of `color` to the nearest piece of the other side.
    let reach = |color: crate::rules::Color| {
        let targets: Vec<(i32, i32)> = crate::board::Bits(position.pieces(color.opponent()))
            .map(|bit| {
                let (row, col) = physical_row_col::<R>(bit as u8);
                (row as i32, col as i32)
            })
            .collect();
        crate::board::Bits(position.kings_of(color))
            .map(|bit| {
                let (row, col) = physical_row_col::<R>(bit as u8);
                targets
                    .iter()
                    .map(|&(r, c)| (r - row as i32).abs().max((c - col as i32).abs()))
                    .min()
                    .unwrap_or(0)
            })
            .sum::<i32>()
    };
    100 * (count(position.pieces(me)) - count(position.pieces(them)))
        + 50 * (count(position.kings_of(me)) - count(position.kings_of(them)))
        + 8 * (advancement(me) - advancement(them))
        + 10 * (my_moves - their_moves)
        - 4 * (reach(me) - reach(them))
}
