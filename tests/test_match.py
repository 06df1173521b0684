"""The match runner: one game's rules and clocks, then whole matches with real and broken engines.

The end-to-end matches play cb2026 (the package under test, run as a UCI engine in its own
process) against itself and against tiny fake engines that crash, hang or cheat, so they
need no engine besides this one.
"""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

import cb2026
from cb2026.game import (
    Adjudication,
    GameEnd,
    GameRecord,
    Limits,
    MoveReport,
    charge_clock,
    draw_end,
    engine_limit,
    game_to_pgn,
    length_end,
    parse_time_control,
    resign_end,
    rules_end,
    time_control_header,
)
from cb2026.match import build_tasks, main, parse_engine_spec, parse_sprt
from cb2026.openings import Opening, builtin_openings

pytestmark = pytest.mark.stage("stage-07.1-matches")

# cb2026 as a UCI engine: the package under test (src/, a stage's snapshot, or --engine).
PACKAGE_FOLDER = str(Path(cb2026.__file__).resolve().parents[1])
CB2026 = shlex.join(
    [
        sys.executable,
        "-c",
        f"import sys; sys.path.insert(0, {PACKAGE_FOLDER!r}); from cb2026.cli import main; main()",
    ]
)

RESIGN = Adjudication(resign_score=500, resign_count=2)
DRAWISH = Adjudication(draw_after_move=30, draw_score=10, draw_count=2)


def test_resign_needs_both_engines_for_k_moves_each() -> None:
    """Four plies (two moves of each engine) beyond the threshold resign the game."""
    assert resign_end([0, -600, -700, -600, -650], RESIGN) == GameEnd(
        "0-1", "adjudication", "White resigns (score <= -500 cp)"
    )
    assert resign_end([800, 900, 700, 600], RESIGN).result == "1-0"
    # One engine disagreeing, or a missing score, keeps the game going.
    assert resign_end([-600, -700, -100, -650], RESIGN) is None
    assert resign_end([-600, None, -700, -650], RESIGN) is None
    assert resign_end([-600, -700, -650], RESIGN) is None
    assert resign_end([-600] * 8, Adjudication(resign_count=0)) is None


def test_draw_rule_waits_for_the_move_number() -> None:
    """Small scores draw only after move M, and only for K moves of each engine."""
    quiet = [5, -3, 0, 10]
    assert draw_end(quiet, fullmove_number=25, adjudication=DRAWISH) is None
    assert draw_end(quiet, fullmove_number=31, adjudication=DRAWISH).result == "1/2-1/2"
    assert draw_end([5, -3, 0, 40], fullmove_number=31, adjudication=DRAWISH) is None


def test_maximum_length() -> None:
    """A game that reaches max_moves full moves is drawn."""
    board = chess.Board()
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        board.push_uci(move)
    assert length_end(board, Adjudication(max_moves=2)).result == "1/2-1/2"
    assert length_end(board, Adjudication(max_moves=3)) is None
    assert length_end(board, Adjudication(max_moves=0)) is None


def test_rules_end() -> None:
    """Mate, stalemate and claimable repetition end the game by the rules."""
    mate = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert rules_end(mate) == GameEnd("1-0", "normal", "checkmate")
    stalemate = chess.Board("7k/8/6QK/8/8/8/8/8 b - - 0 1")
    assert rules_end(stalemate).reason == "stalemate"
    board = chess.Board()
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push_uci(move)
    assert rules_end(board).reason == "threefold repetition"
    assert rules_end(chess.Board()) is None


def test_clock_flags_only_beyond_the_margin() -> None:
    """Overrunning by less than the margin is tolerated; the increment is added after."""
    limits = Limits(base_seconds=1.0, increment_seconds=0.5, time_margin_seconds=0.1)
    clocks = {chess.WHITE: 1.0, chess.BLACK: 1.0}
    assert charge_clock(clocks, chess.WHITE, 1.05, limits) is None
    assert clocks[chess.WHITE] == pytest.approx(0.45)
    end = charge_clock(clocks, chess.BLACK, 1.2, limits)
    assert end == GameEnd("1-0", "time forfeit", "Black loses on time")


def test_time_control_parsing_and_limits() -> None:
    """'10+0.1' is a clock; the engine limit carries both clocks and increments."""
    assert parse_time_control("10+0.1") == (10.0, 0.1)
    assert parse_time_control("60") == (60.0, 0.0)
    with pytest.raises(ValueError):
        parse_time_control("0+1")
    limits = Limits(base_seconds=10.0, increment_seconds=0.1)
    assert time_control_header(limits) == "10+0.1"
    assert time_control_header(Limits(nodes=1000)) == "-"
    limit = engine_limit(limits, {chess.WHITE: 9.5, chess.BLACK: -0.05})
    assert (limit.white_clock, limit.white_inc, limit.black_inc) == (9.5, 0.1, 0.1)
    assert limit.black_clock > 0
    assert engine_limit(Limits(nodes=500), {}).nodes == 500


def test_pgn_of_a_game_from_a_fen() -> None:
    """A game from a FEN gets FEN/SetUp headers; book and engine moves are commented."""
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    record = GameRecord("A", "B", Opening("test", fen, ("e2e4",)))
    record.reports.append(MoveReport(chess.Move.from_uci("e8d7"), -30, 5, 0.01))
    record.end = GameEnd("1/2-1/2", "adjudication", "draw by maximum length (1 moves)")
    text = str(game_to_pgn(record, {"Event": "unit", "TimeControl": "-"}))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game.headers["FEN"] == fen and game.headers["SetUp"] == "1"
    assert game.headers["Termination"] == "adjudication"
    assert [move.uci() for move in game.mainline_moves()] == ["e2e4", "e8d7"]
    assert game.end().comment.startswith("+0.30/5")


# A tiny UCI engine that plays its first legal move instantly, then misbehaves
# after `good_moves` moves: "illegal" sends an illegal move, "crash" exits,
# "hang" never answers, "slow" answers after `delay` seconds, "good" never fails.
FAKE_ENGINE_SOURCE = """
import sys
import time

import chess

mode, good_moves, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
board = chess.Board()
played = 0


def say(text):
    print(text, flush=True)


def set_position(words):
    global board
    split = words.index("moves") if "moves" in words else len(words)
    head, moves = words[1:split], words[split + 1:]
    board = chess.Board() if head[0] == "startpos" else chess.Board(" ".join(head[1:]))
    for move in moves:
        board.push_uci(move)


def illegal_move():
    legal = set(board.legal_moves)
    return next(
        chess.Move(start, end) for start in chess.SQUARES for end in chess.SQUARES
        if start != end and chess.Move(start, end) not in legal
    )


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        say("id name fake-" + mode)
        say("uciok")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "position":
        set_position(words)
    elif words[0] == "go":
        played += 1
        if mode == "good" or played <= good_moves:
            say("info depth 1 score cp 0")
            say("bestmove " + next(iter(board.legal_moves)).uci())
        elif mode == "crash":
            sys.exit(3)
        elif mode == "illegal":
            say("bestmove " + illegal_move().uci())
        elif mode == "slow":
            time.sleep(delay)
            say("bestmove " + next(iter(board.legal_moves)).uci())
    elif words[0] == "quit":
        break
"""


def fake_engine_spec(tmp_path: Path, mode: str, good_moves: int = 3, delay: float = 0.0) -> str:
    """Return an engine spec that runs the fake engine in the given mode."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE_SOURCE)
    command = shlex.join([sys.executable, str(script), mode, str(good_moves), str(delay)])
    return f"cmd={shlex.quote(command)} name=fake-{mode}"


def run_main(arguments: list[str], tmp_path: Path) -> tuple[int, dict, list[chess.pgn.Game]]:
    """Run the command line with PGN and JSON output; return status, JSON and games."""
    pgn_path, json_path = tmp_path / "games.pgn", tmp_path / "result.json"
    status = main([*arguments, "--pgn", str(pgn_path), "--json", str(json_path), "--quiet"])
    summary = json.loads(json_path.read_text())
    handle = io.StringIO(pgn_path.read_text())
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return status, summary, games


def test_engine_spec_parsing() -> None:
    """Quoted commands and option names with spaces; values typed for UCI."""
    spec = parse_engine_spec(
        "cmd='python3 my engine.py' name=mine option.Hash=32 option.TT=false "
        "'option.Skill Level=3' option.EvalFile=net.nnue"
    )
    assert spec.command == ("python3", "my", "engine.py") and spec.name == "mine"
    assert spec.options == {"Hash": 32, "TT": False, "Skill Level": 3, "EvalFile": "net.nnue"}
    assert parse_engine_spec("cmd=/usr/games/stockfish").name == "stockfish"
    with pytest.raises(ValueError):
        parse_engine_spec("name=nothing")


def test_sprt_parsing_and_schedule() -> None:
    """SPRT fields parse; each opening is played twice with colours swapped."""
    test = parse_sprt("elo0=0 elo1=10 alpha=0.05 beta=0.1")
    assert (test.elo0, test.elo1, test.alpha, test.beta) == (0, 10, 0.05, 0.1)
    tasks = build_tasks(builtin_openings()[:2], 3)
    assert [task.first_plays_white for task in tasks] == [True, False, True]
    assert tasks[0].opening == tasks[1].opening != tasks[2].opening


def test_real_match_cb2026_against_itself(tmp_path: Path) -> None:
    """Four games of two real engine processes, two at a time, at fixed nodes.

    Both sides are cb2026 (the package under test, started as a UCI engine), the
    second with move ordering off, so the test needs no other engine. The games
    must finish, the PGN must parse and agree with the JSON, and the numbers add up.
    """
    status, summary, games = run_main(
        [
            "--engine",
            f"cmd={shlex.quote(CB2026)} name=cb2026",
            "--engine",
            f"cmd={shlex.quote(CB2026)} name=no-ordering option.Ordering=false",
            "--games",
            "4",
            "--concurrency",
            "2",
            "--nodes",
            "300",
            "--max-moves",
            "15",
        ],
        tmp_path,
    )
    assert status == 0
    assert summary["games_played"] == len(summary["games"]) == len(games) == 4
    assert summary["wins"] + summary["losses"] + summary["draws"] == 4
    points = sum(game["first_engine_points"] for game in summary["games"])
    assert points == summary["wins"] + 0.5 * summary["draws"]
    assert summary["engines"][1]["options"] == {"Ordering": False}
    assert summary["engines"][0]["id_name"].startswith("cb2026")
    assert summary["limits"]["nodes"] == 300
    assert summary["machine"]["cpu_count"] >= 1 and summary["wall_seconds"] > 0
    assert summary["result_lines"][0].startswith("Score of cb2026 vs no-ordering:")
    assert len(summary["openings"]["used"]) == 2
    builtin = {opening.name: opening.moves for opening in builtin_openings()}
    for game, record in zip(games, summary["games"], strict=True):
        assert game.headers["Result"] == record["result"]
        assert {"Event", "White", "Black", "TimeControl", "Termination"} <= set(game.headers)
        assert game.headers["Limits"] == "nodes=300"
        # Every game starts with its opening's moves and continues with legal moves only
        # (python-chess replays the PGN and would reject an illegal one).
        moves = [move.uci() for move in game.mainline_moves()]
        assert tuple(moves[: len(builtin[record["opening"]])]) == builtin[record["opening"]]
        assert len(moves) == len(builtin[record["opening"]]) + record["engine_plies"]
        if record["termination"] == "normal":
            assert game.end().board().outcome(claim_draw=True) is not None
        else:
            assert record["termination"] == "adjudication"
    # Colours alternate within each opening pair.
    assert [game.headers["White"] for game in games] == ["cb2026", "no-ordering"] * 2
    assert games[0].headers["Opening"] == games[1].headers["Opening"]


@pytest.mark.slow
def test_twenty_games_at_one_second_never_lose_on_time(tmp_path: Path) -> None:
    """At 1+0.01 the clock ends up nearly empty: the search must keep within the increment.

    (Stage 7's search checks the clock from the first node and every 16 nodes near the
    deadline; before that, such a match lost several games on time.)
    """
    status, summary, _ = run_main(
        [
            "--engine",
            f"cmd={shlex.quote(CB2026)} name=cb2026",
            "--engine",
            f"cmd={shlex.quote(CB2026)} name=cb2026",
            "--games",
            "20",
            "--concurrency",
            "1",
            "--tc",
            "1+0.01",
        ],
        tmp_path,
    )
    assert status == 0 and summary["games_played"] == 20
    losses = [game for game in summary["games"] if game["termination"] == "time forfeit"]
    assert losses == [], losses


def test_clocks_with_a_real_engine(tmp_path: Path) -> None:
    """Two short games under a real clock: cb2026 manages its time and never flags."""
    status, summary, games = run_main(
        [
            "--engine",
            f"cmd={shlex.quote(CB2026)} name=cb2026",
            "--engine",
            f"cmd={shlex.quote(CB2026)} name=cb2026",
            "--games",
            "2",
            "--concurrency",
            "2",
            "--tc",
            "3+0.05",
            "--max-moves",
            "12",
        ],
        tmp_path,
    )
    assert status == 0
    # Two engines with the same name are told apart.
    assert [engine["name"] for engine in summary["engines"]] == ["cb2026", "cb2026-2"]
    assert all(game["termination"] != "time forfeit" for game in summary["games"])
    assert all(game.headers["TimeControl"] == "3+0.05" for game in games)


@pytest.mark.parametrize(
    ("mode", "limit", "termination"),
    [
        ("illegal", ["--nodes", "1"], "rules infraction"),
        ("crash", ["--nodes", "1"], "abandoned"),
        ("slow", ["--tc", "0.3+0"], "time forfeit"),
        ("hang", ["--tc", "0.3+0"], "time forfeit"),
    ],
)
def test_broken_engine_loses_and_runner_survives(
    tmp_path: Path, mode: str, limit: list[str], termination: str
) -> None:
    """An engine that misbehaves loses every game, with either colour, and is restarted."""
    status, summary, games = run_main(
        [
            "--engine",
            fake_engine_spec(tmp_path, mode, good_moves=3, delay=0.6),
            "--engine",
            fake_engine_spec(tmp_path, "good"),
            "--games",
            "2",
            "--concurrency",
            "2",
            *limit,
        ],
        tmp_path,
    )
    assert status == 0
    assert (summary["wins"], summary["losses"], summary["draws"]) == (0, 2, 0)
    assert {game["termination"] for game in summary["games"]} == {termination}
    assert all(game.headers["Termination"] == termination for game in games)


def test_unstartable_engine_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A command that does not exist stops the run before any game, with status 2."""
    status = main(
        [
            "--engine",
            "cmd=/nonexistent/engine",
            "--engine",
            fake_engine_spec(tmp_path, "good"),
            "--nodes",
            "1",
            "--quiet",
        ]
    )
    assert status == 2
    assert "cannot start engine" in capsys.readouterr().err


def test_sprt_stops_the_match_early(tmp_path: Path) -> None:
    """A clearly weaker engine is rejected by the SPRT long before the planned game count.

    The broken engine fails at its fourth move. From the start position that
    loses the game; from an 8-ply opening the 5-move length limit draws it
    first. Mixed losses and draws give the variance the SPRT needs.
    """
    book = tmp_path / "book.txt"
    book.write_text("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6\n" + chess.STARTING_FEN + "\n")
    status, summary, _ = run_main(
        [
            "--engine",
            fake_engine_spec(tmp_path, "illegal", good_moves=3),
            "--engine",
            fake_engine_spec(tmp_path, "good"),
            "--games",
            "400",
            "--concurrency",
            "2",
            "--nodes",
            "1",
            "--max-moves",
            "5",
            "--openings",
            str(book),
            "--sprt",
            "elo0=0 elo1=200 alpha=0.05 beta=0.05",
        ],
        tmp_path,
    )
    assert status == 0
    assert summary["sprt"]["verdict"] == "H0 accepted"
    assert summary["sprt"]["llr"] <= summary["sprt"]["lower_bound"]
    assert summary["wins"] == 0 and summary["losses"] > 0 and summary["draws"] > 0
    assert summary["games_played"] < 20
