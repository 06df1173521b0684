# Generated from the book by tools/literate, from chapters stage-07.1-matches.
# Do not edit: change the chapters and run `make tangle`.

"""One game between two UCI engines: limits, clocks, adjudication and the PGN record."""

from __future__ import annotations

import math
import subprocess
import threading
import time
from dataclasses import dataclass, field

import chess
import chess.engine
import chess.pgn

from cb2026.openings import Opening

# A move overrunning its clock by this much more than the flag margin is
# treated as a hung engine: the runner stops waiting and kills the process.
WATCHDOG_GRACE_SECONDS = 1.0

# Clocks sent to an engine never go below this, since a zero or negative
# "wtime" confuses some engines' time management.
MINIMUM_SENT_CLOCK_SECONDS = 0.001


@dataclass(frozen=True)
class GameLimits:
    """How long engines may think: a clock (base + increment) and/or per-move limits."""

    base_seconds: float | None = None
    increment_seconds: float = 0.0
    movetime_seconds: float | None = None
    nodes: int | None = None
    depth: int | None = None

    # A move is a time loss only if it overruns the clock by more than this,
    # which absorbs the runner's own pipe and scheduling latency.
    time_margin_seconds: float = 0.1

    # Without a clock, a move taking longer than this counts as a hung engine.
    move_timeout_seconds: float = 60.0

    @property
    def uses_clock(self) -> bool:
        """Return whether the game is played with real clocks."""
        return self.base_seconds is not None


def parse_time_control(text: str) -> tuple[float, float]:
    """Return (base, increment) in seconds from "base+increment" or "base"."""
    base_text, _, increment_text = text.partition("+")
    try:
        base, increment = float(base_text), float(increment_text or 0)
    except ValueError:
        base = increment = math.nan  # refused just below, with the same message
    if not (0 < base < math.inf and 0 <= increment < math.inf):
        raise ValueError(
            f"invalid time control {text!r} (BASE+INCREMENT seconds, e.g. 10+0.1)"
        )
    return base, increment


def format_seconds(value: float) -> str:
    """Return seconds as short text without a trailing ".0" (5, 0.05, 2.5)."""
    return f"{value:g}"


def time_control_header(limits: GameLimits) -> str:
    """Return the PGN TimeControl value: "base+increment" with a clock, else "-"."""
    if limits.base_seconds is None:
        return "-"
    return (f"{format_seconds(limits.base_seconds)}+"
            f"{format_seconds(limits.increment_seconds)}")


def limits_description(limits: GameLimits) -> str:
    """Return a readable summary of the limits, such as "tc=5+0.05 nodes=1000"."""
    parts = []
    if limits.uses_clock:
        parts.append(f"tc={time_control_header(limits)}")
    if limits.movetime_seconds is not None:
        parts.append(f"movetime={format_seconds(limits.movetime_seconds)}")
    if limits.nodes is not None:
        parts.append(f"nodes={limits.nodes}")
    if limits.depth is not None:
        parts.append(f"depth={limits.depth}")
    return " ".join(parts)


def engine_limit(
    limits: GameLimits, clocks: dict[chess.Color, float]
) -> chess.engine.Limit:
    """Return the python-chess search limit for the next move."""
    limit = chess.engine.Limit(
        time=limits.movetime_seconds, nodes=limits.nodes, depth=limits.depth
    )
    if limits.uses_clock:
        limit.white_clock = max(clocks[chess.WHITE], MINIMUM_SENT_CLOCK_SECONDS)
        limit.black_clock = max(clocks[chess.BLACK], MINIMUM_SENT_CLOCK_SECONDS)
        limit.white_inc = limits.increment_seconds
        limit.black_inc = limits.increment_seconds
    return limit


def watchdog_seconds(limits: GameLimits, clock: float | None) -> float:
    """Return how long to wait for a move before declaring the engine hung."""
    if clock is None:
        return limits.move_timeout_seconds
    return max(clock, 0.0) + limits.time_margin_seconds + WATCHDOG_GRACE_SECONDS


def charge_clock(
    clocks: dict[chess.Color, float],
    color: chess.Color,
    elapsed: float,
    limits: GameLimits,
) -> GameEnd | None:
    """Subtract a move's time from the mover's clock; return a time loss,
    else add the increment."""
    clocks[color] -= elapsed
    if clocks[color] < -limits.time_margin_seconds:
        side = "White" if color == chess.WHITE else "Black"
        return loss_for(color, "time forfeit", f"{side} loses on time")
    clocks[color] += limits.increment_seconds
    return None


WHITE_WINS = "1-0"
BLACK_WINS = "0-1"
DRAW = "1/2-1/2"


@dataclass(frozen=True)
class GameEnd:
    """How a game ended: the PGN result, PGN Termination value,
    and a readable reason."""

    result: str
    termination: str
    reason: str


@dataclass(frozen=True)
class Adjudication:
    """When the runner ends a game early; a count of 0 disables the rule."""

    max_moves: int = 200
    resign_score: int = 1000
    resign_count: int = 0
    draw_after_move: int = 40
    draw_score: int = 10
    draw_count: int = 0


def rules_end(board: chess.Board) -> GameEnd | None:
    """Return the end of the game by the rules (mate, stalemate, draws),
    if it is over."""
    # Mate, stalemate, insufficient material, the automatic draws
    outcome = board.outcome()
    if outcome is not None:
        reason = outcome.termination.name.lower().replace("_", " ")
        return GameEnd(outcome.result(), "normal", reason)
    # Claimable draws, once they are on the board:
    # not when a move could bring them about.
    if board.is_repetition(3):
        return GameEnd(DRAW, "normal", "threefold repetition")
    if board.is_fifty_moves():
        return GameEnd(DRAW, "normal", "fifty moves")
    return None


def recent_scores(scores: list[int | None], count: int) -> list[int] | None:
    """Return the last `count` scores, or None if there are fewer or any is missing."""
    if count <= 0 or len(scores) < count:
        return None
    window = scores[-count:]
    if any(score is None for score in window):
        return None
    return [score for score in window if score is not None]


def resign_end(scores: list[int | None], adjudication: Adjudication) -> GameEnd | None:
    """Return a resignation if both engines saw one side lost for
    `resign_count` moves each.

    The scores are White's view of every engine move, so the last
    2 * resign_count plies hold resign_count moves of each engine; both
    engines must agree, which guards against one engine's misevaluation.
    """
    window = recent_scores(scores, 2 * adjudication.resign_count)
    if window is None:
        return None
    threshold = adjudication.resign_score
    if all(score <= -threshold for score in window):
        reason = f"White resigns (White's score <= -{threshold} cp)"
        return GameEnd(BLACK_WINS, "adjudication", reason)
    if all(score >= threshold for score in window):
        reason = f"Black resigns (White's score >= +{threshold} cp)"
        return GameEnd(WHITE_WINS, "adjudication", reason)
    return None


def draw_end(
    scores: list[int | None], fullmove_number: int, adjudication: Adjudication
) -> GameEnd | None:
    """Return a draw if, after move `draw_after_move`,
    both engines saw |score| <= D long enough."""
    if fullmove_number <= adjudication.draw_after_move:
        return None
    window = recent_scores(scores, 2 * adjudication.draw_count)
    if window is None:
        return None
    if all(abs(score) <= adjudication.draw_score for score in window):
        reason = f"draw by adjudication (|score| <= {adjudication.draw_score} cp)"
        return GameEnd(DRAW, "adjudication", reason)
    return None


def length_end(board: chess.Board, adjudication: Adjudication) -> GameEnd | None:
    """Return a draw once the game reaches `max_moves` full moves (0 means no limit)."""
    if adjudication.max_moves <= 0 or board.ply() < 2 * adjudication.max_moves:
        return None
    return GameEnd(
        DRAW, "adjudication", f"draw by maximum length ({adjudication.max_moves} moves)"
    )


def adjudicated_end(
    board: chess.Board, scores: list[int | None], adjudication: Adjudication
) -> GameEnd | None:
    """Return the end of the game by the rules or by adjudication, if either applies."""
    return (
        rules_end(board)
        or resign_end(scores, adjudication)
        or draw_end(scores, board.fullmove_number, adjudication)
        or length_end(board, adjudication)
    )


# Mate scores are converted to this many centipawns so that every score is a
# plain number; anything this large passes every resign threshold.
MATE_SCORE = 100_000


@dataclass(frozen=True)
class MoveReport:
    """What one engine did on one turn: its move or the failure that ends the game."""

    move: chess.Move | None
    white_score: int | None
    depth: int | None
    elapsed_seconds: float
    failure: GameEnd | None = None
    seldepth: int | None = None
    nodes: int | None = None
    hashfull: int | None = None

    @property
    def blind(self) -> bool:
        """Return whether the engine played the move without a completed
        search behind it."""
        return self.move is not None and self.depth is None


def loss_for(color: chess.Color, termination: str, reason: str) -> GameEnd:
    """Return the end of a game lost by `color`."""
    return GameEnd(
        BLACK_WINS if color == chess.WHITE else WHITE_WINS, termination, reason
    )


def failed_move(
    board: chess.Board, elapsed: float, termination: str, reason: str
) -> MoveReport:
    """Return the report of a turn on which the side to move lost the game."""
    return MoveReport(
        None, None, None, elapsed, loss_for(board.turn, termination, reason)
    )


class ReportingUciProtocol(chess.engine.UciProtocol):
    """python-chess's UCI client, keeping the "info" lines of the current search."""

    def __init__(self) -> None:
        """Start with no lines."""
        super().__init__()
        self.info_lines: list[str] = []
        self.go_sent_at: float | None = None  # time.monotonic() when `go` last went out

    def line_received(self, line: str) -> None:
        """Keep every "info" line (python-chess handles the rest as usual)."""
        if line.startswith("info"):
            self.info_lines.append(line)

    def send_line(self, line: str) -> None:
        """Send a line to the engine, noting when it was told to search."""
        # A move's time runs from `go`: a new game's `ucinewgame` and `isready`
        # before it (a table to clear) are not the engine's thinking.
        if line.startswith("go"):
            self.go_sent_at = time.monotonic()
        super().send_line(line)


def open_uci_engine(command: list[str]) -> chess.engine.SimpleEngine:
    """Return a started UCI engine whose info lines are kept (stderr discarded)."""
    # Engines' stderr is dropped: an unread pipe fills and blocks the engine,
    # and what it writes would garble the progress line.
    engine = chess.engine.SimpleEngine.popen(
        ReportingUciProtocol, command, stderr=subprocess.DEVNULL
    )
    # python-chess's own timeout (10 s past a fixed move time) would fire before the
    # runner's watchdog and call a slow move a rules infraction; the watchdog decides.
    engine.timeout = None
    return engine


def info_number(info: dict[str, int | str], key: str) -> int | None:
    """Return the number an info line gave for `key`, or None if it gave none."""
    # Every field of `parse_info_line` is a number except the text of "pv" and "bound".
    value = info.get(key)
    return value if isinstance(value, int) else None


def move_report(
    lines: list[str], move: chess.Move, mover: chess.Color, elapsed: float
) -> MoveReport:
    """Return the report of a move from the info lines the engine sent
    while choosing it."""
    infos = [parse_info_line(line) for line in lines]
    completed = [
        info for info in infos
        if "depth" in info and info.get("pv") == move.uci() and "bound" not in info
    ]
    best = completed[-1] if completed else {}
    latest: dict[str, int | str] = {
        key: info[key] for info in infos for key in ("nodes", "hashfull") if key in info
    }
    score = info_number(best, "score")
    white_view = None if score is None else (score if mover == chess.WHITE else -score)
    return MoveReport(
        move,
        white_view,
        info_number(best, "depth"),
        elapsed,
        seldepth=info_number(best, "seldepth"),
        nodes=info_number(latest, "nodes"),
        hashfull=info_number(latest, "hashfull"),
    )


@dataclass
class GameRecord:
    """A finished game: the opening, every engine move, and how it ended."""

    white_name: str
    black_name: str
    opening: Opening
    reports: list[MoveReport] = field(default_factory=list)
    end: GameEnd | None = None

    # The side whose engine crashed, hung or played an illegal move, so the
    # match runner knows which process to restart.
    failed_color: chess.Color | None = None
    wall_seconds: float = 0.0


def play_game(
    engines: dict[chess.Color, chess.engine.SimpleEngine],
    names: dict[chess.Color, str],
    opening: Opening,
    limits: GameLimits,
    adjudication: Adjudication,
) -> GameRecord:
    """Return the record of one game played from the opening until it ends."""
    record = GameRecord(names[chess.WHITE], names[chess.BLACK], opening)
    board = opening.board()
    base = limits.base_seconds or 0.0
    clocks = {chess.WHITE: base, chess.BLACK: base}
    scores: list[int | None] = []
    # A fresh key per game makes python-chess send "ucinewgame" before move one.
    game_key = object()
    start = time.monotonic()
    while (end := adjudicated_end(board, scores, adjudication)) is None:
        mover = board.turn
        clock = clocks[mover] if limits.uses_clock else None
        report = request_move(
            engines[mover],
            board,
            engine_limit(limits, clocks),
            watchdog_seconds(limits, clock),
            game_key,
        )
        end = report.failure
        if end is None and limits.uses_clock:
            end = charge_clock(clocks, mover, report.elapsed_seconds, limits)
        if end is not None:
            record.failed_color = mover if report.failure is not None else None
            break
        # Only moves that stand are recorded: a move made after the flag fell is not.
        assert report.move is not None  # only a turn that lost the game has no move
        record.reports.append(report)
        board.push(report.move)
        scores.append(report.white_score)
    record.end = end
    record.wall_seconds = time.monotonic() - start
    return record


# The numeric fields of a UCI "info" line that a move report keeps.
INFO_NUMBERS = ("depth", "seldepth", "nodes", "hashfull")


def mover_score(kind: str, value: int) -> int:
    """Return a UCI score ("cp" or "mate" and its number) in centipawns from
    the mover's view."""
    if kind == "cp":
        return value
    # A shorter mate scores higher, as in python-chess: mate in 3 is MATE_SCORE - 3.
    return MATE_SCORE - value if value > 0 else -MATE_SCORE - value


def uci_integer(word: str) -> int | None:
    """Return the integer a word of ASCII digits (with an optional minus)
    writes, else None."""
    digits = word.removeprefix("-")
    return int(word) if digits.isascii() and digits.isdecimal() else None


def parse_info_line(line: str) -> dict[str, int | str]:
    """Return depth, seldepth, nodes, hashfull, score (mover's view), its bound if it is
    only one, and pv (first move)."""
    words = line.split()
    fields: dict[str, int | str] = {}
    for position, word in enumerate(words):
        following = words[position + 1] if position + 1 < len(words) else ""
        if word == "string":
            break
        if word in INFO_NUMBERS:
            # Depths, node counts and the table's fill are never negative.
            count = uci_integer(following)
            if count is not None and count >= 0:
                fields[word] = count
        elif (
            word == "score"
            and following in ("cp", "mate")
            and position + 2 < len(words)
        ):
            value = uci_integer(words[position + 2])
            if value is not None:
                fields["score"] = mover_score(following, value)
        elif word == "pv" and following:
            fields["pv"] = following
        elif word in ("lowerbound", "upperbound"):
            # A failed window: a bound, not a score
            fields["bound"] = word
    return fields


def kill_engine(engine: chess.engine.SimpleEngine, fired: threading.Event) -> None:
    """Mark the watchdog as fired and close the engine,
    which aborts its pending search."""
    fired.set()
    engine.close()


def request_move(
    engine: chess.engine.SimpleEngine,
    board: chess.Board,
    limit: chess.engine.Limit,
    timeout_seconds: float,
    game_key: object,
) -> MoveReport:
    """Return the engine's move, or the failure (crash, hang,
    illegal move) that loses the game."""
    fired = threading.Event()
    # python-chess waits forever for a move under a clock, so a timer kills
    # a hung engine instead; its pending play() call then fails.
    watchdog = threading.Timer(timeout_seconds, kill_engine, (engine, fired))
    watchdog.daemon = True
    side = "White" if board.turn == chess.WHITE else "Black"
    protocol = engine.protocol
    # The report is made from the lines that only the runner's own protocol keeps.
    if not isinstance(protocol, ReportingUciProtocol):
        raise TypeError("request_move needs an engine started by open_uci_engine")
    lines = protocol.info_lines
    lines.clear()
    protocol.go_sent_at = None
    start = time.monotonic()
    watchdog.start()
    try:
        result = engine.play(board, limit, game=game_key)
    # Any engine fault (crash, garbage, illegal move) must lose the game,
    # not stop the match.
    except Exception as error:
        elapsed = time.monotonic() - start
        if fired.is_set():
            reason = f"{side} stopped responding for {elapsed:.1f}s"
            return failed_move(board, elapsed, "time forfeit", reason)
        reason = f"{side} engine failed: {type(error).__name__}: {error}"
        # A dead process abandons the game; anything else it sent broke the rules.
        crashed = isinstance(error, chess.engine.EngineTerminatedError)
        return failed_move(
            board, elapsed, "abandoned" if crashed else "rules infraction", reason
        )
    finally:
        watchdog.cancel()
    elapsed = time.monotonic() - (protocol.go_sent_at or start)
    if fired.is_set():  # the move came just as the watchdog killed the engine: too late
        return failed_move(board, elapsed, "time forfeit", f"{side} stopped responding")
    if result.move is None:
        return failed_move(
            board, elapsed, "rules infraction", f"{side} engine returned no move"
        )
    return move_report(list(lines), result.move, board.turn, elapsed)


def move_comment(report: MoveReport, color: chess.Color) -> str:
    """Return a PGN comment: the mover's score, depth and time,
    and hashfull if reported."""
    if report.white_score is None:
        score_text = "?"
    else:
        own_score = report.white_score if color == chess.WHITE else -report.white_score
        score_text = f"{own_score / 100:+.2f}"
    depth_text = f"/{report.depth}" if report.depth is not None else ""
    hash_text = f" hashfull={report.hashfull}" if report.hashfull is not None else ""
    return f"{score_text}{depth_text} {report.elapsed_seconds:.3f}s{hash_text}"


def game_to_pgn(record: GameRecord, headers: dict[str, str]) -> chess.pgn.Game:
    """Return the game as PGN: the opening moves marked "book",
    engine moves with comments."""
    game = chess.pgn.Game()
    game.setup(chess.Board(record.opening.start_fen))
    node: chess.pgn.GameNode = game
    for move in record.opening.moves:
        node = node.add_variation(chess.Move.from_uci(move), comment="book")
    for report in record.reports:
        color = node.board().turn
        # A record keeps only the moves that stood, so every report has one.
        assert report.move is not None
        node = node.add_variation(report.move, comment=move_comment(report, color))
    end = record.end or GameEnd("*", "unterminated", "game did not finish")
    game.headers.update(headers)
    game.headers["White"] = record.white_name
    game.headers["Black"] = record.black_name
    game.headers["Result"] = end.result
    game.headers["Termination"] = end.termination
    game.headers["Opening"] = record.opening.name
    node.comment = (node.comment + " " if node.comment else "") + end.reason
    return game
