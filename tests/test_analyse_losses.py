"""tools/analyse_losses.py: reading the runner's PGN comments, and finding the losing move.

The labeller here is a table of made-up scores, so that the rule that picks the losing move
is checked on cases worked out by hand; the real labeller is Stockfish, run by the tool.
"""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest

from analyse_losses import DROP, game_depths, losing_move

pytestmark = [pytest.mark.stage("stage-15-pruning"), pytest.mark.tooling]

# Two opening moves marked "book", then four engine moves with the runner's comments.
GAME = """[White "cb2026"]
[Black "stockfish-1800"]
[Result "0-1"]

1. e4 { book } 1... e5 { book } 2. Nf3 { +0.35/6 0.412s hashfull=3 }
2... Nc6 { -0.20/13 0.300s hashfull=40 } 3. Bc4 { ? 0.100s } 3... Nf6 { -0.10/12 0.2s } 0-1
"""


def read(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


class TableLabeller:
    """Scores by the number of plies played: `before[ply]` for the position before the
    move at that ply, `after[ply]` for the position the move makes, both for White."""

    def __init__(self, before: dict[int, int], after: dict[int, int]) -> None:
        self.before, self.after_move = before, after

    def score(self, board: chess.Board, side: chess.Color) -> int:
        value = self.before[board.ply()]
        return value if side == chess.WHITE else -value

    def after(self, board: chess.Board, move: chess.Move, side: chess.Color) -> int:
        value = self.after_move[board.ply()]
        return value if side == chess.WHITE else -value


def test_book_moves_are_left_out_and_depths_read() -> None:
    moves = game_depths(read(GAME))
    assert [move.uci() for _, move, _ in moves] == ["g1f3", "b8c6", "f1c4", "g8f6"]
    # A move without a score ("?") has no depth either.
    assert [depth for _, _, depth in moves] == [6, 13, None, 12]
    assert [board.ply() for board, _, _ in moves] == [2, 3, 4, 5]


def test_the_first_move_that_loses_the_game_is_the_losing_move() -> None:
    moves = game_depths(read(GAME))
    # White's moves are at plies 2 and 4: 2 drops by DROP - 1 into a lost position, 4 by
    # DROP into one.
    labeller = TableLabeller(before={2: DROP - 2, 4: 0}, after={2: -1, 4: -DROP})
    found = losing_move(moves, chess.WHITE, labeller)
    assert found is not None
    assert (found["ply"], found["move"], found["game_depth"]) == (4, "f1c4", None)
    assert (found["before"], found["after"]) == (0, -DROP)


def test_a_drop_that_leaves_the_game_open_is_not_the_losing_move() -> None:
    moves = game_depths(read(GAME))
    # Ply 2 throws away three pawns of a winning position, and stays ahead; ply 4 drops by
    # DROP from a small lead to a position not yet lost.
    labeller = TableLabeller(before={2: 3 * DROP, 4: DROP // 2},
                             after={2: DROP - 1, 4: -DROP + DROP // 2})
    assert losing_move(moves, chess.WHITE, labeller) is None


def test_the_opponents_moves_are_not_ours() -> None:
    moves = game_depths(read(GAME))
    # Black's move at ply 3 loses a rook for Black, which is White's gain, not a mistake
    # of White's; White's own moves lose nothing.
    labeller = TableLabeller(before={2: 0, 3: 0, 4: 5 * DROP},
                             after={2: 0, 3: 5 * DROP, 4: 5 * DROP})
    assert losing_move(moves, chess.WHITE, labeller) is None
    found = losing_move(moves, chess.BLACK, labeller)
    assert found is not None and found["move"] == "b8c6"


def test_a_game_already_lost_has_no_losing_move() -> None:
    moves = game_depths(read(GAME))
    # White stands at -DROP before its second move: lost already, though it drops more.
    labeller = TableLabeller(before={2: -DROP + 1, 4: -DROP}, after={2: -DROP + 1,
                                                                      4: -2 * DROP})
    assert losing_move(moves, chess.WHITE, labeller) is None
