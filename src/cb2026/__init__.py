# Generated from the book by tools/literate, from chapters stage-01-board.
# Do not edit: change the chapters and run `make tangle`.

"""cb2026: a pure-Python UCI chess engine, written to be read as a book."""
