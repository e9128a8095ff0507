"""The persisted import graph beside a scan's fact files: content-keyed, maintained per changed fact file, verified.

Three files in the fact folder, each ``MAGIC``, an HMAC tag under this user's secret (``rofl.loading.cachemac``),
a newline and a ``marshal`` payload, as the compiled store cache is:

* ``.rofl-graph.records``: per listed fact file, keyed by its path and digest, the rows of the [code]
  relations the impact rules read (``rofl.loading.graph_rules.RELATIONS``).  A rescan that rewrites one fact
  file changes one record: only that file is read and parsed again.
* ``.rofl-graph.index``: what a question reads: the digest of the manifest bytes it was built from
  (and the stamp of the manifest file that had them), each listed fact file with its digest and the
  stat it had when its bytes were checked (by folder, in columns), the stamps of the settled leaf
  folders that held exactly those files, what impact reads from the manifest (src, options, the
  scanned files, the workspace packages), and the graph ``rofl.loading.graph_rules.derive`` makes of every
  record (each node's importers, package-wide hops, the unfollowed imports).
* ``.rofl-graph.state``: the reverse indexes ``rofl.loading.graph_rules.maintain`` reads (``State``), keyed
  by the digest of the records payload they were made with.  When the index, the records and the state
  are of one build, a change maintains the graph from the changed records' rows (work in proportion to
  the keys they touch); otherwise (a first build, a package's entries or subpaths changed, most of the
  base touched, a write that did not happen) it is derived whole from the records, which gives the
  same graph.

``current(root)`` answers only when every check the loader makes holds: the manifest is this scan's,
every fact file it lists is there as a regular file with the digest recorded (and carried in its
name; the preamble is the scanner's), no other ``.rofl`` file is in the folder (no hand-written or
left-over facts), and rules/code.rofl still says what ``graph_rules`` mirrors.  A fact file whose
stat differs from the one recorded is read and checked again; anything else (an edit, a forged
file, a missing one, a damaged index) gives None, and the caller takes the full path, which loads
every file, warns and refuses as it always did.  An index or records file whose tag does not verify
is ignored and rebuilt, never partly trusted.

The common check costs one stat per fact file and no more (the trust the compiled cache's key and
the scan state rest on: an equal stat is an unchanged file): a leaf folder whose stamp (mtime,
inode, device) is the one recorded had no name added, removed or renamed, so is not listed again;
a manifest file whose stamp is the one recorded is the one whose digest the index holds, so is not
read (``ManifestFile``: opened once, its bytes read only when asked, from the file opened, which a
rescan replaces by a rename).  Stamps are recorded only of what changed at least ``SETTLED_NS``
ago: a fresher one could change again within its mtime's granule (the racy case git's index knows).
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from rofl.engine.base import safe_write
from rofl.scanner.factfile import named_digest
from rofl.scanner.hashing import hash_bytes
from rofl.scanner.layout import MANIFEST_NAME, PREAMBLE_TEXT
from rofl.scanner.manifest import MAX_MANIFEST_BYTES, Manifest
from rofl.scanner.stamps import SETTLED_NS
from rofl.scanner.worklist import MAX_FACT_FILE_BYTES

from .graph_rules import RELATIONS, Graph, Rows, State, derive, maintain, rules_match, state_of

INDEX_NAME = ".rofl-graph.index"
RECORDS_NAME = ".rofl-graph.records"
STATE_NAME = ".rofl-graph.state"
INDEX_MAGIC = b"rofl-graph-index 1\n"
RECORDS_MAGIC = b"rofl-graph-records 1\n"
STATE_MAGIC = b"rofl-graph-state 1\n"
STATE_FORMAT = 1  # of the state: graph_rules.State's fields, in order
FORMAT = 1  # of the records
INDEX_FORMAT = 2  # of the index: 2, the listing by folder in columns
MAX_INDEX_BYTES = 1 << 34
_PREFIXES = tuple(f"{rel}[code](" for rel in RELATIONS)
_GLOB_PREFIX = "package_nonsource_glob[code]("


class Listed(NamedTuple):
    """A fact file the manifest lists: its path in the folder, digest, and what else must hold of it
    (a tuple: a manifest lists tens of thousands, made on every check)."""

    path: str
    digest: str
    named: bool  # a source's fact file: its name carries its digest
    preamble: bool  # the preamble: one text only


@dataclass(frozen=True, slots=True)
class View:
    """What a question over the scan reads instead of the manifest and the fact files."""

    root: Path
    manifest_hash: str
    src: str
    options: dict
    files: frozenset[str]  # the scanned sources (the manifest's files)
    packages: dict[str, str]  # workspace package name -> folder
    graph: Graph
    updated: int  # fact files read and parsed to bring the index up to date (0: it was current)
    columns: tuple[tuple, ...]  # the listed fact files by folder (``_columns``)

    @property
    def listing(self) -> tuple[tuple, ...]:
        """(fact file, digest, named, preamble, size, mtime_ns, inode) of each listed one."""
        return _rows(self.columns)

    def base(self, secret: bytes) -> dict[str, list[tuple]] | None:
        """Every listed record's rows by relation (for classification beyond a changed source), or None."""
        records = _read_records(self.root, secret)
        if records is None:
            return None
        wanted = []
        for path, digest, *_ in self.listing:
            record = records.get(path)
            if record is None or record[0] != digest:
                return None
            wanted.append(record)
        return _union(wanted)


def manifest_bytes(root: Path) -> bytes | None:
    """The manifest's bytes as the one reader reads them (None: no regular file there)."""
    try:
        return safe_write.read_nofollow(str(root / MANIFEST_NAME), MAX_MANIFEST_BYTES)
    except OSError:
        return None


class ManifestFile:
    """The manifest opened once: its stamp, and its bytes read only when asked, from the file opened.

    The scanner replaces the manifest by a rename, never in place, so the open file keeps the bytes it
    had when opened even after a rescan writes another.  ``stamp`` is ``(size, mtime_ns, inode,
    device)`` when the file changed at least ``SETTLED_NS`` ago, else None: an equal stamp is the same
    file unchanged (the stat-based trust the scan state and the fact files' stamps rest on), and one
    changed more recently may change again within its mtime's granule (the racy case git's index knows)."""

    __slots__ = ("fd", "stamp", "data")

    def __init__(self, root: Path) -> None:
        import time

        self.fd: int | None = None
        self.stamp: tuple[int, int, int, int] | None = None
        self.data: bytes | None = None
        try:
            fd = safe_write.open_nofollow(str(root / MANIFEST_NAME), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_MANIFEST_BYTES:
            os.close(fd)
            return
        self.fd = fd
        if st.st_mtime_ns < time.time_ns() - SETTLED_NS:
            self.stamp = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)

    def read(self) -> bytes | None:
        """The bytes of the file opened (read once; None: no regular file there, or too large)."""
        fd, self.fd = self.fd, None
        if fd is None:
            return self.data
        try:
            chunks = []
            total, offset = 0, 0
            while chunk := os.pread(fd, 1 << 24, offset):
                chunks.append(chunk)
                offset += len(chunk)
                total += len(chunk)
                if total > MAX_MANIFEST_BYTES:
                    return None
            self.data = b"".join(chunks)
        except OSError:
            return None
        finally:
            os.close(fd)
        return self.data

    def still(self, root: Path) -> bool:
        """Whether the manifest in ``root`` is still the file opened, unchanged (by its stamp)."""
        try:
            st = os.lstat(root / MANIFEST_NAME)
        except OSError:
            return False
        return self.stamp is not None and self.stamp == (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)

    __del__ = close


def current(root: Path, code_rules: str, secret: bytes | None, raw: bytes | ManifestFile | None) -> View | None:
    """The index of the scan in ``root`` (whose manifest's bytes are ``raw``, or are read from it when
    its stamp is not the one the index recorded with the manifest's digest), brought up to date with
    its fact files; None when a check fails (the caller takes the full path) or without a private secret."""
    if secret is None or raw is None or not rules_match(code_rules):
        return None
    index = _read_index(root, secret)
    stamp = raw.stamp if isinstance(raw, ManifestFile) else None
    if stamp is not None and index is not None and index.get("manifest_stamp") == stamp:
        manifest_hash = index["manifest"]  # the file whose bytes had that digest, unchanged
    else:
        if isinstance(raw, ManifestFile):
            raw = raw.read()
            if raw is None:
                return None
        manifest_hash = hash_bytes(raw)
    if index is not None and index["manifest"] == manifest_hash:
        leaves = index.get("folders", ())
        stamps = _unchanged(root, index["columns"], leaves)
        if stamps is not None:  # the common case: nothing changed since the index was built
            if stamps != leaves or index.get("manifest_stamp") != stamp:  # settled since: no walk, no read next
                _write_index(root, secret, {**index, "folders": stamps, "manifest_stamp": stamp})
            return _view(root, index, 0)
    manifest: dict | None = None
    if index is not None and index["manifest"] == manifest_hash:
        listed = [Listed(*row[:4]) for row in _rows(index["columns"])]
    else:
        assert isinstance(raw, bytes)  # read above: the index is not the one of the manifest's stamp
        manifest = parsed_manifest(raw)
        if manifest is None:
            return None
        found = listing_of(manifest)
        if found is None:
            return None
        listed = found
    checked = checked_listing(root, listed, _rows(index["columns"]) if index is not None else (), _checked_rows)
    if checked is None:
        return None
    listing, fresh = checked
    if index is not None and manifest is None and not fresh:
        return _view(root, index, 0)
    return _update(root, secret, index, manifest, (manifest_hash, stamp), listed, listing, fresh, code_rules)


def checked_listing(
    root: Path, listed: list[Listed], known: tuple, check: Callable[[str, Listed], Any]
) -> tuple[list[tuple], dict[str, tuple[str, Any]]] | None:
    """Each listed fact file's listing row ``(path, digest, named, preamble, size, mtime_ns, inode)``,
    and ``{path: (digest, check(file, item))}`` for each whose digest and stat ``known`` (listing rows
    of an earlier check) does not record: ``check`` reads it and checks it (``checked_text``).  None
    when the folder holds another ``.rofl`` file, a listed one is missing or not regular, or a check
    fails (returns None)."""
    if not _only_listed(root, {x.path for x in listed}):
        return None
    stats = {(row[0], row[1]): tuple(row[4:]) for row in known}
    fresh: dict[str, tuple[str, Any]] = {}
    listing = []
    base = os.fspath(root) + os.sep
    for item in listed:
        path = base + item.path
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        seen = (st.st_size, st.st_mtime_ns, st.st_ino)
        if stats.get((item.path, item.digest)) != seen:
            value = check(path, item)
            if value is None:
                return None
            fresh[item.path] = (item.digest, value)
        listing.append((item.path, item.digest, item.named, item.preamble, *seen))
    return listing, fresh


def unchanged(root: Path, listing: tuple) -> bool:
    """Whether every listed fact file has the stat it had when its bytes were checked, and the folder
    holds no other ``.rofl`` file (one stat per file: the check the compiled cache's key makes)."""
    return _unchanged(root, _columns(listing), ()) is not None


Column = tuple[str, tuple[str, ...], tuple[str, ...], bytes, tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _columns(listing: Any) -> tuple[Column, ...]:
    """Listing rows by folder, in columns: ``(folder, names, digests, kinds, sizes, mtimes, inodes)``, a
    kind one byte (1: named, 2: the preamble); what the common check reads without a tuple per file."""
    by: dict[str, list[list]] = {}
    for path, digest, named, preamble, size, mtime, inode in listing:
        folder, _, name = path.rpartition("/")
        cols = by.setdefault(folder, [[], [], [], [], [], []])
        for col, value in zip(cols, (name, digest, int(named) | 2 * int(preamble), size, mtime, inode)):
            col.append(value)
    return tuple(
        (folder, tuple(c[0]), tuple(c[1]), bytes(c[2]), tuple(c[3]), tuple(c[4]), tuple(c[5]))
        for folder, c in by.items()
    )


def _rows(columns: tuple[Column, ...]) -> tuple[tuple, ...]:
    """The listing rows of ``_columns``."""
    out: list[tuple] = []
    for folder, names, digests, kinds, sizes, mtimes, inodes in columns:
        prefix = folder + "/" if folder else ""
        for name, digest, kind, size, mtime, inode in zip(names, digests, kinds, sizes, mtimes, inodes):
            out.append((prefix + name, digest, bool(kind & 1), bool(kind & 2), size, mtime, inode))
    return tuple(out)


Stamp = tuple[str, int, int, int]  # (folder, mtime_ns, inode, device) of a folder of fact files


def _unchanged(root: Path, columns: tuple[Column, ...], leaves: tuple[Stamp, ...]) -> tuple[Stamp, ...] | None:
    """``unchanged``, with the stamps of the folders that hold fact files and no folder (``leaves``:
    taken when each held exactly the listed fact files in it, as this check vouched): a leaf folder
    that still has its stamp had no name added, removed or renamed (the stat-based trust the files'
    own stamps rest on), so it is not listed again.  The leaves' stamps now when unchanged, else None."""
    top = os.fspath(root)
    walked = _walk(top, {rel: rest for rel, *rest in leaves})
    if walked is None:
        return None
    names, stamps = walked
    return stamps if _same_stats(columns, names, top) else None


def _same_stats(columns: tuple[Column, ...], walked: dict[str, set[str] | None], top: str) -> bool:
    """Whether each listed file has its size, mtime and inode and is a regular file, and the folders
    hold exactly the listed ``.rofl`` files (``walked``: each folder's, None for a trusted folder, not
    listed again).  A file is stat'ed by its name in its folder's descriptor where the platform can
    (one name resolved, not its whole path)."""
    by_fd = os.stat in os.supports_dir_fd
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    stat_ = os.stat
    seen = 0
    for folder, names, _, _, sizes, mtimes, inodes in columns:
        if folder not in walked:
            return False
        found = walked[folder]
        if found is not None and not found.issuperset(names):
            return False
        seen += 1
        base = top + os.sep + folder if folder else top
        try:
            fd = os.open(base, flags) if by_fd else -1
        except OSError:
            return False
        try:
            for name, size, mtime, inode in zip(names, sizes, mtimes, inodes):
                st = stat_(name, dir_fd=fd) if by_fd else stat_(base + os.sep + name)  # follows a link, as the loader
                if st.st_size != size or st.st_mtime_ns != mtime or st.st_ino != inode or st.st_mode & 0o170000 != REG:
                    return False
        except OSError:
            return False
        finally:
            if fd >= 0:
                os.close(fd)
    listed = {folder: len(names) for folder, names, *_ in columns}
    return all(found is None or len(found) == listed.get(folder, 0) for folder, found in walked.items())


REG = stat.S_IFREG


def _walk(top: str, leaves: dict[str, list]) -> tuple[dict[str, set[str] | None], tuple[Stamp, ...]] | None:
    """The names of the ``.rofl`` files in each folder under ``top`` (``""``: ``top``) as
    ``rofl.loading.factdir`` walks it (folders starting with a dot skipped), None for a folder of
    ``leaves`` that still has its stamp (not listed: trusted to hold what it held); and the stamps of
    the leaf folders (no folder in them) now, each taken before the folder is listed, of those changed
    at least ``SETTLED_NS`` ago (a later change could keep a fresher one's mtime: the racy case git's
    index knows).  None when a folder cannot be read."""
    import time

    settled = time.time_ns() - SETTLED_NS
    out: dict[str, set[str] | None] = {}
    stamps: list[Stamp] = []
    pending = [("", top)]
    try:
        while pending:
            rel, folder = pending.pop()
            stamp: list[int] = []
            if rel:
                st = os.stat(folder)
                stamp = [st.st_mtime_ns, st.st_ino, st.st_dev]
                if leaves.get(rel) == stamp:
                    out[rel] = None
                    stamps.append((rel, st.st_mtime_ns, st.st_ino, st.st_dev))
                    continue
            names = out[rel] = set()
            leaf = True
            with os.scandir(folder) as it:
                for entry in it:
                    name = entry.name
                    if name.endswith(".rofl") and not entry.is_dir():
                        names.add(name)
                    elif entry.is_dir(follow_symlinks=False):
                        leaf = False
                        if not name.startswith("."):
                            pending.append((rel + "/" + name if rel else name, entry.path))
            if rel and leaf and stamp[0] < settled:
                stamps.append((rel, stamp[0], stamp[1], stamp[2]))
    except OSError:
        return None
    return out, tuple(sorted(stamps))


def _update(
    root: Path,
    secret: bytes,
    index: dict | None,
    manifest: dict | None,
    of: tuple[str, tuple | None],
    listed: list[Listed],
    listing: list[tuple],
    fresh: dict[str, tuple[str, Rows]],
    code_rules: str,
) -> View | None:
    """Bring the records and the graph up to date: the changed fact files' rows replace theirs, the
    graph is maintained over them (``_graph``).  ``of``: the manifest's digest and its file's stamp."""
    manifest_hash, stamp = of
    read = _read_records_hashed(root, secret) if index is not None else None
    records, records_hash = read if read is not None else ({}, None)
    graph_of = records if index is not None and records_hash == index["records"] else {}  # else newer than it
    updated = len(fresh)
    kept: dict[str, tuple[str, Rows]] = {}
    for item in listed:
        if item.path in fresh:
            kept[item.path] = fresh[item.path]
            continue
        old = records.get(item.path)
        if old is not None and old[0] == item.digest:
            kept[item.path] = old
            continue
        rows = _checked_rows(root / item.path, item)
        if rows is None:
            return None
        kept[item.path] = (item.digest, rows)
        updated += 1
    if manifest is None:
        assert index is not None  # the manifest is parsed whenever there is no index for its bytes
        head = {k: index[k] for k in ("src", "options", "files", "packages")}
    else:
        packages = manifest.get("packages")
        options = manifest.get("options")
        head = {
            "src": manifest.get("src", "."),
            "options": options if isinstance(options, dict) else {},
            "files": tuple(sorted(sys.intern(f) for f in manifest.get("files", {}))),  # the graph's strings
            "packages": dict(packages) if isinstance(packages, dict) else {},
        }
    if not isinstance(head["src"], str):
        return None
    graph, state = _graph(root, secret, index, graph_of, kept, _globs(code_rules))
    records_payload = marshal.dumps((FORMAT, kept))
    payload = {
        "format": INDEX_FORMAT,
        "manifest": manifest_hash,
        "manifest_stamp": stamp,
        "records": hash_bytes(records_payload),
        "columns": _columns(listing),
        **head,
        "graph": _graph_tuple(graph),
    }
    from . import cachemac

    try:
        _write(root / RECORDS_NAME, RECORDS_MAGIC, records_payload, secret, cachemac)
        if state is not None:
            state_payload = marshal.dumps(
                (STATE_FORMAT, payload["records"], tuple(getattr(state, f) for f in State.__slots__))
            )
            _write(root / STATE_NAME, STATE_MAGIC, state_payload, secret, cachemac)
    except (OSError, ValueError):
        return _view(root, payload, updated, graph)  # a read-only fact folder: answered from what was built
    _write_index(root, secret, payload)
    return _view(root, payload, updated, graph)


def _write_index(root: Path, secret: bytes, payload: dict) -> None:
    from . import cachemac

    try:
        _write(root / INDEX_NAME, INDEX_MAGIC, marshal.dumps(payload), secret, cachemac)
    except (OSError, ValueError):
        pass  # a read-only fact folder: rebuilt (or its folders stamped) next time


def _view(root: Path, index: dict, updated: int, graph: Graph | None = None) -> View:
    return View(
        root,
        index["manifest"],
        index["src"],
        index["options"],
        frozenset(index["files"]),
        index["packages"],
        graph if graph is not None else Graph(*index["graph"]),
        updated,
        index["columns"],
    )


def _graph_tuple(graph: Graph) -> tuple:
    """The graph's fields, a runtime importers' tuple that equals the one of all imports being that tuple
    (mostly all of them: marshal writes a reference, and loading the index reads each once)."""
    parts = [getattr(graph, name) for name in Graph.__slots__]
    every, runtime = graph.importers, graph.runtime_importers
    if runtime == every:
        parts[1] = every
    else:
        parts[1] = {node: every[node] if every.get(node) == rows else rows for node, rows in runtime.items()}
    return tuple(parts)


def parsed_manifest(raw: bytes) -> dict | None:
    from rofl.scanner.manifest import _parse

    data = _parse(raw, lazy=True)  # the listing, packages and options are read: no file's probes
    return data if isinstance(data, dict) else None


def listing_of(manifest: dict) -> list[Listed] | None:
    """The fact files the manifest lists, as the loader (``rofl.loading.factdir.open_folder``) checks them."""
    named: list[tuple[str, str, bool, bool]] = []
    records: list[tuple[Any, bool, bool]] = [(manifest.get("preamble"), False, True)]
    records.append((manifest.get("package_entries"), False, False))
    records += [(entry, True, False) for entry in manifest.get("files", {}).values()]
    for record, is_named, preamble in records:
        if record is None:
            continue
        if not isinstance(record, dict) or not isinstance(record.get("facts"), str):
            return None
        named.append((record["facts"], str(record.get("digest")), is_named, preamble))
    return _listed(named)


def typed_listing(manifest: Manifest) -> list[Listed] | None:
    """``listing_of`` a manifest the command already read (``rofl.scanner.manifest.read``: typed, checked)."""
    named = [(r.facts, str(r.digest), False, True) for r in (manifest.preamble,) if r is not None]
    named += [(r.facts, str(r.digest), False, False) for r in (manifest.package_entries,) if r is not None]
    named += [(entry.facts, str(entry.digest), True, False) for entry in manifest.files.values()]
    return _listed(named)


def _listed(named: list[tuple[str, str, bool, bool]]) -> list[Listed] | None:
    """``(facts, digest, named, preamble)`` records as listing rows; None when one file is listed twice (the
    loader's own reading decides then)."""
    import posixpath

    out = [Listed(posixpath.normpath(facts), digest, is_named, preamble) for facts, digest, is_named, preamble in named]
    if len({x.path for x in out}) != len(out):
        return None
    return out


def _only_listed(root: Path, listed: set[str]) -> bool:
    """Whether the ``.rofl`` files in the folder (as ``rofl.loading.factdir`` walks it) are exactly the listed ones."""
    count = 0
    top = os.fspath(root)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = os.path.relpath(dirpath, top).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        names = [prefix + name for name in filenames if name.endswith(".rofl")]
        if not listed.issuperset(names):
            return False
        count += len(names)
    return count == len(listed)


def _checked_rows(path: str | Path, item: Listed) -> Rows | None:
    """The rows of a listed fact file whose bytes pass the loader's checks, else None."""
    text = checked_text(path, item)
    return extract(text) if text is not None else None


def checked_text(path: str | Path, item: Listed) -> str | None:
    """The text of a listed fact file whose bytes pass the loader's checks (``rofl.loading.factdir``:
    the digest the manifest records, carried in its name; the preamble's one text), else None."""
    try:
        data = safe_write.read_regular(path, MAX_FACT_FILE_BYTES)
    except OSError:
        return None
    digest = hash_bytes(data)
    if digest != item.digest or (item.named and named_digest(item.path) != digest):
        return None
    if item.preamble and data != PREAMBLE_TEXT.encode("utf-8"):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def extract(text: str) -> Rows | None:
    """The rows of ``RELATIONS`` a fact file's text states (one fact a line, as the scanner writes),
    parsed by the kernel's own parser; None when a line does not parse (the loader says why)."""
    from rofl.engine.base.errors import RoflError
    from rofl.engine.parse import parse_program

    lines = [line for line in text.split("\n") if line.startswith(_PREFIXES)]
    if not lines:
        return ()
    try:
        clauses = parse_program("\n".join(lines), "<facts>")
    except RoflError:
        return None
    by_rel: dict[str, list[tuple]] = {}
    intern = sys.intern
    for clause in clauses:
        head = clause.head
        if head.persp != "code" or clause.body or len(head.args) != RELATIONS.get(head.rel, -1):
            return None
        by_rel.setdefault(head.rel, []).append(tuple(intern(a) if type(a) is str else a for a in head.args))
    return tuple((rel, tuple(rows)) for rel, rows in sorted(by_rel.items()))


def _globs(code_rules: str) -> tuple[str, ...]:
    """package_nonsource_glob's patterns, from rules/code.rofl, in canonical order."""
    from rofl.engine.parse import parse_program

    lines = [line for line in code_rules.split("\n") if line.startswith(_GLOB_PREFIX)]
    return tuple(sorted(str(c.head.args[0]) for c in parse_program("\n".join(lines), "code.rofl")))


def _union(records: Any) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for _, rows in records:
        for rel, part in rows:
            out.setdefault(rel, []).extend(part)
    return out


def _read_payload(path: Path, magic: bytes, secret: bytes, hashed: list[str] | None = None) -> object | None:
    from . import cachemac

    return cachemac.read_tagged(path, magic, secret, MAX_INDEX_BYTES, hashed)


def _read_index(root: Path, secret: bytes) -> dict | None:
    index = _read_payload(root / INDEX_NAME, INDEX_MAGIC, secret)
    if not isinstance(index, dict) or index.get("format") != INDEX_FORMAT:
        return None
    return index


def _read_records(root: Path, secret: bytes) -> dict[str, tuple[str, Rows]] | None:
    read = _read_records_hashed(root, secret)
    return read[0] if read is not None else None


def _read_records_hashed(root: Path, secret: bytes) -> tuple[dict[str, tuple[str, Rows]], str] | None:
    """The records and the digest of their payload (what the index's "records" names)."""
    hashed: list[str] = []
    records = _read_payload(root / RECORDS_NAME, RECORDS_MAGIC, secret, hashed)
    if not isinstance(records, tuple) or len(records) != 2 or records[0] != FORMAT:
        return None
    return records[1], hashed[0]


def _read_state(root: Path, secret: bytes, records_hash: str) -> State | None:
    """The maintenance state written with the records whose payload has ``records_hash``, else None."""
    read = _read_payload(root / STATE_NAME, STATE_MAGIC, secret)
    if not isinstance(read, tuple) or len(read) != 3 or read[0] != STATE_FORMAT or read[1] != records_hash:
        return None
    fields = read[2]
    if not isinstance(fields, tuple) or len(fields) != len(State.__slots__):
        return None
    return State(*fields)


def _graph(
    root: Path,
    secret: bytes,
    index: dict | None,
    records: dict[str, tuple[str, Rows]],
    kept: dict[str, tuple[str, Rows]],
    globs: tuple[str, ...],
) -> tuple[Graph, State | None]:
    """The graph of the ``kept`` records and its maintenance state: the index's graph maintained over the
    records that changed since ``records`` (``graph_rules.maintain``) when the index, the records and
    the state are of one build, else derived whole."""
    now = {path: rows for path, (_, rows) in kept.items()}
    if index is not None and records:
        state = _read_state(root, secret, index["records"])
        if state is not None:
            before: dict[str, Rows | None] = {
                path: rows for path, (digest, rows) in records.items() if kept.get(path, ("",))[0] != digest
            }
            before.update((path, None) for path in kept if path not in records)
            if not before:
                return Graph(*index["graph"]), state
            maintained = maintain(Graph(*index["graph"]), state, before, now, globs)
            if maintained is not None:
                return maintained
    return derive(_union(kept.values()), globs), state_of(now, globs)


def _write(path: Path, magic: bytes, payload: bytes, secret: bytes, cachemac: Any) -> None:
    cachemac.write_tagged(path, magic, secret, payload)
