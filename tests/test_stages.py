"""Every stage's snapshot, built from the book, passes the engine tests it holds.

`make test` builds no snapshot (`--snapshots=none`, the default): it tests the newest engine
(src/) with every test, and runs every chapter against the engine of its own stage
(book/chapters/bookstage.py), which is that stage's snapshot package, tangled from the same
chapters; so each chapter has run against its own package before any snapshot is built. The
snapshots are the job of `make test-stages` (`--snapshots=all`, which CI runs): each snapshot
runs every engine test it holds, slow ones included, so that each stage's engine is checked
by its own tests and by every earlier stage's, as a reader who checks out its tag would run
them. The newest snapshot is skipped: its package is src/ (literate check keeps them equal)
and its tree is the repository's, so `make test` has run all of it. The cost grows with
every stage, which is why it is not part of `make test`, and why `make test-stages` runs the
snapshots side by side on the machine's cores, the longest first. `--snapshots=own` runs
only the engine tests declared for each snapshot's own stage. Tests of the book's tooling
(`pytest.mark.tooling`) are the same files in every snapshot, so only the main run has
them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from literate.book import chapters, repository_root
from literate.stages import build_snapshot, trim_toc
from literate.stages import test_file_stage as declared_stage

pytestmark = [pytest.mark.stage("stage-01-board"), pytest.mark.tooling]

ROOT = repository_root(Path(__file__))
# A whole cumulative snapshot run takes a few minutes on two cores; a hang fails long before
# the per-test timeout of conftest.py would end the outer test.
SNAPSHOT_TIMEOUT_SECONDS = 1500


def test_the_toc_of_a_snapshot_keeps_only_its_chapters() -> None:
    toc = {
        "root": "intro",
        "parts": [
            {"caption": "I", "chapters": [{"file": "chapters/stage-01-a"}]},
            {"caption": "II", "chapters": [{"file": "chapters/stage-05-b"}]},
        ],
    }
    trimmed = trim_toc(toc, {"stage-01-a"})
    assert trimmed["parts"] == [{"caption": "I", "chapters": [{"file": "chapters/stage-01-a"}]}]


def own_test_files(snapshot: Path, stage: str) -> list[str]:
    """The snapshot's test modules that declare `stage` as their own."""
    return sorted(
        f"tests/{path.name}"
        for path in (snapshot / "tests").glob("test_*.py")
        if declared_stage(path) == stage
    )


def snapshot_pytest_arguments(snapshot: Path, stage: str, scope: str) -> list[str]:
    """What the snapshot's own pytest runs: its stage's engine tests (none: nothing to run),
    or (scope "all") every engine test it holds."""
    # The tools are the same files in every snapshot; the main run tests them once.
    if scope == "all":
        # The snapshot's own copy of this module would build snapshots again.
        return ["tests", "--ignore=tests/test_stages.py", "-m", "not tooling"]
    own = own_test_files(snapshot, stage)
    # Without test files, pytest would run every test it finds: an empty list says skip.
    return [*own, "-m", "not slow and not tooling"] if own else []


def test_own_test_files_are_those_declaring_the_stage(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text('pytestmark = pytest.mark.stage("s-1")\n')
    (tmp_path / "tests" / "test_b.py").write_text('pytestmark = pytest.mark.stage("s-2")\n')
    assert own_test_files(tmp_path, "s-2") == ["tests/test_b.py"]
    arguments = snapshot_pytest_arguments(tmp_path, "s-2", "own")
    assert arguments[0] == "tests/test_b.py" and "book/chapters/s-2.md" not in arguments
    assert snapshot_pytest_arguments(tmp_path, "s-3", "own") == []
    assert snapshot_pytest_arguments(tmp_path, "s-2", "all")[0] == "tests"


@pytest.mark.slow
@pytest.mark.parametrize(
    "stage",
    # Each snapshot test belongs to its stage, so `--stage N` builds snapshots up to N. Newest
    # first: later snapshots hold more tests, and starting the longest runs first lets the
    # workers of `make test-stages` finish together.
    [pytest.param(c.stage_id, marks=pytest.mark.stage(c.stage_id))
     for c in reversed(chapters(ROOT))],
)
def test_the_snapshot_passes_its_tests(
    stage: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    scope = request.config.getoption("--snapshots")
    if scope == "none":
        pytest.skip("the stage snapshots are run by make test-stages (--snapshots=all)")
    if stage == chapters(ROOT)[-1].stage_id:
        # The newest snapshot is src/ itself (literate check keeps them equal) in the
        # repository's own tree, whose tests and chapters the main run has: running them
        # again would only cost time.
        pytest.skip(f"{stage} is the newest stage: make test runs its tests and chapter")
    snapshot = build_snapshot(stage, tmp_path / stage, ROOT)
    own_chapters = sorted(path.stem for path in (snapshot / "book" / "chapters").glob("stage-*.md"))
    assert own_chapters[-1] == stage
    arguments = snapshot_pytest_arguments(snapshot, stage, scope)
    if not arguments:
        pytest.skip(f"{stage} declares no engine tests of its own")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--stage", stage]
    result = subprocess.run(
        command + arguments,
        cwd=snapshot,
        capture_output=True,
        text=True,
        timeout=SNAPSHOT_TIMEOUT_SECONDS,
    )
    if result.returncode == pytest.ExitCode.NO_TESTS_COLLECTED:
        # Every engine test of the stage is slow (make test-stages runs them).
        pytest.skip(f"{stage} has no fast engine tests of its own")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
