"""Chapter 17's speed table: cb2026 pure and compiled, Sunfish and python-chess, in one run.

usage: python tools/measure_speed.py [--seconds S] [--repeats R] [--perft-cut N] [--depth D]
                                     [--output FILE] [--preliminary] [--allow-load] [--wait]

The engine is cb2026 as it is at chapter 17, once as plain Python and once compiled by
mypyc (tools/compile_engine.py, built if missing; left out, with the reason printed, where
there is no compiler), each build in a worker process of its own (tools/engine_worker.py).
Four parts, one after the other, all under one hold of the measurement lock:

- search: nodes per second of each build and of Sunfish, each searching each of the
  book's search positions for about S seconds (default 2), R times (default 3), the runs
  interleaved (tools/bench_search.py's measure_position); ratios against Sunfish;
- perft: nodes per second of each build's perft and of python-chess's, on the Chess
  Programming Wiki's positions, the best of R interleaved runs each (tools/bench_perft.py's
  measure_case; the depths less N, default 0, for a quick trial); ratios against
  python-chess, and the node counts must agree;
- evaluation: evaluations per second of each build, over the search positions for about
  S seconds, R times, interleaved;
- saves: what chapter 17's changes save, the pure engine of chapter 16 and of chapter 17
  searching each search position to depth D (default 5), the best of R interleaved runs
  each; the two searches must be the same node for node (nodes, move, score, PV).

`compiled_over_pure` gives, for each part, the compiled build's speed over the pure one's.
The run holds the measurement lock and refuses a busy machine (tools/quiet.py): pass
`--wait` to wait for both. A run with `--allow-load` on a busy machine, or with
`--preliminary` (say, a trial with a tiny budget), is marked `"preliminary": true`, and the
chapter says so. Writes book/data/stage-17-speed/speed.json. `make bench-speed ARGS=--wait`
runs it with the defaults (a few minutes: 2 min 47 s on 2026-12-06).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))

import bench_perft  # noqa: E402
import bench_search  # noqa: E402
import quiet  # noqa: E402
from bench_common import COMPILED, INTERPRETED, command_line, start_workers  # noqa: E402
from compile_engine import package_folder, source_digests  # noqa: E402
from engine_worker import Worker  # noqa: E402
from positions import SEARCH_POSITIONS  # noqa: E402

STAGE = "stage-17-speed"
BEFORE = "stage-16-parallel"  # the engine before this chapter's changes
DEFAULT_OUTPUT = ROOT / "book" / "data" / STAGE / "speed.json"


def speeds(results: dict[str, list[dict[str, Any]]], count: str, rate: str) -> dict[str, Any]:
    """Sum `count` and the seconds of each engine's runs; its speed (`rate`), per second."""
    totals: dict[str, Any] = {}
    for name, runs in results.items():
        amount = sum(run[count] for run in runs)
        seconds = sum(run["seconds"] for run in runs)
        totals[name] = {count: amount, "seconds": round(seconds, 4),
                        rate: round(amount / seconds)}
    return totals


def search_part(workers: dict[str, Worker], seconds: float, repeats: int) -> dict[str, Any]:
    """Nodes per second of every build and of Sunfish on the search positions."""
    rows = []
    for name, fen in SEARCH_POSITIONS.items():
        row = {"position": name, "fen": fen,
               **bench_search.measure_position(fen, workers, seconds, repeats)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    totals = bench_search.totals_of(rows, [*workers, bench_search.REFERENCE])
    return {"reference": bench_search.REFERENCE, "rows": rows, "totals": totals}


def perft_part(workers: dict[str, Worker], repeats: int, cut: int) -> dict[str, Any]:
    """Perft nodes per second of every build and of python-chess, the best of `repeats`."""
    reference = bench_perft.REFERENCE
    rows = []
    for name, fen, depth in bench_perft.CASES:
        depth = max(1, depth - cut)
        row = {"position": name, "fen": fen, "depth": depth,
               **bench_perft.measure_case(fen, depth, workers, repeats)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    best = {name: [{"nodes": row["nodes"], "seconds": row["seconds"][name]} for row in rows]
            for name in [*workers, reference]}
    totals = speeds(best, "nodes", "nps")
    totals["ratio"] = {name: round(totals[name]["nps"] / totals[reference]["nps"], 3)
                       for name in workers}
    return {"reference": reference, "rows": rows, "totals": totals}


def evaluation_part(workers: dict[str, Worker], seconds: float, repeats: int) -> dict[str, Any]:
    """Evaluations per second of every build over the search positions."""
    fens = list(SEARCH_POSITIONS.values())
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in workers}
    for name in quiet.interleaved(list(workers), repeats):
        results[name].append(workers[name].ask("evaluate", fens=fens, seconds=seconds))
    totals = speeds(results, "evaluations", "per_second")
    print(json.dumps({"evaluation": totals}), flush=True)
    return {"positions": len(fens), "totals": totals}


def saves_part(after: Worker, before: Worker, depth: int, repeats: int) -> dict[str, Any]:
    """The best search times of chapter 16's engine and this chapter's on each search
    position at `depth`; exits if the two searches differ."""
    rows = []
    for name, fen in SEARCH_POSITIONS.items():
        best = {"before": float("inf"), "after": float("inf")}
        results: dict[str, dict[str, Any]] = {}
        for which in quiet.interleaved(["before", "after"], repeats):
            worker = before if which == "before" else after
            results[which] = worker.ask("search", fen=fen, depth=depth)
            best[which] = min(best[which], results[which]["seconds"])
        same = ("nodes", "move", "score", "pv")
        if any(results["before"][key] != results["after"][key] for key in same):
            sys.exit(f"the searches differ on {name} at depth {depth}: {results}")
        row = {"position": name, "depth": depth, "nodes": results["after"]["nodes"],
               "move": results["after"]["move"],
               "seconds": {which: round(seconds, 4) for which, seconds in best.items()},
               "ratio": round(best["after"] / best["before"], 3)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    before_seconds = sum(row["seconds"]["before"] for row in rows)
    after_seconds = sum(row["seconds"]["after"] for row in rows)
    return {"before": BEFORE, "depth": depth, "rows": rows,
            "totals": {"nodes": sum(row["nodes"] for row in rows),
                       "seconds": {"before": round(before_seconds, 4),
                                   "after": round(after_seconds, 4)},
                       "ratio": round(after_seconds / before_seconds, 3)}}


def main(arguments: list[str] | None = None, lock_path: Path = quiet.LOCK_PATH) -> int:
    """Measure the three parts in one run under the lock; write the JSON file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per search or evaluation run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per position and engine")
    parser.add_argument("--perft-cut", type=int, default=0,
                        help="plies less than the perft cases' depths (a quick trial)")
    parser.add_argument("--depth", type=int, default=5,
                        help="depth of the searches that compare chapter 16's engine")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="JSON file")
    parser.add_argument("--preliminary", action="store_true",
                        help="mark the data as preliminary (a trial, not the measurement)")
    quiet.add_arguments(parser)
    options = parser.parse_args(arguments)
    workers, engines = start_workers(STAGE, ROOT)
    before = Worker(package_folder(BEFORE, ROOT))
    for name, worker in workers.items():
        engines[name]["version"] = worker.ask("version")["version"]
    engines[bench_search.REFERENCE] = {"version": importlib.metadata.version("sunfish")}
    engines[bench_perft.REFERENCE] = {"version": importlib.metadata.version("chess")}
    try:
        with quiet.measurement(options, "measure_speed", lock_path=lock_path) as conditions:
            search = search_part(workers, options.seconds, options.repeats)
            perft = perft_part(workers, options.repeats, options.perft_cut)
            evaluation = evaluation_part(workers, options.seconds, options.repeats)
            saves = saves_part(workers[INTERPRETED], before, options.depth, options.repeats)
    finally:
        for worker in [*workers.values(), before]:
            worker.close()
    compiled_over_pure = {}
    if COMPILED in workers:
        compiled_over_pure = {
            part: round(totals[COMPILED][rate] / totals[INTERPRETED][rate], 2)
            for part, totals, rate in (("search", search["totals"], "nps"),
                                       ("perft", perft["totals"], "nps"),
                                       ("evaluation", evaluation["totals"], "per_second"))}
    summary = {
        "command": command_line("measure_speed.py"),
        "stage": STAGE,
        "preliminary": options.preliminary or not conditions.quiet,
        "seconds_per_search": options.seconds,
        "repeats": options.repeats,
        "perft_cut": options.perft_cut,
        "depth": options.depth,
        "engines": engines,
        # Which code ran, this stage's and the one before it that the saves compare with.
        "sources": source_digests(package_folder(STAGE, ROOT)),
        "before_sources": source_digests(package_folder(BEFORE, ROOT)),
        "conditions": conditions.record(),
        "search": search,
        "perft": perft,
        "evaluation": evaluation,
        "saves": saves,
        "compiled_over_pure": compiled_over_pure,
    }
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({"compiled_over_pure": compiled_over_pure}))
    print(f"wrote {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
