"""One costly fixture value per test run, shared by the xdist workers instead of computed by each.

Under ``pytest -n 2 --dist worksteal`` the tests of one module may land on both workers (a worker that
runs dry steals half of the other's queue), and a module-scoped fixture then runs once per worker.  A
fixture whose work is a long end-to-end run asks :func:`once_per_run` instead: the first worker to need
the value computes it under a lock and pickles it beside the workers' temporary folders; the others
read it.  The value may name paths under the computing worker's temporary folder, which lives until
the run ends.  Without xdist it simply computes.
"""

from __future__ import annotations

import fcntl
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def once_per_run(request: pytest.FixtureRequest, name: str, compute: Callable[[], T]) -> T:
    """The value ``compute()`` gives, computed once for the whole run however many workers ask."""
    worker = getattr(request.config, "workerinput", None)
    if worker is None:
        return compute()
    root = request.getfixturevalue("tmp_path_factory").getbasetemp().parent
    stem = Path(root) / f"once-{worker['testrunuid']}-{name}"
    with open(stem.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stored = stem.with_suffix(".pickle")
        if stored.exists():
            with stored.open("rb") as f:
                return pickle.load(f)  # written by this run's own worker a moment ago
        value = compute()
        with stored.open("wb") as f:
            pickle.dump(value, f)
        return value
