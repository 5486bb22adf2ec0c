#!/usr/bin/env python3
"""Asks `damka hub` for moves through py-draughts 1.10.1's HubEngine (10x10 only).

Run with the python of `scripts/pyenv.sh pydraughts2 py-draughts==1.10.1`:

    pydraughts2_client.py ENGINE --runs 20 --movetime 0.05 --seed 1

Each run starts the engine afresh (`HubEngine(path).start()`: `hub`, `init`, within the
client's own 10 s limit), asks for a move in the start position and in midgame positions
reached by seeded random playouts (py-draughts sends `pos` with no history, `level
move-time=` or `level depth=`, `go think`), checks that every answer is one of py-draughts'
legal moves, and quits. The client reads with select() and a buffered readline(), so a line
that arrives glued to the previous one is lost and the client waits for ever: a watchdog
(SIGALRM) turns such a hang into a failure. Every other run uses `level depth=` instead of
`level move-time=`.

Prints one `run ...` line per run and a final `summary {json}`; exits 1 with a message on
stderr at the first failure.
"""

import argparse
import json
import random
import signal
import sys
import time

from loguru import logger

from draughts import HubEngine, StandardBoard

logger.remove()  # py-draughts logs every line to stderr through loguru


class Hang(Exception):
    pass


def on_alarm(signum, frame):
    raise Hang()


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def positions(rng, count):
    """The start position and `count` midgame positions from random playouts."""
    boards = [StandardBoard()]
    while len(boards) < count + 1:
        board = StandardBoard()
        for _ in range(rng.randint(6, 60)):
            legal = list(board.legal_moves)
            if not legal:
                break
            board.push(rng.choice(legal))
        if list(board.legal_moves):
            boards.append(board)
    return boards


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("engine")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--positions", type=int, default=3)
    parser.add_argument("--movetime", type=float, default=0.05)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--watchdog", type=int, default=20, help="seconds per run")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    signal.signal(signal.SIGALRM, on_alarm)

    stats = {"runs": 0, "moves": 0, "max_startup": 0.0, "max_answer": 0.0}
    for run in range(args.runs):
        boards = positions(rng, args.positions)
        by_depth = run % 2 == 1
        if by_depth:
            engine = HubEngine(args.engine, depth_limit=args.depth)
        else:
            engine = HubEngine(args.engine, time_limit=args.movetime)
        signal.alarm(args.watchdog)
        stage = "start-up"
        try:
            t0 = time.monotonic()
            engine.start()
            startup = time.monotonic() - t0
            stats["max_startup"] = max(stats["max_startup"], startup)
            if engine.info.name != "damka":
                fail(f"run {run}: engine name {engine.info.name!r}")
            for index, board in enumerate(boards):
                stage = f"position {index} ({board.fen})"
                t1 = time.monotonic()
                move = engine.get_best_move(board)
                stats["max_answer"] = max(stats["max_answer"], time.monotonic() - t1)
                if move not in list(board.legal_moves):
                    fail(f"run {run}: {move} is not legal in {board.fen}")
                stats["moves"] += 1
            stage = "ping"
            if not engine.ping():
                fail(f"run {run}: no pong")
            stage = "quit"
            process = engine.process
            engine.quit()
            if process is not None and process.returncode != 0:
                fail(f"run {run}: damka exited with {process.returncode}")
        except Hang:
            fail(f"run {run}: no answer within {args.watchdog} s at {stage} (py-draughts hangs "
                 "when two lines arrive in one read)")
        except (RuntimeError, ValueError, TimeoutError) as error:
            fail(f"run {run}: py-draughts raised at {stage}: {error}")
        finally:
            signal.alarm(0)
            if engine.process is not None:
                engine.process.kill()
                engine.process.wait()
        stats["runs"] += 1
        print(f"run {run} depth={by_depth} startup={startup:.3f}", flush=True)

    stats["max_startup"] = round(stats["max_startup"], 3)
    stats["max_answer"] = round(stats["max_answer"], 3)
    print("summary " + json.dumps(stats), flush=True)


if __name__ == "__main__":
    main()
