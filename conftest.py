"""pytest plugins of the book: chapters run as notebooks (nbval), tests selected by stage.

Every chapter `book/chapters/stage-*.md` is collected as a notebook: jupytext reads the
MyST Markdown, nbval runs its cells in a fresh kernel. A cell that declares `expect: |` in
its metadata has its printed output compared with that text.

`pytest --stage N` runs only the chapters and tests of stages up to N (a number such as 3
or 8.1, or an id such as stage-03-legal); each test module declares its stage with
`pytestmark = pytest.mark.stage("stage-03-legal")`. `--engine FOLDER` tests the `cb2026`
package found in FOLDER instead of `src/` (for a reader's own engine).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbval.plugin import IPyNbCell, IPyNbFile

from literate.book import STAGE_ID, stage_number
from literate.stages import test_file_stage

QUIET_TRACEBACKS = "%colors nocolor"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--stage",
        default=None,
        help="run only the chapters and tests of stages up to this one (e.g. 3, 8.1)",
    )
    parser.addoption(
        "--engine",
        default=None,
        metavar="FOLDER",
        help="test the cb2026 package in FOLDER (your own engine) instead of src/",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "stage(id): the book stage a test belongs to")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
    engine = config.getoption("--engine")
    if engine:
        # Ahead of src/, which the `pythonpath` setting has already put on the path.
        sys.path.insert(0, str(Path(engine).resolve()))


class MystNotebook(IPyNbFile):
    """A chapter in MyST Markdown, run by nbval like an .ipynb notebook."""

    def collect(self):
        self.nb = jupytext.read(str(self.fspath), fmt="md:myst")
        setup = nbformat.v4.new_code_cell(QUIET_TRACEBACKS)
        code_cells = [setup] + [cell for cell in self.nb.cells if cell.cell_type == "code"]
        for number, cell in enumerate(code_cells):
            options: defaultdict[str, bool] = defaultdict(bool)
            tags = cell.metadata.get("tags", [])
            options["skip"] = "nbval-skip" in tags or "skip-execution" in tags
            options["check_exception"] = "raises-exception" in tags
            expected = cell.metadata.get("expect")
            if expected is not None:
                # jupytext cells carry no outputs; give nbval the declared one to compare.
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=expected)]
                cell.execution_count = number
                options["check"] = True
            yield IPyNbCell.from_parent(
                self, name=f"Cell {number}", cell_num=number, cell=cell, options=options
            )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Test modules of later stages are not even imported under `--stage` (they may import
    parts of the engine that an earlier stage, or a reader's own engine, lacks)."""
    limit = config.getoption("--stage")
    if limit is None or collection_path.suffix != ".py" or not collection_path.is_file():
        return None
    declared = test_file_stage(collection_path)
    if declared and stage_number(declared) > stage_number(limit):
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    in_chapters = file_path.suffix == ".md" and file_path.parent.name == "chapters"
    if in_chapters and STAGE_ID.match(file_path.stem):
        return MystNotebook.from_parent(parent, path=file_path)
    return None


def item_stage(item: pytest.Item) -> str | None:
    """The stage of a test item: its chapter's, or its module's `stage` marker."""
    if isinstance(item, IPyNbCell):
        return Path(str(item.fspath)).stem
    marker = item.get_closest_marker("stage")
    return marker.args[0] if marker else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    unmarked = sorted({item.nodeid.split("::")[0] for item in items if not item_stage(item)})
    if unmarked:
        raise pytest.UsageError(
            "these test files declare no stage (pytestmark = pytest.mark.stage(...)): "
            + ", ".join(unmarked)
        )
    limit = config.getoption("--stage")
    if limit is None:
        return
    last = stage_number(limit)
    selected = [item for item in items if stage_number(item_stage(item)) <= last]
    deselected = [item for item in items if stage_number(item_stage(item)) > last]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
