"""FEN parsing, printing and validation, with python-chess as the referee.

FEN convention: cb2026 keeps an en-passant square only when a pawn of the side to move
stands ready to capture there, which is what python-chess prints with
`board.fen(en_passant="xfen")`.
"""

import random
import re

import chess
import pytest

from cb2026.attacks import is_square_attacked
from cb2026.board import BLACK, WHITE, make_piece, parse_square, square_name
from cb2026.position import STARTING_FEN, FenError, Position
from positions import ILLEGAL_EN_PASSANT, PERFT_POSITIONS

pytestmark = pytest.mark.stage("stage-01-board")

ROUND_TRIP_FENS = [
    *PERFT_POSITIONS,
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 40",
    "7k/8/8/8/8/8/8/K7 b - - 99 150",
    "r3k3/8/8/8/8/8/8/4K2R w Kq - 12 30",
]


@pytest.mark.parametrize("fen", ROUND_TRIP_FENS)
def test_round_trip(fen: str) -> None:
    assert Position.from_fen(fen).fen() == fen


@pytest.mark.parametrize("fen", ROUND_TRIP_FENS)
def test_fen_matches_python_chess(fen: str) -> None:
    assert Position.from_fen(fen).fen() == chess.Board(fen).fen(en_passant="xfen")


def referee_board(board: chess.Board) -> list[int]:
    """The 64 pieces python-chess sees, in cb2026's encoding (0 for empty)."""
    pieces = [0] * 64
    for square, piece in board.piece_map().items():
        pieces[square] = make_piece(WHITE if piece.color else BLACK, piece.piece_type)
    return pieces


@pytest.mark.parametrize("seed", range(6))
def test_random_games_agree_with_python_chess(seed: int) -> None:
    """Every position of a random game: same FEN, same pieces, same attacked squares."""
    generator = random.Random(seed)
    board = chess.Board(ROUND_TRIP_FENS[seed % 5])
    for _ply in range(60):
        # The full FEN writes the en-passant square after every double step.
        position = Position.from_fen(board.fen(en_passant="fen"))
        assert position.fen() == board.fen(en_passant="xfen")
        assert position.board == referee_board(board)
        assert position.king_squares == [board.king(chess.WHITE), board.king(chess.BLACK)]
        for square in range(64):
            assert is_square_attacked(position.board, square, WHITE) == board.is_attacked_by(
                chess.WHITE, square
            ), (board.fen(), square_name(square))
            assert is_square_attacked(position.board, square, BLACK) == board.is_attacked_by(
                chess.BLACK, square
            ), (board.fen(), square_name(square))
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(generator.choice(moves))


def test_starting_position() -> None:
    position = Position.starting()
    assert position.fen() == STARTING_FEN
    assert position.side_to_move == WHITE
    assert position.king_squares == [parse_square("e1"), parse_square("e8")]


def test_square_names() -> None:
    assert [square_name(square) for square in (0, 7, 28, 63)] == ["a1", "h1", "e4", "h8"]
    assert all(parse_square(square_name(square)) == square for square in range(64))
    with pytest.raises(ValueError):
        parse_square("i9")


def test_four_field_fen_gets_default_counters() -> None:
    position = Position.from_fen("4k3/8/8/8/8/8/8/4K3 b - -")
    assert position.side_to_move == BLACK
    assert position.fen() == "4k3/8/8/8/8/8/8/4K3 b - - 0 1"


def test_useless_en_passant_square_is_dropped() -> None:
    # After 1.e4 no black pawn can capture on e3, so the square is not kept.
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert Position.from_fen(fen).fen() == fen.replace(" e3 ", " - ")


def test_en_passant_square_kept_when_a_pawn_is_ready_even_if_pinned() -> None:
    # Black's e4 pawn may take on d3 pseudo-legally (the capture would expose the king
    # on a4 to the queen on h4): X-FEN keeps the square, and so does cb2026.
    fen = ILLEGAL_EN_PASSANT
    assert Position.from_fen(fen).fen() == fen == chess.Board(fen).fen(en_passant="xfen")


def test_repr_rebuilds_the_position() -> None:
    position = Position.from_fen(ROUND_TRIP_FENS[1])
    assert repr(position) == f"Position.from_fen({ROUND_TRIP_FENS[1]!r})"


def test_diagram() -> None:
    lines = str(Position.starting()).splitlines()
    assert lines[1] == " 8 | r | n | b | q | k | b | n | r |"
    assert lines[-3] == " 1 | R | N | B | Q | K | B | N | R |"
    assert lines[-1].split() == list("abcdefgh")


BAD_FENS = [
    ("", "6 fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "6 fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "8 ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "covers 7 squares"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "digit '9' in rank 6"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN0R w KQkq - 0 1", "digit '0' in rank 1"),
    ("4k3/8/8/8/8/8/8/4K2\u00b2 w - - 0 1", "bad piece letter"),  # superscript two
    ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "two digits in a row"),
    ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "bad piece letter 'x'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "covers 9 squares"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "white has 0 kings"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "white has 2 kings"),
    ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "black has 0 kings"),
    ("rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "pawn on back rank square h8"),
    ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "pawn on back rank square a1"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1", "bad castling field"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKq - 0 1", "appears twice"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "castling right 'K'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "bad en-passant square"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "bad en-passant square"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", "bad en-passant square"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove clock"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove clock"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove number"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra", "6 fields"),
    ("4k3/8/8/8/8/8/8/4K3 W - - 0 1", "side to move"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", "bad castling field"),
    ("r3k2r/8/8/8/8/8/8/R4K1R w Q - 0 1", "castling right 'Q'"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w Kk- - 0 1", "bad castling field"),
    ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "bad en-passant square"),
    ("4k3/4b3/8/4pP2/8/8/8/4K3 w - e6 0 1", "bad en-passant square"),  # e7 taken
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 +1", "fullmove number"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 1.5 1", "halfmove clock"),
    ("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "side not to move (black) is in check"),
    ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "side not to move (white) is in check"),
]


@pytest.mark.parametrize(("fen", "message"), BAD_FENS)
def test_bad_fen_names_the_problem(fen: str, message: str) -> None:
    with pytest.raises(FenError, match=re.escape(message)):
        Position.from_fen(fen)


def test_fen_error_is_a_value_error() -> None:
    assert issubclass(FenError, ValueError)


# Well formed, harmless to the engine, but impossible in a game: accepted, as python-chess's
# Board(fen) accepts them (its status() flags the first two). Chapter 1 says so; a failure
# here means the parser changed and the chapter's prose must change with it.
ACCEPTED_THOUGH_IMPOSSIBLE = [
    "4k3/8/8/8/8/NNNNNNNN/PPPPPPPP/4K3 w - - 0 1",  # seventeen white men
    "4k3/8/3N1N2/8/8/8/8/4R1K1 b - - 0 1",  # check from three pieces
    "4k3/8/3N1N2/8/8/8/8/6K1 b - - 0 1",  # check from two knights
]


@pytest.mark.parametrize("fen", ACCEPTED_THOUGH_IMPOSSIBLE)
def test_impossible_but_harmless_positions_are_accepted(fen: str) -> None:
    assert Position.from_fen(fen).fen() == fen
    assert chess.Board(fen).fen() == fen  # python-chess reads it too
