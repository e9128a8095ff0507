"""Whether a scan is still current without stat-ing the tree: a watcher counts source changes, scans record what they covered.

A server (``rofl.loading.kernel.Session.watch_sources``) starts one ``SourceWatch`` over the scanned folder.
Every batch of changes under it that concerns the sources (``rofl.watch.relevant``: not the fact
folder) adds one to ``changes``.  A scan that starts when the watcher is ready takes ``mark()``, and
when it succeeds, ``covered(mark)`` records that it saw every change counted so far.  ``fresh()`` holds
while no change arrived since: the rescan the command line would do first can be skipped, since it
would find nothing to do.  Until the watcher is ready, or when it cannot run, nothing is fresh.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

DEBOUNCE_MS = 20  # the watcher reports a write within about this long (plus the OS's own delay)
READY_MS = 200  # the first quiet period after which the watcher is known to run


@dataclass(frozen=True, slots=True)
class Mark:
    """What the watcher had counted when a scan started (``ready`` False: the count means nothing)."""

    ready: bool
    changes: int


class SourceWatch:
    """Counts changes of the sources under ``src`` on a daemon thread, until ``close``."""

    def __init__(self, src: Path, facts: Path) -> None:
        self.src = src
        self.facts = facts
        self._lock = threading.Lock()
        self._changes = 0
        self._covered: int | None = None
        self._ready = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rofl-source-watch", daemon=True)

    def start(self) -> SourceWatch:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()

    def mark(self) -> Mark:
        with self._lock:
            return Mark(self._ready, self._changes)

    def covered(self, mark: Mark) -> None:
        """A scan that started at ``mark`` succeeded: it saw every change counted then."""
        if mark.ready:
            with self._lock:
                if self._covered is None or mark.changes > self._covered:
                    self._covered = mark.changes

    def fresh(self) -> bool:
        """No source changed since the last scan covered them (and the watcher is running)."""
        with self._lock:
            return self._ready and not self._stop.is_set() and self._covered == self._changes

    def _run(self) -> None:
        try:
            import watchfiles
        except ImportError:
            return  # never ready: every question rescans first, as on the command line
        from .watch import relevant

        try:
            for batch in watchfiles.watch(
                self.src,
                debounce=DEBOUNCE_MS,
                step=10,
                stop_event=self._stop,
                raise_interrupt=False,
                rust_timeout=READY_MS,
                yield_on_timeout=True,
            ):
                with self._lock:
                    if not batch:
                        self._ready = True
                    elif any(relevant(raw, self.src, self.facts) is not None for _, raw in batch):
                        self._changes += 1
        except (OSError, RuntimeError):  # no watch possible here (inotify limits, a vanished folder)
            pass
        with self._lock:
            self._ready = False
