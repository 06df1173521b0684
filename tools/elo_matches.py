"""The book's "What it's worth" matches: each chapter's Elo measurements, in one place.

usage: python tools/elo_matches.py STAGE [--games N] [--concurrency N] [--list]

Plays the matches listed for STAGE with the match runner (`python -m cb2026.match`), the
engine being the package as it was at that stage (tangled from the book), and writes
book/data/STAGE/elo-NAME.json and .pgn, which the chapter reads and renders. Matches take
minutes to hours, so they never run under the test suite.

The engine is the compiled build of the stage (tools/compile_engine.py, built if missing)
where a C compiler exists, else the plain Python one. The run holds the measurement lock
and refuses a busy machine (tools/quiet.py: --allow-load, --wait); each JSON file it writes
gets the run's `conditions` and the engine's `build`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import quiet  # noqa: E402
from compile_engine import engine_folder  # noqa: E402

# Self-play at a fixed number of nodes per move: the result does not depend on the machine's
# load, and a technique that saves nodes shows up as depth reached within the budget.
SELF_PLAY = ["--nodes", "2000", "--resign-count", "3", "--draw-count", "8", "--max-moves", "150"]
CLOCK = ["--tc", "5+0.05", "--resign-count", "3", "--draw-count", "8", "--max-moves", "150"]
STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
SUNFISH = shutil.which("sunfish-uci") or str(Path(sys.executable).parent / "sunfish-uci")

# Chapters 5 and 6 come before the engine can play (UCI search arrives in chapter 7), so their
# techniques are measured with the chapter-7 engine, the technique switched off.
PLAYING_STAGE = {"stage-05-alphabeta": "stage-07-uci", "stage-06-quiescence": "stage-07-uci"}

MATCHES: dict[str, dict[str, tuple[list[str], list[str]]]] = {
    # stage: {name: (opponent spec fields, limits)}; the first engine is always cb2026.
    "stage-05-alphabeta": {"ordering": (["self", "option.Ordering=false"], SELF_PLAY)},
    "stage-06-quiescence": {"quiescence": (["self", "option.Quiescence=false"], SELF_PLAY)},
    "stage-07.1-matches": {
        "sunfish": ([f"cmd={SUNFISH}", "name=sunfish"], CLOCK),
        "stockfish-1350": (
            [
                f"cmd={STOCKFISH}",
                "name=stockfish-1350",
                "option.UCI_LimitStrength=true",
                "option.UCI_Elo=1350",
                "option.Threads=1",
            ],
            CLOCK,
        ),
    },
    "stage-08-tt": {"tt": (["self", "option.TT=false"], SELF_PLAY)},
    "stage-08.1-tt-buckets": {
        "buckets": (["self", "option.Buckets=false", "option.Hash=1"], SELF_PLAY)
    },
}


def engine_command(stage: str) -> str:
    """A shell command that starts cb2026 as it was at `stage` (compiled where possible)."""
    folder, _build = engine_folder(stage, ROOT)
    code = f"import sys; sys.path.insert(0, {str(folder)!r}); from cb2026.cli import main; main()"
    return shlex.join([sys.executable, "-c", code])


def match_arguments(stage: str, name: str, games: int, concurrency: int) -> list[str]:
    """The match runner's arguments for one of the book's matches."""
    opponent, limits = MATCHES[stage][name]
    ours = f"cmd={engine_command(PLAYING_STAGE.get(stage, stage))}"
    # A small table for both sides when the experiment needs a full one.
    hash_option = ["option.Hash=1"] if "option.Hash=1" in opponent else []
    first = shlex.join([ours, "name=cb2026", *hash_option])
    if opponent[0] == "self":
        second = shlex.join([ours, f"name=cb2026-no-{name}", *opponent[1:]])
    else:
        second = shlex.join(opponent)
    output = ROOT / "book" / "data" / stage / f"elo-{name}"
    output.parent.mkdir(parents=True, exist_ok=True)
    return [
        "--engine",
        first,
        "--engine",
        second,
        "--games",
        str(games),
        "--concurrency",
        str(concurrency),
        *limits,
        "--json",
        f"{output}.json",
        "--pgn",
        f"{output}.pgn",
        "--event",
        f"cb2026 {stage} {name}",
    ]


def main() -> int:
    """Run the matches of one stage (or list them), one measurement at a time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=sorted(MATCHES))
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--only", help="run only the match with this name")
    quiet.add_arguments(parser)
    options = parser.parse_args()
    _folder, build = engine_folder(PLAYING_STAGE.get(options.stage, options.stage), ROOT)
    print(f"cb2026 plays as its {build} build", flush=True)
    started = time.time()
    with quiet.measurement(options, "elo_matches") as conditions:
        returncode = run_matches(options)
    record_conditions(options.stage, started, {"build": build, "conditions": conditions.record()})
    return returncode


def record_conditions(stage: str, since: float, record: dict[str, object]) -> None:
    """Add `record` to every match file of `stage` that this run wrote."""
    for path in (ROOT / "book" / "data" / stage).glob("elo-*.json"):
        if path.stat().st_mtime >= since:
            path.write_text(json.dumps({**json.loads(path.read_text()), **record}, indent=2) + "\n")


def run_matches(options: argparse.Namespace) -> int:
    """Play the stage's matches, one after the other; stop at the first that fails."""
    for name in MATCHES[options.stage]:
        if options.only and name != options.only:
            continue
        arguments = match_arguments(options.stage, name, options.games, options.concurrency)
        engine = PLAYING_STAGE.get(options.stage, options.stage)
        print(f"{options.stage} {name}: the {engine} engine, {options.games} games", flush=True)
        environment = {"PYTHONPATH": str(ROOT / "src")}
        completed = subprocess.run(
            [sys.executable, "-m", "cb2026.match", *arguments],
            env={**os.environ, **environment},
            check=False,
        )
        if completed.returncode != 0:
            return completed.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
