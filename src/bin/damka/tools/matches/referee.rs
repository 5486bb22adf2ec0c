//! One game between two engines, refereed with damka's own rules: illegal moves, crashes,
//! hangs and overrun clocks lose; the variant's draw rules, score adjudication and a ply cap end it.

use super::client::Player;
use super::openings::Opening;
use super::reply::Failure;
use crate::tools::limit::Limit;
use damka::game::{Game, Outcome};
use damka::rules::{Color, Rules};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How a game ended, in PDN's `Termination` words (the PGN standard's values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The rules ended it: no legal move, or a draw rule.
    Normal,
    /// Score adjudication or the ply cap.
    Adjudication,
    /// A clock ran out.
    TimeForfeit,
    /// An illegal or unreadable move.
    RulesInfraction,
    /// The engine crashed or closed its output.
    Abandoned,
    /// The engine stopped answering (no clock; the hang timeout).
    Stalled,
}

impl Termination {
    /// The tag value.
    pub fn tag(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudication => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::RulesInfraction => "rules infraction",
            Termination::Abandoned => "abandoned",
            Termination::Stalled => "stalled connection",
        }
    }
}

/// Score adjudication: both engines report at least `centi` (in absolute value, agreeing
/// on the winner) for `moves` moves each in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// Centi-men.
    pub centi: i32,
    /// Moves of each engine.
    pub moves: usize,
}

/// The referee's settings.
#[derive(Clone, Copy, Debug)]
pub struct Referee {
    /// The game is drawn at this many plies (openings included).
    pub max_plies: usize,
    /// Optional score adjudication.
    pub adjudication: Option<Adjudication>,
    /// How long an engine without a clock may take beyond its limit.
    pub hang: Duration,
    /// How far a clock may be overrun before it counts as run out (pipes, a loaded machine).
    pub time_margin: Duration,
    /// How far a `movetime` may be overrun before the engine counts as hung.
    pub movetime_margin: Duration,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct Finished<R: Rules> {
    /// The moves, from the opening's start position.
    pub game: Game<R>,
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// How it ended.
    pub termination: Termination,
    /// Why, in words.
    pub reason: String,
}

/// How long the engine to move may take before it forfeits, and what the forfeit is.
fn patience(limit: Limit, clock: Duration, rules: &Referee) -> Duration {
    match limit {
        // A movetime is a target, not a clock: on a loaded machine an engine that keeps it
        // can still answer late because it was not scheduled, so only an answer later than
        // the margin counts as a hang.
        Limit::MoveTime(t) => t + rules.movetime_margin,
        // The clock itself is the limit, and the margin.
        Limit::Clock { .. } => clock + rules.time_margin,
        Limit::Depth(_) | Limit::Nodes(_) => rules.hang,
    }
}

/// Plays one game from `opening`; `players` are White's and Black's engines. `None` when
/// `stop` was raised before the end. At the end both engines are told (a DXP engine needs
/// the last move and a GAMEEND).
pub fn play_game<R: Rules>(
    players: [&mut Player; 2],
    opening: &Opening<R>,
    rules: Referee,
    stop: &AtomicBool,
) -> Option<Finished<R>> {
    let [white, black] = players;
    let finished = play_moves([&mut *white, &mut *black], opening, rules, stop);
    if let Some(finished) = &finished {
        white.game_over(&finished.game);
        black.game_over(&finished.game);
    }
    finished
}

fn play_moves<R: Rules>(
    players: [&mut Player; 2],
    opening: &Opening<R>,
    rules: Referee,
    stop: &AtomicBool,
) -> Option<Finished<R>> {
    let mut game = opening.game();
    let [white, black] = players;
    let mut players = [white, black];
    let mut clocks = [Duration::ZERO; 2];
    for (index, player) in players.iter().enumerate() {
        if let Limit::Clock { base, .. } = player.limit {
            clocks[index] = base;
        }
    }
    // White-side scores of the last moves, for adjudication.
    let mut scores: Vec<Option<i32>> = Vec::new();
    let forfeit = |game: Game<R>, loser: Color, termination, reason: String| Finished {
        game,
        winner: Some(loser.opponent()),
        termination,
        reason,
    };
    for (index, player) in players.iter_mut().enumerate() {
        if let Err(error) = player.new_game() {
            let color = if index == 0 {
                Color::White
            } else {
                Color::Black
            };
            return Some(forfeit(
                game,
                color,
                Termination::Abandoned,
                format!(
                    "{} ({}) cannot start: {error}",
                    player.spec.name,
                    color.name()
                ),
            ));
        }
    }
    loop {
        if let Some(outcome) = game.outcome() {
            let winner = match outcome {
                Outcome::Win(color) => Some(color),
                Outcome::Draw(_) => None,
            };
            return Some(Finished {
                reason: outcome.to_string(),
                game,
                winner,
                termination: Termination::Normal,
            });
        }
        if game.ply() >= rules.max_plies {
            return Some(Finished {
                game,
                winner: None,
                termination: Termination::Adjudication,
                reason: format!("draw: the ply cap ({}) was reached", rules.max_plies),
            });
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let side = game.position().side_to_move();
        let player = &mut players[side.index()];
        let name = format!("{} ({})", player.spec.name, side.name());
        let (limit, increment) = match player.limit {
            Limit::Clock { increment, .. } => (player.limit, increment),
            other => (other, Duration::ZERO),
        };
        let wait = patience(limit, clocks[side.index()], &rules);
        let reply = match player.think(&game, clocks, wait) {
            Ok(reply) => reply,
            Err(failure) => {
                let (loses, termination, reason) = failure_ending(failure, &name, limit);
                return Some(Finished {
                    game,
                    winner: loses.then(|| side.opponent()),
                    termination,
                    reason,
                });
            }
        };
        if let Limit::Clock { .. } = limit {
            let clock = &mut clocks[side.index()];
            if reply.elapsed > *clock + rules.time_margin {
                let used = reply.elapsed.as_millis();
                let had = clock.as_millis();
                return Some(forfeit(
                    game,
                    side,
                    Termination::TimeForfeit,
                    format!("{name} lost on time (used {used} ms with {had} ms left)"),
                ));
            }
            *clock = clock.saturating_sub(reply.elapsed) + increment;
        }
        let mv = match reply.mv {
            Ok(mv) => mv,
            Err(why) => {
                return Some(forfeit(
                    game,
                    side,
                    Termination::RulesInfraction,
                    format!("{name} played '{}': {why}", reply.text),
                ));
            }
        };
        game.play(mv);
        scores.push(
            reply
                .score
                .map(|s| if side == Color::White { s } else { -s }),
        );
        if let Some(adjudication) = rules.adjudication
            && let Some(winner) = adjudicated(&scores, adjudication)
        {
            return Some(Finished {
                game,
                winner: Some(winner),
                termination: Termination::Adjudication,
                reason: format!(
                    "{} wins by adjudication: both engines scored it {:+} or more for {} moves",
                    winner.name(),
                    adjudication.centi,
                    adjudication.moves
                ),
            });
        }
    }
}

/// How an engine's failure to answer its move ends the game: whether it loses (else the game
/// is drawn), the termination and the reason, with `name` the engine and its colour.
fn failure_ending(failure: Failure, name: &str, limit: Limit) -> (bool, Termination, String) {
    match failure {
        Failure::Crashed(why) => (
            true,
            Termination::Abandoned,
            format!("{name} crashed: {why}"),
        ),
        Failure::Resigned => (true, Termination::Normal, format!("{name} resigned")),
        Failure::MoveLimit(moves) => (
            false,
            Termination::Adjudication,
            format!("draw: {name} ended the game after the {moves} moves of the DXP request"),
        ),
        Failure::EndedGame(why) => (
            true,
            Termination::Abandoned,
            format!("{name} left the game: {why}"),
        ),
        Failure::Hung(after) if matches!(limit, Limit::Clock { .. }) => (
            true,
            Termination::TimeForfeit,
            format!(
                "{name} lost on time (no move after {} ms)",
                after.as_millis()
            ),
        ),
        Failure::Hung(after) => (
            true,
            Termination::Stalled,
            format!(
                "{name} gave no move within {} ms (limit {limit})",
                after.as_millis()
            ),
        ),
    }
}

/// The side both engines agree is winning by at least the threshold over their last `moves`
/// moves each (White-side scores, one per ply).
fn adjudicated(scores: &[Option<i32>], rule: Adjudication) -> Option<Color> {
    let plies = 2 * rule.moves;
    if rule.moves == 0 || scores.len() < plies {
        return None;
    }
    let recent = &scores[scores.len() - plies..];
    if recent.iter().all(|s| s.is_some_and(|s| s >= rule.centi)) {
        Some(Color::White)
    } else if recent.iter().all(|s| s.is_some_and(|s| s <= -rule.centi)) {
        Some(Color::Black)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjudication_needs_both_sides_for_enough_moves() {
        let rule = Adjudication {
            centi: 300,
            moves: 2,
        };
        assert_eq!(adjudicated(&[Some(400); 3], rule), None);
        assert_eq!(adjudicated(&[Some(400); 4], rule), Some(Color::White));
        assert_eq!(
            adjudicated(&[Some(-400), Some(-300), Some(-900), Some(-301)], rule),
            Some(Color::Black)
        );
        assert_eq!(
            adjudicated(&[Some(400), None, Some(400), Some(400)], rule),
            None
        );
        assert_eq!(
            adjudicated(&[Some(400), Some(200), Some(400), Some(400)], rule),
            None
        );
    }
}
