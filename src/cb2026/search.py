# Generated from the book by tools/literate, from chapters stage-05-alphabeta,
# stage-06-quiescence, stage-07-uci, stage-08-tt, stage-08.1-tt-buckets, stage-09-pvs,
# stage-10-null-move, stage-11-killers-history, stage-12-lmr, stage-13-evaluation,
# stage-13.1-tuning, stage-14-extensions, stage-14.1-singular, stage-15-pruning,
# stage-16-parallel, stage-17-speed.
# Do not edit: change the chapters and run `make tangle`.

"""Looking ahead: negamax search with alpha-beta pruning.

The search plays every line of moves to a fixed depth, scores the positions at
the end with the evaluation, and backs the scores up: each side picks the move
best for itself.  In negamax form a score is always from the side to move's point
of view, so "best for me" is the maximum of the negated scores of my moves.

Alpha-beta gets the same answer while skipping lines that cannot matter: once a
move is found that is too good for the opponent to allow (score >= beta), the
remaining moves of that position need not be looked at.  The search here is
fail-soft: it returns the best score it saw even when that lies outside the
window (alpha, beta), which then is a bound on the true score.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from cb2026 import evaluation as evaluation_module
from cb2026.board import (
    BISHOP,
    BLACK,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
    WHITE_BIT,
    Colour,
    Piece,
)
from cb2026.evaluate import evaluate
from cb2026.evaluation import (
    HAND_WEIGHTS,
    TUNED_WEIGHTS,
    evaluate_position,
    use_weights,
)
from cb2026.limits import NO_LIMIT, Limits, allocate_time
from cb2026.move import EN_PASSANT, Move
from cb2026.picker import (
    KILLERS,
    MAX_PLY,
    NO_MOVE,
    QUIETS,
    MovePicker,
    add_killer,
    history_bonus,
    is_losing_capture,
    is_noisy,
    mvv_lva_score,
    new_history,
    new_killers,
    update_history,
)
from cb2026.position import NULL_MOVE, Position
from cb2026.rules import is_fifty_move_draw, is_in_check, legal_moves
from cb2026.tt import DEFAULT_HASH_MB, Bound, TranspositionTable

# Mate scores count plies from the root: being mated at ply p scores -(MATE - p),
# so a quicker mate scores higher for the winner and a later one for the loser.
MATE = 30_000

# Scores beyond this size can only come from a mate found by the search.
MATE_THRESHOLD = MATE - 1_000

INFINITY = 32_000

DRAW = 0


def is_mate_score(score: int) -> bool:
    """Return True if `score` says that one side mates the other."""
    return abs(score) > MATE_THRESHOLD


def is_draw_by_rule(position: Position) -> bool:
    """Return True if the position is drawn by repetition or by the fifty-move rule."""
    # One repetition is enough: if going back was good once, the same side can
    # repeat it again, so the line is a draw either way.  Positions from the game
    # before the search count too, more simply than in Stockfish, which asks for
    # two earlier occurrences there (chapter 5 says when that is wrong).
    return position.is_repetition(2) or is_fifty_move_draw(position)


def minimax(position: Position, depth: int, ply: int = 0) -> int:
    """Return the plain minimax score of `position` (negamax form):
    the reference for tests."""
    # The same rules as Searcher.negamax, but every move is searched and
    # nothing is pruned.
    if ply and is_draw_by_rule(position):
        return DRAW
    if depth <= 0:
        return evaluate_position(position)  # the new evaluation, every term on
    moves = legal_moves(position)
    if not moves:
        return -MATE + ply if is_in_check(position) else DRAW
    best = -INFINITY
    for move in moves:
        position.make_move(move)
        best = max(best, -minimax(position, depth - 1, ply + 1))
        position.unmake_move()
    return best


@dataclass
class Techniques:
    """The search's switchable techniques: turn one off to measure what it is worth."""

    alphabeta: bool = True  # off: plain minimax, every move of every position searched

    ordering: bool = True  # captures first, most valuable victim first (MVV-LVA)

    # Off: positions at the end of the depth are scored as they stand
    quiescence: bool = True

    pst: bool = True  # off: the evaluation counts material only

    tt: bool = True  # off: no transposition table, every position searched afresh

    buckets: bool = True  # off: one table slot per key instead of a bucket of four

    pvs: bool = True  # off: every move searched with the whole window (alpha, beta)

    aspiration: bool = True  # off: every iteration searched with the whole window

    null_move: bool = True  # off: every move searched, no pass tried first

    killers: bool = True  # off: no killer moves tried before the other quiet moves

    history: bool = True  # off: the other quiet moves in the order they were generated

    see: bool = True  # off: every capture in MVV-LVA order, the losing ones included

    lmr: bool = True  # off: every move after the first searched to the full depth

    # Off: chapters 5 and 6's evaluation, material and tables only
    evaluation: bool = True

    pawn_structure: bool = True  # off: no passed, isolated, doubled, backward pawns

    mobility: bool = True  # off: the pieces' safe squares not counted

    king_safety: bool = True  # off: no pawn shield, no count of attackers near the king

    # Off: chapter 13's hand-chosen weights instead of the tuned ones
    tuned: bool = True

    # Off: a move that gives check is searched no deeper than any other
    check_extensions: bool = True

    # On: the only legal move of a position searched a ply deeper (off until measured)
    single_reply_extensions: bool = False

    # Off: no singular searches, no singular extensions, no multi-cuts
    singular_extensions: bool = True

    # Off: the quiescence search tries every capture, the losing ones too
    quiescence_see: bool = True

    # Off: the quiescence search tries captures that cannot bring the score up to alpha
    delta_pruning: bool = True

    # Off: no node returns a score from its static evaluation instead of a search
    reverse_futility: bool = True

    # Off: quiet moves searched however far below alpha their node stands
    futility: bool = True

    late_move_pruning: bool = True  # off: every quiet move searched, however late

    # On: late move pruning searches fewer moves where the evaluation fell (off until
    # measured)
    improving: bool = False


@dataclass
class Notes:
    """What one search did, counted as it went."""

    nodes: int = 0  # positions visited, the root and the quiescence search included

    cutoffs: int = 0  # positions left early because a move scored at least beta

    first_move_cutoffs: int = 0  # ... of them, those where the first move did it

    seldepth: int = 0  # the deepest ply reached

    qnodes: int = 0  # ... of them, those visited by the quiescence search

    tt_hits: int = 0  # positions found in the transposition table

    tt_cutoffs: int = 0  # ... whose stored score settled the position at once

    # Moves that beat alpha in a null window and were searched again
    pvs_researches: int = 0

    # Iterations whose score reached the top of their window
    aspiration_fail_highs: int = 0

    aspiration_fail_lows: int = 0  # ... and those whose score fell to its bottom

    null_move_tries: int = 0  # positions where the side to move passed

    null_move_cutoffs: int = 0  # ... where passing still reached beta: a cutoff

    killer_cutoffs: int = 0  # cutoffs by one of the ply's killer moves

    history_cutoffs: int = 0  # ... by one of the other quiet moves (history order)

    bad_captures: int = 0  # captures the picker put last because SEE says they lose

    reductions: int = 0  # late quiet moves searched less deep than the others (LMR)

    lmr_researches: int = 0  # ... that beat alpha anyway, searched again at full depth

    extensions: int = 0  # moves searched a ply deeper because they give check

    # Checks not extended: the line was already twice as long as the root's depth
    extensions_refused: int = 0

    single_reply_extensions: int = 0  # only moves searched a ply deeper

    singular_searches: int = 0  # searches of a node without its TT move

    singular_extensions: int = 0  # ... after which the TT move was searched deeper

    multi_cuts: int = 0  # ... after which the node returned at once (multi-cut)

    see_prunes: int = 0  # captures the quiescence search skipped: SEE says they lose

    # ... skipped: the piece taken and DELTA_MARGIN leave the score below alpha
    delta_prunes: int = 0

    # Nodes that returned their evaluation less a margin instead of searching
    reverse_futility_prunes: int = 0

    futility_prunes: int = 0  # quiet moves skipped: their node stands far below alpha

    late_move_prunes: int = 0  # quiet moves skipped for coming late in their node


# The search asks whether it should stop once every 256 nodes: often enough to
# react within milliseconds, rarely enough to cost nothing measurable.
NODES_BETWEEN_CHECKS = 256


class Searcher:
    """Searches positions with the techniques switched on,
    counting what it does in `notes`."""

    def __init__(self, techniques: Techniques | None = None) -> None:
        """Create a searcher; by default every technique is on."""
        self.techniques = techniques or Techniques()
        self.notes = Notes()
        # The node count at which to check_limits
        self.next_check = NODES_BETWEEN_CHECKS
        # Set by another thread (the `stop` command) to end the search at once.
        self.stop_event = threading.Event()
        self.node_limit = NO_LIMIT
        self.start_time = 0.0
        self.hard_deadline = NO_LIMIT  # time.monotonic() at which the search is aborted
        self.completed_depth = 0
        self.elapsed = 0.0  # seconds the last think() took
        self.root_score = -INFINITY  # the score of the root's best fully searched move
        self.previous_best_move: Move | None = None  # the root searches it first
        # Set by `ponderhit` (or `stop`): a pondering search may start its
        # clock, and answer.
        self.ponderhit_event = threading.Event()
        # When the time limits began to count (NO_LIMIT: pondering)
        self.clock_start = 0.0
        self.hard_time = NO_LIMIT  # seconds from clock_start to the hard deadline
        # `go searchmoves`: the root searches only these
        self.searchmoves: list[Move] = []
        # The table outlives a search: the next move's search starts from what
        # this one found.
        self.tt = TranspositionTable(DEFAULT_HASH_MB)
        # What the search learns about moves (chapter 11); start_search empties them.
        self.killers = new_killers()
        self.history = new_history()
        # The static evaluation of the node being searched at each ply (None: none made)
        self.static_evaluations: list[int | None] = [None] * MAX_PLY
        # The evaluation cache: by slot, a position's key (-1: none) and its evaluation.
        self.evaluation_keys: list[int] = [-1] * EVALUATION_CACHE_SIZE
        self.evaluation_scores: list[int] = [0] * EVALUATION_CACHE_SIZE

    def start_search(self) -> None:
        """Get ready for a new search: fresh notes, killers and history, a new
        generation in the table, the evaluation's weights the switch asks for, and an
        empty evaluation cache."""
        self.notes = Notes()
        self.next_check = NODES_BETWEEN_CHECKS
        self.tt.new_search()
        self.tt.buckets = self.techniques.buckets
        # Killers and history describe this search's tree: a new root starts afresh.
        self.killers = new_killers()
        self.history = new_history()
        use_weights(TUNED_WEIGHTS if self.techniques.tuned else HAND_WEIGHTS)
        # Scores from another search may come from other switches or weights.
        self.evaluation_keys = [-1] * EVALUATION_CACHE_SIZE
        self.evaluation_scores = [0] * EVALUATION_CACHE_SIZE

    def search(
        self, position: Position, depth: int
    ) -> tuple[int, Move | None, list[Move]]:
        """Search `position` to `depth` plies; return the score,
        the best move and the PV."""
        self.start_search()
        pv: list[Move] = []
        score = self.negamax(position, depth, -INFINITY, INFINITY, 0, pv)
        return score, (pv[0] if pv else None), pv

    def check_limits(self) -> None:
        """Raise SearchStoppedError if the search was told to stop or has
        reached a limit."""
        now = time.monotonic()
        self.notice_ponderhit()
        if (self.stop_event.is_set() or self.notes.nodes >= self.node_limit
                or now >= self.hard_deadline):
            raise SearchStoppedError
        # Check again after NODES_BETWEEN_CHECKS nodes (negamax sets that); sooner near
        # the deadline, and exactly at the node limit.
        if self.hard_deadline - now < DEADLINE_NEAR:
            self.next_check = min(self.next_check,
                                  self.notes.nodes + NODES_BETWEEN_CHECKS_NEAR_DEADLINE)
        # (node_limit is a float: infinity without one)
        if self.node_limit < self.next_check:
            self.next_check = int(self.node_limit)

    def negamax(
        self, position: Position, depth: int, alpha: int, beta: int, ply: int,
        pv: list[Move],
    ) -> int:
        """Return the score of `position` searched `depth` plies deep;
        put its best line in `pv`."""
        if depth <= 0:
            return self.leaf_score(position, alpha, beta, ply)
        notes = self.notes
        notes.nodes += 1
        if notes.nodes >= self.next_check:
            self.next_check = notes.nodes + NODES_BETWEEN_CHECKS
            self.check_limits()
        # A draw by rule ends the line.  Not at the root, which must find a move.
        if ply and is_draw_by_rule(position):
            return DRAW
        moves = legal_moves(position)
        if not moves:
            return -MATE + ply if is_in_check(position) else DRAW
        excluding = ply == self.excluded_ply
        if excluding:
            moves.remove(self.excluded_move)  # a singular search: the others only
        # TT: probe_table returns a score only if the stored bound answers this
        # window (a TT cutoff); tt_move and tt_pv are for the ordering and the store.
        cutoff, tt_move, tt_pv = self.probe_table(
            position, depth, alpha, beta, ply, moves, pv
        )
        if cutoff is not None:
            return cutoff
        # Forward pruning starts from the static evaluation, kept by ply for the moves.
        evaluation = self.node_evaluation(position, ply)
        score = self.reverse_futility_score(depth, alpha, beta, ply, evaluation)
        if score is not None:
            return score  # far enough above beta to be taken as a cutoff
        # Null move: if even a pass keeps the score at beta, so would a real move.
        if self.may_pass(position, depth, alpha, beta, ply):
            score = self.null_move_score(position, depth, beta, ply)
            if score >= beta:
                return score
        singular = False
        if depth >= SINGULAR_DEPTH and tt_move is not None and not excluding:
            # Is the table's move far better than the others?  (Never inside a search
            # that asks that of this node already.)
            singular, multi_cut = self.singular_search(position, depth, beta, ply,
                                                       moves, tt_move)
            if multi_cut is not None:
                return multi_cut
        # The picker orders the moves, stage by stage, as the search asks for them.
        picker = self.move_picker(position, moves, tt_move, ply)
        picker.singular = singular
        # LMR: tt_pv, a PV node now or when the table stored it, reduces less.
        best, best_move = self.search_moves(
            position, depth, alpha, beta, ply, picker, pv, tt_pv
        )
        # TT: a stopped search never gets here (SearchStoppedError skips the store).
        self.store_result(position, depth, alpha, beta, ply, best, best_move, tt_pv)
        return best

    def leaf_score(self, position: Position, alpha: int, beta: int, ply: int) -> int:
        """Return the score of a position at the end of the search's depth."""
        if self.techniques.quiescence:
            return self.quiescence(position, alpha, beta, ply)
        notes = self.notes
        notes.nodes += 1
        if ply > notes.seldepth:
            notes.seldepth = ply
        if ply and is_draw_by_rule(position):
            return DRAW
        return self.static_evaluation(position)

    def order_moves(self, position: Position, moves: list[Move]) -> list[Move]:
        """Return `moves` with captures and promotions first, in MVV-LVA order,
        then the rest."""
        board = position.board
        noisy = []
        quiet = []
        for move in moves:
            if board[move >> 6 & 63] or move >> 12 & 7 or move >> 15 == EN_PASSANT:
                noisy.append(move)
            else:
                quiet.append(move)
        noisy.sort(key=lambda move: mvv_lva_score(board, move), reverse=True)
        return noisy + quiet

    def quiescence(self, position: Position, alpha: int, beta: int, ply: int) -> int:
        """Return the score of `position` once the captures and promotions
        have played out."""
        notes = self.notes
        notes.nodes += 1
        notes.qnodes += 1
        if notes.nodes >= self.next_check:
            self.next_check = notes.nodes + NODES_BETWEEN_CHECKS
            self.check_limits()
        if ply > notes.seldepth:
            notes.seldepth = ply
        if ply and is_draw_by_rule(position):
            return DRAW
        # Stand pat: the side to move need not capture, so the static score is a lower
        # bound, and if it already reaches beta nothing more is needed.  Even in check,
        # as a simplification: searching every evasion here grew chapter 6's test
        # searches, and the main search finds the mates within its depth.
        best = stand_pat = self.static_evaluation(position)
        if best >= beta:
            return best
        alpha = max(alpha, best)
        moves = legal_moves(position)
        if not moves:
            return -MATE + ply if is_in_check(position) else DRAW
        skipping = self.may_skip_captures(position)
        searched = 0
        for move in self.noisy_moves(position, moves):
            if skipping and self.skips_capture(position, move, stand_pat, alpha):
                continue
            position.make_move(move)
            score = -self.quiescence(position, -beta, -alpha, ply + 1)
            position.unmake_move()
            if score > best:
                best = score
                alpha = max(alpha, score)
                if score >= beta:
                    notes.cutoffs += 1
                    if searched == 0:
                        notes.first_move_cutoffs += 1
                    break
            searched += 1
        return best

    def noisy_moves(self, position: Position, moves: list[Move]) -> list[Move]:
        """Return the captures and promotions among `moves`, in MVV-LVA order."""
        board = position.board
        noisy = [move for move in moves
                 if board[move >> 6 & 63] or move >> 12 & 7 or move >> 15 == EN_PASSANT]
        noisy.sort(key=lambda move: mvv_lva_score(board, move), reverse=True)
        return noisy

    def iterate(
        self,
        position: Position,
        depth: int,
        alpha: int = -INFINITY,
        beta: int = INFINITY,
    ) -> Iteration | None:
        """Search `depth` plies deep in (alpha, beta);
        None if stopped before a move beat alpha."""
        root_moves_made = len(position.undo_stack)
        pv: list[Move] = []
        complete = True
        try:
            score = self.negamax(position, depth, alpha, beta, 0, pv)
        except SearchStoppedError:
            # Take back the moves and passes on the board when the search stopped.
            while len(position.undo_stack) > root_moves_made:
                if position.undo_stack[-1][0] == NULL_MOVE:
                    position.unmake_null_move()
                else:
                    position.unmake_move()
            if not pv:
                return None  # no root move finished with a score above alpha
            score, complete = self.root_score, False
        elapsed = time.monotonic() - self.start_time
        return Iteration(
            depth, score, pv, self.notes.nodes, self.notes.seldepth, elapsed, complete
        )

    def think(
        self, position: Position, limits: Limits, report: Callable[[Iteration], None]
    ) -> tuple[Move | None, Iteration | None]:
        """Search deeper and deeper until a limit stops it;
        return the best move and last result."""
        soft = self.prepare_to_think(position, limits)
        last: Iteration | None = None
        for depth in range(self.first_depth, depth_limit(limits) + 1, self.depth_step):
            iteration = self.search_with_aspiration(position, depth, last, report)
            if iteration is None:
                # Stopped before one root move was done: the last iteration stands
                break
            last = iteration
            report(iteration)
            if not iteration.complete or not iteration.pv:
                break  # stopped, or no legal move at the root
            self.note_complete_iteration(iteration, limits)
            if self.has_enough(
                iteration, limits, self.clock_start - self.start_time + soft
            ):
                break
        # `go infinite` answers only after `stop`,
        # `go ponder` only after `ponderhit` or `stop`.
        if limits.infinite:
            self.stop_event.wait()
        elif limits.ponder:
            self.ponderhit_event.wait()
        self.elapsed = time.monotonic() - self.start_time
        if last is not None and last.pv:
            return last.pv[0], last
        return self.unsearched_move(position), last

    def unsearched_move(self, position: Position) -> Move | None:
        """Return the move to play when none was searched:
        the first in the search's order."""
        moves = self.allowed_root_moves(legal_moves(position))
        return self.order_moves(position, moves)[0] if moves else None

    def prepare_to_think(self, position: Position, limits: Limits) -> float:
        """Set up the state of a new search within `limits`;
        return its soft time limit."""
        self.start_search()
        self.start_time = time.monotonic()
        soft, self.hard_time = allocate_time(limits, position.side_to_move)
        # A pondering search has no clock until `ponderhit`
        # starts it (notice_ponderhit).
        self.clock_start = self.hard_deadline = NO_LIMIT
        if not limits.ponder:
            self.start_clock(self.start_time)
        self.searchmoves = limits.searchmoves
        # The root checks first: a `stop` or a spent clock count at once
        self.next_check = 1
        self.node_limit = NO_LIMIT  # depth 1 always completes, whatever `go nodes` says
        self.completed_depth = 0
        self.previous_best_move = None
        # `go mate N` searches 2N plies for a mate: a reduced move would find it later.
        self.proving_mate = limits.mate is not None
        return soft

    def note_complete_iteration(self, iteration: Iteration, limits: Limits) -> None:
        """Remember a complete iteration; from now on `go nodes` counts."""
        self.completed_depth = iteration.depth
        # The next iteration searches it first
        self.previous_best_move = iteration.pv[0]
        if limits.nodes is not None:
            # (a float, like the NO_LIMIT it replaces)
            self.node_limit = float(limits.nodes)
            self.next_check = min(self.next_check, limits.nodes)  # stop exactly at N
        self.notice_ponderhit()

    def previous_best_first(self, moves: list[Move]) -> list[Move]:
        """Return the root's moves with the previous iteration's best move moved
        to the front."""
        previous = self.previous_best_move
        if previous in moves:  # None (at depth 1) is in no list of moves
            moves.remove(previous)
            moves.insert(0, previous)
        return moves

    def allowed_root_moves(self, moves: list[Move]) -> list[Move]:
        """Return the root's moves that `go searchmoves` allows (all of them if
        it named none)."""
        allowed = [move for move in moves if move in self.searchmoves]
        return allowed or moves

    def has_enough(self, iteration: Iteration, limits: Limits, soft: float) -> bool:
        """Return True if the search should start no further
        iteration after `iteration`."""
        if limits.mate is not None and is_mate_score(iteration.score):
            return 0 < mate_in_moves(iteration.score) <= limits.mate
        if is_mate_score(iteration.score) and not limits.infinite:
            # A mate for either side found at this depth will not get better deeper.
            return abs(mate_in_moves(iteration.score)) * 2 <= iteration.depth
        return iteration.elapsed >= soft

    # When `ponderhit` (or `stop`) was read; set before ponderhit_event,
    # read only after it.
    ponderhit_time: float = NO_LIMIT

    def stop(self) -> None:
        """End the search from another thread (the `stop` command):
        it answers at once."""
        self.stop_event.set()
        # A finished pondering search waits for this too
        self.ponderhit(time.monotonic())

    def ponderhit(self, now: float) -> None:
        """Tell the search from another thread that the predicted move was
        played at `now`."""
        self.ponderhit_time = now
        self.ponderhit_event.set()

    def start_clock(self, now: float) -> None:
        """Let the time limits count from `now`: the start of the search,
        or a `ponderhit`."""
        self.clock_start = now
        self.hard_deadline = now + self.hard_time

    def notice_ponderhit(self) -> None:
        """Start the clock of a pondering search from the moment `ponderhit` came,
        if it has."""
        if self.clock_start == NO_LIMIT and self.ponderhit_event.is_set():
            self.start_clock(self.ponderhit_time)

    def probe_table(
        self, position: Position, depth: int, alpha: int, beta: int, ply: int,
        moves: list[Move], pv: list[Move],
    ) -> tuple[int | None, Move | None, bool]:
        """Look `position` up in the table.  Return the stored score if it settles
        the window (its move then in `pv`), else None; the stored move if it is
        legal here; and whether the node is a PV node."""
        # A window wider than a null window marks a PV node.  Plain alpha-beta gives
        # nearly every node a wide one; the null windows of later chapters do not.
        tt_pv = beta - alpha > 1
        # A singular search asks about the position without one of its moves: the
        # entry, about the whole position, answers another question.
        if not self.techniques.tt or ply == self.excluded_ply:
            return None, None, tt_pv
        entry = self.tt.probe(position.key)
        if entry is None:
            return None, None, tt_pv
        self.notes.tt_hits += 1
        tt_pv = tt_pv or entry.pv
        tt_move = None
        # Another position with the same key could have stored an illegal move.
        if entry.best_move in moves:
            tt_move = entry.best_move
        # Below the root only: the root must return a move and a line.
        if ply and entry.depth >= depth:
            score = score_from_tt(entry.score, ply)
            if (entry.bound == Bound.EXACT
                    or (entry.bound == Bound.LOWER and score >= beta)
                    or (entry.bound == Bound.UPPER and score <= alpha)):
                self.notes.tt_cutoffs += 1
                pv[:] = [] if tt_move is None else [tt_move]
                return score, tt_move, tt_pv
        return None, tt_move, tt_pv

    def search_moves(
        self, position: Position, depth: int, alpha: int, beta: int, ply: int,
        picker: MovePicker, pv: list[Move], tt_pv: bool,
    ) -> tuple[int, Move | None]:
        """Search the picker's moves in its order; return the best score and its move
        (the line in `pv` if the score beat alpha)."""
        notes = self.notes
        best = -INFINITY
        best_move = None
        child_pv: list[Move] = []
        board = position.board
        quiets_tried: list[Move] = []  # quiet moves searched without a cutoff
        # PVS: null windows pay only where alpha-beta prunes (with it off,
        # this is minimax).
        null_windows = self.techniques.pvs and self.techniques.alphabeta
        # LMR: not at the root, not near the leaves, not in check, not for `go mate`.
        may_reduce = (null_windows and self.techniques.lmr and not self.proving_mate
                      and ply > 0 and depth >= LMR_DEPTH and not is_in_check(position))
        if not ply:
            self.root_depth = depth  # the extensions' guard counts from it
        # An only move of the position (not the last one left by a singular search).
        single_reply = len(picker.moves) == 1 and ply != self.excluded_ply
        singular_move = picker.tt_move if picker.singular else None
        pv_node = beta - alpha > 1
        # Forward pruning: shallow non-PV nodes below the root with an evaluation (none
        # in check or for `go mate`), and no mate score at stake.
        may_prune = (ply > 0 and not pv_node and depth <= PRUNING_DEPTH
                     and self.static_evaluations[ply] is not None
                     and not is_mate_score(beta))
        side = position.side_to_move << 12  # the history table's index of this side
        for index, move in enumerate(picker):
            quiet = not is_noisy(board, move)
            position.make_move(move)
            child_pv.clear()
            gives_check = is_in_check(position)
            if (may_prune and quiet and not gives_check and best > -MATE_THRESHOLD
                    and self.prunes_quiet_move(depth, index + 1, alpha, ply)):
                position.unmake_move()  # never the first move, nor a check
                continue
            # Extensions: a check (or an only move) is searched a ply deeper.
            extension = (self.extension(gives_check, single_reply, ply)
                         if gives_check or single_reply else 0)
            if move == singular_move:
                extension = 1  # singular: a ply deeper, and no more if it also checks
            reduction = 0
            if may_reduce and quiet and index >= LMR_FULL_MOVES and not extension:
                # LMR: a late quiet move, likely to fail low.  Never an extended one.
                reduction = late_move_reduction(
                    depth, index + 1, pv_node, tt_pv, gives_check,
                    picker.stage == KILLERS, self.history[side | move & 4095],
                )
            score = self.move_score(position, depth + extension, reduction, alpha, beta,
                                    ply, child_pv, index == 0 or not null_windows)
            position.unmake_move()
            if score > best:
                best = score
                best_move = move  # TT: kept even when it did not raise alpha
                if score > alpha:
                    alpha = score
                    pv[:] = [move, *child_pv]
                    if not ply:
                        self.root_score = score  # a stopped iteration may play it
                if score >= beta and self.techniques.alphabeta:
                    # The opponent will not allow this position:
                    # its other moves cannot matter.
                    notes.cutoffs += 1
                    if index == 0:
                        notes.first_move_cutoffs += 1
                    self.learn_from_cutoff(position, picker, move, quiet, quiets_tried,
                                           depth, ply)
                    break
            if quiet:
                quiets_tried.append(move)
        notes.bad_captures += picker.bad_captures
        return best, best_move

    def store_result(
        self, position: Position, depth: int, alpha: int, beta: int, ply: int,
        best: int, best_move: Move | None, tt_pv: bool,
    ) -> None:
        """Store the score `best` of a node searched with the window (alpha, beta),
        as the bound that window makes it."""
        # A singular search's score is the position's without one move: not the
        # position's own, which the entry holds.
        if not self.techniques.tt or ply == self.excluded_ply:
            return
        if best >= beta:
            bound = Bound.LOWER
        elif best > alpha:
            bound = Bound.EXACT
        else:
            # All moves stayed at or below alpha: none to recommend
            bound = Bound.UPPER
            best_move = None
        self.tt.store(
            position.key, best_move, score_to_tt(best, ply), depth, bound, tt_pv
        )

    def search_with_aspiration(
        self, position: Position, depth: int, previous: Iteration | None,
        report: Callable[[Iteration], None],
    ) -> Iteration | None:
        """Search to `depth` in a window around the last score,
        widened until the score fits."""
        if (
            previous is None
            or not self.techniques.aspiration
            or depth < ASPIRATION_DEPTH
            or is_mate_score(previous.score)
        ):
            return self.iterate(position, depth)  # the whole window
        delta = ASPIRATION_DELTA
        alpha, beta = previous.score - delta, previous.score + delta
        failed = False
        while True:
            iteration = self.iterate(position, depth, alpha, beta)
            if iteration is None and failed:
                # Stopped before a move of the re-search scored inside its window, while
                # the last thing the GUI heard is a bound: it is told again what will be
                # played, the last result.
                return Iteration(previous.depth, previous.score, previous.pv,
                                 self.notes.nodes, self.notes.seldepth,
                                 time.monotonic() - self.start_time, complete=False)
            if (
                iteration is None
                or not iteration.complete
                or alpha < iteration.score < beta
            ):
                return iteration  # stopped, or the score lies inside the window: exact
            failed = True
            delta *= 2
            if iteration.score <= alpha:
                self.notes.aspiration_fail_lows += 1
                iteration.bound = Bound.UPPER
                alpha = iteration.score - delta
            else:
                self.notes.aspiration_fail_highs += 1
                iteration.bound = Bound.LOWER
                # The re-search tries it first
                self.previous_best_move = iteration.pv[0]
                beta = iteration.score + delta
            report(iteration)
            if delta > ASPIRATION_LIMIT or is_mate_score(iteration.score):
                alpha, beta = -INFINITY, INFINITY  # the whole window cannot fail

    def may_pass(
        self, position: Position, depth: int, alpha: int, beta: int, ply: int
    ) -> bool:
        """Return True if the guards allow a null move in this position."""
        techniques = self.techniques
        if not (techniques.null_move and techniques.alphabeta):
            return False  # switched off, or minimax, which prunes nothing
        if not ply or beta - alpha > 1:
            return False  # the root, or a PV node
        if ply == self.excluded_ply:
            return False  # a singular search: the move left out may be the good one
        if depth < NULL_MOVE_DEPTH:
            return False  # a real move costs little more than the pass here
        stack = position.undo_stack
        if stack and stack[-1][0] == NULL_MOVE:
            return False  # a pass after a pass: the same position, less deep
        if self.zugzwang_likely(position) or is_in_check(position):
            return False
        # A pass proves little from a position below beta even before it moves.
        return self.static_evaluation(position) >= beta

    def zugzwang_likely(self, position: Position) -> bool:
        """Return True if the side to move has only king and pawns (often zugzwang)."""
        return not has_pieces(position.board, position.side_to_move)

    def null_move_score(
        self, position: Position, depth: int, beta: int, ply: int
    ) -> int:
        """Return the score of passing: a reduced, null-window search of the replies."""
        self.notes.null_move_tries += 1
        position.make_null_move()
        reduced = depth - 1 - null_move_reduction(depth)
        score = -self.negamax(position, reduced, -beta, -beta + 1, ply + 1, [])
        position.unmake_null_move()
        if score >= beta:
            self.notes.null_move_cutoffs += 1
            # A mate found after a pass is no mate: passing is not a legal move.
            return beta if is_mate_score(score) else score
        return score

    def move_picker(
        self, position: Position, moves: list[Move], tt_move: Move | None, ply: int
    ) -> MovePicker:
        """Return the picker that hands out this node's moves in the order to search."""
        techniques = self.techniques
        if ply and techniques.ordering:
            return MovePicker(
                position, moves, tt_move,
                killers=self.killers[ply] if techniques.killers else None,
                history=self.history if techniques.history else None,
                exchanges=techniques.see,
            )
        # The root orders its moves once, as before: it puts the previous iteration's
        # best move first and searches only what `go searchmoves` allows.  With ordering
        # off, every node takes the moves as generated, the table's move first.
        if techniques.ordering:
            moves = self.order_moves(position, moves)
        if tt_move is not None:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        if not ply:
            moves = self.previous_best_first(self.allowed_root_moves(moves))
        # The TT move named as well, for search_moves to find a singular one.
        return MovePicker(position, moves, tt_move, staged=False)

    def learn_from_cutoff(
        self, position: Position, picker: MovePicker, move: Move, quiet: bool,
        quiets_tried: list[Move], depth: int, ply: int,
    ) -> None:
        """Count a cutoff by its stage; a quiet move that cut becomes a killer, and
        gains history, which the quiet moves tried before it lose."""
        notes = self.notes
        if picker.stage == KILLERS:
            notes.killer_cutoffs += 1
        elif picker.stage == QUIETS:
            notes.history_cutoffs += 1
        if not quiet:
            return  # captures are ordered by the material they win, not by history
        techniques = self.techniques
        if techniques.killers:
            add_killer(self.killers[ply], move)
        if techniques.history:
            side = position.side_to_move << 12
            bonus = history_bonus(depth)
            update_history(self.history, side | move & 4095, bonus)
            for tried in quiets_tried:
                update_history(self.history, side | tried & 4095, -bonus)

    def null_window_score(
        self, position: Position, depth: int, reduction: int, alpha: int, ply: int,
        child_pv: list[Move],
    ) -> int:
        """Return the score of the move just made in the null window at alpha; with a
        `reduction`, first that many plies less deep, then again if it beats alpha."""
        if reduction:
            self.notes.reductions += 1
            score = -self.negamax(
                position, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, child_pv
            )
            if score <= alpha:
                return score  # as expected: the move does not beat alpha
            # A surprise, or an artefact of the shallow search: the full depth decides.
            self.notes.lmr_researches += 1
            child_pv.clear()
        return -self.negamax(position, depth - 1, -alpha - 1, -alpha, ply + 1, child_pv)

    # True during a `go mate` search, which reduces nothing (set by prepare_to_think).
    proving_mate: bool = False

    def static_evaluation(self, position: Position) -> int:
        """Return the evaluation the switches ask for, from the side to move's view;
        a position evaluated before in this search is looked up, not evaluated again."""
        key = position.key
        slot = key & (EVALUATION_CACHE_SIZE - 1)
        if self.evaluation_keys[slot] == key:
            return self.evaluation_scores[slot]
        techniques = self.techniques
        if not (techniques.evaluation and techniques.pst):
            score = evaluate(position, techniques.pst)  # chapters 5 and 6
        else:
            score = evaluate_position(position, techniques.pawn_structure,
                                      techniques.mobility, techniques.king_safety)
        self.evaluation_keys[slot] = key
        self.evaluation_scores[slot] = score
        return score

    # The depth of the iteration being searched (set by search_moves at the root).
    root_depth: int = 0

    def extension(self, gives_check: bool, single_reply: bool, ply: int) -> int:
        """Return how many plies deeper than the others to search the move just made
        at `ply`: one for a check (or an only move, if switched on), else none."""
        techniques = self.techniques
        notes = self.notes
        if ply >= EXTENSION_LIMIT * self.root_depth:
            # The guard: the line is long already, and lines of checks can run on.
            if gives_check and techniques.check_extensions:
                notes.extensions_refused += 1
            return 0
        if gives_check and techniques.check_extensions:
            notes.extensions += 1
            return 1
        if single_reply and techniques.single_reply_extensions:
            notes.single_reply_extensions += 1
            return 1
        return 0

    def move_score(
        self, position: Position, depth: int, reduction: int, alpha: int, beta: int,
        ply: int, child_pv: list[Move], whole_window: bool,
    ) -> int:
        """Return the score of the move just made, searched as a move of a node `depth`
        plies deep (its extension included): in the whole window if `whole_window`, else
        in PVS's null window, first `reduction` plies less deep (LMR)."""
        if whole_window:
            return -self.negamax(position, depth - 1, -beta, -alpha, ply + 1, child_pv)
        # PVS: is this move better than alpha?  A null window answers only that.
        score = self.null_window_score(position, depth, reduction, alpha, ply, child_pv)
        if alpha < score < beta:
            # PVS: better, by an unknown margin: the whole window measures it.
            self.notes.pvs_researches += 1
            child_pv.clear()
            score = -self.negamax(position, depth - 1, -beta, -alpha, ply + 1, child_pv)
        return score

    # The ply of the singular search under way and the move it leaves out (-1: none).
    excluded_ply: int = -1

    excluded_move: Move = NO_MOVE

    def singular_search(
        self, position: Position, depth: int, beta: int, ply: int, moves: list[Move],
        tt_move: Move,
    ) -> tuple[bool, int | None]:
        """Test whether `tt_move` is singular: search the position without it, in a null
        window below the table's score for it.  Return whether it is, and a score for
        the node to return at once (a multi-cut), or None."""
        if not (self.techniques.singular_extensions and ply and len(moves) > 1
                and ply < EXTENSION_LIMIT * self.root_depth):
            # Switched off, the root, an only move, or a line past the extensions' guard
            return False, None
        entry = self.tt.probe(position.key)
        if (entry is None or entry.best_move != tt_move or entry.bound == Bound.UPPER
                or entry.depth < depth - SINGULAR_ENTRY_SLACK
                or is_mate_score(entry.score)):
            return False, None  # no lower bound (or exact score) for it, or too shallow
        singular_beta = score_from_tt(entry.score, ply) - SINGULAR_MARGIN * depth
        notes = self.notes
        notes.singular_searches += 1
        outer = self.excluded_ply, self.excluded_move
        self.excluded_ply, self.excluded_move = ply, tt_move
        try:
            score = self.negamax(position, (depth - 1) // 2, singular_beta - 1,
                                 singular_beta, ply, [])
        finally:
            self.excluded_ply, self.excluded_move = outer
        if score < singular_beta:
            notes.singular_extensions += 1  # every other move fell short: singular
            return True, None
        if singular_beta >= beta:
            notes.multi_cuts += 1  # another move reaches beta too: the node fails high
            return False, singular_beta
        return False, None

    def node_evaluation(self, position: Position, ply: int) -> int | None:
        """Return the static evaluation forward pruning starts from, kept for `ply`;
        None in check, for `go mate`, and where no technique of the search needs it."""
        techniques = self.techniques
        evaluation = None
        if (techniques.alphabeta and not self.proving_mate
                and (techniques.reverse_futility or techniques.futility
                     or techniques.late_move_pruning)
                and not is_in_check(position)):
            evaluation = self.static_evaluation(position)
        self.static_evaluations[ply] = evaluation
        return evaluation

    def is_improving(self, ply: int) -> bool:
        """Return True if the static evaluation at `ply` is better than at `ply - 2`,
        the same side's last turn; True too where either is missing."""
        now = self.static_evaluations[ply]
        before = self.static_evaluations[ply - 2] if ply >= 2 else None
        return now is None or before is None or now > before

    def may_skip_captures(self, position: Position) -> bool:
        """Return True if the quiescence search may leave out captures here: a technique
        that does so is on and the side to move is not in check."""
        techniques = self.techniques
        return ((techniques.quiescence_see or techniques.delta_pruning)
                and not is_in_check(position))

    def skips_capture(self, position: Position, move: Move, stand_pat: int,
                      alpha: int) -> bool:
        """Return True if the quiescence search need not try `move`: the piece it
        takes and DELTA_MARGIN together cannot raise the score above alpha (delta
        pruning, never in a late endgame or for a promotion), or SEE says it loses."""
        board = position.board
        techniques = self.techniques
        if techniques.delta_pruning and not move >> 12 & 7:  # never a promotion
            victim = PAWN if move >> 15 == EN_PASSANT else board[move >> 6 & 63] & 7
            if (stand_pat + capture_gain(victim) + DELTA_MARGIN <= alpha
                    and not is_late_endgame(board)):
                self.notes.delta_prunes += 1
                return True
        if techniques.quiescence_see and is_losing_capture(board, move):
            self.notes.see_prunes += 1
            return True
        return False

    def reverse_futility_score(
        self, depth: int, alpha: int, beta: int, ply: int, evaluation: int | None,
    ) -> int | None:
        """Return the score of a node whose static evaluation stands so far above beta
        that it is taken to fail high unsearched (reverse futility), or None."""
        if (evaluation is None or not self.techniques.reverse_futility
                or depth > REVERSE_FUTILITY_DEPTH or not ply or beta - alpha > 1):
            return None  # in check, switched off, too deep, the root or a PV node
        if ply == self.excluded_ply or is_mate_score(beta):
            # A singular search: the evaluation counts the move left out.  A mate score:
            # no margin in centipawns measures the distance to it.
            return None
        score = evaluation - REVERSE_FUTILITY_MARGIN * depth
        if score < beta:
            return None
        self.notes.reverse_futility_prunes += 1
        return score

    def prunes_quiet_move(self, depth: int, move_number: int, alpha: int,
                          ply: int) -> bool:
        """Return True if the quiet move `move_number` of a node `depth` plies deep at
        `ply` need not be searched: it comes too late (late move pruning), or its node
        stands too far below alpha for a quiet move to help (futility pruning)."""
        techniques = self.techniques
        if techniques.late_move_pruning and depth <= LATE_MOVE_PRUNING_DEPTH:
            improving = not techniques.improving or self.is_improving(ply)
            if move_number > late_move_count(depth, improving):
                self.notes.late_move_prunes += 1
                return True
        evaluation = self.static_evaluations[ply]
        if (techniques.futility and depth <= FUTILITY_DEPTH and evaluation is not None
                and evaluation + FUTILITY_MARGINS[depth] <= alpha):
            self.notes.futility_prunes += 1
            return True
        return False

    # The depth of the first iteration, and how many plies each iteration goes deeper
    # than the one before: 1 and 1 in the main process, 1 or 2 and 2 in a helper.
    first_depth: int = 1

    depth_step: int = 1


# The deepest iteration iterative deepening will start (far beyond reach in Python).
MAX_DEPTH = 64


class SearchStoppedError(Exception):
    """Raised inside the search when it must stop;
    the node being searched is abandoned."""


@dataclass
class Iteration:
    """The result of one iteration of iterative deepening, complete or stopped."""

    depth: int

    score: int

    pv: list[Move]

    nodes: int

    seldepth: int

    elapsed: float  # seconds since the search started

    complete: bool = True  # False: stopped after only some of the root's moves

    bound: Bound = Bound.EXACT  # LOWER: the window failed high, UPPER: it failed low


def depth_limit(limits: Limits) -> int:
    """Return the deepest iteration `limits` allow: `go depth`,
    `go mate` and MAX_DEPTH."""
    depth = MAX_DEPTH if limits.depth is None else min(limits.depth, MAX_DEPTH)
    if limits.mate is not None:
        # Every mate in N moves is seen, by negamax rather than quiescence, at depth 2N.
        depth = min(depth, max(2 * limits.mate, 1))
    return depth


def mate_in_moves(score: int) -> int:
    """Return the moves to mate of a mate score: positive if the side to move mates."""
    if score > 0:
        return (MATE - score + 1) // 2
    return -((MATE + score + 1) // 2)


# Within this many seconds of the hard deadline, the clock is checked more often:
# NODES_BETWEEN_CHECKS nodes take milliseconds in Python, too many when few are left.
DEADLINE_NEAR = 0.025

NODES_BETWEEN_CHECKS_NEAR_DEADLINE = 16


def score_to_tt(score: int, ply: int) -> int:
    """Return `score` as the table stores it: mates counted from this position,
    not the root."""
    if score > MATE_THRESHOLD:
        return score + ply
    if score < -MATE_THRESHOLD:
        return score - ply
    return score


def score_from_tt(score: int, ply: int) -> int:
    """Return a stored score as the search counts it at `ply`:
    mates from the root again."""
    if score > MATE_THRESHOLD:
        return score - ply
    if score < -MATE_THRESHOLD:
        return score + ply
    return score


# Aspiration windows: from this iteration on, the root first searches a window of
# ASPIRATION_DELTA centipawns either side of the previous iteration's score.
ASPIRATION_DEPTH = 4

ASPIRATION_DELTA = 25

# After each failure the half-width doubles; past this many centipawns the search gives
# up on windows and takes the whole one, which cannot fail.
ASPIRATION_LIMIT = 200

# The shallowest depth at which the search tries a null move.
NULL_MOVE_DEPTH = 3


def null_move_reduction(depth: int) -> int:
    """Return how many plies shallower than a real move's the search after a pass is."""
    return 3 + depth // 4


def has_pieces(board: list[Piece], side: Colour) -> bool:
    """Return True if `side` has a knight, bishop, rook or queen."""
    own = WHITE_BIT << side
    return not {own | KNIGHT, own | BISHOP, own | ROOK, own | QUEEN}.isdisjoint(board)


# LMR: only nodes with at least LMR_DEPTH plies left reduce, and only after the first
# LMR_FULL_MOVES moves, which are always searched to the full depth.
LMR_DEPTH = 3

LMR_FULL_MOVES = 3

# The table's shape: LMR_BASE + ln(depth) * ln(move number) / LMR_DIVISOR plies,
# rounded down.  A starting point in the range engines use, not a tuned value.
LMR_BASE = 0.75

LMR_DIVISOR = 2.5

# Depths and move numbers beyond the table use its last row and column.
LMR_TABLE_SIZE = 64


def reduction_table() -> tuple[tuple[int, ...], ...]:
    """Return the base reductions, REDUCTIONS[depth][move number] (both from 1)."""
    return tuple(
        tuple(
            int(LMR_BASE + math.log(depth) * math.log(number) / LMR_DIVISOR)
            if depth and number else 0
            for number in range(LMR_TABLE_SIZE)
        )
        for depth in range(LMR_TABLE_SIZE)
    )


REDUCTIONS = reduction_table()


def late_move_reduction(
    depth: int, move_number: int, pv_node: bool, tt_pv: bool, gives_check: bool,
    killer: bool, history_value: int,
) -> int:
    """Return how many plies less deep to search a late quiet move (0: not at all)."""
    last = LMR_TABLE_SIZE - 1
    reduction = REDUCTIONS[min(depth, last)][min(move_number, last)]
    # A ply less for each sign that the node or the move matters more than most.
    reduction -= pv_node + tt_pv + gives_check + killer
    if history_value < 0:
        reduction += 1  # the move failed elsewhere more often than it cut off
    # Never an extension, and never below one ply: a move is never dropped.
    return max(0, min(reduction, depth - 2))


# Extensions stop where a line is EXTENSION_LIMIT times as long as the root's depth.
EXTENSION_LIMIT = 2

# Singular searches only at nodes with at least SINGULAR_DEPTH plies left, whose table
# entry was searched at most SINGULAR_ENTRY_SLACK plies less deep than the node.
SINGULAR_DEPTH = 6

SINGULAR_ENTRY_SLACK = 3

# The margin below the TT move's score, in centipawns per ply of the node's depth.
SINGULAR_MARGIN = 2

# Delta pruning: what a capture may gain beyond the piece it takes, in centipawns.
DELTA_MARGIN = 200


def capture_gain(victim: int) -> int:
    """The material that taking a piece of kind `victim` adds to the evaluation: its
    value in the weights in place (the Tuned switch can change them), middlegame or
    endgame, whichever is larger. Square tables and other terms can add more; that is
    what DELTA_MARGIN is for."""
    return max(evaluation_module.MIDDLEGAME_PIECE_VALUES[victim],
               evaluation_module.ENDGAME_PIECE_VALUES[victim])


# Reverse futility: nodes with at most this many plies left, and the margin per ply.
REVERSE_FUTILITY_DEPTH = 4

REVERSE_FUTILITY_MARGIN = 120

# Futility: the margin by depth left (index 1 and 2); deeper nodes are not pruned.
FUTILITY_MARGINS = (0, 200, 500)

FUTILITY_DEPTH = len(FUTILITY_MARGINS) - 1

# Late move pruning: nodes with at most this many plies left.
LATE_MOVE_PRUNING_DEPTH = 3

# No quiet move is pruned at a node with more plies left than this.
PRUNING_DEPTH = max(FUTILITY_DEPTH, LATE_MOVE_PRUNING_DEPTH)


def late_move_count(depth: int, improving: bool) -> int:
    """Return how many moves a node `depth` plies deep searches before late move
    pruning skips its quiet moves: half as many where the evaluation fell."""
    return (3 + depth * depth) // (1 if improving else 2)


def is_late_endgame(board: list[Piece]) -> bool:
    """Return True if a side has no piece but its king and pawns."""
    return not (has_pieces(board, WHITE) and has_pieces(board, BLACK))


# The slots of the evaluation cache: a power of two, so that a key's low bits index it.
EVALUATION_CACHE_SIZE = 1 << 16
