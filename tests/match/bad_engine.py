#!/usr/bin/env python3
"""A broken engine for `damka match` tests, speaking damka's UCI dialect (docs/protocol.md).

Usage: bad_engine.py MODE [GOOD_MOVES]

It answers `uci`, `isready`, `setoption`, `position` and `quit` correctly, and on `go`:
  illegal  answers `bestmove 1-2` (no such move in any position);
  garbage  answers `bestmove ???`;
  hang     never answers;
  crash    exits at once without a word.
"""
import sys


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "illegal"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            print("id name bad-engine")
            print("option name Variant type combo default english var english var russian "
                  "var international")
            print("option name Hash type spin default 1 min 1 max 16")
            print("uciok")
        elif command == "isready":
            print("readyok")
        elif command == "go":
            if mode == "illegal":
                print("info depth 1 score cp 0")
                print("bestmove 1-2")
            elif mode == "garbage":
                print("bestmove ???")
            elif mode == "crash":
                sys.exit(3)
            # hang: no answer, ever
        elif command == "quit":
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()
