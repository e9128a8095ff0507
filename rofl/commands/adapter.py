"""`rofl adapter ...`: the commands that write books and log in, each loaded from its own module when it runs."""

from __future__ import annotations

import click

from ..lazygroup import LazyGroup
from ..options import examples

# subcommand -> (module under rofl.commands, one-line help); a module is imported only when its command runs
SUBCOMMANDS = {
    "login": ("adapter_login", "Log in to an OAuth 2.1 authorization server for the books that send your token."),
    "logout": ("adapter_login", "Revoke and forget the tokens of a login."),
    "mcp": ("adapter_mcp", "Print the book of an MCP server (a command or URL): one capability per tool."),
    "openapi": ("adapter_openapi", "Print the book of an OpenAPI 3.0/3.1 description: one capability per operation."),
}

EPILOG = examples(
    "rofl adapter mcp 'python tracker_server.py' > tracker.rofl",
    "rofl adapter openapi openapi.json bearer=PETS_TOKEN > pets.rofl",
    "rofl adapter login https://auth.example.com",
    exit_codes="Exit codes: 0 done, 2 user error (see each command's --help).",
)


@click.group("adapter", cls=LazyGroup, table=SUBCOMMANDS, epilog=EPILOG)
def command() -> None:
    """Write adapter books from what a service describes, and log in to the services they ask."""
