//! The command line of `damka dxp` (clap), turned into the library's [`DxpConfig`].

use damka::protocol::dxp::{DxpConfig, DxpMode, OptionSetting};
use damka::rules::Color;

const EXAMPLES: &str = "\
Examples:
  damka dxp --listen 27531
  damka dxp --listen 127.0.0.1:27531 --movetime 500 --hash 128
  damka dxp --connect 127.0.0.1:27531 --color black --minutes 5 --moves 75 --games 2

DXP is a 10x10 protocol: damka plays international draughts over it. See docs/dxp.md.";

/// A colour on the command line.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// White (DXP `W`).
    White,
    /// Black (DXP `Z`).
    Black,
}

/// The command line of `damka dxp`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct DxpArgs {
    /// Wait for connections on PORT or HOST:PORT (HOST defaults to 0.0.0.0, every interface; port 0
    /// picks a free one) and answer their game requests, one connection at a time, for ever.
    #[arg(
        long,
        value_name = "[HOST:]PORT",
        conflicts_with = "connect",
        required_unless_present = "connect"
    )]
    pub listen: Option<String>,
    /// Connect to a DXP engine at HOST:PORT and request games (retrying for 10 s while it
    /// does not answer).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
    /// With --connect: damka's colour in the first game (colours alternate after each game).
    #[arg(long, value_enum, default_value = "white")]
    pub color: Side,
    /// With --connect: each side's thinking time for the whole game, in minutes (0: no game
    /// clock).
    #[arg(long, default_value_t = 5)]
    pub minutes: u32,
    /// With --connect: the number of moves of the game; either side ends it when they have
    /// been played (0: no limit).
    #[arg(long, default_value_t = 75)]
    pub moves: u32,
    /// With --connect: the games to play before disconnecting.
    #[arg(long, default_value_t = 1)]
    pub games: u32,
    /// With --connect: start every game from this PDN FEN instead of the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Think this many milliseconds a move, whatever the game clock (default: the game
    /// clock; 1000 ms when the request has none).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Transposition table size in MB.
    #[arg(long)]
    pub hash: Option<u64>,
    /// Search threads.
    #[arg(long)]
    pub threads: Option<u64>,
    /// A weights file for the evaluation (as the UCI option EvalFile).
    #[arg(long)]
    pub eval_file: Option<String>,
    /// A directory of endgame tables (as the UCI option EGTBPath, docs/egtb.md).
    #[arg(long)]
    pub egtb_path: Option<String>,
    /// MB of endgame-table blocks kept in memory (as the UCI option EGTBCache; 0: no tables).
    #[arg(long)]
    pub egtb_cache: Option<u64>,
    /// An opening book file (as the UCI option BookFile, docs/book.md).
    #[arg(long)]
    pub book_file: Option<String>,
    /// Play without the opening book (as the UCI option Book false).
    #[arg(long)]
    pub no_book: bool,
    /// Plies from the game's start in which any book move within the margin may be played
    /// (as the UCI option BookPly).
    #[arg(long)]
    pub book_ply: Option<u32>,
    /// Centi-men below the best within which book moves are played at random (as the UCI
    /// option BookMargin).
    #[arg(long)]
    pub book_margin: Option<u32>,
    /// Playing strength from 0 to 20, full strength (as the UCI option Skill Level).
    #[arg(long)]
    pub level: Option<u32>,
    /// Our name in game requests and acceptances (at most 32 characters are sent).
    #[arg(long, default_value = "damka")]
    pub name: String,
}

impl DxpArgs {
    /// The library's settings for these arguments. clap has made sure that exactly one of
    /// `--listen` and `--connect` is given; the `--connect` settings are dropped with
    /// `--listen`, which ignores them.
    pub fn into_config(self) -> DxpConfig {
        let mode = match (self.listen, self.connect) {
            (Some(address), _) => DxpMode::Listen(address),
            (None, None) => unreachable!("clap requires --listen or --connect"),
            (None, Some(address)) => DxpMode::Connect {
                address,
                color: match self.color {
                    Side::White => Color::White,
                    Side::Black => Color::Black,
                },
                minutes: self.minutes,
                moves: self.moves,
                games: self.games,
                fen: self.fen,
            },
        };
        fn shown<T: ToString>(value: Option<T>) -> Option<String> {
            value.map(|v| v.to_string())
        }
        // (flag, engine option, value): the engine sets them in this order.
        let options = [
            ("hash", "Hash", shown(self.hash)),
            ("threads", "Threads", shown(self.threads)),
            ("eval-file", "EvalFile", self.eval_file),
            ("egtb-cache", "EGTBCache", shown(self.egtb_cache)),
            ("egtb-path", "EGTBPath", self.egtb_path),
            ("book-file", "BookFile", self.book_file),
            ("no-book", "Book", self.no_book.then(|| "false".to_string())),
            ("book-ply", "BookPly", shown(self.book_ply)),
            ("book-margin", "BookMargin", shown(self.book_margin)),
            ("level", "Skill Level", shown(self.level)),
        ];
        DxpConfig {
            mode,
            movetime: self.movetime,
            options: options
                .into_iter()
                .filter_map(|(flag, option, value)| {
                    value.map(|value| OptionSetting {
                        flag,
                        option,
                        value,
                    })
                })
                .collect(),
            name: self.name,
        }
    }
}
