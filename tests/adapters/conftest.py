"""Fixtures of the adapter tests: a clean policy environment, a private cache folder, and worlds run through rounds."""

from __future__ import annotations

import os
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import BOOT


@pytest.fixture(autouse=True)
def adapter_env(tmp_path, monkeypatch):
    """Every adapter test runs in its own folder, outside CI's policy, with its own cache folder."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def python_adapter(path: Path, body: str) -> str:
    """Write an exec adapter in Python at ``path``; return the command line that runs it."""
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


# An exec adapter that answers each want with its argument reversed, logging each batch it gets.
ECHO = """
    import json, sys, os
    batch = json.load(sys.stdin)
    with open(os.environ.get("ADAPTER_LOG", "calls.log"), "a") as log:
        log.write(json.dumps(batch) + "\\n")
    for w in batch["wants"]:
        print(f'echo_answer({w["key"]}, {json.dumps(w["args"]["x"][::-1])}).')
"""


def echo_book(tmp_path: Path, klass: str = "reads", extra: str = "", cmd: str | None = None) -> str:
    """The book of capability reverse (arg x, text) answering in echo_answer/2, by ``cmd`` or the echo adapter."""
    cmd = cmd or python_adapter(tmp_path / "echo.py", ECHO)
    return (
        textwrap.dedent(
            f"""
        imports(main, echo).
        adapter(echo, exec, {quote(cmd)}).
        capability(reverse, echo, {klass}).
        arg(reverse, 1, x, text).
        answers(reverse, echo_answer, 2).
        """
        )
        + extra
    )


def quote(text: str) -> str:
    from rofl.engine.terms import quote as q

    return q(text)


def calls(tmp_path: Path) -> list:
    """The batches the echo adapter received (one per process it ran)."""
    import json

    log = tmp_path / "calls.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def session(text: str, allow: tuple = (), rounds: int = 100, environ: dict | None = None, programs: bool = True, **kw):
    """A kernel loaded with ``text`` and a Session over it (not started); its adapters may start programs
    (``--allow exec``) unless ``programs`` is False."""
    from rofl.adapters.policy import Policy
    from rofl.adapters.rounds import Session
    from rofl.engine.kernel import Kernel

    from rofl.rounds import load_world

    kernel = Kernel(BOOT)
    kernel.load_text(text, "world.rofl")
    env = dict(os.environ) if environ is None else environ
    policy = Policy.command_line((*allow, "exec") if programs else allow, env)
    return Session(kernel, policy, max_rounds=rounds, environ=env, world_factory=load_world, **kw)


def rows(kernel, question: str) -> list:
    return [tuple(r) for r in kernel.query(question).rows]
