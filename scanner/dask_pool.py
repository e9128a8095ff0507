"""Extraction over a Dask distributed cluster (``rofl scan --dask ADDRESS``): the files to parse go out in chunks,
the workers write their fact files into the shared output folder, the outcomes come back to this process.

``ADDRESS`` is ``local:N`` (a cluster of N single-threaded worker processes on this machine, its scheduler on
loopback, started for this scan and stopped after it) or ``tcp://host:port`` (an existing scheduler, joined;
the user's explicit word on the command line, never read from the scanned tree).  ``distributed`` is an
optional extra (``pip install 'rofl[dask]'``); without it ``--dask`` is a ``ScanError``, checked before the
scan locks or writes anything.

What runs where.  Each worker gets one ``ScanKit`` (a worker plugin: the scan's ``ScanContext``, the
versions this process extracts with, a token) and builds one ``Materializer`` per worker thread, so the
parsers and queries are prepared once per thread, not per chunk.  A chunk's task reads, extracts and
resolves each of its files exactly as a forked helper does (``scanner.pool``), writing the content-keyed
fact file straight into ``--out``, and returns the ``FileResult``s and the config signatures it recorded.
This process re-resolves unchanged files and commits the manifest (``scanner.commit``), as a local scan
does, so the result is the same bytes.

Checks, so that a cluster cannot make a wrong answer look right:

- the workers must see ``--out`` and SRC at the same paths (shared storage): this process writes a random
  token to ``<out>/.dask-scan`` and a worker that does not read it back (or does not find SRC) does no work;
  the scan stops with one line saying so;
- a worker whose rofl extracts with another extractor, resolver or grammar version does no work either;
- a chunk that fails on the cluster (a worker died, an exception in our code) is extracted again here, so a
  lost worker costs time, not facts (and our own bug still stops the scan, as ``ExtractorFailure``);
- a worker stops between files once ``<out>/.dask-scan`` no longer holds its scan's token (the scan
  ended, or a killed scan's successor replaced it).  When a client is killed, the scheduler of a
  ``tcp://`` cluster drops its queued chunks and each worker finishes at most the chunk it is on, or
  the file it is on once a new scan has started; the workers of ``local:N`` die with this process.

A killed scan leaves the previous manifest: nothing here writes it, and the fact files the workers wrote are
orphans the next scan removes (their names are keyed by content, so one it needs is simply the same bytes).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from distributed import Client, LocalCluster, as_completed
from distributed.diagnostics.plugin import WorkerPlugin
from rofl.engine.base import safe_write
from rofl.scanner.dask_address import DaskAddress
from rofl.scanner.errors import ScanError, shown
from rofl.scanner.materialize import FileResult, Materializer, ScanContext
from rofl.scanner.versions import EXTRACTOR_VERSION, RESOLVER_VERSION, grammar_versions

if TYPE_CHECKING:
    from distributed import Worker
    from rofl.scanner.configs import Signature

PROBE_NAME = ".dask-scan"  # in --out: this scan's token, read by every worker (shared storage, still running)
CONNECT_TIMEOUT = 10  # seconds to reach a scheduler and see a worker
CHUNKS_PER_THREAD = 16  # enough for the last chunks to even out the end, few enough to cost no time
MAX_CHUNK_FILES = 512
PROFILE_OFF = {"distributed.worker.profile.enabled": False}  # for local:N, inherited by its worker processes
ENDED = (
    f"the token in --out's {PROBE_NAME} changed while this scan ran: another scan is writing the folder, "
    "nothing was replaced",
    "scan one output folder from one machine at a time",
)
_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """What one chunk's task sends back: its files' outcomes and the configs resolution consulted, or why
    the worker did nothing."""

    outcomes: tuple[FileResult, ...] = ()
    seen: tuple[tuple[str, Signature], ...] = ()
    problem: tuple[str, str] | None = None  # (what is wrong, the fix), a ScanError's two halves


def _versions() -> dict[str, Any]:
    return {"extractor": EXTRACTOR_VERSION, "resolver": RESOLVER_VERSION, "grammars": grammar_versions()}


def _read_token(out: str) -> str | None:
    try:
        data = safe_write.read_nofollow(os.path.join(out, PROBE_NAME), 256)
    except OSError:
        return None
    return data.decode("ascii", "replace").strip() if data is not None else None


class ScanKit(WorkerPlugin):
    """One scan's state on one worker: the context, checked once at setup, and a ``Materializer`` per thread."""

    def __init__(self, context: ScanContext, grammars: frozenset[str], token: str, versions: dict[str, Any]) -> None:
        self.context = context
        self.grammars = grammars
        self.token = token
        self.versions = versions
        self.problem: tuple[str, str] | None = None
        self._threads: threading.local | None = None

    def setup(self, worker: Worker) -> None:
        """Check that this worker sees the scan's folders and extracts with the same versions."""
        self._threads = threading.local()
        where = f"Dask worker {worker.address} on {socket.gethostname()}"
        mine = _versions()
        if mine != self.versions:
            self.problem = (
                f"{where} runs rofl with {mine}, this scan with {self.versions}, nothing was replaced",
                "install the same rofl (and tree-sitter grammars) on every worker",
            )
        elif not os.path.isdir(self.context.src) or _read_token(self.context.out) != self.token:
            self.problem = (
                f"{where} does not see SRC {self.context.src} and --out {self.context.out} as this machine does "
                f"(no {PROBE_NAME} token from this scan there), nothing was replaced",
                "the workers need both folders at the same paths (shared storage)",
            )

    def teardown(self, worker: Worker) -> None:
        self._threads = None  # the materializers (parsers, caches) go with the scan

    def materializer(self) -> Materializer:
        """This thread's materializer, made (and its parsers prepared) on its first chunk."""
        if self._threads is None:
            raise RuntimeError("ScanKit used before setup")
        made: Materializer | None = getattr(self._threads, "materializer", None)
        if made is None:
            made = Materializer(self.context)
            made.extractor().prepare(set(self.grammars))
            self._threads.materializer = made
        return made

    def current(self) -> bool:
        """True while ``--out`` still holds this scan's token (the scan is running and nothing replaced it)."""
        return _read_token(self.context.out) == self.token


def extract_chunk(kit_name: str, paths: list[str]) -> ChunkResult:
    """A task on a worker: extract ``paths`` with the kit registered as ``kit_name``."""
    from distributed import get_worker

    kit = get_worker().plugins[kit_name]
    if not isinstance(kit, ScanKit):
        raise TypeError(f"worker plugin {kit_name} is not a rofl ScanKit")
    if kit.problem is not None:
        return ChunkResult(problem=kit.problem)
    materializer = kit.materializer()
    seen = materializer.store.seen
    before = len(seen)
    outcomes = []
    for path in paths:
        if not kit.current():  # the scan is over: this chunk's outcomes would go nowhere
            return ChunkResult(problem=ENDED)
        outcomes.append(materializer.extract(path))
    added = tuple(seen.items())[before:]  # keys are only ever added: the new ones are at the end
    return ChunkResult(tuple(outcomes), added)


def chunk_by_bytes(paths: list[str], sizes: dict[str, int], threads: int) -> list[list[str]]:
    """Biggest files first, cut into about ``CHUNKS_PER_THREAD`` chunks per thread of about equal bytes."""
    ordered = sorted(paths, key=lambda p: (-sizes.get(p, 0), p))
    target = max(1, sum(max(1, sizes.get(p, 0)) for p in ordered) // max(1, threads * CHUNKS_PER_THREAD))
    chunks: list[list[str]] = []
    current: list[str] = []
    weight = 0
    for path in ordered:
        current.append(path)
        weight += max(1, sizes.get(path, 0))
        if weight >= target or len(current) >= MAX_CHUNK_FILES:
            chunks.append(current)
            current, weight = [], 0
    if current:
        chunks.append(current)
    return chunks


@contextlib.contextmanager
def connect(address: DaskAddress) -> Iterator[Client]:
    """A client of the cluster at ``address``; a ``local:N`` cluster lives as long as the context."""
    if address.local_workers is not None:
        import dask

        # the workers' sampling profiler (a stack walk every 10 ms) costs a parse-bound task about 10%
        with tempfile.TemporaryDirectory(prefix="rofl-dask-") as scratch, dask.config.set(PROFILE_OFF):
            cluster = LocalCluster(
                n_workers=address.local_workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",  # loopback only: nothing outside this machine reaches the scheduler
                scheduler_port=0,
                dashboard_address="127.0.0.1:0",  # its HTTP routes on a free loopback port (none is needed)
                silence_logs=logging.ERROR,
                local_directory=scratch,
            )
            with cluster, Client(cluster) as client:
                yield client
        return
    try:
        client = Client(address.text, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as err:
        raise ScanError(
            f"cannot reach the Dask scheduler at {shown(address.text)} ({shown(str(err).splitlines()[0] if str(err) else type(err).__name__)})",
            "start one (dask scheduler; dask worker ADDRESS on each machine) or check the address",
        ) from None
    with client:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except TimeoutError:
            raise ScanError(
                f"the Dask scheduler at {shown(address.text)} has no workers",
                "start some (dask worker ADDRESS) with the scanned tree and --out on shared storage",
            ) from None
        yield client


def extract_on_cluster(
    materializer: Materializer, paths: list[str], sizes: dict[str, int], address: DaskAddress
) -> Iterator[FileResult]:
    """Extract ``paths`` on the cluster at ``address``, yielding each outcome as its chunk comes back.

    Merges the config signatures the workers recorded into ``materializer.store.seen``.  The caller
    may stop iterating at any point (a cancelled scan): the chunks still queued are cancelled and the
    workers stop between files.
    """
    context = replace(materializer.context, protected=frozenset(materializer.protected))
    from rofl.scanner.files import grammar_for

    grammars = frozenset(grammar_for(p) for p in paths)
    token = secrets.token_hex(16)
    probe = os.path.join(context.out, PROBE_NAME)
    safe_write.write_atomic(probe, token.encode("ascii") + b"\n")
    redo: list[list[str]] = []
    try:
        with connect(address) as client:
            name = f"rofl-scan-{token}"
            try:
                client.register_plugin(ScanKit(context, grammars, token, _versions()), name=name)
            except Exception as err:  # noqa: BLE001 - the workers could not load the kit: no rofl there, or another one
                raise ScanError(
                    f"the Dask workers at {shown(address.text)} cannot run rofl's extraction "
                    f"({type(err).__name__}: {shown(str(err).splitlines()[0] if str(err) else '')})",
                    "install the same rofl on every worker",
                ) from None
            threads = sum(client.nthreads().values())
            chunks = chunk_by_bytes(paths, sizes, max(1, threads))
            _log.info(
                "extracting %d file(s) in %d chunk(s) on %s (%d worker thread(s))",
                len(paths),
                len(chunks),
                address.text,
                threads,
            )
            keys = [f"rofl-extract-{token}-{i}" for i in range(len(chunks))]
            futures = client.map(extract_chunk, [name] * len(chunks), chunks, key=keys, pure=False)
            which = {future.key: i for i, future in enumerate(futures)}
            try:
                for future in as_completed(futures):
                    try:
                        result: ChunkResult = future.result()
                    except Exception as err:  # noqa: BLE001 - a lost worker or our bug: redone here, where a bug stops the scan
                        _log.warning(
                            "a chunk failed on the cluster (%s: %s), extracting it here", type(err).__name__, err
                        )
                        redo.append(chunks[which[future.key]])
                        continue
                    if result.problem is not None:
                        raise ScanError(*result.problem)
                    materializer.store.seen.update(result.seen)
                    yield from result.outcomes
            finally:
                client.cancel(futures)
                with contextlib.suppress(Exception):  # the cluster may be going away under us
                    client.unregister_worker_plugin(name)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(probe)  # workers still running stop at their next file
    if redo:
        from rofl.scanner.pool import prepare

        rest = [p for chunk in redo for p in chunk]
        prepare(materializer, rest)
        for path in rest:
            yield materializer.extract(path)
