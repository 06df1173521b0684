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
# capture, pins and checks). The random games of chapters 1 to 3 start from them.
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
