"""`rofl mcp`: scan, impact, why, whynot, ask, cycles, audit and relations over one fact folder, as MCP tools."""

from __future__ import annotations

import click

from rofl.servers.cli_options import folder_options, read_timeout_option

from ..exits import user_errors
from ..options import examples

EPILOG = examples(
    "rofl mcp --facts facts/generated",
    "rofl mcp --facts facts/generated --src examples/shop --http --port 8732",
    exit_codes="Exit codes: 0 the client closed the session, 2 user error (no scan in --facts and no --src, a bad --src).",
)


@click.command("mcp", epilog=EPILOG)
@folder_options
@click.option("--http", "over_http", is_flag=True, help="Serve streamable HTTP at /mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8732, show_default=True, help="With --http: port.")
@read_timeout_option
@user_errors
def command(facts: str, src: str | None, over_http: bool, host: str, port: int, read_timeout: float) -> None:
    """Serve the tools scan, impact, why, whynot, ask, cycles, audit and relations to a coding agent over
    the Model Context Protocol (stdio by default).

    Arguments are named as on the command line (tests, packages, git_base); every answer is bounded
    (limit, default 50 items per list, with totals and a cursor for more; impact adds a summary by
    package); long calls report MCP progress notifications, and a cancelled call stops."""
    from rofl.servers.setup import start

    executions, token = start(facts, src, host if over_http else None)
    if not over_http:
        from rofl.servers.mcp import serve_stdio

        serve_stdio(executions)
        return
    from rofl.servers.mcp import serve_http

    try:
        serve_http(executions, host, port, token, read_timeout)
    except OSError as err:
        raise click.ClickException(f"cannot listen on {host}:{port} ({err.strerror}); choose another --port") from None
