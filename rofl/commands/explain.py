"""`rofl why`, `rofl whynot` and `rofl excise`: explanations and blast radius of one fact."""

from __future__ import annotations

from typing import Any

import click

from ..exits import asked, user_errors
from ..options import examples, program_options
from ..questions.answer import answer_json
from ..questions.jsonout import emit_json
from ..questions.rounds import adapter_options, draw

SENSORS = "examples/sensors.rofl --load-as sensor_net examples/sensor_readings.rofl"
WHY_EPILOG = examples(
    "rofl why 'path(a, d)' examples/tc.rofl",
    f"rofl why 'outlier(s3)' {SENSORS} --json",
    "rofl why 'in_cycle[code](\"src/services/checkout.ts\")' --facts facts/generated",
    exit_codes="Exit codes: 0 the fact holds, 1 it does not, 2 user error (or an input it needs, such as changed/1, is not given), 3 partial (the budget ran out).",
)
WHYNOT_EPILOG = examples(
    f"rofl whynot 'corroborated(s3)' {SENSORS}",
    "rofl whynot 'path(d, a)' examples/tc.rofl --json",
    exit_codes="Exit codes: 0 the fact does not hold, 1 it holds, 2 user error, 3 partial (the budget ran out).",
)
EXCISE_EPILOG = examples(
    f"rofl excise 'reading[s1](20)' {SENSORS}",
    "rofl excise 'edge(b, c)' examples/tc.rofl --json",
    exit_codes="Exit codes: 0 done, 2 user error, 3 partial (the budget ran out).",
)


@click.command("why", epilog=WHY_EPILOG)
@click.argument("fact")
@program_options
@adapter_options
@user_errors
def why_command(**params: Any) -> None:
    """Show one derivation tree of FACT down to base facts; exit 1 when FACT does not hold, 2 when
    that cannot be known because an input it needs (changed/1 for affected) is not given."""
    from ..questions.explain import ExplainOptions, why

    answer = asked(why, ExplainOptions.from_params(params))
    draw(answer.run)
    if params["as_json"]:
        emit_json(answer_json(answer))
    elif answer.node is None:
        click.echo(f"{answer.fact} does not hold (try: rofl whynot)")
    else:
        click.echo("\n".join(answer.node.lines()))
    raise SystemExit(answer.status())


@click.command("whynot", epilog=WHYNOT_EPILOG)
@click.argument("fact")
@program_options
@user_errors
def whynot_command(**params: Any) -> None:
    """For FACT that does not hold, name the failing premise of each rule that could conclude it.

    Exit 1 when FACT holds after all.
    """
    from ..questions.explain import ExplainOptions, whynot

    answer = asked(whynot, ExplainOptions.from_params(params))
    if params["as_json"]:
        emit_json(answer_json(answer))
    elif answer.node is not None:
        click.echo("\n".join(answer.node.lines()))
    raise SystemExit(answer.status())


@click.command("excise", epilog=EXCISE_EPILOG)
@click.argument("fact")
@program_options
@user_errors
def excise_command(**params: Any) -> None:
    """The facts lost and gained when base fact FACT is removed (recomputed, not read from witnesses)."""
    from ..questions.explain import ExplainOptions, excise

    answer = asked(excise, ExplainOptions.from_params(params))
    if params["as_json"]:
        emit_json(answer_json(answer))
    else:
        for f in answer.removed:
            click.echo(f"- {f}")
        for f in answer.added:
            click.echo(f"+ {f}")
        if not answer.removed and not answer.added:
            click.echo("no change")
    raise SystemExit(answer.status())
