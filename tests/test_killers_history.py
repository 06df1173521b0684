"""Killer moves, the history table, SEE and the move picker (chapter 11).

The referees: python-chess for the legal moves the picker must hand out and for a
brute-force exchange on a square (tools/see_referee.py), played with each side recapturing
with its cheapest piece, which SEE must match wherever its simplified model holds (no pin,
check or promotion), and in every order, which shows where that order costs; the engine's
own `minimax` (chapter 5) for the score of a search whose move order changed, since no
order changes what alpha-beta returns when its pruning is exact.
"""

from __future__ import annotations

import dataclasses
import io
import random

import chess
import pytest

from cb2026.cli import Session, execute
from cb2026.limits import Limits
from cb2026.move import Move, move_to_uci
from cb2026.picker import (
    BAD_CAPTURES,
    GOOD_CAPTURES,
    HISTORY_MAX,
    KILLERS,
    NO_MOVE,
    QUIETS,
    TT_MOVE,
    MovePicker,
    add_killer,
    is_noisy,
    new_history,
    update_history,
)
from cb2026.position import Position
from cb2026.rules import legal_moves
from cb2026.search import Searcher, Techniques, minimax
from cb2026.see import see
from positions import KIWIPETE, MIDDLEGAME, PERFT_POSITIONS, SEARCH_POSITIONS
from see_referee import cheapest_first_result, exchange_positions, exchange_result
from stage_referee import MAIN_SEARCH_PRUNING, switched_off
from test_search_alphabeta import RANDOM, SMALL

pytestmark = pytest.mark.stage("stage-11-killers-history")

TECHNIQUES = ("killers", "history", "see")

# Positions for the picker and SEE: the book's, and random games from the opening suite.
POSITIONS = [*PERFT_POSITIONS, *SEARCH_POSITIONS.values(), *exchange_positions(150, 2026)]


def without(*names: str) -> Techniques:
    """Return the default techniques with `names` switched off."""
    return dataclasses.replace(Techniques(), **dict.fromkeys(names, False))


def uci(moves: list[Move]) -> list[str]:
    """Return the moves as UCI text."""
    return [move_to_uci(move) for move in moves]


# SEE against the brute-force exchange.


def test_see_is_the_cheapest_first_exchange_wherever_its_model_holds() -> None:
    held = differing = 0
    for fen in POSITIONS:
        position, board = Position.from_fen(fen), chess.Board(fen)
        for move in legal_moves(position):
            referee_move = chess.Move.from_uci(move_to_uci(move))
            if not board.is_capture(referee_move) or referee_move.promotion:
                continue
            expected, model_held = exchange_result(board, referee_move)
            exchange = see(position.board, move)
            if model_held:
                held += 1
                # SEE's own game: the exact value, or within the range the choice
                # between two pieces of the cheapest kind allows.
                lowest, highest = cheapest_first_result(board, referee_move)
                assert lowest <= exchange <= highest, (fen, move_to_uci(move))
                if lowest == highest:
                    assert exchange == lowest, (fen, move_to_uci(move))
            else:
                differing += exchange != expected
    # Enough exchanges to mean something, and the model's limits were met (a pin, a check).
    assert held > 500 and differing > 0


# Captures where no pin, check or promotion enters, but the cheapest recapture is not the
# best: it opens a line for the opponent.  SEE gives the cheapest-first value; the free
# exchange differs.
@pytest.mark.parametrize(("fen", "move", "cheapest", "free"), [
    # After Bxd6, Bxd6 opens the a3 queen's diagonal; Qxd6 wins the bishop.
    ("r1b2b2/1pkp1Nr1/2nnp3/7p/NBPp3P/qP2P1Q1/5PP1/R3KBR1 w - - 2 19", "f7d6", 0, 320),
    # The queen taking back first opens the c4 bishop's diagonal; the king should.
    ("1n2kb1r/rp3pp1/5n2/pN1qpb1Q/2Bp4/1P2P2P/P2N1PP1/R1B1K2R w KQk - 3 7", "h5f7",
     -230, -800),
    ("rn3r1k/p1p2pbp/bp1pp3/P2P4/2PP2pq/3QBN2/1P1K1PPR/RN3B2 w - - 0 14", "d3h7",
     -400, -800),
    ("r3k2r/pBp2ppp/1p4b1/3pP1Pn/Pn1bP2q/8/1PPN1P2/RNB1QK1R b kq - 0 12", "h4e4",
     -580, -480),
])
def test_the_cheapest_recapture_is_not_always_the_best(
    fen: str, move: str, cheapest: int, free: int
) -> None:
    position, board = Position.from_fen(fen), chess.Board(fen)
    chosen = next(candidate for candidate in legal_moves(position)
                  if move_to_uci(candidate) == move)
    referee_move = chess.Move.from_uci(move)
    assert exchange_result(board, referee_move) == (free, True)  # the model held
    assert cheapest_first_result(board, referee_move) == (cheapest, cheapest)
    assert see(position.board, chosen) == cheapest


@pytest.mark.parametrize(("fen", "move", "value"), [
    # A rook takes a pawn that a pawn defends: it loses the rook for the pawn.
    ("4k3/8/3p4/4p3/8/8/8/4RK2 w - - 0 1", "e1e5", 100 - 500),
    # The same with a second rook behind the first (an x-ray): still the rook for a pawn,
    # since after the pawn takes back, the second rook wins only a pawn.
    ("4k3/8/3p4/4p3/8/8/4R3/4RK2 w - - 0 1", "e2e5", 100 - 500 + 100),
    # A pawn takes a knight that a pawn defends; the bishop behind the first pawn takes
    # back last (an x-ray through the square the pawn left): the knight for nothing.
    ("4k3/8/8/4p3/3n4/2P5/1B6/4K3 w - - 0 1", "c3d4", 320),
    # En passant: the king takes back, unless the rook on d1 sees d6 through d5, the
    # square of the pawn taken.
    ("8/2k5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 0),
    ("8/2k5/8/3pP3/8/8/8/3RK3 w - d6 0 1", "e5d6", 100),
    # The king takes back a queen on f7, unless the rook behind the queen (an x-ray down
    # the f-file) still defends the square.
    ("6k1/5p2/8/8/8/5Q2/8/4K3 w - - 0 1", "f3f7", 100 - 900),
    ("6k1/5p2/8/8/8/5Q2/8/4KR2 w - - 0 1", "f3f7", 100),
])
def test_see_on_small_exchanges(fen: str, move: str, value: int) -> None:
    position = Position.from_fen(fen)
    chosen = next(candidate for candidate in legal_moves(position)
                  if move_to_uci(candidate) == move)
    assert see(position.board, chosen) == value
    assert exchange_result(chess.Board(fen), chess.Move.from_uci(move))[0] == value


# Killers and history.


def test_killers_are_newest_first_and_never_duplicated() -> None:
    slots = [NO_MOVE, NO_MOVE]
    generator = random.Random(11)
    for _ in range(500):
        move = generator.randrange(1, 6)
        add_killer(slots, move)
        assert slots[0] == move
        assert slots[0] != slots[1]


def test_gravity_keeps_history_within_its_bounds() -> None:
    generator = random.Random(2026)
    history = new_history()
    for _ in range(20_000):
        index = generator.randrange(4)  # a few entries, hit again and again
        bonus = generator.choice((1, -1)) * generator.randrange(HISTORY_MAX + 1)
        update_history(history, index, bonus)
        assert -HISTORY_MAX <= history[index] <= HISTORY_MAX
    # Bonuses alone drive a value up to the bound and no further; maluses down.
    for sign in (1, -1):
        history = new_history()
        for _ in range(5_000):
            update_history(history, 0, sign * 400)
        assert history[0] == sign * HISTORY_MAX or abs(history[0]) > HISTORY_MAX - 400


def test_a_search_fills_killers_and_history() -> None:
    searcher = Searcher()
    searcher.think(Position.from_fen(MIDDLEGAME), Limits(depth=4), lambda _: None)
    killers = [slots for slots in searcher.killers if slots[0] != NO_MOVE]
    assert killers and all(slots[0] != slots[1] for slots in killers)
    assert max(searcher.history) > 0 > min(searcher.history)  # bonuses and maluses
    notes = searcher.notes
    assert notes.killer_cutoffs > 0 and notes.history_cutoffs > 0


def test_a_cutoff_teaches_its_ply_and_its_side_only() -> None:
    # Black to move, so that a table indexed by the wrong side would show it.
    position = Position.from_fen(KIWIPETE.replace(" w ", " b "))
    moves = legal_moves(position)
    board = position.board
    quiet = [move for move in moves if not is_noisy(board, move)]
    capture = next(move for move in moves if is_noisy(board, move))
    searcher = Searcher()
    searcher.start_search()
    picker = MovePicker(position, list(moves), killers=searcher.killers[3])
    for _ in picker:  # run the picker to its last stage
        pass
    cutter, tried = quiet[0], quiet[1:4]
    searcher.learn_from_cutoff(position, picker, cutter, True, tried, 4, 3)
    assert searcher.killers[3] == [cutter, NO_MOVE]
    assert all(slots == [NO_MOVE, NO_MOVE] for ply, slots in enumerate(searcher.killers)
               if ply != 3)
    black = 1 << 12
    assert searcher.history[black | cutter & 4095] == 16  # depth 4: 4 * 4
    assert all(searcher.history[black | move & 4095] == -16 for move in tried)
    assert sum(map(abs, searcher.history)) == 16 * (1 + len(tried))  # White's untouched
    # A capture that cuts teaches nothing, even with quiet moves tried before it.
    searcher.learn_from_cutoff(position, picker, capture, False, tried, 4, 3)
    assert searcher.killers[3] == [cutter, NO_MOVE]
    assert sum(map(abs, searcher.history)) == 16 * (1 + len(tried))
    # The counters follow the picker's stage (bad captures: none of their own).
    assert picker.stage == BAD_CAPTURES
    assert searcher.notes.killer_cutoffs == searcher.notes.history_cutoffs == 0
    picker.stage = KILLERS
    searcher.learn_from_cutoff(position, picker, cutter, True, [], 4, 3)
    picker.stage = QUIETS
    searcher.learn_from_cutoff(position, picker, cutter, True, [], 4, 3)
    assert searcher.notes.killer_cutoffs == searcher.notes.history_cutoffs == 1


# The picker hands out every legal move exactly once.


def picked(picker: MovePicker) -> list[tuple[Move, int]]:
    """Return the picker's moves, each with the stage it came from."""
    return [(move, picker.stage) for move in picker]


@pytest.mark.parametrize("seed", range(4))
def test_the_picker_yields_every_legal_move_once(seed: int) -> None:
    generator = random.Random(seed)
    other_moves = [move for fen in PERFT_POSITIONS for move in legal_moves(Position.from_fen(fen))]
    for fen in POSITIONS:
        position = Position.from_fen(fen)
        moves = legal_moves(position)
        expected = sorted(move.uci() for move in chess.Board(fen).legal_moves)
        board = position.board
        quiet = [move for move in moves if not is_noisy(board, move)]
        # Killers: the position's own quiet moves, captures, or moves of other positions
        # (often illegal here); the TT move: none, or any legal move.
        killers = [generator.choice(candidates) for candidates in
                   (quiet or moves, moves, other_moves, other_moves) if candidates][:2]
        tt_move = generator.choice([None, *moves])
        history = [generator.randrange(-HISTORY_MAX, HISTORY_MAX + 1) for _ in range(8192)]
        for killer_slots, table, exchanges in (([NO_MOVE, NO_MOVE], None, False),
                                               (killers, history, True)):
            picker = MovePicker(position, list(moves), tt_move, killer_slots, table,
                                exchanges)
            result = picked(picker)
            assert sorted(uci([move for move, _ in result])) == expected, fen
            stages = [stage for _, stage in result]
            assert stages == sorted(stages), fen  # the stages come in order
            if tt_move is not None:
                assert result[0] == (tt_move, TT_MOVE)
            for move, stage in result:
                if stage == KILLERS:
                    assert move in killer_slots and move in quiet and move != tt_move
                if stage in (GOOD_CAPTURES, BAD_CAPTURES):
                    assert is_noisy(board, move)
                if stage == BAD_CAPTURES:
                    assert see(board, move) < 0
            side = position.side_to_move << 12
            if table is not None:
                values = [table[side | move & 4095] for move, stage in result
                          if stage == QUIETS]
                assert values == sorted(values, reverse=True), fen
        # The position is untouched.
        assert position.fen() == Position.from_fen(fen).fen()


# An ordering never changes what alpha-beta returns.


def exact(*names: str) -> Techniques:
    """The techniques whose pruning is exact: no quiescence (minimax has none), no table
    (it carries bounds across paths), no null move (it passes), no check extensions
    (chapter 14, where the stage has them: they search deeper), no forward pruning
    (chapter 15, where the stage has it: it skips moves), with `names` off."""
    later = switched_off("check_extensions", *MAIN_SEARCH_PRUNING)
    return without("quiescence", "tt", "null_move", "aspiration", *later, *names)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("fen", SMALL)
def test_the_score_is_minimaxs_with_every_technique(fen: str, depth: int) -> None:
    expected = minimax(Position.from_fen(fen), depth)
    for off in ((), *((name,) for name in TECHNIQUES), TECHNIQUES):
        score = Searcher(exact(*off)).search(Position.from_fen(fen), depth)[0]
        assert score == expected, (fen, depth, off)


@pytest.mark.parametrize("fen", RANDOM[:12])
def test_the_ordering_changes_nodes_not_scores(fen: str) -> None:
    depth = 3 if len(list(chess.Board(fen).legal_moves)) <= 30 else 2
    scores = set()
    for off in ((), *((name,) for name in TECHNIQUES), TECHNIQUES):
        scores.add(Searcher(exact(*off)).search(Position.from_fen(fen), depth)[0])
    assert scores == {minimax(Position.from_fen(fen), depth)}


def test_with_the_switches_off_the_order_is_mvv_lva_with_the_tt_move_first() -> None:
    # Chapter 10's order: the TT move, then captures by MVV-LVA, then the quiet moves
    # as generated.
    searcher = Searcher(without(*TECHNIQUES))
    for fen in POSITIONS[:40]:
        position = Position.from_fen(fen)
        moves = legal_moves(position)
        tt_move = moves[len(moves) // 2]
        searcher.start_search()
        picker = searcher.move_picker(position, list(moves), tt_move, 3)
        ordered = searcher.order_moves(position, list(moves))
        ordered.remove(tt_move)
        assert [move for move in picker] == [tt_move, *ordered], fen


# The switches and the notes.


def test_the_switches_are_uci_options_and_shell_commands() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    lines = output.getvalue().splitlines()
    for option in ("Killers", "History", "SEE"):
        assert f"option name {option} type check default true" in lines
    for command, name, on in (("setoption name Killers value false", "killers", False),
                              ("set history off", "history", False),
                              ("set see off", "see", False), ("set killers on", "killers", True)):
        execute(session, command)
        assert getattr(session.searcher.techniques, name) is on, command
    execute(session, "set history on")
    execute(session, "set see on")
    execute(session, f"position fen {MIDDLEGAME}")
    execute(session, "go depth 4")
    session.wait_for_search()
    execute(session, "stats")
    stats = output.getvalue()
    for note in ("killer_cutoffs", "history_cutoffs", "bad_captures", "first-move cutoffs"):
        assert note in stats, note
    assert "info string error" not in stats
    execute(session, "setoption name History value sometimes")
    assert output.getvalue().splitlines()[-1].startswith(
        "info string error: option History needs the value true or false")


def test_a_switched_off_technique_leaves_its_notes_at_zero() -> None:
    searcher = Searcher(without(*TECHNIQUES))
    searcher.think(Position.from_fen(MIDDLEGAME), Limits(depth=4), lambda _: None)
    assert searcher.notes.killer_cutoffs == 0 and searcher.notes.bad_captures == 0
    assert max(searcher.history) == min(searcher.history) == 0
