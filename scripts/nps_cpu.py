#!/usr/bin/env python3
"""Nodes per CPU second of a damka binary on the 10x10 middlegames M1-M3 of docs/bench.md
(or, with `english` as third argument, on three English positions from self-play data;
`english-kings`: three English positions with kings, where the king tables count).

Each position is searched with `go nodes N` in a fresh process; the CPU time the process used
is read from /proc/PID/stat once `bestmove` arrives, so the figure holds up better on a
shared, loaded machine than nodes per wall second. Compare builds by alternating them:

    for i in 1 2 3 4 5; do for b in OLD NEW; do scripts/nps_cpu.py $b; done; done
    scripts/nps_cpu.py BINARY [NODES] [international|english|english-kings]

The positions are those of scripts/positions.txt named in POSITION_SETS.
"""
import re
import sys

from damka_proc import Engine, positions

POSITION_SETS = {
    "international": ("M1", "M2", "M3"),
    "english": ("E1", "E2", "E3"),
    "english-kings": ("EK1", "EK2", "EK3"),
}


def main():
    binary = sys.argv[1]
    nodes_limit = int(sys.argv[2]) if len(sys.argv) > 2 else 4_000_000
    chosen = sys.argv[3] if len(sys.argv) > 3 else "international"
    total_nodes, total_cpu = 0, 0.0
    for variant, fen in positions(*POSITION_SETS[chosen]).values():
        engine = Engine(binary)
        engine.uci(variant, hash_mb=64)
        engine.send(f"position fen {fen}")
        engine.sync()
        engine.send(f"go nodes {nodes_limit}")
        nodes = 0
        for line in engine.read_until("bestmove"):
            found = re.search(r" nodes (\d+)", line)
            if found:
                nodes = int(found.group(1))
        cpu = engine.cpu_ms() / 1000
        engine.close()
        total_nodes += nodes
        total_cpu += cpu
    print(f"{binary}: {total_nodes} nodes, {total_cpu:.2f} cpu s, {total_nodes / total_cpu / 1e6:.2f} M nodes per cpu s")


if __name__ == "__main__":
    main()
