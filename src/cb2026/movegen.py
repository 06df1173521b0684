# Generated from the book by tools/literate, from chapters stage-02-moves.
# Do not edit: change the chapters and run `make tangle`.

"""Pseudo-legal move generation: every move the pieces can make, ignoring checks.

Whether a move leaves the own king attacked is decided later, by the legality rules;
here we only follow how each piece moves, plus the special moves: double pawn
pushes, en passant, promotions to all four pieces, and castling over empty
squares while the castling right lasts.

The generator runs in every position the engine looks beyond, so its loop over the
board is one function with the tables and bound methods it needs held in local variables
(a local lookup is much cheaper than a global or attribute lookup in CPython);
only the rare moves (promotions, en passant, castling) are left to helpers.
"""

from __future__ import annotations

from cb2026.attacks import (
    BISHOP_RAYS,
    KING_TARGETS,
    KNIGHT_TARGETS,
    PAWN_CAPTURE_TARGETS,
    QUEEN_RAYS,
    ROOK_RAYS,
    Ray,
    Targets,
)
from cb2026.board import (
    B1,
    B8,
    BISHOP,
    BLACK_BIT,
    BLACK_KINGSIDE,
    BLACK_QUEENSIDE,
    C1,
    C8,
    D1,
    D8,
    E1,
    E8,
    F1,
    F8,
    G1,
    G8,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
    WHITE_BIT,
    WHITE_KINGSIDE,
    WHITE_QUEENSIDE,
    CastlingRights,
    Colour,
    Piece,
    Square,
)
from cb2026.move import (
    CASTLING,
    DOUBLE_PUSH,
    EN_PASSANT,
    FLAG_SHIFT,
    PROMOTION_SHIFT,
    Move,
    encode_move,
)
from cb2026.position import Position

# Rays indexed by piece type, so the generator can fetch a slider's rays directly.
SLIDER_RAYS: tuple[tuple[tuple[Ray, ...], ...], ...] = (
    (), (), (), BISHOP_RAYS, ROOK_RAYS, QUEEN_RAYS,
)

# The four promotion choices of a pawn move, already shifted into place.
PROMOTION_BITS: tuple[int, ...] = tuple(
    kind << PROMOTION_SHIFT for kind in (QUEEN, ROOK, BISHOP, KNIGHT)
)

DOUBLE_PUSH_BITS = DOUBLE_PUSH << FLAG_SHIFT

EN_PASSANT_BITS = EN_PASSANT << FLAG_SHIFT

# For each colour: (castling right, castling move, squares that must be empty).
CastlingOption = tuple[CastlingRights, Move, tuple[Square, ...]]

CASTLING_OPTIONS: tuple[tuple[CastlingOption, ...], tuple[CastlingOption, ...]] = (
    (
        (WHITE_KINGSIDE, encode_move(E1, G1, flag=CASTLING), (F1, G1)),
        (WHITE_QUEENSIDE, encode_move(E1, C1, flag=CASTLING), (D1, C1, B1)),
    ),
    (
        (BLACK_KINGSIDE, encode_move(E8, G8, flag=CASTLING), (F8, G8)),
        (BLACK_QUEENSIDE, encode_move(E8, C8, flag=CASTLING), (D8, C8, B8)),
    ),
)


def pseudo_legal_moves(position: Position) -> list[Move]:
    """Return all moves of the side to move that obey how the pieces move."""
    board = position.board
    side = position.side_to_move
    own_bit = WHITE_BIT << side
    enemy_bit = BLACK_BIT >> side
    moves: list[Move] = []
    append = moves.append
    # Pawn geometry for the side to move: direction, and the ranks on which a
    # pawn may still double-step or is about to promote.
    if side == WHITE:
        forward, start_rank, last_step_rank = 8, 1, 6
    else:
        forward, start_rank, last_step_rank = -8, 6, 1
    pawn_captures = PAWN_CAPTURE_TARGETS[side]
    knight_targets = KNIGHT_TARGETS
    slider_rays = SLIDER_RAYS
    for square, piece in enumerate(board):
        if not piece & own_bit:
            continue
        kind = piece & 7
        if kind == PAWN:
            ahead = square + forward
            if square >> 3 == last_step_rank:
                add_promotions(
                    board, square, ahead, pawn_captures[square], enemy_bit, moves
                )
                continue
            if not board[ahead]:
                append(square | ahead << 6)
                if square >> 3 == start_rank and not board[ahead + forward]:
                    append(square | (ahead + forward) << 6 | DOUBLE_PUSH_BITS)
            for target in pawn_captures[square]:
                if board[target] & enemy_bit:
                    append(square | target << 6)
        elif kind == KNIGHT:
            for target in knight_targets[square]:
                if not board[target] & own_bit:
                    append(square | target << 6)
        elif kind == KING:
            for target in KING_TARGETS[square]:
                if not board[target] & own_bit:
                    append(square | target << 6)
        else:
            for ray in slider_rays[kind][square]:
                for target in ray:
                    occupant = board[target]
                    if not occupant:
                        append(square | target << 6)
                    else:
                        if occupant & enemy_bit:
                            append(square | target << 6)
                        break
    if position.en_passant_square is not None:
        add_en_passant_moves(board, side, position.en_passant_square, moves)
    if position.castling_rights:
        add_castling_moves(board, side, position.castling_rights, moves)
    return moves


def add_promotions(
    board: list[Piece],
    square: Square,
    ahead: Square,
    capture_targets: Targets,
    enemy_bit: int,
    moves: list[Move],
) -> None:
    """Append to `moves` the promotions of the pawn on `square`, pushes first."""
    if not board[ahead]:
        move = square | ahead << 6
        moves.extend([move | bits for bits in PROMOTION_BITS])
    for target in capture_targets:
        if board[target] & enemy_bit:
            move = square | target << 6
            moves.extend([move | bits for bits in PROMOTION_BITS])


def add_en_passant_moves(
    board: list[Piece], side: Colour, target: Square, moves: list[Move]
) -> None:
    """Append to `moves` the en-passant captures of `side` onto `target`."""
    pawn = (WHITE_BIT << side) | PAWN
    # Our pawns that capture onto the target stand where an enemy pawn on the
    # target would capture: the capture table read backwards.
    for square in PAWN_CAPTURE_TARGETS[side ^ 1][target]:
        if board[square] == pawn:
            moves.append(square | target << 6 | EN_PASSANT_BITS)


def add_castling_moves(
    board: list[Piece], side: Colour, rights: CastlingRights, moves: list[Move]
) -> None:
    """Append to `moves` the castling moves of `side` whose right remains and
    path is empty."""
    for right, move, empty_squares in CASTLING_OPTIONS[side]:
        if rights & right and not any(board[s] for s in empty_squares):
            moves.append(move)
