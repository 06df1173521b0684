"""The engine's strength stage by stage: every stage that plays, against fixed anchors.

usage: python tools/strength_by_stage.py [--anchor NAME] [--only STAGE] [--games N]
                                         [--resume] [--list] [--wait | --allow-load]

Plays cb2026 as it was at each stage (tangled from the book, compiled where a C compiler
exists, as tools/elo_matches.py does) against the same opponent, with the book's match runner
(`python -m cb2026.match`), and writes book/data/strength/by-stage.json and one PGN per stage
(for another anchor than Sunfish, the same in book/data/strength/ANCHOR/), which the book's
introduction draws. While a stage's match runs, its journal lives in unfinished/ in the
anchor's folder (tracked, so that a match longer than a session can be
committed and continued from another checkout at the same path); `--resume` continues it and
skips the stages already in the data file. A finished stage removes its unfinished files.

Which stages. A stage is measured if its engine answers `go depth 1` with a `bestmove`: from
stage 7 on, the first to search over UCI. Stages 5 and 6 have a search but only `go perft`;
playing them would need a UCI loop and time management written outside the book, so the
match would rate that driver as much as the chapter. They are left out; chapters 5 and 6 rate
one technique each in play instead (move ordering and the quiescence search: the chapter-7
engine against itself with that technique switched off in one copy).
A stage whose engine modules are byte for byte those of the stage before (7.1, which adds the
match runner only) is not played again: it is recorded as the same engine.

The anchors. The chart's scale is Elo against Sunfish (PyPI, the version `make opponents`
pins), at 5+0.05 for both sides, the clock of chapter 7.1's first match. Sunfish is fixed: its
version goes into the settings of the data file and into every stage's entry, so a run after
a Sunfish upgrade starts the chart afresh instead of mixing two anchors. It is a small engine
that plays whole games over UCI and, like ours, is written in Python. It is behind from the
first stage that plays, and further behind at each stage after (the data file has the scores;
stage 7 was played by the match runner from before it read Sunfish's lowerbound/upperbound
lines as bounds, which let it adjudicate those games on scores; the introduction says what
that changes).
The chart draws a stage from an anchor only while its score there lies between 10 and 90%
(INFORMATIVE_SCORES in book/chapters/strengthchart.py), where a score still tells one
strength from another; so Sunfish stops at 8.1, still inside that range, and a stronger
second anchor takes over: Stockfish with UCI_LimitStrength at UCI_Elo 1800 (chapter 7.1's
matches put that level some 400 Elo above Sunfish at this clock), on the same clock. Each
anchor has its own data file and folder (Sunfish book/data/strength, the others
book/data/strength/ANCHOR) and its own range of stages (ANCHOR_STAGES): Sunfish plays the
stages up to 8.1, Stockfish 1800 every stage from 7 on, so that stages 7 to 8.1 play both.
Once they have, they link the two scales: the book's chart (book/chapters/strengthchart.py)
places a stage measured against Stockfish 1800 on Sunfish's scale through them, with the
link's own uncertainty added to the stage's. A stage links only if it played both anchors as
one player on one machine: the same engine code (the code digests where both entries have
them, else the engine digest), and machines timed alike in both matches
(strengthchart.link_fault); so a stage's code changed since its Sunfish match, or a
Sunfish match that never timed its machine, means playing that match again.

The engines are compiled with mypyc (tools/compile_engine.py) where a C compiler exists, and
Sunfish runs in the plain interpreter, so a faster or slower machine, or another Python, need
not move both sides alike: the ratings hold for this build, this machine and this clock. The
build goes into the settings too (a compiled and an interpreted run never share a chart), and
each entry records the machine's load.

Every stage plays the same games: colour-reversed pairs from the book's opening suite in the
runner's fixed order (seed 2026), with elo_matches' adjudication and no SPRT (the question is
how strong, not whether stronger); the data file gives each stage's 95% interval. Stage 7
plays 400 (GAMES_BY_STAGE),
since its match is also chapter 7.1's rating against Sunfish. Each stage's entry keeps the
command that played it, and the runner's whole summary (depths, blind moves, time losses)
lies beside its PGN.
A clock match needs the quiet machine: the run holds the measurement lock of tools/quiet.py
and refuses a busy machine (`--wait` waits for a quiet one). On a clock it plays one pair
fewer than the machine has cores at once, chapter 7.1's rule: in a pair one engine thinks
at a time, so on the book's 2-core machine one game runs at a time beside a spare core, and
on N cores N - 1 games. At fixed nodes every core plays a pair. `--nodes`, `--anchor self`
and `--interpreted` are for trials and tests only.
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import importlib.metadata
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import elo_matches  # noqa: E402
import quiet  # noqa: E402
from compile_engine import ENGINE_MODULES, PACKAGE, missing_compiler, source_digests  # noqa: E402
from elo_matches import ADJUDICATION, STOCKFISH, SUNFISH  # noqa: E402
from literate.book import chapters  # noqa: E402
from literate.stages import package_folder  # noqa: E402

DATA_FOLDER = ROOT / "book" / "data" / "strength"
WORK_FOLDER = DATA_FOLDER / "unfinished"
DATA_NAME = "by-stage.json"
CLOCK = "5+0.05"
GAMES = 300
# Stage 7's match is also chapter 7.1's rating against Sunfish, which asks for 400 games.
GAMES_BY_STAGE = {"stage-07-uci": 400}
PROBE_SECONDS = 30.0  # an interpreted stage answers `go depth 1` in a second or two


@dataclass(frozen=True)
class Anchor:
    """The fixed opponent of every stage."""

    name: str  # the id of the commands and the data files
    spec: tuple[str, ...]  # the runner's engine spec, without the name
    description: str
    title: str  # the name in a sentence
    package: str | None = None  # the PyPI package whose version identifies the engine


ANCHORS = {
    "sunfish": Anchor("sunfish", (f"cmd={SUNFISH}",), "Sunfish (PyPI), pure Python", "Sunfish",
                      "sunfish"),
    "stockfish-1350": Anchor(
        "stockfish-1350",
        (f"cmd={STOCKFISH}", "option.UCI_LimitStrength=true", "option.UCI_Elo=1350",
         "option.Threads=1"),
        "Stockfish with UCI_LimitStrength at UCI_Elo 1350, one thread",
        "Stockfish at UCI_Elo 1350",
    ),
    "stockfish-1800": Anchor(
        "stockfish-1800",
        (f"cmd={STOCKFISH}", "option.UCI_LimitStrength=true", "option.UCI_Elo=1800",
         "option.Threads=1"),
        "Stockfish with UCI_LimitStrength at UCI_Elo 1800, one thread",
        "Stockfish at UCI_Elo 1800",
    ),
    # Not fixed at all: the newest cb2026. Only for trials and the tool's own tests.
    "self": Anchor("self", (), "cb2026 of the newest stage (a trial, not a fixed anchor)",
                   "cb2026 itself"),
}


# The chart's scale: its data file is book/data/strength/by-stage.json, another anchor's is
# book/data/strength/ANCHOR/by-stage.json.
PRIMARY_ANCHOR = "sunfish"

# The stages each anchor plays, first and last (None: no limit). Sunfish's stop at 8.1, the
# last stage whose score against it the chart still reads (the docstring); Stockfish 1800
# starts at stage 7 so that three stages link the two.
ANCHOR_STAGES: dict[str, tuple[str | None, str | None]] = {
    "sunfish": (None, "stage-08.1-tt-buckets"),
    "stockfish-1800": ("stage-07-uci", None),
}


def stage_number(stage: str) -> list[int]:
    """A stage id's number as a sort key: [8, 1] for stage-08.1-tt-buckets."""
    return [int(part) for part in stage.split("-")[1].split(".")]


def in_anchor_range(anchor: str, stage: str) -> bool:
    """True if `anchor` plays `stage`. The bounds are compared by number, not looked up in
    the book, so a snapshot whose book ends before a bound plays up to its last stage."""
    first, last = ANCHOR_STAGES.get(anchor, (None, None))
    return ((first is None or stage_number(stage) >= stage_number(first))
            and (last is None or stage_number(stage) <= stage_number(last)))


def engine_command(stage: str, interpreted: bool) -> tuple[str, str]:
    """A shell command that starts cb2026 as it was at `stage`, and which build it runs
    (tools/elo_matches.py's, so that both tools start the engine the same way)."""
    return elo_matches.engine_command(stage, "interpreted" if interpreted else "compiled")


def engine_modules(package: Path) -> list[str]:
    """The modules the engine in `package` (a folder holding cb2026's modules) runs: the
    command loop (cli.py) and every module of the package it imports, directly or through
    another, in name order. Following the imports, rather than naming the modules, takes in
    those the compiled build leaves to the interpreter (parallel.py, from stage 16) and
    leaves out the match runner and the tuner."""
    found: set[str] = set()
    waiting = ["cli"]
    while waiting:
        name = waiting.pop()
        path = package / f"{name}.py"
        if name in found or not path.exists():
            continue
        found.add(name)
        waiting.extend(imported_modules(path.read_text()))
    return sorted(found)


def imported_modules(source: str) -> list[str]:
    """The modules of the package that `source` imports, wherever the import stands."""
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            # `from .search import go` is `from cb2026.search import go` inside the package.
            parts = ([PACKAGE] if node.level == 1 else []) + (node.module or "").split(".")
            parts = [part for part in parts if part]
            if parts[:1] == [PACKAGE] and len(parts) > 1:
                names.append(parts[1])
            elif parts == [PACKAGE]:  # from cb2026 import search; from . import search
                names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.extend(alias.name.split(".")[1] for alias in node.names
                         if alias.name.startswith(f"{PACKAGE}."))
    return names


def engine_digest(stage: str) -> str:
    """A digest of the engine modules of `stage`, every byte (not the match runner)."""
    return bytes_digest(package_folder(stage, ROOT) / PACKAGE)


def bytes_digest(package: Path) -> str:
    """A digest of every byte of the engine modules in `package`. The compiled ones go in
    first, in the order of compile_engine.ENGINE_MODULES, the others after them: so the
    digests recorded before stage 16 brought an interpreted engine module stay as they were."""
    modules = engine_modules(package)
    ordered = ([name for name in ENGINE_MODULES if name in modules]
               + [name for name in modules if name not in ENGINE_MODULES])
    digest = hashlib.sha256()
    for name in ordered:
        digest.update(name.encode() + b"\0" + (package / f"{name}.py").read_bytes())
    return digest.hexdigest()[:16]


@functools.cache
def recorded_code(stage: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The digest of every byte of `stage`'s engine, and of each module's code without its
    comments and docstrings (compile_engine.source_digests), which a link between two
    anchors compares so that a change of wording between two matches does not part them.
    Kept for the process: the first call fixes the code a match records."""
    folder = package_folder(stage, ROOT)
    modules = engine_modules(folder / PACKAGE)
    code = tuple((name, digest) for name, digest in source_digests(folder).items()
                 if name.removesuffix(".py") in modules)
    return bytes_digest(folder / PACKAGE), code


def stage_code(stage: str) -> dict[str, object]:
    """The digests of the engine of `stage` that a match records (recorded_code), as a
    fresh record."""
    engine, code = recorded_code(stage)
    return {"engine_digest": engine, "code_digests": dict(code)}


def answers_go(stage: str) -> bool:
    """Return True if the engine of `stage` answers `go depth 1` with a legal first move."""
    command, _build = engine_command(stage, interpreted=True)
    try:
        # At the end of its input an engine finishes the search it is in, then leaves.
        completed = subprocess.run(
            shlex.split(command), input="uci\nisready\nposition startpos\ngo depth 1\n",
            capture_output=True, text=True, timeout=PROBE_SECONDS, check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    for line in completed.stdout.splitlines():
        words = line.split()
        if words[:1] == ["bestmove"] and len(words) > 1:
            try:
                return chess.Move.from_uci(words[1]) in chess.Board().legal_moves
            except ValueError:  # not a move at all, e.g. "(none)"
                return False
    return False


@dataclass(frozen=True)
class StagePlan:
    """What the tool does with one stage: play it, point to an equal stage, or leave it out."""

    stage: str
    plays: bool
    same_engine_as: str | None = None


def plan_stages(through: str | None = None) -> list[StagePlan]:
    """Return the stages of the book in order, up to `through` (all when None), with whether
    and how each is measured. A stage's plan depends only on the stages before it, so
    `--only` plans no further than its stage: each probe starts an engine."""
    plans: list[StagePlan] = []
    measured: tuple[str, str] | None = None  # the last stage played, and its engine's digest
    for chapter in chapters(ROOT):
        stage = chapter.stage_id
        if not answers_go(stage):
            plans.append(StagePlan(stage, plays=False))
            continue
        digest = engine_digest(stage)
        if measured is not None and measured[1] == digest:
            plans.append(StagePlan(stage, plays=True, same_engine_as=measured[0]))
        else:
            plans.append(StagePlan(stage, plays=True))
            measured = (stage, digest)
        if stage == through:
            break
    return plans


def games_for(stage: str, options: argparse.Namespace) -> int:
    """The games `stage` plays: as many as asked for, else its own default."""
    if options.games:
        return options.games
    # The exceptions are chapter 7.1's rating against Sunfish, not the other anchors' matches.
    own = GAMES_BY_STAGE if options.anchor == PRIMARY_ANCHOR else {}
    return own.get(stage, GAMES)


def limit_arguments(options: argparse.Namespace) -> list[str]:
    """The runner's limit arguments: the clock, or a fixed node count for trials."""
    return ["--nodes", str(options.nodes)] if options.nodes else ["--tc", options.tc]


def planned_build(options: argparse.Namespace) -> str:
    """Which build the stages will run: compiled, unless asked or forced to interpret."""
    return "interpreted" if options.interpreted or missing_compiler() else "compiled"


def anchor_version(anchor: Anchor) -> str | None:
    """The anchor's package and version ("sunfish 2023.1"), or for an engine from elsewhere
    the name it gives over UCI ("Stockfish 15.1"); None if it has neither."""
    if anchor.package is None:
        return uci_name(anchor)
    try:
        return f"{anchor.package} {importlib.metadata.version(anchor.package)}"
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.cache
def uci_name(anchor: Anchor) -> str | None:
    """The `id name` the anchor's program answers to `uci`, or None if it gives none."""
    commands = [word.removeprefix("cmd=") for word in anchor.spec if word.startswith("cmd=")]
    if not commands:
        return None
    try:
        completed = subprocess.run(shlex.split(commands[0]), input="uci\nquit\n",
                                   capture_output=True, text=True, timeout=PROBE_SECONDS,
                                   check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in completed.stdout.splitlines():
        if line.startswith("id name "):
            return line.removeprefix("id name ").strip()
    return None


def settings(options: argparse.Namespace) -> dict[str, str | None]:
    """What must be equal for two stages' results to share one chart."""
    anchor = ANCHORS[options.anchor]
    return {"anchor": options.anchor, "anchor_version": anchor_version(anchor),
            "build": planned_build(options), "limits": " ".join(limit_arguments(options))}


def concurrency(on_clock: bool) -> int:
    """Pairs at once: every core at fixed nodes, one spare on a clock (chapter 7.1's rule)."""
    # In a pair one engine thinks at a time: on a clock, N - 1 pairs keep N - 1 cores busy.
    cores = os.cpu_count() or 1
    return max(1, cores - 1) if on_clock else cores


def match_arguments(stage: str, command: str, options: argparse.Namespace) -> list[str]:
    """The match runner's arguments for `stage` against the anchor."""
    anchor = ANCHORS[options.anchor]
    if anchor.spec:
        opponent = anchor.spec
    else:  # the "self" anchor: the newest stage, built as the stages are
        newest, _build = engine_command(chapters(ROOT)[-1].stage_id, options.interpreted)
        opponent = (f"cmd={newest}",)
    output = options.work / stage
    return [
        "--engine", shlex.join([f"cmd={command}", f"name=cb2026-{stage}"]),
        "--engine", shlex.join([*opponent, f"name={anchor.name}"]),
        "--games", str(games_for(stage, options)),
        "--concurrency", str(concurrency(not options.nodes)),
        *limit_arguments(options), *ADJUDICATION,
        "--json", f"{output}.json", "--pgn", f"{output}.pgn",
        "--event", f"cb2026 strength {stage} vs {anchor.name}", "--quiet",
        *(["--resume"] if options.resume else []),
    ]


def anchor_record(options: argparse.Namespace, id_name: str | None) -> dict[str, object]:
    """The anchor as the data file names it: description, UCI name and package version."""
    anchor = ANCHORS[options.anchor]
    return {"name": anchor.name, "description": anchor.description, "uci_id_name": id_name,
            "package_version": anchor_version(anchor), "limits": " ".join(limit_arguments(options))}


def stage_entry(stage: str, summary: dict, build: str, conditions: dict) -> dict[str, object]:
    """One stage's line of the data file, from the runner's summary of its match."""
    return {
        "stage": stage,
        "build": build,
        **stage_code(stage),
        "games": summary["games_played"],
        "wins": summary["wins"],
        "losses": summary["losses"],
        "draws": summary["draws"],
        "score_fraction": summary["score_fraction"],
        "pentanomial": summary["pentanomial"],
        "elo": summary["elo"],  # of cb2026 against the anchor, from the pairs, 95% interval
        "errors": summary["errors"],
        "date": summary["date"],
        "wall_seconds": summary["wall_seconds"],
        "conditions": conditions,
        "pgn": f"{stage}.pgn",
        "summary": f"{stage}.json",
    }


def load_data(path: Path, wanted: dict[str, str]) -> dict:
    """The data file's contents if they were measured under `wanted`, else an empty record."""
    if path.exists():
        data = json.loads(path.read_text())
        if data.get("settings") == wanted:
            return data
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: measured "
              f"under {data.get('settings')}, not {wanted}; starting it afresh", flush=True)
    return {"settings": wanted, "stages": []}


def put_entry(data: dict, entry: dict, order: list[str]) -> None:
    """Put a stage's entry into the data, replacing its old one, keeping book order."""
    entries = [old for old in data["stages"] if old["stage"] != entry["stage"]] + [entry]
    data["stages"] = sorted(entries, key=lambda item: order.index(item["stage"]))


def finished(data: dict, stage: str, games: int) -> bool:
    """True if the data already holds a match of at least `games` games for `stage`."""
    return any(entry["stage"] == stage and entry.get("games", 0) >= games
               for entry in data["stages"])


def play_stage(stage: str, options: argparse.Namespace) -> dict | None:
    """Play `stage` against the anchor under the measurement lock; return its entry."""
    command, build = engine_command(stage, options.interpreted)
    stage_code(stage)  # the engine's digests as the match starts, for its entry at the end
    on_clock = not options.nodes
    print(f"{stage}: {build} engine against {options.anchor}, {games_for(stage, options)} games, "
          f"{' '.join(limit_arguments(options))}", flush=True)
    allow_load = options.allow_load
    # A fixed-node match gives the same games under any load: record the load, never refuse.
    options.allow_load = allow_load or not on_clock
    options.lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        with quiet.measurement(options, f"strength_by_stage {stage}",
                               lock_path=options.lock) as conditions:
            options.work.mkdir(parents=True, exist_ok=True)
            runs = elo_matches.start_run(options.work / stage, conditions, on_clock,
                                         options.resume)
            if runs is None:
                return None
            completed = subprocess.run(
                [sys.executable, "-m", "cb2026.match", *match_arguments(stage, command, options)],
                env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, check=False,
            )
            elo_matches.end_run(conditions, on_clock, completed.returncode == 0)
    finally:
        options.allow_load = allow_load
    if completed.returncode != 0:
        print(f"{stage}: the match runner stopped with status {completed.returncode}; "
              "--resume continues it", flush=True)
        return None
    summary = json.loads((options.work / f"{stage}.json").read_text())
    options.output.mkdir(parents=True, exist_ok=True)
    # The runner's whole summary goes beside the PGN: a chapter that rates its own stage
    # against the anchor (7.1) reads the depths, blind moves and time losses from it.
    for suffix in (".pgn", ".json"):
        shutil.copyfile(options.work / f"{stage}{suffix}", options.output / f"{stage}{suffix}")
    entry = stage_entry(stage, summary, build, conditions.record())
    # Every run's conditions, the last completed at its end (elo_matches.play says why).
    entry["runs"] = [*runs[:-1], {**runs[-1], **conditions.record()}]
    entry["refused_runs"] = quiet.previous_runs(elo_matches.refused_path(options.work / stage))
    entry["command"] = options.command
    entry["anchor_uci_id_name"] = summary["engines"][1]["id_name"]
    entry["anchor_version"] = anchor_version(ANCHORS[options.anchor])
    return entry


def parse_arguments(arguments: list[str] | None) -> tuple[argparse.ArgumentParser,
                                                         argparse.Namespace]:
    """The parser and the parsed command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", metavar="STAGE", help="measure only this stage")
    exceptions = ", ".join(f"{stage} {games}" for stage, games in GAMES_BY_STAGE.items())
    parser.add_argument("--games", type=int, default=None,
                        help=f"games per stage, in pairs (default {GAMES}; against "
                             f"{PRIMARY_ANCHOR}: {exceptions})")
    parser.add_argument("--resume", action="store_true",
                        help="continue an interrupted match; skip stages already measured")
    parser.add_argument("--list", action="store_true", help="list the stages and stop")
    parser.add_argument("--anchor", choices=sorted(ANCHORS), default=PRIMARY_ANCHOR,
                        help="the fixed opponent (default sunfish; self is for trials)")
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--tc", default=CLOCK, help=f"the clock of both sides (default {CLOCK})")
    limits.add_argument("--nodes", type=int, help="fixed nodes per move instead (trials)")
    parser.add_argument("--interpreted", action="store_true",
                        help="play the plain Python engines, not the compiled ones (trials)")
    parser.add_argument("--output", type=Path, default=None,
                        help="where the data file and PGNs go (default book/data/strength, "
                             "for another anchor book/data/strength/ANCHOR)")
    parser.add_argument("--work", type=Path, default=None,
                        help="where unfinished matches go (default OUTPUT/unfinished)")
    parser.add_argument("--lock", type=Path, default=quiet.LOCK_PATH,
                        help="the measurement lock file (tests use their own)")
    quiet.add_arguments(parser)
    options = parser.parse_args(arguments)
    if options.games is not None and options.games < 2:
        parser.error("--games must be at least 2 (one pair)")
    if options.nodes is not None and options.nodes < 1:
        parser.error("--nodes must be at least 1")
    if options.output is None:
        options.output = anchor_folder(options.anchor)
    if options.work is None:
        options.work = options.output / WORK_FOLDER.name
    return parser, options


def anchor_folder(anchor: str) -> Path:
    """Where an anchor's data file and PGNs go: the chart's own folder, or a folder in it."""
    return DATA_FOLDER if anchor == PRIMARY_ANCHOR else DATA_FOLDER / anchor


def describe_plan(plans: list[StagePlan], anchor: str) -> None:
    """Print what the tool would do with each stage against `anchor`."""
    for plan in plans:
        if not plan.plays:
            print(f"{plan.stage}: cannot play (no bestmove for `go depth 1`)")
        elif not in_anchor_range(anchor, plan.stage):
            print(f"{plan.stage}: outside the stages {anchor} plays (ANCHOR_STAGES)")
        elif plan.same_engine_as:
            print(f"{plan.stage}: the engine of {plan.same_engine_as}, not played again")
        else:
            print(f"{plan.stage}: plays")


def main(arguments: list[str] | None = None) -> int:
    """Measure the stages (or list them); write the data file after every stage."""
    parser, options = parse_arguments(arguments)
    plans = plan_stages(through=options.only)
    if options.list:
        describe_plan(plans, options.anchor)
        return 0
    playing = [plan for plan in plans if plan.plays and in_anchor_range(options.anchor, plan.stage)]
    if options.only is not None:
        if options.only not in [plan.stage for plan in playing]:
            parser.error(f"--only: {options.only!r} is not a stage that plays against "
                         f"{options.anchor} ({', '.join(plan.stage for plan in playing)})")
        playing = [plan for plan in playing if plan.stage == options.only]
    path = options.output / DATA_NAME
    data = load_data(path, settings(options))
    order = [chapter.stage_id for chapter in chapters(ROOT)]
    # Stages planned by an earlier run (one without --only) stay listed.
    listed = [*data.get("not_playing", []), *(plan.stage for plan in plans if not plan.plays)]
    data["not_playing"] = [stage for stage in order if stage in listed]
    data["adjudication"] = " ".join(ADJUDICATION)
    data["openings"] = "the book's suite (book/data/openings), the runner's order (seed 2026)"
    # Stages may be played by different commands (7 with more games, for chapter 7.1):
    # each entry keeps the one that played it.
    # The command that plays the stage again: without the flags that only say how to run.
    given = sys.argv[1:] if arguments is None else arguments
    options.command = shlex.join(["python", "tools/strength_by_stage.py", *(
        word for word in given if word not in ("--resume", "--wait", "--allow-load"))])
    for plan in playing:
        if plan.same_engine_as is not None:
            entry: dict | None = {"stage": plan.stage, "same_engine_as": plan.same_engine_as}
        elif options.resume and finished(data, plan.stage, games_for(plan.stage, options)):
            print(f"{plan.stage}: already measured, skipped (--resume)", flush=True)
            continue
        else:
            entry = play_stage(plan.stage, options)
            if entry is None:
                return 1
            data["anchor"] = anchor_record(options, entry["anchor_uci_id_name"])
        put_entry(data, entry, order)
        options.output.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {plan.stage} into {path}", flush=True)
        # Only now, with its entry written, is the match's journal no longer needed.
        elo_matches.remove_unfinished(options.work / plan.stage)
    return 0


if __name__ == "__main__":
    started = time.monotonic()
    status = main()
    print(f"strength_by_stage: {time.monotonic() - started:.0f} s", flush=True)
    sys.exit(status)
