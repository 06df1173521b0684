"""The test positions of the Chess Programming Wiki's "Perft Results" page, shared by the tests.

Many tests start from these positions: together they hold every kind of move (castling
both ways, en passant, promotions with and without capture, pins and checks). They are
typed once, in tools/positions.py with the book's other named positions (the `pythonpath`
setting of pyproject.toml puts tools/ on sys.path); this module passes them on, so that
tests can keep importing them from here.
"""

from positions import KIWIPETE, PERFT_POSITIONS, POSITION_3, POSITION_4, POSITION_5

__all__ = ["KIWIPETE", "PERFT_POSITIONS", "POSITION_3", "POSITION_4", "POSITION_5"]
