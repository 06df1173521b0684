"""A referee for static exchange evaluation (chapter 11): the exchange played out in full.

`exchange_result` answers the question SEE answers, by brute force over python-chess's
legal moves: after a capture, the two sides take turns capturing on the same square, in
every order the rules allow, each side free to stop. It also says whether SEE's simplified
model of the exchange held all along: that every piece attacking the square may capture it
(no pin, no check forbids it), except a king onto a square still attacked, and that no pawn
promotes on the way.

SEE simplifies one thing more: each side recaptures with its cheapest piece (the king
last). `cheapest_first_result` plays the exchange under that rule as well. Where the model
held, SEE computes exactly that game, so it must give its value; whether the free order
would have done better (a cheaper recapture can open a line for the opponent) is a
separate count. When two pieces of the cheapest kind can capture, SEE takes the first it
finds and the referee does not guess which: it gives the lowest and the highest value any
choice gives, and SEE must lie between them.

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


# The order in which SEE's model recaptures: the cheapest kind first, the king last.
RECAPTURE_ORDER = {chess.PAWN: 1, chess.KNIGHT: 2, chess.BISHOP: 3, chess.ROOK: 4,
                   chess.QUEEN: 5, chess.KING: 6}


def cheapest_first(board: chess.Board, square: chess.Square, favour_mover: bool) -> int:
    """Return the most material the side to move wins on `square` when each side may
    capture only with its cheapest kind of piece that can (0: it stops at once).
    Several pieces of that kind: the best choice for the side to move at this step if
    `favour_mover`, else the worst, and the other way round at the next step."""
    legal = list(board.generate_legal_moves(to_mask=chess.BB_SQUARES[square]))
    if not legal:
        return 0
    rank = {move: RECAPTURE_ORDER[board.piece_type_at(move.from_square) or chess.KING]
            for move in legal}
    cheapest = min(rank.values())
    outcomes = []
    for move in legal:
        if rank[move] == cheapest:
            gain = captured_value(board, move)
            board.push(move)
            outcomes.append(gain - cheapest_first(board, square, not favour_mover))
            board.pop()
    return max(0, max(outcomes) if favour_mover else min(outcomes))


def cheapest_first_result(board: chess.Board, move: chess.Move) -> tuple[int, int]:
    """Return the lowest and the highest value of the capture `move` when every
    recapture is made by the cheapest kind of piece that can (SEE's order): the two
    differ only where the choice between two pieces of that kind matters."""
    gain = captured_value(board, move)
    board.push(move)
    # The opponent moves next: the worst choice for it is the best for `move`.
    lowest = gain - cheapest_first(board, move.to_square, True)
    highest = gain - cheapest_first(board, move.to_square, False)
    board.pop()
    return lowest, highest


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
