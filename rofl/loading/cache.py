"""The compiled store cache of a fact folder: the loaded base store, keyed by everything it was built from.

File layout: ``MAGIC`` line, the key line, the HMAC tag of the header under this user's secret
(``rofl.loading.cachemac``), the header's length, then the header, a ``marshal`` payload ``(key, tick,
counters, warnings, index)``, and one segment per relation: a ``marshal`` payload ``(rows, whos)`` whose
offset, length and BLAKE2b digest the header's ``index`` holds.  A reader that keeps only some
relations (``read(keep=...)``) reads, checks and decodes only their segments: a question over a few
relations of a large scan does not decode the rest.  The key line is read first: a cache of another key
(the first question after a rescan meets one) is passed over without checking its tag; the key that
counts is the one inside the authenticated header.  The header is checked on the bytes read, each
segment against its digest on the bytes read, and those same bytes are decoded (nothing can be swapped
in between).  A cache whose magic, tag, key or any digest read does not match is ignored and rebuilt; it
is never partly trusted.  Without a private secret there is no cache at all.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import rofl.engine as engine
from rofl.engine import vocabulary as V
from rofl.engine.base import safe_write
from rofl.engine.store import Store

MAGIC = b"rofl-store-cache 4\n"  # 4: a segment per relation (3: one payload; 2: no key line; 1: an unkeyed digest)
_HEAD_BYTES = 512  # the magic, key, tag and length lines fit in this
CACHE_NAME = ".rofl-store.cache"
_TIMELESS = V.TIMELESS_RELATIONS
MAX_CACHE_BYTES = 1 << 34  # read only when the file is a regular file of at most this size


def engine_fingerprint() -> bytes:
    """The engine's own code as the cache key sees it: each module's name, size and modification time
    (stat only, no reads), so a store compiled by other engine code (how a rule's premises are
    reflected, say) is rebuilt instead of answering with that code's meaning."""
    return folder_fingerprint(Path(engine.__file__).parent)


def folder_fingerprint(folder: Path) -> bytes:
    """The Python modules of ``folder`` as a cache key sees them: each one's name, size and modification time."""
    parts = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.endswith(".py"):
            st = entry.stat()
            parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts).encode()


def cache_path(root: Path, name: str = CACHE_NAME) -> Path:
    return Path(root) / name


@dataclass(frozen=True, slots=True)
class Subset:
    """Only some base relations of a scan (`rofl report`: the scanner relations its rules read), cached
    apart under ``name`` so that a later run reads only those: its key is the whole cache's and ``dropped``."""

    dropped: frozenset[str]
    name: str = ".rofl-store.subset.cache"

    def keeps(self, rel: str) -> bool:
        return rel not in self.dropped

    def key(self, whole: str) -> str:
        from rofl.scanner.hashing import hash_key

        return hash_key("\0".join([whole, *sorted(self.dropped)]).encode())


def read(
    root: Path,
    key: str,
    secret: bytes | None = None,
    keep: Callable[[str], bool] | None = None,
    name: str = CACHE_NAME,
) -> tuple[Store, tuple] | None:
    """The cached store and its warnings, or None when there is no cache for ``key`` carrying this user's
    tag (``secret``, by default ``rofl.loading.cachemac.secret()``).  With ``keep``, only the segments of the
    relations it keeps are read, checked and adopted."""
    from . import cachemac

    secret = secret if secret is not None else cachemac.secret()
    if secret is None:
        return None
    try:
        fd = safe_write.open_nofollow(str(cache_path(root, name)), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        return _read_open(fd, key, secret, keep)
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_open(fd: int, key: str, secret: bytes, keep: Callable[[str], bool] | None) -> tuple[Store, tuple] | None:
    import hashlib
    import hmac
    import stat

    from . import cachemac

    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CACHE_BYTES:
        return None  # a FIFO, device or folder planted at the name, or too large
    head = os.pread(fd, _HEAD_BYTES, 0)
    lead = MAGIC + key.encode("ascii") + b"\n"
    if not head.startswith(lead):
        return None  # another magic, or the cache of another key: not worth checking
    lines = head[len(lead) :].split(b"\n", 2)
    if len(lines) < 3 or not lines[1].isdigit():
        return None
    tag, size = lines[0], int(lines[1])
    start = len(lead) + len(lines[0]) + len(lines[1]) + 2
    header = os.pread(fd, size, start)
    if len(header) != size or not cachemac.verify(secret, header, tag):
        return None
    try:
        cached_key, tick, counters, warnings, index = marshal.loads(header)
    except (ValueError, EOFError, TypeError):
        return None
    if cached_key != key:
        return None
    store = Store()
    store.tick = tick
    store.counters = dict(counters)
    base = start + size
    for rel, offset, length, digest in index:
        if keep is not None and not keep(rel):
            continue
        segment = os.pread(fd, length, base + offset)
        if len(segment) != length or not hmac.compare_digest(hashlib.blake2b(segment).digest(), digest):
            return None
        try:
            rows, whos = marshal.loads(segment)
        except (ValueError, EOFError, TypeError):
            return None
        del segment
        at = None if rel in _TIMELESS else tick
        if whos and whos.count(whos[0]) == len(whos):  # the common case: one asserter (the scanner) for all
            store.adopt(rel, dict.fromkeys(rows, store.meta(whos[0], at)))
        else:
            store.adopt(rel, {row: store.meta(who, at) for row, who in zip(rows, whos)})
    return store, tuple(warnings)


def write(
    root: Path, key: str, store: Store, warnings: tuple, secret: bytes | None = None, name: str = CACHE_NAME
) -> None:
    """Write the cache of ``store`` for ``key``, tagged with ``secret`` (by default this user's); nothing
    without a private secret, or when a term is nested deeper than marshal writes."""
    import hashlib

    from . import cachemac

    secret = secret if secret is not None else cachemac.secret()
    if secret is None:
        return
    segments: list[bytes] = []
    index = []
    offset = 0
    for rel in store.relations():
        rows = store.sorted_rows(rel)
        segment = _segment(tuple(rows), tuple(m.who for m in rows.values()))
        if segment is None:
            return
        segments.append(segment)
        index.append((rel, offset, len(segment), hashlib.blake2b(segment).digest()))
        offset += len(segment)
    header = marshal.dumps((key, store.tick, tuple(sorted(store.counters.items())), tuple(warnings), tuple(index)))
    lines = (MAGIC, key.encode("ascii"), b"\n", cachemac.tag(secret, header), b"\n", str(len(header)).encode(), b"\n")
    try:  # an exclusive temporary renamed into place: a link planted in the folder is never followed
        safe_write.write_atomic(str(cache_path(root, name)), (*lines, header, *segments))
    except OSError:
        pass  # a read-only fact folder just goes without a cache


def _segment(rows: tuple, whos: tuple) -> bytes | None:
    """One relation's segment; a deep term (an ``engine.terms.Compound``, which marshal takes as a plain tuple
    only) written plain; None for a term nested deeper than marshal writes."""
    try:
        return marshal.dumps((rows, whos))
    except ValueError:
        from rofl.engine.terms import plain

        try:
            return marshal.dumps((tuple(plain(row) for row in rows), whos))
        except ValueError:
            return None
