//! The integration tests, one crate: each file of `tests/` is a module of this test binary, run with `cargo test --profile ci --test integration [FILTER]`.
//!
//! One crate, not one per file: the helpers of `tests/common/` and the library code the tests
//! instantiate are compiled and linked once instead of two dozen times (docs/bench.md, "The
//! test suite's time"). A test's name is its file's name and its own: `uci::ponder_then_stop`
//! (`cargo test --profile ci --test integration uci::` runs one file's tests).
//!
//! The tests of all files run in parallel in one process: what one file's tests shared by
//! running alone (a lock that keeps timed tests apart) is process-wide here
//! ([`common::serial`]), and every file writes its scratch files under a folder of its own.

mod common;

mod analyze;
mod book;
mod checkerboard;
mod crosscheck;
mod crosscheck_variants;
mod driver;
mod dxp;
mod egtb;
mod frisian;
mod hub;
mod matches;
mod notation;
mod perft;
mod play;
mod portable;
mod properties;
mod protocol_fuzz;
mod retro;
mod search;
mod show;
mod towers;
mod tune;
mod turkish;
mod uci;

/// Cargo does not look for test crates in `tests/` (`autotests = false`, so that the files
/// here are modules and not crates of their own): a file that is not a module above would
/// never be compiled. This test fails for such a file.
#[test]
fn every_file_of_tests_is_a_module() {
    let root = common::repo_root().join("tests");
    let this = std::fs::read_to_string(root.join("integration.rs")).expect("read integration.rs");
    let entries = std::fs::read_dir(&root).expect("read tests/");
    for entry in entries {
        let name = entry.expect("a file of tests/").file_name();
        let name = name.to_string_lossy();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        assert!(
            module == "integration" || this.contains(&format!("\nmod {module};\n")),
            "tests/{name} is no module of tests/integration.rs"
        );
    }
}
