"""The rows of a scan's pure fact files by digest, kept beside them so that an audit adds [code] facts without parsing texts.

An audit whose live rules read [code] (a preset, a ``forbid`` rule, a dependency-cruiser config) needs
some relations of every pure fact file (``rofl.loading.audit_store``).  ``.rofl-audit.rows`` holds, for
each pure file's digest, every relation it asserts with its rows: ``MAGIC``, an HMAC tag under this
user's secret (``rofl.loading.cachemac``), a newline and a ``marshal`` payload ``(FORMAT, stamp,
{digest: ((rel, rows), ...)})``.  Equal strings are one object when written, so marshal writes each
once and a load shares them (a string table, without a second format).

It is content-keyed: a rescan that rewrites one fact file adds one digest (that file is read, checked
against its digest and parsed) and drops the digests no longer listed; nothing else is read.  The
digests come from the audit's records, checked against the files as ``audit_store.residue`` checks
them (the trust every cache of the fact folder rests on: an unchanged stat is an unchanged file).  A
file whose tag does not verify, or written by other code (``stamp``), is ignored and rebuilt; without
a private secret nothing is kept and every text is parsed.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterable
from pathlib import Path

from rofl.engine.factlines import read_facts
from rofl.engine.terms import canonical_rows
from rofl.scanner.hashing import hash_key

ROWS_NAME = ".rofl-audit.rows"
MAGIC = b"rofl-audit-rows 1\n"
FORMAT = 3  # 2: stored rows, the perspective first; 3: each relation's rows in canonical order
MAX_ROWS_BYTES = 1 << 34
CODE = "code"

Rows = tuple[tuple[str, tuple[tuple, ...]], ...]  # (relation, its stored rows ``("code", *args)``), by relation


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


def rows_by_digest(
    root: Path, wanted: Iterable[tuple[str, str]], read_text: Callable[[str, str], str | None], secret: bytes | None
) -> dict[str, Rows]:
    """The rows of each ``(path, digest)`` in ``wanted``: from ``.rofl-audit.rows`` where it holds the digest,
    else ``read_text(path, digest)`` parsed (a file that does not read raises ``NotPure``); the rows file is
    rewritten with exactly the wanted digests when it lacked one or held others (and ``secret`` allows it)."""
    from . import cachemac

    wanted = list(wanted)
    made = stamp()
    kept: dict[str, Rows] = {}
    if secret is not None:
        read = cachemac.read_tagged(root / ROWS_NAME, MAGIC, secret, MAX_ROWS_BYTES)
        if isinstance(read, tuple) and len(read) == 3 and read[0] == FORMAT and read[1] == made:
            kept = read[2] if isinstance(read[2], dict) else {}
    out: dict[str, Rows] = {}
    memo: dict = {}
    fresh = 0
    for path, digest in wanted:
        rows = kept.get(digest)
        if rows is None:
            text = read_text(path, digest)
            if text is None:
                raise NotPure(f"{path}: changed since it was checked")
            rows = rows_of(text, memo)
            fresh += 1
        out[digest] = rows
    if secret is not None and (fresh or len(out) != len(kept)):
        try:
            cachemac.write_tagged(root / ROWS_NAME, MAGIC, secret, marshal.dumps((FORMAT, made, out)))
        except OSError:
            pass  # a read-only fact folder: parsed again next time
    return out
