//! The crate's two declarative macros: `message_error!` (an error type that is one message) and `generic_tests!` (one test function per check list, for tests repeated over rule sets).

/// Declares an error type that is one message: a tuple struct around the `String`, which
/// `Display` writes as it is (the doc comment given goes on the struct).
macro_rules! message_error {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name(pub String);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::error::Error for $name {}
    };
}

/// `#[test]` functions of one line each, for the unit tests of the library and the binary
/// that run generic checks on several rules or boards: `name: check::<Type>(), ...;` is a
/// test `name` that runs the checks in turn (doc comments go before the name).
#[doc(hidden)]
#[macro_export]
macro_rules! generic_tests {
    ($($(#[$doc:meta])* $name:ident: $($check:expr),+;)*) => {$(
        $(#[$doc])*
        #[test]
        fn $name() {
            $($check;)+
        }
    )*};
}
