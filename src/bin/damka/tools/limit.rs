//! The thinking limit of the tools' engines, per move: read from the command line or an engine spec, shown, and turned into what each engine is told.
//!
//! [`Limit`] is the tools' one limit type. Every edge it crosses has one function here: the
//! facade's [`Go`] (`play`, `analyze`), and for the match tool's engine processes UCI's
//! `go`, Hub's `level`, the first Hub dialect's words and a DXP game request's minutes.

use damka::engine::Go;
use std::fmt;
use std::time::Duration;

/// How long an engine may think about each move: the one limit type of the tools (`play`,
/// `analyze`, `match`), turned into the engine's [`Go`] or a protocol's words at each edge
/// (one function an edge, below).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A fixed number of plies.
    Depth(u32),
    /// About this many nodes.
    Nodes(u64),
    /// A fixed time per move.
    MoveTime(Duration),
    /// A clock kept by the match tool: base time, plus the increment after every move.
    Clock {
        /// The time on the clock at the start of the game.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
}

impl Limit {
    /// The limit when the user gave neither `--depth` nor `--movetime` (`play`, `analyze`).
    pub const DEFAULT: Limit = Limit::MoveTime(Duration::from_millis(1000));

    /// The limit from the command line's two exclusive options of `play` and `analyze`.
    pub fn from_options(depth: Option<u32>, movetime_ms: Option<u64>) -> Limit {
        match (depth, movetime_ms) {
            (Some(depth), _) => Limit::Depth(depth.max(1)),
            (None, Some(ms)) => Limit::MoveTime(Duration::from_millis(ms.max(1))),
            (None, None) => Limit::DEFAULT,
        }
    }

    /// The engine's `go` for one move under this limit; a clock stands for both sides (the
    /// engine reads the side to move's).
    pub fn go(self) -> Go {
        let millis = |t: Duration| Some(i64::try_from(t.as_millis()).unwrap_or(i64::MAX));
        match self {
            Limit::Depth(depth) => Go {
                depth: Some(depth),
                ..Go::default()
            },
            Limit::Nodes(nodes) => Go {
                nodes: Some(nodes),
                ..Go::default()
            },
            Limit::MoveTime(time) => Go {
                movetime_ms: Some(u64::try_from(time.as_millis()).unwrap_or(u64::MAX)),
                ..Go::default()
            },
            Limit::Clock { base, increment } => Go {
                wtime_ms: millis(base),
                btime_ms: millis(base),
                winc_ms: millis(increment),
                binc_ms: millis(increment),
                ..Go::default()
            },
        }
    }
}

/// Milliseconds of `t`, at least 1 (an engine told 0 may take it as no limit).
fn whole_millis(t: Duration) -> u128 {
    t.as_millis().max(1)
}

impl Limit {
    /// UCI's `go` command for one move; `clocks` are both sides' clocks now (White, Black),
    /// read only under a clock.
    pub fn uci_go(self, clocks: [Duration; 2]) -> String {
        match self {
            Limit::Depth(d) => format!("go depth {d}"),
            Limit::Nodes(n) => format!("go nodes {n}"),
            Limit::MoveTime(t) => format!("go movetime {}", whole_millis(t)),
            Limit::Clock { increment, .. } => format!(
                "go wtime {} btime {} winc {} binc {}",
                clocks[0].as_millis(),
                clocks[1].as_millis(),
                increment.as_millis(),
                increment.as_millis()
            ),
        }
    }

    /// Hub v2's `level` command for one move; `clock` is the side to move's clock now, read
    /// only under a clock. Hub's `time` leaves out the increment the engine adds before its
    /// move (Scan's protocol text; docs/hub.md).
    pub fn hub_level(self, clock: Duration) -> String {
        match self {
            Limit::Depth(d) => format!("level depth={d}"),
            Limit::Nodes(n) => format!("level nodes={n}"),
            Limit::MoveTime(t) => format!("level move-time={:.3}", t.as_secs_f64()),
            Limit::Clock { increment, .. } => format!(
                "level time={:.3} inc={:.3}",
                clock.saturating_sub(increment).as_secs_f64(),
                increment.as_secs_f64()
            ),
        }
    }

    /// The first Hub dialect's limit command for one move (`depth N`, `time MS`, or `level 0
    /// MS INC`), `clock` being the side to move's clock now; `None` for a node limit, which
    /// that dialect does not have. Like Hub v2's `time`, the clock leaves out the increment:
    /// Scan counts it as its own for this move (time + inc, search.cpp Time::init).
    pub fn hub1_limit(self, clock: Duration) -> Option<String> {
        match self {
            Limit::Depth(d) => Some(format!("depth {d}")),
            Limit::MoveTime(t) => Some(format!("time {}", whole_millis(t))),
            Limit::Clock { increment, .. } => Some(format!(
                "level 0 {} {}",
                clock.saturating_sub(increment).as_millis(),
                increment.as_millis()
            )),
            Limit::Nodes(_) => None,
        }
    }

    /// The minutes of a DXP game request (its clock is the request's), or why this limit
    /// cannot be one: a DXP clock is whole minutes (1 to 999) without increment.
    pub fn dxp_minutes(self) -> Result<u32, String> {
        match self {
            Limit::Clock { base, increment }
                if increment.is_zero()
                    && base.as_millis() % 60_000 == 0
                    && (60..=999 * 60).contains(&base.as_secs()) =>
            {
                Ok((base.as_secs() / 60) as u32)
            }
            _ => Err(format!(
                "a DXP engine plays on the game request's clock: whole minutes without \
                 increment, e.g. tc=60 (its limit is {self})"
            )),
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Depth(d) => write!(f, "depth {d}"),
            Limit::Nodes(n) => write!(f, "{n} nodes"),
            Limit::MoveTime(t) => write!(f, "{} ms a move", t.as_millis()),
            Limit::Clock { base, increment } => {
                write!(f, "{}+{} s", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

/// Reads a time control `SECONDS+INC` (`10+0.1`, `60`), seconds as reals.
pub fn parse_tc(text: &str) -> Result<Limit, String> {
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let seconds = |t: &str| -> Result<Duration, String> {
        let value: f64 = t
            .trim()
            .parse()
            .map_err(|_| format!("bad time control '{text}': expected SECONDS+INC, e.g. 10+0.1"))?;
        if !value.is_finite() || !(0.0..=1e6).contains(&value) {
            return Err(format!("bad time control '{text}': seconds out of range"));
        }
        Ok(Duration::from_secs_f64(value))
    };
    let (base, increment) = (seconds(base)?, seconds(inc)?);
    if base.is_zero() && increment.is_zero() {
        return Err(format!("bad time control '{text}': no time at all"));
    }
    Ok(Limit::Clock { base, increment })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read() {
        assert_eq!(
            parse_tc("10+0.1").unwrap(),
            Limit::Clock {
                base: Duration::from_secs(10),
                increment: Duration::from_millis(100)
            }
        );
        assert!(parse_tc("abc").is_err());
    }

    #[test]
    fn command_line_options_become_limits() {
        assert_eq!(Limit::from_options(Some(0), Some(5)), Limit::Depth(1));
        assert_eq!(
            Limit::from_options(None, Some(0)),
            Limit::MoveTime(Duration::from_millis(1))
        );
        assert_eq!(Limit::from_options(None, None), Limit::DEFAULT);
        assert_eq!(Limit::DEFAULT.go().movetime_ms, Some(1000));
    }

    #[test]
    fn protocol_words() {
        let clock = Limit::Clock {
            base: Duration::from_secs(60),
            increment: Duration::from_millis(500),
        };
        let clocks = [Duration::from_millis(12_345), Duration::from_millis(6_000)];
        assert_eq!(
            clock.uci_go(clocks),
            "go wtime 12345 btime 6000 winc 500 binc 500"
        );
        assert_eq!(clock.hub_level(clocks[0]), "level time=11.845 inc=0.500");
        assert_eq!(clock.hub1_limit(clocks[1]).unwrap(), "level 0 5500 500");
        let movetime = Limit::MoveTime(Duration::ZERO);
        assert_eq!(movetime.uci_go(clocks), "go movetime 1");
        assert_eq!(movetime.hub1_limit(clocks[0]).unwrap(), "time 1");
        assert_eq!(Limit::Nodes(500).hub_level(clocks[0]), "level nodes=500");
        assert_eq!(Limit::Nodes(500).hub1_limit(clocks[0]), None);
        assert_eq!(Limit::Depth(4).hub1_limit(clocks[0]).unwrap(), "depth 4");
        assert_eq!(parse_tc("120").unwrap().dxp_minutes(), Ok(2));
        assert!(parse_tc("90").unwrap().dxp_minutes().is_err());
        assert!(parse_tc("60+1").unwrap().dxp_minutes().is_err());
        assert!(Limit::Depth(3).dxp_minutes().is_err());
    }
}
