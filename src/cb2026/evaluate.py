# Generated from the book by tools/literate, from chapters stage-05-alphabeta,
# stage-06-quiescence.
# Do not edit: change the chapters and run `make tangle`.

"""Static evaluation: how good a position looks without searching, in centipawns.

Chapter 5 counts material only.  The score is from the point of view of the side
to move (positive = good for the player about to move), which is what negamax
needs: one function serves both colours by flipping the sign.
"""

from __future__ import annotations

from cb2026.board import (
    BISHOP,
    BLACK,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
    Colour,
    PieceType,
    make_piece,
)
from cb2026.position import Position

# Piece values in centipawns, after Tomasz Michniewski's "Simplified Evaluation
# Function": a bishop a little above a knight, both above three pawns, so that the
# search does not trade a minor piece for three pawns.  The king is never captured,
# so its value only has to be zero.
PIECE_VALUES: dict[int, int] = {
    PAWN: 100, KNIGHT: 320, BISHOP: 330, ROOK: 500, QUEEN: 900, KING: 0,
}


def build_signed_values() -> list[int]:
    """Return a table indexed by the board's piece int: + for White's pieces, - for
    Black's."""
    table = [0] * (make_piece(BLACK, KING) + 1)
    for kind, value in PIECE_VALUES.items():
        table[make_piece(WHITE, kind)] = value
        table[make_piece(BLACK, kind)] = -value
    return table


# With signs built in, White's material minus Black's is one sum over the board.
SIGNED_VALUES: list[int] = build_signed_values()


def evaluate(position: Position, pst: bool = True) -> int:
    """Return material plus piece-square bonuses (if `pst`) from the side
    to move's view."""
    if pst:
        score = piece_square_balance(position)
    else:
        # A local name is cheaper to look up in the generator below
        values = SIGNED_VALUES
        score = sum(values[piece] for piece in position.board)
    return -score if position.side_to_move == BLACK else score


# Piece-square tables: a bonus or malus for each piece on each square.  The numbers
# are those of Tomasz Michniewski's "Simplified Evaluation Function" (Chess
# Programming Wiki), a well-known public starting point: knights and bishops toward
# the centre, pawns forward, the king behind its pawns until the endgame and in the
# centre after it.  As printed, from White's side: the first row is rank 8, a8..h8.
PAWN_TABLE: tuple[int, ...] = (
    0, 0, 0, 0, 0, 0, 0, 0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
    5, 5, 10, 25, 25, 10, 5, 5,
    0, 0, 0, 20, 20, 0, 0, 0,
    5, -5, -10, 0, 0, -10, -5, 5,
    5, 10, 10, -20, -20, 10, 10, 5,
    0, 0, 0, 0, 0, 0, 0, 0,
)

KNIGHT_TABLE: tuple[int, ...] = (
    -50, -40, -30, -30, -30, -30, -40, -50,
    -40, -20, 0, 0, 0, 0, -20, -40,
    -30, 0, 10, 15, 15, 10, 0, -30,
    -30, 5, 15, 20, 20, 15, 5, -30,
    -30, 0, 15, 20, 20, 15, 0, -30,
    -30, 5, 10, 15, 15, 10, 5, -30,
    -40, -20, 0, 5, 5, 0, -20, -40,
    -50, -40, -30, -30, -30, -30, -40, -50,
)

BISHOP_TABLE: tuple[int, ...] = (
    -20, -10, -10, -10, -10, -10, -10, -20,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -10, 0, 5, 10, 10, 5, 0, -10,
    -10, 5, 5, 10, 10, 5, 5, -10,
    -10, 0, 10, 10, 10, 10, 0, -10,
    -10, 10, 10, 10, 10, 10, 10, -10,
    -10, 5, 0, 0, 0, 0, 5, -10,
    -20, -10, -10, -10, -10, -10, -10, -20,
)

ROOK_TABLE: tuple[int, ...] = (
    0, 0, 0, 0, 0, 0, 0, 0,
    5, 10, 10, 10, 10, 10, 10, 5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    0, 0, 0, 5, 5, 0, 0, 0,
)

QUEEN_TABLE: tuple[int, ...] = (
    -20, -10, -10, -5, -5, -10, -10, -20,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -10, 0, 5, 5, 5, 5, 0, -10,
    -5, 0, 5, 5, 5, 5, 0, -5,
    0, 0, 5, 5, 5, 5, 0, -5,
    -10, 5, 5, 5, 5, 5, 0, -10,
    -10, 0, 5, 0, 0, 0, 0, -10,
    -20, -10, -10, -5, -5, -10, -10, -20,
)

KING_MIDDLEGAME_TABLE: tuple[int, ...] = (
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -20, -30, -30, -40, -40, -30, -30, -20,
    -10, -20, -20, -20, -20, -20, -20, -10,
    20, 20, 0, 0, 0, 0, 20, 20,
    20, 30, 10, 0, 0, 10, 30, 20,
)

KING_ENDGAME_TABLE: tuple[int, ...] = (
    -50, -40, -30, -20, -20, -30, -40, -50,
    -30, -20, -10, 0, 0, -10, -20, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -30, 0, 0, 0, 0, -30, -30,
    -50, -30, -30, -30, -30, -30, -30, -50,
)

PRINTED_TABLES: dict[PieceType, tuple[int, ...]] = {
    PAWN: PAWN_TABLE, KNIGHT: KNIGHT_TABLE, BISHOP: BISHOP_TABLE,
    ROOK: ROOK_TABLE, QUEEN: QUEEN_TABLE, KING: KING_MIDDLEGAME_TABLE,
}


def table_value(table: tuple[int, ...], colour: Colour, square: int) -> int:
    """Return the printed table's entry for a piece of `colour` on `square`."""
    # The printed first row is rank 8 seen by White; Black sees the board mirrored,
    # so for Black the rank is flipped and the first row becomes rank 1.
    rank = square >> 3 if colour == BLACK else 7 - (square >> 3)
    return table[rank * 8 + (square & 7)]


def build_piece_square_values() -> list[list[int]]:
    """Return value + table bonus per board piece int and square,
    signed: + White, - Black."""
    # Material goes into the same table, so one lookup per piece gives both.
    table = [[0] * 64 for _ in range(make_piece(BLACK, KING) + 1)]
    for kind, printed in PRINTED_TABLES.items():
        for colour, sign in ((WHITE, 1), (BLACK, -1)):
            table[make_piece(colour, kind)] = [
                sign * (PIECE_VALUES[kind] + table_value(printed, colour, square))
                for square in range(64)
            ]
    return table


PIECE_SQUARE_VALUES: list[list[int]] = build_piece_square_values()


def is_endgame(board: list[int]) -> bool:
    """Return True in Michniewski's endgame:
    any side with a queen has at most one minor more."""
    for colour in (WHITE, BLACK):
        queens = board.count(make_piece(colour, QUEEN))
        if not queens:
            continue
        minors = (board.count(make_piece(colour, KNIGHT))
                  + board.count(make_piece(colour, BISHOP)))
        if queens > 1 or minors > 1 or board.count(make_piece(colour, ROOK)):
            return False
    return True


def build_king_endgame_shift() -> tuple[list[int], ...]:
    """Return, per colour and square, the signed change of the king's value
    in the endgame."""
    return tuple(
        [sign * (table_value(KING_ENDGAME_TABLE, colour, square)
                 - table_value(KING_MIDDLEGAME_TABLE, colour, square))
         for square in range(64)]
        for colour, sign in ((WHITE, 1), (BLACK, -1))
    )


KING_ENDGAME_SHIFT: tuple[list[int], ...] = build_king_endgame_shift()


def piece_square_balance(position: Position) -> int:
    """Return White's material and piece-square bonuses minus Black's."""
    values = PIECE_SQUARE_VALUES
    score = sum(values[piece][square] for square, piece in enumerate(position.board))
    if is_endgame(position.board):
        white_king, black_king = position.king_squares
        score += (
            KING_ENDGAME_SHIFT[WHITE][white_king]
            + KING_ENDGAME_SHIFT[BLACK][black_king]
        )
    return score
