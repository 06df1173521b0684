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
from literate.tangle import PACKAGE, tangle, tangle_stages

STAGE_MARKER = re.compile(r"""pytest\.mark\.stage\(\s*["']([^"']+)["']\s*\)""")
# Fixed identity and dates make the chain of stage commits reproducible.
COMMIT_ENVIRONMENT = {
    "GIT_AUTHOR_NAME": "cb2026 book",
    "GIT_AUTHOR_EMAIL": "book@cb2026.invalid",
    "GIT_COMMITTER_NAME": "cb2026 book",
    "GIT_COMMITTER_EMAIL": "book@cb2026.invalid",
}
FIRST_COMMIT_TIME = 1_767_225_600  # 2026-01-01 00:00 UTC; each stage is a day later.
# Git runs on the snapshots with none of the user's or the system's configuration, so that
# the stage commits are the same in every clone: no global ignore or attributes file (git
# reads ~/.config/git/ignore even without a global config unless the setting is emptied), no
# line-ending conversion, no signing, the executable bit as the files have it.
NEUTRAL_GIT_ENVIRONMENT = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
NEUTRAL_GIT_SETTINGS = {
    "core.excludesFile": "",
    "core.attributesFile": "",
    "core.autocrlf": "false",
    "core.fileMode": "true",
    "commit.gpgSign": "false",
    "tag.gpgSign": "false",
    "i18n.commitEncoding": "UTF-8",
}


class StageTagError(RuntimeError):
    """A stage tag that points at another commit than the one the book makes."""


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


def tracked_files(root: Path, untracked: bool = True) -> list[str]:
    """The files of the repository that git tracks, and with `untracked` those it would
    track (new chapters not yet committed): the snapshot's raw material. Only the
    repository's own .gitignore files say what is ignored, never the user's global ones."""
    listing = ["ls-files", "-z", "--cached"]
    if untracked:
        listing += ["--others", "--exclude-per-directory=.gitignore"]
    output = git(root, *listing)
    return sorted({name for name in output.split("\0") if name and (root / name).exists()})


def trim_toc(toc: dict, keep: set[str]) -> dict:
    """The table of contents without the chapters not in `keep` (and parts left empty)."""
    parts = []
    for part in toc.get("parts", []):
        kept = [entry for entry in part.get("chapters", []) if Path(entry["file"]).name in keep]
        if kept:
            parts.append({**part, "chapters": kept})
    return {**toc, "parts": parts}


def build_snapshot(
    stage: str,
    destination: Path,
    root: Path | None = None,
    files: list[str] | None = None,
    modules: dict[str, str] | None = None,
) -> Path:
    """Writes the snapshot of `stage` into `destination` (which must not exist).

    A snapshot is the repository with the chapters up to `stage`, a table of contents to
    match, the package tangled from those chapters and the tests of those stages. `files`
    (the repository's files to choose from) and `modules` (the stage's tangled package) are
    computed when not given.
    """
    root = root or repository_root()
    chapter = chapters_through(stage, root)[-1]
    later = later_stage_ids(chapter, root)
    kept_chapters = {item.path.stem for item in chapters_through(stage, root)}
    for name in tracked_files(root) if files is None else files:
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
    if modules is None:
        modules = tangle(chapters_through(stage, root))
    write_package(modules, destination / "src" / PACKAGE)
    readme = destination / "README.md"
    readme.write_text(
        readme.read_text()
        + f"\n---\n\nThis is the snapshot `{chapter.stage_id}`: the book, the engine and the"
        f" tests as they are at the end of chapter {'.'.join(map(str, chapter.number))}.\n"
    )
    return destination


def git(root: Path, *arguments: str, environment: dict[str, str] | None = None) -> str:
    """Runs git in `root` with the neutral configuration and returns its output."""
    settings = [f"{key}={value}" for key, value in NEUTRAL_GIT_SETTINGS.items()]
    # A repository owned by another user stays usable without the global safe.directory.
    settings.append(f"safe.directory={root}")
    inherited = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return subprocess.run(
        ["git", *(part for setting in settings for part in ("-c", setting)), *arguments],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        env={**inherited, **NEUTRAL_GIT_ENVIRONMENT, **(environment or {})},
    ).stdout.strip()


def has_uncommitted_changes(root: Path) -> bool:
    """Whether a tracked file differs from the commit (untracked files are not snapshotted
    when tagging, so they do not count)."""
    return bool(git(root, "status", "--porcelain", "--untracked-files=no"))


def stage_commits(root: Path) -> list[tuple[str, str]]:
    """Commits every stage's snapshot as a chain (each stage's parent is the one before)
    and returns (stage id, commit) pairs; the same book gives the same commits."""
    if has_uncommitted_changes(root):
        raise RuntimeError("the work tree has uncommitted changes; commit them before tagging")
    committed = tracked_files(root, untracked=False)
    made = []
    parent: str | None = None
    with tempfile.TemporaryDirectory() as scratch:
        for number, (chapter, modules) in enumerate(tangle_stages(chapters(root))):
            snapshot = build_snapshot(
                chapter.stage_id, Path(scratch) / chapter.stage_id, root, committed, modules
            )
            index = {"GIT_INDEX_FILE": str(Path(scratch) / f"{chapter.stage_id}.index")}
            # --force: the snapshot holds only files chosen above, ignored by no rule.
            git(root, f"--work-tree={snapshot}", "add", "--force", "-A", ".", environment=index)
            tree = git(root, "write-tree", environment=index)
            when = f"{FIRST_COMMIT_TIME + 86_400 * number} +0000"
            dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
            message = f"{chapter.stage_id}: the book and engine at the end of this chapter"
            arguments = ["commit-tree", "--no-gpg-sign", tree, "-m", message]
            if parent:
                arguments += ["-p", parent]
            parent = git(root, *arguments, environment={**COMMIT_ENVIRONMENT, **dates})
            made.append((chapter.stage_id, parent))
    return made


def write_stage_tags(root: Path | None = None) -> list[tuple[str, str]]:
    """Points tag `stage-...` at each stage's commit; returns (tag, commit) pairs."""
    root = root or repository_root()
    made = stage_commits(root)
    for tag, commit in made:
        git(root, "tag", "--no-sign", "-f", tag, commit)
    return made


def tagged_commit(root: Path, tag: str) -> str | None:
    """The commit tag `tag` points at, or None if there is no such tag."""
    try:
        return git(root, "rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}")
    except subprocess.CalledProcessError:
        return None


def ensure_stage_tags(root: Path) -> list[str]:
    """Makes the stage tags a clone lacks and checks those it has; returns what it did, in
    sentences. Raises StageTagError naming the tags that point elsewhere."""
    try:
        if git(root, "log", "-1", "--format=%ae") == COMMIT_ENVIRONMENT["GIT_AUTHOR_EMAIL"]:
            return ["stage tags not checked: this checkout is itself a stage snapshot"]
        if has_uncommitted_changes(root):
            return ["stage tags not checked: the work tree has uncommitted changes"]
        commits = stage_commits(root)
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", None) or error
        return [f"stage tags not checked: git failed ({str(detail).strip()})"]
    wrong = []
    made = []
    for tag, commit in commits:
        present = tagged_commit(root, tag)
        if present is None:
            git(root, "tag", "--no-sign", tag, commit)
            made.append(f"made tag {tag} -> {commit[:12]}")
        elif present != commit:
            wrong.append(f"tag {tag} points at {present[:12]}, but the book makes {commit[:12]}")
    if wrong:
        raise StageTagError(
            "\n".join(wrong) + "\n`make tags` moves the stage tags to the commits the book makes."
        )
    if not made:
        return [f"stage tags checked: all {len(commits)} match the book"]
    return [f"made {len(made)} missing stage tags, as `make tags` does:", *made]
