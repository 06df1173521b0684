"""The engine as a GUI sees it (stage 7): UCI options, `go` limits, `stop`, games.

python-chess is the referee: it parses the engine's output as a GUI would, and every
move the engine names must be legal in python-chess's view. Most tests talk to the
command loop in this process, on a thread of its own, so that commands can arrive while
it searches; a few start the engine as a process, as a GUI does.
"""

from __future__ import annotations

import io
import logging
import os
import pathlib
import random
import subprocess
import sys
import time

import chess
import chess.engine
import pytest

import cb2026
import cb2026.cli
import cb2026.search
from cb2026.cli import Session, execute
from cb2026.search import Searcher, Techniques
from command_loop import (
    ERROR,
    Conversation,
    EngineProcess,
    assert_in_time,
    assert_legal,
    info_fields,
    margin,
    search,
    talk,
)
from positions import KIWIPETE, MATE_IN_ONE, MATE_IN_TWO_MIRRORED, MATED, POSITION_3, STALEMATE

pytestmark = pytest.mark.stage("stage-07-uci")

ENGINE_COMMAND = [sys.executable, "-c", "from cb2026.cli import main; main()"]
ENGINE_ENVIRONMENT = dict(
    os.environ, PYTHONPATH=str(pathlib.Path(cb2026.__file__).resolve().parent.parent)
)
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
TECHNIQUE_OPTIONS = ["Alphabeta", "Ordering", "Quiescence", "PST"]
WARNING = "info string warning: "  # a limit searched otherwise than it was given


def error_during_search(gui: Conversation, command: str) -> str:
    """The error line the loop answers `command` with during `go infinite`; then stops it."""
    gui.send("go infinite")
    gui.send(command)
    error = gui.read_until(ERROR)[-1]
    gui.send("stop")
    gui.read_until("bestmove")
    return error


# The handshake and the options


def test_uci_lists_every_technique_as_a_check_option() -> None:
    lines = talk("uci\n")
    assert lines[0] == "id name cb2026"
    assert lines[-1] == "uciok"
    for name in TECHNIQUE_OPTIONS:
        assert f"option name {name} type check default true" in lines
    assert all(line.startswith(("id ", "option name ", "uciok")) for line in lines)


def test_python_chess_reads_and_sets_the_options() -> None:
    with chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, env=ENGINE_ENVIRONMENT) as engine:
        for name in TECHNIQUE_OPTIONS:
            assert engine.options[name].type == "check"
            assert engine.options[name].default is True
        engine.configure({"Quiescence": False, "Ordering": False})
        info = engine.analyse(chess.Board(POSITION_3), chess.engine.Limit(depth=2))
        assert info["pv"][0] in chess.Board(POSITION_3).legal_moves


@pytest.mark.parametrize("command", [
    "setoption name Nonsense value true",
    "setoption name Quiescence value maybe",
    "setoption name Ordering",
    "setoption Ordering value false",
    "setoption name",
    "setoption",
    "set ordering",
    "set nonsense off",
])
def test_bad_options_are_errors_and_the_loop_goes_on(command: str) -> None:
    lines = talk(f"uci\n{command}\nisready\n")
    after = lines[lines.index("uciok") + 1:]
    assert len(after) == 2 and after[0].startswith(ERROR), after
    assert after[1] == "readyok"


def test_options_are_matched_in_any_case_and_change_the_search(gui: Conversation) -> None:
    nodes = {}
    for value in ("true", "FALSE"):
        gui.send(f"setoption name oRdErInG value {value}")
        gui.send("ucinewgame")  # nothing learnt by the first search helps the second
        infos, _ = search(gui, POSITION_3, "go depth 4")
        nodes[value] = int(info_fields(infos[-1])["nodes"])
    assert nodes["true"] < nodes["FALSE"]
    assert not any(line.startswith(ERROR) for line in gui.pending())


def test_options_cannot_change_during_a_search(gui: Conversation) -> None:
    assert "during a search" in error_during_search(gui, "setoption name Ordering value false")


# `go` and its limits


def test_go_depth_reports_each_iteration(gui: Conversation) -> None:
    infos, move = search(gui, KIWIPETE, "go depth 3")
    fields = [info_fields(line) for line in infos]
    assert [int(field["depth"]) for field in fields] == [1, 2, 3]
    board = chess.Board(KIWIPETE)
    for field in fields:
        assert int(field["seldepth"]) >= int(field["depth"])
        assert field["score"].startswith("cp ")
        assert int(field["nodes"]) > 0 and int(field["time"]) >= 0 and int(field["nps"]) >= 0
        pv_board = board.copy()
        for text in field["pv"].split():  # the referee replays every PV
            pv_board.push_uci(text)
    assert [int(field["nodes"]) for field in fields] == sorted(int(f["nodes"]) for f in fields)
    assert move == fields[-1]["pv"].split()[0]
    assert_legal(KIWIPETE, move)


def test_go_nodes_never_reports_more_than_the_limit(gui: Conversation) -> None:
    infos, move = search(gui, KIWIPETE, "go nodes 5000")
    assert infos and all(int(info_fields(line)["nodes"]) <= 5000 for line in infos)
    assert_legal(KIWIPETE, move)


def test_go_movetime_uses_most_of_the_time_and_no_more(gui: Conversation) -> None:
    allowance = margin(gui)
    gui.send(f"position fen {KIWIPETE}")
    started = time.monotonic()
    gui.send("go movetime 300")
    move = gui.read_until("bestmove")[-1].split()[1]
    elapsed = time.monotonic() - started
    assert elapsed > 0.15
    assert_in_time(elapsed, 0.3 + 0.1, allowance, lambda: margin(gui))
    assert_legal(KIWIPETE, move)


@pytest.mark.parametrize(("go", "most"), [
    # Black to move with one second: the engine reads btime, not White's ten minutes.
    ("go wtime 600000 btime 1000", 0.4),
    ("go wtime 600000 btime 1000 winc 0 binc 100", 0.5),
    ("go wtime 600000 btime 2000 movestogo 1", 0.4 * 2 + 0.1),
    ("go wtime 600000 btime -50", 0.2),  # a clock already below zero
])
def test_go_with_clocks_stays_within_the_clock(gui: Conversation, go: str, most: float) -> None:
    allowance = margin(gui)
    gui.send(f"position fen {AFTER_E4}")
    started = time.monotonic()
    gui.send(go)
    move = gui.read_until("bestmove")[-1].split()[1]
    assert_in_time(time.monotonic() - started, most, allowance, lambda: margin(gui))
    assert_legal(AFTER_E4, move)


def test_go_mate_finds_the_mate_and_stops(gui: Conversation) -> None:
    infos, move = search(gui, MATE_IN_TWO_MIRRORED, "go mate 2")
    last = info_fields(infos[-1])
    assert last["score"] == "mate 2"
    board = chess.Board(MATE_IN_TWO_MIRRORED)
    for text in last["pv"].split():
        board.push_uci(text)
    assert board.is_checkmate()
    assert move == last["pv"].split()[0]


def test_mate_is_reported_in_moves_from_the_engines_view() -> None:
    with chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, env=ENGINE_ENVIRONMENT) as engine:
        winning = engine.analyse(chess.Board(MATE_IN_ONE), chess.engine.Limit(depth=3))
        assert winning["score"].relative == chess.engine.Mate(1)
        # Black's only move is Kg8, and then Rb8 mates.
        losing = engine.analyse(chess.Board("7k/R7/8/8/8/8/8/1R4K1 b - - 0 1"),
                                chess.engine.Limit(depth=3))
        assert losing["score"].relative == chess.engine.Mate(-1)


@pytest.mark.parametrize(("go", "fen"), [
    # The mate is found at depth 4 in milliseconds; `go infinite` must still wait for `stop`.
    ("go infinite", MATE_IN_TWO_MIRRORED),
    ("go", KIWIPETE),  # no limit at all: search until stopped
])
def test_endless_search_answers_only_after_stop(gui: Conversation, go: str, fen: str) -> None:
    gui.send(f"position fen {fen}")
    gui.send(go)
    time.sleep(0.3)
    gui.send("isready")
    lines = gui.read_until("readyok", timeout=2)  # answered during the search
    assert not any(line.startswith("bestmove") for line in lines + gui.pending())
    gui.send("stop")
    assert_legal(fen, gui.read_until("bestmove")[-1].split()[1])


def test_isready_is_answered_at_once_during_a_search(gui: Conversation) -> None:
    allowance = margin(gui)
    gui.send(f"position fen {KIWIPETE}")
    gui.send("go infinite")
    time.sleep(0.2)
    asked = time.monotonic()
    gui.send("isready")
    lines = gui.read_until("readyok", timeout=2)
    answered = time.monotonic() - asked
    assert not any(line.startswith("bestmove") for line in lines)
    gui.send("stop")
    gui.read_until("bestmove")
    assert_in_time(answered, 0.2, allowance, lambda: margin(gui))


def test_the_search_ignores_a_position_sent_while_it_runs(gui: Conversation) -> None:
    gui.send("position startpos")
    gui.send("go infinite")
    gui.send(f"position fen {POSITION_3}")
    time.sleep(0.2)
    gui.send("stop")
    move = gui.read_until("bestmove")[-1].split()[1]
    assert_legal(chess.STARTING_FEN, move)
    infos, move = search(gui, POSITION_3, "go depth 1")  # the new position is there afterwards
    assert_legal(POSITION_3, move)


def test_a_second_go_during_a_search_is_an_error(gui: Conversation) -> None:
    assert "already running" in error_during_search(gui, "go depth 2")
    gui.send("go depth 2")  # and accepted once the first has answered
    assert_legal(chess.STARTING_FEN, gui.read_until("bestmove")[-1].split()[1])


@pytest.mark.parametrize(("command", "named"), [
    ("go depth x", "'x'"), ("go depth -1", "'-1'"), ("go nodes", "go nodes"),
    ("go sideways", "'sideways'"), ("go movetime 1.5", "'1.5'"), ("go depth ²", "'²'"),
    ("go wtime ² btime 1000", "'²'"), ("go depth 2 frobnicate", "'frobnicate'"),
])
def test_bad_words_in_go_are_named_and_the_search_still_answers(
        gui: Conversation, command: str, named: str) -> None:
    gui.send(command)
    complaint = gui.read_until(ERROR)[-1]
    assert named in complaint and "ignored" in complaint
    gui.send("stop")  # some of them are left with no limit at all
    assert_legal(chess.STARTING_FEN, gui.read_until("bestmove")[-1].split()[1])


def test_a_bad_word_in_go_leaves_the_other_limits() -> None:
    lines = talk("uci\ngo sideways depth 2 nodes x\n")
    depths = [int(info_fields(line)["depth"]) for line in lines if line.startswith("info depth")]
    assert depths == [1, 2]  # searched to depth 2 by itself, before the end of the input
    assert sum(line.startswith(ERROR) for line in lines) == 2


# Stopping, and a legal bestmove whatever happens


def test_stop_is_answered_promptly() -> None:
    engine = EngineProcess(ENGINE_COMMAND, ENGINE_ENVIRONMENT)
    engine.send("uci")
    allowance = margin(engine)
    engine.send("position startpos moves e2e4\ngo infinite")
    time.sleep(0.5)
    stopped = time.monotonic()
    engine.send("stop")
    line = engine.read_until("bestmove")[-1]
    assert_in_time(time.monotonic() - stopped, 0.3, allowance, lambda: margin(engine))
    assert_legal(AFTER_E4, line.split()[1])
    assert engine.quit(timeout=5) == 0


@pytest.mark.parametrize("fen", [MATED, STALEMATE])
def test_no_legal_move_gives_the_null_move(gui: Conversation, fen: str) -> None:
    assert not any(chess.Board(fen).legal_moves)
    infos, move = search(gui, fen, "go movetime 50")
    assert move == "0000"
    assert all(" pv" not in line for line in infos)


@pytest.mark.parametrize("go", ["go depth 0", "go nodes 1", "go movetime 1"])
def test_tiny_limits_still_give_a_legal_move(gui: Conversation, go: str) -> None:
    _, move = search(gui, KIWIPETE, go)
    assert_legal(KIWIPETE, move)


def test_stop_straight_after_go_gives_a_legal_move(gui: Conversation) -> None:
    for _ in range(3):
        gui.send(f"position fen {KIWIPETE}")
        gui.send("go infinite")
        gui.send("stop")
        assert_legal(KIWIPETE, gui.read_until("bestmove")[-1].split()[1])


def test_end_of_input_during_a_search_still_gives_a_bestmove() -> None:
    lines = talk("uci\nposition startpos\ngo infinite\n")
    assert lines[-1].startswith("bestmove")
    assert_legal(chess.STARTING_FEN, lines[-1].split()[1])


def test_bestmove_is_legal_in_random_positions(gui: Conversation) -> None:
    generator = random.Random(2026)
    for _ in range(12):
        board = chess.Board()
        for _ in range(generator.randrange(4, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(generator.choice(moves))
        _, move = search(gui, board.fen(), "go nodes 1500")
        if any(board.legal_moves):
            assert_legal(board.fen(), move)
        else:
            assert move == "0000"


# Games through python-chess's UCI client


def play_game(engine: chess.engine.SimpleEngine, board: chess.Board, plies: int,
              limit: chess.engine.Limit) -> chess.Board:
    """Let the engine play both sides for `plies` half-moves, checking every move."""
    for _ in range(plies):
        if board.is_game_over(claim_draw=True):
            break
        result = engine.play(board, limit, info=chess.engine.INFO_ALL)
        assert result.move is not None
        assert result.move in board.legal_moves, f"illegal {result.move} in {board.fen()}"
        assert result.info.get("pv", [result.move])[0] == result.move
        board.push(result.move)
    return board


@pytest.mark.parametrize("opening", ["", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"])
def test_games_at_fixed_movetime_are_legal(opening: str) -> None:
    board = chess.Board()
    for text in opening.split():
        board.push_uci(text)
    with chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, env=ENGINE_ENVIRONMENT) as engine:
        play_game(engine, board, 24, chess.engine.Limit(time=0.05))


def test_clock_game_never_loses_on_time() -> None:
    clocks = {chess.WHITE: 1.5, chess.BLACK: 1.5}
    board = chess.Board()
    with chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, env=ENGINE_ENVIRONMENT) as engine:
        for _ in range(40):
            if board.is_game_over(claim_draw=True):
                break
            started = time.monotonic()
            result = engine.play(board, chess.engine.Limit(
                white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK]))
            clocks[board.turn] -= time.monotonic() - started
            assert clocks[board.turn] > 0, "lost on time"
            assert result.move in board.legal_moves
            board.push(result.move)


# The shell, for a person


def test_go_depth_in_the_shell_prints_readable_lines_then_waits() -> None:
    # No `uci`: each command waits for the search before it, so `stats` sees it finished.
    lines = talk(f"position fen {POSITION_3}\ngo depth 3\nstats\n")
    depth_lines = [line for line in lines if line.startswith("depth ")]
    assert [int(line.split()[1].split("/")[0]) for line in depth_lines] == [1, 2, 3]
    assert all(" kn/s " in line and " score " in line for line in depth_lines)
    bestmove = lines.index(next(line for line in lines if line.startswith("bestmove")))
    assert bestmove == len(depth_lines)  # the statistics come after the search
    assert_legal(POSITION_3, lines[bestmove].split()[1])
    stats = lines[bestmove + 1:]
    assert {line.split()[0] for line in stats} >= {"nodes", "cutoffs", "seldepth", "qnodes"}
    # The statistics are the whole search's: its node count is the last iteration's.
    last_nodes = depth_lines[-1].split("nodes")[1].split()[0]
    assert ["nodes", last_nodes] in [line.split() for line in stats]
    assert any(line.startswith("nodes per second") for line in lines)
    assert any(line.startswith("first-move cutoffs") and line.endswith("%") for line in lines)


def test_shell_set_switches_a_technique() -> None:
    def nodes_at_depth_4(switch: str) -> int:
        lines = talk(f"{switch}\nposition fen {POSITION_3}\ngo depth 4\nstats\n")
        assert not any(line.startswith(ERROR) for line in lines)
        return next(int(line.split()[1].replace(",", "")) for line in lines
                    if line.split()[:1] == ["nodes"] and "second" not in line)

    assert nodes_at_depth_4("set ordering on") < nodes_at_depth_4("set ordering off")


def test_shell_mate_is_shown_with_a_hash() -> None:
    lines = talk(f"position fen {MATE_IN_TWO_MIRRORED}\ngo depth 4\nisready\n")
    assert any(" #2 " in line for line in lines if line.startswith("depth  4"))


def test_stats_during_a_search_is_an_error(gui: Conversation) -> None:
    assert "search is running" in error_during_search(gui, "stats")


def test_help_lists_the_new_commands() -> None:
    names = {line.split()[0] for line in talk("help\n")}
    assert {"setoption", "ucinewgame", "go", "stop", "set", "stats", "quit"} <= names


def test_ucinewgame_goes_back_to_the_start() -> None:
    lines = talk("position startpos moves e2e4 e7e5\nucinewgame\nd\n")
    assert f"Fen: {chess.STARTING_FEN}" in lines


def test_quit_during_a_search_ends_the_process_with_a_bestmove() -> None:
    result = subprocess.run(ENGINE_COMMAND, input="uci\ngo infinite\nquit\nisready\n",
                            capture_output=True, text=True, timeout=20,
                            env=ENGINE_ENVIRONMENT, check=False)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("bestmove") and "readyok" not in lines


# Pondering


def test_uci_offers_the_ponder_option() -> None:
    assert "option name Ponder type check default false" in talk("uci\n")
    lines = talk("uci\nsetoption name Ponder value true\nsetoption name ponder value false\n")
    assert not any(line.startswith(ERROR) for line in lines)


def test_bestmove_names_a_legal_move_to_ponder_on(gui: Conversation) -> None:
    gui.send(f"position fen {KIWIPETE}")
    gui.send("go depth 3")
    lines = gui.read_until("bestmove")
    words = lines[-1].split()
    assert words[0] == "bestmove" and words[2] == "ponder", words
    board = chess.Board(KIWIPETE)
    board.push_uci(words[1])
    assert chess.Move.from_uci(words[3]) in board.legal_moves
    assert info_fields(lines[-2])["pv"].split()[:2] == [words[1], words[3]]


def test_go_ponder_waits_for_ponderhit_then_searches_on_the_clock(gui: Conversation) -> None:
    gui.send(f"position fen {KIWIPETE}")
    gui.send("go ponder movetime 300")
    time.sleep(0.8)  # far longer than the movetime: the clock has not started yet
    gui.send("isready")
    while_pondering = gui.read_until("readyok", timeout=2) + gui.pending()
    assert not any(line.startswith("bestmove") for line in while_pondering)
    hit = time.monotonic()
    gui.send("ponderhit")
    after_the_hit = gui.read_until("bestmove", timeout=10)
    assert time.monotonic() - hit >= 0.2  # the 300 ms counted from ponderhit
    # On a slow machine the 300 ms may not finish another iteration, so the last report
    # with a line can come from the pondering part of the same search.
    reports = [line for line in while_pondering + after_the_hit if line.startswith("info depth")]
    assert reports and " pv " in reports[-1]
    assert_legal(KIWIPETE, after_the_hit[-1].split()[1])


def test_a_finished_pondering_search_waits_for_ponderhit(gui: Conversation) -> None:
    # The mate in one is found at depth 1 at once; a pondering search must still wait.
    gui.send(f"position fen {MATE_IN_ONE}")
    gui.send("go ponder depth 2")
    time.sleep(0.3)
    gui.send("isready")
    lines = gui.read_until("readyok", timeout=2)
    assert not any(line.startswith("bestmove") for line in lines + gui.pending())
    gui.send("ponderhit")
    assert gui.read_until("bestmove", timeout=2)[-1].split()[1] == "d1d8"


@pytest.mark.parametrize("command", ["stop", "ponderhit"])
def test_go_ponder_answers_a_command_sent_at_once(gui: Conversation, command: str) -> None:
    # Sent before the search thread has even started: it must not be lost.
    gui.send(f"position fen {KIWIPETE}")
    gui.send("go ponder wtime 2000 btime 2000 movetime 100")
    gui.send(command)
    assert_legal(KIWIPETE, gui.read_until("bestmove", timeout=5)[-1].split()[1])


def test_ponderhit_without_a_pondering_search_is_an_error(gui: Conversation) -> None:
    gui.send("ponderhit")
    assert "go ponder" in gui.read_until(ERROR)[-1]
    assert "go ponder" in error_during_search(gui, "ponderhit")


def test_a_pondering_game_through_python_chess(caplog: pytest.LogCaptureFixture) -> None:
    # The opponent plays the move the engine expects on odd moves, another one on even
    # moves, so python-chess sends both `ponderhit` and `stop` to the pondering engine.
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    board = chess.Board()
    chooser = random.Random(7)
    with chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, env=ENGINE_ENVIRONMENT,
                                             timeout=10) as engine:
        for turn in range(10):
            if board.is_game_over():
                break
            result = engine.play(board, chess.engine.Limit(time=0.05), ponder=True)
            assert result.move in board.legal_moves
            board.push(result.move)
            if board.is_game_over():
                break
            if turn % 2 and result.ponder in board.legal_moves:
                reply = result.ponder
            else:
                reply = chooser.choice([move for move in board.legal_moves
                                        if move != result.ponder] or list(board.legal_moves))
            board.push(reply)
    sent = [record.getMessage().rsplit("<< ", 1)[-1] for record in caplog.records
            if "<< " in record.getMessage()]
    assert any(line.startswith("go ponder") for line in sent)
    assert "ponderhit" in sent and "stop" in sent
    assert "setoption name Ponder value true" in sent


# searchmoves


def test_go_searchmoves_searches_only_those_moves(gui: Conversation) -> None:
    infos, move = search(gui, KIWIPETE, "go depth 3 searchmoves a2a3 h1g1")
    assert move in ("a2a3", "h1g1")
    assert all(info_fields(line)["pv"].split()[0] in ("a2a3", "h1g1")
               for line in infos if " pv " in line)


def test_python_chess_root_moves_are_searchmoves() -> None:
    board = chess.Board(KIWIPETE)
    with chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, env=ENGINE_ENVIRONMENT) as engine:
        result = engine.play(board, chess.engine.Limit(depth=2),
                             root_moves=[chess.Move.from_uci("g2g3")])
    assert result.move == chess.Move.from_uci("g2g3")


def test_bad_searchmoves_are_named_and_ignored(gui: Conversation) -> None:
    gui.send(f"position fen {KIWIPETE}")
    gui.send("go depth 2 searchmoves e1e3 a2a3 zz")
    lines = gui.read_until("bestmove")
    errors = [line for line in lines if line.startswith(ERROR)]
    assert len(errors) == 2 and "'e1e3'" in errors[0] and "'zz'" in errors[1]
    assert lines[-1].split()[1] == "a2a3"


def test_searchmoves_with_no_legal_move_searches_every_move(gui: Conversation) -> None:
    gui.send(f"position fen {KIWIPETE}")
    gui.send("go depth 2 searchmoves e1e3")
    lines = gui.read_until("bestmove")
    assert any("searching every move" in line for line in lines if line.startswith(ERROR))
    assert_legal(KIWIPETE, lines[-1].split()[1])


# debug and register


def test_debug_and_register_are_accepted(gui: Conversation) -> None:
    # Each search is awaited before the next command: a GUI's `go` during a search is an
    # error, and a search on its thread may still be running when the next line arrives.
    for command in ("debug on", "register later", "register name Somebody code 1234"):
        gui.send(command)
    gui.send("go depth 1")
    with_debug = gui.read_until("bestmove")
    gui.send("debug off")
    gui.send("go depth 1")
    without_debug = gui.read_until("bestmove")
    gui.send("isready")
    rest = gui.read_until("readyok")
    replies = with_debug + without_debug + rest
    assert not any(line.startswith((ERROR, "registration")) for line in replies)
    assert any(line.startswith("info string debug") for line in with_debug)
    assert not any(line.startswith("info string") for line in without_debug)
    assert rest == ["readyok"]


def test_bad_debug_is_an_error() -> None:
    assert talk("debug sideways\n")[0].startswith(ERROR)


# A game sent again with every move


def counting_move_source(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the move generations of `position` commands from now on; return the counter."""
    calls = [0]
    generate = cb2026.cli.MOVE_SOURCE

    def counted(position: cb2026.cli.Position) -> list:
        calls[0] += 1
        return generate(position)

    monkeypatch.setattr(cb2026.cli, "MOVE_SOURCE", counted)
    return calls


def random_line(seed: int, start: chess.Board, plies: int) -> list[str]:
    """Return up to `plies` random legal moves from `start`, chosen by python-chess."""
    board, chooser, line = start.copy(), random.Random(seed), []
    while len(line) < plies and (legal := list(board.legal_moves)):
        line.append(chooser.choice(legal).uci())
        board.push_uci(line[-1])
    return line


@pytest.mark.parametrize("start", ["startpos", f"fen {KIWIPETE}"])
def test_a_growing_game_plays_only_the_moves_each_command_adds(
    monkeypatch: pytest.MonkeyPatch, start: str
) -> None:
    """Sent move by move, as a GUI sends it, a game costs one generation per new move."""
    board = chess.Board() if start == "startpos" else chess.Board(KIWIPETE)
    line = random_line(7, board, 80)
    session = Session(io.StringIO())
    execute(session, f"position {start}")
    calls = counting_move_source(monkeypatch)
    plies_sent = range(2, len(line) + 1, 2)  # two plies more a command: ours and the reply
    for played in plies_sent:
        command = f"position {start} moves {' '.join(line[:played])}"
        execute(session, command)
        fresh = Session(io.StringIO())
        execute(fresh, command)  # read from the beginning: the engine's own referee
        for move in line[len(board.move_stack):played]:
            board.push_uci(move)
        assert session.position.fen() == board.fen()
        assert session.position.key == fresh.position.key
        assert session.position.undo_stack == fresh.position.undo_stack
    # The fresh sessions read every move again; the growing one only the new ones.
    assert calls[0] == plies_sent[-1] + sum(plies_sent), (calls[0], len(line))


@pytest.mark.parametrize("last, command", [
    ("position startpos moves e2e4 e7e5", "position startpos moves d2d4"),
    ("position startpos moves e2e4 e7e5", "position startpos moves e2e4"),
    ("position startpos moves e2e4", f"position fen {AFTER_E4}"),
    (f"position fen {AFTER_E4}", "position startpos moves e2e4"),
])
def test_a_command_that_does_not_extend_the_last_is_read_afresh(last: str, command: str) -> None:
    board = chess.Board()
    for move in command.split()[3:] if command.startswith("position startpos") else []:
        board.push_uci(move)
    expected = board.fen() if command.startswith("position startpos") else AFTER_E4
    lines = talk(f"{last}\n{command}\nd\n")
    assert f"Fen: {expected}" in lines and not any(line.startswith(ERROR) for line in lines)


def test_only_the_words_moves_may_extend_a_bare_position() -> None:
    """After `position startpos`, `position startpos e2e4` is no extension but an error."""
    lines = talk("position startpos\nposition startpos e2e4\nd\n")
    assert any(line.startswith(ERROR) for line in lines)
    assert f"Fen: {chess.STARTING_FEN}" in lines
    lines = talk("position startpos\nposition startpos moves e2e4\nd\n")
    assert f"Fen: {AFTER_E4}" in lines


def test_a_fen_that_a_longer_fen_begins_with_is_no_extension() -> None:
    """A FEN without its counters, then the same FEN with them: the counters are read."""
    short = " ".join(AFTER_E4.split()[:4])  # the four fields of an EPD line
    lines = talk(f"position fen {short}\nposition fen {short} 3 7\nd\n")
    assert f"Fen: {short} 3 7" in lines
    assert not any(line.startswith(ERROR) for line in lines)


def test_an_extension_builds_on_the_last_command_not_on_what_followed_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bad extension, `ucinewgame` or a search in between change nothing it builds on."""
    session = Session(io.StringIO())
    execute(session, "position startpos moves e2e4")
    calls = counting_move_source(monkeypatch)
    for command in ("position startpos moves e2e4 e7e5 e1e3", "ucinewgame",
                    "go depth 2"):
        execute(session, command)
        session.wait_for_search()
    execute(session, "position startpos moves e2e4 e7e5 g1f3")
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(move)
    assert session.position.fen() == board.fen()
    # Two generations for the bad command (e7e5, then e1e3 refused), two for the good one's
    # new moves: e2e4 is never played again.
    assert calls[0] == 2 + 2, calls[0]


# Bad input leaves the engine as it was


@pytest.mark.parametrize("command", [
    "position startpos moves e2e4 e7e5 xx",
    "position startpos moves e2e4 e7e5 e1e3",
    "position startpos moves e2e4 e7e5 g1f3 e7e5",
    "position startpos e2e4",
    "position fen 8/8/8/8 w - - 0 1",
    f"position fen {chess.STARTING_FEN[:-1]}²",
    "position fen",
    "position",
])
def test_a_bad_position_leaves_the_previous_one(command: str) -> None:
    lines = talk(f"uci\nposition startpos moves e2e4\n{command}\nd\ngo depth 1\n")
    assert any(line.startswith(ERROR) for line in lines)
    assert f"Fen: {AFTER_E4}" in lines
    assert_legal(AFTER_E4, lines[-1].split()[1])


@pytest.mark.parametrize("command", [
    "setoption name Quiescence value maybe", "setoption name Ponder value 1",
    "set ordering sideways", "setoption name Ordering",
])
def test_a_bad_option_value_leaves_the_option(command: str) -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, command)
    assert output.getvalue().startswith(ERROR)
    assert session.searcher.techniques == Techniques() and not session.ponder_allowed


@pytest.mark.parametrize("command", ["perft ²", "go perft ²", "setoption name Hash value ²",
                                     "go depth ²", "position fen 8/8/8/8/8/8/8/8 w - - ² 1"])
def test_unicode_digits_do_not_end_the_loop(command: str) -> None:
    lines = talk(f"uci\n{command}\nstop\nisready\n")
    assert lines[-1] == "readyok" and any(line.startswith(ERROR) for line in lines)


# Limits that cannot be searched as given, the end of the input, a failing search


def test_go_mate_without_a_mate_answers_after_depth_2n(gui: Conversation) -> None:
    # No side can mate in one from the start: the search ends after two plies.
    infos, move = search(gui, chess.STARTING_FEN, "go mate 1")
    assert max(int(info_fields(line)["depth"]) for line in infos if " depth " in line) == 2
    assert_legal(chess.STARTING_FEN, move)


def test_go_mate_stops_at_depth_2n_when_the_mate_is_longer(gui: Conversation) -> None:
    # A mate in two exists, but `go mate 1` asks only for mates in one: depth 2 ends it.
    gui.send(f"position fen {MATE_IN_TWO_MIRRORED}")
    gui.send("go mate 1")
    lines = gui.read_until("bestmove", timeout=10)
    depths = [int(info_fields(line)["depth"]) for line in lines if line.startswith("info depth")]
    assert depths == [1, 2]
    assert_legal(MATE_IN_TWO_MIRRORED, lines[-1].split()[1])


def test_the_shell_lets_a_finite_search_finish_at_the_end_of_input() -> None:
    lines = talk("position startpos\ngo depth 3\n")
    assert any(line.startswith("depth  3/") for line in lines), lines
    assert lines[-1].startswith("bestmove")
    started = time.monotonic()
    lines = talk("position startpos\ngo movetime 300\n")
    assert time.monotonic() - started >= 0.25  # it thought for its time, not less
    assert lines[-1].startswith("bestmove")


def test_the_end_of_input_in_uci_mode_stops_a_finite_search_at_once() -> None:
    # The GUI has gone: nobody waits for a long answer, but a bestmove still ends the search.
    started = time.monotonic()
    lines = talk("uci\nposition startpos\ngo movetime 5000\n")
    assert time.monotonic() - started < 3
    assert_legal(chess.STARTING_FEN, lines[-1].split()[1])


class PlantedSearchError(RuntimeError):
    """The bug planted in the search by the tests below."""


@pytest.mark.parametrize(("failing_depth", "fallback"), [
    (2, "the move of the last report"), (1, "the first legal move")])
def test_a_failing_search_still_answers_and_the_loop_goes_on(
        gui: Conversation, monkeypatch: pytest.MonkeyPatch, failing_depth: int,
        fallback: str) -> None:
    original = Searcher.iterate

    def iterate_with_a_bug(self: Searcher, position, depth: int):
        if depth == failing_depth:
            raise PlantedSearchError("planted")
        return original(self, position, depth)

    monkeypatch.setattr(Searcher, "iterate", iterate_with_a_bug)
    gui.send(f"position fen {KIWIPETE}")
    gui.send("go depth 3")
    lines = gui.read_until("bestmove", timeout=10)
    errors = [line for line in lines if line.startswith(ERROR)]
    assert len(errors) == 1 and "PlantedSearchError('planted')" in errors[0], lines
    assert errors[0].endswith(fallback)
    move = lines[-1].split()[1]
    assert_legal(KIWIPETE, move)
    infos = [line for line in lines if line.startswith("info depth")]
    if failing_depth == 2:
        assert info_fields(infos[-1])["pv"].split()[0] == move
    else:
        assert infos == []
    monkeypatch.undo()  # the bug is gone: the engine answers as before
    gui.send("isready")
    gui.read_until("readyok", timeout=2)
    gui.send("go depth 1")
    assert_legal(KIWIPETE, gui.read_until("bestmove", timeout=10)[-1].split()[1])


def test_a_failed_search_without_a_legal_move_says_it_plays_none(
        gui: Conversation, monkeypatch: pytest.MonkeyPatch) -> None:
    def iterate_with_a_bug(self: Searcher, position, depth: int):
        raise PlantedSearchError("planted")

    monkeypatch.setattr(Searcher, "iterate", iterate_with_a_bug)
    gui.send(f"position fen {MATED}")
    gui.send("go depth 3")
    lines = gui.read_until("bestmove", timeout=10)
    errors = [line for line in lines if line.startswith(ERROR)]
    assert len(errors) == 1 and errors[0].endswith("no legal move to play"), lines
    assert lines[-1] == "bestmove 0000"


def test_go_depth_beyond_max_depth_is_searched_to_max_depth(
        gui: Conversation, monkeypatch: pytest.MonkeyPatch) -> None:
    # The engine's MAX_DEPTH is out of reach; made small, its effect can be seen.
    monkeypatch.setattr(cb2026.search, "MAX_DEPTH", 2)
    monkeypatch.setattr(cb2026.cli, "MAX_DEPTH", 2)
    gui.send("position startpos")
    gui.send("go depth 3")
    lines = gui.read_until("bestmove", timeout=10)
    assert f"{WARNING}go depth 3 is beyond the deepest search: searching to depth 2" in lines
    depths = [int(info_fields(line)["depth"]) for line in lines if line.startswith("info depth")]
    assert depths == [1, 2]


def test_go_depth_100_is_named_and_answered(gui: Conversation) -> None:
    gui.send(f"position fen {MATE_IN_ONE}")
    gui.send("go depth 100")  # the mate ends the search long before depth 64
    lines = gui.read_until("bestmove", timeout=10)
    assert f"{WARNING}go depth 100 is beyond the deepest search: searching to depth 64" in lines
    assert lines[-1].split()[1] == "d1d8"


@pytest.mark.parametrize(("fen", "go"), [
    (chess.STARTING_FEN, "go btime 60000 binc 1000"),
    (AFTER_E4, "go wtime 60000"),
])
def test_a_clock_for_the_opponent_only_is_planned_as_an_empty_one(
        gui: Conversation, fen: str, go: str) -> None:
    own = "wtime" if " w " in fen else "btime"
    gui.send(f"position fen {fen}")
    started = time.monotonic()
    gui.send(go)
    lines = gui.read_until("bestmove", timeout=5)
    assert time.monotonic() - started < 2
    assert any(line.startswith(WARNING) and f"no {own}" in line for line in lines), lines
    assert_legal(fen, lines[-1].split()[1])


@pytest.mark.parametrize("go", ["go movetime 300 btime 1000", "go infinite btime 1000 depth 2",
                                "go btime 1000 movetime 300"])
def test_no_empty_clock_warning_when_the_clock_does_not_plan_the_search(go: str) -> None:
    # White to move and only Black's clock, but a movetime or `infinite` decides the time.
    lines = talk(f"uci\nposition startpos\n{go}\nstop\nisready\n")
    assert not any(line.startswith(("info string", )) for line in lines), lines
    assert_legal(chess.STARTING_FEN, [line for line in lines if line.startswith("bestmove")][0]
                 .split()[1])


LONG_NUMBER = "9" * 5000  # more digits than Python's `int` reads from a string


@pytest.mark.parametrize("command", [
    f"go depth {LONG_NUMBER}", f"perft {LONG_NUMBER}", f"go perft {LONG_NUMBER}",
    f"debug on\ngo wtime {LONG_NUMBER[:400]}", f"go wtime {LONG_NUMBER[:400]} btime 1000",
    f"go movetime {LONG_NUMBER[:400]}", f"go nodes {LONG_NUMBER[:400]}",
    f"go mate {LONG_NUMBER[:400]}", "go wtime -" + LONG_NUMBER[:400],
])
def test_absurdly_long_numbers_are_complaints_and_the_loop_goes_on(command: str) -> None:
    lines = talk(f"uci\nposition startpos\n{command}\nstop\nisready\n")
    assert lines[-1] == "readyok", lines[-3:]
    errors = [line for line in lines if line.startswith(ERROR)]
    assert errors and not any("failed" in line for line in errors), errors
    assert all(len(line) < 200 for line in errors)  # the complaint does not repeat the number
    if command.startswith("go") and " perft " not in f" {command}":
        bestmoves = [line for line in lines if line.startswith("bestmove")]
        assert len(bestmoves) == 1
        assert_legal(chess.STARTING_FEN, bestmoves[0].split()[1])


def test_an_unexpected_exception_in_a_command_is_reported_and_the_loop_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def handle_with_a_bug(session: Session, arguments: list[str]) -> None:
        raise PlantedSearchError("planted in d")

    monkeypatch.setitem(cb2026.cli.COMMANDS, "d", (handle_with_a_bug, "planted"))
    lines = talk("uci\nd\nisready\ngo depth 1\n")
    assert f"{ERROR}the command failed (PlantedSearchError('planted in d'))" in lines, lines
    assert "readyok" in lines and lines[-1].startswith("bestmove")


def test_go_ponder_with_the_ponder_option_off_is_noted_and_obeyed(gui: Conversation) -> None:
    note = "info string go ponder with the Ponder option off"
    gui.send("position startpos")
    gui.send("go ponder depth 1")
    gui.send("stop")
    lines = gui.read_until("bestmove", timeout=5)
    assert any(line.startswith(note) for line in lines), lines
    gui.send("setoption name Ponder value true")
    gui.send("go ponder depth 1")
    gui.send("ponderhit")
    lines = gui.read_until("bestmove", timeout=5)
    assert not any(line.startswith(note) for line in lines), lines
    assert_legal(chess.STARTING_FEN, lines[-1].split()[1])


def test_python_m_cb2026_runs_the_command_loop() -> None:
    completed = subprocess.run([sys.executable, "-m", "cb2026"], input="uci\nisready\nquit\n",
                               capture_output=True, text=True, timeout=30,
                               env=ENGINE_ENVIRONMENT, check=True)
    lines = completed.stdout.splitlines()
    assert "uciok" in lines and lines[-1] == "readyok"
