"""Forward pruning (chapter 15).

The referees: the previous stage's engine itself (its package, run in its own process),
which the search with the five pruning switches off must equal node for node; two
inspectors that re-derive every prune from what the node knows (python-chess for checks,
captures and material, the searcher's own evaluation for the margins, the SEE referee of
chapter 11 where its model holds) and check that the search prunes exactly there; and the
mates that `go mate` must still prove with every technique on.
"""

from __future__ import annotations

import dataclasses
import io
import sys
from collections import Counter
from dataclasses import field

import chess
import pytest

from cb2026 import evaluation
from cb2026.cli import Session, execute
from cb2026.limits import Limits
from cb2026.move import Move, move_to_uci
from cb2026.picker import MovePicker
from cb2026.position import NULL_MOVE, Position
from cb2026.search import (
    DELTA_MARGIN,
    FUTILITY_DEPTH,
    FUTILITY_MARGINS,
    LATE_MOVE_PRUNING_DEPTH,
    MATE,
    MATE_THRESHOLD,
    PRUNING_DEPTH,
    REVERSE_FUTILITY_DEPTH,
    REVERSE_FUTILITY_MARGIN,
    Searcher,
    Techniques,
    late_move_count,
)
from cb2026.see import see
from literate.book import chapters_through
from positions import MATE_IN_THREE, SEARCH_POSITIONS, WIN_AT_CHESS
from see_referee import VALUES, cheapest_first_result, exchange_result
from stage_referee import FORWARD_PRUNING, MAIN_SEARCH_PRUNING, stage_searches

pytestmark = pytest.mark.stage("stage-15-pruning")

# The stage before this one in the book's order: with the switches off, its search.
PREVIOUS_STAGE = sorted(chapters_through("stage-15-pruning"),
                        key=lambda chapter: chapter.number)[-2].stage_id

KIWIPETE = SEARCH_POSITIONS["kiwipete"]
CHECKS_BOTH_WAYS = WIN_AT_CHESS["WAC.058"][0]  # queens and rooks, kings in the open

# Searches the inspectors watch: positions and depths where every technique fires.
INSPECTED = [("middlegame", SEARCH_POSITIONS["middlegame"], 5),
             ("kiwipete", KIWIPETE, 4),
             ("endgame", SEARCH_POSITIONS["endgame"], 6),
             ("WAC.058", CHECKS_BOTH_WAYS, 5)]


def pruning(on: bool, **switches: bool) -> Techniques:
    """Return the default techniques with the five pruning switches on or off."""
    return dataclasses.replace(Techniques(), **(dict.fromkeys(FORWARD_PRUNING, on) | switches))


def deepen(searcher: Searcher, fen: str, depth: int) -> tuple[str, int]:
    """Deepen to `depth`; return the move (UCI) and the score."""
    move, last = searcher.think(Position.from_fen(fen), Limits(depth=depth), lambda _: None)
    assert move is not None and last is not None and last.complete
    return move_to_uci(move), last.score


# The switches off: the previous stage.


def test_with_pruning_off_the_search_is_the_previous_stages() -> None:
    searches = {name: (fen, depth) for name, fen, depth in INSPECTED}
    previous = stage_searches(PREVIOUS_STAGE, {name: fen for name, fen, _ in INSPECTED},
                              {name: depth for name, _, depth in INSPECTED})
    pruned: Counter[str] = Counter()
    for name, (fen, depth) in searches.items():
        off = Searcher(pruning(False))
        assert [*deepen(off, fen, depth), off.notes.nodes] == previous[name], name
        notes = dataclasses.asdict(off.notes)
        assert not any(notes[key] for key in notes if key.endswith("_prunes")), name
        on = Searcher(pruning(True))
        deepen(on, fen, depth)
        pruned.update({key: value for key, value in dataclasses.asdict(on.notes).items()
                       if key.endswith("_prunes")})
    # Every switch had something to switch off.
    assert len(pruned) == 5 and all(pruned.values()), pruned


# The main search: reverse futility, futility and late move pruning.


@dataclasses.dataclass
class Frame:
    """A node of the main search, as the inspector sees it."""

    position: Position
    board: chess.Board
    depth: int
    alpha: int
    beta: int
    ply: int
    excluded: bool  # a singular search (its parent's position, same ply)
    evaluation: int | None = None  # the inspector's own: None in check or unneeded
    order: list[Move] = field(default_factory=list)  # moves searched or pruned, in order
    results: dict[Move, int] = field(default_factory=dict)  # each move's last score
    pruned: set[Move] = field(default_factory=set)
    asked: set[int] = field(default_factory=set)  # move numbers offered for pruning
    returned_early: int | None = None  # the reverse futility score, if it returned


class Inspector(Searcher):
    """A searcher that re-derives every prune of the main search and the quiescence
    search from what the node knows, and checks the search made exactly those."""

    def start_search(self) -> None:
        super().start_search()
        self.frames: list[Frame] = []
        self.seen: Counter[str] = Counter()
        self.singular_search_prunes = 0  # quiet moves pruned at a singular search's node

    # The main search.

    def own_evaluation(self, frame: Frame) -> int | None:
        """The evaluation the rules start from, worked out again for `frame`."""
        techniques = self.techniques
        if (frame.board.is_check() or self.proving_mate or not techniques.alphabeta
                or not any(getattr(techniques, name) for name in MAIN_SEARCH_PRUNING)):
            return None
        return self.static_evaluation(Position.from_fen(frame.board.fen()))

    def improving(self, frame: Frame) -> bool:
        """Whether `frame`'s evaluation beats the one two plies up (True if unknown)."""
        before = next((other.evaluation for other in self.frames
                       if other.ply == frame.ply - 2 and not other.excluded), None)
        return (frame.evaluation is None or before is None
                or frame.evaluation > before)

    def eligible(self, frame: Frame) -> bool:
        """Whether the rules let `frame` prune quiet moves at all."""
        return (frame.ply > 0 and frame.beta - frame.alpha == 1
                and frame.depth <= PRUNING_DEPTH and frame.evaluation is not None
                and abs(frame.beta) <= MATE_THRESHOLD)

    def negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int,
                pv: list[Move]) -> int:
        parent = self.frames[-1] if self.frames else None
        move = position.undo_stack[-1][0] if position.undo_stack else NULL_MOVE
        child = parent is not None and parent.ply == ply - 1 and move != NULL_MOVE
        if parent is not None and child:
            assert move not in parent.pruned, move_to_uci(move)  # pruned: never searched
            if not parent.order or parent.order[-1] != move:  # a re-search is no new move
                parent.order.append(move)
        if depth <= 0:
            score = super().negamax(position, depth, alpha, beta, ply, pv)
        else:
            score = self.inspected_node(position, depth, alpha, beta, ply, pv, parent)
        if parent is not None and child:
            parent.results[move] = -score
        return score

    def inspected_node(self, position: Position, depth: int, alpha: int, beta: int,
                       ply: int, pv: list[Move], parent: Frame | None) -> int:
        """Search a node of the main search, and check it against the rules after."""
        excluded = parent is not None and parent.ply == ply
        frame = Frame(position, chess.Board(position.fen()), depth, alpha, beta, ply,
                      excluded)
        frame.evaluation = self.own_evaluation(frame)
        self.frames.append(frame)
        try:
            score = super().negamax(position, depth, alpha, beta, ply, pv)
        finally:
            self.frames.pop()
        if frame.returned_early is not None:
            assert score == frame.returned_early and not frame.order  # nothing searched
        elif self.eligible(frame):
            best = -MATE  # below every score a move can have
            for number, move in enumerate(frame.order, start=1):
                chess_move = chess.Move.from_uci(move_to_uci(move))
                quiet = not (frame.board.is_capture(chess_move) or chess_move.promotion)
                if (quiet and not frame.board.gives_check(chess_move)
                        and best > -MATE_THRESHOLD):
                    assert number in frame.asked, (frame.board.fen(), move_to_uci(move))
                if move in frame.results:
                    best = max(best, frame.results[move])
        return score

    def reverse_futility_score(self, depth: int, alpha: int, beta: int, ply: int,
                               evaluation: int | None) -> int | None:
        frame = self.frames[-1]
        assert evaluation == frame.evaluation, frame.board.fen()
        expected = None
        if (evaluation is not None and self.techniques.reverse_futility
                and depth <= REVERSE_FUTILITY_DEPTH and ply > 0 and beta - alpha == 1
                and not frame.excluded and abs(beta) <= MATE_THRESHOLD
                and evaluation - REVERSE_FUTILITY_MARGIN * depth >= beta):
            expected = evaluation - REVERSE_FUTILITY_MARGIN * depth
        score = super().reverse_futility_score(depth, alpha, beta, ply, evaluation)
        assert score == expected, (frame.board.fen(), depth, alpha, beta, score, expected)
        if score is not None:
            frame.returned_early = score
            self.seen["reverse_futility"] += 1
        return score

    def prunes_quiet_move(self, depth: int, move_number: int, alpha: int,
                          ply: int) -> bool:
        frame = self.frames[-1]
        move = frame.position.undo_stack[-1][0]  # made already: the checks need it
        chess_move = chess.Move.from_uci(move_to_uci(move))
        board = frame.board
        assert self.eligible(frame) and alpha == frame.alpha and ply == frame.ply
        assert not (board.is_capture(chess_move) or chess_move.promotion)
        assert not board.gives_check(chess_move)
        assert move_number == len(frame.order) + 1  # every earlier move searched or pruned
        best = max((frame.results[earlier] for earlier in frame.order
                    if earlier in frame.results), default=-MATE)
        assert best > -MATE_THRESHOLD
        techniques = self.techniques
        assert frame.evaluation is not None
        improving = not techniques.improving or self.improving(frame)
        late = (techniques.late_move_pruning and depth <= LATE_MOVE_PRUNING_DEPTH
                and move_number > late_move_count(depth, improving))
        futile = (techniques.futility and depth <= FUTILITY_DEPTH
                  and frame.evaluation + FUTILITY_MARGINS[depth] <= alpha)
        decision = super().prunes_quiet_move(depth, move_number, alpha, ply)
        assert decision == (late or futile), (board.fen(), move_to_uci(move), depth)
        frame.asked.add(move_number)
        if decision:
            frame.order.append(move)
            frame.pruned.add(move)
            self.seen["late_move" if late else "futility"] += 1
            self.singular_search_prunes += frame.excluded
        return decision

    def search_moves(self, position: Position, depth: int, alpha: int, beta: int,
                     ply: int, picker: MovePicker, pv: list[Move], tt_pv: bool,
                     ) -> tuple[int, Move | None]:
        frame = self.frames[-1]
        assert (depth, alpha, beta, ply) == (frame.depth, frame.alpha, frame.beta,
                                             frame.ply)
        return super().search_moves(position, depth, alpha, beta, ply, picker, pv,
                                    tt_pv)

    # The quiescence search.

    def may_skip_captures(self, position: Position) -> bool:
        allowed = super().may_skip_captures(position)
        techniques = self.techniques
        expected = ((techniques.quiescence_see or techniques.delta_pruning)
                    and not chess.Board(position.fen()).is_check())
        assert allowed == expected, position.fen()
        return allowed

    def skips_capture(self, position: Position, move: Move, stand_pat: int,
                      alpha: int) -> bool:
        board = chess.Board(position.fen())
        chess_move = chess.Move.from_uci(move_to_uci(move))
        assert not board.is_check()
        assert stand_pat == self.static_evaluation(position)
        techniques = self.techniques
        victim_type = (chess.PAWN if board.is_en_passant(chess_move)
                       else board.piece_type_at(chess_move.to_square) or chess.KING)
        victim = VALUES[victim_type]
        # What the evaluation gains by the capture, at most: the piece's value in the
        # weights in place (python-chess numbers the kinds as the engine does).
        gain = max(evaluation.MIDDLEGAME_PIECE_VALUES[victim_type],
                   evaluation.ENDGAME_PIECE_VALUES[victim_type])
        # The late endgame: a side with nothing but its king and pawns.
        late_endgame = any(
            not any(board.pieces(kind, colour) for kind in (chess.KNIGHT, chess.BISHOP,
                                                           chess.ROOK, chess.QUEEN))
            for colour in chess.COLORS)
        delta = (techniques.delta_pruning and not chess_move.promotion
                 and stand_pat + gain + DELTA_MARGIN <= alpha and not late_endgame)
        attacker = VALUES[board.piece_type_at(chess_move.from_square) or chess.KING]
        value = see(position.board, move)
        if not chess_move.promotion and victim < attacker:
            # SEE in a new place: where its model holds, the referee brackets it.
            _, model_held = exchange_result(board, chess_move)
            if model_held:
                lowest, highest = cheapest_first_result(board, chess_move)
                assert lowest <= value <= highest, (board.fen(), chess_move.uci())
        losing = (techniques.quiescence_see and not chess_move.promotion
                  and victim < attacker and value < 0)
        decision = super().skips_capture(position, move, stand_pat, alpha)
        assert decision == (delta or losing), (board.fen(), chess_move.uci(), alpha)
        if decision:
            self.seen["delta" if delta else "see"] += 1
        return decision


def inspected_search(techniques: Techniques, fen: str, depth: int) -> Inspector:
    """Deepen an inspector to `depth` on `fen` and return it."""
    searcher = Inspector(techniques)
    deepen(searcher, fen, depth)
    return searcher


@pytest.mark.parametrize("name, fen, depth", INSPECTED)
def test_every_prune_is_made_exactly_where_the_rules_say(name: str, fen: str,
                                                         depth: int) -> None:
    searcher = inspected_search(pruning(True), fen, depth)
    notes = searcher.notes
    seen = searcher.seen
    assert seen["reverse_futility"] == notes.reverse_futility_prunes
    assert seen["futility"] == notes.futility_prunes
    assert seen["late_move"] == notes.late_move_prunes
    assert seen["see"] == notes.see_prunes and seen["delta"] == notes.delta_prunes
    assert notes.late_move_prunes > 0 and notes.see_prunes > 0, name


def test_the_inspected_searches_exercise_every_rule() -> None:
    totals: Counter[str] = Counter()
    for _, fen, depth in INSPECTED[:2]:
        totals.update(inspected_search(pruning(True), fen, depth).seen)
    assert set(totals) == {"reverse_futility", "futility", "late_move", "see", "delta"}
    assert all(totals.values()), totals


def test_with_the_improving_flag_late_move_pruning_follows_the_evaluation() -> None:
    # The inspector works out `improving` from its own evaluations two plies apart.
    on = inspected_search(pruning(True, improving=True), SEARCH_POSITIONS["middlegame"], 5)
    off = inspected_search(pruning(True), SEARCH_POSITIONS["middlegame"], 5)
    assert on.notes.late_move_prunes > 0 and on.notes.nodes != off.notes.nodes


def test_quiet_moves_are_pruned_in_singular_searches_by_the_same_rules() -> None:
    # Chapter 14.1's WAC.006 at its depth: the node of a singular search, about half as
    # deep as its parent, prunes quiet moves (the chapter says so), and the inspector
    # holds each prune there to the rules; reverse futility never returns there.
    fen = WIN_AT_CHESS["WAC.006"][0]
    searcher = inspected_search(pruning(True), fen, 8)
    assert searcher.notes.singular_searches > 0
    assert searcher.singular_search_prunes > 0


@pytest.mark.parametrize("switch", FORWARD_PRUNING)
def test_each_switch_alone_stops_its_prunes(switch: str) -> None:
    searcher = inspected_search(pruning(True, **{switch: False}), KIWIPETE, 4)
    note = {"quiescence_see": "see_prunes", "delta_pruning": "delta_prunes",
            "reverse_futility": "reverse_futility_prunes", "futility": "futility_prunes",
            "late_move_pruning": "late_move_prunes"}[switch]
    assert getattr(searcher.notes, note) == 0
    assert sum(value for key, value in dataclasses.asdict(searcher.notes).items()
               if key.endswith("_prunes")) > 0  # the others still prune


class WithoutTheCheckGuard(Searcher):
    """The quiescence search skipping captures in check too."""

    def may_skip_captures(self, position: Position) -> bool:
        techniques = self.techniques
        return techniques.quiescence_see or techniques.delta_pruning


class InspectedWithoutTheCheckGuard(Inspector, WithoutTheCheckGuard):
    """The inspector watching that search (its checks call the unguarded method)."""


def test_the_inspector_catches_a_missing_guard() -> None:
    with pytest.raises(AssertionError):
        deepen(InspectedWithoutTheCheckGuard(pruning(True)), CHECKS_BOTH_WAYS, 4)


@pytest.mark.parametrize("name, value", [
    ("REVERSE_FUTILITY_MARGIN", REVERSE_FUTILITY_MARGIN // 2),
    ("FUTILITY_MARGINS", tuple(margin // 2 for margin in FUTILITY_MARGINS)),
    ("DELTA_MARGIN", DELTA_MARGIN // 2),
    ("late_move_count", lambda depth, improving: late_move_count(depth, improving) - 1)])
def test_the_inspector_catches_a_changed_rule(monkeypatch: pytest.MonkeyPatch, name: str,
                                              value: object) -> None:
    # The search reads the changed value; the inspector keeps the chapter's.
    monkeypatch.setattr(sys.modules["cb2026.search"], name, value)
    with pytest.raises(AssertionError):
        inspected_search(pruning(True), KIWIPETE, 4)


def test_the_inspector_catches_delta_pruning_in_the_late_endgame(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Without its late-endgame guard the search delta-prunes captures in the book's
    # endgame that the rules keep (where a side is left with king and pawns).
    monkeypatch.setattr(sys.modules["cb2026.search"], "is_late_endgame",
                        lambda board: False)
    with pytest.raises(AssertionError):
        inspected_search(pruning(True), SEARCH_POSITIONS["endgame"], 4)


# Mates.


@pytest.mark.parametrize("fen, moves", [(MATE_IN_THREE, 3), (WIN_AT_CHESS["WAC.143"][0], 3),
                                        (WIN_AT_CHESS["WAC.001"][0], 2)])
def test_go_mate_proves_mates_with_every_technique_on(fen: str, moves: int) -> None:
    searcher = Inspector()
    _, last = searcher.think(Position.from_fen(fen), Limits(mate=moves), lambda _: None)
    assert last is not None and last.score == MATE - (2 * moves - 1)
    assert last.depth <= 2 * moves
    notes = searcher.notes
    # None of this chapter's techniques prunes in `go mate`'s main search (the quiescence
    # search may skip captures; the null move and the multi-cut of earlier chapters stay).
    assert notes.reverse_futility_prunes == notes.futility_prunes == 0
    assert notes.late_move_prunes == 0
    # The same depth searched for a move does prune: the rule for `go mate` matters.
    searcher = Searcher()
    searcher.think(Position.from_fen(fen), Limits(depth=last.depth), lambda _: None)
    notes = searcher.notes
    assert notes.reverse_futility_prunes + notes.futility_prunes + notes.late_move_prunes > 0


def test_chapter_14s_tactic_survives_forward_pruning() -> None:
    # Chapter 14's tests switch forward pruning off to see stage 14's search; with it on,
    # the extended search still finds WAC.143's mate in three at depth 3, and prunes.
    fen, (san,) = WIN_AT_CHESS["WAC.143"]
    searcher = Searcher(pruning(True))
    score, move, _ = searcher.search(Position.from_fen(fen), 3)
    assert move is not None and move_to_uci(move) == chess.Board(fen).parse_san(san).uci()
    assert score == MATE - 5
    notes = searcher.notes
    assert notes.reverse_futility_prunes + notes.futility_prunes + notes.late_move_prunes > 0


# The switches and the notes.


OPTIONS = {"quiescence_see": "QuiescenceSEE", "delta_pruning": "DeltaPruning",
           "reverse_futility": "ReverseFutility", "futility": "Futility",
           "late_move_pruning": "LateMovePruning", "improving": "Improving"}


def test_the_switches_are_uci_options_and_shell_commands() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    lines = output.getvalue().splitlines()
    for name, option in OPTIONS.items():
        default = "false" if name == "improving" else "true"
        assert f"option name {option} type check default {default}" in lines, option
        execute(session, f"setoption name {option} value false")
        assert getattr(session.searcher.techniques, name) is False
        execute(session, f"set {name} on")
        assert getattr(session.searcher.techniques, name) is True
    execute(session, "set improving off")
    execute(session, f"position fen {KIWIPETE}")
    execute(session, "go depth 4")
    session.wait_for_search()
    execute(session, "stats")
    stats = output.getvalue()
    for note in ("see_prunes", "delta_prunes", "reverse_futility_prunes", "futility_prunes",
                 "late_move_prunes"):
        assert f"\n{note} " in stats, note
    assert "info string error" not in stats
    execute(session, "setoption name LateMovePruning value maybe")
    assert output.getvalue().splitlines()[-1].startswith(
        "info string error: option LateMovePruning needs the value true or false")
