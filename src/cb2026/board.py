# Generated from the book by tools/literate, from chapters stage-01-board.
# Do not edit: change the chapters and run `make tangle`.

"""The board."""

from __future__ import annotations

Square = int


class Position:
    """A position."""

    def __init__(self) -> None:
        self.board = [0] * 64

    def count(self) -> int:
        """Pieces on the board."""
        # why
        return len([piece for piece in self.board if piece])
