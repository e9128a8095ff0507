"""`rofl export`: any binary relation as a graph file (GraphML, GEXF, JSON node-link, DOT, Mermaid)."""

from __future__ import annotations

import sys

import click

from ..exits import Exit, fail, user_errors
from ..export import FORMATS
from ..loading.kernel import build_kernel
from ..options import BUDGET, FACTS, FILES, RULES, examples


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
    from ..export import build_graph, parse_relation, write
    from ..outfile import write_output

    rel, _ = parse_relation(relation)
    if facts is None and not files:
        fail("rofl export: give --facts DIR (a scan) or program FILES to load")
    if facts is not None:  # it answers from the facts as they are: say when the sources moved on
        from rofl.scanner.manifest import read

        from ..staleness import warn_if_stale

        warn_if_stale(read(facts), facts, "export")
    kernel = build_kernel(files, (), budget, facts=facts, rules=rules)
    graph = build_graph(kernel, relation)
    if graph.number_of_edges() == 0 and not graph.graph.get("partial"):
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
    if graph.graph.get("partial"):
        click.echo(
            f"rofl export: partial: the budget ran out before '{relation}' was complete; raise --budget", err=True
        )
        raise SystemExit(Exit.PARTIAL)
