"""Parallel extraction: this process and ``jobs - 1`` forked helpers pull chunks of paths from one queue.

Helpers are forked from the scanning process, so they inherit the ``Materializer`` and its
context without pickling; each loads tree-sitter and compiles its queries itself, in parallel with
the others.  The scanning process works through chunks too (one process fewer to start on a
two-core machine).  A chunk whose results never arrive (a helper died) is extracted again here,
so a crash in one helper costs time, not facts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from scanner.configs import Signature
from scanner.materialize import Materializer, Outcome

CHUNK = 16
MIN_FILES_FOR_POOL = 48

Reply = tuple[int, list[Outcome], dict[str, Signature]]


def _worker(materializer: Materializer, chunks: list[list[str]], tasks: Any, replies: Any) -> None:
    while True:
        index = tasks.get()
        if index is None:
            break
        outcomes = [materializer.extract(path) for path in chunks[index]]
        replies.put((index, outcomes, dict(materializer.store.seen)))


def _chunks(paths: list[str], sizes: dict[str, int], jobs: int) -> list[list[str]]:
    """Biggest files first, in chunks small enough to keep both cores busy to the end."""
    ordered = sorted(paths, key=lambda p: -sizes.get(p, 0))
    size = max(1, min(CHUNK, len(ordered) // (jobs * 4) or 1))
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


def extract_all(
    materializer: Materializer,
    paths: list[str],
    sizes: dict[str, int],
    jobs: int,
    on_done: Callable[[int], None],
) -> Iterator[Outcome]:
    """Extract ``paths``; forked workers when there are enough, else in this process."""
    if jobs <= 1 or len(paths) < MIN_FILES_FOR_POOL or not hasattr(os, "fork"):
        for path in paths:
            yield materializer.extract(path)
            on_done(1)
        return
    import multiprocessing  # only a parallel scan pays for importing it
    import queue

    chunks = _chunks(paths, sizes, jobs)
    ctx = multiprocessing.get_context("fork")
    tasks = ctx.SimpleQueue()
    replies = ctx.Queue()
    for index in range(len(chunks)):
        tasks.put(index)
    helpers = min(jobs, len(chunks)) - 1
    for _ in range(helpers + 1):
        tasks.put(None)  # one stop sign per helper and one for this process
    processes = [ctx.Process(target=_worker, args=(materializer, chunks, tasks, replies)) for _ in range(helpers)]
    for process in processes:
        process.start()
    done: set[int] = set()

    def accept(reply: Reply) -> list[Outcome]:
        index, outcomes, seen = reply
        done.add(index)
        materializer.store.seen.update(seen)
        on_done(len(outcomes))
        return outcomes

    try:
        while (index := tasks.get()) is not None:  # this process works through chunks too
            outcomes = [materializer.extract(path) for path in chunks[index]]
            done.add(index)
            on_done(len(outcomes))
            yield from outcomes
            while True:
                try:
                    yield from accept(replies.get_nowait())
                except queue.Empty:
                    break
        while len(done) < len(chunks):
            try:
                yield from accept(replies.get(timeout=0.5))
            except queue.Empty:
                if not any(p.is_alive() for p in processes):
                    break  # every helper is gone; what is missing is redone below
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
    for index, chunk in enumerate(chunks):
        if index not in done:
            for path in chunk:
                yield materializer.extract(path)
                on_done(1)
