//! What `damka --version` says about the build: the instruction set it was compiled for and whether POPCNT and BMI2 are used here.
//!
//! A native build (`.cargo/config.toml`) uses every instruction of the machine it was built
//! on, and may not run on an older one; a portable build (docs/build.md) targets an x86-64
//! micro-architecture level instead.

/// `damka 0.1.0 x86-64-v3 build (target-cpu=native); POPCNT used; BMI2 used`.
pub fn version_line() -> String {
    format!(
        "{} {} build (target-cpu={}); {}; {}",
        env!("CARGO_PKG_VERSION"),
        level(),
        env!("DAMKA_TARGET_CPU"),
        usage(Instruction::Popcnt),
        usage(Instruction::Bmi2),
    )
}

/// The x86-64 micro-architecture level whose instructions the build may use, from the
/// target features it was compiled with (levels as the x86-64 psABI defines them).
fn level() -> &'static str {
    if !cfg!(target_arch = "x86_64") {
        return std::env::consts::ARCH;
    }
    // Whether the build was compiled with every one of these target features.
    macro_rules! compiled_with {
        ($($feature:tt),+) => { cfg!(all($(target_feature = $feature),+)) };
    }
    let v2 = compiled_with!("popcnt", "sse4.2", "ssse3");
    let v3 = v2 && compiled_with!("avx2", "bmi2", "fma", "movbe");
    let v4 = v3 && compiled_with!("avx512f", "avx512bw", "avx512vl");
    match (v2, v3, v4) {
        (_, _, true) => "x86-64-v4",
        (_, true, _) => "x86-64-v3",
        (true, _, _) => "x86-64-v2",
        _ => "x86-64",
    }
}

/// An instruction-set extension whose use `--version` reports.
#[derive(Clone, Copy)]
enum Instruction {
    /// POPCNT: the bit counts of the bitboards.
    Popcnt,
    /// BMI2 (PEXT/PDEP and friends).
    Bmi2,
}

impl Instruction {
    /// Its name as processor manuals write it.
    fn name(self) -> &'static str {
        match self {
            Instruction::Popcnt => "POPCNT",
            Instruction::Bmi2 => "BMI2",
        }
    }

    /// Whether the build was compiled to use it.
    fn compiled(self) -> bool {
        match self {
            Instruction::Popcnt => cfg!(target_feature = "popcnt"),
            Instruction::Bmi2 => cfg!(target_feature = "bmi2"),
        }
    }

    /// Whether this processor has it (`None` off x86-64).
    fn on_this_processor(self) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        {
            Some(match self {
                Instruction::Popcnt => std::arch::is_x86_feature_detected!("popcnt"),
                Instruction::Bmi2 => std::arch::is_x86_feature_detected!("bmi2"),
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            None
        }
    }
}

/// `POPCNT used`, or why not. A build compiled with the instructions only starts on a
/// processor that has them, so "compiled in" means used.
fn usage(instruction: Instruction) -> String {
    let name = instruction.name();
    match (instruction.compiled(), instruction.on_this_processor()) {
        (true, _) => format!("{name} used"),
        (false, Some(true)) => {
            format!("{name} not used (this processor has it: a native build would use it)")
        }
        (false, Some(false)) => format!("{name} not used (this processor lacks it)"),
        (false, None) => format!("{name} not used"),
    }
}
