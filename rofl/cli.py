"""The `rofl` command group: dispatches to subcommands imported only when they run."""

from __future__ import annotations

import importlib
import sys

import click

# name -> module under rofl.commands; imported lazily so `rofl --help` stays fast.
COMMANDS = {
    "scan": "scan",
    "ask": "ask",
    "why": "explain",
    "whynot": "explain",
    "excise": "explain",
    "audit": "audit",
    "impact": "impact",
    "export": "export",
    "run": "run",
    "save": "save",
    "repl": "repl",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module_name = COMMANDS.get(name)
        if module_name is None:
            return None
        module = importlib.import_module(f"rofl.commands.{module_name}")
        return getattr(module, name.replace("-", "_") + "_command", None) or getattr(module, "command")


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rofl")
def main() -> None:
    """rofl: turn a JS/TS repository into facts and answer questions about them with proof."""


def run() -> None:  # pragma: no cover - console entry
    sys.exit(main())


if __name__ == "__main__":  # python -m rofl.cli
    main()
