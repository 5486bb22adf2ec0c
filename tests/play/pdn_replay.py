"""Reads a PDN file with pydraughts and replays every game on pydraughts' own board.

Usage: pdn_replay.py FILE VARIANT

Prints `summary {json}`: per game, the tags, the number of moves replayed, the first move
pydraughts found illegal (if any), whether pydraughts saw the game end before its last move,
and pydraughts' own verdict at the end (winner: "white", "black", "draw" or null).
"""
import json
import sys

from draughts import BLACK, WHITE, Board, Move
from draughts.PDN import PDNReader


def replay(game, variant):
    fen = game.tags.get("FEN")
    board = Board(variant, fen) if fen else Board(variant)
    report = {"tags": game.tags, "ending": game.game_ending, "moves": len(game.moves),
              "replayed": 0, "illegal": None, "over_early": False}
    moves = list(game.moves)
    # pydraughts 0.6.7's PDNReader lists the first move twice in a game whose FEN has Black
    # to move (it seeds its list with that move, then adds it again); no move can follow
    # itself, so the copy is dropped.
    if fen and fen.strip('"').upper().startswith("B") and moves[:1] * 2 == moves[:2]:
        moves = moves[1:]
        report["moves"] = len(moves)
    for text in moves:
        if board.is_over():
            report["over_early"] = True
        legal = [m.board_move for m in board.legal_moves()]
        try:
            move = Move(board, pdn_move=text)
        except Exception as error:  # pydraughts raises on moves it cannot read
            report["illegal"] = f"{text}: {error}"
            break
        if move.board_move not in legal:
            report["illegal"] = text
            break
        board.push(move)
        report["replayed"] += 1
    # pydraughts' english winner is already in PDN colours (its board is turned around).
    winner = board.winner()
    report["winner"] = {WHITE: "white", BLACK: "black", 0: "draw"}.get(winner)
    return report


def main():
    path, variant = sys.argv[1], sys.argv[2]
    games = PDNReader(filename=path).games
    print("summary " + json.dumps([replay(game, variant) for game in games]))


if __name__ == "__main__":
    main()
