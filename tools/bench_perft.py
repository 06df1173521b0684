"""Perft speed of cb2026 against python-chess, on the same positions, in one process.

Both sides visit every leaf of the legal move tree: cb2026 with `cb2026.perft.perft`
(legal moves, make_move and unmake_move even at the last ply), python-chess with the
loop in `python_chess_perft` (push and pop over `board.legal_moves`, depth 0 counting
one). Each time is the best of `--repeats` runs; the node counts of the two must agree.

The table is printed and written to book/data/stage-03-legal/perft-benchmark.json,
which chapter 3 reads. Run it with `make bench-perft`, or from the repository root:

    PYTHONPATH=src python tools/bench_perft.py [--repeats 3] [--output FILE]

It takes about a minute.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess

ROOT = Path(__file__).resolve().parents[1]
try:
    import cb2026  # noqa: F401  (the installed package, or src/ on PYTHONPATH)
except ImportError:
    sys.path.insert(0, str(ROOT / "src"))

from cb2026.perft import perft  # noqa: E402
from cb2026.position import Position  # noqa: E402

DEFAULT_OUTPUT = ROOT / "book" / "data" / "stage-03-legal" / "perft-benchmark.json"

# (name, FEN, depth): the positions of the Chess Programming Wiki "Perft Results" page.
CASES = [
    ("start", chess.STARTING_FEN, 4),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("cpw-3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    ("cpw-4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3),
    ("cpw-5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3),
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


def best_time(function: Callable[[Any, int], int], argument: Any, depth: int,
              repeats: int) -> tuple[int, float]:
    """Return the node count and the best wall time in seconds of `repeats` runs."""
    best = float("inf")
    nodes = 0
    for _ in range(repeats):
        start = time.perf_counter()
        nodes = function(argument, depth)
        best = min(best, time.perf_counter() - start)
    return nodes, best


def cpu_name() -> str:
    """Return the processor's model name (from /proc/cpuinfo on Linux), or a fallback."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """Return where and when the measurement was made."""
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "python_chess": chess.__version__,
        "platform": platform.platform(),
        "cpu": cpu_name(),
        "cpu_count": os.cpu_count(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def main() -> None:
    """Measure every case with both libraries, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="JSON file")
    options = parser.parse_args()

    context = machine()
    print(f"{context['python']}, python-chess {context['python_chess']}, {context['cpu']}")
    print(f"{'position':10} {'depth':>5} {'nodes':>8} {'cb2026 n/s':>11} "
          f"{'python-chess n/s':>17} {'ratio':>6}")
    rows = []
    for name, fen, depth in CASES:
        ours, our_time = best_time(perft, Position.from_fen(fen), depth, options.repeats)
        theirs, their_time = best_time(
            python_chess_perft, chess.Board(fen), depth, options.repeats)
        if ours != theirs:
            sys.exit(f"{name}: cb2026 counts {ours} nodes, python-chess {theirs}")
        rows.append({
            "position": name, "fen": fen, "depth": depth, "nodes": ours,
            "cb2026_seconds": round(our_time, 4), "python_chess_seconds": round(their_time, 4),
            "cb2026_nodes_per_second": round(ours / our_time),
            "python_chess_nodes_per_second": round(theirs / their_time),
            "ratio": round(their_time / our_time, 2),
        })
        print(f"{name:10} {depth:>5} {ours:>8} {ours / our_time:>11,.0f} "
              f"{theirs / their_time:>17,.0f} {their_time / our_time:>6.2f}")

    result = {"machine": context, "repeats": options.repeats, "results": rows}
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {options.output}")


if __name__ == "__main__":
    main()
