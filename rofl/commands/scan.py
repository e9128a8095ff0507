"""`rofl scan SRC`: materialize per-file [code] fact files and a manifest, incrementally."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

USAGE_ERROR = 2


def _fail(message: str) -> NoReturn:
    """``message`` (``rofl scan: <what>, <fix>``) on stderr, exit status 2."""
    click.echo(message if message.startswith("rofl scan") else f"rofl scan: {message}", err=True)
    sys.exit(USAGE_ERROR)


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
    from rofl.engine.base import events
    from rofl.engine.base.errors import RoflError
    from rofl.scanner import progress as progress_bar
    from rofl.scanner.errors import ExtractorFailure

    from ..loading.source import Source
    from ..questions.answer import answer_json
    from ..questions.jsonout import dumps
    from ..questions.scan import ScanAnswer, ScanOptions, finished, scan

    try:
        options = ScanOptions.from_params(click.get_current_context().params)
    except RoflError as err:
        _fail(str(err))
    # progress goes to the call's reporter (a server's execution events); the bar is one listener of it
    reporter = events.current()
    bar = progress_bar.BarListener("scanning") if progress_bar.wanted() else None
    if bar is not None:
        reporter.subscribe(bar)
    try:
        with events.reporting(reporter):  # the question reports to it
            answer = scan(options, Source())
    except RoflError as err:
        _fail(str(err))
    except ExtractorFailure as err:  # our bug, not the user's: one line, its own exit status
        click.echo(f"rofl scan: {err}", err=True)
        sys.exit(ExtractorFailure.EXIT_STATUS)
    finally:
        if bar is not None:
            bar.close()

    def render(answer: ScanAnswer) -> None:
        for line in answer.notes:
            click.echo(line, err=True)
        if options.as_json:
            click.echo(dumps(answer_json(answer)))
        else:
            click.echo(answer.line())

    def finish(summary) -> None:  # a --watch rescan's summary: signed and shown as the first scan's
        try:
            render(finished(options, summary))
        except RoflError as err:
            _fail(str(err))

    render(answer)
    if options.watch:
        from ..watch import watch_command

        watch_command(options.src, options.out, finish, options.scan_arguments())
    raise SystemExit(answer.status())
