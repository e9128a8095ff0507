"""`rofl ask`: answer one query over loaded programs (and scanned facts)."""

from __future__ import annotations

import click

from engine.terms import format_term

from ..session import build_kernel, program_options, emit_json, user_errors


@click.command("ask")
@click.argument("query")
@program_options
@user_errors
def command(query: str, files: tuple, load_as: tuple, budget: int | None, as_json: bool, store: str | None, facts: str | None, rules: tuple) -> None:
    """Answer QUERY (a literal such as 'path(a, X)') over boot.rofl and FILES.

    Prints one line per answer, `X = a, Y = b`, sorted canonically; `no` when nothing holds.
    """
    from engine.parse import parse_literal

    lit = parse_literal(query, "<query>")
    kernel = build_kernel(files, load_as, budget, store=store, facts=facts, rules=rules, goals={lit.rel})
    answers = kernel.query(lit, budget)
    if as_json:
        emit_json({
            "query": query,
            "answers": [{v: format_term(t) for v, t in zip(answers.variables, row)} for row in answers.rows],
            "partial": answers.partial,
        })
        return
    if not answers.rows:
        click.echo("no")
    elif not answers.variables:
        click.echo("yes")
    else:
        for row in answers.rows:
            click.echo(", ".join(f"{v} = {format_term(t)}" for v, t in zip(answers.variables, row)))
    if answers.partial:
        click.echo("-- partial: the budget ran out; raise --budget for a complete answer", err=True)
