"""Perft speed of cb2026, interpreted and compiled, against python-chess, in one run.

All three visit every leaf of the legal move tree: cb2026 with `cb2026.perft.perft` (legal
moves, make_move and unmake_move even at the last ply), python-chess with the loop in
`python_chess_perft` (push and pop over `board.legal_moves`, depth 0 counting one). The
engine is cb2026 as it was at STAGE (default: the end of Part I), once as plain Python and
once compiled by mypyc (tools/compile_engine.py, built if missing); each build runs in a
worker process of its own (tools/engine_worker.py), python-chess in this one. The runs are
interleaved, every other round in reverse order, and each time is the best of `--repeats`;
the speed-ups are against python-chess, measured in the same run. The node counts must agree.

The run holds the measurement lock and refuses a busy machine (tools/quiet.py). The table
is printed and written to book/data/stage-03-legal/perft-benchmark.json with the run's
conditions; chapter 3 reads it. Run it with `make bench-perft`, or from the repository root:

    python tools/bench_perft.py [--repeats 3] [--stage STAGE] [--output FILE] [--allow-load]

It takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import chess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import quiet  # noqa: E402
from bench_common import command_line, start_workers  # noqa: E402
from engine_worker import Worker  # noqa: E402
from positions import KIWIPETE, POSITION_3, POSITION_4, POSITION_5, START  # noqa: E402

DEFAULT_OUTPUT = ROOT / "book" / "data" / "stage-03-legal" / "perft-benchmark.json"
DEFAULT_STAGE = "stage-04-zobrist"  # the end of Part I: legal moves with Zobrist keys
REFERENCE = "python-chess"

# (name, FEN, depth): the positions of the Chess Programming Wiki "Perft Results" page
# (tools/positions.py). The names are those of the stored benchmark, which chapter 3 reads.
CASES = [
    ("start", START, 4),
    ("kiwipete", KIWIPETE, 3),
    ("cpw-3", POSITION_3, 5),
    ("cpw-4", POSITION_4, 3),
    ("cpw-5", POSITION_5, 3),
]


def python_chess_perft(board: chess.Board, depth: int) -> int:
    """Return the perft count of `board`, pushing and popping every legal move."""
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def python_chess_task(fen: str, depth: int) -> dict[str, Any]:
    """Time python-chess's perft of `fen`, in this process."""
    board = chess.Board(fen)
    started = time.perf_counter()
    nodes = python_chess_perft(board, depth)
    return {"nodes": nodes, "seconds": time.perf_counter() - started}


def measure_case(fen: str, depth: int, workers: dict[str, Worker], repeats: int) -> dict:
    """Best time and node count of every engine on one position, the runs interleaved."""
    names = [*workers, REFERENCE]
    best = dict.fromkeys(names, float("inf"))
    counts: dict[str, int] = {}
    for name in quiet.interleaved(names, repeats):
        if name == REFERENCE:
            result = python_chess_task(fen, depth)
        else:
            result = workers[name].ask("perft", fen=fen, depth=depth)
        best[name] = min(best[name], result["seconds"])
        counts[name] = result["nodes"]
    if len(set(counts.values())) != 1:
        sys.exit(f"the node counts differ: {counts} for {fen} at depth {depth}")
    nodes = counts[REFERENCE]
    return {
        "nodes": nodes,
        "seconds": {name: round(seconds, 4) for name, seconds in best.items()},
        "nodes_per_second": {name: round(nodes / seconds) for name, seconds in best.items()},
        "speed_up": {name: round(best[REFERENCE] / best[name], 2) for name in workers},
    }


def main() -> None:
    """Measure every case with every engine, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement")
    parser.add_argument("--stage", default=DEFAULT_STAGE, help="the cb2026 stage to measure")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="JSON file")
    quiet.add_arguments(parser)
    options = parser.parse_args()

    workers, engines = start_workers(options.stage, ROOT)
    engines[REFERENCE] = {"version": chess.__version__}
    header = "".join(f"{name + ' n/s':>22}" for name in engines)
    rows = []
    with quiet.measurement(options, "bench_perft") as conditions:
        print(f"{'position':10} {'depth':>5} {'nodes':>8}{header}")
        for name, fen, depth in CASES:
            row = {"position": name, "fen": fen, "depth": depth,
                   **measure_case(fen, depth, workers, options.repeats)}
            speeds = "".join(f"{row['nodes_per_second'][engine]:>22,}" for engine in engines)
            print(f"{name:10} {depth:>5} {row['nodes']:>8}{speeds}", flush=True)
            rows.append(row)
    for worker in workers.values():
        worker.close()

    result = {
        "command": command_line("bench_perft.py"),
        "stage": options.stage,
        "repeats": options.repeats,
        "reference": REFERENCE,
        "engines": engines,
        "conditions": conditions.record(),
        "results": rows,
    }
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {options.output}")


if __name__ == "__main__":
    main()
