"""`rofl summary`: counts over a scan's import graph (madge --summary and --leaves, dependency-cruiser's metrics)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ..exits import asked, user_errors
from ..options import BUDGET, FACTS, RULES, examples

if TYPE_CHECKING:  # pragma: no cover
    from ..questions.summary import SummaryAnswer


@click.command(
    "summary",
    epilog=examples(
        "rofl summary --facts facts/generated",
        "rofl summary --facts facts/generated --top 5 --leaves",
        "rofl summary --facts facts/generated --json",
    ),
)
@FACTS
@click.option(
    "--top", "top", type=click.IntRange(min=0), default=10, show_default=True, help="How many of each list to show."
)
@click.option("--leaves", is_flag=True, help="Also list the files that import no file (madge --leaves).")
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON: {totals, files: [...], packages: [...], leaves: [...]}."
)
@RULES
@BUDGET
@user_errors
def command(**params: Any) -> None:
    """Per file, how many files it imports and how many import it; per package (a folder whose
    package.json has a name), its files, the imports inside it, leaving it and entering it, and its
    instability Ce / (Ca + Ce) (Ce: files outside it its files import; Ca: files outside it that
    import its files); the top of each list, and the leaves."""
    from ..questions.answer import answer_json
    from ..questions.jsonout import emit_json
    from ..questions.summary import SummaryOptions, summary

    answer = asked(summary, SummaryOptions.from_params(params))
    if params["as_json"]:
        emit_json(answer_json(answer))
    else:
        render_text(answer)
    raise SystemExit(answer.status())


def render_text(a: SummaryAnswer) -> None:
    t = a.totals
    click.echo(f"{t.files} files, {t.imports} imports, {t.leaves} leaves, {t.packages} packages")
    _section("files importing the most files", [(f.file, f.imports) for f in a.most_imports])
    _section("files imported by the most files", [(f.file, f.importers) for f in a.most_importers])
    if t.packages:
        click.echo("")
        click.echo("packages by files (files, imports inside / out / in, Ce, Ca, instability):")
        for p in a.packages:
            click.echo(
                f"  {p.package}: {p.files} files, {p.internal_imports} / {p.outgoing_imports} / {p.incoming_imports} "
                f"imports, Ce {p.efferent}, Ca {p.afferent}, instability {_fmt(p.instability)}"
            )
        _section("most unstable packages (Ce / (Ca + Ce))", [(p.package, _fmt(p.instability)) for p in a.most_unstable])
    if a.leaves is not None:
        click.echo("")
        click.echo(f"leaves (import no file): {len(a.leaves)}")
        for f in a.leaves:
            click.echo(f"  {f}")


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _section(title: str, rows: list[tuple[str, object]]) -> None:
    if not rows:
        return
    click.echo("")
    click.echo(f"{title}:")
    width = max(len(str(n)) for _, n in rows)
    for name, n in rows:
        click.echo(f"  {str(n).rjust(width)}  {name}")
