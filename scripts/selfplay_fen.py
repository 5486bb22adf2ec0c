#!/usr/bin/env python3
"""Let damka play itself from the international start and print the FEN reached.

Usage: scripts/selfplay_fen.py [--bin target/release/damka] [--plies 40] [--depth 8]
                               [--moves "M1 M2 ..."]

One damka process (UCI dialect, one thread, 64 MB): `position startpos moves ...`,
`go depth D`, the bestmove appended, PLIES times (the forced opening `--moves` count
among the plies). Prints the move list and the `Fen:` line of `d`. Deterministic for a
given binary (one thread, fixed depth, `ucinewgame` once at the start).
Standard library only. Used to make the middlegames M2 and M3 of scripts/positions.txt.
"""
import argparse

from damka_proc import Engine, default_binary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=default_binary())
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--moves", default="")
    a = ap.parse_args()
    engine = Engine(a.bin)
    engine.uci("international")  # one thread and 64 MB, damka's defaults
    moves = a.moves.split()
    while len(moves) < a.plies:
        engine.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        engine.send(f"go depth {a.depth}")
        best = engine.read_until("bestmove")[-1].split()[1]
        if best == "(none)":
            break
        moves.append(best)
    engine.send("position startpos moves " + " ".join(moves))
    fen = engine.display()["Fen"]
    engine.close()
    print("moves:", " ".join(moves))
    print(fen)


if __name__ == "__main__":
    main()
