# Generated from the book by tools/literate, from chapters stage-16-parallel.
# Do not edit: change the chapters and run `make tangle`.

"""Lazy SMP: helper processes search the position the main process is searching.

They share nothing with it but the transposition table, a block of shared memory
(tt.SharedTable); what one process stores, the others find, and they drift apart
onto different parts of the tree.  The main process alone decides the move and
reports the search; the helpers only fill the table, and stop when told.
"""

import contextlib
import dataclasses
import multiprocessing
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection

from cb2026.limits import Limits
from cb2026.move import Move
from cb2026.position import Position, Undo
from cb2026.search import Searcher, Techniques
from cb2026.tt import SharedTable

# "spawn": each helper is a fresh interpreter that imports the engine.  The faster
# "fork" would copy the engine's process as it is, threads and locks included,
# which POSIX allows only if the child does little more than start a program.
CONTEXT = multiprocessing.get_context("spawn")


@dataclass
class Job:
    """What a helper needs to search along with the main process."""

    table_name: str  # the shared table's block
    generation: int  # the table's generation before the search starts
    fen: str  # the root position,
    history: list[Undo]  # ... and the moves that led to it, for repetitions
    switches: dict[str, bool]  # the main search's techniques, by field name
    searchmoves: list[Move]
    mate: int | None
    first_depth: int  # the helper's iterations: from this depth,
    depth_step: int  # ... this many plies at a time


def helper_main(connection: Connection) -> None:
    """Run a helper process: say it is ready, then search each job the main process
    sends until `stop`, and answer with the nodes searched; end at `quit` (or when
    the main process is gone: its end of the pipe closes)."""
    searcher = Searcher()
    table: SharedTable | None = None
    thread: threading.Thread | None = None
    connection.send("ready")  # the engine is imported: searches start at once
    try:
        while True:
            command, job = connection.recv()
            if command == "search":
                if table is None or table.attached_to != job.table_name:
                    if table is not None:
                        table.close()
                    table = searcher.tt = SharedTable(name=job.table_name)
                thread = start_job(searcher, table, job)
            elif command == "stop" and thread is not None:
                # As chapter 7's command loop stops its search thread.
                searcher.stop()
                thread.join()
                thread = None
                connection.send(searcher.notes.nodes)
            elif command == "quit":
                break
    except EOFError:
        pass
    finally:
        if thread is not None:
            searcher.stop()
            thread.join()
        if table is not None:
            table.close()


def start_job(searcher: Searcher, table: SharedTable, job: Job) -> threading.Thread:
    """Start searching `job` in a thread of its own; return the thread."""
    searcher.techniques = Techniques(**job.switches)
    searcher.first_depth = job.first_depth
    searcher.depth_step = job.depth_step
    # start_search moves both processes' tables on to the same next generation.
    table.generation = job.generation
    position = Position.from_fen(job.fen)
    position.undo_stack = list(job.history)
    searcher.stop_event.clear()
    searcher.ponderhit_event.clear()
    # No time limit: the helper searches until it is told to stop, or has nothing
    # deeper to search.
    limits = Limits(searchmoves=job.searchmoves, mate=job.mate)
    thread = threading.Thread(target=searcher.think,
                              args=(position, limits, lambda iteration: None))
    thread.start()
    return thread


# How long `stop` waits for the helpers' answers: a healthy helper answers within
# milliseconds, and one that has not answered by then is given up for lost.
ANSWER_SECONDS = 5.0


class HelperPool:
    """The helper processes of a parallel search: started once, reused by every
    search until closed."""

    def __init__(self, count: int) -> None:
        """Start `count` helper processes; return once each is ready to search."""
        self.connections: list[Connection] = []
        self.processes: list[multiprocessing.process.BaseProcess] = []
        self.nodes = 0  # the helpers' nodes in the last search
        self.searching = False  # started, and not yet stopped
        for number in range(1, count + 1):
            ours, theirs = CONTEXT.Pipe()
            process = CONTEXT.Process(target=helper_main, args=(theirs,),
                                      name=f"cb2026 helper {number}", daemon=True)
            process.start()
            theirs.close()  # the helper's end now lives in the helper
            self.connections.append(ours)
            self.processes.append(process)
        # Wait until every helper has imported the engine: the first search would
        # otherwise start without them, and wait for them to stop.
        try:
            for connection in self.connections:
                connection.recv()
        except BaseException:  # a helper that failed to start: none is left running
            self.close()
            raise

    def close(self) -> None:
        """End the helper processes."""
        for connection, process in zip(self.connections, self.processes, strict=True):
            # A helper that is gone already has closed its end.
            with contextlib.suppress(OSError):
                connection.send(("quit", None))
            process.join(timeout=2)
            if process.is_alive():
                process.terminate()
            connection.close()
        self.connections, self.processes = [], []

    def start(self, searcher: Searcher, position: Position, limits: Limits) -> None:
        """Let every helper search `position` with `searcher`'s techniques and its
        shared table (call it just before the main search starts)."""
        table = searcher.tt
        assert isinstance(table, SharedTable) and table.block is not None
        switches = dataclasses.asdict(searcher.techniques)
        for number, connection in enumerate(self.connections, start=1):
            # Two plies at a time: helpers 1, 3 ... the even depths, 2, 4 ... the odd.
            job = Job(table.block.name, table.generation, position.fen(),
                      position.undo_stack.copy(), switches, limits.searchmoves,
                      limits.mate, first_depth=2 if number % 2 else 1, depth_step=2)
            connection.send(("search", job))
        self.searching = True

    def stop(self) -> int:
        """Stop every helper's search; return the nodes they searched.  A helper that
        is gone raises OSError or EOFError (its pipe is broken or closed), and one that
        does not answer in ANSWER_SECONDS TimeoutError."""
        if not self.searching:
            return 0
        self.searching = False
        for connection in self.connections:
            connection.send(("stop", None))
        # Each answers once its search has ended.
        if not all(connection.poll(ANSWER_SECONDS) for connection in self.connections):
            raise TimeoutError(f"a helper did not answer stop in {ANSWER_SECONDS:g} s")
        self.nodes = sum(connection.recv() for connection in self.connections)
        return self.nodes
