"""`rofl why`, `rofl whynot` and `rofl excise`: explanations and blast radius of one fact."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NoReturn

import click

from ..exits import asked, user_errors
from ..options import adapter_options, examples, program_options

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


def _reply(params: dict[str, Any], question: str, text: Callable[[Any], Iterable[str]]) -> NoReturn:
    """Ask ``question`` (a function of rofl.questions.explain) and print its answer, as JSON with --json, else
    the lines ``text`` makes of it; exit with its status."""
    from ..questions import explain
    from ..questions.answer import answer_json
    from ..questions.jsonout import emit_json
    from ..rounds import draw

    answer = asked(getattr(explain, question), explain.ExplainOptions.from_params(params))
    draw(getattr(answer, "run", None))
    if params["as_json"]:
        emit_json(answer_json(answer))
    else:
        for line in text(answer):
            click.echo(line)
    raise SystemExit(answer.status())


def _tree(answer: Any) -> list[str]:
    """The answer's tree, one echo (none without a tree)."""
    return [] if answer.node is None else ["\n".join(answer.node.lines())]


@click.command("why", epilog=WHY_EPILOG)
@click.argument("fact")
@program_options
@adapter_options
@user_errors
def why_command(**params: Any) -> None:
    """Show one derivation tree of FACT down to base facts; exit 1 when FACT does not hold, 2 when
    that cannot be known because an input it needs (changed/1 for affected) is not given."""
    _reply(params, "why", lambda a: _tree(a) or [f"{a.fact} does not hold (try: rofl whynot)"])


@click.command("whynot", epilog=WHYNOT_EPILOG)
@click.argument("fact")
@program_options
@user_errors
def whynot_command(**params: Any) -> None:
    """For FACT that does not hold, name the failing premise of each rule that could conclude it.

    Exit 1 when FACT holds after all.
    """
    _reply(params, "whynot", _tree)


@click.command("excise", epilog=EXCISE_EPILOG)
@click.argument("fact")
@program_options
@user_errors
def excise_command(**params: Any) -> None:
    """The facts lost and gained when base fact FACT is removed (recomputed, not read from witnesses)."""
    _reply(params, "excise", _excised)


def _excised(answer: Any) -> list[str]:
    lines = [f"- {f}" for f in answer.removed] + [f"+ {f}" for f in answer.added]
    return lines or ["no change"]
