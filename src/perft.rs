//! Perft: counting the leaves of the legal move tree, with bulk counting at the last ply.

use crate::movegen::{MoveList, RouteList};
use crate::notation::movetext::write_move_in;
use crate::position::Position;
use crate::rules::Rules;

/// Counts the leaves of the move tree `depth` plies deep. A whole capture sequence is one move
/// and routes with the same start, end and captured set count once (the `drop_dup` convention
/// of the published tables).
pub fn perft<R: Rules>(position: &Position<R>, depth: u32) -> u64 {
    let mut lists: Vec<MoveList> = (0..=depth).map(|_| MoveList::new()).collect();
    perft_with(position, depth, &mut lists)
}

fn perft_with<R: Rules>(position: &Position<R>, depth: u32, lists: &mut [MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (list, rest) = lists.split_first_mut().expect("one list per ply");
    if depth == 1 {
        return position.count_legal_moves(list);
    }
    let mut total = 0;
    if depth == 2 {
        // The last two plies in one loop: no call per leaf parent, and most steps' replies
        // counted without playing them.
        let scratch = &mut rest[0];
        list.clear();
        position.generate_captures(list);
        for mv in list.iter() {
            total += position.play_unhashed(mv).count_legal_moves(scratch);
        }
        if list.is_empty() || !R::CAPTURE_COMPULSORY {
            total += position.count_replies_to_steps(scratch);
        }
        return total;
    }
    position.legal_moves_into(list);
    for mv in list.iter() {
        total += perft_with(&position.play_unhashed(mv), depth - 1, rest);
    }
    total
}

/// Perft counting every capture route separately, even routes with the same start, end and
/// captured set (the `keep_dup` convention of older published tables). For checks only: it
/// does not bulk-count.
pub fn perft_keep_duplicates<R: Rules>(position: &Position<R>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut routes = RouteList::default();
    position.generate_captures(&mut routes);
    let mut moves = routes.as_slice().to_vec();
    if moves.is_empty() || !R::CAPTURE_COMPULSORY {
        let mut steps = MoveList::new();
        position.generate_steps(&mut steps);
        moves.extend_from_slice(steps.as_slice());
    }
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|mv| perft_keep_duplicates(&position.play(mv), depth - 1))
        .sum()
}

/// Perft split by root move: each legal move's text and the leaves below it, in generation
/// order.
pub fn divide<R: Rules>(position: &Position<R>, depth: u32) -> Vec<(String, u64)> {
    let legal = position.legal_moves();
    legal
        .iter()
        .map(|mv| {
            let count = if depth <= 1 {
                1
            } else {
                perft(&position.play(mv), depth - 1)
            };
            (write_move_in::<R>(position, mv, &legal), count)
        })
        .collect()
}
