"""Every stage's snapshot, built from the book, passes its own tests and runs its chapter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from literate.book import chapters, repository_root
from literate.stages import build_snapshot, trim_toc

pytestmark = pytest.mark.stage("stage-01-board")

ROOT = repository_root(Path(__file__))


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


@pytest.mark.slow
@pytest.mark.parametrize(
    "stage",
    # Each snapshot test belongs to its stage, so `--stage N` builds snapshots up to N.
    [pytest.param(c.stage_id, marks=pytest.mark.stage(c.stage_id)) for c in chapters(ROOT)],
)
def test_the_snapshot_passes_its_tests_and_runs_its_chapter(stage: str, tmp_path: Path) -> None:
    snapshot = build_snapshot(stage, tmp_path / stage, ROOT)
    own_chapters = sorted(path.stem for path in (snapshot / "book" / "chapters").glob("stage-*.md"))
    assert own_chapters[-1] == stage
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests",
            f"book/chapters/{stage}.md",
            # The snapshot's own copy of this test would build snapshots again.
            "--ignore=tests/test_stages.py",
        ],
        cwd=snapshot,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
