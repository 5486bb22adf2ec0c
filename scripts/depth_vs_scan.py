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
tests (it is built outside the repository, see docs/bench.md). The positions are those of
scripts/positions.txt named below, then the 8x8 start positions.
"""
import argparse
import os
import statistics
import sys
import time

from damka_proc import Engine, default_binary, positions

# name, variant, FEN (in damka's dialect, docs/protocol.md; None: `position startpos`)
POSITIONS = [(name, variant, fen) for name, (variant, fen)
             in positions("start", "M1", "M2", "M3").items()]
POSITIONS += [("start", "english", None), ("start", "russian", None)]


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


def run_damka(binary, variant, fen, movetime, hash_mb):
    e = Engine(binary)
    e.uci(variant, hash_mb, threads=1, book=False)
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


def start_scan(scan_dir, threads=None):
    """Scan 2.0 in its Hub dialect, initialised (`threads` set first when given)."""
    e = Engine([os.path.join(scan_dir, "scan"), "hub"], cwd=scan_dir)
    e.send("hub")
    e.read_until("wait")
    if threads is not None:
        e.send(f"set threads {threads}")
    e.send("init")
    e.read_until("ready")
    return e


def scan_analyse(scan_dir, fen, limit, threads=None):
    """One `analyse` of `fen` by a fresh Scan under `limit` (`time MS` or `depth D`, sent
    after the position, since `pos` resets the limits): its info lines split into words
    (`info <depth> <mean ply> <score> <nodes> <seconds> <M nodes/s> <pv...>`), and all its
    lines."""
    e = start_scan(scan_dir, threads)
    e.send(f"pos {fen_to_hub(fen)}")
    e.send(limit)
    e.send("analyse")
    lines = e.read_until("move")
    e.close()
    return [l.split() for l in lines if l.startswith("info ")], lines


def run_scan(scan_dir, fen, movetime):
    infos, lines = scan_analyse(scan_dir, fen, f"time {movetime}")
    if not infos:
        sys.exit(f"Scan gave no info line: {lines}")
    # info <depth> <mean ply> <score> <nodes> <seconds> <M nodes/s> <pv...>
    last = infos[-1]
    depth, nodes, seconds = int(last[1]), int(last[4]), float(last[5])
    return depth, nodes, nodes / max(seconds, 1e-3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=default_binary())
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
