"""Per-thread standard streams: what a command running on a worker thread prints is kept for its execution.

``install()`` replaces ``sys.stdout`` and ``sys.stderr`` with streams that send a thread's writes to
the buffer it registered with ``capturing()``, and everything else to the real stream, so commands
print exactly as they do on the command line while a server answers other requests (and, under MCP
over stdio, the protocol's own stdout is never written by a command).
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO


class RoutedStream(io.TextIOBase):
    """A text stream that writes to the current thread's buffer when it has one, else to ``real``."""

    def __init__(self, real: TextIO, local: threading.local, which: str) -> None:
        super().__init__()
        self.real = real
        self._local = local
        self._which = which

    def _target(self) -> TextIO | None:
        return getattr(self._local, self._which, None)

    def write(self, text: str) -> int:
        target = self._target()
        return (target if target is not None else self.real).write(text)

    def flush(self) -> None:
        if self._target() is None:
            self.real.flush()

    def isatty(self) -> bool:
        return False if self._target() is not None else self.real.isatty()

    def fileno(self) -> int:
        return self.real.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.real, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "surrogateescape"

    @property
    def buffer(self):  # the real stream's bytes (the MCP stdio transport writes there)
        return self.real.buffer


@dataclass(frozen=True, slots=True)
class Captured:
    """What one call printed: standard output and standard error, as text."""

    stdout: io.StringIO
    stderr: io.StringIO


def install() -> threading.local:
    """Route ``sys.stdout``/``sys.stderr`` per thread (idempotent); returns the routing table."""
    out, err = sys.stdout, sys.stderr
    if isinstance(out, RoutedStream) and isinstance(err, RoutedStream):
        return out._local
    local = out._local if isinstance(out, RoutedStream) else threading.local()
    if not isinstance(out, RoutedStream):
        sys.stdout = RoutedStream(out, local, "stdout")
    if not isinstance(err, RoutedStream):
        sys.stderr = RoutedStream(err, local, "stderr")
    return local


@contextmanager
def capturing() -> Iterator[Captured]:
    """Keep what this thread prints, for the duration of the block."""
    local = install()
    captured = Captured(io.StringIO(), io.StringIO())
    local.stdout, local.stderr = captured.stdout, captured.stderr
    try:
        yield captured
    finally:
        local.stdout = local.stderr = None
