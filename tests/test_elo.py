"""Statistics of cb2026.elo against values computed by hand."""

from __future__ import annotations

import math

import pytest

from cb2026.elo import (
    elo_estimate,
    elo_from_score,
    format_elo,
    format_margin,
    score_fraction,
    score_from_elo,
    score_variance,
    sprt_bounds,
    sprt_log_likelihood_ratio,
    sprt_state,
    sprt_verdict,
)

pytestmark = pytest.mark.stage("stage-07.1-matches")


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
    """A perfect score: +inf Elo, a one-sided exact bound, and a finite SPRT ratio."""
    wins = elo_estimate(10, 0, 0)
    assert wins.elo == math.inf and wins.margin == math.inf and wins.upper == math.inf
    # Exact bound: the share of non-wins is at most 1 - 0.05^(1/10) = 0.2589.
    assert wins.lower == pytest.approx(elo_from_score(0.05**0.1))
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
    share = 1 - 0.05**0.1
    assert estimate.elo == 0.0 and estimate.margin > 0
    assert estimate.upper == pytest.approx(elo_from_score(0.5 + share / 2))
    assert estimate.lower == pytest.approx(-estimate.upper)
    assert format_elo(estimate.elo) == "+0.0"


def test_one_sided_interval_is_unbounded() -> None:
    """9 wins and 1 draw: the upper score bound passes 1, so the margin is infinite."""
    estimate = elo_estimate(9, 0, 1)
    assert math.isfinite(estimate.elo) and estimate.upper == math.inf
    assert estimate.margin == math.inf
