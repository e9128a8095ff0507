"""Building a kernel from command-line inputs (boot, program files, --load-as files), and user-error exits."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Callable

import click

from engine.errors import RoflError
from engine.kernel import DEFAULT_BUDGET, Kernel
from engine.parse import parse_literal

BOOT = Path(__file__).resolve().parent.parent / "rules" / "boot.rofl"

FILES = click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
LOAD_AS = click.option(
    "--load-as", "load_as", nargs=2, multiple=True, metavar="WHO FILE",
    help="Load FILE with its facts asserted by WHO (repeatable).",
)
BUDGET = click.option("--budget", type=click.IntRange(min=1), default=DEFAULT_BUDGET, show_default=True, help="Derivation steps allowed.")
JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
STORE = click.option("--store", "store", type=click.Path(dir_okay=False), default=None, help="Start from a store saved by `rofl save` instead of boot.rofl.")


def fail(message: str, code: int = 2) -> None:
    click.echo(message, err=True)
    sys.exit(code)


def user_errors(fn: Callable) -> Callable:
    """Turn a RoflError (bad syntax, missing file, refused load) into one line on stderr and exit 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RoflError as exc:
            fail(str(exc))
        except RecursionError:
            fail("rofl: the program nests too deeply to evaluate; reduce term or proof depth")

    return wrapper


def who_name(who: str) -> str:
    if not who or not (who[0].isalpha() and who[0].islower()) or not all(c.isalnum() or c == "_" for c in who):
        raise RoflError(f"--load-as: '{who}' is not an atom; use a lowercase name such as sensor_net")
    return who


def build_kernel(files: tuple, load_as: tuple, budget: int, extra: list | None = None, store: str | None = None) -> Kernel:
    """Boot (or a saved store), then each FILE (no who), then each --load-as file asserted by its WHO, evaluated once."""
    kernel = Kernel.restore(store, budget=budget) if store else Kernel(BOOT, budget=budget)
    sources: list = list(extra or [])
    sources += [(Path(f), None) for f in files]
    sources += [(Path(f), who_name(w)) for w, f in load_as]
    if sources:
        kernel.load_sources(sources)
    return kernel


def ground_fact(text: str):
    """Parse FACT arguments of why/whynot/excise: a ground literal."""
    from engine.terms import is_ground

    lit = parse_literal(text, "<fact>")
    if not (isinstance(lit.persp, str) and all(is_ground(a) for a in lit.args)):
        raise RoflError(f"<fact>: '{text}' has variables; give a ground fact such as path(a, c)")
    return lit


def emit_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=None, sort_keys=False))
