"""The command loop of stage 1: UCI handshake, position, d, help, errors and quitting.

Only what stays true in later stages is asserted (later chapters add commands, UCI
options and lines to `d`), so these tests hold for every stage from 1 on.
"""

import os
import pathlib
import subprocess
import sys

import chess
import pytest

import cb2026
from command_loop import ERROR, talk
from positions import KIWIPETE, POSITION_3

pytestmark = pytest.mark.stage("stage-01-board")



def fen_shown(lines: list[str]) -> str:
    """The FEN of the last `Fen: ...` line that `d` printed."""
    fens = [line.removeprefix("Fen: ") for line in lines if line.startswith("Fen: ")]
    assert fens, lines
    return fens[-1]


def test_uci_handshake() -> None:
    lines = talk("uci\n")
    assert lines[0] == "id name cb2026"
    assert any(line.startswith("id author ") for line in lines)
    assert lines[-1] == "uciok"


def test_isready() -> None:
    assert talk("isready\n") == ["readyok"]


def test_starting_position_by_default_and_by_startpos() -> None:
    assert fen_shown(talk("d\n")) == chess.STARTING_FEN
    assert fen_shown(talk(f"position fen {KIWIPETE}\nposition startpos\nd\n")) == (
        chess.STARTING_FEN
    )


@pytest.mark.parametrize(
    "fen",
    [
        KIWIPETE,
        POSITION_3,
        "rnbqkbnr/pp2pppp/8/2ppP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    ],
)
def test_position_fen_is_shown_as_python_chess_writes_it(fen: str) -> None:
    assert fen_shown(talk(f"position fen {fen}\nd\n")) == chess.Board(fen).fen(
        en_passant="xfen"
    )


def test_d_draws_the_board_with_white_at_the_bottom() -> None:
    lines = talk(f"position fen {KIWIPETE}\nd\n")
    board = chess.Board(KIWIPETE)
    rows = [line for line in lines if line[:3].strip().isdigit()]
    assert [row.split("|")[0].strip() for row in rows] == list("87654321")
    for row, rank in zip(rows, range(7, -1, -1), strict=True):
        cells = [cell.strip() for cell in row.split("|")[1:9]]
        expected = [board.piece_at(chess.square(file, rank)) for file in range(8)]
        assert cells == [piece.symbol() if piece else "" for piece in expected]


def test_bad_fen_is_reported_and_the_loop_goes_on() -> None:
    lines = talk(
        f"position fen {KIWIPETE}\n"
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1\n"
        "position fen 4k2P/8/8/8/8/8/8/4K3 w - - 0 1\n"
        "position fen\n"
        "isready\n"
        "d\n"
    )
    errors = [line for line in lines if line.startswith(ERROR)]
    assert len(errors) == 3
    assert "bad FEN" in errors[0] and "kings" in errors[0]
    assert "h8" in errors[1]
    assert "readyok" in lines
    # A failed position command leaves the previous position in place.
    assert fen_shown(lines) == KIWIPETE


def test_malformed_position_commands_are_errors() -> None:
    for command in ("position", "position sideways", "position startpos sideways"):
        lines = talk(f"{command}\nisready\n")
        assert len(lines) == 2 and lines[0].startswith(ERROR), command
        assert lines[1] == "readyok"


def test_unknown_command_is_an_error() -> None:
    lines = talk("frobnicate now\nisready\n")
    assert lines[0].startswith(ERROR) and "unknown command 'frobnicate'" in lines[0]
    assert lines[1] == "readyok"


def test_blank_lines_and_extra_spaces_are_ignored() -> None:
    assert talk("\n   \n  isready   \n\n") == ["readyok"]


def test_help_lists_the_commands() -> None:
    names = {line.split()[0] for line in talk("help\n")}
    assert {"uci", "isready", "position", "d", "help", "quit"} <= names


def test_quit_stops_reading() -> None:
    assert talk("isready\nquit\nisready\n") == ["readyok"]


def engine_process(text: str) -> subprocess.CompletedProcess[str]:
    """Run the console command's main() in a fresh Python with `text` on its stdin."""
    package_parent = pathlib.Path(cb2026.__file__).resolve().parent.parent
    environment = dict(os.environ, PYTHONPATH=str(package_parent))
    return subprocess.run(
        [sys.executable, "-c", "from cb2026.cli import main; main()"],
        input=text,
        capture_output=True,
        text=True,
        env=environment,
        timeout=30,
        check=False,
    )


def test_end_of_input_exits_cleanly() -> None:
    result = engine_process("uci\nisready\n")
    assert result.returncode == 0
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "id name cb2026" and "uciok" in lines
    assert lines[-1] == "readyok"


def test_quit_exits_cleanly_in_a_process() -> None:
    result = engine_process("isready\nquit\nisready\n")
    assert result.returncode == 0
    assert result.stderr == ""
    assert result.stdout == "readyok\n"
