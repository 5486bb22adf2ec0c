//! Search scores and their win/loss encoding: what a score means, and how a forced win is
//! kept in the transposition table (as Scan's score.cpp).
//!
//! Scores are centi-men from the side to move's point of view. A win in `n` plies from the
//! root scores `WIN - n`; the table keeps it counted from the node instead (see
//! [`score_to_tt`]), so an entry stays right when the position is reached at another ply.

/// The score of a won position at the root: a win in `n` plies from the root scores
/// `WIN - n`, a loss in `n` plies scores `-(WIN - n)`. Fits an `i16` with room to spare.
pub const WIN: i32 = 30_000;

/// Scores above `WIN_BOUND` (or below `-WIN_BOUND`) are forced wins (losses): the win is
/// `WIN - score` plies from the root. Ordinary evaluations must stay strictly inside
/// `-WIN_BOUND..=WIN_BOUND`; the 1000 values above it leave room for 1000 plies of distance.
pub const WIN_BOUND: i32 = WIN - 1000;

/// A win the endgame tables know without its distance (a win/draw/loss slice) scores
/// `TABLE_WIN` plus the position's evaluation, clamped to `TABLE_WIN_SPREAD` either way (a
/// loss, minus `TABLE_WIN` plus the evaluation): above every ordinary evaluation and below
/// every forced win with a distance. The evaluation inside the band is what makes the
/// search progress from one won position to a better one (more material, men nearer the
/// crown, a conversion), as Kingsrow and Scan play from win/draw/loss databases; repetition
/// scores a draw, far below, so a won ending is not walked in circles.
pub const TABLE_WIN: i32 = 20_000;

/// How far the evaluation moves a [`TABLE_WIN`] score either way.
pub const TABLE_WIN_SPREAD: i32 = 5_000;

/// A won position the tables know without its distance, reached after a capture or a man
/// move since the root (a step no line can take back), `n` plies from the root, scores
/// `TABLE_PROGRESS - n`: above every [`TABLE_WIN`] score, so that a line which makes such a
/// step and keeps the win beats every line that does not, and the nearest such step beats
/// a later one. Each step lowers a measure that cannot grow again (pieces, men, and how far
/// the men have come), so a search that always finds the next one converts the win, and
/// every step also starts the no-progress count of the draw rules again. Like a forced
/// win, such a score is kept in the table counted from its node (see [`score_to_tt`]).
pub const TABLE_PROGRESS: i32 = 28_000;

/// Scores above `TABLE_PROGRESS_BOUND` and up to [`WIN_BOUND`] are [`TABLE_PROGRESS`]
/// scores: `TABLE_PROGRESS - score` plies from the root to the step.
pub const TABLE_PROGRESS_BOUND: i32 = TABLE_PROGRESS - 1000;

/// Converts a search score at a node `ply` plies from the root to the form kept in the
/// table: a win or loss (or a [`TABLE_PROGRESS`] step) counted from this node instead of
/// from the root, so that the entry stays right when the same position is reached at
/// another ply. Other scores are unchanged.
#[inline]
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    let ply = ply_i32(ply);
    if score > TABLE_PROGRESS_BOUND {
        score + ply
    } else if score < -TABLE_PROGRESS_BOUND {
        score - ply
    } else {
        score
    }
}

/// The inverse of [`score_to_tt`]: turns a stored score back into a score relative to the
/// root for a node `ply` plies from it.
#[inline]
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    let ply = ply_i32(ply);
    if score > TABLE_PROGRESS_BOUND {
        score - ply
    } else if score < -TABLE_PROGRESS_BOUND {
        score + ply
    } else {
        score
    }
}

#[inline]
fn ply_i32(ply: usize) -> i32 {
    i32::try_from(ply).unwrap_or(i32::MAX).min(WIN - WIN_BOUND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_follow_the_node() {
        // Not wins: unchanged (a table win without a distance included).
        let table_win = TABLE_WIN + TABLE_WIN_SPREAD;
        for s in [
            0,
            1,
            -1,
            TABLE_PROGRESS_BOUND,
            -TABLE_PROGRESS_BOUND,
            1234,
            table_win,
        ] {
            assert_eq!(score_to_tt(s, 17), s);
            assert_eq!(score_from_tt(s, 17), s);
        }
        // Round trip at any ply.
        for s in [
            WIN - 1,
            WIN - 40,
            WIN_BOUND + 1,
            -(WIN - 1),
            -(WIN - 40),
            -(WIN_BOUND + 1),
            TABLE_PROGRESS - 3,
            -(TABLE_PROGRESS - 3),
        ] {
            for ply in [0, 1, 7, 60] {
                assert_eq!(score_from_tt(score_to_tt(s, ply), ply), s);
            }
        }
        // A win found 3 plies below a node at ply 5 is a win in 8 from the root there.
        let at_ply_5 = WIN - 8;
        let stored = score_to_tt(at_ply_5, 5);
        assert_eq!(stored, WIN - 3, "stored as a win in 3 from the node");
        // The same position reached at ply 2: a win in 5 from the root.
        assert_eq!(score_from_tt(stored, 2), WIN - 5);
        // And for losses.
        let stored = score_to_tt(-(WIN - 8), 5);
        assert_eq!(stored, -(WIN - 3));
        assert_eq!(score_from_tt(stored, 2), -(WIN - 5));
    }
}
