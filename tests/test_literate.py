"""The literate tools: tangling cells into modules, drift, stage numbers."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from literate.__main__ import drift
from literate.book import chapters, repository_root, stage_number
from literate.tangle import TangleError, Tangler, render_module

pytestmark = pytest.mark.stage("stage-01-board")

ROOT = repository_root(Path(__file__))


def tangled(*cells: tuple[str, str], chapter: str = "stage-01-board") -> Tangler:
    """A tangler fed the given (target, source) cells of one chapter."""
    tangler = Tangler()
    for number, (target, source) in enumerate(cells):
        tangler.add_cell(chapter, number, source, target)
    return tangler


def test_definitions_land_in_book_order_with_imports_on_top() -> None:
    tangler = tangled(
        ("board", '"""Docs."""\nimport sys\nA = sys.maxsize\n'),
        ("board", "from typing import Final\nimport os\n\ndef f() -> Final:\n    return os.sep\n"),
    )
    text = render_module(tangler.modules["board"])
    body = text.split('"""Docs."""\n', 1)[1]
    assert body.startswith("\nimport os\nimport sys\nfrom typing import Final\n")
    assert body.index("A = sys.maxsize") < body.index("def f()")
    compile(text, "board.py", "exec")


def test_a_later_definition_replaces_the_earlier_in_place() -> None:
    tangler = tangled(
        ("board", "def f():\n    return 1\n"),
        ("board", "def g():\n    return 2\n"),
    )
    report = tangler.add_cell("stage-02-moves", 0, "def f():\n    return 3\n", "board")
    text = render_module(tangler.modules["board"])
    assert text.index("return 3") < text.index("def g")
    assert "return 1" not in text
    assert report.changes[0].replaced_chapter == "stage-01-board"
    assert report.changed_lines == [2]


def test_methods_cells_land_inside_their_class() -> None:
    tangler = tangled(
        ("board", "class P:\n    '''A class.'''\n\n    def a(self):\n        return 1\n"),
        ("board.P", "def b(self):\n    return 2\n"),
        ("board", "X = 5\n"),
    )
    namespace: dict = {}
    exec(render_module(tangler.modules["board"]), namespace)
    assert namespace["P"]().a() == 1
    assert namespace["P"]().b() == 2


def test_a_class_shown_again_keeps_the_members_it_does_not_show() -> None:
    tangler = tangled(
        ("board", "class P:\n    def a(self):\n        return 1\n"),
        ("board.P", "def b(self):\n    return 2\n"),
        ("board", "class P:\n    def a(self):\n        return 10\n"),
    )
    namespace: dict = {}
    exec(render_module(tangler.modules["board"]), namespace)
    assert (namespace["P"]().a(), namespace["P"]().b()) == (10, 2)


@pytest.mark.parametrize(
    ("target", "source", "message"),
    [
        ("board", "for i in range(3):\n    pass\n", "only functions, classes"),
        ("board", "def f(:\n", "syntax error on line 1"),
        ("board.Missing", "def f(self):\n    pass\n", "no class 'Missing'"),
        ("bo-ard", "X = 1\n", "unknown export target"),
        ("board", "print('hello')\n", "not Expr"),
    ],
)
def test_errors_name_the_chapter_and_cell(target: str, source: str, message: str) -> None:
    with pytest.raises(TangleError, match=message) as error:
        tangled(("board", "X = 0\n"), (target, source), chapter="stage-07-uci")
    assert str(error.value).startswith("stage-07-uci, cell 1:")


def test_the_package_matches_the_chapters() -> None:
    differing = drift(ROOT)
    assert not differing, f"src/cb2026 differs from the chapters: run `make tangle` ({differing})"


def test_drift_is_reported_with_the_command_that_fixes_it(tmp_path: Path) -> None:
    for folder in ("book", "src", "tools"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("_build"))
    (tmp_path / "src" / "cb2026" / "board.py").write_text("# edited by hand\n")
    result = subprocess.run(
        [sys.executable, "-m", "literate", "check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path / "tools"), "PATH": ""},
    )
    assert result.returncode == 1
    assert "board.py" in result.stderr and "make tangle" in result.stderr


def test_stage_numbers_order_substages() -> None:
    assert stage_number("stage-08.1-tt-buckets") == (8, 1)
    assert stage_number("8") < stage_number("8.1") < stage_number("stage-09-pvs")
    with pytest.raises(ValueError, match="not a stage"):
        stage_number("eight")


def test_every_chapter_is_in_the_toc_and_calls_its_own_stage() -> None:
    listed = {chapter.path.name for chapter in chapters(ROOT)}
    on_disk = {path.name for path in (ROOT / "book" / "chapters").glob("stage-*.md")}
    assert listed == on_disk
    for chapter in chapters(ROOT):
        assert f'bookstage.use("{chapter.stage_id}")' in chapter.path.read_text()


def test_the_code_is_ruff_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (make test installs it)")
    result = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_imports_that_no_definition_uses_are_left_out() -> None:
    tangler = tangled(
        ("cli", "from cb2026.movegen import pseudo_legal_moves\nSOURCE = pseudo_legal_moves\n"),
        ("cli", "from cb2026.rules import legal_moves\nSOURCE = legal_moves\n"),
    )
    text = render_module(tangler.modules["cli"])
    assert "from cb2026.rules import legal_moves" in text
    assert "pseudo_legal_moves" not in text


def test_a_replaced_table_moves_below_the_functions_it_names() -> None:
    tangler = tangled(
        ("cli", "def a():\n    pass\n"),
        ("cli", "TABLE = {'a': a}\n"),
        ("cli", "def b():\n    pass\n"),
    )
    tangler.add_cell("stage-03-legal", 0, "TABLE = {'a': a, 'b': b}\n", "cli")
    tangler.add_cell("stage-03-legal", 1, "def c():\n    pass\n", "cli")
    namespace: dict = {}
    exec(render_module(tangler.modules["cli"]), namespace)
    assert set(namespace["TABLE"]) == {"a", "b"}


def test_a_main_guard_goes_last_so_the_module_can_run() -> None:
    tangler = tangled(
        ("match", 'def main():\n    return 7\n\nif __name__ == "__main__":\n    RESULT = main()\n'),
        ("match", "def helper():\n    return 1\n"),
    )
    text = render_module(tangler.modules["match"])
    assert text.index("def helper") < text.index('if __name__ == "__main__":')
    namespace: dict = {"__name__": "__main__"}
    exec(text, namespace)
    assert namespace["RESULT"] == 7
