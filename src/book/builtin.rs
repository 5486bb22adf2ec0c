//! The opening books built into the binary (English and international), parsed on first use.
//!
//! Both were grown by `damka book build`; the commands, their CPU time and the books' sizes
//! are in docs/book.md, so a user can rebuild or grow them.

use super::Book;
use crate::rules::Variant;
use std::sync::{Arc, LazyLock};

/// The built-in English book file (docs/book.md).
pub const ENGLISH_FILE: &[u8] = include_bytes!("data/english.dbk");
/// The built-in international book file (docs/book.md).
pub const INTERNATIONAL_FILE: &[u8] = include_bytes!("data/international.dbk");

static ENGLISH: LazyLock<Arc<Book>> = LazyLock::new(|| parse(ENGLISH_FILE, "English"));
static INTERNATIONAL: LazyLock<Arc<Book>> =
    LazyLock::new(|| parse(INTERNATIONAL_FILE, "international"));

fn parse(bytes: &[u8], name: &str) -> Arc<Book> {
    match Book::from_bytes(bytes) {
        Ok(book) => Arc::new(book),
        Err(error) => panic!("the built-in {name} book is invalid: {error}"),
    }
}

/// The file of the book built into damka for `variant`, if it has one.
pub fn builtin_file(variant: Variant) -> Option<&'static [u8]> {
    match variant {
        Variant::English => Some(ENGLISH_FILE),
        Variant::International => Some(INTERNATIONAL_FILE),
        _ => None,
    }
}

/// The book built into damka for `variant`, if it has one. Parsed (and checked) the first
/// time it is asked for, then shared.
pub fn builtin_book(variant: Variant) -> Option<Arc<Book>> {
    match variant {
        Variant::English => Some(Arc::clone(&ENGLISH)),
        Variant::International => Some(Arc::clone(&INTERNATIONAL)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_builtin_book_is_valid_and_of_its_variant() {
        for variant in [Variant::English, Variant::International] {
            let book = builtin_book(variant).expect("a built-in book");
            assert_eq!(book.variant(), variant);
            assert!(!book.is_empty());
        }
        assert!(builtin_book(Variant::Russian).is_none());
        assert!(builtin_book(Variant::Antidraughts).is_none());
    }
}
