"""`rofl export`: any binary relation as a graph file (GraphML, GEXF, JSON node-link, DOT, Mermaid)."""

from __future__ import annotations

import sys

import click

from ..export import FORMATS
from ..session import BUDGET, FACTS, FILES, RULES, build_kernel, fail, user_errors


@click.command("export")
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
    from ..export import build_graph, parse_relation, write
    from ..outfile import write_output

    rel, _ = parse_relation(relation)
    if facts is None and not files:
        fail("rofl export: give --facts DIR (a scan) or program FILES to load")
    kernel = build_kernel(files, (), budget, facts=facts, rules=rules)
    graph = build_graph(kernel, relation)
    if graph.number_of_edges() == 0:
        click.echo(f"warning: relation '{relation}' has no facts; the graph is empty", err=True)
    text = write(graph, fmt)
    if output:
        try:
            write_output(output, text.encode("utf-8", "surrogateescape"))
        except OSError as exc:
            fail(f"rofl export: cannot write {output} ({exc.strerror}); choose another -o path")
        click.echo(f"wrote {output}: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges", err=True)
    else:
        sys.stdout.write(text)
