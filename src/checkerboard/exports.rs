//! The C functions of damka's CheckerBoard engine library (`getmove`, `enginecommand`, `islegal`): each checks its pointers, catches every panic and calls the one [`CbEngine`] under a lock.
//!
//! The library keeps one engine for the process, as every CheckerBoard engine does (the API
//! has no handle). `getmove` holds the lock for its whole search; an `enginecommand` that
//! comes meanwhile (CheckerBoard's GUI thread may ask) gets its answer at once when it needs
//! no state (`name`, `help`, `get protocolversion`) and `busy` otherwise, rather than freezing
//! the GUI. A panic never crosses into C: the call returns `CB_UNKNOWN` (or 0) with an
//! `error:` text, and the engine is made anew on the next call.
//!
//! The calling convention is `extern "system"`: `__stdcall` on 32-bit Windows, as
//! CheckerBoard declares it (`WINAPI`), and the platform's C convention everywhere else
//! (x86-64 Windows has one convention; Linux and macOS use C).

use super::engine::{CbEngine, Request, static_reply};
use super::{Board8x8, CB_UNKNOWN, CbMove, REPLY_SIZE, STATUS_SIZE};
use std::ffi::{CStr, c_char, c_double, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

/// The process's engine, made at the first call.
static ENGINE: Mutex<Option<CbEngine>> = Mutex::new(None);

/// The engine, locked; made at the first call (logging to stderr starts then, off unless
/// `RUST_LOG` asks). After a panic the engine may be half-changed: it is dropped and made
/// anew.
fn engine() -> MutexGuard<'static, Option<CbEngine>> {
    let guard = ENGINE.lock().unwrap_or_else(|poisoned| {
        let mut guard = poisoned.into_inner();
        *guard = None;
        ENGINE.clear_poison();
        guard
    });
    started(guard)
}

/// [`engine`], or `None` while another call (a search) holds it.
fn engine_if_free() -> Option<MutexGuard<'static, Option<CbEngine>>> {
    match ENGINE.try_lock() {
        Ok(guard) => Some(started(guard)),
        Err(TryLockError::Poisoned(_)) => Some(engine()),
        Err(TryLockError::WouldBlock) => None,
    }
}

fn started(
    mut guard: MutexGuard<'static, Option<CbEngine>>,
) -> MutexGuard<'static, Option<CbEngine>> {
    if guard.is_none() {
        let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
            .target(env_logger::Target::Stderr)
            .try_init();
        *guard = Some(CbEngine::new());
    }
    guard
}

/// Writes `text` as a C string into a caller's buffer of `size` bytes (cut to fit, at a
/// character boundary); nothing when the buffer is NULL.
///
/// # Safety
/// `buffer` is NULL or valid for writes of `size` bytes.
unsafe fn write_c_string(buffer: *mut c_char, size: usize, text: &str) {
    if buffer.is_null() || size == 0 {
        return;
    }
    let mut length = text.len().min(size - 1);
    while !text.is_char_boundary(length) {
        length -= 1;
    }
    // SAFETY: the caller guarantees `size` writable bytes; `length + 1 <= size`, and a Rust
    // string never overlaps a buffer the host owns.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buffer.cast::<u8>(), length);
        *buffer.add(length) = 0;
    }
}

/// CheckerBoard's `getmove`: plays a move for `color` on `board` (changed in place), within
/// `maxtime` seconds or the clock of `info`'s incremental bits, stopping as soon as
/// `*playnow` becomes nonzero; writes the status line into `status` during the search and the
/// move into `*cbmove`. Returns `CB_WIN`, `CB_LOSS` or `CB_DRAW` when the game is decided for
/// the side that moved, `CB_UNKNOWN` otherwise and on a bad board or colour (with `error:
/// ...` in `status` and the board unchanged).
///
/// # Safety
/// As CheckerBoard calls it: `board` points to 64 `int`s (`int board[8][8]`), `status` to
/// 1024 bytes, `playnow` to an `int` that stays valid during the call, `cbmove` to a `struct
/// CBmove`; `status`, `playnow` and `cbmove` may be NULL (then unused). No other call may use
/// these buffers during the call, except that the host may set `*playnow`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn getmove(
    board: *mut [c_int; 8],
    color: c_int,
    maxtime: c_double,
    status: *mut c_char,
    playnow: *mut c_int,
    info: c_int,
    moreinfo: c_int,
    cbmove: *mut CbMove,
) -> c_int {
    // SAFETY (each write below): `status` is NULL or 1024 bytes, as the caller guarantees.
    let say = |text: &str| unsafe { write_c_string(status, STATUS_SIZE, text) };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if board.is_null() {
            say("error: getmove got no board (NULL)");
            return CB_UNKNOWN;
        }
        // SAFETY: `board` is the caller's `int board[8][8]`, 64 aligned ints that nothing else
        // touches during the call; `[[i32; 8]; 8]` has that layout (`c_int` is `i32`).
        let board = unsafe { &mut *board.cast::<Board8x8>() };
        // SAFETY: `playnow` is NULL or an aligned `int` valid for the whole call. The host sets
        // it from another thread with a plain store (CheckerBoard's Play! button); reading it
        // as an atomic is the only sound way on our side, and an aligned int store is
        // single-copy atomic on every platform CheckerBoard runs on.
        let flag: Option<&AtomicI32> =
            (!playnow.is_null()).then(|| unsafe { AtomicI32::from_ptr(playnow) });
        let play_now = || flag.is_some_and(|flag| flag.load(Ordering::Relaxed) != 0);
        let mut guard = engine();
        let engine = guard.as_mut().expect("started");
        match engine.get_move(
            board,
            Request {
                color,
                maxtime,
                info,
                moreinfo,
            },
            &play_now,
            &mut |line| say(line),
        ) {
            Ok(answer) => {
                if let Some(mv) = answer.cbmove
                    && !cbmove.is_null()
                {
                    // SAFETY: `cbmove` is the caller's `struct CBmove`, which `CbMove` mirrors
                    // (repr(C), 268 bytes).
                    unsafe { cbmove.write(mv) };
                }
                answer.result
            }
            Err(error) => {
                say(&format!("error: {error}"));
                CB_UNKNOWN
            }
        }
    }));
    outcome.unwrap_or_else(|_| {
        say("error: damka failed inside getmove (a panic; see stderr)");
        CB_UNKNOWN
    })
}

/// CheckerBoard's `enginecommand`: carries out `command` (`name`, `about`, `help`, `get X`,
/// `set X V`, `staticevaluation FEN`; docs/checkerboard.md) and writes the reply into `reply`.
/// Returns 1 when the command was understood and done, 0 otherwise (the reply is then `?`
/// for an unknown command, `error: ...` for a bad value, `busy ...` during a search).
///
/// # Safety
/// `command` is NULL or a NUL-terminated string; `reply` is NULL or 1024 writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn enginecommand(command: *const c_char, reply: *mut c_char) -> c_int {
    // SAFETY (each write below): `reply` is NULL or 1024 bytes, as the caller guarantees.
    let answer = |text: &str| unsafe { write_c_string(reply, REPLY_SIZE, text) };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if command.is_null() {
            return (false, "?".to_string());
        }
        // SAFETY: the caller gives a NUL-terminated string (CheckerBoard's commands, and
        // `set gamehist` lines that may be longer than 256 bytes).
        let text = unsafe { CStr::from_ptr(command) }.to_string_lossy();
        if let Some(reply) = static_reply(&text) {
            return reply;
        }
        match engine_if_free() {
            Some(mut guard) => guard.as_mut().expect("started").command(&text),
            None => (false, "busy: damka is searching".to_string()),
        }
    }));
    let (done, text) =
        outcome.unwrap_or_else(|_| (false, "error: damka failed on this command".to_string()));
    answer(&text);
    c_int::from(done)
}

/// CheckerBoard's `islegal` (for game types other than English, when the engine has no
/// `get movelist`): 1 and the move in `*cbmove` when `color` may move from square `from` to
/// square `to` (CheckerBoard's numbers for the game type) on `board`, else 0.
///
/// # Safety
/// `board` is NULL or 64 ints (`int board[8][8]`); `cbmove` is NULL or a `struct CBmove`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn islegal(
    board: *mut [c_int; 8],
    color: c_int,
    from: c_int,
    to: c_int,
    cbmove: *mut CbMove,
) -> c_int {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if board.is_null() {
            return 0;
        }
        // SAFETY: as in `getmove`: the caller's 64 aligned ints, only read here.
        let board = unsafe { &*board.cast::<Board8x8>() };
        let guard = engine();
        match guard
            .as_ref()
            .expect("started")
            .is_legal(board, color, from, to)
        {
            Ok(Some(mv)) => {
                if !cbmove.is_null() {
                    // SAFETY: `cbmove` is the caller's `struct CBmove`.
                    unsafe { cbmove.write(mv) };
                }
                1
            }
            Ok(None) => 0,
            Err(error) => {
                log::warn!("islegal: {error}");
                0
            }
        }
    }));
    outcome.unwrap_or(0)
}
