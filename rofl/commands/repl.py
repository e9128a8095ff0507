"""`rofl repl`: an interactive session over boot.rofl and FILES."""

from __future__ import annotations

import sys

import click

from ..exits import user_errors
from ..options import BUDGET, FACTS, FILES, LOAD_AS, RULES, STORE, examples

EPILOG = examples(
    "rofl repl examples/tc.rofl",
    "rofl repl --facts facts/generated --rules examples/shop/layers.rofl",
    "echo '? path(a, X)' | rofl repl examples/tc.rofl",
    exit_codes="Exit codes: 0 at the end of the session, 2 user error when starting it.",
)


@click.command("repl", epilog=EPILOG)
@FILES
@LOAD_AS
@BUDGET
@STORE
@FACTS
@RULES
@user_errors
def command(files: tuple, load_as: tuple, budget: int, store: str | None, facts: str | None, rules: tuple) -> None:
    """Interactive session: `? L`, `why L`, `whynot L`, `excise F`, `tick`, `run`, ... (type help)."""
    from ..loading.kernel import KernelInputs, build_kernel
    from ..repl import Repl

    repl = Repl(build_kernel(KernelInputs(files, load_as, budget, store=store, facts=facts, rules=rules)))
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
