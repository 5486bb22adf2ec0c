//! `damka show`: the text board, and SVG diagrams that Python's XML parser reads with the right pieces on the right squares.

use crate::common;

use common::process::run_damka;
use common::{scratch, venv_python};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

/// Parses an SVG file with xml.etree (a well-formedness check) and reports, as JSON, the
/// root tag, the pieces by class and the numbers written on the squares.
const SVG_SUMMARY: &str = r#"
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
pieces = {}
for element in root.iter(ns + "circle"):
    classes = element.get("class", "").split()
    if "piece" in classes:
        key = " ".join(c for c in classes if c != "piece")
        pieces[key] = pieces.get(key, 0) + 1
crowns = sum(1 for e in root.iter(ns + "circle") if e.get("class") == "crown")
numbers = sorted(int(e.text) for e in root.iter(ns + "text") if e.get("class") == "number")
side = [e.text for e in root.iter(ns + "text") if e.get("class") == "side-to-move"]
print(json.dumps({"root": root.tag, "pieces": pieces, "crowns": crowns,
                  "numbers": numbers, "side": side}))
"#;

fn svg_summary(args: &[&str], name: &str) -> serde_json::Value {
    let path = scratch("test-show", name);
    let path_text = path.to_string_lossy().to_string();
    let mut all = vec!["show"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--svg", &path_text]);
    let run = run_damka(&all, b"", LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let python = venv_python("pydraughts", "pydraughts==0.6.7");
    let output = common::succeeded(
        Command::new(python).args(["-c", SVG_SUMMARY, &path_text]),
        "reading the SVG as XML (not well-formed?)",
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

#[test]
fn svg_start_positions_have_every_man_and_every_number() {
    // English: 12 men a side on 32 squares; international: 20 a side on 50.
    for (variant, men, squares) in [("english", 12, 32), ("international", 20, 50)] {
        let summary = svg_summary(&["start", "--variant", variant], &format!("{variant}.svg"));
        assert_eq!(summary["root"], "{http://www.w3.org/2000/svg}svg");
        assert_eq!(summary["pieces"]["white man"], men, "{summary}");
        assert_eq!(summary["pieces"]["black man"], men, "{summary}");
        assert_eq!(summary["pieces"].as_object().unwrap().len(), 2, "{summary}");
        assert_eq!(summary["crowns"], 0);
        let numbers: Vec<u64> = (1..=squares).collect();
        assert_eq!(summary["numbers"], serde_json::json!(numbers));
    }
}

#[test]
fn svg_marks_kings_and_the_side_to_move() {
    let summary = svg_summary(
        &["W:W21,22,K30:B5,K10,12", "--variant", "english"],
        "kings.svg",
    );
    assert_eq!(summary["pieces"]["white man"], 2, "{summary}");
    assert_eq!(summary["pieces"]["white king"], 1, "{summary}");
    assert_eq!(summary["pieces"]["black man"], 2, "{summary}");
    assert_eq!(summary["pieces"]["black king"], 1, "{summary}");
    assert_eq!(summary["crowns"], 2, "{summary}");
    assert_eq!(summary["side"], serde_json::json!(["White to move"]));
    let black = svg_summary(&["B:WK1:BK32", "--variant", "russian"], "russian.svg");
    assert_eq!(black["crowns"], 2, "{black}");
    assert_eq!(black["side"], serde_json::json!(["Black to move"]));
}

#[test]
fn svg_to_stdout_and_text_board() {
    let run = run_damka(&["show", "start", "--svg", "-"], b"", LIMIT);
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.starts_with("<?xml"), "{}", run.stdout);
    assert!(run.stdout.trim_end().ends_with("</svg>"));
    let text = run_damka(&["show", "W:W21,22,K30:B5,K10,12"], b"", LIMIT);
    assert_eq!(text.code, Some(0));
    // The text board: one line per row, then the side to move.
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(lines.len(), 9, "{}", text.stdout);
    assert_eq!(lines[8].trim(), "White to move");
    let count = |c: char| text.stdout.matches(c).count();
    assert_eq!(
        (count('w'), count('W'), count('b'), count('B')),
        (2, 2, 2, 1)
    );
}

#[test]
fn bad_fens_and_unwritable_files_exit_with_2() {
    for fen in ["", "W:W99", "X:W1:B2", "W:W1,1"] {
        let run = run_damka(&["show", fen], b"", LIMIT);
        assert_eq!(run.code, Some(2), "{fen}: {}", run.stdout);
        assert!(run.stderr.contains("bad FEN"), "{fen}: {}", run.stderr);
    }
    let run = run_damka(&["show", "start", "--svg", "no/such/dir/x.svg"], b"", LIMIT);
    assert_eq!(run.code, Some(2));
}
