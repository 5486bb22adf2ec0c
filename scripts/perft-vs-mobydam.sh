#!/usr/bin/env bash
# Perft side by side with Moby Dam's (issue 43): international perft DEPTH (default 11) from
# the start position, bulk-counted by both, one thread each, the two programs alternating for
# ROUNDS rounds (default 5); prints every run's seconds, then each program's best and median
# and the ratio of Moby Dam's time to damka's (above 1: damka is faster).
#
# MOBY=path/to/perft is Moby Dam's perft tool, built outside this repository from its public
# source (github rhalbersma/mobydam, `test/perft.c`), e.g. in its `test/` folder:
#     make perft CFLAGS="-O3 -march=native -mpopcnt -flto -D_DEBUG"
# It prints one line a depth from 1 to DEPTH, each timed alone; the last one is read.
# DAMKA=path/to/damka measures another binary; by default the current tree is built and
# measured (scripts/lib.sh). The machine is shared and noisy: read the best times.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[ -n "${MOBY:-}" ] || die "set MOBY to Moby Dam's perft binary (see the comment at the top)"
[ -x "$MOBY" ] || die "MOBY=$MOBY is not an executable"
depth=${1:-11}
rounds=${ROUNDS:-5}
bin=$(damka_current)
damka_times=()
moby_times=()
for round in $(seq "$rounds"); do
    line=$("$MOBY" -b -c "$depth" | tail -n 1)
    moby=$(sed -E 's/.*nodes, ([0-9.]+) sec.*/\1/' <<<"$line")
    line=$("$bin" perft --variant international "$depth" | tail -n 1)
    damka=$(sed -E 's/.* in ([0-9.]+) s .*/\1/' <<<"$line")
    printf 'round %d: mobydam %s s, damka %s s\n' "$round" "$moby" "$damka"
    moby_times+=("$moby")
    damka_times+=("$damka")
done
python3 - "${moby_times[*]}" "${damka_times[*]}" <<'EOF'
import statistics, sys
moby = [float(t) for t in sys.argv[1].split()]
damka = [float(t) for t in sys.argv[2].split()]
for name, times in (("mobydam", moby), ("damka", damka)):
    print(f"{name}: best {min(times):.3f} s, median {statistics.median(times):.3f} s")
print(f"ratio (Moby Dam's time / damka's): best {min(moby) / min(damka):.2f}, "
      f"median {statistics.median(moby) / statistics.median(damka):.2f}")
EOF
