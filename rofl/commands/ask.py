"""`rofl ask`: answer one query over loaded programs (and scanned facts)."""

from __future__ import annotations

import click

from engine.terms import format_term

from ..session import build_kernel, emit_json, ground_fact, program_options, user_errors


@click.command("ask")
@click.argument("query")
@program_options
@click.option("--why", "why_facts", multiple=True, metavar="FACT", help="Also explain why FACT holds (repeatable).")
@click.option("--whynot", "whynot_facts", multiple=True, metavar="FACT", help="Also explain why FACT does not hold (repeatable).")
@user_errors
def command(
    query: str, files: tuple, load_as: tuple, budget: int | None, as_json: bool, store: str | None,
    facts: str | None, rules: tuple, why_facts: tuple, whynot_facts: tuple,
) -> None:
    """Answer QUERY (a literal such as 'path(a, X)') over boot.rofl and FILES.

    Prints one line per answer, `X = a, Y = b`, sorted canonically; `no` when nothing holds.
    """
    from engine.parse import parse_literal

    lit = parse_literal(query, "<query>")
    whys = [ground_fact(f) for f in why_facts]
    whynots = [ground_fact(f) for f in whynot_facts]
    goals = {lit.rel} | {w.rel for w in whys + whynots}
    kernel = build_kernel(files, load_as, budget, store=store, facts=facts, rules=rules, goals=goals)
    answers = kernel.query(lit, budget)
    why_nodes = [(f, kernel.why(w.rel, w.persp, w.args)) for f, w in zip(why_facts, whys)]
    whynot_nodes = [(f, kernel.whynot(w.rel, w.persp, w.args)) for f, w in zip(whynot_facts, whynots)]
    if as_json:
        out = {
            "query": query,
            "answers": [{v: format_term(t) for v, t in zip(answers.variables, row)} for row in answers.rows],
            "partial": answers.partial,
        }
        if why_nodes:
            out["why"] = [n.as_dict() if n else {"fact": f, "holds": False} for f, n in why_nodes]
        if whynot_nodes:
            out["whynot"] = [n.as_dict() for _, n in whynot_nodes]
        emit_json(out)
        return
    if not answers.rows:
        click.echo("no")
    elif not answers.variables:
        click.echo("yes")
    else:
        for row in answers.rows:
            click.echo(", ".join(f"{v} = {format_term(t)}" for v, t in zip(answers.variables, row)))
    for f, node in why_nodes:
        click.echo(f"-- why {f}")
        click.echo("\n".join(node.lines()) if node else f"{f} does not hold (try --whynot)")
    for f, node in whynot_nodes:
        click.echo(f"-- whynot {f}")
        click.echo("\n".join(node.lines()))
    if answers.partial:
        click.echo("-- partial: the budget ran out; raise --budget for a complete answer", err=True)
