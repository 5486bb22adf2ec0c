#!/usr/bin/env python3
"""Time to depth under a clock: each build searches the same positions for MS ms.

Usage:
  scripts/ttd_clock.py MS ROUNDS NAME=BIN:THREADS [NAME=BIN:THREADS ...]

For each round, each position (the international start, M2 and M3 of
scripts/search-speed.sh) and each NAME, a fresh process of BIN (UCI-style dialect,
docs/protocol.md: Variant international, Hash 64, Threads THREADS, `ucinewgame`,
`position fen`, `go movetime MS`) searches once. Prints one line per run: the CPU time the
process used (user + system, all threads, from /proc) and, for the four deepest finished
iterations, the engine's `time` field and its nodes. Builds alternate within a round, so
a noisy neighbour hits them alike. docs/bench.md ("Time to depth") uses it to compare
Threads 1 and Threads 2. Standard library only; Linux (/proc).
"""
import os
import subprocess
import sys

TICK = os.sysconf("SC_CLK_TCK")
POSITIONS = {
    "start": "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50"
    ":B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
    "M2": "W:W27,30,33,35,36,37,38,43,45,46,47,48,50:B1,2,3,5,6,10,11,12,13,17,19,23,24",
    "M3": "W:W27,29,32,34,36,38,42,45,46,47,48,49,50:B2,3,4,5,6,7,11,12,15,16,17,18,20",
}


def cpu_ms(pid):
    """User + system CPU time of the process (all its threads) so far, in ms."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


def search(binary, threads, fen, ms):
    """One search in a fresh process: ({depth: (time ms, nodes)}, CPU ms)."""
    engine = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)
    engine.stdin.write("uci\nsetoption name Variant value international\n"
                       "setoption name Hash value 64\n"
                       f"setoption name Threads value {threads}\nucinewgame\nisready\n")
    while engine.stdout.readline().strip() != "readyok":
        pass
    engine.stdin.write(f"position fen {fen}\ngo movetime {ms}\n")
    depths = {}
    for line in engine.stdout:
        tokens = line.split()
        if tokens and tokens[0] == "bestmove":
            break
        if tokens[:2] == ["info", "depth"] and "multipv" in tokens and "time" in tokens:
            value = lambda name: int(tokens[tokens.index(name) + 1])
            depths[int(tokens[2])] = (value("time"), value("nodes"))
    cpu = cpu_ms(engine.pid)
    engine.stdin.write("quit\n")
    engine.wait()
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
