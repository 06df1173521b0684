"""Referees shared by the tests of several stages (chapters 5 to 16).

- `random_boards`: positions from random games (python-chess), openings to late endgames.
- `stage_searches`: the searches of an earlier stage's engine, its package at its tag run
  in a process of its own, which a switch that gives back that stage must equal node for
  node; `search_results` makes the same searches with the engine under test, and
  `folder_searches` with the engine in a given folder (a compiled build), switches set.
- `switched_off`: later chapters' switches off, those the engine under test has, so that
  the newest engine and a stage's snapshot can both be compared with an earlier stage;
  `FORWARD_PRUNING` and `MAIN_SEARCH_PRUNING` name chapter 15's switches for it.
"""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess

# Run by `stage_searches` in a process of its own: the stage's package first on the path.
SEARCH_PROGRAM = """
import dataclasses, json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from stage_referee import search_results
switches, tuned_weights = json.loads(sys.argv[5]), json.loads(sys.argv[6])
techniques = None
if switches:
    from cb2026.search import Techniques
    techniques = dataclasses.replace(Techniques(), **switches)
if tuned_weights:
    import cb2026.search
    cb2026.search.TUNED_WEIGHTS = {name: tuple(values)
                                   for name, values in tuned_weights.items()}
print(json.dumps(search_results(techniques, json.loads(sys.argv[3]),
                                json.loads(sys.argv[4]))))
"""

# Chapter 15's forward pruning in the main search: nodes and quiet moves left unsearched.
MAIN_SEARCH_PRUNING = ("reverse_futility", "futility", "late_move_pruning")
# ... and with the quiescence search's two (captures left out), all of chapter 15's pruning.
FORWARD_PRUNING = ("quiescence_see", "delta_pruning", *MAIN_SEARCH_PRUNING)
# The switches of chapters 14 and 15: the tests of chapter 13.1's weights turn them off, so
# that the searches they compare with chapter 13's differ by the weights alone.
AFTER_THE_EVALUATION = ("check_extensions", "single_reply_extensions", "singular_extensions",
                        *FORWARD_PRUNING, "improving")


def random_boards(count: int, seed: int) -> list[chess.Board]:
    """Positions from random games (python-chess), openings to late endgames."""
    generator = random.Random(seed)
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(generator.randrange(0, 160)):
            if board.is_game_over():
                break
            board.push(generator.choice(list(board.legal_moves)))
        if not board.is_game_over():
            boards.append(board)
    return boards


def switched_off(*names: str) -> dict[str, bool]:
    """Return False for each of `names` that is a switch (a field of Techniques) of the
    engine under test; the others, techniques of chapters after its stage, are left out."""
    from cb2026.search import Techniques

    switches = {field.name for field in dataclasses.fields(Techniques)}
    return {name: False for name in names if name in switches}


def search_results(
    techniques: Any, positions: dict[str, str], depth: int | dict[str, int]
) -> dict[str, list[Any]]:
    """Return [move (UCI), score, nodes] by position name for a fresh searcher with
    `techniques` (None: the default), deepening to `depth` (or to each position's
    depth by name)."""
    from cb2026.limits import Limits
    from cb2026.move import move_to_uci
    from cb2026.position import Position
    from cb2026.search import Searcher

    results = {}
    for name, fen in positions.items():
        searcher = Searcher(techniques)
        limits = Limits(depth=depth if isinstance(depth, int) else depth[name])
        move, last = searcher.think(Position.from_fen(fen), limits, lambda _: None)
        assert move is not None and last is not None
        results[name] = [move_to_uci(move), last.score, searcher.notes.nodes]
    return results


def folder_searches(
    folder: Path, positions: dict[str, str], depth: int | dict[str, int],
    switches: dict[str, bool] | None = None,
    tuned_weights: dict[str, tuple[int, ...]] | None = None,
) -> dict[str, list[Any]]:
    """Return search_results(positions, depth) by the engine whose package is in
    `folder`, in a process of its own, with `switches` set (None: the defaults) and,
    if given, `tuned_weights` in place of the search's TUNED_WEIGHTS."""
    return json.loads(subprocess.run(
        [sys.executable, "-c", SEARCH_PROGRAM, str(folder),
         str(Path(__file__).resolve().parent), json.dumps(positions), json.dumps(depth),
         json.dumps(switches or {}), json.dumps(tuned_weights or {})],
        capture_output=True, text=True, check=True, timeout=600).stdout)


def stage_searches(
    stage: str, positions: dict[str, str], depth: int | dict[str, int]
) -> dict[str, list[Any]]:
    """Return search_results(None, positions, depth) by the engine of `stage`."""
    from literate.stages import package_folder

    return folder_searches(package_folder(stage), positions, depth)
