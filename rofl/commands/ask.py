"""`rofl ask`: answer one question over loaded programs (and scanned facts); the exit code says how it went."""

from __future__ import annotations

import sys

import click

from rofl.engine.terms import format_term

from ..adapting import adapter_options, rounds_ran_out, run_rounds
from ..exits import Exit, user_errors
from ..jsonout import emit_json
from ..loading.kernel import build_kernel, incomplete_fact_files
from ..options import PUBLIC_KEY, examples, ground_fact, program_options
from ..questions.answer import answer_json

EPILOG = examples(
    "rofl ask 'path(a, X)' examples/tc.rofl",
    "rofl ask 'dependency[code](A, B), dependency[code](B, A), A < B' --facts facts/generated",
    "rofl ask 'in_cycle[code](F)' --facts facts/generated --json",
)


@click.command("ask", epilog=EPILOG)
@click.argument("query")
@program_options
@click.option("--why", "why_facts", multiple=True, metavar="FACT", help="Also explain why FACT holds (repeatable).")
@click.option(
    "--whynot", "whynot_facts", multiple=True, metavar="FACT", help="Also explain why FACT does not hold (repeatable)."
)
@PUBLIC_KEY
@adapter_options
@user_errors
def command(
    query: str,
    files: tuple,
    load_as: tuple,
    budget: int | None,
    as_json: bool,
    store: str | None,
    facts: str | None,
    rules: tuple,
    why_facts: tuple,
    whynot_facts: tuple,
    public_key: str | None = None,
    allow: tuple = (),
    rounds: int | None = None,
) -> None:
    """Answer QUERY over boot.rofl and FILES: a literal such as 'path(a, X)', or a conjunction of
    literals, negations and comparisons such as 'p(X), not q(X), X > 1'.

    Prints one line per answer, `X = a, Y = b`, sorted canonically; `yes` when a question without
    variables holds; `no` when nothing holds.  A relation that nothing defines in the perspective
    asked, or a variable nothing binds, is an error.
    """
    from rofl.engine.namespace import qualify_literal
    from rofl.engine.parse import parse_body
    from rofl.engine.query import plan

    from ..questions.ask import ask

    question = plan(parse_body(query, "<query>"))
    whys = [ground_fact(f) for f in why_facts]
    whynots = [ground_fact(f) for f in whynot_facts]
    goals = question.goals | {qualify_literal(w).rel for w in whys + whynots}
    kernel = build_kernel(
        files, load_as, budget, store=store, facts=facts, rules=rules, public_key=public_key, refuse_forged=True
    )
    if facts is not None:  # it answers from the facts as they are: say so when the sources moved on
        from rofl.scanner.manifest import read

        from ..staleness import warn_if_stale

        warn_if_stale(read(facts), facts, "ask")
    if facts is not None and (rules or load_as):  # only a program given here can hold a usurping rule
        from ..questions.forgery import usurped_facts

        usurped = usurped_facts(kernel)
        if usurped:
            click.echo(
                f"rofl ask: warning: {len(usurped)} fact(s) only usurping rules derive are forged (forged[audit]); "
                "run `rofl audit` to see them",
                err=True,
            )
    wants = run_rounds(kernel, allow, rounds, (*files, *rules))  # a refusal names the FILE:LINE it is written at
    answer = ask(
        kernel,
        query,
        question,
        budget,
        goals,
        list(zip(why_facts, whys)),
        list(zip(whynot_facts, whynots)),
        wants,
        incomplete_fact_files(kernel) if facts is not None else None,
    )
    if as_json:
        emit_json(answer_json(answer))
    else:
        if not answer.rows:
            click.echo("no")
        elif not answer.variables:
            click.echo("yes")
        else:
            names = [f"{v} = " for v in answer.variables]  # one write for all rows, not one per row
            click.echo("\n".join(", ".join(n + format_term(t) for n, t in zip(names, row)) for row in answer.rows))
        for why in answer.why or ():
            click.echo(f"-- why {why.fact}")
            click.echo("\n".join(why.node.lines()) if why.node else f"{why.fact} does not hold (try --whynot)")
        for f, tree in zip(whynot_facts, answer.whynot or ()):
            click.echo(f"-- whynot {f}")
            click.echo("\n".join(tree.node.lines()))
    if rounds_ran_out(wants):
        sys.exit(Exit.PARTIAL)
    if answer.partial:
        click.echo("-- partial: the budget ran out; raise --budget for a complete answer", err=True)
        sys.exit(Exit.PARTIAL)
    sys.exit(Exit.OK if answer.rows else Exit.NO_ANSWER)
