"""Talking to the engine's command loop in tests, as a user or a GUI would.

`talk` gives the loop a whole input at once and returns its output; a `Conversation` runs
the loop on a thread of its own and feeds it one command at a time, so that commands can
arrive while it searches (the `gui` fixture of tests/conftest.py is one in UCI mode); an
`EngineProcess` is the engine started as a process, as a GUI starts it. The loop,
`cb2026.cli.run`, is there from stage 1 on, so any stage's tests may use these.
"""

from __future__ import annotations

import io
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator

import chess

from cb2026.cli import run

ERROR = "info string error: "  # how the loop begins every complaint


def talk(text: str) -> list[str]:
    """Return the output lines of the command loop given `text` as input."""
    output = io.StringIO()
    run(io.StringIO(text), output)
    return output.getvalue().splitlines()


class LineQueue(io.TextIOBase):
    """An output stream that hands each complete line to a queue."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.partial = ""

    def write(self, text: str) -> int:
        *complete, self.partial = (self.partial + text).split("\n")
        for line in complete:
            self.lines.put(line)
        return len(text)


class Conversation:
    """The command loop running on a thread, fed one command at a time."""

    def __init__(self) -> None:
        self.commands: queue.Queue[str | None] = queue.Queue()
        self.output = LineQueue()
        self.thread = threading.Thread(
            target=run, args=(self.input_lines(), self.output), daemon=True
        )
        self.thread.start()

    def input_lines(self) -> Iterator[str]:
        while (command := self.commands.get()) is not None:
            yield command + "\n"

    def send(self, command: str) -> None:
        self.commands.put(command)

    def read_until(self, prefix: str, timeout: float = 20) -> list[str]:
        """Return the replies up to and including the first that starts with `prefix`."""
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            line = self.output.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def pending(self) -> list[str]:
        """Return the replies written so far and not yet read."""
        lines = []
        while not self.output.lines.empty():
            lines.append(self.output.lines.get())
        return lines

    def close(self) -> list[str]:
        """End the input; return what the loop wrote until it finished."""
        self.commands.put(None)
        self.thread.join(timeout=20)
        assert not self.thread.is_alive()
        return self.pending()


class EngineProcess:
    """The engine as a process of its own, as a GUI starts it: commands in, lines out."""

    def __init__(self, command: list[str], environment: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
        )

    def send(self, commands: str) -> None:
        """Send a command (or several, a line each) at once, unbuffered."""
        assert self.process.stdin is not None
        self.process.stdin.write(commands + "\n")
        self.process.stdin.flush()

    def read_until(self, prefix: str) -> list[str]:
        """Return the lines up to and including the first that starts with `prefix`."""
        assert self.process.stdout is not None
        lines: list[str] = []
        while not lines or not lines[-1].startswith(prefix):
            line = self.process.stdout.readline()
            assert line, f"the engine ended before a line starting with {prefix!r}: {lines}"
            lines.append(line.rstrip("\n"))
        return lines

    def quit(self, timeout: float = 10) -> int:
        """Send `quit` and return the exit status of the process."""
        self.send("quit")
        return self.process.wait(timeout=timeout)


def search(gui: Conversation, fen: str, go: str) -> tuple[list[str], str]:
    """Send a position and a `go`; return every reply before `bestmove`, and its move."""
    gui.send(f"position fen {fen}")
    gui.send(go)
    # Long enough for a node-limited search on a loaded machine; a hang still fails.
    lines = gui.read_until("bestmove", timeout=60)
    return lines[:-1], lines[-1].split()[1]


def info_fields(line: str) -> dict[str, str]:
    """The fields of an `info` line (everything after `pv` under 'pv')."""
    words = line.split()
    fields = {}
    index = 1
    while index < len(words):
        if words[index] == "pv":
            fields["pv"] = " ".join(words[index + 1:])
            break
        if words[index] == "score":
            # "cp 20" or "mate 3", and a failed aspiration window's "lowerbound" or
            # "upperbound" after it.
            end = index + 3
            if end < len(words) and words[end] in ("lowerbound", "upperbound"):
                end += 1
            fields["score"] = " ".join(words[index + 1:end])
            index = end
        else:
            fields[words[index]] = words[index + 1]
            index += 2
    return fields


def assert_legal(fen: str, move: str) -> None:
    """Assert that python-chess, the referee, finds the UCI `move` legal in `fen`."""
    assert chess.Move.from_uci(move) in chess.Board(fen).legal_moves, f"{move} in {fen}"


# Wall-clock bounds in the tests allow a margin of a few yardsticks: the time the engine
# takes, here and now, for a small fixed search. A loaded machine slows that search and the
# engine's answers alike, so the bounds widen with the load instead of failing; an engine
# that ignores its clock still overshoots them by far. A bound that a timed call overran is
# checked once more against a yardstick measured right after the call, for load that began
# during it.
YARDSTICK_SEARCH = "go depth 4"
YARDSTICKS_OF_MARGIN = 3


def yardstick(send: Callable[[str], None], wait_for_bestmove: Callable[[], object]) -> float:
    """Seconds for a depth-4 search of the start position from an empty table, measured now."""
    send("ucinewgame")
    send("position startpos")
    started = time.monotonic()
    send(YARDSTICK_SEARCH)
    wait_for_bestmove()
    return time.monotonic() - started


def margin(engine: Conversation | EngineProcess) -> float:
    """The allowance for scheduling and load, from a yardstick measured in this test."""
    return YARDSTICKS_OF_MARGIN * yardstick(engine.send, lambda: engine.read_until("bestmove"))


def assert_in_time(elapsed: float, limit: float, margin_before: float,
                   measure_margin: Callable[[], float]) -> None:
    """Assert that `elapsed` stays under `limit` plus a margin measured before, or else after,
    the timed call."""
    if elapsed < limit + margin_before:
        return
    margin_after = measure_margin()
    assert elapsed < limit + margin_after, (
        f"{elapsed:.4f} s > {limit:.3f} s + a margin of {margin_before:.4f} s before "
        f"and {margin_after:.4f} s after")
