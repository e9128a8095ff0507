"""Parallel extraction: this process and ``jobs - 1`` forked helpers take chunks of files from one pipe.

Helpers are plain ``os.fork`` children: they inherit the ``Materializer``, its context and the
parsers and compiled queries this process prepared just before forking, and send their outcomes
back through a pipe when the chunks run out.  The work queue is a pipe holding 4-byte chunk
numbers, read by every process until end-of-file; ``multiprocessing`` is not used because
importing it alone costs more than a small scan.  Chunks whose results do not arrive intact (a
helper died) are extracted again here, so a crash in a helper costs time, not facts.

Helpers die with their parent: right after the fork each one closes its copy of the scan lock's
descriptor (so only the parent holds the flock) and asks Linux for ``SIGKILL`` when its parent
dies (``PR_SET_PDEATHSIG``); elsewhere, and as a second guard, a helper stops between files once
its parent pid is gone.

With ``--dask ADDRESS`` the files go to a Dask cluster instead (``scanner.dask_pool``), under the same
threshold: fewer than ``MIN_FILES_FOR_POOL`` files are extracted here, with no cluster started.
"""

from __future__ import annotations

import os
import signal
import struct
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rofl.scanner.errors import ExtractorFailure
from rofl.scanner.materialize import FileResult, Materializer

if TYPE_CHECKING:
    from rofl.scanner.dask_address import DaskAddress

MIN_FILES_FOR_POOL = 48
PR_SET_PDEATHSIG = 1  # linux/prctl.h
MAX_CHUNKS = 4096  # 4-byte chunk numbers: 16 KiB, well under a pipe's 64 KiB buffer
_INDEX = struct.Struct("<I")


def chunk_paths(paths: list[str], sizes: dict[str, int]) -> list[list[str]]:
    """Biggest files first, in small chunks, so that the last chunks (the smallest) even out the end."""
    ordered = sorted(paths, key=lambda p: -sizes.get(p, 0))
    size = max(8, -(-len(ordered) // MAX_CHUNKS))
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


def _next_chunk(tasks: int) -> int | None:
    """The next chunk number from the shared task pipe, None when all are taken.

    Every record is 4 bytes and every read asks for exactly 4, so concurrent readers of one pipe
    never split a record (pipe reads are serialised by the kernel).
    """
    record = os.read(tasks, _INDEX.size)
    return _INDEX.unpack(record)[0] if len(record) == _INDEX.size else None


def die_with_parent(parent: int) -> None:
    """In a forked child: be killed when ``parent`` dies (Linux), and exit now if it already has."""
    if os.uname().sysname == "Linux":
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl: the helper's parent-pid check between files still stops it
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _helper(materializer: Materializer, chunks: list[list[str]], tasks: int, write_end: int, parent: int) -> None:
    """Run in a forked child: take chunks until none are left, send what it did; never returns."""
    status = 1
    try:
        import pickle

        taken: list[int] = []
        outcomes: list[FileResult] = []
        while (index := _next_chunk(tasks)) is not None:
            taken.append(index)
            for path in chunks[index]:
                if os.getppid() != parent:
                    return  # orphaned: the finally exits
                outcomes.append(materializer.extract(path))
        data = pickle.dumps((taken, outcomes, materializer.store.seen), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
        status = 0
    finally:
        os._exit(status)  # no atexit handlers or buffered output of the parent run twice


def _receive(read_end: int, pid: int) -> tuple[list[int], list[FileResult], dict] | None:
    import pickle

    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while chunk := pipe.read(1 << 20):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    try:
        taken, outcomes, seen = pickle.loads(b"".join(chunks))
    except (pickle.UnpicklingError, EOFError, ValueError):
        return None
    return taken, outcomes, seen


def prepare(materializer: Materializer, paths: list[str]) -> None:
    """Make the grammars and queries ``paths`` need; ``ExtractorFailure`` when one does not compile."""
    from rofl.scanner.files import grammar_for

    try:
        materializer.extractor().prepare({grammar_for(p) for p in paths})
    except Exception as err:  # re-raised: a query that does not compile is our bug, reported as one
        raise ExtractorFailure(None, err) from err


def extract_all(
    materializer: Materializer,
    paths: list[str],
    sizes: dict[str, int],
    jobs: int,
    close_in_helpers: tuple[int, ...] = (),
    dask: DaskAddress | None = None,
) -> Iterator[FileResult]:
    """Extract ``paths``; on a Dask cluster (``dask``, ``scanner.dask_pool``) or with forked helpers
    when there are enough files, else in this process.

    The grammars and queries the files need are made first, outside any file's extraction: a
    query that does not compile is the extractor's bug and stops the scan here, instead of
    becoming a ``src_parse_error`` in every file.  ``close_in_helpers`` are descriptors (the scan
    lock) that each helper closes first thing after the fork.  The caller may stop iterating at any
    point (a cancelled scan): the helpers still running are killed and reaped.
    """
    if not paths:
        return
    if dask is not None and len(paths) >= MIN_FILES_FOR_POOL:
        from rofl.scanner.dask_pool import extract_on_cluster  # imports Dask: only when asked for

        yield from extract_on_cluster(materializer, paths, sizes, dask)
        return
    # loaded once here rather than once per process: forked helpers share it (less CPU when the
    # machine is busy, the same wall time when it is not)
    prepare(materializer, paths)
    if jobs <= 1 or len(paths) < MIN_FILES_FOR_POOL or not hasattr(os, "fork"):
        for path in paths:
            yield materializer.extract(path)
        return
    chunks = chunk_paths(paths, sizes)
    tasks, feed = os.pipe()
    os.write(feed, b"".join(_INDEX.pack(i) for i in range(len(chunks))))
    os.close(feed)  # before forking: at the end of the numbers every reader sees end-of-file
    helpers: list[tuple[int, int]] = []
    done: set[int] = set()
    try:
        for _ in range(jobs - 1):
            read_end, write_end = os.pipe()
            parent = os.getpid()
            pid = os.fork()
            if pid == 0:
                for fd in close_in_helpers:
                    os.close(fd)
                die_with_parent(parent)
                os.close(read_end)
                _helper(materializer, chunks, tasks, write_end, parent)
            os.close(write_end)
            helpers.append((pid, read_end))
        while (index := _next_chunk(tasks)) is not None:  # this process takes chunks too
            for path in chunks[index]:
                yield materializer.extract(path)
            done.add(index)
        while helpers:
            pid, read_end = helpers.pop(0)
            received = _receive(read_end, pid)
            if received is None:
                continue  # the helper died: its chunks are redone below
            taken, outcomes, seen = received
            done.update(taken)
            materializer.store.seen.update(seen)
            yield from outcomes
    finally:  # abandoned early (an error upstream, a cancelled scan): stop and reap the helpers still running
        os.close(tasks)
        for pid, read_end in helpers:
            os.close(read_end)
            try:
                os.kill(pid, signal.SIGKILL)  # its fact files are orphans no manifest names
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
    for index, chunk in enumerate(chunks):
        if index not in done:
            for path in chunk:
                yield materializer.extract(path)
