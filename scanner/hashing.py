"""Content hashing for the scanner: xxh3-64 of bytes and files, as 16 hex digits."""

from __future__ import annotations

import xxhash


def hash_bytes(data: bytes) -> str:
    """The xxh3-64 digest of ``data`` as 16 lowercase hex digits."""
    return xxhash.xxh3_64_hexdigest(data)


def hash_file(path: str) -> str:
    """The xxh3-64 digest of the file at ``path`` (raises OSError when it cannot be read)."""
    with open(path, "rb") as handle:
        return xxhash.xxh3_64_hexdigest(handle.read())
