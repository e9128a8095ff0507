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


def tag(secret: bytes, payload: bytes | memoryview) -> bytes:
    """The HMAC-SHA256 tag (hex) of ``payload`` under ``secret``."""
    return hmac.new(secret, payload, hashlib.sha256).hexdigest().encode("ascii")


def verify(secret: bytes, payload: bytes | memoryview, given: bytes) -> bool:
    """Whether ``given`` is ``payload``'s tag under ``secret`` (compared in constant time)."""
    return hmac.compare_digest(given, tag(secret, payload))
