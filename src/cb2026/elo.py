# Generated from the book by tools/literate, from chapters stage-07.1-matches.
# Do not edit: change the chapters and run `make tangle`.

"""Match statistics: Elo difference, its confidence interval, LOS and the SPRT.

Every formula here works on the results of one engine (called A) against
another (called B), counted from A's side: wins, losses and draws of single
games, or the pentanomial counts of colour-reversed game pairs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

ELO_SCALE = 400.0

DEFAULT_CONFIDENCE = 0.95


def game_count(wins: int, losses: int, draws: int) -> int:
    """Return the number of games played."""
    return wins + losses + draws


def score_fraction(wins: int, losses: int, draws: int) -> float:
    """Return A's mean score per game (win 1, draw 1/2, loss 0),
    or NaN with no games."""
    games = game_count(wins, losses, draws)
    if games == 0:
        return math.nan
    return (wins + 0.5 * draws) / games


def score_from_elo(elo: float) -> float:
    """Return the expected score of a player `elo` points stronger,
    1 / (1 + 10^(-elo/400)).

    This is the logistic Elo model; see the Chess Programming Wiki, "Match
    Statistics".
    """
    return 1.0 / (1.0 + 10.0 ** (-elo / ELO_SCALE))


def elo_from_score(score: float) -> float:
    """Return the Elo difference that predicts the expected score `score`.

    This is the inverse of the logistic Elo model, -400 * log10(1/s - 1); see
    the Chess Programming Wiki, "Match Statistics", and Arpad Elo, "The Rating
    of Chessplayers, Past and Present" (1978). A perfect score maps to +inf, a
    zero score to -inf, and an undefined score (no games) to NaN.
    """
    if math.isnan(score):
        return math.nan
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    # Adding 0.0 turns the -0.0 of an even score into a plain 0.0.
    return -ELO_SCALE * math.log10(1.0 / score - 1.0) + 0.0


def score_variance(wins: int, losses: int, draws: int) -> float:
    """Return the variance of A's score in a single game, or NaN with no games.

    Each game is one draw from a trinomial distribution with outcomes 1, 1/2
    and 0, whose probabilities are estimated by the observed frequencies W/N,
    D/N and L/N; the variance is the frequency-weighted squared deviation from
    the mean score. cutechess-cli computes the same estimate; see the Chess
    Programming Wiki, "Match Statistics".
    """
    games = game_count(wins, losses, draws)
    if games == 0:
        return math.nan
    mean = score_fraction(wins, losses, draws)
    squared_deviations = (
        wins * (1.0 - mean) ** 2
        + draws * (0.5 - mean) ** 2
        + losses * (0.0 - mean) ** 2
    )
    return squared_deviations / games


def game_scores(wins: int, losses: int, draws: int) -> tuple[int, float, float]:
    """Return the games, A's mean score and the variance of one game's
    score (see above)."""
    return (
        game_count(wins, losses, draws),
        score_fraction(wins, losses, draws),
        score_variance(wins, losses, draws),
    )


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with the bounds of its confidence interval."""

    elo: float
    lower: float
    upper: float
    confidence: float

    @property
    def margin(self) -> float:
        """Return the half-width of the interval,
        the "+/-" figure engine testers quote."""
        # An unbounded end (a score interval reaching 0 or 1) makes the width
        # unbounded too, even when the other end is infinite in the same direction.
        if math.isinf(self.lower) or math.isinf(self.upper):
            return math.inf
        return (self.upper - self.lower) / 2


def estimate_from_scores(
    mean: float, variance: float, samples: int, confidence: float = DEFAULT_CONFIDENCE
) -> EloEstimate:
    """Return the Elo difference and its interval from `samples` independent scores.

    The mean of many independent scores is close to normal with standard error
    sqrt(variance / samples) (central limit theorem); the score interval
    mean +/- z * standard error is mapped through the logistic model to Elo.
    No samples give NaN; samples all
    alike (zero variance) get the exact bounds of `single_outcome_estimate`.
    """
    if samples == 0:
        return EloEstimate(math.nan, math.nan, math.nan, confidence)
    if variance == 0.0:
        return single_outcome_estimate(mean, samples, confidence)
    standard_error = math.sqrt(variance / samples)
    # The two-sided quantile: 1.96 for a 95% interval.
    quantile = NormalDist().inv_cdf(0.5 + confidence / 2)
    return EloEstimate(
        elo=elo_from_score(mean),
        lower=elo_from_score(mean - quantile * standard_error),
        upper=elo_from_score(mean + quantile * standard_error),
        confidence=confidence,
    )


def elo_estimate(
    wins: int, losses: int, draws: int, confidence: float = DEFAULT_CONFIDENCE
) -> EloEstimate:
    """Return the Elo difference with a confidence interval from a W/L/D record."""
    games, mean, variance = game_scores(wins, losses, draws)
    return estimate_from_scores(mean, variance, games, confidence)


def format_elo(value: float) -> str:
    """Return an Elo figure as signed text with one decimal,
    or "+inf", "-inf", "nan"."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def format_margin(value: float) -> str:
    """Return an interval half-width as unsigned text with one decimal,
    or "inf", "nan"."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf"
    return f"{value:.1f}"


# A pair's points for the first engine, in the order of the pentanomial counts
# [n0, n1/2, n1, n3/2, n2]: two losses; a loss and a draw; two draws, or a win
# and a loss; a win and a draw; two wins.
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)


def pair_category(points: float) -> int:
    """Return where a pair worth `points` to the first engine goes in
    the pentanomial counts."""
    if points not in PAIR_POINTS:
        raise ValueError(f"a pair is worth 0, 1/2, 1, 3/2 or 2 points, not {points}")
    return PAIR_POINTS.index(points)


def pentanomial_counts(pair_points: Iterable[float]) -> list[int]:
    """Return the pentanomial counts [n0, n1/2, n1, n3/2, n2] of pairs worth
    these points."""
    counts = [0] * len(PAIR_POINTS)
    for points in pair_points:
        counts[pair_category(points)] += 1
    return counts


def pair_count(counts: Sequence[int]) -> int:
    """Return the number of game pairs in pentanomial counts
    [n0, n1/2, n1, n3/2, n2]."""
    if len(counts) != len(PAIR_POINTS) or min(counts) < 0:
        raise ValueError(
            f"pentanomial counts are five numbers >= 0, not {list(counts)}"
        )
    return sum(counts)


def pair_scores(counts: Sequence[int]) -> tuple[int, float, float]:
    """Return the pairs, A's mean score per game,
    and the variance of a pair's score per game.

    A pair's score per game is its points / 2. With no pairs the mean and the
    variance are NaN.
    """
    pairs = pair_count(counts)
    if pairs == 0:
        return 0, math.nan, math.nan
    weighted = list(zip(counts, PAIR_POINTS, strict=True))
    mean = sum(count * points / 2 for count, points in weighted) / pairs
    variance = (
        sum(count * (points / 2 - mean) ** 2 for count, points in weighted) / pairs
    )
    return pairs, mean, variance


def pentanomial_estimate(
    counts: Sequence[int], confidence: float = DEFAULT_CONFIDENCE
) -> EloEstimate:
    """Return the Elo difference with a confidence interval, each pair one sample."""
    pairs, mean, variance = pair_scores(counts)
    return estimate_from_scores(mean, variance, pairs, confidence)


def superiority_from_scores(mean: float, variance: float, samples: int) -> float:
    """Return the likelihood of superiority, Phi((mean - 1/2) / standard error), or NaN.

    Samples all alike (zero variance) get the exact value of
    `single_outcome_superiority` instead.
    """
    if samples == 0:
        return math.nan
    if variance == 0.0:
        return single_outcome_superiority(mean, samples)
    return NormalDist().cdf((mean - 0.5) / math.sqrt(variance / samples))


def pentanomial_los(counts: Sequence[int]) -> float:
    """Return the likelihood of superiority of A from pentanomial pair counts."""
    pairs, mean, variance = pair_scores(counts)
    return superiority_from_scores(mean, variance, pairs)


def unseen_share_bound(samples: int, confidence: float) -> float:
    """Return the largest share of unseen outcomes that `samples` results
    all alike allow.

    With share q, all samples avoid it with chance (1 - q)^samples; the upper
    end of the exact two-sided binomial (Clopper-Pearson) interval puts that
    chance at (1 - confidence) / 2, as much as a normal interval leaves beyond each end.
    """
    return 1.0 - ((1.0 - confidence) / 2.0) ** (1.0 / samples)


def single_outcome_estimate(
    score: float, samples: int, confidence: float
) -> EloEstimate:
    """Return exact Elo bounds when all `samples` results scored
    `score` (zero variance).

    Unseen outcomes, of share at most q, may score anything from 0 to 1, so the
    mean score lies between score * (1 - q) and score + q * (1 - score).
    """
    share = unseen_share_bound(samples, confidence)
    return EloEstimate(
        elo=elo_from_score(score),
        lower=elo_from_score(score * (1.0 - share)),
        upper=elo_from_score(score + share * (1.0 - score)),
        confidence=confidence,
    )


def single_outcome_superiority(score: float, samples: int) -> float:
    """Return the LOS when all `samples` results scored `score` (zero variance)."""
    # An even opponent gives a result worth `score` > 1/2 with chance at most
    # 1 / (2 score); that chance to the power `samples` is the largest p-value
    # over all even opponents.
    if score > 0.5:
        return 1.0 - (0.5 / score) ** samples
    if score < 0.5:
        return (0.5 / (1.0 - score)) ** samples
    return 0.5


def format_interval(estimate: EloEstimate) -> str:
    """Return "+35.2 +/- 12.0", or "at least +183.4" / "at most -183.4" when one
    end is open."""
    lower_open, upper_open = math.isinf(estimate.lower), math.isinf(estimate.upper)
    if math.isnan(estimate.elo) or (lower_open and upper_open):
        return f"{format_elo(estimate.elo)} (no bounds)"
    if upper_open:
        return f"at least {format_elo(estimate.lower)}"
    if lower_open:
        return f"at most {format_elo(estimate.upper)}"
    return f"{format_elo(estimate.elo)} +/- {format_margin(estimate.margin)}"


def draw_ratio(wins: int, losses: int, draws: int) -> float:
    """Return the share of games drawn, or NaN with no games."""
    games = game_count(wins, losses, draws)
    return draws / games if games else math.nan


def level_pair_ratio(counts: Sequence[int]) -> float:
    """Return the share of pairs that ended 1-1 (two draws, or a win each), or NaN."""
    pairs = pair_count(counts)
    return counts[pair_category(1.0)] / pairs if pairs else math.nan


@dataclass(frozen=True)
class PairReport:
    """The figures of a match played in colour-reversed pairs,
    much as fishtest prints them."""

    counts: tuple[int, ...]
    estimate: EloEstimate
    los: float
    games: int
    draw_ratio: float
    level_pair_ratio: float

    @property
    def pairs(self) -> int:
        """Return the number of complete pairs."""
        return sum(self.counts)


def pair_report(
    counts: Sequence[int], wins: int, losses: int, draws: int,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairReport:
    """Return the figures of a paired match from its pentanomial counts
    and its W/L/D."""
    return PairReport(
        counts=tuple(counts),
        estimate=pentanomial_estimate(counts, confidence),
        los=pentanomial_los(counts),
        games=game_count(wins, losses, draws),
        draw_ratio=draw_ratio(wins, losses, draws),
        level_pair_ratio=level_pair_ratio(counts),
    )


def format_pair_report(report: PairReport) -> str:
    """Return a paired match's figures on one line, in the manner of fishtest."""
    confidence = f"{report.estimate.confidence:.0%}"
    return (
        f"Elo {format_interval(report.estimate)} ({confidence}), LOS {report.los:.1%}, "
        f"games {report.games} (draws {report.draw_ratio:.1%}), pairs {report.pairs} "
        f"{list(report.counts)} (1-1 {report.level_pair_ratio:.1%})"
    )


@dataclass(frozen=True)
class SprtState:
    """The log-likelihood ratio of an SPRT together with its bounds and verdict."""

    llr: float
    lower_bound: float
    upper_bound: float
    verdict: str


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Return Wald's SPRT bounds (log(beta / (1 - alpha)), log((1 - beta) / alpha)).

    Abraham Wald, "Sequential Tests of Statistical Hypotheses" (1945): stop and
    accept H0 when the log-likelihood ratio falls below the lower bound, accept
    H1 when it rises above the upper one.
    """
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_verdict(llr: float, lower_bound: float, upper_bound: float) -> str:
    """Return "H0 accepted", "H1 accepted" or "continue" for a log-likelihood ratio."""
    if llr <= lower_bound:
        return "H0 accepted"
    if llr >= upper_bound:
        return "H1 accepted"
    return "continue"


def single_outcome_likelihood(score: float, expected: float) -> float:
    """Return the largest chance of a result worth `score` under a
    mean of `expected`."""
    if score > expected:
        return expected / score
    if score < expected:
        return (1.0 - expected) / (1.0 - score)
    return 1.0


def log_likelihood_ratio_from_scores(
    mean: float, variance: float, samples: int, elo0: float, elo1: float
) -> float:
    """Return the GSPRT log-likelihood ratio of H1 (elo1) against
    H0 (elo0), approximately.

    With s0 and s1 the expected scores under the two hypotheses (logistic
    model), scores treated as normal with the observed mean and variance give
    samples * (s1 - s0) (2 mean - s0 - s1) / (2 variance): Michel Van den
    Bergh's approximation of the generalised log-likelihood ratio (LLR_alt2 in
    fishtest's LLRcalc.py; fishtest itself decides with the exact ratio). No
    samples carry no evidence (0); samples all alike get the exact ratio of
    `single_outcome_likelihood`.
    """
    if samples == 0:
        return 0.0
    score0, score1 = score_from_elo(elo0), score_from_elo(elo1)
    if variance == 0.0:
        ratio = (single_outcome_likelihood(mean, score1)
                 / single_outcome_likelihood(mean, score0))
        return samples * math.log(ratio)
    return (
        samples * (score1 - score0) * (2.0 * mean - score0 - score1) / (2.0 * variance)
    )


def sprt_log_likelihood_ratio(
    wins: int, losses: int, draws: int, elo0: float, elo1: float
) -> float:
    """Return the log-likelihood ratio of H1 (elo1) against H0 (elo0) for
    a W/L/D record."""
    games, mean, variance = game_scores(wins, losses, draws)
    return log_likelihood_ratio_from_scores(mean, variance, games, elo0, elo1)


def sprt_state_from_ratio(llr: float, alpha: float, beta: float) -> SprtState:
    """Return the SPRT state of a log-likelihood ratio under Wald's bounds
    for alpha, beta."""
    lower_bound, upper_bound = sprt_bounds(alpha, beta)
    return SprtState(
        llr, lower_bound, upper_bound, sprt_verdict(llr, lower_bound, upper_bound)
    )


def sprt_state(
    wins: int,
    losses: int,
    draws: int,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
) -> SprtState:
    """Return the SPRT log-likelihood ratio, bounds and verdict for a W/L/D record."""
    llr = sprt_log_likelihood_ratio(wins, losses, draws, elo0, elo1)
    return sprt_state_from_ratio(llr, alpha, beta)


# The fewest pairs after which the runner's SPRT may stop (the reasons are in the text).
SPRT_MIN_PAIRS = 30


def pentanomial_log_likelihood_ratio(
    counts: Sequence[int], elo0: float, elo1: float
) -> float:
    """Return the log-likelihood ratio of H1 (elo1) against H0 (elo0)
    from pair counts."""
    pairs, mean, variance = pair_scores(counts)
    return log_likelihood_ratio_from_scores(mean, variance, pairs, elo0, elo1)


def pentanomial_sprt(
    counts: Sequence[int], elo0: float, elo1: float, alpha: float, beta: float,
    min_pairs: int = 0,
) -> SprtState:
    """Return the SPRT ratio, bounds and verdict for pair counts;
    no verdict before min_pairs."""
    llr = pentanomial_log_likelihood_ratio(counts, elo0, elo1)
    state = sprt_state_from_ratio(llr, alpha, beta)
    if pair_count(counts) < min_pairs:
        return replace(state, verdict="continue")
    return state
