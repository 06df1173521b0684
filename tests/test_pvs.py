"""Principal variation search and aspiration windows (chapter 9).

The referees: the engine's own `minimax` (chapter 5) for the score at a fixed depth where
it applies (no quiescence, no table), plain alpha-beta (the PVS switch off) where the
quiescence search is on, the same search without windows for the aspiration windows,
python-chess for the legality of the moves, and the match runner's reading of `info` lines
(chapter 7.1) for what counts as a move with a search behind it.
"""

from __future__ import annotations

import dataclasses
import io

import chess
import pytest

import cb2026.search
from cb2026.cli import Session, execute, move_after_failure, run
from cb2026.game import move_report
from cb2026.limits import Limits
from cb2026.move import Move, move_to_uci
from cb2026.position import Position
from cb2026.search import (
    ASPIRATION_DEPTH,
    INFINITY,
    MATE,
    Iteration,
    Searcher,
    Techniques,
    minimax,
)
from cb2026.tt import Bound
from command_loop import assert_legal
from positions import MATE_IN_THREE, MATE_IN_TWO, MIDDLEGAME, SEARCH_POSITIONS
from stage_referee import FORWARD_PRUNING, switched_off
from test_search_alphabeta import RANDOM, SMALL

pytestmark = pytest.mark.stage("stage-09-pvs")


def without(*names: str) -> Techniques:
    """Return the default techniques with `names` switched off."""
    return dataclasses.replace(Techniques(), **dict.fromkeys(names, False))


# Switches of later stages that change the score minimax defines: the null move (chapter
# 10) lets the side to move pass, which no rule allows; check extensions (chapter 14)
# search checking moves deeper than the depth; forward pruning (chapter 15) leaves out
# moves, and how many depends on the window, which PVS changes.
LATER_PRUNING = switched_off("null_move", "check_extensions", *FORWARD_PRUNING)

# minimax has no quiescence search and no table; `search` never uses aspiration windows
# (only `think` does), so this is PVS alone against the definition of the score.
BARE_PVS = without("quiescence", "tt", "aspiration", *LATER_PRUNING)

# Positions and depths for iterative deepening with windows: windows start at
# ASPIRATION_DEPTH, and these stay cheap with the table off.
DEEPENING = [("endgame", 5), ("rook ending", 5), ("start", ASPIRATION_DEPTH)]


# PVS against minimax and against alpha-beta.


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("fen", SMALL)
def test_pvs_matches_minimax_on_small_positions(fen: str, depth: int) -> None:
    score, best_move, _ = Searcher(BARE_PVS).search(Position.from_fen(fen), depth)
    assert score == minimax(Position.from_fen(fen), depth)
    assert best_move is not None


@pytest.mark.parametrize("fen", RANDOM)
def test_pvs_matches_minimax_on_random_positions(fen: str) -> None:
    # Depth 3 only where plain minimax stays cheap, as in chapter 5's test.
    depths = (1, 2, 3) if len(list(chess.Board(fen).legal_moves)) <= 30 else (1, 2)
    for depth in depths:
        score = Searcher(BARE_PVS).search(Position.from_fen(fen), depth)[0]
        assert score == minimax(Position.from_fen(fen), depth), depth


def test_the_comparisons_with_minimax_exercise_the_re_search() -> None:
    # A broken re-search goes unnoticed if no null window is ever beaten.
    researches = 0
    for fen in SMALL + RANDOM:
        searcher = Searcher(BARE_PVS)
        searcher.search(Position.from_fen(fen), 2)
        researches += searcher.notes.pvs_researches
    assert researches > 0


@pytest.mark.parametrize("name", list(SEARCH_POSITIONS))
def test_pvs_gives_alphabetas_score_and_move_with_quiescence(name: str) -> None:
    # minimax knows no quiescence search: here alpha-beta (PVS off) is the referee. The
    # table is off, because it lets a score depend on what was stored before (chapter 8).
    fen = SEARCH_POSITIONS[name]
    results = []
    for pvs in (True, False):
        # Check extensions (chapter 14, where the stage has them) stay on: they extend the
        # same moves in both searches, and a node they leave three plies deep below the
        # root is in check, where neither LMR (which needs PVS) nor the null move acts.
        # Forward pruning (chapter 15, where the stage has it) prunes by the window: off.
        searcher = Searcher(dataclasses.replace(
            without("tt", "aspiration", *switched_off(*FORWARD_PRUNING)), pvs=pvs))
        score, move, _ = searcher.search(Position.from_fen(fen), 3)
        results.append((score, move))
    assert results[0] == results[1]


@pytest.mark.parametrize("fen", SMALL[:6])
def test_pvs_scores_outside_the_window_are_true_bounds(fen: str) -> None:
    # Fail-soft, as in chapter 5: at or below alpha an upper bound, at or above beta a
    # lower bound, strictly inside the window the exact score.
    true_score = minimax(Position.from_fen(fen), 3)
    windows = [(true_score - 2, true_score - 1), (true_score + 1, true_score + 2),
               (true_score - 1, true_score + 1), (true_score - 60, true_score + 60),
               (-INFINITY, INFINITY)]
    for alpha, beta in windows:
        score = Searcher(BARE_PVS).negamax(Position.from_fen(fen), 3, alpha, beta, 0, [])
        if score <= alpha:
            assert true_score <= score, (alpha, beta)
        elif score >= beta:
            assert true_score >= score, (alpha, beta)
        else:
            assert true_score == score, (alpha, beta)


def test_with_alphabeta_off_there_are_no_null_windows() -> None:
    # Plain minimax searches every move for its exact score: a null window would only add
    # re-searches to the tree that chapter 5's test counts.
    searcher = Searcher(without("quiescence", "tt", "alphabeta",
                                *switched_off("check_extensions")))
    score = searcher.search(Position.from_fen(SMALL[1]), 3)[0]
    assert score == minimax(Position.from_fen(SMALL[1]), 3)
    assert searcher.notes.pvs_researches == 0


# Aspiration windows: the score of the whole window.


# From chapter 12 on: late move reductions switched off, for the tests that need every move
# searched to the full depth (a mate whose moves are reduced is found plies later).
NO_LMR = switched_off("lmr")
# ... and from chapter 14 on check extensions, which find it plies sooner.
NO_EXTENSIONS = switched_off("check_extensions")


# What prunes or reduces by the window: the null move's verdict (chapter 10) compares a
# score with beta, a reduced move (chapter 12) is searched again only if it beats alpha, and
# forward pruning (chapter 15) leaves out moves by their distance to the window. With any of
# them a narrower window can give another score (the rook ending at depth 5 did, by one
# centipawn, once chapter 13.1's weights came).
WINDOW_DEPENDENT = switched_off("null_move", "lmr", *FORWARD_PRUNING)


def deepened(fen: str, depth: int, techniques: Techniques) -> tuple[Iteration, Searcher]:
    """Deepen to `depth`; return the last iteration and the searcher, for its notes."""
    searcher = Searcher(techniques)
    _, last = searcher.think(Position.from_fen(fen), Limits(depth=depth), lambda _: None)
    assert last is not None and last.complete and last.depth == depth
    return last, searcher


def failures(searcher: Searcher) -> int:
    """Return how many aspiration windows failed in the searcher's last search."""
    return searcher.notes.aspiration_fail_highs + searcher.notes.aspiration_fail_lows


def test_aspiration_windows_give_the_whole_windows_score(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the table a window changes the work, never the score: a search that fails is
    # repeated until its score lies inside its window, where it is exact. That holds for a
    # search whose moves do not depend on the window; what does, where the stage has it, is
    # off (WINDOW_DEPENDENT).
    whole = {name: deepened(SEARCH_POSITIONS[name], depth,
                            without("tt", "aspiration", *WINDOW_DEPENDENT))[0]
             for name, depth in DEEPENING}
    for name, depth in DEEPENING:
        aspired = deepened(SEARCH_POSITIONS[name], depth, without("tt", *WINDOW_DEPENDENT))[0]
        assert aspired.score == whole[name].score, name
    # Windows of one centipawn either side fail whenever the score moves: still the score.
    monkeypatch.setattr(cb2026.search, "ASPIRATION_DELTA", 1)
    highs = lows = 0
    for name, depth in DEEPENING:
        last, searcher = deepened(SEARCH_POSITIONS[name], depth,
                                  without("tt", *WINDOW_DEPENDENT))
        assert last.score == whole[name].score and last.bound == Bound.EXACT, name
        highs += searcher.notes.aspiration_fail_highs
        lows += searcher.notes.aspiration_fail_lows
    assert highs > 0 and lows > 0  # both kinds of failure were exercised


def test_a_mate_found_through_a_window_is_exact() -> None:
    # Depth 3 sees the mate in two, so depth 4 takes the whole window at once (a mate score).
    for techniques in (without("tt", "aspiration"), without("tt"), Techniques()):
        assert deepened(MATE_IN_TWO, 4, techniques)[0].score == MATE - 3
    # The mate in three appears only at depth 6 (quiescence stands pat at the mated leaf of
    # depth 5), whose first window lies around depth 5's score in centipawns: it fails high
    # into the mate range, and the whole window then measures the mate exactly.
    # Late move reductions (chapter 12) find this mate plies later: off where the stage has them.
    last, searcher = deepened(MATE_IN_THREE, 6, dataclasses.replace(
        without("tt"), **NO_LMR, **NO_EXTENSIONS))
    assert last.score == MATE - 5 and last.bound == Bound.EXACT
    assert searcher.notes.aspiration_fail_highs > 0


def test_windows_start_at_aspiration_depth_around_the_last_score(
        monkeypatch: pytest.MonkeyPatch) -> None:
    windows: list[tuple[int, int, int]] = []

    class WindowRecorder(Searcher):
        def iterate(self, position: Position, depth: int, alpha: int = -INFINITY,
                    beta: int = INFINITY) -> Iteration | None:
            windows.append((depth, alpha, beta))
            return super().iterate(position, depth, alpha, beta)

    monkeypatch.setattr(cb2026.search, "ASPIRATION_DELTA", 1)
    reports: list[Iteration] = []
    WindowRecorder(without("tt")).think(Position.from_fen(SEARCH_POSITIONS["endgame"]),
                                        Limits(depth=6), reports.append)
    finished = {report.depth: report.score for report in reports
                if report.bound == Bound.EXACT}
    first = {}
    for depth, alpha, beta in windows:
        first.setdefault(depth, (alpha, beta))
    for depth, window in first.items():
        if depth < ASPIRATION_DEPTH:
            assert window == (-INFINITY, INFINITY)
        else:
            assert window == (finished[depth - 1] - 1, finished[depth - 1] + 1)
    # Every failure was reported before its re-search: one report per extra root search.
    assert len(windows) - len(first) == sum(report.bound != Bound.EXACT for report in reports)


# What a GUI is told.


def uci_lines(fen: str, go: str, *options: str) -> list[str]:
    """Return the lines a fresh UCI session answers `go` with, after `options`."""
    output = io.StringIO()
    session = Session(output)
    for command in ("uci", *options, f"position fen {fen}", go):
        execute(session, command)
    session.wait_for_search()
    lines = output.getvalue().splitlines()
    return lines[lines.index("uciok") + 1:]


def score_and_bound(line: str) -> tuple[int, str | None]:
    """Return the centipawn score of an `info depth` line, and its bound word if it has one."""
    words = line.split()
    at = words.index("score")
    assert words[at + 1] == "cp", line  # no mate in these positions at these depths
    bound = words[at + 3] if words[at + 3] in ("lowerbound", "upperbound") else None
    return int(words[at + 2]), bound


def info_depth(line: str) -> int:
    """Return the depth of an `info depth D ...` line."""
    return int(line.split()[2])


def first_move_of(line: str) -> str:
    """Return the first move of an `info` line's pv."""
    return line.split(" pv ")[1].split()[0]


def test_failed_windows_are_reported_as_bounds_over_uci(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows of one centipawn fail often; without the table a bound is a true bound on
    # the score the same depth finally gets.
    monkeypatch.setattr(cb2026.search, "ASPIRATION_DELTA", 1)
    kinds = set()
    for name, depth in DEEPENING:
        fen = SEARCH_POSITIONS[name]
        lines = uci_lines(fen, f"go depth {depth}", "setoption name TT value false")
        assert not any(line.startswith("info string error") for line in lines), lines
        infos = [line for line in lines if line.startswith("info depth")]
        final = {info_depth(line): score_and_bound(line)[0] for line in infos
                 if score_and_bound(line)[1] is None}
        for line in infos:
            score, bound = score_and_bound(line)
            if bound is None:
                continue
            kinds.add(bound)
            assert info_depth(line) >= ASPIRATION_DEPTH, line
            if bound == "lowerbound":  # a fail high: the score is at least this
                assert final[info_depth(line)] >= score, line
                assert " pv " in line  # the move that failed high
            else:  # a fail low: at most this, and no move to show
                assert final[info_depth(line)] <= score, line
                assert " pv " not in line
        # The last line before bestmove is a result, whose line starts with the move played.
        move = lines[-1].split()[1]
        assert lines[-1].startswith("bestmove") and score_and_bound(infos[-1])[1] is None
        assert first_move_of(infos[-1]) == move
        assert_legal(fen, move)
        report = move_report(infos, chess.Move.from_uci(move), chess.Board(fen).turn, 0.0)
        assert not report.blind and report.depth == depth
    assert kinds == {"lowerbound", "upperbound"}


def test_a_stop_during_a_re_search_plays_the_last_result(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cb2026.search, "ASPIRATION_DELTA", 1)
    # The node count at which the first window failed, in a search that has one.
    for name, depth in DEEPENING:
        fen = SEARCH_POSITIONS[name]
        reports: list[Iteration] = []
        Searcher().think(Position.from_fen(fen), Limits(depth=depth), reports.append)
        failed = [report for report in reports if report.bound != Bound.EXACT]
        if failed:
            break
    else:
        pytest.fail("no aspiration window failed")
    first_failure = failed[0]
    # The same search over UCI, stopped by its node limit at the first node of the re-search.
    lines = uci_lines(fen, f"go nodes {first_failure.nodes + 1}")
    infos = [line for line in lines if line.startswith("info depth")]
    move = lines[-1].split()[1]
    assert score_and_bound(infos[-2])[1] is not None
    assert info_depth(infos[-2]) == first_failure.depth
    # Then the previous iteration once more: its move is played, never the bound's.
    assert score_and_bound(infos[-1])[1] is None
    assert info_depth(infos[-1]) == first_failure.depth - 1
    assert first_move_of(infos[-1]) == move
    assert_legal(fen, move)
    report = move_report(infos, chess.Move.from_uci(move), chess.Board(fen).turn, 0.0)
    assert not report.blind and report.depth == first_failure.depth - 1


class RootSearches(Searcher):
    """A searcher that notes every search of a root move: its depth, the move, whether its
    window was null, its score and the node count when it ended."""

    def start_search(self) -> None:
        super().start_search()
        self.searches: list[tuple[int, Move, bool, int, int]] = []

    def iterate(self, position: Position, depth: int, alpha: int = -INFINITY,
                beta: int = INFINITY) -> Iteration | None:
        self.iteration_depth = depth
        return super().iterate(position, depth, alpha, beta)

    def negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int,
                pv: list[Move]) -> int:
        score = super().negamax(position, depth, alpha, beta, ply, pv)
        if ply == 1:  # a root move was searched: it is the last move on the board
            self.searches.append((self.iteration_depth, position.undo_stack[-1][0],
                                  beta - alpha == 1, -score, self.notes.nodes))
        return score


def test_a_stop_during_a_root_re_search_plays_the_move_measured_before() -> None:
    # Chapter 7's stop rule under PVS (the aspiration windows off, to see PVS alone): a root
    # move that beat its null window is played only once its re-search has measured it.
    recorder = RootSearches(without("aspiration"))
    recorder.think(Position.from_fen(MIDDLEGAME), Limits(depth=3), lambda _: None)
    searches = recorder.searches
    found = None
    for index in range(len(searches) - 1):
        depth, move, null, _, null_end = searches[index]
        again = searches[index + 1]
        # Depth 1 always completes (chapter 7), so `go nodes` can stop depth 2 or 3 only.
        if depth < 2 or not null or again[:3] != (depth, move, False):
            continue
        # The root's alpha before this move: the best score of a full-window search so far.
        alpha = max(score for searched_depth, _, was_null, score, _ in searches[:index]
                    if searched_depth == depth and not was_null)
        if again[3] > alpha:  # the re-search confirmed it: it became the best move
            found = depth, move, null_end, again[4]
            break
    assert found is not None, "no root move of depth 2 or 3 beat its null window"
    depth, move, null_end, research_end = found
    windows_off = "setoption name Aspiration value false"
    # Stopped at the first node of the re-search: the move measured before it is played.
    lines = uci_lines(MIDDLEGAME, f"go nodes {null_end + 1}", windows_off)
    infos = [line for line in lines if line.startswith("info depth")]
    played = lines[-1].split()[1]
    assert played != move_to_uci(move) and first_move_of(infos[-1]) == played
    assert info_depth(infos[-1]) == depth and score_and_bound(infos[-1])[1] is None
    # Stopped one node after the re-search: now the move is played.
    lines = uci_lines(MIDDLEGAME, f"go nodes {research_end + 1}", windows_off)
    infos = [line for line in lines if line.startswith("info depth")]
    assert lines[-1].split()[1] == move_to_uci(move) == first_move_of(infos[-1])


def test_a_failed_search_does_not_play_the_move_of_a_bound() -> None:
    root = Position.from_fen(SEARCH_POSITIONS["start"])
    result = Iteration(4, 20, [1, 2], 1000, 6, 0.5)
    failed_high = Iteration(5, 60, [3], 2000, 7, 0.9, bound=Bound.LOWER)
    failed_low = Iteration(5, -40, [], 3000, 7, 1.2, bound=Bound.UPPER)
    assert move_after_failure(root, [result, failed_high]) == (1, result)
    assert move_after_failure(root, [result, failed_low]) == (1, result)


# The switches and the notes.


def test_the_switches_are_uci_options_and_shell_commands(
        monkeypatch: pytest.MonkeyPatch) -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    for name in ("PVS", "Aspiration"):
        assert f"option name {name} type check default true" in output.getvalue().splitlines()
    monkeypatch.setattr(cb2026.search, "ASPIRATION_DELTA", 1)  # windows that fail
    fen = SEARCH_POSITIONS["endgame"]
    for switch, on in (("off", False), ("on", True)):
        for command in (f"set pvs {switch}", f"set aspiration {switch}", "ucinewgame",
                        f"position fen {fen}", "go depth 5"):
            execute(session, command)
            session.wait_for_search()
        techniques, notes = session.searcher.techniques, session.searcher.notes
        assert techniques.pvs is on and techniques.aspiration is on
        if on:
            assert notes.pvs_researches > 0 and failures(session.searcher) > 0
        else:
            assert notes.pvs_researches == 0 and failures(session.searcher) == 0
    execute(session, "stats")
    stats = output.getvalue()
    for name in ("pvs_researches", "aspiration_fail_highs", "aspiration_fail_lows"):
        assert name in stats
    assert "info string error" not in stats
    execute(session, "setoption name PVS value maybe")
    assert output.getvalue().splitlines()[-1].startswith(
        "info string error: option PVS needs the value true or false")
    assert session.searcher.techniques.pvs is True  # a bad value changes nothing


def test_the_shell_marks_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cb2026.search, "ASPIRATION_DELTA", 1)
    output = io.StringIO()
    run(io.StringIO(f"position fen {SEARCH_POSITIONS['endgame']}\ngo depth 5\n"), output)
    scores = [line.split("score")[1].split()[0] for line in output.getvalue().splitlines()
              if line.startswith("depth ")]
    assert any(score.startswith((">=", "<=")) for score in scores), scores
    assert not scores[-1].startswith((">=", "<="))  # the last line shows a result
