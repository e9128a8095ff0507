"""`rofl server`: the commands over one fact folder as HTTP executions with a live, resumable event stream."""

from __future__ import annotations

import click

from rofl.servers.cli_options import folder_options, read_timeout_option

from ..exits import user_errors
from ..options import examples

EPILOG = examples(
    "rofl server --facts facts/generated --src examples/shop --port 8731",
    "rofl server --facts facts/generated --allow does   (then open http://127.0.0.1:8731/render?files=PATH/w.rofl)",
    "rofl server --facts facts/generated --host 0.0.0.0   (off loopback: ROFL_SERVER_TOKEN must be set)",
    exit_codes="Exit codes: 130 stopped by Ctrl-C, 2 user error (no scan in --facts and no --src, a bad --src, no token off loopback).",
)


@click.command("server", epilog=EPILOG)
@folder_options
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to bind; off loopback a token is required."
)
@click.option("--port", type=click.IntRange(0, 65535), default=8731, show_default=True, help="Port (0: any free one).")
@click.option("--workers", type=click.IntRange(1, 64), default=4, show_default=True, help="Executions run at once.")
@read_timeout_option
@click.option(
    "--allow",
    "allow",
    multiple=True,
    type=click.Choice(["reads", "shows", "does"]),
    help="Grant this class to the worlds the workbench pages render (GET /render; repeatable; reads and shows by "
    "default, only reads under CI=true): --allow does lets a button's press ask a does capability.",
)
@user_errors
def command(
    facts: str, src: str | None, host: str, port: int, workers: int, read_timeout: float, allow: tuple = ()
) -> None:
    """Serve the commands over --facts: POST /executions, GET/DELETE /executions/ID, GET /executions/ID/events
    (Server-Sent Events, resumable with Last-Event-ID), POST /commands/NAME for quick questions, and
    GET /render?files=W.rofl, a world's render components as a page whose buttons press."""
    from rofl.servers.http import serve
    from rofl.servers.setup import start

    executions, token = start(facts, src, host, workers)
    try:
        serve(executions, host, port, token, read_timeout, allow)
    except OSError as err:
        raise click.ClickException(f"cannot listen on {host}:{port} ({err.strerror}); choose another --port") from None
