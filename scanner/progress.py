"""A one-line progress bar on stderr, shown only on a terminal and never in CI."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO


def wanted(stream: TextIO | None = None) -> bool:
    """True when progress should be drawn: stderr is a terminal and ``CI`` is not set."""
    stream = stream if stream is not None else sys.stderr
    if os.environ.get("CI"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """Draws ``label [####    ] done/total`` at most ten times a second; ``close`` clears the line."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self._last = 0.0

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        width = 30
        filled = int(width * min(self.done, self.total) / self.total)
        self.stream.write(f"\r{self.label} [{'#' * filled}{' ' * (width - filled)}] {self.done}/{self.total}")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r\x1b[2K")
        self.stream.flush()


class BarListener:
    """The command line's progress bar as a listener of execution events (``engine.events``): each
    ``progress`` event under ``label`` moves the bar; ``close`` clears it if it was drawn."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream
        self.bar: ProgressBar | None = None

    def __call__(self, event) -> None:
        from rofl.engine.base.events import Progress

        payload = event.payload
        if not isinstance(payload, Progress) or payload.label != self.label:
            return
        if self.bar is None or self.bar.total != max(payload.total, 1):
            self.close()
            self.bar = ProgressBar(self.label, payload.total, self.stream)
        self.bar.advance(payload.done - self.bar.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
