"""The exec answer cache: an answer whose program printed ``-- reads: PATH`` is kept across runs until PATH changes.

Entries live under the user's cache folder (``$XDG_CACHE_HOME/rofl/adapters`` or ``~/.cache/rofl/adapters``),
one JSON file per want, keyed by the *scope* (the working folder, and the content of the program: argv[0]
as found on the adapter's PATH and every later argument that names an existing file, such as the script
of ``python3 script.py``), the book version, the capability and the arguments; each records the content
hash of every file it read.  So an edited adapter program, or another checkout, never gets an answer
cached for a different one.  A cached answer is validated again like fresh output before it is asserted.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rofl.engine.base.safe_write import write_atomic

from .books import Book
from .process import resolve
from .wants import Want


def cache_root(environ: Mapping[str, str]) -> Path:
    base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "rofl" / "adapters"


@dataclass(slots=True)
class AnswerCache:
    """Reads and writes cache entries; file hashes are computed once per run (per path, size and mtime)."""

    root: Path
    _hashes: dict = field(default_factory=dict)

    def scope(self, argv: list[str], environ: Mapping[str, str]) -> str | None:
        """What an answer of the program ``argv`` run here depends on besides its book: the working folder
        and the content of the program and of every argument that names a file.  None (do not cache)
        when the program cannot be found or read."""
        program = resolve(argv[0], environ) if argv else None
        digest = self.file_hash(program) if program is not None else None
        if program is None or digest is None:
            return None
        parts = [os.path.realpath(os.getcwd()), os.path.realpath(program), digest]
        for arg in argv[1:]:
            if os.path.isfile(arg):
                parts += [arg, os.path.realpath(arg), self.file_hash(arg) or "unreadable"]
            else:
                parts.append(arg)
        return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()

    def _path(self, scope: str, book: Book, want: Want) -> Path:
        fields = [scope, book.name, book.version, want.cap, want.text]
        key = hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()
        return self.root / key[:2] / f"{key}.json"

    def file_hash(self, path: str) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        memo = (path, st.st_size, st.st_mtime_ns)
        digest = self._hashes.get(memo)
        if digest is None:
            try:
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            except OSError:
                return None
            self._hashes[memo] = digest
        return digest

    def get(self, scope: str, book: Book, want: Want) -> list[str] | None:
        """The cached answer lines of ``want`` in ``scope``, when every file it read is unchanged."""
        try:
            entry = json.loads(self._path(scope, book, want).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("want") != want.text or not isinstance(entry.get("reads"), dict):
            return None
        lines = entry.get("lines")
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            return None
        for path, digest in entry["reads"].items():
            if digest is None or self.file_hash(path) != digest:
                return None
        return lines

    def put(self, scope: str, book: Book, want: Want, reads: list[str], lines: list[str]) -> None:
        """Keep ``lines`` until one of ``reads`` changes; a file that cannot be read is not cached."""
        hashes = {}
        for path in reads:
            digest = self.file_hash(path)
            if digest is None:
                return
            hashes[path] = digest
        target = self._path(scope, book, want)
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            entry = json.dumps({"want": want.text, "reads": hashes, "lines": lines}).encode("utf-8")
            write_atomic(str(target), entry, 0o600)  # a temporary left by an error is removed
        except OSError:
            return  # a cache that cannot be written only costs the next run a call
