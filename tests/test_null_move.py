"""Null-move pruning (chapter 10).

The referees: python-chess for what a pass does to a position (`chess.Move.null()`), the
key computed from scratch for the incremental key, the engine's own `minimax` (chapter 5)
for the scores of a search without the null move, and Stockfish, where installed, for
which moves of the zugzwang position win.
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from unittest import mock

import chess
import chess.engine
import pytest

import cb2026.search
from cb2026.cli import Session, execute
from cb2026.limits import Limits
from cb2026.move import Move, move_to_uci, parse_uci_move
from cb2026.position import NULL_MOVE, Position
from cb2026.rules import legal_moves
from cb2026.search import (
    MATE,
    NULL_MOVE_DEPTH,
    Searcher,
    Techniques,
    minimax,
)
from positions import (
    EN_PASSANT_PAWNS,
    MATE_IN_THREE,
    MATE_IN_TWO,
    MIDDLEGAME,
    PAWN_RACE,
    PERFT_POSITIONS,
    SEARCH_POSITIONS,
    TREBUCHET,
)
from stage_referee import FORWARD_PRUNING, MAIN_SEARCH_PRUNING, switched_off
from test_search_alphabeta import SMALL

pytestmark = pytest.mark.stage("stage-10-null-move")

STOCKFISH = Path("/usr/games/stockfish")


def without(*names: str) -> Techniques:
    """Return the default techniques with `names` switched off."""
    return dataclasses.replace(Techniques(), **dict.fromkeys(names, False))


def state(position: Position) -> tuple[object, ...]:
    """Return everything a pass and its take-back must leave as it was."""
    return (position.fen(), position.key, position.board.copy(), position.king_squares.copy(),
            len(position.undo_stack))


# Passing in make and unmake.


@pytest.mark.parametrize("fen", [*PERFT_POSITIONS, EN_PASSANT_PAWNS, MIDDLEGAME])
def test_a_pass_is_python_chesss_null_move_and_is_taken_back(fen: str) -> None:
    position = Position.from_fen(fen)
    before = state(position)
    position.make_null_move()
    board = chess.Board(fen)
    board.push(chess.Move.null())
    ours, theirs = position.fen().split(), board.fen().split()
    # Everything but the halfmove clock, which the pass restarts (the chapter says why).
    assert ours[:4] + ours[5:] == theirs[:4] + theirs[5:]
    assert ours[4] == "0"
    assert position.key == position.compute_key()
    assert position.undo_stack[-1][0] == NULL_MOVE
    position.unmake_null_move()
    assert state(position) == before


def test_a_pass_ends_the_right_to_take_en_passant() -> None:
    position = Position.from_fen(EN_PASSANT_PAWNS)
    assert position.en_passant_square is not None
    position.make_null_move()
    assert position.en_passant_square is None and position.key == position.compute_key()
    # Passing back gives the same placement and side, without the right: another key.
    position.make_null_move()
    assert position.fen().split()[:2] == EN_PASSANT_PAWNS.split()[:2]
    assert position.key != Position.from_fen(EN_PASSANT_PAWNS).key


def play(position: Position, moves: str) -> None:
    """Play the UCI moves of `moves`, a pass for each `0000`."""
    for text in moves.split():
        if text == "0000":
            position.make_null_move()
        else:
            position.make_move(parse_uci_move(text, legal_moves(position)))


def test_no_repetition_is_seen_across_a_pass() -> None:
    # Real moves: the knights go out and back, and the start position is on the board again.
    position = Position.starting()
    play(position, "g1f3 g8f6 f3g1 f6g8")
    assert position.is_repetition(2)
    # Black passes twice instead of moving: the same placement, the same side to move, but
    # not a repetition, since Black never made the moves a repetition needs.
    position = Position.starting()
    play(position, "g1f3 0000 f3g1 0000")
    assert position.key == Position.starting().key
    assert not position.is_repetition(2)
    # Positions after the pass still repeat among themselves.
    play(position, "g1f3 g8f6 f3g1 f6g8")
    assert position.is_repetition(2)


# The guards, one by one.


def null_window_at_beta(position: Position, margin: int = 50) -> tuple[int, int]:
    """Return a null window whose beta lies `margin` below the static evaluation."""
    from cb2026.evaluate import evaluate

    # The evaluation the null move's guard uses: chapter 13's where the stage has it.
    static_evaluation = getattr(Searcher(), "static_evaluation", evaluate)
    beta = static_evaluation(position) - margin
    return beta - 1, beta


def test_each_guard_forbids_the_pass() -> None:
    searcher = Searcher()
    position = Position.from_fen(MIDDLEGAME)  # White to move, not in check, a bishop up
    alpha, beta = null_window_at_beta(position)
    depth = NULL_MOVE_DEPTH + 2
    assert searcher.may_pass(position, depth, alpha, beta, 3)  # every guard satisfied
    assert not searcher.may_pass(position, depth, alpha, beta, 0)  # the root
    assert not searcher.may_pass(position, depth, alpha - 1, beta, 3)  # a PV node
    assert not searcher.may_pass(position, NULL_MOVE_DEPTH - 1, alpha, beta, 3)  # too shallow
    assert not searcher.may_pass(position, depth, alpha + 100, beta + 100, 3)  # eval < beta
    for switch in ("null_move", "alphabeta"):
        assert not Searcher(without(switch)).may_pass(position, depth, alpha, beta, 3)
    # Twice in a row: after White's pass, Black may not pass back.
    position.make_null_move()
    alpha, beta = null_window_at_beta(position)
    assert not searcher.may_pass(position, depth, alpha, beta, 4)
    position.unmake_null_move()
    # In check: the rook on a1 gives check along the first rank.
    in_check = Position.from_fen("4k3/8/8/8/8/8/8/r4K1R w - - 0 1")
    alpha, beta = null_window_at_beta(in_check)
    assert not searcher.may_pass(in_check, depth, alpha, beta, 3)
    # Only king and pawns: the trebuchet, either side to move.
    for fen in (TREBUCHET, TREBUCHET.replace(" w ", " b ")):
        pawns_only = Position.from_fen(fen)
        alpha, beta = null_window_at_beta(pawns_only)
        assert not searcher.may_pass(pawns_only, depth, alpha, beta, 3)


def test_no_pass_is_tried_in_a_pawn_ending_or_with_the_switch_off() -> None:
    searcher = Searcher()
    searcher.think(Position.from_fen(TREBUCHET), Limits(depth=8), lambda _: None)
    assert searcher.notes.null_move_tries == 0
    searcher = Searcher(without("null_move"))
    searcher.think(Position.from_fen(MIDDLEGAME), Limits(depth=4), lambda _: None)
    assert searcher.notes.null_move_tries == 0
    searcher = Searcher()
    searcher.think(Position.from_fen(MIDDLEGAME), Limits(depth=4), lambda _: None)
    notes = searcher.notes
    assert 0 < notes.null_move_cutoffs <= notes.null_move_tries


def test_a_mate_found_after_a_pass_is_not_returned() -> None:
    class MatedAfterAPass(Searcher):
        """A searcher whose every search after a pass finds the opponent mated."""

        def negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int,
                    pv: list[Move]) -> int:
            if position.undo_stack and position.undo_stack[-1][0] == NULL_MOVE:
                return -(MATE - ply)
            return super().negamax(position, depth, alpha, beta, ply, pv)

    searcher = MatedAfterAPass()
    position = Position.from_fen(MIDDLEGAME)
    alpha, beta = null_window_at_beta(position)
    assert searcher.null_move_score(position, 5, beta, 2) == beta
    assert searcher.notes.null_move_cutoffs == 1


# The search with the null move.


@pytest.mark.parametrize("fen", SMALL)
def test_with_the_null_move_off_the_score_is_minimaxs(fen: str) -> None:
    depth = NULL_MOVE_DEPTH  # deep enough for a pass to be allowed, were it on
    # Check extensions (chapter 14, where the stage has them) search deeper than minimax;
    # forward pruning (chapter 15, where the stage has it) skips moves that minimax searches.
    later = switched_off("check_extensions", *MAIN_SEARCH_PRUNING)
    techniques = without("quiescence", "tt", "aspiration", "null_move", *later)
    searcher = Searcher(techniques)
    assert searcher.search(Position.from_fen(fen), depth)[0] == minimax(
        Position.from_fen(fen), depth)
    assert searcher.notes.null_move_tries == 0


# From chapter 12 on: late move reductions switched off, for the tests that need every move
# searched to the full depth (a mate whose moves are reduced is found plies later).
NO_LMR = switched_off("lmr")


def test_mates_are_still_found() -> None:
    # The null move must not hide a mate; LMR (chapter 12) would delay it, so it is off.
    for techniques in (without(*NO_LMR), without("tt", *NO_LMR)):
        searcher = Searcher(techniques)
        _, last = searcher.think(Position.from_fen(MATE_IN_TWO), Limits(depth=4),
                                 lambda _: None)
        assert last is not None and last.score == MATE - 3
        searcher = Searcher(techniques)
        _, last = searcher.think(Position.from_fen(MATE_IN_THREE), Limits(depth=6),
                                 lambda _: None)
        assert last is not None and last.score == MATE - 5


class NullMoveSearches(Searcher):
    """A searcher that notes the node counts before and after each null-move search."""

    def start_search(self) -> None:
        super().start_search()
        self.null_searches: list[tuple[int, int]] = []

    def null_move_score(self, position: Position, depth: int, beta: int, ply: int) -> int:
        before = self.notes.nodes
        score = super().null_move_score(position, depth, beta, ply)
        self.null_searches.append((before, self.notes.nodes))
        return score


# White's king on a1, material even. Taking back a pass with `unmake_move` leaves the board
# as it was but, when the other side's king stands on a1, sets the passing side's king
# square to a1: this position shows that mistake (Black passes with White's king on a1),
# the middlegame does not.
KING_ON_A1 = "2kr3r/ppp1qppp/2n1bn2/2b1p3/8/2NP1N2/PPPBBPPP/K2RQ2R w - - 0 1"


# Chapter 15's forward pruning (where the stage has it) makes depth 4 a few thousand nodes,
# with too few null-move searches past depth 1 to stop inside: off, in the recorder and in
# the searches it guides.
NO_PRUNING = without(*switched_off(*FORWARD_PRUNING))


@pytest.mark.parametrize("fen", [MIDDLEGAME, KING_ON_A1])
def test_a_stop_during_a_null_move_search_restores_the_position(fen: str) -> None:
    recorder = NullMoveSearches(NO_PRUNING)
    recorder.think(Position.from_fen(fen), Limits(depth=4), lambda _: None)
    # Null-move searches of a few nodes at least, after depth 1 (which `go nodes` cannot stop).
    inside = [before + 2 for before, after in recorder.null_searches
              if after - before >= 3 and before > 1_000]
    assert len(inside) >= 5
    for nodes in inside[:: max(1, len(inside) // 5)]:
        position = Position.from_fen(fen)
        before = state(position)
        searcher = Searcher(NO_PRUNING)
        move, _ = searcher.think(position, Limits(nodes=nodes), lambda _: None)
        assert searcher.notes.nodes == nodes  # stopped there, inside a null-move search
        assert state(position) == before, nodes
        assert move is not None


# The zugzwang position.


class Unguarded(Searcher):
    """The engine's search without the pawn-ending guard."""

    def zugzwang_likely(self, position: Position) -> bool:
        return False


@pytest.mark.parametrize("depth", [4, 6, 8])
def test_the_guard_gets_the_trebuchet_right(depth: int) -> None:
    # Black to move in the trebuchet loses its pawn. Below the root, in a null window whose
    # beta every other guard allows, the guarded search fails low; the unguarded one passes,
    # leaves White in the zugzwang, and fails high.
    fen = TREBUCHET.replace(" w ", " b ")
    _, beta = null_window_at_beta(Position.from_fen(fen))
    scores = []
    for searcher in (Searcher(), Unguarded()):
        searcher.start_search()
        scores.append(searcher.negamax(Position.from_fen(fen), depth, beta - 1, beta, 1, []))
    guarded, unguarded = scores
    assert guarded < beta <= unguarded
    # The side to move loses a pawn either way: no pass can hide that at the root.
    for side in (" w ", " b "):
        score = Searcher().search(Position.from_fen(TREBUCHET.replace(" w ", side)), depth)[0]
        assert score < -50, side


@pytest.mark.skipif(not STOCKFISH.exists(), reason="Stockfish not at /usr/games/stockfish")
def test_stockfish_says_the_side_to_move_loses_the_trebuchet() -> None:
    with chess.engine.SimpleEngine.popen_uci(str(STOCKFISH)) as stockfish:
        for side in (" w ", " b "):
            board = chess.Board(TREBUCHET.replace(" w ", side))
            info = stockfish.analyse(board, chess.engine.Limit(depth=25))
            assert info["score"].relative < chess.engine.Cp(-300), side


def deepened_move(fen: str, depth: int, searcher: Searcher) -> str:
    """Return the move (UCI) `searcher` plays after deepening to `depth`."""
    move, _ = searcher.think(Position.from_fen(fen), Limits(depth=depth), lambda _: None)
    assert move is not None
    return move_to_uci(move)


# Chapter 13's evaluation (where the stage has it) scores the passed pawns of the race, and
# even the unguarded search then plays d5: the race shows the guard with the evaluation of
# chapters 5 and 6, which it was chosen for. Chapter 14.1's singular extensions (where
# the stage has them) find d5 at depth 8 even without the guard: off too.
EARLIER_EVALUATION = without(*switched_off("evaluation", "singular_extensions"))


@pytest.mark.parametrize("depth", [5, 8])
def test_the_guard_saves_the_pawn_race(depth: int) -> None:
    # Without the guard the engine plays Kb5 (lost); with it, d5. With the pass searched as
    # deep as a real move, the unguarded search plays d5 too: the reduction misleads it.
    assert deepened_move(PAWN_RACE, depth, Searcher(EARLIER_EVALUATION)) == "d4d5"
    assert deepened_move(PAWN_RACE, depth, Searcher()) == "d4d5"  # the engine as it is
    assert deepened_move(PAWN_RACE, depth, Unguarded(EARLIER_EVALUATION)) == "a6b5"
    with mock.patch.object(cb2026.search, "null_move_reduction", lambda depth: 0):
        assert deepened_move(PAWN_RACE, depth, Unguarded(EARLIER_EVALUATION)) == "d4d5"


@pytest.mark.skipif(not STOCKFISH.exists(), reason="Stockfish not at /usr/games/stockfish")
def test_stockfish_says_kb5_loses_the_pawn_race_and_d5_does_not() -> None:
    with chess.engine.SimpleEngine.popen_uci(str(STOCKFISH)) as stockfish:
        for move, mated in (("a6b5", True), ("d4d5", False)):
            board = chess.Board(PAWN_RACE)
            board.push_uci(move)
            score = stockfish.analyse(board, chess.engine.Limit(depth=22))["score"].white()
            assert score.is_mate() is mated and (not mated or score.mate() < 0), (move, score)


# The switch and the notes.


def test_the_switch_is_a_uci_option_and_a_shell_command() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    assert "option name NullMove type check default true" in output.getvalue().splitlines()
    for command, on in (("setoption name NullMove value false", False),
                        ("set null_move on", True), ("set nullmove off", False),
                        ("set null move on", True)):
        execute(session, command)
        assert session.searcher.techniques.null_move is on, command
    execute(session, f"position fen {SEARCH_POSITIONS['middlegame']}")
    execute(session, "go depth 4")
    session.wait_for_search()
    execute(session, "stats")
    stats = output.getvalue()
    assert "null_move_tries" in stats and "null_move_cutoffs" in stats
    assert "info string error" not in stats
    execute(session, "setoption name NullMove value maybe")
    assert output.getvalue().splitlines()[-1].startswith(
        "info string error: option NullMove needs the value true or false")
