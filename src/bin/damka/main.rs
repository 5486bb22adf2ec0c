//! The `damka` binary: the command-line programs over the `damka` library; hands the command line to [`cli::run`].
//!
//! The programs (the command line, `bench`, `towers` and the tools) are private modules of
//! the binary, not library API: the library is what an embedding program needs.

mod bench;
mod cb_engine;
mod cli;
mod tools;
mod towers;

fn main() {
    std::process::exit(cli::run(std::env::args_os()));
}
