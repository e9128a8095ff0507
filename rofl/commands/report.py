"""`rofl report`: one self-contained HTML file of the import graph, its cycles, findings and a change's impact."""

from __future__ import annotations

import click

from ..exits import fail, user_errors
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
    from rofl.scanner.manifest import src_of as source_root

    from .. import depcruise_config
    from ..loading.kernel import CODE_BUDGET, code_kernel
    from ..report_kernel import kept_relations

    # only what the report's rules read, unless an impact (which reads symbols) or a translated
    # dependency-cruiser config (rules written at run time) is asked for
    whole = bool(changed or git_base) or depcruise_config.find_config(source_root(manifest)) is not None
    keep = None if whole else kept_relations(rules)
    kernel = code_kernel(facts, rules, budget or CODE_BUDGET, keep=keep)
    from ..loading.presets import load_presets
    from .audit import load_depcruise

    for line in load_presets(kernel, facts, None, rules):  # use(...) and forbidden(...) turn them on
        click.echo(f"warning: {line}", err=True)
    renamed = load_depcruise(kernel, facts, None, None, False)  # a config at the source root, as audit reads it
    impact = impact_view(kernel, facts, changed, git_base, runtime) if (changed or git_base) else None
    packages = manifest.get("packages")
    model = gather(kernel, src_of(manifest), runtime, impact, packages if isinstance(packages, dict) else None, renamed)
    del kernel  # the model holds what the page shows: the store and the evaluation go before the page is built
    import gc

    gc.collect()
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
