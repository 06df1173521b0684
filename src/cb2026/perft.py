# Generated from the book by tools/literate, from chapters stage-03-legal.
# Do not edit: change the chapters and run `make tangle`.

"""Perft: count the leaf nodes of the legal move tree,
the standard test of move generation.

Every leaf is really visited: at depth 1 each legal move is still made and
taken back, so the counts exercise make_move and unmake_move as well as the
move generator.
"""

from __future__ import annotations

from cb2026.move import Move
from cb2026.position import Position
from cb2026.rules import legal_moves


def perft(position: Position, depth: int) -> int:
    """Return the number of move sequences of length `depth` from `position`."""
    if depth == 0:
        return 1
    moves = legal_moves(position)
    make_move = position.make_move  # bound methods held locally: cheaper to call
    unmake_move = position.unmake_move
    if depth == 1:
        for move in moves:
            make_move(move)
            unmake_move()
        return len(moves)
    nodes = 0
    for move in moves:
        make_move(move)
        nodes += perft(position, depth - 1)
        unmake_move()
    return nodes


def divide(position: Position, depth: int) -> dict[Move, int]:
    """Return, for each legal move, the perft count of depth - 1 after it."""
    counts: dict[Move, int] = {}
    for move in legal_moves(position):
        position.make_move(move)
        counts[move] = perft(position, depth - 1)
        position.unmake_move()
    return counts
