"""`rofl save`: write the whole store of loaded programs to a versioned file."""

from __future__ import annotations

import click

from ..session import BUDGET, FILES, LOAD_AS, STORE, build_kernel, user_errors


@click.command("save")
@click.argument("out", type=click.Path(dir_okay=False))
@FILES
@LOAD_AS
@BUDGET
@STORE
@user_errors
def command(out: str, files: tuple, load_as: tuple, budget: int, store: str | None) -> None:
    """Load boot.rofl and FILES, evaluate, and save the store to OUT (facts, rules, provenance, tick log)."""
    kernel = build_kernel(files, load_as, budget, store=store)
    size = kernel.save(out)
    click.echo(f"saved {out} ({size} bytes)")
