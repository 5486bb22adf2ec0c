//! A game of some variant behind one object-safe interface: the one place where the engine
//! dispatches into the monomorphised rules, notation and search.

use super::options::Options;
use super::search_thread::{SearchHandle, SearchPlan, run_search};
use super::types::{Event, Go};
use crate::any_game::AnyGame;
use crate::book::{Book, Choice, choose};
use crate::egtb::probe::Tables;
use crate::eval::EvalSet;
use crate::game::Game;
use crate::notation::diagram::diagram;
use crate::notation::fen::write_fen;
use crate::notation::movetext::write_move_in;
use crate::position::{Move, Position};
use crate::random::SplitMix;
use crate::rules::{Color, Rules, Variant};
use crate::search::tt::TranspositionTable;
use crate::search::{Control, Env, GameContext};
use crate::with_game;
use crossbeam_channel::Sender;
use std::sync::Arc;

/// A game of some variant, behind one object-safe interface.
pub trait Session: Send {
    /// The variant.
    fn variant(&self) -> Variant;
    /// The game: its start position, the moves played and the position now.
    fn game(&self) -> AnyGame;
    /// The current position as PDN FEN.
    fn fen(&self) -> String;
    /// The current position as a text diagram.
    fn diagram(&self) -> String;
    /// The side to move.
    fn side_to_move(&self) -> Color;
    /// The static evaluation of the current position, centi-men for the side to move, with
    /// `weights` or (`None`) the variant's built-in set.
    fn evaluate(&self, weights: Option<&EvalSet>) -> i32;
    /// The legal moves, as text.
    fn legal_moves(&self) -> Vec<String>;
    /// A line of moves from the current position, as text, up to its first move that is not
    /// legal.
    fn line_text(&self, line: &[Move]) -> Vec<String>;
    /// Perft split by root move.
    fn divide(&self, depth: u32) -> Vec<(String, u64)>;
    /// The game's result, if it is over, as text.
    fn outcome(&self) -> Option<String>;
    /// Starts a search on its own threads.
    fn start_search(&self, request: SearchRequest) -> SearchHandle;
}

/// Everything a search needs besides the position.
pub struct SearchRequest {
    /// The search's number, carried by its events.
    pub id: u64,
    /// Limits.
    pub go: Go,
    /// Options in force.
    pub options: Options,
    /// The shared transposition table.
    pub tt: Arc<TranspositionTable>,
    /// Where events go.
    pub events: Sender<Event>,
    /// Endgame tables of the session's variant, if any.
    pub egtb: Option<Arc<Tables>>,
    /// The opening book to answer from, when this `go` may use one.
    pub book: Option<BookRequest>,
    /// Seeds the random choice of a strength level below full strength.
    pub skill_seed: u64,
}

/// A `go` that may be answered from an opening book.
pub struct BookRequest {
    /// The book.
    pub book: Arc<Book>,
    /// How a move is chosen.
    pub choice: Choice,
    /// The seed of the random choice.
    pub seed: u64,
}

struct GameSession<R: Rules> {
    game: Game<R>,
}

impl<R: Rules> GameSession<R> {
    fn position(&self) -> &Position<R> {
        self.game.position()
    }

    /// The book's answer to `request`, when it asks for one and the book offers a move
    /// here: a thread that sends [`Event::Book`] and the `BestMove` at once.
    fn book_answer(&self, request: &SearchRequest) -> Option<SearchHandle> {
        let plan = request.book.as_ref()?;
        let offered = plan.book.moves(self.position());
        let ply = self.game.ply();
        let chosen = choose(&offered, ply, plan.choice, &mut SplitMix(plan.seed))?;
        let (events, id) = (request.events.clone(), request.id);
        let control = Arc::new(Control::new(false));
        let thread = std::thread::Builder::new()
            .name("book".into())
            .spawn(move || {
                let _ = events.send(Event::Book {
                    search: id,
                    chosen,
                    offered,
                });
                let _ = events.send(Event::BestMove {
                    search: id,
                    best: Some(chosen),
                    ponder: None,
                });
            })
            .expect("the system can start a thread");
        Some(SearchHandle {
            control,
            pondering: false,
            thread,
        })
    }
}

/// Writes a line of moves from `position` on, up to its first move that is not legal.
fn line_text<R: Rules>(position: &Position<R>, line: &[Move]) -> Vec<String> {
    let mut texts = Vec::with_capacity(line.len());
    let mut current = *position;
    for mv in line {
        let legal = current.legal_moves();
        if !legal.as_slice().contains(mv) {
            break;
        }
        texts.push(write_move_in(&current, mv, &legal));
        current = current.play(mv);
    }
    texts
}

impl<R: Rules> Session for GameSession<R> {
    fn variant(&self) -> Variant {
        R::VARIANT
    }

    fn game(&self) -> AnyGame {
        AnyGame::from(self.game.clone())
    }

    fn fen(&self) -> String {
        write_fen(self.position())
    }

    fn diagram(&self) -> String {
        diagram(self.position())
    }

    fn side_to_move(&self) -> Color {
        self.position().side_to_move()
    }

    fn evaluate(&self, weights: Option<&EvalSet>) -> i32 {
        match weights {
            None => crate::eval::evaluate(self.position()),
            Some(set) => set.evaluate(self.position()),
        }
    }

    fn legal_moves(&self) -> Vec<String> {
        let position = self.position();
        let legal = position.legal_moves();
        legal
            .iter()
            .map(|mv| write_move_in(position, mv, &legal))
            .collect()
    }

    fn line_text(&self, line: &[Move]) -> Vec<String> {
        line_text(self.position(), line)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        crate::perft::divide(self.position(), depth)
    }

    fn outcome(&self) -> Option<String> {
        self.game.outcome_text()
    }

    fn start_search(&self, request: SearchRequest) -> SearchHandle {
        let root = *self.position();
        if let Some(answer) = self.book_answer(&request) {
            return answer;
        }
        let id = request.id;
        let plan = SearchPlan::new(
            &request.go,
            (root.side_to_move(), self.game.ply()),
            &request.options,
            request.go.searchmoves.clone(),
            request.skill_seed,
        );
        let context = GameContext::of_game(&self.game);
        request.tt.new_search();
        let control = Arc::new(Control::new(plan.untimed));
        let env = Env {
            tt: request.tt,
            weights: request.options.weights_for(R::VARIANT),
            egtb: request.egtb,
            threads: request.options.threads.max(1),
            game: context,
            control: Some(Arc::clone(&control)),
        };
        let events = request.events;
        let limits = plan.limits;
        let thread = std::thread::Builder::new()
            .name("search-0".into())
            .spawn(move || run_search::<R>(root, limits, env, events, id))
            .expect("the system can start a search thread");
        SearchHandle {
            control,
            pondering: plan.pondering,
            thread,
        }
    }
}

/// A fresh game of `variant` at its start position.
pub fn session_for(variant: Variant) -> Box<dyn Session> {
    session_of(AnyGame::start(variant))
}

/// The session of `game`.
pub fn session_of(game: AnyGame) -> Box<dyn Session> {
    with_game!(game, game => Box::new(GameSession { game }))
}
