"""`rofl adapter mcp CMD|URL [HOW[:NAME]=ENV ...]`: print the book of an MCP server, made from its own tool list.

The server is started (a command) or reached (a URL) once, because the user named it on the command
line: a command gets the environment an mcp adapter gets (the essentials and the variables the keys
name), a URL the keys' credentials.  The book is ``rofl.adapters.mcp_book``'s: one capability per tool,
its class from the tool's annotations, and ``mcp_version``, which changes when the server's tools do.
"""

from __future__ import annotations

import os

import click

from ..exits import fail
from ..options import examples

TIMEOUT_S = 30.0

EPILOG = examples(
    "rofl adapter mcp 'npx -y @modelcontextprotocol/server-everything' > everything.rofl",
    "rofl adapter mcp https://tracker.example.com/mcp bearer=TRACKER_TOKEN --book tracker > tracker.rofl",
    "rofl adapter mcp 'python tracker_server.py' header:X-Api-Key=TRACKER_KEY --prefix tracker_",
    exit_codes="Exit codes: 0 the book was printed, 2 user error (the server cannot be started or reached, a bad key).",
)


@click.command("mcp", epilog=EPILOG)
@click.argument("address", metavar="CMD|URL")
@click.argument("keys", nargs=-1, metavar="[HOW[:NAME]=ENV]...")
@click.option("--book", "book", metavar="NAME", help="The book's name (default: the name the server gives itself).")
@click.option("--prefix", default="", metavar="TEXT", help="Put TEXT before every capability's name.")
@click.option(
    "--timeout",
    "timeout",
    type=click.FloatRange(min=0.1),
    default=TIMEOUT_S,
    show_default=True,
    metavar="SECONDS",
    help="How long the server may take to start and to answer each request.",
)
def mcp_command(address: str, keys: tuple[str, ...], book: str | None, prefix: str, timeout: float) -> None:
    """Print the book of the MCP server CMD (a command line, run over stdio) or URL (streamable HTTP):
    one capability per tool, reads for a tool marked read-only and does for any other.

    Each HOW[:NAME]=ENV names the environment variable of a secret (HOW is bearer, basic, header, query,
    client_credentials or login), e.g. bearer=TRACKER_TOKEN or header:X-Api-Key=TRACKER_KEY: a URL gets
    it as http_auth sends it, a command in its environment under that name. The value is read now and
    when a want is sent, and never printed.
    """
    from rofl.adapters.books import BookSourceError, Secret, parse_key
    from rofl.adapters.http_auth import Failed, Held, HttpAuth, token_scrubber
    from rofl.adapters.mcp_book import book_name, book_text
    from rofl.adapters.mcp_client import Connection, McpFailure, is_url, post_form
    from rofl.adapters.secrets import Scrubber, child_environment

    try:
        parsed = [parse_key(k) for k in keys]
    except BookSourceError as exc:
        fail(f"rofl adapter mcp: {exc}")
    if book is not None and book_name(book) != book:
        fail(f"rofl adapter mcp: --book {book}: a book's name is a lower-case ROFL name, e.g. {book_name(book)}")
    environ = dict(os.environ)
    secrets = [Secret("", k.how, k.how, k.name or "", k.env) for k in parsed]
    absent = sorted({s.env for s in secrets if s.how != "login" and not environ.get(s.env)})
    if absent:
        fail(f"rofl adapter mcp: the environment has no {', '.join(absent)}; set it or drop its key")
    scrubber = Scrubber.of(secrets, environ)
    url = is_url(address)
    auth = HttpAuth(post_form)
    headers: dict[str, str] = {}
    params: dict[str, str] = {}
    if url and secrets:
        creds = auth.credentials("adapter mcp", secrets, environ, timeout)
        if isinstance(creds, (Held, Failed)):
            fail(f"rofl adapter mcp: {scrubber.scrub(creds.why)}")
        headers, params = dict(creds.headers), dict(creds.params)
    if not url and any(s.how == "login" for s in secrets):
        fail("rofl adapter mcp: a command server gets its secrets as environment variables; a login names none")
    try:
        session = Connection.open(address, child_environment(environ, secrets), timeout, headers, params)
        try:
            tools = session.tools()
        finally:
            session.close()
    except McpFailure as exc:
        text = token_scrubber(auth.values).scrub(scrubber.scrub(str(exc)))
        fail(f"rofl adapter mcp: {address if url else 'the server'}: {text}")
    name = book or book_name(session.server_name)
    click.echo(book_text(name, address, tools, secrets, prefix), nl=False)
