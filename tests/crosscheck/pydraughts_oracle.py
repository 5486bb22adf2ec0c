#!/usr/bin/env python3
"""Independent legal-move oracle for damka, backed by `pydraughts` (0.6.7).

Run it with the python of the venv made by `scripts/pyenv.sh pydraughts
pydraughts==0.6.7` (the package imports as `draughts`, like py-draughts, so
each library needs its own venv).

Modes
-----
Random playouts (the default):

    pydraughts_oracle.py --variant russian --positions 2500 --seed 7

plays random games with pydraughts from the start position and prints one line
per distinct position reached.  FEN mode (`--fen FEN`, repeatable, or
`--stdin` for one FEN per line) prints the same kind of line for given
positions instead, which is how the known positions are checked; with
`--successors` each move is followed by `=` and the FEN pydraughts reaches
by playing it (`F-T=FEN`), which is how tests/checkerboard.rs judges the
boards a CheckerBoard engine returns.

Output, one line per position, everything in the STANDARD PDN numbering:

    FEN<TAB>MOVE MOVE ...

FEN is `W:W31,32,K40:B1,2,K19` (side to move, then each colour's squares in
increasing order, K for kings).  A MOVE is `F-T` or `FxT:C1,C2,...` (captured
squares sorted).  The moves are the SET of (from, to, captured-set) triples,
so two capture paths that differ only in where a king lands on the way are
one move; they are sorted as strings.  No legal move: empty field after TAB.

Numbering
---------
We drive pydraughts' internal `draughts.core.game.Game` directly (it is what
the public `draughts.Board` wraps; using it avoids per-move notation
conversions and is several times faster).  Its internal board is the same in
every variant: squares are numbered from the top-left playable square
(1 = b8 on 8x8, b10 on 10x10), row by row, exactly like the standard PDN
numbering; internal WHITE (=2) starts at the bottom (21-32 / 31-50), moves up,
and moves first; internal BLACK (=1) starts at the top.

* international ("standard" in pydraughts), russian, brazilian: the internal
  board IS the standard board, colours included, so squares map 1:1.
  (pydraughts' public API shows russian/brazilian squares differently --
  numbers counted from a1 (a1=1, b8=29) and algebraic FENs -- but that is a
  display conversion, `_rotate_move` notation 0, which we bypass.)
* english: pydraughts keeps "the side that moves first starts at the bottom"
  internally, so its internal WHITE is the real BLACK.  The public API turns
  the board 180 degrees (`_rotate_move` notation 1: n -> 33 - n) and swaps
  the colours.  We do the same: standard square = 33 - internal square,
  internal WHITE <-> standard Black.  E.g. internal WHITE men on 21-32 become
  Black men on 1-12, Black to move.

`--selfcheck` re-derives every position's move set through the public
`draughts.Board` API (with its own variant notation, converted back to
standard numbering by a formula written here) and aborts on any difference;
that cross-validates the conversions above.
"""

import argparse
import random
import sys

from draughts.core.game import Game
from oracle_text import add_common_arguments, fens_asked, format_fen, format_move, parse_fen

INTERNAL_WHITE = 2  # draughts.core.game.WHITE
INTERNAL_BLACK = 1

# Our variant names -> pydraughts variant names.
PD_VARIANT = {
    "international": "standard",
    "english": "english",
    "russian": "russian",
    "brazilian": "brazilian",
    "antidraughts": "antidraughts",
    "breakthrough": "breakthrough",
    "frisian": "frisian",
    "frysk": "frysk!",
    "turkish": "turkish",
}
BOARD_SQUARES = {"international": 50, "english": 32, "russian": 32, "brazilian": 32,
                 "antidraughts": 50, "breakthrough": 50, "frisian": 50, "frysk": 50,
                 "turkish": 64}
# Variants whose legal moves depend on the moves before the position (Frisian: a king may
# make at most three non-capturing moves in a row). A FEN does not carry that history, so
# their move sets are computed from the FEN alone, as damka sees the printed position.
HISTORY_VARIANTS = ("frisian", "frysk")
# Variants whose goal differs from "the side that cannot move loses": their lines get a
# third field, the winner pydraughts sees in the position (`W`, `B`, or `-` while the game
# goes on), and their random games stop when someone has won.
GOAL_VARIANTS = ("antidraughts", "breakthrough")


class Conv:
    """Conversion between pydraughts' internal Game numbering/colours and the standard ones."""

    def __init__(self, variant):
        self.variant = variant
        self.n = BOARD_SQUARES[variant]
        # english: internal board is turned 180 degrees with colours swapped.
        self.flip = variant == "english"

    def sq(self, s):
        """Internal square <-> standard square (the map is its own inverse)."""
        return self.n + 1 - s if self.flip else s

    def colour(self, internal_player):
        """Internal player number -> standard colour letter."""
        white = internal_player == INTERNAL_WHITE
        if self.flip:
            white = not white
        return "W" if white else "B"

    def internal_player(self, colour):
        """Standard colour letter -> internal player number."""
        white = colour == "W"
        if self.flip:
            white = not white
        return INTERNAL_WHITE if white else INTERNAL_BLACK


def game_from_std_fen(conv, fen):
    """Build an internal pydraughts Game from a standard FEN."""
    side, white, black = parse_fen(fen, conv.n)
    by_player = {INTERNAL_WHITE: [], INTERNAL_BLACK: []}
    for colour, pieces in (("W", white), ("B", black)):
        for s, k in pieces:
            by_player[conv.internal_player(colour)].append(("K" if k else "") + str(conv.sq(s)))
    turn = "W" if conv.internal_player(side) == INTERNAL_WHITE else "B"
    # Game() takes an "li fen" (internal numbering) when the string contains ':'.
    li = f"{turn}:W{','.join(by_player[INTERNAL_WHITE])}:B{','.join(by_player[INTERNAL_BLACK])}"
    return Game(PD_VARIANT[conv.variant], li)


def std_fen(conv, game):
    """Standard FEN of an internal Game."""
    pieces = {"W": [], "B": []}
    for p in game.board.searcher.uncaptured_pieces:
        pieces[conv.colour(p.player)].append((conv.sq(p.position), p.king))
    return format_fen(conv.colour(game.whose_turn()), pieces["W"], pieces["B"])


def std_moves(conv, moves, captures):
    """Internal (moves, captures) from Game.legal_moves() -> sorted, deduplicated standard move strings.

    A move is a list of [from, to] steps; its capture list is [None] for a
    non-capture, else the captured internal squares in capture order.
    """
    out = set()
    for steps, caps in zip(moves, captures):
        caps = [c for c in caps if c is not None]
        out.add(format_move(conv.sq(steps[0][0]), conv.sq(steps[-1][1]), [conv.sq(c) for c in caps]))
    return sorted(out)


# ---------------------------------------------------------------------------
# Self-check through the public API (draughts.Board), which applies
# pydraughts' own per-variant notation.
# ---------------------------------------------------------------------------

def public_to_std(variant, p):
    """Square in pydraughts' public notation -> standard square.

    international, english: the public numbering is already standard.
    russian/brazilian: public numbers count from a1 along White's first rank
    (a1=1, c1=2, e1=3, g1=4, b2=5, ..., b8=29, h8=32); standard numbers count
    from b8 (b8=1, ..., a1=29), same left-to-right order within a rank.
    """
    if variant in ("russian", "brazilian"):
        rank0, k = divmod(p - 1, 4)          # rank0 = 0 for rank 1
        return (7 - rank0) * 4 + k + 1
    return p


def std_to_algebraic(s):
    """Standard 8x8 square -> algebraic (e.g. 1 -> b8, 29 -> a1)."""
    row, k = divmod(s - 1, 4)                # row 0 = rank 8
    file = 2 * k + (1 if row % 2 == 0 else 0)
    return "abcdefgh"[file] + str(8 - row)


def public_moves(variant, fen):
    """Legal moves of a standard FEN computed via the public draughts.Board API."""
    import draughts
    side, white, black = parse_fen(fen, BOARD_SQUARES[variant])
    if variant in ("russian", "brazilian"):
        # Their public FENs are algebraic (numeric ones would be a1-based).
        name = lambda s: std_to_algebraic(s)
    else:
        name = str
    def lst(pieces):
        return ",".join(("K" if k else "") + name(s) for s, k in pieces)
    board = draughts.Board(PD_VARIANT[variant], f"{side}:W{lst(white)}:B{lst(black)}")
    out = set()
    for m in board.legal_moves():
        caps = [public_to_std(variant, c) for c in (m.captures or []) if c is not None]
        out.add(format_move(public_to_std(variant, m.board_move[0][0]),
                            public_to_std(variant, m.board_move[-1][1]), caps))
    return sorted(out)


# ---------------------------------------------------------------------------

def emit(out, fen, moves, winner=None):
    line = fen + "\t" + " ".join(moves)
    if winner is not None:
        line += "\t" + winner
    out.write(line + "\n")


def any_king(game):
    """True when a king of either side is on the board."""
    return any(p.king for p in game.board.searcher.uncaptured_pieces)


def winner_of(conv, game):
    """`W`/`B` if pydraughts says that colour has won (draw rules ignored), else `-`."""
    for player in (INTERNAL_WHITE, INTERNAL_BLACK):
        if game.has_player_won(player):
            return conv.colour(player)
    return "-"


def successors(conv, fen, moves, captures):
    """`MOVE=FEN` for each legal move: the standard FEN after pydraughts plays it."""
    out = set()
    for steps, caps in zip(moves, captures):
        after = game_from_std_fen(conv, fen)
        after.push(steps)
        out.add(std_moves(conv, [steps], [caps])[0] + "=" + std_fen(conv, after))
    return sorted(out)


def run_fens(conv, fens, selfcheck, out, with_successors=False):
    for fen in fens:
        game = game_from_std_fen(conv, fen)
        moves = std_moves(conv, *game.legal_moves())
        canon = std_fen(conv, game)
        if selfcheck:
            check(conv.variant, canon, moves)
        if with_successors:
            moves = successors(conv, canon, *game.legal_moves())
        emit(out, canon, moves)


def check(variant, fen, moves):
    pub = public_moves(variant, fen)
    if pub != moves:
        sys.exit(f"selfcheck failed for {variant} {fen}:\n internal: {moves}\n public:   {pub}")


def run_random(conv, n, seed, max_plies, quiet_keep, selfcheck, out):
    rng = random.Random(seed)
    seen = set()
    goal = conv.variant in GOAL_VARIANTS
    while len(seen) < n:
        game = Game(PD_VARIANT[conv.variant])  # the variant's start position
        # Random game lengths; long ones give kings and king captures, which a
        # fixed short horizon would rarely reach.
        length = rng.randint(1, max_plies)
        for ply in range(length + 1):
            fen = std_fen(conv, game)
            moves_internal, captures_internal = game.legal_moves()
            # Bias the sample towards the interesting positions: always keep
            # the start position, positions with kings and positions where a
            # capture is forced; keep only some quiet king-less ones.
            interesting = (not seen or any_king(game)
                           or any(c[0] is not None for c in captures_internal))
            if fen not in seen and (interesting or rng.random() < quiet_keep):
                seen.add(fen)
                if conv.variant in HISTORY_VARIANTS and any_king(game):
                    # The game's history can limit a king's moves; with no king on the
                    # board it limits nothing, and the moves just computed are the FEN's.
                    moves = std_moves(conv, *game_from_std_fen(conv, fen).legal_moves())
                else:
                    moves = std_moves(conv, moves_internal, captures_internal)
                if selfcheck:
                    check(conv.variant, fen, moves)
                emit(out, fen, moves, winner_of(conv, game) if goal else None)
                if len(seen) >= n:
                    return
            if not moves_internal or ply == length or (goal and winner_of(conv, game) != "-"):
                break  # game over (side to move is stuck) or length reached
            # Draw rules (repetition, move counters) are ignored on purpose:
            # they end games but never change a position's legal moves.
            game.push(rng.choice(moves_internal))


def run_games(conv, games, seed, max_plies, out):
    """Whole random games, every position with the moves pydraughts allows there given the
    game so far (history included: Frisian's limit on a king's moves in a row). A game starts
    with a line `GAME`; each position is `FEN<TAB>MOVES<TAB>PLAYED`, PLAYED being the move then
    chosen (empty at the end). The random mover prefers to move again the piece it moved
    last (four times in five), so that kings make runs of moves and meet the limit."""
    rng = random.Random(seed)
    for _ in range(games):
        out.write("GAME\n")
        game = Game(PD_VARIANT[conv.variant])
        last_to = {}
        for _ in range(max_plies + 1):
            moves_internal, captures_internal = game.legal_moves()
            moves = std_moves(conv, moves_internal, captures_internal)
            played = ""
            if moves_internal:
                turn = game.whose_turn()
                again = [i for i, m in enumerate(moves_internal) if m[0][0] == last_to.get(turn)]
                if again and rng.random() < 0.8:
                    index = rng.choice(again)
                else:
                    index = rng.randrange(len(moves_internal))
                last_to[turn] = moves_internal[index][-1][1]
                played = std_moves(conv, [moves_internal[index]], [captures_internal[index]])[0]
            out.write(std_fen(conv, game) + "\t" + " ".join(moves) + "\t" + played + "\n")
            if not moves_internal:
                break
            game.push(moves_internal[index])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(ap, PD_VARIANT)
    ap.add_argument("--games", type=int, default=0,
                    help="print whole random games with history-aware move sets instead")
    ap.add_argument("--successors", action="store_true",
                    help="FEN mode: print each move as MOVE=FEN, the position after it")
    ap.add_argument("--selfcheck", action="store_true",
                    help="also compute every move set via the public draughts.Board API and abort on mismatch")
    args = ap.parse_args()

    conv = Conv(args.variant)
    out = sys.stdout
    fens = fens_asked(args, sys.stdin)
    if fens is not None:
        run_fens(conv, fens, args.selfcheck, out, args.successors)
    else:
        if args.games:
            run_games(conv, args.games, args.seed, args.max_plies, out)
            out.flush()
            return
        run_random(conv, args.positions, args.seed, args.max_plies, args.quiet_keep, args.selfcheck, out)
    out.flush()


if __name__ == "__main__":
    main()
