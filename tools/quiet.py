"""Timing hygiene shared by every measuring tool: one measurement at a time, on a quiet machine.

A tool wraps its measuring in `measurement(options, tool)`:

- an exclusive lock on LOCK_PATH, so that no two measurements of the book ever overlap (a
  second one refuses with a message naming the first, or waits for it with `--wait`);
- the 1-minute load average before the measurement: above LOAD_LIMIT_PER_CORE times the
  number of cores the tool refuses to start, unless `--allow-load`, and then the data file
  says `"quiet": false`;
- a `conditions` record for the data file: CPU model, cores, Python, the load before and
  after, the lock, dates. The load after counts the measurement itself: a run that keeps
  one core busy for a minute or more ends near 1.0 even on an idle machine. A clock match
  adds the machine's speed (calibrate.py), and a match played in several runs keeps each
  run's record (`record_run`).

Why 0.3 per core: the load average counts the processes running or waiting to run. An idle
machine (shells, an editor, cron) stays below 0.1 per core; one busy process on a 2-core
machine adds 0.5 per core, and with it a measurement shares caches, memory bandwidth and
turbo headroom with a neighbour, and loses its core whenever the two meet. 0.3 lets the
first pass and stops the second. The figure is a 1-minute average: after heavy work it
takes a minute or two to fall, which `--wait` waits out.
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import json
import math
import os
import platform
import sys
import time
import timeit
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

LOCK_PATH = Path("/tmp/cb2026-measure.lock")
LOAD_LIMIT_PER_CORE = 0.3
WAIT_STEP = 10.0  # seconds between looks at the lock or the load under --wait
WAIT_LIMIT = 1800.0  # give up waiting after half an hour


def one_minute_load() -> float:
    """The 1-minute load average of the machine."""
    return os.getloadavg()[0]


def cpu_model() -> str:
    """The processor's model name (from /proc/cpuinfo on Linux), or a fallback."""
    # Not the match runner's cpu_model (chapter 7.1): the tools measure every stage's engine,
    # and the packages of stages before 7.1 have no runner to ask.
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def now() -> str:
    """The time in UTC, to the minute."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass
class Conditions:
    """How the machine was while a measurement ran: the data file's `conditions` record."""

    tool: str
    quiet: bool
    load_before: float
    load_limit: float
    cpu: str = field(default_factory=cpu_model)
    cores: int = field(default_factory=lambda: os.cpu_count() or 1)
    python: str = f"{platform.python_implementation()} {platform.python_version()}"
    system: str = field(default_factory=platform.platform)
    lock: str = str(LOCK_PATH)
    started: str = field(default_factory=now)
    load_after: float | None = None
    finished: str | None = None
    # The machine's speed (calibrate.py's machine_speed), measured by a clock match at its
    # start and again at its end: on a clock the engine's strength follows it, and a session's
    # machine need not keep one speed for an hour.
    speed: dict[str, Any] | None = None
    speed_after: dict[str, Any] | None = None

    def record(self) -> dict[str, object]:
        """The record as a dictionary for JSON."""
        return asdict(self)


def interleaved(names: Sequence[str], repeats: int) -> Iterator[str]:
    """The names `repeats` times over, every other pass reversed (AB BA AB ...), so that a
    drift of the machine's speed during the run falls on every contender alike."""
    for repeat in range(repeats):
        yield from (reversed(names) if repeat % 2 else names)


def calibrated_number(timer: timeit.Timer, seconds: float) -> int:
    """The number of runs of `timer` that a calibration run says take `seconds`."""
    number = 1
    taken = timer.timeit(number)
    while taken < seconds / 10:  # until the timer's resolution is far below the time
        number *= 2
        taken = timer.timeit(number)
    return math.ceil(number * seconds / taken)


# Ratios of two timings inside this band are read as no clear difference: the book's timings
# come from a machine that may be busy, and a gap that small is no evidence either way.
NO_CLEAR_DIFFERENCE = (0.9, 1.1)


def band(ratio: float) -> str:
    """Return "above", "inside" or "below" the band of no clear difference (NO_CLEAR_DIFFERENCE)."""
    low, high = NO_CLEAR_DIFFERENCE
    return "above" if ratio > high else "below" if ratio < low else "inside"


def runs_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A measurement's runs: its `runs`, or its `conditions` for a file that keeps no runs."""
    return record.get("runs") or [record.get("conditions") or {}]


def run_speeds(record: dict[str, Any]) -> list[int]:
    """The machine speeds (calibrate.py's nodes a second) a measurement's runs timed, at each
    run's start and, where it was timed, at its end."""
    return [run[key]["nps"] for run in runs_of(record) for key in ("speed", "speed_after")
            if run.get(key)]


def timed_runs(record: dict[str, Any]) -> int:
    """How many of a measurement's runs timed the machine at their start."""
    return sum(1 for run in runs_of(record) if run.get("speed"))


def run_count(record: dict[str, Any]) -> int:
    """How many runs played a measurement: its `runs`, and one more before them if the first
    found games already played (a run from before runs were recorded)."""
    runs = runs_of(record)
    return len(runs) + (runs[0].get("games_before", 0) > 0)


def speeds_alike(speeds: Sequence[float]) -> bool:
    """Whether machine speeds agree: the fastest over the slowest inside the band of no
    clear difference (read this way round, the answer does not depend on their order)."""
    return band(max(speeds) / min(speeds)) == "inside"


def speed_clause(record: dict[str, Any], place: str = " there") -> str:
    """The book's words for a measurement's machine speed, as a clause: one figure; a run's
    start and end (only the run that finishes a clock match is timed at its end); or the
    range over its runs with how many were timed; with whether the timings agree; and the
    starts a check of the machine refused (refused_clause). "" if none was timed and none
    refused. `place` follows "nodes a second": "" where no machine was named before."""
    speeds = run_speeds(record)
    if not speeds:
        return refused_clause(record)
    clause = "Sunfish's fixed search ran at "
    runs, recorded = run_count(record), runs_of(record)
    if runs == 1 and len(speeds) == 2:  # one run, timed at its start and at its end
        clause += (f"{speeds[0]:,} nodes a second{place} at the match's start and "
                   f"{speeds[1]:,} at its end (tools/calibrate.py)")
    else:
        low, high = min(speeds), max(speeds)
        figures = f"{low:,}" if low == high else f"{low:,} to {high:,}"
        clause += f"{figures} nodes a second{place} (tools/calibrate.py)"
    if runs > 1:
        started = timed_runs(record)
        timed = ("each timed at its start" if started == runs
                 else f"{started} of them timed at {'its' if started == 1 else 'their'} start")
        ended = sum(1 for run in recorded if run.get("speed_after"))
        also = ("" if not ended else ", the last also at its end"
                if ended == 1 and recorded[-1].get("speed_after")
                else f", {ended} also at {'its' if ended == 1 else 'their'} end")
        clause += f", over {runs} runs, {timed}{also}"
    agree = ("" if len(speeds) < 2 else ": alike, by the band of no clear difference"
             if speeds_alike(speeds) else ": NOT alike, by the band of no clear difference")
    refused = refused_clause(record)
    return clause + agree + (f"; {refused}" if refused else "")


def refused_clause(record: dict[str, Any]) -> str:
    """The book's words for the starts of a match that its check of the machine refused
    (elo_matches.start_run's `refused_runs`), with their timings; "" if there were none."""
    refused = record.get("refused_runs") or []
    if not refused:
        return ""
    speeds = run_speeds({"runs": refused})
    timed = ""
    if speeds:
        low, high = min(speeds), max(speeds)
        figures = f"{low:,}" if low == high else f"{low:,} to {high:,}"
        timed = f" (timed at {figures} nodes a second)"
    count = len(refused)
    return (f"{count} start{' was' if count == 1 else 's were'} refused by the check of the "
            f"machine{timed} and played nothing")


def previous_runs(path: Path) -> list[dict[str, Any]]:
    """The runs of a match recorded at `path` so far (record_run's file), oldest first."""
    return json.loads(path.read_text()) if path.exists() else []


def record_run(path: Path, conditions: Conditions, games_before: int) -> list[dict[str, Any]]:
    """Add this run of a match to `path`, one entry for each start or resumption with the
    games it found played, so that a match played over several sessions keeps each
    session's machine; return every run's entry."""
    runs = [*previous_runs(path), {"games_before": games_before, **conditions.record()}]
    path.write_text(json.dumps(runs, indent=1) + "\n")
    return runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options every measuring tool shares: --allow-load and --wait."""
    parser.add_argument(
        "--allow-load", action="store_true",
        help="measure even on a busy machine (the data file then says \"quiet\": false)",
    )
    parser.add_argument(
        "--wait", action="store_true",
        help="wait for another measurement to finish and for the load to fall",
    )


def take_lock(handle: IO[str], wait: bool, pause: Callable[[float], None]) -> None:
    """Hold the exclusive lock on `handle`'s file, or exit naming the holder."""
    waited = 0.0
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            holder = Path(handle.name).read_text().strip() or "another process"
            if not wait or waited >= WAIT_LIMIT:
                sys.exit(f"another measurement is running ({holder}; lock {handle.name}): "
                         "run this when it has finished, or pass --wait")
            print(f"waiting for the measurement lock, held by {holder}", flush=True)
            pause(WAIT_STEP)
            waited += WAIT_STEP


def settled_load(limit: float, allow_load: bool, wait: bool,
                 load: Callable[[], float], pause: Callable[[float], None]) -> float:
    """The load average once it is under `limit` (or allowed); exit if it stays above."""
    waited = 0.0
    current = load()
    while current > limit and not allow_load:
        if not wait or waited >= WAIT_LIMIT:
            sys.exit(f"the machine is busy: 1-minute load average {current:.2f} is above "
                     f"{limit:.2f} ({LOAD_LIMIT_PER_CORE} per core). Measure on a quiet "
                     "machine, pass --wait, or pass --allow-load to record it as not quiet")
        print(f"waiting for the load average ({current:.2f}) to fall below {limit:.2f}",
              flush=True)
        pause(WAIT_STEP)
        waited += WAIT_STEP
        current = load()
    return current


@contextmanager
def measurement(
    options: argparse.Namespace,
    tool: str,
    lock_path: Path = LOCK_PATH,
    load: Callable[[], float] = one_minute_load,
    pause: Callable[[float], None] = time.sleep,
) -> Iterator[Conditions]:
    """Hold the measurement lock on a quiet machine; yield the conditions, completed at exit."""
    limit = round(LOAD_LIMIT_PER_CORE * (os.cpu_count() or 1), 2)
    with open(lock_path, "a+") as handle:
        take_lock(handle, options.wait, pause)
        # Name the holder in the lock file, for the message of whoever comes next.
        handle.truncate(0)
        handle.write(f"pid {os.getpid()}: {tool}, since {now()}\n")
        handle.flush()
        before = settled_load(limit, options.allow_load, options.wait, load, pause)
        conditions = Conditions(tool, quiet=before <= limit, load_before=round(before, 2),
                                load_limit=limit, lock=str(lock_path))
        print(f"{tool}: load average {before:.2f} (limit {limit:.2f}), "
              f"{'quiet' if conditions.quiet else 'NOT quiet'}; {conditions.cpu}", flush=True)
        try:
            yield conditions
        finally:
            conditions.load_after = round(load(), 2)
            conditions.finished = now()
            handle.truncate(0)


def describe(data: dict[str, Any]) -> str:
    """One sentence for a chapter on how the machine was during the measurement in `data`."""
    conditions = data.get("conditions")
    if conditions is None:  # a file from before this module: its `machine` record only
        machine = data["machine"]
        cpu = machine.get("cpu", machine.get("machine", "an unnamed CPU"))
        load = machine.get("load_average")
        during = f", load average {load[0]} at the end" if load else ""
        python = machine["python"].removeprefix("CPython ")
        return (f"Measured {machine['date']} on {cpu} ({machine['cpu_count']} cores), Python "
                f"{python}{during}; not checked for a quiet machine (an older run).")
    verdict = "a quiet machine" if conditions["quiet"] else "NOT a quiet machine (--allow-load)"
    clause = speed_clause(data)
    calibrated = f" {clause[0].upper()}{clause[1:]}." if clause else ""
    return (
        f"Measured {conditions['started']} on {conditions['cpu']} ({conditions['cores']} cores), "
        f"{conditions['python']}; 1-minute load average {conditions['load_before']} before and "
        f"{conditions['load_after']} after, the run's own process included (limit "
        f"{conditions['load_limit']} before): {verdict}.{calibrated}"
    )


BUILD_TIMING_SHOWS = "ratios, each from the best of interleaved runs, and no times"


def describe_build(load_before: float, load: Callable[[], float] = one_minute_load,
                   shows: str = BUILD_TIMING_SHOWS) -> str:
    """One sentence for a chapter on the machine a timing taken during the book's build ran on:
    such a timing is not locked nor checked for a quiet machine, so a chapter shows what
    `shows` says (by default ratios) instead of times."""
    return (
        f"Timed while this copy of the book was built, on {cpu_model()} "
        f"({os.cpu_count() or 1} cores), {platform.python_implementation()} "
        f"{platform.python_version()}; 1-minute load average {load_before:.2f} before and "
        f"{load():.2f} after, not checked for a quiet machine: which is why the chapter shows "
        f"{shows}."
    )
