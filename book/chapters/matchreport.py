"""Renders a stored match of the book (book/data/STAGE/elo-NAME.json) for a chapter.

The match runner of chapter 7.1 writes everything a chapter needs into its JSON file: the
engines and limits, the pentanomial counts of the game pairs with the Elo, interval and LOS
computed from them, the SPRT if one ran, and what each engine reported about its searches.
The "What it's worth" sections of chapters 5, 6, 8 and 8.1 show those files through the functions
here, so that every chapter states the same conditions in the same words, and the verdict
in the prose is computed from the data, never typed.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from statistics import NormalDist
from typing import Protocol

import chess.pgn

from compile_engine import changed_modules  # tools/compile_engine.py
from quiet import run_count, speed_clause  # tools/quiet.py


def load_match(path: Path, command: str) -> dict:
    """Return a stored match; fail with the command that plays it if the file is missing."""
    assert path.exists(), f"{path} is missing: run `{command}` (it plays the match)"
    match = json.loads(path.read_text())
    assert "pentanomial" in match, f"{path} predates game pairs: run `{command}` again"
    return match


# An interval from fewer pairs than this is called rough: by a common convention the normal
# approximation behind it is trusted from about 30 samples on, and the runner's SPRT waits as
# long before it may stop. It equals SPRT_MIN_PAIRS of chapter 7.1 (tests/test_elo.py checks),
# which chapters 5 and 6 cannot import: their engine has no elo module yet.
ROUGH_PAIRS = 30


def signed(value: float | None, unbounded: str) -> str:
    """Return an Elo figure with its sign, or `unbounded` for an open end."""
    return unbounded if value is None else f"{value:+.0f}"


def rough_note(pairs: int) -> str:
    """Return " (rough: N pairs)" for an interval from fewer than ROUGH_PAIRS pairs, else ""."""
    return f" (rough: {pairs} pairs)" if pairs < ROUGH_PAIRS else ""


def bounds_text(elo: dict) -> str:
    """Return the 95% interval of an Elo estimate: "[-12, +40]"."""
    return f"[{signed(elo['lower'], '-inf')}, {signed(elo['upper'], '+inf')}]"


def interval_text(elo: dict, pairs: int | None = None) -> str:
    """Return an Elo estimate with its 95% interval, rough when `pairs` are few."""
    return (f"{signed(elo['difference'], 'n/a')} {bounds_text(elo)}"
            + ("" if pairs is None else rough_note(pairs)))


def finite(elo: dict) -> bool:
    """True if an Elo record has both ends of its interval and a centre."""
    return None not in (elo["lower"], elo["difference"], elo["upper"])


def sigma(elo: dict) -> float:
    """The standard error behind a finite interval: its half-width over its z value."""
    z = NormalDist().inv_cdf(0.5 + elo.get("confidence", 0.95) / 2)
    return (elo["upper"] - elo["lower"]) / 2 / z


UCI_ELO_RANGE = (1350, 2850)  # Stockfish 15.1's UCI_Elo option: its least and greatest


def skill_level(uci_elo: int) -> float:
    """Return the skill level at which Stockfish 15.1 plays a `UCI_Elo` (search.cpp's
    Skill: the 2019 fit of PR #2225, kept within 0 to 20)."""
    if not UCI_ELO_RANGE[0] <= uci_elo <= UCI_ELO_RANGE[1]:
        raise ValueError(f"Stockfish 15.1 takes UCI_Elo from {UCI_ELO_RANGE[0]} to "
                         f"{UCI_ELO_RANGE[1]}, not {uci_elo}")
    return min(((uci_elo - 1346.6) / 143.4) ** (1 / 0.806), 20.0)


def pick_depth(uci_elo: int) -> int:
    """Return the depth whose iteration picks Stockfish 15.1's weakened move
    (Skill::time_to_pick: 1 + the level's whole part), for chapters 15 and 18."""
    return 1 + int(skill_level(uci_elo))


def elo_difference(later: dict, earlier: dict) -> tuple[float, float] | None:
    """One match's Elo minus another's and the 95% margin of that difference, the two
    matches' errors added in quadrature as independent; None if an interval is open."""
    if not (finite(later["elo"]) and finite(earlier["elo"])):
        return None
    return (later["elo"]["difference"] - earlier["elo"]["difference"],
            1.96 * math.hypot(sigma(later["elo"]), sigma(earlier["elo"])))


def limits_text(match: dict) -> str:
    """Return the search limits the match was played with."""
    limits = match["limits"]
    return f"{limits['nodes']:,} nodes per move" if limits["nodes"] else limits["description"]


def hash_text(engine: dict) -> str:
    """Return the size of one engine's hash table: set for the match, or its default."""
    options = engine["options"]
    # The switches of chapters 8 and 8.1: the table, and its buckets, can be turned off.
    if options.get("TT") is False:
        return "table off (option TT false)"
    chosen = options.get("Hash")
    slots = options.get("TableSlots")
    buckets = ", buckets off (option Buckets false)" if options.get("Buckets") is False else ""
    if slots:  # chapter 8's option for experiments: the size in slots, whatever Hash says
        return f"{slots:,} slots (option TableSlots, set for the match){buckets}"
    if "hash_mb" in engine:
        size = engine["hash_mb"]
        # The runner asked the engine: None means it declares no Hash option (it may still
        # keep a table of its own, as Sunfish does).
        if size is None:
            return "not declared by the engine"
    elif chosen is not None:
        size = chosen
    else:  # an older file, from before the runner asked the engine
        return "its default size" if engine.get("hashfull", {}).get("moves") else "not recorded"
    return f"{size} MB" + (" (set for the match)" if chosen is not None else " (its default)") \
        + buckets


def load_before(match: dict) -> tuple[str, bool, list[float]]:
    """Return when the machine's load was checked before a match ("before the match", or for
    a resumed match "before each of its 3 runs"), whether it was quiet every time, and the
    loads found. A match with `conditions` only, or one run, was checked once."""
    conditions = match["conditions"]
    total = run_count(match)
    checked = [run for run in match.get("runs") or [] if run.get("load_before") is not None]
    if total < 2 or not checked:
        return "before the match", conditions["quiet"], [conditions["load_before"]]
    loads = [run["load_before"] for run in checked]
    unrecorded = (f" ({total - len(checked)} recorded no load)"
                  if len(checked) < total else "")
    loud = sum(1 for run in checked if not run["quiet"])
    if loud:
        return f"before {loud} of its {total} runs{unrecorded}", False, loads
    if unrecorded:
        return f"before {len(checked)} of its {total} runs{unrecorded}", True, loads
    return f"before each of its {total} runs", True, loads


def loads_text(loads: list[float], form: str = "") -> str:
    """Return load averages as one figure, or as a range where they differ."""
    low, high = format(min(loads), form), format(max(loads), form)
    return low if low == high else f"{low} to {high}"


def conditions_text(match: dict) -> str:
    """Return how loaded the machine was, and whether the limits let load change the games."""
    conditions = match.get("conditions")
    if conditions is None:
        return "not recorded"
    # "quiet" judges the load before the match only: the load after includes its engines.
    where, quiet, loads = load_before(match)
    resumed = where != "before the match"
    text = (f"{'quiet' if quiet else 'NOT quiet'} {where}: 1-minute load average "
            f"{loads_text(loads, '.2f')} before{' them' if resumed else ''}, "
            f"{conditions['load_after']:.2f} after{' the last' if resumed else ''} (limit "
            f"{conditions['load_limit']} before; the load after includes the match's own "
            "engines)")
    if match["limits"]["nodes"]:
        text += "; at fixed nodes load does not change the games"
    return text


def sprt_decided(match: dict) -> bool:
    """Return True if an SPRT stopped the match with a verdict."""
    return (match.get("sprt") or {}).get("verdict", "continue") != "continue"


def pairs_text(count: int) -> str:
    """Return "1 pair" or "N pairs"."""
    return f"{count} pair" if count == 1 else f"{count} pairs"


def joined(items: list[str]) -> str:
    """Return `items` as a list in a sentence: "a", "a and b", "a, b and c"."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 1 else items)


def as_many(ratio: float) -> str:
    """Return a count that is 1 / ratio of another in words: "about a fifth as many",
    or as a percentage where no simple fraction lies within a tenth of it."""
    fractions = {2: "half", 3: "a third", 4: "a quarter", 5: "a fifth", 6: "a sixth",
                 7: "a seventh", 8: "an eighth", 9: "a ninth", 10: "a tenth"}
    whole = round(ratio)
    # "About half" for 1.7 would call 59% a half: the words only where they are near.
    near = whole in fractions and abs(ratio / whole - 1) <= 0.1
    return f"about {fractions[whole]} as many" if near else f"{1 / ratio:.0%} as many"


def games_text(match: dict) -> str:
    """Return the games and pairs played, and what ended the match: the SPRT or the cap."""
    played, planned = match["games_played"], match["games_planned"]
    pairs = sum(match["pentanomial"])
    text = f"{played} ({pairs})"
    # The command in the table does not show --resume: say how many games an earlier run gave.
    if match.get("games_resumed"):
        earlier = run_count(match) - 1  # the runs before the one that finished
        runs = "an earlier run" if earlier < 2 else f"{earlier} earlier runs"
        text += f", {match['games_resumed']} of them from {runs} (`--resume`)"
    if sprt_decided(match):
        # Pairs already being played when the SPRT decided are finished and counted.
        late = pairs - (match["sprt"].get("pairs_at_verdict") or pairs)
        finished = (f"; {pairs_text(late)} more, already in flight, finished after the "
                    "verdict" if late > 0 else "")
        return text + f", stopped by the SPRT (cap {planned:,}{finished})"
    if played >= planned:
        return text + (f", capped at {planned:,} before the SPRT decided" if match.get("sprt")
                       else ", as planned")
    return text + f" of {planned:,} planned"


def sprt_text(match: dict) -> str | None:
    """Return the SPRT's hypotheses and outcome, or None if the match ran without one."""
    sprt = match.get("sprt")
    if not sprt:
        return None
    minimum = (f", min_pairs = {sprt['min_pairs']}" if "min_pairs" in sprt
               else ", no minimum number of pairs (played before the runner had one)")
    at = f" after {sprt['pairs_at_verdict']} pairs" if sprt.get("pairs_at_verdict") else ""
    return (f"elo0 = {sprt['elo0']:g}, elo1 = {sprt['elo1']:g}, alpha = {sprt['alpha']:g}, "
            f"beta = {sprt['beta']:g}{minimum}: LLR {sprt['llr']:.2f} in "
            f"[{sprt['lower_bound']:.2f}, {sprt['upper_bound']:.2f}], {sprt['verdict']}{at}")


def los_text(los: float | None, pairs: int) -> str:
    """Return the likelihood of superiority, never rounded to a certainty, rough when few."""
    if los is None:
        return "n/a"
    if los >= 0.9995:
        text = "> 99.9%"
    elif los < 0.0005:
        text = "< 0.1%"
    else:
        text = f"{los:.1%}"
    return text + rough_note(pairs)


def search_text(engine: dict) -> str:
    """Return what one engine's searches reached: depth, nodes, blind moves, table fill."""
    depth = engine["depth"]
    text = (f"depth {depth['mean']:.1f} on average (median {depth['median']:g}), "
            f"{engine['nodes_per_move']:,.0f} nodes per move, "
            f"{engine['blind_moves']} blind moves of {engine['moves']:,}")
    if engine["options"].get("TT") is False:  # chapter 8's switch: no table to fill
        return text + ", table off"
    hashfull = engine.get("hashfull") or {}
    if hashfull.get("mean_second_half") is not None:
        # The runner averages the moves of the second half of every game, not of the match.
        text += (f", {fill_text(hashfull['mean_second_half'])} of the table filled by each "
                 f"search in the second half of each game")
    return text


def fill_text(per_mille: float) -> str:
    """Return a mean `hashfull` (per mille): "47.5%", or "0.49‰" below one per cent."""
    # A short search in a large table fills a fraction of a per cent, which "0.0%" would hide.
    if per_mille < 10:
        return f"{per_mille:.2f}‰"
    return f"{per_mille / 10:.1f}%"


def time_losses(match: dict) -> dict[str, int] | None:
    """Return the games each engine lost on time, or None if the file keeps no games."""
    if "games" not in match:
        return None
    losses = {engine["name"]: 0 for engine in match["engines"]}
    for game in match["games"]:
        # The runner's termination for a flag that fell, or an engine that stopped answering.
        if game["termination"] == "time forfeit":
            loser = game["black"] if game["result"] == "1-0" else game["white"]
            losses[loser] = losses.get(loser, 0) + 1
    return losses


def time_losses_text(match: dict) -> str:
    """Return the games lost on time, per engine, or "not recorded"."""
    losses = time_losses(match)
    if losses is None:
        return "not recorded"
    return "; ".join(f"{name} {count}" for name, count in losses.items())


def clock_text(match: dict) -> str:
    """Return a match's clock in words: "2 s + 0.02 s a move"."""
    limits = match["limits"]
    return f"{limits['base_seconds']:g} s + {limits['increment_seconds']:g} s a move"


def games_word(count: int) -> str:
    """Return "1 game" or "N games"."""
    return f"{count} game" if count == 1 else f"{count} games"


def clock_conditions(match: dict, with_speed: bool = True) -> str:
    """Return, for a match on a clock, its build, how loaded the machine was, the games lost
    on time and, unless `with_speed` is False, the machine's speed with any start refused for
    another machine, all from the file: "the compiled build, on a machine checked quiet ...".
    (A match moved to another processor gives each processor's speeds and refusals instead,
    processorsplit.timings_by_processor.)"""
    build = match.get("build")
    text = f"the {build} build" if build else "a build the file does not record"
    conditions = match.get("conditions")
    if conditions is None:
        text += ", on a machine whose load was not recorded"
    else:
        where, quiet, loads = load_before(match)
        load = f"(1-minute load average {loads_text(loads)}, limit {conditions['load_limit']})"
        text += (f", on a machine checked quiet {where} {load}" if quiet else
                 f", on a machine NOT quiet {where} {load}, so other work may have taken the "
                 "engines' time and the result is suspect")
    losses = time_losses(match)
    if losses is None:
        text += "; the file keeps no games, so losses on time are not known"
    elif not sum(losses.values()):
        text += ", with no game lost on time"
    else:
        text += (f", with {games_word(sum(losses.values()))} lost on time "
                 f"({time_losses_text(match)})")
    timings = speed_clause(match) if with_speed else ""  # the machine's speed, if timed
    return f"{text}; {timings}" if timings else text


def match_table(match: dict, command: str) -> str:
    """Return a Markdown table of a stored match: conditions, results, statistics."""
    first, second = match["engines"]
    elo = match["elo"]
    counts = match["pentanomial"]
    pairs = sum(counts)
    sprt = sprt_text(match)
    # An SPRT that stopped the match decided how long it ran: its verdict comes first.
    leading = [("SPRT", sprt)] if sprt and sprt_decided(match) else []
    # The engines head the table: a Markdown table needs a header row, and an empty one
    # shows as an empty bar on the page.
    header = ("engines", f"{first['name']} vs {second['name']}")
    rows = [
        *leading,
        ("limits", limits_text(match)),
        ("hash table", "; ".join(f"{engine['name']} {hash_text(engine)}"
                                 for engine in (first, second))),
        ("openings", f"{match['openings']['source']}, one per pair"),
        ("games (pairs)", games_text(match)),
        (f"wins / losses / draws for {first['name']}",
         f"{match['wins']} / {match['losses']} / {match['draws']}"),
        ("pairs scoring 0, ½, 1, 1½, 2", " / ".join(map(str, counts))),
        ("pairs whose two games have the same moves",
         f"{match['pairs_with_same_moves']} of {pairs}"),
        ("Elo, 95% interval (pairs)", interval_text(elo, pairs)),
        ("LOS", los_text(elo["los"], pairs)),
        ("draw ratio", f"{elo['draw_ratio']:.1%}"),
        ("Elo, games counted singly", interval_text(match["elo_games_counted_singly"], pairs)),
    ]
    if sprt and not leading:
        rows.append(("SPRT", sprt))
    rows += [(f"{engine['name']} searched", search_text(engine)) for engine in (first, second)]
    if not match["limits"]["nodes"]:  # only on a clock can a flag fall
        rows.append(("games lost on time", time_losses_text(match)))
    machine = match["machine"]
    # The wall time stays in the JSON file: a chapter states no wall-clock figures.
    rows += [
        ("machine", f"{machine['cpu_model']}, {machine['cpu_count']} cores, "
                    f"Python {machine['python']}"),
        ("build", match.get("build", "not recorded")),
        ("pairs played at once", str(match.get("concurrency", "not recorded"))),
        ("load", conditions_text(match)),
    ]
    speed = speed_clause(match, place="")  # a match on a clock times the machine
    if speed:
        rows.append(("machine speed", speed))
    rows.append(("command", f"`{command}`"))
    return "\n".join(f"| {key} | {value} |" for key, value in [header, ("---", "---"), *rows])


def interval_finding(match: dict, sprt_undecided: bool = False) -> str:
    """Return what the 95% interval of the pairs says about the first engine; never
    "resolved" after an SPRT that did not decide (`sprt_undecided`)."""
    elo = match["elo"]
    pairs = sum(match["pentanomial"])
    # From few pairs an interval that excludes zero makes the sign likely, not the size.
    few = f", from only {pairs} pairs: the sign is likely, its size is not" if (
        pairs < ROUGH_PAIRS) else ""
    # The match was planned to stop on its SPRT: without the SPRT's verdict an interval
    # clear of zero makes the sign likely, and settles nothing.
    unsettled = (", which makes the sign likely, but the SPRT the match was planned to stop "
                 "on did not decide: not resolved")
    if elo["lower"] is not None and elo["lower"] > 0:
        return "the whole 95% interval lies above zero" + (
            few or (unsettled if sprt_undecided else ": the gain is resolved"))
    if elo["upper"] is not None and elo["upper"] < 0:
        return "the whole 95% interval lies below zero" + (
            few or (unsettled if sprt_undecided else ": the engine is weaker with it"))
    return f"the 95% interval{rough_note(pairs)} includes zero: not resolved"


def hypothesis_text(elo: float) -> str:
    """Return an SPRT hypothesis in words: "a gain of 20 Elo", "a loss of 5 Elo", "none"."""
    if elo == 0:
        return "none"
    return f"a {'gain' if elo > 0 else 'loss'} of {abs(elo):g} Elo"


def rejected_text(match: dict) -> str:
    """Return what the interval says after the SPRT accepted H0: is elo1 out of it, the sign?"""
    elo, elo1 = match["elo"], match["sprt"]["elo1"]
    lower = -math.inf if elo["lower"] is None else elo["lower"]
    upper = math.inf if elo["upper"] is None else elo["upper"]
    bound = f"{'excludes' if upper < elo1 else 'still includes'} {elo1:+g}"
    sign = ("the sign is not resolved" if lower <= 0 <= upper
            else "it lies below zero" if upper < 0 else "it lies above zero")
    return (f"the 95% interval {bounds_text(elo)}{rough_note(sum(match['pentanomial']))} "
            f"{bound}; {sign}")


def undecided_text(match: dict) -> str:
    """Return that an SPRT ran without deciding: before the cap, or before the match ended."""
    sprt = match["sprt"]
    lower, upper = sprt["lower_bound"], sprt["upper_bound"]
    bounds = (f"±{upper:.2f}" if round(-lower, 2) == round(upper, 2)
              else f"[{lower:.2f}, {upper:.2f}]")
    played, planned = match["games_played"], match["games_planned"]
    outcome = (f"did not decide before the cap of {planned} games" if played >= planned
               else f"had not decided when the match ended after {played} of {planned} "
                    f"planned games")
    return f"the SPRT {outcome} (LLR {sprt['llr']:.2f}, bounds {bounds})"


def verdict(match: dict) -> str:
    """Return what the match shows about the first engine, as its SPRT and interval allow."""
    if not sprt_decided(match):
        # An SPRT that ran out of games says so first: the interval is all that is left.
        if match.get("sprt"):
            return f"{undecided_text(match)}; {interval_finding(match, sprt_undecided=True)}"
        return interval_finding(match)
    sprt = match["sprt"]
    at = f" at pair {sprt['pairs_at_verdict']}" if sprt.get("pairs_at_verdict") else ""
    # The SPRT decided the match, so its verdict leads.
    if sprt["verdict"] == "H1 accepted":
        return (f"the SPRT stopped the match{at}, H1 accepted: the games favour H1 "
                f"({hypothesis_text(sprt['elo1'])}) over H0 ({hypothesis_text(sprt['elo0'])}); "
                f"{interval_finding(match)}")
    return (f"the SPRT stopped the match{at}, H0 accepted: the games favour H0 "
            f"({hypothesis_text(sprt['elo0'])}) over H1 ({hypothesis_text(sprt['elo1'])}); "
            f"{rejected_text(match)}")


def stopped_early(match: dict) -> bool:
    """Return True if the match's SPRT stopped it with a verdict before its cap."""
    return sprt_decided(match) and match["games_played"] < match["games_planned"]


def early_centre(match: dict) -> str:
    """Which way an early SPRT stop likely moved the match's centre: "high" after H1,
    "low" after H0. A test that may stop at any pair stops on a run that went its way."""
    return "high" if match["sprt"]["verdict"] == "H1 accepted" else "low"


def early_stop_note(match: dict, what: str) -> str:
    """Return what an SPRT's stop before the cap does to the numbers of a match (`what`
    names it: "the clock match"), or "" for a match that was not stopped early."""
    if not stopped_early(match):
        return ""
    sprt, elo = match["sprt"], match["elo"]
    at = f" after {sprt['pairs_at_verdict']} pairs" if sprt.get("pairs_at_verdict") else ""
    centre = "" if elo["difference"] is None else f" ({elo['difference']:+.1f} Elo)"
    settles = ("the sign of the difference, not its size" if early_centre(match) == "high"
               else f"that the games favour no gain over a gain of {sprt['elo1']:g} Elo, not "
                    "the size of the difference")
    return (f"The SPRT stopped {what}{at}, before its cap of {match['games_planned']:,} "
            "games. A test that may stop at any pair tends to stop on a run that went its "
            f"way, so the centre of that match's interval{centre} is likely too "
            f"{early_centre(match)}, and the interval, computed as for a number of games "
            f"fixed in advance, somewhat too narrow: what the match settles is {settles}.")


def paired_difference(later: dict, earlier: dict) -> tuple[float, float, int] | None:
    """`later`'s Elo minus `earlier`'s on the pairs both matches played from the same
    opening at the same place in their schedules, with its 95% margin and the number of
    such pairs; None if there are fewer than two or a score is all or nothing.
    Two matches from the same openings share the openings' luck: pairing them removes it
    from the difference instead of counting it twice, as elo_difference must."""
    before = {(pair["pair"], pair["opening"]): pair["first_engine_points"]
              for pair in earlier.get("pairs", [])}
    # Each pair scores 0 to 2 points for the first engine; its score fraction is half that.
    common = [(pair["first_engine_points"] / 2, before[key] / 2)
              for pair in later.get("pairs", [])
              if (key := (pair["pair"], pair["opening"])) in before]
    if len(common) < 2:
        return None
    count = len(common)
    now_score = sum(now for now, _ in common) / count
    then_score = sum(then for _, then in common) / count
    if not (0 < now_score < 1 and 0 < then_score < 1):
        return None
    # Imported here, not at the top: chapters 5 and 6 use this module with an engine
    # older than chapter 7, which brings cb2026.elo.
    from cb2026.elo import elo_from_score

    def slope(score: float) -> float:  # d(elo_from_score)/d(score)
        return 400 / (math.log(10) * score * (1 - score))

    # The delta method on the two means, with their covariance over the shared openings.
    deviations = [(a - now_score, b - then_score) for a, b in common]
    variance_now = sum(a * a for a, _ in deviations) / (count - 1) / count
    variance_then = sum(b * b for _, b in deviations) / (count - 1) / count
    covariance = sum(a * b for a, b in deviations) / (count - 1) / count
    variance = (slope(now_score) ** 2 * variance_now + slope(then_score) ** 2 * variance_then
                - 2 * slope(now_score) * slope(then_score) * covariance)
    change = elo_from_score(now_score) - elo_from_score(then_score)
    return change, 1.96 * math.sqrt(max(variance, 0.0)), count


def clock_against_nodes(nodes_match: dict, clock_match: dict, what: str) -> str:
    """Set a technique's two self-play matches side by side. At fixed nodes `what` is worth
    what it knows or saves; on the clock it also pays for its time, in nodes. Say what
    the clock did to each side's search, whether the two worths differ, and what else
    stands between the two matches."""
    with_it, without = clock_match["engines"]
    budget = nodes_match["limits"]["nodes"]
    text = (f"At {budget:,} nodes a move the side with {what} scored "
            f"{interval_text(nodes_match['elo'])} Elo, on the clock "
            f"{interval_text(clock_match['elo'])}. On the clock the side "
            f"with it searched {with_it['nodes_per_move']:,.0f} nodes a move against "
            f"{without['nodes_per_move']:,.0f} and reached depth "
            f"{with_it['depth']['mean']:.2f} on average against "
            f"{without['depth']['mean']:.2f}. ")
    paired = paired_difference(clock_match, nodes_match)
    if paired is not None:
        change, margin, count = paired
        basis = (f"Compared pair by pair on the {count} openings both matches played (the "
                 "openings' luck cancels), the clock match")
        centres = [match["elo"]["difference"] for match in (clock_match, nodes_match)]
        # The pairs both played are not all the pairs of either: say so where it shows.
        whole = (f" (over all their games the two centres differ by "
                 f"{abs(centres[0] - centres[1]):.0f})"
                 if None not in centres and round(centres[0] - centres[1]) != round(change)
                 else "")
    else:
        difference = elo_difference(clock_match, nodes_match)
        if difference is None:
            return text + "An open interval leaves the two worths without a comparison."
        change, margin = difference
        basis = "With the two matches' errors combined as independent, the clock match"
        whole = ""
    if abs(change) <= margin:
        return text + (f"{basis} rates it {change:+.0f} ± {margin:.0f} Elo against the "
                       f"fixed-node one{whole}: the clock's effect is not resolved.")
    moved = (f"{basis} rates it {abs(change):.0f} ± {margin:.0f} Elo "
             f"{'lower' if change < 0 else 'higher'}{whole}")
    # As in interval_finding: a match planned to stop on its SPRT that ran out of games
    # undecided settles nothing, and neither does a difference taken from it.
    undecided = [kind for kind, match in (("fixed-node", nodes_match), ("clock", clock_match))
                 if match.get("sprt") and not sprt_decided(match)]
    # An early stop moves its match's centre the way its run went; when that is the way
    # that widens the difference found, the difference may be the stop's doing.
    widening = [kind for kind, match, sign in (("fixed-node", nodes_match, -1),
                                               ("clock", clock_match, 1))
                if stopped_early(match)
                and sign * (1 if early_centre(match) == "high" else -1) * change > 0]
    reasons = []
    if undecided:
        reasons.append(f"the SPRT of the {' and the '.join(undecided)} "
                       f"match{'es' if len(undecided) > 1 else ''} did not decide")
    if widening:
        reasons.append(f"the SPRT stopped the {' and the '.join(widening)} "
                       f"match{'es' if len(widening) > 1 else ''} early, which likely moved "
                       "its centre the way that widens this difference")
    if reasons:
        finding = "not resolved" if undecided else "likely but not resolved"
        return text + (f"{moved}; but {', and '.join(reasons)}. The difference is "
                       f"{finding}.")
    # The matches differ in more than the clock: the searches it allowed were of another
    # size than the fixed budget, and a technique's worth can depend on that size.
    return text + (f"{moved}: resolved. It measures more than the time, though: the "
                   "clock's searches were of another size than the fixed budget, and what "
                   "the technique is worth can change with that size.")


# A move's comment, as chapter 7.1's runner writes it: "+0.35/6 0.120s hashfull=3".
REPORTED_DEPTH = re.compile(r"^(?:\?|[-+]\d+\.\d+)/(\d+) ")


def depths_by_player(pgn_path: Path) -> dict[str, list[int]]:
    """Every depth each player reported with a move, from the PGN's move comments."""
    depths: dict[str, list[int]] = {}
    with pgn_path.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            for node in game.mainline():
                found = REPORTED_DEPTH.search(node.comment)
                if found:
                    # The side to move after the move is not the side that made it.
                    mover = game.headers["Black" if node.turn() else "White"]
                    depths.setdefault(mover, []).append(int(found.group(1)))
    return depths


def code_note(match: dict, this_code: dict[str, str]) -> str:
    """A sentence for a measurement (a match, a bench) that this page's code did not
    produce, or "" if it did. `this_code` is the digest of each module of the page's engine
    (compile_engine's source_digests); the data file records its own ("sources") since the
    book's tools began to keep them."""
    recorded = match.get("sources")
    if recorded is None:
        return ("Its data file does not say which code produced it: it was begun before the "
                "book's tools kept a digest of the engine's modules beside their results.")
    changed = changed_modules(recorded, this_code)
    if not changed:
        return ""
    return (f"Not this page's code: the engine that produced it differs from this page's in "
            f"{', '.join(changed)}.")


def assert_searched(match: dict) -> None:
    """Fail unless every move of the match came from a search the engine reported."""
    for engine in match["engines"]:
        assert engine["blind_moves"] == 0, f"{engine['name']} played unsearched moves"


class PlannedMatch(Protocol):
    """What a match against another engine was planned to be (an Experiment of
    tools/elo_matches.py)."""

    opponent: tuple[str, ...]
    limits: tuple[str, ...]
    games: int
    build: str
    both: tuple[str, ...]  # options set for cb2026


# The Stockfish whose UCI_Elo levels the book's matches cite (Debian's package).
STOCKFISH_VERSION = "Stockfish 15.1"


def check_opponent_match(name: str, match: dict, planned: PlannedMatch) -> None:
    """Fail unless a stored match against another engine is the one planned: cb2026 with
    each of its moves from a finished search, the planned opponent (Stockfish's levels from
    the version the book cites), build and clock, and no more games than planned.

    Only cb2026's blind moves are checked: Stockfish's weakened picks, and often Sunfish's
    moves, come without a line the runner can credit (chapter 7.1)."""
    ours, theirs = match["engines"]
    assert ours["name"] == "cb2026", ours["name"]
    if not planned.both:  # no option planned for cb2026: every technique on, as shipped
        assert ours["options"] == {}, f"{name}: cb2026 played with {ours['options']}"
    assert ours["blind_moves"] == 0, f"{name}: cb2026 played unsearched moves"
    assert f"name={theirs['name']}" in planned.opponent, theirs["name"]
    if "UCI_Elo" in theirs["options"]:
        assert theirs["id_name"] == STOCKFISH_VERSION, theirs["id_name"]
        assert theirs["name"] == f"stockfish-{theirs['options']['UCI_Elo']}", theirs["name"]
    assert match["build"] == planned.build, name
    assert match["limits"]["description"] == f"tc={planned.limits[-1]}", name
    assert match["games_played"] <= planned.games, name


def goal_verdict(
    match: dict, goal: float, min_games: int, goal_text: str | None = None
) -> str:
    """Return whether a match meets a goal on its Elo difference, with the reason after a
    colon: "met" if the whole 95% interval lies at or above `goal`, "not met" if it lies
    below, "not resolved" if it includes it, and "not settled" while the match has fewer
    games than the `min_games` the goal names. `goal_text` names the goal in the reason
    (by default the goal with its sign, "+150")."""
    elo = match["elo"]
    lower = -math.inf if elo["lower"] is None else elo["lower"]
    upper = math.inf if elo["upper"] is None else elo["upper"]
    mark = f"{goal:+g}" if goal_text is None else goal_text
    if lower >= goal:
        verdict_word, where = "met", f"the whole 95% interval lies at or above {mark}"
    elif upper < goal:
        verdict_word, where = "not met", f"the whole 95% interval lies below {mark}"
    else:
        verdict_word, where = "not resolved", f"the 95% interval includes {mark}"
    if match["games_played"] < min_games:
        # The goal names its number of games: a shorter match settles nothing yet.
        return (f"not settled: it asks for at least {min_games} games, and after "
                f"{match['games_played']} {where}")
    return f"{verdict_word}: {where}"
