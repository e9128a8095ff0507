"""The compiled store cache of a fact folder: the loaded base store, keyed by everything it was built from.

File layout: ``MAGIC`` line, the key line, the HMAC tag of the payload under this user's secret
(``rofl.loading.cachemac``), a newline, then a ``marshal`` payload ``(key, tick, counters, base, warnings)``
with ``base`` as ``((rel, rows, whos), ...)``.  The key line is read first: a cache of another key (the
first question after a rescan meets one) is passed over without checking its tag or decoding it; the
key that counts is the one inside the authenticated payload.  The tag lives in the file it
authenticates, and the bytes read are the bytes checked and parsed (one read: nothing can be swapped in
between).  A cache whose magic, tag or key does not match is ignored and rebuilt; it is never partly
trusted.  Without a private secret there is no cache at all.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import rofl.engine as engine
from rofl.engine.base import safe_write
from rofl.engine.store import Store

MAGIC = b"rofl-store-cache 3\n"  # 3: the key line before the tag (2 had none; 1 an unkeyed digest)
CACHE_NAME = ".rofl-store.cache"
MAX_CACHE_BYTES = 1 << 34  # read only when the file is a regular file of at most this size


def engine_fingerprint() -> bytes:
    """The engine's own code as the cache key sees it: each module's name, size and modification time
    (stat only, no reads), so a store compiled by other engine code (how a rule's premises are
    reflected, say) is rebuilt instead of answering with that code's meaning."""
    folder = Path(engine.__file__).parent
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
    tag (``secret``, by default ``rofl.loading.cachemac.secret()``).  With ``keep``, only the relations it keeps
    are adopted (the others are dropped as they are read: a smaller peak for a command that needs few).
    The file's bytes are read once and never copied (views), so the peak is the bytes and the store."""
    from . import cachemac

    secret = secret if secret is not None else cachemac.secret()
    if secret is None:
        return None
    try:
        data = safe_write.read_nofollow(str(cache_path(root, name)), MAX_CACHE_BYTES)
    except OSError:
        return None
    if data is None:  # a link, FIFO or device planted at the name
        return None
    if not data.startswith(MAGIC + key.encode("ascii") + b"\n"):
        return None  # another magic, or the cache of another key: not worth checking
    start = len(MAGIC) + len(key) + 1
    end = data.find(b"\n", start)
    if end < 0:
        return None
    tag, payload = data[start:end], memoryview(data)[end + 1 :]
    if not cachemac.verify(secret, payload, tag):
        return None
    try:
        cached_key, tick, counters, base, warnings = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    finally:
        payload.release()
    del data
    if cached_key != key:
        return None
    store = Store()
    store.tick = tick
    store.counters = dict(counters)
    base = list(base)
    for i, (rel, rows, whos) in enumerate(base):
        base[i] = None  # each relation's rows are the store's (or freed) once adopted
        if keep is not None and not keep(rel):
            continue
        store.adopt(
            rel,
            {
                row: store.meta(who, None if tick_none else tick)
                for row, who, tick_none in zip(rows, whos, _timeless(rel, len(rows)))
            },
        )
    return store, tuple(warnings)


def _timeless(rel: str, n: int) -> list[bool]:
    from rofl.engine import vocabulary as V

    return [rel in V.TIMELESS_RELATIONS] * n


def write(
    root: Path, key: str, store: Store, warnings: tuple, secret: bytes | None = None, name: str = CACHE_NAME
) -> None:
    """Write the cache of ``store`` for ``key``, tagged with ``secret`` (by default this user's); nothing
    without a private secret."""
    from . import cachemac

    secret = secret if secret is not None else cachemac.secret()
    if secret is None:
        return
    base = []
    for rel in store.relations():
        rows = store.sorted_rows(rel)
        base.append((rel, tuple(rows), tuple(m.who for m in rows.values())))
    head = (key, store.tick, tuple(sorted(store.counters.items())))
    try:
        payload = marshal.dumps((*head, tuple(base), tuple(warnings)))
    except ValueError:  # a deep term is an engine.terms.Compound, which marshal takes as plain tuples only
        from rofl.engine.terms import plain

        base = [(rel, tuple(plain(row) for row in rows), whos) for rel, rows, whos in base]
        try:
            payload = marshal.dumps((*head, tuple(base), tuple(warnings)))
        except ValueError:  # a term nested deeper than marshal writes: the folder goes without a cache
            return
    path = cache_path(root, name)
    parts = (MAGIC, key.encode("ascii"), b"\n", cachemac.tag(secret, payload), b"\n", payload)  # no copy of the payload
    try:  # an exclusive temporary renamed into place: a link planted in the folder is never followed
        safe_write.write_atomic(str(path), parts)
    except OSError:
        pass  # a read-only fact folder just goes without a cache
