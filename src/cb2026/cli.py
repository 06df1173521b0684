# Generated from the book by tools/literate, from chapters stage-01-board, stage-02-moves,
# stage-03-legal, stage-04-zobrist.
# Do not edit: change the chapters and run `make tangle`.

"""The console front end: a UCI-style command loop on standard input and output.

Commands are looked up in the COMMANDS table, so each chapter teaches the loop new
commands by adding handlers and replacing that one table.  A bad command never
stops the loop: it prints an `info string error: ...` line and waits for the next.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from cb2026.move import Move, MoveError, move_to_uci, parse_uci_move
from cb2026.perft import divide
from cb2026.position import FenError, Position
from cb2026.rules import legal_moves

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

    def say(self, text: str) -> None:
        """Write one line of reply and flush it, so a GUI reading a pipe sees it at once."""
        self.output.write(text + "\n")
        self.output.flush()


Handler = Callable[[Session, list[str]], None]


def handle_uci(session: Session, arguments: list[str]) -> None:
    """Identify the engine and confirm UCI mode."""
    session.say(f"id name {ENGINE_NAME}")
    session.say(f"id author {ENGINE_AUTHOR}")
    session.say("uciok")


def handle_isready(session: Session, arguments: list[str]) -> None:
    """Confirm that the engine is ready for the next command."""
    session.say("readyok")


def handle_quit(session: Session, arguments: list[str]) -> None:
    """End the command loop."""
    session.running = False


def parse_position_arguments(arguments: list[str]) -> tuple[Position, list[str]]:
    """Return the position named by `startpos` or `fen <fields>`, and the words after it."""
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
    raise CommandError(f"position needs 'startpos' or 'fen <fen>', not {arguments[0]!r}")


def handle_position(session: Session, arguments: list[str]) -> None:
    """Set the current position from `startpos` or `fen <fen>`, then play any `moves`."""
    position, rest = parse_position_arguments(arguments)
    if rest and rest[0] != "moves":
        raise CommandError(f"expected 'moves' after the position, not {rest[0]!r}")
    for text in rest[1:]:
        try:
            move = parse_uci_move(text, MOVE_SOURCE(position))
        except MoveError as error:
            raise CommandError(str(error)) from None
        position.make_move(move)
    # Only a fully valid command replaces the session's position.
    session.position = position


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
    """Run one command line, reporting any mistake in it as an error line."""
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


def run(input_stream: TextIO, output_stream: TextIO) -> None:
    """Read and execute commands until 'quit' or the end of the input."""
    session = Session(output_stream)
    for line in input_stream:
        execute(session, line)
        if not session.running:
            break


def main() -> None:
    """Run the command loop on standard input and output (the `cb2026` console command)."""
    run(sys.stdin, sys.stdout)


# The moves `position ... moves` accepts: now that legality is known, only legal ones.
MOVE_SOURCE: Callable[[Position], list[Move]] = legal_moves


def parse_depth(arguments: list[str]) -> int:
    """Return the depth given as the single argument of a perft command."""
    if len(arguments) != 1 or not arguments[0].isdigit() or int(arguments[0]) < 1:
        raise CommandError(f"perft needs one depth of at least 1, not {' '.join(arguments)!r}")
    return int(arguments[0])


def handle_perft(session: Session, arguments: list[str]) -> None:
    """Print the perft count below each legal move, then the total, as Stockfish does."""
    depth = parse_depth(arguments)
    counts = divide(session.position, depth)
    for text, count in sorted((move_to_uci(move), count) for move, count in counts.items()):
        session.say(f"{text}: {count}")
    session.say("")
    session.say(f"Nodes searched: {sum(counts.values())}")
    session.say("")


def handle_go(session: Session, arguments: list[str]) -> None:
    """Run a `go` command; so far only `go perft N` is known."""
    if not arguments or arguments[0] != "perft":
        raise CommandError("only 'go perft <depth>' is supported")
    handle_perft(session, arguments[1:])


COMMANDS: dict[str, tuple[Handler, str]] = {
    "uci": (handle_uci, "identify the engine"),
    "isready": (handle_isready, "answer readyok"),
    "position": (handle_position, (
        "position startpos | fen <fen> [moves m1 m2 ...]: set the position"
    )),
    "d": (handle_d, "show the board and its FEN"),
    "perft": (handle_perft, "perft N: count the leaf nodes N moves deep, per move"),
    "go": (handle_go, "go perft N: the same as perft N"),
    "help": (handle_help, "list the commands"),
    "quit": (handle_quit, "leave the program"),
}
