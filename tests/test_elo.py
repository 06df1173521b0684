"""Statistics of cb2026.elo against values computed by hand."""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

import pytest

from cb2026.elo import (
    SPRT_MIN_PAIRS,
    elo_estimate,
    elo_from_score,
    format_elo,
    format_interval,
    format_margin,
    format_pair_report,
    pair_count,
    pair_report,
    pentanomial_counts,
    pentanomial_estimate,
    pentanomial_log_likelihood_ratio,
    pentanomial_los,
    pentanomial_sprt,
    score_fraction,
    score_from_elo,
    score_variance,
    sprt_bounds,
    sprt_log_likelihood_ratio,
    sprt_state,
    sprt_verdict,
)

pytestmark = [pytest.mark.stage("stage-07.1-matches"), pytest.mark.tooling]


def test_known_elo_of_three_quarters_score() -> None:
    """A 75% score is 400 * log10(3) = +190.85 Elo."""
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-3)
    assert elo_from_score(0.25) == pytest.approx(-190.8485, abs=1e-3)
    assert elo_from_score(0.5) == 0.0


def test_elo_and_score_are_inverse() -> None:
    """The logistic model maps an Elo difference to a score and back."""
    for elo in (-300.0, -35.5, 0.0, 10.0, 250.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_sixty_percent_record() -> None:
    """W=40, L=20, D=40: s = 0.6, variance = (40*0.16 + 40*0.01 + 20*0.36)/100 = 0.14.

    Elo = 400 log10(1.5) = 70.44; standard error sqrt(0.0014) = 0.037417, so the
    score interval is 0.6 -/+ 1.96 * 0.037417 = [0.52666, 0.67334], i.e. Elo
    [18.55, 125.65] and a half-width of 53.55.
    """
    assert score_fraction(40, 20, 40) == pytest.approx(0.6)
    assert score_variance(40, 20, 40) == pytest.approx(0.14)
    estimate = elo_estimate(40, 20, 40)
    assert estimate.elo == pytest.approx(70.44, abs=0.01)
    assert estimate.lower == pytest.approx(18.55, abs=0.01)
    assert estimate.upper == pytest.approx(125.65, abs=0.01)
    assert estimate.margin == pytest.approx(53.55, abs=0.01)


def test_sprt_bounds_for_five_percent_errors() -> None:
    """log(0.05 / 0.95) = -2.944 and log(0.95 / 0.05) = +2.944."""
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.9444, abs=1e-4)
    assert upper == pytest.approx(2.9444, abs=1e-4)


def test_sprt_llr_of_sixty_percent_record() -> None:
    """s0 = 0.5, s1 = 0.514387; LLR = 100 * 0.014387 * (1.2 - 1.014387) / 0.28 = 0.9537."""
    llr = sprt_log_likelihood_ratio(40, 20, 40, elo0=0.0, elo1=10.0)
    assert llr == pytest.approx(0.9537, abs=1e-4)
    assert sprt_state(40, 20, 40, 0.0, 10.0, 0.05, 0.05).verdict == "continue"


def test_sprt_verdicts() -> None:
    """A ratio past a bound decides the test; between them it continues."""
    assert sprt_verdict(-3.0, -2.94, 2.94) == "H0 accepted"
    assert sprt_verdict(3.0, -2.94, 2.94) == "H1 accepted"
    assert sprt_verdict(0.0, -2.94, 2.94) == "continue"
    # A large, clearly winning record accepts H1; a clearly losing one H0.
    assert sprt_state(600, 300, 100, 0, 10, 0.05, 0.05).verdict == "H1 accepted"
    assert sprt_state(300, 600, 100, 0, 10, 0.05, 0.05).verdict == "H0 accepted"


def test_zero_games() -> None:
    """With no games nothing is defined, and nothing crashes."""
    estimate = elo_estimate(0, 0, 0)
    assert math.isnan(estimate.elo) and math.isnan(estimate.margin)
    assert format_elo(estimate.elo) == "nan"
    assert sprt_log_likelihood_ratio(0, 0, 0, 0, 10) == 0.0


def test_all_wins_and_all_losses() -> None:
    """A perfect score: +inf Elo, an exact lower bound, and a finite SPRT ratio."""
    wins = elo_estimate(10, 0, 0)
    assert wins.elo == math.inf and wins.margin == math.inf and wins.upper == math.inf
    # Exact two-sided bound: the share of non-wins is at most 1 - 0.025^(1/10) = 0.3084.
    assert wins.lower == pytest.approx(elo_from_score(0.025**0.1))
    assert format_elo(wins.elo) == "+inf" and format_margin(wins.margin) == "inf"
    losses = elo_estimate(0, 10, 0)
    assert losses.elo == -math.inf and format_elo(losses.elo) == "-inf"
    assert losses.upper == pytest.approx(-wins.lower) and losses.lower == -math.inf
    # The exact ratio of ten wins: 10 log(s1 / s0).
    expected = 10 * math.log(score_from_elo(10) / score_from_elo(0))
    assert sprt_log_likelihood_ratio(10, 0, 0, 0, 10) == pytest.approx(expected)


def test_all_draws() -> None:
    """All draws: exactly even, with an honest symmetric interval, never zero width."""
    estimate = elo_estimate(0, 0, 10)
    share = 1 - 0.025**0.1
    assert estimate.elo == 0.0 and estimate.margin > 0
    assert estimate.upper == pytest.approx(elo_from_score(0.5 + share / 2))
    assert estimate.lower == pytest.approx(-estimate.upper)
    assert format_elo(estimate.elo) == "+0.0"


def test_one_sided_interval_is_unbounded() -> None:
    """9 wins and 1 draw: the upper score bound passes 1, so the margin is infinite."""
    estimate = elo_estimate(9, 0, 1)
    assert math.isfinite(estimate.elo) and estimate.upper == math.inf
    assert estimate.margin == math.inf


# Pentanomial counts [n0, n1/2, n1, n3/2, n2]: pairs in which A scored 0 .. 2 points.
PAIR_COUNTS = [12, 61, 140, 70, 17]


def pair_scores_per_game(counts: list[int]) -> list[float]:
    """Every pair of the counts as its score per game (points / 2), one number per pair."""
    return [index / 4 for index, count in enumerate(counts) for _ in range(count)]


def logistic_elo(score: float) -> float:
    """Elo from a score, written out independently of the module."""
    return 400 * math.log10(score / (1 - score))


def test_pentanomial_interval_and_los_against_the_pair_scores() -> None:
    """Interval and LOS equal a direct computation over the list of pair scores."""
    scores = pair_scores_per_game(PAIR_COUNTS)
    mean, variance = statistics.fmean(scores), statistics.pvariance(scores)
    standard_error = math.sqrt(variance / len(scores))
    z = statistics.NormalDist().inv_cdf(0.975)
    estimate = pentanomial_estimate(PAIR_COUNTS)
    assert pair_count(PAIR_COUNTS) == len(scores)
    assert estimate.elo == pytest.approx(logistic_elo(mean))
    assert estimate.lower == pytest.approx(logistic_elo(mean - z * standard_error))
    assert estimate.upper == pytest.approx(logistic_elo(mean + z * standard_error))
    los = statistics.NormalDist().cdf((mean - 0.5) / standard_error)
    assert pentanomial_los(PAIR_COUNTS) == pytest.approx(los)
    # Fishtest's way: 2N games, a per-game variance of the pair points around 2 * mean, / 2N.
    games = 2 * len(scores)
    per_game = sum(n * (i / 2 - 2 * mean) ** 2 for i, n in enumerate(PAIR_COUNTS)) / games
    assert math.sqrt(per_game / games) == pytest.approx(standard_error)


def test_swapping_the_engines() -> None:
    """Reversed counts: Elo and its bounds negate, LOS becomes 1 - LOS, the LLR mirrors."""
    for counts in (PAIR_COUNTS, [0, 0, 0, 0, 7], [0, 0, 9, 0, 0], [0, 0, 0, 3, 0], [1, 0, 0, 0, 2]):
        estimate, swapped = pentanomial_estimate(counts), pentanomial_estimate(counts[::-1])
        assert swapped.elo == pytest.approx(-estimate.elo)
        assert swapped.lower == pytest.approx(-estimate.upper)
        assert swapped.upper == pytest.approx(-estimate.lower)
        assert pentanomial_los(counts[::-1]) == pytest.approx(1 - pentanomial_los(counts))
        assert pentanomial_log_likelihood_ratio(counts[::-1], 0, 10) == pytest.approx(
            pentanomial_log_likelihood_ratio(counts, 0, -10)
        )


def exact_log_likelihood_ratio(counts: list[int], elo0: float, elo1: float) -> float:
    """The generalised LLR by brute force: the best distribution of each mean, found numerically.

    For a mean s the likelihood sum(n_i log p_i) is maximised over distributions p on the
    five pair scores x_i with sum p_i x_i = s. Its stationary point is p_i = f_i / (1 +
    t (x_i - s)), f the observed shares, with t found by bisection so that the mean is s;
    the test then checks that nudging p along the constraints never does better.
    """
    pairs = sum(counts)
    shares = [n / pairs for n in counts]
    values = [i / 4 for i in range(5)]
    observed = [i for i, n in enumerate(counts) if n]
    best = {}
    for elo in (elo0, elo1):
        s = score_from_elo(elo)
        low = -1 / (max(values[i] for i in observed) - s) + 1e-12
        high = 1 / (s - min(values[i] for i in observed)) - 1e-12

        def mean_gap(t: float, s: float = s) -> float:
            return sum(shares[i] * (values[i] - s) / (1 + t * (values[i] - s)) for i in observed)

        for _ in range(200):
            middle = (low + high) / 2
            low, high = (middle, high) if mean_gap(middle) > 0 else (low, middle)
        t = (low + high) / 2
        p = [shares[i] / (1 + t * (values[i] - s)) for i in range(5)]
        assert sum(p) == pytest.approx(1)
        assert sum(pi * x for pi, x in zip(p, values, strict=True)) == pytest.approx(s)

        def objective(q: list[float]) -> float:
            return sum(n * math.log(qi) for n, qi in zip(counts, q, strict=True) if n)

        # Directions that keep the total and the mean: combinations of three points.
        for a, b, c in ((0, 1, 2), (1, 2, 3), (2, 3, 4), (0, 2, 4), (0, 1, 4)):
            xa, xb, xc = values[a], values[b], values[c]
            direction = [0.0] * 5
            direction[a], direction[b], direction[c] = xc - xb, xa - xc, xb - xa
            for step in (1e-4, -1e-4):
                nudged = [pi + step * d for pi, d in zip(p, direction, strict=True)]
                if min(nudged[i] for i in observed) > 0:
                    assert objective(nudged) <= objective(p) + 1e-9
        best[elo] = objective(p)
    return best[elo1] - best[elo0]


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "tolerance"),
    [
        ([30, 250, 500, 260, 40], 0.0, 5.0, 0.002),
        (PAIR_COUNTS, 0.0, 10.0, 0.005),
        ([3, 20, 45, 24, 8], -10.0, 10.0, 0.02),
        ([1, 3, 5, 4, 2], 0.0, 20.0, 0.05),
    ],
)
def test_pentanomial_llr_against_exact_gsprt(
    counts: list[int], elo0: float, elo1: float, tolerance: float
) -> None:
    """The mean-and-variance formula approximates the exact generalised LLR."""
    exact = exact_log_likelihood_ratio(counts, elo0, elo1)
    approximate = pentanomial_log_likelihood_ratio(counts, elo0, elo1)
    assert approximate == pytest.approx(exact, rel=tolerance)


def most_likely_chance(score: float, expected: float) -> float:
    """Brute force: the largest chance of `score` among distributions on two points, mean s."""
    best = 1.0 if score == expected else 0.0
    for other in (0.0, 0.25, 0.5, 0.75, 1.0):
        if other != score:
            chance = (expected - other) / (score - other)
            if 0 <= chance <= 1:
                best = max(best, chance)
    return best


def test_single_outcome_likelihood_against_brute_force() -> None:
    """The exact ratio of results all alike uses the best two-point distribution of each mean."""
    for category in range(5):
        counts = [0] * 5
        counts[category] = 40
        s0, s1 = score_from_elo(0), score_from_elo(15)
        expected = 40 * math.log(most_likely_chance(category / 4, s1) /
                                 most_likely_chance(category / 4, s0))
        assert pentanomial_log_likelihood_ratio(counts, 0, 15) == pytest.approx(expected)


def test_clean_sweeps_get_an_exact_lower_bound() -> None:
    """n pairs all 2-0: at least D(0.025^(1/n)) Elo, LOS 1 - 2^-n; both agree at zero Elo."""
    for pairs in (1, 2, 10, 50):
        counts = [0, 0, 0, 0, pairs]
        estimate = pentanomial_estimate(counts)
        assert estimate.elo == math.inf and estimate.upper == math.inf
        assert estimate.lower == pytest.approx(elo_from_score(0.025 ** (1 / pairs)))
        assert format_interval(estimate).startswith("at least ")
        los = pentanomial_los(counts)
        assert los == pytest.approx(1 - 0.5**pairs)
        # As for a normal interval (LOS 97.5% where the 95% interval touches zero), the
        # lower end is exactly 0 Elo at the two-sided confidence 2 LOS - 1.
        touching = pentanomial_estimate(counts, confidence=2 * los - 1)
        assert touching.lower == pytest.approx(0, abs=1e-6)
    # More sweeps give a higher bound: the rule is monotone.
    bounds = [pentanomial_estimate([0, 0, 0, 0, n]).lower for n in (1, 5, 20, 100)]
    assert bounds == sorted(bounds)


def test_all_level_pairs_give_a_symmetric_interval() -> None:
    """Every pair 1-1: Elo 0, a finite interval of positive width, LOS 50%."""
    estimate = pentanomial_estimate([0, 0, 25, 0, 0])
    assert estimate.elo == 0.0 and 0 < estimate.margin < math.inf
    assert estimate.lower == pytest.approx(-estimate.upper)
    assert pentanomial_los([0, 0, 25, 0, 0]) == 0.5


def test_no_pairs_and_bad_counts() -> None:
    """No pairs: NaN figures and an undecided SPRT; malformed counts: a clear error."""
    estimate = pentanomial_estimate([0, 0, 0, 0, 0])
    assert math.isnan(estimate.elo) and math.isnan(pentanomial_los([0] * 5))
    state = pentanomial_sprt([0] * 5, 0, 10, 0.05, 0.05)
    assert state.llr == 0.0 and state.verdict == "continue"
    for bad in ([1, 2, 3], [1, 2, 3, 4, 5, 6], [1, -1, 0, 0, 0]):
        with pytest.raises(ValueError, match="pentanomial counts"):
            pentanomial_estimate(bad)


def test_pentanomial_sprt_decides() -> None:
    """Bounds as Wald's; a broken engine losing every pair is rejected in finite time."""
    state = pentanomial_sprt(PAIR_COUNTS, 0, 10, 0.05, 0.05)
    assert (state.lower_bound, state.upper_bound) == sprt_bounds(0.05, 0.05)
    assert state.llr == pytest.approx(pentanomial_log_likelihood_ratio(PAIR_COUNTS, 0, 10))
    assert pentanomial_sprt([0, 0, 0, 0, 200], 0, 10, 0.05, 0.05).verdict == "H1 accepted"
    assert pentanomial_sprt([200, 0, 0, 0, 0], 0, 10, 0.05, 0.05).verdict == "H0 accepted"
    assert pentanomial_sprt([0, 0, 200, 0, 0], 0, 10, 0.05, 0.05).verdict == "H0 accepted"
    assert pentanomial_sprt([0, 0, 0, 0, 3], 0, 10, 0.05, 0.05).verdict == "continue"


def test_pentanomial_sprt_waits_for_its_minimum() -> None:
    """Below min_pairs the verdict is "continue" however far the ratio is past a bound."""
    for counts, verdict in (([0, 1, 2, 5, 21], "H1 accepted"), ([20, 8, 0, 0, 1], "H0 accepted")):
        wald = pentanomial_sprt(counts, 0, 20, 0.05, 0.05)
        assert wald.verdict == verdict and sum(counts) == SPRT_MIN_PAIRS - 1
        waiting = pentanomial_sprt(counts, 0, 20, 0.05, 0.05, min_pairs=SPRT_MIN_PAIRS)
        assert waiting.verdict == "continue" and waiting.llr == wald.llr
        one_more = [*counts[:-1], counts[-1] + 1] if verdict == "H1 accepted" else [
            counts[0] + 1, *counts[1:]]
        decided = pentanomial_sprt(one_more, 0, 20, 0.05, 0.05, min_pairs=SPRT_MIN_PAIRS)
        assert decided.verdict == verdict


def test_pair_report() -> None:
    """The report gathers the pentanomial figures with the games' draw ratio."""
    report = pair_report(PAIR_COUNTS, wins=230, losses=200, draws=170)
    assert report.pairs == 300 and report.games == 600
    assert report.draw_ratio == pytest.approx(170 / 600)
    assert report.level_pair_ratio == pytest.approx(140 / 300)
    assert report.estimate == pentanomial_estimate(PAIR_COUNTS)
    text = format_pair_report(report)
    assert "LOS" in text and "pairs 300 [12, 61, 140, 70, 17]" in text and "+/-" in text


def test_pentanomial_counts_of_pair_points() -> None:
    """Pairs worth 2, 1/2, 1, 1, 0 points fill [n0, n1/2, n1, n3/2, n2]; 2.5 points is refused."""
    assert pentanomial_counts([2.0, 0.5, 1.0, 1.0, 0.0]) == [1, 1, 2, 0, 1]
    assert pentanomial_counts([0.5 + 1.0]) == [0, 0, 0, 1, 0]
    assert pentanomial_counts([]) == [0] * 5
    with pytest.raises(ValueError, match="not 2.5"):
        pentanomial_counts([2.5])


def test_the_chapters_call_an_interval_rough_below_the_sprt_minimum() -> None:
    """matchreport's ROUGH_PAIRS repeats SPRT_MIN_PAIRS: chapters 5 and 6 have no elo module."""
    chapters = str(Path(__file__).resolve().parents[1] / "book" / "chapters")
    sys.path.insert(0, chapters)
    try:
        import matchreport
    finally:
        sys.path.remove(chapters)
    assert matchreport.ROUGH_PAIRS == SPRT_MIN_PAIRS
