"""The scan entry point: ``scan(src, out, ...)`` brings an output folder up to date and says what it did.

One scan: lock the output folder, read the previous manifest, list and stat the sources, decide
per file (reuse on equal size+mtime, re-hash otherwise or with ``verify``), work out which
unchanged files need re-resolution from the paths that appeared or disappeared and the config
files that changed, extract what is new or changed (forked workers when there are many), write
the manifest atomically last, then delete fact files no manifest points to.  Nothing imports
tree-sitter unless a file needs parsing, and a scan that finds nothing changed writes nothing.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scanner import layout, manifest, state
from scanner.files import Listing, PathFilter, list_files, source_stat
from scanner.lock import LockHeld, acquire
from scanner.versions import EXTRACTOR_VERSION, RESOLVER_VERSION, grammar_versions

if TYPE_CHECKING:  # the modules that do the work load only when there is work
    from scanner.configs import ConfigStore, Signature
    from scanner.materialize import Outcome

PACKAGE_DEP = "package:"  # scanner.resolve.PACKAGE_DEP, repeated here to keep the no-change path light

DEFAULT_MAX_BYTES = 2 * 1024 * 1024


class ScanError(Exception):
    """A user error: what is wrong and how to fix it (printed as one line, exit status 2)."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(f"{what}, {fix}")
        self.what = what
        self.fix = fix


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


def _config_changed(src: str, key: str, old: Signature) -> tuple[bool, Signature]:
    """(changed?, current signature) of one recorded config path, re-hashing only on a stat change."""
    from scanner.hashing import hash_file

    absolute = os.path.normpath(os.path.join(src, key))
    try:
        st = os.stat(absolute)
    except OSError:
        return old is not None, None
    if old is not None and old[0] == st.st_size and old[1] == st.st_mtime_ns:
        return False, old
    try:
        digest = hash_file(absolute)
    except OSError:
        return old is not None, None
    current: Signature = [st.st_size, st.st_mtime_ns, digest]
    return old is None or old[2] != digest, current


def _workspace_packages(src: str, listing: Listing, store: ConfigStore) -> dict[str, str]:
    packages: dict[str, str] = {}
    for rel in listing.packages:
        data = store.read(os.path.join(src, rel))
        if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"]:
            folder = rel[: -len("package.json")].rstrip("/")
            packages.setdefault(data["name"], folder)
    return packages


def _write_preamble(out: str) -> dict[str, str]:
    from scanner.hashing import hash_bytes

    data = layout.PREAMBLE_TEXT.encode("utf-8")
    path = os.path.join(out, layout.PREAMBLE_NAME)
    try:
        with open(path, "rb") as handle:
            current = handle.read()
    except OSError:
        current = None
    if current != data:
        from scanner.factfile import write_atomic

        write_atomic(out, layout.PREAMBLE_NAME, data)
    return {"facts": layout.PREAMBLE_NAME, "digest": hash_bytes(data)}


def _remove_orphans(out: str, present: set[str], keep: set[str]) -> None:
    folder = os.path.join(out, layout.FACTS_FOLDER)
    for name in present:
        if layout.FACTS_FOLDER + "/" + name not in keep:
            try:
                os.unlink(os.path.join(folder, name))
            except FileNotFoundError:
                pass


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
    except OSError as err:
        raise ScanError(f"cannot create --out {out!r} ({err.strerror})", "choose a writable folder") from None
    try:
        lock = acquire(out_abs)
    except LockHeld as held:
        raise ScanError(
            f"another scan (pid {held.pid}) is writing {out!r}",
            f"wait for it to finish, or use another --out (lock: {held.path})",
        ) from None
    except OSError as err:
        raise ScanError(f"cannot lock --out {out!r} ({err.strerror})", "choose a writable folder") from None
    with lock:
        try:
            return _scan_locked(
                src_abs, out_abs, verify, jobs or os.cpu_count() or 1, max_bytes, include, exclude, progress, started
            )
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
) -> ScanSummary:
    options = {"max_bytes": max_bytes, "include": list(include), "exclude": list(exclude)}
    versions = grammar_versions()
    key = {
        "src": src,
        "options": options,
        "grammar_versions": versions,
        "extractor_version": EXTRACTOR_VERSION,
        "resolver_version": RESOLVER_VERSION,
    }
    listing = list_files(src, PathFilter(include, exclude))
    try:
        present = set(os.listdir(os.path.join(out, layout.FACTS_FOLDER)))
    except OSError:
        present = set()
    saved = state.load(out)
    if saved is not None and not verify and saved.get("key") == key:
        quick = _quick_check(src, out, saved, listing, present)
        if quick is not None:
            return ScanSummary(
                files=quick[0],
                parsed=0,
                reused=quick[0],
                resolved=0,
                skipped=0,
                removed=0,
                errors=quick[1],
                unreadable=(),
                seconds=time.perf_counter() - started,
                out=out,
                manifest_written=False,
            )

    from scanner.hashing import hash_file

    old = manifest.load(out)
    old_files: dict[str, Any] = {}
    extraction_valid = False
    resolution_valid = False
    if old is not None:
        old_files = old["files"]
        extraction_valid = (
            old.get("extractor_version") == EXTRACTOR_VERSION
            and old.get("grammar_versions") == versions
            and old.get("options") == options
            and old.get("src") == src
        )
        resolution_valid = extraction_valid and old.get("resolver_version") == RESOLVER_VERSION
    if not extraction_valid:
        old_files = {}

    # -- which files changed ----------------------------------------------------------------------
    stats: dict[str, int] = {}  # path -> size
    unreadable: dict[str, str] = {}
    reuse: dict[str, dict[str, Any]] = {}
    to_parse: list[str] = []
    touched = False  # an entry changed without a parse (same content, new stat)
    tampered: set[str] = set()  # fact files whose bytes no longer match their digest
    facts_prefix = layout.FACTS_FOLDER + "/"
    root_real = os.path.realpath(src)
    for path in listing.sources:
        full = os.path.join(src, path)
        try:
            st = source_stat(full, root_real)
        except OSError as err:
            unreadable[path] = err.strerror or str(err)
            continue
        if st is None:
            continue  # deleted in the work tree, a dangling link, or a link out of SRC
        stats[path] = st.st_size
        entry = old_files.get(path)
        if entry is None or entry.get("facts", "")[len(facts_prefix) :] not in present:
            to_parse.append(path)
            continue
        if not verify and entry.get("size") == st.st_size and entry.get("mtime_ns") == st.st_mtime_ns:
            reuse[path] = entry
            continue
        try:
            digest = hash_file(full)
        except OSError as err:
            unreadable[path] = err.strerror or str(err)
            continue
        if digest != entry.get("hash"):
            to_parse.append(path)
            continue
        if verify and not _fact_file_intact(out, entry):
            tampered.add(entry["facts"])
            to_parse.append(path)
            continue
        if entry.get("size") != st.st_size or entry.get("mtime_ns") != st.st_mtime_ns:
            entry = dict(entry, size=st.st_size, mtime_ns=st.st_mtime_ns)
            touched = True
        reuse[path] = entry

    file_set = frozenset(stats)
    old_set = set(old_files) | set(old.get("unreadable", []) if old else [])
    removed_paths = [p for p in old_files if p not in file_set]
    changed: set[str] = {p for p in file_set if p not in old_set}
    changed.update(p for p in old_set if p not in file_set)

    # -- configs and workspace packages -----------------------------------------------------------------
    store: ConfigStore | None = None
    old_configs: dict[str, Signature] = dict(old.get("configs", {})) if (old and resolution_valid) else {}
    configs: dict[str, Signature] = {}
    for config_key, signature in old_configs.items():
        was_changed, current = _config_changed(src, config_key, signature)
        configs[config_key] = current
        if was_changed:
            changed.add(config_key)
    old_packages: dict[str, str] = dict(old.get("packages", {})) if (old and resolution_valid) else {}
    old_workspace = list(old.get("workspace", [])) if (old and resolution_valid) else []
    workspace_stale = old_workspace != list(listing.packages) or any(k in changed for k in listing.packages)
    if workspace_stale or not resolution_valid:
        from scanner.configs import ConfigStore

        store = ConfigStore(src)
        packages = _workspace_packages(src, listing, store)
        for name in set(packages) | set(old_packages):
            if packages.get(name) != old_packages.get(name):
                changed.add(PACKAGE_DEP + name)
        changed_manifests = {k for k in listing.packages if k in changed}
        for name, folder in packages.items():
            if (folder + "/package.json" if folder else "package.json") in changed_manifests:
                changed.add(PACKAGE_DEP + name)
    else:
        packages = old_packages

    to_resolve: list[str] = []
    if not resolution_valid:
        to_resolve = sorted(reuse)
    elif changed:
        to_resolve = [p for p, e in reuse.items() if not changed.isdisjoint(e.get("resolution_deps", ()))]

    # -- do the work ----------------------------------------------------------------------------------------
    if store is not None:
        configs.update(store.seen)
    state_changed = configs != old_configs or packages != old_packages or old_workspace != list(listing.packages)
    nothing_to_do = not (to_parse or to_resolve or removed_paths or touched or state_changed)
    entries: dict[str, dict[str, Any]] = dict(reuse)
    parsed = skipped = resolved = 0
    if not nothing_to_do:
        from scanner.materialize import Materializer, ScanContext

        named = old["files"].values() if old is not None else ()
        protected = frozenset(e.get("facts") for e in named) & {
            layout.FACTS_FOLDER + "/" + name for name in present
        } - tampered
        context = ScanContext(src, out, file_set, packages, listing.from_git, max_bytes, protected)
        materializer = Materializer(context)
        if store is not None:
            materializer.store.seen.update(store.seen)
        for path in to_resolve:
            outcome = materializer.reresolve(path, reuse[path])
            if outcome.needs_parse:
                to_parse.append(path)
                del entries[path]
            else:
                entries[path] = outcome.entry  # type: ignore[assignment]
                resolved += 1
        for path in to_parse:
            entries.pop(path, None)
        total = len(to_parse)
        done = 0

        def advance(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total)

        from scanner.pool import extract_all

        sizes = {p: stats[p] for p in to_parse if p in stats}
        for outcome in extract_all(materializer, to_parse, sizes, jobs, advance):
            _collect(outcome, entries, unreadable)
            parsed += outcome.parsed
            skipped += outcome.skipped
        for key, signature in materializer.store.seen.items():
            configs[key] = signature

    reused = len(entries) - parsed - skipped
    errors = sum(1 for e in entries.values() if e.get("errors")) + len(unreadable)
    preamble = _write_preamble(out)
    new_manifest: dict[str, Any] | None = None
    written = False
    if not nothing_to_do or old is None or old.get("preamble") != preamble or not resolution_valid:
        new_manifest = _build_manifest(
            src, options, versions, preamble, entries, configs, packages, listing, unreadable
        )
        if new_manifest != old:
            manifest.write(out, new_manifest)
            written = True
    if written or saved is None or saved.get("key") != key:
        current = new_manifest if new_manifest is not None else old
        if current is not None:
            state.write(out, current, key)
    keep = {e["facts"] for e in entries.values()}
    if len(present) != len(keep) or written:
        _remove_orphans(out, present, keep)
    return ScanSummary(
        files=len(stats) + len([p for p in unreadable if p not in stats]),
        parsed=parsed,
        reused=reused,
        resolved=resolved,
        skipped=skipped,
        removed=len(removed_paths),
        errors=errors,
        unreadable=tuple(sorted(unreadable)),
        seconds=time.perf_counter() - started,
        out=out,
        manifest_written=written,
    )


def _quick_check(
    src: str, out: str, saved: dict[str, Any], listing: Listing, present: set[str]
) -> tuple[int, int] | None:
    """(files, errors) when the saved state shows nothing changed at all, else None."""
    files = saved.get("files")
    if not isinstance(files, dict) or saved.get("unreadable") or saved.get("workspace") != list(listing.packages):
        return None
    if len(files) != len(listing.sources) or len(present) != len(files):
        return None
    cut = len(layout.FACTS_FOLDER) + 1
    join = os.path.join
    lstat = os.lstat
    link = stat.S_ISLNK
    try:
        for path in listing.sources:
            known = files.get(path)
            if known is None:
                return None
            st = lstat(join(src, path))
            if link(st.st_mode):
                st = os.stat(join(src, path))  # a link's own mtime does not move when its target changes
            if st.st_size != known[0] or st.st_mtime_ns != known[1] or known[2][cut:] not in present:
                return None
        for config, stamp in saved.get("configs", {}).items():
            try:
                st = os.stat(os.path.normpath(join(src, config)))
            except FileNotFoundError:
                if stamp is not None:
                    return None
                continue
            if stamp is None or st.st_size != stamp[0] or st.st_mtime_ns != stamp[1]:
                return None
        with open(join(out, layout.PREAMBLE_NAME), "rb") as handle:
            if handle.read() != layout.PREAMBLE_TEXT.encode("utf-8"):
                return None
    except (OSError, TypeError, IndexError):
        return None
    return len(files), int(saved.get("errors", 0))


def _fact_file_intact(out: str, entry: dict[str, Any]) -> bool:
    from scanner.hashing import hash_bytes

    try:
        with open(os.path.join(out, entry["facts"]), "rb") as handle:
            return hash_bytes(handle.read()) == entry.get("digest")
    except (OSError, KeyError):
        return False


def _collect(outcome: Outcome, entries: dict[str, dict[str, Any]], unreadable: dict[str, str]) -> None:
    if outcome.entry is not None:
        entries[outcome.path] = outcome.entry
    elif outcome.unreadable is not None:
        unreadable[outcome.path] = outcome.unreadable


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
