"""Which processor played which games of a match moved to another processor
(book/chapters/processorsplit.py), on small hand-made match files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "chapters"))

from processorsplit import (  # noqa: E402
    UNRECORDED,
    games_by_processor,
    games_by_processor_text,
    moved,
    scores_by_processor,
    scores_text,
    timings_by_processor,
)

pytestmark = [pytest.mark.stage("stage-18-rating"), pytest.mark.tooling]

XEON, EPYC = "Intel(R) Xeon(R) Processor", "AMD EPYC"


def run(cpu: str, games_before: int, nps: int) -> dict:
    """A run's record in quiet.record_run's shape, with only what these functions read."""
    return {"cpu": cpu, "games_before": games_before, "speed": {"nps": nps}}


def match_with(runs: list[dict], pair_points: list[float]) -> dict:
    """A finished match with these runs and these pairs' points to cb2026."""
    return {"runs": runs, "games_played": 2 * len(pair_points),
            "pairs": [{"pair": number, "first_engine_points": points}
                      for number, points in enumerate(pair_points, start=1)]}


def test_each_processor_has_the_games_its_runs_played() -> None:
    runs = [run(XEON, 0, 22_000), run(EPYC, 6, 18_900), run(XEON, 8, 21_800)]
    record = {"runs": runs}
    assert games_by_processor(record, 10) == {"Intel Xeon": [1, 2, 3, 4, 5, 6, 9, 10],
                                              "AMD EPYC": [7, 8]}
    assert games_by_processor_text(record, 10) == (
        "6 on Intel Xeon, then 2 on AMD EPYC, then 2 on Intel Xeon")
    assert moved(record) and not moved({"runs": runs[:1]})
    # A run that stopped before its first game adds no games; a match whose first run found
    # games played gives them to no recorded processor.
    assert games_by_processor({"runs": [run(XEON, 0, 1), run(EPYC, 0, 1)]}, 4) == {
        "AMD EPYC": [1, 2, 3, 4]}
    assert games_by_processor({"runs": [run(EPYC, 2, 1)]}, 3) == {UNRECORDED: [1, 2],
                                                                  "AMD EPYC": [3]}


def test_each_processor_has_its_own_timings() -> None:
    record = {"runs": [run(XEON, 0, 22_000), run(XEON, 4, 21_000), run(EPYC, 8, 18_900)],
              "refused_runs": [run(EPYC, 8, 17_000)]}
    assert timings_by_processor(record) == (
        "Sunfish's fixed search ran at 21,000 to 22,000 nodes a second on Intel Xeon "
        "(tools/calibrate.py), over 2 runs, each timed at its start: alike, by the band of no "
        "clear difference; and at 18,900 nodes a second on AMD EPYC; 1 start was refused on "
        "AMD EPYC by the check of the machine (timed at 17,000 nodes a second) and played "
        "nothing")
    # A processor's one run, begun where another stopped and timed again at the match's end.
    last = {**run(EPYC, 8, 18_900), "speed_after": {"nps": 18_700}}
    ended = {"runs": [run(XEON, 0, 22_000), last]}
    assert timings_by_processor(ended) == (
        "Sunfish's fixed search ran at 22,000 nodes a second on Intel Xeon (tools/calibrate.py); "
        "and at 18,900 nodes a second on AMD EPYC at the start of its run and 18,700 at its "
        "end: alike, by the band of no clear difference")


def test_the_scores_on_two_processors_and_their_difference() -> None:
    # 4 pairs on each; one pair split by a run that stopped between its games.
    runs = [run(XEON, 0, 22_000), run(EPYC, 9, 18_900)]
    match = match_with(runs, [1.0, 0.5, 1.0, 1.5, 2.0, 1.0, 0.5, 0.0, 1.0])
    scores, shared = scores_by_processor(match)
    assert shared == 1
    assert [(part.processor, part.games, part.pair_scores) for part in scores] == [
        ("Intel Xeon", 9, [0.5, 0.25, 0.5, 0.75]), ("AMD EPYC", 9, [0.5, 0.25, 0.0, 0.5])]
    # With fewer than ROUGH_PAIRS pairs on a processor the two are not compared.
    assert scores_text(match) == (
        "cb2026 scored 50.0% of the points in 4 pairs on Intel Xeon and 31.2% of the points in "
        "4 pairs on AMD EPYC (and 1 pair split between two processors, counted for neither); "
        "with 4 pairs on Intel Xeon, fewer than 30, the two are not compared.")
    # With enough pairs: alike on both, the difference is not resolved ...
    alike = match_with(runs[:1] + [run(EPYC, 64, 18_900)], [1.0, 0.5, 1.5, 1.0] * 16)
    text = scores_text(alike)
    assert "50.0% of the points in 32 pairs on Intel Xeon and 50.0% of the points in 32 " \
        "pairs on AMD EPYC. cb2026's score on AMD EPYC minus its score on Intel Xeon is +0.0 " \
        "percentage points (95% interval -" in text, text
    assert text.endswith("no difference these games resolve, though they cannot rule out one "
                         "as large as the interval's ends.")
    # ... far apart, it is.
    apart = match_with(runs[:1] + [run(EPYC, 60, 18_900)], [2.0, 1.5] * 15 + [0.0, 0.5] * 15)
    assert "minus its score on Intel Xeon is -75.0 percentage points" in scores_text(apart)
    assert scores_text(apart).endswith("and the rung's result mixes the two processors' games.")
    # One processor: nothing to say.
    assert scores_text(match_with(runs[:1], [1.0, 1.5])) == ""
