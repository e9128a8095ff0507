"""A click group over a table of subcommands (name -> module, one-line help), each imported only when it runs."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click


class LazyGroup(click.Group):
    """Lists its ``table``'s names with their one-line help without importing them; a subcommand's module
    (under rofl.commands) is imported when it runs, and names it NAME_command (or command).  Every
    subcommand takes -v."""

    def __init__(self, *args: Any, table: Mapping[str, tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.table)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = self.table.get(name)
        if entry is None:
            return None
        module = importlib.import_module(f"rofl.commands.{entry[0]}")
        command: click.Command = getattr(module, f"{name}_command", None) or module.command
        if not any(param.name == "verbose" for param in command.params):
            from .logs import verbose_option

            command.params.append(verbose_option())
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, self.table[name][1]) for name in self.list_commands(ctx)])
