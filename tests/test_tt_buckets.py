"""Buckets in the transposition table (chapter 8.1): where a key goes, what it pushes out."""

import dataclasses
import io
import random

import pytest

from cb2026.cli import Session, execute
from cb2026.position import Position
from cb2026.search import Searcher, Techniques
from cb2026.tt import (
    AGE_WEIGHT,
    BUCKET_SIZE,
    BYTES_PER_ENTRY,
    DEPTH_SHIFT,
    Bound,
    TranspositionTable,
    entry_count,
    pack,
)
from positions import POSITION_3, ROOK_ENDING, START

pytestmark = pytest.mark.stage("stage-08.1-tt-buckets")

_GENERATOR = random.Random(81)
RANDOM_KEYS = [_GENERATOR.getrandbits(64) for _ in range(2000)]
# With 1 MB (65,536 slots, 16,384 buckets) every key below 2**50 falls in the first bucket.
FIRST_BUCKET_KEYS = [5, 6, 7, 8, 9]


def small_table(entries: int, buckets: bool = True) -> TranspositionTable:
    """Return an empty table of `entries` slots (a size no Hash option gives, to fill it fast)."""
    table = TranspositionTable(1)
    table.size = entries
    table.clear()
    table.buckets = buckets
    return table


def put(table: TranspositionTable, slot: int, key: int, depth: int, generation: int) -> None:
    """Write an entry straight into `slot`, as if an earlier store had put it there."""
    table.keys[slot] = key
    table.data[slot] = pack(1, 0, depth, Bound.EXACT, generation, False)


@pytest.mark.parametrize("entries", [65_536, 1024, 1000])
def test_a_key_lands_in_its_bucket(entries: int) -> None:
    table = small_table(entries)
    buckets = entries // BUCKET_SIZE
    for key in RANDOM_KEYS[:200]:
        slots = table.slots_for(key)
        assert len(slots) == BUCKET_SIZE and slots.start % BUCKET_SIZE == 0
        assert slots.stop <= entries
        # Bucket b holds the keys k with b <= k * buckets / 2**64 < b + 1.
        bucket = slots.start // BUCKET_SIZE
        assert bucket * 2**64 <= key * buckets < (bucket + 1) * 2**64
        table.store(key, 1, 0, 1, Bound.EXACT, False)
        assert table.probe(key) is not None
        assert [slot for slot in slots if table.keys[slot] == key] != []


def test_the_single_slot_of_chapter_8_lies_in_the_bucket() -> None:
    # So a table filled with buckets off still finds its entries after switching them on.
    table = small_table(1024)
    for key in RANDOM_KEYS:
        table.buckets = False
        (slot,) = table.slots_for(key)
        assert slot * 2**64 <= key * 1024 < (slot + 1) * 2**64
        table.buckets = True
        assert slot in table.slots_for(key)


def test_keys_spread_over_all_buckets() -> None:
    table = small_table(256)
    used = {table.slots_for(key).start for key in RANDOM_KEYS}
    assert used == set(range(0, 256, BUCKET_SIZE))


def test_store_goes_to_the_own_slot_before_an_empty_one() -> None:
    table = small_table(1024)
    own = FIRST_BUCKET_KEYS[0]
    put(table, 0, FIRST_BUCKET_KEYS[1], 5, 0)
    put(table, 2, own, 1, 0)  # slots 1 and 3 stay empty
    assert table.slot_to_store(own) == 2
    table.store(own, 2, 0, 3, Bound.EXACT, False)
    assert [table.keys[slot] for slot in range(4) if table.data[slot]].count(own) == 1
    assert table.probe(own).depth == 3


def test_store_takes_an_empty_slot_before_pushing_anything_out() -> None:
    table = small_table(1024)
    put(table, 0, FIRST_BUCKET_KEYS[0], 1, 0)
    put(table, 2, FIRST_BUCKET_KEYS[1], 1, 0)
    assert table.slot_to_store(FIRST_BUCKET_KEYS[4]) == 1


@pytest.mark.parametrize(
    "entries,generation,expected",
    [
        # (depth, generation) of the four slots; the slot whose entry is worth least goes.
        ([(6, 3), (2, 3), (9, 3), (4, 3)], 3, 1),  # one search: the shallowest
        ([(9, 2), (2, 3), (5, 3), (3, 3)], 3, 0),  # one search old costs 8 plies: 9 - 8 < 2
        ([(12, 2), (2, 3), (5, 3), (3, 3)], 3, 1),  # ... but 12 - 8 > 2
        ([(4, 3), (18, 1), (5, 3), (3, 3)], 3, 1),  # two searches old: 18 - 16 < 3
        ([(10, 255), (1, 1), (2, 1), (9, 0)], 1, 0),  # stored at 255, now 1: two searches old
    ],
)
def test_store_pushes_out_the_entry_worth_least(
    entries: list[tuple[int, int]], generation: int, expected: int
) -> None:
    table = small_table(1024)
    for slot, (depth, stored_at) in enumerate(entries):
        put(table, slot, FIRST_BUCKET_KEYS[slot], depth, stored_at)
    table.generation = generation
    assert table.slot_to_store(FIRST_BUCKET_KEYS[4]) == expected


def test_bucket_replacement_through_store() -> None:
    table = TranspositionTable(1)
    keys = FIRST_BUCKET_KEYS
    assert len({table.slots_for(key).start for key in keys}) == 1
    for depth, key in zip((6, 2, 9, 4), keys, strict=False):
        table.store(key, 1, 0, depth, Bound.EXACT, False)
    assert all(table.probe(key) is not None for key in keys[:4])
    table.store(keys[4], 1, 0, 1, Bound.EXACT, False)  # too shallow to push out anything
    assert table.probe(keys[4]) is None
    table.store(keys[4], 1, 0, 3, Bound.EXACT, False)  # takes the depth-2 slot
    assert table.probe(keys[1]) is None and table.probe(keys[4]) is not None
    table.new_search()
    table.new_search()  # two searches of age cost 16 plies: now the oldest, shallowest go
    table.store(keys[1], 1, 0, 1, Bound.EXACT, False)
    assert table.probe(keys[4]) is None and table.probe(keys[1]) is not None
    assert AGE_WEIGHT * 2 > 9 - 1  # why the depth-9 entry of two searches ago is not kept


def test_a_key_is_never_stored_twice_in_its_bucket() -> None:
    generator = random.Random(8)
    table = small_table(64, buckets=False)
    keys = RANDOM_KEYS[:100]
    for step in range(3000):
        if step % 500 == 0:
            table.new_search()
        # A table filled with one slot per key, then with buckets: the own slot comes first.
        table.buckets = step >= 1000
        table.store(generator.choice(keys), 1, 0, generator.randint(1, 8), Bound.EXACT, False)
    for first in range(0, 64, BUCKET_SIZE):
        stored = [table.keys[slot] for slot in range(first, first + BUCKET_SIZE)
                  if table.data[slot]]
        assert len(stored) == len(set(stored))


def test_buckets_off_behave_like_the_single_slot_of_chapter_8() -> None:
    # A model of chapter 8's table: one slot per key; a new result replaces the slot's
    # entry unless that is another position's deeper result from the same search.
    generator = random.Random(1)
    table = small_table(256, buckets=False)
    model: dict[int, tuple[int, int, int]] = {}  # slot -> key, depth, generation
    keys = RANDOM_KEYS[:600]
    for step in range(4000):
        if step % 1000 == 0:
            table.new_search()
        key, depth = generator.choice(keys), generator.randint(1, 9)
        slot = key * 256 >> 64
        old = model.get(slot)
        if old is None or old[0] == key or old[2] != table.generation or depth >= old[1]:
            model[slot] = (key, depth, table.generation)
        table.store(key, 1, 0, depth, Bound.EXACT, False)
    assert sum(1 for packed in table.data if packed) == len(model)
    for slot, (key, depth, _) in model.items():
        assert table.keys[slot] == key and table.data[slot] >> DEPTH_SHIFT & 0xFF == depth


SAME_RESULT = [START, POSITION_3, ROOK_ENDING]


@pytest.mark.parametrize("fen", SAME_RESULT)
def test_buckets_keep_move_and_score_at_fixed_depth(fen: str) -> None:
    # A table of 1,024 slots is full at depth 4, so the two replacement schemes keep
    # different entries (the node counts differ); the result must not change.
    results = []
    for buckets in (True, False):
        searcher = Searcher(dataclasses.replace(Techniques(), buckets=buckets))
        searcher.tt.size = 1024
        searcher.tt.clear()
        score, best_move, _ = searcher.search(Position.from_fen(fen), 4)
        assert searcher.tt.buckets == buckets
        results.append((score, best_move))
    assert results[0] == results[1]


def test_hash_memory_is_whole_buckets() -> None:
    for megabytes in range(1, 1025):
        assert entry_count(megabytes) * BYTES_PER_ENTRY == megabytes * 2**20
        assert entry_count(megabytes) % BUCKET_SIZE == 0  # no slot is left out of a bucket
    session = Session(io.StringIO())
    execute(session, "setoption name Hash value 2")
    table = session.searcher.tt
    memory = len(table.keys) * table.keys.itemsize + len(table.data) * table.data.itemsize
    assert memory == 2 * 2**20
    assert table.slots_for((1 << 64) - 1).stop == table.size  # the last bucket is in range


def test_buckets_option_switches_the_table() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    assert "option name Buckets type check default true" in output.getvalue().splitlines()
    execute(session, "setoption name Buckets value false")
    execute(session, "go depth 2")
    session.wait_for_search()
    assert session.searcher.tt.buckets is False
    execute(session, "setoption name Buckets value true")
    execute(session, "go depth 2")
    session.wait_for_search()
    assert session.searcher.tt.buckets is True


@pytest.mark.parametrize(("asked", "size"), [(1, 4), (2, 4), (3, 4), (4, 4), (5, 8), (513, 516)])
def test_table_slots_are_rounded_up_to_whole_buckets(asked: int, size: int) -> None:
    output = io.StringIO()
    session = Session(output)
    for command in (f"setoption name TableSlots value {asked}", "position startpos",
                    "go depth 3"):
        execute(session, command)
    session.wait_for_search()
    table = session.searcher.tt
    assert table.size == len(table.keys) == len(table.data) == size
    assert table.slots_asked == asked
    # The search ran to its end in the tiny table: no error, and a move.
    assert "error" not in output.getvalue()
    assert output.getvalue().splitlines()[-1].startswith("bestmove ")
    assert all(slots.stop <= size for slots in map(table.slots_for, RANDOM_KEYS))
