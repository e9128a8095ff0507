"""`rofl server`: the commands over one fact folder as HTTP executions with a live, resumable event stream."""

from __future__ import annotations

import click

from ..session import examples, user_errors

EPILOG = examples(
    "rofl server --facts facts/generated",
    "rofl server --facts facts/generated --src examples/shop --port 8731",
    "ROFL_SERVER_TOKEN=secret rofl server --facts facts/generated --host 0.0.0.0",
    exit_codes="Exit codes: 0 stopped, 2 user error (no scan in --facts, a bad --src, no token off loopback).",
)


@click.command("server", epilog=EPILOG)
@click.option("--facts", required=True, type=click.Path(file_okay=False), help="The fact folder `rofl scan` wrote.")
@click.option(
    "--src", default=None, type=click.Path(file_okay=False), help="The scanned sources (default: the scan's)."
)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to bind; off loopback a token is required."
)
@click.option("--port", type=click.IntRange(0, 65535), default=8731, show_default=True, help="Port (0: any free one).")
@click.option("--workers", type=click.IntRange(1, 64), default=4, show_default=True, help="Executions run at once.")
@user_errors
def command(facts: str, src: str | None, host: str, port: int, workers: int) -> None:
    """Serve the commands over --facts: POST /executions, GET/DELETE /executions/ID, GET /executions/ID/events
    (Server-Sent Events, resumable with Last-Event-ID), POST /commands/NAME for quick questions."""
    from servers.executions import Executions
    from servers.http import is_loopback, serve
    from servers.setup import folders, open_session, prepare_process, token_for

    where = folders(facts, src)
    token = token_for(host, is_loopback(host))
    prepare_process()
    executions = Executions(open_session(where), workers=workers)
    try:
        serve(executions, host, port, token)
    except OSError as err:
        raise click.ClickException(f"cannot listen on {host}:{port} ({err.strerror}); choose another --port") from None
