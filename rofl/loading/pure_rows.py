"""The rows of a scan's pure fact files by digest, kept beside them so that an audit adds [code] facts without parsing texts.

An audit whose live rules read [code] (a preset, a ``forbid`` rule, a dependency-cruiser config) needs
some relations of every pure fact file (``rofl.loading.audit_store``).  ``.rofl-audit.rows`` holds, for
each pure file's digest, every relation it asserts with its rows: ``MAGIC``, an HMAC tag under this
user's secret (``rofl.loading.cachemac``), a newline and the payload: an 8-byte length, a ``marshal``
header ``(FORMAT, stamp, segments)`` and the blobs.  A segment is ``(digests, {relation: (offset,
length)})``: each relation of its files is one blob, ``marshal`` of ``{digest: rows}`` (equal strings
written once per blob), so an audit decodes only the relations its rules read (a quarter of the rows
for every preset) and never the others.

It is content-keyed.  What a rescan changed goes to a journal beside it, ``.rofl-audit.rows-journal``
(``JOURNAL_MAGIC``, the tag, a newline, ``marshal`` of ``(FORMAT, stamp, base, {digest: rows})``): the
rows of the files parsed since the rows file was written, for the rows file whose header names the same
``base`` (a random id).  A rescan that rewrites k fact files rewrites the journal with their rows (those
files are read, checked against their digests and parsed) and leaves the rows file as it is, so the
work and the bytes written follow what changed, not the scan.  When the journal holds more than an
eighth of the wanted files, or the digests no longer listed outnumber a quarter of the live ones, the
rows file is written again with exactly the wanted files and the journal removed.  The digests come from
the audit's records, checked against the files as ``audit_store.residue`` checks them (the trust every
cache of the fact folder rests on: an unchanged stat is an unchanged file).  A file whose tag does not
verify, written by other code (``stamp``) or, for a journal, for another rows file, is ignored (and
rebuilt); without a private secret nothing is kept and every text is parsed.
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
JOURNAL_NAME = ".rofl-audit.rows-journal"
MAGIC = b"rofl-audit-rows 2\n"
JOURNAL_MAGIC = b"rofl-audit-rows-journal 1\n"
FORMAT = 5  # 3: one marshal of {digest: rows}; 4: segments of one blob per relation; 5: a base id and a journal
MAX_ROWS_BYTES = 1 << 34
GARBAGE_FLOOR = 64  # digests no longer listed (or journalled) that never force a compaction on their own
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


@dataclass(frozen=True, slots=True)
class _Base:
    """The rows file as read: its blob area, segments and id (the journal names the id it extends)."""

    area: memoryview
    segments: tuple[Segment, ...]
    ident: str | None  # None: no rows file that verifies


_NO_BASE = _Base(memoryview(b""), (), None)


def _kept(root: Path, secret: bytes | None, made: str) -> _Base:
    """``root``'s rows file written under ``made`` and tagged with ``secret`` (nothing when there is none,
    or it is damaged, forged or another format)."""
    from . import cachemac

    if secret is None:
        return _NO_BASE
    payload = cachemac.read_verified(root / ROWS_NAME, MAGIC, secret, MAX_ROWS_BYTES)
    if payload is None or len(payload) < _LENGTH.size:
        return _NO_BASE
    (size,) = _LENGTH.unpack_from(payload)
    start = _LENGTH.size + size
    header = cachemac.unmarshal(payload[_LENGTH.size : start]) if start <= len(payload) else None
    if not (
        isinstance(header, tuple)
        and len(header) == 4
        and header[0] == FORMAT
        and header[1] == made
        and isinstance(header[2], str)
    ):
        return _NO_BASE
    area = payload[start:]
    segments = []
    for item in header[3] if isinstance(header[3], tuple) else ():
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict)):
            return _NO_BASE
        if any(not (0 <= offset and offset + length <= len(area)) for offset, length in item[1].values()):
            return _NO_BASE
        segments.append(Segment(item[0], item[1]))
    return _Base(area, tuple(segments), header[2])


def _journal(root: Path, secret: bytes, made: str, base: str) -> dict[str, Rows]:
    """The rows the journal keeps for the rows file ``base`` (nothing when it is missing, damaged, forged,
    another format or for another rows file)."""
    from . import cachemac

    payload = cachemac.read_tagged(root / JOURNAL_NAME, JOURNAL_MAGIC, secret, MAX_ROWS_BYTES)
    if not (
        isinstance(payload, tuple)
        and len(payload) == 4
        and payload[0] == FORMAT
        and payload[1] == made
        and payload[2] == base
        and isinstance(payload[3], dict)
    ):
        return {}
    return payload[3]


def rows_by_digest(
    root: Path, wanted: Iterable[tuple[str, str]], read_text: Callable[[str, str], str | None], secret: bytes | None
) -> KeptRows:
    """The rows of each ``(path, digest)`` in ``wanted``: from ``.rofl-audit.rows`` or its journal where they
    hold the digest, else ``read_text(path, digest)`` parsed (a file that does not read raises ``NotPure``).
    With ``secret``, the files parsed are added to the journal, or the rows file is written again with
    exactly the wanted files when its garbage or the journal grew past their bounds."""
    made = stamp()
    base = _kept(root, secret, made)
    journal = _journal(root, secret, made, base.ident) if secret is not None and base.ident is not None else {}
    in_base = {digest for seg in base.segments for digest in seg.digests}
    paths = dict(((digest, path) for path, digest in wanted))
    memo: dict = {}
    fresh: dict[str, Rows] = {}
    parsed = 0
    for digest, path in paths.items():
        if digest in journal:
            fresh[digest] = journal[digest]
        elif digest not in in_base:
            text = read_text(path, digest)
            if text is None:
                raise NotPure(f"{path}: changed since it was checked")
            fresh[digest] = rows_of(text, memo)
            parsed += 1
    kept = KeptRows(tuple(paths), base.area, base.segments, fresh)
    bound = max(GARBAGE_FLOOR, len(paths) // 4)
    garbage = len(in_base) - sum(1 for digest in paths if digest in in_base)
    compact = base.ident is None or garbage > bound or len(fresh) > max(GARBAGE_FLOOR, len(paths) // 8)
    if secret is not None and (parsed or compact):
        _write(root, secret, made, kept, base.ident, compact)
    return kept


def _write(root: Path, secret: bytes, made: str, kept: KeptRows, base: str | None, compact: bool) -> None:
    """Write the journal of the files kept outside the rows file (``kept.fresh``), or (``compact``, or no
    rows file) the rows file with the wanted files' rows as its one segment, and remove the journal; a
    read-only fact folder keeps the old files (the files are parsed again)."""
    import os

    from . import cachemac

    try:
        if not compact and base is not None:
            payload = marshal.dumps((FORMAT, made, base, kept.fresh))
            cachemac.write_tagged(root / JOURNAL_NAME, JOURNAL_MAGIC, secret, payload)
            return
        parts: list[bytes | memoryview] = []
        rows_by_rel = {rel: kept._decoded(rel) for rel in kept.relations()}
        blobs, _ = _blobs(
            {rel: {d: by_digest[d] for d in kept.digests if d in by_digest} for rel, by_digest in rows_by_rel.items()},
            parts,
            0,
        )
        ident = os.urandom(8).hex()
        header = marshal.dumps((FORMAT, made, ident, ((kept.digests, blobs),)))
        cachemac.write_tagged(root / ROWS_NAME, MAGIC, secret, (_LENGTH.pack(len(header)), header, *parts))
        try:
            os.unlink(root / JOURNAL_NAME)
        except FileNotFoundError:
            pass
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
