#!/usr/bin/env python3
"""Independent legal-move oracle for damka, backed by `py-draughts` (1.10.1).

Run it with the python of the venv made by `scripts/pyenv.sh pydraughts2
py-draughts==1.10.1` (py-draughts imports as `draughts`, like pydraughts, so
each library needs its own venv).

Same command line and output as pydraughts_oracle.py:

    pydraughts2_oracle.py --variant international --positions 2500 --seed 7
    pydraughts2_oracle.py --variant russian --fen 'B:W12,17:B13' [--fen ...]
    pydraughts2_oracle.py --variant brazilian --stdin  < fens.txt

prints `FEN<TAB>MOVE MOVE ...` per position, in the standard PDN numbering,
with MOVE = `F-T` or `FxT:C1,C2,...` (captured squares sorted), the set of
(from, to, captured-set) triples sorted as strings, empty after the TAB when
there is no legal move.

Variants: international (StandardBoard), russian (RussianBoard), brazilian
(BrazilianBoard).  english is NOT offered: py-draughts' AmericanBoard treats
captures as optional, which is not the English rule.

Numbering
---------
py-draughts keeps its boards as bitboards indexed 0..N-1 in the standard
order: index 0 is b10 / b8 (the top-left playable square as seen by White),
row by row, White's men start on the bottom rows and White moves first, in all
three variants (its russian/brazilian SQUARE_NAMES list b8, d8, ..., g1).  So
standard square = index + 1 and the colours are the standard ones; its FEN and
move strings already use that numbering.  We read the Move objects'
`square_list` / `captured_list` (indices) rather than their strings.
"""

import argparse
import random
import sys

from draughts import BrazilianBoard, Color, RussianBoard, StandardBoard
from oracle_text import add_common_arguments, fens_asked, format_fen, format_move, parse_fen

BOARDS = {
    "international": StandardBoard,
    "russian": RussianBoard,
    "brazilian": BrazilianBoard,
}


def board_from_std_fen(cls, fen):
    """Build a py-draughts board from a standard FEN.

    We set the four bitboards directly instead of using `from_fen`, because
    from_fen rejects a man standing on its own promotion row; such a position
    is unreachable in play but may be asked about, and the move generator
    handles it fine.
    """
    side, white, black = parse_fen(fen, cls.SQUARES_COUNT)
    board = cls(turn=Color.WHITE if side == "W" else Color.BLACK)
    wm = wk = bm = bk = 0
    for s, k in white:
        if k:
            wk |= 1 << (s - 1)
        else:
            wm |= 1 << (s - 1)
    for s, k in black:
        if k:
            bk |= 1 << (s - 1)
        else:
            bm |= 1 << (s - 1)
    board.white_men, board.white_kings, board.black_men, board.black_kings = wm, wk, bm, bk
    board._initial_state = board._pdn_state()
    return board


def std_fen(board):
    white, black = [], []
    for i in range(board.SQUARES_COUNT):
        bit = 1 << i
        if board.white_men & bit:
            white.append((i + 1, False))
        elif board.white_kings & bit:
            white.append((i + 1, True))
        elif board.black_men & bit:
            black.append((i + 1, False))
        elif board.black_kings & bit:
            black.append((i + 1, True))
    return format_fen("W" if board.turn == Color.WHITE else "B", white, black)


def std_moves(moves):
    """py-draughts Move objects -> sorted, deduplicated standard move strings."""
    out = set()
    for m in moves:
        frm, to = m.square_list[0] + 1, m.square_list[-1] + 1
        out.add(format_move(frm, to, [c + 1 for c in m.captured_list]))
    return sorted(out)


def emit(out, fen, moves):
    out.write(fen + "\t" + " ".join(moves) + "\n")


def run_fens(cls, fens, out):
    for fen in fens:
        board = board_from_std_fen(cls, fen)
        emit(out, std_fen(board), std_moves(board.legal_moves))


def run_random(cls, n, seed, max_plies, quiet_keep, out):
    rng = random.Random(seed)
    seen = set()
    while len(seen) < n:
        board = cls()  # the variant's start position
        # Random game lengths; long ones give kings and king captures.
        length = rng.randint(1, max_plies)
        for ply in range(length + 1):
            moves = board.legal_moves
            fen = std_fen(board)
            # Bias the sample: always keep the start position, positions with
            # kings and positions with a forced capture; only some quiet ones.
            interesting = (not seen or board.white_kings or board.black_kings
                           or any(m.captured_list for m in moves))
            if fen not in seen and (interesting or rng.random() < quiet_keep):
                seen.add(fen)
                emit(out, fen, std_moves(moves))
                if len(seen) >= n:
                    return
            if not moves or ply == length:
                break  # game over (side to move is stuck) or length reached
            # Draw rules are ignored: they never change a position's legal moves.
            board.push(rng.choice(moves))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(ap, BOARDS)
    args = ap.parse_args()

    cls = BOARDS[args.variant]
    out = sys.stdout
    fens = fens_asked(args, sys.stdin)
    if fens is not None:
        run_fens(cls, fens, out)
    else:
        run_random(cls, args.positions, args.seed, args.max_plies, args.quiet_keep, out)
    out.flush()


if __name__ == "__main__":
    main()
