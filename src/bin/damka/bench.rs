//! `damka bench`: fixed positions of several variants searched to a fixed depth on one thread; the node count is the behaviour signature.

use damka::notation::fen::parse_fen;
use damka::notation::movetext::write_move;
use damka::rules::{Rules, Variant};
use damka::search::tt::TranspositionTable;
use damka::search::{Env, Limits, think};
use damka::with_variant;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// The default depth of `damka bench`.
pub const DEFAULT_DEPTH: u32 = 11;

/// The bench positions: start positions and middlegames of several variants.
pub const POSITIONS: &[(Variant, &str)] = &[
    (
        Variant::International,
        "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
    ),
    // Woldouby (a classic international middlegame, also a perft test position).
    (
        Variant::International,
        "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
    ),
    (
        Variant::International,
        "W:W27,28,31,32,33,34,36,37,38,39,40,42,43,44,48:B3,6,7,8,9,11,12,13,14,15,16,17,19,22,24",
    ),
    (Variant::International, "W:WK4,28,33:B13,20,K41"),
    (
        Variant::English,
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    ),
    (
        Variant::English,
        "W:W15,19,22,24,26,27,28,30,31:B1,3,5,6,9,10,12,13,14",
    ),
    (Variant::English, "B:WK14,22,K30:B5,K10,12"),
    (
        Variant::Russian,
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    ),
    (
        Variant::Russian,
        "B:W12,17,19,23,25,27,29:B1,3,4,7,8,10,11,K13,14",
    ),
    (
        Variant::Brazilian,
        "W:W18,21,22,24,25,26,28,29,30,31:B1,2,4,5,6,8,10,11,12,15",
    ),
    (
        Variant::Italian,
        "W:W18,21,22,23,25,27,28,29,30,31:B2,3,4,5,6,9,10,12,14,16",
    ),
    (
        Variant::Pool,
        "B:W17,21,22,24,25,26,27,29,30,31:B1,3,5,6,7,9,10,11,14",
    ),
];

/// Searches every bench position to `depth` on one thread with a fresh 16 MB table, writing
/// one line per position and last `NODES nodes NPS nps`. Returns the total node count.
pub fn run(depth: u32, out: &mut dyn Write) -> u64 {
    let started = Instant::now();
    let mut total = 0;
    for &(variant, fen) in POSITIONS {
        let (nodes, best) = with_variant!(variant, R => search_one::<R>(fen, depth));
        total += nodes;
        let _ = writeln!(out, "{variant} {fen}: {nodes} nodes, best {best}");
    }
    let millis = started.elapsed().as_millis().max(1) as u64;
    let _ = writeln!(out, "{total} nodes {} nps", total * 1000 / millis);
    let _ = out.flush();
    total
}

fn search_one<R: Rules>(fen: &str, depth: u32) -> (u64, String) {
    let position = parse_fen::<R>(fen).expect("bench positions are valid");
    let tt = Arc::new(TranspositionTable::new(16));
    let limits = Limits {
        depth: Some(depth),
        multipv: 1,
        ..Limits::default()
    };
    let outcome = think(&position, &limits, &Env::new(tt), &mut |_| {});
    let best = outcome
        .best
        .map_or_else(|| "(none)".to_string(), |mv| write_move(&position, &mv));
    (outcome.nodes, best)
}
