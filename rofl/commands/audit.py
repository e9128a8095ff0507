"""`rofl audit`: every non-empty audit relation (facts in perspective [audit]); exit 1 on findings."""

from __future__ import annotations

import sys

import click

from ..adapting import adapter_options, run_rounds
from ..session import (
    EXIT_PARTIAL,
    PUBLIC_KEY,
    build_kernel,
    emit_json,
    examples,
    fail,
    program_options,
    user_errors,
    warn_partial,
)

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
    from engine.terms import canonical_rows, format_fact

    result = kernel.evaluate(goals=kernel.names_in(AUDIT))  # only what the audits depend on
    found: dict[str, list[str]] = {}
    for rel in result.relations():
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == AUDIT):
            found.setdefault(display_name(rel), []).append(format_fact(rel, row[0], row[1:]))
    return found


def usurped_facts(kernel) -> list[tuple[str, str]]:
    """Facts whose every derivation is by a rule boot's ``usurp`` audit names (and that no one with
    authority asserted): reported as ``forged[audit]`` too.  Read from the finished evaluation's
    provenance (``derived_by``), which rules cannot see inside the evaluation that derives it.
    Each is ``(fact text, id of a usurping rule that derives it)``."""
    from engine.clauses import Literal, var
    from engine.reflect import fact_from_term
    from engine.terms import format_fact

    audits = kernel.names_in(AUDIT)  # the common case, no usurper, evaluates only what audits need
    usurpers = {d["R"] for d in kernel.query("usurp[audit](R, _P, _W)", goals=audits).as_dicts()}
    if not usurpers:
        return []
    found: list[tuple[str, str]] = []
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
        found.append((format_fact("forged", "audit", (fact,)), sorted(r[0] for r in rules)[0]))
    return found


def finding_objects(kernel, where, extra: dict) -> list[dict]:
    """Every [audit] row as ``{"audit", "fact", "file", "line"}``: the file and line that asserted the
    forged or claimed fact, or wrote the usurping rule, where known (null otherwise)."""
    from engine.namespace import display_name
    from engine.reflect import fact_from_term
    from engine.terms import canonical_rows, format_fact

    out: list[dict] = []
    result = kernel.current
    for rel in result.relations() if result is not None else ():
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == AUDIT):
            name, args = display_name(rel), row[1:]
            spot = None
            if name == "forged" and args:
                ref = fact_from_term(args[0])
                spot = where.fact(*ref) if ref is not None else None
            elif name in ("usurp", "rule_in_facts") and args and type(args[0]) is tuple:
                spot = where.rule(args[0][0])
            elif name == "claimed" and len(args) == 3:
                spot = where.fact("authority", ("main", args[0], args[1]))
            elif name == "missing_fact_file" and args:
                spot = (str(args[0]), None)
            elif name == "unsigned":
                spot = ("manifest.sig", None)
            out.append(
                {
                    "audit": name,
                    "fact": format_fact(rel, row[0], args),
                    "file": spot[0] if spot else None,
                    "line": spot[1] if spot else None,
                }
            )
    for name, texts in extra.items():
        for text in texts:
            out.append({"audit": name, "fact": text, "file": None, "line": None})
    return out


def audited_sources(files: tuple, load_as: tuple, facts: str | None, rules: tuple) -> list:
    """``(path, text)`` of every file whose assertions the audits judge (a scan's fact files included)."""
    from pathlib import Path

    from ..locate import read_sources

    out = read_sources([*files, *[f for _, f in load_as], *rules])
    if facts is not None:
        from ..factdir import open_folder

        out += [(p, t) for p, _, t in open_folder(Path(facts)).sources]
    return out


@click.command("audit", epilog=EPILOG)
@program_options
@click.option(
    "--src",
    "src",
    type=click.Path(file_okay=False),
    default=None,
    help="With --facts: also report fact files stale against this source folder.",
)
@click.option(
    "--reextract",
    is_flag=True,
    help="With --facts and --src: scan SRC again into a temporary folder and report every fact file that differs.",
)
@PUBLIC_KEY
@adapter_options
@user_errors
def command(
    files: tuple,
    load_as: tuple,
    budget: int | None,
    as_json: bool,
    store: str | None,
    facts: str | None,
    rules: tuple,
    src: str | None,
    public_key: str | None = None,
    reextract: bool = False,
    allow: tuple = (),
    rounds: int | None = None,
) -> None:
    """Run boot's audits (and any [audit] rules in FILES); exit 1 when any audit has rows."""
    if reextract and (src is None or facts is None):
        fail("rofl audit: --reextract needs --facts DIR and --src SRC (the scan and the sources it came from)")
    kernel = build_kernel(
        files, load_as, budget, store=store, facts=facts, rules=rules, use_cache=False, public_key=public_key
    )
    wants = run_rounds(kernel, allow, rounds)
    found = audit_rows(kernel)
    derived = usurped_facts(kernel)
    if derived:
        found.setdefault("forged", []).extend(text for text, _ in derived)
    from pathlib import Path

    stale: list = []
    if src is not None:
        if facts is None:
            fail("rofl audit: --src needs --facts DIR (the scan to compare)")

        from ..factdir import read_manifest
        from ..staleness import stale_sources

        stale = stale_sources(read_manifest(Path(facts))[0], src)
        if stale:
            found["stale"] = [f"{path}: {reason}" for path, reason in stale]
    findings: list[dict] = []
    if found:
        from ..locate import index_sources

        where = index_sources(audited_sources(files, load_as, facts, rules))
        findings = finding_objects(kernel, where, {})
        for text, rid in derived:  # where the usurping rule is written
            spot = where.rule(rid)
            findings.append(
                {"audit": "forged", "fact": text, "file": spot[0] if spot else None, "line": spot[1] if spot else None}
            )
        findings += [
            {"audit": "stale", "fact": None, "file": path, "line": None, "message": reason} for path, reason in stale
        ]
    if reextract and facts is not None and src is not None:  # both given: checked above
        from ..reextract import reextract as rescan

        differences = rescan(Path(facts), src)
        if differences:
            found["reextract"] = [d.text() for d in differences]
            findings += [
                {"audit": "reextract", "fact": None, "file": d.file, "line": d.line, "message": d.message}
                for d in differences
            ]
    if as_json:
        emit_json(
            {
                "audits": found,
                "clean": not found,
                **({"findings": findings} if findings else {}),
                **({"wants": wants.as_json()} if wants is not None else {}),
            }
        )
    else:
        spots = {
            f["fact"]: f["file"] + (f":{f['line']}" if f["line"] else "") for f in findings if f["fact"] and f["file"]
        }
        for rel in sorted(found):
            click.echo(f"{rel}: {len(found[rel])}")
            for text in found[rel]:
                click.echo(f"  {text}" + (f"  ({spots[text]})" if text in spots else ""))
        if not found:
            click.echo("all audits are empty")
    if warn_partial(kernel, "audit"):
        sys.exit(EXIT_PARTIAL)  # an audit cut short is not clean, whatever it found so far
    sys.exit(1 if found else 0)
