"""`rofl report`: one self-contained HTML file of the import graph, its cycles, findings and a change's impact."""

from __future__ import annotations

import click

from ..session import BUDGET, FACTS, RULES, build_kernel, examples, fail, user_errors


@click.command(
    "report",
    epilog=examples(
        "rofl report --facts facts/generated --out report.html",
        "rofl report --facts facts/generated --out report.html --git-base origin/main",
        "rofl report --facts facts/generated --out report.html --changed src/domain/money.ts",
        exit_codes="Exit codes: 0 written, 2 user error, 3 partial (the budget ran out; the report says so).",
    ),
)
@FACTS
@click.option(
    "--out", "out", required=True, type=click.Path(dir_okay=False), help="The HTML file to write (one file, offline)."
)
@click.option("--changed", multiple=True, metavar="PATH", help="Mark the impact of this changed path (repeatable).")
@click.option(
    "--git-base", "git_base", default=None, metavar="REF", help="Mark the impact of the work tree against REF."
)
@click.option("--runtime", is_flag=True, help="Runtime imports only (not `import type`, not .d.ts files).")
@RULES
@BUDGET
@user_errors
def command(
    facts: str | None,
    out: str,
    changed: tuple,
    git_base: str | None,
    runtime: bool,
    rules: tuple,
    budget: int | None,
) -> None:
    """Write the dependency graph by folder (click to drill down), with cycles, cut imports, violations,
    dead exports, orphans and the impact of a change marked, each finding with its proof."""
    from pathlib import Path

    from rofl.engine.errors import RoflError
    from rofl.scanner.manifest import read, src_of

    from ..report_data import gather, impact_view
    from ..report_html import render
    from ..staleness import warn_if_stale

    if facts is None:
        fail("rofl report: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
    if changed and git_base:
        fail("rofl report: give --changed PATH... or --git-base REF, not both")
    if git_base is not None and git_base.startswith("-"):
        raise RoflError(
            f"--git-base {git_base!r}: not a git revision; give a branch, tag or commit such as origin/main"
        )
    manifest = read(Path(facts))
    warn_if_stale(manifest, facts, "report")
    kernel = build_kernel((), (), budget, facts=facts, rules=rules)
    impact = impact_view(kernel, facts, changed, git_base, runtime) if (changed or git_base) else None
    model = gather(kernel, src_of(manifest), runtime, impact)
    text = render(model)
    try:
        from ..outfile import write_output

        write_output(out, text.encode("utf-8", "surrogateescape"))  # replaced whole: a failed write keeps the old
    except OSError as exc:
        fail(f"rofl report: cannot write {out} ({exc.strerror}); choose another --out path")
    click.echo(
        f"wrote {out}: {model.graph.size_text()}, {len(model.graph.edges)} imports, "
        f"{len(model.cycles)} cycle component(s), {len(model.findings)} finding(s)"
        + (f", {len(impact.affected)} affected" if impact else "")
    )
    if model.graph.partial:
        click.echo("rofl report: the budget ran out before the evaluation finished; raise --budget", err=True)
        raise SystemExit(3)
