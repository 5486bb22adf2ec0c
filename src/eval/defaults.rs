//! The built-in block tables of each variant, read once from the weights files compiled into the binary.
//!
//! Each file is the output of `damka tune patterns` (docs/tools.md) and carries the other
//! weights too, as text; build.rs turns that text into the constants of `weights.rs`, which
//! lets the compiler fold them.

use super::network::Network;
use super::patterns::Patterns;
use crate::rules::Variant;
use std::sync::LazyLock;

/// The international weights file.
pub const INTERNATIONAL_FILE: &[u8] = include_bytes!("data/international.dkw");

/// The English weights file.
pub const ENGLISH_FILE: &[u8] = include_bytes!("data/english.dkw");

/// The Russian weights file (also Brazilian and Pool).
pub const RUSSIAN_FILE: &[u8] = include_bytes!("data/russian.dkw");

/// The Italian weights file.
pub const ITALIAN_FILE: &[u8] = include_bytes!("data/italian.dkw");

/// The Spanish weights file.
pub const SPANISH_FILE: &[u8] = include_bytes!("data/spanish.dkw");

/// The Czech weights file.
pub const CZECH_FILE: &[u8] = include_bytes!("data/czech.dkw");

/// The Frisian weights file.
pub const FRISIAN_FILE: &[u8] = include_bytes!("data/frisian.dkw");

/// The frysk! weights file.
pub const FRYSK_FILE: &[u8] = include_bytes!("data/frysk.dkw");

/// The English network file ([`super::network`]): English's built-in evaluation, fitted by
/// `scripts/train_net.py` (docs/nets.md). The English weights file above stays for
/// `EvalFile` and for the tuner, which starts from its weights.
pub const ENGLISH_NETWORK_FILE: &[u8] = include_bytes!("data/english.dnet");

static ENGLISH_NETWORK: LazyLock<Network> = LazyLock::new(|| {
    Network::from_bytes(ENGLISH_NETWORK_FILE).expect("the built-in English network file is valid")
});

/// The built-in network of `variant`, or `None` for a variant evaluated by its weights and
/// block tables.
#[inline(always)]
pub fn network_for(variant: Variant) -> Option<&'static Network> {
    (variant == Variant::English).then(|| &*ENGLISH_NETWORK)
}

/// The block tables of each built-in file, read at their first use: `NAME = FILE, board
/// size, name in the panic message`.
macro_rules! built_in_tables {
    ($($tables:ident = $file:ident, $size:literal, $name:literal;)*) => {$(
        static $tables: LazyLock<Patterns> = LazyLock::new(|| {
            Patterns::from_bytes($file, $size)
                .expect(concat!("the built-in ", $name, " weights file is valid"))
        });
    )*};
}

built_in_tables! {
    INTERNATIONAL = INTERNATIONAL_FILE, 10, "international";
    ENGLISH = ENGLISH_FILE, 8, "English";
    RUSSIAN = RUSSIAN_FILE, 8, "Russian";
    ITALIAN = ITALIAN_FILE, 8, "Italian";
    SPANISH = SPANISH_FILE, 8, "Spanish";
    CZECH = CZECH_FILE, 8, "Czech";
    FRISIAN = FRISIAN_FILE, 10, "Frisian";
    FRYSK = FRYSK_FILE, 10, "frysk!";
}

/// The built-in block tables of `variant`, or `None` where it has none.
#[inline(always)]
pub fn for_variant(variant: Variant) -> Option<&'static Patterns> {
    match variant {
        // Breakthrough plays international draughts to the first king: the same formations.
        Variant::International | Variant::Breakthrough => Some(&INTERNATIONAL),
        Variant::English => Some(&ENGLISH),
        // Brazilian and Pool men move and capture as Russian men do; only the choice among
        // captures and the promotion during a capture differ.
        Variant::Russian | Variant::Brazilian | Variant::Pool => Some(&RUSSIAN),
        Variant::Italian => Some(&ITALIAN),
        Variant::Spanish => Some(&SPANISH),
        Variant::Czech => Some(&CZECH),
        Variant::Frisian => Some(&FRISIAN),
        // Frysk! has Frisian rules, but its games (five men a side) have tables of their own:
        // the Frisian ones lost to no tables at all there (docs/journal.md, "Frisian with
        // block tables").
        Variant::Frysk => Some(&FRYSK),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::weights;

    /// Each built-in file loads, and the constants build.rs made of its text are what the
    /// library's own reader of weights text makes of it.
    #[test]
    fn the_built_in_files_load_and_match_the_compiled_weights() {
        let files = [
            (
                Variant::International,
                INTERNATIONAL_FILE,
                10,
                &weights::INTERNATIONAL,
            ),
            (Variant::English, ENGLISH_FILE, 8, &weights::ENGLISH),
            (Variant::Russian, RUSSIAN_FILE, 8, &weights::RUSSIAN),
            (Variant::Italian, ITALIAN_FILE, 8, &weights::ITALIAN),
            (Variant::Spanish, SPANISH_FILE, 8, &weights::SPANISH),
            (Variant::Czech, CZECH_FILE, 8, &weights::CZECH),
            (Variant::Frisian, FRISIAN_FILE, 10, &weights::FRISIAN),
            (Variant::Frysk, FRYSK_FILE, 10, &weights::FRYSK),
        ];
        for (variant, file, family, compiled) in files {
            let patterns = for_variant(variant).expect("the variant has tables");
            assert_eq!(patterns.family, family, "{variant}");
            let from_file = weights::INTERNATIONAL_HAND_SET
                .parse_text(&patterns.text)
                .expect("the file's text names known weights");
            assert_eq!(&from_file, compiled, "{variant}");
            assert!(patterns.weights.iter().any(|pair| pair != &[0, 0]));
            assert!(file.len() < 8 << 20, "embedded files stay under 8 MiB");
        }
    }
}
