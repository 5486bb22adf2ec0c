//! Input read on a thread of its own into a channel, so that a loop can wait for input, engine events and a deadline at once.
//!
//! The text protocols' stdin ([`super::driver`]), DXP's NUL-ended messages
//! ([`super::dxp::wire`]), the match tool's engines and the tests' child processes are all
//! read this way: a thread that does nothing but read, and a channel that closes when the
//! input ends, so that nothing the reading side does ever stops the reading.

use crossbeam_channel::{Receiver, unbounded};
use std::io::BufRead;

/// Starts a thread named `name` that sends each item `next` reads into the returned channel.
/// The thread ends, and the channel closes, when `next` returns `None` (the end of the input,
/// a read error) or when the receiver has been dropped.
pub fn spawn_reader<T, F>(name: &str, mut next: F) -> Receiver<T>
where
    T: Send + 'static,
    F: FnMut() -> Option<T> + Send + 'static,
{
    let (sender, receiver) = unbounded();
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            while let Some(item) = next() {
                if sender.send(item).is_err() {
                    break;
                }
            }
        })
        .expect("the system can start the reader thread");
    receiver
}

/// Reads `input` line by line on a thread named `name` and sends `convert(line)` for each
/// into the returned channel: the line as read, bytes that may not be UTF-8, with its `\n`
/// (the last line of the input may have none). The channel closes at the end of the input,
/// on a read error, or when `convert` returns `None` (the line is not sent then).
pub fn spawn_line_reader<I, T, F>(name: &str, mut input: I, mut convert: F) -> Receiver<T>
where
    I: BufRead + Send + 'static,
    T: Send + 'static,
    F: FnMut(Vec<u8>) -> Option<T> + Send + 'static,
{
    spawn_reader(name, move || {
        let mut line = Vec::new();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => convert(line),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_newline_and_the_last_may_have_none() {
        let input = std::io::Cursor::new(b"uci\n\nisready\r\nquit".to_vec());
        let lines: Vec<Vec<u8>> = spawn_line_reader("test-reader", input, Some)
            .iter()
            .collect();
        let expected: [&[u8]; 4] = [b"uci\n", b"\n", b"isready\r\n", b"quit"];
        assert_eq!(lines, expected);
    }

    #[test]
    fn a_refused_line_ends_the_reading() {
        let input = std::io::Cursor::new(b"one\ntwo\nthree\n".to_vec());
        let lines: Vec<String> = spawn_line_reader("test-reader", input, |line| {
            let text = String::from_utf8(line).ok()?;
            (text != "two\n").then_some(text)
        })
        .iter()
        .collect();
        assert_eq!(lines, ["one\n"]);
    }
}
