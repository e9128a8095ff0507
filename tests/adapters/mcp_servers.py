"""The loopback MCP servers of the mcp kind's tests: the tracker (``mcp_tracker.py``) as a command line, or started on HTTP."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

TRACKER = Path(__file__).with_name("mcp_tracker.py")
SECRET = "trk-S3cr3t-7c41e9b2d8"  # the HTTP tracker's bearer token
ENVIRON = ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR")


def command(*flags: str) -> str:
    """The command line that serves the tracker over stdio."""
    return " ".join(shlex.quote(part) for part in (sys.executable, str(TRACKER), *flags))


def environ(**more: str) -> dict[str, str]:
    """A small environment for a world's session: what a program needs, and ``more``."""
    base = {k: v for k, v in os.environ.items() if k in ENVIRON}
    return {**base, **more}


@dataclass(frozen=True, slots=True)
class Http:
    url: str
    log: Path


@contextmanager
def http_tracker(log: Path, token: str | None = SECRET, env: Mapping[str, str] | None = None) -> Iterator[Http]:
    """The tracker on streamable HTTP at a free loopback port (``token``: the bearer it requires)."""
    child = {**os.environ, **(env or {}), "TRACKER_LOG": str(log)}
    child.pop("TRACKER_TOKEN", None)
    if token is not None:
        child["TRACKER_TOKEN"] = token
    proc = subprocess.Popen(
        [sys.executable, str(TRACKER), "--http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT "), line
        yield Http(f"http://127.0.0.1:{int(line.split()[1])}/mcp", log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def calls(log: Path) -> list[tuple[int, str, str]]:
    """``(pid, tool, arguments)`` of each call the tracker logged."""
    if not log.exists():
        return []
    out = []
    for line in log.read_text(encoding="utf-8").splitlines():
        pid, tool, args = line.split(" ", 2)
        out.append((int(pid), tool, args))
    return out
