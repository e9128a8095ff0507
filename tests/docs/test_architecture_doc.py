"""ARCHITECTURE.md stays true: every file it names exists, and every `path: name` it points to is defined there."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

DOC = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
# a repository path in backticks: a known top folder, then a path (placeholders like NAME and DIR are not paths)
PATHS = sorted(
    set(re.findall(r"`((?:engine|scanner|rules|rofl|adapters|servers|tests|bench|examples)/[a-z0-9_/.*]*)", DOC))
)
POINTERS = sorted(set(re.findall(r"`([a-z_/]+\.py): ([A-Za-z_]+)`", DOC)))
TABLES = sorted(set(re.findall(r"`([A-Z_]+)` (?:of|in) `([a-z_/]+\.py)`", DOC)))


def test_the_doc_names_files():
    assert len(PATHS) > 40 and len(POINTERS) >= 4 and len(TABLES) >= 3


@pytest.mark.parametrize("path", PATHS)
def test_every_named_path_exists(path):
    assert list(ROOT.glob(path)), f"ARCHITECTURE.md names {path}, which does not exist"


@pytest.mark.parametrize("path, name", POINTERS + [(p, n) for n, p in TABLES])
def test_every_named_definition_is_there(path, name):
    source = (ROOT / path).read_text(encoding="utf-8")
    assert re.search(rf"^(?:def|class) {name}\b|^{name}\b[^=\n]*=", source, re.M), f"{name} is not defined in {path}"
