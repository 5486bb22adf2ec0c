#!/usr/bin/env python3
"""Plays `damka dxp --listen` through pydraughts 0.6.7's DXPEngine (the lidraughts bots' DXP client).

Run with the python of `scripts/pyenv.sh pydraughts pydraughts==0.6.7`:

    pydraughts_dxp_client.py PORT --games 2 --max-plies 200 [--fen FEN] [--initial-time S]

The server must already listen on 127.0.0.1:PORT (DXPEngine's `engine-opened` mode: the
client only connects). Each game is a fresh DXPEngine, driven as its own code expects:
`play(board)` when damka is to move (the first call sends the game request, with the
position as pydraughts writes it and damka's colour = the side to move; later calls send
the client's last move first), and `quit()` at the end (a GAMEEND, then the socket is
closed). damka plays White in even games and Black in odd ones, against pydraughts' random
mover. pydraughts itself accepts a received move only when it is one of its legal moves
(it matches from, to and the sorted captured squares); an unknown move is dropped and
play() would wait for ever, so every answer has a deadline here and a late one fails.

A game ends when pydraughts sees it over (`board.winner()`), when damka ends it with a
GAMEEND on its turn (its reason is reported), or at --max-plies.

Prints one `game ...` line per game and a final `summary {json}`; exits 1 with a message on
stderr at the first failure.
"""

import argparse
import json
import os
import random
import sys
import threading
import time

import draughts
from draughts.engine import DXPEngine

ANSWER_DEADLINE = 20.0


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--fen")
    parser.add_argument("--initial-time", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    stats = {"games": 0, "plies": 0, "damka_moves": 0, "damka_wins": 0, "results": [],
             "engine_names": [], "max_answer": 0.0}

    for game in range(args.games):
        damka_white = game % 2 == 0
        board = draughts.Board("standard", fen=args.fen) if args.fen else draughts.Board("standard")
        engine = DXPEngine(options={"engine-opened": True, "ip": "127.0.0.1",
                                    "port": args.port, "initial-time": args.initial_time})
        plies = 0
        ended_by = None
        while plies < args.max_plies and board.winner() is None:
            damka_turn = (board.turn == draughts.WHITE) == damka_white
            if not damka_turn:
                board.push(rng.choice(board.legal_moves()))
                plies += 1
                continue
            out = {}

            def ask(b=board.copy(), out=out):
                try:
                    out["result"] = engine.play(b)
                except Exception as error:  # noqa: BLE001 - reported below
                    out["error"] = error

            t0 = time.monotonic()
            thread = threading.Thread(target=ask, daemon=True)
            thread.start()
            while thread.is_alive():
                if engine.sender.current.result is not None:
                    break  # damka sent a GAMEEND instead of a move
                if time.monotonic() - t0 > ANSWER_DEADLINE:
                    fail(f"no (legal) move within {ANSWER_DEADLINE} s in {board.fen} "
                         f"(moves {[m.pdn_move for m in board.move_stack]})")
                time.sleep(0.005)
            elapsed = time.monotonic() - t0
            if engine.sender.current.result is not None:
                ended_by = f"damka GAMEEND reason {engine.sender.current.result}"
                break
            if "error" in out:
                fail(f"play() raised {out['error']!r} in {board.fen}")
            move = out["result"].move
            if move is None:
                fail(f"the connection ended before damka's move in {board.fen}")
            legal = [m.board_move for m in board.legal_moves()]
            if move.board_move not in legal:
                fail(f"move {move.pdn_move} is not legal in {board.fen}")
            stats["max_answer"] = max(stats["max_answer"], elapsed)
            stats["damka_moves"] += 1
            board.push(move)
            plies += 1
        if engine.sender.current.result is None and engine.sender.current.started is False:
            fail("the game was not accepted")
        stats["engine_names"].append(engine.id.get("name"))
        winner = board.winner()
        if ended_by is None:
            ended_by = "pydraughts: game over" if winner is not None else "max plies"
        engine.quit()  # GAMEEND, then pydraughts closes the socket (after its own 7 s wait)
        stats["games"] += 1
        stats["plies"] += plies
        stats["results"].append(winner)
        if winner == (draughts.WHITE if damka_white else draughts.BLACK):
            stats["damka_wins"] += 1
        print(f"game {game} damka_white={damka_white} plies={plies} winner={winner} "
              f"ended_by={ended_by!r} fen={board.fen}", flush=True)

    print("summary " + json.dumps(stats), flush=True)


if __name__ == "__main__":
    main()
