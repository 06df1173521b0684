"""Fixtures shared by the test modules (the pytest plugins of the book are in ../conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from command_loop import Conversation


@pytest.fixture
def gui() -> Iterator[Conversation]:
    """The command loop in UCI mode (after `uci` and its `uciok`), on a thread of its own."""
    # Imported here, not above: pytest loads this file before ../conftest.py has put the
    # engine under test (--stage, --engine) on sys.path, and cb2026 must come from there.
    from command_loop import Conversation

    conversation = Conversation()
    conversation.send("uci")
    conversation.read_until("uciok")
    yield conversation
    conversation.close()
