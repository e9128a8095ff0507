"""Reading the files resolution consults (tsconfig, package.json, pnpm-workspace.yaml, assets) and remembering each one's state.

Every file a resolution reads, or looks for and does not find, is recorded with a signature
(``[size, mtime_ns, xxh3]``, or ``None`` when absent) under its path relative to SRC, so that the
next scan can tell which of them changed and re-resolve exactly the files that consulted them.
tsconfig files are read as ``tsc`` reads them (``scanner.jsonc``: comments and trailing commas, a
root object, nothing of JSON5).  An asset (a
non-code file an import names) is recorded the same way, so that its appearing, disappearing or
changing re-resolves its importers.

Reads are bounded: a config is read only when it is a regular file (a symlink is followed, but a
FIFO, device or folder behind it is not opened for reading) of at most ``MAX_CONFIG_BYTES`` whose
real location lies in the scanned tree (SRC, or the git work tree SRC lies in: a link out of it,
or an ``extends`` that climbs out of it, is not followed), and JSON nested deeper than
``MAX_NESTING`` is refused before it is parsed.  A config that exists but
is refused or is not valid JSON is remembered in ``errors`` (path -> one-line message); the
scanner states it as ``src_config_error(Path, Message)`` and resolution treats the file as empty.
Nothing here raises for the content or kind of a file.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

from rofl.scanner.files import inside
from rofl.scanner.hashing import hash_bytes
from rofl.scanner.jsonc import parse_tsconfig

Signature = list[int | str] | None

MAX_CONFIG_BYTES = 4 * 1024 * 1024  # tsconfig/package.json files are kilobytes; 4 MiB is generous
MAX_NESTING = 256  # arrays and objects inside each other; real configs nest fewer than 10
_BRACKETS = re.compile(rb'"(?:\\.|[^"\\])*"|[\[\]{}]')


def nesting_depth(data: bytes) -> int:
    """The deepest nesting of ``[``/``{`` in JSON text (strings skipped), computed without recursion."""
    if data.count(b"[") + data.count(b"{") <= MAX_NESTING:
        return 0  # cannot be deeper than its brackets
    depth = deepest = 0
    for match in _BRACKETS.finditer(data):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


OUTSIDE = "its real location is outside SRC, not read"  # a link out of the tree, or a path that climbs out


def _kind(st: os.stat_result) -> str:
    kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (FIFO, device or socket)"
    return f"{kind}, not read"


def read_bounded(
    absolute: str, limit: int = MAX_CONFIG_BYTES, root_real: str | None = None
) -> tuple[os.stat_result, bytes | str]:
    """(stat, bytes) of a regular file of at most ``limit`` bytes, or (stat, why not) for another file.

    With ``root_real`` (a real folder), a file whose real location is not inside it is not opened:
    (stat, ``OUTSIDE``), or (stat, its kind) when it is not a regular file.  Opened non-blocking so that a FIFO cannot hang the scan; raises OSError (and
    ValueError for a path no file can have) when nothing is there.
    """
    if root_real is not None and not inside(os.path.realpath(absolute), root_real):
        st = os.stat(absolute)  # not opened: no read of a file outside the tree, no open of a device
        if not stat.S_ISREG(st.st_mode):
            return st, _kind(st)
        return st, OUTSIDE
    fd = os.open(absolute, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return st, _kind(st)
        if st.st_size > limit:
            return st, f"{st.st_size} bytes, over the {limit}-byte limit for config files, not read"
        data = os.read(fd, limit + 1)
        if len(data) > limit:
            return st, f"over the {limit}-byte limit for config files, not read"
        return st, data
    finally:
        os.close(fd)


def rel_key(src: str, absolute: str) -> str:
    """The key of a config path: relative to SRC, POSIX separators (``../`` when outside SRC)."""
    rel = os.path.relpath(absolute, src)
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


def _read_signed(
    absolute: str, root_real: str | None = None
) -> tuple[Signature, bytes | str | None, os.stat_result | None]:
    """(signature, bytes or why they were refused, stat) of a file; ``(None, None, None)`` when it does
    not exist or cannot be read.  The one definition of a recorded signature."""
    try:
        st, data = read_bounded(absolute, root_real=root_real)
    except (OSError, ValueError):
        return None, None, None
    return [st.st_size, st.st_mtime_ns, hash_bytes(data) if isinstance(data, bytes) else "refused"], data, st


def signature(absolute: str, root_real: str | None = None) -> Signature:
    """The current signature of a file (as a ``ConfigStore`` whose ``boundary`` for it is ``root_real``
    records it), ``None`` when it does not exist or cannot be read."""
    return _read_signed(absolute, root_real)[0]


class ConfigStore:
    """Cached reads of JSON config files, recording the signature of every path it was asked about.

    Files are read only from the tree: inside the verified git work tree SRC lies in (``top``, its
    real root, ``Listing.top``), nothing whose real location is outside it; outside a work tree,
    nothing that SRC's own paths lead out of SRC to (a path above SRC, as the tsconfig that governs
    it, is read where it is, as ``tsc`` reads it).
    """

    def __init__(self, src: str, top: str | None = None) -> None:
        self.src = src
        self.top = top
        self.root_real = top if top is not None else os.path.realpath(src)
        self._src_abs = os.path.normpath(os.path.abspath(src))
        self.seen: dict[str, Signature] = {}
        self.errors: dict[str, str] = {}  # config key -> why it was refused or did not parse
        self._cache: dict[str, Any] = {}

    def _load(self, absolute: str) -> bytes | None:
        """The bytes of ``absolute`` (None when missing, refused or unreadable); records its signature.

        A path no file can have (a NUL, a lone surrogate from a config value) is not recorded: it
        can never appear, so nothing needs to watch it.
        """
        try:
            key = rel_key(self.src, absolute)
            key.encode("utf-8", "surrogateescape")
        except (ValueError, UnicodeEncodeError):
            return None
        if "\0" in key:
            return None
        self.seen[key], data, st = _read_signed(absolute, self.boundary(absolute))
        if isinstance(data, str):  # there, but refused: its stat is its signature
            if st is not None and not stat.S_ISDIR(st.st_mode):
                self.errors[key] = data
            return None
        return data

    def _error(self, absolute: str, message: str) -> None:
        self.errors[rel_key(self.src, absolute)] = message

    def refuse(self, absolute: str, message: str) -> None:
        """Record that the config at ``absolute`` holds something refused (a workspace glob), as a config error."""
        self._error(os.path.normpath(absolute), message)

    def boundary(self, absolute: str) -> str | None:
        """The real folder the file at ``absolute`` must really lie in to be read (None: no bound)."""
        if self.top is not None or inside(os.path.normpath(absolute), self._src_abs):
            return self.root_real
        return None  # above SRC outside a work tree: where tsc reads it

    def tree(self) -> str | None:
        """The git work tree's root named as SRC is (SRC or one of its ancestors); None outside one."""
        if self.top is None:
            return None
        rel = os.path.relpath(os.path.realpath(self.src), self.top)
        folder = self._src_abs
        if rel == "." or rel.startswith(".."):
            return folder
        for _ in rel.split(os.sep):
            folder = os.path.dirname(folder)
        return folder

    def read(self, absolute: str, jsonc: bool = False) -> Any:
        """The parsed file (``None`` when missing or not valid JSON); records its signature.

        ``jsonc``: the file is a tsconfig, read as ``tsc`` reads one (``scanner.jsonc``)."""
        absolute = os.path.normpath(absolute)
        if absolute in self._cache:
            return self._cache[absolute]
        data = self._load(absolute)
        value: Any = None
        if data is not None:
            value = self._parse(absolute, data, jsonc)
        self._cache[absolute] = value
        return value

    def _parse(self, absolute: str, data: bytes, jsonc: bool) -> Any:
        depth = nesting_depth(data)
        if depth > MAX_NESTING:
            self._error(absolute, f"nested {depth} levels deep, over the limit of {MAX_NESTING}, not parsed")
            return None
        try:
            text = data.decode("utf-8-sig")
            return parse_tsconfig(text, MAX_NESTING) if jsonc else json.loads(text)
        except UnicodeDecodeError as err:
            self._error(absolute, f"not valid UTF-8 (byte {err.start})")
        except ValueError as err:
            self._error(absolute, f"not valid JSON: {err}")
        except RecursionError:  # the nesting count missed a form of nesting: still not an abort
            self._error(absolute, "nested too deep to parse")
        return None

    def read_text(self, absolute: str) -> str | None:
        """The file as text (``None`` when missing or not UTF-8); records its signature."""
        absolute = os.path.normpath(absolute)
        cache_key = "text:" + absolute
        if cache_key in self._cache:
            return self._cache[cache_key]
        data = self._load(absolute)
        try:
            text = data.decode("utf-8-sig") if data is not None else None
        except UnicodeDecodeError as err:
            self._error(absolute, f"not valid UTF-8 (byte {err.start})")
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
                known = self._exists(absolute)
            self._cache[cache_key] = known
        return known

    def _exists(self, absolute: str) -> bool:
        """True for a file (an asset) at ``absolute``; records its signature, an asset's content unread
        when it is over the config limit (its stat still tells a change)."""
        if self._load(absolute) is not None:
            return True
        key = rel_key(self.src, absolute)
        refused = self.errors.pop(key, None)
        signature = self.seen.get(key)
        return (
            refused is not None
            and signature is not None
            and refused.endswith("not read")
            and "regular" not in refused
            and refused != OUTSIDE
        )

    def key(self, absolute: str) -> str:
        return rel_key(self.src, os.path.normpath(absolute))
