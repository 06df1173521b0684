"""The built-in book, the book's suite, opening files, and seeded selection."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from cb2026.openings import (
    BUILTIN_OPENINGS,
    Opening,
    book_suite,
    book_suite_path,
    builtin_openings,
    load_openings,
    opening_from_text_line,
    parse_move_list,
    select_openings,
)

pytestmark = [pytest.mark.stage("stage-07.1-matches"), pytest.mark.tooling]


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
    path.write_text(f"# my book\n{fen}\n\n{epd}\n  # QGD\nd4 d5 c4 e6\n")
    openings = load_openings(path)
    assert [opening.name for opening in openings] == ["book.epd:2", "Two knights", "book.epd:6"]
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


STOCKFISH = Path("/usr/games/stockfish")
REPOSITORY = Path(__file__).resolve().parents[1]


def suite_records() -> list[str]:
    """Return the stored suite's EPD records, without the comment header."""
    return [line for line in suite_lines() if not line.startswith("#")]


def suite_lines() -> list[str]:
    """Return the stored suite's lines, header included."""
    return book_suite_path().read_text().splitlines()


def test_book_suite_is_large_legal_balanced_and_distinct() -> None:
    """At least 1000 positions, each replayed legally by python-chess, none in check or over."""
    suite = book_suite()
    records = [chess.Board.from_epd(line) for line in suite_records()]
    assert len(suite) == len(records) >= 1000
    assert len({opening.name for opening in suite}) == len(suite)
    assert len({board.epd() for board, _ in records}) == len(suite)
    for opening, (board, operations) in zip(suite, records, strict=True):
        assert opening.name == operations["id"]
        replay = chess.Board()
        for move in opening.moves:
            assert chess.Move.from_uci(move) in replay.legal_moves, (opening.name, move)
            replay.push_uci(move)
        assert replay.epd() == board.epd() and 6 <= len(opening.moves) <= 10
        assert not board.is_check() and board.outcome() is None
        white_score = operations["ce"] if board.turn == chess.WHITE else -operations["ce"]
        assert abs(white_score) <= 60


def test_suite_header_records_command_and_engine() -> None:
    """The header names the generating command and the Stockfish version."""
    header = [line for line in suite_lines() if line.startswith("#")]
    assert any(line.startswith("# command: python tools/make_openings.py ") for line in header)
    assert any("Stockfish 15.1" in line for line in header)


@pytest.mark.slow
@pytest.mark.skipif(not STOCKFISH.exists(), reason="Stockfish not at /usr/games/stockfish")
def test_header_command_regenerates_the_head_of_the_suite(tmp_path: Path) -> None:
    """The header's command, run for 15 positions, writes the stored file's first 15."""
    header_command = next(
        line.removeprefix("# command: ") for line in suite_lines() if line.startswith("# command: ")
    )
    arguments = shlex.split(header_command)[1:]  # without "python"
    output = tmp_path / "head.epd"
    arguments = [
        "--count=15" if argument.startswith("--count=") else argument for argument in arguments
    ]
    arguments = [a for a in arguments if not a.startswith("--output=")] + [f"--output={output}"]
    subprocess.run([sys.executable, *arguments], cwd=REPOSITORY, check=True, timeout=300)
    regenerated = [line for line in output.read_text().splitlines() if not line.startswith("#")]
    assert regenerated == suite_records()[:15]


def test_bad_epd_line_names_file_and_line(tmp_path: Path) -> None:
    """A rank of nine squares on line 3 is reported as line 3 of the file."""
    path = tmp_path / "bad.epd"
    path.write_text(
        "# header\n"
        'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id "good";\n'
        'rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id "bad";\n'
    )
    with pytest.raises(ValueError, match=r"bad\.epd, line 3: not a FEN, EPD record or move list"):
        load_openings(path)


def test_epd_comment_line_is_kept_only_when_it_reaches_the_position() -> None:
    """A c0 line reaching the position becomes the moves; free text or another line does not."""
    position = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"
    replayed = opening_from_text_line(f'{position} id "open"; c0 "1. e4 e5";', "x")
    assert replayed == Opening("open", chess.STARTING_FEN, ("e2e4", "e7e5"))
    for comment in ("a sharp line", "1. d4 d5"):
        opening = opening_from_text_line(f'{position} c0 "{comment}";', "line 1")
        assert opening.name == "line 1" and opening.moves == ()
        assert opening.board().epd() == position


def test_a_hash_inside_a_line_is_not_a_comment(tmp_path: Path) -> None:
    """Only a line starting with '#' is a comment: a quoted id and a SAN mate keep their '#'."""
    epd = 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - id "line #2";'
    path = tmp_path / "book.epd"
    path.write_text(f"#{epd}\n{epd}\ne4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#\n")
    first, second = load_openings(path)
    assert first.name == "line #2"
    assert second.moves[-1] == "h5f7" and second.board().is_checkmate()
