"""`rofl ask`: answer one question over loaded programs (and scanned facts); the exit code says how it went."""

from __future__ import annotations

from typing import Any

import click

from ..exits import asked, user_errors
from ..options import PUBLIC_KEY, adapter_options, examples, program_options

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
def command(**params: Any) -> None:
    """Answer QUERY over boot.rofl and FILES: a literal such as 'path(a, X)', or a conjunction of
    literals, negations and comparisons such as 'p(X), not q(X), X > 1'.

    Prints one line per answer, `X = a, Y = b`, sorted canonically; `yes` when a question without
    variables holds; `no` when nothing holds.  A relation that nothing defines in the perspective
    asked, or a variable nothing binds, is an error.
    """
    from rofl.engine.terms import format_term

    from ..questions.answer import answer_json
    from ..questions.ask import AskOptions, ask
    from ..questions.jsonout import emit_json
    from ..rounds import draw

    answer = asked(ask, AskOptions.from_params(params))
    draw(answer.run)
    if params["as_json"]:
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
        for f, tree in zip(params["whynot_facts"], answer.whynot or ()):
            click.echo(f"-- whynot {f}")
            click.echo("\n".join(tree.node.lines()))
    raise SystemExit(answer.status())
