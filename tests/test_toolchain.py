"""The toolchain installs the same way next year: the lock, the Makefile, the stage tags."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from sphinx.util.matching import Matcher

from literate.book import chapters, chapters_through, repository_root
from literate.tangle import tangle, tangle_stages

pytestmark = [pytest.mark.stage("stage-01-board"), pytest.mark.tooling]

ROOT = repository_root(Path(__file__))
LOCK = ROOT / "requirements" / "constraints.txt"
LOCKED_EXTRAS = ("test", "cluster")
# The packages whose internals the book's tools use (conftest.py, the tangler, the build).
BOUNDED = ("nbval", "jupytext", "myst-nb", "sphinx-mathjax-offline")
# The lock is for Python 3.11 on Linux: requirements with other markers do not apply.
TARGET = {"python_version": "3.11", "python_full_version": "3.11.0", "sys_platform": "linux"}
GIT_TIMEOUT = 120


def is_git_clone(folder: Path) -> bool:
    """Whether `folder` is the top of a git work tree (a snapshot folder is not)."""
    result = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=GIT_TIMEOUT,
    )
    return result.returncode == 0 and Path(result.stdout.strip()).resolve() == folder.resolve()


needs_git_clone = pytest.mark.skipif(
    not is_git_clone(ROOT), reason="the book is not a git clone here (a snapshot folder)"
)


def project() -> dict:
    """pyproject.toml, read."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def locked_versions() -> dict[str, str]:
    """The pins of the lock: package name (normalized) to version."""
    pins = {}
    for line in LOCK.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line)
        if match:
            pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


def extra_requirements(extras: tuple[str, ...]) -> list[Requirement]:
    """The requirements of the project with these extras, following the extras that name
    the project itself (`cb2026[book]`)."""
    metadata = project()["project"]
    optional = metadata["optional-dependencies"]
    requirements = [Requirement(text) for text in metadata["dependencies"]]
    pending, seen = list(extras), set()
    while pending:
        extra = pending.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for text in optional[extra]:
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) == canonicalize_name(metadata["name"]):
                pending.extend(requirement.extras)
            else:
                requirements.append(requirement)
    return requirements


def test_every_requirement_of_the_locked_extras_is_pinned_in_the_lock() -> None:
    pins = locked_versions()
    requirements = extra_requirements(LOCKED_EXTRAS) + [
        Requirement(text) for text in project()["build-system"]["requires"]
    ]
    applicable = [r for r in requirements if r.marker is None or r.marker.evaluate(TARGET)]
    unpinned = [str(r) for r in applicable if canonicalize_name(r.name) not in pins]
    assert not unpinned, f"not in {LOCK.name}: {unpinned}; refresh the lock (README)"
    outside = [
        f"{r} (locked {pins[canonicalize_name(r.name)]})"
        for r in applicable
        if not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)
    ]
    assert not outside, f"the lock disagrees with pyproject.toml: {outside}"


def test_the_lock_says_how_it_was_made_for_the_extras_python_and_platform() -> None:
    header = " ".join(LOCK.read_text().splitlines()[:3])
    assert "uv pip compile pyproject.toml" in header
    for option in [f"--extra {extra}" for extra in LOCKED_EXTRAS] + [
        "--python-version 3.11",
        "--python-platform linux",
    ]:
        assert option in header


def test_ruff_is_pinned_exactly_and_the_plugins_libraries_are_bounded() -> None:
    requirements = {canonicalize_name(r.name): r for r in extra_requirements(LOCKED_EXTRAS)}
    (ruff,) = requirements["ruff"].specifier
    assert ruff.operator == "==" and ruff.version == locked_versions()["ruff"]
    for name in BOUNDED:
        operators = {clause.operator for clause in requirements[name].specifier}
        assert operators & {"<", "<=", "~=", "=="}, f"{name} has no upper bound"


def make_copy(tmp_path: Path) -> Path:
    """A scratch folder with the Makefile and the files its install step reads."""
    copy = tmp_path / "project"
    (copy / "requirements").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml", "requirements/constraints.txt"):
        shutil.copy(ROOT / name, copy / name)
    return copy


def plain_make_environment() -> dict[str, str]:
    """This process's environment without what an outer `make` (such as `make test`) passes
    down, so that the make run by a test prints the same as one typed at a prompt."""
    inherited = {"MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES"}
    return {name: value for name, value in os.environ.items() if name not in inherited}


def dry_run(copy: Path, *arguments: str) -> subprocess.CompletedProcess:
    """`make -n` in the copy: the commands make would run, run by none."""
    return subprocess.run(
        ["make", "-n", "--no-print-directory", *arguments], cwd=copy, capture_output=True,
        text=True, timeout=60, env=plain_make_environment(),
    )


def test_the_install_step_uses_the_lock_and_reruns_when_the_lock_changes(
    tmp_path: Path,
) -> None:
    copy = make_copy(tmp_path)
    first = dry_run(copy, "test").stdout
    assert "-c requirements/constraints.txt" in first
    assert "--build-constraint requirements/constraints.txt" in first
    assert first.index("tags --ensure") < first.index("-m pytest")
    # Pretend the install happened: the stamp make names for these files.
    stamp = re.search(r"touch (\.venv/\.installed-\S+)", first).group(1)
    (copy / stamp).parent.mkdir()
    (copy / stamp).touch()
    assert "pip install" not in dry_run(copy, "test").stdout
    with (copy / "requirements" / "constraints.txt").open("a") as lock:
        lock.write("# changed\n")
    assert "pip install" in dry_run(copy, "test").stdout


# `python -m venv` without ensurepip (Debian's python3 without the python3-venv package):
# upstream Python's error, or a venv whose python has no pip. Every other use of the fake
# python runs the real one.
FAKE_PYTHON = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin"
    {failure}
fi
exec {python} "$@"
"""
NO_PIP = "#!/bin/sh\necho 'No module named pip' >&2\nexit 1\n"
FAILURES = {
    "ensurepip fails": "echo \"Error: Command '[$3/bin/python3, -m, ensurepip]' returned"
    ' non-zero exit status 1." >&2; exit 1',
    "no pip": f"printf \"{NO_PIP}\" > \"$3/bin/python\"; chmod +x \"$3/bin/python\"; exit 0",
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_a_venv_without_pip_stops_make_with_the_fix(tmp_path: Path, failure: str) -> None:
    copy = make_copy(tmp_path)
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON.format(failure=FAILURES[failure], python=sys.executable))
    fake.chmod(0o755)
    result = subprocess.run(
        ["make", "--no-print-directory", "lint", f"PYTHON={fake}"], cwd=copy,
        capture_output=True, text=True, timeout=60, env=plain_make_environment(),
    )
    assert result.returncode != 0
    assert "apt-get install python3-venv" in result.stderr
    assert "pip install" not in result.stdout


@needs_git_clone
def test_notebooks_made_from_chapters_are_ignored_by_git_and_the_book() -> None:
    notebook = "book/chapters/stage-01-board.ipynb"
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", notebook], cwd=ROOT, timeout=GIT_TIMEOUT
    )
    assert ignored.returncode == 0
    config = yaml.safe_load((ROOT / "book" / "_config.yml").read_text())
    excluded = Matcher(config["exclude_patterns"])
    assert excluded("chapters/stage-01-board.ipynb")
    assert not excluded("chapters/stage-01-board.md")


@pytest.mark.slow
def test_tangling_the_stages_in_one_pass_gives_each_stages_package() -> None:
    book = chapters(ROOT)
    staged = dict(tangle_stages(book))
    for chapter in (book[0], book[len(book) // 2], book[-1]):
        assert staged[chapter] == tangle(chapters_through(chapter.stage_id, ROOT))


# ---- the stage tags, in a scratch clone ------------------------------------------------


def clean_environment(home: Path) -> dict[str, str]:
    """The environment with `home` as HOME and no git variables or XDG config folder."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") and key != "XDG_CONFIG_HOME"
    }
    home.mkdir(parents=True, exist_ok=True)
    return {**environment, "HOME": str(home), "PYTHONPATH": str(ROOT / "tools")}


def hostile_environment(home: Path) -> dict[str, str]:
    """A user's git configuration that would change the snapshots or stop the tagging: a
    global ignore of `*.py` and `book/`, signing with a failing gpg, line-ending conversion,
    a clean filter that changes every .py file, a legacy commit encoding."""
    environment = clean_environment(home)
    (home / "ignore").write_text("*.py\nbook/\n")
    (home / "attributes").write_text("*.py filter=shout\n* text=auto eol=crlf\n")
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("tests/\n")
    (home / ".gitconfig").write_text(
        "[core]\n\texcludesFile = ~/ignore\n\tattributesFile = ~/attributes\n"
        "\tautocrlf = true\n\tfileMode = false\n"
        "[commit]\n\tgpgSign = true\n[tag]\n\tgpgSign = true\n"
        "[gpg]\n\tprogram = false\n[user]\n\tsigningKey = nobody\n"
        "[filter \"shout\"]\n\tclean = tr a-z A-Z\n"
        "[i18n]\n\tcommitEncoding = ISO-8859-1\n"
    )
    return {**environment, "GIT_CONFIG_GLOBAL": str(home / ".gitconfig")}


def literate(clone: Path, environment: dict[str, str], *arguments: str):
    """Runs `python -m literate` (this checkout's tools) in the clone."""
    return subprocess.run(
        [sys.executable, "-m", "literate", *arguments],
        cwd=clone,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def stage_tags(clone: Path) -> dict[str, str]:
    """The clone's stage tags and the commits they point at."""
    output = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/tags/stage-*"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
        timeout=GIT_TIMEOUT,
    ).stdout
    return dict(line.split() for line in output.splitlines())


def fresh_clone(source: Path, destination: Path, environment: dict[str, str]) -> Path:
    """A clone of `source`'s commit without its tags, with a reader's commit on top (so
    that it is not a stage snapshot even when this checkout is one)."""
    subprocess.run(
        ["git", "clone", "--quiet", "--no-tags", str(source), str(destination)],
        env=environment,
        check=True,
        timeout=GIT_TIMEOUT,
    )
    subprocess.run(
        ["git", "-c", "user.name=reader", "-c", "user.email=reader@example.invalid"]
        + ["commit", "--quiet", "--allow-empty", "--no-gpg-sign", "-m", "a reader's commit"],
        cwd=destination,
        env=environment,
        check=True,
        timeout=GIT_TIMEOUT,
    )
    return destination


@pytest.fixture(scope="module")
def book_tags(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A scratch clone of this repository's commit without tags, and the tags `literate
    tags` makes there under a clean git configuration."""
    scratch = tmp_path_factory.mktemp("tags")
    environment = clean_environment(scratch / "clean-home")
    clone = fresh_clone(ROOT, scratch / "clone", environment)
    made = literate(clone, environment, "tags")
    assert made.returncode == 0, made.stderr
    tags = stage_tags(clone)
    assert sorted(tags) == sorted(chapter.stage_id for chapter in chapters(clone))
    return clone, tags


@needs_git_clone
@pytest.mark.slow
def test_tag_commits_do_not_depend_on_the_users_git_configuration(
    book_tags: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    clone, expected = book_tags
    environment = hostile_environment(tmp_path / "home")
    other = fresh_clone(clone, tmp_path / "other", clean_environment(tmp_path / "clean"))
    made = literate(other, environment, "tags")
    assert made.returncode == 0, made.stderr
    assert stage_tags(other) == expected


@needs_git_clone
@pytest.mark.slow
def test_ensure_makes_missing_tags_and_checks_existing_ones(
    book_tags: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    clone, expected = book_tags
    environment = clean_environment(tmp_path / "home")
    other = fresh_clone(clone, tmp_path / "other", environment)
    made = literate(other, environment, "tags", "--ensure")
    assert made.returncode == 0, made.stderr
    assert f"made {len(expected)} missing stage tags" in made.stdout
    assert stage_tags(other) == expected

    checked = literate(other, environment, "tags", "--ensure")
    assert checked.returncode == 0, checked.stderr
    assert f"all {len(expected)} match the book" in checked.stdout

    first, second = sorted(expected)[:2]
    subprocess.run(["git", "tag", "-f", second, first], cwd=other, check=True, timeout=60)
    wrong = literate(other, environment, "tags", "--ensure")
    assert wrong.returncode == 1
    assert f"tag {second} points at" in wrong.stderr and "`make tags`" in wrong.stderr

    readme = (other / "README.md").read_text()
    (other / "README.md").write_text("changed\n")
    dirty = literate(other, environment, "tags", "--ensure")
    assert dirty.returncode == 0, dirty.stderr
    assert "not checked: the work tree has uncommitted changes" in dirty.stdout
    (other / "README.md").write_text(readme)

    # A reader's `git checkout stage-...`: that snapshot's own book makes no such tags.
    subprocess.run(["git", "checkout", "-q", first], cwd=other, check=True, timeout=60)
    snapshot = literate(other, environment, "tags", "--ensure")
    assert snapshot.returncode == 0, snapshot.stderr
    assert "this checkout is itself a stage snapshot" in snapshot.stdout
