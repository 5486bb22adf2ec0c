//! The command line's `--variant` argument: the names clap lists and accepts, from the library's one list of variants.

use damka::rules::Variant;

/// The parser of every `--variant`: its help lists the variants by name (other names, such as
/// Hub's `normal`, are accepted and not listed), from the one list in the library.
pub fn variant_parser() -> impl clap::builder::TypedValueParser<Value = Variant> {
    use clap::builder::TypedValueParser;
    let names = Variant::ALL.map(|variant| {
        clap::builder::PossibleValue::new(variant.name()).aliases(variant.aliases())
    });
    clap::builder::PossibleValuesParser::new(names).try_map(|name| name.parse::<Variant>())
}
