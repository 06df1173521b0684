"""What the speed benchmarks share: a worker process for each build of one stage of cb2026.

tools/bench_perft.py and tools/bench_search.py both measure the engine as it was at a stage,
once as plain Python and once compiled by mypyc (tools/compile_engine.py, built if missing;
left out, with the reason printed, where there is no compiler), each build in a worker
process of its own (tools/engine_worker.py), and record in their data file which builds ran.
"""

from __future__ import annotations

import sys
from pathlib import Path

from compile_engine import build_info, engine_folder
from engine_worker import Worker
from literate.stages import package_folder

INTERPRETED = "cb2026"
COMPILED = "cb2026-compiled"


def start_workers(stage: str, root: Path) -> tuple[dict[str, Worker], dict[str, dict[str, object]]]:
    """A worker for each build of cb2026 at `stage`, by name, and what each build is (for
    the data file: interpreted or compiled, and the compiled one's mypy version)."""
    folders = {INTERPRETED: package_folder(stage, root)}
    compiled, build = engine_folder(stage, root)
    if build == "compiled":
        folders[COMPILED] = compiled
    workers = {name: Worker(folder) for name, folder in folders.items()}
    engines: dict[str, dict[str, object]] = {
        name: {"build": worker.build} for name, worker in workers.items()}
    if build == "compiled":
        engines[COMPILED]["mypy"] = build_info(compiled)["mypy"]
    return workers, engines


def command_line(tool: str) -> str:
    """How this run of `tool` (a file in tools/) was started, for its data file."""
    return " ".join(["python", f"tools/{tool}", *sys.argv[1:]])
