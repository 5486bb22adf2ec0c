//! Commands for people rather than GUIs: playing at the terminal, test-position suites and diagrams.

pub mod analyze;
pub mod book;
pub mod egtb;
pub mod egtb_convert;
pub mod limit;
pub mod matches;
pub mod play;
pub mod sha256;
pub mod show;
pub mod svg;
pub mod training_data;
pub mod tune;
pub mod tune_fit;
pub mod tune_patterns;
