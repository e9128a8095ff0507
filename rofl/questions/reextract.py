"""Re-extraction, the ground truth: scan the sources again into a temporary folder and compare.

Every fact file of the scan under audit is compared, byte for byte, with the one the sources give
now (the preamble and the entries file too); a difference is reported with the first differing fact
and its line.  Sources the scan lacks, and fact files for sources that are not there, are reported
too, and, when there is any difference, the extractor, resolver or grammar versions that made the
scan if they are not this rofl's (its differences may then be theirs).  The fact folder under audit
is never written.
"""

from __future__ import annotations

import posixpath
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rofl.engine.base.errors import RoflError
from rofl.scanner.layout import MANIFEST_NAME
from rofl.scanner.manifest import FactRecord, FileEntry, Manifest


@dataclass(frozen=True, slots=True)
class Difference:
    """One fact file (or source) whose facts are not what the sources give."""

    file: str  # the fact file under audit (relative to its folder), or the source path
    line: int | None  # the first differing line of that file, when known
    message: str

    def text(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


def _read(path: Path) -> bytes | None:
    """A fact file's bytes; None for a link, FIFO, device or huge file at the name, or none at all."""
    from rofl.engine.base.safe_write import read_nofollow
    from rofl.scanner.worklist import MAX_FACT_FILE_BYTES

    try:
        return read_nofollow(str(path), MAX_FACT_FILE_BYTES)
    except OSError:
        return None


def _first_difference(ours: bytes, truth: bytes) -> tuple[int, str]:
    a = ours.decode("utf-8", "replace").splitlines()
    b = truth.decode("utf-8", "replace").splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x != y:
            if x is None:
                return len(a) + 1, f"lacks {y!r}, which the sources give"
            if y is None:
                return i + 1, f"{x!r} is not what the sources give (they end before it)"
            return i + 1, f"{x!r} is not what the sources give ({y!r})"
    return 1, "differs from what the sources give"


def _compare(
    root: Path, record: FactRecord | FileEntry | None, tmp: Path, fresh: FactRecord | FileEntry | None, label: str
) -> Difference | None:
    if fresh is None:
        return None
    truth = _read(tmp / fresh.facts) or b""
    if record is None:
        return Difference(label, None, "the scan has no fact file for it; the sources give one")
    rel = posixpath.normpath(record.facts)
    ours = _read(root / rel)
    if ours is None:
        return Difference(rel, None, f"the fact file of {label} is missing")
    if ours == truth:
        return None
    line, message = _first_difference(ours, truth)
    return Difference(rel, line, message)


VERSIONS = ("extractor_version", "resolver_version", "grammar_versions")


def _versions_moved(ours: Manifest, fresh: Manifest) -> str:
    """What differs between the versions that made the scan and this rofl's ("" when nothing)."""

    def shown(manifest: Manifest, key: str) -> object:
        value = getattr(manifest, key)
        return dict(value) if isinstance(value, Mapping) else value

    moved = [
        f"{key} {shown(ours, key)!r} (this rofl: {shown(fresh, key)!r})"
        for key in VERSIONS
        if shown(ours, key) != shown(fresh, key)
    ]
    return ", ".join(moved)


def reextract(root: str | Path, src: str | Path) -> list[Difference]:
    """Scan ``src`` into a temporary folder with the options ``root`` was scanned with and list every
    difference from the fact files in ``root``."""
    from rofl.engine.base import events
    from rofl.scanner.api import ScanError, scan

    from .. import __version__
    from ..loading.factdir import read_manifest

    root = Path(root)
    manifest = read_manifest(root)
    options = manifest.options
    if not Path(src).is_dir():
        raise RoflError(f"--src {src}: no such folder; give the source folder the scan was made from")
    tmp = Path(tempfile.mkdtemp(prefix="rofl-reextract-"))
    try:
        try:
            scan(
                str(src),
                str(tmp / "facts"),
                max_bytes=options.max_bytes,
                include=options.include,
                exclude=options.exclude,
                tool_version=__version__,
                progress=events.current().progress_callback("re-extracting", check=False),  # the call's events
            )
        except ScanError as exc:
            raise RoflError(f"--reextract: {exc}") from None
        fresh = read_manifest(tmp / "facts")
        out: list[Difference] = []
        pairs = [(manifest.preamble, fresh.preamble, "the preamble")]
        pairs.append((manifest.package_entries, fresh.package_entries, "the entries file"))
        for record, truth, label in pairs:
            diff = _compare(root, record, tmp / "facts", truth, label)
            if diff is not None:
                out.append(diff)
        ours_files, fresh_files = manifest.files, fresh.files
        for path in sorted(set(fresh_files) | set(ours_files)):
            if path not in ours_files:
                out.append(Difference(path, None, "a source missing from the scan"))
            elif path not in fresh_files:
                rel = ours_files[path].facts
                out.append(Difference(rel, None, f"facts for {path}, which is not among the sources"))
            else:
                diff = _compare(root, ours_files[path], tmp / "facts", fresh_files[path], path)
                if diff is not None:
                    out.append(diff)
        moved = _versions_moved(manifest, fresh)
        if out and moved:  # the differences may be the new extractor's, not tampering
            out.append(Difference(MANIFEST_NAME, None, f"made by {moved}; rescan with this rofl, then audit again"))
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
