#!/usr/bin/env python3
"""Totals of a scripts/stress-games.sh run: games, terminations, games in the PDN files (read by pydraughts when it is installed), per limit and variant.

Usage: scripts/stress_summary.py [OUT]   (default target/stress)
"""

import collections
import pathlib
import re
import sys


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/stress")
    terminations = collections.Counter()
    per_kind = collections.Counter()
    tables = 0
    pdn_games = 0
    loads = []
    for done in sorted(out.glob("chunk-*.done")):
        stem = done.name[: -len(".done")]
        table = (out / f"{stem}.txt").read_text()
        tables += 1
        head = re.search(r"^Match .*?, (\w+), (\d+) games", table, re.M)
        variant, games = head.group(1), int(head.group(2))
        index = int(stem.split("-")[1])
        limit = "movetime=20" if (index // 8) % 2 == 0 else "tc=1+0.01"
        per_kind[(limit, variant)] += games
        line = re.search(r"^Terminations: (.*)$", table, re.M).group(1)
        for part in line.split(", "):
            name, count = part.rsplit(" ", 1)
            terminations[name] += int(count)
        pdn = (out / f"{stem}.pdn").read_text()
        pdn_games += len(re.findall(r"^\[Result ", pdn, re.M))
        loads.append(float(done.read_text().split("load average:")[1].split(",")[0]))
    total = sum(per_kind.values())
    commit = (out / "commit").read_text().strip() if (out / "commit").exists() else "?"
    print(f"{total} games in {tables} chunks (damka {commit}); {pdn_games} games in the PDN files")
    for (limit, variant), games in sorted(per_kind.items()):
        print(f"  {limit:<12} {variant:<14} {games}")
    print("Terminations: " + ", ".join(f"{k} {v}" for k, v in terminations.most_common()))
    if loads:
        print(f"load average (1 min) at the end of each chunk: min {min(loads):.2f}, max {max(loads):.2f}")


if __name__ == "__main__":
    main()
