"""Makes chapter 13.1's tuning set: quiet positions from the book's games, labelled by
Stockfish.

usage: python tools/make_tuning_set.py [--positions N] [--nodes N] [--seed N]
                                       [--workers N] [--max-games N] [--output PATH]

Reads every game the book keeps (book/data/*/*.pgn whose path names a stage, stages up to
13 only, so that later matches do not change the set), takes each position past the
opening and not in check (`cb2026.tuning.game_positions`), drops repeats (a position keeps
its first game), shuffles them with the seed and keeps the first N that are quiet
(`is_quiet`: the quiescence search with chapter 13's evaluation gives the static
evaluation). Stockfish (Debian's /usr/games/stockfish) then gives each its expected score
from its win/draw/loss estimate (`UCI_ShowWDL`) after a fixed number of nodes, on one
thread with a fresh hash, so that a rerun gives the same labels. Writes
book/data/stage-13.1-tuning/positions.csv.gz: `# key: value` lines (the command,
Stockfish's name, the limits, the counts, a digest of the games read), then
`FEN;result;stockfish;opening`: both scores for White, and the opening line the game
started from (its `Opening` header), by which the tuner splits training from validation.
`--max-games` reads only the first games, for a quick trial.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import random
import re
import shlex
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cb2026.tuning import (  # noqa: E402
    OPENING_PLIES,
    game_positions,
    is_quiet,
    quiet_searcher,
)

STAGE = "stage-13.1-tuning"
OUTPUT = ROOT / "book" / "data" / STAGE / "positions.csv.gz"
STOCKFISH = "/usr/games/stockfish"
# The newest stage whose games the set may hold: the set must not change when later
# chapters add matches.
LAST_STAGE = (13,)
STAGE_IN_PATH = re.compile(r"stage-(\d+(?:\.\d+)*)-")


def pgn_files(data: Path = ROOT / "book" / "data") -> list[Path]:
    """Return the book's PGN files whose path names a stage, and none after LAST_STAGE."""
    # A file whose path names no stage could come from any later chapter: left out.
    files = []
    for path in sorted(data.glob("*/*.pgn")):
        stages = [tuple(int(part) for part in found.split("."))
                  for found in STAGE_IN_PATH.findall(path.relative_to(data).as_posix())]
        if stages and all(stage <= LAST_STAGE for stage in stages):
            files.append(path)
    return files


def games_digest(files: list[Path], data: Path = ROOT / "book" / "data") -> str:
    """Return a short digest of the files' names and bytes: the games the set came from."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(data).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# A candidate position: its FEN, the game's result for White, the game's opening.
Candidate = tuple[str, float, str]


def candidates(
    files: list[Path], max_games: int | None, opening_plies: int = OPENING_PLIES
) -> tuple[list[Candidate], int]:
    """Return the positions of the games (each with its first game's result and
    opening) and the number of games read."""
    seen: set[str] = set()
    positions: list[Candidate] = []
    games = 0
    for path in files:
        with path.open(encoding="utf-8") as pgn:
            while (game := chess.pgn.read_game(pgn)) is not None:
                if max_games is not None and games >= max_games:
                    return positions, games
                games += 1
                # The opening line groups the games for the tuner's split; a game
                # without one is a group of its own.
                opening = game.headers.get("Opening") or f"{path.name}#{games}"
                assert ";" not in opening, opening  # the file's separator
                for fen, result in game_positions(game, opening_plies):
                    key = " ".join(fen.split()[:4])  # the clocks do not make it new
                    if key not in seen:
                        seen.add(key)
                        positions.append((fen, result, opening))
    return positions, games


def label(fens: list[str], nodes: int) -> list[float]:
    """Return Stockfish's expected score for White in each position."""
    scores = []
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        engine.configure({"Threads": 1, "Hash": 16, "UCI_ShowWDL": True})
        for index, fen in enumerate(fens):
            board = chess.Board(fen)
            # A new game each time (ucinewgame): the hash starts empty, as in a rerun.
            info = engine.analyse(board, chess.engine.Limit(nodes=nodes), game=index)
            # Stockfish's own model, never python-chess's stand-in for a missing one.
            wdl = info.get("wdl")
            if wdl is None:
                raise RuntimeError(f"Stockfish sent no win/draw/loss estimate for {fen}")
            scores.append(wdl.white().expectation())
    return scores


def stockfish_name() -> str:
    """Return the name Stockfish gives itself."""
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        return str(engine.id.get("name", "?"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=30_000)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=131)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-games", type=int, default=None)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    options = parser.parse_args()
    files = pgn_files()
    found, games = candidates(files, options.max_games)
    print(f"{games} games in {len(files)} files: {len(found)} positions", flush=True)
    random.Random(options.seed).shuffle(found)
    searcher = quiet_searcher()
    kept: list[Candidate] = []
    tried = 0
    for candidate in found:
        if len(kept) == options.positions:
            break
        tried += 1
        if is_quiet(candidate[0], searcher):
            kept.append(candidate)
    print(f"{len(kept)} quiet of {tried} tried; labelling", flush=True)
    fens = [fen for fen, _, _ in kept]
    share = -(-len(fens) // options.workers)
    chunks = [fens[start:start + share] for start in range(0, len(fens), share)]
    with ProcessPoolExecutor(options.workers) as pool:
        labels = [score for scores in pool.map(label, chunks,
                                               [options.nodes] * len(chunks))
                  for score in scores]
    command = "python tools/make_tuning_set.py " + shlex.join(sys.argv[1:])
    header = {
        "command": command.strip(),
        "stockfish": f"{stockfish_name()}, {options.nodes} nodes a position, Threads 1, "
                     "Hash 16, a new game (ucinewgame) each, UCI_ShowWDL",
        "games": f"{games} from {len(files)} PGN files of book/data (stages up to 13), "
                 f"{len({opening for _, _, opening in found})} openings; digest "
                 f"{games_digest(files)}",
        "positions": f"{len(found)} past the opening, not in check, no repeats; "
                     f"shuffled with seed {options.seed}; {len(kept)} quiet of the "
                     f"first {tried}",
        "columns": "FEN;result;stockfish;opening (both scores White's expected "
                   "score; the opening line of the position's first game)",
    }
    options.output.parent.mkdir(parents=True, exist_ok=True)
    # mtime 0: the same positions give the same bytes.
    with gzip.GzipFile(options.output, "wb", mtime=0) as raw:
        text = "".join(f"# {key}: {value}\n" for key, value in header.items())
        text += "".join(f"{fen};{result:g};{score:.4f};{opening}\n"
                        for (fen, result, opening), score in zip(kept, labels,
                                                                 strict=True))
        raw.write(text.encode("utf-8"))
    print(f"wrote {options.output}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
