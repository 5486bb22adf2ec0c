//! Perft against the published tables in `tests/data/perft.json` (a copy of the shared reference).
//!
//! Start positions to the depths that keep the suite quick; the deeper entries run with
//! `cargo test --profile ci --test integration perft:: -- --ignored`. Turkish and killer draughts are in the
//! file but not implemented yet.

use crate::common;

use common::process::run_damka;
use damka::notation::fen::parse_fen;
use damka::notation::movetext::parse_move;
use damka::perft::{perft, perft_keep_duplicates};
use damka::rules::{
    Antidraughts, Brazilian, Breakthrough, Czech, English, Frisian, International, Italian, Pool,
    Russian, Spanish,
};
use damka::{Position, Rules};
use serde_json::Value;
use std::collections::HashSet;
use std::time::Duration;

/// Leaf counts up to this are checked in the default run (bulk-counted perft).
const QUICK_LEAVES: u64 = 120_000_000;
/// Route-by-route (keep_dup) perft does not bulk-count: a smaller budget.
const QUICK_ROUTES: u64 = 10_000_000;

fn reference() -> Value {
    let text = include_str!("data/perft.json");
    serde_json::from_str(text).expect("tests/data/perft.json is valid JSON")
}

/// The counts of a table; the deepest English entries exceed `u64` and are left out.
fn counts(value: &Value) -> Vec<u64> {
    value
        .as_array()
        .expect("a list of counts")
        .iter()
        .map_while(Value::as_u64)
        .collect()
}

/// Checks `expected[d-1] == perft(d)` for every depth whose count is within `budget`
/// (or every depth when `budget` is `None`).
fn check_table<R: Rules>(
    position: &Position<R>,
    expected: &[u64],
    keep_duplicates: bool,
    budget: Option<u64>,
    label: &str,
) {
    for (index, &want) in expected.iter().enumerate() {
        if budget.is_some_and(|limit| want > limit) {
            break;
        }
        let depth = index as u32 + 1;
        let got = if keep_duplicates {
            perft_keep_duplicates(position, depth)
        } else {
            perft(position, depth)
        };
        assert_eq!(got, want, "{label} perft({depth})");
    }
}

fn start_entry(key: &str) -> Value {
    reference()["start_positions"][key].clone()
}

fn check_start<R: Rules>(key: &str, deep: bool) {
    let entry = start_entry(key);
    let start = Position::<R>::start();
    if let Some(fen) = entry["fen"].as_str() {
        assert_eq!(parse_fen::<R>(fen).expect("reference FEN parses"), start);
    }
    let (leaf_budget, route_budget) = if deep {
        (None, Some(QUICK_ROUTES * 30))
    } else {
        (Some(QUICK_LEAVES), Some(QUICK_ROUTES))
    };
    let drop = counts(&entry["drop_dup"]);
    check_table(
        &start,
        &drop,
        false,
        leaf_budget,
        &format!("{key} drop_dup"),
    );
    if !entry["keep_dup"].is_null() {
        let keep = counts(&entry["keep_dup"]);
        check_table(
            &start,
            &keep,
            true,
            route_budget,
            &format!("{key} keep_dup"),
        );
    }
}

macro_rules! start_position_tests {
    ($($quick:ident, $deep:ident, $rules:ty, $key:literal;)*) => {$(
        #[test]
        fn $quick() {
            check_start::<$rules>($key, false);
        }

        #[test]
        #[ignore = "minutes of perft; run by name with --ignored"]
        fn $deep() {
            check_start::<$rules>($key, true);
        }
    )*};
}

start_position_tests! {
    english_start, english_start_deep, English, "english_checkers_8x8";
    international_start, international_start_deep, International, "international_10x10";
    brazilian_start, brazilian_start_deep, Brazilian, "brazilian_8x8";
    russian_start, russian_start_deep, Russian, "russian_8x8";
    pool_start, pool_start_deep, Pool, "pool_8x8";
    italian_start, italian_start_deep, Italian, "italian_8x8";
    spanish_start, spanish_start_deep, Spanish, "spanish_8x8";
    czech_start, czech_start_deep, Czech, "czech_8x8";
    // Antidraughts and breakthrough move and capture by the international rules (only the
    // goal differs), and perft counts the move tree without asking who has won, so the
    // published international counts are theirs too; no table of their own is published.
    antidraughts_start, antidraughts_start_deep, Antidraughts, "international_10x10";
    breakthrough_start, breakthrough_start_deep, Breakthrough, "international_10x10";
    // DCTL's Frisian counts: captures along rows and columns and the value precedence show
    // from depth 4 on (3,874 against international's 4,265).
    frisian_start, frisian_start_deep, Frisian, "frisian_10x10";
}

fn check_test_position(name: &str, deep: bool) {
    let entry = reference()["positions"][name].clone();
    assert_eq!(
        entry["variant"], "international",
        "only international test positions"
    );
    let fen = entry["fen"].as_str().expect("a FEN");
    let position = parse_fen::<International>(fen).expect("reference FEN parses");
    let keep = entry["convention"] == "keep_dup";
    let budget = match (deep, keep) {
        (true, _) => None,
        (false, true) => Some(QUICK_ROUTES),
        (false, false) => Some(QUICK_LEAVES),
    };
    check_table(&position, &counts(&entry["values"]), keep, budget, name);
}

common::test_cases! {
    woldouby: check_test_position("Woldouby", false);
    almost_promotion: check_test_position("AlmostPromotion", false);
    front_rows: check_test_position("FrontRows", false);
}

#[test]
#[ignore = "minutes of perft; run by name with --ignored"]
fn test_positions_deep() {
    for name in ["Woldouby", "AlmostPromotion", "FrontRows"] {
        check_test_position(name, true);
    }
}

fn check_move_list<R: Rules>(fen: &str, expected: &[String], note: &str) {
    let position = parse_fen::<R>(fen).expect("reference FEN parses");
    let legal = position.legal_moves();
    let mut parsed = HashSet::new();
    for text in expected {
        let mv = parse_move(&position, text)
            .unwrap_or_else(|e| panic!("{fen}: {text} should be legal ({note}): {e}"));
        parsed.insert(mv);
    }
    assert_eq!(
        parsed.len(),
        expected.len(),
        "{fen}: the listed moves are distinct"
    );
    assert_eq!(
        legal.len(),
        expected.len(),
        "{fen}: damka has {} legal moves, the reference lists {expected:?} ({note})",
        legal.len()
    );
}

#[test]
fn single_position_move_lists() {
    let reference = reference();
    let lists = reference["single_position_move_lists"]
        .as_array()
        .expect("a list");
    assert!(!lists.is_empty());
    for entry in lists {
        let fen = entry["fen"].as_str().expect("a FEN");
        let note = entry["note"].as_str().unwrap_or_default();
        let moves: Vec<String> = entry["legal_moves"]
            .as_array()
            .expect("a move list")
            .iter()
            .map(|m| m.as_str().expect("move text").to_string())
            .collect();
        match entry["variant"].as_str().expect("a variant") {
            "international" => check_move_list::<International>(fen, &moves, note),
            "russian" => check_move_list::<Russian>(fen, &moves, note),
            other => panic!("unexpected variant {other} in the reference"),
        }
    }
}

/// The command line's `--variant` lists every variant in its help and takes the names other
/// programs use (Hub's `normal` for international, `dama` for Turkish): `damka perft` by such
/// a name counts the published start-position leaves.
#[test]
fn command_line_variants_are_listed_and_other_names_accepted() {
    let limit = Duration::from_secs(30);
    for command in [
        &["perft"][..],
        &["match"],
        &["egtb", "gen"],
        &["book", "build"],
        &["play"],
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let help = run_damka(&args, b"", limit);
        assert_eq!(help.code, Some(0), "{args:?}: {}", help.stderr);
        let listed = help
            .stdout
            .lines()
            .find(|line| line.contains("[possible values: english"))
            .unwrap_or_else(|| panic!("{args:?} lists no variants:\n{}", help.stdout));
        for variant in damka::rules::Variant::ALL {
            assert!(
                listed.contains(variant.name()),
                "{args:?} omits {variant}: {listed}"
            );
        }
    }
    let table = reference();
    let international = table["start_positions"]["international_10x10"]["drop_dup"][2].as_u64();
    let run = run_damka(&["perft", "--variant", "Normal", "3"], b"", limit);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let counted = run.stdout.lines().last().unwrap_or_default();
    assert!(
        counted.starts_with(&format!("perft 3: {} leaves", international.unwrap())),
        "{counted}"
    );
    let bogus = run_damka(&["perft", "--variant", "checkerz", "3"], b"", limit);
    assert_eq!(bogus.code, Some(2));
    assert!(
        bogus
            .stderr
            .contains("possible values: english, international"),
        "{}",
        bogus.stderr
    );
}
