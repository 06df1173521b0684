"""Which processor played which games of a match that moved to another processor.

A clock match resumes only on a machine like the ones it ran on so far, unless it is moved
on purpose (`elo_matches.py --another-processor`, chapter 18). Every run of a match records its
processor and the games played before it began (quiet.record_run), so the games of each
processor, its timings of the machine and, once the match has ended, cb2026's score on it can
be read back from the match's file. The functions here do that for chapter 18's ladder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from matchreport import ROUGH_PAIRS, joined
from strengthchart import processors, run_processor

from quiet import refused_clause, runs_of, speed_clause  # tools/quiet.py

UNRECORDED = "a processor not recorded"


def stretches(record: dict, total: int) -> list[tuple[str, list[int]]]:
    """Return the first `total` games of a match as stretches played on one processor each,
    in order: (processor, the games' numbers from 1), from its runs' `games_before`. Games
    before the first recorded run belong to no recorded processor."""
    runs = runs_of(record)
    starts = [run.get("games_before", 0) for run in runs]
    played: list[tuple[str, list[int]]] = []
    if starts[0] > 0:
        played.append((UNRECORDED, list(range(1, min(starts[0], total) + 1))))
    for run, start, end in zip(runs, starts, [*starts[1:], total], strict=True):
        games = list(range(start + 1, min(end, total) + 1))
        cpu = run_processor(run, record) or UNRECORDED
        if games and played and played[-1][0] == cpu:
            played[-1][1].extend(games)
        elif games:
            played.append((cpu, games))
    return played


def games_by_processor(record: dict, total: int) -> dict[str, list[int]]:
    """Return the numbers (from 1) of the first `total` games of a match that each processor
    played, in the order the processors first played."""
    played: dict[str, list[int]] = {}
    for cpu, games in stretches(record, total):
        played.setdefault(cpu, []).extend(games)
    return played


def runs_by_processor(record: dict) -> dict[str, list[dict]]:
    """Return a match's runs grouped by processor, in the order the processors first ran."""
    grouped: dict[str, list[dict]] = {}
    for run in runs_of(record):
        grouped.setdefault(run_processor(run, record) or UNRECORDED, []).append(run)
    return grouped


def moved(record: dict) -> bool:
    """Whether a match's runs recorded more than one processor."""
    return len(processors(record)) > 1


SPEED_WORDS = "Sunfish's fixed search ran at "  # how quiet.speed_clause begins
CALIBRATE = " (tools/calibrate.py)"  # and the tool it names


def timings_by_processor(record: dict) -> str:
    """Return each processor's timings of the machine, in quiet.speed_clause's words, with
    the starts refused at the end: "Sunfish's fixed search ran at ... on Intel Xeon
    (tools/calibrate.py) ...; and at ... on AMD EPYC ..."."""
    clauses = []
    for cpu, runs in runs_by_processor(record).items():
        # Each processor's runs on their own: a first run that found games played would
        # otherwise be counted as following a run that recorded nothing (quiet.run_count).
        own = [{**runs[0], "games_before": 0}, *runs[1:]]
        clause = speed_clause({"runs": own}, f" on {cpu}")
        if len(runs) == 1 and runs[0].get("games_before", 0) > 0:
            # speed_clause calls the start of a lone run timed twice the match's start;
            # this run began where another processor stopped.
            clause = clause.replace("at the match's start and", "at the start of its run and", 1)
        if clause and clauses:
            clause = "and at " + clause.removeprefix(SPEED_WORDS).replace(CALIBRATE, "", 1)
        if clause:
            clauses.append(clause)
    refused = refused_clause(record)
    if refused:  # the processors the refused starts were timed on
        cpus = joined(list(runs_by_processor({"runs": record["refused_runs"]})))
        refused = refused.replace(" refused by the check", f" refused on {cpus} by the check", 1)
    return "; ".join([*clauses, *([refused] if refused else [])])


def games_by_processor_text(record: dict, total: int) -> str:
    """Return how many of a match's first `total` games each stretch on one processor
    played: "122 on Intel Xeon, then 40 on AMD EPYC"."""
    return ", then ".join(f"{len(games)} on {cpu}" for cpu, games in stretches(record, total))


@dataclass
class ProcessorScore:
    """cb2026's score on one processor: its pairs' scores per game (points over two)."""

    processor: str
    games: int
    pair_scores: list[float]

    @property
    def score(self) -> float:
        """The mean score per game over the processor's whole pairs."""
        return sum(self.pair_scores) / len(self.pair_scores)

    @property
    def variance_of_mean(self) -> float:
        """The variance of `score`, from the pairs' sample variance."""
        count = len(self.pair_scores)
        squares = sum((pair - self.score) ** 2 for pair in self.pair_scores)
        return squares / (count - 1) / count


def scores_by_processor(match: dict) -> tuple[list[ProcessorScore], int]:
    """Return cb2026's score on each processor of a finished match, from the game pairs whose
    two games one processor played, and how many pairs two processors shared (a run stopped
    between a pair's games; such a pair counts for neither). A processor with fewer than two
    whole pairs has no score (no variance) and is left out."""
    games = games_by_processor(match, match["games_played"])
    processor_of = {number: cpu for cpu, numbers in games.items() for number in numbers}
    pair_scores: dict[str, list[float]] = {cpu: [] for cpu in games}
    shared = 0
    for pair in match["pairs"]:
        first, second = 2 * pair["pair"] - 1, 2 * pair["pair"]
        if processor_of[first] != processor_of[second]:
            shared += 1
            continue
        pair_scores[processor_of[first]].append(pair["first_engine_points"] / 2)
    return [ProcessorScore(cpu, len(games[cpu]), pair_scores[cpu])
            for cpu in games if len(pair_scores[cpu]) > 1], shared


def score_difference(first: ProcessorScore, second: ProcessorScore,
                     confidence: float = 0.95) -> tuple[float, float, float]:
    """Return `second`'s score minus `first`'s, in points per game, with the bounds of its
    interval: the pairs of the two are independent samples (other openings, other games)."""
    difference = second.score - first.score
    margin = NormalDist().inv_cdf((1 + confidence) / 2) * math.sqrt(
        first.variance_of_mean + second.variance_of_mean)
    return difference, difference - margin, difference + margin


def percent_points(value: float) -> str:
    """Return a share as signed percentage points: "+3.5"."""
    return f"{100 * value:+.1f}"


def scores_text(match: dict) -> str:
    """Return what cb2026 scored on each processor of a finished match that moved, and,
    with at least ROUGH_PAIRS pairs on each of the first two processors, whether their
    scores differ beyond the games' luck; "" for a match played on one processor."""
    if not moved(match):
        return ""
    scores, shared = scores_by_processor(match)
    each = joined([f"{100 * part.score:.1f}% of the points in {len(part.pair_scores)} pairs "
                   f"on {part.processor}" for part in scores])
    text = f"cb2026 scored {each}"
    if shared:
        text += (f" (and {shared} pair{'s' * (shared > 1)} split between two processors, "
                 "counted for neither)")
    if len(scores) < 2:
        return text + "."
    fewest = min(scores[:2], key=lambda part: len(part.pair_scores))
    if len(fewest.pair_scores) < ROUGH_PAIRS:
        # The normal interval is too narrow on a handful of pairs (matchreport's rule).
        return (f"{text}; with {len(fewest.pair_scores)} pairs on {fewest.processor}, fewer "
                f"than {ROUGH_PAIRS}, the two are not compared.")
    difference, lower, upper = score_difference(scores[0], scores[1])
    resolved = lower > 0 or upper < 0
    return (f"{text}. cb2026's score on {scores[1].processor} minus its score on "
            f"{scores[0].processor} is {percent_points(difference)} percentage points (95% "
            f"interval {percent_points(lower)} to {percent_points(upper)}): "
            + ("a difference beyond these games' luck, so the move may have changed how the "
               "engines stand (other openings and other sessions differ too), and the rung's "
               "result mixes the two processors' games." if resolved else
               "no difference these games resolve, though they cannot rule out one as large "
               "as the interval's ends."))
