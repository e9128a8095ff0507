"""A server's session: one scanned fact folder kept loaded between calls, its kernels lent to one call at a time."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rofl.engine import vocabulary as V
from rofl.engine.kernel import Kernel
from rofl.engine.snapshot import Snapshot
from rofl.scanner.layout import FACTS_FOLDER, MANIFEST_NAME

from rofl.loading.kernel import CODE_BUDGET, has_scan, loaded_code_kernel
from rofl.loading.source import Source, stamp

if TYPE_CHECKING:
    from rofl.scanner.manifest import Manifest

    from rofl.freshness import SourceWatch

# the rows the kernel adds by itself when a call first asserts into a relation or perspective: a
# kernel lent again to the same command keeps them (removing and adding them again would make every
# question re-derive boot's strata); lent to another command, it is restored exactly
DECLARATIONS = frozenset({V.EDB, V.AUTHORITY})


@dataclass(frozen=True, slots=True)
class Lease:
    """A loaded kernel lent to one call, with what it held and the scan it was loaded from."""

    key: tuple
    kernel: Kernel
    warnings: tuple[str, ...]
    signature: tuple
    snapshot: Snapshot


class Session:
    """One fact folder (and the sources scanned into it) kept loaded between calls.

    A question asked through ``session.source()`` (a ``SessionSource``) over this folder is lent a kernel
    loaded once (per rule files and budget) instead of loading the store again; what the call asserts
    is retracted when it ends.  A kernel is reloaded when the scan changes (the
    manifest or a rule file changes on disk).  At most ``pool`` kernels per key exist; more callers
    wait for one.  ``scan_lock`` lets one scan of the folder run at a time in this process (the
    scanner's own lock file keeps other processes out).
    """

    MAX_KEYS = 4  # different (rules, budget) combinations kept loaded; the least recent is dropped

    def __init__(self, facts: str | Path, src: str | Path | None = None, pool: int = 2) -> None:
        self.facts = Path(facts).resolve()
        self.src = Path(src).resolve() if src is not None else None
        self.pool = pool
        self.scan_lock = threading.Lock()
        self._idle: dict[tuple, list[tuple[str | None, Lease]]] = {}  # (the command it is kept for, kernel)
        self._alive: dict[tuple, int] = {}
        self._cond = threading.Condition()
        self._manifest: tuple[tuple, Manifest] | None = None  # (signature, parsed manifest)
        self._kept: dict[str, tuple[tuple, object]] = {}  # name -> (signature, value): Session.kept
        self.sources: SourceWatch | None = None

    def watch_sources(self) -> None:
        """Count changes of the scanned sources from now on (``rofl.freshness``): while none arrives
        after a scan, questions skip the rescan the command line does first."""
        from rofl.freshness import SourceWatch

        if self.src is not None and self.sources is None:
            self.sources = SourceWatch(self.src, self.facts).start()

    def scanned(self) -> bool:
        """Whether the folder holds a scan yet (a server may start before the first one)."""
        return has_scan(self.facts)

    def fresh(self) -> bool:
        return self.sources is not None and self.sources.fresh()

    def close(self) -> None:
        if self.sources is not None:
            self.sources.close()

    def manifest(self) -> Manifest:
        """The scan's manifest, parsed once per version of the file (frozen: callers share it)."""
        from rofl.loading.factdir import read_manifest

        signature = self.signature(())
        kept = self._manifest
        if kept is not None and kept[0] == signature and signature[0] is not None:
            return kept[1]
        manifest = read_manifest(self.facts)
        self._manifest = (signature, manifest)
        return manifest

    def signature(self, rules: tuple) -> tuple:
        """The stat of the manifest, of the fact folders and of each rule file: a new scan (an atomic
        replace) changes it, and so does a fact file deleted or written back (a rescan that re-extracts
        missing fact files need not rewrite the manifest)."""
        return tuple(stamp(path) for path in (self.facts / MANIFEST_NAME, self.facts / FACTS_FOLDER, *map(Path, rules)))

    def holds(self, facts: str | Path) -> bool:
        return Path(facts).resolve() == self.facts

    def kept(self, name: str, build: Callable[[], object | None]) -> object | None:
        """A value built from this folder (``name`` says which), kept while the scan's signature holds,
        as a loaded kernel is (``rofl.loading.graph_index``'s view: impact by demand answers from memory)."""
        signature = self.signature(())
        with self._cond:
            found = self._kept.get(name)
        if found is not None and found[0] == signature:
            return found[1]
        value = build()
        if value is not None:
            with self._cond:
                self._kept[name] = (signature, value)
        return value

    def lease(self, rules: tuple, budget: int, command: str | None = None) -> Lease:
        """A loaded kernel for ``rules`` and ``budget`` over the current scan, lent until ``release``:
        one kept for ``command`` if there is one, else one restored exactly."""
        key = (tuple(str(r) for r in rules), budget)
        signature = self.signature(rules)
        kept_for: str | None = None
        with self._cond:
            while True:
                idle = self._idle.setdefault(key, [])
                stale = [entry for entry in idle if entry[1].signature != signature]
                for entry in stale:
                    idle.remove(entry)
                    self._alive[key] -= 1
                if idle:
                    entry = next((e for e in idle if e[0] == command), None) or next(
                        (e for e in idle if e[0] is None), idle[-1]
                    )
                    idle.remove(entry)
                    found: Lease | None = entry[1]
                    kept_for = entry[0]
                    break
                if self._alive.get(key, 0) < self.pool:
                    self._alive[key] = self._alive.get(key, 0) + 1
                    found = None
                    break
                self._cond.wait()
            self._forget_old_keys(key)
        if found is None:
            try:
                kernel, warnings = loaded_code_kernel(str(self.facts), rules, budget)
            except BaseException:
                with self._cond:
                    self._alive[key] -= 1
                    self._cond.notify_all()
                raise
            found = Lease(key, kernel, warnings, signature, Snapshot.of(kernel))
        elif kept_for not in (None, command) and not found.snapshot.restore(found.kernel):
            with self._cond:  # cannot happen (it only holds declarations); load another rather than lend it
                self._alive[key] -= 1
            return self.lease(rules, budget, command)
        return found

    def release(self, lease: Lease, command: str | None = None) -> None:
        """Take back a lent kernel: restored to what it held (but the declarations ``command``'s calls
        add), or dropped when it cannot be."""
        keep = DECLARATIONS if command is not None else frozenset()
        kept = lease.snapshot.restore(lease.kernel, keep) and lease.signature == self.signature(lease.key[0])
        kept_for = command if kept and command is not None and lease.snapshot.added(lease.kernel, keep) else None
        with self._cond:
            if kept:
                self._idle.setdefault(lease.key, []).append((kept_for, lease))
            else:
                self._alive[lease.key] -= 1
            self._cond.notify_all()

    def _forget_old_keys(self, newest: tuple) -> None:
        """Drop the idle kernels of the least recently leased keys beyond ``MAX_KEYS`` (under the lock)."""
        self._idle[newest] = self._idle.pop(newest)  # most recent last
        for key in list(self._idle)[: max(0, len(self._idle) - self.MAX_KEYS)]:
            self._alive[key] -= len(self._idle[key])
            del self._idle[key]

    @contextmanager
    def source(self, command: str | None = None) -> Iterator[SessionSource]:
        """The source one call of ``command`` loads through: the kernels it leases are given back when the
        block ends."""
        source = SessionSource(self, command)
        try:
            yield source
        finally:
            source.release()


class SessionSource(Source):
    """A question's source inside a server (``Session.source``): over the session's folder, a loaded kernel
    lent (its load warnings repeated in ``warnings``), the manifest parsed once, values kept while the scan
    holds, the watcher's word on the sources; anything else loads from disk as the command line's."""

    __slots__ = ("command", "leases", "session")

    def __init__(self, session: Session, command: str | None = None) -> None:
        from rofl.rounds import rounds_of

        super().__init__(rounds_of)
        self.session = session
        self.command = command
        self.leases: list[Lease] = []

    def lent(self, facts: str, rules: tuple, budget: int | None) -> Kernel | None:
        """The session's loaded kernel when ``facts`` is its folder (its load warnings repeated in ``warnings``)."""
        if not self.session.holds(str(facts)):
            return None
        lease = self.session.lease(rules, budget or CODE_BUDGET, self.command)
        self.leases.append(lease)
        self.warnings.extend(lease.warnings)
        return lease.kernel

    def manifest(self, facts: Path) -> Manifest:
        return self.session.manifest() if self.session.holds(facts) else super().manifest(facts)

    def kept(self, facts: Path, name: str, build: Callable[[], object]) -> object:
        return self.session.kept(name, build) if self.session.holds(facts) else build()

    def serves(self, facts: Path) -> bool:
        return self.session.holds(facts)

    def sources_unchanged(self, facts: Path) -> bool:
        return self.session.holds(facts) and self.session.fresh()

    def release(self) -> None:
        """Give every leased kernel back to the session (restored to what it held)."""
        leases, self.leases = self.leases, []
        for lease in leases:
            self.session.release(lease, self.command)
