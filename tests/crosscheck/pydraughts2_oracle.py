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

BOARDS = {
    "international": StandardBoard,
    "russian": RussianBoard,
    "brazilian": BrazilianBoard,
}


def format_fen(side, white, black):
    """side: 'W'/'B'; white/black: iterables of (square, is_king) in standard numbering."""
    def lst(pieces):
        return ",".join(("K" if k else "") + str(s) for s, k in sorted(pieces))
    return f"{side}:W{lst(white)}:B{lst(black)}"


def parse_fen(fen, squares):
    """Parse a standard PDN FEN `W:W31,K40:B1-3,K19` -> (side, [(sq, king)], [(sq, king)]).

    Squares outside 1..squares or given twice are errors (the libraries
    would otherwise silently drop or overwrite them).
    """
    parts = fen.strip().split(":")
    if len(parts) != 3 or parts[0].upper() not in ("W", "B"):
        raise ValueError(f"bad FEN {fen!r}")
    side = parts[0].upper()
    lists = {}
    for part in parts[1:]:
        colour, body = part[0].upper(), part[1:]
        pieces = []
        for tok in filter(None, (t.strip() for t in body.split(","))):
            king = tok[0] in "Kk"
            tok = tok[1:] if king else tok
            if "-" in tok:  # PDN range, e.g. 1-12
                a, b = map(int, tok.split("-"))
                pieces.extend((s, king) for s in range(a, b + 1))
            else:
                pieces.append((int(tok), king))
        lists[colour] = pieces
    white, black = lists.get("W", []), lists.get("B", [])
    used = [s for s, _ in white + black]
    if any(not 1 <= s <= squares for s in used) or len(set(used)) != len(used):
        raise ValueError(f"bad FEN {fen!r}: square out of range 1..{squares} or repeated")
    return side, white, black


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
        if m.captured_list:
            out.add(f"{frm}x{to}:" + ",".join(str(c + 1) for c in sorted(m.captured_list)))
        else:
            out.add(f"{frm}-{to}")
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
    ap.add_argument("--variant", required=True, choices=sorted(BOARDS))
    ap.add_argument("--positions", type=int, default=100, help="distinct positions to print (random mode)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-plies", type=int, default=150, help="longest random game")
    ap.add_argument("--quiet-keep", type=float, default=0.3,
                    help="fraction of king-less, capture-less positions kept (random mode)")
    ap.add_argument("--fen", action="append", default=[], help="print this standard FEN's moves instead (repeatable)")
    ap.add_argument("--stdin", action="store_true", help="read standard FENs, one per line, from stdin")
    args = ap.parse_args()

    cls = BOARDS[args.variant]
    out = sys.stdout
    if args.fen or args.stdin:
        fens = list(args.fen)
        if args.stdin:
            fens += [line.strip() for line in sys.stdin if line.strip()]
        run_fens(cls, fens, out)
    else:
        run_random(cls, args.positions, args.seed, args.max_plies, args.quiet_keep, out)
    out.flush()


if __name__ == "__main__":
    main()
