"""Fixtures of the command-line tests: a tiny scanned tree shared per module, and a private copy of its facts."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """``(src, facts)``: a two-file TS tree (a.ts imports b.ts) scanned once; not inside a git repo."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("tiny")
    src = root / "src"
    src.mkdir()
    (src / "a.ts").write_text('import { x } from "./b";\nexport const y = x + 1;\n')
    (src / "b.ts").write_text("export const x = 2;\n")
    facts = root / "facts"
    result = CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return src, facts


@pytest.fixture
def facts_copy(tiny, tmp_path):
    """A private copy of the tiny scan's fact folder (without its compiled cache)."""
    dst = tmp_path / "facts"
    shutil.copytree(tiny[1], dst, ignore=shutil.ignore_patterns(".rofl-store.cache"))
    return dst
