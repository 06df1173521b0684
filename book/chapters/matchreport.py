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


def signed(value: float | None, unbounded: str) -> str:
    """Return an Elo figure with its sign, or `unbounded` for an open end."""
    return unbounded if value is None else f"{value:+.0f}"


def interval_text(elo: dict) -> str:
    """Return an Elo estimate with its 95 % interval, as the runner stored it."""
    return (f"{signed(elo['difference'], 'n/a')} "
            f"[{signed(elo['lower'], '-inf')}, {signed(elo['upper'], '+inf')}]")


def limits_text(match: dict) -> str:
    """Return the search limits and the table size the match was played with."""
    limits = match["limits"]
    text = f"{limits['nodes']:,} nodes per move" if limits["nodes"] else limits["description"]
    sizes = {engine["options"].get("Hash") for engine in match["engines"]}
    sizes.discard(None)
    return text + (f", Hash {', '.join(map(str, sorted(sizes)))} MB" if sizes else "")


def sprt_text(match: dict) -> str | None:
    """Return the SPRT's hypotheses and outcome, or None if the match ran without one."""
    sprt = match.get("sprt")
    if not sprt:
        return None
    return (f"elo0 = {sprt['elo0']:g}, elo1 = {sprt['elo1']:g}, alpha = {sprt['alpha']:g}, "
            f"beta = {sprt['beta']:g}: LLR {sprt['llr']:.2f} in "
            f"[{sprt['lower_bound']:.2f}, {sprt['upper_bound']:.2f}], {sprt['verdict']}")


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
    rows = [
        ("engines", f"{first['name']} vs {second['name']}"),
        ("limits", limits_text(match)),
        ("openings", f"{match['openings']['source']}, one per pair"),
        ("games (pairs)", f"{match['games_played']} ({sum(counts)})"),
        (f"wins / losses / draws for {first['name']}",
         f"{match['wins']} / {match['losses']} / {match['draws']}"),
        ("pairs scoring 0, ½, 1, 1½, 2", " / ".join(map(str, counts))),
        ("pairs whose two games have the same moves",
         f"{match['pairs_with_same_moves']} of {sum(counts)}"),
        ("Elo, 95 % interval (pairs)", interval_text(elo)),
        ("LOS", "n/a" if elo["los"] is None else f"{elo['los']:.1%}"),
        ("draw ratio", f"{elo['draw_ratio']:.1%}"),
        ("Elo, games counted singly", interval_text(match["elo_games_counted_singly"])),
    ]
    sprt = sprt_text(match)
    if sprt:
        rows.append(("SPRT", sprt))
    rows += [(f"{engine['name']} searched", search_text(engine)) for engine in (first, second)]
    machine = match["machine"]
    rows += [
        ("machine", f"{machine['cpu_model']}, {machine['cpu_count']} cores, "
                    f"Python {machine['python']}"),
        ("wall time", f"{match['wall_seconds'] / 60:.0f} min, "
                      f"{match['concurrency']} {'pair' if match['concurrency'] == 1 else 'pairs'}"
                      f" at once"),
        ("command", f"`{command}`"),
    ]
    return "| | |\n|---|---|\n" + "\n".join(f"| {key} | {value} |" for key, value in rows)


def verdict(match: dict) -> str:
    """Return what the match shows about the first engine, as its interval and SPRT allow."""
    elo = match["elo"]
    sprt = match.get("sprt") or {}
    if elo["lower"] is not None and elo["lower"] > 0:
        found = "the whole 95 % interval lies above zero: the gain is resolved"
    elif elo["upper"] is not None and elo["upper"] < 0:
        found = "the whole 95 % interval lies below zero: the engine is weaker with it"
    else:
        found = "the 95 % interval includes zero: not resolved"
    if sprt.get("verdict") == "H1 accepted":
        found += (f"; the SPRT accepted H1: the games favour a difference of "
                  f"{sprt['elo1']:+g} Elo over one of {sprt['elo0']:+g}")
    elif sprt.get("verdict") == "H0 accepted":
        found += (f"; the SPRT accepted H0: the games favour a difference of "
                  f"{sprt['elo0']:+g} Elo over one of {sprt['elo1']:+g}")
    return found


def assert_searched(match: dict) -> None:
    """Fail unless every move of the match came from a search the engine reported."""
    for engine in match["engines"]:
        assert engine["blind_moves"] == 0, f"{engine['name']} played unsearched moves"
