"""What a technique saves: the search with techniques switched on and off, same positions.

usage: python tools/measure_techniques.py STAGE EXPERIMENT DEPTH [--hash-entries N]

Runs the engine as it was at STAGE (tangled from the book) on a fixed set of positions and
writes book/data/STAGE/saves-EXPERIMENT-dDEPTH.json, which the chapter reads and renders.
Each row is one search from a fresh searcher: score, best move, nodes and seconds.
Experiments: alphabeta, quiescence (fixed-depth `search`), tt, buckets (iterative deepening).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from literate.stages import package_folder  # noqa: E402
from search_positions import SEARCH_POSITIONS  # noqa: E402

EXPERIMENTS: dict[str, list[dict[str, bool]]] = {
    "alphabeta": [{"alphabeta": False, "ordering": False}, {"ordering": False}, {}],
    "quiescence": [
        {"quiescence": False, "pst": False},
        {"quiescence": False},
        {"pst": False},
        {},
    ],
    "tt": [{"tt": False}, {}],
    "buckets": [{"buckets": False}, {}],
}
FIXED_DEPTH_EXPERIMENTS = {"alphabeta", "quiescence"}  # stages 5 and 6 have no deepening


def search_once(
    fen: str, switches: dict[str, bool], depth: int, experiment: str, hash_entries: int | None
) -> dict[str, object]:
    """One search from a fresh searcher: score, move, nodes, seconds."""
    from cb2026.move import move_to_uci
    from cb2026.position import Position
    from cb2026.search import Searcher, Techniques

    searcher = Searcher(dataclasses.replace(Techniques(), **switches))
    if hash_entries is not None:
        searcher.tt.size = hash_entries
        searcher.tt.clear()
    position = Position.from_fen(fen)
    started = time.perf_counter()
    if experiment in FIXED_DEPTH_EXPERIMENTS:
        score, move, _ = searcher.search(position, depth)
    else:
        from cb2026.limits import Limits

        move, iteration = searcher.think(position, Limits(depth=depth), lambda _: None)
        score = iteration.score
    seconds = time.perf_counter() - started
    return {
        "score": score,
        "move": move_to_uci(move),
        "nodes": searcher.notes.nodes,
        "seconds": round(seconds, 3),
    }


def main() -> int:
    """Measure and write the JSON file; print each row as it comes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage")
    parser.add_argument("experiment", choices=sorted(EXPERIMENTS))
    parser.add_argument("depth", type=int)
    parser.add_argument(
        "--hash-entries",
        type=int,
        default=None,
        help="table size in entries (small, so that the table fills up)",
    )
    options = parser.parse_args()
    folder = package_folder(options.stage, ROOT)
    sys.path.insert(0, str(folder))
    rows = []
    for name, fen in SEARCH_POSITIONS.items():
        for switches in EXPERIMENTS[options.experiment]:
            row = {
                "position": name,
                "fen": fen,
                "off": sorted(switches),
                "depth": options.depth,
                **search_once(
                    fen, switches, options.depth, options.experiment, options.hash_entries
                ),
            }
            print(json.dumps(row), flush=True)
            rows.append(row)
    stage_id = Path(folder).name if folder.name != "src" else options.stage
    output = ROOT / "book" / "data" / stage_id / f"saves-{options.experiment}-d{options.depth}.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    machine = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    output.write_text(
        json.dumps(
            {
                "command": " ".join(["python", *sys.argv]),
                "hash_entries": options.hash_entries,
                "machine": machine,
                "rows": rows,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {output.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
