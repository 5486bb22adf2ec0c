#!/usr/bin/env bash
# 10,000 games of damka against damka at tiny limits, in resumable chunks: no illegal move, no time forfeit, no crash.
#
# Usage: scripts/stress-games.sh            (GAMES=10000 CHUNK=250 OUT=target/stress by default)
#
# Chunk i plays CHUNK games of variant VARIANTS[i % 8] at `--movetime 20` (even rounds of the
# eight variants) or `--tc 1+0.01` (odd rounds), two games at once, random balloted openings
# seeded with i, each game written to OUT/chunk-i.pdn as it ends and the table to
# OUT/chunk-i.txt. A chunk that finished leaves OUT/chunk-i.done and is skipped when the
# script runs again, so a killed run resumes where it was. The engine ($DAMKA, or
# target/release/damka, built when missing: scripts/lib.sh) is copied to OUT first (cargo may
# rebuild target/release meanwhile); a new build starts a new OUT. Then
# scripts/stress_summary.py OUT prints the totals.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$DAMKA_ROOT"
games=${GAMES:-10000}
chunk=${CHUNK:-250}
out=${OUT:-target/stress}
variants=(english international russian brazilian italian pool spanish czech)
limits=("--movetime 20" "--tc 1+0.01")
mkdir -p "$out"
if [ ! -x "$out/damka" ]; then
    source_binary=$(damka_binary)
    cp "$source_binary" "$out/damka"
    git rev-parse --short HEAD > "$out/commit"
fi
chunks=$(( (games + chunk - 1) / chunk ))
for (( i = 0; i < chunks; i++ )); do
    [ -e "$out/chunk-$i.done" ] && continue
    variant=${variants[i % 8]}
    limit=${limits[(i / 8) % 2]}
    echo "chunk $i/$chunks: $variant $limit ($(uptime | sed 's/.*load/load/'))" >&2
    rm -f "$out/chunk-$i.pdn"
    # shellcheck disable=SC2086
    "$out/damka" match --variant "$variant" --games "$chunk" --concurrency 2 $limit \
        --seed "$((i + 1))" --pdn "$out/chunk-$i.pdn" \
        --engine "cmd=$out/damka,name=a" --engine "cmd=$out/damka,name=b" \
        > "$out/chunk-$i.txt"
    uptime > "$out/chunk-$i.done"
done
