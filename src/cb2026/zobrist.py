# Generated from the book by tools/literate, from chapters stage-04-zobrist.
# Do not edit: change the chapters and run `make tangle`.

"""Zobrist keys: a 64-bit fingerprint of a position, cheap to update move by move.

Every (piece, square) pair, the side to move, each castling right and each
en-passant file gets a fixed random 64-bit number; a position's key is the XOR
of the numbers of the features it has.  XOR undoes itself, so a move changes the
key by XOR-ing out what it removes and XOR-ing in what it adds.

The numbers come from splitmix64, a tiny generator written out here, started
from a constant seed: keys are the same in every run and on every machine.

The en-passant file is part of the key only when a pawn of the side to move
stands ready to capture en passant (the Polyglot rule), so that the same
position reached with and without a useless double step gets the same key.
The Position class already keeps an en-passant square only in that case.
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
    make_piece,
)

Key = int

KEY_MASK = (1 << 64) - 1

ZOBRIST_SEED = 0x2026_CB20_26CB_2026

PIECE_SQUARE_COUNT = 12 * 64

KEY_COUNT = PIECE_SQUARE_COUNT + 1 + 4 + 8  # pieces on squares, side, castling, files


def splitmix64(state: int) -> tuple[int, int]:
    """Return the next state of the splitmix64 generator and the number it produces."""
    state = (state + 0x9E3779B97F4A7C15) & KEY_MASK
    mixed = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & KEY_MASK
    mixed = ((mixed ^ (mixed >> 27)) * 0x94D049BB133111EB) & KEY_MASK
    return state, mixed ^ (mixed >> 31)


def random_keys(count: int, seed: int) -> list[Key]:
    """Return `count` pseudo-random 64-bit numbers generated from `seed`."""
    keys = []
    state = seed
    for _ in range(count):
        state, number = splitmix64(state)
        keys.append(number)
    return keys


ZOBRIST_NUMBERS: list[Key] = random_keys(KEY_COUNT, ZOBRIST_SEED)


def build_piece_square_keys(numbers: list[Key]) -> list[list[Key]]:
    """Return the key table indexed by piece (the board's int) and then square."""
    # Piece ints run up to 22 with gaps; unused rows stay zero and are never read.
    table = [[0] * 64 for _ in range(make_piece(BLACK, KING) + 1)]
    index = 0
    for colour in (WHITE, BLACK):
        for kind in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
            table[make_piece(colour, kind)] = numbers[index:index + 64]
            index += 64
    return table


PIECE_SQUARE_KEYS: list[list[Key]] = build_piece_square_keys(ZOBRIST_NUMBERS)

SIDE_KEY: Key = ZOBRIST_NUMBERS[PIECE_SQUARE_COUNT]  # present when Black is to move


def build_castling_keys(right_numbers: list[Key]) -> list[Key]:
    """Return the key of each of the 16 sets of castling rights."""
    # One number per right, combined in advance so that a change of rights
    # costs one lookup per set rather than one per right.
    keys = []
    for rights in range(16):
        key = 0
        for bit, number in enumerate(right_numbers):
            if rights & (1 << bit):
                key ^= number
        keys.append(key)
    return keys


CASTLING_KEYS: list[Key] = build_castling_keys(
    ZOBRIST_NUMBERS[PIECE_SQUARE_COUNT + 1:PIECE_SQUARE_COUNT + 5]
)

EN_PASSANT_KEYS: list[Key] = ZOBRIST_NUMBERS[PIECE_SQUARE_COUNT + 5:KEY_COUNT]
