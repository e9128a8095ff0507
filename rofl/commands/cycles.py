"""`rofl cycles`: import cycles as paths, with the fewest imports to remove to break them and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..formats import NAMES as FORMAT_NAMES
from ..formats import help_text
from ..session import BUDGET, FACTS, RULES, build_kernel, emit_json, examples, fail, user_errors

if TYPE_CHECKING:  # pragma: no cover
    from ..cycles_report import CycleComponent
    from ..findings import Finding
    from ..imports_graph import ImportGraph

CYCLE_RULE = "import_cycle"  # the rule each import to remove is reported under in the CI formats
CYCLE_MESSAGE = "an import on an import cycle: removing it breaks the cycles it is on"
EXIT_CODES = "Exit codes: 0 no cycle, 1 cycles found, 2 user error, 3 partial (the budget ran out)."


@click.command(
    "cycles",
    epilog=examples(
        "rofl cycles --facts facts/generated",
        "rofl cycles --facts facts/generated --runtime --json",
        "rofl cycles --facts facts/generated --format sarif > cycles.sarif",
        exit_codes=EXIT_CODES,
    ),
)
@FACTS
@click.option("--runtime", is_flag=True, help="Runtime imports only (not `import type`, not .d.ts files).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {components: [{files, cycles, cut, ...}]}.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", *FORMAT_NAMES]),
    default=None,
    help=f"text (default); json: as --json; {help_text()}. The CI formats report each import to remove.",
)
@RULES
@BUDGET
@user_errors
def command(
    facts: str | None,
    runtime: bool,
    as_json: bool,
    rules: tuple,
    budget: int | None,
    output_format: str | None = None,
) -> None:
    """Every strongly connected component of the import graph with a shortest cycle through each of its
    files, and a smallest set of imports whose removal breaks all its cycles, each with its proof."""
    from ..cycles_report import EXACT_MAX_IMPORTS, EXACT_STEPS, components
    from ..impact import escape
    from ..imports_graph import import_graph

    if facts is None:
        fail("rofl cycles: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
    if as_json and output_format not in (None, "json"):
        fail(f"rofl cycles: --json and --format {output_format} disagree; give one of them")
    as_json = as_json or output_format == "json"
    from rofl.scanner.manifest import read

    from ..staleness import warn_if_stale

    warn_if_stale(read(facts), facts, "cycles")
    kernel = build_kernel((), (), budget, facts=facts, rules=rules)
    graph = import_graph(kernel, runtime=runtime)
    found = components(graph.edges)
    if output_format in FORMAT_NAMES:
        from ..findings import RuleInfo
        from ..formats import Report, render, repository_paths

        findings = cycle_findings(found, graph)
        report = Report(
            command="cycles",
            findings=findings,
            rules=(RuleInfo(CYCLE_RULE, "error", CYCLE_MESSAGE),),
            paths=repository_paths(list(findings), facts, None),
            partial=graph.partial,
        )
        click.echo(render(output_format, report), nl=False)
    elif as_json:
        emit_json(
            {
                "runtime": runtime,
                "partial": graph.partial,
                "components": [
                    {
                        "files": list(c.files),
                        "cycles": [list(cycle) for cycle in c.cycles],
                        "cut": [[e.source, e.target] for e in c.cut],
                        "exact": c.exact,
                        "lower_bound": c.lower_bound,
                        "proofs": [
                            {
                                "cut": [e.source, e.target],
                                "imports": [i.as_dict() for i in graph.why(e.source, e.target)],
                                "breaks": [list(cycle) for cycle in e.breaks],
                                "witness": list(e.witness),
                            }
                            for e in c.cut
                        ],
                    }
                    for c in found
                ],
            }
        )
    else:
        mode = " (runtime imports)" if runtime else ""
        if not found:
            click.echo(f"no import cycle in {len(graph.files)} file(s){mode}")
        else:
            on = sum(len(c.files) for c in found)
            click.echo(f"{len(found)} component(s) with import cycles, {on} file(s) on cycles{mode}")

        def path(cycle: tuple[str, ...]) -> str:
            return " -> ".join(escape(f) for f in cycle)

        for n, c in enumerate(found, 1):
            click.echo(f"\ncomponent {n}: {len(c.files)} file(s)")
            for f in c.files:
                click.echo(f"  {escape(f)}")
            click.echo("  cycles (a shortest one through each file):")
            for cycle in c.cycles:
                click.echo(f"    {path(cycle)}")
            how = (
                "a minimum set"
                if c.exact
                else f"greedy Eades-Lin-Smyth, each import needed, at least {c.lower_bound} must go: the exact search stops after {EXACT_STEPS:,} steps and is not tried over {EXACT_MAX_IMPORTS} imports"
            )
            click.echo(f"  remove {len(c.cut)} import(s) to break every cycle ({how}):")
            for e in c.cut:
                sites = graph.why(e.source, e.target)
                where = "; ".join(i.text() for i in sites) or "an import"
                click.echo(f"    {escape(e.source)} -> {escape(e.target)}   {escape(where)}")
                click.echo(
                    f"      breaks {len(e.breaks)} listed cycle(s)" + (f": {path(e.breaks[0])}" if e.breaks else "")
                )
                for more in e.breaks[1:3]:
                    click.echo(f"        {path(more)}")
                if len(e.breaks) > 3:
                    click.echo(f"        and {len(e.breaks) - 3} more")
                click.echo(f"      needed: without it {path(e.witness)} remains (it crosses no other cut import)")
    if graph.partial:
        click.echo("rofl cycles: the budget ran out before the evaluation finished; raise --budget", err=True)
        raise SystemExit(3)
    if found:
        raise SystemExit(1)


def cycle_findings(found: list[CycleComponent], graph: ImportGraph) -> tuple[Finding, ...]:
    """Each import a component's cut removes as a finding of ``CYCLE_RULE``, at its first import line: keyed
    by the importing and imported files (as a baseline keys a rule's findings), with the cycles it breaks."""
    from ..findings import Finding

    out: list[Finding] = []
    for c in found:
        for e in c.cut:
            sites = graph.why(e.source, e.target)
            lines = [i.line for i in sites if i.line is not None]
            cycle = " -> ".join(e.breaks[0] if e.breaks else e.witness)
            more = f" and {len(e.breaks) - 1} more" if len(e.breaks) > 1 else ""
            out.append(
                Finding(
                    audit="cycle",
                    fact=None,
                    file=e.source,
                    line=min(lines) if lines else None,
                    message=f"on the import cycle {cycle}{more}; removing this import breaks it",
                    rule=CYCLE_RULE,
                    source=e.source,
                    target=e.target,
                )
            )
    return tuple(out)
