#!/usr/bin/env python3
"""An engine speaking the first Hub dialect (as Scan 2.0's `scan hub` does), for `damka match` tests.

Usage: hub1_engine.py LOG

Its rules are pydraughts' (an independent implementation), so a position or move that
`damka match` writes wrongly is caught here: `pos` must be 51 letters (side to move in lower
case, then squares 1-50 as w/b/W/B/e), every `move` must be legal in pydraughts' board, or it
answers `error ...` as Scan does. On `go` it plays a legal move chosen by a fixed-seed random
generator and answers `info` (Scan's fields: depth, mean ply, score, nodes, seconds, Mnps,
PV) and `move M`. Every line it receives is appended to LOG, so a test can check the limits
it was sent.
"""
import random
import sys

from draughts import Board, Move
from engine_lines import commands


def fen_of(hub):
    """pydraughts FEN of a 51-letter first-dialect position."""
    side = {"w": "W", "b": "B"}[hub[0]]
    white, black = [], []
    for square, letter in enumerate(hub[1:], start=1):
        if letter in "wW":
            white.append(("K" if letter == "W" else "") + str(square))
        elif letter in "bB":
            black.append(("K" if letter == "B" else "") + str(square))
        elif letter != "e":
            raise ValueError(letter)
    return f"{side}:W{','.join(white)}:B{','.join(black)}"


def main():
    log = open(sys.argv[1], "a")
    rng = random.Random(5)
    # The position and moves of the last `go`, with pydraughts' board after them: a `go`
    # whose position repeats them only plays the new moves (pydraughts is slow; replaying
    # every game from its start would lose on time). A changed start rebuilds the board.
    played_pos, played_moves, board = None, [], None
    pos, moves = None, []
    for command, words in commands(log):
        if command == "hub":
            print("name hub1-test-engine")
            print("wait")
        elif command == "init":
            print("ready")
        elif command == "pos":
            pos, moves = (words[1] if len(words) == 2 else ""), []
        elif command == "move":
            moves.append(words[1] if len(words) == 2 else "")
        elif command == "go":
            if pos != played_pos or moves[:len(played_moves)] != played_moves:
                if len(pos or "") != 51:
                    print("error bad position")
                    continue
                try:
                    board = Board(variant="standard", fen=fen_of(pos))
                except (KeyError, ValueError):
                    print("error bad position")
                    continue
                played_pos, played_moves = pos, []
            for text in moves[len(played_moves):]:
                legal = {mv.hub_move: mv for mv in board.legal_moves()}
                try:
                    wanted = Move(board, hub_move=text).hub_move
                except Exception:
                    wanted = None
                if wanted not in legal:
                    print(f"error illegal move {text}")
                    break
                board.push(legal[wanted])
                played_moves.append(text)
            else:
                choice = rng.choice(board.legal_moves())
                board.push(choice)
                played_moves.append(choice.hub_move)
                # The match tool sends our own move back in the next `go`'s moves.
                print(f"info 1 1.0 0 1 0.00 0.0 {choice.hub_move}")
                print(f"move {choice.hub_move}")
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
