# Generated from the book by tools/literate, from chapters stage-07-uci.
# Do not edit: change the chapters and run `make tangle`.

"""When to stop thinking: the limits of a `go` command,
and how much of the clock to use.

A search can be limited by depth, by nodes, by a fixed time per move, or by the
game clock.  With a clock the engine decides itself how long to think: a share
of the time left, plus the increment it gets back after the move, less the time
that passing each move on to the GUI costs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cb2026.board import WHITE, Colour
from cb2026.move import Move


@dataclass
class Limits:
    """What a `go` command asked for; where it set nothing,
    the default of each field."""

    depth: int | None = None

    nodes: int | None = None

    movetime: int | None = None  # milliseconds

    wtime: int | None = None

    btime: int | None = None

    winc: int = 0

    binc: int = 0

    movestogo: int | None = None

    mate: int | None = None  # find a mate in at most this many moves

    infinite: bool = False

    searchmoves: list[Move] = field(default_factory=list)  # empty: every legal move

    ponder: bool = False  # the clock starts only at `ponderhit`

    def is_endless(self) -> bool:
        """Return True if only a command ends the search (`go infinite`,
        `go ponder`, `go`)."""
        bounds = (self.depth, self.nodes, self.movetime, self.wtime, self.btime,
                  self.mate)
        return self.infinite or self.ponder or all(bound is None for bound in bounds)


# Time lost between the GUI's clock and ours: starting a thread, printing, the pipe.
MOVE_OVERHEAD = 0.02  # seconds

# With no `movestogo`, plan as if this many moves were still to be played.
DEFAULT_MOVES_TO_GO = 30

# Never use more than this share of the time left on one move.
MAXIMUM_SHARE = 0.4

# Start no new iteration after this share of the budget (the soft limit).
SOFT_SHARE = 0.5

# Abort an iteration after this many budgets (the hard limit, under MAXIMUM_SHARE).
HARD_FACTOR = 3

# The shortest time worth giving a search.
MINIMUM_TIME = 0.005  # seconds

NO_LIMIT = float("inf")


def own_clock(limits: Limits, side: Colour) -> int | None:
    """Return the milliseconds left on the clock of `side`,
    None if the command gave none."""
    return limits.wtime if side == WHITE else limits.btime


def plans_by_clock(limits: Limits) -> bool:
    """Return True if the game clocks decide the time: no `infinite`, no `movetime`."""
    has_clock = limits.wtime is not None or limits.btime is not None
    return has_clock and not limits.infinite and limits.movetime is None


def allocate_time(limits: Limits, side: Colour) -> tuple[float, float]:
    """Return (soft, hard) seconds: start no new iteration after soft, abort at hard."""
    if limits.infinite:
        return NO_LIMIT, NO_LIMIT
    if limits.movetime is not None:
        # A fixed time: use all of it, since a cut-off iteration costs only what is
        # left. (Keep the overhead from eating more than half of a very short movetime.)
        movetime = limits.movetime / 1000
        hard = max(movetime - MOVE_OVERHEAD, movetime / 2, MINIMUM_TIME)
        return hard, hard
    if not plans_by_clock(limits):
        return NO_LIMIT, NO_LIMIT
    # A clock for the opponent alone: ours is unknown, so plan as if it were empty.
    remaining = own_clock(limits, side) or 0
    increment = (limits.winc if side == WHITE else limits.binc) / 1000
    left = remaining / 1000 - MOVE_OVERHEAD
    moves_to_go = limits.movestogo or DEFAULT_MOVES_TO_GO
    # Every move brings its increment back, and every move to come costs the overhead.
    budget = left / moves_to_go + increment - MOVE_OVERHEAD
    hard = max(min(HARD_FACTOR * budget, MAXIMUM_SHARE * left), MINIMUM_TIME)
    # Each iteration takes several times as long as the one before, so one started
    # late in the budget would most likely be cut off by the hard limit anyway.
    soft = max(min(SOFT_SHARE * budget, hard), MINIMUM_TIME)
    return soft, hard
