"""`rofl impact`: which files a change affects, each with the chain of imports that makes it so."""

from __future__ import annotations

import click

from ..session import BUDGET, FACTS, JSON, RULES, build_kernel, emit_json, fail, user_errors


@click.command("impact")
@FACTS
@click.option("--changed", multiple=True, metavar="FILE", help="A changed file, as scanned (repeatable).")
@click.option("--git-base", "git_base", default=None, metavar="REF", help="Take the changed files from git: the work tree against REF, untracked included.")
@RULES
@BUDGET
@JSON
@user_errors
def command(facts: str | None, changed: tuple, git_base: str | None, rules: tuple, budget: int | None, as_json: bool) -> None:
    """List the files affected by a change and, per file, the import chain to a changed file."""
    from ..factdir import read_manifest
    from ..impact import git_changed, impact, normalise
    from pathlib import Path

    if facts is None:
        fail("rofl impact: --facts DIR is required; scan first with `rofl scan SRC --out DIR`")
    if bool(changed) == bool(git_base):
        fail("rofl impact: give either --changed FILE... or --git-base REF")
    manifest, _ = read_manifest(Path(facts))
    paths = git_changed(manifest, git_base) if git_base else list(changed)
    paths, unknown = normalise(paths, manifest)
    for p in unknown:
        click.echo(f"warning: {p} is not a scanned file; only its importers as scanned are followed", err=True)
    kernel = build_kernel((), (), budget, facts=facts, rules=rules, goals={"affected"})
    result = impact(kernel, paths)
    if as_json:
        emit_json({"changed": list(result.changed), "affected": [{"file": a.file, "via": list(a.via)} for a in result.affected], "partial": result.partial})
        return
    click.echo(f"{len(result.affected)} file(s) affected by {', '.join(result.changed) or 'nothing'}")
    for a in result.affected:
        click.echo(f"  {a.file}")
        click.echo(f"      via {' -> '.join(a.via)}")
    if result.partial:
        click.echo("-- partial: the budget ran out; raise --budget", err=True)
