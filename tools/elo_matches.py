"""The book's "What it's worth" matches: each chapter's Elo measurements, in one place.

usage: python tools/elo_matches.py STAGE [--only NAME] [--resume] [--list] [--games N]

Plays the experiments listed for STAGE with the match runner (`python -m cb2026.match`),
cb2026 being the engine as it was at that stage (tangled from the book), and writes
book/data/STAGE/elo-NAME.json and .pgn, which the chapter reads and renders. Every match is
played in colour-reversed pairs, one opening of the book's suite per pair, and most stop on
a pentanomial SPRT; `--games` only caps them. Matches take minutes to hours, so they never
run under the test suite. While a match runs, its journal lives in
book/data/STAGE/unfinished/, and `--resume` continues an interrupted match from it. That
folder is tracked: a match longer than a working session is committed as it stands and
resumed in the next session, on another checkout, from the same games. (The journal names
the engines' command lines, so resume from a checkout at the same path.) A finished match
removes its unfinished files.

The engine is the compiled build of the stage (tools/compile_engine.py, built if missing)
where a C compiler exists, else the plain Python one: the same source, so the same games
at fixed nodes, in a third of the time. An experiment may ask for the plain Python build
(`build="interpreted"`): the strength matches of stage 12 rate the engine as a reader runs
it, in pure Python like Sunfish. Each data file records the build that played. Every run
holds the measurement lock (tools/quiet.py), so no timing overlaps a match. A match on a
clock also needs a quiet machine, since load would cost its engines time; a fixed-node
match does not (its games are the same under any load), so it records the load but never
refuses for it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import calibrate  # noqa: E402
import quiet  # noqa: E402
from compile_engine import changed_modules, engine_folder, source_digests  # noqa: E402
from literate.stages import package_folder  # noqa: E402

# Games end early by the usual adjudication: a side down 10 pawns for 3 moves in a row
# resigns, 8 moves near 0 after move 40 agree a draw, and 150 moves are a draw.
ADJUDICATION = ["--resign-count", "3", "--draw-count", "8", "--max-moves", "150"]
STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
SUNFISH = shutil.which("sunfish-uci") or str(Path(sys.executable).parent / "sunfish-uci")

# An SPRT asking whether a technique is worth something (elo0 = 0) or at least 20 Elo: a
# large gain ends it within tens of pairs, a gain near zero only after hundreds.
WORTH_SPRT = "elo0=0 elo1=20 alpha=0.05 beta=0.05"

# Chapters 5 and 6 come before the engine can play (UCI search arrives in chapter 7), so their
# techniques are measured with the chapter-7 engine, the technique switched off.
PLAYING_STAGE = {"stage-05-alphabeta": "stage-07-uci", "stage-06-quiescence": "stage-07-uci"}


@dataclass(frozen=True)
class Experiment:
    """One match of the book: cb2026 against an opponent, under given limits."""

    name: str
    opponent: tuple[str, ...]  # ("self", options of the second cb2026...) or an engine spec
    limits: tuple[str, ...]  # the runner's limit arguments
    games: int  # the most games; an SPRT may end the match sooner
    sprt: str | None = WORTH_SPRT
    # Options for cb2026: on both sides in self-play, on its one side against another engine.
    both: tuple[str, ...] = ()
    # "compiled" (mypyc, where a C compiler exists) or "interpreted" (plain Python).
    build: str = "compiled"
    # Where in the runner's shuffled order of the opening suite the match's lines start.
    opening_offset: int = 0
    # The games of a pilot that decides whether the match is played at all (PILOT_SCORES);
    # 0 for a match played without one.
    pilot_games: int = 0

    @property
    def on_clock(self) -> bool:
        """Return True if the engines play on a clock, so that load would change the games."""
        return "--nodes" not in self.limits


def nodes(count: int) -> tuple[str, ...]:
    """Return the limits of self-play at a fixed number of nodes per move."""
    return ("--nodes", str(count))


def clock(control: str) -> tuple[str, ...]:
    """Return the limits of a match on a clock, e.g. "5+0.05"."""
    return ("--tc", control)


def switched_off(
    option: str, limits: tuple[str, ...], games: int, both: tuple[str, ...] = (),
    opening_offset: int = 0,
) -> Experiment:
    """Return a self-play experiment: cb2026 against itself with one technique switched off."""
    name = option.lower() + ("-clock" if "--tc" in limits else "")
    return Experiment(name, ("self", f"option.{option}=false"), limits, games, both=both,
                      opening_offset=opening_offset)


# Fixed nodes measure what a technique does to the tree; the clock adds what it costs in time.
# At 2+0.02 the compiled engine thinks about a fifteenth of a second a move: from 2,700 to 8,300
# nodes a move in the clock matches of chapters 5 to 12 (nodes_per_move in their data files),
# trees of the fixed-node budget's order, and from chapter 8 on smaller (a slower node).
SELF_PLAY_NODES = 8_000
SELF_PLAY_CLOCK = "2+0.02"

# Buckets only matter when one search stores more results than the table has slots, and the
# engine's smallest table in megabytes (Hash 1, the least UCI's spin option allows) holds
# 2**20 / 16 = 65,536 entries. A first match at 10,000 nodes filled 1.7% of it per search
# (hashfull in the later half of its games, 8,400 nodes used a move): 0.13 stored results a
# node, and buckets had nothing to do. Crowding that table takes searches of over a million
# nodes a move, a match of some 45 hours here. The second match shrinks the table instead
# (TableSlots, chapter 8) to 512 slots, which a search at the self-play budget (about 1,000
# results) fills twice over: about the pressure on Stockfish's own 1 MB table at 60+0.6
# (hashfull 902 per mille in its developers' measurement, chapter 8.1's reading list).
BUCKET_HASH_MB = 1
BUCKET_SLOTS = 512

# Every match plays the suite's lines in the runner's one shuffled order (seed 2026) from
# its start, so chapter 13.1's tuning set, made of the games of earlier chapters, comes from
# the first lines of that order (298 of the first 300). Its matches start after them, so
# that the tuned weights are tried on openings they were not fitted on (chapter 13.1 checks).
TUNING_SET_LINES = 300

BUILDS = ("compiled", "interpreted")


def build_suffix(build: str) -> str:
    """Return what an experiment's name adds for its build: "-pure" for plain Python."""
    if build not in BUILDS:
        raise ValueError(f"unknown build {build!r}: one of {', '.join(BUILDS)}")
    return "-pure" if build == "interpreted" else ""


def stockfish_level(
    elo: int, limits: tuple[str, ...], games: int, build: str = "compiled"
) -> Experiment:
    """Return a match against Stockfish weakened to `elo` on its UCI_Elo scale, one thread."""
    return Experiment(
        f"stockfish-{elo}{build_suffix(build)}",
        (f"cmd={STOCKFISH}", f"name=stockfish-{elo}", "option.UCI_LimitStrength=true",
         f"option.UCI_Elo={elo}", "option.Threads=1"),
        limits, games, None, build=build,
    )


def sunfish(limits: tuple[str, ...], games: int, build: str = "compiled") -> Experiment:
    """Return a match against Sunfish (PyPI), the anchor of tools/strength_by_stage.py."""
    return Experiment(f"sunfish{build_suffix(build)}", (f"cmd={SUNFISH}", "name=sunfish"),
                      limits, games, None, build=build)


# Stockfish 15.1 turns UCI_Elo into a skill level and freezes its (randomly weakened) move at
# search depth 1 + int(level): 2, 3 and 5 for these levels. The compiled stage-7 engine scored
# +199 against Sunfish at 5+0.05; the first runner's matches (interpreted engine, chapter 7.1's
# first edition) had Sunfish about 100 Elo above UCI_Elo 1350, so cb2026 near 1650: the
# levels bracket that.
STOCKFISH_LEVELS = (1500, 1650, 1800)

# The clock of the strength matches at the end of stage 12, and Stockfish's levels there.
STRENGTH_CLOCK = "10+0.1"
STRENGTH_LEVELS = (1350, 1500)

# The strength matches at the end of Part III (stage 15): the levels of chapter 7.1, the
# highest of them the goal's (50% at UCI_Elo 1800 or higher).
PART_III_LEVELS = STOCKFISH_LEVELS

# Chapter 16's match: a few tenths of a second a move, so that starting and stopping the
# helper (milliseconds) is small beside the search.
PARALLEL_CLOCK = "10+0.1"

# Chapter 18's ladder (issue 12): at least 200 games against each engine no one here wrote.
# Sunfish at 10+0.1 with the plain Python build, as at stages 12 and 15 (goal: +200 Elo); the
# rest at 60+0.6, the clock of the games behind Stockfish 15.1's UCI_Elo levels (a 2019 fit,
# Stockfish PR #2225: 60+0.6, Hash 64 MB, one thread, rated with Ordo, goldfish 1.13 counted
# as 2000 on CCRL 40/4), with the compiled build in two processes (Threads 2, chapter 16) and
# a 64 MB table. Stockfish plays with the fit's table and thread. Its levels bracket the
# goal's 2000 (50% there); GNU Chess 6.2.7 (Debian's gnuchess, UCI with --uci, its own book
# off) is a third program, which spends its clock (four trial games at 3+0.03 on this
# machine) but states no rating of its own: its match places cb2026 beside it, not on a scale.
# At full strength it may win nearly every game, so a pilot of LADDER_PILOT_GAMES games
# (--only gnuchess --games N) comes first, and the rung stays only if cb2026 scores inside
# PILOT_SCORES there (chapter 18); its pilot of 2026-12-05 did not (2.5%), so it left.
# Phalanx (Debian) speaks only xboard, which the runner does not. Played one game at a time.
LADDER_CLOCK = "60+0.6"
LADDER_LEVELS = (1800, 2000, 2200)
LADDER_GAMES = 200
LADDER_ENGINE = ("option.Threads=2", "option.Hash=64")
LADDER_STOCKFISH_HASH = "option.Hash=64"  # the table of the fit's games (PR #2225)
LADDER_PILOT_GAMES = 20
# A pilot keeps its rung if cb2026 scores inside these; outside them a score says little
# about the Elo (the book's INFORMATIVE_SCORES), and the full match is not played.
PILOT_SCORES = (0.1, 0.9)
GOAL_CLOCK = STRENGTH_CLOCK  # the issue states the Sunfish goal at the strength matches' clock
GNUCHESS = shutil.which("gnuchess") or "/usr/games/gnuchess"


def ladder_level(elo: int) -> Experiment:
    """Return a rung of the ladder: Stockfish at `elo`, one thread and the fit's table,
    against the compiled cb2026 in two processes, at the ladder's clock."""
    level = stockfish_level(elo, clock(LADDER_CLOCK), LADDER_GAMES)
    return replace(level, opponent=(*level.opponent, LADDER_STOCKFISH_HASH),
                   both=LADDER_ENGINE)


def own_openings(experiments: list[Experiment], start: int) -> list[Experiment]:
    """Return the experiments, each given its own block of the runner's shuffled opening
    order (one line a pair), the blocks consecutive from line `start`: no two rungs share an
    opening, so their results are independent, as chapter 18's bootstrap takes them."""
    placed = []
    for experiment in experiments:
        placed.append(replace(experiment, opening_offset=start))
        start += (experiment.games + 1) // 2  # the runner's pairs: an odd game rounds up
    return placed


# Chapter 15's forward pruning: its five switches, and all of them off as match options.
PRUNING_SWITCHES = ("QuiescenceSEE", "DeltaPruning", "ReverseFutility", "Futility",
                    "LateMovePruning")
PRUNING_OFF = tuple(f"option.{name}=false" for name in PRUNING_SWITCHES)
# Each technique left out alone: at most 400 games, which gave chapter 12's LMR match a 95%
# interval of +/-26.6 Elo, within the +/-30 that a match ending on its cap must reach; the
# SPRT may stop it sooner.
TECHNIQUE_GAMES = 400


def technique_name(switch: str) -> str:
    """Name a leave-one-out match as chapter 15 names the technique: "QuiescenceSEE" gives
    "quiescence-see", "LateMovePruning" "late-move-pruning"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "-", switch).lower()

EXPERIMENTS: dict[str, list[Experiment]] = {
    "stage-05-alphabeta": [
        switched_off("Ordering", nodes(SELF_PLAY_NODES), 1000),
        switched_off("Ordering", clock(SELF_PLAY_CLOCK), 300),
    ],
    "stage-06-quiescence": [
        switched_off("Quiescence", nodes(SELF_PLAY_NODES), 1000),
        switched_off("Quiescence", clock(SELF_PLAY_CLOCK), 300),
    ],
    # Chapter 7.1's rating. Its match against Sunfish is the introduction's stage-7 match,
    # played once by tools/strength_by_stage.py (--only stage-07-uci, 400 games). Stockfish
    # is played at three UCI_Elo levels, a third of the 400 games each (rounded up to pairs),
    # so that one of them lies near an even score.
    "stage-07.1-matches": [stockfish_level(elo, clock("5+0.05"), 134)
                           for elo in STOCKFISH_LEVELS],
    "stage-08-tt": [
        switched_off("TT", nodes(SELF_PLAY_NODES), 1000),
        # 300 games left the SPRT undecided once (LLR 2.83 of 2.94): room for it to decide.
        switched_off("TT", clock(SELF_PLAY_CLOCK), 600),
    ],
    "stage-08.1-tt-buckets": [
        # The match chapter 8.1 shows now: a table that never fills (see above).
        switched_off("Buckets", nodes(10_000), 400, both=(f"option.Hash={BUCKET_HASH_MB}",)),
        # The same in a crowded table: the experiment that exercises buckets. It was played
        # with a cap of 600 games, at which the SPRT had not decided: the cap stays 600 so
        # that this command reproduces book/data/stage-08.1-tt-buckets/elo-buckets-full.json.
        Experiment("buckets-full", ("self", "option.Buckets=false"), nodes(SELF_PLAY_NODES),
                   600, both=(f"option.TableSlots={BUCKET_SLOTS}",)),
        # Buckets make every store and every missed probe dearer in Python: on a clock too.
        Experiment("buckets-full-clock", ("self", "option.Buckets=false"),
                   clock(SELF_PLAY_CLOCK), 300, both=(f"option.TableSlots={BUCKET_SLOTS}",)),
    ],
    "stage-09-pvs": [
        # This chapter's search against chapter 8.1's: both techniques off in the second copy.
        # First played with caps of 300 and 200 games (one session's time); the caps stay so
        # that these commands reproduce the data files, and `--games N --resume` extends them.
        Experiment("pvs-aspiration", ("self", "option.PVS=false", "option.Aspiration=false"),
                   nodes(SELF_PLAY_NODES), 300),
        Experiment("pvs-aspiration-clock",
                   ("self", "option.PVS=false", "option.Aspiration=false"),
                   clock(SELF_PLAY_CLOCK), 200),
        # Each technique alone, at fixed nodes (the chapter renders them when present).
        # PVS alone was played to 300 games over two sessions (SPRT undecided): the cap
        # stays 300 so that the command reproduces the data file.
        switched_off("PVS", nodes(SELF_PLAY_NODES), 300),
        switched_off("Aspiration", nodes(SELF_PLAY_NODES), 1000),
    ],
    "stage-10-null-move": [
        # This chapter's search against chapter 9's: the null move off in the second copy.
        # First played to a cap of 272 games (SPRT undecided, +/-31 Elo), then replayed from
        # the start with this cap of 400 for the +/-30 interval issue 10 asks: at fixed nodes
        # the first 272 games came out the same, move for move.
        switched_off("NullMove", nodes(SELF_PLAY_NODES), 400),
        # The null move costs an evaluation and a few tests at every non-PV node: a clock.
        switched_off("NullMove", clock(SELF_PLAY_CLOCK), 400),
    ],
    "stage-11-killers-history": [
        # This chapter's ordering against chapter 10's: the three switches off in the second
        # copy (with them off, the search is stage 10's, node for node). First played to
        # 400 games (SPRT undecided, LLR 2.75), then resumed with a cap of 600: the SPRT
        # accepted H1 after 214 pairs (430 games). The cap stays 600 so that the command
        # reproduces the data file.
        Experiment("killers-history",
                   ("self", "option.Killers=false", "option.History=false", "option.SEE=false"),
                   nodes(SELF_PLAY_NODES), 600),
        # The picker, SEE and the history updates cost time at every node: a clock.
        Experiment("killers-history-clock",
                   ("self", "option.Killers=false", "option.History=false", "option.SEE=false"),
                   clock(SELF_PLAY_CLOCK), 400),
        # SEE's order alone (it costs nodes in Kiwipete): all on against SEE off.
        switched_off("SEE", nodes(SELF_PLAY_NODES), 1000),
    ],
    "stage-12-lmr": [
        # This chapter's search against chapter 11's: LMR off in the second copy (with it
        # off, the search is stage 11's, node for node).
        # Played to 270 games in one session (SPRT undecided), then to 400 with `--games
        # 400 --resume` for the +/-30 interval issue 10 asks; the cap stays so that the
        # command reproduces the data file, and `--games N --resume` extends it.
        switched_off("LMR", nodes(SELF_PLAY_NODES), 400),
        # LMR costs a check test and a table look-up per late move: a clock too.
        switched_off("LMR", clock(SELF_PLAY_CLOCK), 400),
        # Issue 10's strength at the end of stage 12: the plain Python build, as Sunfish is,
        # at 10+0.1 on the opening suite. The goal is +150 Elo against Sunfish; Stockfish's
        # levels bracket the engine (the compiled stage-7 engine at 5+0.05 scored -227
        # against 1800 and was not resolved against 1500, chapter 7.1).
        sunfish(clock(STRENGTH_CLOCK), 400, build="interpreted"),
        *(stockfish_level(elo, clock(STRENGTH_CLOCK), 134, build="interpreted")
          for elo in STRENGTH_LEVELS),
    ],
    "stage-13-evaluation": [
        # This chapter's evaluation against the previous stage's: Evaluation off in the
        # second copy (with it off, the search is the previous stage's, node for node).
        switched_off("Evaluation", nodes(SELF_PLAY_NODES), 1000),
        # The new evaluation costs several times the old one per call: a clock decides
        # whether what it knows is worth the nodes it no longer searches.
        switched_off("Evaluation", clock(SELF_PLAY_CLOCK), 400),
    ],
    "stage-13.1-tuning": [
        # The tuned weights against chapter 13's hand values: Tuned off in the second copy
        # (with it off, the search is stage 13's, node for node).
        switched_off("Tuned", nodes(SELF_PLAY_NODES), 1000,
                     opening_offset=TUNING_SET_LINES),
        # The weights cost nothing per node; the clock match checks that the tuned values
        # do not slow the search (different trees, other pawn structures met).
        switched_off("Tuned", clock(SELF_PLAY_CLOCK), 400, opening_offset=TUNING_SET_LINES),
    ],
    "stage-14-extensions": [
        # This chapter's search against the previous stage's: check extensions off in the
        # second copy (with them off, the search is the previous stage's, node for node).
        Experiment("check-extensions", ("self", "option.CheckExtensions=false"),
                   nodes(SELF_PLAY_NODES), 1000),
        # Deeper trees, whose time a node count does not charge: a clock too. (Not the
        # check test of every move: search_moves asks it with the switch off as well, so
        # both copies pay it; only a timing against the previous stage's package would
        # show it.)
        Experiment("check-extensions-clock", ("self", "option.CheckExtensions=false"),
                   clock(SELF_PLAY_CLOCK), 400),
        # The single-reply extension, off by default: on in both copies, then off again in
        # the second (its options come after the shared ones).
        Experiment("single-reply", ("self", "option.SingleReplyExtensions=false"),
                   nodes(SELF_PLAY_NODES), 1000, both=("option.SingleReplyExtensions=true",)),
    ],
    "stage-14.1-singular": [
        # This chapter's search against the previous stage's: singular extensions off in
        # the second copy (with them off, the search is the previous stage's, node for node).
        Experiment("singular", ("self", "option.SingularExtensions=false"),
                   nodes(SELF_PLAY_NODES), 1000),
        # The singular searches cost nodes that a fixed-node match charges, but also a
        # second probe and move generation per node searched without its move: a clock too.
        Experiment("singular-clock", ("self", "option.SingularExtensions=false"),
                   clock(SELF_PLAY_CLOCK), 400),
    ],
    "stage-15-pruning": [
        # This chapter's search against the previous stage's: the five pruning switches off
        # in the second copy (with them off, the search is the previous stage's, node for
        # node).
        Experiment("pruning", ("self", *PRUNING_OFF), nodes(SELF_PLAY_NODES), 1000),
        # Pruning saves nodes, and costs an evaluation per node and a test per quiet move:
        # a clock too.
        Experiment("pruning-clock", ("self", *PRUNING_OFF), clock(SELF_PLAY_CLOCK), 400),
        # The improving flag, off by default: on in both copies, then off again in the
        # second (its options come after the shared ones).
        Experiment("improving", ("self", "option.Improving=false"), nodes(SELF_PLAY_NODES),
                   1000, both=("option.Improving=true",)),
        # Each technique's own worth, one left out at a time: all five on against the same
        # engine with that one off and the other four on, at fixed nodes.
        *(Experiment(technique_name(switch), ("self", f"option.{switch}=false"),
                     nodes(SELF_PLAY_NODES), TECHNIQUE_GAMES)
          for switch in PRUNING_SWITCHES),
        # Issue 11's strength at the end of stage 15 (the end of Part III), as at stage 12:
        # the plain Python build against Sunfish at 10+0.1, 400 games (goal +250 Elo), and
        # against Stockfish's levels up to the goal's UCI_Elo 1800.
        sunfish(clock(STRENGTH_CLOCK), 400, build="interpreted"),
        *(stockfish_level(elo, clock(STRENGTH_CLOCK), 134, build="interpreted")
          for elo in PART_III_LEVELS),
        # The same engine and clock against the goal's level, compiled (mypyc, chapter 7.1):
        # the two builds search the same trees node for node (tests/test_compiled.py), so
        # the difference between this match and the plain one is what the plain build's
        # speed costs against that opponent.
        stockfish_level(max(PART_III_LEVELS), clock(STRENGTH_CLOCK), 134),
    ],
    "stage-16-parallel": [
        # Two processes (Threads 2) against one, on a clock: at fixed nodes the helper's
        # nodes would not count, and what a second process buys is time.  One game at a
        # time (see concurrency): the two processes of one engine need both cores, and
        # while it waits for its opponent's move the one-process engine has them both.
        Experiment("threads-clock", ("self", "option.Threads=1"), clock(PARALLEL_CLOCK),
                   400, both=("option.Threads=2",)),
    ],
    # In the order to play them: the goal's two matches first. Each rung has openings of its
    # own, after the tuning set's lines (chapter 13.1): the engine's weights were fitted on
    # positions from those openings' games.
    "stage-18-rating": own_openings([
        sunfish(clock(GOAL_CLOCK), 400, build="interpreted"),
        ladder_level(2000),
        *(ladder_level(elo) for elo in LADDER_LEVELS if elo != 2000),
        Experiment("gnuchess", (f"cmd={GNUCHESS} --uci", "name=gnuchess",
                                "option.OwnBook=false"),
                   clock(LADDER_CLOCK), LADDER_GAMES, None, both=LADDER_ENGINE,
                   pilot_games=LADDER_PILOT_GAMES),
    ], start=TUNING_SET_LINES),
}


# For the running-time estimate of a fixed-node match: the compiled engine's search speed on
# one core, and the plies of a game under ADJUDICATION (114 in the 10,000-node bucket match).
COMPILED_NODES_PER_SECOND = 200_000
PLIES_PER_GAME = 114

# For a match on a clock: the games of stage 12's Sunfish match at 10+0.1 (400 games, one at a
# time, book/data/stage-12-lmr/elo-sunfish-pure.json) took 1.18 times the two sides' base
# time each, start, adjudication and increments included.
CLOCK_GAME_SHARE = 1.18
MOST_MOVES = int(ADJUDICATION[ADJUDICATION.index("--max-moves") + 1])


def estimated_hours(experiment: Experiment) -> float | None:
    """Return the most hours a fixed-node match can take (all its games, every node), or
    None for a match on a clock (see clock_hours)."""
    if experiment.on_clock:
        return None
    budget = int(experiment.limits[experiment.limits.index("--nodes") + 1])
    seconds_per_game = budget * PLIES_PER_GAME / COMPILED_NODES_PER_SECOND
    return seconds_per_game * experiment.games / concurrency(experiment) / 3600


def clock_hours(experiment: Experiment) -> tuple[float, float]:
    """Return the hours a match on a clock should take (its games as long, for their clock,
    as stage 12's at 10+0.1) and the most it can take (every game to the move cap, each
    side using its whole clock)."""
    base, increment = map(float, experiment.limits[experiment.limits.index("--tc") + 1]
                          .split("+"))
    games = experiment.games / concurrency(experiment) / 3600
    return (games * CLOCK_GAME_SHARE * 2 * base,
            games * 2 * (base + MOST_MOVES * increment))


def engine_command(stage: str, build: str = "compiled") -> tuple[str, str]:
    """A shell command that starts cb2026 as it was at `stage`, and the build it runs:
    compiled where possible, unless `build` asks for plain Python."""
    if build_suffix(build):
        folder, build = package_folder(stage, ROOT), "interpreted"
    else:
        folder, build = engine_folder(stage, ROOT)
    code = f"import sys; sys.path.insert(0, {str(folder)!r}); from cb2026.cli import main; main()"
    return shlex.join([sys.executable, "-c", code]), build


def working_path(stage: str, name: str) -> Path:
    """Return where a match writes while it runs: beside the book's data, so that an
    unfinished match can be committed and resumed from another checkout."""
    return ROOT / "book" / "data" / stage / "unfinished" / f"elo-{name}"


def remove_unfinished(path: Path) -> None:
    """Remove a finished match's working files (summary, games, journal, the code and the
    runs it started with, the starts it refused) and their folder once it is empty."""
    for suffix in (".json", ".pgn", ".journal.jsonl", ".sources.json", ".runs.json",
                   ".refused.json"):
        # Not with_suffix: a stage id such as stage-08.1-tt-buckets has a dot of its own.
        (path.parent / f"{path.name}{suffix}").unlink(missing_ok=True)
    if path.parent.exists() and not any(path.parent.iterdir()):
        path.parent.rmdir()


def data_path(stage: str, name: str) -> Path:
    """Return where the book keeps a finished match (.json and .pgn)."""
    return ROOT / "book" / "data" / stage / f"elo-{name}"


def concurrency(experiment: Experiment) -> int:
    """Return how many pairs to play at once: every core at fixed nodes, one spare on a clock."""
    cores = os.cpu_count() or 1
    # An engine with Threads N (chapter 16) searches on N cores: a game of two needs as many.
    processes = max([int(option.split("=")[1]) for option in
                     (*experiment.both, *experiment.opponent)
                     if option.startswith("option.Threads=")] or [1])
    # On a clock the runner and the operating system need a core of their own, or their work
    # is charged to whichever engine is thinking (chapter 7.1's rule).
    if experiment.on_clock:
        return max(1, (cores - 1) // processes)
    return max(1, cores // processes)


def self_play_name(options: tuple[str, ...]) -> str:
    """Name the second cb2026 of self-play after its options: every switch turned off
    (cb2026-no-pvs-aspiration), then every other value (cb2026-threads-1)."""
    settings = [option.split(".", 1)[1].lower().split("=") for option in options]
    off = [name for name, value in settings if value == "false"]
    parts = (["no-" + "-".join(off)] if off else []) + [
        f"{name}-{value}" for name, value in settings if value != "false"]
    return "-".join(["cb2026", *parts])


def match_arguments(
    stage: str, experiment: Experiment, games: int, resume: bool, command: str
) -> list[str]:
    """The match runner's arguments for one of the book's matches; `command` starts cb2026."""
    ours = f"cmd={command}"
    first = shlex.join([ours, "name=cb2026", *experiment.both])
    if experiment.opponent[0] == "self":
        second = shlex.join([ours, f"name={self_play_name(experiment.opponent[1:])}",
                             *experiment.both, *experiment.opponent[1:]])
    else:
        second = shlex.join(experiment.opponent)
    output = working_path(stage, experiment.name)
    arguments = [
        "--engine", first, "--engine", second,
        "--games", str(games), "--concurrency", str(concurrency(experiment)),
        *experiment.limits, *ADJUDICATION,
        "--json", f"{output}.json", "--pgn", f"{output}.pgn",
        "--event", f"cb2026 {stage} {experiment.name}", "--quiet",
    ]
    if experiment.sprt:
        arguments += ["--sprt", experiment.sprt]
    if experiment.opening_offset:
        arguments += ["--opening-offset", str(experiment.opening_offset)]
    return arguments + (["--resume"] if resume else [])


def same_engine_as_before(path: Path, sources: dict[str, str], resume: bool) -> bool:
    """Keep beside a match's journal the digests of the engine's modules it started with
    (`path` is working_path's), and refuse to resume it with other code: its games would
    come from two engines, and the data file names one. A journal begun before matches
    kept digests gets none, so that its data file records no code (started_with_code)."""
    record = path.parent / f"{path.name}.sources.json"
    journal = path.parent / f"{path.name}.journal.jsonl"
    if resume and record.exists():
        changed = changed_modules(json.loads(record.read_text()), sources)
        if changed:
            print(f"{path.name}: the engine has changed since this match started "
                  f"({', '.join(changed)}); remove {path.parent}/{path.name}.* to start "
                  "it again", flush=True)
            return False
    elif not (resume and journal.exists()):
        record.write_text(json.dumps(sources, indent=1) + "\n")
    return True


def started_with_code(path: Path) -> dict[str, str] | None:
    """The digests a match (`path` is working_path's) started with, or None if its
    journal was begun before matches kept them."""
    record = path.parent / f"{path.name}.sources.json"
    return json.loads(record.read_text()) if record.exists() else None


def games_in_journal(path: Path) -> int:
    """The games a match's journal (`path` is working_path's) holds: a line each after its
    header, not counting a last line a crash cut short (the runner drops it too)."""
    journal = path.parent / f"{path.name}.journal.jsonl"
    if not journal.exists():
        return 0
    games = 0
    for line in journal.read_text().splitlines():
        with contextlib.suppress(json.JSONDecodeError):  # a line a crash cut short
            games += "index" in json.loads(line)
    return games


def runs_on_processor(path: Path, cpu: str) -> list[dict]:
    """The runs on processor `cpu` of every match of the stage of `path` (working_path's):
    those under way beside it and those finished in book/data."""
    runs = [run for record in sorted(path.parent.glob("elo-*.runs.json"))
            for run in quiet.previous_runs(record)]
    for finished in sorted(path.parent.parent.glob("elo-*.json")):
        runs += json.loads(finished.read_text()).get("runs") or []
    return [run for run in runs if run.get("cpu") == cpu]


def same_machine_as_before(path: Path, conditions: quiet.Conditions,
                           another_processor: bool = False) -> bool:
    """Refuse to resume a clock match (`path` is working_path's) on a machine unlike its
    earlier runs': another processor (Sunfish's speed stands for the engines' only on one),
    other cores (they set how many games run at once), a speed timed with another
    reference, or a speed outside the band of no clear difference beside any earlier run's.
    On a clock the engine's strength follows the machine, and the data file names one
    match. With `another_processor` the processor may change, by the user's choice: each
    processor's runs are then held to these checks among themselves, and the speed must also
    be alike to one of the stage's timings on this processor, if there are any, so that a
    busy machine is refused even at the first run on it. One, not all: machines with one
    processor's name differ among themselves by nearly the whole band."""
    if conditions.speed is None:
        return True
    runs = quiet.previous_runs(path.parent / f"{path.name}.runs.json")
    reasons = []
    if another_processor:
        runs = [run for run in runs if run.get("cpu") == conditions.cpu]
        known = sorted(run["speed"]["nps"] for run in runs_on_processor(path, conditions.cpu)
                       if run.get("speed"))
        if known and not any(quiet.speeds_alike([nps, conditions.speed["nps"]])
                             for nps in known):
            reasons.append(f"Sunfish's fixed search ran at {conditions.speed['nps']:,} nodes "
                           f"a second here, unlike every timing on {conditions.cpu} in this "
                           f"stage ({known[0]:,} to {known[-1]:,})")
    processors = sorted({run["cpu"] for run in runs
                         if run.get("cpu") not in (None, conditions.cpu)})
    if processors:
        reasons.append(f"{conditions.cpu} here, {', '.join(processors)} before")
    cores = sorted({run["cores"] for run in runs
                    if run.get("cores") not in (None, conditions.cores)})
    if cores:
        reasons.append(f"{conditions.cores} cores here, {', '.join(map(str, cores))} before")
    timed = [run["speed"] for run in runs if run.get("speed")]
    here = conditions.speed.get("reference")
    references = sorted({speed["reference"] for speed in timed
                         if speed.get("reference") not in (None, here)})
    if references:
        reasons.append(f"timed with {here} here, with "
                       f"{', '.join(references)} before")
    unlike = [speed["nps"] for speed in timed
              if not quiet.speeds_alike([speed["nps"], conditions.speed["nps"]])]
    if unlike:
        reasons.append(f"Sunfish's fixed search ran at {conditions.speed['nps']:,} nodes a "
                       f"second here, at {', '.join(f'{nps:,}' for nps in unlike)} before")
    if not reasons:
        return True
    print(f"{path.name}: this machine is not like the one the match was played on so far "
          f"({'; '.join(reasons)}; calibrate.py): its games would be another engine's. "
          f"Resume it on a machine like the first, or remove {path.parent}/{path.name}.* to "
          "start it again", flush=True)
    return False


def refused_path(path: Path) -> Path:
    """Return where a match (`path` is working_path's) keeps the starts that
    same_machine_as_before refused, in record_run's form."""
    return path.parent / f"{path.name}.refused.json"


def start_run(path: Path, conditions: quiet.Conditions, on_clock: bool,
              resume: bool, another_processor: bool = False) -> list[dict] | None:
    """Begin a run of the match at `path` (working_path's, or the strength tool's): time the
    machine if the match is on a clock (fixed nodes play the same games on any machine),
    refuse a machine unlike the earlier runs' (None, the refusal recorded; see
    same_machine_as_before for `another_processor`), and record the run; return every
    run."""
    runs_path = path.parent / f"{path.name}.runs.json"
    if not (resume and (path.parent / f"{path.name}.journal.jsonl").exists()):
        # The match starts afresh, and so do its runs and its refusals.
        runs_path.unlink(missing_ok=True)
        refused_path(path).unlink(missing_ok=True)
    if on_clock:
        conditions.speed = calibrate.machine_speed()
        print(f"machine speed: Sunfish {conditions.speed['nps']:,} nodes a second", flush=True)
        if not same_machine_as_before(path, conditions, another_processor):
            # Kept, not dropped: a refused timing is a measurement of the machine as well,
            # and the match's file says how often its check said no. It is written where the
            # refusal happened, so it reaches the match only if committed with the journal.
            quiet.record_run(refused_path(path), conditions, games_in_journal(path))
            print(f"the refused start is kept in {refused_path(path)}: commit it with the "
                  "journal", flush=True)
            return None
    return quiet.record_run(runs_path, conditions, games_in_journal(path))


def end_run(conditions: quiet.Conditions, on_clock: bool, completed: bool) -> None:
    """Time the machine again at the end of a clock match that finished (still inside the
    lock), so that its record shows whether the machine kept its speed while it played."""
    if on_clock and completed:
        conditions.speed_after = calibrate.machine_speed()
        print(f"machine speed at the end: Sunfish {conditions.speed_after['nps']:,} nodes a "
              "second", flush=True)


def play(stage: str, experiment: Experiment, options: argparse.Namespace) -> int:
    """Play one experiment under the measurement lock; copy its result into book/data."""
    # A fixed-node match gives the same games under any load: record the load, never refuse.
    options.allow_load = options.allow_load or not experiment.on_clock
    games = min(options.games or experiment.games, experiment.games)
    pilot = data_path(stage, experiment.name).with_suffix(".json")
    if (games > experiment.pilot_games > 0 and pilot.exists()
            and pilot_left(experiment, json.loads(pilot.read_text()))):
        print(f"{stage} {experiment.name}: its pilot ({pilot.relative_to(ROOT)}) scored "
              f"outside {PILOT_SCORES}, so the full match is not played", flush=True)
        return 0
    command, build = engine_command(PLAYING_STAGE.get(stage, stage), experiment.build)
    print(f"{stage} {experiment.name}: {PLAYING_STAGE.get(stage, stage)} engine ({build}), "
          f"at most {games} games", flush=True)
    working_path(stage, experiment.name).parent.mkdir(parents=True, exist_ok=True)
    sources = source_digests(package_folder(PLAYING_STAGE.get(stage, stage), ROOT))
    if not same_engine_as_before(working_path(stage, experiment.name), sources,
                                 options.resume):
        return 1
    path = working_path(stage, experiment.name)
    with quiet.measurement(options, f"elo_matches {stage} {experiment.name}") as conditions:
        runs = start_run(path, conditions, experiment.on_clock, options.resume,
                         options.another_processor)
        if runs is None:
            return 1
        completed = subprocess.run(
            [sys.executable, "-m", "cb2026.match",
             *match_arguments(stage, experiment, games, options.resume, command)],
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
            check=False,
        )
        end_run(conditions, experiment.on_clock, completed.returncode == 0)
    if completed.returncode != 0:
        return completed.returncode
    destination = store_result(stage, experiment, build, conditions.record(), runs,
                               capped_at=games if games < experiment.games else None)
    print(f"wrote {destination.relative_to(ROOT)}.json and .pgn", flush=True)
    return 0


def pilot_left(experiment: Experiment, summary: dict) -> bool:
    """Return True if `summary` is the pilot of a match that begins with one, and cb2026's
    score there lies outside PILOT_SCORES: the rung leaves the ladder unplayed."""
    low, high = PILOT_SCORES
    return (0 < summary["games_played"] <= experiment.pilot_games
            and not low <= summary["score_fraction"] <= high)


def store_result(stage: str, experiment: Experiment, build: str, conditions: dict,
                 runs: list[dict], capped_at: int | None = None) -> Path:
    """Copy a match that ended into book/data with the runs that played it, and return where.
    A match that played all its games leaves no working files; one capped by --games (a
    pilot, `capped_at` games) keeps them, so that --resume goes on from its games instead of
    playing them again, unless its pilot ended the rung (pilot_left)."""
    source, destination = working_path(stage, experiment.name), data_path(stage, experiment.name)
    destination.parent.mkdir(parents=True, exist_ok=True)
    summary = json.loads(source.with_suffix(".json").read_text())
    command = f"python tools/elo_matches.py {stage} --only {experiment.name}"
    # Every run's conditions, the last one's completed at its end: a match resumed in
    # another session keeps what each session's machine was.
    summary |= {"build": build, "conditions": conditions,
                "runs": [*runs[:-1], {**runs[-1], **conditions}],
                "refused_runs": quiet.previous_runs(refused_path(source)),
                "sources": started_with_code(source),
                "command": command + (f" --games {capped_at}" if capped_at else "")}
    # The runner times only its own run but divides by every game of the match; a resumed
    # match's time per game is that run's time over that run's games.
    played_now = summary.get("games_played", 0) - summary.get("games_resumed", 0)
    if summary.get("games_resumed") and played_now > 0:
        summary["wall_seconds_per_game"] = round(summary["wall_seconds"] / played_now, 3)
    destination.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")
    shutil.copyfile(source.with_suffix(".pgn"), destination.with_suffix(".pgn"))
    if capped_at is None or pilot_left(experiment, summary):
        remove_unfinished(source)
    return destination


def main() -> int:
    """Run the experiments of one stage (or list them), one measurement at a time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=sorted(EXPERIMENTS))
    parser.add_argument("--only", help="run only the experiment with this name")
    parser.add_argument("--games", type=int, help="play at most this many games per match")
    parser.add_argument("--resume", action="store_true", help="continue interrupted matches")
    parser.add_argument("--list", action="store_true", help="list the experiments and stop")
    parser.add_argument(
        "--another-processor", action="store_true",
        help="resume a clock match on a processor other than its earlier runs' (each run "
             "records its own); the machine is then compared with the stage's runs on it")
    quiet.add_arguments(parser)
    options = parser.parse_args()
    experiments = [experiment for experiment in EXPERIMENTS[options.stage]
                   if options.only in (None, experiment.name)]
    if not experiments:
        parser.error(f"no experiment named {options.only!r} at {options.stage}")
    if options.list:
        for experiment in experiments:
            hours = estimated_hours(experiment)
            if hours is None:
                about, most = clock_hours(experiment)
                cost = f"(about {about:.1f} h, at most {most:.1f} h)"
            else:
                cost = f"(at most {hours:.1f} h)"
            print(experiment.name, " ".join(experiment.limits), " ".join(experiment.both),
                  experiment.sprt or "no SPRT", f"at most {experiment.games} games",
                  *([f"openings from line {experiment.opening_offset}"]
                    if experiment.opening_offset else []),
                  f"{experiment.build} build", cost)
        return 0
    allow_load = options.allow_load
    for experiment in experiments:
        options.allow_load = allow_load
        status = play(options.stage, experiment, options)
        if status != 0:
            return status
    return 0


if __name__ == "__main__":
    started = time.monotonic()
    status = main()
    print(f"elo_matches: {time.monotonic() - started:.0f} s", flush=True)
    sys.exit(status)
