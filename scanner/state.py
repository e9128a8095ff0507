"""The scan state: a small digest of manifest.json that lets a no-change rescan skip parsing it.

The manifest carries every file's resolution dependencies and specifiers (most of its bytes);
a rescan that finds nothing changed needs only sizes, mtimes and fact file names.  ``.scan-state``
holds just those, plus the manifest's own size and mtime: when the manifest on disk is not the
one the state describes (a crash between the two writes, a hand edit), the state is ignored
and the scan reads the manifest as usual.  It is written after the manifest, atomically.
"""

from __future__ import annotations

import json
import os
import stat
from typing import TYPE_CHECKING, Any

from rofl.engine import safe_write
from rofl.scanner import layout
from rofl.scanner.layout import MANIFEST_NAME

if TYPE_CHECKING:
    from rofl.scanner.files import Listing

STATE_NAME = ".scan-state.json"


def manifest_stamp(out: str) -> list[int] | None:
    try:
        st = os.stat(os.path.join(out, MANIFEST_NAME))
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def load(out: str) -> dict[str, Any] | None:
    """The state, only when it describes the manifest currently in ``out``."""
    try:
        raw = safe_write.read_nofollow(os.path.join(out, STATE_NAME), 1 << 31)
        if raw is None:
            return None
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("manifest") != manifest_stamp(out):
        return None
    return data


def write(out: str, manifest: dict[str, Any], key: dict[str, Any]) -> None:
    """Record the digest of ``manifest`` (already written to ``out``) for the next scan."""
    files = manifest["files"]
    data = {
        "manifest": manifest_stamp(out),
        "key": key,
        "files": {p: [e["size"], e["mtime_ns"], e["facts"]] for p, e in files.items()},
        "configs": {k: (v[:2] if v else None) for k, v in manifest.get("configs", {}).items()},
        "workspace": manifest.get("workspace", []),
        "unreadable": manifest.get("unreadable", []),
        "retry": sorted(p for p, e in files.items() if e.get("retry")),
        "errors": sum(1 for e in files.values() if e.get("errors")),
        "preamble": manifest["preamble"]["facts"],
    }
    safe_write.write_atomic(os.path.join(out, STATE_NAME), json.dumps(data, separators=(",", ":")).encode("ascii"))


def _links_to_one_of(src: str, path: str, files: dict[str, Any]) -> bool:
    """True when ``path`` is a symlink whose real path is one of ``files`` (the same file, one node)."""
    full = os.path.join(src, path)
    if not os.path.islink(full):
        return False
    rel = os.path.relpath(os.path.realpath(full), os.path.realpath(src))
    return (rel.replace(os.sep, "/") if os.sep != "/" else rel) in files


def unchanged(src: str, out: str, saved: dict[str, Any], listing: Listing, present: set[str]) -> tuple[int, int] | None:
    """(files, errors) when the saved state shows that nothing changed at all, else None.

    Nothing changed means: the same sources with the same size and mtime (a listed symlink to
    another listed source is that source), their fact files and no
    other file in the facts folder, the same recorded config stamps and workspace package.json
    list, and the preamble as written.
    """
    files = saved.get("files")
    if (
        not isinstance(files, dict)
        or saved.get("unreadable")
        or saved.get("retry")  # files refused for want of memory are tried again
        or saved.get("workspace") != list(listing.packages)
    ):
        return None
    aliases = len(listing.sources) - len(files)  # listed symlinks to another listed source (scanner.worklist)
    if aliases < 0 or len(present) != len(files):
        return None
    cut = len(layout.FACTS_FOLDER) + 1
    join = os.path.join
    lstat = os.lstat
    link = stat.S_ISLNK
    try:
        for path in listing.sources:
            known = files.get(path)
            if known is None:
                if aliases == 0 or not _links_to_one_of(src, path, files):
                    return None
                aliases -= 1
                continue
            st = lstat(join(src, path))
            if link(st.st_mode):
                st = os.stat(join(src, path))  # a link's own mtime does not move when its target changes
            if st.st_size != known[0] or st.st_mtime_ns != known[1] or known[2][cut:] not in present:
                return None
        for config, stamp in saved.get("configs", {}).items():
            try:
                st = os.stat(os.path.normpath(join(src, config)))
            except (FileNotFoundError, NotADirectoryError, ValueError):  # absent, or under a file (x.css/package.json)
                if stamp is not None:
                    return None
                continue
            if stamp is None or st.st_size != stamp[0] or st.st_mtime_ns != stamp[1]:
                return None
        expected = layout.PREAMBLE_TEXT.encode("utf-8")
        if safe_write.read_nofollow(join(out, layout.PREAMBLE_NAME), len(expected)) != expected:
            return None
    except (OSError, ValueError, TypeError, IndexError):
        return None
    return len(files), int(saved.get("errors", 0))
