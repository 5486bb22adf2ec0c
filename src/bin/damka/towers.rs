//! `damka towers`: the COMP10002 (2021 S2, Assignment 2) "towers" program, byte for byte.
//!
//! The program reads actions such as `G6-F5` from stdin, one a line, starting from the
//! initial position with Black to move, prints every board after it, and may end with one
//! command line: `A` (compute and print the next action) or `P` (play up to ten computed
//! actions). The format is specified in the shared `comp10002/format.md`.
//!
//! The game state is a library [`Position<Towers>`]; an input action is legal iff it has
//! the source and target of one of [`Position::legal_moves`]. The computed actions come from
//! a plain depth-3 minimax whose children are generated in the assignment's own fixed order
//! ([`ordered_actions`]), because ties go to the left-most child.

use damka::board::Bitboard;
use damka::notation::{bit_at, cell_of_bit};
use damka::position::{Move, Position};
use damka::rules::{Color, Towers};
use std::io::{self, Read, Write};

/// Cells per side of the board.
const SIZE: usize = 8;
/// The line between actions: 37 `=`.
const DELIMITER: &str = "=====================================";
/// Plies of the minimax tree: the mover, the opponent, the mover.
const SEARCH_DEPTH: u32 = 3;
/// Computed actions of the `P` command.
const PLAY_ACTIONS: usize = 10;
/// The cost of a board where Black (to move) cannot act.
const BLACK_CANNOT_ACT: i32 = i32::MIN;
/// The cost of a board where White (to move) cannot act.
const WHITE_CANNOT_ACT: i32 = i32::MAX;

/// The exit code after a normal run.
const EXIT_OK: i32 = 0;
/// The exit code after an input action stopped the program with an `ERROR:` line.
const EXIT_INPUT_ERROR: i32 = 1;
/// The exit code when stdin cannot be read or stdout cannot be written.
const EXIT_IO_ERROR: i32 = 2;

/// Directions in the assignment's clockwise order from north-east: (row step, column step),
/// rows counted from the top.
const NE: (isize, isize) = (-1, 1);
const SE: (isize, isize) = (1, 1);
const SW: (isize, isize) = (1, -1);
const NW: (isize, isize) = (-1, -1);
/// All four directions, the order towers use.
const TOWER_DIRS: [(isize, isize); 4] = [NE, SE, SW, NW];
/// Black pieces move towards row 1.
const BLACK_DIRS: [(isize, isize); 2] = [NE, NW];
/// White pieces move towards row 8.
const WHITE_DIRS: [(isize, isize); 2] = [SE, SW];

/// What stands on one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    /// Nothing (every non-playable cell, too).
    Empty,
    /// A piece (a man) of a side.
    Piece(Color),
    /// A tower (a crowned piece) of a side.
    Tower(Color),
}

impl Cell {
    /// The side owning the cell's content, if any.
    fn owner(self) -> Option<Color> {
        match self {
            Cell::Empty => None,
            Cell::Piece(color) | Cell::Tower(color) => Some(color),
        }
    }

    /// The character the assignment prints: `.`, `b`, `w`, `B`, `W`.
    fn symbol(self) -> char {
        match self {
            Cell::Empty => '.',
            Cell::Piece(Color::Black) => 'b',
            Cell::Piece(Color::White) => 'w',
            Cell::Tower(Color::Black) => 'B',
            Cell::Tower(Color::White) => 'W',
        }
    }
}

/// The contents of a cell (row and column 0-based, row 0 = row `1` at the top).
fn cell_at(position: &Position<Towers>, row: usize, col: usize) -> Cell {
    let Some(bit) = bit_at::<Towers>(row, col) else {
        return Cell::Empty;
    };
    let mask: Bitboard = 1 << bit;
    let king = position.kings() & mask != 0;
    for color in [Color::Black, Color::White] {
        if position.pieces(color) & mask != 0 {
            return if king {
                Cell::Tower(color)
            } else {
                Cell::Piece(color)
            };
        }
    }
    Cell::Empty
}

/// The whole board as cells, `[row][col]`.
fn grid(position: &Position<Towers>) -> [[Cell; SIZE]; SIZE] {
    let mut cells = [[Cell::Empty; SIZE]; SIZE];
    for (row, line) in cells.iter_mut().enumerate() {
        for (col, cell) in line.iter_mut().enumerate() {
            *cell = cell_at(position, row, col);
        }
    }
    cells
}

/// The cell one step of `dir` away, if it is on the board.
fn neighbour(row: usize, col: usize, dir: (isize, isize)) -> Option<(usize, usize)> {
    let r = row.checked_add_signed(dir.0)?;
    let c = col.checked_add_signed(dir.1)?;
    (r < SIZE && c < SIZE).then_some((r, c))
}

/// The library bit of a playable cell. Only called on diagonal neighbours of playable cells,
/// which are playable.
fn bit_of(row: usize, col: usize) -> u8 {
    bit_at::<Towers>(row, col).unwrap_or_else(|| unreachable!("cell {row},{col} is playable"))
}

/// The row where a side's pieces become towers (0-based).
fn crowning_row(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => SIZE - 1,
    }
}

/// Every action of the side to move, in the assignment's order: cells row by row from the
/// top (row 1 to 8, and A to H within a row); for each piece or tower of the side to move the
/// directions NE, SE, SW, NW (Black pieces only NE and NW, White pieces only SE and SW); in
/// each direction the step if the neighbour is empty, otherwise the jump if it holds an enemy
/// and the cell beyond is empty.
///
/// The set of actions equals [`Position::legal_moves`] for towers (tests check it); only
/// the order is the assignment's.
pub fn ordered_actions(position: &Position<Towers>) -> Vec<Move> {
    let us = position.side_to_move();
    let cells = grid(position);
    let mut actions = Vec::new();
    for row in 0..SIZE {
        for col in 0..SIZE {
            let (dirs, tower): (&[(isize, isize)], bool) = match cells[row][col] {
                Cell::Tower(color) if color == us => (&TOWER_DIRS, true),
                Cell::Piece(Color::Black) if us == Color::Black => (&BLACK_DIRS, false),
                Cell::Piece(Color::White) if us == Color::White => (&WHITE_DIRS, false),
                _ => continue,
            };
            for &dir in dirs {
                let Some((r1, c1)) = neighbour(row, col, dir) else {
                    continue;
                };
                let (to, captured) = match cells[r1][c1].owner() {
                    None => ((r1, c1), 0),
                    Some(owner) if owner != us => {
                        let Some((r2, c2)) = neighbour(r1, c1, dir) else {
                            continue;
                        };
                        if cells[r2][c2] != Cell::Empty {
                            continue;
                        }
                        ((r2, c2), 1u64 << bit_of(r1, c1))
                    }
                    Some(_) => continue,
                };
                actions.push(Move {
                    from: bit_of(row, col),
                    to: bit_of(to.0, to.1),
                    promotes: !tower && to.0 == crowning_row(us),
                    captured,
                });
            }
        }
    }
    actions
}

/// The board cost `b + 3B - w - 3W`: Black pieces and towers minus White's.
pub fn board_cost(position: &Position<Towers>) -> i32 {
    let count = |set: Bitboard| set.count_ones() as i32;
    count(position.men(Color::Black)) + 3 * count(position.kings_of(Color::Black))
        - count(position.men(Color::White))
        - 3 * count(position.kings_of(Color::White))
}

/// The cost of a board where the side to move cannot act.
fn no_action_cost(side: Color) -> i32 {
    match side {
        Color::Black => BLACK_CANNOT_ACT,
        Color::White => WHITE_CANNOT_ACT,
    }
}

/// True when `value` is strictly better than `best` for `side` (Black maximises).
fn better(side: Color, value: i32, best: i32) -> bool {
    match side {
        Color::Black => value > best,
        Color::White => value < best,
    }
}

/// The minimax value of a node with `depth` plies still to look at. A board where the side
/// to move cannot act costs INT_MIN (Black) or INT_MAX (White) at every depth, leaves
/// included.
fn minimax(position: &Position<Towers>, depth: u32) -> i32 {
    let actions = ordered_actions(position);
    let side = position.side_to_move();
    if actions.is_empty() {
        return no_action_cost(side);
    }
    if depth == 0 {
        return board_cost(position);
    }
    let mut best: Option<i32> = None;
    for action in &actions {
        let value = minimax(&position.play(action), depth - 1);
        if best.is_none_or(|b| better(side, value, b)) {
            best = Some(value);
        }
    }
    best.unwrap_or_else(|| no_action_cost(side))
}

/// The action the assignment's depth-3 minimax chooses (ties to the left-most child), or
/// `None` when the side to move cannot act.
pub fn choose_action(position: &Position<Towers>) -> Option<Move> {
    let side = position.side_to_move();
    let mut best: Option<(i32, Move)> = None;
    for action in ordered_actions(position) {
        let value = minimax(&position.play(&action), SEARCH_DEPTH - 1);
        if best.is_none_or(|(b, _)| better(side, value, b)) {
            best = Some((value, action));
        }
    }
    best.map(|(_, action)| action)
}

/// `BLACK` or `WHITE`.
fn side_name(color: Color) -> &'static str {
    match color {
        Color::Black => "BLACK",
        Color::White => "WHITE",
    }
}

/// Appends the 17 lines of a board: column letters, then each row and its rule line.
fn write_board(out: &mut String, position: &Position<Towers>) {
    const RULE: &str = "   +---+---+---+---+---+---+---+---+\n";
    out.push_str("     A   B   C   D   E   F   G   H\n");
    out.push_str(RULE);
    for (row, line) in grid(position).iter().enumerate() {
        out.push_str(&format!(" {} |", row + 1));
        for cell in line {
            out.push(' ');
            out.push(cell.symbol());
            out.push_str(" |");
        }
        out.push('\n');
        out.push_str(RULE);
    }
}

/// Appends the delimiter, the action line, the cost and the board after an action.
fn write_action(
    out: &mut String,
    number: usize,
    mover: Color,
    action: &Move,
    after: &Position<Towers>,
    computed: bool,
) {
    out.push_str(DELIMITER);
    out.push('\n');
    if computed {
        out.push_str("*** ");
    }
    out.push_str(&format!(
        "{} ACTION #{}: {}-{}\n",
        side_name(mover),
        number,
        cell_of_bit::<Towers>(action.from),
        cell_of_bit::<Towers>(action.to)
    ));
    out.push_str(&format!("BOARD COST: {}\n", board_cost(after)));
    write_board(out, after);
}

/// Why an input action is refused, in the order the assignment checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ActionError {
    SourceOutside,
    TargetOutside,
    SourceEmpty,
    TargetNotEmpty,
    SourceOpponent,
    Illegal,
}

impl ActionError {
    /// The line the assignment prints.
    fn message(self) -> &'static str {
        match self {
            ActionError::SourceOutside => "ERROR: Source cell is outside of the board.",
            ActionError::TargetOutside => "ERROR: Target cell is outside of the board.",
            ActionError::SourceEmpty => "ERROR: Source cell is empty.",
            ActionError::TargetNotEmpty => "ERROR: Target cell is not empty.",
            ActionError::SourceOpponent => "ERROR: Source cell holds opponent's piece/tower.",
            ActionError::Illegal => "ERROR: Illegal action.",
        }
    }
}

/// Reads a cell (`G6`; the column letter in either case), 0-based (row, col); `None` when the
/// text names no cell of the 8x8 board.
fn parse_cell(text: &str) -> Option<(usize, usize)> {
    let &[letter, digit] = text.trim().as_bytes() else {
        return None;
    };
    let col = usize::from(letter.to_ascii_uppercase().checked_sub(b'A')?);
    let row = usize::from(digit.checked_sub(b'1')?);
    (row < SIZE && col < SIZE).then_some((row, col))
}

/// Checks an input line as an action in `position`, in the assignment's order of errors,
/// and returns the library move it makes. A line that is not `cell-cell` fails on the first
/// part that names no cell.
fn check_action(position: &Position<Towers>, line: &str) -> Result<Move, ActionError> {
    let (source, target) = line.split_once('-').unwrap_or((line, ""));
    let (sr, sc) = parse_cell(source).ok_or(ActionError::SourceOutside)?;
    let (tr, tc) = parse_cell(target).ok_or(ActionError::TargetOutside)?;
    let source_cell = cell_at(position, sr, sc);
    let Some(owner) = source_cell.owner() else {
        return Err(ActionError::SourceEmpty);
    };
    if cell_at(position, tr, tc) != Cell::Empty {
        return Err(ActionError::TargetNotEmpty);
    }
    if owner != position.side_to_move() {
        return Err(ActionError::SourceOpponent);
    }
    // Both cells hold or may hold a piece, so both are playable; a non-playable target is
    // empty and ends here as illegal.
    let (Some(from), Some(to)) = (bit_at::<Towers>(sr, sc), bit_at::<Towers>(tr, tc)) else {
        return Err(ActionError::Illegal);
    };
    position
        .legal_moves()
        .iter()
        .find(|mv| mv.from == from && mv.to == to)
        .copied()
        .ok_or(ActionError::Illegal)
}

/// The whole program on a given input: returns the text to print and the exit code (0, or
/// 1 when an input action was refused with an `ERROR:` line).
pub fn transcript(input: &[u8]) -> (String, i32) {
    let text = String::from_utf8_lossy(input);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut position = Position::<Towers>::start();
    let mut out = String::new();
    out.push_str(&format!("BOARD SIZE: {SIZE}x{SIZE}\n"));
    out.push_str(&format!(
        "#BLACK PIECES: {}\n#WHITE PIECES: {}\n",
        position.pieces(Color::Black).count_ones(),
        position.pieces(Color::White).count_ones()
    ));
    write_board(&mut out, &position);
    let mut number = 1;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let command = match line {
            "A" | "a" => Some(1),
            "P" | "p" => Some(PLAY_ACTIONS),
            _ => None,
        };
        if let Some(actions) = command {
            for _ in 0..actions {
                let mover = position.side_to_move();
                let Some(action) = choose_action(&position) else {
                    out.push_str(match mover {
                        Color::Black => "WHITE WIN!\n",
                        Color::White => "BLACK WIN!\n",
                    });
                    break;
                };
                position = position.play(&action);
                write_action(&mut out, number, mover, &action, &position, true);
                number += 1;
            }
            // The command is the last line of the input.
            break;
        }
        match check_action(&position, line) {
            Ok(action) => {
                let mover = position.side_to_move();
                position = position.play(&action);
                write_action(&mut out, number, mover, &action, &position, false);
                number += 1;
            }
            Err(error) => {
                out.push_str(error.message());
                out.push('\n');
                return (out, EXIT_INPUT_ERROR);
            }
        }
    }
    (out, EXIT_OK)
}

/// Runs the program on stdin and stdout; returns the process exit code: 0, 1 after an
/// `ERROR:` line, 2 when stdin cannot be read or stdout written.
pub fn run() -> i32 {
    let mut input = Vec::new();
    if let Err(error) = io::stdin().lock().read_to_end(&mut input) {
        eprintln!("damka towers: cannot read stdin: {error}");
        return EXIT_IO_ERROR;
    }
    let (text, code) = transcript(&input);
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => code,
        Err(error) => {
            eprintln!("damka towers: cannot write stdout: {error}");
            EXIT_IO_ERROR
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::notation::physical_row_col;

    #[test]
    fn cells_parse_only_on_the_board() {
        assert_eq!(parse_cell("G6"), Some((5, 6)));
        assert_eq!(parse_cell("a1"), Some((0, 0)));
        for text in ["I1", "A9", "A0", "", "G", "G66", "@1", "é1"] {
            assert_eq!(parse_cell(text), None, "{text}");
        }
    }

    #[test]
    fn start_board_cells() {
        let position = Position::<Towers>::start();
        assert_eq!(cell_at(&position, 0, 1), Cell::Piece(Color::White));
        assert_eq!(cell_at(&position, 0, 0), Cell::Empty);
        assert_eq!(cell_at(&position, 7, 0), Cell::Piece(Color::Black));
        assert_eq!(board_cost(&position), 0);
    }

    /// An action as the assignment's input writes it: `A6-B5`.
    fn action_text(action: &Move) -> String {
        format!(
            "{}-{}",
            cell_of_bit::<Towers>(action.from),
            cell_of_bit::<Towers>(action.to)
        )
    }

    #[test]
    fn first_actions_in_order() {
        let position = Position::<Towers>::start();
        let names: Vec<String> = ordered_actions(&position).iter().map(action_text).collect();
        assert_eq!(
            names,
            [
                "A6-B5", "C6-D5", "C6-B5", "E6-F5", "E6-D5", "G6-H5", "G6-F5"
            ]
        );
    }

    /// A small deterministic generator (xorshift64*), so the tests need no dependency.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        }
    }

    /// A random game from the start: captures preferred half of the time so that games end.
    /// Returns the positions before each action and the actions.
    fn playout(seed: u64, max_plies: usize) -> (Vec<Position<Towers>>, Vec<Move>) {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut position = Position::<Towers>::start();
        let mut positions = Vec::new();
        let mut actions = Vec::new();
        for _ in 0..max_plies {
            let moves: Vec<Move> = position.legal_moves().iter().copied().collect();
            positions.push(position);
            if moves.is_empty() {
                break;
            }
            let captures: Vec<Move> = moves.iter().copied().filter(Move::is_capture).collect();
            let pool = if !captures.is_empty() && rng.below(2) == 0 {
                &captures
            } else {
                &moves
            };
            let action = pool[rng.below(pool.len())];
            actions.push(action);
            position = position.play(&action);
        }
        (positions, actions)
    }

    /// Where an action goes, as the assignment's direction index: NE, SE, SW, NW.
    fn direction_index(action: &Move) -> usize {
        let (fr, fc) = physical_row_col::<Towers>(action.from);
        let (tr, tc) = physical_row_col::<Towers>(action.to);
        match (tr > fr, tc > fc) {
            (false, true) => 0,
            (true, true) => 1,
            (true, false) => 2,
            (false, false) => 3,
        }
    }

    fn key(action: &Move) -> (u8, u8, bool, u64) {
        (action.from, action.to, action.promotes, action.captured)
    }

    #[test]
    fn ordered_actions_are_the_legal_moves_in_the_assignment_order() {
        let mut positions_checked = 0;
        let mut with_towers = 0;
        let mut with_captures = 0;
        for seed in 0..400 {
            let (positions, _) = playout(seed, 200);
            for position in positions {
                let ordered = ordered_actions(&position);
                let mut ours: Vec<_> = ordered.iter().map(key).collect();
                let mut library: Vec<_> = position.legal_moves().iter().map(key).collect();
                ours.sort_unstable();
                library.sort_unstable();
                assert_eq!(ours, library, "{position:?}");
                ours.dedup();
                assert_eq!(ours.len(), ordered.len(), "duplicates in {position:?}");
                // Row-major source cells, then clockwise directions from north-east.
                let order: Vec<(usize, usize, usize)> = ordered
                    .iter()
                    .map(|action| {
                        let (row, col) = physical_row_col::<Towers>(action.from);
                        (row, col, direction_index(action))
                    })
                    .collect();
                assert!(
                    order.windows(2).all(|pair| pair[0] < pair[1]),
                    "order {order:?} in {position:?}"
                );
                for action in &ordered {
                    let (fr, fc) = physical_row_col::<Towers>(action.from);
                    let (tr, tc) = physical_row_col::<Towers>(action.to);
                    let distance = fr.abs_diff(tr);
                    assert_eq!(distance, fc.abs_diff(tc));
                    assert_eq!(distance, if action.is_capture() { 2 } else { 1 });
                }
                positions_checked += 1;
                with_towers += usize::from(position.kings_of(position.side_to_move()) != 0);
                with_captures += usize::from(ordered.iter().any(Move::is_capture));
            }
        }
        println!(
            "{positions_checked} positions, {with_towers} with towers to move, \
             {with_captures} with a capture"
        );
        assert!(positions_checked > 20_000, "{positions_checked}");
        assert!(with_towers > 1_000, "{with_towers}");
        assert!(with_captures > 1_000, "{with_captures}");
    }

    /// The input lines of a game.
    fn game_text(actions: &[Move]) -> String {
        actions
            .iter()
            .map(|action| action_text(action) + "\n")
            .collect()
    }

    /// Runs `check` on the first five random games of seeds `0..seeds` that end with the
    /// side to move unable to act (with the seed, the positions and the actions); at least
    /// three must end so.
    fn on_finished_games(seeds: u64, mut check: impl FnMut(u64, &[Position<Towers>], &[Move])) {
        let mut finished = 0;
        for seed in 0..seeds {
            let (positions, actions) = playout(seed, 400);
            let last = positions.last().expect("a playout has a position");
            if !last.legal_moves().is_empty() || actions.is_empty() {
                continue;
            }
            check(seed, &positions, &actions);
            finished += 1;
            if finished == 5 {
                return;
            }
        }
        assert!(finished >= 3, "only {finished} random games ended");
    }

    /// The assignment's last line when the side to move in `end` cannot act.
    fn winner_line(end: &Position<Towers>) -> &'static str {
        match end.side_to_move() {
            Color::Black => "WHITE WIN!\n",
            Color::White => "BLACK WIN!\n",
        }
    }

    /// Finished random games: the side that cannot act at the end loses.
    #[test]
    fn finished_games_print_the_winner() {
        on_finished_games(200, |seed, positions, actions| {
            let last = positions.last().expect("a finished game has a position");
            assert!(choose_action(last).is_none());
            let winner = winner_line(last);
            let game = game_text(actions);
            let (played, code) = transcript(game.as_bytes());
            assert_eq!(code, 0);
            for command in ["A\n", "P\n"] {
                let (output, code) = transcript(format!("{game}{command}").as_bytes());
                assert_eq!(output, format!("{played}{winner}"), "seed {seed}");
                assert_eq!(code, 0);
            }
            // The last board's cost is printed as a plain integer.
            let cost = format!("BOARD COST: {}\n", board_cost(last));
            assert!(played.contains(&cost), "seed {seed}");
        });
    }

    /// `P` stops with the winner line as soon as the side to move cannot act, fewer than ten
    /// actions in: replay a finished game but one action, whose winning end the computer finds
    /// (a board where the side to move cannot act costs INT_MIN or INT_MAX).
    #[test]
    fn play_command_stops_at_the_end_of_the_game() {
        on_finished_games(400, |seed, positions, actions| {
            let before = positions[positions.len() - 2];
            let chosen = choose_action(&before).expect("the side to move can act");
            let end = before.play(&chosen);
            assert!(
                end.legal_moves().is_empty(),
                "seed {seed}: the computer misses the win"
            );
            let game = game_text(&actions[..actions.len() - 1]);
            let (output, code) = transcript(format!("{game}P\n").as_bytes());
            assert_eq!(code, 0);
            let winner = winner_line(&end);
            assert!(output.ends_with(&format!("---+\n{winner}")), "{output}");
            assert_eq!(output.matches("*** ").count(), 1);
            assert_eq!(output.matches("WIN!").count(), 1);
        });
    }

    /// The minimax picks the left-most of equal children: from the start every Black action
    /// scores 0 at depth 3, so `A` plays the first action in the assignment's order.
    #[test]
    fn ties_go_to_the_left_most_action() {
        let start = Position::<Towers>::start();
        let first = ordered_actions(&start)[0];
        assert_eq!(choose_action(&start), Some(first));
        let (output, code) = transcript(b"A\n");
        assert_eq!(code, 0);
        assert!(
            output.contains("*** BLACK ACTION #1: A6-B5\nBOARD COST: 0\n"),
            "{output}"
        );
    }
}
