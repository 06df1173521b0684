"""Texel tuning (chapter 13.1): the book's own tools around it.

`tools/make_tuning_set.py` (which games it reads, the opening line each position keeps,
by which the tuner splits), and the compiled build (mypyc), which must see the weight set
that `use_weights` puts in place as the plain Python engine does.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import cb2026.search as search_module
from cb2026.evaluation import HAND_WEIGHTS
from cb2026.search import Techniques
from compile_engine import build_compiled, missing_compiler
from make_tuning_set import candidates, pgn_files
from positions import SEARCH_POSITIONS
from stage_referee import (
    AFTER_THE_EVALUATION,
    folder_searches,
    search_results,
    stage_searches,
    switched_off,
)

pytestmark = [pytest.mark.stage("stage-13.1-tuning"), pytest.mark.tooling]

# The stage whose evaluation the Tuned switch gives back.
HAND_STAGE = "stage-13-evaluation"
# Chapters 14 and 15 switched off where the engine under test has them.
LATER_TECHNIQUES = switched_off(*AFTER_THE_EVALUATION)


def test_the_set_reads_the_games_of_named_stages_up_to_13_only(tmp_path: Path) -> None:
    # A file whose path names no stage could be added by any later chapter.
    names = ["misc/games.pgn", "stage-13-evaluation/elo-evaluation.pgn",
             "stage-13.1-tuning/elo-tuned.pgn", "strength/stage-12-lmr.pgn",
             "strength/stage-14-extensions.pgn"]
    for name in names:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    assert [path.relative_to(tmp_path).as_posix() for path in pgn_files(tmp_path)] == [
        "stage-13-evaluation/elo-evaluation.pgn", "strength/stage-12-lmr.pgn"]


def test_each_position_keeps_the_opening_of_its_first_game(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    moves = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nc3 Nc6 4. Nb1 Nb8 5. e3 e6"
    path.write_text(f'[Opening "cb2026-1"]\n[Result "1-0"]\n\n{moves} 1-0\n\n'
                    f'[Opening "cb2026-2"]\n[Result "0-1"]\n\n{moves} 0-1\n\n'
                    f'[Result "1/2-1/2"]\n\n1. d4 d5 2. c4 e6 1/2-1/2\n',
                    encoding="utf-8")
    found, games = candidates([path], None, opening_plies=2)
    assert games == 3
    # The knights' dance repeats the start (a repeat, left out), the second game repeats
    # the first: every position is the first game's.
    openings = [opening for _, _, opening in found]
    assert openings[:8] == ["cb2026-1"] * 8 and "cb2026-2" not in openings
    assert openings[8:] == ["games.pgn#3"] * 3  # no Opening header: the game itself


# A weight set unlike chapter 13's and unlike the tuned one, for the tests to put in
# place of the tuned one: the switch then works whatever the tuned literals are.
OTHER_WEIGHTS = dict(HAND_WEIGHTS, MOBILITY_MIDDLEGAME=(0, 0, 8, 9, 5, 3, 0),
                     PASSED_ENDGAME=(0, 20, 30, 45, 70, 110, 160, 0),
                     ENDGAME_PIECE_VALUES=(0, 120, 300, 320, 520, 950, 0))


@pytest.mark.slow
def test_the_compiled_build_puts_the_weights_in_place_too(
    monkeypatch: pytest.MonkeyPatch, pytestconfig: pytest.Config,
) -> None:
    # Compiled code reads a module's names that are not Final from the module at each
    # use, so use_weights reaches it: with Tuned off the compiled engine is chapter 13's,
    # with it on it plays the other set as the plain Python engine does.
    reason = missing_compiler()
    if reason:
        pytest.skip(f"no compiled build possible here: {reason}")
    # The compiled build of the engine under test (with --stage, that stage's), which
    # has the switches LATER_TECHNIQUES names.
    depth, folder = 4, build_compiled(pytestconfig.option.stage)
    off = folder_searches(folder, SEARCH_POSITIONS, depth,
                          {"tuned": False, **LATER_TECHNIQUES}, OTHER_WEIGHTS)
    assert off == stage_searches(HAND_STAGE, SEARCH_POSITIONS, depth)
    on = folder_searches(folder, SEARCH_POSITIONS, depth, LATER_TECHNIQUES, OTHER_WEIGHTS)
    monkeypatch.setattr(search_module, "TUNED_WEIGHTS", OTHER_WEIGHTS)
    assert on == search_results(dataclasses.replace(Techniques(), **LATER_TECHNIQUES),
                                SEARCH_POSITIONS, depth) != off
