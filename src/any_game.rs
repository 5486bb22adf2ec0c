//! A game of any variant as one value: the enum over the rule sets' games that front ends build (through [`notation`](crate::notation)) and hand to the engine facade.
//!
//! Each arm holds a [`Game<R>`] of one rule set, so a position and its moves stay typed from
//! the text a front end read to the search: nothing is written out and read again on the way.
//! [`with_game!`](crate::with_game) runs generic code on whichever arm a value holds; every
//! rule set knows its own arm ([`GameArm`], which [`Rules`] requires), so a generic `Game<R>`
//! becomes an [`AnyGame`] with `AnyGame::from`.

use crate::game::Game;
use crate::rules::{Color, Rules, Variant};
use crate::with_variant;

/// Declares [`AnyGame`] with one arm per rule set and each rule set's [`GameArm`].
macro_rules! any_game {
    ($($rules:ident)+) => {
        /// A game of any variant: its start position, the moves played and the position now.
        #[derive(Clone, Debug)]
        pub enum AnyGame {
            $(
                #[doc = concat!("A game of the [`", stringify!($rules), "`](crate::rules::",
                    stringify!($rules), ") rules.")]
                $rules(Game<crate::rules::$rules>),
            )*
        }

        $(
            impl GameArm for crate::rules::$rules {
                fn wrap(game: Game<Self>) -> AnyGame {
                    AnyGame::$rules(game)
                }

                fn unwrap(game: AnyGame) -> Option<Game<Self>> {
                    match game {
                        AnyGame::$rules(game) => Some(game),
                        _ => None,
                    }
                }

                fn unwrap_ref(game: &AnyGame) -> Option<&Game<Self>> {
                    match game {
                        AnyGame::$rules(game) => Some(game),
                        _ => None,
                    }
                }
            }
        )*
    };
}

any_game!(
    English International Brazilian Russian Pool Italian Spanish Czech Towers
    Antidraughts Breakthrough Frisian Frysk Turkish
);

/// The arm of [`AnyGame`] that holds a game of these rules (every rule set has one).
pub trait GameArm: Sized {
    /// The game as an [`AnyGame`].
    fn wrap(game: Game<Self>) -> AnyGame
    where
        Self: Rules;

    /// The game `game` holds, if it is of these rules.
    fn unwrap(game: AnyGame) -> Option<Game<Self>>
    where
        Self: Rules;

    /// The game `game` holds, if it is of these rules, borrowed.
    fn unwrap_ref(game: &AnyGame) -> Option<&Game<Self>>
    where
        Self: Rules;
}

impl<R: Rules> From<Game<R>> for AnyGame {
    fn from(game: Game<R>) -> AnyGame {
        R::wrap(game)
    }
}

/// Runs an expression on the [`Game<R>`](crate::game::Game) an
/// [`AnyGame`](crate::any_game::AnyGame) holds, bound to a name, whatever its rules:
/// `with_game!(&game, g => g.ply())`. The expression is compiled once per rule set.
#[macro_export]
macro_rules! with_game {
    ($game:expr, $binding:ident => $body:expr) => {
        $crate::with_game!(@arms $game, $binding => $body;
            English International Brazilian Russian Pool Italian Spanish Czech Towers
            Antidraughts Breakthrough Frisian Frysk Turkish)
    };
    (@arms $game:expr, $binding:ident => $body:expr; $($name:ident)+) => {
        match $game {
            $($crate::any_game::AnyGame::$name($binding) => $body,)+
        }
    };
}

/// The variant of a game's rules.
fn variant_of<R: Rules>(_: &Game<R>) -> Variant {
    R::VARIANT
}

impl AnyGame {
    /// A game of `variant` at its start position.
    pub fn start(variant: Variant) -> AnyGame {
        with_variant!(variant, R => AnyGame::from(Game::<R>::default()))
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        with_game!(self, game => variant_of(game))
    }

    /// The side to move now.
    pub fn side_to_move(&self) -> Color {
        with_game!(self, game => game.position().side_to_move())
    }

    /// Plies played from the start position.
    pub fn ply(&self) -> usize {
        with_game!(self, game => game.ply())
    }

    /// The game, if it is of the rules `R`.
    pub fn game<R: Rules>(&self) -> Option<&Game<R>> {
        R::unwrap_ref(self)
    }

    /// The game, if it is of the rules `R`.
    pub fn into_game<R: Rules>(self) -> Option<Game<R>> {
        R::unwrap(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International};

    #[test]
    fn every_variant_has_its_own_arm() {
        for variant in Variant::ALL {
            let game = AnyGame::start(variant);
            assert_eq!(game.variant(), variant);
            assert_eq!(game.ply(), 0);
            let first = with_variant!(variant, R => R::FIRST_TO_MOVE);
            assert_eq!(game.side_to_move(), first);
        }
        let english = AnyGame::start(Variant::English);
        assert!(english.game::<English>().is_some());
        assert!(english.game::<International>().is_none());
        assert!(english.into_game::<International>().is_none());
    }
}
