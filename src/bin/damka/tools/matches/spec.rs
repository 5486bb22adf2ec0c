//! Engine specifications of `damka match`: `cmd=PATH args,name=N,proto=uci|hub|hub1|dxp|cb,option.X=V,depth=N...`.

use crate::tools::limit::{Limit, parse_tc};
use std::time::Duration;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    /// damka's UCI dialect (docs/protocol.md).
    Uci,
    /// Hub v2, the Scan protocol (docs/hub.md).
    Hub,
    /// The first Hub dialect, as Scan 2.0's `scan hub` speaks it: `pos` with 51 letters,
    /// `move`, `time`/`level`/`depth`, `go` answered by `move` (docs/match.md).
    Hub1,
    /// DamExchange over TCP (docs/dxp.md): the match tool connects to the engine's port and
    /// requests the games.
    Dxp,
    /// A CheckerBoard engine library (`getmove`, `enginecommand`; docs/checkerboard.md),
    /// loaded by `damka cb-engine` in a process of its own, which speaks the UCI dialect.
    Cb,
}

/// One `--engine` argument, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name in the PDN and the tables.
    pub name: String,
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The protocol.
    pub proto: Proto,
    /// Options to set, in the order given (`setoption` / Hub `set-param`).
    pub options: Vec<(String, String)>,
    /// Its own limit, overriding the match's.
    pub limit: Option<Limit>,
    /// The working folder of its process (`dir=`), if not the current one.
    pub dir: Option<String>,
    /// DXP: where the engine listens (`addr=HOST:PORT`, default 127.0.0.1:27531).
    pub addr: Option<String>,
    /// DXP: the number of moves of each game request (`dxp-moves=N`, default 0: no limit).
    pub dxp_moves: u32,
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{key}={value}: expected a whole number"))
}

impl EngineSpec {
    /// Reads `cmd=PATH [args],name=NAME,proto=uci|hub|hub1|dxp|cb,option.NAME=VALUE,depth=N,
    /// movetime=MS,nodes=N,tc=S+I,dir=DIR,addr=HOST:PORT,dxp-moves=N` (any order; `cmd`
    /// required, except for a DXP engine given by `addr` that is already running).
    pub fn parse(text: &str) -> Result<EngineSpec, String> {
        let mut command = None;
        let mut name = None;
        let mut proto = Proto::Uci;
        let mut options = Vec::new();
        let mut limit = None;
        let mut dir = None;
        let mut addr = None;
        let mut dxp_moves = 0;
        for item in text.split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let Some((key, value)) = item.split_once('=') else {
                return Err(format!(
                    "'{item}' is not KEY=VALUE (keys: cmd, name, proto, option.NAME, depth, \
                     movetime, nodes, tc, dir, addr, dxp-moves)"
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            let mut set_limit = |new: Limit| -> Result<(), String> {
                if limit.replace(new).is_some() {
                    return Err("give at most one of depth=, movetime=, nodes=, tc=".into());
                }
                Ok(())
            };
            match key {
                "cmd" => {
                    let words: Vec<String> = value.split_whitespace().map(String::from).collect();
                    if words.is_empty() {
                        return Err("cmd= is empty".into());
                    }
                    command = Some(words);
                }
                "name" if !value.is_empty() => name = Some(value.to_string()),
                "proto" => {
                    proto = match value.to_ascii_lowercase().as_str() {
                        "uci" => Proto::Uci,
                        "hub" => Proto::Hub,
                        "hub1" => Proto::Hub1,
                        "dxp" => Proto::Dxp,
                        "cb" => Proto::Cb,
                        other => {
                            return Err(format!(
                                "proto={other}: expected uci, hub, hub1, dxp or cb"
                            ));
                        }
                    }
                }
                "depth" => match number::<u32>(key, value)? {
                    0 => return Err("depth=0: at least 1".into()),
                    d => set_limit(Limit::Depth(d))?,
                },
                "nodes" => match number::<u64>(key, value)? {
                    0 => return Err("nodes=0: at least 1".into()),
                    n => set_limit(Limit::Nodes(n))?,
                },
                "movetime" => match number::<u64>(key, value)? {
                    0 => return Err("movetime=0: at least 1".into()),
                    ms => set_limit(Limit::MoveTime(Duration::from_millis(ms)))?,
                },
                "tc" => set_limit(parse_tc(value)?)?,
                "dir" if !value.is_empty() => dir = Some(value.to_string()),
                "addr" if !value.is_empty() => addr = Some(value.to_string()),
                "dxp-moves" => match number::<u32>(key, value)? {
                    n if n > 999 => return Err("dxp-moves: at most 999 (three digits)".into()),
                    n => dxp_moves = n,
                },
                _ => match key.strip_prefix("option.") {
                    Some(option) if !option.is_empty() => {
                        options.push((option.to_string(), value.to_string()))
                    }
                    _ => {
                        return Err(format!(
                            "unknown key '{key}' (keys: cmd, name, proto, option.NAME, depth, \
                             movetime, nodes, tc, dir, addr, dxp-moves)"
                        ));
                    }
                },
            }
        }
        if proto != Proto::Dxp && (addr.is_some() || dxp_moves != 0) {
            return Err("addr= and dxp-moves= are for proto=dxp".into());
        }
        if proto == Proto::Dxp && !options.is_empty() {
            return Err(
                "a DXP engine has no options to set (DXP carries none): set them on its own \
                 command line"
                    .into(),
            );
        }
        if proto == Proto::Cb && command.as_ref().is_some_and(|words| words.len() > 1) {
            return Err(
                "cmd= of a CheckerBoard engine (proto=cb) is its library file alone, without \
                 arguments"
                    .into(),
            );
        }
        let mut words = match command {
            Some(words) => words,
            None if proto == Proto::Dxp && addr.is_some() => Vec::new(),
            None => return Err("no cmd= (e.g. cmd=target/release/damka)".into()),
        };
        let program = if words.is_empty() {
            String::new()
        } else {
            words.remove(0)
        };
        let name = name.unwrap_or_else(|| {
            if program.is_empty() {
                return addr.clone().unwrap_or_default();
            }
            std::path::Path::new(&program)
                .file_name()
                .map_or(program.clone(), |n| n.to_string_lossy().into_owned())
        });
        Ok(EngineSpec {
            name,
            program,
            args: words,
            proto,
            options,
            limit,
            dir,
            addr,
            dxp_moves,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_every_key() {
        let spec = EngineSpec::parse(
            "cmd=/usr/bin/dame hub,proto=hub,name=dame,option.hash=64,movetime=100",
        )
        .unwrap();
        assert_eq!(spec.program, "/usr/bin/dame");
        assert_eq!(spec.args, vec!["hub"]);
        assert_eq!(spec.proto, Proto::Hub);
        assert_eq!(spec.options, vec![("hash".to_string(), "64".to_string())]);
        assert_eq!(
            spec.limit,
            Some(Limit::MoveTime(Duration::from_millis(100)))
        );
        let plain = EngineSpec::parse("cmd=target/release/damka,depth=2").unwrap();
        assert_eq!(plain.name, "damka");
        assert_eq!(plain.proto, Proto::Uci);
        assert!(EngineSpec::parse("name=x").is_err());
        assert!(EngineSpec::parse("cmd=x,bogus=1").is_err());
        assert!(EngineSpec::parse("cmd=x,depth=2,nodes=5").is_err());
        assert!(EngineSpec::parse("cmd=x,proto=chess").is_err());
        let dxp = EngineSpec::parse("proto=dxp,addr=127.0.0.1:27531,tc=60,dxp-moves=200").unwrap();
        assert_eq!(dxp.proto, Proto::Dxp);
        assert_eq!(dxp.program, "");
        assert_eq!(dxp.name, "127.0.0.1:27531");
        assert_eq!(dxp.dxp_moves, 200);
        let scan = EngineSpec::parse("cmd=./scan dxp,proto=dxp,dir=/opt/scan,name=scan").unwrap();
        assert_eq!(
            (scan.dir.as_deref(), scan.addr.as_deref()),
            (Some("/opt/scan"), None)
        );
        assert!(EngineSpec::parse("proto=dxp").is_err());
        assert!(EngineSpec::parse("cmd=x,addr=1.2.3.4:5").is_err());
        assert!(EngineSpec::parse("cmd=x,proto=dxp,option.hash=1").is_err());
        let cb = EngineSpec::parse("cmd=/opt/cb/libcake.so,proto=cb,option.book=0").unwrap();
        assert_eq!((cb.proto, cb.name.as_str()), (Proto::Cb, "libcake.so"));
        assert_eq!(cb.options, vec![("book".to_string(), "0".to_string())]);
        assert!(EngineSpec::parse("cmd=/opt/cb/libcake.so x,proto=cb").is_err());
    }
}
