"""The search never plays a move it has not searched, and honours the clock from the first node.

What a GUI sees (stage 7): under `go nodes N` depth 1 always completes; `stop` and the
clock's hard limit end even depth 1; a stopped iteration is used for the root moves it
searched to the end (the previous iteration's best move goes first); and before every
`bestmove` comes an `info` line whose PV starts with that move, or, if no move was searched
at all, an `info string` saying so. python-chess is the referee for legality.
"""

from __future__ import annotations

import io
import time
from dataclasses import fields

import chess
import pytest

from cb2026.board import BLACK, WHITE
from cb2026.cli import Session, execute
from cb2026.limits import Limits, allocate_time
from cb2026.move import Move, move_to_uci
from cb2026.position import Position
from cb2026.rules import legal_moves
from cb2026.search import (
    MAX_DEPTH,
    Iteration,
    Searcher,
    Techniques,
    depth_limit,
    mate_in_moves,
)
from command_loop import Conversation, assert_in_time, assert_legal, info_fields, margin, search
from positions import KIWIPETE, MATE_IN_ONE, MIDDLEGAME
from stage_referee import FORWARD_PRUNING, switched_off

pytestmark = pytest.mark.stage("stage-07-uci")

# Found by a search for positions whose depth 1 is expensive: the quiescence search has
# so many captures to play out that depth 1 alone costs over a hundred thousand nodes.
BUSY = "3rkqr1/p1pp1p1n/b1NPp1pB/3nb3/Pp2P3/2NB1Q1p/1PP2PPP/2KR3R w - - 11 9"
NO_MOVE_SEARCHED = "info string no move was searched"


def assert_reported(lines: list[str], move: str) -> dict[str, str]:
    """Assert that the last `info` line with a PV shows a line starting with `move`."""
    infos = [info_fields(line) for line in lines if line.startswith("info depth")]
    assert infos, f"no info line before bestmove {move}: {lines}"
    last = infos[-1]
    assert last["pv"].split()[0] == move, (last, move)
    assert not any(line.startswith(NO_MOVE_SEARCHED) for line in lines)
    return last


def test_go_nodes_1_searches_depth_1_and_reports_it(gui: Conversation) -> None:
    lines, move = search(gui, KIWIPETE, "go nodes 1")
    last = assert_reported(lines, move)
    assert int(last["depth"]) >= 1
    assert_legal(KIWIPETE, move)


# The node limits below were chosen for the search and evaluation of chapters 5 to 12.
# Chapter 13's evaluation (where the stage has it) makes Kiwipete's first plies far cheaper
# (depth 1 in under 1,000 nodes, depth 2 in under 5,000), and so does chapter 15's pruning
# of the quiescence search: these tests search without them.
EARLIER_EVALUATION = Techniques(**switched_off("evaluation", *FORWARD_PRUNING))


def test_go_nodes_2000_completes_depth_1_in_kiwipete() -> None:
    reports: list[Iteration] = []
    move, last = Searcher(EARLIER_EVALUATION).think(
        Position.from_fen(KIWIPETE), Limits(nodes=2000), reports.append)
    assert [iteration.depth for iteration in reports] == [1]
    assert reports[0].complete and reports[0].nodes > 2000  # depth 1 costs more than that
    assert move == last.pv[0]
    # The move is the best of a complete depth 1: a fixed-depth search agrees.
    assert Searcher(EARLIER_EVALUATION).search(Position.from_fen(KIWIPETE), 1)[1] == move


def test_node_limit_stops_exactly_from_depth_2_on() -> None:
    reports: list[Iteration] = []
    Searcher(EARLIER_EVALUATION).think(Position.from_fen(KIWIPETE), Limits(nodes=5000),
                                       reports.append)
    assert [(iteration.depth, iteration.complete) for iteration in reports] == [
        (1, True), (2, False)]
    assert reports[-1].nodes == 5000


class RootRecorder(Searcher):
    """A searcher that notes each root move searched to the end: depth, move, score, nodes."""

    def start_search(self) -> None:
        super().start_search()
        self.finished: list[tuple[int, Move, int, int]] = []

    def iterate(self, position: Position, depth: int) -> Iteration | None:
        self.iteration_depth = depth
        return super().iterate(position, depth)

    def negamax(self, position, depth, alpha, beta, ply, pv):
        score = super().negamax(position, depth, alpha, beta, ply, pv)
        if ply == 1:
            move = position.undo_stack[-1][0]
            self.finished.append((self.iteration_depth, move, -score, self.notes.nodes))
        return score


def test_a_stopped_iteration_plays_its_better_move(gui: Conversation) -> None:
    # Chapter 7's rule under chapter 7's windows: from stage 9 on, PVS first asks each
    # later root move a null-window question, whose bound the recorder would note before
    # the move's score (tests/test_pvs.py checks the stop rule with PVS on).
    later = switched_off("pvs", "aspiration")
    for name in later:
        gui.send(f"setoption name {name} value false")
    # Find the node at which depth 2 has finished a root move better than the first one.
    recorder = RootRecorder(Techniques(**later))
    recorder.think(Position.from_fen(MIDDLEGAME), Limits(depth=2), lambda iteration: None)
    depth_one = [entry for entry in recorder.finished if entry[0] == 1]
    depth_two = [entry for entry in recorder.finished if entry[0] == 2]
    first_move = max(depth_one, key=lambda entry: entry[2])[1]
    better = next(entry for entry in depth_two if entry[2] > depth_two[0][2])
    assert better[1] != first_move
    # Stopped one node after that move was finished, the partial depth 2 plays it.
    lines, move = search(gui, MIDDLEGAME, f"go nodes {better[3] + 1}")
    last = assert_reported(lines, move)
    assert move == move_to_uci(better[1]) != move_to_uci(first_move)
    assert int(last["depth"]) == 2 and last["score"] == f"cp {better[2]}"
    assert_legal(MIDDLEGAME, move)


def test_the_previous_best_move_is_searched_first_with_every_technique_off() -> None:
    # Every switch of the stage under test off (later stages add switches such as tt).
    recorder = RootRecorder(Techniques(**{field.name: False for field in fields(Techniques)}))
    reports: list[Iteration] = []
    recorder.think(Position.from_fen(MIDDLEGAME), Limits(depth=3), reports.append)
    for iteration in reports[:-1]:
        first_of_next = next(entry for entry in recorder.finished
                             if entry[0] == iteration.depth + 1)
        assert first_of_next[1] == iteration.pv[0]


@pytest.mark.parametrize("fen", [KIWIPETE, BUSY])
def test_stop_straight_after_go_still_reports_the_move(gui: Conversation, fen: str) -> None:
    for _ in range(3):
        gui.send(f"position fen {fen}")
        gui.send("go infinite")
        gui.send("stop")
        lines = gui.read_until("bestmove")
        move = lines[-1].split()[1]
        assert_legal(fen, move)
        if any(line.startswith(NO_MOVE_SEARCHED) for line in lines):
            assert not any(line.startswith("info depth") for line in lines)
        else:
            assert_reported(lines[:-1], move)


def test_a_30_ms_clock_is_honoured_during_depth_1(gui: Conversation) -> None:
    # Depth 1 of BUSY costs far more than the clock allows; the engine must not finish it.
    _, hard = allocate_time(Limits(wtime=30, btime=30), WHITE)
    allowance = margin(gui)
    gui.send(f"position fen {BUSY}")
    started = time.monotonic()
    gui.send("go wtime 30 btime 30")
    lines = gui.read_until("bestmove", timeout=60)
    elapsed = time.monotonic() - started
    assert_in_time(elapsed, hard + 0.25, allowance, lambda: margin(gui))
    move = lines[-1].split()[1]
    assert_legal(BUSY, move)
    assert (any(line.startswith(NO_MOVE_SEARCHED) for line in lines)
            or assert_reported(lines[:-1], move))


def test_a_search_stopped_before_any_root_move_plays_the_ordered_first_move() -> None:
    position = Position.from_fen(BUSY)
    searcher = Searcher()
    searcher.stop_event.set()  # stopped at the first check, long before a root move is done
    reports: list[Iteration] = []
    move, last = searcher.think(position, Limits(), reports.append)
    assert last is None and reports == []
    ordered = searcher.order_moves(position, legal_moves(position))
    assert move == ordered[0] != legal_moves(position)[0]  # not the generator's first
    assert move_to_uci(move) == "h6f8"  # the bishop takes the queen: referee-checked below
    board = chess.Board(BUSY)
    assert board.piece_at(chess.F8) == chess.Piece(chess.QUEEN, chess.BLACK)
    assert_legal(BUSY, move_to_uci(move))


def test_go_depth_0_says_that_no_move_was_searched(gui: Conversation) -> None:
    lines, move = search(gui, BUSY, "go depth 0")
    assert lines == [f"{NO_MOVE_SEARCHED}: playing the first in search order"]
    assert move == "h6f8"


def test_a_clock_for_the_opponent_only_gives_the_shortest_search() -> None:
    # White to move and only Black's clock given: White's own clock counts as empty.
    shortest = allocate_time(Limits(wtime=0, btime=0), WHITE)
    assert allocate_time(Limits(btime=60_000, binc=1000), WHITE) == shortest
    assert allocate_time(Limits(wtime=60_000), BLACK) == shortest
    assert shortest[1] < 0.05 and not Limits(btime=60_000).is_endless()


@pytest.mark.parametrize(("limits", "depth"), [
    (Limits(), MAX_DEPTH), (Limits(depth=3), 3), (Limits(depth=MAX_DEPTH + 36), MAX_DEPTH),
    (Limits(mate=1), 2), (Limits(mate=3), 6), (Limits(mate=0), 1), (Limits(mate=2, depth=3), 3),
    (Limits(mate=MAX_DEPTH), MAX_DEPTH)])
def test_the_depth_limit_of_go_depth_and_go_mate(limits: Limits, depth: int) -> None:
    assert depth_limit(limits) == depth


def test_every_mate_in_n_is_found_within_the_depth_limit_of_go_mate() -> None:
    # Shortest mates in 1, 2 and 3 moves (the lengths as Stockfish 15.1 gives them), all
    # ending in a quiet move, which the quiescence search would not play.
    for fen, moves in ((MATE_IN_ONE, 1),
                       ("k7/8/8/2K5/8/8/8/7R w - - 0 1", 2),
                       ("1k6/8/8/1K6/8/8/8/7R w - - 0 1", 3)):
        reports: list[Iteration] = []
        move, last = Searcher().think(Position.from_fen(fen), Limits(mate=moves), reports.append)
        assert last is not None and last.depth <= 2 * moves
        assert mate_in_moves(last.score) == moves and move == last.pv[0]
        # The line is legal (a later stage's table may end it before the mate).
        board = chess.Board(fen)
        for step in last.pv:
            board.push(chess.Move.from_uci(move_to_uci(step)))


def test_ponderhit_starts_the_clock_when_it_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # A search that checks its limits slowly notices `ponderhit` late: its clock must not.
    original = Searcher.check_limits

    def slow_check_limits(self: Searcher) -> None:
        time.sleep(0.05)
        original(self)

    monkeypatch.setattr(Searcher, "check_limits", slow_check_limits)
    session = Session(io.StringIO())
    session.uci_mode = True
    execute(session, "go ponder wtime 100000 btime 100000")
    time.sleep(0.2)
    assert session.searcher.clock_start == float("inf")  # pondering: no clock yet
    before = time.monotonic()
    execute(session, "ponderhit")
    after = time.monotonic()
    time.sleep(0.2)  # long enough for the search to notice
    execute(session, "stop")
    assert before <= session.searcher.clock_start <= after
    assert session.output.getvalue().splitlines()[-1].startswith("bestmove")
