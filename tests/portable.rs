//! The portable x86-64-v2 build (docs/build.md) compiles and runs on this machine: it names itself, counts perft as published and searches as the native build does.

#![cfg(target_arch = "x86_64")]

use crate::common;

use common::repo_root;
use std::process::Command;

/// The command line of docs/build.md's portable build, in the unoptimised `portable-check`
/// profile (the test checks the instruction set, not the speed, and such a build compiles
/// in a fraction of the time).
fn build_portable(level: &str) -> std::path::PathBuf {
    let target_dir = repo_root().join("target").join(level);
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--profile",
            "portable-check",
            "--bin",
            "damka",
            "--target-dir",
        ])
        .arg(&target_dir)
        .env("RUSTFLAGS", format!("-C target-cpu={level}"))
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .current_dir(repo_root())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the {level} build failed");
    target_dir.join("portable-check").join("damka")
}

fn stdout_of(program: &std::path::Path, args: &[&str]) -> String {
    let output = common::succeeded(
        Command::new(program).args(args).env_remove("RUST_LOG"),
        &format!("{} {args:?}", program.display()),
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The published count of the international start position at `depth` (tests/data/perft.json).
fn published_international(depth: usize) -> u64 {
    let text = std::fs::read_to_string(repo_root().join("tests/data/perft.json")).unwrap();
    let table: serde_json::Value = serde_json::from_str(&text).unwrap();
    table["start_positions"]["international_10x10"]["drop_dup"][depth - 1]
        .as_u64()
        .unwrap()
}

#[test]
fn the_x86_64_v2_build_runs_here() {
    let portable = build_portable("x86-64-v2");
    let version = stdout_of(&portable, &["--version"]);
    assert!(
        version.starts_with(&format!(
            "damka {} x86-64-v2 build (target-cpu=x86-64-v2); POPCNT used; BMI2 not used",
            env!("CARGO_PKG_VERSION")
        )),
        "{version}"
    );
    let native_version = stdout_of(std::path::Path::new(env!("CARGO_BIN_EXE_damka")), &["-V"]);
    assert!(native_version.contains("POPCNT used"), "{native_version}");

    let perft = stdout_of(&portable, &["perft", "--variant", "international", "5"]);
    let expected = published_international(5);
    assert!(
        perft.contains(&format!("perft 5: {expected} leaves")),
        "{perft}"
    );
    // The same search, node for node, as the native build: `bench`'s signature.
    let signature = |text: &str| {
        text.lines()
            .last()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let bench = stdout_of(&portable, &["bench", "5"]);
    let native = stdout_of(
        std::path::Path::new(env!("CARGO_BIN_EXE_damka")),
        &["bench", "5"],
    );
    assert_eq!(signature(&bench), signature(&native), "{bench}\n{native}");
}
