#!/usr/bin/env python3
"""Stop latency of the UCI front end: `stop` sent at random moments of searches in middlegames, timed from its write to the read of `bestmove`.

Usage: scripts/stop_latency.py [--engine target/release/damka] [--stops 10000]
                               [--variants international,english] [--seed 1]

For each variant, middlegame positions are made first by the engine itself (four random
plies from the start, then moves of `go depth 3` up to ply 24-40, kept when the game is not
over). Then, `--stops` times in all (shared between the variants): `position fen F`,
`go infinite`, a random pause of 0-50 ms, `stop`; the time from the write of `stop` to the
read of `bestmove` is recorded. Prints p50, p99, p99.9 and the maximum per variant and
together, in milliseconds, with the load average at the start and the end (the machine is
shared: the figure is only meaningful with its load).
"""

import argparse
import os
import random
import statistics
import sys
import time

from damka_proc import Engine, default_binary


def middlegames(engine, variant, count, rng):
    engine.send(f"setoption name Variant value {variant}")
    positions = []
    while len(positions) < count:
        engine.send("ucinewgame")
        moves = []
        target = rng.randint(24, 40)
        over = False
        for ply in range(target):
            engine.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
            info = engine.display()
            legal = info.get("Legal moves", "(none)")
            if legal == "(none)" or "Outcome" in info:
                over = True
                break
            if ply < 4:
                moves.append(rng.choice(legal.split()))
            else:
                engine.send("go depth 3")
                best = engine.read_until("bestmove")[-1].split()[1]
                moves.append(best)
        if over:
            continue
        engine.send("position startpos moves " + " ".join(moves))
        info = engine.display()
        if info.get("Legal moves", "(none)") != "(none)" and "Outcome" not in info:
            positions.append(info["Fen"])
    return positions


def percentile(sorted_values, p):
    index = min(len(sorted_values) - 1, int(round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[index]


def summary(name, values):
    values = sorted(values)
    return (
        f"{name:<14} {len(values):>6}  p50 {percentile(values, 50):6.2f}  "
        f"p99 {percentile(values, 99):6.2f}  p99.9 {percentile(values, 99.9):6.2f}  "
        f"max {values[-1]:7.2f}  mean {statistics.mean(values):6.2f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=default_binary())
    parser.add_argument("--stops", type=int, default=10000)
    parser.add_argument("--variants", default="international,english")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    variants = args.variants.split(",")
    load_start = os.getloadavg()
    engine = Engine(args.engine)
    engine.send("uci")
    engine.read_until("uciok")
    results = {}
    per_variant = args.stops // len(variants)
    started = time.time()
    for variant in variants:
        positions = middlegames(engine, variant, args.positions, rng)
        engine.send(f"setoption name Variant value {variant}")
        engine.sync()
        latencies = []
        for i in range(per_variant):
            engine.send("position fen " + rng.choice(positions))
            engine.send("go infinite")
            time.sleep(rng.uniform(0, 0.05))
            sent = time.perf_counter()
            engine.send("stop")
            lines = engine.read_until("bestmove")
            latencies.append((time.perf_counter() - sent) * 1000)
            if lines[-1].split()[1] == "(none)":
                raise SystemExit(f"no move in a middlegame of {variant}")
            if (i + 1) % 1000 == 0:
                print(f"{variant}: {i + 1}/{per_variant}", file=sys.stderr, flush=True)
        results[variant] = latencies
    engine.close()
    load_end = os.getloadavg()
    print(f"stop -> bestmove latency, ms ({args.engine}, seed {args.seed}, {time.time() - started:.0f} s)")
    everything = []
    for variant, values in results.items():
        print(summary(variant, values))
        everything += values
    print(summary("all", everything))
    print(f"load average at start {load_start[0]:.2f}, at end {load_end[0]:.2f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
