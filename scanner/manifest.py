"""manifest.json: the record of what a scan produced, read at the start and replaced atomically at the end.

Keys (format 1)::

    format, tool_version, extractor_version, resolver_version, grammar_versions, options, src,
    preamble: {facts, digest},
    files: {path: {hash, facts, digest, size, mtime_ns, extractor, resolution_deps, imports,
                   errors, resolution}},
    configs: {config path relative to SRC: [size, mtime_ns, xxh3] | null},
    packages: {workspace package name: folder relative to SRC},
    workspace: [package.json paths listed in SRC],
    unreadable: [paths that could not be read],
    counts: {...}

``imports`` keeps each file's specifiers so that it can be re-resolved without parsing;
``resolution_deps`` lists the candidate paths, config files and ``package:<name>`` tokens its
resolution consulted.  ``digest`` is the xxh3 of the fact file's bytes exactly as written.
"""

from __future__ import annotations

import json
import os
from typing import Any

from engine import safe_write
from scanner.layout import MANIFEST_NAME

FORMAT = 1
MAX_MANIFEST_BYTES = 1 << 31  # a manifest larger than this is not one this scanner wrote


def load(out: str) -> dict[str, Any] | None:
    """The manifest in ``out``, or None when there is none or it is not one this scanner wrote."""
    try:
        raw = safe_write.read_nofollow(os.path.join(out, MANIFEST_NAME), MAX_MANIFEST_BYTES)
        if raw is None:  # a symlink, FIFO, device or giant planted at the name: rebuilt
            return None
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not _well_formed(data):
        return None
    return data


def _well_formed(data: dict[str, Any]) -> bool:
    """Every field a rescan reads has the type this scanner writes; anything else is rebuilt."""
    files = data.get("files")
    if not isinstance(files, dict):
        return False
    for entry in files.values():
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("facts"), str)
            or not isinstance(entry.get("hash"), str)
        ):
            return False
        if not isinstance(entry.get("resolution_deps", []), list):
            return False
    for key in ("configs", "packages", "options"):
        if key in data and not isinstance(data[key], dict):
            return False
    return isinstance(data.get("workspace", []), list)


def write(out: str, manifest: dict[str, Any]) -> None:
    """Write the manifest through a temporary file and an atomic rename.

    Keys are written in the order the scanner builds them (files sorted by path), which is
    deterministic; ``sort_keys`` would cost time on every scan that changes something.
    """
    data = json.dumps(manifest, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    safe_write.write_atomic(os.path.join(out, MANIFEST_NAME), data + b"\n")
