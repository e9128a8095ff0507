"""The scan entry point: ``scan(src, out, ...)`` brings an output folder up to date and says what it did.

One scan: lock the output folder; list the sources; if ``.scan-state.json`` shows nothing changed,
stop there (no manifest read, no hashing, no tree-sitter, no writes).  Otherwise read the
manifest, plan (``scanner.plan``: reuse, parse, re-resolve, drop), re-resolve and extract
(``scanner.pool``: forked helpers when there are many files), write the manifest atomically after
every fact file, then the scan state, then delete fact files no manifest points to.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from engine import safe_write
from scanner import layout, manifest, state
from scanner.errors import ScanError
from scanner.files import Listing, PathFilter, list_files
from scanner.lock import LockHeld, acquire
from scanner.versions import EXTRACTOR_VERSION, RESOLVER_VERSION, grammar_versions

if TYPE_CHECKING:  # the modules that do the work load only when there is work
    from scanner.configs import Signature
    from scanner.plan import Plan

DEFAULT_MAX_BYTES = 2 * 1024 * 1024


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
        return (
            f"rofl scan: {self.files} files seen, {self.parsed} parsed, {self.reused} reused{extra}, "
            f"{self.removed} removed, {self.errors} errors in {self.seconds:.2f}s -> {self.out}"
        )


def _shown(text: str) -> str:
    """``text`` for a one-line message: control characters and lone surrogates escaped."""
    return text if text.isprintable() else ascii(text)[1:-1]


def _write_preamble(out: str) -> dict[str, str]:
    from scanner.factfile import write_if_changed

    return write_if_changed(out, layout.PREAMBLE_NAME, layout.PREAMBLE_TEXT.encode("utf-8"))


def _remove_orphans(out: str, present: set[str], keep: set[str]) -> None:
    folder = os.path.join(out, layout.FACTS_FOLDER)
    for name in present:
        if layout.FACTS_FOLDER + "/" + name not in keep:
            try:
                os.unlink(os.path.join(folder, name))
            except (FileNotFoundError, IsADirectoryError, PermissionError):
                pass  # gone already, or a folder planted there: not a file the scan wrote


_STALE_TEMPORARY = re.compile(r"(?:manifest\.json|\.scan-state\.json|preamble\.rofl|entries\.rofl)\.\d+\.\d+\.tmp\Z")


def _remove_stale_temporaries(out: str) -> None:
    """Delete the temporaries a killed scan left beside the files it replaces (``engine.safe_write``
    names); only the lock holder writes them, so under the lock every one is stale."""
    try:
        names = os.listdir(out)
    except OSError:
        return
    for name in names:
        if name.endswith(".tmp") and _STALE_TEMPORARY.match(name):
            try:
                os.unlink(os.path.join(out, name))
            except OSError:
                pass


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
                f"{globs} match none of the {total} source files under SRC, nothing was scanned or removed",
                "fix the globs (they match paths relative to SRC, e.g. 'src/**' or '*.test.ts')",
            )
    return listing


def _tool_version() -> str:
    try:
        from rofl import __version__
    except ImportError:
        return "unknown"
    return __version__


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
) -> ScanSummary:
    """Bring ``out`` up to date with the JS/TS sources under ``src``; raises ``ScanError`` on user errors.

    ``progress(done, total)`` is called as files are extracted.
    """
    started = time.perf_counter()
    src_abs = os.path.abspath(src)
    out_abs = os.path.abspath(out)
    if not os.path.isdir(src_abs):
        what = "does not exist" if not os.path.exists(src_abs) else "is not a folder"
        raise ScanError(f"SRC {src!r} {what}", "pass the folder of JS/TS sources to scan")
    if max_bytes < 1:
        raise ScanError(f"--max-bytes {max_bytes} is not positive", "give a size in bytes such as 2097152")
    try:
        os.makedirs(os.path.join(out_abs, layout.FACTS_FOLDER), exist_ok=True)
        safe_write.check_folder(os.path.join(out_abs, layout.FACTS_FOLDER))
    except safe_write.UnsafePath as err:
        raise ScanError(
            f"{_shown(str(err.filename))} {err.strerror}, nothing was written",
            "remove it so that the scan can create the folder itself",
        ) from None
    except OSError as err:
        raise ScanError(f"cannot create --out {out!r} ({err.strerror})", "choose a writable folder") from None
    try:
        lock = acquire(out_abs)
    except safe_write.UnsafePath as err:
        raise ScanError(
            f"{_shown(str(err.filename))} {err.strerror}, nothing was written",
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
        _remove_stale_temporaries(out_abs)
        try:
            return _scan_locked(
                src_abs,
                out_abs,
                verify,
                jobs or os.cpu_count() or 1,
                max_bytes,
                include,
                exclude,
                progress,
                started,
                lock.fd,
            )
        except safe_write.UnsafePath as err:  # a symlink or special file planted where the scan writes
            raise ScanError(
                f"{_shown(str(err.filename))} {err.strerror}, the scan stopped before writing it",
                "remove it and scan again; the previous scan's manifest is intact",
            ) from None
        except OSError as err:  # the output folder failed us (full disk, read-only, removed)
            if err.filename is None or not os.path.abspath(str(err.filename)).startswith(out_abs):
                raise
            raise ScanError(
                f"cannot write {err.filename} ({err.strerror})",
                "check that --out is writable and the disk has room; the previous scan's manifest is intact",
            ) from None


def _scan_locked(
    src: str,
    out: str,
    verify: bool,
    jobs: int,
    max_bytes: int,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    progress: Callable[[int, int], None] | None,
    started: float,
    lock_fd: int = -1,
) -> ScanSummary:
    options = {"max_bytes": max_bytes, "include": list(include), "exclude": list(exclude)}
    versions = grammar_versions()
    state_key = {
        "src": src,
        "options": options,
        "grammar_versions": versions,
        "extractor_version": EXTRACTOR_VERSION,
        "resolver_version": RESOLVER_VERSION,
    }
    listing = scan_listing(src, out, include, exclude)
    try:
        present = set(os.listdir(os.path.join(out, layout.FACTS_FOLDER)))
    except OSError:
        present = set()
    saved = state.load(out)
    if saved is not None and not verify and saved.get("key") == state_key:
        quick = state.unchanged(src, out, saved, listing, present)
        if quick is not None:
            files, errors = quick
            return ScanSummary(
                files=files,
                parsed=0,
                reused=files,
                resolved=0,
                skipped=0,
                removed=0,
                errors=errors,
                unreadable=(),
                seconds=time.perf_counter() - started,
                out=out,
                manifest_written=False,
            )

    old = manifest.load(out)
    extraction_valid = old is not None and (
        old.get("extractor_version") == EXTRACTOR_VERSION
        and old.get("grammar_versions") == versions
        and old.get("options") == options
        and old.get("src") == src
    )
    resolution_valid = extraction_valid and old is not None and old.get("resolver_version") == RESOLVER_VERSION
    from scanner.plan import make_plan

    plan = make_plan(src, out, listing, present, old, extraction_valid, resolution_valid, verify)
    entries = dict(plan.reuse)
    unreadable = dict(plan.unreadable)
    configs = dict(plan.configs)
    parsed = skipped = resolved = 0
    if not plan.nothing_to_do:
        parsed, skipped, resolved = _execute(
            plan, src, out, listing, jobs, max_bytes, progress, entries, unreadable, configs, lock_fd
        )

    preamble = _write_preamble(out)
    new_manifest: dict[str, Any] | None = None
    written = False
    if (
        not plan.nothing_to_do
        or old is None
        or old.get("preamble") != preamble
        or not resolution_valid
        or "package_entries" not in old
    ):
        from scanner.entries import package_entries, write_entries

        config_errors: dict[str, str] = {}
        pairs = package_entries(src, listing.packages, set(entries), config_errors)
        package_record = write_entries(out, pairs, config_errors, unreadable)
        new_manifest = _build_manifest(
            src, options, versions, preamble, entries, configs, plan.packages, listing, unreadable
        )
        new_manifest["package_entries"] = package_record
        if new_manifest != old:
            manifest.write(out, new_manifest)
            written = True
    if written or saved is None or saved.get("key") != state_key:
        current = new_manifest if new_manifest is not None else old
        if current is not None:
            state.write(out, current, state_key)
    keep = {e["facts"] for e in entries.values()}
    if len(present) != len(keep) or written:
        _remove_orphans(out, present, keep)
    return ScanSummary(
        files=len(plan.sizes) + len([p for p in unreadable if p not in plan.sizes]),
        parsed=parsed,
        reused=len(entries) - parsed - skipped,
        resolved=resolved,
        skipped=skipped,
        removed=len(plan.removed),
        errors=sum(1 for e in entries.values() if e.get("errors")) + len(unreadable),
        unreadable=tuple(sorted(unreadable)),
        seconds=time.perf_counter() - started,
        out=out,
        manifest_written=written,
    )


def _execute(
    plan: Plan,
    src: str,
    out: str,
    listing: Listing,
    jobs: int,
    max_bytes: int,
    progress: Callable[[int, int], None] | None,
    entries: dict[str, dict[str, Any]],
    unreadable: dict[str, str],
    configs: dict[str, Signature],
    lock_fd: int = -1,
) -> tuple[int, int, int]:
    """Re-resolve and extract what the plan says, updating ``entries``, ``unreadable`` and ``configs``.

    Returns (parsed, skipped, resolved).
    """
    from scanner.materialize import Materializer, ScanContext
    from scanner.pool import extract_all

    context = ScanContext(src, out, frozenset(plan.sizes), plan.packages, listing.from_git, max_bytes, plan.protected)
    materializer = Materializer(context)
    materializer.store.seen.update(plan.store_seen)
    to_parse = list(plan.to_parse)
    resolved = 0
    for path in plan.to_resolve:
        outcome = materializer.reresolve(path, plan.reuse[path])
        if outcome.needs_parse:  # its fact file was edited: extract it again
            to_parse.append(path)
        else:
            entries[path] = outcome.entry  # type: ignore[assignment]
            resolved += 1
    for path in to_parse:
        entries.pop(path, None)
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, len(to_parse))

    parsed = skipped = 0
    sizes = {p: plan.sizes.get(p, 0) for p in to_parse}
    for outcome in extract_all(materializer, to_parse, sizes, jobs, advance, (lock_fd,) if lock_fd >= 0 else ()):
        if outcome.entry is not None:
            entries[outcome.path] = outcome.entry
        elif outcome.unreadable is not None:
            unreadable[outcome.path] = outcome.unreadable
        parsed += outcome.parsed
        skipped += outcome.skipped
    configs.update(materializer.store.seen)
    return parsed, skipped, resolved


def _build_manifest(
    src: str,
    options: dict[str, Any],
    versions: dict[str, str],
    preamble: dict[str, str],
    entries: dict[str, dict[str, Any]],
    configs: dict[str, Signature],
    packages: dict[str, str],
    listing: Listing,
    unreadable: dict[str, str],
) -> dict[str, Any]:
    referenced: set[str] = set(listing.packages)
    for entry in entries.values():
        referenced.update(entry.get("resolution_deps", ()))
    kept_configs = {k: v for k, v in configs.items() if k in referenced}
    resolution = [0, 0, 0]
    for entry in entries.values():
        for i, n in enumerate(entry.get("resolution", (0, 0, 0))):
            resolution[i] += n
    return {
        "format": manifest.FORMAT,
        "tool_version": _tool_version(),
        "extractor_version": EXTRACTOR_VERSION,
        "resolver_version": RESOLVER_VERSION,
        "grammar_versions": versions,
        "options": options,
        "src": src,
        "preamble": preamble,
        "files": dict(sorted(entries.items())),
        "configs": dict(sorted(kept_configs.items())),
        "packages": dict(sorted(packages.items())),
        "workspace": list(listing.packages),
        "unreadable": sorted(unreadable),
        "counts": {
            "files": len(entries),
            "parse_errors": sum(1 for e in entries.values() if e.get("errors")),
            "unreadable": len(unreadable),
            "resolves": resolution[0],
            "external": resolution[1],
            "unresolved": resolution[2],
        },
    }
