//! The host's side of CheckerBoard's API: a game as a CheckerBoard host hands it to an engine (board, colour, `set gamehist`) and the reading of the engine's answer, for `damka cb-engine`.

use super::{
    Board8x8, COMMAND_SIZE, CbMove, GameType, board_fen, board_of_position, cb_color, cb_move_text,
    describe_cbmove, move_of_cbmove, move_to_board, with_gametype,
};
use crate::any_game::AnyGame;
use crate::game::Game;
use crate::notation::fen::parse_fen;
use crate::notation::movetext::write_move;
use crate::position::Position;
use crate::rules::Rules;
use crate::with_game;

/// The position a CheckerBoard host asks an engine to move in, with what it needs to read
/// the answer.
#[derive(Clone, Debug)]
pub struct HostPosition {
    /// The game type.
    pub gametype: GameType,
    /// The board to pass to `getmove`.
    pub board: Board8x8,
    /// The colour to move (`CB_WHITE` or `CB_BLACK`).
    pub color: i32,
    /// The `set gamehist ...` command CheckerBoard sends before `getmove` (its
    /// `send_game_history`): the position after the last capture or man move, in
    /// CheckerBoard's numbers, then the king moves since, `from-to`; shortened to the most
    /// recent moves when the line would not fit the API's 256-byte command array.
    pub gamehist: String,
    /// The number of legal moves (CheckerBoard calls no engine without one).
    pub legal_moves: usize,
    /// The position, typed (its rules are those of `gametype`).
    game: AnyGame,
}

/// The game from `fen` (damka's numbers; `None`: the start) after `moves` (damka's move
/// texts), as a CheckerBoard host gives it to an engine of `gametype`.
pub fn host_position(
    gametype: GameType,
    fen: Option<&str>,
    moves: &[&str],
) -> Result<HostPosition, String> {
    with_gametype!(gametype, R => host_position_of::<R>(gametype, fen, moves))
}

fn host_position_of<R: Rules>(
    gametype: GameType,
    fen: Option<&str>,
    moves: &[&str],
) -> Result<HostPosition, String> {
    let start = match fen {
        None => Position::<R>::start(),
        Some(text) => parse_fen::<R>(text).map_err(|e| format!("bad FEN: {e}"))?,
    };
    let mut game = Game::new(start);
    for (index, text) in moves.iter().enumerate() {
        game.play_text(text)
            .map_err(|e| format!("move {} of the list: {e}", index + 1))?;
    }
    let position = *game.position();
    // The king moves since the last capture or man move are the reversible plies; the
    // positions before them are the game's.
    let positions: Vec<Position<R>> = game.positions().copied().collect();
    let played: Vec<_> = game.moves().copied().collect();
    let since = positions.len() - 1 - game.reversible_plies() as usize;
    // CheckerBoard sends every king move since the last conversion (its `send_game_history`
    // has no bound), but the API declares `char command[256]`, and an engine may copy the
    // line into that many bytes: Cake 1.89 does (`strcpy` into a 256-byte array), and a long
    // king ending overran it and crashed the engine's process (docs/journal.md, "Endings
    // the tables label"). So the oldest moves are dropped, the history starting at a later
    // position, until the line fits with its NUL; a repetition needs only the recent ones.
    let gamehist = (since..positions.len())
        .map(|first| gamehist_from::<R>(gametype, &positions[first], &played[first..]))
        .find(|line| line.len() < COMMAND_SIZE)
        .expect("a line without moves fits");
    Ok(HostPosition {
        gametype,
        board: board_of_position(&position),
        color: cb_color(position.side_to_move()),
        gamehist,
        legal_moves: position.legal_moves().len(),
        game: AnyGame::from(Game::new(position)),
    })
}

/// `set gamehist FEN MOVES`: `root` as CheckerBoard writes a FEN, then `moves` played from it.
fn gamehist_from<R: Rules>(
    gametype: GameType,
    root: &Position<R>,
    moves: &[crate::position::Move],
) -> String {
    let mut line = format!(
        "set gamehist {}",
        board_fen(
            &board_of_position(root),
            cb_color(root.side_to_move()),
            gametype
        )
    );
    for mv in moves {
        line.push(' ');
        line.push_str(&cb_move_text::<R>(mv));
    }
    line
}

/// An engine's answer that is no legal move: what it played, in a few characters (a board
/// as CheckerBoard writes a FEN, or a CBmove as [`describe_cbmove`] writes it), and why that
/// is not a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    /// What it played, without blanks.
    pub played: String,
    /// Why that is no legal move.
    pub why: String,
}

impl HostPosition {
    /// The legal move (damka's text) after which the board is `after`, as CheckerBoard finds
    /// an English engine's move; the error says what the engine did instead.
    pub fn move_by_board(&self, after: &Board8x8) -> Result<String, Illegal> {
        let gametype = self.gametype;
        let mv = with_game!(&self.game, game => {
            let position = game.position();
            move_to_board(position, after).map(|mv| write_move(position, &mv))
        });
        mv.ok_or_else(|| Illegal {
            played: board_fen(
                after,
                (super::CB_WHITE | super::CB_BLACK) ^ self.color,
                gametype,
            ),
            why: if *after == self.board {
                "it returned the board unchanged".into()
            } else {
                "no legal move leads to the board it returned".into()
            },
        })
    }

    /// The legal move (damka's text) that a `struct CBmove` describes, as CheckerBoard reads
    /// the move of an engine of another game type that has no `get movelist`.
    pub fn move_by_cbmove(&self, cbmove: &CbMove) -> Result<String, Illegal> {
        let mv = with_game!(&self.game, game => {
            let position = game.position();
            move_of_cbmove(position, cbmove).map(|mv| write_move(position, &mv))
        });
        mv.map_err(|why| Illegal {
            played: describe_cbmove(cbmove, self.gametype),
            why: format!("its CBmove names no legal move: {why}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkerboard::{CB_BLACK, CB_KING, CB_WHITE, cb_move};
    use crate::rules::English;

    #[test]
    fn the_history_is_the_king_moves_since_the_last_man_move() {
        let host = host_position(
            GameType::English,
            Some("B:WK30,31:BK3,10"),
            &["10-14", "30-26", "3-7", "26-30"],
        )
        .unwrap();
        assert_eq!(
            host.gamehist,
            "set gamehist W:WK30,31:BK3,14 30-26 3-7 26-30"
        );
        assert_eq!(host.color, CB_BLACK);
        let start = host_position(GameType::English, None, &[]).unwrap();
        assert_eq!(
            start.gamehist,
            "set gamehist B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
        );
        assert_eq!(start.legal_moves, 7);
    }

    #[test]
    fn a_long_king_ending_sends_only_the_recent_moves_that_fit_the_command_array() {
        // Kings walking to and fro: 60 reversible plies, far more than 255 bytes of moves.
        let cycle = ["30-26", "3-7", "26-30", "7-3"];
        let moves: Vec<&str> = cycle.iter().copied().cycle().take(60).collect();
        let host = host_position(GameType::English, Some("W:WK30,31:BK3,14"), &moves).unwrap();
        assert!(host.gamehist.len() < COMMAND_SIZE, "{}", host.gamehist);
        let fields: Vec<&str> = host.gamehist.split(' ').collect();
        let kept = &fields[3..];
        // Most of the moves still fit; they are the last ones, from the position they
        // were played in.
        assert!(kept.len() > 20, "{}", host.gamehist);
        assert_eq!(kept, &moves[moves.len() - kept.len()..]);
        let start = board_fen(
            &board_of_position(&parse_fen::<English>("W:WK30,31:BK3,14").unwrap()),
            CB_WHITE,
            GameType::English,
        );
        assert_eq!(
            fields[2] == start,
            kept.len().is_multiple_of(4),
            "{}",
            host.gamehist
        );
        // A short history is sent whole, as CheckerBoard sends it.
        let short =
            host_position(GameType::English, Some("W:WK30,31:BK3,14"), &moves[..8]).unwrap();
        assert_eq!(short.gamehist.split(' ').count(), 3 + 8);
    }

    #[test]
    fn answers_are_read_by_board_and_by_cbmove() {
        let host = host_position(GameType::English, Some("W:W30,28:B25,17,10,3,4"), &[]).unwrap();
        assert_eq!(host.color, CB_WHITE);
        let position = parse_fen::<English>("W:W30,28:B25,17,10,3,4").unwrap();
        let mv = position.legal_moves().as_slice()[0];
        let after = board_of_position(&position.play(&mv));
        assert_eq!(host.move_by_board(&after).unwrap(), "30x7");
        assert_eq!(
            host.move_by_cbmove(&cb_move(&position, &mv)).unwrap(),
            "30x7"
        );
        assert!(
            host.move_by_board(&host.board)
                .unwrap_err()
                .why
                .contains("unchanged")
        );
        let mut wrong = after;
        wrong[0][0] = CB_WHITE | CB_KING;
        let illegal = host.move_by_board(&wrong).unwrap_err();
        assert!(illegal.why.contains("no legal move"), "{illegal:?}");
        assert_eq!(illegal.played, "B:WK4,7,28:B3");
    }
}
