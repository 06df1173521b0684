"""The book's named positions, each typed once: the chapters, the tools and the tests import them.

A chapter imports them as it imports the other tools (book/chapters/bookstage.py puts tools/
on sys.path): `from positions import KIWIPETE`. The tests find this folder through the
`pythonpath` setting of pyproject.toml, and a tool puts it on sys.path itself (as
tools/bench_search.py does).

SEARCH_POSITIONS are the six positions on which the book measures its search (the tables of
chapters 5 to 8.1). Their names and FENs are stored with those measurements under book/data,
so neither may change until the measurements are taken again.
"""

import chess

# The starting position (python-chess's constant); "start" in the book's tables.
START = chess.STARTING_FEN

# The Chess Programming Wiki's "Perft Results" page
# (https://www.chessprogramming.org/Perft_Results): positions 2 to 6, with node counts
# confirmed by several engines (chapter 3). Position 2 is "Kiwipete", by Peter McKenzie:
# castling both ways, pins, captures, en passant. Its h3 pawn is black; copies with a white
# one circulate (chapter 3 shows what that does to the counts).
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# Rooks and pawns, with en-passant captures that would uncover a check along the rank. The
# search tables call it "endgame" (SEARCH_POSITIONS), the perft benchmark "cpw-3".
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
# Promotions on both sides, with castling and checks.
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
# A white pawn on d7 that can only promote by capturing.
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
# A quiet, nearly symmetrical middlegame with both kings castled.
POSITION_6 = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"
# Positions 1 to 5 of that page, in its order (the starting position is the first): between
# them every kind of move (castling both ways, en passant, promotions with and without a
# capture, pins and checks). The random games of chapters 1 and 3 start from them.
PERFT_POSITIONS = [START, KIWIPETE, POSITION_3, POSITION_4, POSITION_5]

# After 1. e4 e5 2. Qh5 Nc6 3. Bc4 g6, White to move: Black's last move attacks the queen
# with a pawn (chapter 5 builds the position from the moves).
QH5_TRAP = "r1bqkbnr/pppp1p1p/2n3p1/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 0 4"
# The Scandinavian Defence after 1. e4 d5 2. exd5 Qxd5 3. Nc3, Black to move: the knight
# attacks the queen (chapter 6 opens with it).
SCANDINAVIAN = "rnb1kbnr/ppp1pppp/8/3q4/8/2N5/PPPP1PPP/R1BQKBNR b KQkq - 1 3"
# The Italian game after 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 (chapter 5 checks the moves).
ITALIAN = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
# Not a balanced middlegame: White is a bishop up (Black's light-squared bishop is missing).
# The stored measurements of chapters 5 to 8.1 were taken on it, so it keeps its FEN until
# they are taken again on a balanced replacement.
MIDDLEGAME = "r2q1rk1/pp2bppp/2n1pn2/3p4/3P1B2/2PB1N2/PP1N1PPP/R2Q1RK1 w - - 0 10"
# A rook ending, Black to move: rook, two pawns and king each.
ROOK_ENDING = "8/5pk1/6p1/8/3R4/6P1/5PK1/1r6 b - - 0 40"

# The search positions, under the names their stored measurements use.
SEARCH_POSITIONS = {
    "start": START,
    "kiwipete": KIWIPETE,
    "italian": ITALIAN,
    "middlegame": MIDDLEGAME,
    "endgame": POSITION_3,
    "rook ending": ROOK_ENDING,
}

# Small positions, each showing one rule, that the chapters and the tests share.
# The black bishop on a6 attacks f1: White holds both castling rights but may not castle
# short (chapter 2).
CASTLING_THROUGH_CHECK = "r3k2r/8/b7/8/8/8/8/R3K2R w KQkq - 0 1"
# The rook on e7 gives check: White holds both castling rights but may use neither (chapter 2).
CASTLING_OUT_OF_CHECK = "4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1"
# After 1. e4 e5 2. Nc3 Nc6 3. d3 Bb4: the knight on c3 is pinned to its king (chapter 3).
PINNED = "r1bqk1nr/pppp1ppp/2n5/4p3/1b2P3/2NP4/PPP2PPP/R1BQKBNR w KQkq - 1 4"
# White's d5 pawn may not take on c6 en passant: both pawns would leave the fifth rank, and
# the rook on h5 would give check to the king on a5 (chapter 3).
EN_PASSANT_RANK = "8/8/8/K1pP3r/8/8/8/7k w - c6 0 1"
# The same rule for Black: the e4 pawn may not take on d3 en passant, which would open the
# fourth rank between the queen on h4 and the king on a4 (chapters 1 and 4).
ILLEGAL_EN_PASSANT = "8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1"
# The kings and a pawn each: White's e5 pawn can take on d6 en passant.
EN_PASSANT_PAWNS = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"
# Black, to move, has no legal move and is not in check.
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
# White mates on the back rank with Rd8; MATED is the position after it.
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/3R2K1 w - - 0 1"
MATED = "3R2k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"
# White, with king and rook, mates in two (chapter 5); the same position mirrored left to
# right (chapter 7 and the UCI tests).
MATE_IN_TWO = "7k/8/5K2/8/8/8/8/R7 w - - 0 1"
MATE_IN_TWO_MIRRORED = "k7/8/2K5/8/8/8/8/7R w - - 0 1"
# White, with king and rook, mates in three (chapter 8).
MATE_IN_THREE = "8/8/8/4R3/3K4/k7/8/8 w - - 0 1"
# Qxf7 stalemates Black, Kxf7 keeps the win (chapter 5).
STALEMATE_TRAP = "7k/5n2/6K1/8/8/8/8/5Q2 w - - 0 1"
# The trebuchet, a mutual zugzwang: each king attacks the other side's pawn and guards its
# own, so whichever side is to move must step away and lose its pawn (chapter 10).
TREBUCHET = "8/8/8/3pK3/2kP4/8/8/8 w - - 0 1"
# A pawn race, White to move: Stockfish finds a forced mate against Kb5 and none against d5;
# the null move without the pawn-ending guard plays Kb5 at depths 5 to 8 (chapter 10).
PAWN_RACE = "8/8/K7/6p1/p2P3p/8/P7/1k6 w - - 0 1"

# Positions from "Win at Chess" (WAC), Fred Reinfeld's 300 tactical exercises (1958), as the
# EPD test suite that engine authors use (the Chess Programming Wiki's page "Win at Chess"):
# by the suite's id, the FEN (the EPD's four fields, then "0 1") and the solutions ("bm",
# in SAN). Chapter 14 takes the first ten as a small tactical set, in the suite's order,
# and two more for its demonstrations.
WIN_AT_CHESS = {
    "WAC.001": ("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", ["Qg6"]),
    "WAC.002": ("8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1", ["Rxb2"]),
    "WAC.003": ("5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1", ["Rg3"]),
    "WAC.004": ("r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1", ["Qxh7+"]),
    "WAC.005": ("5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1", ["Qc4+"]),
    "WAC.006": ("7k/p7/1R5K/6r1/6p1/6P1/8/8 w - - 0 1", ["Rb7"]),
    "WAC.007": ("rnbqkb1r/pppp1ppp/8/4P3/6n1/7P/PPPNPPP1/R1BQKBNR b KQkq - 0 1", ["Ne3"]),
    "WAC.008": ("r4q1k/p2bR1rp/2p2Q1N/5p2/5p2/2P5/PP3PPP/R5K1 w - - 0 1", ["Rf7"]),
    "WAC.009": ("3q1rk1/p4pp1/2pb3p/3p4/6Pr/1PNQ4/P1PB1PP1/4RRK1 b - - 0 1", ["Bh2+"]),
    "WAC.010": ("2br2k1/2q3rn/p2NppQ1/2p1P3/Pp5R/4P3/1P3PPP/3R2K1 w - - 0 1", ["Rxh7"]),
    # White mates in three, starting with a rook sacrifice: Rxh6+.
    "WAC.143": ("5b2/pp2r1pk/2pp1pRp/4rP1N/2P1P3/1P4QP/P3q1P1/5R1K w - - 0 1", ["Rxh6+"]),
    # Queens and rooks, both kings in the open: checks for both sides.
    "WAC.058": ("8/8/2R5/1p2qp1k/1P2r3/2PQ2P1/5K2/8 w - - 0 1", ["Qd1+"]),
}
