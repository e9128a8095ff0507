"""Reading the files resolution consults (tsconfig, package.json, pnpm-workspace.yaml, assets) and remembering each one's state.

Every file a resolution reads, or looks for and does not find, is recorded with a signature
(``[size, mtime_ns, xxh3]``, or ``None`` when absent) under its path relative to SRC, so that the
next scan can tell which of them changed and re-resolve exactly the files that consulted them.
tsconfig files may hold comments and trailing commas (JSONC); both are accepted.  An asset (a
non-code file an import names) is recorded the same way, so that its appearing, disappearing or
changing re-resolves its importers.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from scanner.hashing import hash_bytes

Signature = list[int | str] | None

_JSONC_NOISE = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.DOTALL)


def parse_jsonc(text: str) -> Any:
    """Parse JSON that may contain ``//`` and ``/* */`` comments and trailing commas."""
    return json.loads(_JSONC_NOISE.sub(lambda m: m.group(1) or "", text))


def rel_key(src: str, absolute: str) -> str:
    """The key of a config path: relative to SRC, POSIX separators (``../`` when outside SRC)."""
    rel = os.path.relpath(absolute, src)
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


def signature(absolute: str) -> Signature:
    """The current signature of a file, ``None`` when it does not exist or cannot be read."""
    try:
        st = os.stat(absolute)
        with open(absolute, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, hash_bytes(data)]


class ConfigStore:
    """Cached reads of JSON config files, recording the signature of every path it was asked about."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.seen: dict[str, Signature] = {}
        self._cache: dict[str, Any] = {}

    def _load(self, absolute: str) -> bytes | None:
        """The bytes of ``absolute`` (None when missing or not a readable file); records its signature."""
        key = rel_key(self.src, absolute)
        try:
            st = os.stat(absolute)
            with open(absolute, "rb") as handle:
                data = handle.read()
        except OSError:
            self.seen[key] = None
            return None
        self.seen[key] = [st.st_size, st.st_mtime_ns, hash_bytes(data)]
        return data

    def read(self, absolute: str, jsonc: bool = False) -> Any:
        """The parsed file (``None`` when missing or not valid JSON); records its signature."""
        absolute = os.path.normpath(absolute)
        if absolute in self._cache:
            return self._cache[absolute]
        data = self._load(absolute)
        value: Any = None
        if data is not None:
            try:
                text = data.decode("utf-8-sig")
                value = parse_jsonc(text) if jsonc else json.loads(text)
            except (UnicodeDecodeError, ValueError):
                value = None
        self._cache[absolute] = value
        return value

    def read_text(self, absolute: str) -> str | None:
        """The file as text (``None`` when missing or not UTF-8); records its signature."""
        absolute = os.path.normpath(absolute)
        cache_key = "text:" + absolute
        if cache_key in self._cache:
            return self._cache[cache_key]
        data = self._load(absolute)
        try:
            text = data.decode("utf-8-sig") if data is not None else None
        except UnicodeDecodeError:
            text = None
        self._cache[cache_key] = text
        return text

    def is_file(self, absolute: str) -> bool:
        """True when ``absolute`` is a regular file; records its signature (the existence of an asset)."""
        absolute = os.path.normpath(absolute)
        cache_key = "file:" + absolute
        known = self._cache.get(cache_key)
        if known is None:
            if os.path.isdir(absolute):
                known = False  # a folder: its files are probed (and recorded) one by one
            else:
                known = self._load(absolute) is not None
            self._cache[cache_key] = known
        return known

    def key(self, absolute: str) -> str:
        return rel_key(self.src, os.path.normpath(absolute))
