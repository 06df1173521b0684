# Generated from the book by tools/literate, from chapters stage-18-rating.
# Do not edit: change the chapters and run `make tangle`.

"""The engine's rating on an outside scale, from matches against anchors of known
rating.

The rating is the maximum-likelihood one under the logistic Elo model of chapter
7.1 (`cb2026.elo`), from the pentanomial counts of the game pairs against each
anchor; its interval comes from a bootstrap that resamples pairs, as the
pentanomial statistics count them, never single games.
"""

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from cb2026.elo import (
    DEFAULT_CONFIDENCE,
    PAIR_POINTS,
    pair_count,
    pair_scores,
    pentanomial_counts,
    score_from_elo,
)


@dataclass(frozen=True)
class AnchorResult:
    """The game pairs played against one anchor: its rating and the pentanomial counts
    [n0, n1/2, n1, n3/2, n2], counted from the rated engine's side."""

    name: str
    rating: float
    counts: tuple[int, ...]

    @property
    def games(self) -> int:
        """Return the number of games: two a pair."""
        return 2 * pair_count(self.counts)

    @property
    def points(self) -> float:
        """Return the points the rated engine scored against this anchor."""
        return sum(count * points
                   for count, points in zip(self.counts, PAIR_POINTS, strict=True))


# Stockfish 15.1's README ("UCI_Elo ... calibrated at a time control of 60s+0.6s
# and anchored to CCRL 40/4") and search.cpp (a fit through Ordo ratings of
# matches at 60+0.6, goldfish 1.13 counted as 2000).
UCI_ELO_CLOCK = "60+0.6"
UCI_ELO_SCALE = f"Stockfish 15.1's UCI_Elo levels (a 2019 fit, at {UCI_ELO_CLOCK})"


def expected_points(rating: float, anchors: Sequence[AnchorResult]) -> float:
    """Return the points an engine of `rating` is expected to score in these games."""
    return sum(anchor.games * score_from_elo(rating - anchor.rating)
               for anchor in anchors)


# The first bracket reaches this far beyond the anchors; it doubles until it holds
# the root.
FIRST_REACH = 400.0

# Elo: the bracket is halved until it is this narrow, far below what a match can
# tell apart.
TOLERANCE = 1e-6


def maximum_likelihood_rating(anchors: Sequence[AnchorResult]) -> float:
    """Return the rating that makes the games against `anchors` most likely: +inf
    if every game was won, -inf if every game was lost, NaN if none was played."""
    games = sum(anchor.games for anchor in anchors)
    points = sum(anchor.points for anchor in anchors)
    if games == 0:
        return math.nan
    if points == games:
        return math.inf
    if points == 0:
        return -math.inf
    reach = FIRST_REACH
    low = min(anchor.rating for anchor in anchors) - reach
    high = max(anchor.rating for anchor in anchors) + reach
    # The points expected rise with the rating: widen until they straddle those scored.
    while (expected_points(low, anchors) > points
           or expected_points(high, anchors) < points):
        low, high, reach = low - reach, high + reach, 2 * reach
    while high - low > TOLERANCE:
        middle = (low + high) / 2
        if middle in (low, high):  # no float lies between: as narrow as it gets
            break
        if expected_points(middle, anchors) < points:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def resampled(anchor: AnchorResult, generator: random.Random) -> AnchorResult:
    """Return the anchor's match with as many pairs, drawn with replacement from
    its own."""
    if pair_count(anchor.counts) == 0:  # nothing to draw from, and nothing to add
        return anchor
    pairs = generator.choices(PAIR_POINTS, weights=anchor.counts,
                              k=pair_count(anchor.counts))
    return AnchorResult(anchor.name, anchor.rating, tuple(pentanomial_counts(pairs)))


@dataclass(frozen=True)
class RatingEstimate:
    """A rating on the anchors' scale with the bounds of its bootstrap interval."""

    rating: float
    lower: float
    upper: float
    confidence: float
    samples: int


def percentile(ordered: Sequence[float], share: float) -> float:
    """Return the value `share` of the way through `ordered` (sorted), the nearest
    one."""
    return ordered[round(share * (len(ordered) - 1))]


def rating_estimate(
    anchors: Sequence[AnchorResult], samples: int = 2000, seed: int = 2026,
    confidence: float = DEFAULT_CONFIDENCE,
) -> RatingEstimate:
    """Return the maximum-likelihood rating and its percentile-bootstrap interval,
    from `samples` resamplings of the pairs against each anchor (seeded: the same
    every run)."""
    if samples < 1 or not 0 < confidence < 1:
        raise ValueError("a bootstrap needs samples >= 1 and a confidence between 0 "
                         f"and 1, not {samples} and {confidence}")
    generator = random.Random(seed)
    ratings = sorted(maximum_likelihood_rating([resampled(anchor, generator)
                                                for anchor in anchors])
                     for _ in range(samples))
    tail = (1 - confidence) / 2
    return RatingEstimate(maximum_likelihood_rating(anchors), percentile(ratings, tail),
                          percentile(ratings, 1 - tail), confidence, samples)


def anchor_from_match(match: Mapping[str, Any]) -> AnchorResult | None:
    """Return the anchor of a stored match (book/data/STAGE/elo-NAME.json) if its second
    engine played at a stated UCI_Elo, else None."""
    opponent = match["engines"][1]
    options = opponent["options"]
    if not options.get("UCI_LimitStrength") or "UCI_Elo" not in options:
        return None
    return AnchorResult(opponent["name"], float(options["UCI_Elo"]),
                        tuple(match["pentanomial"]))


@dataclass(frozen=True)
class LevelFit:
    """How the games against one anchor agree with a rating: the score per game
    there, the score the rating expects, and the standard error of the score, from
    the anchor's pairs."""

    name: str
    score: float
    expected: float
    standard_error: float

    @property
    def gap(self) -> float:
        """Return the score minus the expected score, in standard errors; NaN if
        every pair scored alike, which leaves no spread to count it in."""
        if not self.standard_error > 0:
            return math.nan
        return (self.score - self.expected) / self.standard_error


def level_fits(rating: float, anchors: Sequence[AnchorResult]) -> list[LevelFit]:
    """Return how the games against each anchor agree with `rating`."""
    fits = []
    for anchor in anchors:
        pairs, mean, variance = pair_scores(anchor.counts)
        error = math.sqrt(variance / pairs) if pairs else math.nan
        fits.append(LevelFit(anchor.name, mean,
                             score_from_elo(rating - anchor.rating), error))
    return fits


def chi_squared_tail(statistic: float, freedom: int) -> float:
    """Return the chance that a chi-squared variable with `freedom` (a whole number,
    at least 1) degrees of freedom is at least `statistic`."""
    if freedom < 1:
        raise ValueError(f"degrees of freedom are at least 1, not {freedom}")
    if statistic <= 0:
        return 1.0
    half = statistic / 2
    if freedom % 2 == 0:
        term = total = math.exp(-half)  # the Poisson sum's first term, j = 0
        for index in range(1, freedom // 2):
            term *= half / index
            total += term
        return total
    root = math.sqrt(statistic)
    total = 2 * (1 - NormalDist().cdf(root))
    term = root  # x to the power j - 1/2, over 1 * 3 * ... * (2j - 1), for j = 1
    for index in range(1, (freedom + 1) // 2):
        total += 2 * NormalDist().pdf(root) * term
        term *= statistic / (2 * index + 1)
    return total


@dataclass(frozen=True)
class LevelAgreement:
    """The check of one rating against several anchors: each anchor's fit, the sum of
    the squared gaps (NaN if a gap is), its degrees of freedom, and the chance of a sum
    at least as large if the rating held at every anchor."""

    fits: tuple[LevelFit, ...]
    statistic: float
    freedom: int
    tail: float


def level_agreement(rating: float, anchors: Sequence[AnchorResult]) -> LevelAgreement:
    """Return how well `rating`, fitted to these anchors' games, explains each of them:
    a degree of freedom per anchor, less the one the fit took."""
    if len(anchors) < 2:
        raise ValueError(f"the check needs at least two anchors, not {len(anchors)}")
    fits = tuple(level_fits(rating, anchors))
    statistic = sum(fit.gap ** 2 for fit in fits)
    freedom = len(anchors) - 1
    tail = chi_squared_tail(statistic, freedom)
    return LevelAgreement(fits, statistic, freedom, tail)
