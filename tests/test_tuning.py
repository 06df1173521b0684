"""Texel tuning (chapter 13.1).

The referees: the evaluation itself, which the feature rows must reproduce to the
rounding of its taper on thousands of random positions and on rare ones (pawn endings,
three queens), with every weight moved alone as well; a finite-difference gradient;
synthetic labels made with a known K and known weights, or with two sets of weights that
disagree (the early stop); chapter 13's engine (its package at its tag, in its own
process), which the search with `Tuned` off must equal node for node, also after a search
with another set; and the committed data set, from which the tuner must give back the
engine's literals.  The tools (make_tuning_set, the compiled build) are tested in
test_tuning_tools.py.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

import cb2026.evaluation as evaluation_module
import cb2026.search as search_module
from cb2026.cli import Session, execute
from cb2026.evaluation import (
    HAND_WEIGHTS,
    MAX_PHASE,
    TUNABLE,
    TUNED_WEIGHTS,
    evaluate_position,
    use_weights,
    weights_in_place,
)
from cb2026.position import Position
from cb2026.search import Searcher, Techniques
from cb2026.tuning import (
    PARAMETERS,
    Adam,
    expected_scores,
    feature_rows,
    fit_scale,
    fit_weights,
    game_positions,
    is_quiet,
    linear_scores,
    loss_gradient,
    mean_squared_error,
    quiet_searcher,
    read_positions,
    rounded_like_taper,
    split,
    weight_vector,
    weights_from_vector,
)
from literate.stages import package_folder
from positions import SEARCH_POSITIONS
from stage_referee import (
    AFTER_THE_EVALUATION,
    random_boards,
    search_results,
    stage_searches,
    switched_off,
)

pytestmark = pytest.mark.stage("stage-13.1-tuning")

# The stage whose evaluation the Tuned switch gives back.
HAND_STAGE = "stage-13-evaluation"
DATA = Path(__file__).resolve().parents[1] / "book" / "data" / "stage-13.1-tuning"
# Chapters 14 and 15 switched off where the engine under test has them.
LATER_TECHNIQUES = switched_off(*AFTER_THE_EVALUATION)


@pytest.fixture(autouse=True)
def tuned_weights_afterwards() -> Iterator[None]:
    """Leave the engine's own (tuned) weights in place for the tests that follow."""
    yield
    use_weights(TUNED_WEIGHTS)


# Positions random games seldom reach: pawn endings (phase 0) with passed pawns on every
# rank for both sides, doubled, isolated and backward pawns, and three queens (a phase
# above the start's, which the evaluation caps).
RARE_POSITIONS = [
    "8/1P4k1/8/3P4/8/5P2/6P1/4K3 w - - 0 1",
    "4k3/8/2p5/8/4p3/8/1p6/6K1 b - - 0 1",
    "8/8/5P2/8/2P5/8/8/k3K3 w - - 0 1",
    "4k3/6p1/8/5p2/8/3p4/8/4K3 w - - 0 1",
    "4k3/8/8/2p5/2P1P3/3P4/8/4K3 w - - 0 1",
    "4k3/2p5/2p5/8/8/2P5/2P5/4K3 b - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/QQPPPPPP/RNBQKBNR w KQkq - 0 1",
]


def phase(fen: str) -> int:
    """Return the game phase of `fen` as the evaluation counts it, before its cap."""
    weights = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}
    return sum(weights.get(piece.piece_type, 0)
               for piece in chess.Board(fen).piece_map().values())


@functools.cache
def fens_and_rows() -> tuple[list[str], np.ndarray]:
    """Return 2,000 random positions and the rare ones, with their feature rows (made
    once)."""
    fens = [board.fen() for board in random_boards(2000, seed=131)] + RARE_POSITIONS
    return fens, feature_rows(fens)


def test_the_positions_checked_cover_both_ends_of_the_phase() -> None:
    fens, _ = fens_and_rows()
    phases = [phase(fen) for fen in fens]
    assert min(phases) == 0 and max(phases) > MAX_PHASE
    assert sum(0 < value < MAX_PHASE for value in phases) > 1000  # blends, most of them


def white_view(fen: str) -> int:
    """Return the evaluation in place for `fen`, from White's view."""
    score = evaluate_position(Position.from_fen(fen))
    return score if fen.split()[1] == "w" else -score


def perturbed(weights: dict[str, tuple[int, ...]], seed: int) -> dict[str, tuple[int, ...]]:
    """Return `weights` with every fitted entry moved by a random amount."""
    generator = np.random.default_rng(seed)
    vector = weight_vector(weights) + generator.integers(-40, 41, len(PARAMETERS))
    return weights_from_vector(vector, base=weights)


@pytest.mark.parametrize("weights", [HAND_WEIGHTS, perturbed(HAND_WEIGHTS, 1)],
                         ids=["hand", "perturbed"])
def test_the_rows_reproduce_the_evaluation_to_its_rounding(
    weights: dict[str, tuple[int, ...]]
) -> None:
    fens, rows = fens_and_rows()
    use_weights(weights)
    unrounded = linear_scores(rows, weight_vector(weights))
    engine = np.array([white_view(fen) for fen in fens])
    assert np.array_equal(rounded_like_taper(unrounded), engine)
    assert np.max(np.abs(unrounded - engine)) < 1  # the taper's rounding, no more
    assert np.any(unrounded != engine)  # ... which happens


def test_the_rows_do_not_depend_on_the_weights_in_place() -> None:
    fens, rows = fens_and_rows()
    use_weights(perturbed(HAND_WEIGHTS, 2))
    assert np.array_equal(feature_rows(fens[:200]), rows[:200])
    assert weights_in_place() == perturbed(HAND_WEIGHTS, 2)  # put back as it was


def test_every_parameter_is_counted_somewhere() -> None:
    _, rows = fens_and_rows()
    assert np.all(np.any(rows[:, :-1] != 0, axis=0))
    assert len(PARAMETERS) == sum(
        1 for name in TUNABLE for value in HAND_WEIGHTS[name] if value)


def test_each_weight_alone_moves_the_evaluation_by_its_column() -> None:
    # One weight set against thousands of rows cannot tell every column apart (two
    # wrong counts could cancel); moving one weight at a time can.  A count wrong by one
    # changes the score by 37 phase-24ths of a centipawn at least: more than rounding.
    fens, rows = fens_and_rows()
    hand = weight_vector(HAND_WEIGHTS)
    for index, parameter in enumerate(PARAMETERS):
        counted = np.flatnonzero(rows[:, index])
        # The first few, and the one at the lowest phase and the one at the highest.
        by_phase = sorted(counted, key=lambda row: phase(fens[row]))
        chosen = sorted({*counted[:4], by_phase[0], by_phase[-1]})
        vector = hand.copy()
        vector[index] += 37
        use_weights(weights_from_vector(vector))
        expected = rounded_like_taper(linear_scores(rows[chosen], vector))
        assert [white_view(fens[row]) for row in chosen] == list(expected), parameter


def test_the_gradient_is_the_finite_difference_of_the_loss() -> None:
    rows, scale = fens_and_rows()[1][:300], 150.0
    labels = np.random.default_rng(3).uniform(0, 1, len(rows))
    vector = weight_vector(HAND_WEIGHTS)
    gradient = loss_gradient(rows, labels, vector, scale)
    step = 1e-3
    for index in (0, 5, 12, 30, len(PARAMETERS) - 1):
        moved = np.zeros_like(vector)
        moved[index] = step
        difference = (mean_squared_error(linear_scores(rows, vector + moved), labels, scale)
                      - mean_squared_error(linear_scores(rows, vector - moved), labels,
                                           scale)) / (2 * step)
        assert difference == pytest.approx(gradient[index], rel=1e-4, abs=1e-12), index


@pytest.mark.parametrize("scale", [60.0, 173.0, 400.0])
def test_the_fit_of_k_finds_the_k_that_made_the_labels(scale: float) -> None:
    scores = np.random.default_rng(4).normal(0, 300, 2000)
    labels = expected_scores(scores, scale)
    assert fit_scale(scores, labels) == pytest.approx(scale, rel=1e-3)


def test_the_fit_lowers_both_losses_towards_known_weights() -> None:
    _, rows = fens_and_rows()
    truth = weight_vector(perturbed(HAND_WEIGHTS, 5))
    labels = expected_scores(linear_scores(rows, truth), 150.0)
    training, validation = (rows[:1500], labels[:1500]), (rows[1500:], labels[1500:])
    start = weight_vector(HAND_WEIGHTS)
    fit = fit_weights(training, validation, start, 150.0, steps=300)
    assert fit.training[-1] < fit.training[0] and fit.validation[-1] < fit.validation[0]
    before = mean_squared_error(linear_scores(rows, start), labels, 150.0)
    after = mean_squared_error(linear_scores(rows, fit.vector), labels, 150.0)
    assert after < before / 2


def test_the_fit_keeps_the_best_validation_weights_and_stops_after_patience() -> None:
    # Training and validation labels made by different weights: the descent towards the
    # first must at some step start to lose on the second.
    generator = np.random.default_rng(6)
    rows = np.hstack([generator.normal(0, 3, (600, 5)), np.zeros((600, 1))])
    labels = [expected_scores(linear_scores(rows, truth), 10.0)
              for truth in (np.array([5.0, -3, 2, 0, 1]), np.array([-4.0, 2, 2, 1, 0]))]
    training, validation = (rows[:300], labels[0][:300]), (rows[300:], labels[1][300:])
    fit = fit_weights(training, validation, np.zeros(5), 10.0, steps=2000, patience=40,
                      adam=Adam(rate=0.05))
    assert fit.best_step > 0 and len(fit.validation) == fit.best_step + 40 < 2000
    assert fit.validation[fit.best_step - 1] == min(fit.validation)
    assert mean_squared_error(linear_scores(validation[0], fit.vector), validation[1],
                              10.0) == min(fit.validation)
    assert fit.training[-1] < fit.training[fit.best_step - 1]  # it was still learning


def test_a_game_gives_its_positions_past_the_opening_not_in_check() -> None:
    game = chess.pgn.read_game(io.StringIO(
        '[Result "0-1"]\n\n1. e4 { book } e5 { book } 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 0-1'))
    assert game is not None
    assert len(list(game_positions(game, opening_plies=6))) == 1  # after 3... Nf6
    kept = list(game_positions(game, opening_plies=0))
    boards = [chess.Board(fen) for fen, _ in kept]
    assert kept and all(result == 0.0 for _, result in kept)
    assert not any(board.is_check() for board in boards)
    assert len(kept) == 4  # Qh5, Nc6, Bc4, Nf6: the book moves and the mate left out


def test_the_rows_need_the_plain_python_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    # The compiled evaluation calls its taper directly and wants ints: it cannot count.
    monkeypatch.setattr(evaluation_module, "__file__", "evaluation.cpython-311.so")
    with pytest.raises(RuntimeError, match="plain Python"):
        feature_rows([chess.STARTING_FEN])


def test_the_split_keeps_each_opening_on_one_side() -> None:
    # Games from one opening line share their first positions after the suite's moves
    # and stay alike for a while: split by position, the validation set would hold
    # near-copies of training positions.
    openings = [f"cb2026-{index % 37}" for index in range(1000)]
    training, validation = split(openings, 0.2, seed=131)
    assert sorted([*training, *validation]) == list(range(1000))
    held_out = {openings[index] for index in validation}
    assert held_out.isdisjoint(openings[index] for index in training)
    assert len(held_out) == round(37 * 0.2)
    again = split(openings, 0.2, seed=131)
    assert np.array_equal(again[0], training) and np.array_equal(again[1], validation)
    assert not np.array_equal(split(openings, 0.2, seed=132)[1], validation)


def test_a_data_file_gives_its_header_and_labelled_positions(tmp_path: Path) -> None:
    path = tmp_path / "positions.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(f"# command: python tools/make_tuning_set.py\n# positions: 1\n"
                  f"{chess.STARTING_FEN};0.5;0.5400;cb2026-7\n")
    header, positions = read_positions(path)
    assert header == {"command": "python tools/make_tuning_set.py", "positions": "1"}
    assert positions == [(chess.STARTING_FEN, 0.5, 0.54, "cb2026-7")]


def test_a_position_with_a_capture_that_pays_is_not_quiet() -> None:
    searcher = quiet_searcher()
    assert is_quiet(chess.STARTING_FEN, searcher)
    # White's queen can take an undefended rook.
    assert not is_quiet("4k3/8/8/3r4/8/8/3Q4/4K3 w - - 0 1", searcher)


# Prints the tunable constants that the engine on sys.argv[1] has.
CONSTANTS_PROGRAM = """
import json, sys
sys.path.insert(0, sys.argv[1])
import cb2026.evaluation as evaluation
print(json.dumps({name: list(getattr(evaluation, name)) for name in json.loads(sys.argv[2])
                  if hasattr(evaluation, name)}))
"""


def test_with_tuned_off_the_search_is_chapter_13s_node_for_node() -> None:
    depth = 4
    previous = stage_searches(HAND_STAGE, SEARCH_POSITIONS, depth)
    constants = json.loads(subprocess.run(
        [sys.executable, "-c", CONSTANTS_PROGRAM, str(package_folder(HAND_STAGE)),
         json.dumps(TUNABLE)], capture_output=True, text=True, check=True,
        timeout=60).stdout)
    # Chapter 13's constants are the hand set (its piece values were chapter 5's).
    for name, values in constants.items():
        assert list(HAND_WEIGHTS[name]) == values, name
    assert len(constants) == len(TUNABLE) - 2
    off = search_results(dataclasses.replace(Techniques(), tuned=False, **LATER_TECHNIQUES),
                         SEARCH_POSITIONS, depth)
    assert off == previous


def test_tuned_off_after_a_search_with_another_set_is_chapter_13s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Were the tuned literals chapter 13's (as before the fit was pasted in), the test
    # above could not fail for a switch that does nothing.  Another set in their place
    # makes the switch work whatever the literals: searched first, it fills its own pawn
    # table, which Tuned off must not read.
    monkeypatch.setattr(search_module, "TUNED_WEIGHTS", perturbed(HAND_WEIGHTS, 7))
    depth = 3
    on = search_results(dataclasses.replace(Techniques(), **LATER_TECHNIQUES),
                        SEARCH_POSITIONS, depth)
    off = search_results(dataclasses.replace(Techniques(), tuned=False, **LATER_TECHNIQUES),
                         SEARCH_POSITIONS, depth)
    assert off == stage_searches(HAND_STAGE, SEARCH_POSITIONS, depth)
    assert on != off


def test_a_search_puts_the_weights_of_its_switch_in_place() -> None:
    position = Position.from_fen(chess.STARTING_FEN)
    Searcher(dataclasses.replace(Techniques(), tuned=False)).search(position, 1)
    assert weights_in_place() == HAND_WEIGHTS
    Searcher().search(position, 1)
    assert weights_in_place() == TUNED_WEIGHTS


def test_put_in_place_a_set_changes_the_evaluation_and_puts_back_exactly() -> None:
    fen = "r3k2r/pppq1ppp/2nbbn2/3pp3/3PP3/2NBBN2/PPPQ1PPP/R3K2R w KQkq - 0 1"
    use_weights(HAND_WEIGHTS)
    before = white_view(fen)
    use_weights({**HAND_WEIGHTS, "BISHOP_PAIR": (0, 0), "ROOK_OPEN_FILE": (0, 0)})
    assert white_view(fen) == before  # both sides have the pair: nothing changes
    use_weights({**HAND_WEIGHTS, "MIDDLEGAME_PIECE_VALUES": (0, 100, 300, 330, 500, 900,
                                                             0)})
    assert white_view("4k3/8/8/8/8/8/8/3NK3 w - - 0 1") < white_view(
        "4k3/8/8/8/8/8/8/3BK3 w - - 0 1") - 30
    use_weights(HAND_WEIGHTS)
    assert white_view(fen) == before


def test_the_switch_is_a_uci_option_and_a_shell_command() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    assert "option name Tuned type check default true" in output.getvalue().splitlines()
    execute(session, "set tuned off")
    assert session.searcher.techniques.tuned is False
    execute(session, "setoption name Tuned value true")
    assert session.searcher.techniques.tuned is True


def test_the_engines_literals_are_what_the_tuner_fits_from_the_committed_data() -> None:
    path = DATA / "positions.csv.gz"
    assert path.exists(), "python tools/make_tuning_set.py writes it (chapter 13.1)"
    # OpenBLAS splits a product among its threads, and the sums' order follows the thread
    # count; the fit runs in a process of its own with one thread, as the chapter's does.
    script = (f"import json; from pathlib import Path; from cb2026.tuning import read_positions,"
              f" tune, weights_from_vector; result = tune(read_positions(Path({str(path)!r}))[1]);"
              f" print(json.dumps(weights_from_vector(result.fit.vector)))")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               env={**os.environ, "OPENBLAS_NUM_THREADS": "1",
                                    # the package under test, a stage's snapshot's included
                                    "PYTHONPATH": str(Path(evaluation_module.__file__).parents[1])},
                               check=True, timeout=600)  # a minute or two on two busy cores
    fitted = json.loads(completed.stdout)
    # The fit is the chapter's code on the chapter's data, but the kernels OpenBLAS and
    # numpy pick for the processor add in their own orders, and the last bits move the
    # step whose weights the fit keeps. tools/tuning_kernels.py measured how far on one
    # machine (book/data/stage-13.1-tuning/kernels.json, 3 centipawns at most); chapter
    # 13.1 checks the literals in standard errors, this test by a margin of centipawns.
    for name in TUNABLE:
        for tuned, refitted in zip(TUNED_WEIGHTS[name], fitted[name], strict=True):
            assert abs(tuned - refitted) <= 5, (name, TUNED_WEIGHTS[name], fitted[name])


@pytest.mark.tooling
def test_the_kernels_data_is_the_tools_every_setting() -> None:
    import tuning_kernels

    kernels = json.loads((DATA / "kernels.json").read_text())
    assert [run["setting"] for run in kernels["runs"]] == list(tuning_kernels.SETTINGS)
    assert [run["environment"] for run in kernels["runs"]] == list(
        tuning_kernels.SETTINGS.values())
    for run in kernels["runs"]:  # a run the machine could not make says so
        assert "failed" in run or (len(run["vector"]) == len(PARAMETERS)
                                   and run["best_step"] > 0)
