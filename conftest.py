"""pytest plugins of the book: chapters run as notebooks (nbval), tests selected by stage.

Every chapter `book/chapters/stage-*.md` is collected as a notebook: jupytext reads the
MyST Markdown, nbval runs its cells in a fresh kernel. A cell that declares `expect: |` in
its metadata has its printed output compared with that text.

`pytest --stage N` runs only the chapters and tests of stages up to N (a number such as 3
or 8.1, or an id such as stage-03-legal); each test module declares its stage with
`pytestmark = pytest.mark.stage("stage-03-legal")`, and tests the engine of stage N (the
package tangled from chapters 1..N into build/stages/), not the newest one. `--engine FOLDER`
tests the `cb2026` package found in FOLDER instead (for a reader's own engine) and skips the
tests about the book's own tooling (modules with `pytest.mark.tooling`, and the chapters).
Either way the engine's folder leads `sys.path` here and `PYTHONPATH` for the processes the
tests start, so an engine run as a subprocess is the one under test too.
"""

from __future__ import annotations

import ast
import os
import sys
from collections import defaultdict
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbval.plugin import IPyNbCell, IPyNbFile

from literate.book import STAGE_ID, chapters, repository_root, stage_number
from literate.stages import package_folder, test_file_stage

QUIET_TRACEBACKS = "%colors nocolor"
ROOT = repository_root(Path(__file__))
TOOLING_REASON = "about the book's own tooling, not the engine under test (--engine)"
# Slow tests (whole snapshots, the compiled build) get longer than the default timeout
# of pyproject.toml, unless they set their own with @pytest.mark.timeout(...).
SLOW_TIMEOUT_SECONDS = 1800


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
    parser.addoption(
        "--snapshots",
        default="none",
        choices=["none", "own", "all"],
        help="what each stage snapshot runs (tests/test_stages.py): nothing (default: the"
        " snapshots are make test-stages' job), its own stage's engine tests, or all the"
        " engine tests it holds (make test-stages, run by CI)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "stage(id): the book stage a test belongs to")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
    config.addinivalue_line(
        "markers", "tooling: about the book's own tooling; skipped when --engine is given"
    )
    if config.getoption("--stage") is not None:
        config.option.stage = chosen_stage(config.getoption("--stage"))
    engine = config.getoption("--engine")
    if engine:
        folder = engine_folder(engine)
    elif config.option.stage is not None:
        folder = package_folder(config.option.stage, ROOT)
    else:
        folder = ROOT / "src"
    use_engine(folder)


def chosen_stage(text: str) -> str:
    """The id of the chapter that `--stage` names, or a usage error listing the stages."""
    book = chapters(ROOT)
    try:
        number = stage_number(text)
    except ValueError:
        number = None
    matching = [
        chapter.stage_id
        for chapter in book
        if chapter.number == number and (not STAGE_ID.match(text) or text == chapter.stage_id)
    ]
    if not matching:
        listed = ", ".join(f"{'.'.join(map(str, c.number))} ({c.stage_id})" for c in book)
        raise pytest.UsageError(f"--stage {text}: no such stage; the stages are {listed}")
    return matching[0]


def engine_folder(text: str) -> Path:
    """The folder given by `--engine`, which must hold a `cb2026` package."""
    folder = Path(text).resolve()
    if not (folder / "cb2026" / "__init__.py").is_file():
        raise pytest.UsageError(
            f"--engine {text}: no cb2026 package there ({folder / 'cb2026' / '__init__.py'}"
            " does not exist); give the folder that contains your cb2026/ folder"
        )
    return folder


def use_engine(folder: Path) -> None:
    """Makes `import cb2026` give the package in `folder`, here and in child processes."""
    # Ahead of src/, which the `pythonpath` setting has already put on the path, and of
    # the editable install's entry in site-packages.
    sys.path.insert(0, str(folder))
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(folder), *([inherited] if inherited else [])])
    import cb2026

    imported = Path(cb2026.__file__).resolve().parent
    if imported != (folder / "cb2026").resolve():
        raise pytest.UsageError(
            f"the tests would import cb2026 from {imported}, not from {folder / 'cb2026'}"
        )


def declares_tooling(path: Path) -> bool:
    """Whether a test module's `pytestmark` includes `pytest.mark.tooling`."""
    for statement in ast.parse(path.read_text()).body:
        targets = getattr(statement, "targets", [])
        if any(isinstance(target, ast.Name) and target.id == "pytestmark" for target in targets):
            return any(
                isinstance(node, ast.Attribute) and node.attr == "tooling"
                for node in ast.walk(statement.value)
            )
    return False


class SkippedFile(pytest.File):
    """A test module or chapter skipped whole, without importing it: it may import parts
    of the engine that an earlier stage, or a reader's own engine, lacks."""

    reason = TOOLING_REASON

    def collect(self):
        pytest.skip(f"{self.path.name}: {self.reason}")


class LaterStageFile(SkippedFile):
    """A test module of a stage after `--stage`, named on the command line."""

    reason = "belongs to a stage after --stage"


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector):
    config = parent.config
    if config.getoption("--engine") and declares_tooling(module_path):
        return SkippedFile.from_parent(parent, path=module_path)
    if config.getoption("--stage") is not None and pytest_ignore_collect(module_path, config):
        # pytest asks pytest_ignore_collect only about the files it finds, not those it is given.
        return LaterStageFile.from_parent(parent, path=module_path)
    return None


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
    parts of the engine that an earlier stage, or a reader's own engine, lacks). Notebooks
    made from the chapters (`jupytext --to ipynb`) are not collected: the chapters are."""
    if collection_path.suffix == ".ipynb":
        return True
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
        if parent.config.getoption("--engine"):
            return SkippedFile.from_parent(parent, path=file_path)
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
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT_SECONDS))
        if config.getoption("--engine") and item.get_closest_marker("tooling"):
            item.add_marker(pytest.mark.skip(reason=TOOLING_REASON))
    limit = config.getoption("--stage")
    if limit is None:
        return
    last = stage_number(limit)
    selected = [item for item in items if stage_number(item_stage(item)) <= last]
    deselected = [item for item in items if stage_number(item_stage(item)) > last]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
