"""Fixtures of the server tests: a generated import graph of a few hundred files, scanned, and a running server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import write_tree

FILES = 300


def generated_tree(root: Path, files: int = FILES, salt: str = "", bulk: int = 0) -> None:
    """``files`` TS modules in folders of ten: m<i> imports m<i//2> and m<i//3> (a tree of chains with shared
    ancestors, so that impact answers differ by file); ``salt`` changes every file's text; ``bulk`` adds
    that many functions to each file (a slower scan, the same imports)."""
    tree = {}
    for i in range(files):
        imports = sorted({i // 2, i // 3} - {i}) if i else []
        lines = [f'import {{ v{j} }} from "{_rel(i, j)}";' for j in imports]
        total = " + ".join([f"v{j}" for j in imports] or ["0"])
        lines.append(f"export const v{i} = {total} + {i}; // {salt}")
        lines += [
            f"export function f{k}(a: number, b: string): string {{ return b.repeat(a + {k}); }}" for k in range(bulk)
        ]
        tree[_path(i)] = "\n".join(lines) + "\n"
    write_tree(root, tree)


def _path(i: int) -> str:
    return f"pkg{i // 10}/m{i}.ts"


def _rel(i: int, j: int) -> str:
    here, there = i // 10, j // 10
    return f"./m{j}" if here == there else f"../pkg{there}/m{j}"


def module(i: int) -> str:
    return _path(i)


@dataclass(frozen=True, slots=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def rofl(*args: str, env: dict | None = None) -> Ran:
    """The command line, run in this process (the same code path as a fresh `rofl` process, without
    its start-up time)."""
    from click.testing import CliRunner

    from rofl.cli import main

    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return Ran(result.exit_code, result.stdout, result.stderr)


@dataclass(frozen=True, slots=True)
class Running:
    url: str
    process: subprocess.Popen
    src: Path
    facts: Path


def start(kind: str, facts: Path, src: Path, env: dict | None = None, extra: tuple[str, ...] = ()) -> Running:
    """Start ``rofl server`` (or ``rofl mcp --http``) on a free loopback port; wait until it listens."""
    args = ["server"] if kind == "server" else ["mcp", "--http"]
    process = subprocess.Popen(
        [sys.executable, "-m", "rofl.cli", *args, "--facts", str(facts), "--src", str(src), "--port", "0", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if found:
            return Running(found.group(1), process, src, facts)
    process.kill()
    raise AssertionError(f"the server did not start: {process.stderr.read()}")


def stop(running: Running) -> None:
    running.process.terminate()
    try:
        running.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        running.process.kill()


@pytest.fixture(scope="module")
def scanned(tmp_path_factory) -> tuple[Path, Path]:
    """``(src, facts)``: the generated tree, scanned once by the command line."""
    root = tmp_path_factory.mktemp("served")
    src, facts = root / "src", root / "facts"
    generated_tree(src)
    done = rofl("scan", str(src), "--out", str(facts))
    assert done.returncode == 0, done.stderr
    return src, facts


@pytest.fixture(scope="module")
def server(scanned) -> Iterator[Running]:
    src, facts = scanned
    running = start("server", facts, src, env={k: v for k, v in os.environ.items() if k != "ROFL_SERVER_TOKEN"})
    yield running
    stop(running)
