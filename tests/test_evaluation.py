"""The tapered evaluation (chapter 13).

The referees: the pawn structure and mobility counted again from their definitions with
python-chess's squares and attacks; chapter 13's evaluation as it was first written
(tests/evaluation_referee.py), which the rewritten one must equal on every position and
switch; the position's colour mirror and left-right mirror
(python-chess's `mirror` and `transform`), which must score the same for the side to
move; hand-made positions that differ in one feature only, for each term's sign and size;
and the previous stage's engine itself (its package, run in its own process), which the
search with `Evaluation` off must equal node for node.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
from collections.abc import Callable, Iterator

import chess
import pytest

import cb2026.evaluation as evaluation_module
import evaluation_referee
from cb2026.attacks import KNIGHT_TARGETS
from cb2026.board import BLACK, KING, KNIGHT, PAWN, WHITE, make_piece
from cb2026.cli import Session, execute
from cb2026.evaluate import evaluate
from cb2026.evaluation import (
    ATTACK_UNITS,
    KING_ATTACK_LIMIT,
    MAX_PHASE,
    MOBILITY_BASE,
    PIECE_PHASE,
    PawnEntry,
    PawnTable,
    evaluate_position,
    pawn_structure,
    piece_terms,
    taper,
)
from cb2026.position import Position
from cb2026.search import MATE_THRESHOLD, Searcher, Techniques
from literate.book import chapters_through
from positions import MIDDLEGAME, SEARCH_POSITIONS
from stage_referee import (
    FORWARD_PRUNING,
    random_boards,
    search_results,
    stage_searches,
    switched_off,
)

pytestmark = pytest.mark.stage("stage-13-evaluation")

# The stage before this one in the book: with `Evaluation` off the search must be its search.
PREVIOUS_STAGE = sorted(chapters_through("stage-13-evaluation"),
                        key=lambda chapter: chapter.number)[-2].stage_id


BOARDS = random_boards(300, seed=13)


@pytest.fixture
def chapter_13_weights() -> Iterator[None]:
    """Put chapter 13's hand-chosen values in place where a later chapter tuned them
    (chapter 13.1): the sizes and signs the tests below check are those chapter 13
    chose its values for, and a fit to positions need not keep them."""
    hand = getattr(evaluation_module, "HAND_WEIGHTS", None)
    if hand is None:
        yield
        return
    in_place = evaluation_module.weights_in_place()
    evaluation_module.use_weights(hand)
    try:
        yield
    finally:
        evaluation_module.use_weights(in_place)


def score(fen: str, **terms: bool) -> int:
    """Return the evaluation of `fen` for the side to move."""
    return evaluate_position(Position.from_fen(fen), **terms)


# Symmetry.


@pytest.mark.parametrize("terms", [{}, {"pawn_structure": False}, {"mobility": False},
                                   {"king_safety": False}])
def test_a_position_and_its_colour_mirror_score_the_same_for_the_side_to_move(
    terms: dict[str, bool]
) -> None:
    for board in BOARDS:
        assert score(board.fen(), **terms) == score(board.mirror().fen(), **terms), (
            board.fen())


def test_the_colour_mirror_scores_opposite_from_whites_view() -> None:
    for board in BOARDS[:100]:
        mirrored = board.mirror()
        white_view = score(board.fen()) * (1 if board.turn else -1)
        mirrored_white_view = score(mirrored.fen()) * (1 if mirrored.turn else -1)
        assert white_view == -mirrored_white_view, board.fen()


def test_a_position_and_its_left_right_mirror_score_the_same() -> None:
    # Castling rights do not survive the mirror (the king and rooks change files).
    for board in BOARDS:
        board = board.copy(stack=False)
        board.castling_rights = chess.BB_EMPTY
        mirrored = board.transform(chess.flip_horizontal)
        assert score(board.fen()) == score(mirrored.fen()), board.fen()


# The phase.


def test_the_phase_runs_from_the_start_to_kings_and_pawns() -> None:
    def phase(fen: str) -> int:
        return min(sum(PIECE_PHASE[piece] for piece in Position.from_fen(fen).board),
                   MAX_PHASE)

    assert phase(chess.STARTING_FEN) == MAX_PHASE
    assert phase("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1") == 0
    assert phase("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") == 4
    for board in BOARDS:
        assert 0 <= phase(board.fen()) <= MAX_PHASE


@pytest.mark.parametrize(("middlegame", "endgame"), [(100, -40), (-7, 13), (0, 0)])
def test_the_taper_gives_each_end_at_its_endpoint_and_blends_between(
    middlegame: int, endgame: int
) -> None:
    assert taper(middlegame, endgame, MAX_PHASE) == middlegame
    assert taper(middlegame, endgame, 0) == endgame
    low, high = sorted((middlegame, endgame))
    for phase in range(MAX_PHASE + 1):
        assert low <= taper(middlegame, endgame, phase) <= high
        assert taper(-middlegame, -endgame, phase) == -taper(middlegame, endgame, phase)


# Each term's sign and size on hand-made positions.


def squares(*names: str) -> tuple[int, ...]:
    """Return the squares named, in board order."""
    return tuple(sorted(chess.parse_square(name) for name in names))


@pytest.mark.usefixtures("chapter_13_weights")
def test_a_passed_pawn_is_worth_more_the_further_it_has_gone() -> None:
    # White's pawn on the a-file, Black's on the h-file: both passed.
    by_rank = [pawn_structure(squares(f"a{rank}"), squares("h7")) for rank in range(2, 8)]
    for earlier, later in itertools.pairwise(by_rank):
        assert later[0] >= earlier[0] and later[1] > earlier[1]
    third, sixth = by_rank[1], by_rank[4]
    assert sixth[1] - third[1] >= 50  # the endgame values a far pawn most
    assert sixth[1] - sixth[0] > third[1] - third[0]  # ... more than the middlegame


@pytest.mark.usefixtures("chapter_13_weights")
def test_a_blocked_pawn_is_not_passed() -> None:
    free = pawn_structure(squares("d5", "a2"), squares("h7", "a7"))
    faced = pawn_structure(squares("d5", "a2"), squares("e7", "a7"))  # guards d6
    assert free[1] > faced[1]


@pytest.mark.usefixtures("chapter_13_weights")
def test_isolated_doubled_and_backward_pawns_cost() -> None:
    healthy = pawn_structure(squares("c2", "d2", "e2"), squares("c7", "d7", "e7"))
    assert healthy == (0, 0)  # nothing passed, nothing weak: the sides are alike
    isolated = pawn_structure(squares("a2", "c2", "e2"), squares("c7", "d7", "e7"))
    assert isolated[0] < 0 and isolated[1] < 0
    doubled = pawn_structure(squares("c2", "c3", "e2"), squares("c7", "d7", "e7"))
    assert doubled[0] < 0 and doubled[1] < 0
    # White's d3 stays behind c4 and e4, and Black's c5 guards d4, its next square.
    backward = pawn_structure(squares("c4", "d3", "e4"), squares("c5", "d6", "e7"))
    control = pawn_structure(squares("c4", "d4", "e4"), squares("c5", "d6", "e7"))
    assert backward[0] < control[0]


def test_the_pawn_table_gives_back_what_it_computed() -> None:
    table = PawnTable(entries=4)
    for board in BOARDS[:60]:
        position = Position.from_fen(board.fen())
        white, black = (tuple(square for square, piece in enumerate(position.board)
                              if piece == make_piece(colour, PAWN))
                        for colour in (WHITE, BLACK))
        first = table.entry(white, black)
        assert first.score == pawn_structure(white, black)
        assert table.entry(white, black) is first
        assert len(table.stored) <= 4
    assert table.hits >= 60 and table.probes == 120


def test_a_pawn_entry_holds_the_pawns_cover_and_files() -> None:
    # python-chess's attacks and files are the referee.
    for board in BOARDS[:100]:
        white, black = (tuple(sorted(board.pieces(chess.PAWN, colour)))
                        for colour in (chess.WHITE, chess.BLACK))
        entry = PawnEntry(white, black)
        for colour, pawns in ((WHITE, white), (BLACK, black)):
            attacked = chess.SquareSet()
            for pawn in pawns:
                attacked |= board.attacks(pawn)
            assert [square for square in range(64) if entry.cover[colour][square]] == (
                list(attacked)), board.fen()
            assert entry.files[colour] == sum(
                1 << file for file in {chess.square_file(pawn) for pawn in pawns})


def terms(fen: str, mobility: bool = True, king_safety: bool = True) -> tuple[int, int]:
    """Return piece_terms's (middlegame, endgame) for `fen`, White minus Black."""
    position = Position.from_fen(fen)
    board = position.board
    pieces = [square for square, piece in enumerate(board)
              if piece and piece & 7 not in (PAWN, KING)]
    white, black = (tuple(square for square, piece in enumerate(board)
                          if piece == make_piece(colour, PAWN)) for colour in (WHITE, BLACK))
    return piece_terms(board, pieces, PawnEntry(white, black), position.king_squares,
                       mobility, king_safety)


def placement(fen: str) -> tuple[int, int]:
    """Return the bishop pair and rook file bonuses of `fen`, White minus Black: what
    piece_terms gives with mobility and king safety off."""
    return terms(fen, mobility=False, king_safety=False)


def activity(fen: str, mobility: bool = True, king_safety: bool = True) -> tuple[int, int]:
    """Return the mobility and king safety of `fen` (middlegame, endgame), White minus
    Black: piece_terms without the bishop pair and rook file bonuses."""
    both, placed = terms(fen, mobility, king_safety), placement(fen)
    return both[0] - placed[0], both[1] - placed[1]


@pytest.mark.usefixtures("chapter_13_weights")
def test_a_central_knight_is_more_mobile_than_a_knight_in_the_corner() -> None:
    centre = activity("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1", king_safety=False)
    corner = activity("4k3/8/8/8/8/8/8/N3K3 w - - 0 1", king_safety=False)
    assert centre[0] > 0 > corner[0]


@pytest.mark.usefixtures("chapter_13_weights")
def test_mobility_leaves_out_the_squares_enemy_pawns_attack() -> None:
    free = activity("4k3/8/8/8/3B4/8/8/4K3 w - - 0 1", king_safety=False)
    # A black pawn on d6 attacks c5 and e5, on the bishop's diagonals.
    covered = activity("4k3/8/3p4/8/3B4/8/8/4K3 w - - 0 1", king_safety=False)
    assert covered[0] < free[0]


@pytest.mark.usefixtures("chapter_13_weights")
def test_a_pawn_shield_and_attackers_near_the_king_count_in_the_middlegame_only() -> None:
    shielded = activity("6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1", mobility=False)
    bare = activity("6k1/8/8/8/5PPP/8/8/6K1 w - - 0 1", mobility=False)
    assert shielded[0] > bare[0] and shielded[1] == bare[1] == 0
    # A queen and a rook that reach the squares next to Black's king, the queen
    # alone there, and the two far away: one attacker alone is no attack.
    far = activity("6k1/5ppp/8/8/8/8/8/R1Q4K w - - 0 1", mobility=False)
    queen_rook = activity("6k1/4Qppp/8/8/8/8/8/5R1K w - - 0 1", mobility=False)
    queen = activity("6k1/4Qppp/8/8/8/8/8/7K w - - 0 1", mobility=False)
    assert queen_rook[0] > queen[0] == far[0]
    assert queen_rook[1] == queen[1] == 0


@pytest.mark.usefixtures("chapter_13_weights")
def test_the_bishop_pair_and_rooks_on_open_files() -> None:
    pair = placement("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1")
    one = placement("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1")
    assert pair[0] > one[0] == 0 and pair[1] > one[1] == 0
    open_file = placement("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")  # no pawn on the a-file
    half_open = placement("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1")  # Black's pawn only
    closed = placement("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1")  # White's own pawn
    assert open_file[0] > half_open[0] > closed[0] == 0


# The rewritten evaluation against chapter 13's first version, kept as a referee.

# White's queen, rooks, bishop and knight all reach squares next to Black's king.
KING_ATTACK = "6k1/5ppp/3N4/6Q1/8/3B3R/8/5RK1 b - - 0 1"
# Black's knight on b3 gives check and reaches no other square of the king's zone.
KNIGHT_CHECK = "4k3/8/8/8/8/1n6/7q/K7 w - - 0 1"

# Positions made by hand for what random games seldom give: pawn endings (phase 0), a
# promoted queen (a phase above MAX_PHASE), kings in corners and castled on either wing,
# shields with a pawn one and two squares ahead on one file, a king on its third rank, a
# king attack beyond the limit, a knight check that reaches only the king's square of
# its zone, pinned and blocked pieces, rooks on open and half-open files.
HAND_MADE = [
    "8/P4k2/1P4p1/2P5/5p2/3P2p1/4K1p1/8 w - - 0 1",
    "8/5k2/3p2p1/p1pP1p2/P1P2P2/6P1/5K2/8 b - - 0 1",
    "k7/pp6/8/8/8/6P1/6PP/7K w - - 0 1",
    "7k/6p1/7p/8/8/P7/1P6/K7 b - - 0 1",
    "kr6/pp6/8/8/8/8/6PP/6RK w - - 0 1",
    "r1bq1rk1/ppp2ppp/2n2n2/2bpp3/2BPP3/2N2NP1/PP3PPP/R1BQ1RK1 w - - 0 1",
    "2kr1b1r/pp1q1ppp/2p1bn2/8/8/1PN1BN2/P1PQ1PPP/2KR1B1R b - - 0 1",
    "r1bq1rk1/ppp2pp1/2n2n1p/2bpp3/2BPP1PP/2N2NK1/PPP5/R1BQ1R2 b - - 0 1",
    KING_ATTACK,
    KNIGHT_CHECK,
    "rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/QNBQKBNR w Kkq - 0 1",
    "4k3/4r3/8/3n4/3P4/8/4B3/4K3 w - - 0 1",
    "r3k2r/1pp2p1p/8/8/8/8/P1P2PP1/R3K2R b KQkq - 0 1",
]


def test_the_hand_made_positions_are_what_they_are_said_to_be() -> None:
    phases = [sum(PIECE_PHASE[piece] for piece in Position.from_fen(fen).board)
              for fen in HAND_MADE]
    assert 0 in phases and max(phases) > MAX_PHASE
    attack = chess.Board(KING_ATTACK)
    zone = chess.BB_SQUARES[chess.G8] | chess.BB_KING_ATTACKS[chess.G8]
    units = sum(ATTACK_UNITS[piece.piece_type] for square, piece in attack.piece_map().items()
                if piece.color == chess.WHITE
                and piece.piece_type not in (chess.PAWN, chess.KING)
                and attack.attacks(square) & zone)
    assert 2 * units**2 > KING_ATTACK_LIMIT
    check = chess.Board(KNIGHT_CHECK)
    zone = chess.BB_SQUARES[chess.A1] | chess.BB_KING_ATTACKS[chess.A1]
    assert list(check.checkers()) == [chess.B3]
    assert check.attacks(chess.B3) & zone == chess.BB_A1


@pytest.mark.parametrize("switches", list(itertools.product((True, False), repeat=3)))
def test_the_evaluation_equals_chapter_13s_first_version(
    switches: tuple[bool, bool, bool]
) -> None:
    for fen in [*(board.fen() for board in BOARDS), *HAND_MADE]:
        position = Position.from_fen(fen)
        assert evaluate_position(position, *switches) == (
            evaluation_referee.evaluate_position(position, *switches)), fen


def test_the_evaluation_equals_chapter_13s_first_version_in_searched_positions() -> None:
    # Positions a search meets: every position two plies from the book's six, where
    # the pawn table is probed again and again with the same structures.
    for fen in SEARCH_POSITIONS.values():
        board = chess.Board(fen)
        for move in list(board.legal_moves):
            board.push(move)
            for reply in list(board.legal_moves):
                board.push(reply)
                position = Position.from_fen(board.fen())
                assert evaluate_position(position) == (
                    evaluation_referee.evaluate_position(position)), board.fen()
                board.pop()
            board.pop()


def knight_jumps_as_one_ray() -> tuple[str, object]:
    """A knight's eight jumps as one ray, which the walk would stop at the first piece
    it meets, as it does a slider's."""
    rays = list(evaluation_module.PIECE_RAYS)
    rays[KNIGHT] = tuple((targets,) for targets in KNIGHT_TARGETS)
    return "PIECE_RAYS", rays


def king_zones_without_the_kings_square() -> tuple[str, object]:
    """King zones of the squares next to the king only: random games seldom tell
    (a piece that reaches the king's square nearly always reaches a neighbour too),
    the hand-made knight check does."""
    zones = [list(zone) for zone in evaluation_module.KING_ZONES]
    for king, zone in enumerate(zones):
        zone[king] = 0
    return "KING_ZONES", zones


@pytest.mark.parametrize("slip", [knight_jumps_as_one_ray,
                                  king_zones_without_the_kings_square])
def test_the_equality_with_the_first_version_can_fail(
    monkeypatch: pytest.MonkeyPatch, slip: Callable[[], tuple[str, object]]
) -> None:
    # Slips the rewrite could have made, each planted in turn.
    monkeypatch.setattr(evaluation_module, *slip())
    positions = [Position.from_fen(fen)
                 for fen in [*(board.fen() for board in BOARDS[:100]), *HAND_MADE]]
    assert any(evaluate_position(position)
               != evaluation_referee.evaluate_position(position)
               for position in positions)


def test_the_switches_leave_out_their_terms() -> None:
    for term in ("pawn_structure", "mobility", "king_safety"):
        assert any(score(fen, **{term: False}) != score(fen)
                   for fen in SEARCH_POSITIONS.values()), term


def test_no_evaluation_comes_near_a_mate_score() -> None:
    # Scores from MATE_THRESHOLD up are mates: an evaluation there would be reported as a
    # mate and moved by the table's ply adjustment. Fifteen queens cannot arise in a game
    # (nine at most), which makes them a margin; the positions a game can reach must stay
    # further off still, by the largest material a side can have against a bare king.
    beyond_the_rules = ["QQQQKQQQ/QQQQQQQQ/8/8/8/8/8/7k b - - 0 1",
                        "7K/8/8/8/8/8/pppppppp/qqqqkqqq w - - 0 1"]
    for fen in beyond_the_rules:
        assert abs(score(fen)) < MATE_THRESHOLD, fen
    reachable = ["k7/PPPPPPPP/8/8/8/8/8/RRBBKNNQ b - - 0 1",
                 "k7/8/QQQQ4/QQQQQ3/8/8/8/RRBBKNN1 b - - 0 1"]
    for fen in [*reachable, *(board.fen() for board in BOARDS)]:
        assert abs(score(fen)) < MATE_THRESHOLD // 2, fen


# The search.


def test_with_evaluation_off_the_search_is_the_previous_stages_node_for_node() -> None:
    depth = 4
    previous = stage_searches(PREVIOUS_STAGE, SEARCH_POSITIONS, depth)
    # Later stages' search techniques (check extensions, chapter 14; forward pruning,
    # chapter 15) off where the stage has them: the previous stage is the one before
    # chapter 13.
    later = switched_off("check_extensions", *FORWARD_PRUNING)
    off = search_results(dataclasses.replace(Techniques(), evaluation=False, **later),
                         SEARCH_POSITIONS, depth)
    assert off == previous
    on = search_results(Techniques(), SEARCH_POSITIONS, depth)
    differing = sum(on[name][2] != off[name][2] for name in SEARCH_POSITIONS)
    assert differing > 0  # the switch does something


def test_the_search_evaluates_with_the_switches() -> None:
    position = Position.from_fen(MIDDLEGAME)
    assert Searcher().static_evaluation(position) == evaluate_position(position)
    off = Searcher(dataclasses.replace(Techniques(), evaluation=False))
    assert off.static_evaluation(position) == evaluate(position)
    material = Searcher(dataclasses.replace(Techniques(), pst=False))
    assert material.static_evaluation(position) == evaluate(position, pst=False)
    no_mobility = Searcher(dataclasses.replace(Techniques(), mobility=False))
    assert no_mobility.static_evaluation(position) == evaluate_position(
        position, mobility=False)


def test_the_switches_are_uci_options_and_shell_commands() -> None:
    output = io.StringIO()
    session = Session(output)
    execute(session, "uci")
    lines = output.getvalue().splitlines()
    for option in ("Evaluation", "PawnStructure", "Mobility", "KingSafety"):
        assert f"option name {option} type check default true" in lines
    for command, name, on in (
            ("setoption name Evaluation value false", "evaluation", False),
            ("set pawn_structure off", "pawn_structure", False),
            ("set Mobility off", "mobility", False),
            ("set king_safety off", "king_safety", False),
            ("set evaluation on", "evaluation", True)):
        execute(session, command)
        assert getattr(session.searcher.techniques, name) is on, command
    execute(session, "setoption name Mobility value maybe")
    assert "true or false" in output.getvalue()


# The terms against a referee written from their definitions with python-chess's
# squares and attacks: another way to count the same things.  The referees read the
# weights from the module as they run: those in place (chapter 13.1 can swap them).


def referee_pawn_structure(board: chess.Board) -> tuple[int, int]:
    """Return White's pawn structure score minus Black's, feature by feature."""
    total = [0, 0]
    for colour, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
        own, enemy = board.pieces(chess.PAWN, colour), board.pieces(chess.PAWN, not colour)

        def ahead(square: int, colour: chess.Color = colour) -> int:
            """The rank of `square` counted from `colour`'s side."""
            return chess.square_rank(square) if colour else 7 - chess.square_rank(square)

        terms: list[tuple[int, int]] = []
        for file in range(8):
            on_file = [square for square in own if chess.square_file(square) == file]
            terms += [evaluation_module.DOUBLED] * max(len(on_file) - 1, 0)
        for square in own:
            file, rank = chess.square_file(square), ahead(square)
            near = [other for other in enemy if abs(chess.square_file(other) - file) <= 1]
            if all(ahead(other) <= rank for other in near):
                terms.append((evaluation_module.PASSED_MIDDLEGAME[rank],
                              evaluation_module.PASSED_ENDGAME[rank]))
            neighbours = [other for other in own
                          if abs(chess.square_file(other) - file) == 1]
            stop = square + (8 if colour else -8)
            if not neighbours:
                terms.append(evaluation_module.ISOLATED)
            elif (all(ahead(other) > rank for other in neighbours)
                  and board.attackers(not colour, stop) & enemy):
                terms.append(evaluation_module.BACKWARD)
        for middlegame, endgame in terms:
            total[0] += sign * middlegame
            total[1] += sign * endgame
    return total[0], total[1]


def test_the_pawn_structure_agrees_with_a_referee_on_random_positions() -> None:
    for board in BOARDS:
        white, black = (tuple(sorted(board.pieces(chess.PAWN, colour)))
                        for colour in (chess.WHITE, chess.BLACK))
        assert pawn_structure(white, black) == referee_pawn_structure(board), board.fen()


def test_mobility_agrees_with_a_referee_on_random_positions() -> None:
    for board in BOARDS:
        expected = [0, 0]
        for square, piece in board.piece_map().items():
            if piece.piece_type in (chess.PAWN, chess.KING):
                continue
            enemy_pawn_cover = chess.SquareSet()
            for pawn in board.pieces(chess.PAWN, not piece.color):
                enemy_pawn_cover |= board.attacks(pawn)
            safe = board.attacks(square) & ~board.occupied_co[piece.color] & ~(
                enemy_pawn_cover)
            extra = len(safe) - MOBILITY_BASE[piece.piece_type]
            sign = 1 if piece.color else -1
            expected[0] += sign * evaluation_module.MOBILITY_MIDDLEGAME[piece.piece_type] * extra
            expected[1] += sign * evaluation_module.MOBILITY_ENDGAME[piece.piece_type] * extra
        got = activity(board.fen(), king_safety=False)
        assert got == (expected[0], expected[1]), board.fen()


def test_king_safety_agrees_with_a_referee_on_random_positions() -> None:
    for board in BOARDS:
        expected = 0
        for colour, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
            enemy_king = board.king(not colour)
            assert enemy_king is not None
            zone = board.attacks(enemy_king) | chess.BB_SQUARES[enemy_king]
            weights = [ATTACK_UNITS[piece.piece_type]
                       for square, piece in board.piece_map().items()
                       if piece.color == colour
                       and piece.piece_type not in (chess.PAWN, chess.KING)
                       and board.attacks(square) & zone]
            if len(weights) >= 2:
                expected += sign * min(2 * sum(weights) ** 2, KING_ATTACK_LIMIT)
            king = board.king(colour)
            assert king is not None
            forward = 8 if colour else -8
            if (chess.square_rank(king) if colour else 7 - chess.square_rank(king)) <= 1:
                for file in range(8):
                    if abs(file - chess.square_file(king)) > 1:
                        continue
                    one_ahead = chess.square(file, chess.square_rank(king)) + forward
                    pawns = board.pieces(chess.PAWN, colour)
                    if one_ahead in pawns:
                        expected += sign * evaluation_module.SHIELD[0]
                    elif one_ahead + forward in pawns:
                        expected += sign * evaluation_module.SHIELD[1]
        assert activity(board.fen(), mobility=False) == (expected, 0), board.fen()
