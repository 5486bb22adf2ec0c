#!/usr/bin/env bash
# damka's international endgame tables against Scan 2.0's 2-4-piece bitbases on random
# positions (docs/journal.md, "The small-endgame rule in the search"): prints each position
# where the two disagree, then the totals.
#
#   scripts/scan-bitbases.sh SCAN_DIR [COUNT] [SEED] [KING_PERCENT]
#
# SCAN_DIR: a checkout of Scan 2.0 (github rhalbersma/scan at 57082ee, with src/ and
# data/bb/), never copied into this repository. Its sources are built in a scratch directory
# together with a small driver of ours that prints Scan's `bb::probe` value of each FEN it
# reads (Scan resolves pending captures itself). damka's 4-piece tables are generated in the
# same scratch directory. The sample: COUNT distinct positions (default 2000) of 3 or 4
# pieces, random squares and sides to move, each piece a king with KING_PERCENT % (default
# 50), men never on their own crowning row; SEED (default 7) makes it repeatable.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scan=${1:?usage: scripts/scan-bitbases.sh SCAN_DIR [COUNT] [SEED] [KING_PERCENT]}
count=${2:-2000}
seed=${3:-7}
kings=${4:-50}
[ -f "$scan/src/bb_base.cpp" ] && [ -d "$scan/data/bb" ] ||
    die "$scan is not a Scan 2.0 checkout (src/bb_base.cpp and data/bb/ expected)"
bin=$(damka_binary)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/scan"
cp -r "$scan/src" "$scan/data" "$work/scan/"
printf 'bb-size = 4\nbook = false\n' >"$work/scan/scan.ini"
cat >"$work/scan/src/damka_bb_probe.cpp" <<'EOF'
// Reads one PDN FEN a line, prints it with Scan's bitbase value (win, draw or loss).
#include <iostream>
#include <string>
#include "bb_base.h"
#include "bb_comp.h"
#include "bit.h"
#include "board.h"
#include "fen.h"
#include "hash.h"
#include "libmy.hpp"
#include "pos.h"
#include "tuple.h"
#include "var.h"
int main() {
   bit_init(); hash_init(); tuple_init(); var::init();
   board_init(); bb::comp_init(); ml::rand_init();
   var::load("scan.ini"); var::update();
   bb::init();
   std::string line;
   while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      Pos pos;
      pos_from_fen(pos, line);
      std::cout << line << " " << bb::value_to_string(bb::probe(pos)) << std::endl;
   }
}
EOF
echo "building Scan's bitbase probe in $work/scan" >&2
(cd "$work/scan/src" &&
    g++ -std=c++11 -fno-rtti -O2 -mpopcnt -o ../probe \
        $(ls ./*.cpp | grep -v '^./main.cpp$') -lpthread)

echo "generating damka's international tables up to 4 pieces" >&2
"$bin" egtb gen --variant international --pieces 4 --dir "$work/egtb" >/dev/null

python3 - "$count" "$seed" "$kings" >"$work/positions.txt" <<'EOF'
import random, sys
count, seed, kings = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
chosen = set()
while len(chosen) < count:
    total = rng.choice([3, 4])
    whites = rng.randint(1, total - 1)
    white, black = [], []
    for i, square in enumerate(rng.sample(range(1, 51), total)):
        is_white = i < whites
        king = rng.random() * 100 < kings
        # A man never stands on its own crowning row (White's is 1-5, Black's 46-50).
        if (is_white and square <= 5) or (not is_white and square >= 46):
            king = True
        (white if is_white else black).append(("K" if king else "") + str(square))
    chosen.add("%s:W%s:B%s" % (rng.choice("WB"), ",".join(white), ",".join(black)))
print("\n".join(sorted(chosen)))
EOF

(cd "$work/scan" && ./probe <"$work/positions.txt" | grep -E ' (win|draw|loss)$') >"$work/scan.txt"
while read -r fen; do
    echo "$fen $("$bin" egtb probe --variant international --dir "$work/egtb" "$fen" | head -n 1)"
done <"$work/positions.txt" >"$work/damka.txt"
[ "$(wc -l <"$work/scan.txt")" -eq "$count" ] || die "Scan answered $(wc -l <"$work/scan.txt") of $count"
paste -d ' ' "$work/scan.txt" "$work/damka.txt" |
    awk -v n="$count" '
        $1 != $3 { print "different positions on one line: " $0; bad++; next }
        { scan[$2]++ }
        $2 != $4 { print $1 ": Scan " $2 ", damka " $4; differ++ }
        END {
            printf "%d positions; Scan: %d win, %d draw, %d loss; disagreements: %d\n",
                n, scan["win"], scan["draw"], scan["loss"], differ + 0
            exit (bad + differ > 0)
        }'
