//! The `damka` binary: the command-line programs over the `damka` library; hands the command line to [`cli::run`].
//!
//! The programs (the command line, `bench`, `towers` and the tools) are private modules of
//! the binary, not library API: the library is what an embedding program needs.

mod bench;
mod build_info;
mod cb_engine;
mod cli;
mod dxp_args;
mod tools;
mod towers;
mod variant_arg;

/// The exit status of a program whose standard output was closed under it (as a shell
/// reports a process ended by SIGPIPE: 128 + 13).
const BROKEN_PIPE_STATUS: i32 = 141;

fn main() {
    quiet_on_closed_stdout();
    std::process::exit(cli::run(std::env::args_os()));
}

/// `damka book probe ... | head` closes the pipe before the tool is done: `println!` then
/// panics. Rust ignores SIGPIPE, so without this hook the user sees a panic message for
/// what is an ordinary end; with it the process ends quietly, as C tools do. Every other
/// panic is reported by the default hook as before.
fn quiet_on_closed_stdout() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(BROKEN_PIPE_STATUS);
        }
        default_hook(info);
    }));
}
