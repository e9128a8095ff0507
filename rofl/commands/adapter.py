"""`rofl adapter ...`: the commands that write books and log in, each loaded from its own module when it runs."""

from __future__ import annotations

import importlib

import click

from ..options import examples

# subcommand -> (module under rofl.commands, one-line help); a module is imported only when its command runs,
# and names its command NAME_command (or command)
SUBCOMMANDS = {
    "login": ("adapter_login", "Log in to an OAuth 2.1 authorization server for the books that send your token."),
    "logout": ("adapter_login", "Revoke and forget the tokens of a login."),
    "mcp": ("adapter_mcp", "Print the book of an MCP server (a command or URL): one capability per tool."),
    "openapi": ("adapter_openapi", "Print the book of an OpenAPI 3.0/3.1 description: one capability per operation."),
}


class AdapterGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = SUBCOMMANDS.get(name)
        if entry is None:
            return None
        module = importlib.import_module(f"rofl.commands.{entry[0]}")
        command: click.Command = getattr(module, f"{name}_command", None) or module.command
        if not any(param.name == "verbose" for param in command.params):  # every command takes -v
            from ..logs import verbose_option

            command.params.append(verbose_option())
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, SUBCOMMANDS[name][1]) for name in self.list_commands(ctx)])


EPILOG = examples(
    "rofl adapter mcp 'python tracker_server.py' > tracker.rofl",
    "rofl adapter openapi openapi.json bearer=PETS_TOKEN > pets.rofl",
    "rofl adapter login https://auth.example.com",
    exit_codes="Exit codes: 0 done, 2 user error (see each command's --help).",
)


@click.group("adapter", cls=AdapterGroup, epilog=EPILOG)
def command() -> None:
    """Write adapter books from what a service describes, and log in to the services they ask."""
