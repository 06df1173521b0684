"""The book's local Sphinx extensions (book/_ext), loaded as modules for the tests."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from literate.book import repository_root

EXTENSIONS = repository_root(Path(__file__)) / "book" / "_ext"


def load_book_extension(name: str) -> ModuleType:
    """Import the extension `name` from book/_ext without leaving that folder on sys.path."""
    sys.path.insert(0, str(EXTENSIONS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)
