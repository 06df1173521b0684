"""Checks that a built HTML book loads MathJax from its own files, never from the network.

    python tools/check_offline_math.py book/_build/html

Every page that loads MathJax must load the book's own copy, `_static/mathjax/tex-svg.js`
(book/_ext/offline_math.py puts it there), and that file must exist. A book in which no page
loads MathJax fails too: the check would have checked nothing. `make book` runs it after the
build; it prints each problem and exits with status 1, or prints what it checked.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

MATHJAX_SCRIPT = "_static/mathjax/tex-svg.js"


class ScriptSources(HTMLParser):
    """Collects the `src` of every <script> element of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            source = dict(attrs).get("src")
            if source:
                self.sources.append(source)


def script_sources(page: Path) -> list[str]:
    """The `src` of each script that the page loads, in page order."""
    parser = ScriptSources()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    return parser.sources


def mathjax_problem(html: Path, page: Path, source: str) -> str | None:
    """Why this MathJax script of the page would not render offline (None: it would)."""
    name = page.relative_to(html).as_posix()
    url = urlsplit(source)
    if url.scheme or url.netloc:
        return f"{name} loads MathJax from the network: {source}"
    # Sphinx appends ?v=<checksum> to its static files; the file is the path alone.
    target = (page.parent / unquote(url.path)).resolve()
    if target != (html / MATHJAX_SCRIPT).resolve():
        return f"{name} loads {source}, not the book's {MATHJAX_SCRIPT}"
    if not target.is_file():
        return f"{name} loads {source}, which is not in the built book"
    return None


def problems(html: Path) -> list[str]:
    """What keeps the built book in `html` from rendering its math offline, one line each."""
    found: list[str] = []
    pages_with_math = 0
    for page in sorted(html.rglob("*.html")):
        sources = [s for s in script_sources(page) if "mathjax" in s.lower()]
        pages_with_math += bool(sources)
        found += filter(None, (mathjax_problem(html, page, s) for s in sources))
    if pages_with_math == 0:
        found.append(f"no page of {html} loads MathJax: nothing was checked")
    return found


def main(arguments: list[str]) -> int:
    if len(arguments) != 1 or not Path(arguments[0]).is_dir():
        print("usage: python tools/check_offline_math.py BUILT_HTML_FOLDER", file=sys.stderr)
        return 2
    html = Path(arguments[0])
    found = problems(html)
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        return 1
    print(f"every page of {html} that loads MathJax loads the book's own {MATHJAX_SCRIPT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
