"""The command line's option families: the click options every question command shares, and its help epilogs."""

from __future__ import annotations

from collections.abc import Callable

import click

from rofl.adapters.policy import ALLOWS
from rofl.engine.costs import DEFAULT_BUDGET

from .exits import EXIT_CODES_HELP
from .loading.budgets import CODE_BUDGET

# the modules above are standard library only: `rofl CMD --help` loads no engine, loader or question
# (tests/packaging/test_help_imports.py); a command imports what it runs inside its function


def path_option(
    flag: str, help: str, *, folder: bool = False, multiple: bool = False, dest: str | None = None
) -> Callable:
    """``--flag PATH`` (a file, or with ``folder`` a folder), stored as ``dest`` (default: the flag's name with
    ``_`` for ``-``)."""
    kind = click.Path(file_okay=False) if folder else click.Path(dir_okay=False)
    return click.option(flag, dest or flag[2:].replace("-", "_"), type=kind, multiple=multiple, help=help)


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
FACTS = path_option("--facts", "A folder written by `rofl scan` (loads rules/code.rofl too).", folder=True)
RULES = path_option(
    "--rules", "Rule file over the code facts; its facts are asserted by 'user' (repeatable).", multiple=True
)
JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
PUBLIC_KEY = path_option(
    "--public-key",
    "With --facts: check the scan's signature (rofl scan --sign-key) against this PEM public key first.",
)
STORE = path_option("--store", "Start from a store saved by `rofl save` instead of boot.rofl.")
ALLOW = click.option(
    "--allow",
    "allow",
    multiple=True,
    type=click.Choice(list(ALLOWS)),
    help=(
        "Grant adapter capabilities of this class (repeatable; reads and shows by default, only reads under "
        "CI=true); exec lets adapters start programs (exec, a served rofl world), which never run without it."
    ),
)
ROUNDS = click.option(
    "--rounds",
    "rounds",
    type=click.IntRange(min=1),
    default=None,
    help=(
        "Adapter rounds allowed before the world stops asking (default 100; for run, at each tick; the rest is "
        "held and a hole says so)."
    ),
)


def program_options(fn: Callable) -> Callable:
    """FILE..., --load-as, --budget, --json, --store, --facts and --rules, as every question command takes them."""
    for option in (RULES, FACTS, STORE, JSON, BUDGET, LOAD_AS, FILES):
        fn = option(fn)
    return fn


def adapter_options(fn: Callable) -> Callable:
    """--allow CLASS and --rounds N, as every command that runs a world's adapters takes them."""
    return ALLOW(ROUNDS(fn))


def ci_format_option(more: str = "") -> Callable:
    """``--format text|json|CI-FORMAT`` (the CI formats of ``rofl.formats``), as audit and cycles take it."""
    from .formats import NAMES, help_text  # only the commands that take it load the renderers

    return click.option(
        "--format",
        "output_format",
        type=click.Choice(["text", "json", *NAMES]),
        default=None,
        help=f"text (default); json: as --json; {help_text()}.{more}",
    )


def examples(*lines: str, exit_codes: str = EXIT_CODES_HELP) -> str:
    """A command's --help epilog: its exit codes, then real examples, one per line, kept as written."""
    text = "\b\n" + exit_codes + "\n\n" if exit_codes else ""
    return text + "\b\nExamples:\n" + "\n".join("  " + line for line in lines)
