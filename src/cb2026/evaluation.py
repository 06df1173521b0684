# Generated from the book by tools/literate, from chapters stage-13-evaluation,
# stage-13.1-tuning.
# Do not edit: change the chapters and run `make tangle`.

"""A tapered evaluation: every term scored twice, for the middlegame and the endgame.

Chapter 5's evaluation counts material and piece-square bonuses, with one switch for
the king when the queens and most pieces are gone.  This one gives every term a
middlegame and an endgame value and blends the two by the game phase, the non-pawn
material still on the board.  On top of chapters 5 and 6's tables it scores the pawn
structure (passed, isolated, doubled and backward pawns), the mobility of the pieces,
the safety of the kings, the bishop pair and rooks on open files.  Scores are from
the side to move's view, as before.
"""

from __future__ import annotations

from cb2026.attacks import (
    BISHOP_RAYS,
    KING_TARGETS,
    KNIGHT_TARGETS,
    PAWN_CAPTURE_TARGETS,
    QUEEN_RAYS,
    ROOK_RAYS,
)
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
    Piece,
    Square,
    make_piece,
)
from cb2026.evaluate import KING_ENDGAME_TABLE, PRINTED_TABLES, table_value
from cb2026.position import Position

# The phase a piece is worth: a queen as much as two rooks or four minor pieces.  The
# weights of Fruit's tapered evaluation (see Further reading); pawns count nothing.
PHASE_WEIGHTS: dict[int, int] = {KNIGHT: 1, BISHOP: 1, ROOK: 2, QUEEN: 4}

# The phase of the starting position: 8 minor pieces, 4 rooks and 2 queens.
MAX_PHASE = 24


def build_piece_phase() -> list[int]:
    """Return the phase weight of each board piece int (0 for pawns, kings, empty)."""
    weights = [0] * (make_piece(BLACK, KING) + 1)
    for kind, weight in PHASE_WEIGHTS.items():
        for colour in (WHITE, BLACK):
            weights[make_piece(colour, kind)] = weight
    return weights


PIECE_PHASE: list[int] = build_piece_phase()


def taper(middlegame: int, endgame: int, phase: int) -> int:
    """Return the blend of the two scores: all middlegame at MAX_PHASE, all endgame
    at 0, rounded towards zero so that a score and its colour mirror stay opposite."""
    total = middlegame * phase + endgame * (MAX_PHASE - phase)
    return total // MAX_PHASE if total >= 0 else -(-total // MAX_PHASE)


# Pawns in the endgame: the further forward the better, on every file alike (the
# passed pawn bonus below adds more for pawns nothing can stop).  Printed as chapter
# 5's tables, rank 8 first.
PAWN_ENDGAME_TABLE: tuple[int, ...] = (
    0, 0, 0, 0, 0, 0, 0, 0,
    40, 40, 40, 40, 40, 40, 40, 40,
    25, 25, 25, 25, 25, 25, 25, 25,
    12, 12, 12, 12, 12, 12, 12, 12,
    5, 5, 5, 5, 5, 5, 5, 5,
    0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,
)


def left_half_mirrored(table: tuple[int, ...]) -> tuple[int, ...]:
    """Return `table` with each rank's files e-h made the mirror of a-d."""
    # Michniewski's queen table is not symmetric left to right; this one is, so
    # that a position and its mirror image (a-h swapped) score the same.
    return tuple(table[rank * 8 + min(file, 7 - file)]
                 for rank in range(8) for file in range(8))


def build_phase_tables(
    middlegame_values: tuple[int, ...], endgame_values: tuple[int, ...]
) -> tuple[list[list[int]], list[list[int]]]:
    """Return value + table bonus per piece int and square, signed (+ White), for
    the middlegame and for the endgame, with the piece values given per phase."""
    size = make_piece(BLACK, KING) + 1
    middlegame = [[0] * 64 for _ in range(size)]
    endgame = [[0] * 64 for _ in range(size)]
    for kind, printed in PRINTED_TABLES.items():
        early = left_half_mirrored(printed)
        late = left_half_mirrored(
            {PAWN: PAWN_ENDGAME_TABLE, KING: KING_ENDGAME_TABLE}.get(kind, printed))
        for colour, sign in ((WHITE, 1), (BLACK, -1)):
            piece = make_piece(colour, kind)
            for square in range(64):
                middlegame[piece][square] = sign * (
                    middlegame_values[kind] + table_value(early, colour, square))
                endgame[piece][square] = sign * (
                    endgame_values[kind] + table_value(late, colour, square))
    return middlegame, endgame


# A score pair: (middlegame, endgame), in centipawns.
Score = tuple[int, int]

# Bonus for a passed pawn by its rank counted from its own side (0: the first rank).
PASSED_MIDDLEGAME: tuple[int, ...] = (0, 1, 12, 8, 31, 38, 185, 0)
PASSED_ENDGAME: tuple[int, ...] = (0, 34, 11, 45, 52, 73, 118, 0)
# Middlegame, endgame: no pawn of its own side on a neighbouring file.
ISOLATED: tuple[int, ...] = (-25, -8)
# For each pawn beyond the first on a file.
DOUBLED: tuple[int, ...] = (6, -16)
# Behind its neighbours, its advance covered by an enemy pawn.
BACKWARD: tuple[int, ...] = (-20, -6)


def side_pawn_structure(own: list[Square], enemy: list[Square]) -> Score:
    """Return the pawn structure score of `own` pawns against `enemy` pawns, both
    given as seen by the side of `own`, which moves up the board."""
    # Per file, shifted by one so that files -1 and 8 exist and stay empty.
    counts = [0] * 10
    lowest = [8] * 10  # the rank of the side's rearmost pawn on the file
    enemy_highest = [-1] * 10  # the rank of the enemy's rearmost pawn
    for square in own:
        file, rank = (square & 7) + 1, square >> 3
        counts[file] += 1
        lowest[file] = min(lowest[file], rank)
    for square in enemy:
        file, rank = (square & 7) + 1, square >> 3
        enemy_highest[file] = max(enemy_highest[file], rank)
    middlegame = endgame = 0
    for count in counts:
        if count > 1:
            middlegame += DOUBLED[0] * (count - 1)
            endgame += DOUBLED[1] * (count - 1)
    enemy_squares = set(enemy)
    for square in own:
        file, rank = (square & 7) + 1, square >> 3
        if max(enemy_highest[file - 1:file + 2]) <= rank:
            # Passed: no enemy pawn ahead on its file or a neighbouring one.
            middlegame += PASSED_MIDDLEGAME[rank]
            endgame += PASSED_ENDGAME[rank]
        isolated = not counts[file - 1] and not counts[file + 1]
        if isolated:
            middlegame += ISOLATED[0]
            endgame += ISOLATED[1]
        elif min(lowest[file - 1], lowest[file + 1]) > rank and (
                file > 1 and square + 15 in enemy_squares
                or file < 8 and square + 17 in enemy_squares):
            # Backward: its neighbours have gone ahead and an enemy pawn guards
            # the square in front of it.
            middlegame += BACKWARD[0]
            endgame += BACKWARD[1]
    return middlegame, endgame


def pawn_structure(white: tuple[Square, ...], black: tuple[Square, ...]) -> Score:
    """Return White's pawn structure score minus Black's."""
    # Black's pawns are scored by the same code on the board turned round
    # (square ^ 56 swaps rank 1 and rank 8), so the two sides cannot differ.
    white_middlegame, white_endgame = side_pawn_structure(list(white), list(black))
    black_middlegame, black_endgame = side_pawn_structure(
        [square ^ 56 for square in black], [square ^ 56 for square in white])
    return white_middlegame - black_middlegame, white_endgame - black_endgame


def pawn_cover(pawns: tuple[Square, ...], colour: Colour) -> list[int]:
    """Return per square 1 if one of `colour`'s `pawns` attacks it, else 0."""
    covered = [0] * 64
    for square in pawns:
        for target in PAWN_CAPTURE_TARGETS[colour][square]:
            covered[target] = 1
    return covered


def pawn_files(pawns: tuple[Square, ...]) -> int:
    """Return a bit per file (1 for the a-file) that holds one of `pawns`."""
    files = 0
    for square in pawns:
        files |= 1 << (square & 7)
    return files


class PawnEntry:
    """What the evaluation needs of a pawn structure: its score, the squares each
    side's pawns attack, the files each side's pawns stand on (per colour)."""

    def __init__(self, white: tuple[Square, ...], black: tuple[Square, ...]) -> None:
        """Work out the entry of White's pawns `white` against Black's `black`."""
        self.score = pawn_structure(white, black)
        self.cover = [pawn_cover(white, WHITE), pawn_cover(black, BLACK)]
        self.files = [pawn_files(white), pawn_files(black)]


# The pawns of both sides, by square: all the entry depends on.
PawnKey = tuple[tuple[Square, ...], tuple[Square, ...]]

# How many pawn structures the table keeps before it starts again.
PAWN_TABLE_ENTRIES = 1 << 16


class PawnTable:
    """The pawn entries already worked out, by the pawns' squares."""

    def __init__(self, entries: int = PAWN_TABLE_ENTRIES) -> None:
        """Create an empty table that keeps up to `entries` structures."""
        self.entries = entries
        self.stored: dict[PawnKey, PawnEntry] = {}
        self.probes = 0
        self.hits = 0

    def entry(self, white: tuple[Square, ...], black: tuple[Square, ...]) -> PawnEntry:
        """Return PawnEntry(white, black), worked out once per structure."""
        self.probes += 1
        key = (white, black)
        found = self.stored.get(key)
        if found is not None:
            self.hits += 1
            return found
        if len(self.stored) >= self.entries:
            self.stored.clear()  # simpler than replacing: structures come and go
        found = self.stored[key] = PawnEntry(white, black)
        return found


# One table for the process: a pure function's memory, shared by every search.
PAWN_HASH: PawnTable = PawnTable()

# Per piece type, per safe square beyond MOBILITY_BASE.
MOBILITY_MIDDLEGAME: tuple[int, ...] = (0, 0, 6, 10, 7, 4, 0)
MOBILITY_ENDGAME: tuple[int, ...] = (0, 0, 6, 3, 2, 1, 0)

# The safe squares a piece has in an ordinary middlegame, estimated by hand (not
# measured): mobility is a bonus above it and a malus below it, so that it does not
# add a piece's ordinary squares to its material value.
MOBILITY_BASE: tuple[int, ...] = (0, 0, 4, 6, 7, 13, 0)
# What an attacker of the king's squares weighs, by piece type.
ATTACK_UNITS: tuple[int, ...] = (0, 0, 2, 2, 3, 5, 0)
KING_ATTACK_LIMIT = 400  # the largest penalty for attacks on the king's squares

# Middlegame only: a pawn one square, or two squares, in front of the king.
SHIELD: tuple[int, ...] = (26, 26)


def build_king_zones() -> list[list[int]]:
    """Return per king square, per square, 1 on the king's square and the squares
    next to it, else 0."""
    zones = []
    for king in range(64):
        zone = [0] * 64
        for square in (king, *KING_TARGETS[king]):
            zone[square] = 1
        zones.append(zone)
    return zones


KING_ZONES: list[list[int]] = build_king_zones()

# Two squares on one file in front of a king: one ahead, and two ahead.
ShieldSquares = tuple[Square, Square]


def build_shield_squares() -> list[list[tuple[ShieldSquares, ...]]]:
    """Return per colour and king square the squares in front of the king, on its
    file and the neighbouring ones, where its side's pawns shield it."""
    by_colour = []
    for colour in (WHITE, BLACK):
        turn = 56 if colour == BLACK else 0  # turn the board round for Black
        by_king = []
        for square in range(64):
            king = square ^ turn
            pairs = []
            if king >> 3 <= 1:  # no shield once the king leaves its first two ranks
                for front in range(max(king & 7, 1) - 1, min(king & 7, 6) + 2):
                    one_ahead = (king >> 3) * 8 + front + 8
                    pairs.append((one_ahead ^ turn, (one_ahead + 8) ^ turn))
            by_king.append(tuple(pairs))
        by_colour.append(by_king)
    return by_colour


SHIELD_SQUARES: list[list[tuple[ShieldSquares, ...]]] = build_shield_squares()


def pawn_shield(board: list[Piece], king: Square, colour: Colour) -> int:
    """Return the bonus for `colour`'s pawns in front of its king on its back ranks."""
    pawn = make_piece(colour, PAWN)
    bonus = 0
    for one_ahead, two_ahead in SHIELD_SQUARES[colour][king]:
        if board[one_ahead] == pawn:
            bonus += SHIELD[0]
        elif board[two_ahead] == pawn:
            bonus += SHIELD[1]
    return bonus


# A piece's rays from a square, nearest square first.
Rays = tuple[tuple[Square, ...], ...]


def build_piece_rays() -> list[tuple[Rays, ...]]:
    """Return per piece type (index: pawn 1 ... king 6) and square the rays the
    walk follows: the sliders' own, a ray of one square per knight's jump."""
    knight = tuple(tuple((target,) for target in KNIGHT_TARGETS[square])
                   for square in range(64))
    none: tuple[Rays, ...] = ((),) * 64  # pawns and kings have no mobility here
    return [none, none, knight, BISHOP_RAYS, ROOK_RAYS, QUEEN_RAYS, none]


PIECE_RAYS: list[tuple[Rays, ...]] = build_piece_rays()

# Middlegame, endgame.
BISHOP_PAIR: tuple[int, ...] = (40, 80)
# Middlegame, endgame: no pawn at all on the rook's file.
ROOK_OPEN_FILE: tuple[int, ...] = (50, -10)
# Middlegame, endgame: no pawn of its own side there.
ROOK_HALF_OPEN_FILE: tuple[int, ...] = (11, 9)


def piece_terms(
    board: list[Piece], pieces: list[Square], pawns: PawnEntry, kings: list[Square],
    mobility: bool, king_safety: bool,
) -> Score:
    """Return White's mobility, king safety, bishop pair and rook file bonuses minus
    Black's, from one walk over the knights, bishops, rooks and queens on `pieces`."""
    middlegame = endgame = 0
    bishops = [0, 0]
    units = [0, 0]  # the attack units of each side's pieces near the enemy king
    attackers = [0, 0]
    # By the colour of the piece: the other side's pawns' squares and king zone.
    unsafe_for = [pawns.cover[BLACK], pawns.cover[WHITE]]
    zone_for = [KING_ZONES[kings[BLACK]], KING_ZONES[kings[WHITE]]]
    own_files, all_files = pawns.files, pawns.files[WHITE] | pawns.files[BLACK]
    piece_rays, base = PIECE_RAYS, MOBILITY_BASE
    mobility_early, mobility_late = MOBILITY_MIDDLEGAME, MOBILITY_ENDGAME
    walk = mobility or king_safety
    for square in pieces:
        piece = board[square]
        colour, kind, own = piece >> 4, piece & 7, piece & 24
        sign = 1 if colour == WHITE else -1
        if kind == BISHOP:
            bishops[colour] += 1
        elif kind == ROOK:
            file_bit = 1 << (square & 7)
            if not file_bit & all_files:
                middlegame += sign * ROOK_OPEN_FILE[0]
                endgame += sign * ROOK_OPEN_FILE[1]
            elif not file_bit & own_files[colour]:
                middlegame += sign * ROOK_HALF_OPEN_FILE[0]
                endgame += sign * ROOK_HALF_OPEN_FILE[1]
        if not walk:
            continue
        unsafe, zone = unsafe_for[colour], zone_for[colour]
        safe = near = 0
        for ray in piece_rays[kind][square]:
            for target in ray:
                occupant = board[target]
                # A square an enemy pawn attacks is no use to a piece: it is taken.
                if not occupant & own and not unsafe[target]:
                    safe += 1
                near |= zone[target]
                if occupant:
                    break  # the first piece in the way ends the ray
        if mobility:
            extra = safe - base[kind]
            middlegame += sign * mobility_early[kind] * extra
            endgame += sign * mobility_late[kind] * extra
        if near:
            units[colour] += ATTACK_UNITS[kind]
            attackers[colour] += 1
    for colour, sign in ((WHITE, 1), (BLACK, -1)):
        if bishops[colour] >= 2:
            middlegame += sign * BISHOP_PAIR[0]
            endgame += sign * BISHOP_PAIR[1]
        if king_safety:
            # One attacker alone is no attack; two or more are, growing fast.
            if attackers[colour] >= 2:
                middlegame += sign * min(2 * units[colour] ** 2, KING_ATTACK_LIMIT)
            middlegame += sign * pawn_shield(board, kings[colour], colour)
    return middlegame, endgame


def evaluate_position(
    position: Position, pawn_structure: bool = True, mobility: bool = True,
    king_safety: bool = True,
) -> int:
    """Return the tapered evaluation of `position` from the side to move's view;
    the three term groups can be left out."""
    board = position.board
    early, late, weights = MIDDLEGAME_VALUES, ENDGAME_VALUES, PIECE_PHASE
    middlegame = endgame = phase = 0
    pawns: list[list[Square]] = [[], []]  # per colour
    pieces: list[Square] = []  # the squares of the knights, bishops, rooks and queens
    # One pass over the board: material, tables and phase, and the squares the
    # other terms need.
    for square, piece in enumerate(board):
        if piece:
            middlegame += early[piece][square]
            endgame += late[piece][square]
            kind = piece & 7
            if kind == PAWN:
                pawns[piece >> 4].append(square)
            elif kind != KING:
                phase += weights[piece]
                pieces.append(square)
    entry = PAWN_HASH.entry(tuple(pawns[WHITE]), tuple(pawns[BLACK]))
    if pawn_structure:
        middlegame += entry.score[0]
        endgame += entry.score[1]
    pieces_middlegame, pieces_endgame = piece_terms(
        board, pieces, entry, position.king_squares, mobility, king_safety)
    middlegame += pieces_middlegame
    endgame += pieces_endgame
    # Promotions can take the phase above the start's.
    score = taper(middlegame, endgame, min(phase, MAX_PHASE))
    return -score if position.side_to_move == BLACK else score


# Fitted by this chapter's tuner (the lines weights_source printed, in a run with
# another number of BLAS threads than the chapter's; see its Threads pitfall), per
# piece type (index: pawn 1 ... king 6).
MIDDLEGAME_PIECE_VALUES: tuple[int, ...] = (0, 80, 460, 491, 595, 1228, 0)
ENDGAME_PIECE_VALUES: tuple[int, ...] = (0, 90, 311, 319, 562, 1063, 0)

MIDDLEGAME_VALUES, ENDGAME_VALUES = build_phase_tables(
    MIDDLEGAME_PIECE_VALUES, ENDGAME_PIECE_VALUES)

# A weight set: the tunable constants of the evaluation, by name.
Weights = dict[str, tuple[int, ...]]

# The constants the tuner fits.  The piece-square tables, the mobility base and the
# king attack's units and limit stay as chapters 5 and 13 set them.
TUNABLE: tuple[str, ...] = (
    "MIDDLEGAME_PIECE_VALUES", "ENDGAME_PIECE_VALUES",
    "PASSED_MIDDLEGAME", "PASSED_ENDGAME", "ISOLATED", "DOUBLED", "BACKWARD",
    "MOBILITY_MIDDLEGAME", "MOBILITY_ENDGAME", "SHIELD",
    "BISHOP_PAIR", "ROOK_OPEN_FILE", "ROOK_HALF_OPEN_FILE",
)

# Chapter 13's values, chosen by hand: the tuner's starting point, and what the
# engine plays with when the Tuned switch is off.
HAND_WEIGHTS: Weights = {
    "MIDDLEGAME_PIECE_VALUES": (0, 100, 320, 330, 500, 900, 0),
    "ENDGAME_PIECE_VALUES": (0, 100, 320, 330, 500, 900, 0),
    "PASSED_MIDDLEGAME": (0, 5, 10, 15, 25, 40, 60, 0),
    "PASSED_ENDGAME": (0, 10, 15, 25, 45, 75, 115, 0),
    "ISOLATED": (-10, -15),
    "DOUBLED": (-10, -20),
    "BACKWARD": (-8, -10),
    "MOBILITY_MIDDLEGAME": (0, 0, 4, 5, 2, 1, 0),
    "MOBILITY_ENDGAME": (0, 0, 4, 5, 4, 2, 0),
    "SHIELD": (10, 5),
    "BISHOP_PAIR": (30, 50),
    "ROOK_OPEN_FILE": (25, 10),
    "ROOK_HALF_OPEN_FILE": (10, 5),
}

# What a weight set needs besides its constants: the value tables built from them
# and a pawn table of its own (a stored pawn score holds only for the weights that
# computed it).
Prepared = tuple[list[list[int]], list[list[int]], PawnTable]

# The sets put in place so far, by their values.
PREPARED_WEIGHTS: dict[tuple[tuple[str, tuple[int, ...]], ...], Prepared] = {}


def weights_in_place() -> Weights:
    """Return the tunable constants the evaluation uses now."""
    return {name: globals()[name] for name in TUNABLE}


def use_weights(weights: Weights) -> None:
    """Put `weights` in place of the evaluation's tunable constants."""
    global MIDDLEGAME_VALUES, ENDGAME_VALUES, PAWN_HASH
    key = tuple(sorted(weights.items()))
    if key == tuple(sorted(weights_in_place().items())):
        return  # in place already: keep its tables
    globals().update(weights)
    prepared = PREPARED_WEIGHTS.get(key)
    if prepared is None:
        prepared = PREPARED_WEIGHTS[key] = (*build_phase_tables(
            weights["MIDDLEGAME_PIECE_VALUES"], weights["ENDGAME_PIECE_VALUES"]),
            PawnTable())
    MIDDLEGAME_VALUES, ENDGAME_VALUES, PAWN_HASH = prepared


# The tuned set: the constants as the module defines them.
TUNED_WEIGHTS: Weights = weights_in_place()
