"""Content digests, the one home: xxh3-64 of sources and fact files (16 hex digits), xxh3-128 for cache keys."""

from __future__ import annotations

import xxhash


def hash_bytes(data: bytes) -> str:
    """The xxh3-64 digest of ``data`` as 16 lowercase hex digits."""
    return xxhash.xxh3_64_hexdigest(data)


def hash_key(data: bytes) -> str:
    """The xxh3-128 digest of ``data`` as 32 lowercase hex digits: keys and checks of caches that outlive a scan."""
    return xxhash.xxh3_128_hexdigest(data)


def hash_file(path: str) -> str:
    """The xxh3-64 digest of the file at ``path`` (raises OSError when it cannot be read)."""
    with open(path, "rb") as handle:
        return xxhash.xxh3_64_hexdigest(handle.read())
