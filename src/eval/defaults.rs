//! The built-in block tables of each variant, read once from the weights files compiled into the binary.
//!
//! No variant has built-in tables yet: a trained file goes in with the self-play test that
//! shows it plays better (docs/bench.md, "Pattern evaluation").

use super::patterns::Patterns;
use crate::rules::Variant;

/// The built-in block tables of `variant`, or `None` where it has none.
#[inline(always)]
pub fn for_variant(variant: Variant) -> Option<&'static Patterns> {
    let _ = variant;
    None
}
