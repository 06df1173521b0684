"""A referee for static exchange evaluation (chapter 11): the exchange played out in full.

`exchange_result` answers what SEE answers, by brute force over python-chess's legal moves:
after a capture, the two sides take turns capturing on the same square, in every order
the rules allow, each side free to stop. It also says whether SEE's simplified model of the
exchange held all along: that every piece attacking the square may capture it (no pin, no
check forbids it), except a king onto a square still attacked, and that no pawn promotes
on the way. Where the model held, SEE must give the referee's answer exactly; where it did
not, the two may differ, and the chapter counts how often.

The positions it is tried on: `exchange_positions` plays random games from the book's
opening suite (a seeded generator, so the same positions every run).
"""

from __future__ import annotations

import random
from pathlib import Path

import chess

# The engine's piece values (cb2026.evaluate.PIECE_VALUES), typed again: a referee shares
# the definition of the answer, not the code that computes it.
VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500,
          chess.QUEEN: 900, chess.KING: 0}

SUITE = Path(__file__).resolve().parents[1] / "book" / "data" / "openings" / "openings.epd"


def captured_value(board: chess.Board, move: chess.Move) -> int:
    """Return the material `move` takes (a promotion's gain included)."""
    if board.is_en_passant(move):
        value = VALUES[chess.PAWN]
    else:
        value = VALUES.get(board.piece_type_at(move.to_square) or 0, 0)
    if move.promotion:
        value += VALUES[move.promotion] - VALUES[chess.PAWN]
    return value


def best_exchange(board: chess.Board, square: chess.Square) -> tuple[int, bool]:
    """Return the most material the side to move wins by capturing on `square` (0: it
    stops at once), and whether SEE's model held at every position of the exchange."""
    mask = chess.BB_SQUARES[square]
    legal = set(board.generate_legal_moves(to_mask=mask))
    # SEE's model: every piece that attacks the square may capture; a king only onto a
    # square no longer attacked (the rule for king moves, so python-chess's legal ones).
    model = {move for move in board.generate_pseudo_legal_moves(to_mask=mask)
             if board.piece_type_at(move.from_square) != chess.KING}
    model |= {move for move in legal if board.piece_type_at(move.from_square) == chess.KING}
    held = legal == model and not any(move.promotion for move in legal)
    best = 0
    for move in legal:
        gain = captured_value(board, move)
        board.push(move)
        reply, reply_held = best_exchange(board, square)
        board.pop()
        best = max(best, gain - reply)
        held = held and reply_held
    return best, held


def exchange_result(board: chess.Board, move: chess.Move) -> tuple[int, bool]:
    """Return what the capture `move` wins once the exchange on its square has played
    out (the referee's SEE), and whether SEE's model held throughout."""
    gain = captured_value(board, move)
    board.push(move)
    reply, held = best_exchange(board, move.to_square)
    board.pop()
    return gain - reply, held and not move.promotion


def exchange_positions(count: int, seed: int) -> list[str]:
    """Return `count` positions from random games (8 to 40 plies) out of the book's
    opening suite, each with at least one capture to play."""
    generator = random.Random(seed)
    openings = [line for line in SUITE.read_text().splitlines()
                if line and not line.startswith("#")]
    fens: list[str] = []
    while len(fens) < count:
        board = chess.Board(" ".join(generator.choice(openings).split()[:4]) + " 0 1")
        for _ in range(generator.randrange(8, 41)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(generator.choice(moves))
        if not board.is_game_over() and any(board.generate_legal_captures()):
            fens.append(board.fen())
    return fens
