//! What the Hub tests read and write in Hub text: moves with PDN numbers, `done` lines and 10x10 position strings.

use damka::notation::fen::parse_fen;
use damka::notation::{bit_of_number, number_of_bit};
use damka::rules::International;
use damka::{Bits, Color, Position, Rules};
use std::collections::BTreeSet;

/// A move in Hub text with PDN numbers (the English and international layouts): `from-to`,
/// or `from x to x` every captured square in ascending order.
pub fn hub_text<R: Rules>(mv: &damka::Move) -> String {
    let mut captured: Vec<u32> = Bits(mv.captured)
        .map(|bit| number_of_bit::<R>(bit as u8))
        .collect();
    captured.sort_unstable();
    let (from, to) = (number_of_bit::<R>(mv.from), number_of_bit::<R>(mv.to));
    if captured.is_empty() {
        format!("{from}-{to}")
    } else {
        let mut parts = vec![from.to_string(), to.to_string()];
        parts.extend(captured.iter().map(u32::to_string));
        parts.join("x")
    }
}

/// The legal moves of a PDN FEN in Hub text.
pub fn legal_hub_moves<R: Rules>(fen: &str) -> BTreeSet<String> {
    let position: Position<R> = parse_fen::<R>(fen).expect("test FEN");
    position.legal_moves().iter().map(hub_text::<R>).collect()
}

/// A Hub move with its captured squares sorted, to compare with [`legal_hub_moves`] (text
/// that is not a number reads as 0, so malformed moves stay unequal to every legal one).
pub fn normalised(hub_move: &str) -> String {
    if !hub_move.contains('x') {
        return hub_move.to_string();
    }
    let parts: Vec<u32> = hub_move
        .split('x')
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    let mut all = parts[..2.min(parts.len())].to_vec();
    let mut captured = parts[2.min(parts.len())..].to_vec();
    captured.sort_unstable();
    all.extend(captured);
    all.iter().map(u32::to_string).collect::<Vec<_>>().join("x")
}

/// The Hub position string of a 10x10 PDN FEN (PDN numbering, `W` White).
pub fn hub_pos_10x10(fen: &str) -> String {
    let position: Position<International> = parse_fen(fen).expect("test FEN");
    let mut text = String::from(match position.side_to_move() {
        Color::White => "W",
        Color::Black => "B",
    });
    for number in 1..=50 {
        let mask = 1u64 << bit_of_number::<International>(number).expect("a square");
        let king = position.kings() & mask != 0;
        text.push(if position.pieces(Color::White) & mask != 0 {
            if king { 'W' } else { 'w' }
        } else if position.pieces(Color::Black) & mask != 0 {
            if king { 'B' } else { 'b' }
        } else {
            'e'
        });
    }
    text
}

/// The move of a well-formed `done` line (`None` for a bare `done`), or what is wrong with it:
/// `done move=M` or `done move=M ponder=P`, M being `from-to` or `from x to x captured...`.
pub fn done_move(line: &str) -> Result<Option<String>, String> {
    if line == "done" {
        return Ok(None);
    }
    let mut words = line.split(' ');
    let best = match (words.next(), words.next()) {
        (Some("done"), Some(word)) => word
            .strip_prefix("move=")
            .ok_or_else(|| format!("done without move= first: {line}"))?,
        _ => return Err(format!("not a done line: {line}")),
    };
    if let Some(ponder) = words.next()
        && !ponder.starts_with("ponder=")
    {
        return Err(format!("bad done line: {line}"));
    }
    if words.next().is_some() {
        return Err(format!("extra field in: {line}"));
    }
    let well_formed = best.split(['-', 'x']).all(|p| p.parse::<u32>().is_ok())
        && (best.matches('-').count() == 1 && !best.contains('x')
            || !best.contains('-') && best.matches('x').count() >= 2);
    if !well_formed {
        return Err(format!("bad move text in: {line}"));
    }
    Ok(Some(best.to_string()))
}

/// The move of a `done` line that must carry one: panics with what is wrong otherwise.
pub fn done_move_required(line: &str) -> String {
    match done_move(line) {
        Ok(Some(best)) => best,
        Ok(None) => panic!("done without move= first: {line}"),
        Err(error) => panic!("{error}"),
    }
}
