"""The transposition table (chapter 8): entries, replacement, mate scores, effect on the search."""

from __future__ import annotations

import dataclasses
import io
import random

import pytest

import cb2026.search as search_module
from cb2026.cli import Session, execute
from cb2026.limits import Limits
from cb2026.position import Position
from cb2026.search import INFINITY, MATE, Searcher, Techniques, minimax
from cb2026.tt import BYTES_PER_ENTRY, Bound, TranspositionTable, entry_count
from positions import EN_PASSANT_PAWNS, KIWIPETE, MATE_IN_THREE, POSITION_3, START
from stage_referee import FORWARD_PRUNING, switched_off

pytestmark = pytest.mark.stage("stage-08-tt")

# Positions with a known shortest mate, in moves, for the side to move.
MATES = [
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2),
    (MATE_IN_THREE, 3),
    ("4K3/8/7k/8/1Q6/8/8/8 w - - 0 1", 3),
]


# Chapter 15's forward pruning (where the stage has it) leaves out moves by the window and
# by the evaluation: off where minimax is the referee, or where the same search with and
# without the table must agree.
NO_PRUNING = switched_off(*FORWARD_PRUNING)


def without(*names: str) -> Techniques:
    """Return the default techniques with `names` switched off."""
    return dataclasses.replace(Techniques(), **dict.fromkeys(names, False))


# Entries, replacement, index, size.


def test_entries_pack_and_unpack() -> None:
    table = TranspositionTable(1)
    table.store(0xDEADBEEF12345678, 0x1ABCD, -MATE + 7, 12, Bound.LOWER, True)
    entry = table.probe(0xDEADBEEF12345678)
    assert entry is not None
    assert (entry.best_move, entry.score, entry.depth, entry.bound, entry.pv) == (
        0x1ABCD, -MATE + 7, 12, Bound.LOWER, True)
    assert table.probe(0xDEADBEEF12345679) is None


def test_an_empty_slot_is_not_an_entry_for_key_zero() -> None:
    assert TranspositionTable(1).probe(0) is None


def test_fail_low_keeps_the_known_move() -> None:
    table = TranspositionTable(1)
    table.store(42, 1234, 10, 3, Bound.EXACT, False)
    table.store(42, None, -5, 4, Bound.UPPER, False)
    entry = table.probe(42)
    assert entry.best_move == 1234 and entry.bound == Bound.UPPER and entry.depth == 4


def test_replacement_keeps_deeper_entries_of_the_same_search() -> None:
    table = TranspositionTable(1)
    table.buckets = False  # the single slot per key of chapter 8 (chapter 8.1 adds buckets)
    first, second = 5, 6  # two keys that share the one slot
    assert table.slots_for(first) == table.slots_for(second)
    table.store(first, 1, 0, 8, Bound.EXACT, False)
    table.store(second, 2, 0, 3, Bound.EXACT, False)
    assert table.probe(first) is not None and table.probe(second) is None
    table.store(second, 2, 0, 8, Bound.EXACT, False)  # as deep: replaces
    assert table.probe(first) is None and table.probe(second) is not None
    table.store(first, 1, 0, 9, Bound.EXACT, False)
    table.new_search()  # an older generation gives way even to a shallower result
    table.store(second, 2, 0, 1, Bound.EXACT, False)
    assert table.probe(second) is not None and table.probe(first) is None


@pytest.mark.parametrize("size", [1, 3, 7, 12, 1000, entry_count(3), entry_count(16)])
def test_lemire_index_covers_exactly_the_table(size: int) -> None:
    table = TranspositionTable(1)
    table.buckets = False
    table.size = size
    generator = random.Random(size)
    keys = [0, 1, 2**63, 2**64 - 1, *(generator.getrandbits(64) for _ in range(2000))]
    for key in keys:
        (index,) = table.slots_for(key)
        assert 0 <= index < size
        # The key read as a fraction of 2**64 falls into slot `index` of `size` equal parts.
        assert index * 2**64 <= key * size < (index + 1) * 2**64
    assert table.slots_for(0)[0] == 0 and table.slots_for(2**64 - 1)[0] == size - 1
    if size <= 12:  # every slot is reached
        assert {table.slots_for(key)[0] for key in keys} == set(range(size))


@pytest.mark.parametrize("megabytes", [1, 3, 16, 100])
def test_hash_option_sets_the_memory(megabytes: int) -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, f"setoption name Hash value {megabytes}")
    table = session.searcher.tt
    assert table.size == megabytes * 2**20 // BYTES_PER_ENTRY == entry_count(megabytes)
    memory = len(table.keys) * table.keys.itemsize + len(table.data) * table.data.itemsize
    assert memory == megabytes * 2**20
    assert "error" not in output.getvalue()


def test_set_hash_and_bad_sizes() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "set hash 2")
    assert session.searcher.tt.size == 2 * 2**20 // BYTES_PER_ENTRY
    for bad in ("0", "1025", "lots"):
        execute(session, f"setoption name Hash value {bad}")
    assert output.getvalue().count("error") == 3
    assert session.searcher.tt.size == 2 * 2**20 // BYTES_PER_ENTRY


# Bounds, as the search stores them.


def test_stored_bounds_match_the_window() -> None:
    # The referee: plain minimax (no quiescence, no table) gives the exact depth-2 score.
    exact = minimax(Position.from_fen(START), 2)
    techniques = without("quiescence", *NO_PRUNING)
    cases = [(-INFINITY, INFINITY, Bound.EXACT), (exact + 50, exact + 100, Bound.UPPER),
             (exact - 100, exact - 50, Bound.LOWER)]
    for alpha, beta, bound in cases:
        searcher = Searcher(techniques)
        position = Position.from_fen(START)
        score = searcher.negamax(position, 2, alpha, beta, 0, [])
        entry = searcher.tt.probe(position.key)
        assert entry.bound == bound and entry.score == score and entry.depth == 2
        if bound == Bound.EXACT:
            assert score == exact and entry.best_move is not None
        elif bound == Bound.UPPER:  # failed low: at most alpha, and no move is best
            assert exact <= score <= alpha and entry.best_move is None
        else:  # failed high: at least beta, with the move that did it
            assert beta <= score <= exact and entry.best_move is not None


def test_nothing_is_stored_once_the_search_is_stopped() -> None:
    searcher = Searcher()
    stopped = False
    check_limits, store = searcher.check_limits, searcher.tt.store

    def watched_check_limits() -> None:
        nonlocal stopped
        try:
            check_limits()
        except search_module.SearchStoppedError:
            stopped = True
            raise

    def watched_store(*arguments) -> None:
        assert not stopped, "a result was stored after the search was stopped"
        store(*arguments)

    searcher.check_limits = watched_check_limits
    searcher.tt.store = watched_store
    position = Position.from_fen(START)
    move, _ = searcher.think(position, Limits(nodes=3000), lambda iteration: None)
    assert stopped and move is not None
    assert position.fen() == Position.from_fen(START).fen()


# Mate scores: stored relative to the position.


def check_mate_distances(fen: str, moves_to_mate: int) -> None:
    """Search a mate over UCI, then again two plies on with the table kept: distances must fit."""
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    pv: list[str] = []
    for played in range(2):
        moves = pv[:2]
        execute(session, f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))
        start = len(output.getvalue())
        execute(session, "go depth 9")
        session.wait_for_search()
        lines = [line.split() for line in output.getvalue()[start:].splitlines()
                 if line.startswith("info depth")]
        # A failed aspiration window (chapter 9) reports a bound, not a distance.
        lines = [words for words in lines
                 if "lowerbound" not in words and "upperbound" not in words]
        mates = [int(words[words.index("score") + 2]) for words in lines if "mate" in words]
        # Every mate reported is the true distance, also those read from the table.
        assert mates and set(mates) == {moves_to_mate - played}, (played, mates)
        pv = lines[-1][lines[-1].index("pv") + 1:]


@pytest.mark.parametrize("fen,moves_to_mate", MATES)
def test_mate_distances_are_right_with_the_table(fen: str, moves_to_mate: int) -> None:
    check_mate_distances(fen, moves_to_mate)


def test_mate_distance_test_catches_unconverted_mate_scores(monkeypatch) -> None:
    # Storing mate scores as they are (counted from the root) must break the test above.
    monkeypatch.setattr(search_module, "score_to_tt", lambda score, ply: score)
    monkeypatch.setattr(search_module, "score_from_tt", lambda score, ply: score)
    with pytest.raises(AssertionError):
        check_mate_distances(*MATES[1])


# The table changes the work, not the answer.

SAME_RESULT = [
    START,
    KIWIPETE,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    POSITION_3,
]


# Only the main search probes the table, not quiescence: a transposition (two moves of one
# side in either order, 3 plies) is found from depth 4. At depth 3 there are no hits at all.
SAME_RESULT_DEPTH = 4


# The positions were chosen with the evaluation of chapters 5 and 6. With chapter 13's (where
# the stage has it) a transposition changes the third one's score and move at this depth, as
# a table may (chapter 8): the test keeps the evaluation it was chosen with.
EARLIER_EVALUATION = switched_off("evaluation")


@pytest.mark.parametrize("fen", SAME_RESULT)
def test_table_keeps_move_and_score_at_fixed_depth(fen: str) -> None:
    results = []
    for techniques in (without(*EARLIER_EVALUATION, *NO_PRUNING),
                       without("tt", *EARLIER_EVALUATION, *NO_PRUNING)):
        searcher = Searcher(techniques)
        score, best_move, _ = searcher.search(Position.from_fen(fen), SAME_RESULT_DEPTH)
        results.append((score, best_move, searcher.notes.nodes, searcher.notes.tt_hits))
    (score_on, move_on, nodes_on, hits_on), (score_off, move_off, nodes_off, hits_off) = results
    assert hits_on > 0 and hits_off == 0  # the table was used, so the comparison means something
    assert (score_on, move_on) == (score_off, move_off)
    assert nodes_on <= nodes_off


# Chapter 14's check extensions (where the stage has them) search a checking move a ply
# deeper than the depth asked for, which minimax does not: off here.
NO_EXTENSIONS = switched_off("check_extensions")


SMALL = [
    "8/8/8/4k3/8/8/3QK3/8 w - - 0 1",
    POSITION_3,
    EN_PASSANT_PAWNS,
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/8/3k4/8/2n2N2/8/3K4/8 w - - 0 1",
]


@pytest.mark.parametrize("fen", SMALL)
def test_search_without_table_matches_minimax(fen: str) -> None:
    # The same searcher for every depth: with the table off nothing carries over.
    searcher = Searcher(without("quiescence", "tt", *NO_EXTENSIONS, *NO_PRUNING))
    for depth in (1, 2, 3):
        assert searcher.search(Position.from_fen(fen), depth)[0] == minimax(
            Position.from_fen(fen), depth)


def test_table_carries_deeper_results_into_a_shallower_search() -> None:
    # Why the minimax comparison switches the table off: it answers with deeper knowledge.
    fen = EN_PASSANT_PAWNS
    searcher = Searcher(without("quiescence", *NO_EXTENSIONS, *NO_PRUNING))
    deep = searcher.search(Position.from_fen(fen), 4)[0]
    assert deep == minimax(Position.from_fen(fen), 4)
    shallow = searcher.search(Position.from_fen(fen), 2)[0]
    assert shallow == deep != minimax(Position.from_fen(fen), 2)


# The table over UCI and in the shell.


def searched_session(*commands: str) -> tuple[Session, io.StringIO]:
    """Return a UCI session that has run `commands`, each search to its end."""
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    for command in commands:
        execute(session, command)
        session.wait_for_search()
    return session, output


def test_ucinewgame_and_clear_hash_empty_the_table() -> None:
    start_key = Position.from_fen(START).key
    for clear in ("ucinewgame", "setoption name Clear Hash"):
        session, output = searched_session("position startpos", "go depth 3")
        assert session.searcher.tt.probe(start_key) is not None
        execute(session, clear)
        assert session.searcher.tt.probe(start_key) is None
        assert not any(session.searcher.tt.data)
        assert "error" not in output.getvalue()


def test_hashfull_is_reported_per_mille_of_the_first_thousand_slots() -> None:
    session, output = searched_session("setoption name Hash value 1", "position startpos",
                                       "go depth 4")
    reported = [int(line.split()[line.split().index("hashfull") + 1])
                for line in output.getvalue().splitlines() if line.startswith("info depth")]
    assert reported and all(0 <= value <= 1000 for value in reported)
    assert reported == sorted(reported) and reported[-1] > 0
    table = session.searcher.tt
    ours = sum(1 for slot in range(1000) if table.data[slot])  # one search: one generation
    assert reported[-1] == ours == table.hashfull()
    assert "option name Hash type spin default 16 min 1 max 1024" in output.getvalue()
    assert "option name Clear Hash type button" in output.getvalue()


def test_set_tt_off_stops_the_table() -> None:
    output = io.StringIO()
    session = Session(output)
    for command in ("set tt off", "go depth 3"):
        execute(session, command)
        session.wait_for_search()
    assert session.searcher.techniques.tt is False
    assert session.searcher.notes.tt_hits == 0 and not any(session.searcher.tt.data)
    execute(session, "stats")
    assert "tt_hits" in output.getvalue() and "tt_cutoffs" in output.getvalue()


# TableSlots: the table's size in slots, for experiments that need a crowded table.
def test_table_slots_set_the_size_whatever_order_the_options_come_in() -> None:
    session, output = searched_session("setoption name TableSlots value 512",
                                       "setoption name Hash value 2", "position startpos",
                                       "go depth 5")
    table = session.searcher.tt
    assert f"option name TableSlots type spin default 0 min 0 max {entry_count(1024)}" \
        in output.getvalue()
    assert table.size == len(table.keys) == len(table.data) == 512 and table.megabytes == 2
    # A depth-5 search stores far more results than 512 slots hold: the table is crowded.
    assert table.hashfull() > 500
    assert table.probe(Position.starting().key) is not None  # the root's result survives
    execute(session, "setoption name TableSlots value 0")
    assert table.size == entry_count(2)
    execute(session, "setoption name TableSlots value 100")
    execute(session, "setoption name Hash value 1")
    assert table.size == 100 and "error" not in output.getvalue()


# The size options arrive with the table (chapter 8), so their bad values are tested here.
BAD_SIZES = [("Hash", value, "option Hash needs megabytes from 1 to ")
             for value in ["0", "-1", "1025", "99999999999999999999999", "²", "", "x", "9" * 5000]]
BAD_SIZES += [("TableSlots", value, "option TableSlots needs a number")
              for value in ["-1", str(entry_count(1024) + 1), "x", "", "9" * 5000]]


@pytest.mark.parametrize(("option", "value", "complaint"), BAD_SIZES)
def test_a_bad_size_is_refused_and_changes_nothing(option: str, value: str,
                                                   complaint: str) -> None:
    output = io.StringIO()
    session = Session(output)
    size = session.searcher.tt.size
    execute(session, f"setoption name {option} value {value}")
    assert output.getvalue().startswith(f"info string error: {complaint}")
    # A clear complaint, not Python's own error about a number too long for int().
    assert output.getvalue().count("\n") == 1 and "4300" not in output.getvalue()
    assert session.searcher.tt.size == size
