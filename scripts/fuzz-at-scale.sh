#!/usr/bin/env bash
# Fuzzed command lines at scale over both front ends: the fuzz tests of tests/protocol_fuzz.rs with many seeds and many lines each.
#
# Usage: scripts/fuzz-at-scale.sh [LINES_PER_RUN] [RUNS]     (default 50000 lines, 10 runs)
#
# Each run is one seed (DAMKA_FUZZ_SEED=1..RUNS) of both fuzz tests, UCI and Hub, with
# DAMKA_FUZZ_LINES mixed lines each (valid, mutated and garbage lines in random bursts, a
# quarter of them sent during a search) on top of their fixed rounds of refused lines. A test
# fails on a panic or any stderr output, a hang (an answer missing for 20 s), a missing or
# extra answer, or a state that changed when it must not; the summary line of each run is
# printed, with the sum at the end.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$DAMKA_ROOT"
lines=${1:-50000}
runs=${2:-10}
log=target/fuzz-at-scale.log
: > "$log"
for (( seed = 1; seed <= runs; seed++ )); do
    DAMKA_FUZZ_SEED=$seed DAMKA_FUZZ_LINES=$lines cargo test --profile ci --quiet \
        --test integration _fuzzed_lines_ -- --test-threads=1 --nocapture 2>&1 \
        | grep -E "fuzz \(seed|test result" | tee -a "$log"
done
python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
total = 0
for line in text.splitlines():
    numbers = [int(n) for n in re.findall(r"(\d+) (?:lines that change nothing|mixed lines|refused lines)", line)]
    total += sum(numbers)
passed = len(re.findall(r"test result: ok", text))
failed = len(re.findall(r"test result: FAILED", text))
print(f"total fuzzed lines: {total}; test runs passed {passed}, failed {failed}")
PY
