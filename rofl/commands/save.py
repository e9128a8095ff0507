"""`rofl save`: write the whole store of loaded programs to a versioned file."""

from __future__ import annotations

import click

from ..exits import fail, user_errors
from ..options import BUDGET, FILES, LOAD_AS, STORE, examples

EPILOG = examples(
    "rofl save sensors.store examples/sensors.rofl --load-as sensor_net examples/sensor_readings.rofl",
    "rofl ask 'verified(V)' --store sensors.store",
    exit_codes="Exit codes: 0 saved, 2 user error.",
)


@click.command("save", epilog=EPILOG)
@click.argument("out", type=click.Path(dir_okay=False))
@FILES
@LOAD_AS
@BUDGET
@STORE
@user_errors
def command(out: str, files: tuple, load_as: tuple, budget: int, store: str | None) -> None:
    """Load boot.rofl and FILES, evaluate, and save the store to OUT (facts, rules, provenance, tick log)."""
    from pathlib import Path

    from ..loading.kernel import KernelInputs, build_kernel

    inputs = [Path(f) for f in files] + [Path(f) for _, f in load_as] + ([Path(store)] if store else [])
    if any(p.exists() and Path(out).exists() and p.resolve() == Path(out).resolve() for p in inputs):
        fail(f"rofl save: {out} is also an input; write the store to another file")
    kernel = build_kernel(KernelInputs(files, load_as, budget, store=store))
    size = kernel.save(out)
    click.echo(f"saved {out} ({size} bytes)")
