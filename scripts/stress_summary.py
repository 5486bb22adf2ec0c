#!/usr/bin/env python3
"""Totals of a scripts/stress-games.sh run: games, terminations, games in the PDN files, per limit and variant; with --replay N, pydraughts replays the first N games of each chunk.

Usage: scripts/stress_summary.py [OUT] [--replay N]   (default target/stress)

--replay N: the first N games of every chunk whose variant pydraughts 0.6.7 plays (english,
international, russian, brazilian, italian; not pool, spanish, czech) are replayed move by
move on pydraughts' board by tests/play/pdn_replay.py, in the venv of scripts/pyenv.sh; a
move pydraughts finds illegal or a game it cannot read is counted and shown.
"""

import collections
import json
import pathlib
import re
import subprocess
import sys
import tempfile

PYDRAUGHTS_VARIANTS = {"english": "english", "international": "standard", "russian": "russian",
                       "brazilian": "brazilian", "italian": "italian"}


def pydraughts_python(root):
    out = subprocess.run([str(root / "scripts/pyenv.sh"), "pydraughts", "pydraughts==0.6.7"],
                         check=True, capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


def replay_sample(out, count):
    """Replays the first `count` games of each chunk with pydraughts; returns (games, problems)."""
    root = pathlib.Path(__file__).resolve().parent.parent
    python = pydraughts_python(root)
    games, problems = 0, []
    for table in sorted(out.glob("chunk-*.txt")):
        head = re.search(r"^Match .*?, (\w+), (\d+) games", table.read_text(), re.M)
        variant = PYDRAUGHTS_VARIANTS.get(head.group(1))
        if variant is None:
            continue
        text = table.with_suffix(".pdn").read_text()
        sample = "[Event " + "[Event ".join(text.split("[Event ")[1:count + 1])
        with tempfile.NamedTemporaryFile("w", suffix=".pdn") as file:
            file.write(sample)
            file.flush()
            run = subprocess.run([python, str(root / "tests/play/pdn_replay.py"), file.name, variant],
                                 capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"{table.stem}: pdn_replay failed: {run.stderr.strip()[-300:]}")
            continue
        line = next(l for l in run.stdout.splitlines() if l.startswith("summary "))
        for report in json.loads(line[len("summary "):]):
            games += 1
            if report["illegal"] is not None or report["replayed"] != report["moves"]:
                problems.append(f"{table.stem} round {report['tags'].get('Round')}: {report['illegal']}")
    return games, problems


def main():
    args = sys.argv[1:]
    replay = None
    if "--replay" in args:
        at = args.index("--replay")
        replay = int(args[at + 1])
        del args[at:at + 2]
    out = pathlib.Path(args[0] if args else "target/stress")
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
    if replay:
        games, problems = replay_sample(out, replay)
        print(f"pydraughts replayed {games} games (the first {replay} of each chunk it can play): "
              f"{len(problems)} with an illegal or unreadable move")
        for problem in problems:
            print("  " + problem)


if __name__ == "__main__":
    main()
