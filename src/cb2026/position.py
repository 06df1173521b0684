# Generated from the book by tools/literate, from chapters stage-01-board,
# stage-02-moves, stage-04-zobrist, stage-07-uci, stage-10-null-move.
# Do not edit: change the chapters and run `make tangle`.

"""The Position class: the board plus side to move, castling, en passant and clocks.

A position is created from FEN text, which is checked strictly: malformed text, and
any position the engine could not work with (a missing king, a pawn on a back rank,
a castling right without its king and rook, the side not to move in check), raises
FenError with a message that names the problem.  A well-formed position that merely
could not arise in a game (seventeen men of one colour, a triple check) is accepted,
as python-chess accepts it.

En-passant convention: like Stockfish and the Polyglot book format, a position only
remembers an en-passant square when a pawn of the side to move stands ready to
capture there.  A FEN that names an en-passant square nobody can use is accepted
(if the square is otherwise valid) and the square is dropped.
"""

from __future__ import annotations

from cb2026.attacks import is_square_attacked, pawn_attackers_exist
from cb2026.board import (
    A1,
    A8,
    BLACK,
    BLACK_BIT,
    BLACK_KINGSIDE,
    BLACK_QUEENSIDE,
    C1,
    C8,
    CASTLING_LETTERS,
    COLOUR_NAMES,
    D1,
    D8,
    E1,
    E8,
    EMPTY,
    F1,
    F8,
    G1,
    G8,
    H1,
    H8,
    KING,
    NO_CASTLING,
    PAWN,
    PIECES_BY_LETTER,
    ROOK,
    WHITE,
    WHITE_KINGSIDE,
    WHITE_QUEENSIDE,
    CastlingRights,
    Colour,
    Piece,
    Square,
    make_piece,
    parse_square,
    piece_letter,
    square_at,
    square_name,
)
from cb2026.move import CASTLING, DOUBLE_PUSH, EN_PASSANT, Move
from cb2026.zobrist import (
    CASTLING_KEYS,
    EN_PASSANT_KEYS,
    PIECE_SQUARE_KEYS,
    SIDE_KEY,
    Key,
)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class FenError(ValueError):
    """Raised for FEN text that is malformed or describes a position
    the engine refuses."""


def parse_placement(text: str) -> list[Piece]:
    """Return the 64-square board described by the first FEN field."""
    rank_texts = text.split("/")
    if len(rank_texts) != 8:
        raise FenError(
            f"piece placement needs 8 ranks separated by '/', found {len(rank_texts)}"
        )
    board = [EMPTY] * 64
    for row, rank_text in enumerate(rank_texts):
        rank = 7 - row  # FEN lists the eighth rank first
        file = 0
        previous_was_digit = False
        for char in rank_text:
            if char in "12345678":
                if previous_was_digit:
                    raise FenError(
                        f"rank {rank + 1} has two digits in a row: {rank_text!r}"
                    )
                file += int(char)
                previous_was_digit = True
            elif char in "09":
                raise FenError(f"digit {char!r} in rank {rank + 1}: {rank_text!r} "
                               "(a run of empty squares is 1 to 8)")
            elif char in PIECES_BY_LETTER:
                if file < 8:
                    board[square_at(file, rank)] = PIECES_BY_LETTER[char]
                file += 1
                previous_was_digit = False
            else:
                raise FenError(
                    f"bad piece letter {char!r} in rank {rank + 1}: {rank_text!r}"
                )
        if file != 8:
            raise FenError(
                f"rank {rank + 1} ({rank_text!r}) covers {file} squares instead of 8"
            )
    return board


def check_kings_and_pawns(board: list[Piece]) -> None:
    """Raise FenError unless each side has one king and no pawn stands on
    a back rank."""
    for colour in (WHITE, BLACK):
        kings = board.count(make_piece(colour, KING))
        if kings != 1:
            raise FenError(
                f"{COLOUR_NAMES[colour]} has {kings} kings instead of exactly one"
            )
    for square in list(range(0, 8)) + list(range(56, 64)):
        if board[square] & 7 == PAWN:
            raise FenError(f"pawn on back rank square {square_name(square)}")


def parse_side_to_move(text: str) -> Colour:
    """Return the colour named by the second FEN field ('w' or 'b')."""
    if text == "w":
        return WHITE
    if text == "b":
        return BLACK
    raise FenError(f"side to move must be 'w' or 'b', not {text!r}")


# Each castling right needs the king and that rook still on their starting squares.
CASTLING_HOME_SQUARES: dict[CastlingRights, tuple[Square, Square]] = {
    WHITE_KINGSIDE: (E1, H1),
    WHITE_QUEENSIDE: (E1, A1),
    BLACK_KINGSIDE: (E8, H8),
    BLACK_QUEENSIDE: (E8, A8),
}


def parse_castling(text: str, board: list[Piece]) -> CastlingRights:
    """Return the castling rights of the third FEN field, checked against the board."""
    if text == "-":
        return NO_CASTLING
    rights = NO_CASTLING
    for letter in text:
        if letter not in CASTLING_LETTERS:
            raise FenError(
                f"bad castling field {text!r}: {letter!r} is not one of K, Q, k, q"
            )
        right = 1 << CASTLING_LETTERS.index(letter)
        if rights & right:
            raise FenError(f"bad castling field {text!r}: {letter!r} appears twice")
        rights |= right
        king_square, rook_square = CASTLING_HOME_SQUARES[right]
        colour = WHITE if letter.isupper() else BLACK
        if (board[king_square] != make_piece(colour, KING)
                or board[rook_square] != make_piece(colour, ROOK)):
            raise FenError(
                f"castling right {letter!r} needs a {COLOUR_NAMES[colour]} king on "
                f"{square_name(king_square)} and rook on {square_name(rook_square)}"
            )
    return rights


def parse_en_passant(
    text: str, board: list[Piece], side_to_move: Colour
) -> Square | None:
    """Return the en-passant square of the fourth FEN field,
    or None if nobody can use it."""
    if text == "-":
        return None
    try:
        square = parse_square(text)
    except ValueError:
        raise FenError(f"bad en-passant square {text!r}") from None
    # The square was just skipped by a double pawn push of the side not to move:
    # it is on that side's third rank, it is empty, the pawn stands just beyond
    # it, and the pawn's starting square is empty again.
    forward = 8 if side_to_move == WHITE else -8
    expected_rank = 5 if side_to_move == WHITE else 2
    enemy_pawn = make_piece(side_to_move ^ 1, PAWN)
    if (
        square >> 3 != expected_rank
        or board[square] != EMPTY
        or board[square - forward] != enemy_pawn
        or board[square + forward] != EMPTY
    ):
        raise FenError(
            f"bad en-passant square {text!r}: no {COLOUR_NAMES[side_to_move ^ 1]} pawn "
            "has just made a double step past it"
        )
    return square if pawn_attackers_exist(board, square, side_to_move) else None


def parse_counter(text: str, name: str, minimum: int) -> int:
    """Return the integer of a FEN counter field, which must be at least `minimum`."""
    if not text.isdecimal() or int(text) < minimum:
        raise FenError(f"{name} must be an integer of at least {minimum}, not {text!r}")
    return int(text)


class Position:
    """A chess position: the pieces on the board and the state FEN
    records beside them."""

    def __init__(
        self,
        board: list[Piece],
        side_to_move: Colour,
        castling_rights: CastlingRights,
        en_passant_square: Square | None,
        halfmove_clock: int,
        fullmove_number: int,
    ) -> None:
        """Assemble a position from its parts (from_fen checks them; this does not)."""
        self.board = board
        self.side_to_move = side_to_move
        self.castling_rights = castling_rights
        self.en_passant_square = en_passant_square
        self.halfmove_clock = halfmove_clock
        self.fullmove_number = fullmove_number
        # Check detection starts from the king, so keep both kings' squares at hand.
        self.king_squares = [board.index(make_piece(WHITE, KING)),
                             board.index(make_piece(BLACK, KING))]
        self.undo_stack: list[Undo] = []
        self.key = self.compute_key()

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        """Return the position described by `fen`;
        raise FenError if the engine refuses it."""
        fields = fen.split()
        if len(fields) == 4:
            # EPD-style FEN without counters: use the usual defaults
            fields += ["0", "1"]
        if len(fields) != 6:
            raise FenError(
                "FEN needs 6 fields (placement, side to move, castling, en passant, "
                f"halfmove clock, fullmove number), found {len(fields)}"
            )
        board = parse_placement(fields[0])
        check_kings_and_pawns(board)
        side_to_move = parse_side_to_move(fields[1])
        castling_rights = parse_castling(fields[2], board)
        en_passant_square = parse_en_passant(fields[3], board, side_to_move)
        halfmove_clock = parse_counter(fields[4], "halfmove clock", 0)
        fullmove_number = parse_counter(fields[5], "fullmove number", 1)
        position = cls(board, side_to_move, castling_rights, en_passant_square,
                       halfmove_clock, fullmove_number)
        waiting = side_to_move ^ 1
        if is_square_attacked(board, position.king_squares[waiting], side_to_move):
            raise FenError(
                f"the side not to move ({COLOUR_NAMES[waiting]}) is in check"
            )
        return position

    @classmethod
    def starting(cls) -> Position:
        """Return the starting position of a game of chess."""
        return cls.from_fen(STARTING_FEN)

    def fen(self) -> str:
        """Return the FEN text of this position."""
        rank_texts = []
        for rank in range(7, -1, -1):
            text = ""
            empty_run = 0
            for file in range(8):
                piece = self.board[square_at(file, rank)]
                if piece == EMPTY:
                    empty_run += 1
                    continue
                if empty_run:
                    text += str(empty_run)
                    empty_run = 0
                text += piece_letter(piece)
            if empty_run:
                text += str(empty_run)
            rank_texts.append(text)
        castling = "".join(letter for index, letter in enumerate(CASTLING_LETTERS)
                           if self.castling_rights & (1 << index)) or "-"
        en_passant = (
            "-"
            if self.en_passant_square is None
            else square_name(self.en_passant_square)
        )
        side = "w" if self.side_to_move == WHITE else "b"
        return (f"{'/'.join(rank_texts)} {side} {castling} {en_passant} "
                f"{self.halfmove_clock} {self.fullmove_number}")

    def piece_at(self, square: Square) -> Piece:
        """Return the piece on `square` (EMPTY if none)."""
        return self.board[square]

    def __str__(self) -> str:
        """Return a text diagram of the board, White at the bottom."""
        border = "   +---+---+---+---+---+---+---+---+"
        lines = [border]
        for rank in range(7, -1, -1):
            cells = []
            for file in range(8):
                piece = self.board[square_at(file, rank)]
                cells.append(piece_letter(piece) if piece else " ")
            lines.append(f" {rank + 1} | " + " | ".join(cells) + " |")
            lines.append(border)
        lines.append("     a   b   c   d   e   f   g   h")
        return "\n".join(lines)

    def __repr__(self) -> str:
        """Return an expression that rebuilds this position."""
        return f"Position.from_fen({self.fen()!r})"

    def make_move(self, move: Move) -> None:
        """Play `move`, keeping what unmake_move needs and updating the key."""
        # Hot path: plain moves (no promotion or flag, so move >> 12 == 0) only
        # touch two squares, the clocks, the castling rights and the key.
        board = self.board
        side = self.side_to_move
        from_square = move & 63
        to_square = move >> 6 & 63
        piece = board[from_square]
        captured = board[to_square]
        key = self.key
        self.undo_stack.append((move, captured, self.castling_rights,
                                self.en_passant_square, self.halfmove_clock, key))
        piece_square_keys = PIECE_SQUARE_KEYS
        moving_keys = piece_square_keys[piece]
        key ^= moving_keys[from_square] ^ moving_keys[to_square] ^ SIDE_KEY
        board[to_square] = piece
        board[from_square] = EMPTY
        # Captures and pawn moves can never be undone in a game: they reset the
        # clock of the fifty-move rule.
        if captured:
            key ^= piece_square_keys[captured][to_square]
            self.halfmove_clock = 0
        elif piece & 7 == PAWN:
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        if self.en_passant_square is not None:
            key ^= EN_PASSANT_KEYS[self.en_passant_square & 7]
            self.en_passant_square = None
        if move >> 12:
            key = self.finish_special_move(move, key)
        if piece & 7 == KING:
            self.king_squares[side] = to_square
        rights = self.castling_rights
        if rights:
            kept = CASTLING_RIGHTS_KEPT
            new_rights = rights & kept[from_square] & kept[to_square]
            if new_rights != rights:
                key ^= CASTLING_KEYS[rights] ^ CASTLING_KEYS[new_rights]
                self.castling_rights = new_rights
        self.fullmove_number += side  # the move number grows after Black's move
        self.side_to_move = side ^ 1
        self.key = key

    def unmake_move(self) -> None:
        """Take back the last move made with make_move, key included."""
        (move, captured, self.castling_rights, self.en_passant_square,
         self.halfmove_clock, self.key) = self.undo_stack.pop()
        board = self.board
        side = self.side_to_move ^ 1
        self.side_to_move = side
        self.fullmove_number -= side
        from_square = move & 63
        to_square = move >> 6 & 63
        piece = board[to_square]
        board[to_square] = captured
        if move >> 12:
            flag = move >> 15
            if flag == CASTLING:
                rook_from, rook_to = CASTLING_ROOK_SQUARES[to_square]
                board[rook_from] = board[rook_to]
                board[rook_to] = EMPTY
            elif flag == EN_PASSANT:
                board[to_square ^ 8] = (BLACK_BIT >> side) | PAWN
            elif flag != DOUBLE_PUSH:
                piece = (piece & ~7) | PAWN  # the promoted piece turns back into a pawn
        board[from_square] = piece
        if piece & 7 == KING:
            self.king_squares[side] = from_square

    def compute_key(self) -> Key:
        """Return the Zobrist key of this position, computed from scratch."""
        key = 0
        for square, piece in enumerate(self.board):
            if piece:
                key ^= PIECE_SQUARE_KEYS[piece][square]
        if self.side_to_move:
            key ^= SIDE_KEY
        key ^= CASTLING_KEYS[self.castling_rights]
        if self.en_passant_square is not None:
            key ^= EN_PASSANT_KEYS[self.en_passant_square & 7]
        return key

    def finish_special_move(self, move: Move, key: int) -> int:
        """Make a special move's extra changes for make_move; return the new key."""
        board = self.board
        to_square = move >> 6 & 63
        flag = move >> 15
        if flag == DOUBLE_PUSH:
            skipped = ((move & 63) + to_square) >> 1
            if pawn_attackers_exist(board, skipped, self.side_to_move ^ 1):
                self.en_passant_square = skipped
                key ^= EN_PASSANT_KEYS[skipped & 7]
        elif flag == CASTLING:
            rook_from, rook_to = CASTLING_ROOK_SQUARES[to_square]
            rook_keys = PIECE_SQUARE_KEYS[board[rook_from]]
            board[rook_to] = board[rook_from]
            board[rook_from] = EMPTY
            key ^= rook_keys[rook_from] ^ rook_keys[rook_to]
        elif flag == EN_PASSANT:
            # The captured pawn stands beside the from square, on the to
            # square's file: flipping bit 3 moves from rank 6 to 5 (or 3 to 4).
            captured_square = to_square ^ 8
            key ^= PIECE_SQUARE_KEYS[board[captured_square]][captured_square]
            board[captured_square] = EMPTY
        else:
            pawn = board[to_square]
            promoted = (pawn & ~7) | (move >> 12 & 7)
            board[to_square] = promoted
            key ^= (PIECE_SQUARE_KEYS[pawn][to_square]
                ^ PIECE_SQUARE_KEYS[promoted][to_square])
        return key

    def is_repetition(self, count: int = 3) -> bool:
        """Return True if this position has now occurred `count` times
        (threefold by default)."""
        # Only positions since the last capture or pawn move can repeat this one,
        # and only those with the same side to move: every second undo entry,
        # going back at most halfmove_clock plies.  Entry i holds the key from
        # before move i, that is, of the position len(stack) - i plies ago.
        stack = self.undo_stack
        key = self.key
        oldest = max(len(stack) - self.halfmove_clock, 0)
        seen = 1
        for index in range(len(stack) - 2, oldest - 1, -2):
            if stack[index][5] == key:
                seen += 1
                if seen >= count:
                    return True
        return False

    def copy(self) -> Position:
        """Return an independent copy of the position, with its history."""
        twin = Position(self.board.copy(), self.side_to_move, self.castling_rights,
                        self.en_passant_square, self.halfmove_clock,
                        self.fullmove_number)
        # Its entries are tuples, safe to share
        twin.undo_stack = self.undo_stack.copy()
        return twin

    def make_null_move(self) -> None:
        """Pass: give the move to the other side; keep what unmake_null_move needs."""
        key = self.key
        self.undo_stack.append((NULL_MOVE, EMPTY, self.castling_rights,
                                self.en_passant_square, self.halfmove_clock, key))
        key ^= SIDE_KEY
        # A double push's en-passant right lasts one move, and passing is one.
        if self.en_passant_square is not None:
            key ^= EN_PASSANT_KEYS[self.en_passant_square & 7]
            self.en_passant_square = None
        # The clock restarts, so that is_repetition never looks back across the pass.
        self.halfmove_clock = 0
        self.fullmove_number += self.side_to_move
        self.side_to_move ^= 1
        self.key = key

    def unmake_null_move(self) -> None:
        """Take back the pass made with make_null_move, key included."""
        (_, _, self.castling_rights, self.en_passant_square, self.halfmove_clock,
         self.key) = self.undo_stack.pop()
        self.side_to_move ^= 1
        self.fullmove_number -= self.side_to_move


# Where the rook goes when the king castles to a given square: (from, to).
CASTLING_ROOK_SQUARES: dict[Square, tuple[Square, Square]] = {
    G1: (H1, F1),
    C1: (A1, D1),
    G8: (H8, F8),
    C8: (A8, D8),
}


def build_castling_rights_kept() -> list[CastlingRights]:
    """Return, for each square, the castling rights that survive a move from
    or to it."""
    # A move that starts on a king or rook home square (the piece leaves) or ends
    # on a rook home square (the rook is captured) loses the rights tied to it.
    kept = [15] * 64
    for right, (king_square, rook_square) in CASTLING_HOME_SQUARES.items():
        kept[king_square] &= ~right
        kept[rook_square] &= ~right
    return kept


CASTLING_RIGHTS_KEPT: list[CastlingRights] = build_castling_rights_kept()

# What unmake_move needs to restore: the move, the piece it captured, and the
# castling rights, en-passant square, halfmove clock and key from before the move.
Undo = tuple[Move, Piece, CastlingRights, Square | None, int, Key]

# The move a null move's undo entry records: from a1 to a1, which no real move is.
NULL_MOVE: Move = 0
