"""Check extensions (chapter 14).

The referees: the previous stage's engine itself (its package, run in its own process),
which the search with CheckExtensions off must equal node for node; an inspector that
re-derives, for every move of real searches, the depth it must be searched to from what its
node knows (does the move give check, how far is the node from the root, is the move the
only one); the bound the guard puts on the length of a line; and python-chess, which
checks the mate of the tactic that only the extended search finds.
"""

from __future__ import annotations

import dataclasses
import io

import chess
import pytest

from cb2026.cli import Session, execute
from cb2026.limits import Limits
from cb2026.move import Move, move_to_uci
from cb2026.picker import MovePicker, new_killers
from cb2026.position import NULL_MOVE, Position
from cb2026.rules import is_in_check, legal_moves
from cb2026.search import (
    EXTENSION_LIMIT,
    MATE,
    MAX_DEPTH,
    Searcher,
    Techniques,
    is_mate_score,
)
from literate.book import chapters_through
from positions import MATE_IN_THREE, SEARCH_POSITIONS, WIN_AT_CHESS
from stage_referee import FORWARD_PRUNING, stage_searches, switched_off

pytestmark = pytest.mark.stage("stage-14-extensions")

# The stage before this one in the book's order: with the switch off, its search.
PREVIOUS_STAGE = sorted(chapters_through("stage-14-extensions"),
                        key=lambda chapter: chapter.number)[-2].stage_id

# WAC.143: Rxh6+ mates in three (five plies); the extended search sees it three plies deep.
TACTIC, (TACTIC_MOVE,) = WIN_AT_CHESS["WAC.143"]
TACTIC_DEPTH = 3
# WAC.058: checks for both sides, where lines of extended moves grow long.
CHECKS_BOTH_WAYS = WIN_AT_CHESS["WAC.058"][0]


# Chapter 15's forward pruning (where the stage has it) leaves out moves that this stage
# searches: off, so that these tests see stage 14's search (the node-for-node comparison
# with the previous stage needs it). WAC.143's mate at depth 3 is still found with it on:
# tests/test_pruning.py checks that.
NO_PRUNING = switched_off(*FORWARD_PRUNING)


def extensions(check: bool, single_reply: bool = False) -> Techniques:
    """Return the default techniques with the two extensions as given (and chapter 15's
    forward pruning off)."""
    return dataclasses.replace(Techniques(), check_extensions=check,
                               single_reply_extensions=single_reply, **NO_PRUNING)


class Inspector(Searcher):
    """A searcher that checks the depth of every move searched below a node against the
    rules of chapter 14, and notes the longest line of the main search."""

    def start_search(self) -> None:
        super().start_search()
        self.deepest = 0  # the greatest ply of a node with depth left
        self.expected_root_depth = 0
        # One entry per node being searched, innermost last: depth, ply, number of moves,
        # and the moves met so far (a move searched twice counts once).
        self.nodes_open: list[tuple[int, int, int, set[Move]]] = []
        self.seen = {"check": 0, "refused": 0, "single": 0}

    def search_moves(self, position: Position, depth: int, alpha: int, beta: int,
                     ply: int, picker: MovePicker, pv: list[Move], tt_pv: bool,
                     ) -> tuple[int, Move | None]:
        if not ply:
            self.expected_root_depth = depth
        self.nodes_open.append((depth, ply, len(picker.moves), set()))
        try:
            return super().search_moves(position, depth, alpha, beta, ply, picker, pv,
                                        tt_pv)
        finally:
            self.nodes_open.pop()

    def negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int,
                pv: list[Move]) -> int:
        if depth > 0:
            self.deepest = max(self.deepest, ply)
        move = position.undo_stack[-1][0] if position.undo_stack else NULL_MOVE
        # A move of the innermost open node (not a pass, not the root).
        if self.nodes_open and self.nodes_open[-1][1] == ply - 1 and move != NULL_MOVE:
            self.inspect(position, move, depth)
        return super().negamax(position, depth, alpha, beta, ply, pv)

    def inspect(self, position: Position, move: Move, depth: int) -> None:
        """Check the depth the move just made is searched to."""
        parent_depth, parent_ply, moves, met = self.nodes_open[-1]
        techniques = self.techniques
        gives_check = is_in_check(position)
        within = parent_ply < EXTENSION_LIMIT * self.expected_root_depth
        check = within and gives_check and techniques.check_extensions
        single = (within and not check and moves == 1
                  and techniques.single_reply_extensions)
        if check or single:
            # Extended: a ply deeper than the others, and never reduced.
            assert depth == parent_depth, (move_to_uci(move), parent_depth, depth)
        else:
            assert depth <= parent_depth - 1, (move_to_uci(move), parent_depth, depth)
        if move not in met:
            met.add(move)
            self.seen["check"] += check
            self.seen["single"] += single
            self.seen["refused"] += (not within and gives_check
                                     and techniques.check_extensions)


class Unguarded(Inspector):
    """The inspector's search without the guard (and the inspector told so)."""

    def extension(self, gives_check: bool, single_reply: bool, ply: int) -> int:
        self.root_depth = 10**6  # the guard never stops an extension
        return super().extension(gives_check, single_reply, ply)

    def inspect(self, position: Position, move: Move, depth: int) -> None:
        self.expected_root_depth = 10**6
        super().inspect(position, move, depth)


def deepen(searcher: Searcher, fen: str, depth: int) -> tuple[str, int]:
    """Deepen to `depth`; return the move (UCI) and the score."""
    move, last = searcher.think(Position.from_fen(fen), Limits(depth=depth), lambda _: None)
    assert move is not None and last is not None and last.complete
    return move_to_uci(move), last.score


# The switch off: the previous stage.


def test_with_check_extensions_off_the_search_is_the_previous_stages() -> None:
    previous = stage_searches(PREVIOUS_STAGE, SEARCH_POSITIONS, 4)
    extended_somewhere = False
    for name, fen in SEARCH_POSITIONS.items():
        off = Searcher(extensions(False))
        assert [*deepen(off, fen, 4), off.notes.nodes] == previous[name], name
        assert off.notes.extensions == off.notes.single_reply_extensions == 0
        assert off.notes.extensions_refused == 0
        on = Searcher(extensions(True))
        deepen(on, fen, 4)
        extended_somewhere |= on.notes.extensions > 0
    assert extended_somewhere  # the comparison is not between two equal searches


# Which moves are extended, and by how much.


@pytest.mark.parametrize("name", ["kiwipete", "middlegame", "endgame"])
def test_checks_and_only_checks_are_extended(name: str) -> None:
    searcher = Inspector(extensions(True))
    deepen(searcher, SEARCH_POSITIONS[name], 4)
    assert searcher.seen["check"] > 0
    assert searcher.seen["check"] == searcher.notes.extensions
    assert searcher.notes.single_reply_extensions == searcher.seen["single"] == 0


def test_only_moves_are_extended_when_switched_on() -> None:
    searcher = Inspector(extensions(True, single_reply=True))
    deepen(searcher, CHECKS_BOTH_WAYS, 4)
    assert searcher.seen["single"] > 0
    assert searcher.seen["single"] == searcher.notes.single_reply_extensions
    assert searcher.seen["check"] == searcher.notes.extensions > 0
    # Switched off, nothing is extended, and no line is longer than the root's depth.
    searcher = Inspector(extensions(False))
    deepen(searcher, CHECKS_BOTH_WAYS, 4)
    assert searcher.notes.extensions == searcher.notes.single_reply_extensions == 0
    assert searcher.deepest < 4


# The guard.


def test_the_guard_bounds_the_length_of_a_line() -> None:
    # Extensions stop at ply 2D (D the root's depth); from there each ply costs at least
    # one, and a node searched at ply 2D has at most D plies left: no node with depth
    # left lies beyond ply 3D - 1.
    depth = 4
    guarded = Inspector(extensions(True, single_reply=True))
    guarded.search(Position.from_fen(CHECKS_BOTH_WAYS), depth)
    assert guarded.notes.extensions_refused == guarded.seen["refused"] > 0
    assert guarded.deepest <= (EXTENSION_LIMIT + 1) * depth - 1
    # Without the guard, the same search runs past that bound: the check above can fail.
    unguarded = Unguarded(extensions(True, single_reply=True))
    unguarded.search(Position.from_fen(CHECKS_BOTH_WAYS), depth)
    assert unguarded.notes.extensions_refused == 0
    assert unguarded.deepest > (EXTENSION_LIMIT + 1) * depth - 1


def test_every_ply_a_line_can_reach_has_killer_slots() -> None:
    # Before extensions no node with depth left lay beyond ply MAX_DEPTH; the guard's
    # bound is now 3 x MAX_DEPTH - 1, and every such node asks for its ply's killers.
    deepest = (EXTENSION_LIMIT + 1) * MAX_DEPTH - 1
    assert len(new_killers()) > deepest
    searcher = Searcher()
    position = Position.from_fen(SEARCH_POSITIONS["kiwipete"])
    picker = searcher.move_picker(position, legal_moves(position), None, deepest)
    assert sorted(picker) == sorted(legal_moves(position))


# The tactic, and mates.


def test_the_extended_search_finds_the_mate_of_wac_143_at_depth_3() -> None:
    board = chess.Board(TACTIC)
    expected = board.parse_san(TACTIC_MOVE).uci()
    searcher = Searcher(extensions(True))
    score, move, line = searcher.search(Position.from_fen(TACTIC), TACTIC_DEPTH)
    assert move is not None and move_to_uci(move) == expected
    assert score == MATE - 5  # mate in three
    for played in line:  # python-chess: the line is legal and ends in mate
        board.push_uci(move_to_uci(played))
    assert board.is_checkmate() and len(line) == 5
    # Without the extension, the same depth sees no mate and plays another move.
    score, move, _ = Searcher(extensions(False)).search(Position.from_fen(TACTIC),
                                                        TACTIC_DEPTH)
    assert move is not None and move_to_uci(move) != expected
    assert not is_mate_score(score)


@pytest.mark.parametrize("fen, moves", [(MATE_IN_THREE, 3), (TACTIC, 3)])
def test_go_mate_still_finds_the_mate(fen: str, moves: int) -> None:
    searcher = Searcher(extensions(True))
    _, last = searcher.think(Position.from_fen(fen), Limits(mate=moves), lambda _: None)
    assert last is not None and last.score == MATE - (2 * moves - 1)
    assert last.depth <= 2 * moves
    # Chapter 12's rule holds with the extensions on: `go mate` reduces nothing.
    assert searcher.notes.reductions == 0 and searcher.notes.extensions > 0


# The switches and the notes.


def test_the_switches_are_uci_options_and_shell_commands() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    lines = output.getvalue().splitlines()
    assert "option name CheckExtensions type check default true" in lines
    assert "option name SingleReplyExtensions type check default false" in lines
    execute(session, "setoption name CheckExtensions value false")
    assert session.searcher.techniques.check_extensions is False
    execute(session, "set checkextensions on")
    assert session.searcher.techniques.check_extensions is True
    execute(session, "set single_reply_extensions on")
    assert session.searcher.techniques.single_reply_extensions is True
    execute(session, f"position fen {CHECKS_BOTH_WAYS}")
    execute(session, "go depth 3")
    session.wait_for_search()
    execute(session, "stats")
    stats = output.getvalue()
    for note in ("extensions", "extensions_refused", "single_reply_extensions"):
        assert f"\n{note} " in stats, note
    assert "info string error" not in stats
    execute(session, "setoption name CheckExtensions value sometimes")
    assert output.getvalue().splitlines()[-1].startswith(
        "info string error: option CheckExtensions needs the value true or false")
