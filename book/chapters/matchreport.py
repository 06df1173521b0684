"""Renders a stored match of the book (book/data/STAGE/elo-NAME.json) for a chapter.

The match runner of chapter 7.1 writes everything a chapter needs into its JSON file: the
engines and limits, the pentanomial counts of the game pairs with the Elo, interval and LOS
computed from them, the SPRT if one ran, and what each engine reported about its searches.
The "What it's worth" sections of chapters 5 to 8.1 show those files through the functions
here, so that every chapter states the same conditions in the same words, and the verdict
in the prose is computed from the data, never typed.
"""

from __future__ import annotations

import json
from pathlib import Path


def load_match(path: Path, command: str) -> dict:
    """Return a stored match; fail with the command that plays it if the file is missing."""
    assert path.exists(), f"{path} is missing: run `{command}` (it plays the match)"
    match = json.loads(path.read_text())
    assert "pentanomial" in match, f"{path} predates game pairs: run `{command}` again"
    return match


# An interval from fewer pairs than this is called rough: the normal approximation behind it
# is commonly trusted from about 30 samples on, and the runner's SPRT waits as long before it
# may stop (SPRT_MIN_PAIRS, chapter 7.1).
ROUGH_PAIRS = 30


def signed(value: float | None, unbounded: str) -> str:
    """Return an Elo figure with its sign, or `unbounded` for an open end."""
    return unbounded if value is None else f"{value:+.0f}"


def rough_note(pairs: int) -> str:
    """Return " (rough: N pairs)" for an interval from fewer than ROUGH_PAIRS pairs, else ""."""
    return f" (rough: {pairs} pairs)" if pairs < ROUGH_PAIRS else ""


def interval_text(elo: dict, pairs: int | None = None) -> str:
    """Return an Elo estimate with its 95 % interval, rough when `pairs` are few."""
    return (f"{signed(elo['difference'], 'n/a')} "
            f"[{signed(elo['lower'], '-inf')}, {signed(elo['upper'], '+inf')}]"
            + ("" if pairs is None else rough_note(pairs)))


def limits_text(match: dict) -> str:
    """Return the search limits the match was played with."""
    limits = match["limits"]
    return f"{limits['nodes']:,} nodes per move" if limits["nodes"] else limits["description"]


def hash_text(engine: dict) -> str:
    """Return the size of one engine's hash table: set for the match, or its default."""
    chosen = engine["options"].get("Hash")
    # The runner asks the engine for its size; of an older file only a size set is known.
    size = engine.get("hash_mb", chosen)
    if size is None:
        return "its default size" if engine.get("hashfull", {}).get("moves") else "no table"
    return f"{size} MB" + (" (set for the match)" if chosen is not None else " (its default)")


def conditions_text(match: dict) -> str:
    """Return how loaded the machine was, and whether the limits let load change the games."""
    conditions = match.get("conditions")
    if conditions is None:
        return "not recorded"
    text = (f"{'quiet' if conditions['quiet'] else 'NOT quiet'}: 1-minute load average "
            f"{conditions['load_before']} before, {conditions['load_after']} after "
            f"(limit {conditions['load_limit']} before)")
    if match["limits"]["nodes"]:
        text += "; at fixed nodes load does not change the games"
    return text


def sprt_decided(match: dict) -> bool:
    """Return True if an SPRT stopped the match with a verdict."""
    return (match.get("sprt") or {}).get("verdict", "continue") != "continue"


def games_text(match: dict) -> str:
    """Return the games and pairs played, and what ended the match: the SPRT or the cap."""
    played, planned = match["games_played"], match["games_planned"]
    text = f"{played} ({sum(match['pentanomial'])})"
    if sprt_decided(match):
        return text + f", stopped by the SPRT (cap {planned})"
    if played >= planned:
        return text + (f", capped at {planned} before the SPRT decided" if match.get("sprt")
                       else ", as planned")
    return text + f" of {planned} planned"


def sprt_text(match: dict) -> str | None:
    """Return the SPRT's hypotheses and outcome, or None if the match ran without one."""
    sprt = match.get("sprt")
    if not sprt:
        return None
    minimum = f", min_pairs = {sprt['min_pairs']}" if "min_pairs" in sprt else ""
    at = f" after {sprt['pairs_at_verdict']} pairs" if sprt.get("pairs_at_verdict") else ""
    return (f"elo0 = {sprt['elo0']:g}, elo1 = {sprt['elo1']:g}, alpha = {sprt['alpha']:g}, "
            f"beta = {sprt['beta']:g}{minimum}: LLR {sprt['llr']:.2f} in "
            f"[{sprt['lower_bound']:.2f}, {sprt['upper_bound']:.2f}], {sprt['verdict']}{at}")


def search_text(engine: dict) -> str:
    """Return what one engine's searches reached: depth, nodes, blind moves, table fill."""
    depth = engine["depth"]
    text = (f"depth {depth['mean']:.1f} on average (median {depth['median']:g}), "
            f"{engine['nodes_per_move']:,.0f} nodes per move, "
            f"{engine['blind_moves']} blind moves of {engine['moves']:,}")
    hashfull = engine.get("hashfull") or {}
    if hashfull.get("mean_second_half") is not None:
        text += (f", {hashfull['mean_second_half'] / 10:.1f} % of the table filled by each "
                 f"search in the later half of the games")
    return text


def match_table(match: dict, command: str) -> str:
    """Return a Markdown table of a stored match: conditions, results, statistics."""
    first, second = match["engines"]
    elo = match["elo"]
    counts = match["pentanomial"]
    sprt = sprt_text(match)
    # An SPRT that stopped the match decided how long it ran: its verdict comes first.
    leading = [("SPRT", sprt)] if sprt and sprt_decided(match) else []
    rows = [
        ("engines", f"{first['name']} vs {second['name']}"),
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
         f"{match['pairs_with_same_moves']} of {sum(counts)}"),
        ("Elo, 95 % interval (pairs)", interval_text(elo, sum(counts))),
        ("LOS", "n/a" if elo["los"] is None else f"{elo['los']:.1%}"),
        ("draw ratio", f"{elo['draw_ratio']:.1%}"),
        ("Elo, games counted singly", interval_text(match["elo_games_counted_singly"])),
    ]
    if sprt and not leading:
        rows.append(("SPRT", sprt))
    rows += [(f"{engine['name']} searched", search_text(engine)) for engine in (first, second)]
    machine = match["machine"]
    rows += [
        ("machine", f"{machine['cpu_model']}, {machine['cpu_count']} cores, "
                    f"Python {machine['python']}"),
        ("load", conditions_text(match)),
        ("wall time", f"{match['wall_seconds'] / 60:.0f} min, "
                      f"{match['concurrency']} {'pair' if match['concurrency'] == 1 else 'pairs'}"
                      f" at once"),
        ("command", f"`{command}`"),
    ]
    return "| | |\n|---|---|\n" + "\n".join(f"| {key} | {value} |" for key, value in rows)


def interval_finding(match: dict) -> str:
    """Return what the 95 % interval of the pairs says about the first engine."""
    elo = match["elo"]
    interval = "the whole 95 % interval" + rough_note(sum(match["pentanomial"]))
    if elo["lower"] is not None and elo["lower"] > 0:
        return f"{interval} lies above zero: the gain is resolved"
    if elo["upper"] is not None and elo["upper"] < 0:
        return f"{interval} lies below zero: the engine is weaker with it"
    return "the 95 % interval" + rough_note(sum(match["pentanomial"])) + (
        " includes zero: not resolved")


def verdict(match: dict) -> str:
    """Return what the match shows about the first engine, as its SPRT and interval allow."""
    found = interval_finding(match)
    if not sprt_decided(match):
        return found
    sprt = match["sprt"]
    accepted, rejected = ((sprt["elo1"], sprt["elo0"]) if sprt["verdict"] == "H1 accepted"
                          else (sprt["elo0"], sprt["elo1"]))
    at = f" at pair {sprt['pairs_at_verdict']}" if sprt.get("pairs_at_verdict") else ""
    # The SPRT decided the match, so its verdict leads.
    return (f"the SPRT stopped the match{at}, {sprt['verdict']}: the games favour a "
            f"difference of {accepted:+g} Elo over one of {rejected:+g}; {found}")


def assert_searched(match: dict) -> None:
    """Fail unless every move of the match came from a search the engine reported."""
    for engine in match["engines"]:
        assert engine["blind_moves"] == 0, f"{engine['name']} played unsearched moves"
