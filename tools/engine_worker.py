"""One build of cb2026 in a process of its own, running perft and searches on request.

usage (by the measuring tools and tests): python tools/engine_worker.py FOLDER

Two builds of one package cannot be imported into one process (both are `cb2026`), so a
tool that compares the interpreted and the compiled engine starts one worker for each and
sends them tasks in turn, one JSON line each way. The worker times its own work, so the
exchange of messages is not measured. `Worker` is the tool's side of the conversation.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SELF = Path(__file__).resolve()


def describe() -> dict[str, Any]:
    """Which build of cb2026 this process imported, and from where."""
    import cb2026.position  # in every stage of the engine

    path = cb2026.position.__file__
    return {"build": "compiled" if path.endswith(".so") else "interpreted", "file": path}


def perft_task(fen: str, depth: int) -> dict[str, Any]:
    """Count the leaves of the legal move tree of `fen` to `depth`, and time it."""
    from cb2026.perft import perft
    from cb2026.position import Position

    position = Position.from_fen(fen)
    started = time.perf_counter()
    nodes = perft(position, depth)
    return {"nodes": nodes, "seconds": time.perf_counter() - started}


def search_task(fen: str, depth: int | None = None, seconds: float | None = None) -> dict[str, Any]:
    """Search `fen` by iterative deepening from a fresh searcher, to a depth or for a time."""
    from cb2026.limits import Limits
    from cb2026.move import move_to_uci
    from cb2026.position import Position
    from cb2026.search import Searcher

    searcher = Searcher()
    movetime = None if seconds is None else int(seconds * 1000)
    started = time.perf_counter()
    move, last = searcher.think(
        Position.from_fen(fen), Limits(depth=depth, movetime=movetime), lambda _: None
    )
    elapsed = time.perf_counter() - started
    return {
        "nodes": searcher.notes.nodes,
        "seconds": elapsed,
        "depth": last.depth if last else 0,
        "move": move_to_uci(move) if move is not None else None,
        "score": last.score if last else None,
        "pv": [move_to_uci(step) for step in last.pv] if last else [],
    }


def evaluate_task(fens: list[str], seconds: float) -> dict[str, Any]:
    """Evaluate the positions of `fens` over and over for about `seconds`; count the
    evaluations. Chapter 13's evaluation (stage 13 on), all its terms on."""
    from cb2026.evaluation import evaluate_position
    from cb2026.position import Position

    positions = [Position.from_fen(fen) for fen in fens]
    evaluations = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for position in positions:
            evaluate_position(position)
        evaluations += len(positions)
    return {"evaluations": evaluations, "seconds": elapsed}


def version_task() -> dict[str, Any]:
    """The line `cb2026 --version` prints (stage 17 on)."""
    from cb2026.cli import version_line

    return {"version": version_line()}


TASKS = {"describe": describe, "perft": perft_task, "search": search_task,
         "evaluate": evaluate_task, "version": version_task}


def serve(folder: str) -> None:
    """Answer task lines on stdin until it closes, with `folder`'s cb2026 first on the path."""
    sys.path.insert(0, folder)
    for line in sys.stdin:
        request = json.loads(line)
        answer = TASKS[request.pop("task")](**request)
        print(json.dumps(answer), flush=True)


class Worker:
    """A running worker process: `ask` sends a task and returns the answer."""

    def __init__(self, folder: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SELF), str(folder)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self.build = self.ask("describe")["build"]

    def ask(self, task: str, **arguments: Any) -> dict[str, Any]:
        """Run one task in the worker and return its answer."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"task": task, **arguments}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the engine worker stopped during {task!r} (see its error)")
        return json.loads(line)

    def close(self) -> None:
        """End the worker process."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()


if __name__ == "__main__":
    serve(sys.argv[1])
