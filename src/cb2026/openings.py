# Generated from the book by tools/literate, from chapters stage-07.1-matches.
# Do not edit: change the chapters and run `make tangle`.

"""Opening positions for engine matches: a built-in book,
the book's suite, files, selection."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

# The open games, the Sicilian, French and Caro-Kann, and other replies to 1. e4.
KING_PAWN_LINES: tuple[tuple[str, str], ...] = (
    ("Ruy Lopez, Morphy Defence", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6"),
    ("Ruy Lopez, Berlin Defence", "e4 e5 Nf3 Nc6 Bb5 Nf6 O-O Nxe4"),
    ("Ruy Lopez, Exchange Variation", "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6"),
    ("Italian Game, Giuoco Piano", "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6"),
    ("Italian Game, Two Knights Defence", "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Be7"),
    ("Scotch Game", "e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Nf6"),
    ("Four Knights Game", "e4 e5 Nf3 Nc6 Nc3 Nf6"),
    ("Petrov Defence", "e4 e5 Nf3 Nf6 Nxe5 d6 Nf3 Nxe4"),
    ("Philidor Defence", "e4 e5 Nf3 d6 d4 Nf6 Nc3 Nbd7"),
    ("Vienna Game", "e4 e5 Nc3 Nf6 g3 d5"),
    ("Bishop's Opening", "e4 e5 Bc4 Nf6 d3 c6"),
    ("Sicilian Defence, Open, 2...d6", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6"),
    ("Sicilian Defence, Taimanov", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nc6"),
    ("Sicilian Defence, Kan", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 a6"),
    ("Sicilian Defence, Open, 2...Nc6", "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 Nf6"),
    ("Sicilian Defence, Accelerated Dragon", "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 g6"),
    ("Sicilian Defence, Alapin", "e4 c5 c3 Nf6 e5 Nd5 d4 cxd4"),
    ("Sicilian Defence, Closed", "e4 c5 Nc3 Nc6 g3 g6 Bg2 Bg7"),
    ("Sicilian Defence, Rossolimo", "e4 c5 Nf3 Nc6 Bb5 g6 O-O Bg7"),
    ("Sicilian Defence, Moscow", "e4 c5 Nf3 d6 Bb5+ Bd7 Bxd7+ Qxd7"),
    ("French Defence, Winawer", "e4 e6 d4 d5 Nc3 Bb4 e5 c5"),
    ("French Defence, Classical", "e4 e6 d4 d5 Nc3 Nf6 Bg5 Be7"),
    ("French Defence, Tarrasch", "e4 e6 d4 d5 Nd2 Nf6 e5 Nfd7"),
    ("French Defence, Advance", "e4 e6 d4 d5 e5 c5 c3 Nc6"),
    ("French Defence, Exchange", "e4 e6 d4 d5 exd5 exd5 Nf3 Nf6"),
    ("Caro-Kann Defence, Classical", "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Bf5"),
    ("Caro-Kann Defence, Advance", "e4 c6 d4 d5 e5 Bf5 Nf3 e6"),
    ("Caro-Kann Defence, Panov Attack", "e4 c6 d4 d5 exd5 cxd5 c4 Nf6"),
    ("Caro-Kann Defence, Two Knights", "e4 c6 Nc3 d5 Nf3 Bg4 h3 Bxf3"),
    ("Pirc Defence", "e4 d6 d4 Nf6 Nc3 g6 Nf3 Bg7"),
    ("Modern Defence", "e4 g6 d4 Bg7 Nc3 d6"),
    ("Scandinavian Defence", "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 Nf6"),
    ("Alekhine Defence, Modern", "e4 Nf6 e5 Nd5 d4 d6 Nf3 Bg4"),
)

# The Queen's Gambit, the Indian defences, the Dutch, and White's own systems
# (London, Colle, Trompowsky).
QUEEN_PAWN_LINES: tuple[tuple[str, str], ...] = (
    ("Queen's Gambit Declined, Orthodox", "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7"),
    ("Queen's Gambit Declined, Exchange", "d4 d5 c4 e6 Nc3 Nf6 cxd5 exd5"),
    ("Queen's Gambit Declined, Ragozin", "d4 Nf6 c4 e6 Nf3 d5 Nc3 Bb4"),
    ("Queen's Gambit Accepted", "d4 d5 c4 dxc4 Nf3 Nf6 e3 e6"),
    ("Tarrasch Defence", "d4 d5 c4 e6 Nc3 c5 cxd5 exd5"),
    ("Slav Defence", "d4 d5 c4 c6 Nf3 Nf6 Nc3 dxc4"),
    ("Slav Defence, Exchange", "d4 d5 c4 c6 cxd5 cxd5 Nc3 Nf6"),
    ("Semi-Slav Defence", "d4 d5 c4 c6 Nf3 Nf6 Nc3 e6"),
    ("Nimzo-Indian Defence, Rubinstein", "d4 Nf6 c4 e6 Nc3 Bb4 e3 O-O"),
    ("Nimzo-Indian Defence, Classical", "d4 Nf6 c4 e6 Nc3 Bb4 Qc2 O-O"),
    ("Queen's Indian Defence", "d4 Nf6 c4 e6 Nf3 b6 g3 Bb7"),
    ("Bogo-Indian Defence", "d4 Nf6 c4 e6 Nf3 Bb4+ Bd2 Qe7"),
    ("Catalan Opening", "d4 Nf6 c4 e6 g3 d5 Bg2 Be7"),
    ("King's Indian Defence, Classical", "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6"),
    ("Grunfeld Defence, Exchange", "d4 Nf6 c4 g6 Nc3 d5 cxd5 Nxd5"),
    ("Modern Benoni", "d4 Nf6 c4 c5 d5 e6 Nc3 exd5"),
    ("Dutch Defence, Leningrad", "d4 f5 g3 Nf6 Bg2 g6 Nf3 Bg7"),
    ("Dutch Defence, Stonewall", "d4 e6 c4 f5 g3 Nf6 Bg2 d5"),
    ("London System", "d4 d5 Bf4 Nf6 e3 c5 c3 Nc6"),
    ("Colle System", "d4 d5 Nf3 Nf6 e3 e6 Bd3 c5"),
    ("Trompowsky Attack", "d4 Nf6 Bg5 Ne4 Bf4 c5"),
)

# The English, the Reti and the King's Indian Attack, Bird and Nimzo-Larsen.
FLANK_LINES: tuple[tuple[str, str], ...] = (
    ("English Opening, Symmetrical", "c4 c5 Nc3 Nc6 g3 g6 Bg2 Bg7"),
    ("English Opening, Reversed Sicilian", "c4 e5 Nc3 Nf6 Nf3 Nc6 g3 d5"),
    ("English Opening, Anglo-Indian", "c4 Nf6 Nc3 g6 g3 Bg7 Bg2 O-O"),
    ("Reti Opening", "Nf3 d5 c4 e6 g3 Nf6 Bg2 Be7"),
    ("King's Indian Attack", "Nf3 d5 g3 Nf6 Bg2 c6 O-O Bg4"),
    ("Bird Opening", "f4 d5 Nf3 Nf6 e3 g6"),
    ("Nimzo-Larsen Attack", "b3 e5 Bb2 Nc6 e3 Nf6"),
)

# Mainstream, roughly balanced lines, 4 to 8 plies each, in SAN from the start
# position. Short lines keep the engines' own play dominant; every line is a
# well-known main line, so neither side starts a match out of book theory.
BUILTIN_OPENINGS: tuple[tuple[str, str], ...] = (
    KING_PAWN_LINES + QUEEN_PAWN_LINES + FLANK_LINES
)

UCI_MOVE_PATTERN = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")

# Tokens of a written move list that are not moves: move numbers ("1.",
# "12..."), results, and the "no result" star.
NON_MOVE_TOKEN_PATTERN = re.compile(r"^(\d+\.+|1-0|0-1|1/2-1/2|\*)$")


@dataclass(frozen=True)
class Opening:
    """A start position plus the moves (UCI) played from it before the
    engines take over."""

    name: str
    start_fen: str
    moves: tuple[str, ...]

    def board(self) -> chess.Board:
        """Return the board after the opening moves,
        with the moves on its move stack."""
        board = chess.Board(self.start_fen)
        for move in self.moves:
            board.push_uci(move)
        return board


def parse_move_list(text: str, start_fen: str = chess.STARTING_FEN) -> tuple[str, ...]:
    """Return the UCI moves of a SAN or UCI move list,
    which may contain move numbers."""
    board = chess.Board(start_fen)
    moves: list[str] = []
    for token in text.split():
        # "1.e4" is common in hand-written lists; split the number off.
        token = re.sub(r"^\d+\.+", "", token)
        if not token or NON_MOVE_TOKEN_PATTERN.match(token):
            continue
        is_uci = UCI_MOVE_PATTERN.match(token)
        move = board.parse_uci(token) if is_uci else board.parse_san(token)
        moves.append(move.uci())
        board.push(move)
    return tuple(moves)


def builtin_openings() -> list[Opening]:
    """Return the built-in book as Opening objects."""
    return [
        Opening(name, chess.STARTING_FEN, parse_move_list(moves))
        for name, moves in BUILTIN_OPENINGS
    ]


def select_openings(openings: list[Opening], count: int, seed: int) -> list[Opening]:
    """Return `count` openings drawn in a seeded random order,
    cycling through the whole list.

    Each pass is a fresh shuffle of every opening, so no opening repeats
    before all have been used, and the same seed always gives the same list.
    """
    generator = random.Random(seed)
    selected: list[Opening] = []
    while len(selected) < count:
        order = list(openings)
        generator.shuffle(order)
        selected.extend(order[: count - len(selected)])
    return selected


# The suite lives with the book's data, not inside the package, so it is searched for in
# the folders above this module rather than at one fixed distance from it.
SUITE_RELATIVE_PATH = Path("book/data/openings/openings.epd")


def book_suite_path() -> Path:
    """Return the path of the book's opening suite,
    searched upwards from this module."""
    for folder in Path(__file__).resolve().parents:
        if (folder / SUITE_RELATIVE_PATH).exists():
            return folder / SUITE_RELATIVE_PATH
    raise FileNotFoundError(
        f"{SUITE_RELATIVE_PATH} not found above {Path(__file__).parent}"
    )


def book_suite() -> list[Opening]:
    """Return the book's opening suite (tools/make_openings.py),
    named by the EPD ids."""
    return load_openings(book_suite_path())


def line_reaching(comment: str, board: chess.Board) -> tuple[str, ...] | None:
    """Return the UCI moves of `comment` if it is a line from the start
    that reaches `board`."""
    try:
        moves = parse_move_list(comment)
    except ValueError:
        return None  # free text, not a move list
    reached = Opening("", chess.STARTING_FEN, moves).board()
    return moves if reached.epd() == board.epd() else None


def opening_from_position_line(line: str, name: str) -> Opening:
    """Return the opening of one FEN or EPD line; EPD's "id" names it,
    its "c0" line replays it."""
    try:
        board = chess.Board(line)
    except ValueError:
        # Not a full FEN: EPD has four fields and optional operations.
        board, operations = chess.Board.from_epd(line)
        identifier, comment = operations.get("id"), operations.get("c0")
        if isinstance(identifier, str):
            name = identifier
        moves = line_reaching(comment, board) if isinstance(comment, str) else None
        if moves is not None:
            return Opening(name, chess.STARTING_FEN, moves)
    return Opening(name, board.fen(), ())


def opening_from_text_line(line: str, name: str) -> Opening:
    """Return the opening of one text line: a FEN, an EPD record, or a move list."""
    # A board description always has rank separators; a move list never does.
    if "/" in line.split()[0]:
        return opening_from_position_line(line, name)
    return Opening(name, chess.STARTING_FEN, parse_move_list(line))


def load_text_openings(path: Path) -> list[Opening]:
    """Return the openings of a text or EPD file, one per line;
    a line starting '#' is a comment."""
    openings: list[Opening] = []
    for line_number, raw_line in enumerate(path.read_text().splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            openings.append(opening_from_text_line(line, f"{path.name}:{line_number}"))
        except ValueError as error:
            raise ValueError(
                f"{path}, line {line_number}: not a FEN, EPD record or move list:"
                f" {error}"
            ) from error
    return openings


def load_pgn_openings(path: Path) -> list[Opening]:
    """Return the openings of a PGN file: each game's start position and main line."""
    openings: list[Opening] = []
    with path.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            default_name = f"{path.name}#{len(openings) + 1}"
            name = (
                game.headers.get("Opening") or game.headers.get("Event") or default_name
            )
            moves = tuple(move.uci() for move in game.mainline_moves())
            openings.append(Opening(name, game.board().fen(), moves))
    return openings


def load_openings(path: Path) -> list[Opening]:
    """Return the openings of a PGN file (by suffix) or of a
    FEN/EPD/move-list text file."""
    if path.suffix.lower() == ".pgn":
        openings = load_pgn_openings(path)
    else:
        openings = load_text_openings(path)
    if not openings:
        raise ValueError(f"no openings found in {path}")
    return openings
