"""The command loop of stage 3: `perft` and `go perft`, and only legal moves accepted.

The commands of stage 1 (uci, isready, position, d, help, quit) are tested in
test_cli_board.py; here only what stage 3 adds or changes.
"""

import os
import pathlib
import subprocess
import sys

import chess
import pytest

from command_loop import talk
from positions import EN_PASSANT_RANK, PINNED

pytestmark = pytest.mark.stage("stage-03-legal")


def python_chess_divide(board: chess.Board, depth: int) -> dict[str, int]:
    """Return the referee's perft count of depth - 1 below each legal move."""

    def count(depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for move in board.legal_moves:
            board.push(move)
            total += count(depth - 1)
            board.pop()
        return total

    counts = {}
    for move in board.legal_moves:
        board.push(move)
        counts[move.uci()] = count(depth - 1)
        board.pop()
    return counts


def test_perft_output_matches_stockfish_format() -> None:
    lines = talk("position startpos moves e2e4\ngo perft 2\n")
    assert len(lines) == 20 + 3
    assert lines[0] == "a7a5: 30"
    assert all(": " in line for line in lines[:20])
    assert lines[20:] == ["", "Nodes searched: 600", ""]
    assert talk("perft 1\n")[-2] == "Nodes searched: 20"


@pytest.mark.parametrize("fen", [PINNED, EN_PASSANT_RANK])
def test_perft_lines_agree_with_python_chess(fen: str) -> None:
    lines = talk(f"position fen {fen}\nperft 3\n")
    expected = python_chess_divide(chess.Board(fen), 3)
    move_lines = lines[:-3]
    assert move_lines == sorted(move_lines)  # sorted by move text, for diffing
    assert dict(line.split(": ") for line in move_lines) == {
        move: str(count) for move, count in expected.items()
    }
    assert lines[-3:] == ["", f"Nodes searched: {sum(expected.values())}", ""]


def test_errors_keep_the_loop_running() -> None:
    lines = talk(
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1\n"
        "position startpos moves e2e5\n"
        "position startpos moves e2e4 e8e7\n"
        "position startpos moves e2e4 zz\n"
        "position sideways\n"
        "frobnicate\n"
        "perft x\n"
        "perft 0\n"
        "go perft\n"
        "go perft x\n"  # an error at every stage (from stage 7 an unknown word in `go` is skipped)
        "isready\n"
    )
    assert len(lines) == 11
    assert all(line.startswith("info string error: ") for line in lines[:10])
    assert "kings" in lines[0]
    assert "illegal move 'e2e5'" in lines[1]
    assert "illegal move 'e8e7'" in lines[2]
    assert "malformed move 'zz'" in lines[3]
    assert "unknown command 'frobnicate'" in lines[5]
    assert lines[-1] == "readyok"


@pytest.mark.parametrize(("fen", "move"), [
    (PINNED, "c3d5"),  # the knight is pinned to its king
    (EN_PASSANT_RANK, "d5c6"),  # en passant would open the rank to the rook
    (EN_PASSANT_RANK, "a5b4"),  # into the attack of the c5 pawn
    ("r3k2r/8/8/8/8/8/8/R3K1r1 w Qkq - 0 1", "e1c1"),  # castling out of check
    ("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1", "e1g1"),  # castling through f1, attacked
])
def test_moves_that_leave_the_king_attacked_are_rejected(fen: str, move: str) -> None:
    assert move not in {m.uci() for m in chess.Board(fen).legal_moves}  # the referee agrees
    lines = talk(f"position fen {fen} moves {move}\nd\n")
    assert lines[0] == f"info string error: illegal move {move!r} in this position"
    assert f"Fen: {chess.Board().fen()}" in lines  # the default position is still there


def test_failed_position_command_keeps_previous_position() -> None:
    lines = talk("position startpos moves e2e4\nposition startpos moves d2d4 d2d4\nd\n")
    assert "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1" in lines


def test_help_lists_the_perft_commands() -> None:
    names = [line.split()[0] for line in talk("help\n")]
    assert {"perft", "go"} <= set(names)


def test_console_process_runs_perft() -> None:
    import cb2026

    package_root = pathlib.Path(cb2026.__file__).resolve().parent.parent
    environment = dict(os.environ, PYTHONPATH=str(package_root))
    result = subprocess.run(
        [sys.executable, "-c", "from cb2026.cli import main; main()"],
        input="isready\nbogus\nperft 2\n", capture_output=True, text=True,
        env=environment, timeout=60, check=False,
    )
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "readyok"
    assert lines[1].startswith("info string error: ")
    assert lines[-2] == "Nodes searched: 400"
