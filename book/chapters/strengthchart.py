"""Draws the book's chart of strength by stage (book/data/strength/by-stage.json).

The introduction and chapter 18 show the same chart, so it is drawn here, once. The data come
from tools/strength_by_stage.py: every stage that can play, against one anchor (Sunfish), on
one clock. A stage that changes no engine code repeats the result of the stage before it; a
stage with no match of its own (it cannot play a game yet, or its match is not played) has
no point, and the chart says so instead of leaving a gap that looks like nothing.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt

# Elo: the length of the arrow standing for an open end of an interval.
OPEN_END = 150

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


def chart_rows(data: dict, chapters: Path) -> list[Row]:
    """Return each charted stage, its result, and the stage it repeats (None if its own)."""
    # A stage's snapshot holds the data of later stages too; it shows only its own chapters.
    present = set(book_stages(chapters))
    entries = [entry for entry in data["stages"] if entry["stage"] in present]
    measured = {entry["stage"]: entry for entry in entries if "elo" in entry}
    return [(entry["stage"], measured[entry.get("same_engine_as", entry["stage"])],
             entry.get("same_engine_as"))
            for entry in entries
            if entry.get("same_engine_as", entry["stage"]) in measured]


def point_label(stage: str, repeats: str | None) -> str:
    """Return a point's label on the axis: "8", or "7.1 = 7" for a repeated result."""
    own = stage_label(stage)
    return own if repeats is None else f"{own} = {stage_label(repeats)}"


def anchor_text(anchor: dict) -> str:
    """Return the anchor and its limits in words: "sunfish 2023.1 at a clock of 5+0.05"."""
    name = anchor["package_version"] or anchor["uci_id_name"] or anchor["name"]
    kind, amount = anchor["limits"].split()  # "--tc 5+0.05" or "--nodes 8000"
    limit = f"a clock of {amount}" if kind == "--tc" else f"{amount} nodes a move"
    return f"{name} at {limit}"


def draw_point(axes: plt.Axes, position: int, result: dict, hollow: bool) -> None:
    """Draw one stage's Elo with its 95 % interval at `position`; an open end is an arrow."""
    elo = result["elo"]
    lower, upper, centre = elo["lower"], elo["upper"], elo["difference"]
    if centre is None:  # every pair alike: only one end of the interval is known
        centre = lower if upper is None else upper
    below = 0 if lower is None else centre - lower
    above = 0 if upper is None else upper - centre
    # A repeated result is drawn hollow: the same measurement, not a second one.
    axes.errorbar([position], [centre], yerr=[[below], [above]], fmt="o", capsize=4,
                  color="tab:blue", markerfacecolor="white" if hollow else "tab:blue")
    for bound, direction in ((lower, -1), (upper, 1)):
        if bound is None:  # an open end: an arrow, OPEN_END long, going its way
            axes.annotate("", xy=(position, centre + direction * OPEN_END),
                          xytext=(position, centre),
                          arrowprops={"arrowstyle": "->", "color": "tab:blue"})


def draw_chart(rows: list[Row], anchor: dict, span: list[str] | None = None) -> list[str]:
    """Draw each stage's Elo against the anchor with its 95 % interval; return the stages
    of `span` drawn without a point.

    Without `span` the chart has the measured stages only. With it, every stage of `span`
    has its place on the axis, and one without a result is shaded grey with its label.
    """
    stages = span if span is not None else [stage for stage, _, _ in rows]
    results = {stage: (result, repeats) for stage, result, repeats in rows}
    figure, axes = plt.subplots(figsize=(max(7.0, 0.6 * len(stages)), 3.6))
    missing = []
    for position, stage in enumerate(stages):
        if stage in results:
            result, repeats = results[stage]
            draw_point(axes, position, result, hollow=repeats is not None)
        else:
            missing.append(stage)
            axes.axvspan(position - 0.4, position + 0.4, color="0.9", zorder=0,
                         label="no match of its own" if len(missing) == 1 else None)
    axes.set_xticks(range(len(stages)),
                    [point_label(stage, results[stage][1]) if stage in results
                     else stage_label(stage) for stage in stages])
    for label, stage in zip(axes.get_xticklabels(), stages, strict=True):
        if stage not in results:
            label.set_color("0.5")
    if missing:
        axes.legend(loc="best", fontsize="small")
    axes.axhline(0, color="grey", linewidth=0.5)
    axes.set_xlabel("stage")
    axes.set_ylabel(f"Elo against {anchor['name']}")
    axes.set_title(f"cb2026 against {anchor_text(anchor)}, 95% intervals")
    plt.show()
    return missing


def step_text(earlier: Row, later: Row) -> str:
    """Return the Elo a stage gained on the one before it, and whether the matches resolve it."""
    (_, before, _), (stage, after, _) = earlier, later
    ends = [result["elo"][end] for result in (before, after) for end in ("lower", "upper")]
    if None in ends:
        return f"stage {stage_label(stage)} not resolved (an interval with an open end)"
    gain = after["elo"]["difference"] - before["elo"]["difference"]
    # Two separate matches against the same anchor: their errors add in quadrature (a normal
    # approximation, with each match's half-width; their own intervals are a little lopsided).
    margin = math.hypot((ends[1] - ends[0]) / 2, (ends[3] - ends[2]) / 2)
    verdict = "resolved" if abs(gain) > margin else "not resolved by these matches"
    return f"stage {stage_label(stage)} {gain:+.0f} ± {margin:.0f} Elo, {verdict}"


def strength_chart(data: dict, chapters: Path, span: list[str] | None = None) -> str:
    """Draw the chart of the data (every stage of `span`, if given); return the sentence
    that sums it up."""
    rows = chart_rows(data, chapters)
    if not rows:
        return "No stage has been measured yet: run `make strength`."
    draw_chart(rows, data["anchor"], span)
    (first_stage, first, _), (last_stage, last, _) = rows[0], rows[-1]
    sentence = (f"Against {anchor_text(data['anchor'])}, stage {stage_label(first_stage)} "
                f"scores {first['elo']['text']} Elo over {first['games']} games")
    if last is not first:  # a last stage that repeats the first adds nothing
        sentence += (f" and stage {stage_label(last_stage)} {last['elo']['text']} Elo "
                     f"over {last['games']} games")
    builds = sorted({result.get("build", "unrecorded") for _stage, result, _ in rows})
    sentence += f" ({' and '.join(builds)} build)"
    if data["not_playing"]:
        sentence += (f"; stages {stage_label(data['not_playing'][0])} to "
                     f"{stage_label(data['not_playing'][-1])} cannot play a game yet")
    steps = [step_text(earlier, later) for earlier, later in zip(rows, rows[1:], strict=False)
             if later[2] is None]  # a repeated result is no step
    if steps:
        sentence += ". From one stage to the next: " + "; ".join(steps)
    if not all(result["conditions"]["quiet"] for _stage, result, _ in rows):
        sentence += " (not all measured on a quiet machine)"
    # Near all wins or all losses a score says little about the Elo: the anchor is outgrown.
    lopsided = [stage_label(stage) for stage, result, repeats in rows
                if repeats is None and not 0.1 <= result["score_fraction"] <= 0.9]
    if lopsided:
        sentence += (f". Stage{'s' if len(lopsided) > 1 else ''} {', '.join(lopsided)} "
                     "scored outside 10-90 % against the anchor, where a score says little "
                     "about the Elo: an anchor nearer its strength is needed there")
    return sentence + "."
