//! Time management: soft and hard limits from the clock, increment and move overhead.
//!
//! Pure functions, no I/O and no clock reading: the search measures elapsed time itself and
//! compares it with the [`TimeBudget`] computed here when the search starts.

/// The clock of the side to move, as a protocol reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock in milliseconds. Some clients send negative values after an
    /// overstep; they are treated as 0.
    pub time_ms: i64,
    /// Increment added after each move, in milliseconds (negative values are treated as 0).
    pub inc_ms: i64,
    /// Moves until the next time control, if the control is not sudden death.
    pub moves_to_go: Option<u32>,
}

/// How long to think about one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// The target: iterative deepening does not start a new iteration once this much time
    /// has passed.
    pub soft_ms: u64,
    /// The absolute limit, polled during the search: when it has passed the search stops at
    /// once. Always at least `soft_ms`.
    pub hard_ms: u64,
}

/// The least time ever given to a search, so that it can return at least a legal move.
const MIN_MS: u64 = 1;
/// The most moves ever planned for, even when the control is further away.
const MAX_HORIZON: u64 = 50;
/// The horizon of sudden-death games at the start of the game.
const OPENING_HORIZON: u64 = 30;
/// The horizon of sudden-death games deep into the game.
const LATE_HORIZON: u64 = 16;
/// The hard limit is at most this multiple of the soft one.
const HARD_PER_SOFT: u64 = 5;

/// The number of moves to plan for in sudden death (no `moves_to_go`), `ply` plies into the
/// game: 30 at the start, one less every 8 plies (4 moves), down to 16 after ply 112.
///
/// Reason: the game may still be long, so each move gets a fixed share of what is left
/// (which also never runs out, as each move spends a fraction of the remainder), but the
/// share grows later in the game, when fewer moves remain and the search is cheaper to
/// deepen. Early moves do not get much more, because draughts openings are well trodden and
/// the middle game decides more.
fn sudden_death_horizon(ply: usize) -> u64 {
    let ply = u64::try_from(ply).unwrap_or(u64::MAX);
    OPENING_HORIZON.saturating_sub(ply / 8).max(LATE_HORIZON)
}

/// The budget for one move with `clock` for the side to move, `move_overhead_ms` lost per
/// move to communication and the GUI, `ply` plies into the game.
///
/// With `time` = the clock (negative becomes 0), `inc` = the increment, `ov` = the overhead,
/// `mtg` = moves to the next control (at most 50; in sudden death a horizon of 30 moves
/// early in the game down to 16 late, see `sudden_death_horizon`):
///
/// - `available = time - ov`: the most this move may ever take, so the clock cannot fall
///   below the overhead the GUI loses on top of the search.
/// - `soft = (time + inc * (mtg - 1) - ov * mtg) / mtg`: an equal share of the time until
///   the control, counting the increments still to come and paying the overhead of every
///   move. That is about `time / mtg` plus most of the increment.
/// - `hard = min(5 * soft, available / min(mtg, 4))`: the search may run over its target when
///   an iteration is slow, but not by more than five times, and never spend more than a
///   quarter of what is left (half with two moves to go, a third with three): in sudden
///   death, or with a large increment on a small clock, a client's own delay per move, not
///   always covered by the overhead, must still fit.
/// - With one move to go there is nothing to save for: `soft = hard = available`.
/// - Then `soft` is capped at `hard`, and both are at least 1 ms, so a search always gets a
///   chance to produce a move even on an empty clock.
///
/// `hard_ms <= max(time - ov, 1)` always holds.
pub fn allocate(clock: &Clock, move_overhead_ms: u64, ply: usize) -> TimeBudget {
    let time = clock.time_ms.max(0).unsigned_abs();
    let inc = clock.inc_ms.max(0).unsigned_abs();
    let overhead = move_overhead_ms;
    let available = time.saturating_sub(overhead);

    let horizon = match clock.moves_to_go {
        Some(n) => u64::from(n).clamp(1, MAX_HORIZON),
        None => sudden_death_horizon(ply),
    };

    let (soft, hard) = if horizon == 1 {
        (available, available)
    } else {
        let planned = time
            .saturating_add(inc.saturating_mul(horizon - 1))
            .saturating_sub(overhead.saturating_mul(horizon));
        let soft = planned / horizon;
        let hard = soft
            .saturating_mul(HARD_PER_SOFT)
            .min(available / horizon.min(4));
        (soft.min(hard), hard)
    };

    let hard = hard.max(MIN_MS);
    TimeBudget {
        soft_ms: soft.clamp(MIN_MS, hard),
        hard_ms: hard,
    }
}

/// The budget for a fixed time per move (`go movetime`): all of it but the overhead,
/// as both soft and hard limit, at least 1 ms.
pub fn movetime_budget(movetime_ms: u64, move_overhead_ms: u64) -> TimeBudget {
    let ms = movetime_ms.saturating_sub(move_overhead_ms).max(MIN_MS);
    TimeBudget {
        soft_ms: ms,
        hard_ms: ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(time_ms: i64, inc_ms: i64, moves_to_go: Option<u32>) -> Clock {
        Clock {
            time_ms,
            inc_ms,
            moves_to_go,
        }
    }

    fn check_invariants(c: &Clock, overhead: u64, ply: usize) -> TimeBudget {
        let b = allocate(c, overhead, ply);
        let time = c.time_ms.max(0) as u64;
        let limit = time.saturating_sub(overhead).max(1);
        assert!(b.soft_ms >= 1, "{c:?} {overhead} {ply}: {b:?}");
        assert!(b.soft_ms <= b.hard_ms, "{c:?} {overhead} {ply}: {b:?}");
        assert!(b.hard_ms <= limit, "{c:?} {overhead} {ply}: {b:?}");
        b
    }

    #[test]
    fn never_exceeds_time_minus_overhead() {
        let times = [
            -5_000, -1, 0, 1, 10, 49, 50, 51, 100, 1_000, 60_000, 3_600_000,
        ];
        let incs = [-100, 0, 10, 1_000, 30_000];
        let mtgs = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(5),
            Some(40),
            Some(1000),
        ];
        for time in times {
            for inc in incs {
                for mtg in mtgs {
                    for overhead in [0, 10, 50, 1_000] {
                        for ply in [0, 1, 40, 100, 400, usize::MAX] {
                            check_invariants(&clock(time, inc, mtg), overhead, ply);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn negative_time_clamps() {
        let b = allocate(&clock(-3_000, -50, None), 20, 10);
        assert_eq!(
            b,
            TimeBudget {
                soft_ms: 1,
                hard_ms: 1
            }
        );
        assert_eq!(
            allocate(&clock(-3_000, 2_000, Some(10)), 20, 10),
            allocate(&clock(0, 2_000, Some(10)), 20, 10)
        );
    }

    #[test]
    fn sudden_death_share() {
        // One minute, no increment, opening: about a 30th.
        let b = check_invariants(&clock(60_000, 0, None), 0, 0);
        assert_eq!(b.soft_ms, 2_000);
        assert_eq!(b.hard_ms, 10_000);
        // Later in the game the share grows.
        let late = check_invariants(&clock(60_000, 0, None), 0, 200);
        assert!(late.soft_ms > b.soft_ms);
        assert_eq!(late.soft_ms, 60_000 / 16);
    }

    #[test]
    fn increment_is_used() {
        let without = check_invariants(&clock(10_000, 0, None), 50, 20);
        let with = check_invariants(&clock(10_000, 1_000, None), 50, 20);
        // Most of the increment goes into the target.
        assert!(
            with.soft_ms >= without.soft_ms + 800,
            "{without:?} {with:?}"
        );
        assert!(with.hard_ms > without.hard_ms);
        // A large increment on a small clock is capped at a quarter of what is left.
        let b = check_invariants(&clock(1_000, 5_000, None), 50, 20);
        assert_eq!(b.hard_ms, 237);
        assert!(b.soft_ms <= b.hard_ms);
    }

    #[test]
    fn one_move_to_go_uses_all_but_overhead() {
        let b = check_invariants(&clock(5_000, 0, Some(1)), 100, 30);
        assert_eq!(
            b,
            TimeBudget {
                soft_ms: 4_900,
                hard_ms: 4_900
            }
        );
        let b = check_invariants(&clock(5_000, 0, Some(2)), 100, 30);
        assert!(b.soft_ms >= 2_300 && b.hard_ms <= 2_450, "{b:?}");
        // More moves to go, less per move.
        let ten = check_invariants(&clock(5_000, 0, Some(10)), 100, 30);
        assert!(ten.soft_ms < b.soft_ms);
    }

    #[test]
    fn tiny_clocks() {
        let b = check_invariants(&clock(10, 0, None), 50, 60);
        assert!(b.soft_ms >= 1 && b.hard_ms >= 1);
        assert!(b.hard_ms <= 10);
        let b = check_invariants(&clock(10, 0, Some(1)), 50, 60);
        assert!(b.hard_ms >= 1 && b.hard_ms <= 10);
        let b = check_invariants(&clock(60, 0, None), 50, 60);
        assert!(b.hard_ms <= 10);
    }

    #[test]
    fn movetime() {
        assert_eq!(
            movetime_budget(1_000, 50),
            TimeBudget {
                soft_ms: 950,
                hard_ms: 950
            }
        );
        assert_eq!(
            movetime_budget(30, 50),
            TimeBudget {
                soft_ms: 1,
                hard_ms: 1
            }
        );
        assert_eq!(
            movetime_budget(0, 0),
            TimeBudget {
                soft_ms: 1,
                hard_ms: 1
            }
        );
    }
}
