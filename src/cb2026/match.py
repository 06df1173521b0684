# Generated from the book by tools/literate, from chapters stage-07.1-matches.
# Do not edit: change the chapters and run `make tangle`.

"""The match runner: plays two UCI engines against each other and reports Elo and SPRT.

Usage: python -m cb2026.match --engine "cmd=sunfish-uci" --engine "cmd=stockfish
option.UCI_LimitStrength=true option.UCI_Elo=1350 name=sf1350" --games 20 --tc 5+0.05
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import queue
import random
import shlex
import statistics
import sys
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TextIO

import chess
import chess.engine

from cb2026.elo import (
    SPRT_MIN_PAIRS,
    EloEstimate,
    PairReport,
    SprtState,
    elo_estimate,
    format_interval,
    format_pair_report,
    pair_report,
    pentanomial_counts,
    pentanomial_sprt,
    score_fraction,
)
from cb2026.game import (
    Adjudication,
    GameEnd,
    GameLimits,
    GameRecord,
    MoveReport,
    game_to_pgn,
    limits_description,
    loss_for,
    open_uci_engine,
    parse_time_control,
    play_game,
    time_control_header,
)
from cb2026.openings import Opening, book_suite_path, builtin_openings, load_openings

DEFAULT_GAMES = 20

DEFAULT_SEED = 2026

OPTION_PREFIX = "option."


@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine: its command line, UCI options, and display name."""

    name: str
    command: tuple[str, ...]
    options: dict[str, bool | int | str] = field(default_factory=dict)


def option_value(text: str) -> bool | int | str:
    """Return a UCI option value typed as the engine expects: bool, int, or text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


def parse_engine_spec(text: str) -> EngineSpec:
    """Return the engine of a spec like "cmd=stockfish option.Hash=32 name=sf".

    Fields are shell-quoted, so a command with arguments or an option name
    with spaces is written "cmd='python engine.py'" or "'option.Skill Level=3'".
    """
    command: tuple[str, ...] = ()
    name = ""
    options: dict[str, bool | int | str] = {}
    for token in shlex.split(text):
        key, separator, value = token.partition("=")
        if not separator:
            raise ValueError(f"engine field {token!r} is not key=value")
        if key == "cmd":
            command = tuple(shlex.split(value))
        elif key == "name":
            name = value
        elif key.startswith(OPTION_PREFIX):
            options[key.removeprefix(OPTION_PREFIX)] = option_value(value)
        else:
            raise ValueError(
                f"unknown engine field {key!r} (use cmd, name, option.NAME)"
            )
    if not command:
        raise ValueError(f"engine spec {text!r} has no cmd=")
    return EngineSpec(name or Path(command[0]).name, command, options)


def choose_openings(
    book: list[Opening], pairs: int, seed: int, offset: int = 0
) -> list[Opening]:
    """Return one distinct opening per pair: the book shuffled by `seed`,
    from `offset` on."""
    distinct: dict[str, Opening] = {}
    for opening in book:
        # Two move orders that reach the same position are the same opening.
        distinct.setdefault(opening.board().epd(), opening)
    order = list(distinct.values())
    random.Random(seed).shuffle(order)
    if offset < 0 or offset + pairs > len(order):
        raise ValueError(
            f"{pairs} game pairs from opening offset {offset} need {offset + pairs}"
            f" distinct openings, but the book has {len(order)}"
        )
    return order[offset : offset + pairs]


@dataclass(frozen=True)
class GameTask:
    """One scheduled game: its number, its opening pair, and who plays White."""

    index: int
    pair_index: int
    opening: Opening
    first_plays_white: bool


@dataclass(frozen=True)
class PairTask:
    """Two scheduled games from one opening: the first engine White, then Black."""

    index: int
    opening: Opening

    def games(self) -> list[GameTask]:
        """Return the pair's two games, numbered 2 * index and 2 * index + 1."""
        return [
            GameTask(2 * self.index + second, self.index, self.opening, second == 0)
            for second in (0, 1)
        ]


def build_pairs(openings: list[Opening]) -> list[PairTask]:
    """Return the schedule: one pair of games per opening."""
    return [PairTask(index, opening) for index, opening in enumerate(openings)]


def seat_colors(task: GameTask) -> dict[chess.Color, int]:
    """Return which engine (0 = first, 1 = second) plays each colour."""
    first_color = chess.WHITE if task.first_plays_white else chess.BLACK
    return {first_color: 0, not first_color: 1}


@dataclass(frozen=True)
class SprtSettings:
    """The hypotheses (Elo difference under H0 and H1),
    error rates and minimum of an SPRT."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_pairs: int = SPRT_MIN_PAIRS


@dataclass(frozen=True)
class MatchSettings:
    """Everything that defines a match, as parsed from the command line."""

    engines: tuple[EngineSpec, EngineSpec]
    limits: GameLimits
    adjudication: Adjudication
    openings: list[Opening]
    opening_source: str
    games: int
    concurrency: int = 1
    seed: int = DEFAULT_SEED
    sprt: SprtSettings | None = None
    event: str = "cb2026 match"
    pgn_path: Path | None = None
    json_path: Path | None = None
    show_progress: bool = True
    opening_offset: int = 0
    resume: bool = False
    scheduler: str | None = None


@dataclass(frozen=True)
class GameResult:
    """A finished game together with its PGN text and the first engine's points."""

    task: GameTask
    record: GameRecord
    pgn: str
    first_engine_points: float


RESULT_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def first_engine_points(record: GameRecord, first_plays_white: bool) -> float:
    """Return the points (1, 1/2, 0) the first engine scored in a game."""
    white_points = RESULT_POINTS[record.end.result] if record.end else 0.5
    return white_points if first_plays_white else 1.0 - white_points


def pgn_headers(task: GameTask, settings: MatchSettings) -> dict[str, str]:
    """Return the PGN headers that describe the match rather than the game."""
    headers = {
        "Event": settings.event,
        "Site": "?",
        "Date": datetime.date.today().strftime("%Y.%m.%d"),
        "Round": str(task.index + 1),
        "TimeControl": time_control_header(settings.limits),
    }
    description = limits_description(settings.limits)
    if description != f"tc={headers['TimeControl']}":
        headers["Limits"] = description
    return headers


def start_failure_record(
    task: GameTask, names: dict[chess.Color, str], color: chess.Color, error: Exception
) -> GameRecord:
    """Return the record of a game forfeited because an engine could not be started."""
    reason = f"{names[color]} failed to start: {type(error).__name__}: {error}"
    record = GameRecord(names[chess.WHITE], names[chess.BLACK], task.opening)
    record.end = loss_for(color, "abandoned", reason)
    record.failed_color = color
    return record


def play_task(
    task: GameTask, seats: list[EngineSeat], settings: MatchSettings
) -> GameResult:
    """Return the result of one scheduled game;
    an engine that failed is restarted later."""
    colors = seat_colors(task)
    names = {color: seats[index].spec.name for color, index in colors.items()}
    engines: dict[chess.Color, chess.engine.SimpleEngine] = {}
    record: GameRecord | None = None
    for color, index in colors.items():
        try:
            engines[color] = seats[index].get()
        # A broken engine forfeits its game; the match goes on.
        except Exception as error:
            record = start_failure_record(task, names, color, error)
            break
    if record is None:
        record = play_game(
            engines, names, task.opening, settings.limits, settings.adjudication
        )
    if record.failed_color is not None:
        # A crashed, hung or confused process is replaced before its next game.
        seats[colors[record.failed_color]].close()
    pgn = str(game_to_pgn(record, pgn_headers(task, settings)))
    return GameResult(
        task, record, pgn, first_engine_points(record, task.first_plays_white)
    )


class MatchState:
    """The shared, lock-protected tally that worker threads report finished games to."""

    def __init__(self, settings: MatchSettings, total_games: int) -> None:
        """Start an empty tally for `total_games` games."""
        self.settings = settings
        self.total_games = total_games
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.aborted = False
        self.results: list[GameResult] = []
        self.seats: list[EngineSeat] = []
        self.errors: list[str] = []
        self.wins = self.losses = self.draws = 0
        self.journal: TextIO | None = None
        self.resumed_games = 0
        # The SPRT's first verdict stands: pairs already being played when it came still
        # finish and count in the Elo, but may not move the test back inside its bounds.
        self.sprt_verdict: SprtState | None = None
        self.pairs_at_verdict = 0

    def add_result(self, result: GameResult, from_journal: bool = False) -> None:
        """Count a finished game, journal it, update the progress line,
        stop on a verdict."""
        with self.lock:
            self.results.append(result)
            if result.first_engine_points == 1.0:
                self.wins += 1
            elif result.first_engine_points == 0.0:
                self.losses += 1
            else:
                self.draws += 1
            if from_journal:
                self.resumed_games += 1
            elif self.journal is not None:
                # One line per game, flushed at once:
                # a crash loses only games in progress.
                self.journal.write(json.dumps(result_to_json(result)) + "\n")
                self.journal.flush()
            sprt = self.sprt()
            if (
                sprt is not None
                and sprt.verdict != "continue"
                and self.sprt_verdict is None
            ):
                self.sprt_verdict = sprt
                self.pairs_at_verdict = len(self.completed_pairs())
                self.stop.set()
            if self.settings.show_progress:
                print(
                    "\r" + progress_line(self) + "\x1b[K",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )

    def completed_pairs(self) -> dict[int, list[GameResult]]:
        """Return the results of every pair whose two games are both
        finished, by pair."""
        pairs: dict[int, list[GameResult]] = {}
        for result in sorted(self.results, key=lambda result: result.task.index):
            pairs.setdefault(result.task.pair_index, []).append(result)
        return {
            index: games for index, games in sorted(pairs.items()) if len(games) == 2
        }

    def pentanomial(self) -> list[int]:
        """Return how many completed pairs gave the first engine 0, 1/2, 1,
        3/2 and 2 points."""
        return pentanomial_counts(
            sum(game.first_engine_points for game in games)
            for games in self.completed_pairs().values()
        )

    def estimate(self) -> EloEstimate:
        """Return the Elo estimate of the first engine,
        counting games as independent."""
        return elo_estimate(self.wins, self.losses, self.draws)

    def pair_report(self) -> PairReport:
        """Return the figures of the completed pairs: Elo, interval, LOS, draw ratio."""
        return pair_report(self.pentanomial(), self.wins, self.losses, self.draws)

    def sprt(self) -> SprtState | None:
        """Return the pentanomial SPRT state (its verdict once it has one),
        or None without one."""
        test = self.settings.sprt
        if test is None:
            return None
        if self.sprt_verdict is not None:
            return self.sprt_verdict
        return pentanomial_sprt(
            self.pentanomial(),
            test.elo0,
            test.elo1,
            test.alpha,
            test.beta,
            test.min_pairs,
        )


def run_worker(
    state: MatchState, pairs: queue.Queue[PairTask], skip: frozenset[int]
) -> None:
    """Play queued pairs with this thread's own two engine processes until
    done or stopped."""
    seats = [EngineSeat(spec) for spec in state.settings.engines]
    with state.lock:
        state.seats.extend(seats)
    try:
        while not state.stop.is_set():
            try:
                pair = pairs.get_nowait()
            except queue.Empty:
                break
            for task in pair.games():
                if task.index in skip:
                    continue
                result = play_task(task, seats, state.settings)
                # Games cut short by an interrupt say nothing about the engines.
                if state.aborted:
                    return
                state.add_result(result)
    # Report a runner bug instead of letting the thread die silently.
    except Exception as error:
        with state.lock:
            state.errors.append(f"{type(error).__name__}: {error}")
        state.stop.set()
    finally:
        for seat in seats:
            seat.close()


def abort_match(state: MatchState) -> None:
    """Stop all workers now, killing engines mid-game (after Ctrl-C)."""
    state.aborted = True
    state.stop.set()
    with state.lock:
        seats = list(state.seats)
    for seat in seats:
        seat.kill()


def run_local_pairs(
    state: MatchState, pairs: list[PairTask], skip: frozenset[int]
) -> None:
    """Play the pairs on this machine with `concurrency` worker threads."""
    pair_queue: queue.Queue[PairTask] = queue.Queue()
    for pair in pairs:
        pair_queue.put(pair)
    workers = [
        threading.Thread(target=run_worker, args=(state, pair_queue, skip), daemon=True)
        for _ in range(min(state.settings.concurrency, len(pairs)))
    ]
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            worker.join()
    except KeyboardInterrupt:
        abort_match(state)
        for worker in workers:
            worker.join(timeout=5)


def run_match(
    settings: MatchSettings, previous: list[GameResult] | None = None
) -> MatchState:
    """Return the final tally of a match, continuing from `previous` (a
    journal) if given."""
    pairs = build_pairs(settings.openings)
    state = MatchState(settings, 2 * len(pairs))
    for result in previous or []:
        state.add_result(result, from_journal=True)
    skip = frozenset(result.task.index for result in state.results)
    remaining = [
        pair for pair in pairs if any(task.index not in skip for task in pair.games())
    ]
    with contextlib.ExitStack() as stack:
        if settings.json_path is not None:
            state.journal = stack.enter_context(open_journal(settings, previous or []))
        sprt = state.sprt()
        if sprt is None or sprt.verdict == "continue":
            if settings.scheduler is None:
                run_local_pairs(state, remaining, skip)
            else:
                run_cluster_pairs(state, remaining, skip)
    if settings.show_progress:
        print(file=sys.stderr)
    state.results.sort(key=lambda result: result.task.index)
    return state


def open_engine(spec: EngineSpec) -> chess.engine.SimpleEngine:
    """Return a started engine process with the spec's UCI options set."""
    engine = open_uci_engine(list(spec.command))
    try:
        engine.configure(spec.options)
    except Exception:
        engine.close()
        raise
    return engine


def close_engine(engine: chess.engine.SimpleEngine) -> None:
    """Ask the engine to quit, then make sure its process is gone."""
    # A dead or hung engine cannot quit; close() then kills the process.
    with contextlib.suppress(Exception):
        engine.quit()
    engine.close()


class EngineSeat:
    """One engine process owned by a worker thread,
    started on demand and after failures."""

    def __init__(self, spec: EngineSpec) -> None:
        """Remember the spec; the process starts at the first game."""
        self.spec = spec
        self.engine: chess.engine.SimpleEngine | None = None

    def get(self) -> chess.engine.SimpleEngine:
        """Return the running engine, starting it if needed."""
        if self.engine is None:
            self.engine = open_engine(self.spec)
        return self.engine

    def close(self) -> None:
        """Stop the engine process, if one is running."""
        if self.engine is not None:
            close_engine(self.engine)
            self.engine = None

    def kill(self) -> None:
        """Kill the process at once, aborting any search (safe from another thread)."""
        if self.engine is not None:
            self.engine.close()


def progress_line(state: MatchState) -> str:
    """Return the one-line progress report: games done, score,
    Elo of the pairs, the SPRT."""
    done = state.wins + state.losses + state.draws
    fraction = score_fraction(state.wins, state.losses, state.draws)
    report = state.pair_report()
    line = (
        f"Games {done}/{state.total_games}"
        f"  W-L-D {state.wins}-{state.losses}-{state.draws} [{fraction:.3f}]"
        f"  pairs {report.pairs}  Elo {format_interval(report.estimate)}"
    )
    sprt = state.sprt()
    if sprt is not None:
        line += f"  LLR {sprt.llr:.2f} ({sprt.lower_bound:.2f}, {sprt.upper_bound:.2f})"
    return line


def journal_path(json_path: Path) -> Path:
    """Return the journal file that belongs to a JSON summary: result.journal.jsonl."""
    return json_path.with_suffix(".journal.jsonl")


def journal_header(settings: MatchSettings) -> dict[str, object]:
    """Return what identifies a match in its journal: engines, limits,
    rules, SPRT, openings."""
    header = {
        "engines": [asdict(spec) for spec in settings.engines],
        "limits": asdict(settings.limits),
        "adjudication": asdict(settings.adjudication),
        # The SPRT decides when the match stops,
        # so another test (or minimum) is another match.
        "sprt": asdict(settings.sprt) if settings.sprt else None,
        "opening_source": settings.opening_source,
        "seed": settings.seed,
        "opening_offset": settings.opening_offset,
    }
    # A round trip through JSON turns tuples into lists, as in the file.
    return json.loads(json.dumps(header))


def open_journal(settings: MatchSettings, previous: list[GameResult]) -> TextIO:
    """Return the journal opened for appending,
    rewritten to its header and `previous` games."""
    assert settings.json_path is not None
    path = journal_path(settings.json_path)
    lines = ([{"journal": journal_header(settings)}]
             + [result_to_json(r) for r in previous])
    # Rewritten rather than appended to: a line cut off by a crash must not stay in the
    # middle of the file, where the next resume would take it for a broken journal. The
    # new text goes to a side file first, so that a crash now loses nothing.
    draft = path.with_suffix(".tmp")
    draft.write_text("".join(json.dumps(line) + "\n" for line in lines))
    draft.replace(path)
    return path.open("a")


REPORT_FIELDS = (
    "white_score", "depth", "seldepth", "nodes", "hashfull", "elapsed_seconds"
)


def result_to_json(result: GameResult) -> dict[str, object]:
    """Return one finished game as a journal line."""
    record = result.record
    return {
        "index": result.task.index,
        "opening": {
            "fen": record.opening.start_fen,
            "moves": list(record.opening.moves),
        },
        "white": record.white_name,
        "black": record.black_name,
        "end": asdict(record.end) if record.end else None,
        "failed_color": record.failed_color,
        "wall_seconds": record.wall_seconds,
        "reports": [
            {"move": report.move.uci()}
            | {key: getattr(report, key) for key in REPORT_FIELDS}
            for report in record.reports
            if report.move is not None
        ],
        "pgn": result.pgn,
    }


def result_from_json(data: dict, task: GameTask) -> GameResult:
    """Return the game of a journal line, checking that it is the
    scheduled game `task`."""
    opening = {"fen": task.opening.start_fen, "moves": list(task.opening.moves)}
    if data["opening"] != opening:
        raise ValueError(
            f"journal game {task.index + 1} was played from another opening"
        )
    record = GameRecord(data["white"], data["black"], task.opening)
    record.reports = [
        MoveReport(chess.Move.from_uci(report["move"]), failure=None, **{
            key: report[key] for key in REPORT_FIELDS
        })
        for report in data["reports"]
    ]
    record.end = GameEnd(**data["end"]) if data["end"] else None
    record.failed_color = data["failed_color"]
    record.wall_seconds = data["wall_seconds"]
    points = first_engine_points(record, task.first_plays_white)
    return GameResult(task, record, data["pgn"], points)


def read_journal(settings: MatchSettings) -> list[GameResult]:
    """Return the games of the match's journal;
    raise ValueError if it is another match's."""
    assert settings.json_path is not None
    path = journal_path(settings.json_path)
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    if not lines or json.loads(lines[0]).get("journal") != journal_header(settings):
        raise ValueError(
            f"{path} belongs to another match"
            " (engines, limits, SPRT or openings differ)"
        )
    tasks = {
        task.index: task
        for pair in build_pairs(settings.openings)
        for task in pair.games()
    }
    results: dict[int, GameResult] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                break
            raise ValueError(f"{path}:{number} is not a journal line") from None
        if data["index"] not in tasks:
            raise ValueError(
                f"{path} holds game {data['index'] + 1}, beyond this match"
            )
        if data["index"] in results:
            raise ValueError(f"{path}:{number} holds game {data['index'] + 1} again")
        results[data["index"]] = result_from_json(data, tasks[data["index"]])
    # In the order the games finished, not by pair: the SPRT is sequential, and the
    # same games in another order may cross a bound the match itself never reached.
    return list(results.values())


def play_pair_on_new_engines(
    pair: PairTask, settings: MatchSettings, skip: frozenset[int]
) -> list[GameResult]:
    """Return the results of a pair's games,
    played with engines started for it (a Dask task)."""
    seats = [EngineSeat(spec) for spec in settings.engines]
    try:
        return [
            play_task(task, seats, settings)
            for task in pair.games()
            if task.index not in skip
        ]
    finally:
        for seat in seats:
            seat.close()


def run_cluster_pairs(
    state: MatchState, pairs: list[PairTask], skip: frozenset[int]
) -> None:
    """Play the pairs as tasks on the Dask scheduler of the settings,
    tallying as they finish."""
    # Imported here: only a match spread over machines needs Dask installed.
    from distributed import Client, as_completed

    # A task travels pickled: it carries its pair (with the pair's opening) and the
    # settings a game needs, not the match's whole list of openings.
    task_settings = replace(state.settings, openings=[])
    with Client(state.settings.scheduler) as client:
        futures = [
            client.submit(
                play_pair_on_new_engines, pair, task_settings,
                skip & {task.index for task in pair.games()}, pure=False,
            )
            for pair in pairs
        ]
        try:
            for future in as_completed(futures):
                for result in future.result():
                    state.add_result(result)
                if state.stop.is_set():
                    break
        except KeyboardInterrupt:
            state.aborted = True
        # A task that raised is a runner bug on a worker: report it, stop the match.
        except Exception as error:
            state.errors.append(f"{type(error).__name__}: {error}")
        client.cancel(futures)


def result_lines(state: MatchState) -> list[str]:
    """Return the final report: score, Elo of the pairs,
    Elo of the games alone, SPRT."""
    first, second = (spec.name for spec in state.settings.engines)
    wins, losses, draws = state.wins, state.losses, state.draws
    games = wins + losses + draws
    lines = [f"Score of {first} vs {second}: {wins} - {losses} - {draws}"]
    if games == 0:
        lines[0] += " [n/a] 0 games"
        lines.append("Elo difference: n/a (no games played)")
    else:
        estimate = state.estimate()
        lines[0] += f" [{score_fraction(wins, losses, draws):.3f}] {games} games"
        lines.append(f"Pairs: {format_pair_report(state.pair_report())}")
        lines.append(
            f"Games counted singly: Elo {format_interval(estimate)}"
            f" ({estimate.confidence:.0%})"
        )
    sprt = state.sprt()
    test = state.settings.sprt
    if sprt is not None and test is not None:
        lines.append(
            f"SPRT (elo0={test.elo0:g}, elo1={test.elo1:g}, alpha={test.alpha:g},"
            f" beta={test.beta:g}, min_pairs={test.min_pairs}): LLR {sprt.llr:.2f},"
            f" bounds [{sprt.lower_bound:.2f},"
            f" {sprt.upper_bound:.2f}] - {sprt.verdict}"
        )
    return lines


def json_number(value: float) -> float | None:
    """Return the value, or None when it is infinite or NaN (which JSON cannot hold)."""
    return value if math.isfinite(value) else None


def cpu_model() -> str:
    """Return the processor model name from /proc/cpuinfo, or what platform reports."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def machine_info() -> dict[str, object]:
    """Return a description of the machine and software the match ran on."""
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "python_chess": chess.__version__,
    }


def engine_summary(
    spec: EngineSpec,
    probed: dict[str, dict[str, object]],
    results: list[GameResult],
    engine: int,
) -> dict[str, object]:
    """Return the JSON description of one engine (0 = first),
    with its search reports."""
    reports = [engine_reports(result, engine) for result in results]
    return {
        "name": spec.name,
        "command": list(spec.command),
        "options": spec.options,
        "id_name": None,
        "hash_mb": None,
    } | probed.get(spec.name, {}) | search_summary(reports)


def elo_summary(estimate: EloEstimate) -> dict[str, object]:
    """Return the JSON description of an Elo estimate (None for
    infinite or undefined)."""
    return {
        "difference": json_number(estimate.elo),
        "lower": json_number(estimate.lower),
        "upper": json_number(estimate.upper),
        "margin": json_number(estimate.margin),
        "confidence": estimate.confidence,
        "text": format_interval(estimate),
    }


def pairs_summary(report: PairReport) -> dict[str, object]:
    """Return the JSON description of the pair statistics: Elo, LOS, draw ratios."""
    return elo_summary(report.estimate) | {
        "pairs": report.pairs,
        "los": json_number(report.los),
        "draw_ratio": json_number(report.draw_ratio),
        "level_pair_ratio": json_number(report.level_pair_ratio),
    }


def mean_or_none(values: list[int]) -> float | None:
    """Return the mean rounded to 2 decimals, or None for no values."""
    return round(statistics.fmean(values), 2) if values else None


def engine_reports(result: GameResult, engine: int) -> list[MoveReport]:
    """Return the move reports of one engine (0 = first, 1 = second) in one game."""
    first_mover = result.task.opening.board().turn
    engine_color = (
        chess.WHITE if (engine == 0) == result.task.first_plays_white else chess.BLACK
    )
    return result.record.reports[0 if engine_color == first_mover else 1 :: 2]


def search_summary(games: list[list[MoveReport]]) -> dict[str, object]:
    """Return what an engine reported over its games: moves, blind moves,
    depth, nodes, hash."""
    reports = [report for game in games for report in game]
    depths = [report.depth for report in reports if report.depth is not None]
    nodes = [report.nodes for report in reports if report.nodes is not None]
    hashfull = [report.hashfull for report in reports if report.hashfull is not None]
    # The table fills as a game goes on, so its second half shows whether it was full.
    late_hashfull = [
        report.hashfull
        for game in games
        for report in game[len(game) // 2 :]
        if report.hashfull is not None
    ]
    return {
        "moves": len(reports),
        "blind_moves": sum(report.blind for report in reports),
        "depth": {
            "mean": mean_or_none(depths),
            "median": statistics.median(depths) if depths else None,
            "min": min(depths, default=None),
        },
        "nodes_per_move": mean_or_none(nodes),
        "hashfull": {
            "mean": mean_or_none(hashfull),
            "mean_second_half": mean_or_none(late_hashfull),
            "moves": len(hashfull),
        },
    }


def sprt_summary(state: MatchState) -> dict[str, object] | None:
    """Return the JSON description of the SPRT, or None without one."""
    sprt, test = state.sprt(), state.settings.sprt
    if sprt is None or test is None:
        return None
    return (
        asdict(test)
        | asdict(sprt)
        | {"pairs_at_verdict": state.pairs_at_verdict or None}
    )


def game_summary(result: GameResult) -> dict[str, object]:
    """Return the JSON description of one game."""
    record, task = result.record, result.task
    end = record.end
    return {
        "index": task.index + 1,
        "pair": task.pair_index + 1,
        "opening": task.opening.name,
        "white": record.white_name,
        "black": record.black_name,
        "result": end.result if end else "*",
        "termination": end.termination if end else "unterminated",
        "reason": end.reason if end else "",
        "engine_plies": len(record.reports),
        "first_engine_points": result.first_engine_points,
        "wall_seconds": round(record.wall_seconds, 3),
    }


def pair_summary(pair: int, games: list[GameResult]) -> dict[str, object]:
    """Return the JSON description of one completed pair:
    its opening and both results."""
    first, second = ([report.move for report in game.record.reports] for game in games)
    return {
        "pair": pair + 1,
        "opening": games[0].task.opening.name,
        "results": [
            game.record.end.result if game.record.end else "*" for game in games
        ],
        "first_engine_points": sum(game.first_engine_points for game in games),
        # Both games move for move alike: with the colours swapped, the engines played
        # the same moves, so the pair shows no difference between them.
        "same_moves": first == second,
    }


def openings_summary(state: MatchState) -> dict[str, object]:
    """Return the JSON description of the opening source and the
    openings actually played."""
    pairs = sorted({result.task.pair_index for result in state.results})
    used = [state.settings.openings[pair] for pair in pairs]
    return {
        "source": state.settings.opening_source,
        "seed": state.settings.seed,
        "offset": state.settings.opening_offset,
        "used": [
            {
                "name": opening.name,
                "fen": opening.start_fen,
                "moves": list(opening.moves),
            }
            for opening in used
        ],
    }


def match_summary(
    state: MatchState, probed: dict[str, dict[str, object]], started: datetime.datetime,
    wall: float,
) -> dict[str, object]:
    """Return everything a book chapter needs to render the match
    without recomputing it."""
    settings = state.settings
    games = len(state.results)
    limits = asdict(settings.limits) | {
        "description": limits_description(settings.limits)
    }
    pairs = [
        pair_summary(pair, results) for pair, results in state.completed_pairs().items()
    ]
    return {
        "event": settings.event,
        "date": started.isoformat(timespec="seconds"),
        "engines": [
            engine_summary(spec, probed, state.results, engine)
            for engine, spec in enumerate(settings.engines)
        ],
        "limits": limits,
        "adjudication": asdict(settings.adjudication),
        "concurrency": settings.concurrency,
        "scheduler": settings.scheduler,
        "openings": openings_summary(state),
        "games_planned": settings.games,
        "games_played": games,
        "games_resumed": state.resumed_games,
        "wins": state.wins,
        "losses": state.losses,
        "draws": state.draws,
        "score_fraction": json_number(
            score_fraction(state.wins, state.losses, state.draws)
        ),
        "elo": pairs_summary(state.pair_report()),
        "elo_games_counted_singly": elo_summary(state.estimate()),
        "sprt": sprt_summary(state),
        "pentanomial": state.pentanomial(),
        "pairs_with_same_moves": sum(bool(pair["same_moves"]) for pair in pairs),
        "pairs": pairs,
        "result_lines": result_lines(state),
        "games": [game_summary(result) for result in state.results],
        "machine": machine_info(),
        "wall_seconds": round(wall, 3),
        "wall_seconds_per_game": round(wall / games, 3) if games else None,
        "errors": state.errors,
    }


SPRT_FIELDS = ("elo0", "elo1", "alpha", "beta", "min_pairs")


def sprt_field(key: str, value: str) -> float:
    """Return the value of one --sprt field: a finite number,
    for min_pairs a whole one."""
    if key == "min_pairs":
        if not (value.isascii() and value.isdecimal()):
            raise ValueError(
                f"--sprt: min_pairs needs a whole number of pairs, not {value!r}"
            )
        return int(value)
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"--sprt: {key} needs a number, not {value!r}")
    return number


def parse_sprt(text: str) -> SprtSettings:
    """Return the SPRT settings of "elo0=0 elo1=20
    alpha=0.05 beta=0.05 min_pairs=30"."""
    values: dict[str, float] = {
        "alpha": 0.05,
        "beta": 0.05,
        "min_pairs": SPRT_MIN_PAIRS,
    }
    for token in text.split():
        key, separator, value = token.partition("=")
        if not separator or key not in SPRT_FIELDS:
            raise ValueError(
                f"--sprt: bad field {token!r} (use {', '.join(SPRT_FIELDS)})"
            )
        values[key] = sprt_field(key, value)
    if "elo0" not in values or "elo1" not in values:
        raise ValueError("--sprt needs elo0 and elo1")
    if not values["elo0"] < values["elo1"]:
        raise ValueError("--sprt: elo1 must be larger than elo0")
    if not (0 < values["alpha"] < 1 and 0 < values["beta"] < 1):
        raise ValueError("--sprt: alpha and beta are error rates between 0 and 1")
    return SprtSettings(values["elo0"], values["elo1"], values["alpha"], values["beta"],
                        int(values["min_pairs"]))


def probe_engines(specs: tuple[EngineSpec, EngineSpec]) -> dict[str, dict[str, object]]:
    """Return each engine's UCI "id name" and Hash megabytes,
    starting it once to check it."""
    probed: dict[str, dict[str, object]] = {}
    for spec in specs:
        engine = open_engine(spec)
        try:
            declared = engine.options.get("Hash")
            default = declared.default if declared is not None else None
            # The size the match sets, else the engine's own;
            # None for an engine without one.
            hash_mb = spec.options.get("Hash", default)
            probed[spec.name] = {
                "id_name": engine.id.get("name", ""),
                "hash_mb": hash_mb,
            }
        finally:
            close_engine(engine)
    return probed


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the search-limit options: clock, movetime, nodes, depth, and timing slack."""
    limits = parser.add_argument_group("limits (at least one)")
    limits.add_argument(
        "--tc", help="time control BASE+INCREMENT in seconds, e.g. 10+0.1"
    )
    limits.add_argument("--movetime", type=float, help="fixed time per move in seconds")
    limits.add_argument("--nodes", type=int, help="fixed nodes per move")
    limits.add_argument("--depth", type=int, help="fixed depth per move")
    limits.add_argument(
        "--time-margin",
        type=float,
        default=0.1,
        help="seconds a clock may overrun before the flag falls (default 0.1)",
    )
    limits.add_argument(
        "--move-timeout",
        type=float,
        default=60.0,
        help="without a clock, seconds before a silent engine loses (default 60)",
    )


def add_adjudication_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the adjudication options: length limit, resign rule, draw rule."""
    rules = parser.add_argument_group("adjudication (a count of 0 disables a rule)")
    rules.add_argument(
        "--max-moves", type=int, default=200, help="draw after this many moves"
    )
    rules.add_argument("--resign-score", type=int, default=1000, help="centipawns")
    rules.add_argument(
        "--resign-count", type=int, default=0, help="moves of each engine"
    )
    rules.add_argument("--draw-after", type=int, default=40, help="first move number")
    rules.add_argument("--draw-score", type=int, default=10, help="centipawns")
    rules.add_argument("--draw-count", type=int, default=0, help="moves of each engine")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options for the SPRT, the output files and the progress line."""
    parser.add_argument(
        "--sprt",
        help='stop early on an SPRT verdict: "elo0=0 elo1=20 alpha=0.05 beta=0.05",'
        f' optionally "min_pairs=N" (no stop before N pairs; default {SPRT_MIN_PAIRS})',
    )
    parser.add_argument("--pgn", type=Path, help="write all games to this PGN file")
    parser.add_argument(
        "--json",
        type=Path,
        help="write the results to this JSON file (and a journal beside it)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the match of --json from its journal",
    )
    parser.add_argument("--event", default="cb2026 match", help="PGN Event header")
    parser.add_argument("--quiet", action="store_true", help="no progress line")


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser of the match runner."""
    parser = argparse.ArgumentParser(
        prog="python -m cb2026.match",
        description="Play a match between two UCI engines.",
    )
    parser.add_argument(
        "--engine",
        action="append",
        required=True,
        metavar="SPEC",
        help='engine spec, twice: "cmd=COMMAND [name=NAME] [option.NAME=VALUE ...]"',
    )
    parser.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        help="number of games (odd: rounded up)",
    )
    parser.add_argument(
        "--concurrency", type=int, default=1, help="pairs played at once"
    )
    parser.add_argument(
        "--openings",
        type=Path,
        help="PGN, EPD, FEN or move-list file (default: the book's suite)",
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help="opening order seed"
    )
    parser.add_argument(
        "--opening-offset",
        type=int,
        default=0,
        help="skip this many openings of the order",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="play pairs on a Dask cluster, e.g. tcp://host:8786",
    )
    add_limit_arguments(parser)
    add_adjudication_arguments(parser)
    add_output_arguments(parser)
    return parser


def limits_from_arguments(arguments: argparse.Namespace) -> GameLimits:
    """Return the search limits given on the command line;
    raise ValueError naming a bad one."""
    positive = {"--movetime": arguments.movetime, "--nodes": arguments.nodes,
                "--depth": arguments.depth, "--move-timeout": arguments.move_timeout}
    for option, value in positive.items():
        if value is not None and not 0 < value < math.inf:
            raise ValueError(f"{option} must be a positive number, not {value}")
    if not 0 <= arguments.time_margin < math.inf:
        raise ValueError(
            f"--time-margin must be 0 or more, not {arguments.time_margin}"
        )
    try:
        base, increment = (
            parse_time_control(arguments.tc) if arguments.tc else (None, 0.0)
        )
    except ValueError as error:
        raise ValueError(f"--tc: {error}") from None
    limits = GameLimits(
        base_seconds=base,
        increment_seconds=increment,
        movetime_seconds=arguments.movetime,
        nodes=arguments.nodes,
        depth=arguments.depth,
        time_margin_seconds=arguments.time_margin,
        move_timeout_seconds=arguments.move_timeout,
    )
    if not limits_description(limits):
        raise ValueError("give a limit: --tc, --movetime, --nodes or --depth")
    return limits


def adjudication_from_arguments(arguments: argparse.Namespace) -> Adjudication:
    """Return the adjudication rules given on the command line."""
    return Adjudication(
        max_moves=arguments.max_moves,
        resign_score=arguments.resign_score,
        resign_count=arguments.resign_count,
        draw_after_move=arguments.draw_after,
        draw_score=arguments.draw_score,
        draw_count=arguments.draw_count,
    )


def engines_from_arguments(
    arguments: argparse.Namespace,
) -> tuple[EngineSpec, EngineSpec]:
    """Return the two engine specs, renaming the second if both have the same name."""
    if len(arguments.engine) != 2:
        raise ValueError("give exactly two --engine specs")
    first, second = (parse_engine_spec(text) for text in arguments.engine)
    if first.name == second.name:
        # Names identify engines in PGN and results, so they must differ.
        second = EngineSpec(f"{second.name}-2", second.command, second.options)
    return first, second


def default_openings() -> tuple[list[Opening], str]:
    """Return the book's suite of openings and its path,
    or the built-in lines without it."""
    try:
        path = book_suite_path()
    except FileNotFoundError:
        # An installed package has no book beside it: say so rather than quietly switch.
        print("note: the book's opening suite is not here; using the "
              f"{len(builtin_openings())} built-in openings", file=sys.stderr)
        return builtin_openings(), "built-in"
    return load_openings(path), str(path.relative_to(path.parents[3]))


def settings_from_arguments(arguments: argparse.Namespace) -> MatchSettings:
    """Return the match settings of parsed arguments; raises ValueError on bad input."""
    if arguments.games < 1 or arguments.concurrency < 1:
        raise ValueError("--games and --concurrency must be at least 1")
    if arguments.resume and arguments.json is None:
        raise ValueError(
            "--resume needs --json: the journal lives beside the JSON file"
        )
    if arguments.openings:
        book, source = load_openings(arguments.openings), str(arguments.openings)
    else:
        book, source = default_openings()
    # The pair is the unit of a match: an odd number of games is rounded up.
    pairs = (arguments.games + 1) // 2
    return MatchSettings(
        engines=engines_from_arguments(arguments),
        limits=limits_from_arguments(arguments),
        adjudication=adjudication_from_arguments(arguments),
        openings=choose_openings(book, pairs, arguments.seed, arguments.opening_offset),
        opening_source=source,
        games=2 * pairs,
        concurrency=arguments.concurrency,
        seed=arguments.seed,
        sprt=parse_sprt(arguments.sprt) if arguments.sprt else None,
        event=arguments.event,
        pgn_path=arguments.pgn,
        json_path=arguments.json,
        show_progress=not arguments.quiet,
        opening_offset=arguments.opening_offset,
        resume=arguments.resume,
        scheduler=arguments.scheduler,
    )


def write_outputs(state: MatchState, summary: dict[str, object]) -> None:
    """Write the PGN of every game and the JSON summary, where paths were given."""
    settings = state.settings
    if settings.pgn_path is not None:
        settings.pgn_path.write_text(
            "".join(result.pgn + "\n\n" for result in state.results)
        )
    if settings.json_path is not None:
        settings.json_path.write_text(json.dumps(summary, indent=2) + "\n")


def clock_load_note(settings: MatchSettings, cores: int) -> str | None:
    """Return a warning when a clock match plays as many pairs at once as
    there are cores."""
    if (
        settings.limits.uses_clock
        and settings.scheduler is None
        and settings.concurrency >= cores
    ):
        return (
            f"match: note: --concurrency {settings.concurrency} on {cores} cores under"
            f" a clock; the load may cost the engines time (use fewer than {cores})"
        )
    return None


def main(arguments: list[str] | None = None) -> int:
    """Run the match runner's command line; return the process exit status."""
    parser = build_parser()
    namespace = parser.parse_args(arguments)
    try:
        settings = settings_from_arguments(namespace)
        previous = read_journal(settings) if settings.resume else []
    except (ValueError, OSError) as error:
        parser.error(str(error))
    if settings.games != namespace.games:
        print(
            f"match: {namespace.games} games rounded up to {settings.games}"
            " (whole pairs)",
            file=sys.stderr,
        )
    if (note := clock_load_note(settings, os.cpu_count() or 1)) is not None:
        print(note, file=sys.stderr)
    try:
        probed = probe_engines(settings.engines)
    # Any start-up failure (missing command, unknown option) is reported, not raised.
    except Exception as error:
        print(f"match: cannot start engine: {error}", file=sys.stderr)
        return 2
    started = datetime.datetime.now(datetime.UTC)
    clock_start = time.monotonic()
    state = run_match(settings, previous)
    wall = time.monotonic() - clock_start
    for line in result_lines(state):
        print(line)
    print(f"Wall time: {wall:.1f}s ({wall / max(len(state.results), 1):.2f}s per game)")
    write_outputs(state, match_summary(state, probed, started, wall))
    for message in state.errors:
        print(f"match: runner error: {message}", file=sys.stderr)
    if state.aborted:
        print("match: interrupted; partial results written", file=sys.stderr)
        # 128 + SIGINT, the shell convention for a run stopped by Ctrl-C.
        return 130
    return 1 if state.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
