#!/usr/bin/env python3
"""Time to depth with Threads 1 and 2, damka beside Scan 2.0, on the same positions.

Usage:
  scripts/ttd_vs_scan.py --scan DIR [--bin target/release/damka] [--runs 3] [--hash 64]
                         [--damka-depths 20,30,22,23] [--scan-depths 21,36,19,21]

Positions: the 10x10 start and M1-M3 of scripts/positions.txt, in that order; the depths
are given in the same order (one each; the defaults are the depths each engine reached in
3 s on one thread on 2026-11-30, scripts/depth_vs_scan.py --movetime 3000).
For each position and run, four fresh processes search to their depth one after the other
(damka 1 thread, damka 2, Scan 1, Scan 2), so that a noisy neighbour hits all alike:
  damka: the UCI-style dialect (`Threads N`, `position fen`, `go depth D`); the time is
         the `time` field of the info line of depth D;
  Scan:  its Hub dialect (`hub`, `set threads N`, `init`, `pos <51 characters>`,
         `depth D`, `analyse`); the time is the seconds field of its last info line
         (`info <depth> <mean ply> <score> <nodes> <seconds> <M nodes/s> <pv>`). Scan runs
         in --scan DIR and reads scan.ini there (its other settings, bitbases included,
         are the same for both thread counts; `analyse` never uses the book).
Prints one line per search, then a Markdown table: the median time of each engine and
thread count per position, the speed-up (median with 1 thread / median with 2), and the
geometric mean of the speed-ups. The machine has 2 cores: nothing else may run.
Standard library only; Scan is never part of the tests.
"""
import argparse
import math
import os
import statistics
import sys

from damka_proc import Engine, default_binary, positions
from depth_vs_scan import scan_analyse

NAMES = ("start", "M1", "M2", "M3")


def damka_time(binary, fen, depth, threads, hash_mb):
    """Milliseconds damka's search took to finish `depth`, and its nodes."""
    e = Engine(binary)
    e.uci("international", hash_mb, threads=threads, book=False)
    e.send(f"position fen {fen}")
    e.send(f"go depth {depth}")
    lines = e.read_until("bestmove")
    e.close()
    for line in reversed(lines):
        words = line.split()
        if words[:1] == ["info"] and "depth" in words:
            field = {words[i]: words[i + 1] for i in range(1, len(words) - 1)}
            if int(field["depth"]) == depth:
                return int(field["time"]), int(field["nodes"])
    sys.exit(f"damka did not report depth {depth}: {lines}")


def scan_time(scan_dir, fen, depth, threads):
    """Milliseconds Scan's search took to finish `depth`, and its nodes."""
    infos, lines = scan_analyse(scan_dir, fen, f"depth {depth}", threads)
    reached = [i for i in infos if int(i[1]) == depth]
    if not reached:
        sys.exit(f"Scan did not report depth {depth}: {lines}")
    last = reached[-1]
    return round(float(last[5]) * 1000), int(last[4])


def depths(text):
    values = [int(v) for v in text.split(",")]
    if len(values) != len(NAMES):
        raise argparse.ArgumentTypeError(f"give {len(NAMES)} depths, one per position")
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=default_binary())
    ap.add_argument("--scan", required=True, help="directory holding Scan 2.0's `scan`")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--damka-depths", type=depths, default=depths("20,30,22,23"))
    ap.add_argument("--scan-depths", type=depths, default=depths("21,36,19,21"))
    a = ap.parse_args()
    if not os.access(os.path.join(a.scan, "scan"), os.X_OK):
        sys.exit(f"no executable {a.scan}/scan")

    found = positions(*NAMES)
    rows = []
    for index, name in enumerate(NAMES):
        _, fen = found[name]
        times = {(engine, t): [] for engine in ("damka", "Scan 2.0") for t in (1, 2)}
        for run in range(a.runs):
            for t in (1, 2):
                load = open("/proc/loadavg").read().split()[0]
                ms, nodes = damka_time(a.bin, fen, a.damka_depths[index], t, a.hash)
                times[("damka", t)].append(ms)
                print(f"{name} run {run + 1} load {load}: damka threads {t} depth "
                      f"{a.damka_depths[index]} {ms} ms {nodes} nodes", flush=True)
            for t in (1, 2):
                load = open("/proc/loadavg").read().split()[0]
                ms, nodes = scan_time(a.scan, fen, a.scan_depths[index], t)
                times[("Scan 2.0", t)].append(ms)
                print(f"{name} run {run + 1} load {load}: Scan threads {t} depth "
                      f"{a.scan_depths[index]} {ms} ms {nodes} nodes", flush=True)
        for engine, depth in (("damka", a.damka_depths[index]),
                              ("Scan 2.0", a.scan_depths[index])):
            one = statistics.median(times[(engine, 1)])
            two = statistics.median(times[(engine, 2)])
            rows.append((name, engine, depth, times[(engine, 1)], times[(engine, 2)],
                         one / max(two, 1)))

    print()
    print("| position | engine | depth | Threads 1, ms | Threads 2, ms | speed-up (medians) |")
    print("|---|---|---|---|---|---|")
    for name, engine, depth, one, two, speedup in rows:
        print(f"| {name} | {engine} | {depth} | {', '.join(map(str, one))} | "
              f"{', '.join(map(str, two))} | {speedup:.2f}x |")
    for engine in ("damka", "Scan 2.0"):
        ratios = [r[5] for r in rows if r[1] == engine]
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\n{engine}: geometric mean speed-up {mean:.2f}x")


if __name__ == "__main__":
    main()
