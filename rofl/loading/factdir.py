"""Reading a scanned fact folder: the manifest, digest checks, and who each fact file is asserted by.

Each ``.rofl`` file in the folder falls in one of four classes, decided here and nowhere else:

* listed: the manifest names it and its bytes have the recorded digest; loaded as ``scanner``.
* edited: the manifest names it but its bytes changed; loaded as ``unverified`` (audits: forged).
  A source's fact file must also carry its digest in its own name, as the scanner names every one:
  a manifest whose digest was recomputed after an edit, or whose entry was written by hand, fails it.
  The preamble has one text only (``scanner.layout.PREAMBLE_TEXT``): any other is edited, whatever
  digest the manifest records for it.
* leftover: not in the manifest, but in the scanner's ``code/`` folder under a name only the
  scanner makes (``<slug>.<12 hex>-<16 hex>.rofl``): a file an interrupted scan wrote before its
  manifest.  Never loaded (it may be half written); a warning says to run ``rofl scan``, which
  removes it.
* foreign: any other ``.rofl`` file (hand-written facts); loaded as ``unverified``, so that
  whatever it asserts into ``[code]`` is reported as forged.

A fact file that cannot be loaded at all (not UTF-8 here, or a syntax error when the session parses
it) is damaged: it is skipped with a warning naming it and ``repair_command`` (``rofl scan --verify``
re-extracts it), and a listed one counts as missing, so that one damaged file makes the answers
incomplete (and says so) rather than every command over the folder unusable.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rofl.engine.base.errors import RoflError
from rofl.engine.base.safe_write import read_nofollow, read_regular
from rofl.scanner.errors import shown
from rofl.scanner.factfile import is_fact_name, named_digest
from rofl.scanner.hashing import hash_bytes
from rofl.scanner.layout import MANIFEST_NAME, PREAMBLE_TEXT
from rofl.scanner.manifest import MAX_MANIFEST_BYTES, FactRecord, FileEntry, Manifest
from rofl.scanner.manifest import read as read_manifest  # the one manifest reader, shared with the scanner
from rofl.scanner.worklist import MAX_FACT_FILE_BYTES

SCANNER = "scanner"
UNVERIFIED = "unverified"


@dataclass(frozen=True, slots=True)
class FactFolder:
    """The fact files of a scan and the identity each is loaded with.

    ``sources`` pairs each fact file with ``scanner`` when its bytes match the digest the manifest
    recorded, ``unverified`` otherwise (edited after the scan, or never written by the scanner); the
    preamble that grants the scanner its authority is loaded with no identity when it verifies.
    """

    root: Path
    manifest: Manifest
    sources: tuple  # ((Path, who, text), ...)
    warnings: tuple  # one line each
    stat_key: str  # changes whenever a fact file or the manifest changes on disk
    leftovers: tuple = ()  # paths of fact files an interrupted scan left (not loaded)
    foreign: tuple = ()  # paths of fact files the scanner did not write (loaded as unverified)
    missing: tuple = ()  # listed fact files (relative to root) that are absent or not regular files


def _fact_file_names(root: Path) -> list[tuple[str, str]]:
    """Every ``.rofl`` file under ``root`` as ``(full path, path relative to root with / separators)``,
    in ``os.walk``'s top-down order: each folder's files sorted, then its folders sorted, folders starting
    with a dot and linked folders not entered, a folder that cannot be listed skipped.  One ``scandir``
    per folder and plain strings: a folder of 100,000 fact files is walked without a ``Path`` per file."""
    out: list[tuple[str, str]] = []
    pending = [(os.fspath(root), "")]
    while pending:
        folder, prefix = pending.pop()
        files: list[str] = []
        folders: list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = entry.name
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if not is_dir:
                        if name.endswith(".rofl"):
                            files.append(name)
                    elif not name.startswith(".") and not entry.is_symlink():
                        folders.append(name)
        except OSError:
            continue
        here = os.path.join(folder, "")  # the folder with one trailing separator
        files.sort()
        out.extend((here + name, prefix + name) for name in files)
        pending.extend((here + name, prefix + name + "/") for name in sorted(folders, reverse=True))
    return out


def stat_key(root: Path) -> str:
    """A cheap fingerprint of the folder: the manifest bytes and every fact file's path, size and mtime."""
    try:  # a FIFO or link planted at the name is never read (the manifest reader refuses it too)
        manifest = read_nofollow(str(root / MANIFEST_NAME), MAX_MANIFEST_BYTES) or b""
    except OSError:
        manifest = b""
    parts = [manifest]
    stat, lstat = os.stat, os.lstat
    for full, rel in _fact_file_names(root):
        try:
            st = stat(full)
        except OSError:  # a dangling link: its own entry
            st = lstat(full)
        parts.append(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return hash_bytes(b"\n".join(parts))


@dataclass(frozen=True, slots=True)
class Listed:
    """One ``.rofl`` file of the folder before it is read: its path and what the manifest expects of it
    (``(digest, who, named)``; None for a file the manifest does not list)."""

    path: Path
    rel: str  # relative to the folder's root
    want: tuple[str, str | None, bool] | None


@dataclass(frozen=True, slots=True)
class LazyFolder:
    """A fact folder with its fact files not yet read: ``sources(report)`` reads, checks and yields them
    one at a time, so a load holds one file's text at a time, never the folder's.

    ``src`` is the manifest's source root (for ``repair_command``); the manifest itself is not kept."""

    root: Path
    src: str
    listed: tuple[Listed, ...]  # the fact files to read, in the folder's walk order
    expected: frozenset[str]  # every fact file the manifest lists, relative to root
    leftovers: tuple[str, ...]
    stat_key: str

    @property
    def foreign(self) -> tuple[str, ...]:
        """The fact files the scanner did not write (loaded as unverified), whether or not they read."""
        return tuple(str(item.path) for item in self.listed if item.want is None)

    def repair(self) -> str:
        return repair_command(self.root, self.src)

    def sources(self, report: Reading) -> Iterator[tuple[Path, str | None, str]]:
        """Each fact file as ``(path, who, text)``, read and checked against the manifest's digest just
        before it is yielded (the bytes checked are the bytes decoded); what cannot be loaded is
        recorded in ``report`` instead."""
        for item in self.listed:
            source = _checked(self, item, report)
            if source is not None:
                yield source

    def closing(self, report: Reading) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """After every source was read: (the listed fact files that are missing, the folder's warnings
        in the order an eager read gives them)."""
        missing = tuple(sorted(self.expected - (self.present - report.unread)))
        warnings = list(report.warnings)
        for rel in missing:
            warnings.append(f"{self.root / rel}: listed in the manifest but missing; run `rofl scan` again")
        if self.leftovers:
            first = shown(self.leftovers[0]) + (
                f" and {len(self.leftovers) - 1} more" if len(self.leftovers) > 1 else ""
            )
            warnings.append(
                f"{first}: left by an interrupted scan (not in the manifest), not loaded; run `rofl scan` to remove"
                f" {'it' if len(self.leftovers) == 1 else 'them'}"
            )
        return missing, tuple(warnings)

    @property
    def present(self) -> set[str]:
        return {item.rel for item in self.listed if item.want is not None}


@dataclass(slots=True)
class Reading:
    """What reading a lazy folder's sources found besides them: one warning per file that did not read
    as the scanner's, and the listed files that could not be loaded (they count as missing)."""

    warnings: list[str]
    unread: set[str]
    foreign: list[str]  # the unlisted files that were read (and load as unverified)


def checked_root(root: str | Path) -> Path:
    """``root`` as a Path, when it is a folder (else the one-line error that says to scan first)."""
    root = Path(root)
    if not root.is_dir():
        raise RoflError(f"{root}: no such fact folder; run `rofl scan SRC --out {root}` first")
    return root


def list_folder(root: str | Path, key: str | None = None, manifest: Manifest | None = None) -> LazyFolder:
    """The manifest's expectations and the folder's fact files, none of them read yet (``manifest``:
    the folder's manifest when the caller read it already)."""
    root = checked_root(root)
    if manifest is None:
        manifest = read_manifest(root)
    expected: dict[str, tuple[str, str | None, bool]] = {}  # path relative to root -> (digest, who, named)
    records: list[tuple[FactRecord | FileEntry | None, str | None, bool]]
    records = [(manifest.preamble, None, False), (manifest.package_entries, SCANNER, False)]
    records += [(entry, SCANNER, True) for entry in manifest.files.values()]
    for record, who, named in records:
        if record is not None:
            expected[posixpath.normpath(record.facts)] = (str(record.digest), who, named)
    listed: list[Listed] = []
    leftovers: list[str] = []
    for full, rel in _fact_file_names(root):
        want = expected.get(rel)
        if want is None and is_fact_name(rel):
            leftovers.append(str(Path(full)))
            continue
        listed.append(Listed(Path(full), rel, want))
    return LazyFolder(
        root,
        manifest.src,
        tuple(listed),
        frozenset(expected),
        tuple(leftovers),
        key if key is not None else stat_key(root),
    )


def _checked(folder: LazyFolder, item: Listed, report: Reading) -> tuple[Path, str | None, str] | None:
    """One fact file read once and judged against the manifest: ``(path, who, text)``, or None (with its
    warning in ``report``) when it cannot be loaded at all."""
    path, rel, want = item.path, item.rel, item.want
    data = _read(path)
    if data is None:  # a FIFO or device planted at the name, or a huge file: never read
        report.warnings.append(f"{path}: not a regular fact file (a FIFO or device, or over 1 GiB); not loaded")
        if want is not None:
            report.unread.add(rel)  # a listed file that cannot be loaded is missing
        return None
    who: str | None
    if want is None:
        report.warnings.append(
            f"{path}: not written by the scanner (not in the manifest); its facts load as '{UNVERIFIED}'"
        )
        report.foreign.append(str(path))
        who = UNVERIFIED
    elif (digest := hash_bytes(data)) != want[0]:
        report.warnings.append(
            f"{path}: changed since the scan (digest mismatch); its facts load as '{UNVERIFIED}'"
            f" (`{folder.repair()}` re-extracts it)"
        )
        who = UNVERIFIED
    elif want[2] and named_digest(rel) != digest:  # the manifest's digest recomputed, or its entry hand-written
        report.warnings.append(
            f"{path}: its name does not carry its digest, as every fact file the scanner writes does"
            f" (the manifest was edited); its facts load as '{UNVERIFIED}'"
        )
        who = UNVERIFIED
    elif want[1] is None and data != PREAMBLE_TEXT.encode("utf-8"):  # its digest recomputed after an edit
        report.warnings.append(f"{path}: not the preamble the scanner writes; its facts load as '{UNVERIFIED}'")
        who = UNVERIFIED
    else:
        who = want[1]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        report.warnings.append(damaged_warning(folder.root, folder.src, path, "not UTF-8 text", want is not None))
        if want is not None:
            report.unread.add(rel)  # a listed file that cannot be loaded is missing
        return None
    return path, who, text


def open_folder(root: str | Path, key: str | None = None) -> FactFolder:
    """Read every fact file once, check it against the manifest's digest, and say who it is from (all
    texts held at once: a load goes through ``list_folder`` and reads them one at a time instead)."""
    root = checked_root(root)
    manifest = read_manifest(root)
    lazy = list_folder(root, key, manifest)
    report = Reading([], set(), [])
    sources = tuple(lazy.sources(report))
    missing, warnings = lazy.closing(report)
    return FactFolder(
        root,
        manifest,
        sources,
        warnings,
        lazy.stat_key,
        lazy.leftovers,
        tuple(report.foreign),
        missing,
    )


def damaged_files(root: Path) -> list[str]:
    """The sources (relative to SRC) whose fact file in ``root`` no longer has the bytes the manifest
    records (edited, truncated, gone or replaced by a link): what ``rofl scan --verify`` re-extracts.
    Empty when there is no readable manifest yet."""
    from rofl.scanner.manifest import ManifestError
    from rofl.scanner.worklist import fact_file_intact

    try:
        manifest = read_manifest(root)
    except (ManifestError, OSError):
        return []
    return sorted(path for path, entry in manifest.files.items() if not fact_file_intact(str(root), entry.record()))


def repair_command(root: Path, src: str) -> str:
    """The command that re-extracts the damaged fact files of the scan of ``src`` in ``root``."""
    from shlex import quote

    return f"rofl scan {quote(shown(src))} --out {quote(shown(str(root)))} --verify"


def damaged_warning(root: Path, src: str, path: Path, why: str, listed: bool) -> str:
    """The one warning line for a fact file that cannot be loaded (``why``), with its fix."""
    if listed:
        return f"{path}: damaged ({why}); not loaded: run `{repair_command(root, src)}` to re-extract it"
    return f"{path}: {why}, and not written by the scanner (not in the manifest); not loaded: remove it"


def _read(path: Path) -> bytes | None:
    """A fact file's bytes; None for anything but a regular file of at most MAX_FACT_FILE_BYTES (a FIFO
    or device planted at the name would block or never end).  A link to a regular file is read: its
    bytes are checked against the digest like any other."""
    try:
        return read_regular(path, MAX_FACT_FILE_BYTES)
    except OSError:
        return None
