"""Building a kernel from command-line inputs (boot, program files, --load-as files), and user-error exits."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Callable

import click

from engine.errors import RoflError
from engine.kernel import DEFAULT_BUDGET, Kernel
from engine.parse import parse_literal

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
BOOT = RULES_DIR / "boot.rofl"
CODE_RULES = RULES_DIR / "code.rofl"
CODE_BUDGET = 50_000_000

FILES = click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
LOAD_AS = click.option(
    "--load-as", "load_as", nargs=2, multiple=True, metavar="WHO FILE",
    help="Load FILE with its facts asserted by WHO (repeatable).",
)
BUDGET = click.option(
    "--budget", type=click.IntRange(min=1), default=None,
    help=f"Derivation steps allowed (default {DEFAULT_BUDGET:,}; {CODE_BUDGET:,} with --facts).",
)
FACTS = click.option("--facts", "facts", type=click.Path(file_okay=False), default=None, help="A folder written by `rofl scan` (loads rules/code.rofl too).")
RULES = click.option("--rules", "rules", multiple=True, type=click.Path(dir_okay=False), help="Rule file over the code facts; its facts are asserted by 'user' (repeatable).")
JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
STORE = click.option("--store", "store", type=click.Path(dir_okay=False), default=None, help="Start from a store saved by `rofl save` instead of boot.rofl.")


def program_options(fn: Callable) -> Callable:
    """FILE..., --load-as, --budget, --json, --store, --facts and --rules, as every question command takes them."""
    for option in (RULES, FACTS, STORE, JSON, BUDGET, LOAD_AS, FILES):
        fn = option(fn)
    return fn


def warn_partial(kernel: Kernel, command: str) -> bool:
    """Say on stderr when the evaluation behind an answer ran out of budget; return whether it did."""
    current = kernel.current
    if current is not None and current.partial:
        click.echo(f"rofl {command}: the budget ran out before the evaluation finished; the answer is partial, raise --budget", err=True)
        return True
    return False


# Exit codes every question command uses (documented in each command's --help).
EXIT_ANSWERS, EXIT_NO_ANSWER, EXIT_USER_ERROR, EXIT_PARTIAL = 0, 1, 2, 3
EXIT_CODES_HELP = "Exit codes: 0 answers, 1 no answer, 2 user error, 3 partial (the budget ran out)."


def examples(*lines: str, exit_codes: str = EXIT_CODES_HELP) -> str:
    """A command's --help epilog: its exit codes, then real examples, one per line, kept as written."""
    text = "\b\n" + exit_codes + "\n\n" if exit_codes else ""
    return text + "\b\nExamples:\n" + "\n".join("  " + line for line in lines)


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
        except MemoryError:
            fail("rofl: out of memory; lower --budget or ask a narrower question")

    return wrapper


def who_name(who: str) -> str:
    if not who or not who.isascii() or not (who[0].isalpha() and who[0].islower()) or not all(c.isalnum() or c == "_" for c in who):
        raise RoflError(f"--load-as: '{who}' is not an atom; use a lowercase name such as sensor_net")
    return who


def build_kernel(
    files: tuple, load_as: tuple, budget: int | None, store: str | None = None,
    facts: str | None = None, rules: tuple = (),
) -> Kernel:
    """Boot (or a saved store, or a scanned fact folder with code.rofl and --rules), then each FILE
    (no who), then each --load-as file asserted by its WHO; evaluated once, except over a scan, where
    each question evaluates only the relations it depends on (its goals)."""
    if facts is not None and store:
        raise RoflError("--facts and --store both name a starting point; give one of them")
    if facts is not None:
        kernel = code_kernel(facts, rules, budget or CODE_BUDGET)
    elif store:
        kernel = Kernel.restore(store, budget=budget or DEFAULT_BUDGET)
    else:
        kernel = Kernel(BOOT, budget=budget or DEFAULT_BUDGET)
    sources = [(Path(f), None) for f in files]
    sources += [(Path(f), who_name(w)) for w, f in load_as]
    if facts is None:
        sources += [(Path(r), "user") for r in rules]
    if sources:  # over a scan, the question evaluates only what it needs (its goals)
        kernel.load_sources(sources, evaluate_now=facts is None)
    return kernel


def code_kernel(facts: str, rules: tuple, budget: int) -> Kernel:
    """A kernel over a scanned fact folder, from its compiled cache when nothing it depends on changed."""
    from . import __version__, cache
    from .factdir import open_folder, stat_key

    root = Path(facts)
    if not (root / "manifest.json").is_file():
        raise RoflError(f"{root}: no manifest.json here; run `rofl scan SRC --out {root}` first")
    folder_key = stat_key(root)
    parts = [__version__.encode(), folder_key.encode(), BOOT.read_bytes(), CODE_RULES.read_bytes()]
    for r in rules:
        try:
            parts.append(str(r).encode() + b"\0" + Path(r).read_bytes())
        except OSError:
            raise RoflError(f"{r}: no such rule file; check the --rules path") from None
    import xxhash

    key = xxhash.xxh3_128_hexdigest(b"\0\0".join(parts))
    hit = cache.read(root, key)
    if hit is not None:
        kernel = Kernel(None, budget=budget)
        kernel.store, warnings = hit
    else:
        folder = open_folder(root, folder_key)
        kernel = Kernel(BOOT, budget=budget)
        sources = [(CODE_RULES, None), *folder.sources, *[(Path(r), "user") for r in rules]]
        kernel.load_sources(sources, evaluate_now=False)
        warnings = folder.warnings
        cache.write(root, key, kernel.store, warnings)
    for line in warnings:
        click.echo(f"warning: {line}", err=True)
    return kernel


def ground_fact(text: str):
    """Parse FACT arguments of why/whynot/excise: a ground literal."""
    from engine.terms import is_ground

    lit = parse_literal(text, "<fact>")
    if not (isinstance(lit.persp, str) and all(is_ground(a) for a in lit.args)):
        raise RoflError(f"<fact>: '{text}' has variables; give a ground fact such as path(a, c)")
    return lit


def emit_json(data: object) -> None:
    """Print ``data`` with the one JSON encoding of every command (terms through ``rofl.jsonout.term``)."""
    from .jsonout import dumps

    click.echo(dumps(data))
