# Generated from the book by tools/literate, from chapters stage-03-legal.
# Do not edit: change the chapters and run `make tangle`.

"""The rules that depend on check: legal moves, checkmate, stalemate and draws.

Legal moves are the pseudo-legal moves minus those that leave the own king
attacked.  Rather than playing every move and asking whether the king is then
attacked, we look outward from the king once per position to find the pieces
giving check and the pieces pinned to the king.  Then almost every move is
judged by a membership test or two:

* a king move is legal if its destination is not attacked (tested with the king
  lifted off the board, so it cannot hide behind itself from a slider);
* castling also needs the king not in check and its transit square safe;
* in double check only king moves are legal;
* in single check another piece must capture the checker or block the line;
* a pinned piece must stay on the line between its king and the pinner;
* en passant removes two pawns from one rank at once, which can uncover a check
  that no pin test sees, so it is tried on the board (it is rare).
"""

from __future__ import annotations

from cb2026.attacks import (
    BISHOP_RAYS,
    KNIGHT_TARGETS,
    PAWN_CAPTURE_TARGETS,
    ROOK_RAYS,
    is_square_attacked,
)
from cb2026.board import (
    BISHOP,
    BLACK_BIT,
    EMPTY,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    Colour,
    Piece,
    Square,
)
from cb2026.move import CASTLING, EN_PASSANT, Move
from cb2026.movegen import pseudo_legal_moves
from cb2026.position import Position

# A check is described by the squares that stop it: the checker's square, and for
# a slider also the squares between it and the king.  A pin is described the same
# way: the squares the pinned piece may still move to.
StopSquares = tuple[Square, ...]


def find_checks_and_pins(
    board: list[Piece], king_square: Square, side: Colour
) -> tuple[list[StopSquares], dict[Square, StopSquares]]:
    """Return the checks against `side`'s king and its pinned pieces
    with their lines."""
    enemy_bit = BLACK_BIT >> side
    checks: list[StopSquares] = []
    pins: dict[Square, StopSquares] = {}
    knight = enemy_bit | KNIGHT
    for square in KNIGHT_TARGETS[king_square]:
        if board[square] == knight:
            checks.append((square,))
    pawn = enemy_bit | PAWN
    for square in PAWN_CAPTURE_TARGETS[side][king_square]:
        if board[square] == pawn:
            checks.append((square,))
    straight_sliders = (enemy_bit | ROOK, enemy_bit | QUEEN)
    diagonal_sliders = (enemy_bit | BISHOP, enemy_bit | QUEEN)
    for sliders, rays in (
        (straight_sliders, ROOK_RAYS),
        (diagonal_sliders, BISHOP_RAYS),
    ):
        for ray in rays[king_square]:
            shield = -1  # the first own piece on the ray, which a slider would pin
            for index, square in enumerate(ray):
                piece = board[square]
                if not piece:
                    continue
                if piece & enemy_bit:
                    if piece in sliders:
                        if shield < 0:
                            checks.append(ray[:index + 1])
                        else:
                            pins[shield] = ray[:index + 1]
                    break
                if shield >= 0:
                    break  # two own pieces: neither is pinned along this ray
                shield = square
    return checks, pins


def legal_moves(position: Position) -> list[Move]:
    """Return the legal moves of the side to move."""
    board = position.board
    side = position.side_to_move
    enemy = side ^ 1
    king_square = position.king_squares[side]
    checks, pins = find_checks_and_pins(board, king_square, side)
    moves = pseudo_legal_moves(position)
    attacked = is_square_attacked  # a local name is cheaper to call in the loop
    if not checks and not pins:
        # The common case: only king moves and en passant can still be illegal.
        legal = [move for move in moves
                 if move & 63 != king_square and move >> 15 != EN_PASSANT]
        if len(legal) == len(moves):
            return legal
        stop_squares: StopSquares = ()
    else:
        legal = []
        stop_squares = checks[0] if len(checks) == 1 else ()
    king = board[king_square]
    # Lift the king: it must not shield its own flight squares
    board[king_square] = EMPTY
    for move in moves:
        from_square = move & 63
        to_square = move >> 6 & 63
        if from_square == king_square:
            if move >> 15 == CASTLING:
                if (checks or attacked(board, (from_square + to_square) >> 1, enemy)
                        or attacked(board, to_square, enemy)):
                    continue
            elif attacked(board, to_square, enemy):
                continue
        elif move >> 15 == EN_PASSANT:
            if not en_passant_is_safe(board, move, king_square, enemy):
                continue
        elif not checks and not pins:
            continue  # already in `legal` from the fast path above
        elif (checks and to_square not in stop_squares) or (
                from_square in pins and to_square not in pins[from_square]):
            continue
        legal.append(move)
    board[king_square] = king
    return legal


def en_passant_is_safe(
    board: list[Piece], move: Move, king_square: Square, enemy: Colour
) -> bool:
    """Return True if the en-passant `move` leaves the king
    on `king_square` unattacked."""
    from_square = move & 63
    to_square = move >> 6 & 63
    captured_square = to_square ^ 8  # beside the from square, on the to square's file
    pawn = board[from_square]
    captured = board[captured_square]
    board[to_square] = pawn
    board[from_square] = EMPTY
    board[captured_square] = EMPTY
    safe = not is_square_attacked(board, king_square, enemy)
    board[from_square] = pawn
    board[captured_square] = captured
    board[to_square] = EMPTY
    return safe


def is_in_check(position: Position) -> bool:
    """Return True if the side to move is in check."""
    side = position.side_to_move
    return is_square_attacked(position.board, position.king_squares[side], side ^ 1)


def is_checkmate(position: Position) -> bool:
    """Return True if the side to move is in check and has no legal move."""
    return is_in_check(position) and not legal_moves(position)


def is_stalemate(position: Position) -> bool:
    """Return True if the side to move is not in check but has no legal move."""
    return not is_in_check(position) and not legal_moves(position)


def is_fifty_move_draw(position: Position) -> bool:
    """Return True if fifty moves by each side passed without a capture or pawn move."""
    # Checkmate or stalemate on the hundredth half-move ends the game first.
    return position.halfmove_clock >= 100 and bool(legal_moves(position))


def is_insufficient_material(position: Position) -> bool:
    """Return True if neither side has the material to ever deliver mate.

    The dead positions recognised are those with no pawns, rooks or queens where
    either the only other piece is at most one knight (K v K, K+N v K) or there are
    no knights and all bishops stand on squares of one colour (K+B v K, K+B v K+B
    with same-coloured bishops, and more such bishops).
    """
    knights = 0
    bishop_square_colours = set()
    for square, piece in enumerate(position.board):
        kind = piece & 7
        if kind in (PAWN, ROOK, QUEEN):
            return False
        if kind == KNIGHT:
            knights += 1
        elif kind == BISHOP:
            bishop_square_colours.add(((square >> 3) + square) & 1)
    if knights:
        return knights == 1 and not bishop_square_colours
    return len(bishop_square_colours) <= 1
