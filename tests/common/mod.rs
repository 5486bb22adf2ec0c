//! Helpers shared by the integration tests; each test file takes what it needs with `mod common;`.

// Every test binary compiles this module whole but uses only part of it, so the unused parts
// would warn in each binary.
#![allow(dead_code)]

pub mod retro;
