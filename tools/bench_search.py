"""Search speed: cb2026's nodes per second, interpreted and compiled, beside Sunfish's, in one run.

usage: python tools/bench_search.py [--seconds S] [--repeats R] [--stage STAGE] [--output FILE]
                                    [--allow-load] [--wait]

Each engine searches each position by iterative deepening for about S seconds (default 2),
R times (default 3), the runs interleaved and every other round in reverse order, so that
all meet the same machine. Nodes are what each engine counts itself: cb2026's `notes.nodes`
(every position visited, quiescence included) and Sunfish's `Searcher.nodes` (every call
of its `bound`, its main and quiescence search alike). The engine is cb2026 as it was at
STAGE (default stage-07.1-matches), as plain Python and compiled by mypyc
(tools/compile_engine.py, built if missing), each build in a worker process of its own
(tools/engine_worker.py); Sunfish (PyPI package `sunfish`, `make opponents`) runs in this
process and reads the FEN through its own helper, `sunfish_ui.uci.from_fen`. Ratios are
against Sunfish in the same run. The run holds the measurement lock and refuses a busy
machine (tools/quiet.py). Writes book/data/STAGE/search-speed.json with the run's
conditions, which chapter 7.1 reads and renders.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import quiet  # noqa: E402
from bench_common import command_line, start_workers  # noqa: E402
from calibrate import REFERENCE, sunfish_speed  # noqa: E402
from compile_engine import package_folder, source_digests  # noqa: E402
from engine_worker import Worker  # noqa: E402
from positions import SEARCH_POSITIONS  # noqa: E402

DEFAULT_STAGE = "stage-07.1-matches"


def measure_position(fen: str, workers: dict[str, Worker], seconds: float,
                     repeats: int) -> dict[str, Any]:
    """Every engine's nodes, seconds, speed and depth on one position, the runs interleaved."""
    names = [*workers, REFERENCE]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for name in quiet.interleaved(names, repeats):
        if name == REFERENCE:
            runs[name].append(sunfish_speed(fen, seconds))
        else:
            runs[name].append(workers[name].ask("search", fen=fen, seconds=seconds))
    row: dict[str, Any] = {}
    for name, results in runs.items():
        nodes = sum(result["nodes"] for result in results)
        elapsed = sum(result["seconds"] for result in results)
        # The depth every run reached: a run that lost time to the machine counts.
        depth = min(result["depth"] for result in results)
        row[name] = {"nodes": nodes, "seconds": round(elapsed, 3),
                     "nps": round(nodes / elapsed), "depth": depth}
    row["ratio"] = {name: round(row[name]["nps"] / row[REFERENCE]["nps"], 3) for name in workers}
    return row


def totals_of(rows: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """All positions together: nodes, seconds and speed per engine, and the ratios."""
    totals: dict[str, Any] = {}
    for name in names:
        nodes = sum(row[name]["nodes"] for row in rows)
        seconds = sum(row[name]["seconds"] for row in rows)
        totals[name] = {"nodes": nodes, "seconds": round(seconds, 3), "nps": round(nodes / seconds)}
    totals["ratio"] = {
        name: round(totals[name]["nps"] / totals[REFERENCE]["nps"], 3)
        for name in names if name != REFERENCE
    }
    return totals


def main() -> int:
    """Measure every engine on every position, print the rows, write the JSON file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per search")
    parser.add_argument("--repeats", type=int, default=3, help="searches per position and engine")
    parser.add_argument("--stage", default=DEFAULT_STAGE, help="the cb2026 stage to measure")
    parser.add_argument("--output", type=Path, help="JSON file (default: the stage's data)")
    quiet.add_arguments(parser)
    options = parser.parse_args()
    workers, engines = start_workers(options.stage, ROOT)
    engines[REFERENCE] = {"version": importlib.metadata.version("sunfish")}
    rows = []
    with quiet.measurement(options, "bench_search") as conditions:
        for name, fen in SEARCH_POSITIONS.items():
            row = {"position": name, "fen": fen,
                   **measure_position(fen, workers, options.seconds, options.repeats)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    for worker in workers.values():
        worker.close()
    totals = totals_of(rows, list(engines))
    print(json.dumps({"all": totals}))
    output = options.output or ROOT / "book" / "data" / options.stage / "search-speed.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    summary = {
        "command": command_line("bench_search.py"),
        "stage": options.stage,
        "seconds_per_search": options.seconds,
        "repeats": options.repeats,
        "reference": REFERENCE,
        "engines": engines,
        # Which code ran: a chapter compares these digests with its own (matchreport).
        "sources": source_digests(package_folder(options.stage, ROOT)),
        "conditions": conditions.record(),
        "rows": rows,
        "totals": totals,
    }
    output.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
