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
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import chess
import chess.engine

from cb2026.elo import (
    EloEstimate,
    SprtState,
    elo_estimate,
    format_elo,
    format_margin,
    score_fraction,
    sprt_state,
)
from cb2026.game import (
    Adjudication,
    GameRecord,
    Limits,
    game_to_pgn,
    limits_description,
    loss_for,
    parse_time_control,
    play_game,
    time_control_header,
)
from cb2026.openings import Opening, builtin_openings, load_openings, select_openings

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
            raise ValueError(f"unknown engine field {key!r} (use cmd, name, option.NAME)")
    if not command:
        raise ValueError(f"engine spec {text!r} has no cmd=")
    return EngineSpec(name or Path(command[0]).name, command, options)


@dataclass(frozen=True)
class GameTask:
    """One scheduled game: its number, its opening pair, and who plays White."""

    index: int
    pair_index: int
    opening: Opening
    first_plays_white: bool


def build_tasks(openings: list[Opening], games: int) -> list[GameTask]:
    """Return the schedule: each opening twice in a row, colours swapped the second time."""
    return [
        GameTask(index, index // 2, openings[index // 2], first_plays_white=index % 2 == 0)
        for index in range(games)
    ]


def seat_colors(task: GameTask) -> dict[chess.Color, int]:
    """Return which engine (0 = first, 1 = second) plays each colour."""
    first_color = chess.WHITE if task.first_plays_white else chess.BLACK
    return {first_color: 0, not first_color: 1}


@dataclass(frozen=True)
class SprtSettings:
    """The hypotheses (Elo difference under H0 and H1) and error rates of an SPRT."""

    elo0: float

    elo1: float

    alpha: float = 0.05
    beta: float = 0.05


@dataclass(frozen=True)
class MatchSettings:
    """Everything that defines a match, as parsed from the command line."""

    engines: tuple[EngineSpec, EngineSpec]
    limits: Limits
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


def open_engine(spec: EngineSpec) -> chess.engine.SimpleEngine:
    """Return a started engine process with the spec's UCI options set."""
    # Engines' stderr is dropped so it cannot garble the progress line.
    engine = chess.engine.SimpleEngine.popen_uci(list(spec.command), stderr=subprocess.DEVNULL)
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
    """One engine process owned by a worker thread, started on demand and after failures."""

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


def play_task(task: GameTask, seats: list[EngineSeat], settings: MatchSettings) -> GameResult:
    """Return the result of one scheduled game; an engine that failed is restarted later."""
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
        record = play_game(engines, names, task.opening, settings.limits, settings.adjudication)
    if record.failed_color is not None:
        # A crashed, hung or confused process is replaced before its next game.
        seats[colors[record.failed_color]].close()
    pgn = str(game_to_pgn(record, pgn_headers(task, settings)))
    return GameResult(task, record, pgn, first_engine_points(record, task.first_plays_white))


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

    def add_result(self, result: GameResult) -> None:
        """Count a finished game, update the progress line, and stop on an SPRT verdict."""
        with self.lock:
            self.results.append(result)
            if result.first_engine_points == 1.0:
                self.wins += 1
            elif result.first_engine_points == 0.0:
                self.losses += 1
            else:
                self.draws += 1
            sprt = self.sprt()
            if sprt is not None and sprt.verdict != "continue":
                self.stop.set()
            if self.settings.show_progress:
                print("\r" + progress_line(self) + "\x1b[K", end="", file=sys.stderr, flush=True)

    def estimate(self) -> EloEstimate:
        """Return the Elo estimate of the first engine so far."""
        return elo_estimate(self.wins, self.losses, self.draws)

    def sprt(self) -> SprtState | None:
        """Return the SPRT state so far, or None when no SPRT was asked for."""
        test = self.settings.sprt
        if test is None:
            return None
        return sprt_state(
            self.wins, self.losses, self.draws, test.elo0, test.elo1, test.alpha, test.beta
        )


def progress_line(state: MatchState) -> str:
    """Return the one-line progress report: games done, score, Elo, and the SPRT ratio."""
    done = state.wins + state.losses + state.draws
    fraction = score_fraction(state.wins, state.losses, state.draws)
    estimate = state.estimate()
    line = (
        f"Games {done}/{state.total_games}  W-L-D {state.wins}-{state.losses}-{state.draws}"
        f" [{fraction:.3f}]  Elo {format_elo(estimate.elo)} +/- {format_margin(estimate.margin)}"
    )
    sprt = state.sprt()
    if sprt is not None:
        line += f"  LLR {sprt.llr:.2f} ({sprt.lower_bound:.2f}, {sprt.upper_bound:.2f})"
    return line


def run_worker(state: MatchState, tasks: queue.Queue[GameTask]) -> None:
    """Play queued games with this thread's own pair of engine processes until done or stopped."""
    seats = [EngineSeat(spec) for spec in state.settings.engines]
    with state.lock:
        state.seats.extend(seats)
    try:
        while not state.stop.is_set():
            try:
                task = tasks.get_nowait()
            except queue.Empty:
                break
            result = play_task(task, seats, state.settings)
            # Games cut short by an interrupt say nothing about the engines.
            if state.aborted:
                break
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


def run_match(settings: MatchSettings) -> MatchState:
    """Return the final tally of a match played by `concurrency` worker threads."""
    tasks = build_tasks(settings.openings, settings.games)
    state = MatchState(settings, len(tasks))
    task_queue: queue.Queue[GameTask] = queue.Queue()
    for task in tasks:
        task_queue.put(task)
    workers = [
        threading.Thread(target=run_worker, args=(state, task_queue), daemon=True)
        for _ in range(min(settings.concurrency, len(tasks)))
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
    if settings.show_progress:
        print(file=sys.stderr)
    state.results.sort(key=lambda result: result.task.index)
    return state


def result_lines(state: MatchState) -> list[str]:
    """Return the final report: the score line, the Elo line, and the SPRT line if any."""
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
        lines.append(
            f"Elo difference: {format_elo(estimate.elo)} +/- {format_margin(estimate.margin)}"
            f" ({estimate.confidence:.0%})"
        )
    sprt = state.sprt()
    test = state.settings.sprt
    if sprt is not None and test is not None:
        lines.append(
            f"SPRT (elo0={test.elo0:g}, elo1={test.elo1:g}, alpha={test.alpha:g},"
            f" beta={test.beta:g}): LLR {sprt.llr:.2f}, bounds [{sprt.lower_bound:.2f},"
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


def engine_summary(spec: EngineSpec, engine_ids: dict[str, str]) -> dict[str, object]:
    """Return the JSON description of one engine."""
    return {
        "name": spec.name,
        "command": list(spec.command),
        "options": spec.options,
        "id_name": engine_ids.get(spec.name),
    }


def elo_summary(estimate: EloEstimate) -> dict[str, object]:
    """Return the JSON description of an Elo estimate (None for infinite or undefined)."""
    return {
        "difference": json_number(estimate.elo),
        "lower": json_number(estimate.lower),
        "upper": json_number(estimate.upper),
        "margin": json_number(estimate.margin),
        "confidence": estimate.confidence,
        "text": f"{format_elo(estimate.elo)} +/- {format_margin(estimate.margin)}",
    }


def sprt_summary(state: MatchState) -> dict[str, object] | None:
    """Return the JSON description of the SPRT, or None without one."""
    sprt, test = state.sprt(), state.settings.sprt
    if sprt is None or test is None:
        return None
    return asdict(test) | asdict(sprt)


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


def openings_summary(state: MatchState) -> dict[str, object]:
    """Return the JSON description of the opening source and the openings actually played."""
    pairs = sorted({result.task.pair_index for result in state.results})
    used = [state.settings.openings[pair] for pair in pairs]
    return {
        "source": state.settings.opening_source,
        "seed": state.settings.seed,
        "used": [
            {"name": opening.name, "fen": opening.start_fen, "moves": list(opening.moves)}
            for opening in used
        ],
    }


def match_summary(
    state: MatchState, engine_ids: dict[str, str], started: datetime.datetime, wall: float
) -> dict[str, object]:
    """Return everything a book chapter needs to render the match without recomputing it."""
    settings = state.settings
    games = len(state.results)
    limits = asdict(settings.limits) | {"description": limits_description(settings.limits)}
    return {
        "event": settings.event,
        "date": started.isoformat(timespec="seconds"),
        "engines": [engine_summary(spec, engine_ids) for spec in settings.engines],
        "limits": limits,
        "adjudication": asdict(settings.adjudication),
        "concurrency": settings.concurrency,
        "openings": openings_summary(state),
        "games_planned": settings.games,
        "games_played": games,
        "wins": state.wins,
        "losses": state.losses,
        "draws": state.draws,
        "score_fraction": json_number(score_fraction(state.wins, state.losses, state.draws)),
        "elo": elo_summary(state.estimate()),
        "sprt": sprt_summary(state),
        "result_lines": result_lines(state),
        "games": [game_summary(result) for result in state.results],
        "machine": machine_info(),
        "wall_seconds": round(wall, 3),
        "wall_seconds_per_game": round(wall / games, 3) if games else None,
        "errors": state.errors,
    }


def parse_sprt(text: str) -> SprtSettings:
    """Return the SPRT settings of "elo0=0 elo1=10 alpha=0.05 beta=0.05"."""
    values = {"alpha": 0.05, "beta": 0.05}
    for token in text.split():
        key, separator, value = token.partition("=")
        if not separator or key not in ("elo0", "elo1", "alpha", "beta"):
            raise ValueError(f"bad SPRT field {token!r} (use elo0, elo1, alpha, beta)")
        values[key] = float(value)
    if "elo0" not in values or "elo1" not in values:
        raise ValueError("SPRT needs elo0 and elo1")
    return SprtSettings(values["elo0"], values["elo1"], values["alpha"], values["beta"])


def probe_engines(specs: tuple[EngineSpec, EngineSpec]) -> dict[str, str]:
    """Return each engine's UCI "id name", starting it once to check command and options."""
    engine_ids: dict[str, str] = {}
    for spec in specs:
        engine = open_engine(spec)
        try:
            engine_ids[spec.name] = engine.id.get("name", "")
        finally:
            close_engine(engine)
    return engine_ids


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the search-limit options: clock, movetime, nodes, depth, and timing slack."""
    limits = parser.add_argument_group("limits (at least one)")
    limits.add_argument("--tc", help="time control BASE+INCREMENT in seconds, e.g. 10+0.1")
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
    rules.add_argument("--max-moves", type=int, default=200, help="draw after this many moves")
    rules.add_argument("--resign-score", type=int, default=1000, help="centipawns")
    rules.add_argument("--resign-count", type=int, default=0, help="moves of each engine")
    rules.add_argument("--draw-after", type=int, default=40, help="first move number")
    rules.add_argument("--draw-score", type=int, default=10, help="centipawns")
    rules.add_argument("--draw-count", type=int, default=0, help="moves of each engine")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options for the SPRT, the output files and the progress line."""
    parser.add_argument(
        "--sprt", help='stop early on an SPRT verdict: "elo0=0 elo1=10 alpha=0.05 beta=0.05"'
    )
    parser.add_argument("--pgn", type=Path, help="write all games to this PGN file")
    parser.add_argument("--json", type=Path, help="write the results to this JSON file")
    parser.add_argument("--event", default="cb2026 match", help="PGN Event header")
    parser.add_argument("--quiet", action="store_true", help="no progress line")


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser of the match runner."""
    parser = argparse.ArgumentParser(
        prog="python -m cb2026.match", description="Play a match between two UCI engines."
    )
    parser.add_argument(
        "--engine",
        action="append",
        required=True,
        metavar="SPEC",
        help='engine spec, twice: "cmd=COMMAND [name=NAME] [option.NAME=VALUE ...]"',
    )
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="number of games")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at once")
    parser.add_argument(
        "--openings", type=Path, help="PGN, EPD, FEN or move-list file (default: built-in book)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="opening order seed")
    add_limit_arguments(parser)
    add_adjudication_arguments(parser)
    add_output_arguments(parser)
    return parser


def limits_from_arguments(arguments: argparse.Namespace) -> Limits:
    """Return the search limits given on the command line."""
    base, increment = parse_time_control(arguments.tc) if arguments.tc else (None, 0.0)
    limits = Limits(
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


def engines_from_arguments(arguments: argparse.Namespace) -> tuple[EngineSpec, EngineSpec]:
    """Return the two engine specs, renaming the second if both have the same name."""
    if len(arguments.engine) != 2:
        raise ValueError("give exactly two --engine specs")
    first, second = (parse_engine_spec(text) for text in arguments.engine)
    if first.name == second.name:
        # Names identify engines in PGN and results, so they must differ.
        second = EngineSpec(f"{second.name}-2", second.command, second.options)
    return first, second


def settings_from_arguments(arguments: argparse.Namespace) -> MatchSettings:
    """Return the match settings of parsed arguments; raises ValueError on bad input."""
    if arguments.games < 1 or arguments.concurrency < 1:
        raise ValueError("--games and --concurrency must be at least 1")
    if arguments.openings:
        book, source = load_openings(arguments.openings), str(arguments.openings)
    else:
        book, source = builtin_openings(), "built-in"
    pairs = (arguments.games + 1) // 2
    return MatchSettings(
        engines=engines_from_arguments(arguments),
        limits=limits_from_arguments(arguments),
        adjudication=adjudication_from_arguments(arguments),
        openings=select_openings(book, pairs, arguments.seed),
        opening_source=source,
        games=arguments.games,
        concurrency=arguments.concurrency,
        seed=arguments.seed,
        sprt=parse_sprt(arguments.sprt) if arguments.sprt else None,
        event=arguments.event,
        pgn_path=arguments.pgn,
        json_path=arguments.json,
        show_progress=not arguments.quiet,
    )


def write_outputs(state: MatchState, summary: dict[str, object]) -> None:
    """Write the PGN of every game and the JSON summary, where paths were given."""
    settings = state.settings
    if settings.pgn_path is not None:
        settings.pgn_path.write_text("".join(result.pgn + "\n\n" for result in state.results))
    if settings.json_path is not None:
        settings.json_path.write_text(json.dumps(summary, indent=2) + "\n")


def main(arguments: list[str] | None = None) -> int:
    """Run the match runner's command line; return the process exit status."""
    parser = build_parser()
    namespace = parser.parse_args(arguments)
    try:
        settings = settings_from_arguments(namespace)
    except (ValueError, OSError) as error:
        parser.error(str(error))
    try:
        engine_ids = probe_engines(settings.engines)
    # Any start-up failure (missing command, unknown option) is reported, not raised.
    except Exception as error:
        print(f"match: cannot start engine: {error}", file=sys.stderr)
        return 2
    started = datetime.datetime.now(datetime.UTC)
    clock_start = time.monotonic()
    state = run_match(settings)
    wall = time.monotonic() - clock_start
    for line in result_lines(state):
        print(line)
    print(f"Wall time: {wall:.1f}s ({wall / max(len(state.results), 1):.2f}s per game)")
    write_outputs(state, match_summary(state, engine_ids, started, wall))
    for error in state.errors:
        print(f"match: runner error: {error}", file=sys.stderr)
    if state.aborted:
        print("match: interrupted; partial results written", file=sys.stderr)
        # 128 + SIGINT, the shell convention for a run stopped by Ctrl-C.
        return 130
    return 1 if state.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
