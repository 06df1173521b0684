"""The six positions on which the book measures its search (tables of chapters 5 to 8.1).

"middlegame" is not a balanced middlegame: White is a bishop up (Black's light-squared
bishop is missing). The stored measurements of chapters 5 to 8.1 were taken on it, so it
keeps its key and its FEN until they are taken again on a balanced replacement.
"""

SEARCH_POSITIONS = {
    "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "italian": "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    # White a bishop up: see the module's docstring.
    "middlegame": "r2q1rk1/pp2bppp/2n1pn2/3p4/3P1B2/2PB1N2/PP1N1PPP/R2Q1RK1 w - - 0 10",
    "endgame": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rook ending": "8/5pk1/6p1/8/3R4/6P1/5PK1/1r6 b - - 0 40",
}
