"""The test positions of the Chess Programming Wiki's "Perft Results" page, for older imports.

They are typed once, in tools/positions.py with the book's other named positions (the
`pythonpath` setting of pyproject.toml puts tools/ on sys.path), and the book's tests import
them from there. This module passes them on, so that a test written against it still runs.
"""

from positions import KIWIPETE, PERFT_POSITIONS, POSITION_3, POSITION_4, POSITION_5

__all__ = ["KIWIPETE", "PERFT_POSITIONS", "POSITION_3", "POSITION_4", "POSITION_5"]
