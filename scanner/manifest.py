"""manifest.json: the record of what a scan produced, read at the start and replaced atomically at the end.

Keys (format 2)::

    format, tool_version, extractor_version, resolver_version, grammar_versions, options, src,
    preamble: {facts, digest},
    probes: [every resolution dependency of any file, sorted, once],
    files: {path: {hash, facts, digest, size, mtime_ns, extractor, resolution_deps, imports,
                   errors, resolution}},
    configs: {config path relative to SRC: [size, mtime_ns, xxh3] | null},
    packages: {workspace package name: folder relative to SRC},
    workspace: [package.json paths listed in SRC],
    unreadable: [paths that could not be read],
    counts: {...}

``imports`` keeps each file's specifiers so that it can be re-resolved without parsing;
``resolution_deps`` lists the candidate paths, config files and ``package:<name>`` tokens its
resolution consulted.  ``digest`` is the xxh3 of the fact file's bytes exactly as written.

On disk a file's ``resolution_deps`` are indexes into ``probes``: the same few hundred paths
(configs, package.json files, candidate paths of shared folders) recur in thousands of files, and
spelling them out made the probe lists half the manifest.  Readers never see the indexes: ``load``
and ``read`` hand back the paths (each one string object, shared), and ``write`` builds the table.

This module is the one reader of manifests: the scanner ``load``s the previous one (anything
unusable is simply rebuilt), the command line ``read``s one strictly (anything unusable is a
``ManifestError``: one line naming the file and the fix), and both read the recorded scan options
through ``options_of``.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from typing import Any

from rofl.engine import safe_write
from rofl.engine.errors import RoflError
from rofl.scanner.layout import MANIFEST_NAME

FORMAT = 2  # 2: resolution_deps as indexes into probes
MAX_MANIFEST_BYTES = 1 << 31  # a manifest larger than this is not one this scanner wrote
DEFAULT_MAX_BYTES = 2 * 1024 * 1024


class ManifestError(RoflError):
    """A manifest the command line cannot use: one line naming it and the fix."""


@dataclass(frozen=True, slots=True)
class ScanOptions:
    """The options a scan ran with; a change to any of them re-extracts every file."""

    max_bytes: int = DEFAULT_MAX_BYTES
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def as_record(self) -> dict[str, Any]:
        """The manifest's ``options`` value."""
        return {"max_bytes": self.max_bytes, "include": list(self.include), "exclude": list(self.exclude)}


OWN_PREFIX = b'{"format":'  # every manifest any rofl scan wrote starts so (``write`` puts format first)


def _parse(raw: bytes | None) -> dict[str, Any] | str:
    """The manifest in ``raw``, or why it is not one this scanner wrote."""
    if raw is None:  # a symlink, FIFO, device or giant planted at the name
        return "not a regular file of a sane size"
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return "not valid JSON"
    if not isinstance(data, dict) or data.get("format") != FORMAT or not _expand(data) or not _well_formed(data):
        return "not a rofl scan manifest (or one of another format)"
    return data


def _expand(data: dict[str, Any]) -> bool:
    """Replace each file's probe indexes by the paths of ``probes``; False when they do not fit."""
    probes = data.pop("probes", [])
    files = data.get("files")
    if not isinstance(probes, list) or not isinstance(files, dict):
        return False
    if not all(isinstance(p, str) for p in probes):
        return False
    count = len(probes)
    path_of = probes.__getitem__
    ints = {int}  # not bool, which JSON's true would give: a list of exactly ints, each an index
    for entry in files.values():
        if not isinstance(entry, dict):
            return False
        ids = entry.get("resolution_deps")
        if ids is None:
            continue
        if not isinstance(ids, list):
            return False
        if ids and not (ints.issuperset(map(type, ids)) and min(ids) >= 0 and max(ids) < count):
            return False
        entry["resolution_deps"] = list(map(path_of, ids))  # each path one shared string object
    return True


def load(out: str) -> dict[str, Any] | None:
    """The manifest in ``out``, or None when there is none or it is not one this scanner wrote."""
    try:
        raw = safe_write.read_nofollow(os.path.join(out, MANIFEST_NAME), MAX_MANIFEST_BYTES)
    except OSError:
        return None
    data = _parse(raw)
    return data if isinstance(data, dict) else None


def someone_elses(out: str) -> bool:
    """True when ``out`` holds a ``manifest.json`` that is JSON but no rofl scan's (a web app's
    manifest, say): the scan must not replace it.  A rofl manifest of any version names its
    ``format``; one that is not a JSON object is a damaged rofl manifest, rewritten as before.

    A file that starts as every rofl manifest starts is not parsed here (a rescan that finds
    nothing to do never parses the manifest at all)."""
    path = os.path.join(out, MANIFEST_NAME)
    try:
        if _starts_as_ours(path):
            return False
        raw = safe_write.read_nofollow(path, MAX_MANIFEST_BYTES)
        if raw is None:
            return False
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "format" not in data


def _starts_as_ours(path: str) -> bool:
    """True when ``path`` is a regular file that starts as every rofl manifest starts (its first bytes
    only are read: a no-change rescan does not read the whole manifest to learn it is its own)."""
    fd = safe_write.open_nofollow(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        return stat.S_ISREG(st.st_mode) and os.read(fd, len(OWN_PREFIX)) == OWN_PREFIX
    finally:
        os.close(fd)


def read(out: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest in the fact folder ``out``; raises ``ManifestError`` saying what to run instead."""
    out = os.fspath(out)
    path = os.path.join(out, MANIFEST_NAME)
    try:
        raw = safe_write.read_nofollow(path, MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        raise ManifestError(f"{out}: no {MANIFEST_NAME} here; run `rofl scan SRC --out {out}` first") from None
    except OSError as err:
        raise ManifestError(f"{path}: cannot read ({err.strerror or err})") from None
    data = _parse(raw)
    if isinstance(data, str):
        raise ManifestError(f"{path}: {data}; run `rofl scan SRC --out {out}` again to rewrite it")
    return data


def options_of(manifest: dict[str, Any]) -> ScanOptions:
    """The options ``manifest`` records (defaults for a missing key); ``ManifestError`` when malformed."""
    options = manifest.get("options", {})
    if isinstance(options, dict):
        include, exclude = options.get("include", []), options.get("exclude", [])
        max_bytes = options.get("max_bytes", DEFAULT_MAX_BYTES)
        lists = [include, exclude]
        if all(isinstance(x, list) and all(isinstance(g, str) for g in x) for x in lists) and type(max_bytes) is int:
            return ScanOptions(max_bytes, tuple(include), tuple(exclude))
    raise ManifestError(f"{MANIFEST_NAME}: 'options' is malformed; run `rofl scan` again to rewrite it")


def src_of(manifest: dict[str, Any]) -> str:
    """The folder the manifest's scan read (absolute); ``ManifestError`` when it is not a path."""
    src = manifest.get("src", ".")
    if not isinstance(src, str):
        raise ManifestError(f"{MANIFEST_NAME}: 'src' is not a path; run `rofl scan` again to rewrite it")
    return src


def _well_formed(data: dict[str, Any]) -> bool:
    """Every field a rescan reads has the type this scanner writes; anything else is rebuilt."""
    files = data.get("files")
    if not isinstance(files, dict):
        return False
    for entry in files.values():
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("facts"), str)
            or not isinstance(entry.get("hash"), str)
        ):
            return False
        if not isinstance(entry.get("resolution_deps", []), list):
            return False
    for key in ("configs", "packages", "options"):
        if key in data and not isinstance(data[key], dict):
            return False
    for recorded in data.get("configs", {}).values():  # [size, mtime_ns, xxh3 or "refused"] or null
        if recorded is not None and not (
            isinstance(recorded, list) and len(recorded) == 3 and isinstance(recorded[2], str)
        ):
            return False
    return isinstance(data.get("workspace", []), list)


def write(out: str, manifest: dict[str, Any]) -> None:
    """Write the manifest through a temporary file and an atomic rename.

    Keys are written in the order the scanner builds them (files sorted by path), which is
    deterministic; ``sort_keys`` would cost time on every scan that changes something.
    """
    data = json.dumps(_compact(manifest), separators=(",", ":"), ensure_ascii=True).encode("ascii")
    safe_write.write_atomic(os.path.join(out, MANIFEST_NAME), data + b"\n")


def _compact(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` as written: ``format`` first, ``probes`` the table, each file's probes its indexes."""
    files = manifest.get("files", {})
    probes = sorted({p for entry in files.values() for p in entry.get("resolution_deps", ())})
    index = {p: i for i, p in enumerate(probes)}
    compact_files = {}
    for path, entry in files.items():
        deps = entry.get("resolution_deps")
        if deps is not None:
            entry = {**entry, "resolution_deps": [index[p] for p in deps]}
        compact_files[path] = entry
    head = {"format": manifest.get("format", FORMAT)}
    rest = {k: v for k, v in manifest.items() if k not in ("format", "files")}
    return {**head, **rest, "probes": probes, "files": compact_files}
