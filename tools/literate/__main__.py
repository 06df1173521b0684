"""Command line: `python -m literate tangle | check | snapshot STAGE FOLDER | tags [--ensure]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from literate.book import chapters, repository_root
from literate.stages import (
    StageTagError,
    build_snapshot,
    ensure_stage_tags,
    write_package,
    write_stage_tags,
)
from literate.tangle import PACKAGE, TangleError, tangle

RETANGLE = "make tangle"


def drift(root: Path) -> list[str]:
    """The files of src/cb2026 that differ from what the chapters tangle to."""
    folder = root / "src" / PACKAGE
    expected = tangle(chapters(root))
    present = {path.name for path in folder.glob("*.py")}
    differing = [
        name
        for name, text in expected.items()
        if not (folder / name).exists() or (folder / name).read_text() != text
    ]
    return sorted(differing + sorted(present - set(expected)))


def main(arguments: list[str] | None = None) -> int:
    """Runs one command of the literate tools."""
    parser = argparse.ArgumentParser(prog="python -m literate", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tangle", help="write src/cb2026 from the chapters")
    commands.add_parser("check", help="fail if src/cb2026 differs from the chapters")
    snapshot = commands.add_parser("snapshot", help="write one stage's snapshot to a folder")
    snapshot.add_argument("stage", help="stage id or number, e.g. stage-03-legal or 3")
    snapshot.add_argument("folder", type=Path)
    tags = commands.add_parser("tags", help="commit every stage's snapshot and tag it")
    tags.add_argument(
        "--ensure",
        action="store_true",
        help="make the tags a clone lacks and check the others (fails if one points elsewhere;"
        " a work tree with uncommitted changes is not checked)",
    )
    options = parser.parse_args(arguments)
    root = repository_root(Path.cwd())
    try:
        if options.command == "tangle":
            write_package(tangle(chapters(root)), root / "src" / PACKAGE)
        elif options.command == "check":
            differing = drift(root)
            if differing:
                print(
                    f"src/{PACKAGE} differs from the chapters in: {', '.join(differing)}.\n"
                    f"Run `{RETANGLE}` to regenerate it from the book.",
                    file=sys.stderr,
                )
                return 1
        elif options.command == "snapshot":
            if options.folder.exists():
                parser.error(f"{options.folder} exists; give a new folder")
            build_snapshot(options.stage, options.folder, root)
        elif options.command == "tags" and options.ensure:
            print("\n".join(ensure_stage_tags(root)))
        elif options.command == "tags":
            for tag, commit in write_stage_tags(root):
                print(f"{tag} {commit}")
    except StageTagError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except TangleError as error:
        print(f"tangle error: {error}", file=sys.stderr)
        return 1
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
