"""Shared fixtures: a booted kernel, paths to the repository's rules and examples, a CLI runner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests run at most QUICK_EXAMPLES examples in `make test` (a test that names a larger count is
# cut to it); `make test-all` (ROFL_HYPOTHESIS=full) runs hypothesis's 100, or the count a test names.
QUICK_EXAMPLES = 15
PROFILE = os.environ.get("ROFL_HYPOTHESIS", "quick")
settings.register_profile("quick", max_examples=QUICK_EXAMPLES)
settings.register_profile("full", max_examples=100)
settings.load_profile(PROFILE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the quick profile, cut a property test's own example count to ``QUICK_EXAMPLES``."""
    if PROFILE != "quick":
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and own.max_examples > QUICK_EXAMPLES:
            test._hypothesis_internal_use_settings = settings(own, max_examples=QUICK_EXAMPLES)  # type: ignore[union-attr]


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
