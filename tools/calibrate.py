"""How fast this machine runs pure Python, as one number a clock match records.

On a clock an engine's strength follows its machine: twice the speed is about twice the
nodes a move. Machines of one kind, with the same processor model and the same virtual
machine type, can still differ: Sunfish has searched 7,098 and 19,899 nodes a second on two
of this book's sessions' machines, 2.8 times apart. A processor's name cannot show that, so every
clock match measures it: Sunfish (the PyPI package `make opponents` pins) searches the
book's middlegame from a fresh start until it has visited REFERENCE_NODES nodes, REPEATS
times, and the fastest run's nodes per second is the machine's speed. The work is the same
in every run and on every machine, since Sunfish searches deterministically; only its time
differs. A match resumed on another machine compares the two speeds (elo_matches.py's
`same_machine_as_before`), and a chapter that compares two clock matches can compare their
machines.
"""

from __future__ import annotations

import importlib.metadata
import math
import sys
import time
from typing import Any

from positions import MIDDLEGAME

REFERENCE = "sunfish"
REFERENCE_NODES = 20_000  # about a second on the book's machines, three on a slow one
REPEATS = 3


def sunfish_speed(fen: str, seconds: float = math.inf,
                  nodes: int | None = None) -> dict[str, Any]:
    """Nodes, seconds and deepest depth of Sunfish searching `fen` until `seconds` have
    passed or it has visited `nodes` nodes, whichever comes first."""
    try:
        import sunfish
        import sunfish_ui.uci
    except ImportError:
        sys.exit("Sunfish is missing: `make opponents` installs it (the reference of every "
                 "speed measurement and of every clock match's calibration)")

    sunfish_ui.uci.sunfish = sunfish  # its FEN reader expects the engine module its loop sets
    root = sunfish_ui.uci.from_fen(*fen.split())
    searcher = sunfish.Searcher()
    started = time.perf_counter()
    reached, elapsed = 0, 0.0
    # Sunfish yields after every step of its MTD-bi search; stop at the first yield past
    # the limit, as its own UCI loop does.
    for depth, _gamma, _score, _move in searcher.search([root]):
        elapsed = time.perf_counter() - started
        reached = depth
        if elapsed >= seconds or (nodes is not None and searcher.nodes >= nodes):
            break
    return {"nodes": searcher.nodes, "seconds": elapsed, "depth": reached}


def machine_speed(nodes: int = REFERENCE_NODES, repeats: int = REPEATS) -> dict[str, Any]:
    """The machine's speed: Sunfish's fastest of `repeats` searches of the middlegame to
    `nodes` nodes, for a data file's conditions."""
    runs = [sunfish_speed(MIDDLEGAME, nodes=nodes) for _ in range(repeats)]
    fastest = min(runs, key=lambda run: run["seconds"] / run["nodes"])
    return {"reference": f"{REFERENCE} {importlib.metadata.version(REFERENCE)}",
            "position": "middlegame", "nodes": fastest["nodes"], "repeats": repeats,
            "seconds": round(fastest["seconds"], 4),
            "nps": round(fastest["nodes"] / fastest["seconds"])}
