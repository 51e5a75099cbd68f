# predigest: `make` prints the targets.
PY      ?= python3
SHELL   := /bin/bash
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
DEMO_DATE ?= 2026-10-09

# Python keeps compiled modules (__pycache__, ignored by git) even where the environment asks it
# not to, as the CI machine's does: a test run starts dozens of Python processes (xdist workers,
# flow runs, lanes, `predigest` commands), each of which otherwise compiles the project from source,
# and pytest rewrites every test module's asserts again in each worker.
unexport PYTHONDONTWRITEBYTECODE

.DEFAULT_GOAL := help
.PHONY: help install demo browser test test-server test-embedded test-database score score-baseline lint format clean

help: ## show the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  make %-15s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	@touch $(STAMP)

install: $(STAMP) ## create .venv and install predigest with its dev tools

demo: $(STAMP) ## brief the sample workspace and print where it went (`predigest down` stops its database)
	$(BIN)/predigest run --workspace examples/workspace --date $(DEMO_DATE) --topic inference

# The labelled evenings `make score` briefs and scores: workspace, labels, committed baseline.
SCORED := examples/workspace:tests/fixtures/expected:benchmarks/quality/corpus.json \
          tests/fixtures/corpus2/workspace:tests/fixtures/corpus2/expected:benchmarks/quality/corpus2.json \
          tests/fixtures/heldout/workspace:tests/fixtures/heldout/expected:benchmarks/quality/heldout.json \
          tests/fixtures/heldout2/workspace:tests/fixtures/heldout2/expected:benchmarks/quality/heldout2.json \
          tests/fixtures/heldout3/workspace:tests/fixtures/heldout3/expected:benchmarks/quality/heldout3.json

score: $(STAMP) ## score the labelled evenings; fails if any figure falls below benchmarks/quality/*.json
	@set -e; for set in $(SCORED); do IFS=: read -r ws exp base <<< "$$set"; \
	  echo "== predigest score --workspace $$ws --expected $$exp --baseline $$base"; \
	  $(BIN)/predigest score --workspace $$ws --expected $$exp --baseline $$base; done

score-baseline: $(STAMP) ## write benchmarks/quality/*.json from today's figures (a change that raises a figure commits it)
	@set -e; mkdir -p benchmarks/quality; for set in $(SCORED); do IFS=: read -r ws exp base <<< "$$set"; \
	  $(BIN)/predigest score --workspace $$ws --expected $$exp --write-baseline $$base | tail -n 2; done

# TEST_WORKERS pytest-xdist workers (four on two cores: tests wait on servers and processes), each a session of its own (own databases, Prefect API, servers); a module
# stays on one worker (loadfile), so its module-scoped setup runs once. Modules go out in the order
# tests/conftest.py gives them (costliest first), not xdist's (most tests first). Progress is a line
# of dots per 72 tests; failures, errors and skips are listed at the end, then the ten slowest.
TEST_WORKERS ?= 4
PYTEST_ARGS  ?=
PYTEST       := $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -q -rfEs --durations=10 $(PYTEST_ARGS)
# The last line of a run whose page tests found no Chromium: how many did not run, and what adds them
# (tests/conftest.py counts them into pytest's cache).
BROWSER_NOTE = n=$$(cat .pytest_cache/v/predigest/browser_skips 2>/dev/null || echo 0); [ "$$n" = 0 ] || \
  echo "$$n browser checks did not run (no Chromium on PATH): apt-get install chromium fonts-wqy-zenhei fonts-noto-color-emoji adds them"
RUN_TESTS    = rc=0; $(PYTEST) || rc=$$?; $(BROWSER_NOTE); exit $$rc

browser: ## install headless Chromium and CJK fonts for the page tests, when this is root with apt (else nothing)
	@if ! command -v chromium >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium and CJK fonts for the page tests (apt-get)"; \
	  apt-get update -qq && apt-get install -y -qq chromium fonts-wqy-zenhei fonts-noto-color-emoji >/dev/null; fi

test: $(STAMP) browser ## run the test suite (PREDIGEST_TEST_DATABASE_URL picks a server, else embedded PostgreSQL; PYTEST_ARGS adds options)
	@$(RUN_TESTS)

test-server: $(STAMP) browser ## run the tests against the PostgreSQL at 127.0.0.1:5432 (database test)
	@PREDIGEST_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test; export PREDIGEST_TEST_DATABASE_URL; $(RUN_TESTS)

test-embedded: $(STAMP) browser ## run the tests against an embedded PostgreSQL (pgserver)
	@PREDIGEST_TEST_DATABASE_URL=; export PREDIGEST_TEST_DATABASE_URL; $(RUN_TESTS)

test-database: $(STAMP) ## only the tests that use the database (marked `database` by their fixtures), on an embedded PostgreSQL
	PREDIGEST_TEST_DATABASE_URL= $(PYTEST) -m database

.PHONY: screenshot
CHROMIUM ?= chromium
SHOT_STORE := $(CURDIR)/.predigest/screenshot
SHOT = $(CHROMIUM) --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1
screenshot: $(STAMP) ## brief the sample's four evenings, then shoot a page at 1280 and 390 px and the topic's chart into docs/
	PREDIGEST_STORAGE_URL=file://$(SHOT_STORE) $(BIN)/predigest backfill --workspace examples/workspace \
	  --from 2026-10-06 --to $(DEMO_DATE) --topic inference
	@rm -f docs/screenshot.png docs/screenshot-390.png docs/chart.png
	$(SHOT) --window-size=1280,1600 --screenshot=$(CURDIR)/docs/screenshot.png \
	  file://$(SHOT_STORE)/briefings/inference/$(DEMO_DATE).html 2>/dev/null
	$(SHOT) --window-size=390,1600 --screenshot=$(CURDIR)/docs/screenshot-390.png \
	  file://$(SHOT_STORE)/briefings/inference/$(DEMO_DATE).html 2>/dev/null
	$(SHOT) --window-size=1280,560 --screenshot=$(CURDIR)/docs/chart.png \
	  file://$(SHOT_STORE)/briefings/inference/index.html 2>/dev/null
	@for f in screenshot screenshot-390 chart; do test -s docs/$$f.png || exit 1; done
	@echo "docs/screenshot.png, docs/screenshot-390.png: the $(DEMO_DATE) page of the sample at 1280 and 390 px; docs/chart.png: its topic index"

.PHONY: bench
bench: $(STAMP) ## run the benchmarks (~9 min; PREDIGEST_BENCH_DATABASE_URL picks a server, else embedded PostgreSQL)
	$(BIN)/python -m benchmarks

.PHONY: bench-profile
bench-profile: $(STAMP) ## the benchmarks again, each timed part profiled with py-spy into prof/ (installs py-spy)
	$(BIN)/pip install -q -e ".[bench]"
	$(BIN)/python -m benchmarks --profile prof

lint: $(STAMP) ## ruff and mypy
	$(BIN)/ruff check .
	$(BIN)/mypy predigest db tasks flows benchmarks

format: $(STAMP) ## ruff format and import sorting
	$(BIN)/ruff check --fix --select I .
	$(BIN)/ruff format .

clean: ## stop what runs from ./.predigest (Prefect stack, embedded PostgreSQL), then remove it, the venv and caches
	@if [ -x $(BIN)/predigest ]; then PREDIGEST_HOME=.predigest $(BIN)/predigest down; \
	elif [ -f .predigest/pg/postmaster.pid ]; then kill -INT "$$(head -n 1 .predigest/pg/postmaster.pid)" 2>/dev/null || true; sleep 2; fi
	rm -rf .predigest $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
