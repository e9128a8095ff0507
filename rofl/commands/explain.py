"""`rofl why`, `rofl whynot` and `rofl excise`: explanations and blast radius of one fact."""

from __future__ import annotations

import sys

import click

from rofl.engine.namespace import qualify_literal

from ..adapting import adapter_options, rounds_ran_out, run_rounds
from ..exits import Exit, fail, user_errors, warn_partial
from ..jsonout import emit_json
from ..loading.kernel import build_kernel
from ..options import examples, ground_fact, program_options
from ..questions.answer import answer_json

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
def why_command(
    fact: str,
    files: tuple,
    load_as: tuple,
    budget: int | None,
    as_json: bool,
    store: str | None,
    facts: str | None,
    rules: tuple,
    allow: tuple = (),
    rounds: int | None = None,
) -> None:
    """Show one derivation tree of FACT down to base facts; exit 1 when FACT does not hold, 2 when
    that cannot be known because an input it needs (changed/1 for affected) is not given."""
    from ..questions.explain import why

    lit = ground_fact(fact)
    kernel = build_kernel(files, load_as, budget, store=store, facts=facts, rules=rules)
    wants = run_rounds(kernel, allow, rounds, (*files, *rules))  # a refusal names the FILE:LINE it is written at
    answer = why(kernel, fact, lit, wants)
    partial = warn_partial(kernel, "why") | rounds_ran_out(wants)
    if not answer.holds:
        from ..inputs import unknowable

        missing = unknowable(kernel, qualify_literal(lit).rel, fact)
        if missing is not None:  # "does not hold" would not be known: say what is missing
            fail(missing)
    if as_json:
        emit_json(answer_json(answer))
    elif answer.node is None:
        click.echo(f"{fact} does not hold (try: rofl whynot)")
    else:
        click.echo("\n".join(answer.node.lines()))
    if answer.forged:
        forged = answer.forged
        shown = "; ".join(forged[:3]) + (f"; and {len(forged) - 3} more" if len(forged) > 3 else "")
        click.echo(
            f"warning: this derivation rests on {len(forged)} forged fact(s) (forged[audit]: {shown}); run `rofl audit`",
            err=True,
        )
    if partial:
        sys.exit(Exit.PARTIAL)
    if not answer.holds:
        sys.exit(1)


@click.command("whynot", epilog=WHYNOT_EPILOG)
@click.argument("fact")
@program_options
@user_errors
def whynot_command(
    fact: str,
    files: tuple,
    load_as: tuple,
    budget: int | None,
    as_json: bool,
    store: str | None,
    facts: str | None,
    rules: tuple,
) -> None:
    """For FACT that does not hold, name the failing premise of each rule that could conclude it.

    Exit 1 when FACT holds after all.
    """
    from ..questions.explain import whynot

    kernel = build_kernel(files, load_as, budget, store=store, facts=facts, rules=rules)
    answer = whynot(kernel, ground_fact(fact))
    partial = warn_partial(kernel, "whynot")
    if as_json:
        emit_json(answer_json(answer))
    elif answer.node is not None:
        click.echo("\n".join(answer.node.lines()))
    if partial:
        sys.exit(Exit.PARTIAL)
    if answer.holds:
        sys.exit(1)


@click.command("excise", epilog=EXCISE_EPILOG)
@click.argument("fact")
@program_options
@user_errors
def excise_command(
    fact: str,
    files: tuple,
    load_as: tuple,
    budget: int | None,
    as_json: bool,
    store: str | None,
    facts: str | None,
    rules: tuple,
) -> None:
    """The facts lost and gained when base fact FACT is removed (recomputed, not read from witnesses)."""
    from ..questions.explain import excise

    kernel = build_kernel(files, load_as, budget, store=store, facts=facts, rules=rules)
    answer = excise(kernel, ground_fact(fact))
    partial = warn_partial(kernel, "excise")
    if as_json:
        emit_json(answer_json(answer))
    else:
        for f in answer.removed:
            click.echo(f"- {f}")
        for f in answer.added:
            click.echo(f"+ {f}")
        if not answer.removed and not answer.added:
            click.echo("no change")
    if partial:
        sys.exit(Exit.PARTIAL)
