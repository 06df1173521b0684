"""The strength chart of the introduction: tools/strength_by_stage.py and the cell that draws it.

The tool's real run plays hundreds of games on a quiet machine; here it plays two games at a
few nodes a move, the plain Python engine against itself, so that a test takes seconds and
passes on a busy machine (a fixed-node match never refuses for load).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import os
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import jupytext
import matplotlib
import pytest

import elo_matches
import strength_by_stage
from cb2026.openings import book_suite
from compile_engine import ENGINE_MODULES, missing_compiler, source_digests
from literate.book import chapters
from literate.stages import package_folder
from strength_by_stage import StagePlan

pytestmark = [pytest.mark.stage("stage-07.1-matches"), pytest.mark.tooling]

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "strength_by_stage.py"
TRIAL = ("--anchor", "self", "--nodes", "50", "--games", "2", "--interpreted")
EARLY_STAGES = ["stage-01-board", "stage-02-moves", "stage-03-legal", "stage-04-zobrist",
                "stage-05-alphabeta", "stage-06-quiescence"]


def run_tool(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """Run the tool with its outputs, journals and lock in `folder`."""
    return subprocess.run(
        [sys.executable, str(TOOL), *arguments, "--output", str(folder / "data"),
         "--work", str(folder / "work"), "--lock", str(folder / "measure.lock")],
        capture_output=True, text=True, timeout=300, check=False,
    )


@pytest.mark.parametrize("arguments", [
    ["--games", "1"],
    ["--nodes", "0"],
    ["--tc", "1+0.01", "--nodes", "100"],
    ["--anchor", "nobody"],
])
def test_bad_arguments_are_refused(arguments: list[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        strength_by_stage.parse_arguments(arguments)
    assert stopped.value.code == 2


def test_the_defaults_are_the_books_measurement() -> None:
    _parser, options = strength_by_stage.parse_arguments([])
    assert (options.anchor, options.tc, options.nodes) == ("sunfish", "5+0.05", None)
    assert options.output == ROOT / "book" / "data" / "strength"
    settings = strength_by_stage.settings(options)
    assert settings["anchor"] == "sunfish" and settings["limits"] == "--tc 5+0.05"
    # Sunfish comes with `make opponents`, not with `make test`'s install.
    if importlib.util.find_spec("sunfish") is None:
        assert settings["anchor_version"] is None
    else:
        assert settings["anchor_version"].startswith("sunfish ")
    assert settings["build"] == ("interpreted" if missing_compiler() else "compiled")
    # Stage 7's match is also chapter 7.1's rating, which needs 400 games; asking overrides.
    assert strength_by_stage.games_for("stage-07-uci", options) == 400
    assert strength_by_stage.games_for("stage-08-tt", options) == 300
    _parser, asked = strength_by_stage.parse_arguments(["--games", "20"])
    assert strength_by_stage.games_for("stage-07-uci", asked) == 20


def test_a_second_anchor_has_its_own_folder_stages_and_games() -> None:
    _parser, options = strength_by_stage.parse_arguments(["--anchor", "stockfish-1800"])
    folder = ROOT / "book" / "data" / "strength" / "stockfish-1800"
    assert (options.output, options.work) == (folder, folder / "unfinished")
    # Stage 7's 400 games are chapter 7.1's rating against Sunfish, not this anchor's.
    assert strength_by_stage.games_for("stage-07-uci", options) == 300
    order = ["stage-05-alphabeta", "stage-07-uci", "stage-08.1-tt-buckets", "stage-09-pvs"]
    plays = {anchor: [stage for stage in order
                      if strength_by_stage.in_anchor_range(anchor, stage)]
             for anchor in ("sunfish", "stockfish-1800", "self")}
    assert plays == {"sunfish": order[:3], "stockfish-1800": order[1:], "self": order}
    # A bound is a stage number, not a chapter: a book that ends before it still plays.
    assert strength_by_stage.in_anchor_range("sunfish", "stage-08-tt")
    # Stockfish has no PyPI version: the name it gives over UCI stands for it, if it runs.
    version = strength_by_stage.settings(options)["anchor_version"]
    if Path(elo_matches.STOCKFISH).exists():
        assert version is not None and version.startswith("Stockfish ")
    else:
        assert version is None


def test_another_build_or_anchor_version_never_shares_a_chart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _parser, options = strength_by_stage.parse_arguments([])
    _parser, interpreted = strength_by_stage.parse_arguments(["--interpreted"])
    assert strength_by_stage.settings(interpreted)["build"] == "interpreted"
    assert strength_by_stage.settings(interpreted) != strength_by_stage.settings(options)
    before = strength_by_stage.settings(options)
    monkeypatch.setattr(strength_by_stage.importlib.metadata, "version", lambda _name: "9999.1")
    after = strength_by_stage.settings(options)
    assert after["anchor_version"] == "sunfish 9999.1" and after != before


def test_an_elo_experiment_may_ask_for_the_plain_python_build(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # tools/elo_matches.py: stage 12's strength matches play the plain Python engine.
    experiments = {experiment.name: experiment
                   for experiment in elo_matches.EXPERIMENTS["stage-12-lmr"]}
    pure = ["sunfish-pure", "stockfish-1350-pure", "stockfish-1500-pure"]
    assert [experiments[name].build for name in pure] == ["interpreted"] * 3
    assert all(experiments[name].limits == ("--tc", "10+0.1") for name in pure)
    assert experiments["sunfish-pure"].games == 400
    assert experiments["lmr"].build == "compiled"  # the default, as for every other stage
    with pytest.raises(ValueError, match="unknown build"):
        elo_matches.build_suffix("fast")

    def compiling(*arguments: object) -> None:
        raise AssertionError("the interpreted build must not be compiled")

    monkeypatch.setattr(elo_matches, "engine_folder", compiling)
    command, build = elo_matches.engine_command("stage-07-uci", "interpreted")
    assert build == "interpreted"
    assert str(package_folder("stage-07-uci", ROOT)) in shlex.split(command)[-1]
    arguments = elo_matches.match_arguments(
        "stage-07-uci", experiments["sunfish-pure"], 2, False, command)
    engines = [arguments[index + 1] for index, word in enumerate(arguments)
               if word == "--engine"]
    assert shlex.split(engines[0]) == [f"cmd={command}", "name=cb2026"]
    assert shlex.split(engines[1]) == [f"cmd={elo_matches.SUNFISH}", "name=sunfish"]


def test_self_play_names_the_second_engine_after_its_options() -> None:
    # tools/elo_matches.py: switches turned off, or another value (chapter 16's Threads 1
    # has threads: one process).
    experiments = {experiment.name: experiment
                   for experiment in elo_matches.EXPERIMENTS["stage-16-parallel"]}
    arguments = elo_matches.match_arguments(
        "stage-16-parallel", experiments["threads-clock"], 2, False, "cb2026")
    engines = [shlex.split(arguments[index + 1]) for index, word in enumerate(arguments)
               if word == "--engine"]
    assert engines == [["cmd=cb2026", "name=cb2026", "option.Threads=2"],
                       ["cmd=cb2026", "name=cb2026-threads-1", "option.Threads=2",
                        "option.Threads=1"]]
    assert elo_matches.self_play_name(
        ("option.PVS=false", "option.Aspiration=false")) == "cb2026-no-pvs-aspiration"
    assert elo_matches.self_play_name(
        ("option.Buckets=false", "option.Hash=1")) == "cb2026-no-buckets-hash-1"


def test_the_tuned_matches_start_past_the_tuning_sets_lines() -> None:
    # tools/elo_matches.py: chapter 13.1's matches play lines of the suite's shuffled order
    # after those its tuning set came from; chapter 18's rungs each play a block of their own
    # from there on; every other match starts at the order's head.
    for stage, experiments in elo_matches.EXPERIMENTS.items():
        for experiment in experiments:
            arguments = elo_matches.match_arguments(stage, experiment, 2, False, "cb2026")
            offset = (int(arguments[arguments.index("--opening-offset") + 1])
                      if "--opening-offset" in arguments else 0)
            assert offset == experiment.opening_offset
            if stage == "stage-13.1-tuning":
                assert offset == elo_matches.TUNING_SET_LINES, experiment.name
            elif stage != "stage-18-rating":
                assert offset == 0, experiment.name
            # The suite holds enough lines past the offset for the match's game pairs.
            assert offset + (experiment.games + 1) // 2 <= len(book_suite()), experiment.name
    # The ladder's blocks: from past the tuning set's lines, consecutive, never overlapping.
    rungs = elo_matches.EXPERIMENTS["stage-18-rating"]
    assert rungs[0].opening_offset >= elo_matches.TUNING_SET_LINES
    for earlier, later in zip(rungs, rungs[1:], strict=False):
        assert later.opening_offset == earlier.opening_offset + (earlier.games + 1) // 2


def test_a_match_resumes_only_with_the_engine_it_started_with(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "unfinished" / "elo-trial"
    path.parent.mkdir()
    first = {"search.py": "aaaa", "tt.py": "bbbb"}
    changed = {"search.py": "cccc", "tt.py": "bbbb"}
    assert elo_matches.same_engine_as_before(path, first, resume=False)
    assert elo_matches.same_engine_as_before(path, first, resume=True)
    assert not elo_matches.same_engine_as_before(path, changed, resume=True)
    assert "search.py" in capsys.readouterr().out
    # A match started afresh takes the new engine's digests.
    assert elo_matches.same_engine_as_before(path, changed, resume=False)
    assert elo_matches.same_engine_as_before(path, changed, resume=True)
    assert elo_matches.started_with_code(path) == changed
    elo_matches.remove_unfinished(path)
    assert not path.parent.exists()
    # A journal begun before matches kept digests: resumed, it records no code.
    path.parent.mkdir()
    (path.parent / f"{path.name}.journal.jsonl").write_text("{}\n")
    assert elo_matches.same_engine_as_before(path, first, resume=True)
    assert elo_matches.started_with_code(path) is None


def test_only_takes_a_stage_that_plays(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    plans = [StagePlan("stage-05-alphabeta", plays=False), StagePlan("stage-07-uci", plays=True)]
    monkeypatch.setattr(strength_by_stage, "plan_stages", lambda through=None: plans)
    with pytest.raises(SystemExit) as stopped:
        strength_by_stage.main(["--only", "stage-05-alphabeta"])
    assert stopped.value.code == 2
    message = "'stage-05-alphabeta' is not a stage that plays against sunfish (stage-07-uci)"
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_the_first_stage_that_plays_is_the_first_that_searches() -> None:
    """Chapters 1 to 6 answer `go` with perft at most; 7.1 adds no engine code to 7."""
    plans = {plan.stage: plan for plan in strength_by_stage.plan_stages()}
    assert [stage for stage, plan in plans.items() if not plan.plays] == EARLY_STAGES
    assert plans["stage-07-uci"] == StagePlan("stage-07-uci", plays=True)
    assert plans["stage-07.1-matches"].same_engine_as == "stage-07-uci"
    # Every later stage plays; chapter 8 (where the book has it) changes the engine.
    assert all(plan.plays for plan in list(plans.values())[len(EARLY_STAGES):])
    if "stage-08-tt" in plans:
        assert plans["stage-08-tt"] == StagePlan("stage-08-tt", plays=True)


def test_data_measured_otherwise_is_started_afresh(tmp_path: Path) -> None:
    path = tmp_path / "by-stage.json"
    measured = {"anchor": "sunfish", "anchor_version": "sunfish 2023.1", "build": "compiled",
                "limits": "--tc 5+0.05"}
    old = {"settings": measured, "stages": [{"stage": "x"}]}
    path.write_text(json.dumps(old))
    assert strength_by_stage.load_data(path, measured) == old
    upgraded = measured | {"anchor_version": "sunfish 2024.1"}
    assert strength_by_stage.load_data(path, upgraded) == {"settings": upgraded, "stages": []}


@pytest.mark.slow
def test_a_tiny_run_its_data_and_its_resume(tmp_path: Path) -> None:
    first = run_tool(tmp_path, *TRIAL, "--only", "stage-07-uci")
    assert first.returncode == 0, first.stdout + first.stderr
    data = json.loads((tmp_path / "data" / "by-stage.json").read_text())
    assert data["settings"] == {"anchor": "self", "anchor_version": None,
                                "build": "interpreted", "limits": "--nodes 50"}
    assert data["not_playing"] == EARLY_STAGES
    assert data["anchor"]["name"] == "self" and data["anchor"]["uci_id_name"] == "cb2026"
    [entry] = data["stages"]
    assert entry["stage"] == "stage-07-uci" and entry["build"] == "interpreted"
    assert "anchor_version" in entry and entry["anchor_version"] is None  # "self" has none
    assert entry["games"] == entry["wins"] + entry["losses"] + entry["draws"] == 2
    assert sum(entry["pentanomial"]) == 1 and entry["errors"] == []
    elo = entry["elo"]
    # One pair won twice by the same side has no finite Elo: its figures are open (None).
    figures = [elo[key] for key in ("lower", "difference", "upper") if elo[key] is not None]
    assert figures == sorted(figures) and elo["confidence"] == 0.95
    assert (elo["difference"] is None) == (entry["score_fraction"] in (0.0, 1.0))
    assert entry["conditions"]["lock"] == str(tmp_path / "measure.lock")
    assert {"quiet", "load_before", "cpu"} <= entry["conditions"].keys()
    # The code of each engine module of the stage: at stage 7, the last before the match
    # runner, every module but the package's two small files (its docstring, `-m`'s entry).
    every_module = source_digests(package_folder("stage-07-uci"))
    assert {"search.py", "board.py"} <= entry["code_digests"].keys()
    assert entry["code_digests"] == {name: digest for name, digest in every_module.items()
                                     if name not in ("__init__.py", "__main__.py")}
    # One run, from no games; at fixed nodes the machine's speed is not measured.
    [run] = entry["runs"]
    assert run["games_before"] == 0 and run["finished"]
    assert run["speed"] is None and run["speed_after"] is None
    pgn = (tmp_path / "data" / entry["pgn"]).read_text()
    assert pgn.count("[Event ") == 2 and "cb2026-stage-07-uci" in pgn
    summary = json.loads((tmp_path / "data" / entry["summary"]).read_text())
    assert summary["games_played"] == 2 and "blind_moves" in summary["engines"][0]
    assert entry["command"].startswith("python tools/strength_by_stage.py ")
    assert "--only stage-07-uci" in entry["command"] and "--resume" not in entry["command"]

    # A finished stage is skipped by --resume: its entry stays as it was.
    again = run_tool(tmp_path, *TRIAL, "--only", "stage-07-uci", "--resume")
    assert again.returncode == 0 and "already measured, skipped" in again.stdout
    assert json.loads((tmp_path / "data" / "by-stage.json").read_text())["stages"] == [entry]

    # A finished stage leaves no unfinished files behind.
    assert not (tmp_path / "work").exists()

    # A match cut off before its entry was written continues from its journal: the match
    # runner, started alone as the tool starts it, leaves one there.
    (tmp_path / "data" / "by-stage.json").unlink()
    _parser, options = strength_by_stage.parse_arguments(
        [*TRIAL, "--only", "stage-07-uci", "--work", str(tmp_path / "work")])
    command, _build = strength_by_stage.engine_command("stage-07-uci", options.interpreted)
    (tmp_path / "work").mkdir()
    subprocess.run(
        [sys.executable, "-m", "cb2026.match",
         *strength_by_stage.match_arguments("stage-07-uci", command, options)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, check=True, capture_output=True,
        timeout=300)
    assert (tmp_path / "work" / "stage-07-uci.journal.jsonl").exists()
    resumed = run_tool(tmp_path, *TRIAL, "--only", "stage-07-uci", "--resume")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads((tmp_path / "data" / "stage-07-uci.json").read_text())["games_resumed"] == 2
    assert not (tmp_path / "work").exists()
    [entry] = json.loads((tmp_path / "data" / "by-stage.json").read_text())["stages"]
    assert entry["games"] == 2
    # The run that resumed found the games its journal held (the one before it left no
    # record of its own: the runner was started without the tool).
    assert [run["games_before"] for run in entry["runs"]] == [2]


def test_the_engine_is_what_its_command_loop_imports(tmp_path: Path) -> None:
    package = tmp_path / "cb2026"
    package.mkdir()
    sources = {
        "cli": "import cb2026.search\nfrom cb2026.limits import Limits\n",
        "search": "def go() -> None:\n    from cb2026 import parallel  # inside a function\n",
        "limits": "from .move import Move\nLimits = int\n",  # relative, inside the package
        "move": "Move = int\n",
        "parallel": "from cb2026.search import go\n",  # back to a module already found
        "match": "from cb2026.cli import main\n",  # the runner imports the engine, not back
        "tuning": "import numpy\n",
    }
    for name, source in sources.items():
        (package / f"{name}.py").write_text(source)
    assert strength_by_stage.engine_modules(package) == [
        "cli", "limits", "move", "parallel", "search"]


def test_until_stage_16_the_engine_is_the_compiled_modules_and_its_digest_unchanged() -> None:
    # Until stage 16 the command loop imports exactly the modules the compiled build
    # compiles, and the digest takes them in that order, as it did before it followed the
    # imports: so the digests that matches recorded then still compare with today's.
    stages = [chapter.stage_id for chapter in chapters(ROOT)
              if [7] <= strength_by_stage.stage_number(chapter.stage_id) < [16]]
    assert stages[0] == "stage-07-uci"
    for stage in stages:
        folder = package_folder(stage) / "cb2026"
        compiled = [name for name in ENGINE_MODULES if (folder / f"{name}.py").exists()]
        assert strength_by_stage.engine_modules(folder) == sorted(compiled), stage
    digest = hashlib.sha256()
    for name in compiled:  # the last stage's, in ENGINE_MODULES's order
        digest.update(name.encode() + b"\0" + (folder / f"{name}.py").read_bytes())
    assert strength_by_stage.engine_digest(stages[-1]) == digest.hexdigest()[:16]
    assert strength_by_stage.stage_code(stages[-1])["engine_digest"] == digest.hexdigest()[:16]


def test_a_clock_match_times_the_machine_at_its_start_and_end(tmp_path: Path) -> None:
    pytest.importorskip("sunfish", reason="Sunfish, the calibration's reference, comes with "
                        "`make opponents`")
    played = run_tool(tmp_path, "--anchor", "self", "--tc", "1+0.01", "--games", "2",
                      "--interpreted", "--only", "stage-07-uci", "--allow-load")
    assert played.returncode == 0, played.stdout + played.stderr
    [entry] = json.loads((tmp_path / "data" / "by-stage.json").read_text())["stages"]
    [run] = entry["runs"]
    assert run["speed"]["nps"] > 0 and run["speed_after"]["nps"] > 0
    assert entry["conditions"]["speed_after"] == run["speed_after"]


def test_a_stage_with_the_engine_of_the_stage_before_is_not_played(tmp_path: Path) -> None:
    completed = run_tool(tmp_path, *TRIAL, "--only", "stage-07.1-matches")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    data = json.loads((tmp_path / "data" / "by-stage.json").read_text())
    assert data["stages"] == [{"stage": "stage-07.1-matches", "same_engine_as": "stage-07-uci"}]
    assert not (tmp_path / "work").exists()


def run_intro_cells(folder: Path) -> tuple[str, list, dict]:
    """Run the code cells of the introduction in `folder` (as if it were book/); return the
    sentence they make, the axes of the figure they draw, if any, and their names."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    notebook = jupytext.read(ROOT / "book" / "intro.md")
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    namespace: dict[str, object] = {}
    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Agg cannot show the figure"
        patch.chdir(folder)
        # The page imports its chart from book/chapters/strengthchart.py, beside the chapters;
        # `folder` has only empty chapters.
        patch.syspath_prepend(str(ROOT / "book" / "chapters"))
        exec(compile(code, "intro.md", "exec"), namespace)
    axes = [axis for number in plt.get_fignums() for axis in plt.figure(number).axes]
    return str(namespace["sentence"]), axes, namespace


def test_an_anchor_is_named_in_words_and_its_id_kept_for_commands(
        monkeypatch: pytest.MonkeyPatch) -> None:
    strengthchart = load_chart_module(monkeypatch)
    assert strengthchart.anchor_name("sunfish") == "Sunfish"
    assert strengthchart.anchor_name("stockfish-1800") == "Stockfish at UCI_Elo 1800"
    assert strengthchart.anchor_name("retired-anchor") == "retired-anchor"  # unknown: its id
    record = {"name": "sunfish", "package_version": "sunfish 2026.1", "uci_id_name": None}
    assert strengthchart.anchor_label(record) == "Sunfish 2026.1"
    record = {"name": "stockfish-1800", "package_version": None,
              "uci_id_name": "Stockfish 15.1"}
    assert strengthchart.anchor_label(record) == "Stockfish 15.1 at UCI_Elo 1800"
    record["uci_id_name"] = "Fairy-Stockfish 14"  # another engine's name: said apart
    assert strengthchart.anchor_label(record) == (
        "Stockfish at UCI_Elo 1800 (Fairy-Stockfish 14)")
    # How far a match's timings lie apart: the fastest over the slowest, less one.
    assert strengthchart.spread([16_390, 18_977]) == "16%"
    assert strengthchart.spread([19_000]) == "0%"


def test_the_introduction_says_plainly_when_nothing_is_measured(tmp_path: Path) -> None:
    sentence, axes, _names = run_intro_cells(tmp_path)
    assert sentence.startswith("Not measured yet: run `make strength`") and axes == []


def elo(difference: float, margin: float) -> dict[str, object]:
    """An Elo record as the match runner writes it."""
    return {"difference": difference, "lower": difference - margin,
            "upper": difference + margin, "text": f"{difference:+.1f} +/- {margin:.1f}"}


STAGE_7 = {"stage": "stage-07-uci", "elo": elo(-12.5, 40.0), "games": 300,
           "score_fraction": 0.482, "conditions": {"quiet": True}, "build": "compiled"}
STAGE_8 = {"stage": "stage-08-tt", "elo": elo(55.0, 38.0), "games": 298,
           "score_fraction": 0.578, "conditions": {"quiet": True}, "build": "compiled"}


def write_chart_data(book: Path, stages: list[dict], chapters: list[str],
                     linked: list[dict] | None = None, limits: str = "--tc 5+0.05") -> None:
    """A strength data file with `stages` in `book`, whose chapters are `chapters`, and if
    `linked` is given, a second anchor's file (Stockfish 1800, on the clock `limits`)."""
    data = {
        "settings": {"anchor": "sunfish", "limits": "--tc 5+0.05"},
        "anchor": {"name": "sunfish", "package_version": "sunfish 2026.1", "uci_id_name": "x",
                   "limits": "--tc 5+0.05"},
        "not_playing": EARLY_STAGES,
        "stages": stages,
    }
    (book / "data" / "strength").mkdir(parents=True)
    (book / "data" / "strength" / "by-stage.json").write_text(json.dumps(data))
    if linked is not None:
        second = {"settings": {"anchor": "stockfish-1800", "limits": limits},
                  "anchor": {"name": "stockfish-1800", "package_version": "Stockfish 15.1",
                             "uci_id_name": "Stockfish 15.1", "limits": limits},
                  "not_playing": EARLY_STAGES, "stages": linked}
        (book / "data" / "strength" / "stockfish-1800").mkdir()
        (book / "data" / "strength" / "stockfish-1800" / "by-stage.json").write_text(
            json.dumps(second))
    (book / "chapters").mkdir()
    for stage in chapters:
        (book / "chapters" / f"{stage}.md").touch()


def test_the_introduction_draws_every_stage_from_the_data(tmp_path: Path) -> None:
    repeat = {"stage": "stage-07.1-matches", "same_engine_as": "stage-07-uci"}
    timed = {"conditions": {"quiet": True, "speed": {"nps": 18_000}}}  # so the step compares
    stages = [STAGE_7 | timed, repeat, STAGE_8 | timed]
    write_chart_data(tmp_path, stages, [entry["stage"] for entry in stages])
    sentence, [axes], _names = run_intro_cells(tmp_path)
    assert sentence == (
        "On the scale of Sunfish 2026.1 at a clock of 5+0.05, stage 7 scores -12.5 ± 40.0 "
        "Elo over 300 games and stage 8 +55.0 ± 38.0 Elo over 298 games. Every match played "
        "cb2026's compiled build. From one measured "
        "stage to the next: from 7 to 8, +68 ± 55 Elo, resolved."
        # 55.0 - -12.5, and the half-widths 40 and 38 added in quadrature
    )
    points = [line for line in axes.get_lines() if line.get_marker() == "o"]
    assert [list(point.get_ydata()) for point in points] == [[-12.5], [-12.5], [55.0]]
    # Stage 7.1 repeats stage 7's result: drawn hollow, labelled as a repeat.
    faces = [point.get_markerfacecolor() for point in points]
    assert faces[1] == "white" and faces[0] == faces[2] != "white"
    assert [label.get_text() for label in axes.get_xticklabels()] == ["7", "7.1 = 7", "8"]


def test_the_chart_names_a_match_whose_engine_has_changed_since(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    today = strength_by_stage.stage_code("stage-07-uci")
    assert {"search.py", "cli.py"} <= today["code_digests"].keys()
    repeat = {"stage": "stage-07.1-matches", "same_engine_as": "stage-07-uci"}
    stages = [measured("stage-07-uci", 0.0, 39.2) | today, repeat,
              measured("stage-08-tt", 50.0, 39.2) | strength_by_stage.stage_code("stage-08-tt")]
    write_chart_data(tmp_path, stages, ["stage-07-uci", "stage-07.1-matches", "stage-08-tt"])
    strengthchart = load_chart_module(monkeypatch)
    data = strengthchart.load_strength(tmp_path / "data" / "strength" / "by-stage.json")
    chapters_folder = tmp_path / "chapters"
    code_today = strength_by_stage.stage_code
    assert strengthchart.stale_text(data, chapters_folder, code_today) == ""
    # Stage 7's match with a module's code changed: its point, the point of 7.1 that repeats
    # it and the step to 8 stand for another engine.
    changed = today["code_digests"] | {"search.py": "other code"}
    data["stages"][0]["code_digests"] = changed
    assert strengthchart.stale_text(data, chapters_folder, code_today) == (
        "The match of stage 7 against Sunfish played engine code that has changed since, "
        "so its point stands for that earlier engine. Stage 7.1's point repeats stage 7's, "
        "so it too stands for that earlier engine, not chapter 7.1's code. The step from 7 "
        "to 8 under the chart compares "
        "such a match. `python tools/strength_by_stage.py --anchor sunfish --only "
        "stage-07-uci --wait` plays it again with the book's code (not with `--resume`, "
        "which skips a stage already recorded).")
    # A change of wording alone leaves the code digests as they are; a match that recorded
    # only the digest of every byte cannot tell wording from code.
    data["stages"][0] = stages[0] | {"engine_digest": "reworded"}
    assert strengthchart.stale_text(data, chapters_folder, code_today) == ""
    del data["stages"][0]["code_digests"]
    assert strengthchart.stale_text(data, chapters_folder, code_today).startswith(
        "The match of stage 7 against Sunfish played engine modules that have changed since, "
        "in code or perhaps in wording only (only a digest of every byte was recorded)")
    # A match that recorded no digest at all says so.
    del data["stages"][0]["engine_digest"]
    assert strengthchart.stale_text(data, chapters_folder, code_today).startswith(
        "The match of stage 7 against Sunfish recorded no digest of the engine")


def test_a_snapshot_charts_only_its_own_stages(tmp_path: Path) -> None:
    # The stage-7 snapshot holds the data of stage 8 but not its chapter.
    write_chart_data(tmp_path, [STAGE_7, STAGE_8], ["stage-07-uci"])
    sentence, [axes], _names = run_intro_cells(tmp_path)
    assert "stage 8" not in sentence and "stage 7 scores -12.5" in sentence
    assert [label.get_text() for label in axes.get_xticklabels()] == ["7"]


def test_the_introduction_names_the_stages_still_to_play(tmp_path: Path) -> None:
    # Chapters 8 and 8.1 exist, but only stage 7 has played: the chart shows 7, and the
    # sentence under it names 8 and 8.1; stages that cannot play are not named.
    chapters = ["stage-01-board", "stage-07-uci", "stage-08-tt", "stage-08.1-tt-buckets"]
    write_chart_data(tmp_path, [STAGE_7], chapters)
    _sentence, [axes], names = run_intro_cells(tmp_path)
    assert names["unplayed"] == ["stage-08-tt", "stage-08.1-tt-buckets"]
    # Every stage that can play has its place on the axis, shaded where it has no match.
    assert [label.get_text() for label in axes.get_xticklabels()] == ["7", "8", "8.1"]


def test_the_introduction_lists_the_parts_of_its_own_table_of_contents(
        tmp_path: Path) -> None:
    # A snapshot's table of contents holds its own chapters only: so does the list.
    toc = {"format": "jb-book", "root": "intro",
           "parts": [{"caption": "Part I: the rules",
                      "chapters": [{"file": "chapters/stage-01-board"}]},
                     {"caption": "Part II: searching",
                      "chapters": [{"file": "chapters/stage-08.1-tt-buckets"}]}]}
    (tmp_path / "_toc.yml").write_text(json.dumps(toc))  # JSON is YAML too
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "stage-01-board.md").write_text("---\n---\n\n# Stage 1: The board\n")
    (tmp_path / "chapters" / "stage-08.1-tt-buckets.md").write_text(
        "# Stage 8.1: Buckets: and a colon\n")
    _sentence, _axes, names = run_intro_cells(tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)  # the page's paths are relative to book/
        listed = names["book_outline"](toc)
    assert listed == ("- **Part I: the rules.** 1 The board\n"
                      "- **Part II: searching.** 8.1 Buckets: and a colon")


def test_an_open_interval_is_an_arrow_and_a_lopsided_score_is_flagged(tmp_path: Path) -> None:
    # Every pair won: the interval has no upper end, and the score says little about Elo.
    swept = STAGE_8 | {"elo": {"difference": None, "lower": 250.0, "upper": None,
                               "text": ">= +250.0"}, "score_fraction": 1.0}
    write_chart_data(tmp_path, [STAGE_7, swept], ["stage-07-uci", "stage-08-tt"])
    sentence, [axes], _names = run_intro_cells(tmp_path)
    assert "Stage 8 (against Sunfish) scored outside 10%-90%" in sentence
    assert "Stage 7" not in sentence
    assert [label.get_text() for label in axes.get_xticklabels()] == ["7", "8"]
    # Stage 8's point sits at its known lower end, with one arrow upwards from it.
    points = [line for line in axes.get_lines() if line.get_marker() == "o"]
    assert [list(point.get_ydata()) for point in points] == [[-12.5], [250.0]]
    [arrow] = [text for text in axes.texts if hasattr(text, "xyann")]
    assert arrow.xy == (1, 250.0 + 150) and arrow.xyann == (1, 250.0)


def test_the_introduction_tabulates_what_stands_behind_each_point(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    games = [{"white": "cb2026-stage-07-uci", "black": "sunfish", "result": "0-1",
              "termination": "time forfeit"},
             {"white": "sunfish", "black": "cb2026-stage-07-uci", "result": "0-1",
              "termination": "normal"}]
    summary = {"engines": [{"name": "cb2026-stage-07-uci", "blind_moves": 0,
                            "depth": {"median": 5}},
                           {"name": "sunfish", "blind_moves": 40, "depth": None}],
               "games": games}
    entry = STAGE_7 | {"summary": "stage-07-uci.json",
                       "conditions": {"quiet": True, "load_before": 0.1, "load_after": 1.0}}
    write_chart_data(tmp_path, [entry], ["stage-07-uci"])
    (tmp_path / "data" / "strength" / "stage-07-uci.json").write_text(json.dumps(summary))
    _sentence, _axes, names = run_intro_cells(tmp_path)
    monkeypatch.chdir(tmp_path)  # the page's paths are relative to book/
    table = names["match_rows"](names["strength_data"])
    assert table.splitlines()[-1] == (
        "| 7 | sunfish | 300 | 0.482 | 0, 40 | 1, 0 | 5, – | 0.10, 1.00 (? cores) | – |")
    assert "No match timed its machine" in names["speed_text"](
        names["strength_data"])


def test_the_introduction_gives_each_match_its_machines_speed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = {"engines": [{"name": "cb2026", "blind_moves": 0, "depth": {"median": 5}},
                           {"name": "sunfish", "blind_moves": 0, "depth": None}],
               "games": []}
    entries = []
    for stage, speeds in (("stage-07-uci", [19_000]), ("stage-08-tt", [18_000, 7_000])):
        runs = [{"quiet": True, "load_before": 0.1, "load_after": 1.0, "speed": {"nps": speed}}
                for speed in speeds]
        entries.append(STAGE_7 | {"stage": stage, "summary": f"{stage}.json",
                                  "conditions": runs[-1], "runs": runs})
    write_chart_data(tmp_path, entries, ["stage-07-uci", "stage-08-tt"])
    for stage in ("stage-07-uci", "stage-08-tt"):
        (tmp_path / "data" / "strength" / f"{stage}.json").write_text(json.dumps(summary))
    _sentence, _axes, names = run_intro_cells(tmp_path)
    monkeypatch.chdir(tmp_path)
    rows = names["match_rows"](names["strength_data"]).splitlines()
    assert rows[-2].endswith("| 19,000 |") and rows[-1].endswith("| 7,000–18,000 |")
    text = names["speed_text"](names["strength_data"])
    # Stage 8's own two timings disagree: it is named with their spread and set aside.
    assert ("Sunfish's fixed search ran at 19,000 nodes a second on the machine of the "
            "timed match other than the one named next.") in text
    assert ("One match timed its machine at speeds more than 10% apart (the fastest over "
            "the slowest): stage 8 (157%) against Sunfish. How fast the machine ran during it "
            "is not known") in text
    assert "did not time" not in text
    # One run of stage 8 untimed: the speeds are the timed runs', and the match is named.
    data = names["strength_data"]
    data["stages"][1]["runs"][1]["speed"] = None
    text = names["speed_text"](data)
    assert ("on the machines of the timed runs, within 10% of each other, which the book reads "
            "as no clear difference (chapter 1)") in text
    assert ("The match of stage 8 against Sunfish did not time the machine of every run "
            "that played it") in text
    assert "processor" not in text  # the runs recorded none, so none differ
    # A match on another processor is named with it.
    data["stages"][0]["conditions"] = data["stages"][0]["conditions"] | {"cpu": "Intel Xeon"}
    data["stages"][1]["conditions"] = data["stages"][1]["conditions"] | {"cpu": "AMD EPYC"}
    assert ("The matches ran on Intel Xeon (stage 7 against Sunfish); AMD EPYC (stage 8 "
            "against Sunfish).") in (
        names["speed_text"](data))
    # With more matches on one processor, only the others are named.
    (tmp_path / "chapters" / "stage-08.1-tt-buckets.md").touch()
    data["stages"].append(data["stages"][1] | {"stage": "stage-08.1-tt-buckets"})
    assert ("The match of stage 7 against Sunfish ran on Intel Xeon, every other match on "
            "AMD EPYC.") in names["speed_text"](data)
    data["stages"].pop()
    # A match timed at its end as well: its cell gives both timings, and it counts as timed.
    data["stages"][1]["runs"][1]["speed"] = {"nps": 7_000}
    data["stages"][0]["runs"][0]["speed_after"] = {"nps": 18_500}
    assert names["match_rows"](data).splitlines()[-2].endswith("| 18,500–19,000 |")
    assert "did not time" not in names["speed_text"](data)


def test_the_introduction_gives_the_machines_speeds_by_processor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_chart_data(tmp_path, [STAGE_7], ["stage-07-uci"])
    _sentence, _axes, names = run_intro_cells(tmp_path)
    monkeypatch.chdir(tmp_path)
    speed_range = names["speed_range_text"]
    # Matches are named by anchor, in words (the ids are for the table and the commands).
    assert names["matches_text"]([("stage-07-uci", "sunfish"), ("stage-08-tt", "sunfish"),
                                  ("stage-13.1-tuning", "stockfish-1800")]) == (
        "stages 7 and 8 against Sunfish and stage 13.1 against Stockfish at UCI_Elo 1800")
    # A note follows its match's stage.
    assert names["matches_text"]([("stage-11-killers-history", "stockfish-1800"),
                                  ("stage-13-evaluation", "stockfish-1800")],
                                 {("stage-13-evaluation", "stockfish-1800"): "13%"}) == (
        "stages 11 and 13 (13%) against Stockfish at UCI_Elo 1800")

    def match(*runs: tuple[str, int]) -> dict:
        """A match's record: each run's processor and machine speed."""
        return {"runs": [{"cpu": cpu, "speed": {"nps": nps}} for cpu, nps in runs]}

    amd, intel = "AMD EPYC", "Intel(R) Xeon(R) Processor"  # named "Intel Xeon"
    across = ("though another processor need not speed the engines by as much as Sunfish's "
              "search. On a clock a machine's speed can move a point, so points from different "
              "processors may mix the stages' strength with their machines'")
    # Alike on each processor, apart over both.
    assert speed_range([match((amd, 18_000)), match((amd, 17_000)),
                        match((intel, 23_000), (intel, 22_000))], 0) == (
        " In the timed matches, Sunfish's fixed search ran at 17,000 to 18,000 nodes a second "
        "on AMD EPYC and 22,000 to 23,000 on Intel Xeon. On each processor they lie within "
        "10% of each other, which the book reads as no clear difference (chapter 1); over all "
        f"they lie 35% apart, {across}.")
    # A processor timed once has nothing to agree with: only the other is said to agree.
    assert " On AMD EPYC they lie within 10% of each other, which" in speed_range(
        [match((amd, 18_000)), match((amd, 17_000)), match((intel, 23_000))], 0)
    assert speed_range([match((amd, 18_000)), match((intel, 23_000))], 0).endswith(
        f" They lie 28% apart, {across}.")
    # A processor whose own matches disagree mixes machines too.
    assert speed_range([match((amd, 17_000)), match((amd, 19_500)), match((intel, 23_000))],
                       1).endswith(
        "on Intel Xeon. They lie 15% apart on AMD EPYC and 35% apart over all; on a clock a "
        "machine's speed can move a point, so the points may mix the stages' strength with "
        "their machines', even on one processor.")
    # All alike, whatever the processors: one clause.
    assert speed_range([match((amd, 18_000)), match((intel, 19_000))], 0) == (
        " In the timed matches, Sunfish's fixed search ran at 18,000 nodes a second on AMD "
        "EPYC and 19,000 on Intel Xeon. All lie within 10% of each other, which the book "
        "reads as no clear difference (chapter 1).")
    # A match resumed on another processor: each run's timing counts under its own.
    assert speed_range([match((amd, 18_000), (intel, 19_500)), match((intel, 23_000))],
                       0).startswith(
        " In the timed matches, Sunfish's fixed search ran at 18,000 nodes a second on AMD "
        "EPYC and 19,500 to 23,000 on Intel Xeon. They lie 18% apart on Intel Xeon and 28% "
        "apart over all;")
    # A run that recorded no processor: one range over all.
    assert speed_range([match((amd, 18_000)), {"runs": [{"speed": {"nps": 23_000}}]}], 0) == (
        " Sunfish's fixed search ran at 18,000 to 23,000 nodes a second on the machines of "
        "the timed matches, 28% apart: on a clock a machine's speed can move a point, so the "
        "points may mix the stages' strength with their machines'.")


def test_an_unfinished_match_lives_beside_the_data_and_leaves_nothing_when_done(
    tmp_path: Path,
) -> None:
    # tools/elo_matches.py: the journal is tracked, so a match can span checkouts.
    working = elo_matches.working_path("stage-12-lmr", "lmr")
    assert working.parent == elo_matches.data_path("stage-12-lmr", "lmr").parent / "unfinished"
    unfinished = tmp_path / "unfinished" / "elo-lmr"
    unfinished.parent.mkdir()
    for suffix in (".json", ".pgn", ".journal.jsonl", ".runs.json", ".refused.json"):
        unfinished.with_suffix(suffix).write_text("{}")
    elo_matches.remove_unfinished(unfinished)
    assert not unfinished.parent.exists()
    other = tmp_path / "unfinished" / "elo-other.journal.jsonl"
    other.parent.mkdir()
    other.write_text("{}")
    elo_matches.remove_unfinished(unfinished)  # another match's journal stays, and its folder
    assert other.exists()
    # tools/strength_by_stage.py names its files after the stage, whose id may hold a dot.
    staged = tmp_path / "unfinished" / "stage-08.1-tt-buckets"
    staged.parent.joinpath("stage-08.1-tt-buckets.journal.jsonl").write_text("{}")
    elo_matches.remove_unfinished(staged)
    assert sorted(path.name for path in staged.parent.iterdir()) == [other.name]
    assert strength_by_stage.WORK_FOLDER == strength_by_stage.DATA_FOLDER / "unfinished"


def test_a_match_capped_by_games_keeps_its_journal_for_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Chapter 18's pilot against GNU Chess (--games 20) is the start of the full match.
    monkeypatch.setattr(elo_matches, "ROOT", tmp_path)
    pilot = {experiment.name: experiment
             for experiment in elo_matches.EXPERIMENTS["stage-18-rating"]}["gnuchess"]
    working = elo_matches.working_path("stage-18-rating", "gnuchess")
    journal = working.parent / f"{working.name}.journal.jsonl"
    # The last run played 2 games in 300 s after 18 from earlier runs; a score inside
    # PILOT_SCORES, so the rung stays.
    summary = {"games_played": 20, "games_resumed": 18, "wall_seconds": 300.0,
               "wall_seconds_per_game": 15.0, "score_fraction": 0.15}
    for capped_at in (20, None):
        working.parent.mkdir(parents=True, exist_ok=True)
        for suffix, text in ((".json", json.dumps(summary)), (".pgn", "[Event]"),
                             (".journal.jsonl", "{}\n"), (".sources.json", '{"cli.py": "d"}'),
                             (".refused.json", '[{"games_before": 4}]')):
            (working.parent / f"{working.name}{suffix}").write_text(text)
        stored = elo_matches.store_result("stage-18-rating", pilot, "compiled", {"quiet": True},
                                          [{"games_before": 0}], capped_at=capped_at)
        assert stored == elo_matches.data_path("stage-18-rating", "gnuchess")
        record = json.loads(stored.with_suffix(".json").read_text())
        assert record["games_played"] == 20 and record["sources"] == {"cli.py": "d"}
        assert record["runs"] == [{"games_before": 0, "quiet": True}]
        assert record["refused_runs"] == [{"games_before": 4}]  # the starts refused, kept
        assert record["wall_seconds_per_game"] == 150.0
        assert record["command"].endswith("--only gnuchess" + " --games 20" * bool(capped_at))
        assert stored.with_suffix(".pgn").read_text() == "[Event]"
        # A full match leaves no working files.
        assert journal.exists() == (capped_at is not None)
        refused = working.parent / f"{working.name}.refused.json"
        assert refused.exists() == (capped_at is not None)  # kept with the journal, or gone


def test_a_pilot_that_scores_outside_the_window_ends_its_rung(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Chapter 18: GNU Chess stays on the ladder only if cb2026 scores 10 to 90% in the pilot.
    strengthchart = load_chart_module(monkeypatch)
    monkeypatch.setattr(elo_matches, "ROOT", tmp_path)
    rung = {experiment.name: experiment
            for experiment in elo_matches.EXPERIMENTS["stage-18-rating"]}["gnuchess"]
    assert rung.pilot_games == elo_matches.LADDER_PILOT_GAMES > 0
    assert elo_matches.PILOT_SCORES == strengthchart.INFORMATIVE_SCORES
    for score, left in ((0.025, True), (0.1, False), (0.5, False), (0.9, False), (0.95, True)):
        assert elo_matches.pilot_left(rung, {"games_played": 20, "score_fraction": score}) == left
    # The full match decides nothing: past the pilot's games no score ends it.
    assert not elo_matches.pilot_left(rung, {"games_played": 200, "score_fraction": 0.0})
    working = elo_matches.working_path("stage-18-rating", "gnuchess")
    working.parent.mkdir(parents=True)
    pilot = {"games_played": 20, "games_resumed": 0, "wall_seconds": 3000.0,
             "score_fraction": 0.025}
    for suffix, text in ((".json", json.dumps(pilot)), (".pgn", "[Event]"),
                         (".journal.jsonl", "{}\n"), (".sources.json", "{}")):
        (working.parent / f"{working.name}{suffix}").write_text(text)
    stored = elo_matches.store_result("stage-18-rating", rung, "compiled", {}, [{}],
                                      capped_at=20)
    assert stored.with_suffix(".json").exists()
    assert not working.parent.exists() or not any(working.parent.iterdir())

    # Asked for the full match afterwards, the tool plays nothing and says why.
    def no_match(*args: object, **kwargs: object) -> None:
        raise AssertionError("a match was started")

    monkeypatch.setattr(elo_matches.subprocess, "run", no_match)
    options = argparse.Namespace(games=None, resume=True, allow_load=False, wait=False)
    assert elo_matches.play("stage-18-rating", rung, options) == 0
    assert "the full match is not played" in capsys.readouterr().out


def measured(stage: str, difference: float, margin: float, score: float = 0.5,
             nps: int = 18_000) -> dict:
    """A stage's entry in a data file, with a symmetric 95% interval, its engine's digest
    (one per stage) and the machine's speed."""
    return {"stage": stage, "elo": elo(difference, margin), "games": 300,
            "score_fraction": score, "build": "compiled", "engine_digest": f"code of {stage}",
            "conditions": {"quiet": True, "speed": {"nps": nps}}}


def test_a_stage_measured_against_the_second_anchor_is_placed_through_a_link(
        tmp_path: Path) -> None:
    # Stage 8 played both: +100 against Sunfish, -300 against Stockfish 1800, so Stockfish
    # stands 400 above Sunfish, give or take hypot(39.2, 39.2) = 55.4. Stage 9, -200 against
    # Stockfish only, is drawn at +200, give or take hypot(39.2, 55.4) = 67.9.
    stages = [measured("stage-07-uci", 0.0, 39.2, 0.5),
              measured("stage-08-tt", 100.0, 39.2, 0.88)]
    linked = [measured("stage-08-tt", -300.0, 39.2, 0.15),
              measured("stage-09-pvs", -200.0, 39.2, 0.25)]
    chapters = ["stage-07-uci", "stage-08-tt", "stage-09-pvs"]
    write_chart_data(tmp_path, stages, chapters, linked)
    sentence, [axes], _names = run_intro_cells(tmp_path)
    points = [line for line in axes.get_lines() if line.get_marker() in ("o", "s")]
    assert [(line.get_marker(), *line.get_ydata()) for line in points] == [
        ("o", 0.0), ("o", 100.0), ("s", pytest.approx(200.0))]
    assert ("stage 9 +200.0 ± 67.9 Elo, placed from 300 games against "
            "Stockfish at UCI_Elo 1800") in sentence
    assert ("Stage 9 is drawn from its match against Stockfish 15.1 at UCI_Elo 1800. That "
            "anchor stands 400 ± 55 Elo above Sunfish, as measured by "
            "stage 8, which played both anchors with the same code on one processor, its "
            "timings of the machine in both matches all within 10% of each other; that margin "
            "is part of the interval of the point it places. With one "
            "linking stage nothing yet tests whether stages differ by as much against either "
            "anchor, which the placing assumes. The margin covers the matches' sampling error, "
            "not that assumption.") in sentence
    # Stage 8 against 9: both played Stockfish, where the link plays no part: +100 +/- 55.
    assert ("from 7 to 8, +100 ± 55 Elo, resolved; from 8 to 9, +100 ± 55 Elo, "
            "resolved") in sentence
    assert "as far apart there" not in sentence  # none recorded its processor
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert labels == ["measured against Sunfish", "placed through Stockfish at UCI_Elo 1800"]
    # The square is drawn in the second anchor's colour, the circles in the first's.
    assert points[2].get_color() != points[0].get_color() == points[1].get_color()


def test_a_point_placed_from_another_processor_than_its_link_says_what_it_assumes(
        tmp_path: Path) -> None:
    # Stage 8 links the anchors on one processor; stages 9 and 10 played on another.
    on = {"AMD EPYC": {"cpu": "AMD EPYC"}, "Intel Xeon": {"cpu": "Intel Xeon"}}

    def on_cpu(entry: dict, cpu: str) -> dict:
        return entry | {"conditions": entry["conditions"] | on[cpu]}

    stages = [on_cpu(measured("stage-07-uci", 0.0, 39.2), "AMD EPYC"),
              on_cpu(measured("stage-08-tt", 100.0, 39.2, 0.88), "AMD EPYC")]
    linked = [on_cpu(measured("stage-08-tt", -300.0, 39.2, 0.15), "AMD EPYC"),
              on_cpu(measured("stage-09-pvs", -200.0, 39.2, 0.25), "Intel Xeon"),
              on_cpu(measured("stage-10-null-move", -100.0, 39.2, 0.35), "Intel Xeon")]
    chapters = ["stage-07-uci", "stage-08-tt", "stage-09-pvs", "stage-10-null-move"]
    write_chart_data(tmp_path, stages, chapters, linked)
    sentence, _axes, _names = run_intro_cells(tmp_path)
    # Stages 9 and 10 timed the machine alike with the link (18,000 nodes a second).
    assert ("Stages 9 and 10 played on Intel Xeon, the matches of stage 8 on AMD EPYC: their "
            "places assume that the two anchors stand as far apart there, which no match has "
            "measured, and another processor need not speed both anchors alike. With one "
            "linking stage") in sentence
    assert "The margin covers the matches' sampling error, not these assumptions." in sentence
    # The step between the two processors is refused; the one on Intel Xeon stands.
    assert ("From one measured stage to the next: from 7 to 8, +100 ± 55 Elo, resolved; from 9 "
            "to 10, +100 ± 55 Elo, resolved. Not compared: from 8 to 9, since the two matches "
            "ran on different processors") in sentence
    assert "from 9 to 10, +100 ± 55 Elo, resolved" in sentence
    # A placed point on the link's own processor is not named.
    linked[2] = on_cpu(linked[2], "AMD EPYC")
    write_chart_data(tmp_path / "one", stages, chapters, linked)
    sentence, _axes, _names = run_intro_cells(tmp_path / "one")
    assert ("Stage 9 played on Intel Xeon, the matches of stage 8 on AMD EPYC: its place "
            "assumes that the two anchors stand") in sentence
    # Timed faster than the link: by how much, from the slowest to the fastest timings.
    timed = {"speed": {"nps": 22_500}, "speed_after": {"nps": 23_400}}
    linked[1] = linked[1] | {"conditions": linked[1]["conditions"] | timed}
    write_chart_data(tmp_path / "faster", stages, chapters, linked)
    sentence, _axes, _names = run_intro_cells(tmp_path / "faster")
    assert ("Stage 9 played on Intel Xeon, where Sunfish's fixed search ran 25% to 30% faster "
            "than in the matches of stage 8 on AMD EPYC (how much faster or slower the engines "
            "ran there is not measured): its place assumes") in sentence


@pytest.mark.parametrize(("change", "why"), [
    ({"engine_digest": "other code"}, "its engine code changed between the two matches"),
    ({"conditions": {"quiet": True}}, "one of the two matches did not time the machine"),
    ({"conditions": {"quiet": True, "speed": {"nps": 12_000}}},
     "the machine ran at different speeds in the two matches"),
])
def test_a_stage_links_two_anchors_only_as_one_player_on_one_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: dict, why: str) -> None:
    # Stage 8 played both anchors, but not as the same player on the same machine: its
    # matches cannot place Stockfish, so stage 9, which played Stockfish only, has no point.
    stages = [measured("stage-07-uci", 0.0, 39.2), measured("stage-08-tt", 100.0, 39.2, 0.88)]
    linked = [measured("stage-08-tt", -300.0, 39.2, 0.15) | change,
              measured("stage-09-pvs", -200.0, 39.2, 0.25)]
    write_chart_data(tmp_path, stages, ["stage-07-uci", "stage-08-tt", "stage-09-pvs"], linked)
    sentence, [axes], names = run_intro_cells(tmp_path)
    assert [line.get_marker() for line in axes.get_lines() if line.get_marker() in ("o", "s")
            ] == ["o", "o"]
    assert "placed from" not in sentence
    monkeypatch.chdir(tmp_path)  # the page's paths are relative to book/
    text = names["second_anchor_text"](names["strength_data"])
    assert f"Stage 8 played both anchors but does not link them: {why}." in text
    assert "So no stage links its results to Sunfish's scale yet" in text
    assert "so far it has played stages 8 and 9" in text


def load_chart_module(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201 (a module)
    """book/chapters/strengthchart.py, which lives beside the chapters, not on the path."""
    monkeypatch.syspath_prepend(str(ROOT / "book" / "chapters"))
    import strengthchart

    return strengthchart


def test_a_change_of_machine_speed_is_said_only_where_the_ranges_part(
        monkeypatch: pytest.MonkeyPatch) -> None:
    speed_change = load_chart_module(monkeypatch).speed_change
    assert speed_change([22_738, 22_985], [17_495, 19_101]) == "19% to 31% faster"
    assert speed_change([15_000], [18_000, 18_500]) == "17% to 19% slower"
    assert speed_change([18_000], [18_000]) == ""  # as fast
    assert speed_change([18_000, 20_000], [19_000]) == ""  # the ranges overlap
    assert speed_change([20_000], [18_000, 18_010]) == "11% faster"  # one figure when alike
    assert speed_change([], [18_000]) == "" and speed_change([18_000], []) == ""
    cpu_name = load_chart_module(monkeypatch).cpu_name
    assert cpu_name("Intel(R) Xeon(R) Processor") == "Intel Xeon"
    assert cpu_name("Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz") == "Intel Core i7-8700 CPU @ 3.20GHz"
    assert cpu_name("AMD EPYC") == "AMD EPYC"


def test_several_links_are_weighed_by_their_precision(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Two linking stages: stage 7 says Stockfish stands 300 above Sunfish (errors of 20 and
    # 30 Elo, 95%), stage 8 says 320 (errors 40 and 40), which agree within their errors
    # (chi-square 0.34 on one degree of freedom). Weights 1/(20² + 30²) and 1/(40² + 40²):
    # the estimate and its margin, computed by hand.
    stages = [measured("stage-07-uci", 0.0, 20.0), measured("stage-08-tt", 100.0, 40.0)]
    linked = [measured("stage-07-uci", -300.0, 30.0), measured("stage-08-tt", -220.0, 40.0),
              measured("stage-09-pvs", -100.0, 30.0)]
    write_chart_data(tmp_path, stages, ["stage-07-uci", "stage-08-tt", "stage-09-pvs"], linked)
    strengthchart = load_chart_module(monkeypatch)
    data = strengthchart.load_strength(tmp_path / "data" / "strength" / "by-stage.json")
    present = {"stage-07-uci", "stage-08-tt", "stage-09-pvs"}
    placement = strengthchart.place_anchors(data, present)["stockfish-1800"]
    first, second = 20**2 + 30**2, 40**2 + 40**2  # variances in (95% half-width)² units
    expected = (300 / first + 320 / second) / (1 / first + 1 / second)
    assert placement.offset == pytest.approx(expected)
    assert placement.margin == pytest.approx((1 / first + 1 / second) ** -0.5)
    assert placement.links == ("stage-07-uci", "stage-08-tt") and placement.widened_by == 1.0
    results = strengthchart.best_results(data, present)
    assert results["stage-09-pvs"]["elo"]["difference"] == pytest.approx(expected - 100)
    assert results["stage-09-pvs"]["anchor"] == "stockfish-1800"


def test_a_link_compares_code_not_wording_where_both_matches_recorded_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    strengthchart = load_chart_module(monkeypatch)
    sunfish = measured("stage-08-tt", 100.0, 39.2) | {"code_digests": {"search.py": "a"}}
    # A docstring edited between the matches: every byte's digest differs, the code's not.
    stockfish = measured("stage-08-tt", -300.0, 39.2) | {
        "engine_digest": "reworded", "code_digests": {"search.py": "a"}}
    assert strengthchart.link_fault(sunfish, stockfish) == ""
    stockfish["code_digests"] = {"search.py": "b"}
    assert strengthchart.link_fault(sunfish, stockfish) == (
        "its engine code changed between the two matches")
    # A match from before the code digests were recorded: every byte must agree.
    del sunfish["code_digests"]
    assert strengthchart.link_fault(sunfish, stockfish) == (
        "its engine code changed between the two matches")
    stockfish["engine_digest"] = sunfish["engine_digest"]
    assert strengthchart.link_fault(sunfish, stockfish) == ""


def test_an_anchor_on_another_clock_is_not_linked(tmp_path: Path) -> None:
    stages = [measured("stage-08-tt", 100.0, 39.2)]
    linked = [measured("stage-08-tt", -300.0, 39.2), measured("stage-09-pvs", -200.0, 39.2)]
    write_chart_data(tmp_path, stages, ["stage-08-tt", "stage-09-pvs"], linked,
                     limits="--tc 10+0.1")
    sentence, [axes], _names = run_intro_cells(tmp_path)
    # Stage 9 keeps its place on the axis, shaded: its only match is not charted.
    assert [label.get_text() for label in axes.get_xticklabels()] == ["8", "9"]
    assert sentence.endswith("Not charted: the matches in book/data/strength/stockfish-1800, "
                             "measured on another clock or build.")


def test_links_that_disagree_widen_the_margin_and_chains_add_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Two equally precise links 200 Elo apart (estimates 300 and 500, each with a standard
    # error of 20 * sqrt(2) / 1.96): chi-square 2 * 100² / (2 * (20 / 1.96)²) on 1 degree
    # of freedom, so the margin hypot(20, 20) / sqrt(2) = 20 grows by its square root.
    stages = [measured("stage-07-uci", 0.0, 20.0), measured("stage-08-tt", 100.0, 20.0)]
    linked = [measured("stage-07-uci", -300.0, 20.0), measured("stage-08-tt", -400.0, 20.0)]
    write_chart_data(tmp_path, stages, ["stage-07-uci", "stage-08-tt"], linked)
    strengthchart = load_chart_module(monkeypatch)
    path = tmp_path / "data" / "strength" / "by-stage.json"
    data = strengthchart.load_strength(path)
    present = {"stage-07-uci", "stage-08-tt", "stage-09-pvs", "stage-10-null-move"}
    placement = strengthchart.place_anchors(data, present)["stockfish-1800"]
    ratio = math.sqrt(2 * 100**2 / (2 * (20 / strengthchart.Z95) ** 2))
    assert placement.offset == pytest.approx(400.0)
    assert placement.widened_by == pytest.approx(ratio)
    assert placement.margin == pytest.approx(20.0 * ratio)
    # A third anchor linked through the second only: offsets and margins add along the chain.
    third = {"settings": {"anchor": "gnuchess", "limits": "--tc 5+0.05"},
             "stages": [measured("stage-09-pvs", -50.0, 30.0),
                        measured("stage-10-null-move", 10.0, 30.0)]}
    data["linked"][0]["stages"].append(measured("stage-09-pvs", 100.0, 40.0))
    data["linked"].append(third)
    chained = strengthchart.place_anchors(data, present)["gnuchess"]
    assert chained.offset == pytest.approx(400.0 + 100.0 - -50.0)
    assert chained.margin == pytest.approx(math.hypot(placement.margin, 50.0))
    assert chained.links == ("stage-09-pvs",)
    best = strengthchart.best_results(data, present)
    # Stage 10 played the third anchor only; 9 is drawn from Stockfish, the earlier anchor.
    assert best["stage-10-null-move"]["elo"]["difference"] == pytest.approx(560.0)
    assert best["stage-09-pvs"]["anchor"] == "stockfish-1800"


def test_a_lopsided_score_is_drawn_from_the_next_anchor_and_steps_skip_the_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Stage 8 took 95% against Sunfish, with the narrower interval: it is drawn through
    # Stockfish all the same, where its score still tells Elo apart.
    stages = [measured("stage-07-uci", 0.0, 30.0), measured("stage-08-tt", 200.0, 30.0, 0.95)]
    linked = [measured("stage-07-uci", -400.0, 40.0), measured("stage-08-tt", -180.0, 40.0)]
    write_chart_data(tmp_path, stages, ["stage-07-uci", "stage-08-tt"], linked)
    strengthchart = load_chart_module(monkeypatch)
    data = strengthchart.load_strength(tmp_path / "data" / "strength" / "by-stage.json")
    rows = strengthchart.chart_rows(data, tmp_path / "chapters")
    assert [result["anchor"] for _stage, result, _ in rows] == ["sunfish", "stockfish-1800"]
    # The step uses both anchors' own results, each free of the link: gains of 200 and 220,
    # margins hypot(30, 30) and hypot(40, 40), combined by their precision.
    first, second = math.hypot(30, 30), math.hypot(40, 40)
    gain = (200 / first**2 + 220 / second**2) / (1 / first**2 + 1 / second**2)
    margin = (1 / first**2 + 1 / second**2) ** -0.5
    assert strengthchart.step_text(rows[0], rows[1]) == (
        f"from 7 to 8, {gain:+.0f} ± {margin:.0f} Elo, resolved")


def first_step(strengthchart, folder: Path, stages: list[dict],  # noqa: ANN001 (a module)
               linked: list[dict] | None = None) -> str:
    """The step from stage 7 to stage 8 on a chart of these data, written in `folder`."""
    write_chart_data(folder, stages, ["stage-07-uci", "stage-08-tt"], linked)
    data = strengthchart.load_strength(folder / "data" / "strength" / "by-stage.json")
    rows = strengthchart.chart_rows(data, folder / "chapters")
    return strengthchart.step_text(rows[0], rows[1])


def test_a_step_compares_only_matches_on_a_machine_timed_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    strengthchart = load_chart_module(monkeypatch)
    # Stages 7 and 8 played both anchors; against Sunfish on a machine a third slower in
    # stage 8's match, against Stockfish on one speed. The step takes Stockfish's pair alone.
    stages = [measured("stage-07-uci", 0.0, 30.0), measured("stage-08-tt", 200.0, 30.0,
                                                            nps=12_000)]
    linked = [measured("stage-07-uci", -400.0, 40.0), measured("stage-08-tt", -180.0, 40.0)]
    assert first_step(strengthchart, tmp_path / "both", stages, linked) == (
        f"from 7 to 8, +220 ± {math.hypot(40, 40):.0f} Elo, resolved")
    # With Sunfish's matches alone, nothing compares: the step says why, and the points'
    # own matches are no way round it.
    assert first_step(strengthchart, tmp_path / "speeds", stages) == (
        "from 7 to 8, not compared, since the machine ran at different speeds in the two "
        "matches")
    untimed = [entry | {"conditions": {"quiet": True}} for entry in stages]
    assert first_step(strengthchart, tmp_path / "untimed", untimed) == (
        "from 7 to 8, not compared, since neither match timed the machine")
    untimed[1] = stages[1] | {"conditions": {"quiet": True, "speed": {"nps": 12_000}}}
    assert first_step(strengthchart, tmp_path / "one untimed", untimed) == (
        "from 7 to 8, not compared, since stage 7's match did not time the machine")
    # A machine that changed speed during one match: that match is named, with its timings.
    slowed = [stages[0], stages[1] | {"conditions": {
        "quiet": True, "speed": {"nps": 18_000}, "speed_after": {"nps": 15_000}}}]
    assert first_step(strengthchart, tmp_path / "slowed", slowed) == (
        "from 7 to 8, not compared, since stage 8's match timed its machine at 18,000 nodes "
        "a second at its start and 15,000 at its end (20% apart)")
    # Timed alike, on two processors: their speeds on Sunfish's search say too little.
    # The processors are named as the text names them, in alphabetical order.
    on_two = [entry | {"conditions": {"quiet": True, "speed": {"nps": 18_000}, "cpu": cpu}}
              for entry, cpu in zip(stages, ("Intel(R) Xeon(R) Processor", "AMD EPYC"),
                                    strict=True)]
    assert first_step(strengthchart, tmp_path / "processors", on_two) == (
        "from 7 to 8, not compared, since the two matches ran on different processors "
        "(AMD EPYC and Intel Xeon)")


def test_steps_not_compared_for_one_reason_share_it_and_the_ends_say_if_they_compare(
        tmp_path: Path) -> None:
    # Stage 8's machine slowed during its match: neither step beside it compares, for one
    # reason, said once. Stages 7 and 9 ran alike, so the two ends compare.
    stages = [measured("stage-07-uci", 0.0, 30.0),
              measured("stage-08-tt", 100.0, 30.0) | {"conditions": {
                  "quiet": True, "speed": {"nps": 18_000}, "speed_after": {"nps": 15_000}}},
              measured("stage-09-pvs", 150.0, 30.0)]
    chapters = ["stage-07-uci", "stage-08-tt", "stage-09-pvs"]
    write_chart_data(tmp_path / "slowed", stages, chapters)
    sentence, _axes, _names = run_intro_cells(tmp_path / "slowed")
    assert ("Not compared, from one measured stage to the next: from 7 to 8 and from 8 to 9, "
            "since stage 8's match timed its machine at 18,000 nodes a second at its start and "
            "15,000 at its end (20% apart).") in sentence
    assert "; the points of stages" not in sentence
    # On two processors, the two ends are said not to compare as well.
    stages[2] = measured("stage-09-pvs", 150.0, 30.0) | {"conditions": {
        "quiet": True, "speed": {"nps": 18_000}, "cpu": "AMD EPYC"}}
    stages[0] = stages[0] | {"conditions": stages[0]["conditions"] | {"cpu": "Intel Xeon"}}
    write_chart_data(tmp_path / "two", stages, chapters)
    sentence, _axes, _names = run_intro_cells(tmp_path / "two")
    assert ("stage 9 +150.0 ± 30.0 Elo over 300 games; the points of stages 7 and 9 are not "
            "compared, since the two matches ran on different processors (AMD EPYC and Intel "
            "Xeon).") in sentence


def test_an_open_interval_moves_onto_the_scale_with_its_open_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    strengthchart = load_chart_module(monkeypatch)
    placement = strengthchart.Placement("stockfish-1800", 400.0, 30.0, ("stage-08-tt",))
    swept = {"stage": "stage-09-pvs", "score_fraction": 1.0,
             "elo": {"difference": None, "lower": 250.0, "upper": None, "margin": None,
                     "text": "at least +250.0"}}
    moved = strengthchart.on_scale(swept, placement)["elo"]
    assert moved["lower"] == pytest.approx(650.0 - 30.0) and moved["upper"] is None
    assert moved["difference"] is None and moved["text"] == "at least +620.0"
    assert "margin" not in moved
    # The chart's own anchor moves nothing.
    own = strengthchart.on_scale(swept, strengthchart.Placement("sunfish"))
    assert own["elo"] == swept["elo"] and own["anchor"] == "sunfish"

