"""Speed (chapter 17): the faster functions answer as before, the search is stage 16's.

The referees: python-chess and chapter 16's own module (loaded from its stage's package
under another name) for the attack test, the evaluation itself for the evaluation cache,
a fresh searcher for a searcher whose switches changed (the cache must not outlive a
search), chapter 16's engine for the search (node for node, at fixed depth, in a process
of its own), and the builds themselves for `cb2026 --version`. The last test runs
tools/measure_speed.py on a tiny budget into a temporary folder, with a lock of its own:
the shape of the data file the chapter reads, not a measurement.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import chess
import pytest

import cb2026
import cb2026.search
from cb2026.attacks import is_square_attacked
from cb2026.cli import engine_build, version_line
from cb2026.evaluation import evaluate_position
from cb2026.limits import Limits
from cb2026.position import Position
from cb2026.search import Searcher, Techniques
from positions import SEARCH_POSITIONS
from stage_referee import random_boards, search_results, stage_searches

pytestmark = pytest.mark.stage("stage-17-speed")

BEFORE = "stage-16-parallel"
SEARCH_DEPTH = 4
PACKAGE_PARENT = str(Path(cb2026.__file__).resolve().parent.parent)


def stage_module(stage: str, name: str) -> ModuleType:
    """The module `name` of cb2026 as it was at `stage`, loaded under another name."""
    from literate.stages import package_folder

    spec = importlib.util.spec_from_file_location(
        f"{stage.replace('-', '_').replace('.', '_')}_{name}",
        package_folder(stage) / "cb2026" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def boards() -> list[chess.Board]:
    return random_boards(200, seed=1717)


def test_the_attack_test_agrees_with_python_chess(boards: list[chess.Board]) -> None:
    for board in boards:
        squares = Position.from_fen(board.fen()).board
        for square in range(64):
            for colour in (0, 1):
                assert is_square_attacked(squares, square, colour) == board.is_attacked_by(
                    colour == 0, square), (board.fen(), chess.square_name(square), colour)


def test_the_attack_test_agrees_with_stage_16(boards: list[chess.Board]) -> None:
    old = stage_module(BEFORE, "attacks")
    for board in boards:
        squares = Position.from_fen(board.fen()).board
        for square in range(64):
            for colour in (0, 1):
                assert is_square_attacked(squares, square, colour) == old.is_square_attacked(
                    squares, square, colour), (board.fen(), square, colour)


def test_the_cached_evaluation_is_the_evaluation(boards: list[chess.Board]) -> None:
    searcher = Searcher()
    searcher.start_search()
    for board in boards + boards:  # the second time round, from the cache
        position = Position.from_fen(board.fen())
        assert searcher.static_evaluation(position) == evaluate_position(position)


def test_a_full_cache_still_answers_with_the_evaluation(
        boards: list[chess.Board], monkeypatch: pytest.MonkeyPatch) -> None:
    # Four slots for two hundred positions: nearly every lookup finds another position's
    # score in its slot, which the key comparison must turn away.
    monkeypatch.setattr(cb2026.search, "EVALUATION_CACHE_SIZE", 4)
    searcher = Searcher()
    searcher.start_search()
    assert len(searcher.evaluation_keys) == 4
    for board in boards + boards:
        position = Position.from_fen(board.fen())
        assert searcher.static_evaluation(position) == evaluate_position(position)
        # The same placement with the other side to move: another key, another score.
        position.side_to_move ^= 1
        position.key = position.compute_key()
        assert searcher.static_evaluation(position) == evaluate_position(position)


def test_a_new_search_forgets_the_evaluations_of_the_last() -> None:
    # The same searcher with other switches (and its table emptied, which outlives a search
    # on purpose) must search as a fresh one with those switches.
    position = Position.from_fen(SEARCH_POSITIONS["middlegame"])
    searcher = Searcher()
    searcher.think(position, Limits(depth=3), lambda _: None)
    for switches in ({"mobility": False}, {"tuned": False}, {"evaluation": False}):
        techniques = dataclasses.replace(Techniques(), **switches)
        searcher.techniques = techniques
        searcher.tt.clear()
        searcher.think(position, Limits(depth=3), lambda _: None)
        fresh = Searcher(techniques)
        fresh.think(position, Limits(depth=3), lambda _: None)
        assert searcher.notes.nodes == fresh.notes.nodes, switches


@pytest.mark.slow
def test_the_search_is_stage_16s_node_for_node() -> None:
    ours = search_results(None, SEARCH_POSITIONS, SEARCH_DEPTH)
    assert ours == stage_searches(BEFORE, SEARCH_POSITIONS, SEARCH_DEPTH)


def test_version_names_the_pure_build() -> None:
    assert engine_build() == "pure Python"
    assert version_line().startswith("cb2026 ") and version_line().endswith(", pure Python")
    answer = subprocess.run(
        [sys.executable, "-m", "cb2026", "--version"], capture_output=True, text=True,
        check=True, timeout=60, env=dict(os.environ, PYTHONPATH=PACKAGE_PARENT))
    assert answer.stdout == version_line() + "\n"


@pytest.mark.slow
@pytest.mark.tooling
def test_version_names_the_compiled_build() -> None:
    from compile_engine import build_compiled, missing_compiler

    reason = missing_compiler()
    if reason:
        pytest.skip(f"no compiled build possible here: {reason}")
    folder = build_compiled()
    answer = subprocess.run(
        [sys.executable, "-m", "cb2026", "--version"], capture_output=True, text=True,
        check=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(folder)))
    assert answer.stdout.strip().endswith(", compiled (mypyc)")


@pytest.mark.slow
@pytest.mark.tooling
def test_measure_speed_writes_the_table_the_chapter_reads(tmp_path: Path) -> None:
    pytest.importorskip("sunfish", reason="Sunfish is installed by `make opponents`")
    import measure_speed

    output = tmp_path / "speed.json"
    measure_speed.main(["--seconds", "0.05", "--repeats", "1", "--perft-cut", "2",
                        "--depth", "2", "--allow-load", "--preliminary", "--output", str(output)],
                       lock_path=tmp_path / "lock")
    data = json.loads(output.read_text())
    assert data["preliminary"] is True and data["stage"] == "stage-17-speed"
    builds = [name for name in data["engines"] if name.startswith("cb2026")]
    assert builds[0] == "cb2026" and set(builds) <= {"cb2026", "cb2026-compiled"}
    assert data["engines"]["cb2026"]["version"].endswith("pure Python")
    search, perft = data["search"], data["perft"]
    assert [row["position"] for row in search["rows"]] == list(SEARCH_POSITIONS)
    assert set(search["totals"]["ratio"]) == set(builds)
    assert set(perft["totals"]["ratio"]) == set(builds)
    for part, reference in ((search, "sunfish"), (perft, "python-chess")):
        assert part["reference"] == reference
        for name in [*builds, reference]:
            assert part["totals"][name]["nps"] > 0
    assert all(data["evaluation"]["totals"][name]["per_second"] > 0 for name in builds)
    if "cb2026-compiled" in builds:
        assert data["engines"]["cb2026-compiled"]["version"].endswith("compiled (mypyc)")
        assert set(data["compiled_over_pure"]) == {"search", "perft", "evaluation"}
    saves = data["saves"]
    assert saves["before"] == "stage-16-parallel" and saves["depth"] == 2
    assert [row["position"] for row in saves["rows"]] == list(SEARCH_POSITIONS)
    assert saves["totals"]["nodes"] == sum(row["nodes"] for row in saves["rows"]) > 0
    assert data["conditions"]["tool"] == "measure_speed"
    # The code that ran, this stage's and the one the saves compare with, module by module.
    from compile_engine import package_folder, source_digests
    root = measure_speed.ROOT
    assert data["sources"] == source_digests(package_folder("stage-17-speed", root))
    assert data["before_sources"] == source_digests(package_folder("stage-16-parallel", root))
    assert data["sources"] != data["before_sources"]
