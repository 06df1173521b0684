"""Sphinx extension: the book's math renders without the network.

Sphinx's mathjax extension loads MathJax from a CDN unless `mathjax_path` names a file of the
book. The PyPI package sphinx-mathjax-offline ships MathJax 3's components; this extension
copies them into `_static/mathjax` of the built book and loads `tex-svg.js` from there. The
SVG output draws every glyph from paths inside that one script. The CommonHTML output
(`tex-chtml.js`, which the package's own extension loads) needs web fonts, and Firefox will
not load fonts for a `file://` page from another folder, so a book opened from disk would
show its math without them. The package is used only for its files: its own `setup` is not
run, since it sets `mathjax_path` to `tex-chtml.js` over any value of the configuration.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.util.fileutil import copy_asset

# The distribution installs a top-level folder of this name (hyphens and all) whose
# static/mathjax holds MathJax's `es5` components.
PACKAGE = "sphinx-mathjax-offline"
SCRIPT = "tex-svg.js"
# Where the components go in the built book, relative to its _static folder.
TARGET = "mathjax"


def mathjax_folder() -> Path:
    """The folder of MathJax components that the package installed."""
    spec = find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ExtensionError(
            f"{PACKAGE} is not installed, so the book's math has no MathJax to load:"
            " install the book's requirements (make book does)"
        )
    folder = Path(spec.origin).parent / "static" / "mathjax"
    if not (folder / SCRIPT).is_file():
        raise ExtensionError(f"{PACKAGE} has no {folder / SCRIPT}: has its layout changed?")
    return folder


def use_local_mathjax(app: Sphinx, config: Config) -> None:
    """Points the pages at the copy of MathJax in `_static`, failing early if there is none."""
    mathjax_folder()
    # A relative path is taken from _static: the pages get <script src="_static/mathjax/...">.
    config.mathjax_path = f"{TARGET}/{SCRIPT}"


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    """Copies all of MathJax's components (not only `SCRIPT`): TeX extensions that a page
    needs and the script lacks, such as `\\cancel`, are loaded from beside it."""
    if exception is None and app.builder.format == "html":
        copy_asset(mathjax_folder(), Path(app.outdir) / "_static" / TARGET)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", use_local_mathjax)
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
