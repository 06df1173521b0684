"""The book's chapters in reading order, read from `book/_toc.yml`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import jupytext
import yaml

STAGE_ID = re.compile(r"^stage-(\d+(?:\.\d+)*)-[a-z0-9-]+$")
CODE_CELL_FENCE = re.compile(r"^(`{3,}|~{3,})\{code-cell\}")
FENCE_OPTION = re.compile(r"^:[\w-]+:")


@dataclass(frozen=True)
class CodeCell:
    """An exportable code cell: its index among the chapter's cells, where it sits in the
    chapter's file (1-based lines of its fence and of its first source line), its metadata
    and its source."""

    index: int
    fence_line: int
    first_line: int
    metadata: Mapping  # read-only: the same cell is handed to every caller
    source: str


# The code cells of every chapter text parsed so far, by a digest of the text: a file whose
# bytes are unchanged is not parsed again, whatever its modification time says.
READ_CODE_CELLS: dict[bytes, tuple[CodeCell, ...]] = {}


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

    def code_cells(self) -> list[CodeCell]:
        """The chapter's code cells with the lines of the file where they are, so that an
        error can point at the line to fix."""
        # Parsing a chapter is slow (jupytext), and one run of a tool tangles many stages,
        # each from every chapter before it; reading and hashing its bytes is fast.
        text = self.path.read_text()
        key = hashlib.blake2b(text.encode(), digest_size=16).digest()
        if key not in READ_CODE_CELLS:
            READ_CODE_CELLS[key] = tuple(self.parse_code_cells(text))
        return list(READ_CODE_CELLS[key])

    def parse_code_cells(self, text: str) -> list[CodeCell]:
        """The code cells of `text`, the chapter's file (see code_cells)."""
        cells = [
            (index, cell)
            for index, cell in enumerate(jupytext.reads(text, fmt="md:myst").cells)
            if cell.cell_type == "code"
        ]
        places = code_cell_lines(text.splitlines())
        if len(places) != len(cells):
            raise ValueError(
                f"{self.path.name}: found {len(places)} code-cell fences but jupytext reads"
                f" {len(cells)} code cells"
            )
        return [
            CodeCell(index, fence_line, first_line, MappingProxyType(dict(cell.metadata)),
                     cell.source)
            for (index, cell), (fence_line, first_line) in zip(cells, places, strict=True)
        ]


def code_cell_lines(lines: list[str]) -> list[tuple[int, int]]:
    """For each `{code-cell}` of a MyST file, the line of its fence and the line where its
    source begins, after the options (a `---` YAML block or `:key: value` lines)."""
    places = []
    number = 0
    while number < len(lines):
        fence = CODE_CELL_FENCE.match(lines[number])
        number += 1
        if not fence:
            continue
        fence_line = number
        if number < len(lines) and lines[number].strip() == "---":
            number += 1
            while number < len(lines) and lines[number].strip() != "---":
                number += 1
            number += 1
        else:
            while number < len(lines) and FENCE_OPTION.match(lines[number]):
                number += 1
        places.append((fence_line, number + 1))
        # Skip to the closing fence, so that the cell's source is never read as a fence.
        while number < len(lines) and lines[number].rstrip() != fence.group(1):
            number += 1
    return places


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
