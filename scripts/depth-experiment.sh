#!/usr/bin/env bash
# Usage: scripts/depth-experiment.sh [GAMES] [FIRST_DEPTH] [LAST_DEPTH]
#
# The depth experiment of docs/experiments.md: in Russian draughts, damka at depth N
# (N = FIRST_DEPTH..LAST_DEPTH, default 1..12) plays damka at depth 2 over GAMES games
# (default 40: 20 random balloted openings of 4 plies, seed 1, each played with both
# colours), one game at a time, niced. Prints one markdown table row per depth, from depth
# N's side; the PDN files and the full match tables are kept in target/depth-experiment/.
#
# It runs a copy of $DAMKA or target/release/damka (built when missing; scripts/lib.sh), so a
# rebuild meanwhile does not change the engine in the middle of the experiment.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

games=${1:-40}
first=${2:-1}
last=${3:-12}
out="$DAMKA_ROOT/target/depth-experiment"
mkdir -p "$out"
source_binary=$(damka_binary)
cp "$source_binary" "$out/damka"
damka="$out/damka"

echo "| depth N | games | N wins | draws | N losses | N's score | Elo (N - depth 2), 95% trinomial | Elo, 95% pentanomial ($((games / 2)) pairs) | seconds |"
echo "|---|---|---|---|---|---|---|---|---|"
for depth in $(seq "$first" "$last"); do
    started=$(date +%s)
    nice -n 5 "$damka" match --variant russian --games "$games" --opening-plies 4 --seed 1 \
        --pdn "$out/d$depth.pdn" \
        --engine "cmd=$damka,name=depth$depth,depth=$depth" \
        --engine "cmd=$damka,name=fixed2,depth=2" > "$out/d$depth.txt"
    seconds=$(( $(date +%s) - started ))
    row=$(grep "^depth$depth " "$out/d$depth.txt")
    read -r _ n w d l score <<< "$row"
    tri=$(grep "trinomial" "$out/d$depth.txt" | sed -E 's/^Elo [^:]*: ([^(]*) \(95%, trinomial: (.*)\)$/\1 [\2]/')
    penta=$(grep "pentanomial" "$out/d$depth.txt" | sed -E 's/^Elo [^:]*: ([^(]*) \(95%, pentanomial over [0-9]+ opening pairs: ([^;]*);.*$/\1 [\2]/')
    echo "| $depth | $n | $w | $d | $l | $score | ${tri:-n/a} | ${penta:-n/a} | $seconds |"
done
