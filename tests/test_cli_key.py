"""The `d` command: the diagram, the FEN and the Zobrist key of the current position."""

import io
import re

import chess
import pytest

from cb2026.cli import run
from cb2026.position import Position

pytestmark = pytest.mark.stage("stage-04-zobrist")

KEY_LINE = re.compile(r"Key: ([0-9A-F]{16})")


def show(position_command: str) -> list[str]:
    """Return the output of `d` after `position_command`."""
    output = io.StringIO()
    run(io.StringIO(f"{position_command}\nd\n"), output)
    return output.getvalue().splitlines()


def shown_key(lines: list[str]) -> int:
    """The key on the last line of `d`'s output, checked for its format."""
    match = KEY_LINE.fullmatch(lines[-1])
    assert match, lines[-1]
    return int(match.group(1), 16)


def referee_board(position_command: str) -> chess.Board:
    """The position a `position ...` command describes, set up by python-chess."""
    words = position_command.split()
    end = words.index("moves") if "moves" in words else len(words)
    board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:end]))
    for text in words[end + 1:]:
        board.push_uci(text)
    return board


COMMANDS = [
    "position startpos",
    "position startpos moves e2e4",
    "position startpos moves e2e4 d7d5 e4e5 f7f5",
    "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1 e8c8",
    "position fen 4k3/1P6/8/8/8/8/8/4K3 w - - 3 40 moves b7b8q",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_d_prints_board_fen_and_key(command: str) -> None:
    lines = show(command)
    board = referee_board(command)
    # The diagram: one row per rank, eighth rank first, a letter (or blank) per square.
    rows = [line for line in lines if re.match(r" [1-8] \|", line)]
    assert len(rows) == 8
    for row, rank in zip(rows, range(7, -1, -1), strict=True):
        cells = [cell.strip() for cell in row.split("|")[1:9]]
        expected = [board.piece_at(chess.square(file, rank)) for file in range(8)]
        assert cells == [piece.symbol() if piece else "" for piece in expected], row
    # The FEN, then the key: that of the FEN shown, computed from scratch.
    assert lines[-2] == f"Fen: {board.fen(en_passant='xfen')}"
    fen = lines[-2].removeprefix("Fen: ")
    assert shown_key(lines) == Position.from_fen(fen).compute_key()


def test_key_changes_with_the_position() -> None:
    keys = [shown_key(show(command)) for command in COMMANDS]
    assert len(set(keys)) == len(keys)
    # The same placement with the other side to move, or without castling rights, differs.
    base = "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    variants = [base, base.replace(" w ", " b "), base.replace("KQkq", "Kkq")]
    assert len({shown_key(show(command)) for command in variants}) == 3


def test_key_ignores_clocks_and_move_order() -> None:
    first = show("position startpos moves e2e4 e7e5 g1f3 b8c6")
    second = show("position startpos moves g1f3 b8c6 e2e4 e7e5")
    # The FENs differ in the halfmove clock; the keys do not.
    assert first[-2] != second[-2]
    assert shown_key(first) == shown_key(second)
