"""The oracles' shared text: standard PDN FENs read and written, moves written, and the
command line both oracles take.

Plain Python, no draughts library: each oracle imports it from this folder (the script's
own folder is first on `sys.path`), so both keep exactly one output format.
"""


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


def format_move(frm, to, captured):
    """`F-T`, or `FxT:C1,C2,...` with the captured squares sorted."""
    if captured:
        return f"{frm}x{to}:" + ",".join(map(str, sorted(captured)))
    return f"{frm}-{to}"


def add_common_arguments(ap, variants):
    """The options both oracles take: the variant, random mode's and FEN mode's."""
    ap.add_argument("--variant", required=True, choices=sorted(variants))
    ap.add_argument("--positions", type=int, default=100, help="distinct positions to print (random mode)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-plies", type=int, default=150, help="longest random game")
    ap.add_argument("--quiet-keep", type=float, default=0.3,
                    help="fraction of king-less, capture-less positions kept (random mode)")
    ap.add_argument("--fen", action="append", default=[], help="print this standard FEN's moves instead (repeatable)")
    ap.add_argument("--stdin", action="store_true", help="read standard FENs, one per line, from stdin")


def fens_asked(args, stdin):
    """FEN mode's positions (`--fen`, then `--stdin`'s lines), or None in random mode."""
    if not (args.fen or args.stdin):
        return None
    fens = list(args.fen)
    if args.stdin:
        fens += [line.strip() for line in stdin if line.strip()]
    return fens
