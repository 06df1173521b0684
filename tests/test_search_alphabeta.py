"""The search of chapter 5: alpha-beta against plain minimax, mates, draws, legal best moves.

The referees are the engine's own `minimax` (no pruning, no ordering: the definition of the
score), python-chess (legality, checkmate, stalemate, perft counts) and simple properties
(a position and its colour-flipped mirror image score the same).
"""

import dataclasses
import random
from itertools import pairwise

import chess
import pytest

from cb2026.board import BISHOP, BLACK, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE, make_piece
from cb2026.move import EN_PASSANT, encode_move, move_to_uci, parse_uci_move
from cb2026.position import Position
from cb2026.rules import legal_moves
from cb2026.search import (
    DRAW,
    INFINITY,
    MATE,
    Searcher,
    Techniques,
    is_mate_score,
    minimax,
    mvv_lva_score,
)
from positions import (
    EN_PASSANT_PAWNS,
    KIWIPETE,
    MATE_IN_ONE,
    MATE_IN_TWO,
    MATED,
    POSITION_3,
    QH5_TRAP,
    STALEMATE,
    STALEMATE_TRAP,
)
from stage_referee import MAIN_SEARCH_PRUNING, switched_off

pytestmark = pytest.mark.stage("stage-05-alphabeta")

# Small positions, cheap enough for plain minimax at depth 3.
SMALL = [
    "8/8/8/4k3/8/8/3QK3/8 w - - 0 1",
    POSITION_3,
    EN_PASSANT_PAWNS,
    "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1",
    "8/P6k/8/8/8/8/6p1/K7 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "2r3k1/5ppp/8/8/8/2n5/5PPP/3RR1K1 b - - 0 1",
    "8/8/3k4/8/2n2N2/8/3K4/8 w - - 0 1",
    STALEMATE_TRAP,
    QH5_TRAP,
]


def random_positions(count: int, seed: int) -> list[str]:
    """FENs from random games played by python-chess, at random points of each game."""
    generator = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        board = chess.Board()
        stop = generator.randrange(4, 60)
        while board.ply() < stop and not board.is_game_over():
            board.push(generator.choice(list(board.legal_moves)))
        if not board.is_game_over():
            fens.append(board.fen())
    return fens


RANDOM = random_positions(24, seed=2026)


def reference_techniques() -> Techniques:
    """Every technique on, except those that change the scores minimax defines."""
    # Quiescence (chapter 6) searches beyond the depth, the transposition table
    # (chapter 8) reuses results across paths, and the null move (chapter 10) lets the
    # side to move pass, which no rule allows; ordering and pruning stay on. Check
    # extensions (chapter 14) search checking moves deeper than minimax's depth, and
    # forward pruning (chapter 15) leaves out moves that minimax searches.
    return dataclasses.replace(Techniques(), **switched_off(
        "quiescence", "tt", "null_move", "check_extensions", *MAIN_SEARCH_PRUNING))


def check_result(fen: str, depth: int) -> None:
    """Alpha-beta's score equals minimax's, and its move and line are legal (python-chess)."""
    expected = minimax(Position.from_fen(fen), depth)
    score, best_move, pv = Searcher(reference_techniques()).search(Position.from_fen(fen), depth)
    assert score == expected, (fen, depth)
    assert best_move is not None and pv[0] == best_move
    board = chess.Board(fen)
    for move in pv:
        assert chess.Move.from_uci(move_to_uci(move)) in board.legal_moves, (fen, pv)
        board.push_uci(move_to_uci(move))


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("fen", SMALL)
def test_alphabeta_matches_minimax_on_small_positions(fen: str, depth: int) -> None:
    check_result(fen, depth)


@pytest.mark.parametrize("fen", RANDOM)
def test_alphabeta_matches_minimax_on_random_positions(fen: str) -> None:
    check_result(fen, 1)
    check_result(fen, 2)
    # Depth 3 where plain minimax stays cheap (about 30 moves or fewer a side).
    if len(list(chess.Board(fen).legal_moves)) <= 30:
        check_result(fen, 3)


@pytest.mark.parametrize("fen", [SMALL[1], SMALL[5], SMALL[9], *RANDOM[:4]])
def test_fail_soft_bounds(fen: str) -> None:
    # Fail-soft: a result at or below alpha is an upper bound of the true score, one at or
    # above beta a lower bound, one inside the window exact.  With pruning off, every
    # window gives the exact minimax score.
    true_score = minimax(Position.from_fen(fen), 2)
    windows = [(true_score - 2, true_score - 1), (true_score + 1, true_score + 2),
               (true_score - 50, true_score + 50), (-INFINITY, INFINITY)]
    for alpha, beta in windows:
        pruned = Searcher(reference_techniques())
        score = pruned.negamax(Position.from_fen(fen), 2, alpha, beta, 0, [])
        if score <= alpha:
            assert true_score <= score
        elif score >= beta:
            assert true_score >= score
        else:
            assert true_score == score
        plain = Searcher(dataclasses.replace(reference_techniques(), alphabeta=False))
        assert plain.negamax(Position.from_fen(fen), 2, alpha, beta, 0, []) == true_score


def test_mvv_lva_takes_the_biggest_victim_first_then_the_smallest_attacker() -> None:
    def score(victim: int, attacker: int, promotion: int = 0, flag: int = 0) -> int:
        board = [0] * 64
        board[27] = make_piece(WHITE, attacker)  # d4
        if victim:
            board[36] = make_piece(BLACK, victim)  # e5
        return mvv_lva_score(board, encode_move(27, 36, promotion, flag))

    victims = [PAWN, KNIGHT, BISHOP, ROOK, QUEEN]  # in order of value
    attackers = [PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING]
    for smaller, bigger in pairwise(victims):
        # Any capture of the bigger victim comes before any capture of the smaller.
        assert min(score(bigger, a) for a in attackers) > max(score(smaller, a) for a in attackers)
    for victim in victims:
        for cheaper, dearer in pairwise(attackers):
            assert score(victim, cheaper) > score(victim, dearer)
    # En passant takes a pawn that is not on the target square; a promotion to a queen
    # ranks with taking a queen.
    assert score(0, PAWN, flag=EN_PASSANT) == score(PAWN, PAWN)
    assert score(0, PAWN, promotion=QUEEN) == score(QUEEN, PAWN)
    assert score(ROOK, PAWN, promotion=QUEEN) > score(QUEEN, PAWN)


def test_alphabeta_switch_off_is_minimax_and_visits_the_whole_tree() -> None:
    # python-chess counts the tree: 1 + 20 + 400 + 8,902 positions to depth 3.
    board = chess.Board()
    expected_nodes = 1 + sum(_perft(board, depth) for depth in (1, 2, 3))
    plain = Searcher(dataclasses.replace(reference_techniques(), alphabeta=False))
    score = plain.search(Position.starting(), 3)[0]
    assert plain.notes.nodes == expected_nodes
    assert plain.notes.cutoffs == 0 and plain.notes.seldepth == 3
    pruned = Searcher(reference_techniques())
    assert pruned.search(Position.starting(), 3)[0] == score
    assert pruned.notes.nodes < plain.notes.nodes


def _perft(board: chess.Board, depth: int) -> int:
    """Leaf count by python-chess."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _perft(board, depth - 1)
        board.pop()
    return total


def test_ordering_saves_nodes_and_finds_cutoffs_first() -> None:
    ordered = Searcher(reference_techniques())
    unordered = Searcher(dataclasses.replace(reference_techniques(), ordering=False))
    ordered_score = ordered.search(Position.from_fen(KIWIPETE), 3)[0]
    assert unordered.search(Position.from_fen(KIWIPETE), 3)[0] == ordered_score
    assert ordered.notes.nodes < unordered.notes.nodes
    for notes in (ordered.notes, unordered.notes):
        assert 0 < notes.first_move_cutoffs <= notes.cutoffs
    assert (ordered.notes.first_move_cutoffs / ordered.notes.cutoffs
            > unordered.notes.first_move_cutoffs / unordered.notes.cutoffs)


@pytest.mark.parametrize("fen", [*SMALL[:6], KIWIPETE, *RANDOM[:6]])
def test_mirrored_position_scores_the_same(fen: str) -> None:
    mirrored = chess.Board(fen).mirror().fen()
    searcher = Searcher(reference_techniques())
    assert (searcher.search(Position.from_fen(fen), 2)[0]
            == searcher.search(Position.from_fen(mirrored), 2)[0])


@pytest.mark.parametrize("depth", [2, 3])
def test_mate_in_one_scores_mate_minus_one_ply(depth: int) -> None:
    score, best_move, pv = Searcher().search(Position.from_fen(MATE_IN_ONE), depth)
    assert score == MATE - 1 and is_mate_score(score)
    board = chess.Board(MATE_IN_ONE)
    board.push_uci(move_to_uci(best_move))
    assert board.is_checkmate()


def test_mate_needs_the_mated_side_to_have_depth_left() -> None:
    # At depth 1 the mated position is a leaf, scored by material.
    score, _, _ = Searcher(reference_techniques()).search(Position.from_fen(MATE_IN_ONE), 1)
    assert not is_mate_score(score)


@pytest.mark.parametrize("depth", [4, 5])
def test_mate_in_two_scores_mate_minus_three_plies(depth: int) -> None:
    board = chess.Board(MATE_IN_TWO)
    # The referee: python-chess finds no mate in one here.
    for move in list(board.legal_moves):
        board.push(move)
        assert not board.is_checkmate()
        board.pop()
    score, _, pv = Searcher(reference_techniques()).search(Position.from_fen(MATE_IN_TWO), depth)
    assert score == MATE - 3
    for move in pv:
        board.push_uci(move_to_uci(move))
    assert len(pv) == 3 and board.is_checkmate()


def test_being_mated_scores_minus_mate() -> None:
    # Black to move is already mated: the score counts zero plies.
    fen = MATED
    assert chess.Board(fen).is_checkmate()
    score, best_move, pv = Searcher().search(Position.from_fen(fen), 2)
    assert score == -MATE and best_move is None and pv == []


def test_stalemate_scores_zero() -> None:
    fen = STALEMATE
    assert chess.Board(fen).is_stalemate()
    score, best_move, _ = Searcher().search(Position.from_fen(fen), 3)
    assert score == DRAW and best_move is None


def test_search_avoids_a_stalemating_capture() -> None:
    # Qxf7 wins the knight and stalemates; Kxf7 wins it and keeps the game going.
    board = chess.Board(STALEMATE_TRAP)
    board.push_uci("f1f7")
    assert board.is_stalemate()
    assert minimax(Position.from_fen(board.fen()), 2) == DRAW
    score, best_move, _ = Searcher().search(Position.from_fen(STALEMATE_TRAP), 2)
    assert move_to_uci(best_move) != "f1f7" and score > 500


def test_fifty_move_rule_draws_inside_the_search() -> None:
    # White is a queen up, but every move reaches the hundredth half-move.
    position = Position.from_fen("8/8/8/4k3/8/8/3QK3/8 w - - 99 80")
    score, best_move, _ = Searcher().search(position, 2)
    assert score == DRAW and best_move is not None


def play(position: Position, *texts: str) -> Position:
    """Play UCI moves on `position` and return it."""
    for text in texts:
        position.make_move(parse_uci_move(text, legal_moves(position)))
    return position


def test_repetition_draws_inside_the_search() -> None:
    position = play(Position.from_fen("7k/8/8/8/8/8/Q7/K7 w - - 0 1"),
                    "a2b2", "h8g8", "b2a2", "g8h8")
    searcher = Searcher()
    assert searcher.negamax(position, 2, -INFINITY, INFINITY, 1, []) == DRAW


def test_repetition_at_the_root_is_not_a_draw() -> None:
    # The root repeats the starting position, but it must still find a move, and the
    # queen is still a queen.
    position = play(Position.from_fen("7k/8/8/8/8/8/Q7/K7 w - - 0 1"),
                    "a2b2", "h8g8", "b2a2", "g8h8")
    score, best_move, _ = Searcher().search(position, 2)
    assert best_move is not None and score > 500
    board = chess.Board("7k/8/8/8/8/8/Q7/K7 w - - 0 1")
    for text in ("a2b2", "h8g8", "b2a2", "g8h8"):
        board.push_uci(text)
    assert chess.Move.from_uci(move_to_uci(best_move)) in board.legal_moves
