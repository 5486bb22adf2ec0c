#!/usr/bin/env bash
# Search speed figures of docs/bench.md ("Search speed, one thread, 10x10 middlegames").
#
# For each of three international middlegames, RUNS times (default 3): a fresh
# `damka` process (UCI dialect), Threads 1, Hash 64, `ucinewgame`, `position fen FEN`,
# `go movetime MOVETIME` (default 10000 ms); prints the load average before each run and
# the last info line's depth, nodes, nps and time (scripts/uci_search.py).
#
# The positions are M1, M2 and M3 of scripts/positions.txt: M1 is the issue's example; M2
# and M3 are where damka's self-play at `go depth 8` stands after 40 plies
# (scripts/selfplay_fen.py), M2 from the start position, M3 after the forced opening
# 32-28 19-23 28x19 14x23; 13 men each, White to move.
# The machine is shared and noisy: compare the best of several runs, side by side.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs=${RUNS:-3}
movetime=${MOVETIME:-10000}
# BIN=path/to/damka (or DAMKA=...) measures another binary (e.g. an older build kept for a
# side-by-side comparison); by default the current tree is built and measured.
bin=$(damka_current "${BIN:-}")
for name in M1 M2 M3; do
    fen=$(position_fen "$name")
    for _ in $(seq "$runs"); do
        load=$(load_average)
        out=$("$DAMKA_ROOT/scripts/uci_search.py" --bin "$bin" --fen "$fen" --movetime "$movetime" --threads 1)
        printf '%s load %s: %s\n' "$name" "$load" "${out%% | *}"
    done
done
