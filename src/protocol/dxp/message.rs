//! DamExchange (DXP) 1.x messages: read from and written to their fixed-width ASCII layouts.
//!
//! The layouts are those of the DamExchange layer 2 specification (mesander.nl/damexchange,
//! pages GAMEREQ, GAMEACC, MOVE, GAMEEND, CHAT, BACKREQ, BACKACC). Every message is 1 to 127
//! ASCII characters (1..=127) whose first character is its type; on the wire each ends with
//! a NUL byte (that framing is [`super::wire`]'s job). Numbers are decimal, right-aligned,
//! padded with `0` to the field's width; names are padded with blanks on the right.
//!
//! Reading is strict about widths and digits (a field that is not what the layout says is an
//! error naming the field), and lenient in one way real peers need: trailing blanks, CR or LF
//! after the last field are ignored (some clients strip or add them).

use crate::board::Bits;
use crate::notation::{bit_of_number, number_of_bit};
use crate::position::{Move, Position};
use crate::rules::{Color, International};
use std::fmt;

/// The longest message the protocol allows (the NUL excluded).
pub const MAX_LEN: usize = 127;
/// The width of a program name in GAMEREQ and GAMEACC.
pub const NAME_WIDTH: usize = 32;
/// The squares of the board DXP plays on (10x10, numbered 1..=50 as in PDN).
pub const SQUARES: usize = 50;

/// One piece (or none) on a square of a GAMEREQ position: `e`, `w`, `z`, `W`, `Z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// `e`.
    Empty,
    /// `w` or `W`.
    White {
        /// `W`.
        king: bool,
    },
    /// `z` or `Z` (`zwart`, Dutch for black).
    Black {
        /// `Z`.
        king: bool,
    },
}

/// The start position of a requested game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// `A`: the normal start, White to move.
    Initial,
    /// `B`: the side to move (`W`/`Z`) and 50 squares, 1 to 50.
    Setup {
        /// The side to move first.
        to_move: Color,
        /// Squares 1..=50.
        cells: Vec<Cell>,
    },
}

/// GAMEREQ (`R`), sent by the initiator only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRequest {
    /// The protocol version (2 digits; `01` is the only one).
    pub version: u32,
    /// The initiator's name (32 characters, blank-padded; read trimmed).
    pub initiator: String,
    /// The colour the follower plays (`W` or `Z`).
    pub follower: Color,
    /// Thinking time of each player for the whole game, minutes (3 digits).
    pub minutes: u32,
    /// Moves of the whole game (3 digits; 0 = no limit).
    pub moves: u32,
    /// The start position.
    pub start: Start,
}

/// GAMEACC (`A`) acceptance codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcceptCode {
    /// `0`: the game is accepted.
    Accepted,
    /// `1`: not this protocol version.
    BadVersion,
    /// `2`: not this game, another one is welcome.
    NotThisGame,
    /// `3`: no games at all.
    NoGames,
}

/// GAMEEND (`E`) reasons, from the sender's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// `0`: no reason given (always allowed; also the answer to a GAMEEND).
    Unknown,
    /// `1`: I lose (I give up).
    ILose,
    /// `2`: draw.
    Draw,
    /// `3`: I win.
    IWin,
}

/// BACKACC (`K`) codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackCode {
    /// `0`: taken back as asked.
    Accepted,
    /// `1`: the program cannot take moves back.
    NotSupported,
    /// `2`: refused; the game goes on.
    Refused,
}

/// MOVE (`M`): the time used and the move as from, to and the captured squares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveMessage {
    /// Seconds the sender used for the move (4 digits, informational).
    pub seconds: u32,
    /// From square, 1..=50 (2 digits).
    pub from: u32,
    /// To square (2 digits).
    pub to: u32,
    /// Captured squares, in any order (a count of 2 digits, then 2 digits each).
    pub captured: Vec<u32>,
}

/// One DXP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// `R`.
    GameRequest(GameRequest),
    /// `A`: the follower's name and its answer.
    GameAccept {
        /// The follower's name (32 characters, blank-padded; read trimmed).
        name: String,
        /// The answer.
        code: AcceptCode,
    },
    /// `M`.
    Move(MoveMessage),
    /// `E`: a request to end the game, or the answer to one.
    GameEnd {
        /// The sender's view of the result.
        reason: EndReason,
        /// `1` when the sender wants no further game (`0`: another game is welcome).
        stop: bool,
    },
    /// `C`: free text.
    Chat(String),
    /// `B`: go back to the position of this move number (3 digits, the first move is 1)
    /// with this side to move.
    BackRequest {
        /// The move number.
        move_number: u32,
        /// The side to move there.
        to_move: Color,
    },
    /// `K`: the answer to a BACKREQ.
    BackAccept(BackCode),
}

message_error! {
    /// Why a message could not be read.
    ParseError
}

/// A cursor over the characters of one message.
struct Fields<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Fields<'a> {
    fn take(&mut self, width: usize, field: &str) -> Result<&'a str, ParseError> {
        let rest = &self.text[self.at..];
        if rest.len() < width {
            return Err(ParseError(format!(
                "the message ends inside the {field} field ({width} characters expected, {} left)",
                rest.len()
            )));
        }
        self.at += width;
        Ok(&rest[..width])
    }

    fn number(&mut self, width: usize, field: &str) -> Result<u32, ParseError> {
        let text = self.take(width, field)?;
        if !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseError(format!(
                "the {field} field '{text}' is not {width} digits"
            )));
        }
        Ok(text.parse().expect("digits"))
    }

    fn color(&mut self, field: &str) -> Result<Color, ParseError> {
        match self.take(1, field)? {
            "W" => Ok(Color::White),
            "Z" => Ok(Color::Black),
            other => Err(ParseError(format!(
                "the {field} field '{other}' is not W or Z"
            ))),
        }
    }

    fn code(&mut self, field: &str, max: u8) -> Result<u8, ParseError> {
        let text = self.take(1, field)?;
        match text.as_bytes()[0] {
            b @ b'0'..=b'9' if b - b'0' <= max => Ok(b - b'0'),
            _ => Err(ParseError(format!(
                "the {field} field '{text}' is not a digit from 0 to {max}"
            ))),
        }
    }

    /// Nothing but blanks, CR or LF may follow the last field.
    fn end(&self) -> Result<(), ParseError> {
        let rest = &self.text[self.at..];
        if rest.trim_end_matches([' ', '\r', '\n']).is_empty() {
            Ok(())
        } else {
            Err(ParseError(format!(
                "unexpected characters '{rest}' after the last field"
            )))
        }
    }
}

impl Message {
    /// Reads one message (without its NUL).
    pub fn parse(bytes: &[u8]) -> Result<Message, ParseError> {
        if bytes.is_empty() {
            return Err(ParseError("an empty message".into()));
        }
        if bytes.len() > MAX_LEN {
            return Err(ParseError(format!(
                "a message of {} characters (at most {MAX_LEN})",
                bytes.len()
            )));
        }
        if let Some(bad) = bytes.iter().find(|b| !(1..=127).contains(*b)) {
            return Err(ParseError(format!(
                "byte {bad:#04x} is not an ASCII character 1-127"
            )));
        }
        let text = std::str::from_utf8(bytes).expect("ASCII is UTF-8");
        let mut fields = Fields { text, at: 1 };
        let message = match &text[..1] {
            // R: version 2, initiator name 32, follower colour 1, minutes 3, moves 3, start
            // indicator 1, and with `B` the colour to move 1 and 50 squares.
            "R" => {
                let version = fields.number(2, "version")?;
                let initiator = fields
                    .take(NAME_WIDTH, "initiator name")?
                    .trim()
                    .to_string();
                let follower = fields.color("follower colour")?;
                let minutes = fields.number(3, "thinking time")?;
                let moves = fields.number(3, "number of moves")?;
                let start = match fields.take(1, "starting position")? {
                    "A" => Start::Initial,
                    "B" => {
                        let to_move = fields.color("colour to move")?;
                        let squares = fields.take(SQUARES, "position")?;
                        let cells = squares
                            .chars()
                            .enumerate()
                            .map(|(index, c)| match c {
                                'e' => Ok(Cell::Empty),
                                'w' => Ok(Cell::White { king: false }),
                                'W' => Ok(Cell::White { king: true }),
                                'z' => Ok(Cell::Black { king: false }),
                                'Z' => Ok(Cell::Black { king: true }),
                                other => Err(ParseError(format!(
                                    "square {} of the position is '{other}' (e, w, z, W or Z)",
                                    index + 1
                                ))),
                            })
                            .collect::<Result<Vec<_>, _>>()?;
                        Start::Setup { to_move, cells }
                    }
                    other => {
                        return Err(ParseError(format!(
                            "the starting position field '{other}' is not A or B"
                        )));
                    }
                };
                Message::GameRequest(GameRequest {
                    version,
                    initiator,
                    follower,
                    minutes,
                    moves,
                    start,
                })
            }
            // A: follower name 32, acceptance code 1.
            "A" => {
                let name = fields.take(NAME_WIDTH, "follower name")?.trim().to_string();
                let code = match fields.code("acceptance code", 3)? {
                    0 => AcceptCode::Accepted,
                    1 => AcceptCode::BadVersion,
                    2 => AcceptCode::NotThisGame,
                    _ => AcceptCode::NoGames,
                };
                Message::GameAccept { name, code }
            }
            // M: time 4, from 2, to 2, number captured 2, then 2 per captured piece.
            "M" => {
                let seconds = fields.number(4, "time")?;
                let from = fields.number(2, "from field")?;
                let to = fields.number(2, "to field")?;
                let count = fields.number(2, "number captured")?;
                let mut captured = Vec::with_capacity(count as usize);
                for _ in 0..count {
                    captured.push(fields.number(2, "captured piece")?);
                }
                for (name, square) in [("from", from), ("to", to)]
                    .into_iter()
                    .chain(captured.iter().map(|&s| ("captured", s)))
                {
                    if !(1..=SQUARES as u32).contains(&square) {
                        return Err(ParseError(format!(
                            "{name} square {square} is not on the board (1-50)"
                        )));
                    }
                }
                Message::Move(MoveMessage {
                    seconds,
                    from,
                    to,
                    captured,
                })
            }
            // E: reason 1, stop code 1.
            "E" => {
                let reason = match fields.code("reason", 3)? {
                    0 => EndReason::Unknown,
                    1 => EndReason::ILose,
                    2 => EndReason::Draw,
                    _ => EndReason::IWin,
                };
                let stop = fields.code("stop code", 1)? == 1;
                Message::GameEnd { reason, stop }
            }
            // C: the rest is free text.
            "C" => {
                fields.at = text.len();
                Message::Chat(text[1..].to_string())
            }
            // B: move number 3, colour to move 1.
            "B" => {
                let move_number = fields.number(3, "move number")?;
                let to_move = fields.color("colour to move")?;
                Message::BackRequest {
                    move_number,
                    to_move,
                }
            }
            // K: acceptance code 1.
            "K" => Message::BackAccept(match fields.code("acceptance code", 2)? {
                0 => BackCode::Accepted,
                1 => BackCode::NotSupported,
                _ => BackCode::Refused,
            }),
            other => {
                return Err(ParseError(format!(
                    "unknown message type '{other}' (R, A, M, E, C, B or K)"
                )));
            }
        };
        fields.end()?;
        Ok(message)
    }

    /// The message's text (without its NUL). Names longer than 32 characters are cut, numbers
    /// too wide for their field are capped at the largest value it holds, and a chat is cut
    /// to the longest message, so the text always fits the layout.
    pub fn encode(&self) -> String {
        let digits = |value: u32, width: usize| {
            let max = 10u32.pow(width as u32) - 1;
            format!("{:0width$}", value.min(max))
        };
        let name = |text: &str| {
            let text: String = text
                .chars()
                .filter(|c| c.is_ascii() && !c.is_ascii_control())
                .take(NAME_WIDTH)
                .collect();
            format!("{:<NAME_WIDTH$}", text.trim_start())
        };
        let color = |c: Color| if c == Color::White { 'W' } else { 'Z' };
        match self {
            Message::GameRequest(r) => {
                let mut s = format!(
                    "R{}{}{}{}{}",
                    digits(r.version, 2),
                    name(&r.initiator),
                    color(r.follower),
                    digits(r.minutes, 3),
                    digits(r.moves, 3)
                );
                match &r.start {
                    Start::Initial => s.push('A'),
                    Start::Setup { to_move, cells } => {
                        s.push('B');
                        s.push(color(*to_move));
                        s.extend(cells.iter().map(|cell| match cell {
                            Cell::Empty => 'e',
                            Cell::White { king: false } => 'w',
                            Cell::White { king: true } => 'W',
                            Cell::Black { king: false } => 'z',
                            Cell::Black { king: true } => 'Z',
                        }));
                    }
                }
                s
            }
            Message::GameAccept { name: n, code } => format!(
                "A{}{}",
                name(n),
                match code {
                    AcceptCode::Accepted => 0,
                    AcceptCode::BadVersion => 1,
                    AcceptCode::NotThisGame => 2,
                    AcceptCode::NoGames => 3,
                }
            ),
            Message::Move(m) => {
                let mut s = format!(
                    "M{}{}{}{}",
                    digits(m.seconds, 4),
                    digits(m.from, 2),
                    digits(m.to, 2),
                    digits(m.captured.len() as u32, 2)
                );
                for &square in &m.captured {
                    s.push_str(&digits(square, 2));
                }
                s
            }
            Message::GameEnd { reason, stop } => format!(
                "E{}{}",
                match reason {
                    EndReason::Unknown => 0,
                    EndReason::ILose => 1,
                    EndReason::Draw => 2,
                    EndReason::IWin => 3,
                },
                u8::from(*stop)
            ),
            Message::Chat(text) => {
                let text: String = text
                    .chars()
                    .map(|c| if c.is_ascii() && c != '\0' { c } else { '?' })
                    .take(MAX_LEN - 1)
                    .collect();
                format!("C{text}")
            }
            Message::BackRequest {
                move_number,
                to_move,
            } => format!("B{}{}", digits(*move_number, 3), color(*to_move)),
            Message::BackAccept(code) => format!(
                "K{}",
                match code {
                    BackCode::Accepted => 0,
                    BackCode::NotSupported => 1,
                    BackCode::Refused => 2,
                }
            ),
        }
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

/// The position a game request starts from, or why it cannot be played: more than 20 men or
/// kings a side, or a man on its own promotion row.
pub fn start_position(start: &Start) -> Result<Position<International>, String> {
    let Start::Setup { to_move, cells } = start else {
        return Ok(Position::start());
    };
    let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
    for (index, cell) in cells.iter().enumerate() {
        let square = index as u32 + 1;
        let bit = 1u64 << bit_of_number::<International>(square).expect("1..=50");
        match *cell {
            Cell::Empty => {}
            Cell::White { king } => {
                if !king && square <= 5 {
                    return Err(format!("a white man on square {square}, its promotion row"));
                }
                white |= bit;
                if king {
                    kings |= bit;
                }
            }
            Cell::Black { king } => {
                if !king && square > 45 {
                    return Err(format!("a black man on square {square}, its promotion row"));
                }
                black |= bit;
                if king {
                    kings |= bit;
                }
            }
        }
    }
    for (side, set) in [("white", white), ("black", black)] {
        if set.count_ones() > 20 {
            return Err(format!("{} {side} pieces (at most 20)", set.count_ones()));
        }
    }
    Ok(Position::from_parts(white, black, kings, *to_move))
}

/// A position as the `B` form of a game request: the side to move and its 50 cells.
pub fn setup_of(position: &Position<International>) -> Start {
    let cells = (1..=SQUARES as u32)
        .map(|square| {
            let bit = 1u64 << bit_of_number::<International>(square).expect("1..=50");
            let king = position.kings() & bit != 0;
            if position.pieces(Color::White) & bit != 0 {
                Cell::White { king }
            } else if position.pieces(Color::Black) & bit != 0 {
                Cell::Black { king }
            } else {
                Cell::Empty
            }
        })
        .collect();
    Start::Setup {
        to_move: position.side_to_move(),
        cells,
    }
}

/// A move as a MOVE message: its from and to squares and every captured square, ascending.
pub fn move_message(mv: &Move, seconds: u32) -> MoveMessage {
    let name = |bit: u8| number_of_bit::<International>(bit);
    let mut captured: Vec<u32> = Bits(mv.captured).map(|bit| name(bit as u8)).collect();
    captured.sort_unstable();
    MoveMessage {
        seconds,
        from: name(mv.from),
        to: name(mv.to),
        captured,
    }
}

/// The legal move of `position` that a MOVE message names (same from, to and set of captured
/// squares; the order of the captured squares does not matter), or why there is none.
pub fn find_move(
    position: &Position<International>,
    message: &MoveMessage,
) -> Result<Move, String> {
    let bit = |square: u32| bit_of_number::<International>(square);
    let (Some(from), Some(to)) = (bit(message.from), bit(message.to)) else {
        return Err("a square off the board".into());
    };
    let mut captured = 0u64;
    for &square in &message.captured {
        let Some(b) = bit(square) else {
            return Err(format!("captured square {square} is off the board"));
        };
        if captured & (1u64 << b) != 0 {
            return Err(format!("captured square {square} is given twice"));
        }
        captured |= 1u64 << b;
    }
    let legal = position.legal_moves();
    legal
        .iter()
        .find(|mv| mv.from == from && mv.to == to && mv.captured == captured)
        .copied()
        .ok_or_else(|| {
            let text = if message.captured.is_empty() {
                format!("{}-{}", message.from, message.to)
            } else {
                let taken: Vec<String> = message.captured.iter().map(u32::to_string).collect();
                format!("{}x{} taking {}", message.from, message.to, taken.join(","))
            };
            format!("{text} is not a legal move here")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    /// The examples of the specification's pages, byte for byte.
    #[test]
    fn the_specification_examples_read_and_write_back() {
        let examples = [
            // GAMEREQ: R, version 01, name (32), follower W, 060 minutes, 065 moves, A.
            "R01Tornado voor Windows 4.0        W060065A",
            // GAMEACC: A, name (32), code 0.
            "ATornado voor Windows 4.0        0",
            // MOVE: M, time 0012, 06 -> 11, 00 captured.
            "M0012061100",
            // MOVE: M, time 0012, 05 -> 25, 04 captured: 22 12 23 20 (any order).
            "M001205250422122320",
            // GAMEEND: E, reason 0, stop code 0.
            "E00",
            // BACKREQ: B, move 005, Z to move.
            "B005Z",
            // BACKACC: K, code 1.
            "K1",
        ];
        for text in examples {
            let message = Message::parse(text.as_bytes()).unwrap();
            assert_eq!(message.encode(), text, "{message:?}");
        }
        assert_eq!(
            Message::parse(b"R01Tornado voor Windows 4.0        W060065A").unwrap(),
            Message::GameRequest(GameRequest {
                version: 1,
                initiator: "Tornado voor Windows 4.0".into(),
                follower: Color::White,
                minutes: 60,
                moves: 65,
                start: Start::Initial,
            })
        );
        assert_eq!(
            Message::parse(b"M001205250422122320").unwrap(),
            Message::Move(MoveMessage {
                seconds: 12,
                from: 5,
                to: 25,
                captured: vec![22, 12, 23, 20],
            })
        );
        assert_eq!(
            Message::parse(b"B005Z").unwrap(),
            Message::BackRequest {
                move_number: 5,
                to_move: Color::Black
            }
        );
    }

    #[test]
    fn field_widths_are_fixed() {
        let request = Message::GameRequest(GameRequest {
            version: 1,
            initiator: "damka".into(),
            follower: Color::Black,
            minutes: 5,
            moves: 0,
            start: Start::Initial,
        })
        .encode();
        // 1 + 2 + 32 + 1 + 3 + 3 + 1 characters.
        assert_eq!(request.len(), 43);
        assert_eq!(&request[..3], "R01");
        assert_eq!(&request[3..35], format!("{:<32}", "damka"));
        assert_eq!(&request[35..], "Z005000A");
        let setup = Message::GameRequest(GameRequest {
            version: 1,
            initiator: "x".repeat(40),
            follower: Color::White,
            minutes: 1234,
            moves: 7,
            start: setup_of(&Position::start()),
        })
        .encode();
        // + colour to move 1 + 50 squares.
        assert_eq!(setup.len(), 43 + 1 + 50);
        assert_eq!(&setup[3..35], "x".repeat(32));
        assert_eq!(&setup[35..44], "W999007BW");
        assert_eq!(
            &setup[44..],
            format!("{}{}{}", "z".repeat(20), "e".repeat(10), "w".repeat(20))
        );
        let back = Message::parse(setup.as_bytes()).unwrap();
        let Message::GameRequest(request) = back else {
            panic!("{back:?}")
        };
        assert_eq!(start_position(&request.start).unwrap(), Position::start());
        assert_eq!(
            Message::GameAccept {
                name: "damka".into(),
                code: AcceptCode::NotThisGame
            }
            .encode(),
            format!("A{:<32}2", "damka")
        );
        assert_eq!(
            Message::GameEnd {
                reason: EndReason::IWin,
                stop: true
            }
            .encode(),
            "E31"
        );
        assert_eq!(Message::BackAccept(BackCode::Refused).encode(), "K2");
        assert_eq!(Message::Chat("hello".into()).encode(), "Chello");
        assert_eq!(Message::Chat("x".repeat(300)).encode().len(), MAX_LEN);
    }

    #[test]
    fn bad_messages_are_refused_with_the_field_named() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "empty"),
            (b"X123", "unknown message type"),
            (b"M001206", "ends inside the to field"),
            (b"M00a2061100", "time field"),
            (b"M0012061101", "ends inside the captured piece field"),
            (b"M0012061100xx", "after the last field"),
            (b"M0012991100", "not on the board"),
            (b"M0012060000", "not on the board"),
            (b"E4", "reason"),
            (b"E0", "ends inside the stop code"),
            (b"E02", "stop code"),
            (b"K3", "acceptance code"),
            (b"B05Z", "move number field '05Z' is not 3 digits"),
            (b"B005Q", "colour to move"),
            (b"R01name", "ends inside the initiator name"),
            (
                b"R01Tornado voor Windows 4.0        X060065A",
                "follower colour",
            ),
            (
                b"R01Tornado voor Windows 4.0        W060065C",
                "starting position",
            ),
            (
                b"R01Tornado voor Windows 4.0        W060065BW",
                "ends inside the position",
            ),
            (b"M\xff", "ASCII"),
        ];
        for (bytes, expected) in cases {
            let error = Message::parse(bytes).unwrap_err();
            assert!(
                error.0.contains(expected),
                "{:?}: '{error}' lacks '{expected}'",
                String::from_utf8_lossy(bytes)
            );
        }
        let long = vec![b'C'; 128];
        assert!(Message::parse(&long).unwrap_err().0.contains("at most 127"));
        let mut position = format!("R01{:<32}W000000BW", "p");
        position.push_str(&"e".repeat(49));
        position.push('q');
        assert!(
            Message::parse(position.as_bytes())
                .unwrap_err()
                .0
                .contains("square 50")
        );
        // Trailing blanks and line ends are tolerated.
        assert_eq!(
            Message::parse(b"E10\r\n").unwrap(),
            Message::GameEnd {
                reason: EndReason::ILose,
                stop: false
            }
        );
    }

    #[test]
    fn moves_are_matched_by_from_to_and_the_set_of_captured_squares() {
        // White man on 28 takes 23 and 13 (landing on 19, then 8); also 32-27 etc.
        let position = parse_fen::<International>("W:W28,32:B23,13,3").unwrap();
        let take = MoveMessage {
            seconds: 0,
            from: 28,
            to: 8,
            captured: vec![23, 13],
        };
        let mv = find_move(&position, &take).unwrap();
        assert_eq!(
            move_message(&mv, 3),
            MoveMessage {
                seconds: 3,
                captured: vec![13, 23],
                ..take.clone()
            }
        );
        let reversed = MoveMessage {
            captured: vec![13, 23],
            ..take.clone()
        };
        assert_eq!(find_move(&position, &reversed).unwrap(), mv);
        // A step is illegal when a capture is compulsory; a partial capture set is wrong.
        for bad in [
            MoveMessage {
                seconds: 0,
                from: 32,
                to: 27,
                captured: vec![],
            },
            MoveMessage {
                captured: vec![23],
                ..take.clone()
            },
            MoveMessage {
                captured: vec![23, 23],
                ..take.clone()
            },
        ] {
            assert!(find_move(&position, &bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn setup_positions_round_trip_and_bad_ones_are_refused() {
        let position = parse_fen::<International>("B:W28,K32,45:B23,K13,3").unwrap();
        let start = setup_of(&position);
        assert_eq!(start_position(&start).unwrap(), position);
        let text = Message::GameRequest(GameRequest {
            version: 1,
            initiator: "t".into(),
            follower: Color::White,
            minutes: 1,
            moves: 0,
            start,
        })
        .encode();
        // Square 3 is a black man, 13 a black king, 32 a white king.
        // Colour to move at 43, square n at 43 + n.
        assert_eq!(&text[43..44], "Z");
        assert_eq!(&text[43 + 3..43 + 4], "z");
        assert_eq!(&text[43 + 13..43 + 14], "Z");
        assert_eq!(&text[43 + 32..43 + 33], "W");
        let mut cells = vec![Cell::Empty; 50];
        cells[2] = Cell::White { king: false };
        assert!(
            start_position(&Start::Setup {
                to_move: Color::White,
                cells
            })
            .is_err()
        );
        let cells = vec![Cell::Black { king: true }; 50];
        assert!(
            start_position(&Start::Setup {
                to_move: Color::White,
                cells
            })
            .is_err()
        );
    }
}
