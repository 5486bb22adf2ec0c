#!/usr/bin/env python3
"""Let damka play itself from the international start and print the FEN reached.

Usage: scripts/selfplay_fen.py [--bin target/release/damka] [--plies 40] [--depth 8]
                               [--moves "M1 M2 ..."]

One damka process (UCI dialect, one thread, 64 MB): `position startpos moves ...`,
`go depth D`, the bestmove appended, PLIES times (the forced opening `--moves` count
among the plies). Prints the move list and the `Fen:` line of `d`. Deterministic for a
given binary (one thread, fixed depth, `ucinewgame` once at the start).
Standard library only. Used to make the middlegames of scripts/search-speed.sh.
"""
import argparse
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/damka")
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--moves", default="")
    a = ap.parse_args()
    p = subprocess.Popen([a.bin], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def read_until(prefix):
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("selfplay_fen: damka exited")
            line = line.strip()
            if line.startswith("info string error"):
                sys.exit(f"selfplay_fen: {line}")
            if line.startswith(prefix):
                return line

    send("setoption name Variant value international")
    send("ucinewgame")
    moves = a.moves.split()
    while len(moves) < a.plies:
        send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        send(f"go depth {a.depth}")
        best = read_until("bestmove").split()[1]
        if best == "(none)":
            break
        moves.append(best)
    send("position startpos moves " + " ".join(moves))
    send("d")
    fen = read_until("Fen:").split(None, 1)[1]
    send("quit")
    p.wait(timeout=10)
    print("moves:", " ".join(moves))
    print(fen)


if __name__ == "__main__":
    main()
