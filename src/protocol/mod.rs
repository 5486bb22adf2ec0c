//! Text front ends: they read commands, call the [`Engine`](crate::engine::Engine) facade and
//! print its events. They are the only code that writes to stdout.
//!
//! - [`uci`]: the UCI-style dialect, spoken by `damka` with no subcommand (specified in
//!   `docs/protocol.md`).
//! - [`hub`]: the Hub protocol, spoken by `damka hub` (specified in `docs/hub.md`).
//! - [`dxp`]: DamExchange over TCP, spoken by `damka dxp` (specified in `docs/dxp.md`); it
//!   writes to a socket, and to stdout only a line per game.

pub mod driver;
pub mod dxp;
pub mod hub;
mod pipe;
pub mod uci;
