"""Fixtures for scanner tests: fixture repositories in tmp_path, a scan runner, fact readers."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from rofl.engine.parse import parse_program

from tests.conftest import write_tree

Facts = set[tuple]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


class ScanRun:
    """The result of one ``rofl scan`` invocation."""

    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    @property
    def summary(self) -> dict:
        assert self.exit_code == 0, self.stderr
        return json.loads(self.stdout)


def run_scan(src: Path | str, out: Path | str, *args: str) -> ScanRun:
    from rofl.commands.scan import command

    result = CliRunner().invoke(command, [str(src), "--out", str(out), *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return ScanRun(result.exit_code, result.stdout, result.stderr)


def scan_json(src: Path | str, out: Path | str, *args: str) -> dict:
    run = run_scan(src, out, "--json", *args)
    assert run.exit_code == 0, run.stderr
    return json.loads(run.stdout)


def load_manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def parse_fact_file(path: Path) -> Facts:
    """Parse one fact file with the kernel's parser; every clause must be a ground [code] fact."""
    facts: Facts = set()
    for clause in parse_program(path.read_text(encoding="utf-8"), str(path)):
        assert not clause.body, f"{path}: not a fact: {clause}"
        head = clause.head
        facts.add((head.rel, head.persp, *head.args))
    return facts


def read_facts(out: Path) -> Facts:
    """Every fact of the scan in ``out`` (the manifest's fact files), without the perspective."""
    manifest = load_manifest(out)
    facts: Facts = set()
    for entry in manifest["files"].values():
        for fact in parse_fact_file(out / entry["facts"]):
            assert fact[1] == "code", fact
            facts.add((fact[0], *fact[2:]))
    return facts


def rel(facts: Facts, name: str) -> set[tuple]:
    return {f[1:] for f in facts if f[0] == name}


def atom(name: str) -> tuple:
    return (name,)


@pytest.fixture
def repo(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """Build a source tree (not a git repository) under tmp_path/src and return its path."""

    def make(files: dict[str, str | bytes]) -> Path:
        src = tmp_path / "src"
        src.mkdir(exist_ok=True)
        write_tree(src, files)
        return src

    return make


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "facts"


@pytest.fixture(autouse=True)
def _no_ci_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
