"""The scan entry point: ``scan(src, out, ...)`` brings an output folder up to date and says what it did.

One scan: lock the output folder; list the sources; if ``.scan-state.json`` shows nothing changed,
stop there (no manifest read, no hashing, no tree-sitter, no writes).  Otherwise read the
manifest, decide the work (``scanner.worklist``: reuse, parse, re-resolve, drop), re-resolve and
extract (``scanner.pool``: forked helpers when there are many files), then commit
(``scanner.commit``): the manifest atomically after every fact file, then the scan state, then the
removal of fact files no manifest names.  Every step reads one ``ScanRun`` (``scanner.run``).

The caller says which tool is scanning (``tool_version``, recorded in the manifest); the scanner
imports nothing of the command line.  The caller's progress listener hears each extracted file, and
its cancellation check (by default the running call's ``engine.events`` reporter) may stop the scan
between files and before the commit, so that a cancelled scan leaves the previous one intact.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from rofl.engine.base import safe_write
from rofl.scanner import layout, manifest, state
from rofl.scanner.commit import Extracted, Found, commit, remove_stale_temporaries
from rofl.scanner.errors import ScanError, shown
from rofl.scanner.files import Listing, PathFilter, list_files
from rofl.scanner.lock import LockHeld, acquire
from rofl.scanner.manifest import DEFAULT_MAX_BYTES, ScanOptions
from rofl.scanner.run import UNKNOWN_TOOL, ScanRun, never_cancelled
from rofl.scanner.versions import EXTRACTOR_VERSION, RESOLVER_VERSION, grammar_versions

if TYPE_CHECKING:  # the modules that do the work load only when there is work
    from rofl.scanner.worklist import Previous, Worklist

__all__ = ["DEFAULT_MAX_BYTES", "ScanError", "ScanSummary", "scan", "scan_listing"]

_log = logging.getLogger(__name__)  # what the scan does, for `rofl scan -v` (rofl.logs)


@dataclass(frozen=True, slots=True)
class ScanSummary:
    """What one scan did.  ``files = parsed + reused + skipped + unreadable``."""

    files: int  # sources seen
    parsed: int  # handed to tree-sitter in this run
    reused: int  # facts kept without parsing (including re-resolved ones)
    resolved: int  # of the reused, re-resolved because a file they probed or a config changed
    skipped: int  # refused content (binary, too large, not UTF-8): src_file + src_parse_error only
    removed: int  # sources that disappeared since the last scan
    errors: int  # files with src_parse_error, plus unreadable files
    unreadable: tuple[str, ...]
    seconds: float
    out: str
    manifest_written: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "parsed": self.parsed,
            "reused": self.reused,
            "resolved": self.resolved,
            "skipped": self.skipped,
            "removed": self.removed,
            "errors": self.errors,
            "unreadable": list(self.unreadable),
            "seconds": round(self.seconds, 4),
            "out": self.out,
            "manifest_written": self.manifest_written,
        }

    def line(self) -> str:
        extra = f", {self.resolved} re-resolved" if self.resolved else ""
        extra += f", {self.skipped} skipped" if self.skipped else ""
        line = (
            f"rofl scan: {self.files} files seen, {self.parsed} parsed, {self.reused} reused{extra}, "
            f"{self.removed} removed, {self.errors} errors in {self.seconds:.2f}s -> {self.out}"
        )
        if self.errors > len(self.unreadable):  # files with src_parse_error: say how to see them
            line += f"\n  list the errors: rofl ask 'src_parse_error[code](P, M)' --facts {shlex.quote(self.out)}"
        return line

    @staticmethod
    def unchanged(run: ScanRun, files: int, errors: int) -> ScanSummary:
        """A scan that found nothing to do (from the scan state alone)."""
        return ScanSummary(files, 0, files, 0, 0, 0, errors, (), time.perf_counter() - run.started, run.out, False)

    @staticmethod
    def of(run: ScanRun, work: Worklist, extracted: Extracted, written: bool) -> ScanSummary:
        unreadable = extracted.unreadable
        entries = extracted.entries
        return ScanSummary(
            files=len(work.sizes) + len([p for p in unreadable if p not in work.sizes]),
            parsed=extracted.parsed,
            reused=len(entries) - extracted.parsed - extracted.skipped,
            resolved=extracted.resolved,
            skipped=extracted.skipped,
            removed=len(work.removed),
            errors=sum(1 for e in entries.values() if e.get("errors")) + len(unreadable),
            unreadable=tuple(sorted(unreadable)),
            seconds=time.perf_counter() - run.started,
            out=run.out,
            manifest_written=written,
        )


def _holds(folder: str, path: str) -> bool:
    """True when ``path`` is ``folder`` or inside it (absolute, real paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def refuse_unsafe_out(src: str, out: str, option: str = "--out") -> None:
    """``ScanError`` when ``out`` is ``src`` or a folder holding it: a scan would write its manifest and
    fact files among the files it scans (a server checks its --facts with this before any scan)."""
    if _holds(os.path.realpath(os.path.abspath(out)), os.path.realpath(os.path.abspath(src))):
        raise ScanError(
            f"{option} {out!r} is SRC or a folder holding it: the scan would write its manifest and fact files "
            "among the files it scans, nothing was written",
            f"give the facts a folder of their own, such as {option} facts/generated",
        )


def _inside_folder(rel: str, folder: str) -> bool:
    return rel == folder or rel.startswith(folder + "/")


def scan_listing(src: str, out: str, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> Listing:
    """The files a scan of ``src`` into ``out`` looks at: never the output folder's own files.

    Raises ``ScanError`` when --include/--exclude globs leave no source of the ones SRC holds, so
    that a typo in a glob never empties the fact folder.
    """
    src_abs = os.path.abspath(src)
    out_abs = os.path.abspath(out)
    listing = list_files(src_abs, PathFilter(include, exclude))
    rel = os.path.relpath(out_abs, src_abs).replace(os.sep, "/")
    if rel != "." and rel != ".." and not rel.startswith("../"):
        listing = replace(
            listing,
            sources=tuple(p for p in listing.sources if not _inside_folder(p, rel)),
            packages=tuple(p for p in listing.packages if not _inside_folder(p, rel)),
        )
    if (include or exclude) and not listing.sources:
        total = len(scan_listing(src, out).sources)
        if total:
            globs = " ".join([f"--include {g!r}" for g in include] + [f"--exclude {g!r}" for g in exclude])
            raise ScanError(
                f"{globs} leave none of the {total} source files under SRC to scan; nothing was scanned or removed",
                "fix the globs (they match paths relative to SRC, e.g. 'src/**' or '*.test.ts')",
            )
    return listing


def scan(
    src: str,
    out: str = "facts/generated",
    *,
    verify: bool = False,
    jobs: int | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    progress: Callable[[int, int], None] | None = None,
    check: Callable[[], None] | None = None,
    tool_version: str = UNKNOWN_TOOL,
    dask: str | None = None,
) -> ScanSummary:
    """Bring ``out`` up to date with the JS/TS sources under ``src``; raises ``ScanError`` on user errors,
    ``ExtractorFailure`` on the extractor's own, ``engine.events.ExecutionCancelled`` when cancelled.

    ``progress(done, total)`` is called as files are extracted (e.g. ``Reporter.progress_callback``).
    ``check()`` is the cancellation safe point, called between files and before the commit; by
    default the running call's reporter's (``engine.events.current().check``).
    ``dask``: extract on the Dask cluster at that address (``local:N`` or ``tcp://host:port``,
    ``scanner.dask_pool``) instead of forked helpers.
    """
    started = time.perf_counter()
    src_abs = os.path.abspath(src)
    out_abs = os.path.abspath(out)
    if not os.path.isdir(src_abs):
        what = "does not exist" if not os.path.exists(src_abs) else "is not a folder"
        raise ScanError(f"SRC {src!r} {what}", "pass the folder of JS/TS sources to scan")
    if max_bytes < 1:
        raise ScanError(f"--max-bytes {max_bytes} is not positive", "give a size in bytes such as 2097152")
    refuse_unsafe_out(src, out)
    cluster = None
    if dask is not None:  # before anything is locked or written
        from rofl.scanner.dask_address import DaskAddress, require_distributed

        cluster = DaskAddress.parse(dask)
        require_distributed()
    run = ScanRun(
        src=src_abs,
        out=out_abs,
        options=ScanOptions(max_bytes, tuple(include), tuple(exclude)),
        grammar_versions=grammar_versions(),
        started=started,
        verify=verify,
        jobs=jobs or os.cpu_count() or 1,
        tool_version=tool_version,
        progress=progress,
        check=check if check is not None else _current_check(),
        dask=cluster,
    )
    _make_out(run, out)
    try:
        lock = acquire(out_abs)
    except safe_write.UnsafePath as err:
        raise ScanError(
            f"{shown(str(err.filename))} {err.strerror}, nothing was written",
            "remove it (the scan creates its own lock file)",
        ) from None
    except LockHeld as held:
        raise ScanError(
            f"another scan (pid {held.pid}) is writing {out!r}",
            f"wait for it to finish, or use another --out (lock: {held.path})",
        ) from None
    except OSError as err:
        raise ScanError(f"cannot lock --out {out!r} ({err.strerror})", "choose a writable folder") from None
    with lock:
        if manifest.someone_elses(out_abs):
            raise ScanError(
                f"{shown(os.path.join(out_abs, layout.MANIFEST_NAME))} is not a rofl scan's manifest, nothing was written",
                "give the facts a folder of their own, such as --out facts/generated",
            )
        remove_stale_temporaries(out_abs)
        try:
            return _scan_locked(replace(run, lock_fd=lock.fd))
        except safe_write.UnsafePath as err:  # a symlink or special file planted where the scan writes
            raise ScanError(
                f"{shown(str(err.filename))} {err.strerror}, the scan stopped before writing it",
                "remove it and scan again; the previous scan's manifest is intact",
            ) from None
        except OSError as err:  # the output folder failed us (full disk, read-only, removed)
            if err.filename is None or not os.path.abspath(str(err.filename)).startswith(out_abs):
                raise
            raise ScanError(
                f"cannot write {err.filename} ({err.strerror})",
                "check that --out is writable and the disk has room; the previous scan's manifest is intact",
            ) from None


def _current_check() -> Callable[[], None]:
    """The running call's cancellation check (``engine.events.current()``).  Nobody can have set a
    reporter unless ``engine.events`` is loaded, so it is not imported for the answer (a no-change
    rescan stays cheap)."""
    loaded = sys.modules.get("rofl.engine.base.events")
    return loaded.current().check if loaded is not None else never_cancelled


def _make_out(run: ScanRun, out: str) -> None:
    """Create the output folder and its fact folder; ``ScanError`` when that is unsafe or impossible."""
    try:
        os.makedirs(os.path.join(run.out, layout.FACTS_FOLDER), exist_ok=True)
        safe_write.check_folder(os.path.join(run.out, layout.FACTS_FOLDER))
    except safe_write.UnsafePath as err:
        raise ScanError(
            f"{shown(str(err.filename))} {err.strerror}, nothing was written",
            "remove it so that the scan can create the folder itself",
        ) from None
    except OSError as err:
        raise ScanError(f"cannot create --out {out!r} ({err.strerror})", "choose a writable folder") from None


def _scan_locked(run: ScanRun) -> ScanSummary:
    """The scan, under the lock: find, decide, extract, then (unless cancelled) commit."""
    listing = scan_listing(run.src, run.out, run.options.include, run.options.exclude)
    saved = state.load(run.out)
    stamp, vouched = state.vouched_names(run.out, saved)  # the stamp before the folder is listed
    names = None if vouched else _fact_folder_names(run.out)
    how = "git" if listing.from_git else "a folder walk"
    _log.info("%s: %d source(s) listed by %s", run.src, len(listing.sources), how)
    state_key = run.state_key(EXTRACTOR_VERSION, RESOLVER_VERSION)
    if saved is not None and not run.verify and saved.get("key") == state_key:
        quick = state.unchanged(run.src, run.out, saved, listing, names)
        if quick is not None:
            _log.info("nothing changed since the last scan (its saved state matches): the manifest stays")
            if not vouched and stamp is not None:  # the listing matched the state: its stamp may vouch next time
                state.record_fact_folder(run.out, saved, stamp)
            return ScanSummary.unchanged(run, *quick)
    if names is None:
        names = _fact_folder_names(run.out)
    shaped = layout.FACT_FILE_NAME.match  # only names the scanner writes: anything else is not its to reuse or remove
    found = Found(listing, frozenset(n for n in names if shaped(n)), saved)
    from rofl.scanner.worklist import make_worklist

    previous = _previous(run)
    work = make_worklist(run.src, run.out, run.verify, found.listing, set(found.present), previous)
    kept = len(work.reuse) - len(work.to_resolve)
    _log.info("worklist: %d to extract, %d to re-resolve, %d kept", len(work.to_parse), len(work.to_resolve), kept)
    extracted = _execute(run, work, found.listing)
    _log.info(
        "extracted %d file(s) (%d refused), re-resolved %d", extracted.parsed, extracted.skipped, extracted.resolved
    )
    run.check()  # the last safe point: nothing the previous manifest names has been replaced yet
    written = commit(run, found, previous, work, extracted)
    _log.info("manifest %s in %s", "written" if written else "unchanged", run.out)
    return ScanSummary.of(run, work, extracted, written)


def sources_unchanged(out: str) -> bool:
    """Whether the sources of the scan in ``out`` are as that scan left them, told the way a no-change rescan
    tells it (its saved state: one stat per source, the fact folder's names, the configs), read-only: no lock,
    no manifest.  False when it cannot be told so (no state, a state of another manifest, any change): the
    caller then compares the sources with the manifest."""
    saved = state.load(out)
    key = saved.get("key") if saved is not None else None
    options = key.get("options") if isinstance(key, dict) else None
    if (
        saved is None
        or not isinstance(key, dict)
        or not isinstance(key.get("src"), str)
        or not isinstance(options, dict)
    ):
        return False
    include, exclude = options.get("include"), options.get("exclude")
    if not isinstance(include, list) or not isinstance(exclude, list):
        return False
    try:
        listing = scan_listing(key["src"], out, tuple(map(str, include)), tuple(map(str, exclude)))
    except (ScanError, OSError):
        return False
    vouched = state.vouched_names(out, saved)[1]
    return state.unchanged(key["src"], out, saved, listing, None if vouched else _fact_folder_names(out)) is not None


def _fact_folder_names(out: str) -> list[str]:
    """Every name in the output's fact folder (none when it cannot be listed)."""
    try:
        return os.listdir(os.path.join(out, layout.FACTS_FOLDER))
    except OSError:
        return []


def _previous(run: ScanRun) -> Previous:
    """The previous manifest and how much of it this scan may trust."""
    from rofl.scanner.worklist import Previous

    old = manifest.load(run.out)
    extraction_valid = old is not None and (
        old.get("extractor_version") == EXTRACTOR_VERSION
        and old.get("grammar_versions") == run.grammar_versions
        and old.get("options") == run.options.as_record()
        and old.get("src") == run.src
    )
    resolution_valid = extraction_valid and old is not None and old.get("resolver_version") == RESOLVER_VERSION
    return Previous(old, extraction_valid, resolution_valid)


def _execute(run: ScanRun, work: Worklist, listing: Listing) -> Extracted:
    """Re-resolve and extract what the worklist says; the entries, unreadable files and configs after it.

    Checks for cancellation between files.
    """
    entries = dict(work.reuse)
    if work.nothing_to_do:
        return Extracted(entries, dict(work.unreadable), dict(work.configs))
    from rofl.scanner.materialize import Materializer, ScanContext
    from rofl.scanner.pool import extract_all

    context = ScanContext(
        run.src, run.out, frozenset(work.sizes), work.packages, listing.top, run.options.max_bytes, work.protected
    )
    materializer = Materializer(context)
    materializer.store.seen.update(work.store_seen)
    to_parse = list(work.to_parse)
    resolved = 0
    for path in work.to_resolve:
        run.check()
        outcome = materializer.reresolve(path, work.reuse[path])
        if outcome.needs_parse or outcome.entry is None:  # its fact file was edited: extract it again
            to_parse.append(path)
        else:
            entries[path] = outcome.entry
            resolved += 1
    for path in to_parse:
        entries.pop(path, None)
    unreadable = dict(work.unreadable)
    parsed = skipped = done = 0
    sizes = {p: work.sizes.get(p, 0) for p in to_parse}
    helpers_close = (run.lock_fd,) if run.lock_fd >= 0 else ()
    for outcome in extract_all(materializer, to_parse, sizes, run.jobs, helpers_close, run.dask):
        if outcome.entry is not None:
            entries[outcome.path] = outcome.entry
        elif outcome.unreadable is not None:
            unreadable[outcome.path] = outcome.unreadable
        parsed += outcome.parsed
        skipped += outcome.skipped
        done += 1
        if run.progress is not None:
            run.progress(done, len(to_parse))
        run.check()
    return Extracted(entries, unreadable, {**work.configs, **materializer.store.seen}, parsed, skipped, resolved)
