# Generated from the book by tools/literate, from chapters stage-11-killers-history,
# stage-14-extensions, stage-14.1-singular.
# Do not edit: change the chapters and run `make tangle`.

"""Move ordering: killer moves, the history table and the move picker.

Alpha-beta cuts off soonest when the move that refutes a position comes first.  The
picker hands out a node's moves in the order most likely to find that move early:
the table's move, the captures that do not lose material, the two killer moves of
the ply, the other quiet moves by their history, and last the captures that lose.
It scores the moves of a stage only when the search gets there, so that a node cut
off by the table's move never scores a capture.
"""

from __future__ import annotations

from collections.abc import Iterator

from cb2026.board import PAWN, Piece
from cb2026.move import EN_PASSANT, Move
from cb2026.position import Position
from cb2026.see import EXCHANGE_VALUES, see

# Killer slots for plies 0 to MAX_PLY - 1.  With extensions (chapter 14) a node with
# depth left lies at most at ply (EXTENSION_LIMIT + 1) * MAX_DEPTH - 1; a number, not
# that formula, because search.py, which defines both names, imports this module.
MAX_PLY = 192

# An empty killer slot: from a1 to a1, which no legal move is.
NO_MOVE: Move = 0


def new_killers() -> list[list[Move]]:
    """Return empty killer slots, two for every ply."""
    return [[NO_MOVE, NO_MOVE] for _ in range(MAX_PLY)]


def add_killer(slots: list[Move], move: Move) -> None:
    """Make `move` the newest of a ply's two killers; the older one goes."""
    if slots[0] != move:  # already the newest: keep the other, no duplicate
        slots[1] = slots[0]
        slots[0] = move


# History values stay within [-HISTORY_MAX, HISTORY_MAX].
HISTORY_MAX = 16_384

# One entry per side and move: side << 12 | from_square | to_square << 6.
HISTORY_SIZE = 2 << 12


def new_history() -> list[int]:
    """Return an empty history table."""
    return [0] * HISTORY_SIZE


def history_bonus(depth: int) -> int:
    """Return how much a cutoff `depth` plies deep moves a history value."""
    return min(depth * depth, HISTORY_MAX)


def update_history(history: list[int], index: int, bonus: int) -> None:
    """Move entry `index` by `bonus` (a malus if negative), less as it nears the
    bound: gravity keeps every value within [-HISTORY_MAX, HISTORY_MAX]."""
    value = history[index]
    history[index] = value + bonus - value * abs(bonus) // HISTORY_MAX


def is_noisy(board: list[Piece], move: Move) -> bool:
    """Return True for a capture or a promotion; every other move is quiet."""
    return bool(board[move >> 6 & 63] or move >> 12 & 7 or move >> 15 == EN_PASSANT)


def mvv_lva_score(board: list[Piece], move: Move) -> int:
    """Return how early to search a capture or promotion: big victim first,
    then small attacker."""
    victim = board[move >> 6 & 63] & 7
    if move >> 15 == EN_PASSANT:
        victim = PAWN  # the captured pawn is not on the target square
    attacker = board[move & 63] & 7
    # Piece types run from pawn (1) to queen (5), so they double as a value order.
    # A promotion counts as capturing the piece it becomes.
    return (victim + (move >> 12 & 7)) * 8 - attacker


def is_losing_capture(board: list[Piece], move: Move) -> bool:
    """Return True if SEE says the capture `move` loses material."""
    if move >> 12 & 7:
        return False  # promotions stay with the good captures, as MVV-LVA put them
    victim = PAWN if move >> 15 == EN_PASSANT else board[move >> 6 & 63] & 7
    # Taking a piece worth at least the attacker cannot lose: the mover may stop
    # after the first recapture.  SEE is needed only for the others.
    if EXCHANGE_VALUES[victim] >= EXCHANGE_VALUES[board[move & 63] & 7]:
        return False
    return see(board, move) < 0


# The stages of the picker, in the order it reaches them.  ORDERED: a list put in
# order beforehand (the root's moves, or every node's when ordering is off).
Stage = int
ORDERED: Stage = 0
TT_MOVE: Stage = 1
GOOD_CAPTURES: Stage = 2
KILLERS: Stage = 3
QUIETS: Stage = 4
BAD_CAPTURES: Stage = 5


class MovePicker:
    """Hands out a node's legal moves, likeliest cutoff first, stage by stage."""

    def __init__(
        self, position: Position, moves: list[Move], tt_move: Move | None = None,
        killers: list[Move] | None = None, history: list[int] | None = None,
        exchanges: bool = False, staged: bool = True,
    ) -> None:
        """Pick from `moves` (all legal); `killers` (the ply's slots), `history` and
        SEE (`exchanges`) are used when given; `staged=False` keeps `moves`' order."""
        self.position = position
        self.moves = moves
        self.tt_move = tt_move
        self.killers = killers
        self.history = history
        self.exchanges = exchanges
        self.staged = staged
        self.stage = ORDERED if not staged else TT_MOVE  # the stage of the last move
        self.bad_captures = 0  # captures SEE set aside for the last stage

    def __iter__(self) -> Iterator[Move]:
        """Yield the moves, each stage scored only when the one before is used up."""
        if not self.staged:
            yield from self.moves
            return
        tt_move = self.tt_move
        if tt_move is not None:
            # Not looked for in `moves`: the search passes a stored move only when
            # probe_table found it among them (a move stored by another position with
            # the same key may be illegal here).
            yield tt_move
        board = self.position.board
        noisy: list[Move] = []
        quiet: list[Move] = []
        for move in self.moves:
            if move != tt_move:
                (noisy if is_noisy(board, move) else quiet).append(move)
        self.stage = GOOD_CAPTURES
        noisy.sort(key=lambda move: mvv_lva_score(board, move), reverse=True)
        losing: list[Move] = []
        for move in noisy:
            if self.exchanges and is_losing_capture(board, move):
                losing.append(move)  # SEE: searched after the quiet moves
                self.bad_captures += 1
            else:
                yield move
        self.stage = KILLERS
        if self.killers is not None:
            # A killer from another position may be illegal here, or a capture.
            for killer in (self.killers[0], self.killers[1]):
                if killer in quiet:
                    quiet.remove(killer)
                    yield killer
        self.stage = QUIETS
        history = self.history
        if history is not None and len(quiet) > 1:
            side = self.position.side_to_move << 12
            quiet.sort(key=lambda move: history[side | move & 4095], reverse=True)
        yield from quiet
        self.stage = BAD_CAPTURES
        yield from losing

    # Set by the search when the TT move proved singular: search_moves extends it.
    singular: bool = False
