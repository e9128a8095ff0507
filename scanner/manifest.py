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
spelling them out made the probe lists half the manifest.  The indexes of one file are one string
(``"4,17,230"``): JSON reads it as one token, where a list of numbers cost two thirds of the parse.
Readers never see the indexes: ``load`` hands back the paths (each one string object, shared),
``read`` a ``Probes`` sequence that looks them up when first read (a command that reads no file's
probes does not pay for them), and ``write`` builds the table.

This module is the one reader of manifests: the scanner ``load``s the previous one as the dict it
rewrites (anything unusable is simply rebuilt); the command line ``read``s one strictly, once per
command, into a frozen ``Manifest`` whose fields have the types the scanner writes, every type check
in ``_typed`` (anything unusable is a ``ManifestError``: one line naming the file, the field and the
fix), so that no reader checks a type again.  Both read the recorded scan options through ``options_from``.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from rofl.engine.base import safe_write
from rofl.engine.base.collector import paused_collection
from rofl.engine.base.errors import RoflError
from rofl.scanner.layout import MANIFEST_NAME

FORMAT = 3  # 2: resolution_deps as indexes into probes; 3: each file's indexes one string
MAX_MANIFEST_BYTES = 1 << 31  # a manifest larger than this is not one this scanner wrote
DEFAULT_MAX_BYTES = 2 * 1024 * 1024
_EMPTY: Mapping[str, Any] = MappingProxyType({})


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


NOT_OURS = "not a rofl scan manifest (or one of another format)"


def _parse(raw: bytes | None, lazy: bool = False) -> dict[str, Any] | str:
    """The manifest in ``raw`` as a rescan may reuse it, or why it is not one this scanner wrote; with
    ``lazy``, each file's probes still the string of indexes (for a reader of the listing alone)."""
    with paused_collection():
        data = _decode(raw, lazy)
    return data if isinstance(data, str) or _well_formed(data) else NOT_OURS


def _decode(raw: bytes | None, lazy: bool = False) -> dict[str, Any] | str:
    """The JSON object in ``raw`` with its probe indexes expanded (``lazy``: checked to be strings and the
    table kept, as ``probes``), or why it is not a manifest of this format."""
    if raw is None:  # a symlink, FIFO, device or giant planted at the name
        return "not a regular file of a sane size"
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return "not valid JSON"
    if not isinstance(data, dict) or data.get("format") != FORMAT or not (_strings(data) if lazy else _expand(data)):
        return NOT_OURS
    return data


def _strings(data: dict[str, Any]) -> bool:
    """Whether ``probes`` is a list of paths and each file's probes a string (its indexes, not yet looked up)."""
    probes, files = data.get("probes", []), data.get("files")
    if not isinstance(probes, list) or not isinstance(files, dict) or not _all_strings(probes):
        return False
    data["probes"] = tuple(probes)
    return all(type(entry) is dict and type(entry.get("resolution_deps", "")) is str for entry in files.values())


def _all_strings(values: list) -> bool:
    """Whether every value is a str (JSON gives no subclass): one pass in C over a table of 100,000 paths."""
    return set(map(type, values)) <= {str}


def _indexes(text: str, count: int) -> list[int] | None:
    """The probe indexes a file's string lists, None when one is not an index below ``count``."""
    if not text:
        return []
    try:
        ids = list(map(int, text.split(",")))
    except ValueError:
        return None
    return ids if min(ids) >= 0 and max(ids) < count else None


def _expand(data: dict[str, Any]) -> bool:
    """Replace each file's probe indexes by the paths of ``probes``; False when they do not fit."""
    probes = data.pop("probes", [])
    files = data.get("files")
    if not isinstance(probes, list) or not isinstance(files, dict):
        return False
    if not _all_strings(probes):
        return False
    count = len(probes)
    path_of = probes.__getitem__
    for entry in files.values():
        if not isinstance(entry, dict):
            return False
        text = entry.get("resolution_deps")
        if text is None:
            continue
        ids = _indexes(text, count) if type(text) is str else None
        if ids is None:
            return False
        entry["resolution_deps"] = list(map(path_of, ids))  # each path one shared string object
    return True


class Probes(Sequence[str]):
    """One file's ``resolution_deps`` in a ``read`` manifest: the string of indexes as written, looked up
    in the probe table when first read.  Indexes that do not fit the table are a ``ManifestError``
    then, naming the manifest, the file and the fix."""

    __slots__ = ("_text", "_table", "_where", "_paths")

    def __init__(self, text: str, table: tuple[str, ...], where: tuple[str, str]) -> None:
        self._text, self._table, self._where = text, table, where
        self._paths: tuple[str, ...] | None = None

    def _looked_up(self) -> tuple[str, ...]:
        if self._paths is None:
            ids = _indexes(self._text, len(self._table))
            if ids is None:
                manifest, path = self._where
                out = os.path.dirname(manifest) or "."
                raise ManifestError(
                    f"{manifest}: the probes of {path!r} do not fit its table; run `rofl scan SRC --out {out}` again"
                )
            self._paths = tuple(map(self._table.__getitem__, ids))
        return self._paths

    def __getitem__(self, index):  # type: ignore[no-untyped-def]  # Sequence's overloads
        return self._looked_up()[index]

    def __len__(self) -> int:
        return len(self._looked_up())

    def __iter__(self) -> Iterator[str]:
        return iter(self._looked_up())

    def __contains__(self, value: object) -> bool:
        return value in self._looked_up()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(self._looked_up())

    def __repr__(self) -> str:
        return f"Probes({self._looked_up()!r})"


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


def read(out: str | os.PathLike[str]) -> Manifest:
    """The manifest in the fact folder ``out``, typed; raises ``ManifestError`` saying what to run instead."""
    out = os.fspath(out)
    path = os.path.join(out, MANIFEST_NAME)
    try:
        raw = safe_write.read_nofollow(path, MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        raise ManifestError(f"{out}: no {MANIFEST_NAME} here; run `rofl scan SRC --out {out}` first") from None
    except OSError as err:
        raise ManifestError(f"{path}: cannot read ({err.strerror or err})") from None
    return from_bytes(raw, path)


def from_bytes(raw: bytes | None, path: str) -> Manifest:
    """The manifest in ``raw`` (read from ``path``), typed; ``ManifestError`` naming ``path`` when it is not one."""
    with paused_collection():  # hundreds of thousands of acyclic objects (rofl.engine.base.collector)
        data = _decode(raw, lazy=True)
        typed = data if isinstance(data, str) else _typed(data, path)
    if isinstance(typed, str):
        out = os.path.dirname(path) or "."
        raise ManifestError(f"{path}: {typed}; run `rofl scan SRC --out {out}` again to rewrite it")
    return typed


@dataclass(frozen=True, slots=True)
class FactRecord:
    """A fact file the manifest names: its path relative to the fact folder and the xxh3 of its bytes."""

    facts: str
    digest: str | None


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One scanned source as the manifest records it (what the command line reads of it)."""

    facts: str  # the fact file, relative to the fact folder
    hash: str  # the source's xxh3
    digest: str | None  # the fact file's xxh3
    size: int | None
    mtime_ns: int | None
    resolution_deps: Sequence[str]  # paths, config files and ``package:<name>`` tokens resolution consulted
    retry: bool = False  # refused for want of memory: the next scan tries again

    def record(self) -> dict[str, Any]:
        """The entry as the scanner's worklist reads a previous manifest's (``rofl.questions.staleness``)."""
        entry: dict[str, Any] = {"hash": self.hash, "facts": self.facts, "digest": self.digest}
        entry.update(size=self.size, mtime_ns=self.mtime_ns, resolution_deps=list(self.resolution_deps))
        if self.retry:
            entry["retry"] = True
        return entry


@dataclass(frozen=True, slots=True)
class ScanOrigin:
    """Where a scan read and with which options: what a question needs of a manifest it has not parsed."""

    src: str
    options: ScanOptions


@dataclass(frozen=True, slots=True)
class Manifest:
    """A manifest as the command line reads it, every field of the type the scanner writes (checked once,
    in ``read``); mappings are read-only.  ``configs`` values are ``(size, mtime_ns, xxh3)`` or None."""

    src: str
    options: ScanOptions
    files: Mapping[str, FileEntry]
    packages: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    configs: Mapping[str, tuple[Any, ...] | None] = field(default_factory=lambda: _EMPTY)
    workspace: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()
    preamble: FactRecord | None = None
    package_entries: FactRecord | None = None
    format: int = FORMAT
    tool_version: str | None = None
    extractor_version: str | None = None
    resolver_version: str | None = None
    grammar_versions: Mapping[str, str] | None = None

    @property
    def origin(self) -> ScanOrigin:
        return ScanOrigin(self.src, self.options)

    def previous(self) -> dict[str, Any]:
        """The record the scanner's worklist reads as the previous scan (``rofl.questions.staleness``)."""
        return {
            "files": {path: entry.record() for path, entry in self.files.items()},
            "configs": {k: None if v is None else list(v) for k, v in self.configs.items()},
            "packages": dict(self.packages),
            "workspace": list(self.workspace),
            "unreadable": list(self.unreadable),
        }


def empty_manifest(src: str) -> Manifest:
    """The manifest of a scan of ``src`` that found nothing (default options)."""
    return Manifest(src, ScanOptions(), _EMPTY)


def from_record(data: dict[str, Any]) -> Manifest:
    """A parsed manifest (probes already expanded), typed; ``ManifestError`` naming the first malformed field."""
    typed = _typed(data)
    if isinstance(typed, str):
        raise ManifestError(f"{MANIFEST_NAME}: {typed}; run `rofl scan` again to rewrite it")
    return typed


def options_from(options: Any) -> ScanOptions | None:
    """The scan options an ``options`` record says (defaults for a missing key), or None when malformed."""
    if not isinstance(options, dict):
        return None
    include, exclude = options.get("include", []), options.get("exclude", [])
    max_bytes = options.get("max_bytes", DEFAULT_MAX_BYTES)
    lists = [include, exclude]
    if all(isinstance(x, list) and all(isinstance(g, str) for g in x) for x in lists) and type(max_bytes) is int:
        return ScanOptions(max_bytes, tuple(include), tuple(exclude))
    return None


def _str_list(value: Any) -> tuple[str, ...] | None:
    return tuple(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _optional(value: Any, kind: type) -> bool:
    return value is None or type(value) is kind


def _fact_record(value: Any) -> FactRecord | None | str:
    """A ``{facts, digest}`` record, None when absent, or ``"bad"``."""
    if value is None:
        return None
    if isinstance(value, dict) and isinstance(value.get("facts"), str) and _optional(value.get("digest"), str):
        return FactRecord(value["facts"], value.get("digest"))
    return "bad"


def _typed(data: dict[str, Any], where: str = MANIFEST_NAME) -> Manifest | str:
    """``data`` as a ``Manifest``, or which field is malformed: every type check of a read manifest is here
    (a file's probes: a list of paths as ``load`` expands them, or the string of indexes, checked when read)."""
    src = data.get("src", ".")
    if not isinstance(src, str):
        return "'src' is not a path"
    options = options_from(data.get("options", {}))
    if options is None:
        return "'options' is malformed"
    files = data.get("files")
    if not isinstance(files, dict):
        return "'files' is malformed"
    entries = {}
    table = data.get("probes", ())
    for path, value in files.items():  # inline: this loop runs once per scanned file
        if type(value) is not dict:
            return f"the entry of {path!r} in 'files' is malformed"
        facts, digest, size, mtime = value.get("facts"), value.get("digest"), value.get("size"), value.get("mtime_ns")
        source_hash = value.get("hash")
        if (
            type(facts) is not str
            or type(source_hash) is not str
            or (digest is not None and type(digest) is not str)
            or (size is not None and type(size) is not int)
            or (mtime is not None and type(mtime) is not int)
        ):
            return f"the entry of {path!r} in 'files' is malformed"
        deps = value.get("resolution_deps")  # the indexes (``_strings`` checked) or paths (``_expand``)
        probed: Sequence[str] = Probes(deps, table, (where, path)) if type(deps) is str else tuple(deps or ())
        entries[path] = FileEntry(facts, source_hash, digest, size, mtime, probed, value.get("retry") is True)
    packages = data.get("packages", {})
    if not (isinstance(packages, dict) and all(isinstance(v, str) for v in packages.values())):
        return "'packages' is malformed"
    configs = data.get("configs", {})  # config path -> [size, mtime_ns, xxh3 or "refused"] or null
    if not isinstance(configs, dict) or not all(
        v is None or (isinstance(v, list) and len(v) == 3 and isinstance(v[2], str)) for v in configs.values()
    ):
        return "'configs' is malformed"
    workspace, unreadable = _str_list(data.get("workspace", [])), _str_list(data.get("unreadable", []))
    if workspace is None:
        return "'workspace' is malformed"
    if unreadable is None:
        return "'unreadable' is malformed"
    preamble, package_entries = _fact_record(data.get("preamble")), _fact_record(data.get("package_entries"))
    if preamble == "bad" or package_entries == "bad":
        return "a fact-file record ('preamble', 'package_entries') is malformed"
    versions = [data.get(k) for k in ("tool_version", "extractor_version", "resolver_version")]
    grammars = data.get("grammar_versions")
    if not all(_optional(v, str) for v in versions) or not (
        grammars is None or (isinstance(grammars, dict) and all(isinstance(v, str) for v in grammars.values()))
    ):
        return "a version field is malformed"
    return Manifest(
        src,
        options,
        MappingProxyType(entries),
        MappingProxyType(packages),
        MappingProxyType({k: None if v is None else tuple(v) for k, v in configs.items()}),
        workspace,
        unreadable,
        preamble,  # type: ignore[arg-type]  # "bad" returned above
        package_entries,  # type: ignore[arg-type]
        data["format"],
        versions[0],
        versions[1],
        versions[2],
        None if grammars is None else MappingProxyType(grammars),
    )


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
        if not isinstance(entry.get("resolution_deps", []), (list, str)):  # str: ``_parse``'s lazy reading
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
            entry = {**entry, "resolution_deps": ",".join([str(index[p]) for p in deps])}
        compact_files[path] = entry
    head = {"format": manifest.get("format", FORMAT)}
    rest = {k: v for k, v in manifest.items() if k not in ("format", "files")}
    return {**head, **rest, "probes": probes, "files": compact_files}
