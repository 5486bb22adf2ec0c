#!/usr/bin/env bash
# Time to depth, Threads 1 vs Threads 2 (Lazy SMP), for docs/bench.md.
#
# The three middlegames of scripts/search-speed.sh, each searched with `go depth D`
# (D chosen so that one thread takes about 4-10 s); every run is a fresh `damka`
# process (UCI dialect: Hash 64, Threads N, `ucinewgame`, `position fen`, `go depth D`,
# see scripts/uci_search.py). RUNS rounds (default 3); in each round Threads 1 and
# Threads 2 run back to back, so that the machine's load drifts over both alike.
# Prints per run: the load average, threads, depth, the engine's `time` field at depth D,
# the wall time from `go` to `bestmove`, the nodes of all threads, and the CPU time used.
#
# With THREADS="1 2 4" other counts can be added. The machine has 2 cores and is shared:
# a 2-thread run competes with whatever else is running.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
threads=${THREADS:-"1 2"}
# BIN=path/to/damka measures another binary (e.g. an older build kept for a side-by-side
# comparison); by default the current tree is built and measured.
if [ -z "${BIN:-}" ]; then cargo build --release --quiet; fi
bin=${BIN:-target/release/damka}
positions=(
    "M1 19 W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
    "M2 12 W:W27,30,33,35,36,37,38,43,45,46,47,48,50:B1,2,3,5,6,10,11,12,13,17,19,23,24"
    "M3 12 W:W27,29,32,34,36,38,42,45,46,47,48,49,50:B2,3,4,5,6,7,11,12,15,16,17,18,20"
)
for spec in "${positions[@]}"; do
    set -- $spec
    for run in $(seq "$runs"); do
        for t in $threads; do
            load=$(cut -d' ' -f1-3 /proc/loadavg)
            out=$(scripts/uci_search.py --bin "$bin" --fen "$3" --depth "$2" --threads "$t")
            printf '%s run %s threads %s load %s: %s\n' "$1" "$run" "$t" "$load" "${out%% | *}"
        done
    done
done
