# Generated from the book by tools/literate, from chapters stage-08-tt, stage-08.1-tt-
# buckets, stage-16-parallel.
# Do not edit: change the chapters and run `make tangle`.

"""The transposition table: what the search learned about each position it visited.

The same position is often reached by different move orders, and iterative
deepening searches every position again one ply deeper.  For each Zobrist key
the table keeps the move that came out on top, the score with its bound, and
the depth searched.  A deep enough score spares the search of the position; a
shallower one still tells the search which move to look at before the others.

Python objects are big (an entry as a tuple of its fields takes several times
16 bytes), so the table is two flat arrays of 64-bit integers: one holds the
keys, the other each entry's fields packed into one number.  Then `Hash 16`
really means 16 MB.
"""

from __future__ import annotations

import os
import secrets
from array import array
from enum import IntEnum
from multiprocessing.shared_memory import SharedMemory
from typing import NamedTuple

from cb2026.move import Move
from cb2026.zobrist import Key


class Bound(IntEnum):
    """How a stored score relates to the position's true score."""

    UPPER = 1  # no move beat alpha: the true score is this or lower

    LOWER = 2  # a move reached beta: the true score is this or higher

    EXACT = 3  # inside the window: the true score itself


class Entry(NamedTuple):
    """One stored search result, unpacked."""

    key: Key

    best_move: Move | None  # None when every move fell short of alpha

    score: int  # a mate is measured from this node, not from the root (score_to_tt)

    depth: int

    bound: Bound

    generation: int  # which search stored it

    pv: bool  # a principal-variation node, now or on an earlier visit


DEFAULT_HASH_MB = 16

MAXIMUM_HASH_MB = 1024

BYTES_PER_ENTRY = 16  # 8 for the key, 8 for the packed fields

# Bit layout of the packed fields.  The move takes 17 bits (move.py), the score is
# stored with an offset so that it is never negative, and the bound is never 0,
# so a packed value of 0 marks an empty slot.
MOVE_BITS = 17

SCORE_SHIFT = 17

SCORE_OFFSET = 1 << 15  # scores lie within +-32000

DEPTH_SHIFT = 33

BOUND_SHIFT = 41

GENERATION_SHIFT = 43

PV_SHIFT = 51

NO_MOVE = 0  # a1 to a1: never a real move


def pack(best_move: Move | None, score: int, depth: int, bound: Bound, generation: int,
         pv: bool) -> int:
    """Return the fields of an entry packed into one 64-bit integer."""
    return ((NO_MOVE if best_move is None else best_move)
            | (score + SCORE_OFFSET) << SCORE_SHIFT
            | min(depth, 255) << DEPTH_SHIFT
            | bound << BOUND_SHIFT
            | generation << GENERATION_SHIFT
            | pv << PV_SHIFT)


def unpack(key: Key, packed: int) -> Entry:
    """Return the entry for `key` whose fields are packed in `packed`."""
    move = packed & ((1 << MOVE_BITS) - 1)
    return Entry(
        key,
        None if move == NO_MOVE else move,
        (packed >> SCORE_SHIFT & 0xFFFF) - SCORE_OFFSET,
        packed >> DEPTH_SHIFT & 0xFF,
        Bound(packed >> BOUND_SHIFT & 3),
        packed >> GENERATION_SHIFT & 0xFF,
        bool(packed >> PV_SHIFT & 1),
    )


def entry_count(megabytes: int) -> int:
    """Return how many entries fit in `megabytes` of memory."""
    return max(megabytes * 2**20 // BYTES_PER_ENTRY, 1)


class TranspositionTable:
    """A fixed-size table of search results, indexed by Zobrist key."""

    def __init__(self, megabytes: int = DEFAULT_HASH_MB) -> None:
        """Create an empty table using `megabytes` of memory."""
        self.generation = 0
        self.buckets = True  # off: one slot per key, as in chapter 8
        self.resize(megabytes)

    def resize(self, megabytes: int, slots: int = 0) -> None:
        """Make the table use `megabytes` of memory, or `slots` slots rounded up to
        whole buckets if that is not 0 (the option TableSlots, for experiments);
        this empties it."""
        self.megabytes = megabytes
        self.slots_asked = slots
        # Rounded up: 1 to 3 slots give 4
        whole_buckets = -(-slots // BUCKET_SIZE) * BUCKET_SIZE
        self.size = whole_buckets or entry_count(megabytes)
        self.clear()

    def clear(self) -> None:
        """Forget everything stored."""
        # Repeating a one-element array is done in C, at memset speed.  The table reads
        # the arrays through memoryviews, as the shared table reads its block of memory:
        # one type for both, indexed as fast as an array.
        self.keys = memoryview(array("Q", [0]) * self.size)
        self.data = memoryview(array("Q", [0]) * self.size)
        self.generation = 0

    def new_search(self) -> None:
        """Start a new search: entries stored from now on are newer than all before."""
        self.generation = (self.generation + 1) & 0xFF

    def slots_for(self, key: Key) -> range:
        """Return the slots where an entry for `key` may be stored."""
        # Chapter 8's range reduction, scaled to the number of slots, or with buckets to
        # the number of buckets (then times four: the first slot of the bucket).
        if not self.buckets:
            index = (key * self.size) >> 64
            return range(index, index + 1)
        first = ((key * (self.size // BUCKET_SIZE)) >> 64) * BUCKET_SIZE
        return range(first, first + BUCKET_SIZE)

    def probe(self, key: Key) -> Entry | None:
        """Return the entry stored for `key`, or None."""
        keys = self.keys
        for slot in self.slots_for(key):
            if keys[slot] == key and self.data[slot]:
                return unpack(key, self.data[slot])
        return None

    def slot_to_store(self, key: Key) -> int:
        """Return the slot for `key`: the one it already has, a free one,
        or the least valuable."""
        slots = self.slots_for(key)
        # Locals: the arrays are read once per slot in each loop below, and a local is
        # cheaper to reach than an attribute.
        keys = self.keys
        data = self.data
        for slot in slots:
            if keys[slot] == key and data[slot]:
                return slot
        for slot in slots:
            if not data[slot]:
                return slot
        generation = self.generation
        return min(slots, key=lambda slot: entry_worth(data[slot], generation))

    def store(self, key: Key, best_move: Move | None, score: int, depth: int,
              bound: Bound, pv: bool) -> None:
        """Store a search result for `key`, unless the slot holds
        something worth more."""
        slot = self.slot_to_store(key)
        packed = self.data[slot]
        same_key = self.keys[slot] == key and packed != 0
        if packed and not same_key:
            old = unpack(self.keys[slot], packed)
            # Refused: the deeper result already there took this search more
            # nodes to find.
            if old.generation == self.generation and depth < old.depth:
                return
        if best_move is None and same_key:
            # An upper bound comes without a move: carry over the one stored earlier.
            best_move = unpack(key, packed).best_move
        self.keys[slot] = key
        self.data[slot] = pack(best_move, score, depth, bound, self.generation, pv)

    def hashfull(self) -> int:
        """Return per mille of the first thousand slots filled by the current search."""
        sample = min(self.size, 1000)
        filled = sum(1 for slot in range(sample) if self.data[slot]
                     and self.data[slot] >> GENERATION_SHIFT & 0xFF == self.generation)
        return filled * 1000 // sample


# Buckets: each key gets four slots instead of one, so that a new result seldom has
# to push out a valuable old one.  A store prefers the position's own slot, then a
# free one; only when the bucket is full does entry_worth choose what to give up.
BUCKET_SIZE = 4

# How many plies of depth one search's worth of age cancels out.
AGE_WEIGHT = 8


def entry_worth(packed: int, generation: int) -> int:
    """Return how much keeping a stored entry is worth:
    deep and recent is worth most."""
    # Modulo 256, as the generation wraps; the PV bit above the generation counts 256
    # after the shift, which the same mask drops.
    age = (generation - (packed >> GENERATION_SHIFT)) & 0xFF
    return (packed >> DEPTH_SHIFT & 0xFF) - AGE_WEIGHT * age


def block_name() -> str:
    """Return a fresh name for a block of shared memory, with this process's id."""
    return f"cb2026_{os.getpid()}_{secrets.token_hex(4)}"


class SharedTable(TranspositionTable):
    """A transposition table in a block of shared memory that several processes
    search at once, without locks: each slot holds its key XOR its data."""

    def __init__(self, megabytes: int = DEFAULT_HASH_MB, name: str = "") -> None:
        """Create a table of `megabytes` in a new block, or, given a `name`, use the
        block another process made under that name."""
        self.block: SharedMemory | None = None
        self.attached_to = name  # "" for the process that made the block and owns it
        super().__init__(megabytes)

    def clear(self) -> None:
        """Forget everything stored: let go of the block and make (or attach) a new
        one, which the system hands out filled with zeros."""
        self.close()
        if self.attached_to:
            block = SharedMemory(self.attached_to)
        else:
            block = SharedMemory(block_name(), create=True,
                                 size=self.size * BYTES_PER_ENTRY)
        # Some systems hand out more than was asked (whole pages): every process
        # counts the slots of the block itself, so that all of them agree.
        self.size = block.size // BYTES_PER_ENTRY
        self.block = block
        assert block.buf is not None  # None only once the block is closed
        words = block.buf.cast("Q")
        self.keys = words[:self.size]  # the first half of the block,
        self.data = words[self.size:2 * self.size]  # and the second
        self.generation = 0

    def close(self) -> None:
        """Let go of the block; the process that made it also removes it."""
        if self.block is None:
            return
        # A block refuses to close while a view of its memory is still in use.
        self.keys.release()
        self.data.release()
        self.block.close()
        if not self.attached_to:
            self.block.unlink()
        self.block = None

    def probe(self, key: Key) -> Entry | None:
        """Return the entry stored for `key`, or None; a half-written entry is None."""
        keys = self.keys
        data = self.data
        for slot in self.slots_for(key):
            # The data is read once: another process may write it again at any moment,
            # and the fields returned must be those the key was checked against.
            packed = data[slot]
            if packed and keys[slot] ^ packed == key:
                return unpack(key, packed)
        return None

    def slot_to_store(self, key: Key) -> int:
        """Return the slot for `key`: the one it already has, a free one,
        or the least valuable."""
        slots = self.slots_for(key)
        keys = self.keys
        data = self.data
        for slot in slots:
            packed = data[slot]
            if packed and keys[slot] ^ packed == key:
                return slot
        for slot in slots:
            if not data[slot]:
                return slot
        generation = self.generation
        return min(slots, key=lambda slot: entry_worth(data[slot], generation))

    def store(self, key: Key, best_move: Move | None, score: int, depth: int,
              bound: Bound, pv: bool) -> None:
        """Store a search result for `key`, unless the slot holds
        something worth more."""
        slot = self.slot_to_store(key)
        packed = self.data[slot]
        same_key = packed != 0 and self.keys[slot] ^ packed == key
        # Refused, as in chapter 8.1: another position's deeper result of this search.
        if (packed and not same_key
                and packed >> GENERATION_SHIFT & 0xFF == self.generation
                and depth < packed >> DEPTH_SHIFT & 0xFF):
            return
        if best_move is None and same_key:
            best_move = unpack(key, packed).best_move
        packed = pack(best_move, score, depth, bound, self.generation, pv)
        # Two writes, between which another process may read: the key goes in XOR the
        # data it belongs with, so that it matches no other data.
        self.keys[slot] = key ^ packed
        self.data[slot] = packed
