"""The compiled build (mypyc, tools/compile_engine.py) plays exactly like the interpreted one.

The test builds the compiled package itself, into build/compiled/src (reused while the
source is unchanged), so that `make test` on a fresh clone checks it; the first build takes
about twenty seconds. Without a C compiler or mypy it is skipped, saying why.
"""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from command_loop import EngineProcess
from compile_engine import build_compiled, missing_compiler
from engine_worker import Worker
from positions import KIWIPETE, POSITION_3, POSITION_4, POSITION_5, SEARCH_POSITIONS

pytestmark = [pytest.mark.stage("stage-07-uci"), pytest.mark.slow, pytest.mark.tooling]

ROOT = Path(__file__).resolve().parents[1]
STOP_ANSWER_SECONDS = 10.0  # see test_the_compiled_engine_stops_at_once
SEARCH_DEPTH = 4  # a few seconds for the interpreted engine over the six positions
# (FEN, depth, count) from chessprogramming.org "Perft Results": a referee for both builds.
PERFT_CASES = [
    (KIWIPETE, 3, 97862),
    (POSITION_3, 4, 43238),
    (POSITION_4, 3, 9467),
    (POSITION_5, 3, 62379),
]


@pytest.fixture(scope="module")
def compiled_folder() -> Path:
    """The compiled build of src/, built if missing or out of date."""
    reason = missing_compiler()
    if reason:
        pytest.skip(f"no compiled build possible here: {reason}")
    return build_compiled()


@pytest.fixture(scope="module")
def workers(compiled_folder: Path):
    """An interpreted and a compiled engine, each in its own process."""
    with Worker(ROOT / "src") as interpreted, Worker(compiled_folder) as compiled:
        yield interpreted, compiled


def test_the_compiled_build_is_compiled(workers) -> None:
    interpreted, compiled = workers
    assert (interpreted.build, compiled.build) == ("interpreted", "compiled")
    assert compiled.ask("describe")["file"].endswith(".so")


@pytest.mark.parametrize("name", list(SEARCH_POSITIONS))
def test_same_search(workers, name: str) -> None:
    interpreted, compiled = workers
    fen = SEARCH_POSITIONS[name]
    ours = interpreted.ask("search", fen=fen, depth=SEARCH_DEPTH)
    theirs = compiled.ask("search", fen=fen, depth=SEARCH_DEPTH)
    assert ours["depth"] == SEARCH_DEPTH
    fields = ("nodes", "move", "score", "pv")
    assert {key: theirs[key] for key in fields} == {key: ours[key] for key in fields}


@pytest.mark.parametrize(("fen", "depth", "count"), PERFT_CASES)
def test_same_perft(workers, fen: str, depth: int, count: int) -> None:
    interpreted, compiled = workers
    assert interpreted.ask("perft", fen=fen, depth=depth)["nodes"] == count
    assert compiled.ask("perft", fen=fen, depth=depth)["nodes"] == count


def test_the_compiled_engine_speaks_uci(compiled_folder: Path) -> None:
    code = f"import sys; sys.path.insert(0, {str(compiled_folder)!r}); " \
           "from cb2026.cli import main; main()"
    answer = subprocess.run(
        [sys.executable, "-c", code],
        input="uci\nisready\nposition startpos moves e2e4\ngo depth 3\nquit\n",
        capture_output=True, text=True, timeout=60, check=True,
    )
    assert "uciok" in answer.stdout and "readyok" in answer.stdout
    assert any(line.startswith("bestmove ") for line in answer.stdout.splitlines())


def test_the_compiled_engine_stops_at_once(compiled_folder: Path) -> None:
    # Compiled code runs no bytecode loop, yet the reading thread must still get its turn.
    code = f"import sys; sys.path.insert(0, {str(compiled_folder)!r}); " \
           "from cb2026.cli import main; main()"
    engine = EngineProcess([sys.executable, "-c", code])
    engine.send("uci\nposition startpos\ngo infinite")
    time.sleep(0.5)
    asked = time.monotonic()
    engine.send("isready\nstop")
    lines = engine.read_until("bestmove")
    answered = time.monotonic() - asked
    assert engine.quit() == 0
    # Without its turn the reading thread would never see `stop` and `go infinite` would never
    # answer; the bound is generous, so that a loaded machine's pauses cannot fail the test.
    assert "readyok" in lines and answered < STOP_ANSWER_SECONDS
