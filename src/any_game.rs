//! A game of any variant as one value: the enum over the rule sets' games that front ends build (through [`notation`](crate::notation)) and hand to the engine facade.
//!
//! Each arm holds a [`Game<R>`] of one rule set, so a position and its moves stay typed from
//! the text a front end read to the search: nothing is written out and read again on the way.
//! [`with_game!`](crate::with_game) runs generic code on whichever arm a value holds; a generic
//! `Game<R>` becomes an [`AnyGame`] with `AnyGame::from`, which finds its arm by type
//! ([`std::any::Any`]), so the rules need not know this enum.

use crate::game::Game;
use crate::rules::{Color, Rules, Variant};
use crate::with_variant;
use std::any::Any;

/// Declares [`AnyGame`] with one arm per rule set, and `From<Game<R>>` for every rule set.
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

        impl<R: Rules> From<Game<R>> for AnyGame {
            /// The arm of `R`'s game, found by its type: `Rules` knows nothing of this enum,
            /// so the rules stay below the games in the module graph.
            fn from(game: Game<R>) -> AnyGame {
                let mut held = Some(game);
                let slot: &mut dyn Any = &mut held;
                $(
                    if let Some(game) = slot
                        .downcast_mut::<Option<Game<crate::rules::$rules>>>()
                        .and_then(Option::take)
                    {
                        return AnyGame::$rules(game);
                    }
                )*
                unreachable!("every rule set has an arm of AnyGame")
            }
        }
    };
}

any_game!(
    English International Brazilian Russian Pool Italian Spanish Czech Towers
    Antidraughts Breakthrough Frisian Frysk Turkish
);

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
        with_game!(self, game => (game as &dyn Any).downcast_ref::<Game<R>>())
    }

    /// The game, if it is of the rules `R`.
    pub fn into_game<R: Rules>(self) -> Option<Game<R>> {
        with_game!(self, game => {
            let mut held = Some(game);
            (&mut held as &mut dyn Any)
                .downcast_mut::<Option<Game<R>>>()
                .and_then(Option::take)
        })
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
        for variant in Variant::ALL {
            with_variant!(variant, R => {
                let game = AnyGame::start(variant);
                assert!(game.game::<R>().is_some(), "{variant:?}");
                assert_eq!(game.into_game::<R>().map(|g| g.ply()), Some(0), "{variant:?}");
            });
        }
        let english = AnyGame::start(Variant::English);
        assert!(english.game::<English>().is_some());
        assert!(english.game::<International>().is_none());
        assert!(english.into_game::<International>().is_none());
    }
}
