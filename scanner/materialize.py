"""One source file to one fact file: read, vet, extract, resolve, render, write; or re-resolve only.

``Materializer`` is made once per scan in the parent process (forked workers inherit it, with
tree-sitter already loaded when a pool is used).  Its methods never raise for bad input: a file
that cannot be read becomes an ``FileResult`` with ``unreadable`` set; binary, oversized and
non-UTF-8 files get ``src_file`` + ``src_parse_error`` only; syntax errors keep what tree-sitter
recovered.  A file whose extraction could need more memory than is free (``PEAK_FACTOR`` times its
size, against ``memory_available``) is not parsed either: its ``src_parse_error`` says so, and its
entry is marked ``retry`` so that the next scan tries it again.  An exception from the extractor
itself is our bug, not the file's: it is raised as ``ExtractorFailure`` naming the file, and the
scan stops before replacing the manifest.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from typing import Any

import xxhash
from rofl.engine.base import safe_write
from rofl.scanner import factfile, schema
from rofl.scanner.configs import ConfigStore
from rofl.scanner.errors import ExtractorFailure
from rofl.scanner.files import grammar_for
from rofl.scanner.hashing import hash_bytes
from rofl.scanner.resolve import Resolver
from rofl.scanner.versions import EXTRACTOR_VERSION
from rofl.scanner.worklist import MAX_FACT_FILE_BYTES

BOM = b"\xef\xbb\xbf"

# Peak memory while one file is parsed and extracted, per byte of the file (bench/hostile_bench.py):
# about 130 for ordinary code, 370 for a call every 4 bytes (`f();f();...`), 470 for that with a
# syntax error in JavaScript (parsed again as TSX: two trees).  The bound is this times --max-bytes.
PEAK_FACTOR = 500
GUARDED_FROM = 1 << 20  # smaller files are never refused for memory (and never pay for the check)


def _first_int(path: str, key: bytes, scale: int = 1) -> int | None:
    """The number after ``key`` on a line of ``path`` (a /proc or /sys file), times ``scale``; None if absent."""
    try:
        with open(path, "rb") as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line[len(key) :].split()[0]) * scale
    except (OSError, ValueError, IndexError):
        return None
    return None


def memory_available() -> int | None:
    """Bytes this process can still allocate, as far as the system says; None when it says nothing.

    The least of: Linux's ``MemAvailable``; a cgroup's limit minus its usage (v2 ``memory.max``,
    v1 ``memory.limit_in_bytes``: a container's CI runner); the address-space and data limits
    (``ulimit -v``, ``ulimit -d``) minus what this process maps.
    """
    import resource

    found = [_first_int("/proc/meminfo", b"MemAvailable:", 1024)]
    for limit, usage in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        cap, used = _first_int(limit, b""), _first_int(usage, b"")
        if cap is not None and used is not None and cap < 1 << 60:
            found.append(max(0, cap - used))
    for which, key in ((resource.RLIMIT_AS, b"VmSize:"), (resource.RLIMIT_DATA, b"VmData:")):
        soft = resource.getrlimit(which)[0]
        used = _first_int("/proc/self/status", key, 1024) if soft != resource.RLIM_INFINITY else None
        if used is not None:
            found.append(max(0, soft - used))
    known = [n for n in found if n is not None]
    return min(known) if known else None


def memory_refusal(size: int, available: int | None) -> str | None:
    """Why a file of ``size`` bytes is not parsed now (its extraction could exhaust memory), or None."""
    if size < GUARDED_FROM or available is None or size * PEAK_FACTOR <= available:
        return None
    return (
        f"line 1: file is {size} bytes; extracting it may need {size * PEAK_FACTOR >> 20} MiB "
        f"({PEAK_FACTOR} times its size), more than the {available >> 20} MiB of memory free, "
        "not parsed (retried on the next scan)"
    )


@dataclass(frozen=True, slots=True)
class FileResult:
    """What happened to one file: its new manifest entry, or why it has none."""

    path: str
    entry: dict[str, Any] | None
    parsed: bool = False
    skipped: bool = False  # content refused (binary, too large, not UTF-8): no tree-sitter
    unreadable: str | None = None
    needs_parse: bool = False  # re-resolution found the old fact file unusable


@dataclass(frozen=True, slots=True)
class ScanContext:
    """What every file of one scan shares."""

    src: str
    out: str
    files: frozenset[str]
    packages: dict[str, str]
    top: str | None  # the real root of the verified git work tree SRC lies in (``Listing.top``)
    max_bytes: int
    protected: frozenset[str] = frozenset()  # fact files the current manifest names: never rewritten


def read_source(full: str, max_bytes: int) -> tuple[os.stat_result, bytes | None, str]:
    """The stat (taken before reading, so a concurrent edit shows up next scan), bytes and hash of a file.

    The bytes are None when the file holds more than ``max_bytes``: it is hashed in chunks and
    never held in memory whole.  Opened non-blocking and checked to be a regular file, so that a
    source swapped for a FIFO or device after the listing cannot hang or flood the scan.
    """
    fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", full)
        if st.st_size <= max_bytes:
            data = os.read(fd, st.st_size + 1)
            if len(data) <= st.st_size:
                return st, data, hash_bytes(data)
            chunks = [data]  # grew since the stat
            total = len(data)
            while total <= max_bytes and (chunk := os.read(fd, 1 << 16)):
                chunks.append(chunk)
                total += len(chunk)
            if total <= max_bytes:
                data = b"".join(chunks)
                return st, data, hash_bytes(data)
            hasher = xxhash.xxh3_64(b"".join(chunks))
        else:
            hasher = xxhash.xxh3_64()
        while chunk := os.read(fd, 1 << 20):
            hasher.update(chunk)
        return st, None, hasher.hexdigest()
    finally:
        os.close(fd)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def refusal(data: bytes, max_bytes: int) -> str | None:
    """Why a file's content is not handed to tree-sitter (with a line), or None when it is fine."""
    if len(data) > max_bytes:
        return f"line 1: file is {len(data)} bytes, over the {max_bytes}-byte limit (--max-bytes)"
    nul = data.find(b"\0")
    if nul != -1:
        return f"line {_line_of(data, nul)}: binary content (NUL byte), not parsed"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"line {_line_of(data, err.start)}: not valid UTF-8 (byte {err.start}), not parsed"
    return None


class Materializer:
    """Turns paths into fact files for one scan context."""

    def __init__(self, context: ScanContext, extractor: Any | None = None) -> None:
        self.context = context
        self.store = ConfigStore(context.src, context.top)
        self.resolver = Resolver(context.src, context.files, context.packages, self.store)
        self.protected = set(context.protected)
        self._extractor = extractor

    def extractor(self) -> Any:
        if self._extractor is None:
            from rofl.scanner.extract import Extractor  # tree-sitter loads only when a file needs parsing

            self._extractor = Extractor()
        return self._extractor

    # -- full extraction ---------------------------------------------------------------------------

    def extract(self, path: str) -> FileResult:
        try:
            st, data, content_hash = read_source(os.path.join(self.context.src, path), self.context.max_bytes)
        except OSError as err:
            return FileResult(path, None, unreadable=f"{err.strerror or err}")
        lines = factfile.head_lines(path, content_hash)
        if data is None:
            problem: str | None = (
                f"line 1: file is over the {self.context.max_bytes}-byte limit (--max-bytes), not parsed"
            )
            data = b""
        else:
            problem = refusal(data, self.context.max_bytes)
        retry = False
        if problem is None and len(data) >= GUARDED_FROM:
            problem = memory_refusal(len(data), memory_available())
            retry = problem is not None
        specifiers: tuple[str, ...] = ()
        errors = 0
        parsed = False
        if problem is not None:
            lines.append(schema.SRC_PARSE_ERROR.fact(path, problem))
            errors = 1
        else:
            parsed = True
            body = data[3:] if data.startswith(BOM) else data
            try:
                extraction = self.extractor().extract(path, body, grammar_for(path))
            except Exception as err:  # re-raised: our bug, not the user's file, stops the scan naming the file
                raise ExtractorFailure(path, err) from err
            lines.extend(extraction.lines)
            specifiers = extraction.specifiers
            errors = extraction.errors
        extraction_bytes = factfile.render(lines)
        entry = {
            "hash": content_hash,
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
            "extractor": EXTRACTOR_VERSION,
            "imports": list(specifiers),
            "errors": errors,
        }
        if retry:
            entry["retry"] = True  # refused for want of memory now: the next scan tries again
        self._finish(path, entry, extraction_bytes)
        return FileResult(path, entry, parsed=parsed, skipped=problem is not None)

    # -- resolution only ---------------------------------------------------------------------------

    def reresolve(self, path: str, old: dict[str, Any]) -> FileResult:
        """Refresh the resolution facts of an unchanged file from its fact file, without parsing."""
        try:
            data = safe_write.read_nofollow(os.path.join(self.context.out, old["facts"]), MAX_FACT_FILE_BYTES)
        except OSError:
            return FileResult(path, None, needs_parse=True)
        if data is None:
            self.protected.discard(old["facts"])
            return FileResult(path, None, needs_parse=True)
        extraction_bytes = factfile.extraction_part(data)
        if hash_bytes(data) != old.get("digest") or extraction_bytes is None:
            self.protected.discard(old["facts"])  # edited by someone: its name must be rewritten
            return FileResult(path, None, needs_parse=True)
        entry = {k: v for k, v in old.items() if k not in ("facts", "digest", "resolution_deps", "resolution")}
        self._finish(path, entry, extraction_bytes)
        return FileResult(path, entry)

    def _finish(self, path: str, entry: dict[str, Any], extraction_bytes: bytes) -> None:
        results, deps = self.resolver.resolve_all(path, entry["imports"])
        errors = self.store.errors
        config_errors = tuple((d, errors[d]) for d in deps if d in errors) if errors else ()
        data = factfile.with_resolution(extraction_bytes, path, results, config_errors)
        name, digest = factfile.fact_name(path, entry["hash"], data)
        if name not in self.protected:
            factfile.write_fact_file(self.context.out, name, data)
        kinds = [r.kind for r in results]
        entry["facts"] = name
        entry["digest"] = digest
        entry["resolution_deps"] = deps
        # workspace imports count with the external ones: both leave the scanned files
        entry["resolution"] = [
            kinds.count("file"),
            kinds.count("external") + kinds.count("workspace"),
            kinds.count("unresolved"),
        ]
