"""The test suite's own options: --engine, --stage, timeouts, and what it collects."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from literate.book import chapters, repository_root
from literate.stages import package_folder

pytestmark = [pytest.mark.stage("stage-01-board"), pytest.mark.tooling]

ROOT = repository_root(Path(__file__))
# The tests run in every stage's snapshot too: they use the chapters that snapshot has.
BOOK = chapters(ROOT)
FIRST = BOOK[0]
USAGE_ERROR = 4
NO_TESTS_COLLECTED = 5
# A probe test, run by an inner pytest: the engine it imports, and the one a child process
# imports, must both come from EXPECTED.
PROBE = '''
import subprocess
import sys
from pathlib import Path

import pytest

import cb2026

pytestmark = pytest.mark.stage("stage-01-board")
EXPECTED = Path({expected!r})


def test_the_engine_under_test_is_imported_here_and_in_a_child() -> None:
    assert Path(cb2026.__file__).resolve().parent == EXPECTED
    child = subprocess.run([sys.executable, "-c", "import cb2026; print(cb2026.__file__)"],
                           capture_output=True, text=True, timeout=60, check=True)
    assert Path(child.stdout.strip()).resolve().parent == EXPECTED
'''


def run_pytest(*arguments: str) -> subprocess.CompletedProcess[str]:
    """Run pytest with the book's configuration and plugins (conftest.py) from the
    repository root, also on files outside it: conftest.py is loaded as a plugin (-p), and
    only that way (--confcutdir), whatever the paths."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "conftest",
         f"--confcutdir={ROOT / 'tests'}", "-c", str(ROOT / "pyproject.toml"),
         "--rootdir", str(ROOT), *arguments],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )


def write_probe(folder: Path, expected: Path) -> Path:
    """Write the probe test into `folder`, expecting the package folder `expected`."""
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / "test_probe.py"
    probe.write_text(PROBE.format(expected=str(expected.resolve())))
    return probe


def test_an_engine_folder_without_a_package_is_a_usage_error(tmp_path: Path) -> None:
    for arguments in ([f"--engine={tmp_path}"], ["--engine", str(tmp_path)]):
        result = run_pytest(*arguments, "--collect-only", "-q", str(FIRST.path))
        assert result.returncode == USAGE_ERROR, result.stdout[-2000:]
        assert "no cb2026 package" in result.stderr and str(tmp_path) in result.stderr


def test_an_engine_folder_is_what_the_tests_and_their_children_import(tmp_path: Path) -> None:
    engine = tmp_path / "mine"
    shutil.copytree(ROOT / "src" / "cb2026", engine / "cb2026")
    probe = write_probe(tmp_path / "probe", engine / "cb2026")
    # This module is about the book's tooling: skipped, not imported (nor run again).
    result = run_pytest(f"--engine={engine}", "-rs", str(probe), "tests/test_pytest_options.py",
                        str(FIRST.path))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "1 passed, 2 skipped" in result.stdout
    for skipped in ("test_pytest_options.py", FIRST.path.name):
        assert f"{skipped}: about the book's own tooling" in result.stdout


@pytest.mark.parametrize("name", ["number", "id", None])
def test_the_stage_is_what_the_tests_and_their_children_import(
    tmp_path: Path, name: str | None
) -> None:
    given = {"number": ".".join(map(str, FIRST.number)), "id": FIRST.stage_id}.get(name)
    # The first stage's engine is tangled into build/stages/ (unless it is the only stage).
    expected = package_folder(FIRST.stage_id, ROOT) if given else ROOT / "src"
    assert (expected == ROOT / "src") == (given is None or len(BOOK) == 1)
    probe = write_probe(tmp_path, expected / "cb2026")
    result = run_pytest(*([f"--stage={given}"] if given else []), str(probe))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_a_test_module_of_a_later_stage_is_skipped_when_named(tmp_path: Path) -> None:
    later = tmp_path / "test_later.py"
    later.write_text("import pytest\n\nimport cb2026.no_such_module  # never imported\n\n"
                     "pytestmark = pytest.mark.stage('stage-999-later')\n")
    result = run_pytest(f"--stage={FIRST.stage_id}", "-rs", str(later))
    assert result.returncode == NO_TESTS_COLLECTED, result.stdout[-3000:]
    assert "test_later.py: belongs to a stage after --stage" in result.stdout


@pytest.mark.parametrize("stage", ["99", "x", "7.5", "stage-01-boards"])
def test_a_stage_that_is_not_in_the_book_is_a_usage_error(stage: str) -> None:
    result = run_pytest(f"--stage={stage}", "--collect-only", "-q", str(FIRST.path))
    assert result.returncode == USAGE_ERROR, result.stdout[-2000:] + result.stderr[-2000:]
    assert f"--stage {stage}: no such stage" in result.stderr
    for chapter in (BOOK[0], BOOK[-1]):
        assert f"({chapter.stage_id})" in result.stderr


def test_notebooks_made_from_chapters_are_not_collected(tmp_path: Path) -> None:
    chapters = tmp_path / "book" / "chapters"
    chapters.mkdir(parents=True)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    nbformat.write(notebook, chapters / "stage-01-board.ipynb")
    result = run_pytest("--collect-only", "-q", str(tmp_path))
    assert result.returncode == NO_TESTS_COLLECTED, result.stdout[-2000:]
    assert "ipynb" not in result.stdout


def test_a_hanging_test_fails_with_its_name(tmp_path: Path) -> None:
    hanging = tmp_path / "test_hang.py"
    hanging.write_text(textwrap.dedent("""
        import time

        import pytest

        pytestmark = pytest.mark.stage("stage-01-board")


        def test_sleeps_past_its_timeout() -> None:
            time.sleep(600)
    """))
    # The configured timeout, shortened so that the demonstration takes seconds.
    result = run_pytest("-o", "timeout=2", str(hanging))
    assert result.returncode == 1
    assert any(line.startswith("FAILED") and "test_sleeps_past_its_timeout" in line
               and "Timeout" in line for line in result.stdout.splitlines()), result.stdout


def test_tests_and_chapter_cells_have_timeouts_of_minutes(pytestconfig: pytest.Config) -> None:
    assert 0 < float(pytestconfig.getini("timeout")) <= 600
    assert 0 < pytestconfig.getoption("nbval_cell_timeout") <= 300


BLOCKING_CALLS = {"run", "call", "check_call", "check_output", "communicate", "wait"}


def calls_without_timeout(path: Path) -> list[str]:
    """The subprocess calls (and waits) in a test file that could wait for ever."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name = node.func.attr
        on_subprocess = isinstance(node.func.value, ast.Name) and node.func.value.id == "subprocess"
        blocking = name in {"communicate", "wait"} or (on_subprocess and name in BLOCKING_CALLS)
        if blocking and not any(keyword.arg == "timeout" for keyword in node.keywords):
            found.append(f"{path.name}:{node.lineno} {name}()")
    return found


def test_every_subprocess_call_in_the_tests_has_a_timeout() -> None:
    files = sorted((ROOT / "tests").glob("*.py"))
    assert [call for path in files for call in calls_without_timeout(path)] == []


def test_the_timeout_check_finds_a_call_without_one(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text("import subprocess\nsubprocess.run(['true'])\nprocess.wait()\n"
                      "subprocess.run(['true'], timeout=5)\n")
    assert calls_without_timeout(sample) == ["test_sample.py:2 run()", "test_sample.py:3 wait()"]
