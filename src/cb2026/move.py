# Generated from the book by tools/literate, from chapters stage-02-moves.
# Do not edit: change the chapters and run `make tangle`.

"""Moves as integers, and their UCI spelling.

A move is one int with this bit layout:

    bits  0-5   from square
    bits  6-11  to square
    bits 12-14  promotion piece type (0 when the move is not a promotion)
    bits 15-16  flag: NORMAL_MOVE, DOUBLE_PUSH, CASTLING or EN_PASSANT

An int is small, compares and hashes fast, and make_move can test `move >> 12`
to send every plain move down its fast path.
"""

from __future__ import annotations

from cb2026.board import (
    BISHOP,
    KNIGHT,
    QUEEN,
    ROOK,
    PieceType,
    Square,
    parse_square,
    square_name,
)

Move = int
MoveFlag = int

TO_SHIFT = 6
PROMOTION_SHIFT = 12
FLAG_SHIFT = 15
SQUARE_MASK = 63

NORMAL_MOVE: MoveFlag = 0
DOUBLE_PUSH: MoveFlag = 1
CASTLING: MoveFlag = 2
EN_PASSANT: MoveFlag = 3


def encode_move(
    from_square: Square,
    to_square: Square,
    promotion: PieceType = 0,
    flag: MoveFlag = NORMAL_MOVE,
) -> Move:
    """Return the move int for the given parts."""
    return (from_square | to_square << TO_SHIFT | promotion << PROMOTION_SHIFT
            | flag << FLAG_SHIFT)


def move_from(move: Move) -> Square:
    """Return the square a move starts from."""
    return move & SQUARE_MASK


def move_to(move: Move) -> Square:
    """Return the square a move goes to (for castling, the king's destination)."""
    return move >> TO_SHIFT & SQUARE_MASK


def move_promotion(move: Move) -> PieceType:
    """Return the piece type a pawn promotes to, or 0."""
    return move >> PROMOTION_SHIFT & 7


def move_flag(move: Move) -> MoveFlag:
    """Return the flag of a move (NORMAL_MOVE, DOUBLE_PUSH, CASTLING or EN_PASSANT)."""
    return move >> FLAG_SHIFT


PROMOTION_LETTERS: dict[PieceType, str] = {
    KNIGHT: "n", BISHOP: "b", ROOK: "r", QUEEN: "q"
}


class MoveError(ValueError):
    """Raised for move text that is malformed or not playable in the position."""


def move_to_uci(move: Move) -> str:
    """Return the UCI text of a move, such as 'e2e4', 'e1g1' or 'e7e8q'."""
    text = square_name(move_from(move)) + square_name(move_to(move))
    promotion = move_promotion(move)
    return text + PROMOTION_LETTERS[promotion] if promotion else text


def parse_uci_move(text: str, candidates: list[Move]) -> Move:
    """Return the move among `candidates` spelled `text`;
    raise MoveError if there is none."""
    try:
        parse_square(text[0:2])
        parse_square(text[2:4])
    except ValueError:
        raise MoveError(f"malformed move {text!r}") from None
    if len(text) > 5 or (len(text) == 5 and text[4] not in "nbrq"):
        raise MoveError(f"malformed move {text!r}")
    for move in candidates:
        if move_to_uci(move) == text:
            return move
    raise MoveError(f"illegal move {text!r} in this position")
