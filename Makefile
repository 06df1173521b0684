# Two commands for a newcomer: `make book` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The exact versions of every package installed (README: "Refreshing the lock").
LOCK := requirements/constraints.txt
# pip itself is not in the lock; it is pinned here (--build-constraint needs pip 25.3 or newer).
PIP_VERSION := 26.3
UV_VERSION := 0.13.9
# The anchors of `make strength`, in order: the chart's scale first (tools/strength_by_stage.py).
STRENGTH_ANCHORS ?= sunfish stockfish-1800
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml $(LOCK) | cksum | cut -d' ' -f1)
# Debian and Ubuntu ship `venv` without ensurepip unless their python3-venv package is installed.
VENV_HELP := could not create $(VENV) with '$(PYTHON) -m venv'. On Debian or Ubuntu install the venv package (sudo apt-get install python3-venv, or python3.X-venv for Python 3.X), remove $(VENV) and run make again.

.PHONY: book test test-stages tangle check tags ensure-tags lock compiled bench-perft bench-search bench-speed saves elo strength opponents lint clean

$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "cb2026 needs Python 3.11 or newer")'
	@$(PYTHON) -m venv $(VENV) && test -x $(BIN)/pip || { echo "error: $(VENV_HELP)" >&2; exit 1; }
	$(BIN)/python -m pip install --quiet 'pip==$(PIP_VERSION)'
	$(BIN)/python -m pip install --quiet -c $(LOCK) --build-constraint $(LOCK) -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $@

# A clone without the stage tags gets them; tags that exist are checked against the book.
ensure-tags: $(STAMP)
	PYTHONPATH=tools $(BIN)/python -m literate tags --ensure

# A failed build repeats its warnings, and the traceback of any notebook that failed, at the end
# of its output: a log that shows only its last lines (CI's) then still shows the cause.
# After the build, a check that every page loads MathJax from the book itself (offline), not a CDN.
BOOK_LOG := build/book.log
book: $(STAMP) ensure-tags  ## build the HTML book into book/_build/html (warnings are errors)
	@mkdir -p build && rm -rf book/_build/html/reports
	{ $(BIN)/jupyter-book build --all -W -n --keep-going book/; echo $$? > $(BOOK_LOG).status; } 2>&1 | tee $(BOOK_LOG)
	@if [ "$$(cat $(BOOK_LOG).status)" != 0 ]; then \
	  echo "== the book's build failed; its warnings and errors:"; \
	  grep -E "WARNING|ERROR|Error" $(BOOK_LOG) | grep -v IPKernelApp; \
	  for report in $$(find book/_build/html/reports -name '*.err.log' 2>/dev/null); do \
	    echo "== $$report"; tail -n 40 "$$report"; \
	  done; \
	  exit 1; \
	fi
	$(BIN)/python tools/check_offline_math.py book/_build/html

# The test files are spread over every core (pytest-xdist), a whole file to a worker, so that a
# chapter's cells still run in order in one kernel and a file's tests in the order written.
# The slow tests of the book's own tooling (compiler builds, wheels, tags, real matches) are
# left to test-stages, which keeps this the command to run after every change.
test: $(STAMP) ensure-tags  ## every engine test, every chapter under nbval, the tooling's quick tests
	$(BIN)/python -m pytest -n auto --dist loadfile -m "not (slow and tooling)"

# Each snapshot is one long test, as are the slow tooling tests: the workers take them one at a
# time and steal from each other, so that both finish together.
test-stages: $(STAMP) ensure-tags  ## every stage's snapshot against its engine tests, and the tooling's slow tests (CI runs it)
	$(BIN)/python -m pytest --snapshots=all -m "slow and tooling" -n auto --dist worksteal

tangle: $(STAMP)  ## regenerate src/cb2026 from the chapters
	PYTHONPATH=tools $(BIN)/python -m literate tangle

check: $(STAMP)  ## fail if src/cb2026 and the chapters disagree
	PYTHONPATH=tools $(BIN)/python -m literate check

tags: $(STAMP)  ## (re)create the stage-NN-... tags from the book
	PYTHONPATH=tools $(BIN)/python -m literate tags

# Needs the network; uv resolves for Python 3.11 on Linux whatever runs it.
lock:  ## re-resolve requirements/constraints.txt from pyproject.toml (newest versions allowed)
	$(PYTHON) -m venv build/lock-tools
	build/lock-tools/bin/python -m pip install --quiet 'uv==$(UV_VERSION)'
	build/lock-tools/bin/uv pip compile pyproject.toml --extra test --extra cluster \
	    --python-version 3.11 --python-platform linux --upgrade --output-file $(LOCK)

compiled: $(STAMP)  ## the engine compiled by mypyc into build/compiled/: make compiled [STAGE=...]
	$(BIN)/python tools/compile_engine.py $(STAGE)

# The measuring targets take ARGS: --wait (for the lock and a quiet machine) or --allow-load.
bench-perft: $(STAMP)  ## perft speed of cb2026, interpreted and compiled, against python-chess
	$(BIN)/python tools/bench_perft.py $(ARGS)

# Sunfish (PyPI) pins an old python-chess; install it without its dependencies. Its version is
# pinned too: it is the anchor of the introduction's chart, whose data record the version that
# played (book/intro.md checks the two agree), and a new version would start the chart afresh.
opponents: $(STAMP)  ## Sunfish for benchmarks and matches; Stockfish and GNU Chess come from apt
	$(BIN)/python -m pip install --quiet --no-deps 'sunfish==2026.1'
	@command -v stockfish >/dev/null || test -x /usr/games/stockfish || echo "for matches against Stockfish: apt-get install stockfish"
	@command -v gnuchess >/dev/null || test -x /usr/games/gnuchess || echo "for chapter 18's ladder against GNU Chess: apt-get install gnuchess"

bench-search: opponents  ## search speed of cb2026, interpreted and compiled, against Sunfish
	$(BIN)/python tools/bench_search.py $(ARGS)

# Chapter 17's table: run it with ARGS=--wait, so that it waits for the lock and a quiet machine.
bench-speed: opponents  ## speed of the stage-17 engine, pure and compiled, against Sunfish and python-chess
	$(BIN)/python tools/measure_speed.py $(ARGS)

saves: $(STAMP)  ## a chapter's "What it saves" table: make saves STAGE=... EXPERIMENT=... DEPTH=...
	$(BIN)/python tools/measure_techniques.py $(STAGE) $(EXPERIMENT) $(DEPTH) $(ARGS)

elo: opponents  ## a chapter's "What it's worth" matches: make elo STAGE=stage-08-tt [GAMES=100]
	$(BIN)/python tools/elo_matches.py $(STAGE) $(if $(GAMES),--games $(GAMES)) $(ARGS)

strength: opponents  ## the introduction's chart at 5+0.05: stages 7-8.1 against Sunfish, 7 on against Stockfish UCI_Elo 1800 [STRENGTH_ANCHORS="sunfish stockfish-1800"; GAMES=300, stage 7 400 against Sunfish]
	for anchor in $(STRENGTH_ANCHORS); do \
	  $(BIN)/python tools/strength_by_stage.py --anchor $$anchor $(if $(GAMES),--games $(GAMES)) $(ARGS) || exit 1; \
	done

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf book/_build build
