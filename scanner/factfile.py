"""Fact file text and files: quoting, the per-file layout, content-derived names, writing them.

A fact file is UTF-8 text, one fact a line (``scanner.schema`` renders them); it starts with a comment naming
its source path and keeps resolution facts after a ``-- resolution`` marker line, so that
re-resolving a file rewrites only that tail without parsing the source again.  Strings never
contain a raw newline (``engine.terms.quote`` escapes it), so the marker cannot be forged by
source text.  The file's name is derived from its path, its source's content hash and the xxh3
digest of its own bytes: a file never changes under a name that a manifest may point to, which is
what lets fact files be written in place (``write_fact_file``) while the preamble, whose name is
fixed, goes through a temporary file (``write_atomic``).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from rofl.engine.base import safe_write
from rofl.scanner import schema
from rofl.scanner.hashing import hash_bytes
from rofl.scanner.layout import FACT_FILE_NAME, FACTS_FOLDER
from rofl.scanner.schema import quote

if TYPE_CHECKING:
    from rofl.scanner.resolve import Resolution

RESOLUTION_MARKER = "-- resolution"
_MARKER_BYTES = b"\n" + RESOLUTION_MARKER.encode() + b"\n"

_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def ancestor_dirs(path: str) -> list[str]:
    """Every folder holding ``path``, innermost first, ending with the root ``"."``."""
    dirs: list[str] = []
    cut = path.rfind("/")
    while cut > 0:
        dirs.append(path[:cut])
        cut = path.rfind("/", 0, cut)
    dirs.append(".")
    return dirs


def head_lines(path: str, content_hash: str) -> list[str]:
    """The comment header, ``src_file`` and ``src_in_dir`` facts of one source file."""
    qpath = quote(path)
    lines = [f"-- rofl scan facts for {qpath}", schema.SRC_FILE.quoted(qpath, quote(content_hash[:12]))]
    lines.extend(schema.SRC_IN_DIR.quoted(qpath, quote(d)) for d in ancestor_dirs(path))
    return lines


def resolution_lines(
    path: str, results: list[Resolution], config_errors: tuple[tuple[str, str], ...] = ()
) -> list[str]:
    """Facts for each resolution: ``src_resolves`` (+ ``src_asset``), ``src_external``,
    ``src_workspace_import`` or ``src_unresolved`` (+ ``src_unresolved_reason`` when the specifier
    could not even be looked for: a NUL, a lone surrogate, a path too long); then
    ``src_config_error(Config, Message)`` for each config file the resolution consulted that was
    refused or did not parse (``scanner.configs``)."""
    qpath = quote(path)
    lines = [RESOLUTION_MARKER]
    for result in results:
        qspec = quote(result.specifier)
        if result.targets:
            lines.extend(schema.SRC_RESOLVES.quoted(qpath, qspec, quote(t)) for t in result.targets)
            lines.extend(schema.SRC_ASSET.quoted(quote(t)) for t in result.assets)
        elif result.workspace is not None:
            lines.append(schema.SRC_WORKSPACE_IMPORT.quoted(qpath, qspec, quote(result.workspace)))
        elif result.package is not None:
            lines.append(schema.SRC_EXTERNAL.quoted(qpath, qspec, quote(result.package)))
        else:
            lines.append(schema.SRC_UNRESOLVED.quoted(qpath, qspec))
            if result.reason is not None:
                lines.append(schema.SRC_UNRESOLVED_REASON.quoted(qpath, qspec, quote(result.reason)))
    lines.extend(schema.SRC_CONFIG_ERROR.fact(config, message) for config, message in config_errors)
    return lines


def render(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8")


def extraction_part(data: bytes) -> bytes | None:
    """The bytes of a fact file up to (and including) the newline before its resolution marker."""
    cut = data.find(_MARKER_BYTES)
    if cut == -1:
        return None
    return data[: cut + 1]


def with_resolution(
    extraction: bytes, path: str, results: list[Resolution], config_errors: tuple[tuple[str, str], ...] = ()
) -> bytes:
    return extraction + render(resolution_lines(path, results, config_errors))


def fact_name(path: str, content_hash: str, data: bytes) -> tuple[str, str]:
    """(name relative to the output folder, digest of ``data``) of the fact file holding ``data``.

    The name is ``code/<path slug>.<content hash 12>-<fact digest>.rofl``: readable, keyed by the
    source content, and unique to the exact bytes (which include the path itself).  The slug never
    starts with ``-`` (a name a shell command would take for an option).
    """
    digest = hash_bytes(data)
    slug = _SLUG_UNSAFE.sub("_", path).strip("._")[-80:].lstrip("-._") or "file"
    return f"{FACTS_FOLDER}/{slug}.{content_hash[:12]}-{digest}.rofl", digest


def is_fact_name(rel_name: str) -> bool:
    """True when ``rel_name`` (relative to the output folder) has the shape ``fact_name`` gives."""
    folder, _, name = rel_name.rpartition("/")
    return folder == FACTS_FOLDER and FACT_FILE_NAME.match(name) is not None


def named_digest(rel_name: str) -> str | None:
    """The digest a source's fact file carries in its name (``fact_name``), or None when ``rel_name``
    is not such a name.  A file whose bytes hash otherwise was edited, whatever a manifest says."""
    return rel_name[-len(".rofl") - 16 : -len(".rofl")] if is_fact_name(rel_name) else None


def write_fact_file(out: str, rel_name: str, data: bytes) -> None:
    """Write a fact file straight to its final name (no temporary file, no rename).

    Safe because names are derived from the bytes: a name the current manifest points to is never
    written again (the caller skips those), so the only file this can truncate or leave half
    written is one that no manifest names, which the next scan rewrites or removes as an orphan.
    A symlink planted at the name is replaced, never followed (``engine.safe_write``).
    """
    safe_write.write_in_place(os.path.join(out, rel_name), data)


def write_atomic(out: str, rel_name: str, data: bytes) -> None:
    """Write ``data`` to ``out/rel_name`` through a temporary file and a rename."""
    safe_write.write_atomic(os.path.join(out, rel_name), data)


def write_if_changed(out: str, rel_name: str, data: bytes) -> dict[str, str]:
    """Write a small fixed-name fact file only when its bytes differ; return its manifest record."""
    from rofl.scanner.hashing import hash_bytes

    try:
        current = safe_write.read_nofollow(os.path.join(out, rel_name), len(data))
    except OSError:
        current = None
    if current != data:
        write_atomic(out, rel_name, data)
    return {"facts": rel_name, "digest": hash_bytes(data)}
