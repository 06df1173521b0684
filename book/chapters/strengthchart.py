"""Draws the book's chart of strength by stage (book/data/strength/by-stage.json).

The introduction and chapter 18 show the same chart, so it is drawn here, once. The data come
from tools/strength_by_stage.py: every stage that can play, against fixed anchors on one clock.
The chart's scale is Elo against the first anchor (Sunfish), whose data file is the one named;
another anchor's file lies in a folder beside it (book/data/strength/stockfish-1800/).

Stages that played two anchors link their scales, if they played both with the same engine code
on machines timed alike (link_fault). Each such stage says how far the second anchor stands
above the first: its result against the first minus its result against the second. The link is
the mean of those estimates weighted by their precision (a normal approximation); where they
scatter more than their errors alone lead one to expect, its margin is widened by the Birge
ratio, the square root of their chi-square over its degrees of freedom. A stage is drawn from
the chart's own anchor while its score there is between 10 and 90%, where a score still says
something about the Elo, and otherwise through the next anchor that has such a result: at that
result plus the link, its interval widened by the link's margin. A step from one stage to the
next comes from the two stages' results against the same anchor where they share one (both
anchors' together if they share both), so the link plays no part in it; and only from matches
on a machine timed alike, else the step is not compared.

A stage that changes no engine code repeats the result of the stage before it; a stage with
no match of its own (it cannot play a game yet, or its match is not played) has no point, and
the chart says so instead of leaving a gap that looks like nothing.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import matplotlib.pyplot as plt

# An interval's ends and the standard error behind it, as the chapters' match reports read them.
from matchreport import finite, joined, sigma

# Whether two matches ran on a machine of one speed (tools/quiet.py).
from quiet import NO_CLEAR_DIFFERENCE, run_speeds, runs_of, speeds_alike

# The anchors, each with its id (for commands and tables) and its name in a sentence.
from strength_by_stage import ANCHORS

# Elo: the length of the arrow standing for an open end of an interval.
OPEN_END = 150
# Each anchor's marker and colour: the chart's own anchor first, then the linked ones in
# their order.
MARKERS = ("o", "s", "D", "^")
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:purple")
# Scores outside this range say little about the Elo: the anchor is too weak or too strong.
INFORMATIVE_SCORES = (0.1, 0.9)

Row = tuple[str, dict, str | None]  # a charted stage, its result, the stage it repeats


def stage_label(stage: str) -> str:
    """Return a stage's number: "8.1" for stage-08.1-tt-buckets."""
    return stage.split("-")[1].lstrip("0")


def stage_order(stage: str) -> list[int]:
    """Return the key that sorts stage ids in book order: [8, 1] for stage-08.1-tt-buckets."""
    return [int(part) for part in stage.split("-")[1].split(".")]


def book_stages(chapters: Path) -> list[str]:
    """Return the stages whose chapters are in the folder `chapters`, in book order."""
    return sorted((path.stem for path in chapters.glob("stage-*.md")), key=stage_order)


def load_strength(path: Path) -> dict | None:
    """Return the chart's data: the file at `path` (the chart's own anchor), with the files of
    the other anchors, in the folders beside it, under "linked"; None if `path` is missing.
    A linked entry's file names are made relative to the chart's folder. An anchor measured
    on another clock or build than the chart's is kept apart, under "unlinked": its results
    are on a scale that no link can join."""
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    data["linked"], data["unlinked"] = [], []
    same = {key: data["settings"].get(key) for key in ("build", "limits")}
    for other_path in sorted(path.parent.glob(f"*/{path.name}")):
        other = json.loads(other_path.read_text())
        folder = other_path.parent.name
        if any(other["settings"].get(key) != value for key, value in same.items()):
            data["unlinked"].append(folder)
            continue
        for entry in other["stages"]:
            for key in ("summary", "pgn"):
                if key in entry:
                    entry[key] = f"{folder}/{entry[key]}"
        data["linked"].append(other)
    return data


def sources(data: dict) -> list[dict]:
    """Every anchor's data: the chart's own anchor first, then the linked ones."""
    return [data, *data.get("linked", [])]


def unplayed_stages(data: dict, stages: list[str]) -> list[str]:
    """The stages of `stages` that can play a game but have no result in `data` yet."""
    known = {entry["stage"] for source in sources(data) for entry in source["stages"]}
    return [stage for stage in stages if stage not in known | set(data["not_playing"])]


def anchor_of(source: dict) -> str:
    """The name of the anchor a data file measured against."""
    return source["settings"]["anchor"]


def own_results(source: dict, present: set[str]) -> dict[str, dict]:
    """The results of a data file's own matches, by stage, for the stages in `present`."""
    return {entry["stage"]: entry for entry in source["stages"]
            if "elo" in entry and entry["stage"] in present}


def centre(elo: dict) -> float | None:
    """An Elo record's point: its centre, or the one known end when every pair went alike."""
    if elo["difference"] is not None:
        return elo["difference"]
    return elo["lower"] if elo["upper"] is None else elo["upper"]


def informative(entry: dict) -> bool:
    """True if a match has a finite interval and a score that still tells Elo apart."""
    low, high = INFORMATIVE_SCORES
    return finite(entry["elo"]) and low <= entry["score_fraction"] <= high


@dataclass(frozen=True)
class Placement:
    """An anchor's place on the chart's scale: its Elo above the chart's own anchor and that
    figure's 95% margin, the stages that link it (none for the chart's own anchor), the
    Birge ratio its margin was widened by (1 if the linking stages agree), and the placed
    anchor the link was measured against (the chart's own, or one placed before)."""

    anchor: str
    offset: float = 0.0
    margin: float = 0.0
    links: tuple[str, ...] = ()
    widened_by: float = 1.0
    through: str = ""


Z95 = NormalDist().inv_cdf(0.975)  # a placement's margin is a 95% one


def place_anchors(data: dict, present: set[str]) -> dict[str, Placement]:
    """Place every anchor that stages link to the chart's own anchor, directly or through
    another placed one; an anchor with no linking stage is left out."""
    placed = {anchor_of(data): Placement(anchor_of(data))}
    pending = list(data.get("linked", []))
    while pending:
        for source in pending:
            placement = link(source, data, placed, present)
            if placement is not None:
                placed[placement.anchor] = placement
                pending.remove(source)
                break
        else:  # no pending anchor has a link to a placed one
            return placed
    return placed


def link_fault(one: dict, other: dict) -> str:
    """Why a stage's matches against two anchors cannot link them, or "" if they can. A link
    takes the stage to be one and the same player in both: the same engine code (the digests
    strength_by_stage.py records) on machines timed alike (quiet.speeds_alike) in both
    matches, since on a clock a machine's speed can move a result."""
    if not same_code(one, other):
        return "its engine code changed between the two matches"
    return machine_fault(one, other)


def same_code(one: dict, other: dict) -> bool:
    """True if two records (a match's entry, or a stage's digests today) name the same engine
    code: without its wording where both recorded it, else every byte."""
    key = "code_digests" if "code_digests" in one and "code_digests" in other else "engine_digest"
    return one.get(key) == other.get(key)


def changed_since(entry: dict, today: dict) -> str:
    """How the engine a match recorded differs from the stage's engine `today`, as a
    predicate for "the match ...", or "" if it does not (same_code)."""
    if "code_digests" not in entry and "engine_digest" not in entry:
        return "recorded no digest of the engine"
    if same_code(entry, today):
        return ""
    if "code_digests" in entry:
        return "played engine code that has changed since"
    # Only a digest of every byte: a change of wording alone would part it too.
    return ("played engine modules that have changed since, in code or perhaps in wording "
            "only (only a digest of every byte was recorded)")


def cpu_name(model: str) -> str:
    """A processor's model name as the text gives it, without trademark signs or a closing
    "Processor": "Intel(R) Xeon(R) Processor" is "Intel Xeon"."""
    name = re.sub(r"\((R|TM)\)", "", model, flags=re.IGNORECASE)
    return " ".join(name.split()).removesuffix(" Processor")


def run_processor(run: dict, record: dict) -> str:
    """The processor one run of a match played on, by cpu_name: the run's own record
    (quiet.py's conditions), else its match's, else ""."""
    return cpu_name(run.get("cpu") or record.get("conditions", {}).get("cpu", ""))


def processors(record: dict) -> set[str]:
    """The processors a match's runs played on, as far as they recorded them."""
    return {run_processor(run, record) for run in runs_of(record)} - {""}


def processor_fault(one: dict, other: dict) -> str:
    """Why two matches ran on different processors, or "" if they did not, as far as they
    recorded them. The processors are named in alphabetical order, so that two steps
    refused for one pair of processors read alike."""
    first, second = processors(one), processors(other)
    if first and second and first != second:
        named = sorted([", ".join(sorted(first)), ", ".join(sorted(second))])
        return f"the two matches ran on different processors ({named[0]} and {named[1]})"
    return ""


def unsteady(record: dict) -> bool:
    """Whether a match's own timings of the machine disagree (quiet.speeds_alike): the machine
    changed speed while it played. An untimed match is not unsteady."""
    speeds = run_speeds(record)
    return bool(speeds) and not speeds_alike(speeds)


def spread(speeds: list[int]) -> str:
    """Return how far apart a machine's timings lie, the fastest over the slowest less one:
    "16%"."""
    return f"{max(speeds) / min(speeds) - 1:.0%}"


def timings_text(record: dict) -> str:
    """Return a match's machine timings in order, with how far apart they lie: "at 18,977
    nodes a second at its start and 16,390 at its end (16% apart)"."""
    speeds = run_speeds(record)
    apart = f"({spread(speeds)} apart)"
    if len(speeds) == 2 and len(runs_of(record)) == 1:
        return f"at {speeds[0]:,} nodes a second at its start and {speeds[1]:,} at its end {apart}"
    return f"at {joined([f'{speed:,}' for speed in speeds])} nodes a second in turn {apart}"


def machine_fault(one: dict, other: dict) -> str:
    """Why two matches did not run on one machine as far as their records tell, or "": one
    processor, timed in both, at speeds alike (quiet.speeds_alike). On a clock a machine's
    speed can move a result, so two matches compare only on machines timed alike."""
    fault = processor_fault(one, other)
    if fault:
        return fault
    untimed = [record for record in (one, other) if not run_speeds(record)]
    if len(untimed) == 2:
        return "neither match timed the machine"
    if untimed and one.get("stage") != other.get("stage"):  # a step: name the stage
        return f"stage {stage_label(untimed[0]['stage'])}'s match did not time the machine"
    if untimed:  # a link: two matches of one stage
        return "one of the two matches did not time the machine"
    for record in (one, other):  # a machine that changed speed during one match
        if unsteady(record):
            whose = (f"stage {stage_label(record['stage'])}'s match"
                     if one.get("stage") != other.get("stage") else "one of the two matches")
            return f"{whose} timed its machine {timings_text(record)}"
    if not speeds_alike(run_speeds(one) + run_speeds(other)):
        return "the machine ran at different speeds in the two matches"
    return ""


def link_faults(data: dict, present: set[str]) -> list[tuple[str, str, str]]:
    """Every stage that played the chart's own anchor and another but does not link them,
    as (stage, the other anchor, why not)."""
    own = own_results(data, present)
    return [(stage, anchor_of(source), fault)
            for source in data.get("linked", [])
            for stage, entry in own_results(source, present).items()
            if stage in own and (fault := link_fault(own[stage], entry))]


def link(source: dict, data: dict, placed: dict[str, Placement],
         present: set[str]) -> Placement | None:
    """Place `source`'s anchor through the first placed anchor that shares finite results
    with it, or return None."""
    new_results = own_results(source, present)
    for base_source in sources(data):
        base = placed.get(anchor_of(base_source))
        if base is None:
            continue
        base_results = own_results(base_source, present)
        common = [stage for stage in base_results if stage in new_results
                  and finite(base_results[stage]["elo"]) and finite(new_results[stage]["elo"])
                  and not link_fault(base_results[stage], new_results[stage])]
        if not common:
            continue
        # Stage s scores a = s - base and b = s - anchor, so the anchor stands a - b above the
        # base: one estimate per linking stage, its variance the sum of the two matches'.
        weights, estimates = [], []
        for stage in common:
            on_base, on_new = base_results[stage]["elo"], new_results[stage]["elo"]
            weights.append(1 / (sigma(on_base) ** 2 + sigma(on_new) ** 2))
            estimates.append(on_base["difference"] - on_new["difference"])
        offset = sum(w * e for w, e in zip(weights, estimates, strict=True)) / sum(weights)
        chi_square = sum(w * (e - offset) ** 2 for w, e in zip(weights, estimates, strict=True))
        # Estimates that disagree beyond their errors mean the stages do not differ alike
        # against both anchors: the link is less sure than the matches alone say.
        ratio = max(1.0, math.sqrt(chi_square / (len(common) - 1))) if len(common) > 1 else 1.0
        error = math.hypot(ratio / math.sqrt(sum(weights)), base.margin / Z95)
        return Placement(anchor_of(source), base.offset + offset, Z95 * error, tuple(common),
                         ratio, anchor_of(base_source))
    return None


def on_scale(entry: dict, placement: Placement) -> dict:
    """Return a stage's result moved onto the chart's scale through its anchor's placement:
    the centre shifted by the offset, each end widened by the offset's margin in quadrature.
    The result names its anchor."""
    result = entry | {"anchor": placement.anchor}
    elo = entry["elo"]
    point = centre(elo)
    if not placement.links or point is None:  # the chart's own anchor, or nothing to move
        return result
    moved = point + placement.offset
    lower = None if elo["lower"] is None else moved - math.hypot(point - elo["lower"],
                                                                 placement.margin)
    upper = None if elo["upper"] is None else moved + math.hypot(elo["upper"] - point,
                                                                 placement.margin)
    # The match runner's wording (cb2026.elo.format_interval).
    if lower is not None and upper is not None:
        text = f"{moved:+.1f} +/- {(upper - lower) / 2:.1f}"
    else:
        text = f"at least {lower:+.1f}" if lower is not None else f"at most {upper:+.1f}"
    moved_elo = {key: value for key, value in elo.items() if key != "margin"}
    result["elo"] = moved_elo | {"difference": None if elo["difference"] is None else moved,
                                 "lower": lower, "upper": upper, "text": text}
    return result


def width(result: dict) -> float:
    """The width of a result's interval, infinite if an end is open."""
    elo = result["elo"]
    return math.inf if None in (elo["lower"], elo["upper"]) else elo["upper"] - elo["lower"]


def best_results(data: dict, present: set[str]) -> dict[str, dict]:
    """Each measured stage's result on the chart's scale: from the first anchor, in the
    chart's order, against which its match is informative, else the narrowest one. Every
    result carries the stage's own results by anchor ("directs")."""
    placements = place_anchors(data, present)
    candidates: dict[str, list[dict]] = {}
    directs: dict[str, dict[str, dict]] = {}
    for source in sources(data):
        placement = placements.get(anchor_of(source))
        if placement is None:
            continue
        for stage, entry in own_results(source, present).items():
            candidates.setdefault(stage, []).append(on_scale(entry, placement))
            directs.setdefault(stage, {})[placement.anchor] = entry | {"anchor": placement.anchor}
    chosen = {}
    for stage, results in candidates.items():
        useful = [result for result in results if informative(result)]
        # min keeps the first of equals: the chart's own anchor wins a tie.
        chosen[stage] = useful[0] if useful else min(results, key=width)
    return {stage: result | {"directs": directs[stage]} for stage, result in chosen.items()}


def every_match(data: dict, chapters: Path) -> list[tuple[str, str, dict]]:
    """Return every stage's own matches against every anchor, as (stage, anchor, entry), in
    book order and the anchors' order."""
    present = set(book_stages(chapters))
    matches = [(rank, stage, anchor_of(source), entry)
               for rank, source in enumerate(sources(data))
               for stage, entry in own_results(source, present).items()]
    matches.sort(key=lambda match: (stage_order(match[1]), match[0]))
    return [(stage, anchor, entry) for _rank, stage, anchor, entry in matches]


def chart_rows(data: dict, chapters: Path) -> list[Row]:
    """Return each charted stage, its result on the chart's scale, and the stage it repeats
    (None if its own)."""
    # A stage's snapshot holds the data of later stages too; it shows only its own chapters.
    present = set(book_stages(chapters))
    measured = best_results(data, present)
    listed: dict[str, dict] = {}
    for source in sources(data):
        for entry in source["stages"]:
            if entry["stage"] in present:
                listed.setdefault(entry["stage"], entry)
    rows = [(stage, measured[entry.get("same_engine_as", stage)], entry.get("same_engine_as"))
            for stage, entry in listed.items()
            if entry.get("same_engine_as", stage) in measured]
    return sorted(rows, key=lambda row: stage_order(row[0]))


def point_label(stage: str, repeats: str | None) -> str:
    """Return a point's label on the axis: "8", or "7.1 = 7" for a repeated result."""
    own = stage_label(stage)
    return own if repeats is None else f"{own} = {stage_label(repeats)}"


def anchor_name(name: str) -> str:
    """Return an anchor's name in a sentence, "Stockfish at UCI_Elo 1800" for the id
    stockfish-1800 (an anchor the tool no longer knows keeps its id)."""
    return ANCHORS[name].title if name in ANCHORS else name


def anchor_label(anchor: dict) -> str:
    """Return the anchor with its version in words: "Sunfish 2023.1", or "Stockfish 15.1 at
    UCI_Elo 1800" (the version's name in place of the name's first word, where they agree)."""
    name, version = anchor["name"], anchor["package_version"] or anchor["uci_id_name"]
    title = anchor_name(name)
    if version is None:
        return title
    if version.lower().startswith(name.lower()):  # a package's version: "sunfish 2023.1"
        return title + version[len(name):]
    engine, _, setting = title.partition(" ")
    if version.split()[0].lower() == engine.lower():  # a setting of an engine: a level
        return f"{version} {setting}".rstrip()
    return f"{title} ({version})"


def anchor_text(anchor: dict) -> str:
    """Return the anchor and its limits in words: "Sunfish 2023.1 at a clock of 5+0.05", or
    "Stockfish 15.1 at UCI_Elo 1800, at a clock of 5+0.05"."""
    kind, amount = anchor["limits"].split()  # "--tc 5+0.05" or "--nodes 8000"
    limit = f"a clock of {amount}" if kind == "--tc" else f"{amount} nodes a move"
    label = anchor_label(anchor)
    return f"{label}{',' if ' at ' in label else ''} at {limit}"


def draw_point(axes: plt.Axes, position: int, result: dict, hollow: bool,
               marker: str = "o", label: str | None = None, colour: str = COLOURS[0]) -> None:
    """Draw one stage's Elo with its 95% interval at `position`; an open end is an arrow."""
    elo = result["elo"]
    lower, upper, point = elo["lower"], elo["upper"], centre(elo)
    below = 0 if lower is None else point - lower
    above = 0 if upper is None else upper - point
    # A repeated result is drawn hollow: the same measurement, not a second one.
    axes.errorbar([position], [point], yerr=[[below], [above]], fmt=marker, capsize=4,
                  color=colour, markerfacecolor="white" if hollow else colour, label=label)
    for bound, direction in ((lower, -1), (upper, 1)):
        if bound is None:  # an open end: an arrow, OPEN_END long, going its way
            axes.annotate("", xy=(position, point + direction * OPEN_END),
                          xytext=(position, point),
                          arrowprops={"arrowstyle": "->", "color": colour})


def anchor_records(data: dict) -> dict[str, dict]:
    """Each anchor's record (name, version, limits) by name, the chart's own first."""
    # A file with only repeated stages has no match, and so no record of its anchor.
    return {anchor_of(source): source.get("anchor", {
        "name": anchor_of(source), "package_version": None, "uci_id_name": None,
        "limits": source["settings"]["limits"]}) for source in sources(data)}


def draw_chart(rows: list[Row], anchor: dict, span: list[str] | None = None,
               anchors: dict[str, dict] | None = None) -> list[str]:
    """Draw each stage's Elo on the anchor's scale with its 95% interval; return the stages
    of `span` drawn without a point.

    Without `span` the chart has the measured stages only. With it, every stage of `span`
    has its place on the axis, and one without a result is shaded grey with its label. A
    point placed through another anchor (`anchors`, by name) has that anchor's marker.
    """
    stages = span if span is not None else [stage for stage, _, _ in rows]
    results = {stage: (result, repeats) for stage, result, repeats in rows}
    order = list(anchors or {anchor["name"]: anchor})
    used = [name for name in order
            if any(result.get("anchor", anchor["name"]) == name for result, _ in results.values())]
    figure, axes = plt.subplots(figsize=(max(7.0, 0.6 * len(stages)), 3.6))
    missing, labelled = [], set()
    for position, stage in enumerate(stages):
        if stage in results:
            result, repeats = results[stage]
            name = result.get("anchor", anchor["name"])
            rank = order.index(name) if name in order else 0
            # With more than one anchor in the chart, the legend tells their points apart.
            label = None
            if len(used) > 1 and name not in labelled:
                labelled.add(name)
                label = (f"measured against {anchor_name(name)}" if name == anchor["name"]
                         else f"placed through {anchor_name(name)}")
            draw_point(axes, position, result, hollow=repeats is not None,
                       marker=MARKERS[rank % len(MARKERS)], label=label,
                       colour=COLOURS[rank % len(COLOURS)])
        else:
            missing.append(stage)
            axes.axvspan(position - 0.4, position + 0.4, color="0.94", zorder=0,
                         label="no match of its own" if len(missing) == 1 else None)
    axes.set_xticks(range(len(stages)),
                    [point_label(stage, results[stage][1]) if stage in results
                     else stage_label(stage) for stage in stages])
    for label_text, stage in zip(axes.get_xticklabels(), stages, strict=True):
        if stage not in results:
            label_text.set_color("0.5")
    if missing or len(used) > 1:
        axes.legend(loc="best", fontsize="small")
    axes.axhline(0, color="grey", linewidth=0.5)
    axes.set_xlabel("stage")
    axes.set_ylabel(f"Elo above {anchor_name(anchor['name'])}")
    axes.set_title(f"cb2026 by stage on the scale of {anchor_text(anchor)}, 95% intervals")
    plt.show()
    return missing


def half_width(elo: dict) -> float:
    """Half the width of a finite interval."""
    return (elo["upper"] - elo["lower"]) / 2


def step_pairs(before: dict, after: dict) -> tuple[list[tuple[dict, dict]], str]:
    """Return the pairs of matches (each naming its stage and anchor) that compare two
    stages' results, or no pair and why not.

    Where the two stages played the same anchors, each shared anchor gives a pair with no
    link in it; only two stages with no anchor in common are compared on the chart's scale,
    link and all. Only matches on machines timed alike compare (machine_fault)."""
    shared = [(before["directs"][name], after["directs"][name])
              for name in before.get("directs", {}) if name in after.get("directs", {})]
    if not shared:  # the points as drawn
        shared = [(before, after)]
    faults = [step_fault(one, other) for one, other in shared]
    pairs = [pair for pair, fault in zip(shared, faults, strict=True) if not fault]
    return pairs, "" if pairs else faults[0]


def step_fault(one: dict, other: dict) -> str:
    """Why a pair of matches cannot measure a step, or "": "not compared, since ..." for
    machines not timed alike, "not resolved (...)" for an open interval."""
    fault = machine_fault(one, other)
    if fault:
        return f"not compared, since {fault}"
    if not (finite(one["elo"]) and finite(other["elo"])):
        return "not resolved (an interval with an open end)"
    return ""


def step_text(earlier: Row, later: Row) -> str:
    """Return the Elo a stage gained on the measured stage before it, and whether the matches
    resolve it: "from 7 to 8, +68 ± 55 Elo, resolved". The estimates of its pairs of matches
    (step_pairs) are combined by their precision."""
    (first, before, _), (stage, after, _) = earlier, later
    ends = f"from {stage_label(first)} to {stage_label(stage)}"
    matches, why_not = step_pairs(before, after)
    if why_not:
        return f"{ends}, {why_not}"
    pairs = [(one["elo"], other["elo"]) for one, other in matches]
    # Two separate matches: their errors add in quadrature (a normal approximation, with each
    # match's half-width; their own intervals are a little lopsided).
    margins = [math.hypot(half_width(first), half_width(second)) for first, second in pairs]
    weights = [1 / margin**2 for margin in margins]
    gains = [second["difference"] - first["difference"] for first, second in pairs]
    gain = sum(w * g for w, g in zip(weights, gains, strict=True)) / sum(weights)
    margin = 1 / math.sqrt(sum(weights))
    verdict = "resolved" if abs(gain) > margin else "not resolved by these matches"
    return f"{ends}, {gain:+.0f} ± {margin:.0f} Elo, {verdict}"


def link_matches(data: dict, placement: Placement, present: set[str]) -> list[dict]:
    """The matches that place an anchor: its linking stages' matches against it and against
    the anchor it was placed through."""
    return [entry for source in sources(data)
            if anchor_of(source) in (placement.through, placement.anchor)
            for stage, entry in own_results(source, present).items()
            if stage in placement.links]


def speed_change(speeds: list[int], reference: list[int]) -> str:
    """How much faster or slower the machine ran at `speeds` than at `reference`, as
    "19% to 31% faster", or "" if the two ranges overlap or either is empty."""
    if not speeds or not reference:
        return ""
    low, high = min(speeds) / max(reference), max(speeds) / min(reference)
    if low <= 1 <= high:
        return ""
    first, last = sorted([abs(low - 1), abs(high - 1)])
    amount = f"{first:.0%}" if f"{first:.0%}" == f"{last:.0%}" else f"{first:.0%} to {last:.0%}"
    return f"{amount} {'faster' if low >= 1 else 'slower'}"


def link_text(data: dict, rows: list[Row], chapters: Path) -> str:
    """Return the sentences on the points placed through another anchor, or "" if none is."""
    present = set(book_stages(chapters))
    placements = place_anchors(data, present)
    records = anchor_records(data)
    texts = []
    for name, placement in placements.items():
        placed = [stage_label(stage) for stage, result, repeats in rows
                  if repeats is None and result["anchor"] == name and placement.links]
        if not placed:
            continue
        plural, links = len(placed) > 1, len(placement.links)
        linking = link_matches(data, placement, present)
        link_cpus = set().union(*(processors(entry) for entry in linking))
        by = joined([stage_label(stage) for stage in placement.links])
        text = (f"Stage{'s' if plural else ''} {joined(placed)} "
                f"{'are' if plural else 'is'} drawn from {'their' if plural else 'its'} "
                # A linked anchor shares the chart's limits, which its first sentence gives.
                f"match{'es' if plural else ''} against {anchor_label(records[name])}. That "
                f"anchor stands {abs(placement.offset):.0f} ± {placement.margin:.0f} Elo "
                f"{'above' if placement.offset >= 0 else 'below'} "
                f"{anchor_name(anchor_of(data))}, as "
                f"measured by stage{'s' if links > 1 else ''} {by}, which "
                f"{'each ' if links > 1 else ''}played both anchors with the same code on one "
                f"processor, its timings of the machine in both matches all within "
                f"{NO_CLEAR_DIFFERENCE[1] - 1:.0%} of each other; that margin is part of "
                + ("the interval of each point it places" if plural
                   else "the interval of the point it places"))
        if placement.widened_by > 1:
            text += (f", widened {placement.widened_by:.2f} times because the linking "
                     "stages scatter more than their errors alone lead one to expect")
        # A point from a processor the link was not measured on borrows the link's offset.
        across = {stage: result for stage, result, repeats in rows
                  if repeats is None and result["anchor"] == name
                  and processors(result) - link_cpus} if link_cpus else {}
        if across:
            many = len(across) > 1
            elsewhere = sorted(set().union(*(processors(result) for result in across.values()))
                               - link_cpus)
            change = speed_change([speed for result in across.values()
                                   for speed in run_speeds(result)],
                                  [speed for entry in linking for speed in run_speeds(entry)])
            text += (f". Stage{'s' if many else ''} "
                     f"{joined([stage_label(stage) for stage in across])} played on "
                     f"{joined(elsewhere)}" + (
                         f", where Sunfish's fixed search ran {change} than in the matches of "
                         f"stage{'s' if links > 1 else ''} {by} on {joined(sorted(link_cpus))} "
                         "(how much faster or slower the engines ran there is not measured)"
                         if change and len(elsewhere) == 1 else
                         f", the matches of stage{'s' if links > 1 else ''} {by} on "
                         f"{joined(sorted(link_cpus))}")
                     + f": {'their places assume' if many else 'its place assumes'} that the "
                     "two anchors stand as far apart there, which no match has measured, and "
                     "another processor need not speed both anchors alike")
        if links == 1:
            text += (". With one linking stage nothing yet tests whether stages differ by "
                     "as much against either anchor, which the placing assumes")
        assumptions = (links == 1) + bool(across)
        if assumptions:
            text += (". The margin covers the matches' sampling error, "
                     + ("not that assumption" if assumptions == 1 else "not these assumptions"))
        texts.append(text + ".")
    return " ".join(texts)


def stale_text(data: dict, chapters: Path, code_today: Callable[[str], dict]) -> str:
    """Return the sentences on the matches whose engine is no longer their stage's, or "":
    the digests a match recorded differ from `code_today(stage)`'s (the same keys, as
    strength_by_stage.stage_code gives them for the book as it is now)."""
    stale = [(stage, anchor, change) for stage, anchor, entry in every_match(data, chapters)
             if (change := changed_since(entry, code_today(stage)))]
    if not stale:
        return ""
    keys = {(stage, anchor) for stage, anchor, _change in stale}
    groups: dict[tuple[str, str], list[str]] = {}
    for stage, anchor, change in stale:
        groups.setdefault((anchor, change), []).append(stage)
    texts = []
    for (anchor, change), stages in groups.items():
        one = len(stages) == 1
        stands = ("its point stands for that earlier engine" if one
                  else "their points stand for those earlier engines")
        texts.append(f"The match{'' if one else 'es'} of stage{'' if one else 's'} "
                     f"{joined([stage_label(stage) for stage in stages])} against "
                     f"{anchor_name(anchor)} "
                     f"{change}, so {stands}")
    rows = chart_rows(data, chapters)
    texts += [f"Stage {stage_label(stage)}'s point repeats stage {stage_label(repeated)}'s, "
              f"so it too stands for that earlier engine, not chapter {stage_label(stage)}'s "
              "code"
              for stage, result, repeated in rows
              if repeated is not None and (repeated, result["anchor"]) in keys]
    own_rows = [row for row in rows if row[2] is None]
    steps = [f"from {stage_label(earlier[0])} to {stage_label(later[0])}"
             for earlier, later in zip(own_rows, own_rows[1:], strict=False)
             if any((match["stage"], match["anchor"]) in keys
                    for pair in step_pairs(earlier[1], later[1])[0] for match in pair)]
    if steps:
        texts.append(f"The step{'s' if len(steps) > 1 else ''} {joined(steps)} under the chart "
                     f"compare{'' if len(steps) > 1 else 's'} such a match")
    commands = [f"`python tools/strength_by_stage.py --anchor {anchor} --only {stage} --wait`"
                for stage, anchor, _change in stale]
    texts.append(f"{joined(commands)} play{'s' if len(commands) == 1 else ''} "
                 f"{'it' if len(commands) == 1 else 'them'} again with the book's code (not "
                 "with `--resume`, which skips a stage already recorded)")
    return ". ".join(texts) + "."


def match_text(stage: str, result: dict, scale: str) -> str:
    """Return "+55.0 ± 38.0 Elo over 298 games"; for a point placed through another anchor,
    "+200.0 ± 67.9 Elo, placed from 300 games against Stockfish at UCI_Elo 1800"."""
    # The sentence's steps and link say "±"; the runner's own text says "+/-".
    text = result["elo"]["text"].replace("+/-", "±")
    if result["anchor"] == scale:
        return f"{text} Elo over {result['games']} games"
    # The figure is on the chart's scale, not against the anchor that was played.
    return (f"{text} Elo, placed from {result['games']} games against "
            f"{anchor_name(result['anchor'])}")


def unmeasured_between(span: list[str], earlier: str, later: str,
                       measured: set[str]) -> list[str]:
    """The stages of `span` strictly between two stages that have no result of their own."""
    if earlier not in span or later not in span:
        return []
    inside = span[span.index(earlier) + 1:span.index(later)]
    return [stage for stage in inside if stage not in measured]


def strength_chart(data: dict, chapters: Path, span: list[str] | None = None) -> str:
    """Draw the chart of the data (every stage of `span`, if given); return the sentences
    that sum it up."""
    rows = chart_rows(data, chapters)
    if not rows:
        return "No stage has been measured yet: run `make strength`."
    draw_chart(rows, data["anchor"], span, anchor_records(data))
    scale = anchor_of(data)
    (first_stage, first, _), (last_stage, last, _) = rows[0], rows[-1]
    sentences = [f"On the scale of {anchor_text(data['anchor'])}, stage "
                 f"{stage_label(first_stage)} scores {match_text(first_stage, first, scale)}"]
    if last is not first:  # a last stage that repeats the first adds nothing
        sentences[0] += (f" and stage {stage_label(last_stage)} "
                         f"{match_text(last_stage, last, scale)}")
        # The two ends side by side invite a step between them that the rules may refuse.
        if rows[0][2] is None and rows[-1][2] is None:
            fault = step_pairs(first, last)[1]
            if fault.startswith("not compared"):
                sentences[0] += (f"; the points of stages {stage_label(first_stage)} and "
                                 f"{stage_label(last_stage)} are {fault}")
    matches = [entry for _stage, _anchor, entry in every_match(data, chapters)]
    builds = sorted({entry.get("build", "unrecorded") for entry in matches})
    sentences.append(f"Every match played cb2026's {builds[0]} build" if len(builds) == 1
                     else f"The matches played cb2026's {' and '.join(builds)} builds")
    linked = link_text(data, rows, chapters)
    if linked:
        sentences.append(linked.removesuffix("."))
    measured = {stage for stage, _result, _repeats in rows}
    compared: list[str] = []  # "from 9 to 10, +82 ± 61 Elo, resolved"
    refused: dict[str, list[str]] = {}  # why a step is not compared: the steps it keeps out
    own_rows = [row for row in rows if row[2] is None]  # a repeated result is no step
    for earlier, later in zip(own_rows, own_rows[1:], strict=False):
        ends = f"from {stage_label(earlier[0])} to {stage_label(later[0])}"
        verdict = step_text(earlier, later).removeprefix(ends + ", ")
        gap = unmeasured_between(span or [], earlier[0], later[0], measured)
        if gap:
            one = len(gap) == 1
            span_words = ("" if one else (" and " if len(gap) == 2 else " to ")
                          + stage_label(gap[-1]))
            ends += (f" (stage{'' if one else 's'} {stage_label(gap[0])}{span_words} between "
                     f"them {'is' if one else 'are'} not measured yet)")
        # The steps left out for one reason share its words, said once after the measured ones.
        if verdict.startswith("not compared, "):
            refused.setdefault(verdict.removeprefix("not compared, "), []).append(ends)
        else:
            compared.append(f"{ends}, {verdict}")
    if compared:
        sentences.append("From one measured stage to the next: " + "; ".join(compared))
    if refused:
        sentences.append(("Not compared: " if compared else
                          "Not compared, from one measured stage to the next: ")
                         + "; ".join(f"{joined(ends)}, {why}" for why, ends in refused.items()))
    if not all(entry["conditions"]["quiet"] for entry in matches):
        sentences[-1] += " (not all measured on a quiet machine)"
    # Near all wins or all losses a score says little about the Elo: the anchor is outgrown.
    low, high = INFORMATIVE_SCORES
    lopsided = [f"{stage_label(stage)} (against {anchor_name(result['anchor'])})"
                for stage, result, repeats in rows
                if repeats is None and not low <= result["score_fraction"] <= high]
    if lopsided:
        sentences.append(f"Stage{'s' if len(lopsided) > 1 else ''} {', '.join(lopsided)} "
                         f"scored outside {low:.0%}-{high:.0%}, where a score says little "
                         "about the Elo: an anchor nearer its strength is needed there")
    if data.get("unlinked"):
        sentences.append(f"Not charted: the matches in book/data/strength/"
                         f"{', '.join(data['unlinked'])}, measured on another clock or build")
    return ". ".join(sentences) + "."
