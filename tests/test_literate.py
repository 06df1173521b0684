"""The literate tools: tangling cells into modules, drift, stage numbers."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import jupytext
import pytest
from docutils import nodes
from docutils.utils import new_document

from book_extensions import load_book_extension
from literate.__main__ import drift
from literate.book import Chapter, CodeCell, chapters, repository_root, stage_number
from literate.tangle import CellReport, Change, Place, TangleError, Tangler, render_module

pytestmark = [pytest.mark.stage("stage-01-board"), pytest.mark.tooling]

ROOT = repository_root(Path(__file__))


def tangled(*cells: tuple[str, str], chapter: str = "stage-01-board") -> Tangler:
    """A tangler fed the given (target, source) cells of one chapter (modules need no
    declaration here; the tests of declarations use `export_cells`)."""
    tangler = Tangler(undeclared_modules_allowed=True)
    for number, (target, source) in enumerate(cells):
        tangler.add_cell(chapter, number, source, target)
    return tangler


def module_namespace(tangler: Tangler, module: str) -> dict:
    """The names a tangled module defines, by running the text the tangler renders."""
    namespace: dict = {}
    exec(render_module(tangler.modules[module]), namespace)
    return namespace


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
    namespace = module_namespace(tangler, "board")
    assert namespace["P"]().a() == 1
    assert namespace["P"]().b() == 2


def test_a_class_shown_again_keeps_the_members_it_does_not_show() -> None:
    tangler = tangled(
        ("board", "class P:\n    def a(self):\n        return 1\n"),
        ("board.P", "def b(self):\n    return 2\n"),
        ("board", "class P:\n    def a(self):\n        return 10\n"),
    )
    namespace = module_namespace(tangler, "board")
    assert (namespace["P"]().a(), namespace["P"]().b()) == (10, 2)


@pytest.mark.parametrize(
    ("target", "source", "message", "line"),
    [
        ("board", "for i in range(3):\n    pass\n", "only functions, classes", 100),
        ("board", "X = 1\ndef f(:\n", "syntax error", 101),
        ("board.Missing", "def f(self):\n    pass\n", "no class 'Missing'", 98),
        ("bo-ard", "X = 1\n", "unknown export target", 98),
        ("board", "X = 1\n\nprint('hello')\n", "not Expr", 102),
        ("board", "X = 1\nfrom .move import Move\n", "relative import", 101),
        ("board", "X = 1\n\n# A comment about nothing.\n\nY = 2\n", "cannot be placed", 102),
        ("board", "X = 1\n# The end.\n", "cannot be placed", 101),
        ("board", "class P:\n    A = 1\n\n    # Lost.\n\n    B = 2\n", "cannot be placed", 103),
        ("board", "# Why os.\nimport os\n", "cannot be placed", 100),
    ],
)
def test_errors_name_the_chapter_file_and_line(
    target: str, source: str, message: str, line: int
) -> None:
    tangler = tangled(("board", "X = 0\n"), chapter="stage-07-uci")
    with pytest.raises(TangleError, match=message) as error:
        tangler.add_cell(
            "stage-07-uci",
            1,
            source,
            target,
            place=Place("stage-07-uci", 1, first_line=100, fence_line=98),
        )
    assert str(error.value).startswith(f"stage-07-uci.md, line {line} (cell 1):")


def export_cells(*cells: tuple[dict, str], chapter: str = "stage-07-uci") -> Tangler:
    """A tangler fed code cells with metadata, as a chapter's file gives them: cell n's
    fence is on line 10n + 1 and its source begins on line 10n + 3."""
    tangler = Tangler()
    for number, (metadata, source) in enumerate(cells):
        cell = CodeCell(number, 10 * number + 1, 10 * number + 3, metadata, source)
        tangler.add_code_cell(chapter, cell)
    return tangler


def test_a_module_is_declared_and_a_misspelt_one_is_an_error() -> None:
    tangler = export_cells(({"export-new": "board"}, "X = 1\n"), ({"export": "board"}, "Y = 2\n"))
    assert "Y = 2" in render_module(tangler.modules["board"])
    with pytest.raises(TangleError, match="'boardd' is not declared.*did you mean 'board'"):
        export_cells(({"export-new": "board"}, "X = 1\n"), ({"export": "boardd"}, "Y = 2\n"))
    with pytest.raises(TangleError, match=r"^stage-07-uci.md, line 11 .*already declared"):
        export_cells(({"export-new": "board"}, "X = 1\n"), ({"export-new": "board"}, "Y = 2\n"))


def test_every_module_of_the_book_is_declared_once_by_its_first_cell() -> None:
    tangler = Tangler()
    tangler.add_chapters(chapters(ROOT))
    declared = {report.target for report in tangler.reports if report.new_module}
    assert declared == {f"src/cb2026/{name}" for name in tangler.render()}


def test_cell_lines_point_into_the_chapter_files() -> None:
    for chapter in chapters(ROOT):
        lines = chapter.path.read_text().splitlines()
        for cell in chapter.code_cells():
            assert lines[cell.fence_line - 1].startswith("```{code-cell}")
            source = cell.source.splitlines()
            start = cell.first_line - 1
            assert lines[start : start + len(source)] == source, (chapter.stage_id, cell.index)


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fails the test, instead of hanging it, if the block runs longer than `seconds`."""

    def give_up(signal_number: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_cycle_among_definitions_is_an_error_naming_them() -> None:
    tangler = tangled(("cli", "A = 1\n"), ("cli", "B = A\n"))
    tangler.add_cell("stage-02-moves", 0, "A = B\n", "cli")
    with time_limit(5), pytest.raises(TangleError, match="need each other") as error:
        render_module(tangler.modules["cli"])
    message = str(error.value)
    assert "A (stage-02-moves.md, line 1)" in message and "B (stage-01-board.md" in message


@pytest.mark.parametrize(
    "replacement",
    [
        "class T:\n    ACTIONS = {'a': a, 'b': b}\n",
        "class T:\n    @staticmethod\n    def run(action=b):\n        return action\n",
        "class T(metaclass=Meta):\n    pass\n",
        "def T(action=b):\n    return action\n",
        "def T(*, action=b):\n    return action\n",
    ],
)
def test_class_bodies_and_defaults_are_needed_at_import_time(replacement: str) -> None:
    tangler = tangled(
        ("cli", "def a():\n    pass\n"), ("cli", "T = a\n"), ("cli", "Meta = type\n")
    )
    tangler.add_cell("stage-01-board", 3, "def b():\n    pass\n", "cli")
    tangler.add_cell("stage-03-legal", 0, replacement, "cli")
    module_namespace(tangler, "cli")


def test_a_later_cell_removes_and_renames_definitions_and_imports() -> None:
    tangler = export_cells(
        ({"export-new": "board"}, "import os\nimport sys\nA = 1\n\n\ndef old():\n    return A\n"),
        ({"export": "board"}, "def last():\n    return sys.path, os.sep\n"),
    )
    report = tangler.add_code_cell(
        "stage-08-tt",
        CodeCell(
            0,
            1,
            3,
            {"export": "board", "remove": "A os", "rename": ["old new", "sys pathlib"]},
            "import pathlib\n\n\ndef new():\n    return pathlib.Path\n",
        ),
    )
    text = render_module(tangler.modules["board"])
    assert "A = 1" not in text and "def old" not in text and "import sys" not in text
    assert text.index("def new") < text.index("def last")
    assert "import pathlib" in text
    assert [(c.name, c.removed, c.renamed_from, c.is_import) for c in report.changes] == [
        ("A", True, None, False),
        ("os", True, None, True),
        ("new", False, "old", False),
        ("pathlib", False, "sys", True),
    ]
    for metadata, source, message in [
        ({"remove": "missing"}, "", "no 'missing' to remove"),
        ({"rename": "new newer"}, "X = 2\n", "defines no 'newer'"),
        ({"rename": "new"}, "", "pairs of names"),
    ]:
        with pytest.raises(TangleError, match=message):
            tangler.add_code_cell(
                "stage-08-tt", CodeCell(1, 20, 22, {"export": "board", **metadata}, source)
            )


def test_import_pruning_keeps_re_exports_side_effects_and_quoted_annotations() -> None:
    tangler = tangled(
        ("__init__", "from cb2026.board import Position\n"),
        ("api", "from cb2026.board import Position\n__all__ = ['Position']\n"),
        ("cli", "import readline  # noqa: F401\nimport os\n"),
        ("cli", "from cb2026.move import Move\nfrom cb2026.board import Position\n"),
        ("cli", 'def f(moves: "dict[str,Move]") -> "Position | None":\n    """Uses os."""\n'),
    )
    rendered = tangler.render()
    assert "from cb2026.board import Position" in rendered["__init__.py"]
    assert "from cb2026.board import Position" in rendered["api.py"]
    cli = rendered["cli.py"]
    assert "import readline  # noqa: F401" in cli
    assert "from cb2026.move import Move" in cli and "from cb2026.board import Position" in cli
    assert "import os" not in cli  # a docstring that mentions a name does not use it


def load_extension() -> ModuleType:
    """The book's Sphinx extension that writes the captions, as a module."""
    return load_book_extension("exported_cells")


class FakeSphinx:
    """As much of a Sphinx application as the extension reads: the reports, precomputed."""

    def __init__(self, reports: dict[tuple[str, int], CellReport]) -> None:
        self._cb2026_reports = reports


def chapter_page(stage_id: str, metadata: dict) -> nodes.document:
    """A page holding one code cell (index 3) with the given metadata, as myst-nb makes it."""
    page = new_document(f"{stage_id}.md")
    page["source"] = f"/book/chapters/{stage_id}.md"
    cell = nodes.container(nb_element="cell_code", cell_metadata=metadata, cell_index=3)
    cell += nodes.literal_block(text="def new():\n    pass\n")
    page += cell
    return page


def test_an_exported_cell_without_a_caption_fails_the_build() -> None:
    extension = load_extension()
    page = chapter_page("stage-08-tt", {"export-new": "tt"})
    with pytest.raises(extension.ExtensionError, match="cell 3 gets no caption"):
        extension.label_exported_cells(FakeSphinx({}), page)
    report = CellReport(
        "stage-08-tt",
        3,
        "src/cb2026/tt.py",
        None,
        [Change("x", "stage-02-moves", removed=True), Change("new", "stage-02-moves", "old")],
        [1],
    )
    page = chapter_page("stage-08-tt", {"export": "tt"})
    extension.label_exported_cells(FakeSphinx({("stage-08-tt", 3): report}), page)
    assert page[0].astext() == (
        "In src/cb2026/tt.py, removing x from chapter 2, renaming old as new from chapter 2"
        " (changed lines highlighted):"
    )
    # Several names: grouped by the chapter they come from, "from above" for this one's.
    report = CellReport(
        "stage-08-tt",
        3,
        "src/cb2026/tt.py",
        None,
        [Change("a", "stage-08-tt"), Change("b", "stage-02-moves"), Change("c", "stage-08-tt"),
         Change("d", "stage-02-moves"), Change("e", "stage-02-moves")],
        [1],
    )
    page = chapter_page("stage-08-tt", {"export": "tt"})
    extension.label_exported_cells(FakeSphinx({("stage-08-tt", 3): report}), page)
    assert page[0].astext() == (
        "In src/cb2026/tt.py, replacing a and c from above, and b, d and e from chapter 2"
        " (changed lines highlighted):"
    )
    lost = CellReport("stage-08-tt", 5, "src/cb2026/tt.py", None, [], [])
    with pytest.raises(extension.ExtensionError, match=r"cells \[5\] get no caption"):
        extension.label_exported_cells(
            FakeSphinx({("stage-08-tt", 5): lost}), chapter_page("stage-08-tt", {})
        )


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
        timeout=300,
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
    result = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True,
                            timeout=300)
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
    namespace = module_namespace(tangler, "cli")
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


def test_a_chapter_is_parsed_again_exactly_when_its_text_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parses: list[str] = []
    parse = jupytext.reads
    monkeypatch.setattr(jupytext, "reads", lambda text, **kw: parses.append(text) or
                        parse(text, **kw))
    path = tmp_path / "stage-01-a.md"
    cell = "```{code-cell} ipython3\nx = %d\n```\n"
    path.write_text(cell % 1)
    chapter = Chapter("stage-01-a", path)
    assert [code.source for code in chapter.code_cells()] == ["x = 1"]
    assert [code.source for code in chapter.code_cells()] == ["x = 1"]
    assert len(parses) == 1  # the unchanged file was not parsed again
    # An edit of the same size, its old modification time put back: still seen.
    status = path.stat()
    path.write_text(cell % 2)
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert [code.source for code in chapter.code_cells()] == ["x = 2"]
    path.write_text(cell % 2 + "\n" + cell % 3)
    assert [code.source for code in chapter.code_cells()] == ["x = 2", "x = 3"]
    assert len(parses) == 3
    with pytest.raises(TypeError):
        chapter.code_cells()[0].metadata["export"] = "board"  # type: ignore[index]
