"""python-chess as referee: random games checked move by move against it.

FEN convention: cb2026 keeps an en-passant square only when a pawn of the side
to move stands ready to capture there, which is what python-chess prints with
`board.fen(en_passant="xfen")`; that is the form compared here.
"""

import random

import chess
import pytest

from cb2026.move import move_to_uci
from cb2026.perft import divide
from cb2026.position import Position
from cb2026.rules import (
    is_checkmate,
    is_fifty_move_draw,
    is_in_check,
    is_insufficient_material,
    is_stalemate,
    legal_moves,
)
from positions import ILLEGAL_EN_PASSANT, PERFT_POSITIONS

pytestmark = pytest.mark.stage("stage-03-legal")

START_FENS = [
    *PERFT_POSITIONS,
    "4k3/1P6/8/2pP4/8/8/6p1/4K3 w - c6 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "8/8/8/2k5/3Pp3/8/8/4K2Q b - d3 0 1",
    ILLEGAL_EN_PASSANT,
]


def compare(position: Position, board: chess.Board) -> None:
    """Assert that cb2026 and python-chess agree about the current position."""
    assert position.fen() == board.fen(en_passant="xfen")
    ours = sorted(move_to_uci(move) for move in legal_moves(position))
    theirs = sorted(move.uci() for move in board.legal_moves)
    assert ours == theirs, position.fen()
    assert is_in_check(position) == board.is_check()
    assert is_checkmate(position) == board.is_checkmate()
    assert is_stalemate(position) == board.is_stalemate()
    assert is_insufficient_material(position) == board.is_insufficient_material()
    assert is_fifty_move_draw(position) == board.is_fifty_moves()


def play_random_game(seed: int, start_fen: str, plies: int) -> int:
    """Play a random game against the referee; return the number of positions checked."""
    generator = random.Random(seed)
    position = Position.from_fen(start_fen)
    board = chess.Board(start_fen)
    fens = [position.fen()]
    checked = 0
    for _ in range(plies):
        compare(position, board)
        checked += 1
        moves = legal_moves(position)
        if not moves:
            break
        move = generator.choice(moves)
        position.make_move(move)
        board.push(chess.Move.from_uci(move_to_uci(move)))
        fens.append(position.fen())
    compare(position, board)
    # Take everything back: every earlier position must reappear exactly.
    while position.undo_stack:
        fens.pop()
        position.unmake_move()
        assert position.fen() == fens[-1]
    return checked + 1


@pytest.mark.parametrize("start_index", range(len(START_FENS)))
def test_random_games_agree_with_python_chess(start_index: int) -> None:
    checked = 0
    for game in range(25):
        checked += play_random_game(1000 * start_index + game, START_FENS[start_index], 200)
    assert checked > 1000


def test_endgame_shuffles_hit_draw_rules() -> None:
    """Random play in thin positions reaches mates, stalemates, fifty-move and dead draws."""
    for seed in range(40):
        play_random_game(seed, "4k3/8/8/3q4/8/8/2N1B3/4K3 w - - 90 80", 60)
        play_random_game(seed, "8/8/4k3/8/2n5/8/4K3/2R5 b - - 0 1", 80)


def test_divide_agrees_with_python_chess() -> None:
    for fen in START_FENS:
        position = Position.from_fen(fen)
        board = chess.Board(fen)
        ours = {move_to_uci(move): count for move, count in divide(position, 2).items()}
        theirs = {}
        for move in board.legal_moves:
            board.push(move)
            theirs[move.uci()] = board.legal_moves.count()
            board.pop()
        assert ours == theirs
