"""`rofl cycles`: import cycles as paths, with the fewest imports to remove to break them and why."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ..exits import asked, user_errors
from ..options import BUDGET, FACTS, RULES, ci_format_option, examples

if TYPE_CHECKING:  # pragma: no cover
    from ..questions.cycles import CyclesAnswer
    from ..questions.findings import Finding

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
@ci_format_option(" The CI formats report each import to remove.")
@RULES
@BUDGET
@user_errors
def command(**params: Any) -> None:
    """Every strongly connected component of the import graph with a shortest cycle through each of its
    files, and a smallest set of imports whose removal breaks all its cycles, each with its proof."""
    from ..formats import NAMES as FORMAT_NAMES
    from ..questions.answer import answer_json
    from ..questions.cycles import CyclesOptions, cycles
    from ..questions.jsonout import emit_json

    options = CyclesOptions.from_params(params)
    answer = asked(cycles, options)
    if options.output_format in FORMAT_NAMES:
        click.echo(render_format(options.output_format, answer, options.facts), nl=False)
    elif options.as_json or options.output_format == "json":
        emit_json(answer_json(answer))
    else:
        render_text(answer)
    raise SystemExit(answer.status())


def render_format(output_format: str, answer: CyclesAnswer, facts: str) -> str:
    from ..formats import Report, render, repository_paths
    from ..questions.findings import RuleInfo

    findings = cycle_findings(answer)
    report = Report(
        command="cycles",
        findings=findings,
        rules=(RuleInfo(CYCLE_RULE, "error", CYCLE_MESSAGE),),
        paths=repository_paths(list(findings), facts, None),
        partial=answer.partial,
    )
    return render(output_format, report)


def render_text(answer: CyclesAnswer) -> None:
    from ..questions.affected import escape
    from ..questions.cycles_report import EXACT_MAX_IMPORTS, EXACT_STEPS

    mode = " (runtime imports)" if answer.runtime else ""
    if not answer.components:
        click.echo(f"no import cycle in {answer.scanned} file(s){mode}")
    else:
        click.echo(
            f"{len(answer.components)} component(s) with import cycles, {answer.files_on_cycles} file(s) on cycles{mode}"
        )

    def path(cycle: tuple[str, ...]) -> str:
        return " -> ".join(escape(f) for f in cycle)

    for n, c in enumerate(answer.components, 1):
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
        for proof in c.proofs:
            source, target = proof.cut
            where = "; ".join(i.text() for i in proof.imports) or "an import"
            click.echo(f"    {escape(source)} -> {escape(target)}   {escape(where)}")
            click.echo(
                f"      breaks {len(proof.breaks)} listed cycle(s)"
                + (f": {path(proof.breaks[0])}" if proof.breaks else "")
            )
            for more in proof.breaks[1:3]:
                click.echo(f"        {path(more)}")
            if len(proof.breaks) > 3:
                click.echo(f"        and {len(proof.breaks) - 3} more")
            click.echo(f"      needed: without it {path(proof.witness)} remains (it crosses no other cut import)")


def cycle_findings(answer: CyclesAnswer) -> tuple[Finding, ...]:
    """Each import a component's cut removes as a finding of ``CYCLE_RULE``, at its first import line: keyed
    by the importing and imported files (as a baseline keys a rule's findings), with the cycles it breaks."""
    from ..questions.findings import Finding

    out: list[Finding] = []
    for c in answer.components:
        for proof in c.proofs:
            lines = [i.line for i in proof.imports if i.line is not None]
            cycle = " -> ".join(proof.breaks[0] if proof.breaks else proof.witness)
            more = f" and {len(proof.breaks) - 1} more" if len(proof.breaks) > 1 else ""
            out.append(
                Finding(
                    audit="cycle",
                    fact=None,
                    file=proof.cut[0],
                    line=min(lines) if lines else None,
                    message=f"on the import cycle {cycle}{more}; removing this import breaks it",
                    rule=CYCLE_RULE,
                    source=proof.cut[0],
                    target=proof.cut[1],
                )
            )
    return tuple(out)
