"""`rofl audit`: every non-empty audit relation (facts in perspective [audit]); exit 1 on findings."""

from __future__ import annotations

import sys

import click

from ..session import EXIT_PARTIAL, PUBLIC_KEY, build_kernel, emit_json, examples, fail, program_options, user_errors, warn_partial

EPILOG = examples(
    "rofl audit --facts facts/generated --rules examples/shop/layers.rofl",
    "rofl audit --facts facts/generated --public-key ci/rofl-scan.pub",
    "rofl audit --facts facts/generated --src examples/shop --reextract --json",
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


def usurped_facts(kernel) -> list[str]:
    """Facts whose every derivation is by a rule boot's ``usurp`` audit names (and that no one with
    authority asserted): reported as ``forged[audit]`` too.  Read from the finished evaluation's
    provenance (``derived_by``), which rules cannot see inside the evaluation that derives it."""
    from engine.clauses import Literal, var
    from engine.reflect import fact_from_term
    from engine.terms import format_fact

    usurpers = {d["R"] for d in kernel.query("usurp[audit](R, _P, _W)").as_dicts()}
    if not usurpers:
        return []
    found: list[str] = []
    suspects = {d["F"] for d in kernel.query("usurp[audit](R, _P, _W), derived_by(F, R, _T)").as_dicts()}
    for fact in sorted(suspects, key=repr):
        rules = {d["R"] for d in kernel.query(Literal("derived_by", "main", (fact, var("R"), var("_T")))).as_dicts()}
        if rules - usurpers:
            continue  # another rule derives it too
        ref = fact_from_term(fact)
        if ref is None:
            continue
        rel, row = ref
        if row in kernel.store.base.get(rel, {}):
            continue  # asserted as well: boot's forged audit judges its asserter
        found.append(format_fact("forged", "audit", (fact,)))
    return found


@click.command("audit", epilog=EPILOG)
@program_options
@click.option("--src", "src", type=click.Path(file_okay=False), default=None, help="With --facts: also report fact files stale against this source folder.")
@click.option("--reextract", is_flag=True, help="With --facts and --src: scan SRC again into a temporary folder and report every fact file that differs.")
@PUBLIC_KEY
@user_errors
def command(
    files: tuple, load_as: tuple, budget: int | None, as_json: bool, store: str | None, facts: str | None, rules: tuple,
    src: str | None, public_key: str | None = None, reextract: bool = False,
) -> None:
    """Run boot's audits (and any [audit] rules in FILES); exit 1 when any audit has rows."""
    if reextract and (src is None or facts is None):
        fail("rofl audit: --reextract needs --facts DIR and --src SRC (the scan and the sources it came from)")
    kernel = build_kernel(files, load_as, budget, store=store, facts=facts, rules=rules, use_cache=False, public_key=public_key)
    found = audit_rows(kernel)
    derived = usurped_facts(kernel)
    if derived:
        found.setdefault("forged", []).extend(derived)
    from pathlib import Path

    if src is not None:
        if facts is None:
            fail("rofl audit: --src needs --facts DIR (the scan to compare)")

        from ..factdir import read_manifest
        from ..staleness import stale_sources

        stale = stale_sources(read_manifest(Path(facts))[0], src)
        if stale:
            found["stale"] = [f"{path}: {reason}" for path, reason in stale]
    findings: list[dict] = []
    if reextract:
        from ..reextract import reextract as rescan

        differences = rescan(Path(facts), src)
        if differences:
            found["reextract"] = [d.text() for d in differences]
            findings = [{"audit": "reextract", "file": d.file, "line": d.line, "message": d.message} for d in differences]
    if as_json:
        emit_json({"audits": found, "clean": not found, **({"findings": findings} if findings else {})})
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
