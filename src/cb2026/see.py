# Generated from the book by tools/literate, from chapters stage-11-killers-history.
# Do not edit: change the chapters and run `make tangle`.

"""Static exchange evaluation (SEE): what a capture wins or loses on its square.

SEE plays out, without moving a piece, the captures that may follow a capture on the
same square: each side takes back with its least valuable piece, and either side may
stop when going on would cost it.  It looks at one square only and knows nothing of
pins, checks or promotions on the way, so it is a guess, but a cheap one: the move
picker uses it to put the captures that lose material after the quiet moves.
"""

from __future__ import annotations

from cb2026.attacks import (
    BISHOP_RAYS,
    KING_TARGETS,
    KNIGHT_TARGETS,
    PAWN_CAPTURE_TARGETS,
    ROOK_RAYS,
)
from cb2026.board import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    WHITE_BIT,
    Colour,
    Piece,
    Square,
)
from cb2026.evaluate import PIECE_VALUES
from cb2026.move import EN_PASSANT, Move

# The evaluation's piece values by piece type (index 0: an empty square).
EXCHANGE_VALUES: tuple[int, ...] = tuple(
    PIECE_VALUES.get(kind, 0) for kind in range(KING + 1)
)

# What least_valuable_attacker returns when no piece attacks the square.
NO_SQUARE: Square = -1


def first_pieces(
    board: list[Piece], rays: tuple[tuple[Square, ...], ...], gone: set[Square]
) -> list[Square]:
    """Return the square of the first piece on each ray, looking past `gone`."""
    found = []
    for ray in rays:
        for source in ray:
            if board[source] and source not in gone:
                found.append(source)
                break
    return found


def least_valuable_attacker(
    board: list[Piece], square: Square, colour: Colour, gone: set[Square]
) -> Square:
    """Return the square of `colour`'s cheapest piece that attacks `square`, or
    NO_SQUARE; the pieces on `gone` have left (they captured earlier)."""
    own = WHITE_BIT << colour
    pawn, knight, king = own | PAWN, own | KNIGHT, own | KING
    for source in PAWN_CAPTURE_TARGETS[colour ^ 1][square]:
        if board[source] == pawn and source not in gone:
            return source
    for source in KNIGHT_TARGETS[square]:
        if board[source] == knight and source not in gone:
            return source
    # A slider behind a piece that has left now sees the square: an x-ray.
    diagonal = first_pieces(board, BISHOP_RAYS[square], gone)
    straight = first_pieces(board, ROOK_RAYS[square], gone)
    for sources, kind in ((diagonal, BISHOP), (straight, ROOK),
                          (diagonal + straight, QUEEN)):
        for source in sources:
            if board[source] == own | kind:
                return source
    for source in KING_TARGETS[square]:
        if board[source] == king and source not in gone:
            return source
    return NO_SQUARE


def see(board: list[Piece], move: Move) -> int:
    """Return the material `move` wins (negative: loses) once the captures on its
    target square have played out, each side free to stop."""
    from_square, to_square = move & 63, move >> 6 & 63
    mover = board[from_square]
    gone = {from_square}
    captured = EXCHANGE_VALUES[board[to_square] & 7]
    if move >> 15 == EN_PASSANT:
        captured = EXCHANGE_VALUES[PAWN]
        # The pawn taken stands beside the mover, behind the target square.
        gone.add(to_square - 8 if mover >> 4 == 0 else to_square + 8)
    on_square = EXCHANGE_VALUES[mover & 7]  # what the next capture would take
    promotion = move >> 12 & 7
    if promotion:
        captured += EXCHANGE_VALUES[promotion] - EXCHANGE_VALUES[PAWN]
        on_square = EXCHANGE_VALUES[promotion]
    # gains[n]: the material of the side making capture n if the captures end with it.
    gains = [captured]
    side = (mover >> 4) ^ 1
    while True:
        source = least_valuable_attacker(board, to_square, side, gone)
        if source == NO_SQUARE:
            break
        if board[source] & 7 == KING and least_valuable_attacker(
                board, to_square, side ^ 1, gone | {source}) != NO_SQUARE:
            break  # the king may not capture onto a square still defended
        gains.append(on_square - gains[-1])
        on_square = EXCHANGE_VALUES[board[source] & 7]
        gone.add(source)
        side ^= 1
    # From the last capture back: each side takes the better of stopping and capturing.
    for index in range(len(gains) - 1, 0, -1):
        gains[index - 1] = -max(-gains[index - 1], gains[index])
    return gains[0]
