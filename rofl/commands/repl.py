"""`rofl repl`: an interactive session over boot.rofl and FILES."""

from __future__ import annotations

import sys

import click

from ..session import BUDGET, FILES, LOAD_AS, STORE, build_kernel, user_errors


@click.command("repl")
@FILES
@LOAD_AS
@BUDGET
@STORE
@user_errors
def command(files: tuple, load_as: tuple, budget: int, store: str | None) -> None:
    """Interactive session: `? L`, `why L`, `whynot L`, `excise F`, `tick`, `run`, ... (type help)."""
    from ..repl import Repl

    repl = Repl(build_kernel(files, load_as, budget, store=store))
    interactive = sys.stdin.isatty()
    if interactive:
        try:
            import readline  # noqa: F401 - line editing and history where available
        except ImportError:
            pass
        click.echo("rofl repl — type help, quit to leave")
    while True:
        try:
            line = input("rofl> " if interactive else "")
        except EOFError:
            break
        except UnicodeDecodeError:
            click.echo("error: that line is not valid text in this terminal's encoding", err=True)
            continue
        except KeyboardInterrupt:
            click.echo()
            continue
        out = repl.execute(line)
        if out is None:
            break
        if out:
            click.echo(out)
