# Two commands for a newcomer: `make book` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: book test tangle check tags snapshot bench-perft lint clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "cb2026 needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $@

book: $(STAMP)  ## build the HTML book into book/_build/html (warnings are errors)
	$(BIN)/jupyter-book build --all -W -n --keep-going book/

test: $(STAMP)  ## the whole test suite: engine tests, tools, every chapter under nbval
	$(BIN)/python -m pytest

tangle: $(STAMP)  ## regenerate src/cb2026 from the chapters
	PYTHONPATH=tools $(BIN)/python -m literate tangle

check: $(STAMP)  ## fail if src/cb2026 and the chapters disagree
	PYTHONPATH=tools $(BIN)/python -m literate check

tags: $(STAMP)  ## (re)create the stage-NN-... tags from the book
	PYTHONPATH=tools $(BIN)/python -m literate tags

bench-perft: $(STAMP)  ## perft speed of cb2026 against python-chess, same positions
	$(BIN)/python tools/bench_perft.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf book/_build build
