# Two commands set up everything on a fresh machine: `make scan` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: install scan lint oracles browser test test-all bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

# a new top-level package (its __init__.py) needs the editable install to map it: reinstall then too
$(STAMP): pyproject.toml $(wildcard */__init__.py) | $(BIN)/python
	$(BIN)/python -m pip install -q --no-compile -e '.[dev]'  # no byte-compiling: modules compile when first imported
	touch $(STAMP)

install: $(STAMP)

scan: $(STAMP)
	$(BIN)/rofl scan examples/shop --out facts/generated
	$(BIN)/rofl impact --facts facts/generated --changed src/domain/money.ts

# `make test` leaves out the full-size cases marked `slow`; `make test-all` runs everything.
# Debian's chromium installs in the background (minutes on a fresh machine) while lint (CPU), the oracles'
# install (network) and the suite run; the browser tests run last, once it is there, from their own modules.  pytest's exit 5 (no
# test selected) is not a failure.
BROWSER_LOG := build/browser-install.log
# the browser tests live in modules named *_browser.py (tests/packaging/test_browser_modules.py holds it), so their
# run collects only those instead of the whole tree again (collection alone takes about 15 s)
BROWSER_TESTS := $(wildcard tests/*/test_*_browser.py)
test: $(STAMP)
	@mkdir -p build && rm -f $(BROWSER_LOG).done && ($(MAKE) -s browser > $(BROWSER_LOG) 2>&1; touch $(BROWSER_LOG).done) &
	$(MAKE) -j2 lint oracles
	$(BIN)/python -m pytest -n 2 --dist worksteal -m "not slow and not browser" tests
	@i=0; while [ ! -f $(BROWSER_LOG).done ] && [ $$i -lt 600 ]; do sleep 1; i=$$((i+1)); done; cat $(BROWSER_LOG)
	$(BIN)/python -m pytest -n 2 -m "browser and not slow" $(BROWSER_TESTS) || [ $$? -eq 5 ]

# Lint and format are checked, never rewritten, in CI; types are checked by mypy ([tool.mypy] in pyproject).
# mypy names a module after its path, so it reads the one import namespace through a folder of links:
# rofl/<its own modules> plus rofl/engine -> engine/, rofl/scanner -> scanner/, ... (as pyproject's package-dir maps them).
MAPPED := engine scanner rules adapters servers
TYPED := build/typecheck
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	rm -rf $(TYPED) && mkdir -p $(TYPED)/rofl
	for entry in rofl/*.py $$(ls -d rofl/*/ | grep -v __pycache__) $(MAPPED); do ln -s "$(CURDIR)/$${entry%/}" $(TYPED)/rofl/; done
	$(BIN)/mypy $(TYPED)/rofl

# The Node tools the differential tests compare with (madge, dependency-cruiser, TypeScript), installed
# once into bench/.cache; best effort: without npm or the registry those tests skip and say so.
oracles:
	-@$(PY) bench/corpora.py --oracles

# Headless Chromium and its driver from Debian's packages for the browser tests (the report, the render
# workbench; marked `browser`); best effort: installed only when missing and apt is usable (root), else
# those tests skip and say why.  About 2.5 minutes on a fresh Debian 12 image.
browser:
	-@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  (apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null 2>&1 || \
	   (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null 2>&1)) || \
	  echo "make browser: could not install chromium; the report's browser tests will skip"; \
	else echo "make browser: no chromium and no usable apt; the report's browser tests will skip"; fi

test-all: $(STAMP) lint oracles browser
	ROFL_HYPOTHESIS=full $(BIN)/python -m pytest -n 2 tests

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache facts/generated build *.egg-info
