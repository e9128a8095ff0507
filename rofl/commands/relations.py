"""`rofl relations`: every relation with its perspective, arity, row count, where it is defined and what it means."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from ..session import (
    BOOT,
    CODE_RULES,
    FACTS,
    FILES,
    JSON,
    LOAD_AS,
    RULES,
    STORE,
    build_kernel,
    emit_json,
    examples,
    user_errors,
)

COUNT_BUDGET = 1_000_000  # row counts of derived relations stop here (a closure over a big scan is costly)

EPILOG = examples(
    "rofl relations examples/tc.rofl",
    "rofl relations --facts facts/generated",
    "rofl relations examples/sensors.rofl --load-as sensor_net examples/sensor_readings.rofl --json",
    exit_codes="Exit codes: 0 listed, 2 user error.",
)


def definitions(paths: list[Path]) -> dict[tuple, tuple[str, str]]:
    """``{(rel, persp, arity): (where, comment)}`` for the first clause of each signature in ``paths``
    (rules before facts); ``comment`` is the block of ``--`` lines right above it."""
    from rofl.engine.clauses import is_var
    from rofl.engine.namespace import qualify
    from rofl.engine.parse import parse_program
    from rofl.engine.safe_write import MAX_PROGRAM_BYTES, read_regular

    found: dict[tuple, tuple[int, str, str]] = {}
    for path in paths:
        try:
            text = read_regular(path, MAX_PROGRAM_BYTES).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the kernel build reports unreadable files
        lines = text.split("\n")
        for clause in parse_program(text, str(path)):
            head = qualify(clause).head
            key = (head.rel, None if is_var(head.persp) else head.persp, len(head.args))
            rank = 0 if clause.body else 1
            if key in found and found[key][0] <= rank:
                continue
            comment: list[str] = []
            n = clause.line - 2
            while n >= 0 and lines[n].lstrip().startswith("--"):
                comment.insert(0, re.sub(r"\s*-{3,}\s*$", "", lines[n].strip()[2:].strip()))
                n -= 1
            found[key] = (rank, f"{_shown(path)}:{clause.line}", " ".join(c for c in comment if c))
    return {k: (where, comment) for k, (_, where, comment) in found.items()}


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the working folder when it lies inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


@click.command("relations", epilog=EPILOG)
@FILES
@LOAD_AS
@FACTS
@RULES
@STORE
@JSON
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=COUNT_BUDGET,
    show_default=True,
    help="Derivation steps spent counting derived rows; past it, counts are lower bounds (shown >=N).",
)
@user_errors
def command(
    files: tuple, load_as: tuple, facts: str | None, rules: tuple, store: str | None, as_json: bool, budget: int
) -> None:
    """List every relation of boot.rofl and FILES (or of a scan): perspective, arity, rows that hold,
    where it is defined (file and line, `scanner` or `kernel`) and the comment above its first rule."""
    from rofl.engine.namespace import is_private

    kernel = build_kernel(files, load_as, budget, store=store, facts=facts, rules=rules)
    paths = [BOOT] + ([CODE_RULES] if facts is not None else []) + [Path(f) for f in files]
    paths += [Path(f) for _, f in load_as] + [Path(r) for r in rules]
    where = definitions(paths) if store is None else {}
    listed = []
    for info in kernel.relations():
        if is_private(info.rel):
            continue
        found = where.get((info.rel, info.persp, info.arity)) or where.get((info.rel, None, info.arity))
        if found is not None:
            place, comment = found
        elif info.origin == "kernel":
            place, comment = "kernel", ""
        elif info.origin == "facts" and facts is not None:
            place, comment = "scanner", ""
        else:
            place, comment = ("store" if store else "facts"), ""
        listed.append(
            {
                "relation": info.name,
                "perspective": info.persp,
                "arity": info.arity,
                "rows": info.rows,
                "defined": place,
                "comment": comment,
            }
        )
    partial = kernel.outcome.partial
    if as_json:
        emit_json({"relations": listed, "partial": partial})
        return
    width = max((len(f"{r['relation']}[{r['perspective']}]/{r['arity']}") for r in listed), default=0)
    for r in listed:
        sig = f"{r['relation']}[{r['perspective']}]/{r['arity']}"
        rows = (">=" if partial and r["defined"] not in ("scanner", "kernel", "facts", "store") else "") + str(
            r["rows"]
        )
        line = f"{sig:<{width}}  {rows:>9} row(s)  {r['defined']}"
        click.echo(line + (f"  -- {r['comment']}" if r["comment"] else ""))
