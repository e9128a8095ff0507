"""The rows of a scan's pure fact files by digest, kept beside them so that an audit adds [code] facts without parsing texts.

An audit whose live rules read [code] (a preset, a ``forbid`` rule, a dependency-cruiser config) needs
some relations of every pure fact file (``rofl.loading.audit_store``).  ``.rofl-audit.rows`` holds, for
each pure file's digest, every relation it asserts with its rows: ``MAGIC``, an HMAC tag under this
user's secret (``rofl.loading.cachemac``), a newline and the payload: an 8-byte length, a ``marshal``
header ``(FORMAT, stamp, segments)`` and the blobs.  A segment is ``(digests, {relation: (offset,
length)})``: each relation of its files is one blob, ``marshal`` of ``{digest: rows}`` (equal strings
written once per blob), so an audit decodes only the relations its rules read (a quarter of the rows
for every preset) and never the others.

It is content-keyed and grows by segments: a rescan that rewrites k fact files appends one segment of
k digests (those files are read, checked against their digests and parsed) and copies the other blobs'
bytes undecoded; the digests no longer listed stay as garbage until they outnumber a quarter of the
live ones or the segments reach ``MAX_SEGMENTS``, when the file is compacted into one segment.  The
digests come from the audit's records, checked against the files as ``audit_store.residue`` checks them
(the trust every cache of the fact folder rests on: an unchanged stat is an unchanged file).  A file
whose tag does not verify, or written by other code (``stamp``), is ignored and rebuilt; without a
private secret nothing is kept and every text is parsed.
"""

from __future__ import annotations

import marshal
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rofl.engine.factlines import read_facts
from rofl.engine.terms import canonical_rows
from rofl.scanner.hashing import hash_key

ROWS_NAME = ".rofl-audit.rows"
MAGIC = b"rofl-audit-rows 2\n"
FORMAT = 4  # 3: one marshal of {digest: rows}; 4: segments of one blob per relation
MAX_ROWS_BYTES = 1 << 34
MAX_SEGMENTS = 16  # appended segments before the file is compacted into one
GARBAGE_FLOOR = 64  # digests no longer listed that never force a compaction on their own
CODE = "code"
_LENGTH = struct.Struct("<Q")

Rows = tuple[tuple[str, tuple[tuple, ...]], ...]  # (relation, its stored rows ``("code", *args)``), by relation
Blobs = dict[str, tuple[int, int]]  # relation -> (offset, length) of its blob in the blob area


class NotPure(Exception):
    """A file judged pure does not read as the scanner's [code] facts now: the caller loads every fact file."""


def stamp() -> str:
    """What the rows' meaning depends on besides the file: rofl's version, this format and the engine's code
    (which reads the fact lines)."""
    from rofl import __version__

    from .cache import engine_fingerprint

    return hash_key(b"\0".join([__version__.encode(), str(FORMAT).encode(), engine_fingerprint()]))


def rows_of(text: str, memo: dict) -> Rows:
    """Every [code] relation a pure fact file's text asserts, with its rows in canonical order (values shared
    through ``memo``): runs that the store's canonical sort of a whole relation merges in near-linear time."""
    facts = read_facts(text, memo)
    if facts is None:
        raise NotPure("not in the scanner's fact-line shape")
    by_rel: dict[str, list[tuple]] = {}
    for rel, persp, args, _temporal, _line in facts:
        if persp != CODE:
            raise NotPure(f"a fact in [{persp}]")
        by_rel.setdefault(rel, []).append((CODE, *args))
    return tuple((rel, tuple(canonical_rows(rows))) for rel, rows in sorted(by_rel.items()))


@dataclass(frozen=True, slots=True)
class Segment:
    """Files added together: their digests and where each relation's blob ``{digest: rows}`` lies."""

    digests: tuple[str, ...]
    blobs: Blobs


@dataclass(slots=True)
class KeptRows:
    """The rows of the wanted pure files, decoded relation by relation on first use (``parts``)."""

    digests: tuple[str, ...]  # the wanted files' digests, each once, in the order asked
    area: memoryview  # the kept blobs (empty when nothing was kept)
    segments: tuple[Segment, ...]
    fresh: dict[str, Rows]  # the files parsed now, by digest
    decoded: dict[str, dict[str, tuple]] = field(default_factory=dict)  # relation -> {digest: rows}

    def relations(self) -> list[str]:
        """Every relation some kept or parsed file asserts, sorted."""
        rels = {rel for seg in self.segments for rel in seg.blobs}
        rels.update(rel for rows in self.fresh.values() for rel, _ in rows)
        return sorted(rels)

    def parts(self, rel: str) -> list[tuple]:
        """The rows of ``rel`` of each wanted file asserting it (one tuple per file, in canonical order), in
        the order the files were asked."""
        by_digest = self._decoded(rel)
        return [rows for rows in map(by_digest.get, self.digests) if rows is not None]

    def _decoded(self, rel: str) -> dict[str, tuple]:
        found = self.decoded.get(rel)
        if found is None:
            from . import cachemac

            found = {}
            for seg in self.segments:
                spot = seg.blobs.get(rel)
                if spot is not None:
                    blob = cachemac.unmarshal(self.area[spot[0] : spot[0] + spot[1]])
                    if not isinstance(blob, dict):
                        raise NotPure(f"{ROWS_NAME}: the rows of {rel} do not decode")
                    found.update(blob)
            for digest, rows in self.fresh.items():
                for name, part in rows:
                    if name == rel:
                        found[digest] = part
            self.decoded[rel] = found
        return found


def _kept(root: Path, secret: bytes | None, made: str) -> tuple[memoryview, tuple[Segment, ...]]:
    """The blob area and segments of ``root``'s rows file written under ``made`` and tagged with ``secret``
    (nothing when there is none, or it is damaged, forged or another format)."""
    from . import cachemac

    nothing = (memoryview(b""), ())
    if secret is None:
        return nothing
    payload = cachemac.read_verified(root / ROWS_NAME, MAGIC, secret, MAX_ROWS_BYTES)
    if payload is None or len(payload) < _LENGTH.size:
        return nothing
    (size,) = _LENGTH.unpack_from(payload)
    start = _LENGTH.size + size
    header = cachemac.unmarshal(payload[_LENGTH.size : start]) if start <= len(payload) else None
    if not (isinstance(header, tuple) and len(header) == 3 and header[0] == FORMAT and header[1] == made):
        return nothing
    area = payload[start:]
    segments = []
    for item in header[2] if isinstance(header[2], tuple) else ():
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict)):
            return nothing
        if any(not (0 <= offset and offset + length <= len(area)) for offset, length in item[1].values()):
            return nothing
        segments.append(Segment(item[0], item[1]))
    return area, tuple(segments)


def rows_by_digest(
    root: Path, wanted: Iterable[tuple[str, str]], read_text: Callable[[str, str], str | None], secret: bytes | None
) -> KeptRows:
    """The rows of each ``(path, digest)`` in ``wanted``: from ``.rofl-audit.rows`` where it holds the digest,
    else ``read_text(path, digest)`` parsed (a file that does not read raises ``NotPure``).  With ``secret``,
    the files parsed are appended to the rows file as a segment, or the file is compacted to exactly the
    wanted digests when its garbage or its segments grew past their bounds."""
    made = stamp()
    area, segments = _kept(root, secret, made)
    present = {digest for seg in segments for digest in seg.digests}
    paths = dict(((digest, path) for path, digest in wanted))
    memo: dict = {}
    fresh: dict[str, Rows] = {}
    for digest, path in paths.items():
        if digest not in present:
            text = read_text(path, digest)
            if text is None:
                raise NotPure(f"{path}: changed since it was checked")
            fresh[digest] = rows_of(text, memo)
    kept = KeptRows(tuple(paths), area, segments, fresh)
    garbage = len(present) - (len(paths) - len(fresh))
    compact = garbage > max(GARBAGE_FLOOR, len(paths) // 4) or len(segments) >= MAX_SEGMENTS
    if secret is not None and (fresh or compact):
        _write(root, secret, made, kept, compact)
    return kept


def _write(root: Path, secret: bytes, made: str, kept: KeptRows, compact: bool) -> None:
    """Append the parsed files to the rows file as one segment, or (``compact``) write the wanted files'
    rows as the only segment; a read-only fact folder keeps the old file (the files are parsed again)."""
    from . import cachemac

    if compact:
        parts: list[bytes | memoryview] = []
        segments: list[tuple[tuple[str, ...], Blobs]] = []
        rows_by_rel = {rel: kept._decoded(rel) for rel in kept.relations()}
        blobs, offset = _blobs(
            {rel: {d: by_digest[d] for d in kept.digests if d in by_digest} for rel, by_digest in rows_by_rel.items()},
            parts,
            0,
        )
        segments.append((kept.digests, blobs))
    else:
        parts = [kept.area]
        segments = [(seg.digests, seg.blobs) for seg in kept.segments]
        by_rel: dict[str, dict[str, tuple]] = {}
        for digest, rows in kept.fresh.items():
            for rel, part in rows:
                by_rel.setdefault(rel, {})[digest] = part
        blobs, _ = _blobs(by_rel, parts, len(kept.area))
        segments.append((tuple(kept.fresh), blobs))
    header = marshal.dumps((FORMAT, made, tuple(segments)))
    try:
        cachemac.write_tagged(root / ROWS_NAME, MAGIC, secret, (_LENGTH.pack(len(header)), header, *parts))
    except OSError:
        pass  # a read-only fact folder: parsed again next time


def _blobs(by_rel: dict[str, dict[str, tuple]], parts: list, offset: int) -> tuple[Blobs, int]:
    """Append one blob per relation of ``by_rel`` to ``parts`` from ``offset`` on: (where each lies, the end)."""
    blobs: Blobs = {}
    for rel in sorted(by_rel):
        blob = marshal.dumps(by_rel[rel])
        blobs[rel] = (offset, len(blob))
        parts.append(blob)
        offset += len(blob)
    return blobs, offset
