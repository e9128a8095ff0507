# Two commands set up everything on a fresh machine: `make scan` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: install scan lint oracles test test-all bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

# a new top-level package (its __init__.py) needs the editable install to map it: reinstall then too
$(STAMP): pyproject.toml $(wildcard */__init__.py) | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

scan: $(STAMP)
	$(BIN)/rofl scan examples/shop --out facts/generated
	$(BIN)/rofl impact --facts facts/generated --changed src/domain/money.ts

# `make test` leaves out the full-size cases marked `slow`; `make test-all` runs everything.
# lint (CPU) and the oracles' install (network) run side by side, then the suite
test: $(STAMP)
	$(MAKE) -j2 lint oracles
	$(BIN)/python -m pytest -n 2 --dist worksteal -m "not slow" tests

# Lint and format are checked, never rewritten, in CI; types are checked by mypy ([tool.mypy] in pyproject).
# mypy names a module after its path, so it reads the one import namespace through a folder of links:
# rofl/<its own modules> plus rofl/engine -> engine/, rofl/scanner -> scanner/, ... (as pyproject's package-dir maps them).
MAPPED := engine scanner rules adapters servers
TYPED := build/typecheck
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	rm -rf $(TYPED) && mkdir -p $(TYPED)/rofl
	for entry in rofl/*.py rofl/commands rofl/formats $(MAPPED); do ln -s "$(CURDIR)/$$entry" $(TYPED)/rofl/; done
	$(BIN)/mypy $(TYPED)/rofl

# The Node tools the differential tests compare with (madge, dependency-cruiser, TypeScript), installed
# once into bench/.cache; best effort: without npm or the registry those tests skip and say so.
oracles:
	-@$(PY) bench/corpora.py --oracles

test-all: $(STAMP) lint oracles
	ROFL_HYPOTHESIS=full $(BIN)/python -m pytest -n 2 tests

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache facts/generated build *.egg-info
