#!/usr/bin/env python3
"""A match of damka against dame (the `dame-rs` PyPI package), international draughts, over Hub.

Run it with the pydraughts venv's python (pydraughts referees the rules):

  py=$(scripts/pyenv.sh pydraughts pydraughts==0.6.7 | tail -n 1)
  dame_py=$(scripts/pyenv.sh dame dame-rs==0.2.0 | tail -n 1)
  cargo build --release
  "$py" scripts/match_dame.py --games 40 --movetime 0.3 \\
      --dame "$(dirname "$dame_py")/dame" --pdn target/match_dame.pdn

Both engines run one thread with a 64 MB table (`set-param name=hash value=64`; damka's
`threads` stays 1), each one persistent process for the whole match (`new-game` before
every game; a crashed engine is restarted). Every move is asked with pydraughts'
`HubEngine.play(board, Limit(movetime=T))`, i.e. `pos pos=START moves="..."`,
`level move-time=T`, `go think`.

Openings: `--games` / 2 pairs; pair k plays `--opening-plies` random legal plies from the
start (random.Random(seed * 1000 + k), distinct openings), twice, damka White in the first
game and Black in the second.

Adjudication (pydraughts' `Board` is the referee):
  * the side to move with no legal move loses (`Board.winner()`);
  * draws by pydraughts' FMJD rules for `standard`: 3-fold repetition, 25 moves of kings
    only without capture or man move, the 16- and 5-move rules of 1 king against 3 / 2
    pieces with a king;
  * a draw when the game reaches `--max-plies` (default 150) plies, openings included;
  * an engine that answers a move that is not legal (pydraughts cannot map it to a legal
    move), answers no move, crashes (end of output), or takes longer than `--hang` seconds
    (default 5 s; it is sent `stop`, and killed 2 s later) loses the game;
  * moves slower than movetime + `--slack` (default 0.1 s) are counted and reported per
    engine, but not punished.

Output: one line per game and a running score, then W/D/L from damka's side, the score,
and an Elo difference with 95% intervals by two methods: the normal approximation over
the game results (trinomial) and over the opening pairs (pentanomial; the better one for
paired openings), both through the logistic formula Elo = -400 log10(1/s - 1).
"""
import argparse
import math
import os
import random
import statistics
import sys
import threading
import time

import draughts
from draughts import WHITE, BLACK
from draughts.engine import HubEngine, Limit

from damka_proc import default_binary


class Player:
    """One engine behind pydraughts' HubEngine, restartable after a crash."""

    def __init__(self, name, command, hash_mb):
        self.name = name
        self.command = command
        self.hash_mb = hash_mb
        self.engine = None
        self.version = "?"
        self.times = []
        self.depths = []
        self.slow = 0
        self.crashes = 0
        self.illegal = 0
        self.hangs = 0
        self.start()

    def start(self):
        self.engine = HubEngine(self.command)
        self.version = self.engine.id.get("version", "?")
        self.engine.setoption("hash", self.hash_mb)
        self.engine.init()

    def restart(self):
        try:
            self.engine.kill_process()
        except Exception:
            pass
        self.start()

    def new_game(self):
        self.engine.send("new-game")

    def quit(self):
        try:
            self.engine.quit()
            self.engine.p.wait(timeout=5)
            self.engine.p.stdin.close()
            self.engine.p.stdout.close()
        except Exception:
            try:
                self.engine.kill_process()
            except Exception:
                pass

    def move(self, board, movetime, hang):
        """Returns (move or None, reason, seconds)."""
        engine = self.engine
        state = {"stopped": False}

        def watchdog_stop():
            state["stopped"] = True
            try:
                engine.stop()
            except Exception:
                pass

        def watchdog_kill():
            try:
                engine.kill_process()
            except Exception:
                pass

        t_stop = threading.Timer(hang, watchdog_stop)
        t_kill = threading.Timer(hang + 2.0, watchdog_kill)
        t_stop.start()
        t_kill.start()
        t0 = time.monotonic()
        try:
            result = engine.play(board, Limit(movetime=movetime), ponder=False)
            reason = None
        except EOFError:
            result, reason = None, "crash"
        except (KeyError, ValueError, IndexError) as e:
            result, reason = None, f"illegal ({e!r})"
        finally:
            t_stop.cancel()
            t_kill.cancel()
        seconds = time.monotonic() - t0
        if state["stopped"]:
            self.hangs += 1
            return None, f"hang (no answer within {hang} s)", seconds
        if result is None:
            if reason == "crash":
                self.crashes += 1
            else:
                self.illegal += 1
            return None, reason, seconds
        mv = result.move
        legal = [m.hub_move for m in board.legal_moves()]
        if mv is None or mv.hub_move not in legal:
            self.illegal += 1
            return None, f"illegal ({getattr(mv, 'hub_move', None)})", seconds
        self.times.append(seconds)
        if isinstance(result.info, dict) and "depth" in result.info:
            self.depths.append(result.info["depth"])
        return mv, None, seconds


def opening(rng, plies):
    board = draughts.Board("standard")
    moves = []
    for _ in range(plies):
        legal = board.legal_moves()
        if not legal or board.is_over():
            break
        m = rng.choice(legal)
        moves.append(m.hub_move)
        board.push(m)
    return moves


def play_game(players, opening_moves, args):
    """players: {WHITE: Player, BLACK: Player}. Returns (result for White 1/0.5/0, reason,
    pdn move list)."""
    board = draughts.Board("standard")
    pdn = []
    for hm in opening_moves:
        m = draughts.Move(board, hub_move=hm)
        pdn.append(m.pdn_move)
        board.push(m)
    for p in players.values():
        p.new_game()
    while True:
        winner = board.winner()
        if winner is not None:
            if winner == 0:
                return 0.5, "draw (pydraughts rules: repetition or king-move rule)", pdn
            side = "White" if winner == WHITE else "Black"
            return (1.0 if winner == WHITE else 0.0), f"{side} wins (no legal move)", pdn
        if len(board.move_stack) >= args.max_plies:
            return 0.5, f"draw ({args.max_plies} plies)", pdn
        turn = board.turn
        player = players[turn]
        mv, reason, seconds = player.move(board, args.movetime, args.hang)
        if seconds > args.movetime + args.slack and mv is not None:
            player.slow += 1
            print(f"    slow move: {player.name} {seconds:.3f} s at ply {len(board.move_stack) + 1}",
                  flush=True)
        if mv is None:
            print(f"    {player.name} loses: {reason} at ply {len(board.move_stack) + 1}",
                  flush=True)
            # A fresh process is the simplest clean state after a crash, a hang or an
            # illegal move.
            player.restart()
            return (0.0 if turn == WHITE else 1.0), f"{player.name} {reason}", pdn
        pdn.append(mv.pdn_move)
        board.push(mv)


def elo(score):
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def interval(values):
    """Mean and 95% normal interval of the mean of the values (each in [0, 1])."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    half = 1.959964 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def fmt_elo(x):
    return f"{x:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--damka", default=default_binary())
    ap.add_argument("--dame", required=True, help="the dame executable (venv bin/dame)")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--movetime", type=float, default=0.3)
    ap.add_argument("--opening-plies", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=150)
    ap.add_argument("--hang", type=float, default=5.0)
    ap.add_argument("--slack", type=float, default=0.1)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--pdn", help="write the games to this PDN file")
    args = ap.parse_args()

    damka = Player("damka", [os.path.abspath(args.damka), "hub"], args.hash)
    dame = Player("dame", [os.path.abspath(args.dame), "hub"], args.hash)
    print(f"damka {damka.version} vs dame {dame.version}; {args.games} games, "
          f"move-time {args.movetime} s, openings of {args.opening_plies} random plies "
          f"(seed {args.seed}), draw at {args.max_plies} plies; load {os.getloadavg()[0]:.2f}",
          flush=True)

    pairs = (args.games + 1) // 2
    seen = set()
    openings = []
    k = 0
    while len(openings) < pairs:
        rng = random.Random(args.seed * 1000 + k)
        k += 1
        o = opening(rng, args.opening_plies)
        if tuple(o) in seen:
            continue
        seen.add(tuple(o))
        openings.append(o)

    results = []  # damka's score per game
    pair_scores = []
    wdl = [0, 0, 0]
    pdn_games = []
    t_start = time.monotonic()
    game_no = 0
    for k, o in enumerate(openings):
        pair = []
        for damka_white in (True, False):
            if game_no >= args.games:
                break
            game_no += 1
            players = {WHITE: damka, BLACK: dame} if damka_white else {WHITE: dame, BLACK: damka}
            t0 = time.monotonic()
            white_score, reason, pdn = play_game(players, o, args)
            s = white_score if damka_white else 1 - white_score
            results.append(s)
            pair.append(s)
            wdl[0 if s == 1 else 1 if s == 0.5 else 2] += 1
            score = sum(results)
            print(f"game {game_no:3d} pair {k + 1:2d} damka {'White' if damka_white else 'Black'} "
                  f"opening {' '.join(o):24s} plies {len(pdn):3d} damka {s:3.1f}  {reason:40s} "
                  f"running {score:.1f}/{len(results)} (+{wdl[0]} ={wdl[1]} -{wdl[2]}) "
                  f"{time.monotonic() - t0:5.1f} s load {os.getloadavg()[0]:.2f}", flush=True)
            white_name, black_name = ("damka", "dame") if damka_white else ("dame", "damka")
            res = {1.0: "2-0", 0.5: "1-1", 0.0: "0-2"}[white_score]
            pdn_games.append((game_no, white_name, black_name, res, reason, pdn))
        if len(pair) == 2:
            pair_scores.append(sum(pair) / 2)

    n = len(results)
    score = sum(results)
    print()
    print(f"damka {damka.version} vs dame {dame.version}: {n} games in "
          f"{(time.monotonic() - t_start) / 60:.1f} min, move-time {args.movetime} s")
    print(f"damka W/D/L: {wdl[0]}/{wdl[1]}/{wdl[2]}  score {score:.1f}/{n} = {100 * score / n:.1f}%")
    m, lo, hi = interval(results)
    print(f"Elo (trinomial, per game): {fmt_elo(elo(m))}  95% [{fmt_elo(elo(lo))}, {fmt_elo(elo(hi))}]")
    if len(pair_scores) >= 2:
        m, lo, hi = interval(pair_scores)
        counts = [sum(1 for p in pair_scores if p == v) for v in (0, 0.25, 0.5, 0.75, 1)]
        print(f"Elo (pentanomial, {len(pair_scores)} pairs, pair scores 0/0.5/1/1.5/2 counted "
              f"{counts}): {fmt_elo(elo(m))}  95% [{fmt_elo(elo(lo))}, {fmt_elo(elo(hi))}]")
    for p in (damka, dame):
        t = p.times
        print(f"{p.name}: moves {len(t)}, time per move mean {statistics.mean(t):.3f} s, "
              f"max {max(t):.3f} s, slower than {args.movetime + args.slack:.2f} s: {p.slow}; "
              f"mean depth {statistics.mean(p.depths) if p.depths else float('nan'):.1f}; "
              f"illegal {p.illegal}, crashes {p.crashes}, hangs {p.hangs}")
    damka.quit()
    dame.quit()

    if args.pdn:
        with open(args.pdn, "w") as f:
            for g, w, b, res, reason, pdn in pdn_games:
                f.write(f'[Event "damka vs dame, move-time {args.movetime} s"]\n')
                f.write(f'[Round "{g}"]\n[White "{w}"]\n[Black "{b}"]\n[Result "{res}"]\n')
                f.write(f'[GameType "20"]\n[Termination "{reason}"]\n\n')
                words = []
                for i, mv in enumerate(pdn):
                    if i % 2 == 0:
                        words.append(f"{i // 2 + 1}.")
                    words.append(mv)
                words.append(res)
                line = ""
                for w_ in words:
                    if len(line) + len(w_) + 1 > 78:
                        f.write(line.rstrip() + "\n")
                        line = ""
                    line += w_ + " "
                f.write(line.rstrip() + "\n\n")


if __name__ == "__main__":
    main()
