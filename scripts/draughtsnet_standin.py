"""A stand-in for lidraughts' draughtsnet endpoint: serves analysis, move and commentary jobs to the real draughtsnet client and checks every answer with pydraughts.

Usage (run by scripts/draughtsnet-check.sh, with pydraughts 0.6.7 installed):

    python draughtsnet_standin.py --port 9670 --jobs 20 --summary out.json

The client (github RoepStoep/draughtsnet, draughtsnet.py, unmodified) is pointed at
http://127.0.0.1:PORT/ with --endpoint. It POSTs to `acquire` for work and posts each result
to `analysis/ID`, `move/ID` or `commentary/ID`; the answer to a result is the next job (202)
or nothing (204), as lidraughts answers. Partial analyses (progress reports, with empty
entries) get 204 and are not checked. `abort/ID` is recorded as a failure.

For each variant (lidraughts' keys `standard`, `breakthrough`, `frisian`, `antidraughts`,
which the client maps to Scan 3.1's `normal`, `bt`, `frisian` and `losing`), --jobs analysis
jobs and --jobs move jobs (random levels 1-8, half with a clock) are made from random games
that pydraughts plays, plus --commentary commentary jobs. An answer passes when:

- move: the move's from and to squares (and its captured squares, when they tell moves
  apart) are those of a legal move in the position, or the position is over and the move
  empty;
- analysis and commentary: every position that was not skipped has a score (`cp` or `win`);
  a position that is not over has a depth and a principal variation whose every move is legal
  from the position on.

When every job has been answered the summary is written (JSON: per variant and kind, jobs
served, passed, failed with reasons, aborted) and the server keeps answering 204.
"""

import argparse
import json
import random
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from draughts import Board

VARIANTS = ["standard", "breakthrough", "frisian", "antidraughts"]


def hub_position(board):
    """The 51-character Hub string of a 10x10 pydraughts board."""
    side, white, black = board.fen.split(":")
    squares = ["e"] * 51
    for colour, pieces in (("w", white[1:]), ("b", black[1:])):
        for piece in filter(None, pieces.split(",")):
            king = piece.startswith("K")
            number = int(piece.lstrip("K"))
            squares[number] = colour.upper() if king else colour
    return side + "".join(squares[1:])


def random_game(variant, rng, plies):
    """A random game of at most `plies` plies that is not over at its end (or as far as it
    goes): its moves in Hub text."""
    board = Board(variant=variant)
    moves = []
    for _ in range(plies):
        legal = board.legal_moves()
        if board.is_over() or not legal:
            break
        move = rng.choice(legal)
        board.push(move)
        if board.is_over():
            board.pop()
            break
        moves.append(move.hub_move)
    return moves


def board_after(variant, moves):
    board = Board(variant=variant)
    for text in moves:
        match = [m for m in board.legal_moves() if m.hub_move == text]
        if not match:
            raise ValueError("stand-in: own move %s not legal" % text)
        board.push(match[0])
    return board


def matching(board, from_to, taken=""):
    """Legal moves of `board` with these from and to squares (4 digits) and, when given,
    these captured squares (2 digits each)."""
    if len(from_to) != 4 or not from_to.isdigit():
        return []
    start, end = int(from_to[:2]), int(from_to[2:])
    found = [m for m in board.legal_moves() if m.steps_move[0] == start and m.steps_move[-1] == end]
    if taken and len(found) > 1:
        wanted = sorted(int(taken[i:i + 2]) for i in range(0, len(taken), 2))
        found = [m for m in found if sorted(m.captures) == wanted]
    return found


def over(board):
    return board.is_over() or not board.legal_moves()


def check_pv(board, pv):
    """None when every move of `pv` (4-digit moves) is legal in turn from `board`, else why."""
    boards = [board]
    for index, text in enumerate(pv.split()):
        following = []
        for current in boards:
            if over(current):
                continue
            for move in matching(current, text):
                after = current.copy()
                after.push(move)
                following.append(after)
        if not following:
            return "pv move %d '%s' is not legal" % (index + 1, text)
        boards = following[:8]
    return None


def check_entry(board, entry):
    """None when one analysed position's entry is acceptable, else why."""
    if not isinstance(entry, dict):
        return "no entry"
    score = entry.get("score")
    if not isinstance(score, dict) or not ("cp" in score or "win" in score):
        return "no score: %r" % entry
    if over(board):
        return None
    if not entry.get("depth"):
        return "no depth: %r" % entry
    pv = entry.get("pv")
    if not pv:
        return "no pv: %r" % entry
    return check_pv(board, pv)


class Jobs:
    """Every job, what was answered, and the checks."""

    def __init__(self, count, commentary, nodes, seed):
        rng = random.Random(seed)
        self.lock = threading.Lock()
        self.queue = []
        self.jobs = {}
        self.results = {}
        self.aborted = []
        number = 0
        for variant in VARIANTS:
            kinds = ["analysis"] * count + ["move"] * count + ["commentary"] * commentary
            for index, kind in enumerate(kinds):
                number += 1
                plies = rng.randint(2, 12) if kind == "analysis" else rng.randint(0, 40)
                moves = random_game(variant, rng, plies)
                job_id = "%s%s%03d" % (variant[:2], kind[:2], index)
                work = {"type": kind, "id": job_id}
                job = {
                    "work": work,
                    "game_id": "game%04d" % number,
                    "position": hub_position(Board(variant=variant)),
                    "variant": variant,
                    "moves": " ".join(moves),
                }
                if kind == "move":
                    work["level"] = rng.randint(1, 8)
                    if index % 2 == 0:
                        work["clock"] = {"wtime": 30000, "btime": 30000, "inc": 0}
                elif nodes:
                    job["nodes"] = nodes
                if kind == "analysis" and index % 4 == 1:
                    job["skipPositions"] = [0]
                self.jobs[job_id] = job
                self.queue.append(job_id)
        rng.shuffle(self.queue)
        self.total = len(self.queue)

    def next_job(self):
        with self.lock:
            return self.jobs[self.queue.pop()] if self.queue else None

    def finished(self):
        with self.lock:
            return len(self.results) + len(self.aborted) >= self.total

    def record(self, kind, job_id, body):
        job = self.jobs.get(job_id)
        if job is None or job["work"]["type"] != kind:
            return "unknown job %s/%s" % (kind, job_id)
        variant = job["variant"]
        moves = job["moves"].split()
        problems = []
        if kind == "move":
            answer = body.get("move") or {}
            board = board_after(variant, moves)
            best = answer.get("bestmove")
            if best in (None, ""):
                if not over(board):
                    problems.append("no move in a live position")
            elif not matching(board, best, answer.get("taken", "")):
                problems.append("move %s (taken %s) not legal" % (best, answer.get("taken")))
        elif kind == "commentary":
            problem = check_entry(board_after(variant, moves), body.get("commentary"))
            if problem:
                problems.append(problem)
        else:
            entries = body.get("analysis") or []
            # The client drops a breakthrough game's last move when it promotes.
            if len(entries) not in (len(moves) + 1, len(moves)):
                problems.append("%d entries for %d moves" % (len(entries), len(moves)))
            skipped = set(job.get("skipPositions", []))
            for ply, entry in enumerate(entries):
                if ply in skipped:
                    if not (isinstance(entry, dict) and entry.get("skipped")):
                        problems.append("ply %d not marked skipped" % ply)
                    continue
                problem = check_entry(board_after(variant, moves[:ply]), entry)
                if problem:
                    problems.append("ply %d: %s" % (ply, problem))
        with self.lock:
            self.results[job_id] = problems
        return None

    def summary(self):
        with self.lock:
            table = {}
            for job_id, job in self.jobs.items():
                row = table.setdefault(job["variant"], {}).setdefault(
                    job["work"]["type"], {"jobs": 0, "answered": 0, "passed": 0, "failed": [], "aborted": 0})
                row["jobs"] += 1
                if job_id in self.results:
                    row["answered"] += 1
                    if self.results[job_id]:
                        row["failed"].append({job_id: self.results[job_id][:3]})
                    else:
                        row["passed"] += 1
                if job_id in self.aborted:
                    row["aborted"] += 1
            ok = all(
                row["passed"] == row["jobs"] and row["aborted"] == 0
                for kinds in table.values() for row in kinds.values())
            return {"ok": ok, "variants": table}


def make_handler(jobs, summary_path):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, body=None):
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            if data:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def next_job(self):
            job = jobs.next_job()
            if job is None:
                self.reply(204)
            else:
                self.reply(202, job)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self.reply(400, {"error": "not JSON"})
                return
            parts = self.path.strip("/").split("/")
            kind = parts[-2] if len(parts) >= 2 else parts[-1]
            job_id = parts[-1]
            if parts[-1] == "acquire":
                self.next_job()
            elif kind == "abort":
                with jobs.lock:
                    jobs.aborted.append(job_id)
                self.reply(204)
            elif kind == "analysis" and None in (body.get("analysis") or []):
                self.reply(204)  # a progress report
            elif kind in ("analysis", "move", "commentary"):
                problem = jobs.record(kind, job_id, body)
                if problem:
                    self.reply(400, {"error": problem})
                    return
                self.next_job()
            else:
                self.reply(404, {"error": "no such endpoint"})
            if jobs.finished():
                with open(summary_path, "w") as out:
                    json.dump(jobs.summary(), out, indent=1)

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9670)
    parser.add_argument("--jobs", type=int, default=20, help="analysis and move jobs per variant")
    parser.add_argument("--commentary", type=int, default=2, help="commentary jobs per variant")
    parser.add_argument("--nodes", type=int, default=0,
                        help="nodes per analysed position (default: none sent, so the client's own 5,000,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--summary", required=True, help="where to write the summary (JSON)")
    args = parser.parse_args()
    jobs = Jobs(args.jobs, args.commentary, args.nodes, args.seed)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(jobs, args.summary))
    print("stand-in: %d jobs on http://127.0.0.1:%d/" % (jobs.total, args.port), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
