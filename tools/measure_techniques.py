"""What a technique saves: the search with techniques switched on and off, same positions.

usage: python tools/measure_techniques.py STAGE EXPERIMENT DEPTH [--hash-entries N]
                                          [--interpreted] [--allow-load] [--wait]

Runs the engine as it was at STAGE (tangled from the book) on a fixed set of positions and
writes book/data/STAGE/saves-EXPERIMENT-dDEPTH.json, which the chapter reads and renders.
Each row is one search from a fresh searcher: score, best move, nodes and seconds, the
search's notes and, for iterative deepening, every iteration it reported.
Experiments: alphabeta, quiescence (fixed-depth `search`), tt, buckets, pvs, null-move,
killers-history, killers, history, see, lmr, evaluation, tuned, extensions,
single-reply, singular, pruning, quiescence-see, delta-pruning, reverse-futility,
futility, late-move-pruning, improving (iterative deepening).
The engine is the compiled build of STAGE (tools/compile_engine.py, built if missing) where
a C compiler exists, else (or with --interpreted) the plain Python one; nodes, moves and
scores are the same in both, only the seconds differ. The file says which (`"build"`),
records the run's conditions and a digest of each module of the engine it ran (`"sources"`,
so that a chapter can tell whether the seconds are its code's); the run holds the
measurement lock (tools/quiet.py).
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import quiet  # noqa: E402
from compile_engine import engine_folder, source_digests  # noqa: E402
from literate.stages import package_folder  # noqa: E402
from positions import SEARCH_POSITIONS  # noqa: E402

# Chapter 15's forward-pruning switches.
PRUNING = ("quiescence_see", "delta_pruning", "reverse_futility", "futility",
           "late_move_pruning")

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
    # Chapter 9: neither technique (stage 8.1's search), PVS only, windows only, both.
    "pvs": [{"pvs": False, "aspiration": False}, {"aspiration": False}, {"pvs": False}, {}],
    # Chapter 10: the null move off (stage 9's search) and on.
    "null-move": [{"null_move": False}, {}],
    # Chapter 11: stage 10's ordering (all three off), then killers, + history, + SEE.
    "killers-history": [
        {"killers": False, "history": False, "see": False},
        {"history": False, "see": False},
        {"see": False},
        {},
    ],
    # ... and each of the three alone switched off.
    "killers": [{"killers": False}, {}],
    "history": [{"history": False}, {}],
    "see": [{"see": False}, {}],
    # Chapter 12: late move reductions off (stage 11's search) and on.
    "lmr": [{"lmr": False}, {}],
    # Chapter 13: the evaluation of chapters 5 and 6 (the previous stage's search, node for
    # node) and the tapered one; the file also gets `evaluation_rates`.
    "evaluation": [{"evaluation": False}, {}],
    # Chapter 13.1: chapter 13's hand-chosen weights (stage 13's search) and the tuned ones.
    "tuned": [{"tuned": False}, {}],
    # Chapter 14: check extensions off (the previous stage's search) and on; then the
    # single-reply extension, off by default, switched on as well (`switches` in each row
    # tells the two apart).
    "extensions": [{"check_extensions": False}, {}],
    "single-reply": [{"single_reply_extensions": False}, {"single_reply_extensions": True}],
    # Chapter 14.1: singular extensions off (the previous stage's search) and on.
    "singular": [{"singular_extensions": False}, {}],
    # Chapter 15: the five forward-pruning switches off (the previous stage's search) and
    # on; then each technique alone switched off; then the improving flag, off by default,
    # switched on (`switches` in each row tells the runs apart).
    "pruning": [dict.fromkeys(PRUNING, False), {}],
    **{name.replace("_", "-"): [{name: False}, {}] for name in PRUNING},
    "improving": [{"improving": False}, {"improving": True}],
}
# Evaluations timed per evaluation function for `evaluation_rates` (each of the positions).
EVALUATION_REPEATS = 2_000
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
    reports: list[Any] = []
    started = time.perf_counter()
    if experiment in FIXED_DEPTH_EXPERIMENTS:
        score, move, _ = searcher.search(position, depth)
    else:
        from cb2026.limits import Limits

        move, iteration = searcher.think(position, Limits(depth=depth), reports.append)
        score = iteration.score
    seconds = time.perf_counter() - started
    return {
        "score": score,
        "move": move_to_uci(move),
        "nodes": searcher.notes.nodes,
        "seconds": round(seconds, 3),
        # What the search counted, and each iteration it reported (a bound: a failed window).
        "notes": dataclasses.asdict(searcher.notes),
        "iterations": [iteration_record(report) for report in reports],
    }


def evaluation_rates(fens: list[str]) -> dict[str, object]:
    """Evaluations per second of chapter 5's `evaluate` and chapter 13's
    `evaluate_position` on `fens`, timed in turn, each on every position EVALUATION_REPEATS
    times (the pawn table warm, as in a search)."""
    from cb2026.evaluate import evaluate
    from cb2026.evaluation import evaluate_position
    from cb2026.position import Position

    positions = [Position.from_fen(fen) for fen in fens]
    rates: dict[str, object] = {"repeats": EVALUATION_REPEATS, "positions": len(positions)}
    functions = {"old": evaluate, "new": evaluate_position}
    for name, function in functions.items():
        started = time.perf_counter()
        for position in positions:
            for _ in range(EVALUATION_REPEATS):
                function(position)
        seconds = time.perf_counter() - started
        rates[name] = round(len(positions) * EVALUATION_REPEATS / seconds)
    return rates


def iteration_record(report: Any) -> dict[str, object]:
    """One reported iteration as the data file keeps it; `bound` is None before stage 9."""
    bound = getattr(report, "bound", None)
    return {"depth": report.depth, "score": report.score, "nodes": report.nodes,
            "bound": None if bound is None else bound.name}


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
    parser.add_argument("--interpreted", action="store_true", help="not the compiled build")
    parser.add_argument("--output", type=Path, help="JSON file (default: the stage's data)")
    quiet.add_arguments(parser)
    options = parser.parse_args()
    folder = package_folder(options.stage, ROOT)
    engine, build = (folder, "interpreted") if options.interpreted else engine_folder(
        options.stage, ROOT)
    print(f"the {build} engine of {options.stage}, from {engine}", flush=True)
    sys.path.insert(0, str(engine))
    rows = []
    with quiet.measurement(options, "measure_techniques") as conditions:
        for name, fen in SEARCH_POSITIONS.items():
            for switches in EXPERIMENTS[options.experiment]:
                row = {
                    "position": name,
                    "fen": fen,
                    "off": sorted(switches),
                    "switches": switches,
                    "depth": options.depth,
                    **search_once(
                        fen, switches, options.depth, options.experiment, options.hash_entries
                    ),
                }
                print(json.dumps(row), flush=True)
                rows.append(row)
        extra: dict[str, object] = {}
        if options.experiment == "evaluation":
            extra["evaluation_rates"] = evaluation_rates(list(SEARCH_POSITIONS.values()))
            print(json.dumps(extra), flush=True)
    stage_id = Path(folder).name if folder.name != "src" else options.stage
    file_name = f"saves-{options.experiment}-d{options.depth}.json"
    output = options.output or ROOT / "book" / "data" / stage_id / file_name
    output.parent.mkdir(parents=True, exist_ok=True)
    # `machine` as before (chapters 5 to 8.1 print it); `conditions` is the fuller record.
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
                "build": build,
                "sources": source_digests(folder),
                "conditions": conditions.record(),
                "rows": rows,
                **extra,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
