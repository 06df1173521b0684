"""Generate the book's opening suite: many distinct, balanced positions after short lines.

Each line starts from the initial position and plays a random number of half-moves
(--min-plies to --max-plies). Every move is drawn by a seeded random generator from the
moves Stockfish, at a low depth with MultiPV, rates within --margin centipawns of its best,
so the lines are plausible chess and not 1. a4 h5 2. Ra3. The final position is kept when
Stockfish at --depth scores it within --window centipawns of equality (White's view), it is
not in check, it has legal moves, and its first four FEN fields are new to the suite.

Every search starts from a cleared engine (ucinewgame) on a bare FEN with Threads=1 and a
fixed hash, so a search's result depends only on the position: the same command writes the
same file, and a shorter run (--count 15) writes the first 15 positions of a longer one.
Because a rating depends only on the position, the ratings of the early plies, which
many lines share, are cached: the first move is rated once, not once per line. The
margin is small (15 cp) because shallow scores of opening moves lie close together: with
30 cp, lines such as 1. b3 e6 2. a3 c5 3. h3 g6 were common.

    python tools/make_openings.py --count 1500 --output book/data/openings/openings.epd
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

STOCKFISH = "/usr/games/stockfish"

# Scores of mates become this many centipawns, far outside any window.
MATE_SCORE = 100_000


@dataclass(frozen=True)
class SuitePosition:
    """One kept position: the line that reaches it and Stockfish's score of it."""

    moves: tuple[chess.Move, ...]
    white_score: int

    def board(self) -> chess.Board:
        """Return the board after the line."""
        board = chess.Board()
        for move in self.moves:
            board.push(move)
        return board


class Scorer:
    """A Stockfish process that searches from a cleared state, with a cache of move ratings."""

    def __init__(self, command: str, hash_megabytes: int) -> None:
        self.engine = chess.engine.SimpleEngine.popen_uci(command)
        self.engine.configure({"Threads": 1, "Hash": hash_megabytes})
        self.rated_moves: dict[str, list[tuple[chess.Move, int]]] = {}

    def name(self) -> str:
        """Return the engine's `id name`."""
        return str(self.engine.id.get("name", "unknown"))

    def analyse(self, board: chess.Board, depth: int, multipv: int) -> list[chess.engine.InfoDict]:
        """Search a bare copy of the position from a cleared engine (hash, histories)."""
        # A new `game` object makes python-chess send ucinewgame, which clears Stockfish's
        # hash and history tables; the bare FEN keeps the move order out of the search.
        bare = chess.Board(board.fen())
        limit = chess.engine.Limit(depth=depth)
        return self.engine.analyse(bare, limit, multipv=multipv, game=object())

    def rate_moves(
        self, board: chess.Board, depth: int, multipv: int
    ) -> list[tuple[chess.Move, int]]:
        """Return the best `multipv` moves with their scores for the side to move."""
        key = board.fen()
        if key not in self.rated_moves:
            infos = self.analyse(board, depth, multipv)
            self.rated_moves[key] = [
                (info["pv"][0], info["score"].relative.score(mate_score=MATE_SCORE))
                for info in infos
                if "pv" in info
            ]
        return self.rated_moves[key]

    def white_score(self, board: chess.Board, depth: int) -> int:
        """Return the position's score in centipawns from White's view."""
        (info,) = self.analyse(board, depth, multipv=1)
        return info["score"].white().score(mate_score=MATE_SCORE)

    def close(self) -> None:
        """Stop the engine process."""
        self.engine.quit()


def random_line(
    scorer: Scorer, generator: random.Random, arguments: argparse.Namespace
) -> tuple[chess.Move, ...]:
    """Return a line of plausible moves: each drawn among those near the engine's best."""
    board = chess.Board()
    plies = generator.randint(arguments.min_plies, arguments.max_plies)
    while len(board.move_stack) < plies and not board.is_game_over():
        rated = scorer.rate_moves(board, arguments.line_depth, arguments.multipv)
        best_score = rated[0][1]
        candidates = [move for move, score in rated if score >= best_score - arguments.margin]
        board.push(generator.choice(candidates))
    return tuple(board.move_stack)


def generate_suite(
    scorer: Scorer, arguments: argparse.Namespace
) -> tuple[list[SuitePosition], int]:
    """Return the suite, in generation order, and the number of lines tried."""
    generator = random.Random(arguments.seed)
    suite: list[SuitePosition] = []
    seen: set[str] = set()
    lines_tried = 0
    while len(suite) < arguments.count:
        lines_tried += 1
        moves = random_line(scorer, generator, arguments)
        board = SuitePosition(moves, 0).board()
        # Compare placement, side, castling and en passant: the first four FEN fields.
        key = board.epd()
        if key in seen or board.is_check() or board.is_game_over():
            continue
        white_score = scorer.white_score(board, arguments.depth)
        if abs(white_score) <= arguments.window:
            seen.add(key)
            suite.append(SuitePosition(moves, white_score))
    return suite, lines_tried


def epd_record(position: SuitePosition, number: int) -> str:
    """Return one EPD line: id, score (side to move's view, as EPD has it) and the line."""
    board = position.board()
    relative_score = position.white_score if board.turn == chess.WHITE else -position.white_score
    line = chess.Board().variation_san(position.moves)
    return board.epd(
        hmvc=board.halfmove_clock,
        fmvn=board.fullmove_number,
        ce=relative_score,
        id=f"cb2026-{number:04d}",
        c0=line,
    )


def header_lines(
    arguments: argparse.Namespace, engine_name: str, lines_tried: int, count: int
) -> list[str]:
    """Return the comment header: how to remake the file and what its fields mean."""
    command = shlex.join(["python", "tools/make_openings.py", *command_flags(arguments)])
    return [
        "# The cb2026 opening suite (chapter 7.1): balanced positions after short plausible lines.",
        f"# command: {command}",
        f"# engine: {engine_name}, Threads=1, Hash={arguments.hash} MB, "
        "cleared (ucinewgame) before every search, bare FEN",
        f"# line moves: {arguments.min_plies}-{arguments.max_plies} plies, each drawn (seed "
        f"{arguments.seed}) among MultiPV {arguments.multipv} moves at depth "
        f"{arguments.line_depth} within {arguments.margin} cp of the best",
        f"# kept: depth {arguments.depth} score within +/-{arguments.window} cp (White's view), "
        "not in check, not finished, first four FEN fields new",
        "# fields: id; ce = depth score in cp from the side to move's view (EPD convention); "
        "c0 = the line from the initial position; hmvc, fmvn = move counters",
        f"# count: {count} positions from {lines_tried} lines tried",
    ]


def command_flags(arguments: argparse.Namespace) -> list[str]:
    """Return every generation setting as command-line flags, so the header is complete."""
    settings = (
        "count",
        "seed",
        "min_plies",
        "max_plies",
        "line_depth",
        "multipv",
        "margin",
        "depth",
        "window",
        "hash",
    )
    flags = [f"--{name.replace('_', '-')}={getattr(arguments, name)}" for name in settings]
    return [*flags, f"--output={arguments.output}"]


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """Return the command line's settings."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--count", type=int, default=1500, help="positions to keep")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the move choices")
    parser.add_argument("--min-plies", type=int, default=6, help="shortest line")
    parser.add_argument("--max-plies", type=int, default=10, help="longest line")
    parser.add_argument("--line-depth", type=int, default=8, help="depth that rates moves")
    parser.add_argument("--multipv", type=int, default=10, help="moves rated per position")
    parser.add_argument("--margin", type=int, default=15, help="cp below the best still played")
    parser.add_argument("--depth", type=int, default=14, help="depth of the final score")
    parser.add_argument("--window", type=int, default=60, help="largest |score| kept, in cp")
    parser.add_argument("--hash", type=int, default=16, help="Stockfish hash in MB")
    parser.add_argument("--engine", default=STOCKFISH, help="Stockfish command")
    parser.add_argument("--output", type=Path, default=Path("book/data/openings/openings.epd"))
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    """Generate the suite and write it as EPD."""
    arguments = parse_arguments(argv)
    scorer = Scorer(arguments.engine, arguments.hash)
    started = time.perf_counter()
    try:
        suite, lines_tried = generate_suite(scorer, arguments)
        engine_name = scorer.name()
    finally:
        scorer.close()
    header = header_lines(arguments, engine_name, lines_tried, len(suite))
    records = [epd_record(position, number) for number, position in enumerate(suite, start=1)]
    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    arguments.output.write_text("\n".join([*header, *records]) + "\n")
    elapsed = time.perf_counter() - started
    print(
        f"{len(suite)} positions from {lines_tried} lines in {elapsed:.0f} s: {arguments.output}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
