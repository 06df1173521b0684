"""The match reports of the chapters (book/chapters/matchreport.py), on small hand-made files.

Each test builds a match dict with only the fields a branch reads, in the shape the runner of
chapter 7.1 writes (or, for the old-file branches, wrote before it recorded them). That
ROUGH_PAIRS equals chapter 7.1's SPRT_MIN_PAIRS is tested in tests/test_elo.py, of stage 7.1:
chapter 5's engine has no cb2026.elo.
"""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "chapters"))

import matchreport  # noqa: E402
from matchreport import (  # noqa: E402
    ROUGH_PAIRS,
    conditions_text,
    games_text,
    hash_text,
    interval_finding,
    los_text,
    match_table,
    search_text,
    sprt_text,
    verdict,
)

pytestmark = [pytest.mark.stage("stage-05-alphabeta"), pytest.mark.tooling]


def engine(name: str, **fields: object) -> dict:
    """An engine record of a match file."""
    return {"name": name, "options": {}, "depth": {"mean": 4.0, "median": 4},
            "nodes_per_move": 1000, "blind_moves": 0, "moves": 100,
            "hashfull": {"mean_second_half": None, "moves": 0}} | fields


def sprt(verdict_text: str, pairs_at_verdict: int | None, **fields: object) -> dict:
    """An SPRT record of a match file."""
    return {"elo0": 0, "elo1": 20, "alpha": 0.05, "beta": 0.05, "min_pairs": ROUGH_PAIRS,
            "llr": 3.0, "lower_bound": -2.94, "upper_bound": 2.94, "verdict": verdict_text,
            "pairs_at_verdict": pairs_at_verdict} | fields


def match(pentanomial: list[int], games_planned: int, lower: float | None, upper: float | None,
          **fields: object) -> dict:
    """A match file with the given pairs, cap and 95% interval of the pairs."""
    elo = {"difference": 50.0, "lower": lower, "upper": upper, "los": 0.97, "draw_ratio": 0.2}
    return {
        "engines": [engine("a"), engine("b")], "limits": {"nodes": 1000, "description": "x"},
        "openings": {"source": "suite"}, "games_played": 2 * sum(pentanomial),
        "games_planned": games_planned, "pentanomial": pentanomial, "wins": 1, "losses": 1,
        "draws": 0, "pairs_with_same_moves": 0, "elo": elo, "elo_games_counted_singly": elo,
        "machine": {"cpu_model": "cpu", "cpu_count": 2, "python": "3.11"},
        "wall_seconds": 600.0, "concurrency": 2,
    } | fields


@pytest.mark.parametrize(("record", "expected"), [
    (engine("a", hash_mb=16, options={"Hash": 16}), "16 MB (set for the match)"),
    (engine("a", hash_mb=64), "64 MB (its default)"),
    (engine("sunfish", hash_mb=None), "not declared by the engine"),
    (engine("a", hash_mb=64, options={"TT": False}), "table off (option TT false)"),
    (engine("a", hash_mb=1, options={"Hash": 1, "Buckets": False}),
     "1 MB (set for the match), buckets off (option Buckets false)"),
    (engine("a", hash_mb=16, options={"TableSlots": 512, "Buckets": False}),
     "512 slots (option TableSlots, set for the match), buckets off (option Buckets false)"),
    (engine("a", hash_mb=16, options={"TableSlots": 0}), "16 MB (its default)"),
    # Files from before the runner asked the engine: only a size set, or table fill, is known.
    (engine("a", options={"Hash": 1}), "1 MB (set for the match)"),
    (engine("a", hashfull={"moves": 80}), "its default size"),
    (engine("a"), "not recorded"),
])
def test_hash_table(record: dict, expected: str) -> None:
    assert hash_text(record) == expected


def test_an_aborted_match_says_how_far_it_got() -> None:
    assert games_text(match([0, 0, 3, 0, 0], 100, -50, 50)) == "6 (3) of 100 planned"
    resumed = match([0, 0, 3, 0, 0], 6, -50, 50, games_resumed=4)
    assert games_text(resumed) == (
        "6 (3), 4 of them from an earlier run (`--resume`), as planned")
    resumed["runs"] = [{}, {}, {}]  # two runs stopped, the third finished the match
    assert games_text(resumed) == (
        "6 (3), 4 of them from 2 earlier runs (`--resume`), as planned")


def test_a_capped_match_with_an_undecided_sprt() -> None:
    capped = match([0, 0, 5, 0, 0], 10, -50, 50, sprt=sprt("continue", None))
    assert games_text(capped) == "10 (5), capped at 10 before the SPRT decided"
    assert games_text(match([0, 0, 5, 0, 0], 10, -50, 50)) == "10 (5), as planned"
    # An undecided SPRT comes after the statistics, the engines come first.
    rows = [line.split(" | ")[0] for line in match_table(capped, "cmd").splitlines()]
    assert rows.index("| SPRT") > rows.index("| LOS") and rows[0] == "| engines"


def test_a_match_stopped_by_the_sprt() -> None:
    stopped = match([0, 0, 5, 10, 25], 400, 30, 90, sprt=sprt("H1 accepted", 39))
    assert games_text(stopped) == (
        "80 (40), stopped by the SPRT (cap 400; 1 pair more, already in flight, finished after "
        "the verdict)")
    assert sprt_text(stopped).endswith(
        "min_pairs = 30: LLR 3.00 in [-2.94, 2.94], H1 accepted after 39 pairs")
    assert verdict(stopped) == (
        "the SPRT stopped the match at pair 39, H1 accepted: the games favour H1 (a gain of "
        "20 Elo) over H0 (none); the whole 95% interval lies above zero: the gain is resolved")
    rows = [line.split(" | ")[0] for line in match_table(stopped, "cmd").splitlines()]
    assert rows[0] == "| engines" and rows[2] == "| SPRT"


def test_an_accepted_h0_says_what_the_interval_excludes() -> None:
    stopped = match([0, 10, 80, 10, 0], 400, -7, 16, sprt=sprt("H0 accepted", 100))
    assert verdict(stopped).endswith(
        "H0 accepted: the games favour H0 (none) over H1 (a gain of 20 Elo); the 95% "
        "interval [-7, +16] excludes +20; the sign is not resolved")
    wide = match([0, 10, 80, 10, 0], 400, -30, 25, sprt=sprt("H0 accepted", 100))
    assert verdict(wide).endswith("[-30, +25] still includes +20; the sign is not resolved")


def test_an_old_file_without_a_minimum_says_so() -> None:
    old = match([0, 0, 0, 1, 5], 300, 352, None, sprt=sprt("H1 accepted", 6))
    del old["sprt"]["min_pairs"]
    assert ("beta = 0.05, no minimum number of pairs (played before the runner had one): "
            in sprt_text(old))
    assert "conditions" not in old and conditions_text(old) == "not recorded"


def test_few_pairs_make_a_likely_sign_not_a_size() -> None:
    few = match([0, 0, 0, 1, 5], 300, 352, None)
    assert interval_finding(few) == (
        "the whole 95% interval lies above zero, from only 6 pairs: the sign is likely, "
        "its size is not")
    assert interval_finding(match([5, 1, 0, 0, 0], 300, None, -352)).startswith(
        "the whole 95% interval lies below zero, from only 6 pairs")
    assert interval_finding(match([0, 1, 4, 1, 0], 300, -80, 80)) == (
        "the 95% interval (rough: 6 pairs) includes zero: not resolved")
    table = match_table(few, "cmd")
    assert "| Elo, games counted singly | +50 [+352, +inf] (rough: 6 pairs) |" in table


@pytest.mark.parametrize(("los", "pairs", "expected"), [
    (0.9996, 6, "> 99.9% (rough: 6 pairs)"),
    (0.0001, 40, "< 0.1%"),
    (0.781, 113, "78.1%"),
    (None, 40, "n/a"),
])
def test_los_is_never_a_certainty(los: float | None, pairs: int, expected: str) -> None:
    assert los_text(los, pairs) == expected


def test_load_and_no_wall_time() -> None:
    conditions = {"quiet": True, "load_before": 0.3, "load_after": 1.9, "load_limit": 0.6}
    clock = match([0, 0, 40, 0, 0], 80, -20, 20, conditions=conditions,
                  limits={"nodes": None, "description": "tc=5+0.05"})
    assert conditions_text(clock) == (
        "quiet before the match: 1-minute load average 0.30 before, 1.90 after (limit 0.6 "
        "before; the load after includes the match's own engines)")
    table = match_table(clock, "cmd")
    # The chapters state no wall-clock figures; the JSON keeps them.
    assert "wall" not in table and "10 min" not in table
    assert matchreport.limits_text(clock) == "tc=5+0.05"


def test_an_undecided_sprt_leads_the_verdict() -> None:
    capped = match([0, 2, 140, 8, 0], 300, -3, 40, sprt=sprt("continue", None, llr=2.83))
    assert verdict(capped) == (
        "the SPRT did not decide before the cap of 300 games (LLR 2.83, bounds ±2.94); the "
        "95% interval includes zero: not resolved")
    # Stopped early (an aborted run): not the cap, and asymmetric bounds are shown as such.
    aborted = match([0, 0, 20, 0, 0], 300, -20, 20,
                    sprt=sprt("continue", None, llr=0.12, lower_bound=-2.25, upper_bound=2.94))
    assert verdict(aborted).startswith(
        "the SPRT had not decided when the match ended after 40 of 300 planned games (LLR "
        "0.12, bounds [-2.25, 2.94]); the 95% interval")
    # Without an SPRT the interval alone speaks.
    assert verdict(match([0, 2, 140, 8, 0], 300, -3, 40)) == (
        "the 95% interval includes zero: not resolved")


def test_an_undecided_sprt_never_resolves_an_interval_above_zero() -> None:
    capped = match([11, 22, 59, 32, 26], 300, 15, 79, sprt=sprt("continue", None, llr=2.83))
    assert verdict(capped) == (
        "the SPRT did not decide before the cap of 300 games (LLR 2.83, bounds ±2.94); the "
        "whole 95% interval lies above zero, which makes the sign likely, but the SPRT the "
        "match was planned to stop on did not decide: not resolved")
    assert "resolved" not in verdict(capped).replace("not resolved", "")
    # Without an SPRT the same interval is a resolved gain.
    assert verdict(match([11, 22, 59, 32, 26], 300, 15, 79)).endswith(": the gain is resolved")


def test_an_undecided_sprt_never_resolves_an_interval_below_zero() -> None:
    capped = match([26, 32, 59, 22, 11], 300, -79, -15, sprt=sprt("continue", None, llr=-2.5))
    assert verdict(capped).endswith(
        "; the whole 95% interval lies below zero, which makes the sign likely, but the SPRT "
        "the match was planned to stop on did not decide: not resolved")
    assert "weaker" not in verdict(capped)
    assert verdict(match([26, 32, 59, 22, 11], 300, -79, -15)).endswith(
        ": the engine is weaker with it")


def test_games_lost_on_time_are_counted_on_a_clock_only() -> None:
    games = [{"white": "a", "black": "b", "result": "1-0", "termination": "time forfeit"},
             {"white": "a", "black": "b", "result": "0-1", "termination": "time forfeit"},
             {"white": "b", "black": "a", "result": "0-1", "termination": "normal"}]
    clock = match([0, 0, 1, 1, 0], 4, -20, 20, games=games, build="compiled",
                  limits={"nodes": None, "description": "tc=2+0.02"})
    assert matchreport.time_losses(clock) == {"a": 1, "b": 1}
    table = match_table(clock, "cmd")
    assert "| games lost on time | a 1; b 1 |" in table and "| build | compiled |" in table
    assert "| pairs played at once | 2 |" in table
    at_nodes = match_table(match([0, 0, 1, 1, 0], 4, -20, 20, games=games), "cmd")
    assert "on time" not in at_nodes and "| build | not recorded |" in at_nodes
    # The sentence the chapters put under a clock match: build, load and flags, from the file.
    clock["conditions"] = {"quiet": True, "load_before": 0.3, "load_after": 1.9,
                           "load_limit": 0.6}
    clock["limits"] |= {"base_seconds": 2.0, "increment_seconds": 0.02}
    assert matchreport.clock_text(clock) == "2 s + 0.02 s a move"
    assert matchreport.clock_conditions(clock) == (
        "the compiled build, on a machine checked quiet before the match (1-minute load "
        "average 0.3, limit 0.6), with 2 games lost on time (a 1; b 1)")
    # The machine's speed, where the match timed it: one run, then several.
    clock["conditions"]["speed"] = {"nps": 18_715}
    assert matchreport.clock_conditions(clock) == (
        "the compiled build, on a machine checked quiet before the match (1-minute load "
        "average 0.3, limit 0.6), with 2 games lost on time (a 1; b 1); Sunfish's fixed "
        "search ran at 18,715 nodes a second there (tools/calibrate.py)")
    assert "| machine speed | Sunfish's fixed search ran at 18,715 nodes a second" in (
        match_table(clock, "cmd"))
    clock["runs"] = [{"speed": {"nps": 18_000}}, {}, clock["conditions"]]
    assert matchreport.clock_conditions(clock).endswith(
        "ran at 18,000 to 18,715 nodes a second there (tools/calibrate.py), over 3 runs, 2 "
        "of them timed at their start: alike, by the band of no clear difference")
    # A start refused on another machine (elo_matches.start_run) is told after the runs.
    clock["refused_runs"] = [{"speed": {"nps": 22_000}}]
    assert matchreport.clock_conditions(clock).endswith(
        "alike, by the band of no clear difference; 1 start was refused by the check of the "
        "machine (timed at 22,000 nodes a second) and played nothing")
    del clock["refused_runs"]
    # The table's load over the runs: one of three recorded it, then every one, all quiet.
    assert ("| load | quiet before 1 of its 3 runs (2 recorded no load): 1-minute load "
            "average 0.30 before them, 1.90 after the last") in match_table(clock, "cmd")
    clock["runs"][:2] = [{"quiet": True, "load_before": 0.5}, {"quiet": True, "load_before": 0.4}]
    assert ("| load | quiet before each of its 3 runs: 1-minute load average 0.30 to 0.50 "
            "before them, 1.90 after the last (limit 0.6 before;") in match_table(clock, "cmd")
    assert matchreport.clock_conditions(clock).startswith(
        "the compiled build, on a machine checked quiet before each of its 3 runs (1-minute "
        "load average 0.3 to 0.5, limit 0.6)")
    clock["runs"][1]["quiet"] = False
    assert "| load | NOT quiet before 1 of its 3 runs: 1-minute" in match_table(clock, "cmd")
    assert ("on a machine NOT quiet before 1 of its 3 runs (1-minute load average 0.3 to 0.5, "
            "limit 0.6), so other work may have taken") in matchreport.clock_conditions(clock)
    # In the table no machine comes before the speed, so it says no "there".
    assert ("| machine speed | Sunfish's fixed search ran at 18,715 nodes a second "
            "(tools/calibrate.py), over 3 runs, 1 of them timed at its start |") in (
        match_table(clock, "cmd"))
    del clock["runs"], clock["conditions"]["speed"]
    loaded = match([0, 0, 1, 0, 0], 2, -20, 20, games=[], conditions={
        "quiet": False, "load_before": 2.4, "load_after": 3.0, "load_limit": 0.6})
    assert matchreport.clock_conditions(loaded) == (
        "a build the file does not record, on a machine NOT quiet before the match (1-minute "
        "load average 2.4, limit 0.6), so other work may have taken the engines' time and the "
        "result is suspect, with no game lost on time")
    assert matchreport.clock_conditions(match([0, 0, 1, 0, 0], 2, -20, 20)).endswith(
        "whose load was not recorded; the file keeps no games, so losses on time are not known")


@pytest.mark.parametrize(("record", "expected"), [
    (engine("a", hashfull={"mean_second_half": 312.4, "moves": 80}), ", 31.2% of the table"),
    (engine("a", hashfull={"mean_second_half": 0.49, "moves": 80}), ", 0.49‰ of the table"),
    (engine("a", hashfull={"mean_second_half": 10.0, "moves": 80}), ", 1.0% of the table"),
    (engine("a", options={"TT": False}, hashfull={"mean_second_half": 0.0, "moves": 80}),
     ", table off"),
])
def test_table_fill_is_never_rounded_away(record: dict, expected: str) -> None:
    text = search_text(record)
    assert expected in text
    assert ("filled" in text) != expected.endswith("table off")


class Planned:
    """A planned match in the shape of tools/elo_matches.py's Experiment."""

    opponent = ("name=stockfish-1800", "cmd=stockfish", "option.UCI_Elo=1800")
    limits = ("--tc", "10+0.1")
    games = 134
    build = "interpreted"
    both: tuple[str, ...] = ()


def against_stockfish(**fields: object) -> dict:
    """A stored match of cb2026 against Stockfish at UCI_Elo 1800, as planned above."""
    stockfish = engine("stockfish-1800", id_name="Stockfish 15.1",
                       options={"UCI_LimitStrength": True, "UCI_Elo": 1800})
    return match([1, 0, 1, 0, 1], 134, -50, 50, engines=[engine("cb2026"), stockfish],
                 limits={"description": "tc=10+0.1"}, build="interpreted") | fields


def test_a_match_as_planned_passes_the_check() -> None:
    matchreport.check_opponent_match("stockfish-1800", against_stockfish(), Planned())


@pytest.mark.parametrize("change", [
    {"engines": [engine("cb2026", blind_moves=1), engine("stockfish-1800",
                 id_name="Stockfish 15.1", options={"UCI_Elo": 1800})]},
    {"engines": [engine("cb2026"), engine("stockfish-1800", id_name="Stockfish 16",
                                          options={"UCI_Elo": 1800})]},
    {"engines": [engine("cb2026"), engine("stockfish-1800", id_name="Stockfish 15.1",
                                          options={"UCI_Elo": 2000})]},
    {"engines": [engine("cb2026"), engine("sunfish")]},
    {"build": "compiled"},
    {"engines": [engine("cb2026", options={"LMR": False}), engine(
        "stockfish-1800", id_name="Stockfish 15.1", options={"UCI_Elo": 1800})]},
    {"limits": {"description": "tc=5+0.05"}},
    {"games_played": 136},
])
def test_a_match_unlike_its_plan_fails_the_check(change: dict) -> None:
    with pytest.raises(AssertionError):
        matchreport.check_opponent_match("stockfish-1800", against_stockfish(**change),
                                         Planned())


def with_interval(lower: float | None, difference: float | None, upper: float | None) -> dict:
    """A match whose pairs gave this 95% interval."""
    found = match([2, 4, 30, 4, 2], 100, lower, upper)
    found["elo"] = found["elo"] | {"difference": difference, "confidence": 0.95}
    return found


def test_elo_difference_adds_the_two_errors_in_quadrature() -> None:
    # Margins of 30 and 40 Elo (95%): the difference's margin is 50, the triangle 3-4-5.
    later, earlier = with_interval(-10, 20, 50), with_interval(60, 100, 140)
    change, margin = matchreport.elo_difference(later, earlier)
    assert change == pytest.approx(-80) and margin == pytest.approx(50, rel=1e-3)
    assert matchreport.elo_difference(with_interval(None, None, 40), earlier) is None


def test_clock_against_nodes_says_whether_the_clock_changed_the_worth() -> None:
    fixed = with_interval(90, 166, 242)
    clock = with_interval(6, 38, 70)
    clock["engines"] = [engine("with", nodes_per_move=2788, depth={"mean": 3.68}),
                        engine("without", nodes_per_move=4100, depth={"mean": 4.02})]
    text = matchreport.clock_against_nodes(fixed, clock, "the evaluation")
    assert text.startswith("At 1,000 nodes a move the side with the evaluation scored +166 "
                           "[+90, +242] Elo, on the clock +38 [+6, +70].")
    assert "2,788 nodes a move against 4,100" in text and "3.68 on average against 4.02" in text
    # No pairs recorded: 38 - 166 = -128, margin hypot(32, 76) = 82, resolved, with the
    # other difference between the matches (the size of the searches) said beside it.
    assert ("With the two matches' errors combined as independent, the clock match rates it "
            "128 ± 82 Elo lower: resolved. It measures more than the time") in text
    near = with_interval(100, 150, 200)
    assert matchreport.clock_against_nodes(fixed, clock | {"elo": near["elo"]},
                                           "it").endswith("the clock's effect is not resolved.")
    open_ended = with_interval(None, None, 40)
    assert matchreport.clock_against_nodes(fixed, clock | {"elo": open_ended["elo"]},
                                           "it").endswith("without a comparison.")
    # A clock match whose SPRT ran out of games undecided resolves no difference either.
    undecided = clock | {"sprt": {"verdict": "continue"}}
    assert matchreport.clock_against_nodes(fixed, undecided, "it").endswith(
        "128 ± 82 Elo lower; but the SPRT of the clock match did not decide. The difference "
        "is not resolved.")
    # A fixed-node match its SPRT stopped early on H1 has a centre likely too high, which
    # widens a difference where the clock rates the technique lower...
    stopped = fixed | {"sprt": {"verdict": "H1 accepted"}, "games_planned": 1000}
    assert matchreport.clock_against_nodes(stopped, clock, "it").endswith(
        "the SPRT stopped the fixed-node match early, which likely moved its centre the way "
        "that widens this difference. The difference is likely but not resolved.")
    # Both at once: each reason is given, and the undecided SPRT decides the verdict.
    both = matchreport.clock_against_nodes(stopped, undecided, "it")
    assert both.endswith("the SPRT of the clock match did not decide, and the SPRT stopped "
                         "the fixed-node match early, which likely moved its centre the way "
                         "that widens this difference. The difference is not resolved.")
    # ... but not one where the clock rates it higher.
    high_clock = clock | {"elo": with_interval(280, 330, 380)["elo"]}
    assert matchreport.clock_against_nodes(stopped, high_clock, "it").endswith(
        "what the technique is worth can change with that size.")


def with_pairs(points: list[float], openings: list[str] | None = None) -> dict:
    """A match whose pairs, in schedule order, gave the first engine these points (0-2)."""
    names = openings or [f"opening-{index}" for index in range(len(points))]
    return {"pairs": [{"pair": index + 1, "opening": name, "first_engine_points": score}
                      for index, (score, name) in enumerate(zip(points, names, strict=True))]}


def test_clock_against_nodes_compares_the_shared_pairs_and_says_how_the_centres_differ() -> None:
    # Ten openings each; the clock match lost two pairs the fixed-node match drew. Its own
    # centre is taken from a longer run (made up here), so the two centres differ by more
    # than the pairs both played say, and the sentence gives both figures.
    fixed = with_interval(-20, 10, 40) | with_pairs([1.0] * 8 + [1.5, 0.5])
    clock = with_interval(-90, -60, -30) | with_pairs([1.0] * 6 + [0.0, 0.5, 1.5, 0.5])
    clock["engines"] = [engine("with", nodes_per_move=900, depth={"mean": 3.0}),
                        engine("without", nodes_per_move=1000, depth={"mean": 3.1})]
    change, margin, count = matchreport.paired_difference(clock, fixed)
    assert (round(change), round(margin), count) == (-53, 74, 10)
    text = matchreport.clock_against_nodes(fixed, clock, "it")
    assert text.endswith("Compared pair by pair on the 10 openings both matches played (the "
                         "openings' luck cancels), the clock match rates it -53 ± 74 Elo "
                         "against the fixed-node one (over all their games the two centres "
                         "differ by 70): the clock's effect is not resolved.")


def test_paired_difference_lets_the_openings_luck_cancel() -> None:
    points = [2.0, 1.0, 1.5, 0.5, 1.0, 2.0, 1.0, 1.5]
    # The same results from the same openings: no difference, and no doubt about it.
    change, margin, count = matchreport.paired_difference(with_pairs(points),
                                                          with_pairs(points))
    assert (change, margin, count) == (pytest.approx(0), pytest.approx(0), 8)
    # Against an even match (every pair 1-1) only the later match's spread is left: the
    # delta method by hand, d(Elo)/d(score) = 400 / (ln 10 * s * (1 - s)).
    scores = [value / 2 for value in points]
    mean = statistics.fmean(scores)
    slope = 400 / (math.log(10) * mean * (1 - mean))
    expected_margin = 1.96 * slope * statistics.stdev(scores) / math.sqrt(len(scores))
    change, margin, _ = matchreport.paired_difference(with_pairs(points),
                                                      with_pairs([1.0] * len(points)))
    assert change == pytest.approx(-400 * math.log10(1 / mean - 1))
    assert margin == pytest.approx(expected_margin)
    # Only pairs played from the same opening at the same place count.
    other = with_pairs(points, [f"other-{index}" for index in range(len(points))])
    assert matchreport.paired_difference(other, with_pairs(points)) is None
    # A score of all or nothing has no finite Elo.
    assert matchreport.paired_difference(with_pairs([2.0] * 4), with_pairs(points)) is None


def test_a_match_says_when_other_code_played_it() -> None:
    code = {"search.py": "aaaa", "tt.py": "bbbb"}
    assert matchreport.code_note({"sources": dict(code)}, code) == ""
    changed = matchreport.code_note({"sources": {**code, "search.py": "cccc"}}, code)
    assert "search.py" in changed and "tt.py" not in changed
    assert "does not say" in matchreport.code_note({}, code)


def test_code_digests_ignore_comments_docstrings_and_layout() -> None:
    from compile_engine import code_digest  # tools/, on the path through matchreport

    module = '''"""A module."""

def margin(depth: int) -> int:
    """The margin."""
    return 100 * depth  # per ply
'''
    reworded = '''"""The same module, described again."""


def margin(depth: int) -> int:
    """A docstring that says more, over
    two lines."""
    # A comment of its own line.
    return 100 * (depth)
'''
    assert code_digest(module) == code_digest(reworded)
    # Any change to what runs is a change: a value, a name, an operator.
    for changed in ("100 * depth", "120 * depth", "100 + depth"):
        other = module.replace("return 100 * depth", f"return {changed}")
        assert (code_digest(other) == code_digest(module)) == (changed == "100 * depth")
    renamed = module.replace("def margin", "def futility_margin")
    assert code_digest(renamed) != code_digest(module)
    # A string that is a value, not a docstring, counts.
    valued = module.replace("return 100 * depth", 'return len("ab") * depth')
    assert code_digest(valued) != code_digest(module.replace("100 *", "2 *"))


def test_sentence_helpers() -> None:
    assert [matchreport.joined(items) for items in (["a"], ["a", "b"], ["a", "b", "c"])] \
        == ["a", "a and b", "a, b and c"]
    assert matchreport.as_many(5.2) == "about a fifth as many"
    assert matchreport.as_many(2.1) == "about half as many"
    assert matchreport.as_many(1.7) == "59% as many"  # not "about half": too far from it
    assert matchreport.as_many(2.4) == "42% as many"
    assert matchreport.as_many(25) == "4% as many"


def test_stockfish_skill_levels_follow_the_2019_formula() -> None:
    # Stockfish 15.1's search.cpp: level = ((UCI_Elo - 1346.6) / 143.4) ** (1 / 0.806),
    # and the move picked at depth 1 + the level's whole part. The fit runs the other way,
    # UCI_Elo = 1346.6 + 143.4 * level ** 0.806: each level must give back its UCI_Elo.
    for uci_elo in range(1350, 2851, 50):
        level = matchreport.skill_level(uci_elo)
        assert 1346.6 + 143.4 * level**0.806 == pytest.approx(uci_elo)
        assert matchreport.pick_depth(uci_elo) == 1 + math.floor(level)
    # The option's edges (1350 to 2850 in 15.1) and the levels the book plays.
    assert matchreport.pick_depth(1350) == 1
    assert matchreport.skill_level(2850) == pytest.approx(18.46, abs=0.01)
    assert [matchreport.pick_depth(level) for level in (1500, 1650, 1800, 2000, 2200)] == [
        2, 3, 5, 7, 10]
    for outside in (1349, 2851):
        with pytest.raises(ValueError, match="UCI_Elo"):
            matchreport.skill_level(outside)
