"""What a second process gives the search (chapter 16): time to depth and nodes per second.

usage: python tools/measure_parallel.py [--depth D] [--movetime MS] [--repeats N]
                                        [--interpreted] [--output FILE] [--allow-load] [--wait]

Runs the engine of stage 16 (the compiled build where a C compiler exists, else or with
--interpreted the plain Python one) through its command loop, with Threads 1 and Threads 2,
on the book's positions, and writes book/data/stage-16-parallel/parallel.json:

- `depth`: for each position and number of processes, `go depth D` from an empty table,
  N times (a parallel search is not repeatable: the processes race), one process and two
  taking turns (`interleaved`): seconds and nodes of the main process, nodes of the
  helpers;
- `movetime`: `go movetime MS` on each position: the nodes of every process, per second;
- `threads_in_one_process`: nodes in 2 s by one thread, and by two threads at once, of
  one process (the GIL);
- `startup`: seconds from starting a helper process until it is ready (it imports the
  engine first), and from `stop` to the helper's answer once it searches;
- `table`: the cost of a probe and a store in the shared table against the plain one, and
  of reading and writing an array through a memoryview against the array itself, as
  ratios of the best of several runs.

The run holds the measurement lock and records the machine's load (tools/quiet.py). Two
processes need both cores of a two-core machine: measure with nothing else running.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import time
import timeit
from array import array
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import quiet  # noqa: E402
from compile_engine import engine_folder, source_digests  # noqa: E402
from literate.stages import package_folder  # noqa: E402
from positions import SEARCH_POSITIONS  # noqa: E402

STAGE = "stage-16-parallel"
OUTPUT = ROOT / "book" / "data" / STAGE / "parallel.json"


def search(session: Any, command: str) -> dict[str, Any]:
    """Run one `go` command to its end; return seconds and nodes (main and helpers)."""
    from cb2026.cli import execute

    started = time.perf_counter()
    execute(session, command)
    session.search_thread.join()
    seconds = time.perf_counter() - started
    helpers = session.pool.nodes if session.pool is not None else 0
    return {"seconds": round(seconds, 4), "nodes": session.searcher.notes.nodes,
            "helper_nodes": helpers, "depth": session.searcher.completed_depth}


def new_session(threads: int) -> Any:
    """A UCI session of the engine with `threads` processes, its helpers started."""
    from cb2026.cli import Session, execute

    session = Session(io.StringIO())
    execute(session, "uci")
    execute(session, f"setoption name Threads value {threads}")
    search(session, "go depth 3")  # the helpers have started and imported the engine
    return session


def from_scratch(session: Any, fen: str, command: str) -> dict[str, Any]:
    """Run `command` on `fen` with a cleared table and history."""
    from cb2026.cli import execute

    execute(session, "ucinewgame")
    execute(session, f"position fen {fen}")
    return search(session, command)


def searches(depth: int, movetime: int, repeats: int) -> dict[str, dict[str, Any]]:
    """Time to depth and nodes per second with one process and with two, position by
    position. The two sessions take turns, first one then the other, so that a change in
    the machine during the run falls on both alike."""
    from cb2026.cli import end_parallel_search

    sessions = {threads: new_session(threads) for threads in (1, 2)}
    results: dict[str, dict[str, Any]] = {str(threads): {"depth": {}, "movetime": {}}
                                          for threads in sessions}
    try:
        for name, fen in SEARCH_POSITIONS.items():
            runs: dict[int, list[dict[str, Any]]] = {threads: [] for threads in sessions}
            for repeat in range(repeats):
                # Alternate which goes first: neither always follows the other's search.
                for threads in sorted(sessions, reverse=bool(repeat % 2)):
                    runs[threads].append(from_scratch(sessions[threads], fen,
                                                      f"go depth {depth}"))
            for threads, session in sessions.items():
                results[str(threads)]["depth"][name] = runs[threads]
                results[str(threads)]["movetime"][name] = from_scratch(
                    session, fen, f"go movetime {movetime}")
                print(threads, name, json.dumps(runs[threads][-1]), flush=True)
    finally:
        for session in sessions.values():
            end_parallel_search(session)
    return results


def threads_in_one_process(seconds: float = 2.0) -> dict[str, Any]:
    """Nodes searched in `seconds` by one thread, then by two threads of this process at
    once (each its own searcher on the middlegame), and the CPU seconds each run used."""
    import threading

    from cb2026.limits import Limits
    from cb2026.position import Position
    from cb2026.search import Searcher

    def search(counts: list[int], index: int) -> None:
        searcher = Searcher()
        searcher.think(Position.from_fen(SEARCH_POSITIONS["middlegame"]),
                       Limits(movetime=int(seconds * 1000)), lambda _: None)
        counts[index] = searcher.notes.nodes

    results: dict[str, Any] = {}
    for count in (1, 2):
        counts = [0] * count
        threads = [threading.Thread(target=search, args=(counts, index))
                   for index in range(count)]
        wall, cpu = time.perf_counter(), time.process_time()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        results[str(count)] = {"nodes": counts, "seconds": time.perf_counter() - wall,
                               "cpu_seconds": time.process_time() - cpu}
    return results


def startup() -> dict[str, float]:
    """Seconds to start a helper (until it is ready) and to stop one that searches."""
    from cb2026.limits import Limits
    from cb2026.parallel import HelperPool
    from cb2026.position import Position
    from cb2026.search import Searcher
    from cb2026.tt import SharedTable

    searcher = Searcher()
    table = searcher.tt = SharedTable(16)
    position = Position.from_fen(SEARCH_POSITIONS["middlegame"])
    started = time.perf_counter()
    pool = HelperPool(1)  # returns once the helper is ready
    first_answer = time.perf_counter() - started
    stops = []
    for _ in range(5):
        pool.start(searcher, position, Limits())
        time.sleep(1.0)
        started = time.perf_counter()
        pool.stop()
        stops.append(time.perf_counter() - started)
    pool.close()
    table.close()
    return {"start_seconds": round(first_answer, 4), "stop_seconds": [round(s, 4) for s in stops]}


def table_costs(repeats: int = 7) -> dict[str, float]:
    """Store and probe costs as ratios of best times: the shared table's to the plain
    one's, and the plain table's (memoryviews) to the same table on chapter 8's arrays."""
    from cb2026.tt import Bound, SharedTable, TranspositionTable

    generator = random.Random(16)
    keys = [generator.getrandbits(64) for _ in range(20_000)]
    with_arrays = TranspositionTable(16)
    with_arrays.keys = array("Q", [0]) * with_arrays.size  # type: ignore[assignment]
    with_arrays.data = array("Q", [0]) * with_arrays.size  # type: ignore[assignment]
    tables = {"arrays": with_arrays, "plain": TranspositionTable(16),
              "shared": SharedTable(16)}

    def store(table: Any) -> None:
        for key in keys:
            table.store(key, None, 0, 5, Bound.EXACT, False)

    def probe(table: Any) -> None:
        for key in keys:
            table.probe(key)

    best: dict[str, float] = {}
    for name in quiet.interleaved(list(tables), repeats):
        for action in (store, probe):
            timer = timeit.Timer(lambda act=action, table=tables[name]: act(table))
            seconds = min(timer.repeat(number=1, repeat=3))
            label = f"{action.__name__}-{name}"
            best[label] = min(best.get(label, seconds), seconds)
    tables["shared"].close()  # type: ignore[attr-defined]
    return {
        "store_ratio": round(best["store-shared"] / best["store-plain"], 3),
        "probe_ratio": round(best["probe-shared"] / best["probe-plain"], 3),
        "memoryview_store_ratio": round(best["store-plain"] / best["store-arrays"], 3),
        "memoryview_probe_ratio": round(best["probe-plain"] / best["probe-arrays"], 3),
    }


def main() -> int:
    """Measure and write the JSON file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--movetime", type=int, default=2000, help="milliseconds")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--interpreted", action="store_true", help="not the compiled build")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="the JSON file")
    quiet.add_arguments(parser)
    options = parser.parse_args()
    engine, build = ((package_folder(STAGE, ROOT), "interpreted") if options.interpreted
                     else engine_folder(STAGE, ROOT))
    print(f"the {build} engine of {STAGE}, from {engine}", flush=True)
    sys.path.insert(0, str(engine))
    with quiet.measurement(options, "measure_parallel") as conditions:
        data: dict[str, Any] = {
            "threads": searches(options.depth, options.movetime, options.repeats),
            "interleaved": True,
            "threads_in_one_process": threads_in_one_process(),
            "startup": startup(),
            "table": table_costs(),
        }
    one, two = data["threads"]["1"]["depth"], data["threads"]["2"]["depth"]
    data["speedup_to_depth"] = {
        name: round(statistics.median(r["seconds"] for r in one[name])
                    / statistics.median(r["seconds"] for r in two[name]), 3)
        for name in one}
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps({
        "command": " ".join(["python", *sys.argv]), "build": build,
        # Which code ran: a chapter compares these digests with its own (matchreport).
        "sources": source_digests(package_folder(STAGE, ROOT)),
        "depth": options.depth, "movetime": options.movetime, "repeats": options.repeats,
        "conditions": conditions.record(), **data}, indent=1) + "\n")
    print(f"wrote {options.output}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
