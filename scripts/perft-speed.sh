#!/usr/bin/env bash
# Perft speed figures of docs/bench.md: international perft 9-11 and english perft 11-12 from
# the start, one thread, each run RUNS times (default 3); prints every run's last line.
# The machine is shared and noisy: compare the best of several runs, side by side.
# DAMKA=path/to/damka measures another binary; by default the current tree is built and
# measured (scripts/lib.sh).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs=${RUNS:-3}
bin=$(damka_current)
for spec in "international 9" "international 10" "international 11" "english 11" "english 12"; do
    set -- $spec
    for _ in $(seq "$runs"); do
        printf '%-14s ' "$1"
        "$bin" perft --variant "$1" "$2" | tail -n 1
    done
done
