# Generated from the book by tools/literate, from chapters stage-13.1-tuning.
# Do not edit: change the chapters and run `make tangle`.

"""Texel tuning: the evaluation's weights fitted to the expected scores of positions.

The evaluation of chapter 13 is a sum of weights times counts (a passed pawn on the
sixth rank, a knight's safe squares beyond the usual), blended by the game phase.
Run with its weights left as unknowns it gives those counts for a position, once;
a logistic model of the expected score, sigmoid(evaluation / K), is then fitted to
labelled positions by gradient descent on the mean squared error, in seconds.
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import chess
import chess.pgn
import numpy as np

import cb2026.evaluation as evaluation
from cb2026.board import WHITE
from cb2026.evaluation import HAND_WEIGHTS, MAX_PHASE, TUNABLE, Weights
from cb2026.position import Position
from cb2026.search import INFINITY, Searcher, Techniques


def expected_scores(scores: np.ndarray, scale: float) -> np.ndarray:
    """Return the expected score (0 to 1) of evaluations `scores` in centipawns."""
    return 1 / (1 + np.exp(-scores / scale))


def mean_squared_error(
    scores: np.ndarray, labels: np.ndarray, scale: float
) -> float:
    """Return Texel's loss: the mean squared error of the expected scores."""
    return float(np.mean((labels - expected_scores(scores, scale)) ** 2))


# The plies at the start of a game that are left out: the opening suite's moves and
# the first moves after it, which say more about the suite than about the engines.
OPENING_PLIES = 16


def game_positions(
    game: chess.pgn.Game, opening_plies: int = OPENING_PLIES
) -> Iterator[tuple[str, float]]:
    """Yield the FEN of each position of `game` past the opening and not in check,
    with the game's result as White's score (1, 0.5 or 0)."""
    result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(game.headers["Result"])
    if result is None:
        return  # an unfinished game says nothing
    board = game.board()
    for ply, node in enumerate(game.mainline()):
        board.push(node.move)
        if ply + 1 >= opening_plies and node.comment.strip() != "book" and not (
                board.is_check() or board.is_game_over()):
            yield board.fen(), result


def quiet_searcher() -> Searcher:
    """Return a searcher whose quiescence search scores with chapter 13's values."""
    searcher = Searcher(Techniques(tuned=False))
    searcher.start_search()  # puts its weights in place
    return searcher


def is_quiet(fen: str, searcher: Searcher) -> bool:
    """Return True if no capture changes the score: the quiescence search of the
    position gives its static evaluation."""
    position = Position.from_fen(fen)
    settled = searcher.quiescence(position, -INFINITY, INFINITY, 0)
    return settled == searcher.static_evaluation(position)


# A labelled position: its FEN, the game's result and Stockfish's expected score,
# both for White, and the opening line its game started from.
Labelled = tuple[str, float, float, str]


def read_positions(path: Path) -> tuple[dict[str, str], list[Labelled]]:
    """Return the header lines (`# key: value`) and the positions of a data file."""
    header: dict[str, str] = {}
    positions: list[Labelled] = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                key, _, value = line[1:].partition(":")
                header[key.strip()] = value.strip()
            elif line.strip():
                fen, result, stockfish, opening = line.rstrip("\n").split(";")
                positions.append((fen, float(result), float(stockfish), opening))
    return header, positions


# A weight of the evaluation: a tunable constant's name and an index into it.
Parameter = tuple[str, int]


def tuned_parameters(weights: Weights = HAND_WEIGHTS) -> list[Parameter]:
    """Return the entries of `weights` the tuner fits: all those not zero."""
    # The zeros are zero by definition: no pawn is passed on its first rank, a
    # king's and a pawn's squares are not counted as mobility, a king's value
    # cancels out.
    return [(name, index) for name in TUNABLE
            for index, value in enumerate(weights[name]) if value]


PARAMETERS: list[Parameter] = tuned_parameters()


class Linear:
    """A score as a sum of unknown weights times their counts, plus a fixed part:
    what the evaluation gives when its weights are left as unknowns."""

    __slots__ = ("terms",)

    def __init__(self, terms: np.ndarray) -> None:
        """Keep the counts, one per parameter, and the fixed part last."""
        self.terms = terms

    def __add__(self, other: Linear | float) -> Linear:
        """Return the sum; a number adds to the fixed part."""
        if isinstance(other, Linear):
            return Linear(self.terms + other.terms)
        terms = self.terms.copy()
        terms[-1] += other
        return Linear(terms)

    __radd__ = __add__

    def __neg__(self) -> Linear:
        """Return the score with its sign turned."""
        return Linear(-self.terms)

    def __sub__(self, other: Linear | float) -> Linear:
        """Return the difference."""
        return self + -other

    def __rsub__(self, other: float) -> Linear:
        """Return `other` minus this score."""
        return -self + other

    def __mul__(self, factor: float) -> Linear:
        """Return the score times a number (a count, a sign, a phase)."""
        return Linear(self.terms * factor)

    __rmul__ = __mul__


def unknown_weights(parameters: list[Parameter]) -> dict[str, tuple[object, ...]]:
    """Return the tunable constants with each parameter's entry an unknown: a
    Linear that counts 1 of that parameter."""
    size = len(parameters) + 1
    number = {parameter: index for index, parameter in enumerate(parameters)}
    unknowns: dict[str, tuple[object, ...]] = {}
    for name in TUNABLE:
        entries: list[object] = []
        for index, value in enumerate(HAND_WEIGHTS[name]):
            if (name, index) in number:
                terms = np.zeros(size)
                terms[number[name, index]] = 1.0
                entries.append(Linear(terms))
            else:
                entries.append(value)  # a zero by definition
        unknowns[name] = tuple(entries)
    return unknowns


def linear_taper(middlegame: Linear, endgame: Linear, phase: int) -> Linear:
    """Return the blend of evaluation.taper, without its rounding."""
    return (middlegame * phase + endgame * (MAX_PHASE - phase)) * (1 / MAX_PHASE)


@contextmanager
def unknowns_in_place(parameters: list[Parameter]) -> Iterator[None]:
    """Inside: the evaluation runs with its weights as unknowns and returns Linear
    scores."""
    if not str(evaluation.__file__).endswith(".py"):
        # Compiled, the evaluation calls its taper directly and takes only ints.
        raise RuntimeError("the tuner needs the plain Python evaluation, not the "
                           f"compiled one ({evaluation.__file__})")
    unknowns = unknown_weights(parameters)
    # The value tables come from the same code, given the unknown piece values.
    middlegame, endgame = evaluation.build_phase_tables(*(
        cast(tuple[int, ...], unknowns[name])
        for name in ("MIDDLEGAME_PIECE_VALUES", "ENDGAME_PIECE_VALUES")))
    replacing: dict[str, object] = {
        **unknowns, "MIDDLEGAME_VALUES": middlegame, "ENDGAME_VALUES": endgame,
        # An empty pawn table of its own: the engine's holds numbers, not counts.
        "PAWN_HASH": evaluation.PawnTable(), "taper": linear_taper,
    }
    saved = {name: getattr(evaluation, name) for name in replacing}
    try:
        for name, value in replacing.items():
            setattr(evaluation, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(evaluation, name, value)


def feature_rows(
    fens: list[str], parameters: list[Parameter] = PARAMETERS
) -> np.ndarray:
    """Return a row per position: the count of each parameter and the fixed part,
    from White's view."""
    rows = np.zeros((len(fens), len(parameters) + 1))
    with unknowns_in_place(parameters):
        for row, fen in enumerate(fens):
            position = Position.from_fen(fen)
            score = cast(Linear, evaluation.evaluate_position(position))
            rows[row] = score.terms if position.side_to_move == WHITE else -score.terms
    return rows


def weight_vector(
    weights: Weights, parameters: list[Parameter] = PARAMETERS
) -> np.ndarray:
    """Return the values of the parameters in `weights`, in order."""
    return np.array([weights[name][index] for name, index in parameters], dtype=float)


def linear_scores(rows: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Return the evaluations (White's view) the rows give with the weights
    `vector`, before the taper's rounding."""
    return rows[:, :-1] @ vector + rows[:, -1]


def rounded_like_taper(scores: np.ndarray) -> np.ndarray:
    """Return `scores` rounded as the evaluation's taper rounds: each is a whole
    number of 24ths, cut towards zero."""
    blended = np.round(scores * MAX_PHASE)
    return np.fix(blended / MAX_PHASE)


def fit_scale(
    scores: np.ndarray, labels: np.ndarray, low: float = 10.0, high: float = 2000.0
) -> float:
    """Return the K between `low` and `high` that minimises the loss of `scores`
    against `labels` (a golden-section search on log K)."""
    ratio = (math.sqrt(5) - 1) / 2
    left, right = math.log(low), math.log(high)
    for _ in range(60):
        inner_left = right - ratio * (right - left)
        inner_right = left + ratio * (right - left)
        if mean_squared_error(scores, labels, math.exp(inner_left)) <= (
                mean_squared_error(scores, labels, math.exp(inner_right))):
            right = inner_right
        else:
            left = inner_left
    return math.exp((left + right) / 2)


def loss_gradient(
    rows: np.ndarray, labels: np.ndarray, vector: np.ndarray, scale: float
) -> np.ndarray:
    """Return the gradient of the loss with respect to the weights."""
    expected = expected_scores(linear_scores(rows, vector), scale)
    # d/dw (label - s(x))^2 = -2 (label - s) s (1 - s) / K * dx/dw, and dx/dw is
    # the row of counts.
    slope = -2 * (labels - expected) * expected * (1 - expected) / scale
    return rows[:, :-1].T @ slope / len(labels)


@dataclass
class Fit:
    """The result of a fit: the best weights found and the losses on the way."""

    vector: np.ndarray  # the weights at the best validation loss
    best_step: int
    training: list[float] = field(default_factory=list)  # a loss per step
    validation: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Adam:
    """Adam's settings: the step in centipawns, the two averages' decay rates."""

    rate: float = 1.0
    momentum: float = 0.9
    scale_decay: float = 0.999
    epsilon: float = 1e-8


# A labelled set as the tuner uses it: feature rows and labels.
Data = tuple[np.ndarray, np.ndarray]


def fit_weights(
    training: Data, validation: Data, start: np.ndarray, scale: float,
    steps: int = 4000, patience: int = 200, adam: Adam = Adam(),
) -> Fit:
    """Descend the training loss from `start` with Adam; keep the weights of the
    lowest validation loss and stop when it has not fallen for `patience` steps."""
    vector = start.copy()
    fit = Fit(vector=start.copy(), best_step=0)
    mean, square = np.zeros_like(vector), np.zeros_like(vector)
    best = math.inf
    for step in range(1, steps + 1):
        gradient = loss_gradient(*training, vector, scale)
        mean = adam.momentum * mean + (1 - adam.momentum) * gradient
        square = adam.scale_decay * square + (1 - adam.scale_decay) * gradient**2
        # Bias-corrected averages: both start at zero.
        step_mean = mean / (1 - adam.momentum**step)
        step_square = square / (1 - adam.scale_decay**step)
        vector -= adam.rate * step_mean / (np.sqrt(step_square) + adam.epsilon)
        fit.training.append(mean_squared_error(
            linear_scores(training[0], vector), training[1], scale))
        fit.validation.append(mean_squared_error(
            linear_scores(validation[0], vector), validation[1], scale))
        if fit.validation[-1] < best:
            best, fit.vector, fit.best_step = fit.validation[-1], vector.copy(), step
        elif step - fit.best_step >= patience:
            break
    return fit


def split(
    openings: list[str], validation_share: float, seed: int
) -> tuple[np.ndarray, ...]:
    """Return the indices of a training set and a validation set: the positions of
    a share of the openings, drawn with `seed`, are held out for validation."""
    # By opening, not by position: the games of one opening line pass through
    # positions alike, which would otherwise sit on both sides.
    names = sorted(set(openings))
    order = np.random.default_rng(seed).permutation(len(names))
    held_out = {names[index] for index in order[:round(len(names) * validation_share)]}
    chosen = np.array([opening in held_out for opening in openings], dtype=bool)
    return np.flatnonzero(~chosen), np.flatnonzero(chosen)


def weights_from_vector(
    vector: np.ndarray, parameters: list[Parameter] = PARAMETERS,
    base: Weights = HAND_WEIGHTS,
) -> Weights:
    """Return `base` with the parameters set to `vector`, rounded to centipawns."""
    lists = {name: list(values) for name, values in base.items()}
    for (name, index), value in zip(parameters, vector, strict=True):
        lists[name][index] = round(float(value))
    return {name: tuple(values) for name, values in lists.items()}


# How the positions are split: the seed, and the share of the openings held out.
SPLIT_SEED = 131
VALIDATION_SHARE = 0.2


@dataclass
class Tuning:
    """A tuning run: K, the fit, and the rows and labels it was made from."""

    scale: float
    fit: Fit
    rows: np.ndarray
    labels: np.ndarray
    training: np.ndarray  # the indices of the training positions
    validation: np.ndarray


def tune(
    positions: list[Labelled], by_results: bool = False,
    rows: np.ndarray | None = None, steps: int = 4000,
) -> Tuning:
    """Fit the weights to the positions' Stockfish scores (or game results): K
    first, with chapter 13's weights, then the weights with K held.  `rows`, if
    given, are the positions' feature rows, made already."""
    if rows is None:
        rows = feature_rows([fen for fen, *_ in positions])
    labels = np.array([result if by_results else stockfish
                       for _, result, stockfish, _ in positions])
    training, validation = split([opening for *_, opening in positions],
                                 VALIDATION_SHARE, SPLIT_SEED)
    start = weight_vector(HAND_WEIGHTS)
    scale = fit_scale(linear_scores(rows[training], start), labels[training])
    fit = fit_weights((rows[training], labels[training]),
                      (rows[validation], labels[validation]), start, scale, steps)
    return Tuning(scale, fit, rows, labels, training, validation)


def weights_source(weights: Weights) -> str:
    """Return the weights as the lines of Python that define them."""
    return "\n".join(f"{name}: tuple[int, ...] = {weights[name]}" for name in TUNABLE)


# The data set chapter 13.1 fits, from the repository's root.
DATA_SET = Path("book/data/stage-13.1-tuning/positions.csv.gz")


def main(path: Path = DATA_SET) -> None:
    """Fit the weights to the data set at `path` and print them as Python."""
    result = tune(read_positions(path)[1])
    print(f"# K = {result.scale:.1f}, best validation loss "
          f"{min(result.fit.validation):.6f} at step {result.fit.best_step}")
    print(weights_source(weights_from_vector(result.fit.vector)))


if __name__ == "__main__":
    main()
