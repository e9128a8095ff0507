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
from typing import Any

from scanner.layout import MANIFEST_NAME

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
        with open(os.path.join(out, STATE_NAME), "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
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
        "errors": sum(1 for e in files.values() if e.get("errors")),
        "preamble": manifest["preamble"]["facts"],
    }
    final = os.path.join(out, STATE_NAME)
    tmp = f"{final}.{os.getpid()}.tmp"
    with open(tmp, "wb") as handle:
        handle.write(json.dumps(data, separators=(",", ":")).encode("ascii"))
    os.replace(tmp, final)
