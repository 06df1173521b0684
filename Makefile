# Two commands for a newcomer: `make book` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: book test tangle check tags compiled bench-perft bench-search saves elo opponents lint clean

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

compiled: $(STAMP)  ## the engine compiled by mypyc into build/compiled/: make compiled [STAGE=...]
	$(BIN)/python tools/compile_engine.py $(STAGE)

# The measuring targets take ARGS: --wait (for the lock and a quiet machine) or --allow-load.
bench-perft: $(STAMP)  ## perft speed of cb2026, interpreted and compiled, against python-chess
	$(BIN)/python tools/bench_perft.py $(ARGS)

# Sunfish (PyPI) pins an old python-chess; install it without its dependencies.
opponents: $(STAMP)  ## Sunfish for benchmarks and matches; Stockfish comes from apt
	$(BIN)/python -m pip install --quiet --no-deps sunfish
	@command -v stockfish >/dev/null || test -x /usr/games/stockfish || echo "for matches against Stockfish: apt-get install stockfish"

bench-search: opponents  ## search speed of cb2026, interpreted and compiled, against Sunfish
	$(BIN)/python tools/bench_search.py $(ARGS)

saves: $(STAMP)  ## a chapter's "What it saves" table: make saves STAGE=... EXPERIMENT=... DEPTH=...
	$(BIN)/python tools/measure_techniques.py $(STAGE) $(EXPERIMENT) $(DEPTH) $(ARGS)

elo: opponents  ## a chapter's "What it's worth" matches: make elo STAGE=stage-08-tt [GAMES=100]
	$(BIN)/python tools/elo_matches.py $(STAGE) $(if $(GAMES),--games $(GAMES)) $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf book/_build build
