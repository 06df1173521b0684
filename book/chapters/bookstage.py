"""Puts the engine as it was at a given stage first on `sys.path`.

Each chapter's first, hidden cell calls `use("stage-NN-...")`, so that the chapter runs
against the package tangled from chapters 1..N, not against the newest engine.
"""

import sys
from pathlib import Path

BOOK_TOOLS = Path(__file__).resolve().parents[2] / "tools"


def use(stage: str) -> None:
    """Makes `import cb2026` give the engine of `stage` (tangled on the fly if needed)."""
    if str(BOOK_TOOLS) not in sys.path:
        sys.path.insert(0, str(BOOK_TOOLS))
    from literate.stages import package_folder

    sys.path.insert(0, str(package_folder(stage)))
