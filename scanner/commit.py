"""Ending a scan: the preamble, ``entries.rofl``, the manifest (atomically, after every fact file), the scan
state, and the removal of fact files no manifest names; plus the temporaries a killed scan left.

Nothing here runs before the scan's last cancellation check (``ScanRun.check``): once the commit
starts, it finishes, so the folder always holds one scan's manifest and the files it names.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rofl.scanner import layout, manifest, state
from rofl.scanner.versions import EXTRACTOR_VERSION, RESOLVER_VERSION

if TYPE_CHECKING:
    from rofl.scanner.configs import Signature
    from rofl.scanner.files import Listing
    from rofl.scanner.run import ScanRun
    from rofl.scanner.worklist import Previous, Worklist


@dataclass(frozen=True, slots=True)
class Found:
    """What the scan found when it began: the sources, the names in the fact folder, the scan state."""

    listing: Listing
    present: frozenset[str]
    saved: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Extracted:
    """The manifest entries after extraction and re-resolution, and how many of each kind of work."""

    entries: dict[str, dict[str, Any]]
    unreadable: dict[str, str]
    configs: dict[str, Signature]
    parsed: int = 0
    skipped: int = 0
    resolved: int = 0


def commit(run: ScanRun, found: Found, previous: Previous, work: Worklist, extracted: Extracted) -> bool:
    """Write what changed, in the order that keeps the folder valid at every moment; True when the
    manifest was replaced."""
    old = previous.manifest
    preamble = _write_preamble(run.out)
    new_manifest: dict[str, Any] | None = None
    written = False
    if (
        not work.nothing_to_do
        or old is None
        or old.get("preamble") != preamble
        or not previous.resolution_valid
        or "package_entries" not in old
    ):
        from rofl.scanner.entries import package_entries, write_entries

        config_errors: dict[str, str] = {}
        pairs = package_entries(run.src, found.listing.packages, set(extracted.entries), config_errors)
        package_record = write_entries(run.out, pairs, config_errors, extracted.unreadable)
        new_manifest = build_manifest(run, found.listing, preamble, work.packages, extracted)
        new_manifest["package_entries"] = package_record
        if new_manifest != old:
            manifest.write(run.out, new_manifest)
            written = True
    state_key = run.state_key(EXTRACTOR_VERSION, RESOLVER_VERSION)
    if written or found.saved is None or found.saved.get("key") != state_key:
        current = new_manifest if new_manifest is not None else old
        if current is not None:
            state.write(run.out, current, state_key)
    keep = {e["facts"] for e in extracted.entries.values()}
    if len(found.present) != len(keep) or written:
        _remove_orphans(run.out, found.present, keep)
    return written


def build_manifest(
    run: ScanRun, listing: Listing, preamble: dict[str, str], packages: dict[str, str], extracted: Extracted
) -> dict[str, Any]:
    """The manifest of this scan (without ``package_entries``, which the caller adds)."""
    from rofl.scanner.tsconfig import SCOPE_DEP  # here: a no-change rescan never imports the config readers

    entries = extracted.entries
    referenced: set[str] = set(listing.packages)
    for entry in entries.values():
        referenced.update(
            d.removeprefix(SCOPE_DEP) for d in entry.get("resolution_deps", ())
        )  # a scope check reads it too
    kept_configs = {k: v for k, v in extracted.configs.items() if k in referenced}
    resolution = [0, 0, 0]
    for entry in entries.values():
        for i, n in enumerate(entry.get("resolution", (0, 0, 0))):
            resolution[i] += n
    return {
        "format": manifest.FORMAT,
        "tool_version": run.tool_version,
        "extractor_version": EXTRACTOR_VERSION,
        "resolver_version": RESOLVER_VERSION,
        "grammar_versions": run.grammar_versions,
        "options": run.options.as_record(),
        "src": run.src,
        "preamble": preamble,
        "files": dict(sorted(entries.items())),
        "configs": dict(sorted(kept_configs.items())),
        "packages": dict(sorted(packages.items())),
        "workspace": list(listing.packages),
        "unreadable": sorted(extracted.unreadable),
        "counts": {
            "files": len(entries),
            "parse_errors": sum(1 for e in entries.values() if e.get("errors")),
            "unreadable": len(extracted.unreadable),
            "resolves": resolution[0],
            "external": resolution[1],
            "unresolved": resolution[2],
        },
    }


def _write_preamble(out: str) -> dict[str, str]:
    from rofl.scanner.factfile import write_if_changed

    return write_if_changed(out, layout.PREAMBLE_NAME, layout.PREAMBLE_TEXT.encode("utf-8"))


def _remove_orphans(out: str, present: frozenset[str], keep: set[str]) -> None:
    folder = os.path.join(out, layout.FACTS_FOLDER)
    for name in present:
        if layout.FACTS_FOLDER + "/" + name not in keep:
            try:
                os.unlink(os.path.join(folder, name))
            except (FileNotFoundError, IsADirectoryError, PermissionError):
                pass  # gone already, or a folder planted there: not a file the scan wrote


_REPLACED = (layout.MANIFEST_NAME, state.STATE_NAME, layout.PREAMBLE_NAME, layout.ENTRIES_NAME)
_STALE_TEMPORARY = re.compile("(?:" + "|".join(map(re.escape, _REPLACED)) + r")\.\d+\.\d+\.tmp\Z")


def remove_stale_temporaries(out: str) -> None:
    """Delete the temporaries a killed scan left beside the files it replaces (``engine.safe_write``
    names); only the lock holder writes them, so under the lock every one is stale."""
    try:
        names = os.listdir(out)
    except OSError:
        return
    for name in names:
        if name.endswith(".tmp") and _STALE_TEMPORARY.match(name):
            try:
                os.unlink(os.path.join(out, name))
            except OSError:
                pass
