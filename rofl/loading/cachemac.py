"""Authenticating the compiled cache: a per-user secret kept outside any fact folder, and the HMAC
tag of a cache's payload, so that a cache someone else wrote (or forged, key recomputed) is rebuilt.

The secret is 32 random bytes in ``$ROFL_CONFIG_DIR`` (default ``$XDG_CONFIG_HOME/rofl`` or
``~/.config/rofl``) as ``cache-mac.key``, created readable by its owner only; a secret file that
others could read or write is not used (the cache is then neither read nor written).  The tag lives
in the cache file's header (``rofl.loading.cache``): it is worthless without the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from collections.abc import Sequence
from pathlib import Path

KEY_NAME = "cache-mac.key"


def config_dir() -> Path:
    explicit = os.environ.get("ROFL_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "rofl"


def secret() -> bytes | None:
    """The per-user secret, created on first use; None when it cannot be made or is not private."""
    folder = config_dir()
    path = folder / KEY_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(os.urandom(32))
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)  # a FIFO: refused below
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
                return None
            data = handle.read(64)
    except OSError:
        return None
    return data if len(data) == 32 else None


def tag(secret: bytes, payload: bytes | memoryview | Sequence[bytes | memoryview]) -> bytes:
    """The HMAC-SHA256 tag (hex) of ``payload`` (or of its parts, one after another) under ``secret``."""
    mac = hmac.new(secret, digestmod=hashlib.sha256)
    for part in (payload,) if isinstance(payload, (bytes, memoryview)) else payload:
        mac.update(part)
    return mac.hexdigest().encode("ascii")


def verify(secret: bytes, payload: bytes | memoryview, given: bytes) -> bool:
    """Whether ``given`` is ``payload``'s tag under ``secret`` (compared in constant time)."""
    return hmac.compare_digest(given, tag(secret, payload))


def read_verified(path: Path, magic: bytes, secret: bytes, limit: int) -> memoryview | None:
    """The payload of a file ``write_tagged`` wrote under ``secret`` (``magic``, the payload's tag, a newline,
    the payload), undecoded, or None: no such regular file of at most ``limit`` bytes, another magic, a tag
    that does not verify.  The bytes read are the bytes checked (one read, never copied)."""
    from rofl.engine.base import safe_write

    try:
        data = safe_write.read_nofollow(str(path), limit)
    except OSError:
        return None
    if data is None or not data.startswith(magic):
        return None
    end = data.find(b"\n", len(magic))
    if end < 0:
        return None
    payload = memoryview(data)[end + 1 :]
    return payload if verify(secret, payload, data[len(magic) : end]) else None


def read_tagged(path: Path, magic: bytes, secret: bytes, limit: int, hashed: list[str] | None = None) -> object | None:
    """The ``marshal`` payload of a file ``write_tagged`` wrote under ``secret`` (``read_verified``), decoded,
    or None (also when it does not decode).  With ``hashed``, the payload's digest is appended to it."""
    payload = read_verified(path, magic, secret, limit)
    if payload is None:
        return None
    if hashed is not None:
        from rofl.scanner.hashing import hash_bytes

        hashed.append(hash_bytes(payload))  # type: ignore[arg-type]  # xxhash reads any buffer
    return unmarshal(payload)


def unmarshal(payload: bytes | memoryview) -> object | None:
    """``marshal.loads`` of a verified payload, None when it does not decode; the collector is paused meanwhile
    (a payload's containers hold no cycles: none collected while made, a fifth of the load)."""
    import marshal

    from rofl.engine.base.collector import paused_collection

    with paused_collection():
        try:
            return marshal.loads(payload)
        except (ValueError, EOFError, TypeError):
            return None


def write_tagged(path: Path, magic: bytes, secret: bytes, payload: bytes | Sequence[bytes | memoryview]) -> None:
    """Replace ``path`` atomically with ``magic``, the tag of ``payload`` (bytes, or parts written one after
    another) under ``secret``, a newline and ``payload``."""
    from rofl.engine.base import safe_write

    parts = (payload,) if isinstance(payload, bytes) else tuple(payload)
    safe_write.write_atomic(str(path), (magic, tag(secret, parts), b"\n", *parts))
