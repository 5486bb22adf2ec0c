//! Build script: records the `-C target-cpu` the crate is compiled for, which `damka --version` reports.

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    // Cargo hands the build's rustflags (from RUSTFLAGS or .cargo/config.toml) to build
    // scripts, separated by 0x1f. rustc's last `target-cpu` wins, so the last one is kept.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let words: Vec<&str> = flags.split('\x1f').collect();
    let mut cpu = None;
    for (index, word) in words.iter().enumerate() {
        let codegen = match word.strip_prefix("-C") {
            Some("") => words.get(index + 1).copied().unwrap_or(""),
            Some(joined) => joined,
            None => continue,
        };
        if let Some(name) = codegen.strip_prefix("target-cpu=") {
            cpu = Some(name.to_string());
        }
    }
    // Without a flag rustc compiles for the target's baseline (x86-64 for x86_64).
    let cpu = cpu.unwrap_or_else(|| "default".to_string());
    println!("cargo:rustc-env=DAMKA_TARGET_CPU={cpu}");
}
