"""Fact files that are stale against the source tree: sources changed, deleted or added since the scan."""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import RoflError


def stale_sources(manifest: dict, src: str | Path, out: str | Path | None = None) -> list[tuple[str, str]]:
    """``(path, reason)`` for every source (or config file resolution read) whose facts no longer
    match it, sorted by path.  ``out``, the fact folder, is never listed as a source."""
    from scanner.api import ScanError, scan_listing
    from scanner.configs import signature
    from scanner.files import source_stat
    from scanner.hashing import hash_file

    root = Path(src)
    if not root.is_dir():
        raise RoflError(f"--src {src}: no such folder; give the folder that was scanned")
    options = manifest.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(options.get(k, []), list) for k in ("include", "exclude")):
        raise RoflError("manifest.json: 'options' is malformed; run `rofl scan` again to rewrite it")
    try:
        listing = scan_listing(
            str(root),
            str(out) if out is not None else os.devnull,
            tuple(options.get("include", ())),
            tuple(options.get("exclude", ())),
        )
    except ScanError as err:
        raise RoflError(f"rofl: {err}") from None
    files = manifest.get("files", {})
    out_list: list[tuple[str, str]] = []
    root_real = os.path.realpath(str(root))

    def scanned(path: str) -> bool:
        """The scan drops what is gone, not a file, a link out of SRC, and a link to a scanned file."""
        full = os.path.join(str(root), path)
        try:
            if source_stat(full, root_real) is None:
                return False
        except OSError:
            return False
        real = os.path.relpath(os.path.realpath(full), root_real).replace(os.sep, "/")
        return real == path or real not in files

    present = {p for p in listing.sources if p in files or scanned(p)}
    for path in sorted(present | set(files)):
        entry = files.get(path)
        full = os.path.join(str(root), path)
        if entry is None:
            out_list.append((path, "added since the scan"))
        elif path not in present or not os.path.isfile(full):
            out_list.append((path, "deleted since the scan"))
        elif hash_file(full) != entry.get("hash"):
            out_list.append((path, "changed since the scan"))
    configs = manifest.get("configs")
    if isinstance(configs, dict):
        for path, recorded in sorted(configs.items()):
            now = signature(os.path.normpath(os.path.join(str(root), path)))
            was = recorded[2] if isinstance(recorded, list) and len(recorded) == 3 else None
            if (now is None) != (was is None) or (now is not None and now[2] != was):
                reason = "created" if was is None else "deleted" if now is None else "changed"
                out_list.append((path, f"config {reason} since the scan"))
    return sorted(out_list)
