#!/usr/bin/env python3
"""Plays `damka hub` through pydraughts 0.6.7's HubEngine (the lidraughts bot client).

Run with the python of `scripts/pyenv.sh pydraughts pydraughts==0.6.7`:

    pydraughts_client.py ENGINE --variant english --games 2 --max-plies 120 --movetime 0.1
    pydraughts_client.py ENGINE --variant standard --clock 3 --inc 0.05
    pydraughts_client.py ENGINE --variant russian --ponder --movetime 0.05

damka plays complete games (up to --max-plies plies) against pydraughts' own random
mover, first in even games and second in odd ones. In Turkish the random mover skips the
king moves of pydraughts' list that slide through men (a pydraughts bug): damka rightly
refuses a `pos` with one of them. The client is driven exactly as
lidraughts-bot drives it: `configure({"variant": ..., "initial-time": ...})` (an invented
parameter the engine must swallow), `init`, then `play(board, Limit, ponder)` with the whole
game as `pos` + `moves`. Every move damka answers is checked against pydraughts' own legal
moves (pydraughts itself raises on a move it cannot find), and so is the ponder move.

Limits: --movetime S (Limit(movetime=S)), --depth N, or --clock T --inc I: a Fischer clock
for damka that starts at T seconds, loses the wall time of each answer and gains I after
it; it must never fall below zero. --ponder: after each damka move with a ponder move,
`go ponder` runs on a thread on the predicted position, as lidraughts-bot does; the random
opponent plays the predicted move half of the time (then `ponder-hit` and that search's
`done` is played) and otherwise `stop`, its `done` discarded, and a fresh `go think`.

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
from draughts.engine import HubEngine, Limit

# lidraughts-bot's parse_variant: its variant names to Hub's.
HUB_NAME = {"standard": "normal", "english": "english", "russian": "russian",
            "brazilian": "brazilian", "italian": "italian",
            "antidraughts": "antidraughts", "breakthrough": "breakthrough",
            "frisian": "frisian", "frysk": "frysk", "turkish": "turkish"}


def fail(message):
    """Reports and exits at once, also from the pondering thread."""
    print(f"FAIL: {message}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(1)


def check_move(board, move, what):
    legal = [m.board_move for m in board.legal_moves()]
    if move is None or move.board_move not in legal:
        fail(f"{what} {getattr(move, 'hub_move', None)} is not legal in {board.fen}")


def turkish_occupied(board):
    """The occupied squares of a Turkish board, numbered as pydraughts' moves (a1 = 1)."""
    squares = set()
    for side in board.fen.split(":")[1:]:
        for piece in side[1:].split(","):
            square = piece.lstrip("K")
            if square:
                squares.add((int(square[1:]) - 1) * 8 + ord(square[0]) - ord("a") + 1)
    return squares


def squares_between(start, end):
    """The squares strictly between two squares of one row or one column, else None."""
    (row, col), (end_row, end_col) = divmod(start - 1, 8), divmod(end - 1, 8)
    if row != end_row and col != end_col:
        return None
    step_row, step_col = (end_row > row) - (end_row < row), (end_col > col) - (end_col < col)
    between = []
    row, col = row + step_row, col + step_col
    while (row, col) != (end_row, end_col):
        between.append(row * 8 + col + 1)
        row, col = row + step_row, col + step_col
    return between


def truly_legal(board, move):
    """Whether a move of pydraughts' list keeps to the Turkish rules (rules.md): every leg
    runs along a row or column over empty squares, a capture leg over exactly one piece,
    which is taken off at once. pydraughts' kings break this (they slide through men)."""
    occupied = turkish_occupied(board)
    path, captured = move.steps_move, set(move.captures)
    occupied.discard(path[0])
    for start, end in zip(path, path[1:]):
        between = squares_between(start, end)
        if between is None:
            return False
        crossed = [square for square in between if square in occupied]
        if captured:
            if len(crossed) != 1 or crossed[0] not in captured:
                return False
            occupied.discard(crossed[0])
        elif crossed:
            return False
    return True


def random_mover_moves(board, variant):
    """The random mover's choices: pydraughts' legal moves, in Turkish only those that keep
    to the rules, so that damka is never sent a position it (rightly) cannot reach."""
    legal = board.legal_moves()
    if variant != "turkish":
        return legal
    return [move for move in legal if truly_legal(board, move)]


def engine_move(engine, board, limit, ponder=False):
    try:
        return engine.play(board, limit, ponder=ponder)
    except (KeyError, IndexError, ValueError) as error:
        played = " ".join(move.hub_move for move in board.move_stack)
        fail(f"pydraughts could not use damka's answer in {board.fen}: {error!r} "
             f"(the game's moves: {played})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("engine")
    parser.add_argument("--variant", default="standard", choices=sorted(HUB_NAME))
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=120)
    parser.add_argument("--movetime", type=float)
    parser.add_argument("--depth", type=int)
    parser.add_argument("--clock", type=float)
    parser.add_argument("--inc", type=float, default=0.0)
    parser.add_argument("--ponder", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    started = time.monotonic()
    engine = HubEngine([args.engine, "hub"])
    if "variant" not in engine.options or HUB_NAME[args.variant] not in engine.variants:
        fail(f"damka does not offer variant {HUB_NAME[args.variant]}: {engine.variants}")
    engine.configure({"variant": HUB_NAME[args.variant], "initial-time": 60})
    engine.init()
    startup = time.monotonic() - started

    stats = {"variant": args.variant, "games": 0, "plies": 0, "damka_moves": 0,
             "max_answer": 0.0, "min_clock": None, "ponder_hits": 0, "ponder_misses": 0,
             "startup": round(startup, 3), "results": [], "damka_wins": 0}

    for game in range(args.games):
        board = draughts.Board(args.variant)
        damka_first = game % 2 == 0
        clock = args.clock
        plies = 0
        ponder_thread = None
        ponder_result = {}
        predicted = None
        while plies < args.max_plies and board.winner() is None:
            damka_turn = (plies % 2 == 0) == damka_first
            if not damka_turn:
                legal = random_mover_moves(board, args.variant)
                if not legal:
                    fail(f"pydraughts lists no move that keeps to the rules in {board.fen}")
                move = rng.choice(legal)
                if predicted is not None and rng.random() < 0.5:
                    move = next((m for m in legal if m.hub_move == predicted.hub_move), move)
                if ponder_thread is not None:
                    time.sleep(0.02)  # let the ponder search run a little
                board.push(move)
                plies += 1
                continue

            if args.movetime is not None:
                limit = Limit(movetime=args.movetime)
            elif args.depth is not None:
                limit = Limit(depth=args.depth)
            else:
                limit = Limit(time=clock, inc=args.inc)

            t0 = time.monotonic()
            result = None
            if ponder_thread is not None:
                last = board.move_stack[-1]
                if last.hub_move == predicted.hub_move:
                    engine.ponderhit()
                    ponder_thread.join(30)
                    if ponder_thread.is_alive():
                        fail("no done after ponder-hit")
                    result = ponder_result.get("result")
                    stats["ponder_hits"] += 1
                else:
                    while engine._last_sent != "go ponder":  # as pydraughts' ponderhit() waits
                        time.sleep(0.001)
                    engine.stop()
                    ponder_thread.join(30)
                    if ponder_thread.is_alive():
                        fail("no done after stop")
                    stats["ponder_misses"] += 1
                ponder_thread = None
                predicted = None
            if result is None:
                result = engine_move(engine, board, limit)
            elapsed = time.monotonic() - t0
            check_move(board, result.move, "move")
            if engine.info and not isinstance(engine.info.get("score"), dict):
                fail(f"pydraughts could not read the score: {engine.info}")
            stats["max_answer"] = max(stats["max_answer"], elapsed)
            if clock is not None and args.movetime is None and args.depth is None:
                clock = clock - elapsed
                if clock < 0:
                    fail(f"clock overrun: {clock:.3f} s after a move that took {elapsed:.3f} s")
                clock += args.inc
                stats["min_clock"] = clock if stats["min_clock"] is None else min(stats["min_clock"], clock)
            board.push(result.move)
            plies += 1
            stats["damka_moves"] += 1
            if result.ponder is not None:
                # pydraughts already built it against the position after damka's move.
                check_move(board, result.ponder, "ponder move")
                if args.ponder and board.winner() is None:
                    predicted = result.ponder
                    ponder_board = board.copy()
                    ponder_board.push(predicted)
                    if ponder_board.winner() is not None:
                        predicted = None
                        continue
                    ponder_result = {}

                    def ponder(pboard=ponder_board, out=ponder_result):
                        out["result"] = engine_move(engine, pboard, limit, ponder=True)

                    ponder_thread = threading.Thread(target=ponder, daemon=True)
                    ponder_thread.start()
                    while engine._last_sent != "go ponder":
                        time.sleep(0.001)

        if ponder_thread is not None:
            while engine._last_sent != "go ponder":
                time.sleep(0.001)
            engine.stop()
            ponder_thread.join(30)
            if ponder_thread.is_alive():
                fail("no done after the final stop")
        winner = board.winner()
        stats["games"] += 1
        stats["plies"] += plies
        stats["results"].append(winner)
        # pydraughts' first mover is its internal WHITE (2) in every variant.
        if winner == (2 if damka_first else 1):
            stats["damka_wins"] += 1
        print(f"game {game} damka_first={damka_first} plies={plies} winner={winner} "
              f"fen={board.fen}", flush=True)

    engine.quit()
    try:
        engine.p.wait(timeout=5)
    except Exception:
        engine.kill_process()
        fail("damka did not exit after quit")
    engine.p.stdin.close()
    engine.p.stdout.close()
    if engine.p.returncode != 0:
        fail(f"damka exited with {engine.p.returncode}")
    stats["max_answer"] = round(stats["max_answer"], 3)
    if stats["min_clock"] is not None:
        stats["min_clock"] = round(stats["min_clock"], 3)
    print("summary " + json.dumps(stats), flush=True)


if __name__ == "__main__":
    main()
