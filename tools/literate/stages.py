"""Stage snapshots: the book, the engine and the tests as they were at each chapter."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import yaml

from literate.book import Chapter, chapters, chapters_through, repository_root, stage_number
from literate.tangle import PACKAGE, tangle

STAGE_MARKER = re.compile(r"""pytest\.mark\.stage\(\s*["']([^"']+)["']\s*\)""")
# Fixed identity and dates make the chain of stage commits reproducible.
COMMIT_ENVIRONMENT = {
    "GIT_AUTHOR_NAME": "cb2026 book",
    "GIT_AUTHOR_EMAIL": "book@cb2026.invalid",
    "GIT_COMMITTER_NAME": "cb2026 book",
    "GIT_COMMITTER_EMAIL": "book@cb2026.invalid",
}
FIRST_COMMIT_TIME = 1_767_225_600  # 2026-01-01 00:00 UTC; each stage is a day later.


def write_package(modules: dict[str, str], folder: Path) -> None:
    """Writes the tangled modules into `folder`, removing modules that are no longer made."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.py"):
        if stale.name not in modules:
            stale.unlink()
    for name, text in modules.items():
        path = folder / name
        if not path.exists() or path.read_text() != text:
            # Write then rename, so that a reader of the folder never sees half a file.
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(text)
            temporary.replace(path)


def package_folder(stage: str, root: Path | None = None) -> Path:
    """The folder to put on sys.path to import the engine as it was at `stage`.

    The newest stage is `src/` itself; an earlier one is tangled into `build/stages/`.
    """
    root = root or repository_root()
    book = chapters(root)
    selected = chapters_through(stage, root)
    if len(selected) == len(book):
        return root / "src"
    folder = root / "build" / "stages" / selected[-1].stage_id
    write_package(tangle(selected), folder / PACKAGE)
    return folder


def test_file_stage(path: Path) -> str | None:
    """The stage a test file declares with `pytest.mark.stage(...)`, if any."""
    match = STAGE_MARKER.search(path.read_text())
    return match.group(1) if match else None


def later_stage_ids(stage: Chapter, root: Path) -> list[str]:
    """The ids of the chapters after `stage`."""
    return [chapter.stage_id for chapter in chapters(root) if chapter.number > stage.number]


def tracked_files(root: Path) -> list[str]:
    """The files of the repository that git tracks or would track (not ignored): the
    snapshot's raw material, including new chapters not yet committed."""
    output = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted({name for name in output.split("\0") if name and (root / name).exists()})


def trim_toc(toc: dict, keep: set[str]) -> dict:
    """The table of contents without the chapters not in `keep` (and parts left empty)."""
    parts = []
    for part in toc.get("parts", []):
        kept = [entry for entry in part.get("chapters", []) if Path(entry["file"]).name in keep]
        if kept:
            parts.append({**part, "chapters": kept})
    return {**toc, "parts": parts}


def build_snapshot(stage: str, destination: Path, root: Path | None = None) -> Path:
    """Writes the snapshot of `stage` into `destination` (which must not exist).

    A snapshot is the repository with the chapters up to `stage`, a table of contents to
    match, the package tangled from those chapters and the tests of those stages.
    """
    root = root or repository_root()
    chapter = chapters_through(stage, root)[-1]
    later = later_stage_ids(chapter, root)
    kept_chapters = {item.path.stem for item in chapters_through(stage, root)}
    for name in tracked_files(root):
        source = root / name
        if name.startswith(f"src/{PACKAGE}/") or any(stage_id in name for stage_id in later):
            continue
        if name.startswith("tests/") and name.endswith(".py"):
            declared = test_file_stage(source)
            if declared and stage_number(declared) > chapter.number:
                continue
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    toc = yaml.safe_load((root / "book" / "_toc.yml").read_text())
    (destination / "book" / "_toc.yml").write_text(
        yaml.safe_dump(trim_toc(toc, kept_chapters), sort_keys=False)
    )
    write_package(tangle(chapters_through(stage, root)), destination / "src" / PACKAGE)
    readme = destination / "README.md"
    readme.write_text(
        readme.read_text()
        + f"\n---\n\nThis is the snapshot `{chapter.stage_id}`: the book, the engine and the"
        f" tests as they are at the end of chapter {'.'.join(map(str, chapter.number))}.\n"
    )
    return destination


def git(root: Path, *arguments: str, environment: dict[str, str] | None = None) -> str:
    """Runs git in `root` and returns its output."""
    return subprocess.run(
        ["git", *arguments],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(environment or {})},
    ).stdout.strip()


def write_stage_tags(root: Path | None = None) -> list[tuple[str, str]]:
    """Commits every stage's snapshot as a chain (each stage's parent is the one before)
    and points tag `stage-...` at each; returns (tag, commit) pairs."""
    root = root or repository_root()
    if git(root, "status", "--porcelain"):
        raise RuntimeError("the work tree has uncommitted changes; commit them before tagging")
    made = []
    parent: str | None = None
    with tempfile.TemporaryDirectory() as scratch:
        for number, chapter in enumerate(chapters(root)):
            snapshot = build_snapshot(chapter.stage_id, Path(scratch) / chapter.stage_id, root)
            index = {"GIT_INDEX_FILE": str(Path(scratch) / f"{chapter.stage_id}.index")}
            git(root, f"--work-tree={snapshot}", "add", "-A", ".", environment=index)
            tree = git(root, "write-tree", environment=index)
            when = f"{FIRST_COMMIT_TIME + 86_400 * number} +0000"
            dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
            message = f"{chapter.stage_id}: the book and engine at the end of this chapter"
            arguments = ["commit-tree", tree, "-m", message]
            if parent:
                arguments += ["-p", parent]
            parent = git(root, *arguments, environment={**COMMIT_ENVIRONMENT, **dates})
            git(root, "tag", "-f", chapter.stage_id, parent)
            made.append((chapter.stage_id, parent))
    return made
