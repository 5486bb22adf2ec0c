#!/usr/bin/env python3
"""Nodes per CPU second of a damka binary on the 10x10 middlegames M1-M3 of docs/bench.md
(or, with `english` as third argument, on three English positions from self-play data;
`english-kings`: three English positions with kings, where the king tables count).

Each position is searched with `go nodes N` in a fresh process; the CPU time the process used
is read from /proc/PID/stat once `bestmove` arrives, so the figure holds up better on a
shared, loaded machine than nodes per wall second. Compare builds by alternating them:

    for i in 1 2 3 4 5; do for b in OLD NEW; do scripts/nps_cpu.py $b; done; done
    scripts/nps_cpu.py BINARY [NODES] [international|english|english-kings]
"""
import os
import re
import subprocess
import sys

FENS_BY_VARIANT = {}
FENS = [
    "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
    "W:W27,30,33,35,36,37,38,43,45,46,47,48,50:B1,2,3,5,6,10,11,12,13,17,19,23,24",
    "W:W27,29,32,34,36,38,42,45,46,47,48,49,50:B2,3,4,5,6,7,11,12,15,16,17,18,20",
]
FENS_BY_VARIANT["international"] = FENS
# English middlegames from data/selfplay/english-0003 and -0005 (quiet positions of
# self-play games).
FENS_BY_VARIANT["english"] = [
    "B:W17,21,23,25,27,28,29,30,31,32:B1,2,3,4,5,7,9,11,12,16",
    "B:W14,19,21,25,27,29,30,31,32:B1,2,3,4,5,7,8,11,12",
    "W:W21,24,26,27,28,29,30,31,32:B1,2,3,4,7,8,12,13,14",
]
# English positions with kings, from /work/data-en/english2-0005.txt (self-play with the
# 6-piece tables): a king against men, and two king endings outside the tables.
FENS_BY_VARIANT["english-kings"] = [
    "B:WK3,13,26,27,28,30,31:B1,2,10,16,17,19,22",
    "B:W14,15,18,23,26:B3,12,16,20,K30",
    "B:W10,K13,K14,K20:BK3,K21,K23",
]


def main():
    binary = sys.argv[1]
    nodes_limit = int(sys.argv[2]) if len(sys.argv) > 2 else 4_000_000
    variant = sys.argv[3] if len(sys.argv) > 3 else "international"
    total_nodes, total_cpu = 0, 0.0
    for fen in FENS_BY_VARIANT[variant]:
        engine = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        engine.stdin.write(
            f"setoption name Variant value {variant.split('-')[0]}\nsetoption name Hash value 64\n"
            f"position fen {fen}\nisready\n"
        )
        engine.stdin.flush()
        while engine.stdout.readline().strip() != "readyok":
            pass
        engine.stdin.write(f"go nodes {nodes_limit}\n")
        engine.stdin.flush()
        nodes = 0
        while True:
            line = engine.stdout.readline()
            found = re.search(r" nodes (\d+)", line)
            if found:
                nodes = int(found.group(1))
            if line.startswith("bestmove") or not line:
                break
        fields = open(f"/proc/{engine.pid}/stat").read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        engine.stdin.write("quit\n")
        engine.stdin.flush()
        engine.wait()
        total_nodes += nodes
        total_cpu += cpu
    print(f"{binary}: {total_nodes} nodes, {total_cpu:.2f} cpu s, {total_nodes / total_cpu / 1e6:.2f} M nodes per cpu s")


if __name__ == "__main__":
    main()
