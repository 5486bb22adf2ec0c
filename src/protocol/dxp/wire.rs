//! DXP over TCP (the DamExchange SOCKET layer 1): messages ended by a NUL byte, read on a thread of their own.
//!
//! A reader thread splits the byte stream at NUL bytes and sends each message into a channel,
//! which closes when the peer closes the connection (or it breaks), so the game loop can wait
//! for a message, an engine event and a deadline at once. A message longer than the
//! protocol's 127 characters is not kept: its first bytes and its length are reported when
//! its NUL arrives, and reading goes on from the next message.
//!
//! Writing pauses so that two messages never leave within [`MESSAGE_GAP`] of each other:
//! pydraughts' client reads one `recv()` at a time and takes everything it got as one
//! message, so two messages arriving together (a GAMEACC and our first MOVE) would merge.

use super::message::{MAX_LEN, Message};
use crate::protocol::reader;
use crossbeam_channel::Receiver;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The least time between two messages we send (a workaround for pydraughts' reader, not
/// protocol semantics; see docs/dxp.md).
pub const MESSAGE_GAP: Duration = Duration::from_millis(40);

/// What the reader thread got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// One message, without its NUL.
    Message(Vec<u8>),
    /// A message longer than the protocol allows: its first bytes and its whole length.
    Overlong {
        /// The first bytes, for the log.
        start: Vec<u8>,
        /// Its length.
        len: usize,
    },
}

/// Splits `input` into frames on a thread of its own; the channel closes at the end of the
/// input or on a read error (bytes after the last NUL are dropped then, with a log line).
pub fn spawn_reader<I: Read + Send + 'static>(input: I) -> Receiver<Frame> {
    let mut input = BufReader::new(input);
    reader::spawn_reader("dxp-reader", move || next_frame(&mut input))
}

/// The next frame of `input`, or `None` at the end of the input or on a read error.
fn next_frame(input: &mut impl BufRead) -> Option<Frame> {
    let mut current: Vec<u8> = Vec::new();
    let mut len = 0usize;
    loop {
        let available = match input.fill_buf() {
            Ok([]) => break,
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                log::info!("dxp: reading from the peer failed: {e}");
                break;
            }
        };
        let nul = available.iter().position(|&byte| byte == 0);
        let message = &available[..nul.unwrap_or(available.len())];
        // Keep what fits and a little more, to show in the log.
        let room = (MAX_LEN + 1).saturating_sub(current.len());
        current.extend_from_slice(&message[..room.min(message.len())]);
        len += message.len();
        let used = message.len() + usize::from(nul.is_some());
        input.consume(used);
        if nul.is_some() {
            return Some(if len > MAX_LEN {
                current.truncate(40);
                Frame::Overlong {
                    start: current,
                    len,
                }
            } else {
                Frame::Message(current)
            });
        }
    }
    if len > 0 {
        log::info!("dxp: the connection ended inside a message ({len} bytes without a NUL)");
    }
    None
}

/// The sending half of a connection.
pub struct Writer {
    stream: TcpStream,
    last: Option<Instant>,
    closed: bool,
}

impl Writer {
    /// A writer over `stream` (Nagle's delay turned off: every message is sent at once).
    pub fn new(stream: TcpStream) -> Writer {
        let _ = stream.set_nodelay(true);
        Writer {
            stream,
            last: None,
            closed: false,
        }
    }

    /// Sends one message and its NUL; false when the connection is gone (then nothing more is
    /// sent).
    pub fn send(&mut self, message: &Message) -> bool {
        if self.closed {
            return false;
        }
        if let Some(last) = self.last {
            let since = last.elapsed();
            if since < MESSAGE_GAP {
                std::thread::sleep(MESSAGE_GAP - since);
            }
        }
        let mut bytes = message.encode().into_bytes();
        log::debug!("dxp > {}", String::from_utf8_lossy(&bytes));
        bytes.push(0);
        if let Err(e) = self
            .stream
            .write_all(&bytes)
            .and_then(|()| self.stream.flush())
        {
            log::info!("dxp: sending to the peer failed: {e}");
            self.closed = true;
            return false;
        }
        self.last = Some(Instant::now());
        true
    }

    /// True once a send failed.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Closes both directions (the reader thread then ends).
    pub fn shutdown(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        self.closed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_at_nul_and_overlong_messages_are_reported() {
        let mut input = b"E00\0M0012061100\0".to_vec();
        input.extend(std::iter::repeat_n(b'C', 200));
        input.extend(b"\0K1\0trailing");
        let frames: Vec<Frame> = spawn_reader(std::io::Cursor::new(input)).iter().collect();
        assert_eq!(frames.len(), 4);
        assert_eq!(frames[0], Frame::Message(b"E00".to_vec()));
        assert_eq!(frames[1], Frame::Message(b"M0012061100".to_vec()));
        assert!(matches!(&frames[2], Frame::Overlong { len: 200, start } if start.len() == 40));
        assert_eq!(frames[3], Frame::Message(b"K1".to_vec()));
    }
}
