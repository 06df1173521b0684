"""Singular extensions (chapter 14.1).

The referees: the previous stage's engine itself (its package, run in its own process),
which the search with SingularExtensions off must equal node for node; an inspector that
re-derives, at every node of real searches, from the table and the node alone, whether a
singular search must be made, and checks that it is made exactly there, with the window
and depth of the rule, that it neither reads nor writes the table nor passes, that a
singular move is searched a ply deeper and that a multi-cut returns at once; and a full
search of each multi-cut's position, which must agree that the node fails high.
"""

from __future__ import annotations

import dataclasses
import io
from dataclasses import field

import pytest

from cb2026.cli import Session, execute
from cb2026.limits import Limits
from cb2026.move import Move, move_to_uci
from cb2026.picker import NO_MOVE, MovePicker
from cb2026.position import NULL_MOVE, Position
from cb2026.rules import legal_moves
from cb2026.search import (
    EXTENSION_LIMIT,
    INFINITY,
    SINGULAR_DEPTH,
    SINGULAR_ENTRY_SLACK,
    SINGULAR_MARGIN,
    Searcher,
    Techniques,
    is_mate_score,
    score_from_tt,
)
from cb2026.tt import Bound, Entry
from literate.book import chapters_through
from positions import SEARCH_POSITIONS, WIN_AT_CHESS
from stage_referee import FORWARD_PRUNING, stage_searches, switched_off

pytestmark = pytest.mark.stage("stage-14.1-singular")

# The stage before this one in the book's order: with the switch off, its search.
PREVIOUS_STAGE = sorted(chapters_through("stage-14.1-singular"),
                        key=lambda chapter: chapter.number)[-2].stage_id

# Endings, where a Python search reaches the depths at which singular searches are made
# (SINGULAR_DEPTH plies left below the root) within seconds.
ENDGAME = SEARCH_POSITIONS["endgame"]
ROOK_ENDING = WIN_AT_CHESS["WAC.006"][0]  # Rb7 wins: chapter 14.1's position
DEPTH = 8


# Chapter 15's forward pruning (where the stage has it) leaves out moves that this stage
# searches: off, as at stage 14.1.
NO_PRUNING = switched_off(*FORWARD_PRUNING)


def singular(on: bool) -> Techniques:
    """Return the default techniques with singular extensions on or off (and chapter 15's
    forward pruning off)."""
    return dataclasses.replace(Techniques(), singular_extensions=on, **NO_PRUNING)


def deepen(searcher: Searcher, fen: str, depth: int) -> tuple[str, int]:
    """Deepen to `depth`; return the move (UCI) and the score."""
    move, last = searcher.think(Position.from_fen(fen), Limits(depth=depth), lambda _: None)
    assert move is not None and last is not None and last.complete
    return move_to_uci(move), last.score


@dataclasses.dataclass
class Frame:
    """A node being searched, as the inspector sees it."""

    depth: int
    ply: int
    beta: int
    key: int
    excluded: bool  # the node is a singular search (its parent's position, same ply)
    children: int = 0  # calls of negamax one ply deeper
    tt_move: Move | None = None  # the move a singular search left out
    singular_beta: int | None = None
    excluded_score: int | None = None
    log: list[str] = field(default_factory=list)


class Inspector(Searcher):
    """A searcher that checks every node against the rules of chapter 14.1."""

    def start_search(self) -> None:
        super().start_search()
        self.frames: list[Frame] = []
        self.expected_root_depth = 0
        self.seen = {"searches": 0, "extensions": 0, "multi-cuts": 0, "denied": 0}
        self.multi_cuts: list[tuple[str, int, int, int]] = []  # fen, depth, beta, score

    def should_search(self, frame: Frame, position: Position, entry: Entry | None,
                      moves: int) -> bool:
        """Return True if the rule asks for a singular search at this node."""
        techniques = self.techniques
        if not (techniques.singular_extensions and techniques.tt and frame.ply
                and not frame.excluded and frame.depth >= SINGULAR_DEPTH and moves > 1
                and frame.ply < EXTENSION_LIMIT * self.expected_root_depth):
            return False
        return (entry is not None
                and entry.best_move in legal_moves(position)
                and entry.bound in (Bound.LOWER, Bound.EXACT)
                and entry.depth >= frame.depth - SINGULAR_ENTRY_SLACK
                and not is_mate_score(entry.score))

    def negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int,
                pv: list[Move]) -> int:
        if depth <= 0:
            return super().negamax(position, depth, alpha, beta, ply, pv)
        parent = self.frames[-1] if self.frames else None
        excluded = parent is not None and parent.ply == ply
        if parent is not None and excluded:
            # A singular search: the parent's own position, at the parent's ply.
            assert position.key == parent.key
            entry = self.tt.probe(position.key)
            assert self.should_search(parent, position, entry, len(legal_moves(position)))
            assert entry is not None and parent.singular_beta is None  # only one
            singular_beta = (score_from_tt(entry.score, ply)
                             - SINGULAR_MARGIN * parent.depth)
            assert (alpha, beta) == (singular_beta - 1, singular_beta)
            assert depth == (parent.depth - 1) // 2
            parent.tt_move, parent.singular_beta = entry.best_move, singular_beta
            self.seen["searches"] += 1
        elif (parent is not None and ply == parent.ply + 1
              and position.undo_stack[-1][0] != NULL_MOVE):
            parent.children += 1  # a move searched (not a pass)
            if (parent.excluded_score is not None and parent.singular_beta is not None
                    and parent.excluded_score < parent.singular_beta
                    and position.undo_stack[-1][0] == parent.tt_move):
                # The singular move: a ply deeper than its brothers, never less.
                assert depth == parent.depth, (move_to_uci(parent.tt_move), depth)
        frame = Frame(depth, ply, beta, position.key, excluded)
        self.frames.append(frame)
        try:
            score = super().negamax(position, depth, alpha, beta, ply, pv)
        finally:
            self.frames.pop()
        if excluded:
            assert parent is not None and parent.singular_beta is not None
            parent.excluded_score = score
            if score < parent.singular_beta:
                self.seen["extensions"] += 1
        elif (frame.singular_beta is not None and frame.excluded_score is not None
              and beta <= frame.singular_beta <= frame.excluded_score):
            # Multi-cut: the node returned singular_beta without searching a move.
            assert score == frame.singular_beta and frame.children == 0
            self.seen["multi-cuts"] += 1
            self.multi_cuts.append((position.fen(), depth, beta, score))
        return score

    def probe_table(self, position: Position, depth: int, alpha: int, beta: int,
                    ply: int, moves: list[Move], pv: list[Move],
                    ) -> tuple[int | None, Move | None, bool]:
        result = super().probe_table(position, depth, alpha, beta, ply, moves, pv)
        if self.frames[-1].excluded:
            # The table's entry is about the whole position: no cutoff, no move.
            assert result[:2] == (None, None), result
        return result

    def store_result(self, position: Position, depth: int, alpha: int, beta: int,
                     ply: int, best: int, best_move: Move | None, tt_pv: bool) -> None:
        before = self.tt.probe(position.key)
        super().store_result(position, depth, alpha, beta, ply, best, best_move, tt_pv)
        if self.frames[-1].excluded:
            # A singular search's score is not the position's: the entry stays.
            assert self.tt.probe(position.key) == before

    def may_pass(self, position: Position, depth: int, alpha: int, beta: int,
                 ply: int) -> bool:
        allowed = super().may_pass(position, depth, alpha, beta, ply)
        assert not (allowed and self.frames[-1].excluded)  # no pass in a singular search
        return allowed

    def search_moves(self, position: Position, depth: int, alpha: int, beta: int,
                     ply: int, picker: MovePicker, pv: list[Move], tt_pv: bool,
                     ) -> tuple[int, Move | None]:
        if not ply:
            self.expected_root_depth = depth
        frame = self.frames[-1]
        if frame.excluded:
            parent = self.frames[-2]
            assert parent.tt_move not in picker.moves  # the move left out
            assert len(picker.moves) == len(legal_moves(position)) - 1
        elif frame.singular_beta is None:
            # No singular search was made here: the rule must not have asked for one.
            entry = self.tt.probe(position.key)
            if self.should_search(frame, position, entry, len(picker.moves)):
                raise AssertionError(f"no singular search at {position.fen()}")
            if frame.depth >= SINGULAR_DEPTH and frame.ply > 0:
                self.seen["denied"] += 1
        return super().search_moves(position, depth, alpha, beta, ply, picker, pv,
                                    tt_pv)


# The switch off: the previous stage.


def test_with_singular_extensions_off_the_search_is_the_previous_stages() -> None:
    positions = {"endgame": ENDGAME, "WAC.006": ROOK_ENDING}
    previous = stage_searches(PREVIOUS_STAGE, positions, DEPTH)
    for name, fen in positions.items():
        off = Searcher(singular(False))
        assert [*deepen(off, fen, DEPTH), off.notes.nodes] == previous[name], name
        assert off.notes.singular_searches == off.notes.multi_cuts == 0
        on = Searcher(singular(True))
        deepen(on, fen, DEPTH)
        # The comparison is not between two equal searches.
        assert on.notes.singular_extensions > 0 and on.notes.nodes != off.notes.nodes


# Where the singular searches are made, and what they do.


@pytest.mark.parametrize("fen", [ENDGAME, ROOK_ENDING])
def test_singular_searches_are_made_exactly_where_the_rule_says(fen: str) -> None:
    searcher = Inspector(singular(True))
    deepen(searcher, fen, DEPTH)
    notes = searcher.notes
    assert searcher.seen["searches"] == notes.singular_searches > 0
    assert searcher.seen["extensions"] == notes.singular_extensions > 0
    assert searcher.seen["multi-cuts"] == notes.multi_cuts > 0
    assert searcher.seen["denied"] > 0  # nodes deep enough where the rule said no


def test_switched_off_no_singular_search_is_made() -> None:
    searcher = Inspector(singular(False))
    deepen(searcher, ROOK_ENDING, DEPTH)
    assert searcher.seen["searches"] == searcher.notes.singular_searches == 0


class WithoutProbeGuard(Searcher):
    """The search with a singular search allowed to read the table."""

    def probe_table(self, position: Position, depth: int, alpha: int, beta: int,
                    ply: int, moves: list[Move], pv: list[Move],
                    ) -> tuple[int | None, Move | None, bool]:
        excluded_ply = self.excluded_ply
        self.excluded_ply = -1  # the guard does not see the singular search
        try:
            return super().probe_table(position, depth, alpha, beta, ply, moves, pv)
        finally:
            self.excluded_ply = excluded_ply


class WithoutStoreGuard(Searcher):
    """The search with a singular search allowed to write the table; it notes the
    entries a singular search changed."""

    changed: list[tuple[Entry | None, Entry | None]]

    def store_result(self, position: Position, depth: int, alpha: int, beta: int,
                     ply: int, best: int, best_move: Move | None, tt_pv: bool) -> None:
        excluded_ply = self.excluded_ply
        before = self.tt.probe(position.key)
        self.excluded_ply = -1  # the guard does not see the singular search
        try:
            super().store_result(position, depth, alpha, beta, ply, best, best_move,
                                 tt_pv)
        finally:
            self.excluded_ply = excluded_ply
        excluded = ply == excluded_ply
        after = self.tt.probe(position.key)
        if excluded and after != before:
            self.changed.append((before, after))


def test_without_the_probe_guard_the_entry_answers_every_singular_search() -> None:
    # The entry that starts a singular search holds a lower bound at least
    # singular_beta + margin, deep enough for the singular search's depth: read by
    # the singular search, it cuts it off at once, and no move is ever singular.
    guarded = Searcher(singular(True))
    deepen(guarded, ROOK_ENDING, DEPTH)
    assert guarded.notes.singular_extensions > 0
    unguarded = WithoutProbeGuard(singular(True))
    deepen(unguarded, ROOK_ENDING, DEPTH)
    assert unguarded.notes.singular_searches > 0
    assert unguarded.notes.singular_extensions == 0


def test_without_the_store_guard_a_singular_search_overwrites_the_entry() -> None:
    unguarded = WithoutStoreGuard(singular(True))
    unguarded.changed = []
    deepen(unguarded, ROOK_ENDING, DEPTH)
    assert unguarded.notes.singular_searches > 0
    assert unguarded.changed  # the Inspector's store check fails on this search
    for before, after in unguarded.changed:
        assert before is not None and after is not None
        assert before.bound != Bound.UPPER and after.depth < before.depth


def test_a_multi_cut_is_confirmed_by_a_full_search() -> None:
    searcher = Inspector(singular(True))
    deepen(searcher, ROOK_ENDING, DEPTH)
    assert searcher.multi_cuts
    for fen, depth, beta, score in searcher.multi_cuts:
        assert score >= beta
        full, _, _ = Searcher(singular(False)).search(Position.from_fen(fen), depth)
        assert full >= beta, (fen, depth, beta, score, full)
        assert -INFINITY < full < INFINITY


# The switch and the notes.


def test_the_switch_is_a_uci_option_and_a_shell_command() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    assert "option name SingularExtensions type check default true" in (
        output.getvalue().splitlines())
    execute(session, "setoption name SingularExtensions value false")
    assert session.searcher.techniques.singular_extensions is False
    execute(session, "set singularextensions on")
    assert session.searcher.techniques.singular_extensions is True
    execute(session, f"position fen {ROOK_ENDING}")
    execute(session, f"go depth {DEPTH}")
    session.wait_for_search()
    execute(session, "stats")
    stats = output.getvalue()
    for note in ("singular_searches", "singular_extensions", "multi_cuts"):
        assert f"\n{note} " in stats, note
    assert "info string error" not in stats
    execute(session, "setoption name SingularExtensions value maybe")
    assert output.getvalue().splitlines()[-1].startswith(
        "info string error: option SingularExtensions needs the value true or false")


def test_a_singular_move_is_extended_with_move_ordering_off_too() -> None:
    # Without ordering, every picker takes the moves as generated, the table's move put
    # first: the move found singular must still be the one searched a ply deeper.
    searcher = Inspector(dataclasses.replace(singular(True), ordering=False))
    deepen(searcher, ROOK_ENDING, DEPTH)
    assert searcher.seen["extensions"] == searcher.notes.singular_extensions > 0


class ChildDepths(Searcher):
    """A searcher that notes the depth each move of a ply-1 node is searched to, and
    scores every child 0 without searching it."""

    def start_search(self) -> None:
        super().start_search()
        self.child_depths: dict[str, int] = {}

    def negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int,
                pv: list[Move]) -> int:
        if ply == 2:
            # The longest search of a move (a reduced one may be searched again)
            move = move_to_uci(position.undo_stack[-1][0])
            self.child_depths[move] = max(depth, self.child_depths.get(move, depth))
            return 0
        return super().negamax(position, depth, alpha, beta, ply, pv)


def test_a_singular_move_that_gives_check_is_extended_once() -> None:
    # One ply more, not two: chapter 14's bound on a line's length (and the killer slots
    # it sizes, picker.MAX_PLY) holds only if no move is extended twice.  In the searches
    # above no singular move gives check, so the node is set up here: WAC.006 at ply 1,
    # 4 plies left, with Rb8+ (a check) or Rb7 (quiet) as the singular TT move.
    depth = 4
    found = {}
    for tt_uci in ("b6b8", "b6b7"):
        for verdict in (False, True):
            searcher = ChildDepths(singular(True))
            searcher.start_search()
            searcher.root_depth = depth  # a line well within the extensions' guard
            position = Position.from_fen(ROOK_ENDING)
            moves = legal_moves(position)
            tt_move = next(move for move in moves if move_to_uci(move) == tt_uci)
            picker = searcher.move_picker(position, moves, tt_move, 1)
            picker.singular = verdict
            searcher.search_moves(position, depth, -INFINITY, INFINITY, 1, picker, [],
                                  False)
            found[tt_uci, verdict] = searcher.child_depths[tt_uci]
    # The check: a ply deeper (depth - 1 + 1) whether singular or not.
    assert found["b6b8", False] == found["b6b8", True] == depth
    # The quiet move: a ply deeper only when singular.
    assert (found["b6b7", False], found["b6b7", True]) == (depth - 1, depth)


class StoppedInASingularSearch(Searcher):
    """A searcher stopped (as by `stop` or the clock) at the first node of its first
    singular search."""

    def negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int,
                pv: list[Move]) -> int:
        if ply == self.excluded_ply and depth > 0:
            self.stop_event.set()
            self.next_check = self.notes.nodes + 1  # the limits are checked at once
        return super().negamax(position, depth, alpha, beta, ply, pv)


def test_a_search_stopped_in_a_singular_search_leaves_no_move_excluded() -> None:
    searcher = StoppedInASingularSearch(singular(True))
    position = Position.from_fen(ROOK_ENDING)
    move, last = searcher.think(position, Limits(depth=DEPTH), lambda _: None)
    assert searcher.notes.singular_searches == 1  # stopped inside the first one
    assert move is not None and last is not None and last.depth < DEPTH  # stopped
    assert (searcher.excluded_ply, searcher.excluded_move) == (-1, NO_MOVE)
    assert position.fen() == Position.from_fen(ROOK_ENDING).fen()
