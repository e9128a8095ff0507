"""`rofl audit`: every non-empty audit relation (facts in perspective [audit]); exit 1 on findings."""

from __future__ import annotations

import sys

import click

from ..session import EXIT_PARTIAL, build_kernel, emit_json, examples, fail, program_options, user_errors, warn_partial

EPILOG = examples(
    "rofl audit examples/sensors.rofl --load-as sensor_net examples/sensor_readings.rofl",
    "rofl audit --facts facts/generated --rules examples/shop/layers.rofl",
    "rofl audit --facts facts/generated --src examples/shop --json",
    exit_codes="Exit codes: 0 every audit is empty, 1 findings, 2 user error, 3 partial (the budget ran out).",
)

AUDIT = "audit"


def audit_rows(kernel) -> dict[str, list[str]]:
    """``{relation: [canonical fact text]}`` for every relation with facts in [audit]."""
    from engine.namespace import display_name
    from engine.terms import format_fact

    from engine.terms import canonical_rows

    result = kernel.evaluate(goals=kernel.names_in(AUDIT))  # only what the audits depend on
    found: dict[str, list[str]] = {}
    for rel in result.relations():
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == AUDIT):
            found.setdefault(display_name(rel), []).append(format_fact(rel, row[0], row[1:]))
    return found


@click.command("audit", epilog=EPILOG)
@program_options
@click.option("--src", "src", type=click.Path(file_okay=False), default=None, help="With --facts: also report fact files stale against this source folder.")
@user_errors
def command(files: tuple, load_as: tuple, budget: int | None, as_json: bool, store: str | None, facts: str | None, rules: tuple, src: str | None) -> None:
    """Run boot's audits (and any [audit] rules in FILES); exit 1 when any audit has rows."""
    kernel = build_kernel(files, load_as, budget, store=store, facts=facts, rules=rules)
    found = audit_rows(kernel)
    if src is not None:
        if facts is None:
            fail("rofl audit: --src needs --facts DIR (the scan to compare)")
        from pathlib import Path

        from ..factdir import read_manifest
        from ..staleness import stale_sources

        stale = stale_sources(read_manifest(Path(facts))[0], src)
        if stale:
            found["stale"] = [f"{path}: {reason}" for path, reason in stale]
    if as_json:
        emit_json({"audits": found, "clean": not found})
    else:
        for rel in sorted(found):
            click.echo(f"{rel}: {len(found[rel])}")
            for text in found[rel]:
                click.echo(f"  {text}")
        if not found:
            click.echo("all audits are empty")
    if warn_partial(kernel, "audit"):
        sys.exit(EXIT_PARTIAL)  # an audit cut short is not clean, whatever it found so far
    sys.exit(1 if found else 0)
