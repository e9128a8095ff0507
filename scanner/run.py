"""One scan's fixed inputs (``ScanRun``): folders, options, the tool version, and who watches or may cancel it.

A scan is a pipeline of steps (list, decide, extract, commit) that all read the same facts about the
run; they take this one frozen value instead of a long parameter list.  ``progress(done, total)``
hears about each extracted file; ``check()`` is a safe point for cancellation (``engine.events``): it
raises ``ExecutionCancelled`` when the caller cancelled, and the scan calls it between files and
once more before anything the previous manifest names is replaced, so that a cancelled scan leaves
the previous one intact (the fact files it wrote are orphans the next scan removes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rofl.scanner.manifest import FORMAT as MANIFEST_FORMAT
from rofl.scanner.manifest import ScanOptions

if TYPE_CHECKING:
    from rofl.scanner.dask_address import DaskAddress

UNKNOWN_TOOL = "unknown"


def never_cancelled() -> None:
    return None


@dataclass(frozen=True, slots=True)
class ScanRun:
    """What every step of one scan reads; nothing in it changes while the scan runs."""

    src: str  # absolute
    out: str  # absolute
    options: ScanOptions
    grammar_versions: dict[str, str]  # tree-sitter and its grammars, as installed
    started: float  # time.perf_counter() when the scan was asked for
    verify: bool = False
    jobs: int = 1
    tool_version: str = UNKNOWN_TOOL  # the caller's version, recorded in the manifest
    progress: Callable[[int, int], None] | None = None
    check: Callable[[], None] = never_cancelled  # raises engine.events.ExecutionCancelled when cancelled
    lock_fd: int = -1  # the scan lock's descriptor, closed in forked helpers
    dask: DaskAddress | None = None  # extract on this Dask cluster instead of forked helpers (--dask)

    def state_key(self, extractor: str, resolver: str) -> dict[str, Any]:
        """What a no-change rescan must find unchanged to skip reading the manifest (``scanner.state``)."""
        return {
            "src": self.src,
            "options": self.options.as_record(),
            "grammar_versions": self.grammar_versions,
            "extractor_version": extractor,
            "resolver_version": resolver,
            "manifest_format": MANIFEST_FORMAT,  # a manifest another format wrote is read (and rewritten)
        }
