# Generated from the book by tools/literate, from chapters stage-01-board,
# stage-02-moves, stage-03-legal, stage-04-zobrist, stage-07-uci, stage-08-tt,
# stage-09-pvs, stage-10-null-move, stage-16-parallel, stage-17-speed.
# Do not edit: change the chapters and run `make tangle`.

"""The console front end: a UCI-style command loop on standard input and output.

Commands are looked up in the COMMANDS table, so each chapter teaches the loop new
commands by adding handlers and replacing that one table.  A bad command never
stops the loop: it prints an `info string error: ...` line and waits for the next.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from cb2026.board import WHITE
from cb2026.limits import Limits, allocate_time, own_clock, plans_by_clock
from cb2026.move import Move, MoveError, move_to_uci, parse_uci_move
from cb2026.parallel import HelperPool
from cb2026.perft import divide
from cb2026.position import FenError, Position
from cb2026.rules import legal_moves
from cb2026.search import (
    MAX_DEPTH,
    Iteration,
    Searcher,
    Techniques,
    is_mate_score,
    mate_in_moves,
)
from cb2026.tt import (
    DEFAULT_HASH_MB,
    MAXIMUM_HASH_MB,
    Bound,
    SharedTable,
    TranspositionTable,
    entry_count,
)

ENGINE_NAME = "cb2026"
ENGINE_AUTHOR = "the cb2026 authors"


class CommandError(Exception):
    """Raised by a command handler to report a mistake in the command it was given."""


class Session:
    """The state of one conversation: the current position and where replies go."""

    def __init__(self, output: TextIO) -> None:
        """Start a session at the starting position, replying on `output`."""
        self.output = output
        self.position = Position.starting()
        self.running = True
        self.searcher = Searcher()
        self.search_thread: threading.Thread | None = None
        self.search_limits = Limits()  # those of the running (or last) search
        # Set by the search thread just before it sends bestmove: from then on a GUI
        # may send the next `go`, even though the thread has not quite ended yet.
        self.bestmove_sent = threading.Event()
        # Set by `uci`: from then on, output for a GUI, not a person
        self.uci_mode = False
        self.debug = False  # set by `debug on`: more `info string` lines
        self.ponder_allowed = False  # the Ponder option: may the GUI send `go ponder`?
        # The search thread and the command loop both write: one line at a time.
        self.output_lock = threading.Lock()
        # The last `position` command and a copy of its position, for a command that
        # only adds moves to it (chapter 7, "The whole game in every `position`").
        self.last_position_words: list[str] = []
        self.last_position = self.position.copy()

    def say(self, text: str) -> None:
        """Write one line of reply and flush it,
        so a GUI reading a pipe sees it at once."""
        with self.output_lock:
            self.output.write(text + "\n")
            self.output.flush()

    def is_searching(self) -> bool:
        """Return True while a search is running and has not yet sent its bestmove."""
        return self.search_thread is not None and not self.bestmove_sent.is_set()

    def wait_for_search(self) -> None:
        """Wait until the running search, if any,
        has finished by itself (unless it is endless)."""
        if self.search_thread is not None and not self.search_limits.is_endless():
            self.search_thread.join()
            self.search_thread = None

    def stop_search(self) -> None:
        """Stop the running search, if any, and wait until it has sent its bestmove."""
        if self.search_thread is not None:
            self.searcher.stop()
            self.search_thread.join()
            self.search_thread = None

    # The helper processes of a parallel search (None: Threads 1, this process alone)
    pool: HelperPool | None = None

    threads: int = 1  # the Threads option: how many processes search


Handler = Callable[[Session, list[str]], None]


def handle_uci(session: Session, arguments: list[str]) -> None:
    """Identify the engine, list its options and confirm UCI mode."""
    session.uci_mode = True
    session.say(f"id name {ENGINE_NAME}")
    session.say(f"id author {ENGINE_AUTHOR}")
    for line in option_lines(session):
        session.say(line)
    session.say("uciok")


def handle_isready(session: Session, arguments: list[str]) -> None:
    """Confirm that the engine is ready for the next command."""
    session.say("readyok")


def handle_quit(session: Session, arguments: list[str]) -> None:
    """Stop any search and end the command loop."""
    session.stop_search()
    session.running = False


def parse_position_arguments(arguments: list[str]) -> tuple[Position, list[str]]:
    """Return the position named by `startpos` or `fen <fields>`,
    and the words after it."""
    if not arguments:
        raise CommandError("position needs 'startpos' or 'fen <fen>'")
    if arguments[0] == "startpos":
        return Position.starting(), arguments[1:]
    if arguments[0] == "fen":
        # The FEN runs up to the word 'moves' (or the end of the line).
        end = arguments.index("moves") if "moves" in arguments else len(arguments)
        try:
            return Position.from_fen(" ".join(arguments[1:end])), arguments[end:]
        except FenError as error:
            raise CommandError(f"bad FEN: {error}") from None
    raise CommandError(
        f"position needs 'startpos' or 'fen <fen>', not {arguments[0]!r}"
    )


def handle_position(session: Session, arguments: list[str]) -> None:
    """Set the current position from `startpos` or `fen <fen>`, then play any `moves`.

    A command that repeats the last one and adds moves plays only the moves it adds.
    """
    added = moves_after_last_position(session, arguments)
    if added is None:
        position, rest = parse_position_arguments(arguments)
        if rest and rest[0] != "moves":
            raise CommandError(f"expected 'moves' after the position, not {rest[0]!r}")
        added = rest[1:]
    else:
        position = session.last_position.copy()
    for text in added:
        try:
            move = parse_uci_move(text, MOVE_SOURCE(position))
        except MoveError as error:
            raise CommandError(str(error)) from None
        position.make_move(move)
    # Only a fully valid command replaces the session's position and the one remembered.
    session.position = position
    session.last_position_words = list(arguments)
    session.last_position = position.copy()


def handle_d(session: Session, arguments: list[str]) -> None:
    """Show the current position as a diagram, as FEN and by its Zobrist key."""
    session.say(str(session.position))
    session.say(f"Fen: {session.position.fen()}")
    session.say(f"Key: {session.position.key:016X}")


def handle_help(session: Session, arguments: list[str]) -> None:
    """List the commands this engine understands."""
    for name, (_, description) in COMMANDS.items():
        session.say(f"{name:10} {description}")


def execute(session: Session, line: str) -> None:
    """Run one command line, reporting any mistake in it, or any failure,
    as an error line."""
    words = line.split()
    if not words:
        return
    entry = COMMANDS.get(words[0])
    if entry is None:
        session.say(f"info string error: unknown command {words[0]!r} (try 'help')")
        return
    handler, _ = entry
    try:
        handler(session, words[1:])
    except CommandError as error:
        session.say(f"info string error: {error}")
    except Exception as error:  # a bug must not end the engine, and the game, at once
        session.say(f"info string error: the command failed ({error!r})")


def run(input_stream: TextIO, output_stream: TextIO) -> None:
    """Read and execute commands until 'quit' or the end of the input."""
    session = Session(output_stream)
    try:
        for line in input_stream:
            # A person (no `uci` sent) gets one command after the other, as in a shell:
            # each waits for a finite search to end, except `stop` and `quit`,
            # which end it at once.
            if not session.uci_mode and line.split()[:1] not in (["stop"], ["quit"]):
                session.wait_for_search()
            execute(session, line)
            if not session.running:
                break
        # The end of the input: the shell lets a finite search finish, a GUI's is
        # stopped.
        if not session.uci_mode:
            session.wait_for_search()
        session.stop_search()
    finally:
        # However the loop ended (`quit`, the end of the input, Ctrl-C, a bug): no
        # search, no helper left running, no block of shared memory left behind.  The
        # search goes first: it still reads the table, and owes its bestmove.
        session.stop_search()
        end_parallel_search(session)


def main() -> None:
    """Run the command loop on standard input and output (the `cb2026` console
    command); `cb2026 --version` prints the version and build instead."""
    if sys.argv[1:] == ["--version"]:
        print(version_line())
        return
    run(sys.stdin, sys.stdout)


# The moves `position ... moves` accepts: now that legality is known, only legal ones.
MOVE_SOURCE: Callable[[Position], list[Move]] = legal_moves

# The most digits a number of a command may have: 18 fit in 64 bits, as in most engines.
# (Python's `int` refuses a string of over 4,300 digits with an exception.)
MAX_DIGITS = 18


def parse_count(text: str) -> int | None:
    """Return the number ≥ 0 that `text` writes in decimal digits,
    or None if it is not one."""
    # str.isdecimal, not str.isdigit: the second accepts '²', which `int` cannot read.
    return int(text) if text.isdecimal() and len(text) <= MAX_DIGITS else None


def quoted(text: str) -> str:
    """Return `text` quoted for an error line; a very long one only by its length."""
    return repr(text) if len(text) <= 2 * MAX_DIGITS else f"{len(text):,} characters"


def parse_depth(arguments: list[str]) -> int:
    """Return the depth given as the single argument of a perft command."""
    depth = parse_count(arguments[0]) if len(arguments) == 1 else None
    if depth is None or depth < 1:
        words = " ".join(arguments)
        raise CommandError(f"perft needs one depth of at least 1, not {quoted(words)}")
    return depth


def handle_perft(session: Session, arguments: list[str]) -> None:
    """Print the perft count below each legal move, then the total,
    as Stockfish does."""
    depth = parse_depth(arguments)
    counts = divide(session.position, depth)
    for text, count in sorted(
        (move_to_uci(move), count) for move, count in counts.items()
    ):
        session.say(f"{text}: {count}")
    session.say("")
    session.say(f"Nodes searched: {sum(counts.values())}")
    session.say("")


# `go` searches in a thread of its own, so that the loop keeps reading commands
# while the engine thinks and can answer `stop` at once.
def handle_go(session: Session, arguments: list[str]) -> None:
    """Start searching the current position in a thread (or run `go perft N`)."""
    if arguments and arguments[0] == "perft":
        handle_perft(session, arguments[1:])
        return
    if session.is_searching():
        raise CommandError("a search is already running (send 'stop' first)")
    limits, complaints = parse_go_arguments(arguments, session.position)
    for complaint in complaints:
        session.say(f"info string error: {complaint}")
    # The search runs as the warnings say: they are not errors.
    for warning in limit_warnings(limits, session.position):
        session.say(f"info string warning: {warning}")
    if limits.ponder and not session.ponder_allowed:
        session.say(
            "info string go ponder with the Ponder option off: pondering as asked"
        )
    if session.debug:
        soft, hard = allocate_time(limits, session.position.side_to_move)
        session.say(f"info string debug: searching {session.position.fen()} with "
                    f"{soft:.3f} s soft, {hard:.3f} s hard")
    session.stop_search()  # collect the finished thread of the previous search
    # Cleared here, not in the thread: a `stop` or `ponderhit` may come
    # before it starts.
    session.searcher.stop_event.clear()
    session.searcher.ponderhit_event.clear()
    session.bestmove_sent.clear()
    # The search plays its moves on a copy, so `position` may change during the search.
    position = session.position.copy()
    session.search_limits = limits
    session.search_thread = threading.Thread(
        target=run_search, args=(session, position, limits), daemon=True)
    session.search_thread.start()


# The words of `go` that take a whole number, and the Limits field each sets.
GO_NUMBERS: dict[str, str] = {
    "depth": "depth", "nodes": "nodes", "movetime": "movetime", "wtime": "wtime",
    "btime": "btime", "winc": "winc", "binc": "binc", "movestogo": "movestogo",
    "mate": "mate",
}

# The words of `go` that stand alone; each sets the Limits field of its name.
GO_SWITCHES = ("infinite", "ponder")

GO_WORDS = {*GO_NUMBERS, *GO_SWITCHES, "searchmoves"}


def parse_go_number(word: str, text: str, complaints: list[str]) -> int | None:
    """Return the number `text` after `word`,
    or None with a complaint if it is not one."""
    # Clocks can go below zero in some GUIs; every other number must be 0 or more.
    clock = word in ("wtime", "btime")
    negative = clock and text.startswith("-")
    number = parse_count(text[1:] if negative else text)
    if number is None:
        wanted = "a whole number" if clock else "a number ≥ 0"
        complaints.append(f"go {word} needs {wanted} of at most {MAX_DIGITS} digits, "
                          f"not {quoted(text)}: ignored")
        return None
    return -number if negative else number


def parse_searchmoves(
    texts: list[str], position: Position, complaints: list[str]
) -> list[Move]:
    """Return the legal moves among `texts`, adding a complaint for each other one."""
    moves = []
    for text in texts:
        try:
            moves.append(parse_uci_move(text, legal_moves(position)))
        except MoveError as error:
            complaints.append(f"searchmoves: {error}: ignored")
    if not moves:
        complaints.append("searchmoves names no legal move: searching every move")
    return moves


def parse_go_arguments(
    arguments: list[str], position: Position
) -> tuple[Limits, list[str]]:
    """Return the limits given by the words after `go`,
    and a complaint per word ignored."""
    limits = Limits()
    complaints: list[str] = []
    index = 0
    while index < len(arguments):
        word = arguments[index]
        index += 1
        if word in GO_SWITCHES:
            setattr(limits, word, True)
        elif word == "searchmoves":
            end = index
            while end < len(arguments) and arguments[end] not in GO_WORDS:
                end += 1
            limits.searchmoves = parse_searchmoves(
                arguments[index:end], position, complaints
            )
            index = end
        elif word in GO_NUMBERS:
            text = arguments[index] if index < len(arguments) else ""
            number = parse_go_number(word, text, complaints)
            if number is not None:
                setattr(limits, GO_NUMBERS[word], number)
            if text not in GO_WORDS:  # `go depth infinite` still means `infinite`
                index += 1
        else:
            complaints.append(f"unknown word {word!r} in go: ignored")
    return limits, complaints


def limit_warnings(limits: Limits, position: Position) -> list[str]:
    """Return a warning for each limit that is searched otherwise than it was given."""
    warnings = []
    if limits.depth is not None and limits.depth > MAX_DEPTH:
        warnings.append(f"go depth {limits.depth} is beyond the deepest search: "
                        f"searching to depth {MAX_DEPTH}")
    own, other = (
        ("wtime", "btime") if position.side_to_move == WHITE else ("btime", "wtime")
    )
    # Only when the clock plan is the one used (no movetime,
    # no infinite), as allocate_time.
    if plans_by_clock(limits) and own_clock(limits, position.side_to_move) is None:
        warnings.append(f"go gives {other} but no {own} for the side to move: "
                        "planning as with an empty clock")
    return warnings


def run_search(session: Session, position: Position, limits: Limits) -> None:
    """Search `position` within `limits` (helpers alongside, if any), report each
    iteration, then name the best move."""
    reported: list[Iteration] = []

    def report(iteration: Iteration) -> None:
        reported.append(iteration)
        session.say(uci_info_line(session, iteration) if session.uci_mode
                    else human_info_line(iteration))

    root = position.copy()  # the search may leave its position half-way down a line
    tell_helpers(session, lambda pool: pool.start(session.searcher, position, limits))
    try:
        best_move, last = session.searcher.think(position, limits, report)
    except Exception as error:  # a bug in the search must not leave the GUI waiting
        best_move, last = move_after_failure(root, reported)
        if best_move is None:
            fallback = "no legal move to play"
        elif last is None:
            fallback = "playing the first legal move"
        else:
            fallback = "playing the move of the last report"
        session.say(f"info string error: the search failed ({error!r}): {fallback}")
    else:
        if last is None and best_move is not None:
            session.say(
                "info string no move was searched: playing the first in search order"
            )
    # Before bestmove: the next search may start right after it.
    tell_helpers(session, HelperPool.stop)
    answer = f"bestmove {move_to_uci(best_move) if best_move is not None else '0000'}"
    # The reply the line expects is the move to ponder on.
    if last is not None and len(last.pv) >= 2 and last.pv[0] == best_move:
        answer += f" ponder {move_to_uci(last.pv[1])}"
    session.bestmove_sent.set()
    session.say(answer)


def move_after_failure(
    root: Position, reported: list[Iteration]
) -> tuple[Move | None, Iteration | None]:
    """Return the move to play after a failed search: the last result's,
    else a legal one."""
    # A failed window's report is a bound: its move, if any,
    # was never searched to the end.
    results = [iteration for iteration in reported
               if iteration.pv and iteration.bound == Bound.EXACT]
    if results:
        return results[-1].pv[0], results[-1]
    moves = legal_moves(root)
    return (moves[0] if moves else None), None


def handle_stop(session: Session, arguments: list[str]) -> None:
    """Stop the search; it answers with the best move it has searched deepest."""
    session.stop_search()


def handle_ponderhit(session: Session, arguments: list[str]) -> None:
    """The opponent played the predicted move: the pondering search goes on,
    on the clock."""
    if not (session.is_searching() and session.search_limits.ponder):
        raise CommandError("ponderhit needs a running 'go ponder' search")
    # The clock starts now, when the command is read, not when the search notices it.
    session.searcher.ponderhit(time.monotonic())
    session.search_limits = dataclasses.replace(session.search_limits, ponder=False)


def option_name(technique: str) -> str:
    """Return the UCI option name of a switch: 'PST', 'Ordering', 'NullMove'."""
    return "".join(word.upper() if len(word) <= 3 else word.capitalize()
                   for word in technique.split("_"))


def option_lines(session: Session) -> list[str]:
    """Return the `option` lines that `uci` answers with: table, processes,
    Ponder, technique switches."""
    return [
        f"option name Hash type spin default {DEFAULT_HASH_MB}"
        f" min 1 max {MAXIMUM_HASH_MB}",
        "option name Clear Hash type button",
        "option name TableSlots type spin default 0"
        f" min 0 max {entry_count(MAXIMUM_HASH_MB)}",
        f"option name Threads type spin default 1 min 1 max {MAXIMUM_THREADS}",
        "option name Ponder type check default false",
    ] + [
        f"option name {option_name(field.name)} type check"
        f" default {str(field.default).lower()}"
        for field in dataclasses.fields(Techniques)
    ]


def parse_check_value(name: str, value: str) -> bool:
    """Return the truth value of a check option's `value` ('true' or 'false')."""
    if value.lower() not in ("true", "false"):
        raise CommandError(
            f"option {name} needs the value true or false, not {value!r}"
        )
    return value.lower() == "true"


def apply_option(session: Session, name: str, value: str) -> None:
    """Set the option called `name` (in any case) to `value`."""
    if session.is_searching():
        raise CommandError("options cannot change during a search (send 'stop' first)")
    table = session.searcher.tt
    if name.lower() == "hash":
        # Chapter 3's parse_count, as for every number of a command:
        # at most MAX_DIGITS digits.
        megabytes = parse_count(value)
        if megabytes is None or not 1 <= megabytes <= MAXIMUM_HASH_MB:
            raise CommandError(f"option Hash needs megabytes from 1 to "
                               f"{MAXIMUM_HASH_MB}, not {quoted(value)}")
        table.resize(megabytes, table.slots_asked)
    elif name.lower() == "tableslots":
        slots, most = parse_count(value), entry_count(MAXIMUM_HASH_MB)
        if slots is None or not 0 <= slots <= most:
            raise CommandError(
                f"option TableSlots needs a number of slots from 0 (as many as "
                f"Hash holds) to {most}, not {quoted(value)}"
            )
        table.resize(table.megabytes, slots)
    elif name.lower() == "threads":
        count = parse_count(value)
        if count is None or not 1 <= count <= MAXIMUM_THREADS:
            raise CommandError(f"option Threads needs a number of processes from 1 to "
                               f"{MAXIMUM_THREADS}, not {quoted(value)}")
        set_threads(session, count)
    elif name.lower() == "clear hash":
        table.clear()
    elif name.lower() == "ponder":
        session.ponder_allowed = parse_check_value(name, value)
    else:
        apply_switch(session.searcher.techniques, name, value)


def handle_setoption(session: Session, arguments: list[str]) -> None:
    """Set an option: `setoption name <name> [value <value>]`."""
    if not arguments or arguments[0] != "name":
        raise CommandError("setoption needs 'name <name> [value <value>]'")
    words = arguments[1:]
    end = words.index("value") if "value" in words else len(words)
    name = " ".join(words[:end])
    if not name:
        raise CommandError("setoption needs an option name")
    apply_option(session, name, " ".join(words[end + 1:]))


def handle_ucinewgame(session: Session, arguments: list[str]) -> None:
    """Start a new game: back to the starting position, with an empty table."""
    session.stop_search()
    session.position = Position.starting()
    session.searcher.tt.clear()


def handle_debug(session: Session, arguments: list[str]) -> None:
    """Switch debug mode on or off: `debug on` adds `info string` lines
    about each search."""
    if arguments not in (["on"], ["off"]):
        raise CommandError(f"debug needs 'on' or 'off', not {' '.join(arguments)!r}")
    session.debug = arguments == ["on"]


def handle_register(session: Session, arguments: list[str]) -> None:
    """Accept `register` with any words (`later`, `name ... code ...`):
    none is needed."""


def score_text(score: int) -> str:
    """Return a score as UCI writes it: `cp 35`, or `mate 3` / `mate -2` in moves."""
    return f"mate {mate_in_moves(score)}" if is_mate_score(score) else f"cp {score}"


def uci_info_line(session: Session, iteration: Iteration) -> str:
    """Return the `info` line that reports one iteration, or one failed window,
    to a GUI."""
    milliseconds = int(iteration.elapsed * 1000)
    nps = int(iteration.nodes / iteration.elapsed) if iteration.elapsed > 0 else 0
    line = (f"info depth {iteration.depth} seldepth {iteration.seldepth} "
            f"score {score_text(iteration.score)}{BOUND_WORDS[iteration.bound]} "
            f"nodes {iteration.nodes} nps {nps} "
            f"time {milliseconds} hashfull {session.searcher.tt.hashfull()}")
    if iteration.pv:  # a mated or stalemated root, or a failed low window, has no line
        line += " pv " + " ".join(move_to_uci(move) for move in iteration.pv)
    return line


def moves_after_last_position(
    session: Session, arguments: list[str]
) -> list[str] | None:
    """Return the moves that a `position` command adds to the last one.

    None if the command does not begin with all the words of the last one.
    """
    last = session.last_position_words
    if not last or arguments[: len(last)] != last:
        return None
    added = arguments[len(last):]
    # The last command had a move list: every word after it is a move
    if "moves" in last:
        return added
    if not added:
        return []
    # After a bare position, only a move list may follow (not, say, more FEN fields).
    return added[1:] if added[0] == "moves" else None


def human_info_line(iteration: Iteration) -> str:
    """Return one iteration as a line for a person: pawns,
    thousands of nodes, seconds."""
    if is_mate_score(iteration.score):
        score = f"#{mate_in_moves(iteration.score)}"
    else:
        score = f"{iteration.score / 100:+.2f}"
    score = BOUND_SIGNS[iteration.bound] + score
    nps = iteration.nodes / iteration.elapsed if iteration.elapsed > 0 else 0
    pv = " ".join(move_to_uci(move) for move in iteration.pv)
    return (f"depth {iteration.depth:2}/{iteration.seldepth:<2} score {score:>7}  "
            f"nodes {iteration.nodes:>9,}  {nps / 1000:6.1f} kn/s  "
            f"{iteration.elapsed:6.2f} s  {pv}")


def handle_set(session: Session, arguments: list[str]) -> None:
    """Set an option for a person: `set <technique> on|off` (or
    `set <option> <value>`)."""
    if len(arguments) < 2:
        raise CommandError(
            "set needs an option and a value, such as 'set quiescence off'"
        )
    value = {"on": "true", "off": "false"}.get(arguments[-1].lower(), arguments[-1])
    apply_option(session, " ".join(arguments[:-1]), value)


def handle_stats(session: Session, arguments: list[str]) -> None:
    """Show what the last search did: the counters in the searcher's notes, and the
    helpers' nodes."""
    if session.is_searching():
        raise CommandError("a search is running (send 'stop' first)")
    notes = session.searcher.notes
    for field in dataclasses.fields(notes):
        session.say(f"{field.name:20} {getattr(notes, field.name):,}")
    if notes.cutoffs:
        session.say(
            f"{'first-move cutoffs':20} {notes.first_move_cutoffs / notes.cutoffs:.1%}"
        )
    # The helpers count only their nodes, sent when they stop.
    helper_nodes = session.pool.nodes if session.pool is not None else 0
    if session.pool is not None:
        session.say(f"{'helper nodes':20} {helper_nodes:,}")
    elapsed = session.searcher.elapsed
    if elapsed > 0:
        session.say(f"{'time':20} {elapsed:.3f} s")
        per_second = (notes.nodes + helper_nodes) / elapsed  # of every process
        session.say(f"{'nodes per second':20} {per_second:,.0f}")


COMMANDS: dict[str, tuple[Handler, str]] = {
    "uci": (handle_uci, "identify the engine and list its options"),
    "isready": (handle_isready, "answer readyok"),
    "setoption": (handle_setoption, (
        "setoption name <name> value <value>: set an option"
    )),
    "ucinewgame": (handle_ucinewgame, "start a new game"),
    "position": (handle_position, (
        "position startpos | fen <fen> [moves m1 m2 ...]: set the position"
    )),
    "go": (handle_go, (
        "go [depth N] [nodes N] [movetime MS] [wtime MS btime MS winc MS binc MS "
        "movestogo N] [mate N] [infinite] [ponder] [searchmoves m1 m2 ...] "
        "| go perft N: search"
    )),
    "stop": (handle_stop, "stop the search and play its best move"),
    "ponderhit": (handle_ponderhit, (
        "the predicted move was played: go ponder runs on the clock"
    )),
    "debug": (handle_debug, "debug on|off: more info strings"),
    "register": (handle_register, "accepted; this engine needs no registration"),
    "d": (handle_d, "show the board and its FEN"),
    "perft": (handle_perft, "perft N: count the leaf nodes N moves deep, per move"),
    "set": (handle_set, "set <option> <value>: set an option (techniques: on|off)"),
    "stats": (handle_stats, "show what the last search did"),
    "help": (handle_help, "list the commands"),
    "quit": (handle_quit, "leave the program"),
}

# How an `info` line marks a score that is only a bound (UCI: after the score).
BOUND_WORDS = {Bound.EXACT: "", Bound.LOWER: " lowerbound", Bound.UPPER: " upperbound"}

# How a person's line marks a score that is only a bound.
BOUND_SIGNS = {Bound.EXACT: "", Bound.LOWER: ">=", Bound.UPPER: "<="}

# The Threads option counts processes, at most one per core.
MAXIMUM_THREADS = os.cpu_count() or 1


def set_threads(session: Session, count: int) -> None:
    """Search with `count` processes: this one and `count - 1` helpers, which share
    its table (then a SharedTable, emptied)."""
    if count == session.threads:
        return
    end_parallel_search(session)
    if count > 1:
        session.searcher.tt = table_like(session.searcher.tt, shared=True)
        session.pool = HelperPool(count - 1)
        session.threads = count


def end_parallel_search(session: Session) -> None:
    """End the helper processes and remove the shared table's block from the system:
    the engine searches alone again, with an empty table of the same size."""
    if session.pool is not None:
        session.pool.close()
        session.pool = None
    table = session.searcher.tt
    if isinstance(table, SharedTable):
        table.close()
        session.searcher.tt = table_like(table, shared=False)
    session.threads = 1


def table_like(old: TranspositionTable, shared: bool) -> TranspositionTable:
    """Return an empty table of `old`'s size and kind of slots, shared or not."""
    table = SharedTable(old.megabytes) if shared else TranspositionTable(old.megabytes)
    if old.slots_asked:
        table.resize(old.megabytes, old.slots_asked)
    table.buckets = old.buckets
    return table


def apply_switch(techniques: Techniques, name: str, value: str) -> None:
    """Turn the technique called `name` on or off: `value` is true or false."""
    # A switch answers to its field's name and to its option's: null_move, NullMove.
    wanted = name.lower().replace(" ", "_")
    for field in dataclasses.fields(techniques):
        if wanted in (field.name, option_name(field.name).lower()):
            setattr(techniques, field.name, parse_check_value(name, value))
            return
    raise CommandError(f"unknown option {name!r} (the 'uci' command lists them)")


def tell_helpers(session: Session, message: Callable[[HelperPool], object]) -> None:
    """Send `message` to the session's helpers, if any; if one has failed, end them
    all and go on alone, saying so."""
    if session.pool is None:
        return
    try:
        message(session.pool)
    except (OSError, EOFError) as error:  # a pipe broken or closed, or no answer
        session.say(f"info string error: a helper process failed ({error!r}): "
                    "searching alone from now on")
        end_parallel_search(session)


def engine_build() -> str:
    """Return which build of the engine runs: "compiled (mypyc)" or "pure Python"."""
    # This module is compiled with the rest of the engine or not at all, and a compiled
    # module is an extension module: its file is a shared library, not a .py file.
    compiled = __file__.endswith((".so", ".pyd"))
    return "compiled (mypyc)" if compiled else "pure Python"


def version_line() -> str:
    """Return the line `cb2026 --version` prints: the version and the build."""
    try:
        version = importlib.metadata.version(ENGINE_NAME)
    except importlib.metadata.PackageNotFoundError:
        version = "(not installed)"  # run from a folder on sys.path
    return f"{ENGINE_NAME} {version}, {engine_build()}"
