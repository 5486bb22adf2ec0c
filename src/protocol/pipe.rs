//! Tells how many bytes written to our stdout pipe the client has not read yet.
//!
//! py-draughts waits for a line with `select()` and then reads it with a buffered
//! `readline()`: when two lines sit in the pipe at the moment it reads, the second one goes
//! into Python's buffer, `select()` no longer sees it, and the client waits for ever for a
//! line it already holds. A time gap between lines only makes that unlikely (a client starved
//! of CPU for longer than the gap still gets both lines in one read); waiting until the pipe is
//! empty before the last line of a burst makes it impossible. Linux and the BSDs answer
//! `FIONREAD` on either end of a pipe with the bytes still unread.

use std::time::{Duration, Instant};

/// How often the pipe is looked at while waiting for the client to read it.
const POLL: Duration = Duration::from_micros(500);

/// stdout, when it is a pipe whose unread bytes the system can count.
pub struct PipeProbe {
    #[cfg(unix)]
    pipe: std::os::fd::OwnedFd,
}

impl PipeProbe {
    /// A probe of this process's stdout, or `None` when stdout is not a pipe (a terminal, a
    /// file) or the system cannot count its unread bytes.
    pub fn stdout() -> Option<PipeProbe> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            use std::os::unix::fs::FileTypeExt;
            let pipe = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
            let file = std::fs::File::from(pipe);
            if !file.metadata().ok()?.file_type().is_fifo() {
                return None;
            }
            let probe = PipeProbe { pipe: file.into() };
            probe.unread().map(|_| probe)
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    /// The bytes in the pipe that the client has not read, if the system can tell.
    pub fn unread(&self) -> Option<u64> {
        #[cfg(unix)]
        {
            rustix::io::ioctl_fionread(&self.pipe).ok()
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    /// Waits until the client has read everything written so far, or until `limit` has
    /// passed (a client that does not read must not stall the engine for long); false when
    /// the limit passed with bytes still unread.
    pub fn wait_until_read(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            match self.unread() {
                Some(0) | None => return true,
                Some(_) if Instant::now() >= deadline => return false,
                Some(_) => std::thread::sleep(POLL),
            }
        }
    }
}
