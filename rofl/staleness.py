"""Fact files that are stale against the source tree: sources changed, deleted or added since the scan.

The answer is the scanner's own change detection (``scanner.worklist``) run read-only against the
manifest: a source is stale exactly when the next ``rofl scan`` would parse it again or drop it,
and a config file exactly when the next scan would see it changed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rofl.engine.errors import RoflError


def stale_sources(manifest: dict[str, Any], src: str | Path, out: str | Path | None = None) -> list[tuple[str, str]]:
    """``(path, reason)`` for every source (or config file resolution read) whose facts no longer
    match it, sorted by path.  ``out``, the fact folder, is never listed as a source."""
    from rofl.scanner import layout
    from rofl.scanner.api import ScanError, scan_listing
    from rofl.scanner.manifest import options_of
    from rofl.scanner.worklist import Previous, make_worklist

    root = Path(src)
    if not root.is_dir():
        raise RoflError(f"--src {src}: no such folder; give the folder that was scanned")
    options = options_of(manifest)
    out_folder = str(out) if out is not None else os.devnull
    try:
        listing = scan_listing(str(root), out_folder, options.include, options.exclude)
    except ScanError as err:
        raise RoflError(f"rofl: {err}") from None
    files = manifest.get("files", {})
    cut = len(layout.FACTS_FOLDER) + 1
    # every fact file the manifest names counts as present: staleness is about the sources
    present = {e["facts"][cut:] for e in files.values() if isinstance(e, dict) and isinstance(e.get("facts"), str)}
    previous = Previous(manifest, extraction_valid=True, resolution_valid=True)
    work = make_worklist(str(root), out_folder, False, listing, present, previous)
    stale = [(p, "changed since the scan" if p in files else "added since the scan") for p in work.to_parse]
    stale += [(p, "deleted since the scan") for p in work.removed]
    stale += [(p, f"cannot be read since the scan ({why})") for p, why in work.unreadable.items() if p in files]
    recorded = manifest.get("configs")
    for path, was in recorded.items() if isinstance(recorded, dict) else ():
        now = work.configs.get(path)
        if (now is None) != (was is None) or (now is not None and was is not None and now[2] != was[2]):
            reason = "created" if was is None else "deleted" if now is None else "changed"
            stale.append((path, f"config {reason} since the scan"))
    return sorted(stale)


def warn_if_stale(manifest: dict[str, Any], facts: str | Path, command: str) -> None:
    """One warning line on stderr when the sources changed since the scan (or cannot be checked): a
    command that answers from the facts as they are must not pass old answers off as current."""
    import click

    from rofl.scanner.errors import shown
    from rofl.scanner.manifest import src_of

    src = src_of(manifest)
    if not os.path.isdir(src):
        click.echo(
            f"rofl {command}: warning: the scanned folder {shown(src)} is gone; the facts cannot be checked", err=True
        )
        return
    try:
        stale = stale_sources(manifest, src, facts)
    except RoflError as err:
        click.echo(f"rofl {command}: warning: cannot tell whether the facts are stale ({err})", err=True)
        return
    if stale:
        listed = "; ".join(f"{path}: {why}" for path, why in stale[:3]) + (
            f"; and {len(stale) - 3} more" if len(stale) > 3 else ""
        )
        click.echo(
            f"rofl {command}: warning: the facts are stale ({len(stale)} path(s): {shown(listed)}); "
            f"run `rofl scan {shown(src)} --out {shown(str(facts))}` for current answers",
            err=True,
        )
