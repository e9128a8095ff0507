"""`rofl ask`: answer one question over loaded programs (and scanned facts); the exit code says how it went."""

from __future__ import annotations

import sys

import click

from rofl.engine.terms import format_term

from ..adapting import adapter_options, at_boundary, rounds_ran_out, run_rounds
from ..session import (
    EXIT_ANSWERS,
    EXIT_NO_ANSWER,
    EXIT_PARTIAL,
    PUBLIC_KEY,
    build_kernel,
    emit_json,
    examples,
    ground_fact,
    incomplete_fact_files,
    program_options,
    user_errors,
)

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

    from ..jsonout import term

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
    answers = kernel.query(question.items, budget, goals=goals)
    why_nodes = [
        (f, at_boundary(kernel.why(w.rel, w.persp, w.args, goals=goals), wants)) for f, w in zip(why_facts, whys)
    ]
    whynot_nodes = [(f, kernel.whynot(w.rel, w.persp, w.args, goals=goals)) for f, w in zip(whynot_facts, whynots)]
    if as_json:
        out = {
            "query": query,
            "answers": [{v: term(t) for v, t in zip(answers.variables, row)} for row in answers.rows],
            "partial": answers.partial,
        }
        if facts is not None:
            out["incomplete"] = incomplete_fact_files(kernel)  # listed fact files that are missing
        if wants is not None:
            out["wants"] = wants.as_json()
        if why_nodes:
            out["why"] = [n.as_dict() if n else {"fact": f, "holds": False} for f, n in why_nodes]
        if whynot_nodes:
            out["whynot"] = [n.as_dict() for _, n in whynot_nodes]
        emit_json(out)
    else:
        if not answers.rows:
            click.echo("no")
        elif not answers.variables:
            click.echo("yes")
        else:
            names = [f"{v} = " for v in answers.variables]  # one write for all rows, not one per row
            click.echo("\n".join(", ".join(n + format_term(t) for n, t in zip(names, row)) for row in answers.rows))
        for f, node in why_nodes:
            click.echo(f"-- why {f}")
            click.echo("\n".join(node.lines()) if node else f"{f} does not hold (try --whynot)")
        for f, node in whynot_nodes:
            click.echo(f"-- whynot {f}")
            click.echo("\n".join(node.lines()))
    if rounds_ran_out(wants):
        sys.exit(EXIT_PARTIAL)
    if answers.partial:
        click.echo("-- partial: the budget ran out; raise --budget for a complete answer", err=True)
        sys.exit(EXIT_PARTIAL)
    sys.exit(EXIT_ANSWERS if answers.rows else EXIT_NO_ANSWER)
