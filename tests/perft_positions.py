"""The test positions of the Chess Programming Wiki's "Perft Results" page, shared by the tests.

Many tests start from these positions: together they hold every kind of move (castling
both ways, en passant, promotions with and without capture, pins and checks).
"""

import chess

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
# Positions 1 to 5 of the page, in its order: the starting position is the first.
PERFT_POSITIONS = [chess.STARTING_FEN, KIWIPETE, POSITION_3, POSITION_4, POSITION_5]
