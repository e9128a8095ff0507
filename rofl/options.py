"""The command line's option families: the click options every question command shares, and its help epilogs."""

from __future__ import annotations

from collections.abc import Callable

import click

from rofl.engine.kernel import DEFAULT_BUDGET

from .exits import EXIT_CODES_HELP
from .loading.kernel import CODE_BUDGET

FILES = click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
LOAD_AS = click.option(
    "--load-as",
    "load_as",
    nargs=2,
    multiple=True,
    metavar="WHO FILE",
    help="Load FILE with its facts asserted by WHO (repeatable).",
)
BUDGET = click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help=f"Derivation steps allowed (default {DEFAULT_BUDGET:,}; {CODE_BUDGET:,} with --facts).",
)
FACTS = click.option(
    "--facts",
    "facts",
    type=click.Path(file_okay=False),
    default=None,
    help="A folder written by `rofl scan` (loads rules/code.rofl too).",
)
RULES = click.option(
    "--rules",
    "rules",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Rule file over the code facts; its facts are asserted by 'user' (repeatable).",
)
JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
PUBLIC_KEY = click.option(
    "--public-key",
    "public_key",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --facts: check the scan's signature (rofl scan --sign-key) against this PEM public key first.",
)
STORE = click.option(
    "--store",
    "store",
    type=click.Path(dir_okay=False),
    default=None,
    help="Start from a store saved by `rofl save` instead of boot.rofl.",
)


def program_options(fn: Callable) -> Callable:
    """FILE..., --load-as, --budget, --json, --store, --facts and --rules, as every question command takes them."""
    for option in (RULES, FACTS, STORE, JSON, BUDGET, LOAD_AS, FILES):
        fn = option(fn)
    return fn


def examples(*lines: str, exit_codes: str = EXIT_CODES_HELP) -> str:
    """A command's --help epilog: its exit codes, then real examples, one per line, kept as written."""
    text = "\b\n" + exit_codes + "\n\n" if exit_codes else ""
    return text + "\b\nExamples:\n" + "\n".join("  " + line for line in lines)
