"""The servers' command-line options (--facts and --src, --read-timeout) and the read timeout they default to.

Click and the standard library only, so that `rofl server --help` and `rofl mcp --help` load no session.
"""

from __future__ import annotations

from typing import Any

import click

READ_SECONDS = 10.0  # the time a client has to send a request's headers, and then its body


def read_timeout_option(fn: Any) -> Any:
    """--read-timeout, as both servers over HTTP take it."""
    return click.option(
        "--read-timeout",
        type=click.FloatRange(0.1, 3600),
        default=READ_SECONDS,
        show_default=True,
        help="Seconds a client has to send a request's headers, and then its body; a slower one is cut off.",
    )(fn)


def folder_options(fn: Any) -> Any:
    """--facts and --src, as both servers take them."""
    fn = click.option(
        "--src", default=None, type=click.Path(file_okay=False), help="The scanned sources (default: the scan's)."
    )(fn)
    return click.option(
        "--facts",
        required=True,
        type=click.Path(file_okay=False),
        help="The fact folder `rofl scan` writes; with --src it may hold no scan yet (the scan command makes the first).",
    )(fn)
