"""The timing hygiene of the measuring tools: one at a time, on a quiet machine, on record."""

import argparse
import json
import subprocess
import sys
import textwrap
import time
import timeit
from pathlib import Path

import pytest

import quiet

pytestmark = [pytest.mark.stage("stage-03-legal"), pytest.mark.tooling]

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def options(*arguments: str) -> argparse.Namespace:
    """The shared options of a measuring tool, parsed from `arguments`."""
    parser = argparse.ArgumentParser()
    quiet.add_arguments(parser)
    return parser.parse_args(list(arguments))


def no_pause(_seconds: float) -> None:
    """A pause that takes no time (the tests fake the waiting)."""


def test_the_lock_excludes_a_second_measurement(tmp_path: Path) -> None:
    lock = tmp_path / "measure.lock"
    # The second measurement runs in another process, as it would in real use.
    second = textwrap.dedent(f"""
        import argparse, sys
        sys.path.insert(0, {str(TOOLS)!r})
        import quiet
        options = argparse.Namespace(wait=False, allow_load=True)
        with quiet.measurement(options, "second", lock_path=quiet.Path({str(lock)!r})):
            print("measured")
    """)
    with quiet.measurement(options("--allow-load"), "first", lock_path=lock):
        blocked = subprocess.run([sys.executable, "-c", second], capture_output=True, text=True,
                                 timeout=60)
    assert blocked.returncode != 0 and "measured" not in blocked.stdout
    assert "another measurement is running" in blocked.stderr
    assert "first" in blocked.stderr  # the message names the holder
    free = subprocess.run([sys.executable, "-c", second], capture_output=True, text=True,
                          timeout=60)
    assert free.returncode == 0 and "measured" in free.stdout


def test_wait_waits_for_the_holder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lock = tmp_path / "measure.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import fcntl, sys, time
            with open({str(lock)!r}, "a+") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                handle.write("the holder\\n"); handle.flush()
                print("locked", flush=True)
                sys.stdin.readline()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    pauses: list[float] = []

    def release_on_first_pause(seconds: float) -> None:
        pauses.append(seconds)
        if holder.stdin is not None and not holder.stdin.closed:
            holder.stdin.close()
            holder.wait(timeout=10)

    with quiet.measurement(options("--wait"), "waiter", lock_path=lock, load=lambda: 0.0,
                           pause=release_on_first_pause) as conditions:
        assert conditions.quiet
    assert pauses == [quiet.WAIT_STEP]


def test_a_busy_machine_is_refused(tmp_path: Path) -> None:
    busy = quiet.measurement(options(), "busy", lock_path=tmp_path / "lock", load=lambda: 99.0)
    with pytest.raises(SystemExit) as refusal, busy:
        pytest.fail("the measurement must not start on a busy machine")
    assert "the machine is busy" in str(refusal.value) and "--allow-load" in str(refusal.value)


def test_allow_load_measures_and_says_not_quiet(tmp_path: Path) -> None:
    loads = iter([99.0, 42.0])
    with quiet.measurement(options("--allow-load"), "busy", lock_path=tmp_path / "lock",
                           load=lambda: next(loads)) as conditions:
        assert not conditions.quiet
    record = conditions.record()
    assert record["quiet"] is False
    assert (record["load_before"], record["load_after"]) == (99.0, 42.0)


def test_wait_waits_for_the_load_to_fall(tmp_path: Path) -> None:
    loads = iter([5.0, 3.0, 0.0, 0.5])
    pauses: list[float] = []
    with quiet.measurement(options("--wait"), "patient", lock_path=tmp_path / "lock",
                           load=lambda: next(loads), pause=pauses.append) as conditions:
        pass
    assert len(pauses) == 2 and conditions.quiet and conditions.load_before == 0.0


def test_conditions_are_recorded(tmp_path: Path) -> None:
    loads = iter([0.0, 1.25])
    with quiet.measurement(options(), "recorder", lock_path=tmp_path / "lock",
                           load=lambda: next(loads)) as conditions:
        assert conditions.load_after is None  # filled in when the measurement ends
    record = json.loads(json.dumps(conditions.record()))
    assert record["quiet"] is True and record["tool"] == "recorder"
    assert record["load_before"] == 0.0 and record["load_after"] == 1.25
    assert record["cores"] >= 1 and record["cpu"] and record["python"].startswith("CPython")
    assert record["load_limit"] == round(quiet.LOAD_LIMIT_PER_CORE * record["cores"], 2)
    assert record["started"].endswith("UTC") and record["finished"].endswith("UTC")


def test_interleaving_alternates_the_order() -> None:
    assert list(quiet.interleaved(["a", "b", "c"], 3)) == list("abccbaabc")


def test_describe_names_the_conditions(tmp_path: Path) -> None:
    loads = iter([0.1, 0.9])
    with quiet.measurement(options(), "described", lock_path=tmp_path / "lock",
                           load=lambda: next(loads)) as conditions:
        pass
    sentence = quiet.describe({"conditions": conditions.record()})
    assert "load average 0.1 before and 0.9 after" in sentence
    assert "a quiet machine" in sentence and conditions.cpu in sentence
    assert "Sunfish" not in sentence  # a run that did not measure the machine's speed
    conditions.speed = {"nps": 18_715}
    assert quiet.describe({"conditions": conditions.record()}).endswith(
        " Sunfish's fixed search ran at 18,715 nodes a second there (tools/calibrate.py).")
    older = {"machine": {"date": "2026-11-29", "cpu_count": 2, "python": "3.11.7"}}
    assert "not checked for a quiet machine" in quiet.describe(older)


def test_describe_build_names_the_load_and_says_unchecked() -> None:
    sentence = quiet.describe_build(0.25, load=lambda: 1.5)
    assert "load average 0.25 before and 1.50 after" in sentence
    assert "not checked for a quiet machine" in sentence and quiet.cpu_model() in sentence


def test_describe_build_says_what_the_chapter_shows() -> None:
    assert quiet.BUILD_TIMING_SHOWS + "." in quiet.describe_build(0.25, load=lambda: 1.5)
    sentence = quiet.describe_build(0.25, load=lambda: 1.5, shows="shares of one run")
    assert sentence.endswith("the chapter shows shares of one run.")


def test_calibrated_number_aims_a_sample_at_the_time_asked() -> None:
    # Each run sleeps 2 ms, so 0.05 s is about 25 runs; sleeping only ever overshoots, so
    # the calibration can only ask for fewer (a loaded machine sleeps longer: room for that).
    number = quiet.calibrated_number(timeit.Timer(lambda: time.sleep(0.002)), 0.05)
    assert 5 <= number <= 25


@pytest.mark.parametrize("ratio, side", [
    (0.5, "below"), (0.89, "below"), (0.9, "inside"), (1.0, "inside"), (1.1, "inside"),
    (1.11, "above"), (3.0, "above"),
])
def test_band_reads_a_ratio_against_the_band_of_no_clear_difference(ratio: float,
                                                                    side: str) -> None:
    assert quiet.NO_CLEAR_DIFFERENCE == (0.9, 1.1)  # the edges the cases above sit on
    assert quiet.band(ratio) == side


def conditions_with_speed(nps: int | None) -> quiet.Conditions:
    """A run's conditions whose machine ran Sunfish at `nps` (None: not measured)."""
    conditions = quiet.Conditions("a match", quiet=True, load_before=0.0, load_limit=0.6)
    conditions.speed = None if nps is None else {"nps": nps}
    return conditions


def test_speeds_are_read_from_the_runs_or_else_the_conditions() -> None:
    runs = [conditions_with_speed(nps).record() for nps in (12_000, None, 10_000, 11_000)]
    assert quiet.run_speeds({"runs": runs}) == [12_000, 10_000, 11_000]
    assert quiet.run_speeds({"conditions": runs[0]}) == [12_000]
    assert quiet.run_speeds({"conditions": runs[1], "runs": None}) == []
    assert quiet.run_count({"runs": runs}) == 4 and quiet.run_count({"conditions": {}}) == 1
    # A first recorded run that found games played had a run before it, unrecorded.
    assert quiet.run_count({"runs": [{"games_before": 120}]}) == 2
    # Alike or not, whichever order: 0.905 is inside the band, 1/0.905 is not.
    assert quiet.speeds_alike([10_000, 11_000]) and quiet.speeds_alike([11_000, 10_000])
    assert not quiet.speeds_alike([9_050, 10_000]) and not quiet.speeds_alike([10_000, 9_050])


def test_each_run_of_a_match_is_kept_with_the_games_it_found(tmp_path: Path) -> None:
    path = tmp_path / "elo-x.runs.json"
    assert quiet.previous_runs(path) == []
    quiet.record_run(path, conditions_with_speed(19_000), 0)
    runs = quiet.record_run(path, conditions_with_speed(7_000), 120)
    assert [run["games_before"] for run in runs] == [0, 120]
    assert [run["speed"]["nps"] for run in quiet.previous_runs(path)] == [19_000, 7_000]
    # A chapter's sentence on the match names the runs and whether their machines agree.
    sentence = quiet.describe({"conditions": runs[-1], "runs": runs})
    assert sentence.endswith(" Sunfish's fixed search ran at 7,000 to 19,000 nodes a second "
                             "there (tools/calibrate.py), over 2 runs, each timed at its "
                             "start: NOT alike, by the band of no clear difference.")
    runs[0]["speed"] = None
    assert quiet.describe({"conditions": runs[-1], "runs": runs}).endswith(
        "ran at 7,000 nodes a second there (tools/calibrate.py), over 2 runs, 1 of them "
        "timed at its start.")


def test_a_run_timed_at_its_end_too_shows_a_machine_that_changed_speed() -> None:
    conditions = conditions_with_speed(19_000)
    conditions.speed_after = {"nps": 15_000}
    record = {"conditions": conditions.record()}
    assert quiet.run_speeds(record) == [19_000, 15_000] and quiet.timed_runs(record) == 1
    # The order says which way the machine went.
    assert quiet.speed_clause(record) == (
        "Sunfish's fixed search ran at 19,000 nodes a second there at the match's start and "
        "15,000 at its end (tools/calibrate.py): NOT alike, by the band of no clear "
        "difference")
    conditions.speed_after = {"nps": 18_000}
    assert quiet.speed_clause({"conditions": conditions.record()}).endswith(
        "start and 18,000 at its end (tools/calibrate.py): alike, by the band of no clear "
        "difference")
    # Two runs as the tools leave them: only the run that finished the match was timed at
    # its end (the first stopped with its session).
    runs = [conditions_with_speed(18_500).record(), conditions.record()]
    assert quiet.run_speeds({"runs": runs}) == [18_500, 19_000, 18_000]
    assert quiet.timed_runs({"runs": runs}) == 2
    assert quiet.speed_clause({"runs": runs}) == (
        "Sunfish's fixed search ran at 18,000 to 19,000 nodes a second there "
        "(tools/calibrate.py), over 2 runs, each timed at its start, the last also at its "
        "end: alike, by the band of no clear difference")
    # An untimed first run (from before the calibration): one of two timed at its start.
    runs[0]["speed"] = None
    assert quiet.speed_clause({"runs": runs}).endswith(
        "over 2 runs, 1 of them timed at its start, the last also at its end: alike, by the "
        "band of no clear difference")
