"""`rofl report`: one self-contained HTML file of the import graph, its cycles, findings and a change's impact."""

from __future__ import annotations

import click

from ..exits import asked, user_errors
from ..options import BUDGET, FACTS, RULES, examples


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
    """Write one offline HTML page: the package graph, each folder's imports (click to drill down), a
    search box, each file's imports, importers, cycles and findings, every audit finding (presets,
    forbidden rules, named rules), dead exports, orphans and the impact of a change, each with its proof."""
    from ..outfile import write_or_fail
    from ..questions.report import ReportOptions, report
    from ..report_html import render

    options = ReportOptions.from_params(click.get_current_context().params)
    answer = asked(report, options)
    assert answer.model is not None
    write_or_fail("rofl report", options.out, render(answer.model), "--out")
    click.echo(answer.written(options.out))
    raise SystemExit(answer.status())
