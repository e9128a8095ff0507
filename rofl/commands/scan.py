"""`rofl scan SRC`: materialize per-file [code] fact files and a manifest, incrementally."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import NoReturn

import click

USAGE_ERROR = 2


def _fail(message: str) -> NoReturn:
    click.echo(f"rofl scan: {message}", err=True)
    sys.exit(USAGE_ERROR)


def _damaged(out: str) -> list[str]:
    """The sources whose fact file under ``out`` no longer matches the manifest (none before a first scan)."""
    from ..loading.factdir import damaged_files

    return damaged_files(Path(out)) if os.path.isdir(out) else []


def drop_signature(out: str | Path) -> bool:
    """After an unsigned scan of ``out``: a signature of an earlier scan no longer matches its facts;
    drop it rather than leave a stale one.  True when there was one."""
    from ..loading.signing import SIG_NAME

    path = Path(out) / SIG_NAME
    existed = path.exists()
    path.unlink(missing_ok=True)
    return existed


def _warn_unmatched(src: str, out: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> None:
    """One warning line per --include/--exclude glob that matches no file under SRC: most likely a
    typo, and it changed nothing (a set that leaves no source at all is refused before scanning)."""
    from rofl.scanner.api import ScanError, scan_listing
    from rofl.scanner.errors import shown
    from rofl.scanner.files import glob_to_regex

    try:
        listing = scan_listing(src, out)
    except ScanError:
        return
    for flag, globs, paths in (
        ("--include", include, listing.sources),
        ("--exclude", exclude, listing.sources + listing.packages),
    ):
        for glob in globs:
            pattern = glob_to_regex(glob)
            if not any(pattern.match(p) for p in paths):
                click.echo(
                    f"rofl scan: warning: {flag} {shown(repr(glob))} matches none of the {len(listing.sources)} "
                    "source files under SRC and changed nothing; check it for a typo (globs match paths relative to SRC)",
                    err=True,
                )


class _ScanCommand(click.Command):
    """Reports bad flags as one ``rofl scan: <what>, <fix>`` line with exit status 2."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as err:
            _fail(f"{err.format_message()}, see 'rofl scan --help'")
            raise  # unreachable


EPILOG = (
    "\b\nExit codes: 0 scanned, 2 user error (a bad flag, a missing folder, a concurrent scan),\n"
    "70 internal error (a bug in the extractor; the previous scan is intact).\n\n"
    "\b\nExamples:\n"
    "  rofl scan examples/shop --out facts/generated\n"
    "  rofl scan src --exclude '**/*.test.ts' --verify\n"
    "  rofl scan . --out /shared/facts --dask tcp://scheduler:8786"
)


@click.command(cls=_ScanCommand, name="scan", epilog=EPILOG)
@click.argument("src", required=False)
@click.option("--out", default="facts/generated", show_default=True, help="Folder for fact files and manifest.json.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--verify", is_flag=True, help="Re-hash every file instead of trusting size and mtime.")
@click.option("--jobs", type=int, default=None, help="Parallel parsers for a cold scan (default: cores).")
@click.option(
    "--dask",
    "dask",
    metavar="ADDRESS",
    default=None,
    help="Extract on a Dask cluster: local:N starts N worker processes here, tcp://HOST:PORT joins a scheduler "
    "whose workers see SRC and --out at the same paths (pip install 'rofl[dask]').",
)
@click.option("--max-bytes", type=int, default=2 * 1024 * 1024, show_default=True, help="Larger files are not parsed.")
@click.option("--include", multiple=True, metavar="GLOB", help="Only scan paths matching GLOB (repeatable).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option(
    "--sign-key",
    "sign_key",
    metavar="ENV",
    default=None,
    help="Sign the manifest with the Ed25519 PEM key in environment variable ENV (see rofl keygen).",
)
@click.option(
    "--watch",
    is_flag=True,
    help="Keep scanning: rescan incrementally after each batch of file changes until Ctrl-C.",
)
def command(
    src: str | None,
    out: str,
    as_json: bool,
    verify: bool,
    jobs: int | None,
    dask: str | None,
    max_bytes: int,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    sign_key: str | None = None,
    watch: bool = False,
) -> None:
    """Scan the JS/TS sources under SRC into one [code] fact file per file under --out."""
    if src is None:
        _fail("missing SRC, give the folder to scan: rofl scan SRC [--out DIR]")
    if not out.strip():
        _fail("--out is empty, give the folder for the fact files (default facts/generated)")
    if jobs is not None and jobs < 1:
        _fail(f"--jobs {jobs} is not positive, give 1 or more")
    if jobs is not None and dask is not None:
        _fail("--jobs and --dask both say where to parse, give one (--dask local:N runs N workers here)")
    from rofl.engine.errors import RoflError
    from rofl.scanner import progress as progress_bar
    from rofl.scanner.api import ScanError, scan
    from rofl.scanner.errors import ExtractorFailure

    from .. import __version__
    from ..loading import signing

    if sign_key is not None:
        try:
            signing.private_key_from_env(sign_key)  # a bad key fails before any scanning
        except RoflError as err:
            _fail(str(err))

    from rofl.engine import events

    # progress goes to the call's reporter (a server's execution events); the bar is one listener of it
    reporter = events.current()
    bar = progress_bar.BarListener("scanning") if progress_bar.wanted() else None
    if bar is not None:
        reporter.subscribe(bar)

    damaged = _damaged(out) if verify else []  # what --verify re-extracts, said after the scan
    try:
        summary = scan(
            src,
            out,
            verify=verify,
            jobs=jobs,
            dask=dask,
            max_bytes=max_bytes,
            include=include,
            exclude=exclude,
            progress=reporter.progress_callback("scanning") if reporter.listening else None,
            tool_version=__version__,
        )
    except ScanError as err:
        _fail(str(err))
        return
    except ExtractorFailure as err:  # our bug, not the user's: one line, its own exit status
        click.echo(f"rofl scan: {err}", err=True)
        sys.exit(ExtractorFailure.EXIT_STATUS)
    finally:
        if bar is not None:
            bar.close()

    def finish(summary) -> None:
        try:
            if sign_key is not None:
                signing.sign_folder(Path(out), sign_key)
            else:
                drop_signature(out)
        except (RoflError, OSError) as err:
            _fail(f"cannot sign the scan: {getattr(err, 'strerror', None) or err}")
        for path in summary.unreadable:
            click.echo(f"rofl scan: cannot read {json.dumps(path)}, skipped", err=True)
        if as_json:
            click.echo(json.dumps(summary.as_json(), sort_keys=True))
        else:
            click.echo(summary.line())

    if include or exclude:
        _warn_unmatched(src, out, include, exclude)
    if damaged:
        more = f" and {len(damaged) - 5} more" if len(damaged) > 5 else ""
        names = ", ".join(json.dumps(p) for p in damaged[:5]) + more
        click.echo(f"rofl scan --verify: re-extracted {len(damaged)} damaged fact file(s), of {names}", err=True)
    finish(summary)
    if watch:
        from ..watch import watch_command

        watch_command(
            src,
            out,
            finish,
            dict(
                verify=verify,
                jobs=jobs,
                dask=dask,
                max_bytes=max_bytes,
                include=include,
                exclude=exclude,
                tool_version=__version__,
            ),
        )
