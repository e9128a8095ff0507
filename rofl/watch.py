"""`rofl scan SRC --watch`: keep a fact folder current while files change, one incremental scan per batch.

watchfiles (Rust notify) reports changes under SRC; changes that arrive within ``DEBOUNCE_MS`` of each
other form one batch, and each batch runs the ordinary incremental scan (``scanner.api.scan``), which
parses only what changed and replaces the manifest atomically.  Once the watcher runs, one more
incremental scan catches up with changes made between the first scan and the watcher's start.  Changes inside the fact folder itself
(when it lies under SRC), and under .git or node_modules, are not changes of the sources.

Ctrl-C (SIGINT) or SIGTERM stops the watch between scans: a scan that is running finishes first, so
the manifest on disk is always one a whole scan wrote.  A second Ctrl-C interrupts at once (exit 130, as for any Ctrl-C); the
scanner still never leaves a half-written manifest (it writes a new one beside the old and renames).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEBOUNCE_MS = 300  # changes closer together than this form one batch
STEP_MS = 50  # how often the watcher checks for the end of a batch and for a stop request
READY_MS = 500  # the watcher's first quiet period: then changes made while it started are caught up


@dataclass(frozen=True, slots=True)
class Batch:
    """One batch of changed paths (relative to SRC) and the scan it caused (None: it failed)."""

    paths: tuple[str, ...]
    summary: Any
    error: str | None


def relevant(changed: str, src: Path, out: Path) -> str | None:
    """``changed`` relative to SRC, or None for a path of the fact folder or outside SRC."""
    path = Path(os.path.abspath(changed))
    try:
        path.relative_to(out)
        return None
    except ValueError:
        pass
    try:
        return path.relative_to(src).as_posix()
    except ValueError:
        return None


def watch(
    src: str,
    out: str,
    rescan: Callable[[], Any],
    report: Callable[[Batch], None],
    debounce_ms: int = DEBOUNCE_MS,
    stop: threading.Event | None = None,
) -> None:
    """Rescan after each batch of changes under ``src`` until stopped (SIGINT, SIGTERM or ``stop``).

    ``rescan()`` runs one incremental scan and returns its summary; ``report`` is told each batch.
    Must run in the main thread when it installs the signal handlers (``stop`` not given).
    """
    import watchfiles

    from rofl.scanner.api import ScanError

    src_abs, out_abs = Path(os.path.abspath(src)), Path(os.path.abspath(out))
    stop = stop or threading.Event()
    restore = _stop_on_signals(stop) if threading.current_thread() is threading.main_thread() else {}
    ready = False
    try:
        for changes in watchfiles.watch(
            src_abs,
            debounce=debounce_ms,
            step=STEP_MS,
            stop_event=stop,
            raise_interrupt=False,
            rust_timeout=READY_MS,
            yield_on_timeout=True,
        ):
            if not changes and ready:
                continue
            if not changes:  # the watcher is running: catch up with changes made before it started
                ready = True
                try:
                    summary = rescan()
                except ScanError as err:
                    report(Batch((), None, str(err)))
                    continue
                if summary.parsed or summary.removed or summary.resolved:
                    report(Batch((), summary, None))
                continue
            paths = sorted({p for _, raw in changes if (p := relevant(raw, src_abs, out_abs)) is not None})
            if not paths:
                continue
            try:
                summary = rescan()
            except (
                ScanError
            ) as err:  # a concurrent scan holds the lock, SRC vanished...: reported, the next batch retries
                report(Batch(tuple(paths), None, str(err)))
                continue
            report(Batch(tuple(paths), summary, None))
            if stop.is_set():
                break
    finally:
        for sig, handler in restore.items():
            signal.signal(sig, handler)


def _stop_on_signals(stop: threading.Event) -> dict:
    """SIGINT/SIGTERM set ``stop`` (the running scan finishes); a second SIGINT raises KeyboardInterrupt."""
    previous = {}

    def handler(signum: int, _frame: object) -> None:
        if stop.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, handler)
    return previous


def watch_command(src: str, out: str, finish: Callable[[Any], None], options: dict) -> None:
    """What ``rofl scan --watch`` runs after its first scan: each batch is scanned with the same
    ``options`` and handed to ``finish`` (sign, print the summary); a line on stderr says what changed."""
    import click

    from rofl.scanner.api import scan

    click.echo(f"rofl scan --watch: watching {src} (Ctrl-C to stop)", err=True)

    def report(batch: Batch) -> None:
        shown = ", ".join(batch.paths[:3]) + (f" and {len(batch.paths) - 3} more" if len(batch.paths) > 3 else "")
        if not batch.paths:
            shown = "changes made while the watch started"
        if batch.error is not None:
            click.echo(f"rofl scan --watch: [{_stamp()}] {shown}: rescan failed: {batch.error}", err=True)
            return
        summary = batch.summary
        if not (summary.parsed or summary.removed or summary.resolved or summary.manifest_written):
            click.echo(f"rofl scan --watch: [{_stamp()}] {shown}: no source changed", err=True)
            return  # nothing to sign or print: the facts on disk are those of the last summary
        click.echo(f"rofl scan --watch: [{_stamp()}] {len(batch.paths)} path(s) changed: {shown}", err=True)
        finish(summary)

    watch(src, out, lambda: scan(src, out, **options), report)
    click.echo("rofl scan --watch: stopped; the manifest is the last complete scan", err=True)


def _stamp() -> str:
    return time.strftime("%H:%M:%S")
