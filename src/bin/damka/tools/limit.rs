//! The thinking limit of the tools' engines, per move: read from the command line or an
//! engine spec, shown, and turned into the engine's `go`.

use damka::engine::Go;
use std::fmt;
use std::time::Duration;

/// How long an engine may think about each move: the one limit type of the tools (`play`,
/// `analyze`, `match`), turned into the engine's [`Go`] or a protocol's words at each edge.
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
}
