#!/usr/bin/env python3
"""Time to depth under a clock: each build searches the same positions for MS ms.

Usage:
  scripts/ttd_clock.py MS ROUNDS NAME=BIN:THREADS [NAME=BIN:THREADS ...]

For each round, each position (the international start, M2 and M3 of
scripts/positions.txt) and each NAME, a fresh process of BIN (UCI-style dialect,
docs/protocol.md: Variant international, Hash 64, Threads THREADS, `ucinewgame`,
`position fen`, `go movetime MS`) searches once. Prints one line per run: the CPU time the
process used (user + system, all threads, from /proc) and, for the four deepest finished
iterations, the engine's `time` field and its nodes. Builds alternate within a round, so
a noisy neighbour hits them alike. docs/bench.md ("Time to depth") uses it to compare
Threads 1 and Threads 2. Standard library only; Linux (/proc).
"""
import sys

from damka_proc import Engine, positions

POSITIONS = {name: fen for name, (variant, fen) in positions("start", "M2", "M3").items()}


def search(binary, threads, fen, ms):
    """One search in a fresh process: ({depth: (time ms, nodes)}, CPU ms)."""
    engine = Engine(binary)
    engine.uci("international", 64, threads, book=False)
    engine.send(f"position fen {fen}")
    engine.send(f"go movetime {ms}")
    lines = engine.read_until("bestmove")
    cpu = engine.cpu_ms()
    engine.close()
    depths = {}
    for line in lines:
        tokens = line.split()
        if tokens[:2] == ["info", "depth"] and "multipv" in tokens and "time" in tokens:
            value = lambda name: int(tokens[tokens.index(name) + 1])
            depths[int(tokens[2])] = (value("time"), value("nodes"))
    return depths, cpu


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ms, rounds = int(sys.argv[1]), int(sys.argv[2])
    builds = []
    for spec in sys.argv[3:]:
        name, rest = spec.split("=", 1)
        binary, threads = rest.rsplit(":", 1)
        builds.append((name, binary, int(threads)))
    for round_number in range(1, rounds + 1):
        for position, fen in POSITIONS.items():
            for name, binary, threads in builds:
                depths, cpu = search(binary, threads, fen, ms)
                deepest = " ".join(f"d{d}:{depths[d][0]}ms/{depths[d][1] / 1e6:.1f}M"
                                   for d in sorted(depths)[-4:])
                print(f"round {round_number} {position} {name} T{threads} cpu {cpu:.0f} "
                      f"{deepest}", flush=True)


if __name__ == "__main__":
    main()
