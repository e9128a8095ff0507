"""`rofl export`: any binary relation as a graph file (GraphML, GEXF, JSON node-link, DOT, Mermaid)."""

from __future__ import annotations

import sys

import click

from ..exits import asked, user_errors
from ..options import BUDGET, FACTS, FILES, RULES, examples
from ..questions.graph_documents import FORMATS  # the names --help lists (standard library and engine.terms only)


@click.command(
    "export",
    epilog=examples(
        "rofl export dependency --facts facts/generated --format graphml -o deps.graphml",
        "rofl export runtime_dependency --facts facts/generated --format dot",
        exit_codes="Exit codes: 0 written, 2 user error, 3 partial (the budget ran out; the graph says so).",
    ),
)
@click.argument("relation")
@FILES
@FACTS
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="json",
    show_default=True,
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write to FILE instead of standard output.",
)
@RULES
@BUDGET
@user_errors
def command(
    relation: str, files: tuple, facts: str | None, fmt: str, output: str | None, rules: tuple, budget: int | None
) -> None:
    """Write RELATION (e.g. dependency, depends_on, or one a rule file derives) as a networkx graph."""
    from ..outfile import write_or_fail
    from ..questions.export import ExportOptions, export

    options = ExportOptions.from_params(click.get_current_context().params)
    answer = asked(export, options)
    if options.output:
        write_or_fail("rofl export", options.output, answer.document, "-o")
        click.echo(f"wrote {options.output}: {answer.nodes} nodes, {answer.edges} edges", err=True)
    else:
        sys.stdout.write(answer.document)
    raise SystemExit(answer.status())
