#!/usr/bin/env bash
# Time to depth, Threads 1 vs Threads 2 (Lazy SMP), for docs/bench.md.
#
# The three middlegames of scripts/search-speed.sh (M1-M3 of scripts/positions.txt), each
# searched with `go depth D` (D chosen so that one thread takes about 4-10 s); every run is
# a fresh `damka` process (UCI dialect: Hash 64, Threads N, `ucinewgame`, `position fen`,
# `go depth D`, see scripts/uci_search.py). RUNS rounds (default 3); in each round Threads 1
# and Threads 2 run back to back, so that the machine's load drifts over both alike.
# Prints per run: the load average, threads, depth, the engine's `time` field at depth D,
# the wall time from `go` to `bestmove`, the nodes of all threads, and the CPU time used.
#
# With THREADS="1 2 4" other counts can be added. The machine has 2 cores and is shared:
# a 2-thread run competes with whatever else is running.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs=${RUNS:-3}
threads=${THREADS:-"1 2"}
# BIN=path/to/damka (or DAMKA=...) measures another binary (e.g. an older build kept for a
# side-by-side comparison); by default the current tree is built and measured.
bin=$(damka_current "${BIN:-}")
for spec in "M1 19" "M2 12" "M3 12"; do
    set -- $spec
    fen=$(position_fen "$1")
    for run in $(seq "$runs"); do
        for t in $threads; do
            load=$(load_average)
            out=$("$DAMKA_ROOT/scripts/uci_search.py" --bin "$bin" --fen "$fen" --depth "$2" --threads "$t")
            printf '%s run %s threads %s load %s: %s\n' "$1" "$run" "$t" "$load" "${out%% | *}"
        done
    done
done
