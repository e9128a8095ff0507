"""Fact files that are stale against the source tree: sources changed, deleted or added since the scan."""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import RoflError


def stale_sources(manifest: dict, src: str | Path) -> list[tuple[str, str]]:
    """``(path, reason)`` for every source whose facts no longer match it, sorted by path."""
    from scanner.files import PathFilter, list_files
    from scanner.hashing import hash_file

    root = Path(src)
    if not root.is_dir():
        raise RoflError(f"--src {src}: no such folder; give the folder that was scanned")
    options = manifest.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(options.get(k, []), list) for k in ("include", "exclude")):
        raise RoflError("manifest.json: 'options' is malformed; run `rofl scan` again to rewrite it")
    listing = list_files(str(root), PathFilter(tuple(options.get("include", ())), tuple(options.get("exclude", ()))))
    files = manifest.get("files", {})
    out: list[tuple[str, str]] = []
    present = set(listing.sources)
    for path in sorted(present | set(files)):
        entry = files.get(path)
        full = os.path.join(str(root), path)
        if entry is None:
            out.append((path, "added since the scan"))
        elif path not in present or not os.path.isfile(full):
            out.append((path, "deleted since the scan"))
        elif hash_file(full) != entry.get("hash"):
            out.append((path, "changed since the scan"))
    return out
