"""The built-in book, opening files, and seeded selection."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from cb2026.openings import (
    BUILTIN_OPENINGS,
    builtin_openings,
    load_openings,
    parse_move_list,
    select_openings,
)

pytestmark = pytest.mark.stage("stage-07.1-matches")


def test_builtin_book_is_legal_short_and_distinct() -> None:
    """At least 50 lines, each legal, 4 to 8 plies, with distinct names and positions."""
    openings = builtin_openings()
    assert len(openings) >= 50
    assert len({opening.name for opening in openings}) == len(openings)
    assert len({opening.board().epd() for opening in openings}) == len(openings)
    for opening in openings:
        assert 4 <= len(opening.moves) <= 8
        assert opening.board().outcome() is None
    assert len(BUILTIN_OPENINGS) == len(openings)


def test_move_lists_accept_san_uci_and_numbers() -> None:
    """Move numbers and results are skipped; SAN and UCI both parse."""
    assert parse_move_list("1. e4 e5 2.Nf3 b8c6 3. Bb5 *") == (
        "e2e4",
        "e7e5",
        "g1f3",
        "b8c6",
        "f1b5",
    )


def test_text_file_with_fen_epd_and_moves(tmp_path: Path) -> None:
    """One opening per line, of any of the three kinds; comments are ignored."""
    fen = "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    epd = 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - id "Two knights";'
    path = tmp_path / "book.epd"
    path.write_text(f"# my book\n{fen}\n\n{epd}\nd4 d5 c4 e6 # QGD\n")
    openings = load_openings(path)
    assert [opening.name for opening in openings] == ["book.epd:2", "Two knights", "book.epd:5"]
    assert openings[0].start_fen == fen and openings[0].moves == ()
    assert openings[1].board().piece_at(chess.C6) == chess.Piece.from_symbol("n")
    assert openings[2].moves == ("d2d4", "d7d5", "c2c4", "e7e6")


def test_pgn_file(tmp_path: Path) -> None:
    """A PGN game gives its start position (FEN header) and main line."""
    path = tmp_path / "book.pgn"
    path.write_text(
        '[Event "x"]\n[Opening "Petrov"]\n\n1. e4 e5 2. Nf3 Nf6 *\n\n'
        '[Event "y"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n\n1. e4 *\n'
    )
    first, second = load_openings(path)
    assert first.name == "Petrov" and first.moves == ("e2e4", "e7e5", "g1f3", "g8f6")
    assert second.start_fen == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    assert second.moves == ("e2e4",)


def test_selection_is_seeded_and_cycles_without_early_repeats() -> None:
    """The same seed gives the same list; every opening is used before any repeats."""
    openings = builtin_openings()
    first = select_openings(openings, 80, seed=7)
    assert first == select_openings(openings, 80, seed=7)
    assert first != select_openings(openings, 80, seed=8)
    assert len(set(first[: len(openings)])) == len(openings)
