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
    for text in game.moves:
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
