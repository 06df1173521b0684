# Generated from the book by tools/literate, from chapters stage-01-board,
# stage-17-speed.
# Do not edit: change the chapters and run `make tangle`.

"""Square geometry: which squares each piece reaches, and whether a square is attacked.

All the geometry is worked out once, when the module loads, into tuples indexed by
square.  At run time a knight's targets or a rook's rays are then a single lookup,
and no move generator ever has to ask whether a step falls off the board.
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
    WHITE_BIT,
    Colour,
    Piece,
    Square,
)

Step = tuple[int, int]
Targets = tuple[Square, ...]
Ray = tuple[Square, ...]

KNIGHT_STEPS: tuple[Step, ...] = (
    (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2),
)
KING_STEPS: tuple[Step, ...] = (
    (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1),
)
ROOK_DIRECTIONS: tuple[Step, ...] = ((0, 1), (1, 0), (0, -1), (-1, 0))
BISHOP_DIRECTIONS: tuple[Step, ...] = ((1, 1), (1, -1), (-1, -1), (-1, 1))


def on_board(file: int, rank: int) -> bool:
    """Return True if the file and rank lie on the board."""
    return 0 <= file < 8 and 0 <= rank < 8


def build_leaper_targets(steps: tuple[Step, ...]) -> tuple[Targets, ...]:
    """Return, for each square, the squares one step (of `steps`) away."""
    table = []
    for square in range(64):
        file, rank = square & 7, square >> 3
        table.append(tuple(
            (rank + rank_step) * 8 + file + file_step
            for file_step, rank_step in steps
            if on_board(file + file_step, rank + rank_step)
        ))
    return tuple(table)


def build_rays(directions: tuple[Step, ...]) -> tuple[tuple[Ray, ...], ...]:
    """Return, for each square, its non-empty rays in `directions`,
    nearest square first."""
    table = []
    for square in range(64):
        rays = []
        for file_step, rank_step in directions:
            ray = []
            file, rank = (square & 7) + file_step, (square >> 3) + rank_step
            while on_board(file, rank):
                ray.append(rank * 8 + file)
                file, rank = file + file_step, rank + rank_step
            if ray:
                rays.append(tuple(ray))
        table.append(tuple(rays))
    return tuple(table)


def build_pawn_capture_targets() -> tuple[tuple[Targets, ...], tuple[Targets, ...]]:
    """Return, per colour and square, the squares a pawn there captures on."""
    white = build_leaper_targets(((-1, 1), (1, 1)))
    black = build_leaper_targets(((-1, -1), (1, -1)))
    return white, black


KNIGHT_TARGETS: tuple[Targets, ...] = build_leaper_targets(KNIGHT_STEPS)
KING_TARGETS: tuple[Targets, ...] = build_leaper_targets(KING_STEPS)
ROOK_RAYS: tuple[tuple[Ray, ...], ...] = build_rays(ROOK_DIRECTIONS)
BISHOP_RAYS: tuple[tuple[Ray, ...], ...] = build_rays(BISHOP_DIRECTIONS)
QUEEN_RAYS: tuple[tuple[Ray, ...], ...] = build_rays(
    ROOK_DIRECTIONS + BISHOP_DIRECTIONS
)
# The capture table doubles as an "attacked by pawns" table: a pawn of colour C
# attacks square S exactly when it stands on a square that a pawn of the other
# colour would capture on from S.
PAWN_CAPTURE_TARGETS: tuple[tuple[Targets, ...], tuple[Targets, ...]] = (
    build_pawn_capture_targets()
)


def is_square_attacked(board: list[Piece], square: Square, by_colour: Colour) -> bool:
    """Return True if any piece of `by_colour` attacks `square` on `board`."""
    for source, attacker in LEAPER_ATTACKERS[by_colour][square]:
        if board[source] == attacker:
            return True
    for ray, sliders in SLIDER_RAYS[by_colour][square]:
        for source in ray:
            piece = board[source]
            if piece:
                if piece in sliders:
                    return True
                break  # the first piece on the ray hides the ones behind it
    return False


def pawn_attackers_exist(board: list[Piece], square: Square, colour: Colour) -> bool:
    """Return True if a pawn of `colour` stands ready to capture on `square`."""
    pawn = (WHITE_BIT << colour) | PAWN
    # A plain loop: this is asked after every double step, and a generator
    # expression inside any() costs several times more in CPython.
    for source in PAWN_CAPTURE_TARGETS[colour ^ 1][square]:  # noqa: SIM110
        if board[source] == pawn:
            return True
    return False


# The pieces that can attack a square: (square they stand on, piece).
Attackers = tuple[tuple[Square, Piece], ...]
# A square's rays, each with the two pieces that attack along it.
SliderRays = tuple[tuple[Ray, tuple[Piece, Piece]], ...]


def build_leaper_attackers() -> tuple[tuple[Attackers, ...], ...]:
    """Return, per colour and square, every (square, piece) from which a knight, pawn
    or king of that colour would attack the square."""
    table = []
    for colour in (WHITE, BLACK):
        bit = WHITE_BIT << colour
        by_square = []
        for square in range(64):
            pairs = [(source, bit | KNIGHT) for source in KNIGHT_TARGETS[square]]
            # See PAWN_CAPTURE_TARGETS: the other colour's captures from the square.
            pairs += [(source, bit | PAWN)
                      for source in PAWN_CAPTURE_TARGETS[colour ^ 1][square]]
            pairs += [(source, bit | KING) for source in KING_TARGETS[square]]
            by_square.append(tuple(pairs))
        table.append(tuple(by_square))
    return tuple(table)


def build_slider_rays() -> tuple[tuple[SliderRays, ...], ...]:
    """Return, per colour and square, each ray from the square with the colour's two
    pieces that attack along it (rook or queen, bishop or queen)."""
    table = []
    for colour in (WHITE, BLACK):
        bit = WHITE_BIT << colour
        straight, diagonal = (bit | ROOK, bit | QUEEN), (bit | BISHOP, bit | QUEEN)
        table.append(tuple(
            tuple([(ray, straight) for ray in ROOK_RAYS[square]]
                  + [(ray, diagonal) for ray in BISHOP_RAYS[square]])
            for square in range(64)))
    return tuple(table)


LEAPER_ATTACKERS: tuple[tuple[Attackers, ...], ...] = build_leaper_attackers()
SLIDER_RAYS: tuple[tuple[SliderRays, ...], ...] = build_slider_rays()
