"""The book's chapters in reading order, read from `book/_toc.yml`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import jupytext
import yaml

STAGE_ID = re.compile(r"^stage-(\d+(?:\.\d+)*)-[a-z0-9-]+$")


@dataclass(frozen=True)
class Chapter:
    """A chapter of the book: its stage id and its MyST Markdown file."""

    stage_id: str
    path: Path

    @property
    def number(self) -> tuple[int, ...]:
        """The stage number as a tuple: "stage-08.1-tt-buckets" gives (8, 1)."""
        return stage_number(self.stage_id)

    def cells(self) -> list:
        """The chapter's notebook cells, as jupytext reads them."""
        return jupytext.read(self.path, fmt="md:myst").cells


def stage_number(stage: str) -> tuple[int, ...]:
    """The number of a stage given as an id ("stage-03-legal") or a number ("3", "8.1")."""
    match = STAGE_ID.match(stage)
    text = match.group(1) if match else stage
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        raise ValueError(f"not a stage id or number: {stage!r}") from None


def repository_root(start: Path | None = None) -> Path:
    """The folder holding `book/_toc.yml`, searched upwards from `start`."""
    folder = (start or Path(__file__)).resolve()
    for candidate in [folder, *folder.parents]:
        if (candidate / "book" / "_toc.yml").exists():
            return candidate
    raise FileNotFoundError("no book/_toc.yml above " + str(folder))


def toc_files(toc: dict) -> list[str]:
    """Every `file:` entry of a Jupyter Book table of contents, in order."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for key in ("root", "parts", "chapters", "sections"):
                if key == "root" and "root" in node:
                    found.append(node["root"])
                elif key in node:
                    walk(node[key])
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def chapters(root: Path | None = None) -> list[Chapter]:
    """The stage chapters of the book in `_toc.yml` order."""
    root = root or repository_root()
    toc = yaml.safe_load((root / "book" / "_toc.yml").read_text())
    result = []
    for entry in toc_files(toc):
        name = Path(entry).name.removesuffix(".md")
        if STAGE_ID.match(name):
            result.append(Chapter(name, root / "book" / f"{entry.removesuffix('.md')}.md"))
    return result


def chapters_through(stage: str, root: Path | None = None) -> list[Chapter]:
    """The chapters from the first up to and including `stage` (an id or a number)."""
    last = stage_number(stage)
    selected = [chapter for chapter in chapters(root) if chapter.number <= last]
    if not selected:
        raise ValueError(f"no chapter up to stage {stage!r}")
    return selected
