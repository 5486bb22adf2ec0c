#!/usr/bin/env python3
"""Run one search of `damka` (UCI-style dialect, docs/protocol.md) in a fresh process.

Usage:
  scripts/uci_search.py [--bin target/release/damka] [--variant international]
                        [--threads N] [--hash MB] (--fen FEN | --startpos)
                        [--moves "M1 M2 ..."] (--movetime MS | --depth D)

Sends `uci`, the options, `ucinewgame`, `isready`, the position and `go`, keeps stdin
open until `bestmove` arrives (closing it would be `quit`, which stops the search), then
prints one line:

  depth D nodes N nps N time MS cpu MS nps/cpu N wall MS bestmove M | <the last info line>

`time` is the engine's own `time` field of the last finished iteration; `cpu` is the CPU
time (user + system, all threads, from /proc/PID/stat, 10 ms ticks) the process used
from `go` to the moment that info line was read, and `nps/cpu` = nodes / cpu: on a loaded
machine it shows what a thread does while it runs. `wall` is the wall time from sending
`go` to reading `bestmove`. Standard library only.
"""
import argparse
import sys
import time

from damka_proc import Engine, default_binary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=default_binary())
    ap.add_argument("--variant", default="international")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hash", type=int, default=64)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--fen")
    g.add_argument("--startpos", action="store_true")
    ap.add_argument("--moves", default="")
    lim = ap.add_mutually_exclusive_group(required=True)
    lim.add_argument("--movetime", type=int)
    lim.add_argument("--depth", type=int)
    ap.add_argument("--all", action="store_true", help="print every info line too")
    a = ap.parse_args()

    engine = Engine(a.bin)
    engine.uci(a.variant, a.hash, a.threads, book=False)
    pos = "position startpos" if a.startpos else f"position fen {a.fen}"
    if a.moves.strip():
        pos += " moves " + a.moves.strip()
    engine.send(pos)
    engine.sync()
    engine.send(f"go movetime {a.movetime}" if a.movetime is not None else f"go depth {a.depth}")
    t0 = time.monotonic()
    cpu0 = engine.cpu_ms()
    last = None
    while True:
        line = engine.readline("the end of the search")
        if line.startswith("info depth"):
            last = line
            last_cpu = engine.cpu_ms()
            if a.all:
                print(line, flush=True)
        elif line.startswith("bestmove"):
            wall = (time.monotonic() - t0) * 1000
            break
    engine.close()
    if last is None:
        sys.exit("uci_search: no info line")
    w = last.split()
    f = {w[i]: w[i + 1] for i in range(1, len(w) - 1) if w[i] in
         ("depth", "nodes", "nps", "time")}
    cpu = last_cpu - cpu0
    nps_cpu = int(f["nodes"]) * 1000 / cpu if cpu > 0 else 0
    print(f"depth {f['depth']} nodes {f['nodes']} nps {f['nps']} time {f['time']} "
          f"cpu {cpu:.0f} nps/cpu {nps_cpu:.0f} wall {wall:.0f} {line} | {last}", flush=True)


if __name__ == "__main__":
    main()
