# Generated from the book by tools/literate, from chapters stage-07.1-matches.
# Do not edit: change the chapters and run `make tangle`.

"""Match statistics: Elo difference, its confidence interval, and the SPRT.

Every formula here works on the results of one engine (called A) against
another (called B): wins, losses and draws counted from A's side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

ELO_SCALE = 400.0

DEFAULT_CONFIDENCE = 0.95


def game_count(wins: int, losses: int, draws: int) -> int:
    """Return the number of games played."""
    return wins + losses + draws


def score_fraction(wins: int, losses: int, draws: int) -> float:
    """Return A's mean score per game (win 1, draw 1/2, loss 0), or NaN with no games."""
    games = game_count(wins, losses, draws)
    if games == 0:
        return math.nan
    return (wins + 0.5 * draws) / games


def score_from_elo(elo: float) -> float:
    """Return the expected score of a player `elo` points stronger, 1 / (1 + 10^(-elo/400)).

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
    the mean score. This is the estimate cutechess-cli and fishtest use; see
    the Chess Programming Wiki, "Match Statistics".
    """
    games = game_count(wins, losses, draws)
    if games == 0:
        return math.nan
    mean = score_fraction(wins, losses, draws)
    squared_deviations = (
        wins * (1.0 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * (0.0 - mean) ** 2
    )
    return squared_deviations / games


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with the bounds of its confidence interval."""

    elo: float
    lower: float
    upper: float
    confidence: float

    @property
    def margin(self) -> float:
        """Return the half-width of the interval, the "+/-" figure engine testers quote."""
        # An unbounded end (a score interval reaching 0 or 1) makes the width
        # unbounded too, even when the other end is infinite in the same direction.
        if math.isinf(self.lower) or math.isinf(self.upper):
            return math.inf
        return (self.upper - self.lower) / 2


def elo_estimate(
    wins: int, losses: int, draws: int, confidence: float = DEFAULT_CONFIDENCE
) -> EloEstimate:
    """Return the Elo difference with a confidence interval from a W/L/D record.

    The mean score is approximately normal with standard error
    sqrt(variance / N) (central limit theorem); the interval of the score,
    mean +/- z * standard error, is mapped through the logistic model to Elo,
    as cutechess-cli does. With zero variance (all wins, all draws, all
    losses) the interval collapses onto the point estimate.
    """
    games = game_count(wins, losses, draws)
    mean = score_fraction(wins, losses, draws)
    if games == 0:
        return EloEstimate(math.nan, math.nan, math.nan, confidence)
    standard_error = math.sqrt(score_variance(wins, losses, draws) / games)
    # The two-sided quantile: 1.96 for a 95% interval.
    quantile = NormalDist().inv_cdf(0.5 + confidence / 2)
    return EloEstimate(
        elo=elo_from_score(mean),
        lower=elo_from_score(mean - quantile * standard_error),
        upper=elo_from_score(mean + quantile * standard_error),
        confidence=confidence,
    )


def format_elo(value: float) -> str:
    """Return an Elo figure as signed text with one decimal, or "+inf", "-inf", "nan"."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def format_margin(value: float) -> str:
    """Return an interval half-width as unsigned text with one decimal, or "inf", "nan"."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf"
    return f"{value:.1f}"


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


def sprt_log_likelihood_ratio(
    wins: int, losses: int, draws: int, elo0: float, elo1: float
) -> float:
    """Return the normal-approximation log-likelihood ratio of H1 (elo1) against H0 (elo0).

    With s0 and s1 the expected scores under the two hypotheses (logistic
    model), the per-game score treated as normal with the observed mean and
    variance gives LLR = N (s1 - s0) (2 mean - s0 - s1) / (2 variance); this
    is the approximation engine testers use (see the Chess Programming Wiki,
    "Sequential Probability Ratio Test", and Michel Van den Bergh's notes on
    the fishtest SPRT). With no games or zero variance there is no evidence
    yet, so the ratio is 0.
    """
    games = game_count(wins, losses, draws)
    if games == 0:
        return 0.0
    variance = score_variance(wins, losses, draws)
    if variance <= 0.0:
        return 0.0
    mean = score_fraction(wins, losses, draws)
    score0, score1 = score_from_elo(elo0), score_from_elo(elo1)
    return games * (score1 - score0) * (2.0 * mean - score0 - score1) / (2.0 * variance)


def sprt_state(
    wins: int, losses: int, draws: int, elo0: float, elo1: float, alpha: float, beta: float
) -> SprtState:
    """Return the SPRT log-likelihood ratio, bounds and verdict for a W/L/D record."""
    lower_bound, upper_bound = sprt_bounds(alpha, beta)
    llr = sprt_log_likelihood_ratio(wins, losses, draws, elo0, elo1)
    return SprtState(llr, lower_bound, upper_bound, sprt_verdict(llr, lower_bound, upper_bound))
