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

from engine_lines import commands

# The answers to the commands it understands; the others (`setoption`, `position`, ...) get
# none, as in UCI.
ANSWERS = {
    "uci": [
        "id name bad-engine",
        "option name Variant type combo default english var english var russian "
        "var international",
        "option name Hash type spin default 1 min 1 max 16",
        "uciok",
    ],
    "isready": ["readyok"],
}

# The answer to `go` in each mode (`crash` exits instead).
GO_ANSWERS = {
    "illegal": ["info depth 1 score cp 0", "bestmove 1-2"],
    "garbage": ["bestmove ???"],
    "hang": [],  # no answer, ever
}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "illegal"
    for command, _ in commands():
        if command == "quit":
            return
        if command == "go" and mode == "crash":
            sys.exit(3)
        for line in GO_ANSWERS[mode] if command == "go" else ANSWERS.get(command, []):
            print(line)


if __name__ == "__main__":
    main()
