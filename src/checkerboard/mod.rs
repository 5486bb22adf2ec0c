//! CheckerBoard's engine API (Martin Fierz's GUI for 8x8 draughts): its structs, board array, square numbers, game types and time bits, for both sides of the API.
//!
//! damka is a CheckerBoard engine through [`exports`] (the C functions `getmove`,
//! `enginecommand` and `islegal` of the `cdylib`) over [`engine::CbEngine`]; the match tool
//! drives CheckerBoard engines through `damka cb-engine`, which uses [`host`]. The definitions
//! follow CheckerBoard's `cb_interface.h` and `cb_api_reference.htm` (docs/checkerboard.md).
//!
//! The board is `int board[8][8]` read `board[x][y]`. Row `y = 0` is the top of CheckerBoard's
//! diagram, where Black's men start in every game type, as on damka's boards; CheckerBoard
//! shows Italian and Spanish boards mirrored, so there `x` counts columns from the left, and
//! from the right otherwise. The playable squares are those with `x + y` even. Square numbers
//! are CheckerBoard's for the game type (`coorstonumber`), which differ from damka's PDN
//! numbers in Spanish and Czech: the board, not the numbers, is what both sides share.

pub mod engine;
pub mod exports;
pub mod host;

use crate::board::Bits;
use crate::notation::{bit_at, physical_row_col};
use crate::position::{Move, Position};
use crate::rules::{Color, Rules, Variant};

/// An empty square.
pub const CB_FREE: i32 = 0;
/// White (a colour bit, and `getmove`'s colour).
pub const CB_WHITE: i32 = 1;
/// Black.
pub const CB_BLACK: i32 = 2;
/// A man (a piece bit).
pub const CB_MAN: i32 = 4;
/// A king.
pub const CB_KING: i32 = 8;

/// `getmove`'s value: the game is a draw.
pub const CB_DRAW: i32 = 0;
/// The side that moved wins.
pub const CB_WIN: i32 = 1;
/// The side that moved loses.
pub const CB_LOSS: i32 = 2;
/// Not known.
pub const CB_UNKNOWN: i32 = 3;

/// `getmove`'s `info` bit 0: forget the moves of the game so far.
pub const CB_RESET_MOVES: i32 = 1;
/// `info` bit 1: `maxtime` is a hard limit, not an average.
pub const CB_EXACT_TIME: i32 = 2;
/// `info` bits 2-3, shifted down by this, are the unit of the incremental times packed in
/// `moreinfo` (0: no incremental time; 1, 2, 3: units of 0.001, 0.01, 0.1 s).
pub const CB_INCR_TIME_SHIFT: u32 = 2;

/// Bytes of `enginecommand`'s command buffer.
pub const COMMAND_SIZE: usize = 256;
/// Bytes of `enginecommand`'s reply buffer (`ENGINECOMMAND_REPLY_SIZE`).
pub const REPLY_SIZE: usize = 1024;
/// Bytes of `getmove`'s status line buffer.
pub const STATUS_SIZE: usize = 1024;
/// The API version `get protocolversion` answers.
pub const PROTOCOL_VERSION: i32 = 2;

/// The board as CheckerBoard passes it: `board[x][y]`, each entry a colour bit and a piece
/// bit (a black king is `CB_BLACK | CB_KING`), 0 for empty.
pub type Board8x8 = [[i32; 8]; 8];

/// A square of the board array, as CheckerBoard's `struct coor`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coor {
    /// Column, 0-7.
    pub x: i32,
    /// Row, 0-7 (0 is the top of CheckerBoard's diagram).
    pub y: i32,
}

/// CheckerBoard's `struct CBmove` (268 bytes on every target with 32-bit `int`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CbMove {
    /// The number of pieces captured (0 for a step).
    pub jumps: i32,
    /// The moving piece after the move (a man that is crowned becomes a king).
    pub newpiece: i32,
    /// The moving piece before the move.
    pub oldpiece: i32,
    /// Where the piece starts.
    pub from: Coor,
    /// Where it ends.
    pub to: Coor,
    /// Where it lands after each capture, from `path[1]` (`path[0]` is not used).
    pub path: [Coor; 12],
    /// The captured pieces' squares, in the order of capture.
    pub del: [Coor; 12],
    /// The captured pieces (colour and piece bits).
    pub delpiece: [i32; 12],
}

/// The game types of CheckerBoard's API (PDN 3.0 `GameType` numbers) that damka plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameType {
    /// 21, English / American checkers.
    English,
    /// 22, Italian draughts.
    Italian,
    /// 24, Spanish draughts.
    Spanish,
    /// 25, Russian draughts.
    Russian,
    /// 26, Brazilian draughts.
    Brazilian,
    /// 29, Czech draughts.
    Czech,
}

impl GameType {
    /// Every game type, English first.
    pub const ALL: [GameType; 6] = [
        GameType::English,
        GameType::Italian,
        GameType::Spanish,
        GameType::Russian,
        GameType::Brazilian,
        GameType::Czech,
    ];

    /// The number `get gametype` answers.
    pub const fn number(self) -> i32 {
        match self {
            GameType::English => 21,
            GameType::Italian => 22,
            GameType::Spanish => 24,
            GameType::Russian => 25,
            GameType::Brazilian => 26,
            GameType::Czech => 29,
        }
    }

    /// The game type of a number, if damka plays it.
    pub fn from_number(number: i32) -> Option<GameType> {
        GameType::ALL.into_iter().find(|t| t.number() == number)
    }

    /// damka's variant.
    pub const fn variant(self) -> Variant {
        match self {
            GameType::English => Variant::English,
            GameType::Italian => Variant::Italian,
            GameType::Spanish => Variant::Spanish,
            GameType::Russian => Variant::Russian,
            GameType::Brazilian => Variant::Brazilian,
            GameType::Czech => Variant::Czech,
        }
    }

    /// The game type of a variant, if CheckerBoard has one.
    pub fn of_variant(variant: Variant) -> Option<GameType> {
        GameType::ALL.into_iter().find(|t| t.variant() == variant)
    }

    /// True when CheckerBoard shows the board mirrored (its `is_mirror_gametype`): the
    /// column of `x` is then `x` from the left, else `7 - x`.
    pub const fn mirrored(self) -> bool {
        matches!(self, GameType::Italian | GameType::Spanish)
    }

    /// CheckerBoard's number of the playable square `(x, y)` in this game type (its
    /// `coorstonumber`): 1-32.
    pub const fn square_number(self, x: usize, y: usize) -> u32 {
        let (x, y) = (x as u32, y as u32);
        match self {
            GameType::Italian => 1 + 4 * y + x / 2,
            GameType::Spanish => 1 + 4 * (7 - y) + (7 - x) / 2,
            GameType::Czech => 32 - 4 * y - x / 2,
            GameType::English | GameType::Russian | GameType::Brazilian => 4 * (y + 1) - x / 2,
        }
    }

    /// The square `(x, y)` of a CheckerBoard square number, if it is 1-32. (CheckerBoard's own
    /// `numbertocoors` is wrong for Czech, off by two; this is the inverse of
    /// [`GameType::square_number`], which its FEN writer uses.)
    pub fn coords(self, number: u32) -> Option<(usize, usize)> {
        playable_squares().find(|&(x, y)| self.square_number(x, y) == number)
    }

    /// The colour that moves first (CheckerBoard's `get_startcolor`, which says Black for
    /// Brazilian; damka's rules say White, as FMJD's).
    pub fn first_to_move(self) -> i32 {
        with_gametype!(self, R => cb_color(R::FIRST_TO_MOVE))
    }
}

/// Runs an expression with a type alias bound to the rules of a [`GameType`] (six
/// instantiations, where `with_variant!` would make fourteen).
macro_rules! with_gametype {
    ($gametype:expr, $rules:ident => $body:expr) => {
        $crate::match_rules_type!($gametype, $crate::checkerboard::GameType, $rules => $body;
            English Italian Spanish Russian Brazilian Czech)
    };
}
pub(crate) use with_gametype;

/// The 32 playable squares `(x, y)` of the board array.
fn playable_squares() -> impl Iterator<Item = (usize, usize)> {
    (0..8)
        .flat_map(|y| (0..8).map(move |x| (x, y)))
        .filter(|(x, y)| (x + y) % 2 == 0)
}

/// The game type of the rules `R` (one of the six).
fn gametype_of<R: Rules>() -> GameType {
    GameType::of_variant(R::VARIANT).expect("CheckerBoard helpers run on the six game types")
}

/// CheckerBoard's colour of a side.
pub const fn cb_color(color: Color) -> i32 {
    match color {
        Color::White => CB_WHITE,
        Color::Black => CB_BLACK,
    }
}

/// The side of a CheckerBoard colour, or why it is none.
pub fn color_of(color: i32) -> Result<Color, String> {
    match color {
        CB_WHITE => Ok(Color::White),
        CB_BLACK => Ok(Color::Black),
        other => Err(format!(
            "colour {other} is neither CB_WHITE (1) nor CB_BLACK (2)"
        )),
    }
}

/// The bit of the board array's square `(x, y)` (`x + y` even) on `R`'s board.
fn bit_of_xy<R: Rules>(x: usize, y: usize) -> Option<u8> {
    let col = if gametype_of::<R>().mirrored() {
        x
    } else {
        7 - x
    };
    bit_at::<R>(y, col)
}

/// The board array's square of a bit of `R`'s board.
fn xy_of_bit<R: Rules>(bit: u8) -> (usize, usize) {
    let (row, col) = physical_row_col::<R>(bit);
    let x = if gametype_of::<R>().mirrored() {
        col
    } else {
        7 - col
    };
    (x, row)
}

/// The `struct coor` of a bit.
fn coor_of_bit<R: Rules>(bit: u8) -> Coor {
    let (x, y) = xy_of_bit::<R>(bit);
    Coor {
        x: x as i32,
        y: y as i32,
    }
}

/// The bit of a `struct coor`, if it is a playable square.
fn bit_of_coor<R: Rules>(coor: Coor) -> Option<u8> {
    let x = usize::try_from(coor.x).ok().filter(|&x| x < 8)?;
    let y = usize::try_from(coor.y).ok().filter(|&y| y < 8)?;
    if (x + y) % 2 != 0 {
        return None;
    }
    bit_of_xy::<R>(x, y)
}

/// CheckerBoard's number of a bit in `R`'s game type.
fn cb_number<R: Rules>(bit: u8) -> u32 {
    let (x, y) = xy_of_bit::<R>(bit);
    gametype_of::<R>().square_number(x, y)
}

/// The piece on a bit, as CheckerBoard writes it (0 if empty).
fn piece_code<R: Rules>(position: &Position<R>, bit: u8) -> i32 {
    let mask = 1u64 << bit;
    let color = if position.pieces(Color::White) & mask != 0 {
        CB_WHITE
    } else if position.pieces(Color::Black) & mask != 0 {
        CB_BLACK
    } else {
        return CB_FREE;
    };
    color
        | if position.kings() & mask != 0 {
            CB_KING
        } else {
            CB_MAN
        }
}

/// The position on CheckerBoard's `board` with `color` to move, checked as damka checks a FEN
/// (no piece codes but 0, 5, 6, 9, 10; nothing on light squares; at most 12 pieces a side;
/// no man on its promotion row). The error says what is wrong, in CheckerBoard's terms.
pub fn position_of_board<R: Rules>(board: &Board8x8, color: i32) -> Result<Position<R>, String> {
    let position = pieces_of_board::<R>(board, color)?;
    for side in [Color::White, Color::Black] {
        let stranded = position.men(side) & Position::<R>::promotion_row(side);
        if let Some(bit) = Bits(stranded).next() {
            return Err(format!(
                "a {} man stands on its promotion row, on square {}",
                side.name(),
                cb_number::<R>(bit as u8)
            ));
        }
    }
    Ok(position)
}

/// The pieces on `board` with `color` to move, checked but for men on their promotion row,
/// which CheckerBoard's own probe `get movelist B:W1:B` has (and which can then not move).
fn pieces_of_board<R: Rules>(board: &Board8x8, color: i32) -> Result<Position<R>, String> {
    let side = color_of(color)?;
    let mut pieces = [0u64; 2];
    let mut kings = 0u64;
    for (x, column) in board.iter().enumerate() {
        for (y, &value) in column.iter().enumerate() {
            if value == CB_FREE {
                continue;
            }
            let (piece_color, king) = match value {
                v if v == CB_WHITE | CB_MAN => (Color::White, false),
                v if v == CB_WHITE | CB_KING => (Color::White, true),
                v if v == CB_BLACK | CB_MAN => (Color::Black, false),
                v if v == CB_BLACK | CB_KING => (Color::Black, true),
                other => {
                    return Err(format!(
                        "board[{x}][{y}] is {other}, not a piece (0 empty, 5 white man, 6 black \
                         man, 9 white king, 10 black king)"
                    ));
                }
            };
            let bit = if (x + y) % 2 == 0 {
                bit_of_xy::<R>(x, y)
            } else {
                None
            };
            let Some(bit) = bit else {
                return Err(format!("board[{x}][{y}] holds a piece on a light square"));
            };
            pieces[piece_color.index()] |= 1u64 << bit;
            if king {
                kings |= 1u64 << bit;
            }
        }
    }
    for side in [Color::White, Color::Black] {
        let count = pieces[side.index()].count_ones();
        if count > 12 {
            return Err(format!("{} has {count} pieces, more than 12", side.name()));
        }
    }
    Ok(Position::from_parts(
        pieces[Color::White.index()],
        pieces[Color::Black.index()],
        kings,
        side,
    ))
}

/// The board array of a position.
pub fn board_of_position<R: Rules>(position: &Position<R>) -> Board8x8 {
    let mut board = [[CB_FREE; 8]; 8];
    for bit in Bits(position.occupied()) {
        let (x, y) = xy_of_bit::<R>(bit as u8);
        board[x][y] = piece_code(position, bit as u8);
    }
    board
}

/// A board as CheckerBoard writes it as a FEN (its `board8toFEN`): `B:W21,K22:B1,2`, each list
/// in CheckerBoard's square order for the game type.
pub fn board_fen(board: &Board8x8, color: i32, gametype: GameType) -> String {
    let mut text = String::from(if color == CB_BLACK { "B" } else { "W" });
    for (letter, side) in [('W', CB_WHITE), ('B', CB_BLACK)] {
        text.push(':');
        text.push(letter);
        // CheckerBoard's order: row by row from the top, each row from x = 7 down.
        let squares = (0..8).flat_map(|y| (0..8).rev().map(move |x| (x, y)));
        let mut first = true;
        for (x, y) in squares {
            let value = board[x][y];
            if value & (CB_WHITE | CB_BLACK) != side {
                continue;
            }
            if !first {
                text.push(',');
            }
            first = false;
            if value & CB_KING != 0 {
                text.push('K');
            }
            text.push_str(&gametype.square_number(x, y).to_string());
        }
    }
    text
}

/// Reads a FEN with CheckerBoard's square numbers for the game type (what its `board8toFEN`
/// writes, and ranges such as `W21-32`, as its `FENtoboard8` reads): the board and the colour
/// to move.
pub fn read_board_fen(text: &str, gametype: GameType) -> Result<(Board8x8, i32), String> {
    let text = text.trim().trim_matches('"').trim().trim_end_matches('.');
    let mut parts = text.split(':');
    let color = match parts.next().map(str::trim) {
        Some("B") | Some("b") => CB_BLACK,
        Some("W") | Some("w") => CB_WHITE,
        _ => return Err(format!("FEN '{text}': expected B: or W: first")),
    };
    let mut board = [[CB_FREE; 8]; 8];
    for part in parts {
        let part = part.trim();
        let mut chars = part.chars();
        let side = match chars.next() {
            Some('W') | Some('w') => CB_WHITE,
            Some('B') | Some('b') => CB_BLACK,
            None => continue,
            Some(_) => return Err(format!("FEN '{text}': a list must start with W or B")),
        };
        for token in chars.as_str().split(',').map(str::trim) {
            if token.is_empty() {
                continue;
            }
            let (piece, squares) = match token.strip_prefix(['K', 'k']) {
                Some(rest) => (CB_KING, rest),
                None => (CB_MAN, token),
            };
            let (low, high) = squares.split_once('-').unwrap_or((squares, squares));
            let number = |t: &str| -> Result<u32, String> {
                t.trim()
                    .parse()
                    .map_err(|_| format!("FEN '{text}': bad square '{token}'"))
            };
            for square in number(low)?..=number(high)? {
                let (x, y) = gametype
                    .coords(square)
                    .ok_or_else(|| format!("FEN '{text}': no square {square}"))?;
                board[x][y] = side | piece;
            }
        }
    }
    Ok((board, color))
}

/// A legal move's capture route: its landing squares and the pieces it takes, in order (the
/// route of the highest precedence when several make the move).
fn route_of<R: Rules>(position: &Position<R>, mv: &Move) -> (Vec<u8>, Vec<u8>) {
    struct Route {
        target: Move,
        best: Option<(u32, Vec<u8>, Vec<u8>)>,
    }
    impl crate::movegen::RouteSink for Route {
        fn route(&mut self, mv: Move, key: u32, path: crate::movegen::RoutePath<'_>) {
            let same = mv.from == self.target.from
                && mv.to == self.target.to
                && mv.captured == self.target.captured;
            if same && self.best.as_ref().is_none_or(|(best, ..)| key > *best) {
                self.best = Some((key, path.landings.to_vec(), path.taken.to_vec()));
            }
        }
    }
    if !mv.is_capture() {
        return (vec![mv.to], Vec::new());
    }
    let mut sink = Route {
        target: *mv,
        best: None,
    };
    position.generate_captures(&mut sink);
    match sink.best {
        Some((_, landings, taken)) => (landings, taken),
        // Not reached for a legal move; the captured set in square order still describes it.
        None => (
            vec![mv.to],
            Bits(mv.captured).map(|bit| bit as u8).collect(),
        ),
    }
}

/// The `struct CBmove` of a move legal in `position`.
pub fn cb_move<R: Rules>(position: &Position<R>, mv: &Move) -> CbMove {
    let oldpiece = piece_code(position, mv.from);
    let newpiece = if mv.promotes {
        (oldpiece & (CB_WHITE | CB_BLACK)) | CB_KING
    } else {
        oldpiece
    };
    let mut out = CbMove {
        jumps: mv.capture_count() as i32,
        newpiece,
        oldpiece,
        from: coor_of_bit::<R>(mv.from),
        to: coor_of_bit::<R>(mv.to),
        ..CbMove::default()
    };
    if mv.is_capture() {
        let (landings, taken) = route_of(position, mv);
        // path[0] is unused, so at most 11 landings fit; the last is `to` anyway.
        for (i, &bit) in landings.iter().take(11).enumerate() {
            out.path[i + 1] = coor_of_bit::<R>(bit);
        }
        for (i, &bit) in taken.iter().take(12).enumerate() {
            out.del[i] = coor_of_bit::<R>(bit);
            out.delpiece[i] = piece_code(position, bit);
        }
    }
    out
}

/// A move in CheckerBoard's square numbers for the status line and `set gamehist`:
/// `from-to`, or `fromxto` for a capture.
pub fn cb_move_text<R: Rules>(mv: &Move) -> String {
    let separator = if mv.is_capture() { 'x' } else { '-' };
    format!(
        "{}{separator}{}",
        cb_number::<R>(mv.from),
        cb_number::<R>(mv.to)
    )
}

/// The legal move a `struct CBmove` describes in `position` (same start, end and captured
/// squares), or why it names none.
pub fn move_of_cbmove<R: Rules>(position: &Position<R>, cbmove: &CbMove) -> Result<Move, String> {
    let square = |coor: Coor| {
        bit_of_coor::<R>(coor)
            .ok_or_else(|| format!("({}, {}) is not a playable square", coor.x, coor.y))
    };
    let from = square(cbmove.from)?;
    let to = square(cbmove.to)?;
    let jumps = usize::try_from(cbmove.jumps)
        .ok()
        .filter(|&j| j <= 12)
        .ok_or_else(|| format!("jumps is {}, not 0 to 12", cbmove.jumps))?;
    let mut captured = 0u64;
    for &coor in &cbmove.del[..jumps] {
        captured |= 1u64 << square(coor)?;
    }
    position
        .legal_moves()
        .iter()
        .find(|mv| mv.from == from && mv.to == to && mv.captured == captured)
        .copied()
        .ok_or_else(|| "no legal move has its start, end and captured squares".to_string())
}

/// A `struct CBmove` in a few characters, CheckerBoard's numbers where its squares are
/// playable: `9-13`, `30x7:25,17,10` (the captured squares after the colon), `(9,9)` for a
/// square off the board.
pub fn describe_cbmove(cbmove: &CbMove, gametype: GameType) -> String {
    let square = |c: Coor| match (usize::try_from(c.x), usize::try_from(c.y)) {
        (Ok(x), Ok(y)) if x < 8 && y < 8 && (x + y) % 2 == 0 => {
            gametype.square_number(x, y).to_string()
        }
        _ => format!("({},{})", c.x, c.y),
    };
    let jumps = cbmove.jumps.clamp(0, 12) as usize;
    let mut text = format!(
        "{}{}{}",
        square(cbmove.from),
        if jumps > 0 { 'x' } else { '-' },
        square(cbmove.to)
    );
    if jumps > 0 {
        let taken: Vec<String> = cbmove.del[..jumps].iter().map(|&c| square(c)).collect();
        text.push(':');
        text.push_str(&taken.join(","));
    }
    text
}

/// The legal move after which the board is `after`, if there is one.
pub fn move_to_board<R: Rules>(position: &Position<R>, after: &Board8x8) -> Option<Move> {
    position
        .legal_moves()
        .iter()
        .find(|mv| board_of_position(&position.play(mv)) == *after)
        .copied()
}

/// The reply to `get movelist FEN` for a position: `movelist N,` then for each move `jumps,
/// oldpiece, newpiece, from, to` and for each capture `landed, captured, cappiece`, ended by
/// `;` (CheckerBoard's format), or `movelist 0`. `None` when the list does not fit the reply
/// buffer.
pub fn move_list_reply<R: Rules>(position: &Position<R>) -> Option<String> {
    let legal = position.legal_moves();
    let mut text = format!("movelist {}", legal.len());
    if !legal.is_empty() {
        text.push(',');
    }
    let gametype = gametype_of::<R>();
    let number = |coor: Coor| gametype.square_number(coor.x as usize, coor.y as usize);
    for mv in legal.iter() {
        let cb = cb_move(position, mv);
        text.push_str(&format!(
            "{},{},{},{},{}",
            cb.jumps,
            cb.oldpiece,
            cb.newpiece,
            number(cb.from),
            number(cb.to)
        ));
        for i in 0..cb.jumps as usize {
            // A landing past path[11] cannot be written; the move's end stands for it.
            let landed = if i + 1 < 12 { cb.path[i + 1] } else { cb.to };
            text.push_str(&format!(
                ",{},{},{}",
                number(landed),
                number(cb.del[i]),
                cb.delpiece[i]
            ));
        }
        text.push(';');
    }
    (text.len() < REPLY_SIZE).then_some(text)
}

/// The incremental times of `getmove`'s `info` and `moreinfo`, in seconds: `(remaining,
/// increment)`, or `None` when the bits say fixed time (CheckerBoard's
/// `get_incremental_times`).
pub fn incremental_times(info: i32, moreinfo: i32) -> Option<(f64, f64)> {
    let unit = match (info >> CB_INCR_TIME_SHIFT) & 3 {
        0 => return None,
        1 => 0.001,
        2 => 0.01,
        _ => 0.1,
    };
    let bits = moreinfo as u32;
    Some((
        f64::from(bits >> 16) * unit,
        f64::from(bits & 0xffff) * unit,
    ))
}

/// Packs the incremental times as CheckerBoard does (its `format_time_args`): the finest unit
/// in which both fit 16 bits (times above 6553.5 s are cut to it). Returns the `info` bits to
/// add and `moreinfo`.
pub fn pack_incremental_times(remaining: f64, increment: f64) -> (i32, i32) {
    const LIMIT: f64 = 65535.0 * 0.1;
    let remaining = remaining.clamp(0.005, LIMIT);
    let increment = increment.clamp(0.0, LIMIT);
    let largest = remaining.max(increment);
    let (code, unit) = [(1, 0.001), (2, 0.01), (3, 0.1)]
        .into_iter()
        .find(|&(_, unit)| largest <= 65535.0 * unit)
        .unwrap_or((3, 0.1));
    let packed = |t: f64| (t / unit) as u32 & 0xffff;
    let moreinfo = (packed(remaining) << 16) | packed(increment);
    (code << CB_INCR_TIME_SHIFT, moreinfo as i32)
}

/// The `maxtime` CheckerBoard sends with an incremental clock (its
/// `maxtime_for_incremental_tc`, for engines that do not read the bits): about the increment
/// plus a share of the clock that depends on how long the game's time control is.
pub fn maxtime_for_incremental(remaining: f64, initial: f64, increment: f64) -> f64 {
    if remaining < 0.4 * increment {
        return 0.4 * increment;
    }
    if remaining <= increment {
        return remaining;
    }
    let divisor = if increment == 0.0 {
        11.0
    } else {
        match initial / increment {
            r if r >= 50.0 => 10.0,
            r if r >= 20.0 => 9.0,
            r if r >= 10.0 => 7.0,
            r if r >= 5.0 => 5.0,
            _ => 4.0,
        }
    };
    remaining.min(increment + remaining / divisor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::{parse_fen, write_fen};
    use crate::notation::number_of_bit;
    use crate::rules::{English, Italian, Russian, Spanish};

    /// CheckerBoard's start board (its `InitCheckerBoard`), the same for every game type.
    fn start_board() -> Board8x8 {
        let mut board = [[CB_FREE; 8]; 8];
        for (x, y) in playable_squares() {
            if y <= 2 {
                board[x][y] = CB_BLACK | CB_MAN;
            } else if y >= 5 {
                board[x][y] = CB_WHITE | CB_MAN;
            }
        }
        board
    }

    #[test]
    fn the_struct_has_checkerboards_layout() {
        assert_eq!(std::mem::size_of::<CbMove>(), 268);
        assert_eq!(std::mem::size_of::<Board8x8>(), 256);
        assert_eq!(std::mem::offset_of!(CbMove, from), 12);
        assert_eq!(std::mem::offset_of!(CbMove, path), 28);
        assert_eq!(std::mem::offset_of!(CbMove, del), 124);
        assert_eq!(std::mem::offset_of!(CbMove, delpiece), 220);
    }

    /// Every game type's start position is CheckerBoard's start board, and the square
    /// numbers are CheckerBoard's: Black on 1-12 (21-32 in Spanish and Czech, which count
    /// from White's side), square 1 where `cb_interface.h` puts it.
    #[test]
    fn start_positions_and_numbers_match_checkerboard() {
        for gametype in GameType::ALL {
            let board = with_gametype!(gametype, R => board_of_position(&Position::<R>::start()));
            assert_eq!(board, start_board(), "{gametype:?}");
            let black = match gametype {
                GameType::Spanish | GameType::Czech => "21-32",
                _ => "1-12",
            };
            let (expected, _) = read_board_fen(
                &format!(
                    "B:B{black}:W{}",
                    if black == "1-12" { "21-32" } else { "1-12" }
                ),
                gametype,
            )
            .unwrap();
            assert_eq!(expected, start_board(), "{gametype:?}");
            let mut numbers: Vec<u32> = playable_squares()
                .map(|(x, y)| gametype.square_number(x, y))
                .collect();
            numbers.sort_unstable();
            assert_eq!(numbers, (1..=32).collect::<Vec<_>>(), "{gametype:?}");
            for n in 1..=32 {
                let (x, y) = gametype.coords(n).unwrap();
                assert_eq!(gametype.square_number(x, y), n);
            }
        }
        // cb_interface.h's numbertocoors: English 1 = (6,0), 5 = (7,1); Italian 1 = (0,0);
        // Spanish 1 = (7,7).
        assert_eq!(GameType::English.coords(1), Some((6, 0)));
        assert_eq!(GameType::English.coords(5), Some((7, 1)));
        assert_eq!(GameType::Italian.coords(1), Some((0, 0)));
        assert_eq!(GameType::Spanish.coords(1), Some((7, 7)));
        // Where the numbers agree with damka's PDN numbers.
        for bit in Bits(Position::<English>::start().occupied()) {
            assert_eq!(
                cb_number::<English>(bit as u8),
                number_of_bit::<English>(bit as u8)
            );
            assert_eq!(
                cb_number::<Russian>(bit as u8),
                number_of_bit::<Russian>(bit as u8)
            );
            assert_eq!(
                cb_number::<Italian>(bit as u8),
                number_of_bit::<Italian>(bit as u8)
            );
            assert_eq!(
                cb_number::<Spanish>(bit as u8),
                33 - number_of_bit::<Spanish>(bit as u8)
            );
        }
    }

    #[test]
    fn boards_and_positions_round_trip() {
        let position = parse_fen::<English>("W:WK3,18,22:B5,K14,K30").unwrap();
        let board = board_of_position(&position);
        assert_eq!(
            board_fen(&board, CB_WHITE, GameType::English),
            "W:WK3,18,22:B5,K14,K30"
        );
        let back = position_of_board::<English>(&board, CB_WHITE).unwrap();
        assert_eq!(write_fen(&back), write_fen(&position));
        let (read, color) = read_board_fen("W:WK3,18,22:B5,K14,K30", GameType::English).unwrap();
        assert_eq!((read, color), (board, CB_WHITE));
    }

    #[test]
    fn bad_boards_are_refused_with_a_reason() {
        let mut board = start_board();
        assert!(
            position_of_board::<English>(&board, 3)
                .unwrap_err()
                .contains("colour 3")
        );
        board[1][0] = CB_BLACK | CB_MAN;
        assert!(
            position_of_board::<English>(&board, CB_BLACK)
                .unwrap_err()
                .contains("light square")
        );
        board[1][0] = 0;
        board[0][0] = 7;
        assert!(
            position_of_board::<English>(&board, CB_BLACK)
                .unwrap_err()
                .contains("is 7")
        );
        board[0][0] = CB_BLACK | CB_MAN;
        board[1][7] = CB_BLACK | CB_MAN;
        let error = position_of_board::<English>(&board, CB_BLACK).unwrap_err();
        assert!(error.contains("13 pieces"), "{error}");
        board[0][0] = CB_FREE;
        let error = position_of_board::<English>(&board, CB_BLACK).unwrap_err();
        assert!(
            error.contains("black man stands on its promotion row, on square 32"),
            "{error}"
        );
    }

    /// The CBmove of a double jump lists both landings and both captured men, and names the
    /// move back; CheckerBoard's own `domove` with it gives the board after the move.
    #[test]
    fn cbmoves_describe_the_route() {
        let position = parse_fen::<English>("W:W30,28:B25,17,10,3,4").unwrap();
        let mv = position.legal_moves().as_slice()[0];
        let cb = cb_move(&position, &mv);
        assert_eq!(cb.jumps, 3);
        assert_eq!(cb.oldpiece, CB_WHITE | CB_MAN);
        assert_eq!(cb.newpiece, CB_WHITE | CB_MAN);
        let number = |c: Coor| GameType::English.square_number(c.x as usize, c.y as usize);
        assert_eq!(number(cb.from), 30);
        assert_eq!(
            (1..=3).map(|i| number(cb.path[i])).collect::<Vec<_>>(),
            vec![21, 14, 7]
        );
        assert_eq!(
            (0..3).map(|i| number(cb.del[i])).collect::<Vec<_>>(),
            vec![25, 17, 10]
        );
        assert_eq!(move_of_cbmove(&position, &cb), Ok(mv));
        let mut board = board_of_position(&position);
        board[cb.from.x as usize][cb.from.y as usize] = 0;
        board[cb.to.x as usize][cb.to.y as usize] = cb.newpiece;
        for i in 0..cb.jumps as usize {
            board[cb.del[i].x as usize][cb.del[i].y as usize] = 0;
        }
        assert_eq!(move_to_board(&position, &board), Some(mv));
        assert_eq!(board, board_of_position(&position.play(&mv)));
        let wrong = CbMove { jumps: 2, ..cb };
        assert!(
            move_of_cbmove(&position, &wrong)
                .unwrap_err()
                .contains("no legal move")
        );
        assert_eq!(describe_cbmove(&wrong, GameType::English), "30x7:25,17");
        let off = CbMove {
            from: Coor { x: 9, y: 0 },
            ..wrong
        };
        assert!(
            move_of_cbmove(&position, &off)
                .unwrap_err()
                .contains("(9, 0)")
        );
        assert_eq!(describe_cbmove(&off, GameType::English), "(9,0)x7:25,17");
    }

    /// The example of `cb_api_reference.htm`, answered in its format.
    #[test]
    fn move_lists_are_written_as_checkerboard_reads_them() {
        let (board, color) = read_board_fen("B:W31:B3", GameType::Italian).unwrap();
        let position = position_of_board::<Italian>(&board, color).unwrap();
        let reply = move_list_reply(&position).unwrap();
        assert!(reply.starts_with("movelist 2,"), "{reply}");
        assert!(
            reply.contains("0,6,6,3,6;") && reply.contains("0,6,6,3,7;"),
            "{reply}"
        );
        let (board, color) = read_board_fen("B:W11,13,19,21:B6,9", GameType::Italian).unwrap();
        let position = position_of_board::<Italian>(&board, color).unwrap();
        let reply = move_list_reply(&position).unwrap();
        assert!(reply.starts_with("movelist 2,"), "{reply}");
        assert!(reply.contains("2,6,6,9,25,18,13,5,25,21,5;"), "{reply}");
        assert!(reply.contains("2,6,6,6,22,15,11,5,22,19,5;"), "{reply}");
        // CheckerBoard's probe: a white man on its promotion row, Black to move.
        let (board, color) = read_board_fen("B:W1:B", GameType::English).unwrap();
        assert!(position_of_board::<English>(&board, color).is_err());
        let none = pieces_of_board::<English>(&board, color).unwrap();
        assert_eq!(move_list_reply(&none).unwrap(), "movelist 0");
    }

    #[test]
    fn incremental_times_pack_as_checkerboard_packs_them() {
        let (bits, moreinfo) = pack_incremental_times(12.5, 0.1);
        assert_eq!(bits, 1 << CB_INCR_TIME_SHIFT);
        let (remaining, increment) = incremental_times(bits, moreinfo).unwrap();
        assert!((remaining - 12.5).abs() < 1e-9 && (increment - 0.1).abs() < 1e-9);
        let (bits, moreinfo) = pack_incremental_times(300.0, 2.0);
        assert_eq!(bits, 2 << CB_INCR_TIME_SHIFT);
        assert_eq!(incremental_times(bits, moreinfo), Some((300.0, 2.0)));
        assert_eq!(incremental_times(CB_EXACT_TIME, 12345), None);
        assert_eq!(maxtime_for_incremental(0.01, 60.0, 1.0), 0.4);
        assert_eq!(maxtime_for_incremental(0.8, 60.0, 1.0), 0.8);
        assert!((maxtime_for_incremental(60.0, 60.0, 1.0) - 7.0).abs() < 1e-9);
    }
}
