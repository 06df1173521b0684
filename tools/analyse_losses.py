"""How cb2026 lost a match's games: the move that lost each one, and how deep a search avoids it.

usage: python tools/analyse_losses.py STAGE MATCH [--labeller-depth D] [--deeper K]
                                      [--games N] [--output FILE] [--allow-load] [--wait]

Reads the games of book/data/STAGE/elo-MATCH.pgn. In every game cb2026 lost, Stockfish (the
labeller: Debian's `stockfish` at full strength, one thread, searching to a fixed depth,
default 14, from an empty table for every position so that the labels do not depend on
their order) scores the position before each of cb2026's moves and after it, from cb2026's
side. The *losing move* is the first of cb2026's moves that turns a position not yet lost
(a score above -DROP centipawns) into a lost one (-DROP or below) and drops the score by at
least DROP doing it; a lost game without one was lost by a slow decline. For each losing
move the tool then searches its position again with cb2026 as it was at STAGE (compiled
where a C compiler exists: the same moves as the plain build, node for node), from a fresh
searcher, to the depth it reported for that move in the game and to each of K deeper ones
(default 3), and has Stockfish score every move those searches choose: a depth avoids the
losing move if its choice is not itself one by the same rule.

Writes book/data/STAGE/losses-MATCH.json (or FILE) with the settings, the digest of each
module of the engine that searched, the run's conditions and one record per lost game;
--games N stops after N lost games, for a trial. The labels are Stockfish's opinion at a
finite depth, not the truth: the chapter that reads the file says so. Deterministic (fixed
depths, fresh tables): the machine's load changes how long the run takes, not what it
finds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import quiet  # noqa: E402
from bench_common import command_line  # noqa: E402
from compile_engine import engine_folder, package_folder, source_digests  # noqa: E402
from elo_matches import STOCKFISH  # noqa: E402
from engine_worker import Worker  # noqa: E402

ENGINE = "cb2026"  # the engine's name in the match's PGN headers
DROP = 200  # centipawns: two pawns, a piece's worth less a pawn, lost in one move
CLIP = 1000  # scores beyond ten pawns (mates included) all count as decided
LABELLER_DEPTH = 14
DEEPER = 3


def game_depths(game: chess.pgn.Game) -> list[tuple[chess.Board, chess.Move, int | None]]:
    """Return the position, move and reported depth of each engine move of a game (the
    opening's moves, commented "book", left out)."""
    moves = []
    for node in game.mainline():
        parent = node.parent
        assert parent is not None
        if node.comment == "book":
            continue
        # The runner's comment: "+0.35/6 0.412s hashfull=3" (score/depth, then the time).
        head = node.comment.split()[0] if node.comment else ""
        depth = int(head.split("/")[1]) if "/" in head else None
        moves.append((parent.board(), node.move, depth))
    return moves


def loses(before: int, after: int) -> bool:
    """The rule for a losing move: a position not yet lost made a lost one, by at least
    DROP."""
    return before > -DROP and after <= -DROP and before - after >= DROP


class Labeller:
    """Stockfish at full strength scoring positions to a fixed depth, each from an empty
    table."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
        self.engine.configure({"Threads": 1, "Hash": 16})
        self.name = self.engine.id.get("name", "stockfish")
        self.cache: dict[str, int] = {}

    def score(self, board: chess.Board, side: chess.Color) -> int:
        """Return Stockfish's score of `board` for `side`, in centipawns, clipped."""
        key = board.fen()
        if key not in self.cache:
            # A new game object makes python-chess send ucinewgame: an empty table.
            info = self.engine.analyse(board, chess.engine.Limit(depth=self.depth),
                                       game=object())
            white = info["score"].white().score(mate_score=100_000)
            self.cache[key] = max(-CLIP, min(CLIP, white))
        return self.cache[key] if side == chess.WHITE else -self.cache[key]

    def after(self, board: chess.Board, move: chess.Move, side: chess.Color) -> int:
        """Return the score for `side` once `move` is played on `board`."""
        child = board.copy(stack=False)
        child.push(move)
        return self.score(child, side)

    def close(self) -> None:
        self.engine.quit()


def losing_move(moves: list[tuple[chess.Board, chess.Move, int | None]], side: chess.Color,
                labeller: Labeller) -> dict[str, Any] | None:
    """Return the first move of `side` that made a position not yet lost a lost one, by a
    drop of at least DROP, or None if the game was lost without one."""
    for board, move, depth in moves:
        if board.turn != side:
            continue
        before = labeller.score(board, side)
        if before <= -DROP:
            return None  # lost already, and no single move of ours did it
        after = labeller.after(board, move, side)
        if loses(before, after):
            return {"fen": board.fen(), "ply": board.ply(), "move": move.uci(),
                    "game_depth": depth, "before": before, "after": after}
    return None


def deeper_searches(mistake: dict[str, Any], worker: Worker, labeller: Labeller,
                    deeper: int) -> list[dict[str, Any]]:
    """Search the losing move's position with cb2026 at its game depth and deeper ones;
    score each choice."""
    board = chess.Board(mistake["fen"])
    start = mistake["game_depth"]
    if start is None:  # a blind move: the runner's match file counts them (blind_moves)
        raise ValueError(f"cb2026 reported no depth for {mistake['move']} in {mistake['fen']}")
    results = []
    for depth in range(start, start + deeper + 1):
        found = worker.ask("search", fen=mistake["fen"], depth=depth)
        after = labeller.after(board, chess.Move.from_uci(found["move"]), board.turn)
        results.append({"depth": depth, "move": found["move"], "nodes": found["nodes"],
                        "after": after, "avoids": not loses(mistake["before"], after)})
    return results


def main() -> int:
    """Label every lost game of the match, search each losing move deeper, write the file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage")
    parser.add_argument("match", help="the match's name, e.g. stockfish-1800-pure")
    parser.add_argument("--labeller-depth", type=int, default=LABELLER_DEPTH)
    parser.add_argument("--deeper", type=int, default=DEEPER)
    parser.add_argument("--games", type=int, help="stop after this many lost games")
    parser.add_argument("--output", type=Path, help="JSON file (default: the stage's data)")
    quiet.add_arguments(parser)
    options = parser.parse_args()
    data = ROOT / "book" / "data" / options.stage
    pgn_path = data / f"elo-{options.match}.pgn"
    folder, build = engine_folder(options.stage, ROOT)
    # The code of the engine that searches the losing moves again, module by module, as the
    # run starts.
    sources = source_digests(package_folder(options.stage, ROOT))
    labeller = Labeller(options.labeller_depth)
    records = []
    with quiet.measurement(options, "analyse_losses") as conditions, \
            Worker(folder) as worker, pgn_path.open() as pgn:
        while (game := chess.pgn.read_game(pgn)) is not None:
            headers = game.headers
            side = chess.WHITE if headers["White"] == ENGINE else chess.BLACK
            assert ENGINE in (headers["White"], headers["Black"]), headers
            lost = headers["Result"] == ("0-1" if side == chess.WHITE else "1-0")
            if not lost:
                continue
            mistake = losing_move(game_depths(game), side, labeller)
            record: dict[str, Any] = {
                "round": headers.get("Round"), "colour": "white" if side else "black",
                "plies": game.end().ply(), "losing_move": mistake}
            if mistake is not None:
                mistake["searches"] = deeper_searches(mistake, worker, labeller,
                                                      options.deeper)
            records.append(record)
            print(json.dumps(record), flush=True)
            if options.games is not None and len(records) >= options.games:
                break
    labeller.close()
    output = options.output or data / f"losses-{options.match}.json"
    output.write_text(json.dumps({
        "command": command_line("analyse_losses.py"), "pgn": pgn_path.name, "build": build,
        "labeller": {"name": labeller.name, "depth": options.labeller_depth,
                     "threads": 1, "hash_mb": 16},
        "drop": DROP, "clip": CLIP, "deeper": options.deeper, "games_limit": options.games,
        "sources": sources,
        "conditions": conditions.record(), "games": records}, indent=1) + "\n")
    print(f"wrote {output}: {len(records)} lost games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
