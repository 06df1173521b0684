# Generated from the book by tools/literate, from chapters stage-01-board.
# Do not edit: change the chapters and run `make tangle`.

"""The vocabulary of the board: colours, pieces, squares and castling rights.

Everything here is a small integer.  CPython handles ints and lists of ints far
faster than objects, and move generation reads these values in its innermost loops.
"""

from __future__ import annotations

Colour = int
PieceType = int
Piece = int
Square = int
CastlingRights = int

WHITE: Colour = 0
BLACK: Colour = 1
COLOUR_NAMES: tuple[str, str] = ("white", "black")

PAWN: PieceType = 1
KNIGHT: PieceType = 2
BISHOP: PieceType = 3
ROOK: PieceType = 4
QUEEN: PieceType = 5
KING: PieceType = 6

# A piece is its type plus one colour bit: 8 for white, 16 for black.  One bit per
# colour means "is this square held by the enemy?" is a single `&`, and an empty
# square (0) answers no to both colours.
WHITE_BIT = 8
BLACK_BIT = 16
TYPE_MASK = 7
EMPTY: Piece = 0
PIECE_LETTERS = " PNBRQK"


def colour_bit(colour: Colour) -> int:
    """Return the bit that marks pieces of `colour`."""
    return WHITE_BIT << colour


def make_piece(colour: Colour, piece_type: PieceType) -> Piece:
    """Return the piece of the given colour and type."""
    return (WHITE_BIT << colour) | piece_type


def piece_colour(piece: Piece) -> Colour:
    """Return the colour of a (non-empty) piece."""
    # White pieces are 9..14 and black ones 17..22, so bit 4 is the colour.
    return piece >> 4


def piece_type(piece: Piece) -> PieceType:
    """Return the type of a piece, or 0 for an empty square."""
    return piece & TYPE_MASK


def piece_letter(piece: Piece) -> str:
    """Return the FEN letter of a piece: upper case for white, lower case for black."""
    letter = PIECE_LETTERS[piece & TYPE_MASK]
    return letter if piece_colour(piece) == WHITE else letter.lower()


def build_pieces_by_letter() -> dict[str, Piece]:
    """Return the map from FEN letters to pieces."""
    pieces: dict[str, Piece] = {}
    for kind in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
        pieces[PIECE_LETTERS[kind]] = make_piece(WHITE, kind)
        pieces[PIECE_LETTERS[kind].lower()] = make_piece(BLACK, kind)
    return pieces


PIECES_BY_LETTER: dict[str, Piece] = build_pieces_by_letter()

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"

# Squares are numbered a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63, so that
# file = square % 8 and rank = square // 8.  Only the squares the castling rules
# name are given constants.
A1: Square = 0
B1: Square = 1
C1: Square = 2
D1: Square = 3
E1: Square = 4
F1: Square = 5
G1: Square = 6
H1: Square = 7
A8: Square = 56
B8: Square = 57
C8: Square = 58
D8: Square = 59
E8: Square = 60
F8: Square = 61
G8: Square = 62
H8: Square = 63


def square_at(file: int, rank: int) -> Square:
    """Return the square on a file and rank, both counted from 0."""
    return rank * 8 + file


def file_of(square: Square) -> int:
    """Return the file of a square (0 for the a-file)."""
    return square & 7


def rank_of(square: Square) -> int:
    """Return the rank of a square (0 for the first rank)."""
    return square >> 3


def square_name(square: Square) -> str:
    """Return the algebraic name of a square, such as 'e4'."""
    return FILE_NAMES[square & 7] + RANK_NAMES[square >> 3]


def parse_square(name: str) -> Square:
    """Return the square called `name` ('a1'..'h8'); raise ValueError otherwise."""
    if len(name) != 2 or name[0] not in FILE_NAMES or name[1] not in RANK_NAMES:
        raise ValueError(f"not a square name: {name!r}")
    return square_at(FILE_NAMES.index(name[0]), RANK_NAMES.index(name[1]))


# Castling rights are four independent bits, in the order FEN writes them (KQkq).
WHITE_KINGSIDE: CastlingRights = 1
WHITE_QUEENSIDE: CastlingRights = 2
BLACK_KINGSIDE: CastlingRights = 4
BLACK_QUEENSIDE: CastlingRights = 8
NO_CASTLING: CastlingRights = 0
CASTLING_LETTERS = "KQkq"
