"""The machine's speed that clock matches record (tools/calibrate.py), and the refusal to
resume a clock match on a machine of another speed (tools/elo_matches.py)."""

import json
from pathlib import Path

import pytest

import calibrate
import elo_matches
import quiet

pytestmark = [pytest.mark.stage("stage-07.1-matches"), pytest.mark.tooling]


def test_the_reference_work_is_the_same_in_every_run() -> None:
    pytest.importorskip("sunfish", reason="Sunfish is installed by `make opponents`")
    speed = calibrate.machine_speed(nodes=3_000, repeats=2)
    again = calibrate.machine_speed(nodes=3_000, repeats=1)
    # Sunfish stops at the first step past the nodes asked for, and deterministically:
    # the same work each time, so that only its time tells machines apart.
    assert speed["nodes"] == again["nodes"] >= 3_000
    assert speed["nps"] == pytest.approx(speed["nodes"] / speed["seconds"], rel=1e-3)
    assert speed["reference"].startswith("sunfish ") and speed["repeats"] == 2


def run_with_speed(nps: int) -> quiet.Conditions:
    """A run's conditions on a machine that runs Sunfish at `nps`."""
    conditions = quiet.Conditions("elo_matches", quiet=True, load_before=0.0, load_limit=0.6)
    conditions.speed = {"nps": nps}
    return conditions


def test_a_clock_match_resumes_only_on_a_machine_of_its_speed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "elo-sunfish"
    runs = path.parent / "elo-sunfish.runs.json"
    assert elo_matches.same_machine_as_before(path, run_with_speed(7_000))  # the first run
    quiet.record_run(runs, run_with_speed(19_000), 0)
    assert elo_matches.same_machine_as_before(path, run_with_speed(18_000))  # 6% apart
    assert not elo_matches.same_machine_as_before(path, run_with_speed(7_000))
    assert "7,000" in capsys.readouterr().out
    # Every earlier run counts, in either direction, by the band of no clear difference.
    quiet.record_run(runs, run_with_speed(17_500), 100)
    assert not elo_matches.same_machine_as_before(path, run_with_speed(20_000))  # 1.14
    assert elo_matches.same_machine_as_before(path, run_with_speed(18_500))
    # 0.905 of an earlier speed is inside the band one way round, 1.105 not the other:
    # the check reads the pair as the fastest over the slowest, whichever ran first.
    runs.write_text(json.dumps([{"speed": {"nps": 10_000}}]))
    assert not elo_matches.same_machine_as_before(path, run_with_speed(9_050))
    # Another number of cores, or another reference, is another machine whatever its speed.
    here = run_with_speed(18_500)
    runs.write_text(json.dumps([{"games_before": 0, "cores": here.cores + 1,
                                 "speed": {"nps": 18_500}}]))
    assert not elo_matches.same_machine_as_before(path, here)
    assert "cores here" in capsys.readouterr().out
    runs.write_text(json.dumps([{"games_before": 0, "cores": here.cores + 1, "speed": None}]))
    assert not elo_matches.same_machine_as_before(path, here)  # untimed, still other cores
    here.speed = {"nps": 18_500, "reference": "sunfish 2027.1"}
    runs.write_text(json.dumps([{"games_before": 0, "cores": here.cores,
                                 "speed": {"nps": 18_500, "reference": "sunfish 2026.1"}}]))
    assert not elo_matches.same_machine_as_before(path, here)
    assert "timed with sunfish 2027.1 here, with sunfish 2026.1 before" in (
        capsys.readouterr().out)
    # Another processor at a speed within the band is still another machine.
    here = run_with_speed(18_500)
    runs.write_text(json.dumps([{"games_before": 0, "cores": here.cores,
                                 "cpu": f"not {here.cpu}", "speed": {"nps": 18_500}}]))
    assert not elo_matches.same_machine_as_before(path, here)
    assert f"{here.cpu} here, not {here.cpu} before" in capsys.readouterr().out
    # Earlier runs that recorded neither cores nor a reference are judged by speed alone.
    runs.write_text(json.dumps([{"games_before": 0, "speed": {"nps": 18_000}}]))
    assert elo_matches.same_machine_as_before(path, here)
    # A match begun before runs were measured has nothing to compare with.
    runs.write_text('[{"games_before": 0, "speed": null}]')
    assert elo_matches.same_machine_as_before(path, run_with_speed(7_000))


def test_a_match_may_move_to_another_processor_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    path = unfinished / "elo-level"
    here = run_with_speed(18_500)
    here.cpu = "Processor B"
    (unfinished / "elo-level.runs.json").write_text(json.dumps(
        [{"cpu": "Processor A", "cores": here.cores, "speed": {"nps": 22_000}}]))
    assert not elo_matches.same_machine_as_before(path, here)
    assert "Processor B here, Processor A before" in capsys.readouterr().out
    # Asked to, it judges the machine by the stage's runs on this processor: none yet, so
    # nothing to compare with (as at a match's first run) ...
    assert elo_matches.same_machine_as_before(path, here, another_processor=True)
    # ... then it must be alike to one of the stage's timings on it, finished or under way.
    (tmp_path / "elo-finished.json").write_text(json.dumps({"runs": [
        {"cpu": "Processor B", "cores": here.cores, "speed": {"nps": 21_000}},
        {"cpu": "Processor A", "cores": here.cores, "speed": {"nps": 30_000}}]}))
    assert not elo_matches.same_machine_as_before(path, here, another_processor=True)
    assert ("at 18,500 nodes a second here, unlike every timing on Processor B in this stage "
            "(21,000 to 21,000)") in capsys.readouterr().out
    (unfinished / "elo-other.runs.json").write_text(json.dumps(
        [{"cpu": "Processor B", "cores": here.cores, "speed": {"nps": 17_500}}]))
    assert elo_matches.same_machine_as_before(path, here, another_processor=True)
    # A busy machine is still refused: 15,500 lies outside the band beside both.
    here.speed = {"nps": 15_500}
    assert not elo_matches.same_machine_as_before(path, here, another_processor=True)
    # Once the match has run on this processor, its runs there are held to the usual check
    # among themselves: 17,600 is alike to 17,500 elsewhere, not to this match's 19,500.
    runs = json.loads((unfinished / "elo-level.runs.json").read_text())
    runs.append({"cpu": "Processor B", "cores": here.cores, "speed": {"nps": 19_500}})
    (unfinished / "elo-level.runs.json").write_text(json.dumps(runs))
    here.speed = {"nps": 17_600}
    assert not elo_matches.same_machine_as_before(path, here, another_processor=True)
    assert "at 17,600 nodes a second here, at 19,500 before" in capsys.readouterr().out
    here.speed = {"nps": 18_500}
    assert elo_matches.same_machine_as_before(path, here, another_processor=True)
    # The other checks stay: this processor's runs with other cores are another machine.
    here.cores += 1
    assert not elo_matches.same_machine_as_before(path, here, another_processor=True)
    assert "cores here" in capsys.readouterr().out


def test_a_refused_start_is_kept_with_its_timing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(calibrate, "machine_speed", lambda: {"nps": 15_000})
    path = tmp_path / "elo-x"
    runs_path, refused = tmp_path / "elo-x.runs.json", elo_matches.refused_path(path)
    assert refused == tmp_path / "elo-x.refused.json"
    (tmp_path / "elo-x.journal.jsonl").write_text('{"journal": {}}\n{"index": 0}\n')
    quiet.record_run(runs_path, run_with_speed(19_000), 0)
    # 19,000 over 15,000 lies outside the band: no run begins, and the refusal is kept.
    assert elo_matches.start_run(path, run_with_speed(0), on_clock=True, resume=True) is None
    assert [run["speed"] for run in quiet.previous_runs(runs_path)] == [{"nps": 19_000}]
    [kept] = quiet.previous_runs(refused)
    assert kept["games_before"] == 1 and kept["speed"] == {"nps": 15_000}
    assert quiet.speed_clause({"runs": quiet.previous_runs(runs_path),
                               "refused_runs": [kept]}) == (
        "Sunfish's fixed search ran at 19,000 nodes a second there (tools/calibrate.py); 1 "
        "start was refused by the check of the machine (timed at 15,000 nodes a second) and "
        "played nothing")
    # A refusal is told even where no run was timed (a match begun before the timings).
    assert quiet.speed_clause({"runs": [{"speed": None}], "refused_runs": [kept, kept]}) == (
        "2 starts were refused by the check of the machine (timed at 15,000 nodes a second) "
        "and played nothing")
    # A second refusal adds to the first; a match started afresh forgets them with its runs.
    elo_matches.start_run(path, run_with_speed(0), on_clock=True, resume=True)
    assert len(quiet.previous_runs(refused)) == 2
    started = elo_matches.start_run(path, run_with_speed(0), on_clock=True, resume=False)
    assert started is not None and len(started) == 1 and not refused.exists()


def test_the_games_a_journal_holds(tmp_path: Path) -> None:
    path = tmp_path / "elo-x"
    assert elo_matches.games_in_journal(path) == 0
    (tmp_path / "elo-x.journal.jsonl").write_text(
        '{"journal": {}}\n{"index": 0}\n{"index": 1}\n{"index": 2, "pg')  # cut short
    assert elo_matches.games_in_journal(path) == 2


def test_a_finished_clock_match_times_the_machine_again_at_its_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(calibrate, "machine_speed", lambda: {"nps": 15_000})
    finished = run_with_speed(19_000)
    elo_matches.end_run(finished, on_clock=True, completed=True)
    assert finished.speed_after == {"nps": 15_000} and finished.speed == {"nps": 19_000}
    # The record shows the drift: 19,000 over 15,000 lies outside the band.
    assert "NOT alike" in quiet.speed_clause({"conditions": finished.record()})
    stopped, on_nodes = run_with_speed(19_000), run_with_speed(19_000)
    elo_matches.end_run(stopped, on_clock=True, completed=False)  # its session ended
    elo_matches.end_run(on_nodes, on_clock=False, completed=True)  # fixed nodes: no clock
    assert stopped.speed_after is None and on_nodes.speed_after is None
