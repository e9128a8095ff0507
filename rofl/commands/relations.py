"""`rofl relations`: every relation with its perspective, arity, row count, where it is defined and what it means."""

from __future__ import annotations

from typing import Any

import click

from ..exits import asked, user_errors
from ..loading.budgets import COUNT_BUDGET
from ..options import FACTS, FILES, JSON, LOAD_AS, RULES, STORE, examples

EPILOG = examples(
    "rofl relations examples/tc.rofl",
    "rofl relations --facts facts/generated",
    "rofl relations examples/sensors.rofl --load-as sensor_net examples/sensor_readings.rofl --json",
    exit_codes="Exit codes: 0 listed, 2 user error.",
)


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
def command(**params: Any) -> None:
    """List every relation of boot.rofl and FILES (or of a scan): perspective, arity, rows that hold,
    where it is defined (file and line, `scanner` or `kernel`) and the comment above its first rule."""
    from ..questions.answer import answer_json
    from ..questions.jsonout import emit_json
    from ..questions.relations import RelationsOptions, relations

    answer = asked(relations, RelationsOptions.from_params(params))
    if params["as_json"]:
        emit_json(answer_json(answer))
        raise SystemExit(answer.status())
    listed, partial = answer.relations, answer.partial
    width = max((len(f"{r.relation}[{r.perspective}]/{r.arity}") for r in listed), default=0)
    for r in listed:
        sig = f"{r.relation}[{r.perspective}]/{r.arity}"
        rows = (">=" if partial and r.defined not in ("scanner", "kernel", "facts", "store") else "") + str(r.rows)
        line = f"{sig:<{width}}  {rows:>9} row(s)  {r.defined}"
        click.echo(line + (f"  -- {r.comment}" if r.comment else ""))
    raise SystemExit(answer.status())
