#!/usr/bin/env python3
"""Depth and speed side by side: damka and Scan 2.0 search the same positions for 1 s.

Usage:
  scripts/depth_vs_scan.py [--bin target/release/damka] [--scan DIR] [--movetime 1000]
                           [--runs 3] [--hash 64]

For each position and each run, a fresh process of each engine searches on one thread for
--movetime ms (the two engines alternate, so a noisy neighbour hits both alike):
  damka: the UCI-style dialect (`setoption name Threads value 1`, `position fen`,
         `go movetime MS`), the last `info` line before `bestmove`;
  Scan:  its Hub dialect (`hub`, `init`, `pos <51 characters>`, `time MS`, `analyse`), the
         last `info` line before `move` (its fields: depth, mean ply, score, nodes,
         seconds, M nodes/s, PV). Scan runs in --scan DIR (it reads scan.ini there, which
         should say `threads = 1`); without --scan only damka is measured.
Scan plays 10x10 only, so the 8x8 positions are damka's alone. Prints one line per run
and a table of medians (Markdown, for docs/bench.md). The depth is the last iteration
each engine reported; Scan's search is far more selective, so its "depth" is a nominal
one, like damka's with its reductions. Standard library only; Scan is never part of the
tests (it is built outside the repository, see docs/bench.md).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

POSITIONS = [
    # name, variant, FEN (White/Black in our FEN dialect, docs/protocol.md)
    ("start", "international",
     "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50"
     ":B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"),
    ("M1", "international",
     "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"),
    ("M2", "international",
     "W:W27,30,33,35,36,37,38,43,45,46,47,48,50:B1,2,3,5,6,10,11,12,13,17,19,23,24"),
    ("M3", "international",
     "W:W27,29,32,34,36,38,42,45,46,47,48,49,50:B2,3,4,5,6,7,11,12,15,16,17,18,20"),
    ("start", "english", None),
    ("start", "russian", None),
]


def fen_to_hub(fen):
    """Scan's Hub position: side to move, then squares 1..50 as w/b/W/B/e."""
    fields = fen.strip().split(":")
    cells = ["e"] * 50
    for part in fields[1:]:
        colour, squares = part[0], part[1:]
        for item in filter(None, squares.split(",")):
            king = item.startswith("K")
            square = int(item[1:] if king else item)
            piece = "w" if colour == "W" else "b"
            cells[square - 1] = piece.upper() if king else piece
    return fields[0].lower() + "".join(cells)


class Engine:
    """A child process talking line by line."""

    def __init__(self, argv, cwd=None):
        self.p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read_until(self, first_word):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit(f"engine exited before '{first_word}': {lines[-3:]}")
            line = line.strip()
            lines.append(line)
            if line.split(" ", 1)[0] == first_word:
                return lines

    def close(self, quit_word="quit"):
        try:
            self.send(quit_word)
            self.p.stdin.close()
            self.p.wait(timeout=10)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            self.p.kill()


def run_damka(binary, variant, fen, movetime, hash_mb):
    e = Engine([binary])
    e.send("uci")
    e.read_until("uciok")
    e.send(f"setoption name Variant value {variant}")
    e.send("setoption name Threads value 1")
    e.send(f"setoption name Hash value {hash_mb}")
    e.send("ucinewgame")
    e.send("isready")
    e.read_until("readyok")
    e.send(f"position fen {fen}" if fen else "position startpos")
    e.send(f"go movetime {movetime}")
    lines = e.read_until("bestmove")
    e.close()
    infos = [l.split() for l in lines if l.startswith("info") and " depth " in l]
    if not infos:
        sys.exit(f"damka gave no info line: {lines}")
    last = infos[-1]
    field = {last[i]: last[i + 1] for i in range(1, len(last) - 1)}
    nodes = int(field["nodes"])
    ms = max(int(field["time"]), 1)
    return int(field["depth"]), nodes, nodes * 1000 / ms


def run_scan(scan_dir, fen, movetime):
    e = Engine([os.path.join(scan_dir, "scan"), "hub"], cwd=scan_dir)
    e.send("hub")
    e.read_until("wait")
    e.send("init")
    e.read_until("ready")
    e.send(f"pos {fen_to_hub(fen)}")
    e.send(f"time {movetime}")
    e.send("analyse")
    lines = e.read_until("move")
    e.close()
    infos = [l.split() for l in lines if l.startswith("info ")]
    if not infos:
        sys.exit(f"Scan gave no info line: {lines}")
    # info <depth> <mean ply> <score> <nodes> <seconds> <M nodes/s> <pv...>
    last = infos[-1]
    depth, nodes, seconds = int(last[1]), int(last[4]), float(last[5])
    return depth, nodes, nodes / max(seconds, 1e-3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="target/release/damka")
    ap.add_argument("--scan", help="directory holding Scan 2.0's `scan` and scan.ini")
    ap.add_argument("--movetime", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--hash", type=int, default=64)
    a = ap.parse_args()
    if a.scan and not os.access(os.path.join(a.scan, "scan"), os.X_OK):
        sys.exit(f"no executable {a.scan}/scan")

    rows = []
    for name, variant, fen in POSITIONS:
        results = {"damka": [], "Scan 2.0": []}
        for run in range(a.runs):
            load = open("/proc/loadavg").read().split()[0]
            d = run_damka(a.bin, variant, fen, a.movetime, a.hash)
            results["damka"].append(d)
            print(f"{variant} {name} run {run + 1} load {load}: damka depth {d[0]} "
                  f"nodes {d[1]} nps {d[2]:.0f}", flush=True)
            if a.scan and variant == "international":
                s = run_scan(a.scan, fen, a.movetime)
                results["Scan 2.0"].append(s)
                print(f"{variant} {name} run {run + 1}: Scan depth {s[0]} nodes {s[1]} "
                      f"nps {s[2]:.0f}", flush=True)
        for engine, runs in results.items():
            if runs:
                rows.append((variant, name, engine,
                             statistics.median(r[0] for r in runs),
                             statistics.median(r[1] for r in runs),
                             statistics.median(r[2] for r in runs)))
        time.sleep(0.2)

    print()
    print(f"| variant | position | engine | depth (median of {a.runs}) | nodes | nodes/s |")
    print("|---|---|---|---|---|---|")
    for variant, name, engine, depth, nodes, nps in rows:
        print(f"| {variant} | {name} | {engine} | {depth:g} | {nodes:,.0f} | "
              f"{nps / 1e6:.2f} M |")


if __name__ == "__main__":
    main()
