"""Authenticating the compiled cache: a per-user secret kept outside any fact folder, and the HMAC
tag of each cache file, so that a cache someone else wrote (or forged, key recomputed) is rebuilt.

The secret is 32 random bytes in ``$ROFL_CONFIG_DIR`` (default ``$XDG_CONFIG_HOME/rofl`` or
``~/.config/rofl``) as ``cache-mac.key``, created readable by its owner only; a secret file that
others could read or write is not used (the cache is then neither read nor written).  The tag lives
beside the cache (``.rofl-store.cache.mac``): it is worthless without the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

from engine import safe_write

KEY_NAME = "cache-mac.key"
TAG_SUFFIX = ".mac"
MAX_CACHE_BYTES = 1 << 34


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
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
                return None
            data = handle.read(64)
    except OSError:
        return None
    return data if len(data) == 32 else None


def _tag(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).hexdigest().encode("ascii")


def _read(path: Path) -> bytes | None:
    try:
        return safe_write.read_nofollow(str(path), MAX_CACHE_BYTES)
    except OSError:
        return None


def authentic(cache_file: Path, key: bytes) -> bool:
    """Whether ``cache_file`` carries a valid tag under ``key``."""
    data = _read(cache_file)
    tag = _read(Path(str(cache_file) + TAG_SUFFIX))
    return data is not None and tag is not None and hmac.compare_digest(tag.strip(), _tag(key, data))


def seal(cache_file: Path, key: bytes) -> None:
    """Tag the cache just written (a folder that cannot take the tag keeps an unusable cache)."""
    data = _read(cache_file)
    if data is None:
        return
    try:
        safe_write.write_atomic(str(cache_file) + TAG_SUFFIX, _tag(key, data) + b"\n")
    except OSError:
        pass
