"""Search speed: cb2026's nodes per second beside Sunfish's, same positions, in one run.

usage: python tools/bench_search.py [--seconds S] [--stage STAGE]

Each engine searches each position by iterative deepening for about S seconds (default 2),
in this one process, one after the other, so both meet the same machine load. Nodes are what
each engine counts itself: cb2026's `notes.nodes` (every position visited, quiescence
included) and Sunfish's `Searcher.nodes` (every call of its `bound`, its main and quiescence
search alike). Sunfish (PyPI package `sunfish`, `make opponents`) reads the FEN through its
own helper, `sunfish_ui.uci.from_fen`. The engine is cb2026 as it was at STAGE (tangled from
the book; default stage-07.1-matches). Writes book/data/STAGE/search-speed.json, which the
chapter reads and renders.
"""

from __future__ import annotations

import argparse
import importlib.metadata
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

DEFAULT_STAGE = "stage-07.1-matches"



def cb2026_speed(fen: str, seconds: float) -> dict[str, float]:
    """Nodes, seconds and deepest completed depth of cb2026 searching `fen` for `seconds`."""
    from cb2026.limits import Limits
    from cb2026.position import Position
    from cb2026.search import Searcher

    searcher = Searcher()
    depths: list[int] = []
    searcher.think(
        Position.from_fen(fen),
        Limits(movetime=int(seconds * 1000)),
        lambda iteration: depths.append(iteration.depth),
    )
    depth = max(depths, default=0)
    return {"nodes": searcher.notes.nodes, "seconds": searcher.elapsed, "depth": depth}


def sunfish_speed(fen: str, seconds: float) -> dict[str, float]:
    """Nodes, seconds and deepest depth of Sunfish searching `fen` for about `seconds`."""
    import sunfish
    import sunfish_ui.uci

    sunfish_ui.uci.sunfish = sunfish  # its FEN reader expects the engine module its loop sets
    root = sunfish_ui.uci.from_fen(*fen.split())
    searcher = sunfish.Searcher()
    started = time.perf_counter()
    reached, elapsed = 0, 0.0
    # Sunfish yields after every step of its MTD-bi search; stop at the first yield past
    # the time, as its own UCI loop does.
    for depth, _gamma, _score, _move in searcher.search([root]):
        elapsed = time.perf_counter() - started
        reached = depth
        if elapsed >= seconds:
            break
    return {"nodes": searcher.nodes, "seconds": elapsed, "depth": reached}


def machine_info() -> dict[str, object]:
    """The machine, the software, and how busy the machine was."""
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "sunfish": importlib.metadata.version("sunfish"),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def main() -> int:
    """Measure both engines on every position, print the rows, write the JSON file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per position and engine")
    parser.add_argument("--stage", default=DEFAULT_STAGE, help="the cb2026 stage to measure")
    options = parser.parse_args()
    sys.path.insert(0, str(package_folder(options.stage, ROOT)))
    rows = []
    for name, fen in SEARCH_POSITIONS.items():
        ours = cb2026_speed(fen, options.seconds)
        theirs = sunfish_speed(fen, options.seconds)
        row = {"position": name, "fen": fen, "cb2026": ours, "sunfish": theirs}
        for result in (ours, theirs):
            result["seconds"] = round(result["seconds"], 3)
            result["nps"] = round(result["nodes"] / result["seconds"])
        row["ratio"] = round(ours["nps"] / theirs["nps"], 3)
        print(json.dumps(row), flush=True)
        rows.append(row)
    totals = {}
    for engine in ("cb2026", "sunfish"):
        nodes = sum(row[engine]["nodes"] for row in rows)
        seconds = sum(row[engine]["seconds"] for row in rows)
        nps = round(nodes / seconds)
        totals[engine] = {"nodes": nodes, "seconds": round(seconds, 3), "nps": nps}
    totals["ratio"] = round(totals["cb2026"]["nps"] / totals["sunfish"]["nps"], 3)
    print(json.dumps({"all": totals}))
    output = ROOT / "book" / "data" / options.stage / "search-speed.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    summary = {
        "command": " ".join(["python", "tools/bench_search.py", *sys.argv[1:]]),
        "stage": options.stage,
        "seconds_per_search": options.seconds,
        "machine": machine_info(),
        "rows": rows,
        "totals": totals,
    }
    output.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {output.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
