"""Chapter 13's evaluation as it was first written, kept as a referee (chapter 13).

The chapter's evaluation was rewritten for speed: the pawns' cover and files kept in the
pawn table, king zones and shield squares worked out in tables when the module loads, one
walk over the pieces for mobility, king safety, the bishop pair and the rook files. Its
values must not change. This module keeps the straightforward version it replaced (sets
for the pawns' cover and the king zone, a separate pass for the bishops and rooks, no
cached entry), so that the tests can hold the new one to it position by position.

Like the engine, the referee reads the weights and value tables from `cb2026.evaluation`
at each call: a weight set put in place by chapter 13.1's `use_weights` is used by both.
The pawn structure itself is the engine's `pawn_structure`, which the rewrite left as it
was and which the tests check against python-chess separately.
"""

from __future__ import annotations

import cb2026.evaluation as evaluation
from cb2026.attacks import (
    BISHOP_RAYS,
    KING_TARGETS,
    KNIGHT_TARGETS,
    PAWN_CAPTURE_TARGETS,
    QUEEN_RAYS,
    ROOK_RAYS,
)
from cb2026.board import BISHOP, BLACK, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE
from cb2026.position import Position

SLIDER_RAYS = {BISHOP: BISHOP_RAYS, ROOK: ROOK_RAYS, QUEEN: QUEEN_RAYS}


def pawn_cover(pawns: tuple[list[int], list[int]]) -> tuple[set[int], ...]:
    """Return, per colour, the squares its pawns attack."""
    cover: tuple[set[int], ...] = (set(), set())
    for colour in (WHITE, BLACK):
        for square in pawns[colour]:
            cover[colour].update(PAWN_CAPTURE_TARGETS[colour][square])
    return cover


def king_zone(king: int) -> set[int]:
    """Return the king's square and the squares next to it."""
    return {king, *KING_TARGETS[king]}


def pawn_shield(pawns: list[int], king: int, colour: int) -> int:
    """Return the bonus for `colour`'s pawns in front of its king on its back ranks."""
    if colour == BLACK:
        king ^= 56
        pawns = [square ^ 56 for square in pawns]
    if king >> 3 > 1:
        return 0
    own = set(pawns)
    bonus = 0
    for front in range(max(king & 7, 1) - 1, min(king & 7, 6) + 2):
        in_front = (king >> 3) * 8 + front
        if in_front + 8 in own:
            bonus += evaluation.SHIELD[0]
        elif in_front + 16 in own:
            bonus += evaluation.SHIELD[1]
    return bonus


def piece_activity(
    board: list[int], pieces: list[tuple[int, int]], pawns: tuple[list[int], list[int]],
    kings: list[int], mobility: bool, king_safety: bool,
) -> tuple[int, int]:
    """Return White's mobility and king safety minus Black's."""
    middlegame = endgame = 0
    cover = pawn_cover(pawns)
    zones = (king_zone(kings[WHITE]), king_zone(kings[BLACK]))
    units = [0, 0]
    attackers = [0, 0]
    for square, piece in pieces:
        colour, kind, own = piece >> 4, piece & 7, piece & 24
        unsafe, zone = cover[colour ^ 1], zones[colour ^ 1]
        safe = 0
        near = False
        rays = ((KNIGHT_TARGETS[square],) if kind == KNIGHT
                else SLIDER_RAYS[kind][square])
        for ray in rays:
            for target in ray:
                occupant = board[target]
                if not occupant & own and target not in unsafe:
                    safe += 1
                near = near or target in zone
                if occupant and kind != KNIGHT:
                    break
        sign = 1 if colour == WHITE else -1
        if mobility:
            extra = safe - evaluation.MOBILITY_BASE[kind]
            middlegame += sign * evaluation.MOBILITY_MIDDLEGAME[kind] * extra
            endgame += sign * evaluation.MOBILITY_ENDGAME[kind] * extra
        if near:
            units[colour] += evaluation.ATTACK_UNITS[kind]
            attackers[colour] += 1
    if king_safety:
        for colour, sign in ((WHITE, 1), (BLACK, -1)):
            if attackers[colour] >= 2:
                middlegame += sign * min(2 * units[colour] ** 2,
                                         evaluation.KING_ATTACK_LIMIT)
            middlegame += sign * pawn_shield(pawns[colour], kings[colour], colour)
    return middlegame, endgame


def piece_placement(pieces: list[tuple[int, int]], pawn_files: list[int]) -> tuple[int, int]:
    """Return White's bishop pair and rook file bonuses minus Black's."""
    middlegame = endgame = 0
    bishops = [0, 0]
    for square, piece in pieces:
        colour, kind = piece >> 4, piece & 7
        sign = 1 if colour == WHITE else -1
        if kind == BISHOP:
            bishops[colour] += 1
        elif kind == ROOK:
            file_bit = 1 << (square & 7)
            if not file_bit & (pawn_files[WHITE] | pawn_files[BLACK]):
                middlegame += sign * evaluation.ROOK_OPEN_FILE[0]
                endgame += sign * evaluation.ROOK_OPEN_FILE[1]
            elif not file_bit & pawn_files[colour]:
                middlegame += sign * evaluation.ROOK_HALF_OPEN_FILE[0]
                endgame += sign * evaluation.ROOK_HALF_OPEN_FILE[1]
    for colour, sign in ((WHITE, 1), (BLACK, -1)):
        if bishops[colour] >= 2:
            middlegame += sign * evaluation.BISHOP_PAIR[0]
            endgame += sign * evaluation.BISHOP_PAIR[1]
    return middlegame, endgame


def evaluate_position(
    position: Position, pawn_structure: bool = True, mobility: bool = True,
    king_safety: bool = True,
) -> int:
    """Return the tapered evaluation of `position` from the side to move's view."""
    board = position.board
    middlegame = endgame = phase = 0
    pawns: tuple[list[int], list[int]] = ([], [])
    pawn_files = [0, 0]
    pieces: list[tuple[int, int]] = []
    for square, piece in enumerate(board):
        if piece:
            middlegame += evaluation.MIDDLEGAME_VALUES[piece][square]
            endgame += evaluation.ENDGAME_VALUES[piece][square]
            phase += evaluation.PIECE_PHASE[piece]
            kind = piece & 7
            if kind == PAWN:
                pawns[piece >> 4].append(square)
                pawn_files[piece >> 4] |= 1 << (square & 7)
            elif kind != KING:
                pieces.append((square, piece))
    terms = [piece_placement(pieces, pawn_files)]
    if pawn_structure:
        terms.append(evaluation.pawn_structure(tuple(pawns[WHITE]), tuple(pawns[BLACK])))
    if mobility or king_safety:
        terms.append(piece_activity(board, pieces, pawns, position.king_squares,
                                    mobility, king_safety))
    for term_middlegame, term_endgame in terms:
        middlegame += term_middlegame
        endgame += term_endgame
    score = evaluation.taper(middlegame, endgame, min(phase, evaluation.MAX_PHASE))
    return -score if position.side_to_move == BLACK else score
