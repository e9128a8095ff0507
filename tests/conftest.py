"""Shared fixtures: a booted kernel, paths to the repository's rules and examples, a CLI runner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests that name no example count run 40 examples in `make test` and hypothesis's 100 in
# `make test-all` (ROFL_HYPOTHESIS=full); tests that name their count keep it in both.
settings.register_profile("quick", max_examples=40)
settings.register_profile("full", max_examples=100)
settings.load_profile(os.environ.get("ROFL_HYPOTHESIS", "quick"))

ROOT = Path(__file__).resolve().parent.parent
BOOT = ROOT / "rules" / "boot.rofl"
EXAMPLES = ROOT / "examples"


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    """Write ``files`` (path relative to ``root`` -> text or bytes) under ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@pytest.fixture
def kernel():
    from rofl.engine.kernel import Kernel

    return Kernel(BOOT)


@pytest.fixture
def rofl():
    """Invoke the `rofl` command in-process: returns (exit_code, stdout, stderr)."""
    from click.testing import CliRunner

    from rofl.cli import main

    def run(*args: str, input: str | None = None):
        runner = CliRunner()
        result = runner.invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    return run


@pytest.fixture(autouse=True)
def _quiet_logs():
    """Each test starts with rofl's loggers silent, as a fresh `rofl` process does: a test that ran
    `rofl -v ...` in this worker must not make a later test's command (invoked without the group) log."""
    from rofl import logs

    logs.setup(0)
    yield
