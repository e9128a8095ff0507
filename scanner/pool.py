"""Parallel extraction: this process and ``jobs - 1`` forked helpers each extract one share of the files.

Helpers are plain ``os.fork`` children: they inherit the ``Materializer`` and its context without
pickling, load tree-sitter themselves (in parallel with the others), and send their outcomes
back through a pipe when done.  Shares are balanced by file size (parse time follows it), so no
work queue is needed; ``multiprocessing`` is not used because importing it alone costs more than
a small scan.  A share whose results do not arrive intact (a helper died) is extracted again
here, so a crash in a helper costs time, not facts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from scanner.materialize import Materializer, Outcome

MIN_FILES_FOR_POOL = 48


def balanced_shares(paths: list[str], sizes: dict[str, int], parts: int) -> list[list[str]]:
    """Split ``paths`` into ``parts`` shares of about equal total size (largest file first, to the lightest)."""
    shares: list[list[str]] = [[] for _ in range(parts)]
    loads = [0] * parts
    for path in sorted(paths, key=lambda p: -sizes.get(p, 0)):
        lightest = loads.index(min(loads))
        shares[lightest].append(path)
        loads[lightest] += sizes.get(path, 0) + 1024  # every file has a fixed cost too
    return shares


def _helper(materializer: Materializer, share: list[str], write_end: int) -> None:
    """Run in a forked child: extract ``share`` and send the outcomes; never returns."""
    status = 1
    try:
        import pickle

        outcomes = [materializer.extract(path) for path in share]
        data = pickle.dumps((outcomes, materializer.store.seen), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
        status = 0
    finally:
        os._exit(status)  # no atexit handlers or buffered output of the parent run twice


def _receive(read_end: int, pid: int) -> tuple[list[Outcome], dict] | None:
    import pickle

    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while chunk := pipe.read(1 << 20):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    try:
        outcomes, seen = pickle.loads(b"".join(chunks))
    except (pickle.UnpicklingError, EOFError, ValueError):
        return None
    return outcomes, seen


def extract_all(
    materializer: Materializer,
    paths: list[str],
    sizes: dict[str, int],
    jobs: int,
    on_done: Callable[[int], None],
) -> Iterator[Outcome]:
    """Extract ``paths``; with forked helpers when there are enough files, else in this process."""
    if jobs <= 1 or len(paths) < MIN_FILES_FOR_POOL or not hasattr(os, "fork"):
        for path in paths:
            yield materializer.extract(path)
            on_done(1)
        return
    mine, *others = balanced_shares(paths, sizes, jobs)
    helpers: list[tuple[int, int, list[str]]] = []
    for share in others:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            _helper(materializer, share, write_end)
        os.close(write_end)
        helpers.append((pid, read_end, share))
    try:
        for path in mine:
            yield materializer.extract(path)
            on_done(1)
        while helpers:
            pid, read_end, share = helpers.pop(0)
            received = _receive(read_end, pid)
            if received is None:  # the helper died: do its share here
                for path in share:
                    yield materializer.extract(path)
                    on_done(1)
                continue
            outcomes, seen = received
            materializer.store.seen.update(seen)
            on_done(len(outcomes))
            yield from outcomes
    finally:  # abandoned early (an error upstream): stop and reap the helpers still running
        for pid, read_end, _ in helpers:
            os.close(read_end)  # a helper still writing gets EPIPE and exits
            os.waitpid(pid, 0)
