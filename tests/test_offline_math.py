"""The book's math renders offline: MathJax comes from the book's own files, never a CDN.

book/_ext/offline_math.py copies MathJax into the built book and points the pages at it;
tools/check_offline_math.py, which `make book` runs after the build, checks the built pages.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
import yaml

from book_extensions import load_book_extension
from check_offline_math import MATHJAX_SCRIPT, main, problems
from literate.book import repository_root

pytestmark = [pytest.mark.stage("stage-01-board"), pytest.mark.tooling]

ROOT = repository_root(Path(__file__))


def load_extension() -> ModuleType:
    """The book's Sphinx extension that serves MathJax from the book, as a module."""
    return load_book_extension("offline_math")


def write_page(html: Path, name: str, *sources: str) -> None:
    """A page of a built book that loads these scripts."""
    page = html / name
    page.parent.mkdir(parents=True, exist_ok=True)
    scripts = "".join(f'<script defer="defer" src="{source}"></script>' for source in sources)
    page.write_text(f"<html><head>{scripts}</head><body><p>x</p></body></html>\n")


@pytest.fixture
def html(tmp_path: Path) -> Path:
    """A built book's folder holding the local MathJax script and no page yet."""
    folder = tmp_path / "html"
    (folder / MATHJAX_SCRIPT).parent.mkdir(parents=True)
    (folder / MATHJAX_SCRIPT).write_text("/* MathJax */\n")
    return folder


def test_pages_that_load_the_books_own_mathjax_pass(html: Path) -> None:
    write_page(html, "index.html", "_static/documentation_options.js")
    # Sphinx adds a checksum to its static files' URLs; the path is what counts.
    write_page(html, "chapters/stage-05.html", "../_static/mathjax/tex-svg.js?v=1a2b3c4d")
    assert problems(html) == []
    assert main([str(html)]) == 0


@pytest.mark.parametrize(
    "source",
    [
        "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js",
        "//cdn.jsdelivr.net/npm/mathjax@3/es5/tex-svg.js",
    ],
)
def test_a_page_that_loads_mathjax_from_the_network_is_named(html: Path, source: str) -> None:
    write_page(html, "chapters/stage-05.html", source)
    write_page(html, "chapters/stage-08.html", "../_static/mathjax/tex-svg.js")
    assert problems(html) == [f"chapters/stage-05.html loads MathJax from the network: {source}"]
    assert main([str(html)]) == 1


def test_the_font_dependent_output_and_a_missing_file_are_named(html: Path) -> None:
    (html / "_static" / "mathjax" / "tex-chtml.js").write_text("/* MathJax */\n")
    write_page(html, "a.html", "_static/mathjax/tex-chtml.js")
    write_page(html, "b.html", "_static/mathjax/tex-svg.js")
    (html / MATHJAX_SCRIPT).unlink()
    assert problems(html) == [
        f"a.html loads _static/mathjax/tex-chtml.js, not the book's {MATHJAX_SCRIPT}",
        "b.html loads _static/mathjax/tex-svg.js, which is not in the built book",
    ]


def test_a_book_in_which_no_page_loads_mathjax_fails(html: Path) -> None:
    write_page(html, "index.html", "_static/documentation_options.js")
    (problem,) = problems(html)
    assert "no page" in problem and "nothing was checked" in problem


def test_the_extension_points_mathjax_at_the_installed_svg_script() -> None:
    extension = load_extension()
    # The package's files are where the extension copies them from.
    assert (extension.mathjax_folder() / extension.SCRIPT).is_file()
    config = SimpleNamespace(mathjax_path="https://cdn.example/mathjax.js")
    extension.use_local_mathjax(None, config)
    assert "_static/" + config.mathjax_path == MATHJAX_SCRIPT


def test_the_extension_copies_mathjax_into_the_built_book(tmp_path: Path) -> None:
    extension = load_extension()
    app = SimpleNamespace(outdir=str(tmp_path), builder=SimpleNamespace(format="html"))
    extension.copy_mathjax(app, RuntimeError("the build failed"))
    assert not (tmp_path / MATHJAX_SCRIPT).exists()
    extension.copy_mathjax(app, None)
    assert (tmp_path / MATHJAX_SCRIPT).is_file()


def test_the_book_uses_the_extension_and_make_book_runs_the_check() -> None:
    config = yaml.safe_load((ROOT / "book" / "_config.yml").read_text())
    sphinx = config["sphinx"]
    assert sphinx["local_extensions"]["offline_math"] == "_ext"
    # The package's own extension would set mathjax_path to its CommonHTML script over ours.
    assert "sphinx-mathjax-offline" not in sphinx.get("extra_extensions", [])
    assert "mathjax_path" not in sphinx.get("config", {})
    recipe = re.search(r"^book:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    lines = recipe.group(1).splitlines()
    # The check runs after the build, on its output.
    (build,) = [number for number, line in enumerate(lines) if "jupyter-book build" in line]
    assert any("tools/check_offline_math.py book/_build/html" in line
               for line in lines[build + 1:])
