"""Zobrist keys: incremental updates, transpositions, the en-passant rule, repetitions."""

import random

import chess
import chess.polyglot
import pytest

from cb2026.move import move_to_uci, parse_uci_move
from cb2026.position import Position
from cb2026.rules import legal_moves
from cb2026.zobrist import SIDE_KEY, ZOBRIST_NUMBERS, random_keys, splitmix64
from positions import ILLEGAL_EN_PASSANT, PERFT_POSITIONS

pytestmark = pytest.mark.stage("stage-04-zobrist")


def play(position: Position, *texts: str) -> Position:
    """Play UCI moves on `position` and return it."""
    for text in texts:
        position.make_move(parse_uci_move(text, legal_moves(position)))
    return position


def test_generator_is_deterministic_and_64_bit() -> None:
    assert random_keys(5, 1) == random_keys(5, 1)
    assert random_keys(5, 1) != random_keys(5, 2)
    # splitmix64 reference value for state 0 (first output of seed 0).
    assert splitmix64(0)[1] == 0xE220A8397B1DCDAF
    assert all(0 <= key < 1 << 64 for key in random_keys(1000, 7))


def test_transposed_move_orders_give_equal_keys() -> None:
    first = play(Position.starting(), "g1f3", "g8f6", "b1c3", "b8c6")
    second = play(Position.starting(), "b1c3", "b8c6", "g1f3", "g8f6")
    assert first.key == second.key == first.compute_key()
    assert first.key == Position.from_fen(first.fen()).key


def test_side_castling_and_en_passant_change_the_key() -> None:
    base = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    keys = {Position.from_fen(fen).key for fen in [
        base,
        base.replace(" w ", " b "),
        base.replace("KQkq", "Qkq"),
        base.replace("KQkq", "-"),
    ]}
    assert len(keys) == 4


def test_en_passant_file_counts_only_when_capturable() -> None:
    # 1.e4: no black pawn can take on e3, so the key equals the plain position's.
    after_e4 = play(Position.starting(), "e2e4")
    assert after_e4.en_passant_square is None
    assert after_e4.key == Position.from_fen(after_e4.fen()).key
    # 1.e4 d5 2.e5 f5: the pawn on e5 may take on f6, so the key differs.
    capturable = play(Position.starting(), "e2e4", "d7d5", "e4e5", "f7f5")
    same_without = Position.from_fen(capturable.fen().replace(" f6 ", " - "))
    assert capturable.en_passant_square is not None
    assert capturable.key != same_without.key
    assert capturable.key == capturable.compute_key()


def test_distinct_positions_have_distinct_keys() -> None:
    generator = random.Random(5)
    keys_by_placement: dict[int, str] = {}
    for _ in range(100):
        position = Position.starting()
        for _ in range(60):
            moves = legal_moves(position)
            if not moves:
                break
            position.make_move(generator.choice(moves))
            identity = " ".join(position.fen().split()[:4])
            assert keys_by_placement.setdefault(position.key, identity) == identity
    assert len(keys_by_placement) > 5000


def test_repetition_by_knight_shuffle() -> None:
    position = Position.starting()
    shuffle = ("g1f3", "g8f6", "f3g1", "f6g8")
    assert not position.is_repetition(2)
    play(position, *shuffle)
    assert position.is_repetition(2)
    assert not position.is_repetition(3)
    play(position, *shuffle[:3])
    assert not position.is_repetition(3)
    play(position, shuffle[3])
    assert position.is_repetition(3)
    # A pawn move starts a new sequence: nothing before it can repeat.
    play(position, "e2e4")
    assert not position.is_repetition(2)


def test_unmake_restores_key_after_every_kind_of_move() -> None:
    fen = "r3k2r/1P6/8/2pP4/8/8/6p1/R3K2R w KQkq c6 0 1"
    position = Position.from_fen(fen)
    key = position.key
    for move in legal_moves(position):
        position.make_move(move)
        assert position.key == position.compute_key(), move_to_uci(move)
        position.unmake_move()
        assert position.key == key
        assert position.fen() == fen


# --- Against python-chess -------------------------------------------------------------------
# python-chess computes Polyglot keys from scratch with its own board code, and its hasher
# takes any table of 781 numbers.  Given ours in Polyglot's layout, it computes our key,
# except that Polyglot XORs its turn number when White is to move and we XOR ours when
# Black is: the two differ by exactly SIDE_KEY.  Both include the en-passant file only when
# a pawn of the side to move stands ready to capture (legal or not).


def polyglot_layout(numbers: list[int]) -> list[int]:
    """Our 781 Zobrist numbers in Polyglot's order (kind-major, black before white)."""
    array = [0] * 781
    for index in range(12):
        kind, colour = index // 2 + 1, index % 2  # python-chess: colour 0 is black
        start = (0 if colour == chess.WHITE else 6 * 64) + (kind - 1) * 64
        array[64 * index:64 * index + 64] = numbers[start:start + 64]
    array[768:772] = numbers[769:773]
    array[772:780] = numbers[773:781]
    array[780] = numbers[768]
    return array


REFEREE_HASHER = chess.polyglot.ZobristHasher(polyglot_layout(ZOBRIST_NUMBERS))


def referee_key(board: chess.Board) -> int:
    """Our Zobrist key of `board`, computed by python-chess."""
    return REFEREE_HASHER(board) ^ SIDE_KEY


def identity(board: chess.Board) -> str:
    """What makes two positions the same for the key: the first four X-FEN fields."""
    return " ".join(board.fen(en_passant="xfen").split()[:4])


def play_both(position: Position, board: chess.Board, move: chess.Move) -> None:
    """Play the move python-chess chose on both boards."""
    position.make_move(parse_uci_move(move.uci(), legal_moves(position)))
    board.push(move)


START_FENS = [
    *PERFT_POSITIONS,
    "r3k2r/1P6/8/2pP4/8/8/6p1/R3K2R w KQkq c6 0 1",
    ILLEGAL_EN_PASSANT,
]


def test_start_position_key_matches_the_referee() -> None:
    assert Position.starting().key == referee_key(chess.Board())
    # Polyglot's own numbers give Polyglot's published key; ours differ, as they should.
    assert chess.polyglot.zobrist_hash(chess.Board()) == 0x463B96181691FC9C
    assert Position.starting().key != 0x463B96181691FC9C


@pytest.mark.parametrize("start_fen", START_FENS)
def test_incremental_key_after_every_move_and_unmake(start_fen: str) -> None:
    generator = random.Random(start_fen)
    checked = 0
    for _ in range(12):
        position = Position.from_fen(start_fen)
        board = chess.Board(start_fen)
        assert position.key == position.compute_key() == referee_key(board)
        keys = [position.key]
        while not board.is_game_over() and len(keys) <= 120:
            play_both(position, board, generator.choice(list(board.legal_moves)))
            assert position.key == position.compute_key() == referee_key(board), board.fen()
            keys.append(position.key)
            checked += 1
        while position.undo_stack:
            position.unmake_move()
            board.pop()
            keys.pop()
            assert position.key == keys[-1] == position.compute_key() == referee_key(board)
    assert checked > 100


def test_shuffled_move_orders_agree_with_python_chess() -> None:
    """Replay random openings with each side's moves shuffled: keys equal iff positions equal."""
    generator = random.Random(11)
    transpositions = 0
    for _ in range(400):
        board = chess.Board()
        for _ in range(generator.choice((4, 6, 8))):
            board.push(generator.choice(list(board.legal_moves)))
        moves = board.move_stack
        white, black = moves[0::2], moves[1::2]
        generator.shuffle(white)
        generator.shuffle(black)
        shuffled = [move for pair in zip(white, black, strict=True) for move in pair]
        other_board = chess.Board()
        other = Position.starting()
        if not all(_try_push(other, other_board, move) for move in shuffled):
            continue
        original = Position.from_fen(chess.STARTING_FEN)
        for move in moves:
            original.make_move(parse_uci_move(move.uci(), legal_moves(original)))
        same = identity(board) == identity(other_board)
        assert (original.key == other.key) == same, (board.fen(), other_board.fen())
        if same and [m.uci() for m in moves] != [m.uci() for m in shuffled]:
            transpositions += 1
    assert transpositions > 50


def _try_push(position: Position, board: chess.Board, move: chess.Move) -> bool:
    """Play `move` on both if python-chess finds it legal; return whether it was played."""
    if move not in board.legal_moves:
        return False
    play_both(position, board, move)
    return True


def test_keys_identify_positions_in_random_games() -> None:
    """Over many random positions, equal keys <=> equal positions (python-chess's view)."""
    generator = random.Random(3)
    identity_by_key: dict[int, str] = {}
    key_by_identity: dict[str, int] = {}
    for _ in range(60):
        board = chess.Board()
        position = Position.starting()
        while not board.is_game_over() and board.ply() < 80:
            play_both(position, board, generator.choice(list(board.legal_moves)))
            name = identity(board)
            assert identity_by_key.setdefault(position.key, name) == name
            assert key_by_identity.setdefault(name, position.key) == position.key
    assert len(identity_by_key) > 3000


# Repetitions.  python-chess's Board.is_repetition(count) counts the current position and
# earlier ones back to the last irreversible move, like ours.  One convention differs: it
# treats an en-passant square as part of the position only when the capture is legal, ours
# (Polyglot's) when a pawn stands ready to capture.  The comparison skips games in which the
# two disagree about some position (a pinned would-be capturer); the last test pins the
# difference down.

THIN_FENS = [
    "4k3/8/8/3q4/8/8/2N1B3/4K3 w - - 0 1",
    "8/8/4k3/8/2n5/8/4K3/2R5 b - - 0 1",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
]


@pytest.mark.parametrize("start_fen", THIN_FENS)
def test_repetition_agrees_with_python_chess(start_fen: str) -> None:
    generator = random.Random(start_fen)
    found = {2: 0, 3: 0}
    for _ in range(25):
        position = Position.from_fen(start_fen)
        board = chess.Board(start_fen)
        for _ in range(80):
            if board.fen(en_passant="xfen") != board.fen(en_passant="legal"):
                break  # the conventions differ from here on (see above)
            for count in (2, 3):
                answer = position.is_repetition(count)
                assert answer == board.is_repetition(count), (count, board.move_stack)
                found[count] += answer
            if board.is_game_over():
                break
            play_both(position, board, shuffling_move(board, generator))
    assert found[2] > 10 and found[3] > 10


def shuffling_move(board: chess.Board, generator: random.Random) -> chess.Move:
    """A random legal move, but often the one that undoes this side's previous move."""
    moves = list(board.legal_moves)
    if len(board.move_stack) >= 2 and generator.random() < 0.6:
        previous = board.move_stack[-2]
        back = chess.Move(previous.to_square, previous.from_square)
        if back in moves:
            return back
    return generator.choice(moves)


def test_repetition_convention_for_an_illegal_en_passant_capture() -> None:
    # Black's e4 pawn could take d3 en passant, but that would expose the king on a4 to the
    # queen on h4: python-chess ignores the square, the engine (like Polyglot) keeps it.
    fen = ILLEGAL_EN_PASSANT
    position, board = Position.from_fen(fen), chess.Board(fen)
    for text in ("a4a3", "h4h5", "a3a4", "h5h4"):
        play_both(position, board, chess.Move.from_uci(text))
    assert board.is_repetition(2)
    assert not position.is_repetition(2)
    assert position.key == Position.from_fen(fen.replace(" d3 ", " - ")).key


def test_repetition_looks_back_no_further_than_the_halfmove_clock() -> None:
    # A position given by FEN has no history: nothing before it can repeat.
    position = Position.from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 40 60")
    assert not position.is_repetition(2)
    play(position, "a1a2", "e8d8", "a2a1", "d8e8")
    assert position.is_repetition(2) and not position.is_repetition(3)
