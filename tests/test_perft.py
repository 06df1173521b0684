"""Perft counts of the standard test positions (chessprogramming.org "Perft Results")."""

import pytest

from cb2026.move import move_to_uci
from cb2026.perft import divide, perft
from cb2026.position import STARTING_FEN, Position
from positions import KIWIPETE, POSITION_3, POSITION_4, POSITION_5, POSITION_6

pytestmark = pytest.mark.stage("stage-03-legal")

POSITION_4_MIRRORED = "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1"

CASES = [
    (STARTING_FEN, [20, 400, 8902, 197281]),
    (KIWIPETE, [48, 2039, 97862]),
    (POSITION_3, [14, 191, 2812, 43238, 674624]),
    (POSITION_4, [6, 264, 9467, 422333]),
    (POSITION_4_MIRRORED, [6, 264, 9467]),
    (POSITION_5, [44, 1486, 62379]),
    (POSITION_6, [46, 2079, 89890]),
]


@pytest.mark.parametrize(("fen", "counts"), CASES)
def test_perft_counts(fen: str, counts: list[int]) -> None:
    position = Position.from_fen(fen)
    for depth, expected in enumerate(counts, start=1):
        assert perft(position, depth) == expected, f"depth {depth}"
    assert position.fen() == fen  # perft leaves the position as it found it


def test_perft_depth_zero_is_one() -> None:
    assert perft(Position.starting(), 0) == 1


def test_divide_matches_perft() -> None:
    position = Position.from_fen(KIWIPETE)
    counts = divide(position, 2)
    assert len(counts) == 48
    assert sum(counts.values()) == 2039
    by_name = {move_to_uci(move): count for move, count in counts.items()}
    assert by_name["e1g1"] == 43  # castling kingside, as printed by Stockfish
    assert by_name["e5f7"] == 44
