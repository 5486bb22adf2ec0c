//! Build script: records the `-C target-cpu` the crate is compiled for, which `damka --version` reports, and turns the linear weights of each built-in weights file into Rust literals.

use std::fmt::Write as _;
use std::path::Path;

/// The built-in weights files (`src/eval/data/`) whose linear weights become constants, by the
/// name of the `built_in_weights!` arm that yields them.
const WEIGHTS_FILES: [(&str, &str); 8] = [
    ("international", "international.dkw"),
    ("english", "english.dkw"),
    ("russian", "russian.dkw"),
    ("italian", "italian.dkw"),
    ("spanish", "spanish.dkw"),
    ("czech", "czech.dkw"),
    ("frisian", "frisian.dkw"),
    ("frysk", "frysk.dkw"),
];

/// The fields of `Weights` that are arrays (every other field is one number).
const ARRAY_FIELDS: [&str; 5] = [
    "advance_opening",
    "advance_endgame",
    "runaway",
    "column",
    "column_endgame",
];

fn main() {
    record_target_cpu();
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let mut source = String::from(
        "/// The linear weights of a built-in weights file as a `Weights` literal (written by\n\
         /// build.rs from the file's text, so the compiler can fold them).\n\
         macro_rules! built_in_weights {\n",
    );
    for (name, file) in WEIGHTS_FILES {
        let path = Path::new("src/eval/data").join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let bytes = std::fs::read(&path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
        let literal =
            weights_literal(&bytes).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        writeln!(source, "    ({name}) => {{ {literal} }};").expect("writing to a String");
    }
    source.push_str("}\n");
    let target = Path::new(&out).join("built_in_weights.rs");
    std::fs::write(&target, source)
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", target.display()));
}

/// `Weights { field: value, ... }` from the text of a weights file: the text that follows its
/// 20-byte header (`DAMKAEVL`, version, family, tables, then the text's length as a
/// little-endian u32; the layout in src/eval/patterns.rs), one `name values...` line a field,
/// `#` comments.
fn weights_literal(bytes: &[u8]) -> Result<String, String> {
    const HEADER: usize = 20;
    if !bytes.starts_with(b"DAMKAEVL") || bytes.len() < HEADER {
        return Err("not a damka weights file".to_string());
    }
    let length = u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]) as usize;
    let text = bytes
        .get(HEADER..HEADER + length)
        .ok_or("the text runs past the end of the file")?;
    let text = std::str::from_utf8(text).map_err(|error| format!("the text: {error}"))?;
    let mut literal = String::from("Weights {");
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        let mut words = line.split_whitespace();
        let Some(field) = words.next() else {
            continue;
        };
        let values: Vec<i64> = words
            .map(|word| {
                word.parse()
                    .map_err(|_| format!("{field}: '{word}' is not a number"))
            })
            .collect::<Result<_, _>>()?;
        let value = match values.as_slice() {
            [one] if !ARRAY_FIELDS.contains(&field) => one.to_string(),
            [] => return Err(format!("{field} has no value")),
            many => format!("{many:?}"),
        };
        write!(literal, " {field}: {value},").expect("writing to a String");
    }
    literal.push_str(" }");
    Ok(literal)
}

/// Sets `DAMKA_TARGET_CPU` to the `-C target-cpu` of the build.
fn record_target_cpu() {
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
