"""The scan question: scan a source folder into fact files (incrementally), sign the scan or drop a stale
signature, and say what the scan did."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.base.errors import RoflError
from rofl.loading.source import Source

from .answer import Answer, doc, skip
from .params import picked
from .status import Exit

if TYPE_CHECKING:  # pragma: no cover
    from rofl.scanner.api import ScanSummary

DEFAULT_OUT = "facts/generated"
DEFAULT_MAX_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ScanOptions:
    """What `rofl scan` is asked (its click parameters; ``watch`` is the command line's loop)."""

    src: str
    out: str = DEFAULT_OUT
    as_json: bool = False
    verify: bool = False
    jobs: int | None = None
    dask: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    sign_key: str | None = None
    watch: bool = False

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ScanOptions:
        """The options from click's parameters; a RoflError (``rofl scan: <what>, <fix>``) for a bad combination."""
        src = params.get("src")
        out = params.get("out", DEFAULT_OUT)
        jobs = params.get("jobs")
        dask = params.get("dask")
        if src is None:
            raise RoflError("rofl scan: missing SRC, give the folder to scan: rofl scan SRC [--out DIR]")
        if out is None or not str(out).strip():
            raise RoflError("rofl scan: --out is empty, give the folder for the fact files (default facts/generated)")
        if jobs is not None and jobs < 1:
            raise RoflError(f"rofl scan: --jobs {jobs} is not positive, give 1 or more")
        if jobs is not None and dask is not None:
            raise RoflError(
                "rofl scan: --jobs and --dask both say where to parse, give one (--dask local:N runs N workers here)"
            )
        return picked(cls, params)

    def scan_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``rofl.scanner.api.scan`` for these options (a --watch rescan's too)."""
        from rofl import __version__

        return dict(
            verify=self.verify,
            jobs=self.jobs,
            dask=self.dask,
            max_bytes=self.max_bytes,
            include=self.include,
            exclude=self.exclude,
            tool_version=__version__,
        )


@dataclass(frozen=True, slots=True)
class ScanAnswer(Answer):
    """What one scan did (the keys in alphabetical order, as `rofl scan --json` has always printed them)."""

    QUESTION = "scan"
    errors: int = doc("Files with syntax errors (their facts are partial), plus unreadable files.")
    files: int = doc("Source files the scan saw (parsed + reused + skipped + unreadable).")
    manifest_written: bool = doc("Whether manifest.json was written (false: nothing changed since the last scan).")
    out: str = doc("The fact folder.")
    parsed: int = doc("Files parsed in this scan (new or changed).")
    removed: int = doc("Files gone since the last scan (their facts were removed).")
    resolved: int = doc(
        "Of the reused files, those whose imports were resolved again (a probed file or config changed)."
    )
    reused: int = doc("Files whose facts were kept without parsing (including the re-resolved ones).")
    seconds: float = doc("How long the scan took, in seconds.")
    skipped: int = doc("Files not parsed (binary, over --max-bytes, not UTF-8): only their file and error facts.")
    unreadable: tuple[str, ...] = doc("Files that could not be read (skipped), sorted.")
    summary: Any = skip(None)  # the scanner's own ScanSummary: its one-line text
    notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        return Exit.OK

    def line(self) -> str:
        """The summary line `rofl scan` prints without --json."""
        assert self.summary is not None
        return self.summary.line()


def scan(options: ScanOptions, source: Source) -> ScanAnswer:
    """Scan ``options.src`` into ``options.out``, sign it (or drop a signature the new facts void) and say
    what the scan did.  A user's error (a missing folder, a concurrent scan, a bad key) is a RoflError; an
    extractor's bug is the scanner's ExtractorFailure (exit 70), the previous scan intact.  ``source`` is
    the caller's (a scan loads nothing through it)."""
    from rofl.engine.base import events
    from rofl.scanner.api import ScanError
    from rofl.scanner.api import scan as run_scan

    from ..loading import signing

    if options.sign_key is not None:
        try:
            signing.private_key_from_env(options.sign_key)  # a bad key fails before any scanning
        except RoflError as err:
            raise RoflError(f"rofl scan: {err}") from None
    damaged = _damaged(options.out) if options.verify else []  # what --verify re-extracts, said after the scan
    reporter = events.current()  # progress goes to the call's reporter (a server's execution events, a bar)
    try:
        summary = run_scan(
            options.src,
            options.out,
            progress=reporter.progress_callback("scanning") if reporter.listening else None,
            **options.scan_arguments(),
        )
    except ScanError as err:
        raise RoflError(f"rofl scan: {err}") from None
    notes: list[str] = []
    if options.include or options.exclude:
        notes += unmatched_globs(options.src, options.out, options.include, options.exclude)
    if damaged:
        more = f" and {len(damaged) - 5} more" if len(damaged) > 5 else ""
        names = ", ".join(json.dumps(p) for p in damaged[:5]) + more
        notes.append(f"rofl scan --verify: re-extracted {len(damaged)} damaged fact file(s), of {names}")
    return finished(options, summary, tuple(notes))


def finished(options: ScanOptions, summary: ScanSummary, notes: tuple[str, ...] = ()) -> ScanAnswer:
    """The answer of a scan that ran (the first, or a --watch rescan): the scan signed with --sign-key, else
    an earlier signature its facts no longer match dropped; a note for each unreadable file."""
    from ..loading import signing
    from ..loading.signing import drop_signature

    try:
        if options.sign_key is not None:
            signing.sign_folder(Path(options.out), options.sign_key)
        else:
            drop_signature(options.out)
    except (RoflError, OSError) as err:
        raise RoflError(f"rofl scan: cannot sign the scan: {getattr(err, 'strerror', None) or err}") from None
    unreadable = tuple(f"rofl scan: cannot read {json.dumps(path)}, skipped" for path in summary.unreadable)
    data = summary.as_json()
    return ScanAnswer(
        errors=data["errors"],
        files=data["files"],
        manifest_written=data["manifest_written"],
        out=data["out"],
        parsed=data["parsed"],
        removed=data["removed"],
        resolved=data["resolved"],
        reused=data["reused"],
        seconds=data["seconds"],
        skipped=data["skipped"],
        unreadable=tuple(data["unreadable"]),
        summary=summary,
        notes=(*notes, *unreadable),
    )


def _damaged(out: str) -> list[str]:
    """The sources whose fact file under ``out`` no longer matches the manifest (none before a first scan)."""
    from ..loading.factdir import damaged_files

    return damaged_files(Path(out)) if os.path.isdir(out) else []


def unmatched_globs(src: str, out: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> list[str]:
    """One warning line per --include/--exclude glob that matches no file under SRC: most likely a
    typo, and it changed nothing (a set that leaves no source at all is refused before scanning)."""
    from rofl.scanner.api import ScanError, scan_listing
    from rofl.scanner.errors import shown
    from rofl.scanner.files import glob_to_regex

    try:
        listing = scan_listing(src, out)
    except ScanError:
        return []
    lines = []
    for flag, globs, paths in (
        ("--include", include, listing.sources),
        ("--exclude", exclude, listing.sources + listing.packages),
    ):
        for glob in globs:
            pattern = glob_to_regex(glob)
            if not any(pattern.match(p) for p in paths):
                lines.append(
                    f"rofl scan: warning: {flag} {shown(repr(glob))} matches none of the {len(listing.sources)} "
                    "source files under SRC and changed nothing; check it for a typo (globs match paths relative to SRC)"
                )
    return lines
