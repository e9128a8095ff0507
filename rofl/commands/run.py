"""`rofl run`: run a program's ticks until a silent fixpoint, a tick limit, or the budget."""

from __future__ import annotations

import click

from ..exits import Exit, fail, user_errors
from ..options import BUDGET, FILES, JSON, LOAD_AS, STORE, adapter_options, examples

EPILOG = examples(
    "rofl run examples/counter.rofl --collect count",
    "rofl run examples/tm.rofl --collect ones --json",
    "rofl run examples/stock.rofl --ticks 3 --budget 10000",
    exit_codes="Exit codes: 0 quiescent or stopped at --ticks, 2 user error, 3 partial (the budget ran out).",
)


@click.command("run", epilog=EPILOG)
@FILES
@LOAD_AS
@click.option("--ticks", type=click.IntRange(min=1), default=None, help="Run at most N ticks.")
@BUDGET
@click.option(
    "--collect", multiple=True, metavar="REL", help="Print this relation's facts at each tick boundary (repeatable)."
)
@JSON
@STORE
@adapter_options
@user_errors
def command(
    files: tuple,
    load_as: tuple,
    ticks: int | None,
    budget: int,
    collect: tuple,
    as_json: bool,
    store: str | None,
    allow: tuple = (),
    rounds: int | None = None,
) -> None:
    """Run FILES tick by tick; the budget bounds the whole run.

    A world with want rules runs its adapter rounds at every tick before the tick's facts are read
    (--rounds bounds each tick's rounds); a want seen at an earlier tick is answered again from the
    session, never sent again."""
    from rofl.engine.lexer import is_name

    from ..loading.kernel import KernelInputs, build_kernel
    from ..questions.jsonout import emit_json
    from ..rounds import finished, open_session, rounds_ran_out

    for rel in collect:
        if not is_name(rel):
            fail(f"--collect {rel!r}: not a relation name; give a name such as count")
    kernel = build_kernel(KernelInputs(files, load_as, budget, store=store))
    session = open_session(kernel, allow, rounds, files)
    if session is None:
        wants = None
        report = kernel.run(ticks, budget, tuple(collect))
    else:  # the rounds run at every tick, before its facts are read
        report = session.run_ticks(ticks, budget, tuple(collect))
        wants = finished(session)
    if as_json:
        emit_json(
            {
                "ticks": report.ticks,
                "quiescent": report.quiescent,
                "partial": report.partial,
                "collected": [{"tick": t, "facts": list(facts)} for t, facts in report.collected],
                **({"wants": wants.as_json()} if wants is not None else {}),
            }
        )
    else:
        for tick, facts in report.collected:
            click.echo(f"tick {tick}:" + ("" if facts else " (nothing collected)"))
            for f in facts:
                click.echo(f"  {f}")
        end = (
            "quiescent"
            if report.quiescent
            else "partial: the budget ran out"
            if report.partial
            else "stopped at the tick limit"
        )
        click.echo(f"-- {report.ticks} tick(s), {end}")
    if rounds_ran_out(wants) or report.partial:
        raise SystemExit(Exit.PARTIAL)
