#!/usr/bin/env bash
# Search speed figures of docs/bench.md ("Search speed, one thread, 10x10 middlegames").
#
# For each of three international middlegames, RUNS times (default 3): a fresh
# `damka` process (UCI dialect), Threads 1, Hash 64, `ucinewgame`, `position fen FEN`,
# `go movetime MOVETIME` (default 10000 ms); prints the load average before each run and
# the last info line's depth, nodes, nps and time (scripts/uci_search.py).
#
# The positions: M1 is the issue's example; M2 and M3 are where damka's self-play at
# `go depth 8` stands after 40 plies (scripts/selfplay_fen.py), M2 from the start position,
# M3 after the forced opening 32-28 19-23 28x19 14x23; 13 men each, White to move.
# The machine is shared and noisy: compare the best of several runs, side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
movetime=${MOVETIME:-10000}
# BIN=path/to/damka measures another binary (e.g. an older build kept for a side-by-side
# comparison); by default the current tree is built and measured.
if [ -z "${BIN:-}" ]; then cargo build --release --quiet; fi
bin=${BIN:-target/release/damka}
positions=(
    "M1 W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
    "M2 W:W27,30,33,35,36,37,38,43,45,46,47,48,50:B1,2,3,5,6,10,11,12,13,17,19,23,24"
    "M3 W:W27,29,32,34,36,38,42,45,46,47,48,49,50:B2,3,4,5,6,7,11,12,15,16,17,18,20"
)
for spec in "${positions[@]}"; do
    set -- $spec
    for _ in $(seq "$runs"); do
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        out=$(scripts/uci_search.py --bin "$bin" --fen "$2" --movetime "$movetime" --threads 1)
        printf '%s load %s: %s\n' "$1" "$load" "${out%% | *}"
    done
done
