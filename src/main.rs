//! The `damka` binary: hands the command line to [`damka::cli::run`].

fn main() {
    std::process::exit(damka::cli::run(std::env::args_os()));
}
