"""Fact files that are stale against the source tree: sources changed, deleted or added since the scan.

The answer is the scanner's own change detection (``scanner.worklist``) run read-only against the
manifest: a source is stale exactly when the next ``rofl scan`` would parse it again or drop it,
and a config file exactly when the next scan would see it changed.  ``staleness`` is the one check and
warning line of every command that answers from the facts as they are (``stale_warning``, impact --no-rescan).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rofl.engine.base.errors import RoflError

if TYPE_CHECKING:
    from rofl.scanner.manifest import Manifest


def stale_sources(manifest: Manifest, src: str | Path, out: str | Path | None = None) -> list[tuple[str, str]]:
    """``(path, reason)`` for every source (or config file resolution read) whose facts no longer
    match it, sorted by path.  ``out``, the fact folder, is never listed as a source."""
    from rofl.scanner import layout
    from rofl.scanner.api import ScanError, scan_listing
    from rofl.scanner.worklist import Previous, make_worklist

    root = Path(src)
    if not root.is_dir():
        raise RoflError(f"--src {src}: no such folder; give the folder that was scanned")
    options = manifest.options
    out_folder = str(out) if out is not None else os.devnull
    try:
        listing = scan_listing(str(root), out_folder, options.include, options.exclude)
    except ScanError as err:
        raise RoflError(f"rofl: {err}") from None
    files = manifest.files
    cut = len(layout.FACTS_FOLDER) + 1
    # every fact file the manifest names counts as present: staleness is about the sources
    present = {e.facts[cut:] for e in files.values()}
    previous = Previous(manifest.previous(), extraction_valid=True, resolution_valid=True)
    work = make_worklist(str(root), out_folder, False, listing, present, previous)
    stale = [(p, "changed since the scan" if p in files else "added since the scan") for p in work.to_parse]
    stale += [(p, "deleted since the scan") for p in work.removed]
    stale += [(p, f"cannot be read since the scan ({why})") for p, why in work.unreadable.items() if p in files]
    for path, was in manifest.configs.items():
        now = work.configs.get(path)
        if (now is None) != (was is None) or (now is not None and was is not None and now[2] != was[2]):
            reason = "created" if was is None else "deleted" if now is None else "changed"
            stale.append((path, f"config {reason} since the scan"))
    return sorted(stale)


def warn_if_stale(manifest: Manifest, facts: str | Path, command: str) -> None:
    """One warning line on stderr when the sources changed since the scan (or cannot be checked): a
    command that answers from the facts as they are must not pass old answers off as current."""
    import click

    line = stale_warning(manifest, facts, command)
    if line is not None:
        click.echo(line, err=True)


def stale_warning(manifest: Manifest | Callable[[], Manifest], facts: str | Path, command: str) -> str | None:
    """The line ``warn_if_stale`` prints (None when the facts are current), for a question to return.
    ``manifest``, or what reads it: a scan whose saved state shows no source changed since
    (``scanner.api.sources_unchanged``) is current without reading it."""
    from rofl.scanner.api import sources_unchanged
    from rofl.scanner.errors import shown

    if callable(manifest):
        if sources_unchanged(str(facts)):
            return None
        manifest = manifest()
    src = manifest.src
    if not os.path.isdir(src):
        return f"rofl {command}: warning: the scanned folder {shown(src)} is gone; the facts cannot be checked"
    fix = f"run `rofl scan {shown(src)} --out {shown(str(facts))}` for current answers"
    return staleness(manifest, src, facts, fix, f"rofl {command}: ").line


@dataclass(frozen=True, slots=True)
class Staleness:
    """Whether the facts as they are match the sources: the stale paths (``path: why``, None when it
    cannot be told) and the one warning line that says so (None when they match)."""

    stale: tuple[str, ...] | None
    line: str | None


def staleness(
    manifest: Manifest,
    src: str | Path,
    facts: str | Path,
    fix: str,
    prefix: str = "",
    escape: Callable[[str], str] | None = None,
    unchanged: bool = False,
) -> Staleness:
    """The stale-facts check every command that answers from the facts as they are makes, and its warning:
    ``prefix`` + ``warning: the facts are stale (N path(s): ...); `` + ``fix`` (paths through ``escape``,
    by default ``scanner.errors.shown``).  ``unchanged``: a watcher saw no source change (nothing looked at)."""
    from rofl.scanner.errors import shown

    escaped = escape or shown
    try:
        stale = () if unchanged else tuple(f"{path}: {why}" for path, why in stale_sources(manifest, src, facts))
    except RoflError as err:
        return Staleness(None, f"{prefix}warning: cannot tell whether the facts are stale ({err})")
    if not stale:
        return Staleness((), None)
    listed = "; ".join(stale[:3]) + (f"; and {len(stale) - 3} more" if len(stale) > 3 else "")
    return Staleness(stale, f"{prefix}warning: the facts are stale ({len(stale)} path(s): {escaped(listed)}); {fix}")
