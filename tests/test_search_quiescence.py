"""Quiescence search and piece-square tables: python-chess referees and colour symmetry."""

import dataclasses
import functools
import random

import chess
import pytest

from cb2026.board import BLACK, WHITE
from cb2026.evaluate import (
    KING_ENDGAME_TABLE,
    KING_MIDDLEGAME_TABLE,
    KNIGHT_TABLE,
    PAWN_TABLE,
    PRINTED_TABLES,
    QUEEN_TABLE,
    evaluate,
    is_endgame,
    table_value,
)
from cb2026.position import Position
from cb2026.search import INFINITY, MATE, Searcher, Techniques, minimax
from positions import EN_PASSANT_PAWNS, KIWIPETE, MIDDLEGAME, POSITION_3, QH5_TRAP, SCANDINAVIAN
from stage_referee import FORWARD_PRUNING, switched_off

pytestmark = pytest.mark.stage("stage-06-quiescence")

VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500,
          chess.QUEEN: 900, chess.KING: 0}

# Chapter 14's check extensions (where the stage has them) search a checking move a ply
# deeper than the depth asked for, which neither the referee's quiescence search
# nor minimax does: off here.
NO_EXTENSIONS = switched_off("check_extensions")
# Chapter 15's forward pruning (where the stage has it) leaves out captures the referee
# searches (and quiet moves minimax searches): off here.
NO_PRUNING = switched_off(*FORWARD_PRUNING)
MATERIAL_ONLY = Techniques(pst=False, **NO_EXTENSIONS, **NO_PRUNING)


def material(board: chess.Board, colour: chess.Color) -> int:
    """Material of `colour` minus the other side's, counted by python-chess."""
    return sum(VALUES[piece.piece_type] * (1 if piece.color == colour else -1)
               for piece in board.piece_map().values())


def after(fen: str, *moves: str) -> chess.Board:
    """The python-chess board of `fen` after the UCI `moves` (each must be legal)."""
    board = chess.Board(fen)
    for text in moves:
        move = chess.Move.from_uci(text)
        assert move in board.legal_moves, text
        board.push(move)
    return board


# A position, the capture line that settles it, and whether the side to move should play
# it: the quiescence score must be the material after the line (python-chess's count).
RESOLVED = [
    ("4k3/8/8/3n4/8/8/8/3QK3 w - - 0 1", ["d1d5"]),  # a hanging knight is taken
    ("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1", []),  # Qxd5 exd5: the defended pawn stays
    ("4k3/8/2n5/4p3/8/5N2/8/4RK2 w - - 0 1", ["f3e5", "c6e5", "e1e5"]),  # 2 attackers, 1 defender
    ("4k3/8/2n5/4p3/8/5N2/8/4K3 w - - 0 1", []),  # one attacker, one defender: no gain
    ("1r6/P6k/8/8/8/8/8/K7 w - - 0 1", ["a7b8q"]),  # capture and promote
    ("7k/P7/8/8/8/8/8/K7 w - - 0 1", ["a7a8q"]),  # a quiet promotion is noisy too
    (EN_PASSANT_PAWNS, ["e5d6"]),  # en passant (empty target square)
    ("3rk3/8/8/8/8/8/3q4/3RK3 w - - 0 1", ["d1d2"]),  # in check: the rook takes the queen
    ("4k3/3q4/8/8/8/8/3R4/3RK3 b - - 0 1", []),  # Qxd2 Rxd2 would give the queen for a rook
]


@pytest.mark.parametrize("fen,line", RESOLVED)
def test_quiescence_resolves_captures_like_python_chess(fen: str, line: list[str]) -> None:
    side = chess.Board(fen).turn
    expected = material(after(fen, *line), side)
    searcher = Searcher(MATERIAL_ONLY)
    score, _, _ = searcher.search(Position.from_fen(fen), 0)
    assert score == expected
    assert searcher.notes.qnodes == searcher.notes.nodes >= 1


def test_without_quiescence_the_leaf_is_scored_as_it_stands() -> None:
    # The horizon effect: one ply deep, the queen takes the pawn on d5 and is lost unseen.
    fen = "4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1"
    off = Searcher(dataclasses.replace(MATERIAL_ONLY, quiescence=False))
    score, move, _ = off.search(Position.from_fen(fen), 1)
    assert score == material(after(fen, "d1d5"), chess.WHITE)
    assert off.notes.qnodes == 0
    on = Searcher(MATERIAL_ONLY)
    assert on.search(Position.from_fen(fen), 1)[0] == material(chess.Board(fen), chess.WHITE)


def referee_quiescence(board: chess.Board, alpha: int, beta: int, ply: int) -> int:
    """The textbook fail-hard quiescence search on python-chess, material only."""
    stand_pat = material(board, board.turn)
    if stand_pat >= beta:
        return beta
    moves = list(board.legal_moves)
    if not moves:
        return -MATE + ply if board.is_check() else 0
    alpha = max(alpha, stand_pat)

    def gain(move: chess.Move) -> int:
        victim = board.piece_type_at(move.to_square) or chess.PAWN  # empty: en passant
        return VALUES.get(victim, 0) + VALUES.get(move.promotion, 0)

    for move in sorted((m for m in moves if board.is_capture(m) or m.promotion), key=gain,
                       reverse=True):
        board.push(move)
        score = -referee_quiescence(board, -beta, -alpha, ply + 1)
        board.pop()
        if score >= beta:
            return beta
        alpha = max(alpha, score)
    return alpha


def referee_search(board: chess.Board, depth: int, alpha: int, beta: int, ply: int = 0) -> int:
    """Fail-hard alpha-beta on python-chess with the referee's quiescence search at the leaves."""
    if depth == 0:
        return referee_quiescence(board, alpha, beta, ply)
    moves = list(board.legal_moves)
    if not moves:
        return -MATE + ply if board.is_check() else 0
    for move in moves:
        board.push(move)
        score = -referee_search(board, depth - 1, -beta, -alpha, ply + 1)
        board.pop()
        if score >= beta:
            return beta
        alpha = max(alpha, score)
    return alpha


REFEREE_CASES = [(fen, depth) for fen, _ in RESOLVED for depth in (1, 2)] + [
    (SCANDINAVIAN, 2),
    (QH5_TRAP, 2),
    (MIDDLEGAME, 1),
    (KIWIPETE, 0),
    (POSITION_3, 2),
]


@pytest.mark.parametrize("fen,depth", REFEREE_CASES)
def test_search_with_quiescence_matches_python_chess_referee(fen: str, depth: int) -> None:
    expected = referee_search(chess.Board(fen), depth, -INFINITY, INFINITY)
    assert Searcher(MATERIAL_ONLY).search(Position.from_fen(fen), depth)[0] == expected


@functools.cache
def random_positions(count: int, seed: int) -> list[chess.Board]:
    """Positions from random games, openings to endgames."""
    generator = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(generator.randrange(0, 200)):
            if board.is_game_over():
                break
            board.push(generator.choice(list(board.legal_moves)))
        boards.append(board)
    return boards


@pytest.mark.parametrize("pst", [True, False])
def test_evaluation_is_symmetric_under_colour_flip(pst: bool) -> None:
    endgames = 0
    for board in random_positions(200, 6):
        position = Position.from_fen(board.fen())
        mirrored = Position.from_fen(board.mirror().fen())
        assert evaluate(position, pst) == evaluate(mirrored, pst), board.fen()
        endgames += is_endgame(position.board)
    assert endgames >= 20  # the king's endgame switch was exercised too


def test_material_evaluation_matches_python_chess() -> None:
    for board in random_positions(200, 6):
        assert evaluate(Position.from_fen(board.fen()), pst=False) == material(board, board.turn)


@pytest.mark.parametrize("table", [*PRINTED_TABLES.values(), KING_ENDGAME_TABLE])
def test_black_reads_the_tables_mirrored_by_rank(table: tuple[int, ...]) -> None:
    for square in chess.SQUARES:
        assert table_value(table, WHITE, square) == table_value(
            table, BLACK, chess.square_mirror(square))


def test_table_entries_match_the_printed_page() -> None:
    # Michniewski's tables as printed: first row rank 8, White's side.
    assert table_value(PAWN_TABLE, WHITE, chess.E2) == -20
    assert table_value(PAWN_TABLE, WHITE, chess.A7) == 50
    assert table_value(PAWN_TABLE, BLACK, chess.E7) == -20
    assert table_value(PAWN_TABLE, BLACK, chess.H2) == 50
    assert table_value(KNIGHT_TABLE, WHITE, chess.B1) == -40
    assert table_value(KING_MIDDLEGAME_TABLE, WHITE, chess.G1) == 30
    assert table_value(KING_MIDDLEGAME_TABLE, BLACK, chess.G8) == 30
    assert table_value(KING_ENDGAME_TABLE, WHITE, chess.E4) == 40
    # The queen's table is not symmetric from left to right: a flip by `63 - square`
    # instead of by rank would show here.
    assert table_value(QUEEN_TABLE, WHITE, chess.B3) == 5
    assert table_value(QUEEN_TABLE, WHITE, chess.G3) == 0
    assert table_value(QUEEN_TABLE, BLACK, chess.B6) == 5
    assert table_value(QUEEN_TABLE, BLACK, chess.G6) == 0


@pytest.mark.parametrize("fen,expected", [
    # Entries read off the printed tables by hand; + for White, from the side to move.
    ("8/8/8/4k3/8/8/8/K7 w - - 0 1", -50 - 40),  # endgame kings: a1 -50, Black's e5 +40
    ("8/8/8/4k3/8/8/8/K7 b - - 0 1", 40 + 50),  # the same, Black to move
    ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", (100 - 20) - 30 + 30),  # pawn e2, kings e1 / e8
    ("r3k3/8/8/8/8/8/8/K2Q4 w - - 0 1", (900 - 5) - 50 - (500 + 0) + 30),  # endgame kings
    ("rn2k3/8/8/8/8/8/8/1K1Q4 b - - 0 1", -((900 - 5) - 30 - (500 + 0) - (320 - 40) + 30)),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", -(20 - -20)),  # 1. e4
    ("4rk2/8/8/8/8/8/8/Q5K1 w - - 0 1", (900 - 20) - 30 - (500 + 5) + 30),  # endgame: no rook
    ("4rk2/8/8/8/8/8/8/Q3R1K1 w - - 0 1",  # queen and rook: middlegame kings, g1 +30, f8 +10
     (900 - 20) + (500 + 5) + 30 - (500 + 5) - 10),
])
def test_evaluation_by_hand(fen: str, expected: int) -> None:
    assert evaluate(Position.from_fen(fen)) == expected


@pytest.mark.parametrize("fen,endgame", [
    (chess.STARTING_FEN, False),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),  # no queens
    ("3qk3/8/8/8/8/8/8/3QK3 w - - 0 1", True),  # queens and nothing else
    ("2nqk3/8/8/8/8/8/8/2NQK3 w - - 0 1", True),  # queen and one minor each
    ("1nnqk3/8/8/8/8/8/8/3QK3 w - - 0 1", False),  # Black: queen and two minors
    ("3qk2r/8/8/8/8/8/8/3QK3 w - - 0 1", False),  # Black: queen and a rook
    ("4k2r/8/8/8/8/8/8/3QK3 w - - 0 1", True),  # the side with the rook has no queen
    ("4k3/8/8/8/8/8/8/2QQK3 w - - 0 1", False),  # two queens
])
def test_endgame_rule(fen: str, endgame: bool) -> None:
    assert is_endgame(Position.from_fen(fen).board) == endgame


SMALL = [
    "8/8/8/4k3/8/8/3QK3/8 w - - 0 1",
    POSITION_3,
    EN_PASSANT_PAWNS,
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "2r3k1/5ppp/8/8/8/2n5/5PPP/3RR1K1 b - - 0 1",
]


@pytest.mark.parametrize("fen", SMALL)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alphabeta_matches_minimax_with_the_tables(fen: str, depth: int) -> None:
    # minimax has no quiescence search, so the comparison switches it off; the tables stay
    # on in both (minimax calls `evaluate` with its default, the tables).
    techniques = Techniques(quiescence=False, **NO_EXTENSIONS, **NO_PRUNING)
    expected = minimax(Position.from_fen(fen), depth)
    assert Searcher(techniques).search(Position.from_fen(fen), depth)[0] == expected
