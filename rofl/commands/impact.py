"""`rofl impact`: which files a change affects, each with the chain of imports that makes it so."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..exits import tell, user_errors
from ..options import BUDGET, FACTS, PUBLIC_KEY, RULES, examples

if TYPE_CHECKING:
    from ..questions.impact import AffectedFile, Classified, ImpactAnswer

MAX_LISTED = 20  # more changed paths of one kind than this are summarised in one text line


@click.command(
    "impact",
    epilog=examples(
        "rofl impact --facts facts/generated --changed src/domain/money.ts",
        "rofl impact --facts facts/generated --git-base origin/main --tests --format names | xargs npx vitest run",
        "rofl impact --facts facts/generated --changed src/domain/money.ts:allocate --symbols",
        exit_codes="Exit codes: 0 answered, 2 user error (or a path that exists nowhere), 3 partial (the budget ran out).",
    ),
)
@FACTS
@click.option(
    "--changed",
    multiple=True,
    metavar="PATH",
    help="A changed path relative to the scanned folder: a file, a folder, a config or lock file (repeatable).",
)
@click.option(
    "--git-base",
    "git_base",
    default=None,
    metavar="REF",
    help="Take the changed paths from git: the work tree against REF, untracked included.",
)
@click.option("--runtime", is_flag=True, help="Follow runtime imports only (not `import type`, not .d.ts files).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "names"]),
    default=None,
    help="text (default), json, or names: one path per line for a test runner.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--tests",
    "tests_only",
    is_flag=True,
    help="Only affected test files (*.test.*, *.spec.*, *.test-d.*, __tests__/, test/, tests/).",
)
@click.option(
    "--test-glob",
    "test_globs",
    multiple=True,
    metavar="GLOB",
    help="What counts as a test file for --tests, instead of the conventions (repeatable).",
)
@click.option("--packages", "by_package", is_flag=True, help="Affected workspace packages instead of files.")
@click.option(
    "--symbols",
    is_flag=True,
    help="Follow only importers that use the exports the change touches (--changed FILE:NAME names one).",
)
@click.option(
    "--no-rescan",
    "no_rescan",
    is_flag=True,
    help="Answer from the facts as they are (say whether they are stale) instead of rescanning first.",
)
@RULES
@BUDGET
@PUBLIC_KEY
@user_errors
def command(
    facts: str | None,
    changed: tuple,
    git_base: str | None,
    runtime: bool,
    fmt: str | None,
    as_json: bool,
    tests_only: bool,
    test_globs: tuple,
    by_package: bool,
    no_rescan: bool,
    symbols: bool,
    rules: tuple,
    budget: int | None,
    public_key: str | None = None,
) -> None:
    """List the files affected by a change and, per file, the chain to a changed path.

    Each changed path is classified (scanned source, deleted source, asset, config, lock file, folder,
    or outside the scan) and the output says how it was treated.
    """
    from ..loading.source import Source
    from ..questions.answer import answer_json
    from ..questions.impact import PARTIAL_NOTE, ImpactOptions, impact
    from ..questions.jsonout import emit_json

    options = ImpactOptions.from_params(click.get_current_context().params)
    source = Source()
    try:
        answer = impact(options, source)
    finally:
        tell(source.warnings)
    tell((), (n for n in answer.notes if n != PARTIAL_NOTE))  # the partial line last, after the answer
    if options.fmt == "json":
        emit_json(answer_json(answer))
    elif options.fmt == "names":
        for line in [p.name for p in answer.packages] if answer.packages is not None else answer.files:
            click.echo(escape(line))
        tell((), unfollowed_note(answer))
    else:
        render_text(answer)
        tell((), unfollowed_note(answer))
    tell((), (n for n in answer.notes if n == PARTIAL_NOTE))
    raise SystemExit(answer.status())


def render_text(answer: ImpactAnswer) -> None:
    """The answer as text: a count, how each changed path was treated, each affected file (or package) with its chain;
    the changed paths outside the scan said on stderr."""
    from ..questions.changes import OUTSIDE

    changes = answer.classified
    by = escape(changes[0].path) if len(changes) == 1 else f"{len(changes)} changed paths"
    mode = " (runtime imports)" if answer.runtime else ""
    if answer.packages is not None:
        click.echo(f"{len(answer.packages)} package(s) affected by {by}{mode}")
    else:
        what = "test file(s)" if answer.tests_only else "file(s)"
        click.echo(f"{len(answer.affected)} {what} affected by {by}{mode}")
    _changed_lines([c for c in changes if c.kind != OUTSIDE])
    if answer.symbols is not None:
        from ..questions.symbol_impact import seed_lines

        for line in seed_lines([(s.file, s.exports) for s in answer.symbols], escape):
            click.echo(line)
    outside = [c for c in changes if c.kind == OUTSIDE]
    if outside:
        names = ", ".join(escape(c.path) for c in outside[:5]) + (
            f" and {len(outside) - 5} more" if len(outside) > 5 else ""
        )
        click.echo(
            f"rofl impact: {len(outside)} changed path(s) outside the scan (not a scanned file, nothing imports them): {names}",
            err=True,
        )
    if answer.packages is not None:
        for p in answer.packages:
            click.echo(f"  {escape(p.name)}  {escape(p.folder)}  ({p.files} file(s))")
        return
    for a in answer.affected:
        click.echo(f"  {escape(a.file)}")
        click.echo(f"      via {_via_text(a)}")
        for hop in a.package_wide or ():
            click.echo(f"      package-wide: {escape(hop.why)}")


KIND_NAMES = {"source": "scanned sources", "config": "config files", "deleted": "deleted paths", "folder": "folders"}


def _changed_lines(treated: list[Classified]) -> None:
    """One ``changed:`` line per treated path, saying how it was treated; a kind with more than
    MAX_LISTED paths (a long branch's sources, a release bumping every package.json) in one line."""
    by_kind: dict[str, list[Classified]] = {}
    for c in treated:
        by_kind.setdefault(c.kind, []).append(c)
    for c in treated:
        same = by_kind[c.kind]
        if len(same) <= MAX_LISTED:
            click.echo(f"changed: {escape(c.path)} ({escape(c.detail)})")
        elif c is same[0]:
            names = ", ".join(escape(x.path) for x in same[:3])
            what = KIND_NAMES.get(c.kind, f"{c.kind} paths")
            how = "" if len({x.detail for x in same}) == 1 else "; --format json says how each was treated"
            click.echo(f"changed: {len(same)} {what} ({names} and {len(same) - 3} more{how})")


def _via_text(a: AffectedFile) -> str:
    """The chain: with --symbols each hop with the export used (``-[name]->``), else ``->`` for an import and
    ``=(package-wide NAME)=>`` for a package-wide hop."""
    if a.symbols is not None:
        from ..questions.symbol_impact import via_text

        return via_text(a.via, a.symbols, escape)
    wide = {(h.source, h.target): h.package for h in a.package_wide or ()}
    parts = [escape(a.via[0])] if a.via else []
    for x, y in zip(a.via, a.via[1:]):
        name = wide.get((x, y))
        parts.append(f"=(package-wide {escape(name)})=> " + escape(y) if name is not None else "-> " + escape(y))
    return " ".join(parts)


def escape(text: str) -> str:
    from ..questions.affected import escape

    return escape(text)


def unfollowed_note(answer: ImpactAnswer) -> list[str]:
    """One line when imports name what rofl does not follow: bundler aliases (unfollowed_alias in
    rules/code.rofl), virtual modules (virtual_module) and workspace packages with no scanned file: a
    change behind them reaches none of their importers, so say it, never silently."""
    counts = sorted(answer.virtual_modules, key=lambda c: (-c.imports, c.name))  # the most imported first
    kinds = (  # (imports, the file of one, what they name, the names shown)
        (
            answer.unfollowed_aliases,
            lambda a: a.file,
            "bundler aliases rofl does not follow",
            sorted({a.name for a in answer.unfollowed_aliases}),
        ),
        (
            answer.virtual_imports,
            lambda v: v[0],
            "virtual modules rofl does not follow",
            [f"{c.name} x{c.imports}" for c in counts],
        ),
        (
            answer.unfollowed_workspace_imports,
            lambda u: u.file,
            "workspace packages with no scanned file to follow",
            sorted({u.folder for u in answer.unfollowed_workspace_imports}),
        ),
    )
    parts = [
        f"{len(imports)} import(s) in {len({file_of(i) for i in imports})} file(s) name {what} ({escape(_shown(names))})"
        for imports, file_of, what, names in kinds
        if imports
    ]
    if not parts:
        return []
    fix = " (map aliases in tsconfig paths)" if answer.unfollowed_aliases else ""
    return [f"rofl impact: note: {'; '.join(parts)}; a change behind them does not reach those importers{fix}"]


def _shown(names: list[str]) -> str:
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
