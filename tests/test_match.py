"""The match runner: one game's rules and clocks, then whole matches with real and broken engines.

The end-to-end matches play cb2026 (the package under test, run as a UCI engine in its own
process) against itself and against tiny fake engines that crash, hang or cheat, so they
need no engine besides this one.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

import cb2026
from cb2026.elo import SPRT_MIN_PAIRS, pair_category
from cb2026.game import (
    Adjudication,
    GameEnd,
    GameLimits,
    GameRecord,
    MoveReport,
    charge_clock,
    draw_end,
    engine_limit,
    game_to_pgn,
    length_end,
    move_report,
    parse_info_line,
    parse_time_control,
    resign_end,
    rules_end,
    time_control_header,
)
from cb2026.match import (
    build_pairs,
    choose_openings,
    journal_path,
    main,
    parse_engine_spec,
    parse_sprt,
)
from cb2026.openings import Opening, book_suite, builtin_openings

pytestmark = [pytest.mark.stage("stage-07.1-matches"), pytest.mark.tooling]

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
        "0-1", "adjudication", "White resigns (White's score <= -500 cp)"
    )
    assert resign_end([800, 900, 700, 600], RESIGN) == GameEnd(
        "1-0", "adjudication", "Black resigns (White's score >= +500 cp)"
    )
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


def test_rules_end_waits_for_draws_on_the_board() -> None:
    """A repetition or fifty-move count that one more move would complete is not yet a draw."""
    board = chess.Board()
    for move in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]:
        board.push_uci(move)
    # Black could claim by announcing f6g8 (python-chess's claim_draw counts that) ...
    assert board.outcome(claim_draw=True) is not None
    # ... but the runner plays on until the repetition is on the board.
    assert rules_end(board) is None
    board.push_uci("f6g8")
    assert rules_end(board).reason == "threefold repetition"
    ninety_nine = chess.Board("7k/8/8/8/8/8/R7/K7 w - - 99 80")
    assert rules_end(ninety_nine) is None
    ninety_nine.push_uci("a2b2")
    assert rules_end(ninety_nine) == GameEnd("1/2-1/2", "normal", "fifty moves")


def test_clock_flags_only_beyond_the_margin() -> None:
    """Overrunning by less than the margin is tolerated; the increment is added after."""
    limits = GameLimits(base_seconds=1.0, increment_seconds=0.5, time_margin_seconds=0.1)
    clocks = {chess.WHITE: 1.0, chess.BLACK: 1.0}
    assert charge_clock(clocks, chess.WHITE, 1.05, limits) is None
    assert clocks[chess.WHITE] == pytest.approx(0.45)
    end = charge_clock(clocks, chess.BLACK, 1.2, limits)
    assert end == GameEnd("1-0", "time forfeit", "Black loses on time")


def test_time_control_parsing_and_limits() -> None:
    """'10+0.1' is a clock; the engine limit carries both clocks and increments."""
    assert parse_time_control("10+0.1") == (10.0, 0.1)
    assert parse_time_control("60") == (60.0, 0.0)
    for bad in ("0+1", "abc", "10+x", "inf", "10+-1"):
        with pytest.raises(ValueError, match="invalid time control"):
            parse_time_control(bad)
    limits = GameLimits(base_seconds=10.0, increment_seconds=0.1)
    assert time_control_header(limits) == "10+0.1"
    assert time_control_header(GameLimits(nodes=1000)) == "-"
    limit = engine_limit(limits, {chess.WHITE: 9.5, chess.BLACK: -0.05})
    assert (limit.white_clock, limit.white_inc, limit.black_inc) == (9.5, 0.1, 0.1)
    assert limit.black_clock > 0
    assert engine_limit(GameLimits(nodes=500), {}).nodes == 500


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
    record.reports[0] = MoveReport(chess.Move.from_uci("e8d7"), -30, 5, 0.01, hashfull=412)
    assert "hashfull=412" in str(game_to_pgn(record, {}))


# A tiny UCI engine that plays its first legal move instantly, then misbehaves
# after `good_moves` moves: "illegal" sends an illegal move, "crash" exits,
# "hang" never answers, "slow" answers after `delay` seconds, "good" never fails.
# It declares a Hash option (default 7 MB) and ignores what it is set to.
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
        say("option name Hash type spin default 7 min 1 max 64")
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
    """SPRT fields parse; each pair plays its own opening twice with colours swapped."""
    test = parse_sprt("elo0=0 elo1=10 alpha=0.05 beta=0.1")
    assert (test.elo0, test.elo1, test.alpha, test.beta) == (0, 10, 0.05, 0.1)
    assert test.min_pairs == SPRT_MIN_PAIRS
    assert parse_sprt("elo0=0 elo1=10 min_pairs=0").min_pairs == 0
    tasks = [task for pair in build_pairs(builtin_openings()[:2]) for task in pair.games()]
    assert [task.index for task in tasks] == [0, 1, 2, 3]
    assert [task.first_plays_white for task in tasks] == [True, False, True, False]
    assert tasks[0].opening == tasks[1].opening != tasks[2].opening == tasks[3].opening


def test_every_pair_gets_its_own_opening() -> None:
    """No opening (not even one position reached twice) serves two pairs; too few is an error."""
    book = builtin_openings()
    chosen = choose_openings(book, len(book), seed=7)
    assert len({opening.board().epd() for opening in chosen}) == len(book)
    # An offset selects different openings from the same seeded order.
    first, second = choose_openings(book, 10, 7), choose_openings(book, 10, 7, offset=10)
    assert not set(first) & set(second)
    assert choose_openings(book, 20, 7)[:10] == first
    queens_pawn = Opening("d4 d5 Nf3", chess.STARTING_FEN, ("d2d4", "d7d5", "g1f3"))
    transposed = Opening("Nf3 d5 d4", chess.STARTING_FEN, ("g1f3", "d7d5", "d2d4"))
    with pytest.raises(ValueError, match="need 2 distinct openings, but the book has 1"):
        choose_openings([queens_pawn, transposed], 2, seed=1)
    with pytest.raises(ValueError, match="the book has"):
        choose_openings(book, len(book) + 1, seed=1)


def test_completed_depth_comes_from_the_line_that_supports_the_move() -> None:
    """The report takes the last info line with a depth and a PV starting with the move.

    python-chess's play() merges all lines, so a started but unfinished depth would
    overwrite the depth of the finished one; the runner must not be fooled by that.
    """
    lines = [
        "info depth 1 seldepth 2 score cp 20 nodes 30 pv e2e4 e7e5",
        "info depth 2 seldepth 5 score mate 3 nodes 90 hashfull 12 pv d2d4",
        "info depth 3 seldepth 7 score cp 35 nodes 400 hashfull 40 pv e2e4 e7e5 g1f3",
        "info depth 4 currmove d2d4 currmovenumber 2 nodes 700 hashfull 55",
        "info string depth 9 pv e2e4 is free text",
    ]
    report = move_report(lines, chess.Move.from_uci("e2e4"), chess.BLACK, 0.5)
    assert (report.depth, report.seldepth, report.white_score) == (3, 7, -35)
    assert (report.nodes, report.hashfull) == (700, 55)
    assert not report.blind
    mate = move_report(lines[:2], chess.Move.from_uci("d2d4"), chess.WHITE, 0.1)
    assert mate.white_score == 100_000 - 3
    blind = move_report(lines[3:], chess.Move.from_uci("e2e4"), chess.WHITE, 0.1)
    assert blind.blind and blind.depth is None and blind.white_score is None
    assert blind.nodes == 700
    assert parse_info_line("info depth 2 score cp -15 pv a2a3") == {
        "depth": 2,
        "score": -15,
        "pv": "a2a3",
    }


def test_a_bound_is_not_a_finished_search() -> None:
    """A failed aspiration window (Stockfish's, or cb2026's from chapter 9) reports a bound."""
    lines = [
        "info depth 5 seldepth 9 score cp 30 nodes 900 pv e2e4 e7e5",
        "info depth 6 seldepth 11 score cp 95 lowerbound nodes 1500 pv d2d4",
        "info depth 6 seldepth 11 score cp 10 upperbound nodes 1800",
        "info depth 6 seldepth 12 score cp 60 nodes 2400 pv e2e4 c7c5",
    ]
    assert parse_info_line(lines[1])["bound"] == "lowerbound"
    assert parse_info_line(lines[2]) == {"depth": 6, "seldepth": 11, "score": 10,
                                         "bound": "upperbound", "nodes": 1800}
    assert parse_info_line("info depth 3 score cp 5 upperbound")["bound"] == "upperbound"
    # Stopped after the fail high: the move that failed high has no finished search.
    stopped = move_report(lines[:2], chess.Move.from_uci("d2d4"), chess.WHITE, 0.2)
    assert stopped.blind and stopped.nodes == 1500
    report = move_report(lines, chess.Move.from_uci("e2e4"), chess.WHITE, 0.3)
    assert (report.depth, report.white_score, report.nodes) == (6, 60, 2400)


def test_info_numbers_are_ascii_digits_only() -> None:
    """Digits that are not UCI's (superscripts, Arabic-Indic, '+', '_') are not read as numbers."""
    line = "info depth ² seldepth ٣ nodes 1_000 hashfull +5 score cp ٣ pv e2e4"
    assert parse_info_line(line) == {"pv": "e2e4"}
    assert parse_info_line("info depth 7 score mate -2 nodes 40 pv e2e4")["score"] == -100_000 + 2
    assert "score" not in parse_info_line("info score cp -- pv e2e4")
    assert "score" not in parse_info_line("info score cp +15 pv e2e4")


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
    # Without --openings the runner plays the book's suite.
    suite = {opening.name: opening.moves for opening in book_suite()}
    for game, record in zip(games, summary["games"], strict=True):
        assert game.headers["Result"] == record["result"]
        assert {"Event", "White", "Black", "TimeControl", "Termination"} <= set(game.headers)
        assert game.headers["Limits"] == "nodes=300"
        # Every game starts with its opening's moves and continues with legal moves only
        # (python-chess replays the PGN and would reject an illegal one).
        moves = [move.uci() for move in game.mainline_moves()]
        assert tuple(moves[: len(suite[record["opening"]])]) == suite[record["opening"]]
        assert len(moves) == len(suite[record["opening"]]) + record["engine_plies"]
        if record["termination"] == "normal":
            assert game.end().board().outcome(claim_draw=True) is not None
        else:
            assert record["termination"] == "adjudication"
    # Colours alternate within each opening pair; each pair has its own opening.
    assert [game.headers["White"] for game in games] == ["cb2026", "no-ordering"] * 2
    assert games[0].headers["Opening"] == games[1].headers["Opening"]
    assert games[0].headers["Opening"] != games[2].headers["Opening"]
    # One pentanomial count per pair, agreeing with the per-pair records and the games.
    assert sum(summary["pentanomial"]) == len(summary["pairs"]) == 2
    for pair in summary["pairs"]:
        pair_games = [game for game in summary["games"] if game["pair"] == pair["pair"]]
        assert pair["results"] == [game["result"] for game in pair_games]
        assert pair["first_engine_points"] == sum(g["first_engine_points"] for g in pair_games)
        assert summary["pentanomial"][pair_category(pair["first_engine_points"])] >= 1
        # "same_moves" agrees with the two games of the pair as python-chess reads them.
        first, second = (list(game.mainline_moves()) for game in games
                         if game.headers["Opening"] == pair["opening"])
        assert pair["same_moves"] == (first == second)
    assert summary["pairs_with_same_moves"] == sum(pair["same_moves"] for pair in summary["pairs"])
    # What the engines reported: every engine move is counted once, depths come from
    # completed iterations, and the PGN comments carry the same depths.
    moves = sum(engine["moves"] for engine in summary["engines"])
    assert moves == sum(game["engine_plies"] for game in summary["games"])
    comments = [node.comment for game in games for node in game.mainline() if node.comment]
    engine_comments = [comment for comment in comments if comment != "book"]
    assert len(engine_comments) == moves
    blind = sum(engine["blind_moves"] for engine in summary["engines"])
    assert blind == sum(comment.startswith("?") for comment in engine_comments)
    # cb2026 completes depth 1 whatever the node budget (chapter 7): no move is blind.
    assert blind == 0
    for engine in summary["engines"]:
        assert 1 <= engine["depth"]["min"] <= engine["depth"]["median"]
        assert engine["nodes_per_move"] > 0
    # hashfull (reported from stage 8 on, with the table) is counted as the PGN shows it.
    reported = sum("hashfull=" in comment for comment in engine_comments)
    assert reported == sum(engine["hashfull"]["moves"] for engine in summary["engines"])


def test_moves_without_a_principal_variation_are_blind(tmp_path: Path) -> None:
    """The fake engine sends a depth but never a PV, so none of its moves has a report."""
    status, summary, games = run_main(
        [
            "--engine",
            fake_engine_spec(tmp_path, "good"),
            "--engine",
            f"cmd={shlex.quote(CB2026)} name=cb2026",
            "--games",
            "1",
            "--nodes",
            "200",
            "--max-moves",
            "6",
        ],
        tmp_path,
    )
    assert status == 0 and summary["games_planned"] == summary["games_played"] == 2
    fake, real = summary["engines"]
    assert fake["moves"] > 0 and fake["blind_moves"] == fake["moves"]
    assert fake["depth"] == {"mean": None, "median": None, "min": None}
    assert real["blind_moves"] == 0


def test_an_opening_file_too_small_for_the_match_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Three EPD positions cannot serve four pairs: a usage error before any game."""
    book = tmp_path / "three.epd"
    book.write_text(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n"
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - id \"d4\";\n"
        "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - id \"c4\";\n"
    )
    arguments = ["--engine", "cmd=a", "--engine", "cmd=b", "--nodes", "1", "--quiet"]
    with pytest.raises(SystemExit) as stopped:
        main([*arguments, "--games", "8", "--openings", str(book)])
    assert stopped.value.code == 2
    assert "4 game pairs from opening offset 0 need 4 distinct openings" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*arguments, "--games", "4", "--openings", str(book), "--opening-offset", "2"])


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        (["--tc", "abc"], "--tc: invalid time control 'abc'"),
        (["--tc", "0+0.1"], "--tc: invalid time control '0+0.1'"),
        (["--nodes", "100", "--sprt", "elo0=x elo1=10"], "--sprt: elo0 needs a number, not 'x'"),
        (["--nodes", "100", "--sprt", "elo0=0 elo1=10 alpha=2"], "--sprt: alpha and beta"),
        (["--nodes", "100", "--sprt", "elo0=nan elo1=10"], "--sprt: elo0 needs a number"),
        (["--nodes", "100", "--sprt", "elo0=10 elo1=10"], "--sprt: elo1 must be larger"),
        (["--nodes", "100", "--sprt", "elo0=0 elo1=10 min_pairs=-5"], "min_pairs needs a whole"),
        (["--nodes", "100", "--sprt", "elo0=0 elo1=10 min_pairs=2.5"], "min_pairs needs a whole"),
        (["--nodes", "100", "--sprt", "elo0=0 elo1=10 min_pairs=²"], "min_pairs needs a whole"),
        (["--nodes", "100", "--sprt", "elo0=0 elo1=10 pairs=5"], "--sprt: bad field 'pairs=5'"),
        (["--nodes", "-100"], "--nodes must be a positive number, not -100"),
        (["--depth", "-3"], "--depth must be a positive number, not -3"),
        (["--movetime", "-0.5"], "--movetime must be a positive number, not -0.5"),
        (["--nodes", "100", "--time-margin", "-1"], "--time-margin must be 0 or more"),
    ],
)
def test_bad_command_line_values_are_usage_errors_naming_the_option(
    bad: list[str], named: str, capsys: pytest.CaptureFixture
) -> None:
    """A bad limit or SPRT field stops the runner with a usage error (status 2) naming it."""
    arguments = ["--engine", "cmd=a", "--engine", "cmd=b", "--games", "2", "--quiet", *bad]
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("usage:") and named in error


def test_clock_match_with_a_pair_per_core_gets_a_note(capsys: pytest.CaptureFixture) -> None:
    """Under a clock, --concurrency >= cores is warned about; fixed nodes are not."""
    cores = os.cpu_count() or 1
    arguments = ["--engine", "cmd=/nonexistent/a", "--engine", "cmd=/nonexistent/b",
                 "--games", "2", "--quiet", "--concurrency", str(cores)]
    assert main([*arguments, "--tc", "1+0"]) == 2  # the engines cannot start
    assert f"--concurrency {cores} on {cores} cores under a clock" in capsys.readouterr().err
    assert main([*arguments, "--nodes", "100"]) == 2
    assert "under a clock" not in capsys.readouterr().err
    if cores > 1:
        arguments[arguments.index("--concurrency") + 1] = str(cores - 1)
        assert main([*arguments, "--tc", "1+0"]) == 2
        assert "under a clock" not in capsys.readouterr().err


def cb2026_pair_arguments(games: int) -> list[str]:
    """Return the arguments of a short fixed-node match of cb2026 against itself."""
    return [
        "--engine",
        f"cmd={shlex.quote(CB2026)} name=cb2026",
        "--engine",
        f"cmd={shlex.quote(CB2026)} name=no-ordering option.Ordering=false",
        "--games",
        str(games),
        "--nodes",
        "300",
        "--max-moves",
        "12",
    ]


def played_games(summary: dict, games: list[chess.pgn.Game]) -> list[tuple]:
    """Return each game's opening, players, moves and result: what a rerun must repeat."""
    return [
        (game.headers["Opening"], game.headers["White"], record["result"],
         [move.uci() for move in game.mainline_moves()])
        for game, record in zip(games, summary["games"], strict=True)
    ]


def reference_run(tmp_path: Path, other: str) -> tuple[dict, list[chess.pgn.Game], Path]:
    """Play six games in one go in a folder of their own; return them and a folder `other`."""
    plain_folder, other_folder = tmp_path / "plain", tmp_path / other
    plain_folder.mkdir()
    other_folder.mkdir()
    status, summary, games = run_main(cb2026_pair_arguments(6), plain_folder)
    assert status == 0
    return summary, games, other_folder


@pytest.mark.slow
def test_resumed_match_equals_a_straight_run(tmp_path: Path) -> None:
    """Two games, then --resume to six: the same games as six games in one go."""
    straight, straight_games, resumed_folder = reference_run(tmp_path, "resumed")
    status, first_part, _ = run_main(cb2026_pair_arguments(2), resumed_folder)
    assert status == 0 and first_part["games_played"] == 2
    journal = journal_path(resumed_folder / "result.json").read_text().splitlines()
    assert len(journal) == 1 + 2
    status, resumed, resumed_games = run_main(
        [*cb2026_pair_arguments(6), "--resume"], resumed_folder
    )
    assert status == 0
    assert resumed["games_resumed"] == 2 and resumed["games_played"] == 6
    assert played_games(resumed, resumed_games) == played_games(straight, straight_games)
    assert resumed["pentanomial"] == straight["pentanomial"]
    assert resumed["pairs"] == straight["pairs"]
    engines = zip(resumed["engines"], straight["engines"], strict=True)
    for resumed_engine, straight_engine in engines:
        for key in ("moves", "blind_moves", "depth", "nodes_per_move"):
            assert resumed_engine[key] == straight_engine[key]
    # A second resume finds nothing left to play.
    status, again, _ = run_main([*cb2026_pair_arguments(6), "--resume"], resumed_folder)
    assert again["games_resumed"] == 6 and again["pairs"] == straight["pairs"]


@pytest.mark.slow
def test_resume_refuses_another_matchs_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A journal written at 300 nodes cannot be continued at 400, nor a cut line misread."""
    status, _, _ = run_main(cb2026_pair_arguments(2), tmp_path)
    assert status == 0
    other = [*cb2026_pair_arguments(4), "--resume", "--json", str(tmp_path / "result.json")]
    other[other.index("300")] = "400"
    with pytest.raises(SystemExit):
        main(other)
    assert "belongs to another match" in capsys.readouterr().err
    # A last line cut off mid-write is dropped: its game is played again.
    path = journal_path(tmp_path / "result.json")
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines[:-1], lines[-1][:40]]))
    status, summary, _ = run_main([*cb2026_pair_arguments(2), "--resume"], tmp_path)
    assert status == 0 and summary["games_resumed"] == 1 and summary["games_played"] == 2
    # The cut-off line is gone from the journal, so a second resume in a row reads it cleanly.
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 2 and all(json.loads(line) for line in lines)
    status, summary, _ = run_main([*cb2026_pair_arguments(4), "--resume"], tmp_path)
    assert status == 0 and summary["games_resumed"] == 2 and summary["games_played"] == 4
    assert len(path.read_text().splitlines()) == 1 + 4


@pytest.mark.slow
def test_resume_replays_the_games_in_the_order_they_finished(tmp_path: Path) -> None:
    """The SPRT is sequential: a resumed match must see the games in the journal's order."""
    status, _, _ = run_main(cb2026_pair_arguments(4), tmp_path)
    assert status == 0
    path = journal_path(tmp_path / "result.json")
    header, *games = path.read_text().splitlines()
    # As if the second pair had finished first, as it may with two games at a time.
    finished = [games[2], games[3], games[1], games[0]]
    path.write_text("\n".join([header, *finished]) + "\n")
    status, summary, _ = run_main([*cb2026_pair_arguments(4), "--resume"], tmp_path)
    assert status == 0 and summary["games_resumed"] == 4
    # Rewritten by the resume from the games it read: still in the order they finished.
    rewritten = [json.loads(line)["index"] for line in path.read_text().splitlines()[1:]]
    assert rewritten == [json.loads(line)["index"] for line in finished]
    assert rewritten != sorted(rewritten)
    # A game twice in a journal is a broken journal, not a game to count twice.
    path.write_text("\n".join([header, *finished, finished[0]]) + "\n")
    with pytest.raises(SystemExit):
        main([*cb2026_pair_arguments(4), "--resume", "--json", str(tmp_path / "result.json")])


@pytest.mark.slow
def test_resume_refuses_a_journal_of_another_sprt(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """The SPRT decides when a match stops: another minimum makes another match."""
    waiting = [*cb2026_pair_arguments(2), "--sprt", "elo0=0 elo1=20"]
    status, _, _ = run_main(waiting, tmp_path)
    assert status == 0
    header = json.loads(journal_path(tmp_path / "result.json").read_text().splitlines()[0])
    assert header["journal"]["sprt"] == {"elo0": 0.0, "elo1": 20.0, "alpha": 0.05,
                                         "beta": 0.05, "min_pairs": SPRT_MIN_PAIRS}
    wald = [*cb2026_pair_arguments(4), "--sprt", "elo0=0 elo1=20 min_pairs=0", "--resume",
            "--json", str(tmp_path / "result.json")]
    with pytest.raises(SystemExit):
        main(wald)
    assert "belongs to another match" in capsys.readouterr().err
    without = [*cb2026_pair_arguments(4), "--resume", "--json", str(tmp_path / "result.json")]
    with pytest.raises(SystemExit):
        main(without)
    assert "belongs to another match" in capsys.readouterr().err


@pytest.mark.slow
def test_dask_cluster_plays_the_same_games(tmp_path: Path) -> None:
    """Three pairs sent as tasks to two Dask worker processes give the local run's games."""
    # A plain import: Dask is in the test extra, and a skip would hide a broken cluster path.
    import distributed
    local, local_games, cluster_folder = reference_run(tmp_path, "cluster")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        status, remote, remote_games = run_main(
            [*cb2026_pair_arguments(6), "--scheduler", cluster.scheduler_address],
            cluster_folder,
        )
    assert status == 0
    assert remote["scheduler"].startswith("tcp://")
    assert played_games(remote, remote_games) == played_games(local, local_games)
    assert remote["pentanomial"] == local["pentanomial"]


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


def broken_engine_match(tmp_path: Path, min_pairs: int) -> dict:
    """Return the JSON of a 40-game match of a broken engine under an SPRT with min_pairs.

    The broken engine fails at its fourth move. From a 2-ply opening that
    loses the game; from an 8-ply opening the 5-move length limit draws it
    first. Mixed losses and draws give the variance the SPRT needs.
    """
    # Ten 8-ply openings (draws) and ten 2-ply ones (losses), one per pair.
    short_lines = ["e4 e5", "d4 d5", "c4 c5", "Nf3 Nf6", "e4 c5", "d4 Nf6", "e4 e6", "e4 c6",
                   "g3 g6", "b3 b6"]
    long_lines = [" ".join(opening.moves) for opening in builtin_openings()[:10]]
    book = tmp_path / "book.txt"
    book.write_text("\n".join(short_lines + long_lines) + "\n")
    folder = tmp_path / f"min-{min_pairs}"
    folder.mkdir()
    status, summary, _ = run_main(
        [
            "--engine", fake_engine_spec(tmp_path, "illegal", good_moves=3),
            "--engine", fake_engine_spec(tmp_path, "good") + " option.Hash=3",
            "--games", "40", "--concurrency", "2", "--nodes", "1", "--max-moves", "5",
            "--openings", str(book),
            "--sprt", f"elo0=0 elo1=200 alpha=0.05 beta=0.05 min_pairs={min_pairs}",
        ],
        folder,
    )
    assert status == 0
    assert summary["sprt"]["verdict"] == "H0 accepted" and summary["sprt"]["min_pairs"] == min_pairs
    assert summary["sprt"]["llr"] <= summary["sprt"]["lower_bound"]
    assert summary["wins"] == 0 and summary["losses"] > 0 and summary["draws"] > 0
    return summary


def test_sprt_stops_the_match_early(tmp_path: Path) -> None:
    """A clearly weaker engine is rejected by the SPRT long before the planned game count."""
    summary = broken_engine_match(tmp_path, 0)
    assert summary["games_played"] < 20
    # The table sizes: the engine's declared default (7), and the size set for the match.
    assert [engine["hash_mb"] for engine in summary["engines"]] == [7, 3]


def test_sprt_waits_for_its_minimum_of_pairs(tmp_path: Path) -> None:
    """The match with min_pairs=12 decides only at 12 pairs, though its ratio crossed sooner."""
    alone = broken_engine_match(tmp_path, 0)["sprt"]["pairs_at_verdict"]
    waited = broken_engine_match(tmp_path, 12)
    assert alone < 12 <= waited["sprt"]["pairs_at_verdict"]
    assert waited["games_played"] >= 24
