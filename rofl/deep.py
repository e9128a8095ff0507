"""Running a command where terms and proofs of any depth fit: a worker thread with a large stack.

Terms are nested tuples, and comparing, hashing, printing and explaining them recurses once per level
(in Python and inside CPython's own tuple comparison and JSON code).  A command runs in a thread whose
stack is ``STACK_BYTES`` (reserved address space; pages are committed only when used) with the
recursion limit raised to ``RECURSION_LIMIT`` for its duration, so depth is bounded by that stack,
hundreds of thousands of levels, not by the interpreter's default of 1,000.  Deeper input still ends
in one line (``RecursionError`` is a user error), never a crash.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

STACK_BYTES = 1 << 30
RECURSION_LIMIT = 400_000

T = TypeVar("T")


def run_deep(fn: Callable[[], T]) -> T:
    """Call ``fn`` in a large-stack thread and return its value (or raise its exception, SystemExit included)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread below
            box["error"] = exc

    previous_stack = threading.stack_size()
    previous_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(RECURSION_LIMIT)  # before the thread starts: a thread takes the limit it starts with
    try:
        try:
            threading.stack_size(STACK_BYTES)
            worker = threading.Thread(target=target, name="rofl-command", daemon=True)
            worker.start()
        except (ValueError, RuntimeError):  # a platform that refuses the stack size: run here, as before
            sys.setrecursionlimit(previous_limit)
            return fn()
        finally:
            threading.stack_size(previous_stack)
        worker.join()
    finally:
        sys.setrecursionlimit(previous_limit)
    if "error" in box:
        raise box["error"]
    return cast(T, box.get("value"))
