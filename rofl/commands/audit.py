"""`rofl audit`: every non-empty audit relation (facts in perspective [audit]); exit 1 on findings."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from ..adapting import adapter_options, rounds_ran_out, run_rounds
from ..findings import RuleInfo
from ..formats import NAMES as FORMAT_NAMES
from ..formats import help_text
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

FORMAT_HELP = help_text()
EPILOG = examples(
    "rofl audit --facts facts/generated --rules examples/shop/layers.rofl",
    "rofl audit --facts facts/generated --rules examples/ci/rules.rofl --baseline examples/ci/baseline.json --format sarif > rofl.sarif",
    "rofl audit --facts facts/generated --public-key ci/rofl-scan.pub --write-baseline ci/baseline.json",
    exit_codes="Exit codes: 0 no finding at or above --fail-on (default error), 1 such findings, 2 user error, "
    "3 partial (the budget ran out).",
)

AUDIT = "audit"


def audit_rows(kernel) -> dict[str, list[str]]:
    """``{relation: [canonical fact text]}`` for every relation with facts in [audit]."""
    from rofl.engine.namespace import display_name
    from rofl.engine.terms import canonical_rows, format_fact

    result = kernel.evaluate(goals=kernel.names_in(AUDIT))  # only what the audits depend on
    found: dict[str, list[str]] = {}
    for rel in result.relations():
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == AUDIT):
            found.setdefault(display_name(rel), []).append(format_fact(rel, row[0], row[1:]))
    return found


def usurped_facts(kernel) -> list[tuple[str, str]]:
    """Facts whose every derivation is by a rule boot's ``usurp`` audit names (and that no one with
    authority asserted): reported as ``forged[audit]`` too.  Read from the finished evaluation's
    provenance, which rules cannot see inside the evaluation that derives it.  Each is ``(fact text,
    id of a usurping rule that derives it)``."""
    return [(text, rid) for text, rid, _ in _usurped(kernel)]


def _usurped(kernel) -> list[tuple[str, str, tuple[str, tuple]]]:
    """``usurped_facts`` with each fact's ``(stored relation, row)``."""
    from rofl.engine.namespace import stored_name
    from rofl.engine.reflect import fact_term
    from rofl.engine.terms import canonical_rows, format_fact

    audits = kernel.names_in(AUDIT)  # the common case, no usurper, evaluates only what audits need
    heads: dict[str, set[str]] = {}  # usurping rule id -> the relations it concludes (stored names)
    question = "usurp[audit](R, P, _W), concludes(R, Rel)"
    for d in kernel.query(question, goals=audits).as_dicts():
        heads.setdefault(d["R"][0], set()).add(stored_name(d["Rel"][0], d["P"][0]))
    if not heads:
        return []
    # one evaluation of what the usurped relations depend on, then each fact's provenance once:
    # linear in the facts those relations hold, whatever the number of usurped facts
    rels = set().union(*heads.values())
    result = kernel.evaluate(goals=audits | rels)
    found: list[tuple[str, str, tuple[str, tuple]]] = []
    for rel in sorted(rels):
        base = kernel.store.base.get(rel, {})
        for row in canonical_rows(result.rows(rel)):
            record = result.provenance(rel, row)
            if record is None or row in base:
                continue  # not derived, or asserted as well: boot's forged audit judges its asserter
            if any(r not in heads for r in record.rules):
                continue  # another rule derives it too
            text = format_fact("forged", "audit", (fact_term(rel, row),))
            found.append((text, min(record.rules), (rel, row)))
    return found


def forged_facts(kernel) -> set[tuple[str, tuple]]:
    """Every forged fact as ``(stored relation, row)``: what boot's ``forged[audit]`` names, and what only
    usurping rules derive (``usurped_facts``); empty for a store without boot's audits."""
    from rofl.engine.errors import UnknownRelation
    from rofl.engine.reflect import fact_from_term

    try:
        terms = [d["F"] for d in kernel.query("forged[audit](F)", goals=kernel.names_in(AUDIT)).as_dicts()]
    except UnknownRelation:  # a store without boot's audits
        return set()
    out = {ref for t in terms if (ref := fact_from_term(t)) is not None}
    return out | {ref for _, _, ref in _usurped(kernel)}


def finding_objects(kernel, where, extra: dict, facts: str | None = None) -> list[dict]:
    """Every [audit] row as ``{"audit", "fact", "file", "line"}``: the file and line that asserted the
    forged or claimed fact, or wrote the usurping rule, where known (null otherwise).  A named
    ``violation[audit](Rule, From, To)`` is ``{"audit", "fact", "named": (rule, from, to)}``, located
    by ``rofl.findings.located_violations``.  A missing fact file is named inside ``facts``."""
    from pathlib import Path

    from rofl.engine.namespace import display_name
    from rofl.engine.reflect import fact_from_term
    from rofl.engine.terms import canonical_rows, format_fact

    from ..findings import named_violation
    from ..signing import SIG_NAME

    out: list[dict] = []
    result = kernel.current
    for rel in result.relations() if result is not None else ():
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == AUDIT):
            name, args = display_name(rel), row[1:]
            spot = None
            if name == "forged" and args:
                ref = fact_from_term(args[0])
                spot = where.fact(*ref) if ref is not None else None
            elif name in ("usurp", "rule_in_facts") and args and isinstance(args[0], tuple):
                spot = where.rule(args[0][0])
            elif name == "claimed" and len(args) == 3:
                spot = where.fact("authority", ("main", args[0], args[1]))
            elif name == "missing_fact_file" and args:  # a path inside the fact folder
                spot = (str(Path(facts) / str(args[0])) if facts is not None else str(args[0]), None)
            elif name == "unsigned":
                spot = (str(Path(facts) / SIG_NAME) if facts is not None else SIG_NAME, None)
            elif name == "violation" and (named := named_violation(args)) is not None:
                out.append({"audit": name, "fact": format_fact(rel, row[0], args), "named": named})
                continue
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


def audited_sources(files: tuple, load_as: tuple, facts: str | None, rules: tuple) -> list[Callable[[], list]]:
    """The files whose assertions the audits judge, as tiers of ``(path, text)`` read on demand: the
    programs and rule files, then a scan's fact files that did not load as the scanner's (where forged
    facts are written), then the scanner's own.  A finding is looked up tier by tier, so one in a rule
    file never parses a scan's hundreds of fact files again."""
    from functools import cache
    from pathlib import Path

    from ..factdir import SCANNER
    from ..locate import read_sources

    tiers: list[Callable[[], list]] = [lambda: read_sources([*files, *[f for _, f in load_as], *rules])]
    if facts is not None:
        from ..factdir import open_folder

        @cache
        def sources() -> tuple:
            return open_folder(Path(facts)).sources

        tiers.append(lambda: [(p, t) for p, who, t in sources() if who not in (SCANNER, None)])
        tiers.append(lambda: [(p, t) for p, who, t in sources() if who in (SCANNER, None)])
    return tiers


class LazyWhere:
    """``rofl.locate.Where`` over tiers of sources, each parsed again only when a lookup reaches it
    (the first tier that knows the fact or rule answers)."""

    def __init__(self, tiers: list[Callable[[], list]]) -> None:
        self._tiers = tiers
        self._built: list = []

    def _lookup(self, find: Callable) -> tuple[str, int] | None:
        from ..locate import index_sources

        for i, tier in enumerate(self._tiers):
            if i == len(self._built):
                self._built.append(index_sources(tier()))
            spot = find(self._built[i])
            if spot is not None:
                return spot
        return None

    def fact(self, rel: str, row: tuple) -> tuple[str, int] | None:
        return self._lookup(lambda where: where.fact(rel, row))

    def rule(self, rid: str) -> tuple[str, int] | None:
        return self._lookup(lambda where: where.rule(rid))


def as_findings(kernel, objects: list[dict], where) -> list:
    """Finding values for ``finding_objects``' dicts, in their order; then the named violations with their
    rule and import line, most severe first."""
    from ..findings import Finding, declared_rules, located_violations, sorted_findings

    plain = [
        Finding(audit=o["audit"], fact=o["fact"], file=o["file"], line=o["line"], message=o.get("message"))
        for o in objects
        if "named" not in o
    ]
    named = [(o["fact"], *o["named"]) for o in objects if "named" in o]
    if named:
        plain += sorted_findings(located_violations(kernel, named, declared_rules(kernel, where)))
    return plain


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
@click.option(
    "--fail-on",
    "fail_on",
    type=click.Choice(["error", "warn", "info"]),
    default="error",
    show_default=True,
    help="Exit 1 when a finding of this severity or a more severe one is reported.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", *FORMAT_NAMES]),
    default=None,
    help=f"text (default); json: as --json; {FORMAT_HELP}.",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Ignore the findings this baseline file lists; report the new ones, and the listed ones that no longer hold as fixed.",
)
@click.option(
    "--write-baseline",
    "write_baseline",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the findings to this baseline file (with --baseline: only the still-known ones, so it shrinks).",
)
@click.option(
    "--depcruise-config",
    "depcruise_config",
    type=click.Path(dir_okay=False),
    default=None,
    help="Translate this dependency-cruiser config's rules (default: a .dependency-cruiser.{json,js,cjs,mjs} at the scan's source root).",
)
@click.option(
    "--allow-config-js",
    "allow_config_js",
    is_flag=True,
    help="Let Node evaluate a JS dependency-cruiser config (code from the repository); without it only an object literal is read.",
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
    fail_on: str = "error",
    output_format: str | None = None,
    baseline_file: str | None = None,
    write_baseline: str | None = None,
    depcruise_config: str | None = None,
    allow_config_js: bool = False,
) -> None:
    """Run boot's audits, the presets turned on and any [audit] rules; exit 1 on findings at --fail-on or above."""
    if reextract and (src is None or facts is None):
        fail("rofl audit: --reextract needs --facts DIR and --src SRC (the scan and the sources it came from)")
    if as_json and output_format not in (None, "json"):
        fail(f"rofl audit: --json and --format {output_format} disagree; give one of them")
    output_format = output_format or ("json" if as_json else "text")
    from .. import baseline as baselines

    entries = baselines.read(baseline_file) if baseline_file is not None else None  # a bad baseline fails first
    kernel = build_kernel(
        files, load_as, budget, store=store, facts=facts, rules=rules, use_cache=False, public_key=public_key
    )
    from ..presets import load_presets, turned_on

    if facts is not None:
        for line in load_presets(kernel, facts, src, (*files, *rules)):
            click.echo(f"warning: {line}", err=True)
    elif turned_on(kernel):
        click.echo("warning: the presets (use, forbidden) judge a scan; give --facts DIR to run them", err=True)
    depcruise_names = load_depcruise(kernel, facts, src, depcruise_config, allow_config_js)
    wants = run_rounds(kernel, allow, rounds, (*files, *rules))  # a refusal names the FILE:LINE it is written at
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

        stale = stale_sources(read_manifest(Path(facts)), src)
        if stale:
            found["stale"] = [f"{path}: {reason}" for path, reason in stale]
    objects: list[dict] = []
    where = None
    if found:
        from ..presets import presets_file

        presets = [str(presets_file())] if facts is not None else []
        where = LazyWhere(audited_sources((*files, *presets), load_as, facts, rules))
        objects = finding_objects(kernel, where, {}, facts)
        for text, rid in derived:  # where the usurping rule is written
            spot = where.rule(rid)
            objects.append(
                {"audit": "forged", "fact": text, "file": spot[0] if spot else None, "line": spot[1] if spot else None}
            )
        objects += [
            {"audit": "stale", "fact": None, "file": path, "line": None, "message": reason} for path, reason in stale
        ]
    if facts is not None:
        objects = fold_unverified(found, objects, Path(facts))
    if reextract and facts is not None and src is not None:  # both given: checked above
        from ..reextract import reextract as rescan

        differences = rescan(Path(facts), src)
        if differences:
            found["reextract"] = [d.text() for d in differences]
            objects += [
                {"audit": "reextract", "fact": None, "file": d.file, "line": d.line, "message": d.message}
                for d in differences
            ]
    findings = as_findings(kernel, objects, where)
    if depcruise_names:
        findings = depcruise_findings(findings, depcruise_names)
    fixed: tuple[dict, ...] = ()
    reported = known = findings
    if entries is not None:
        comparison = baselines.compare(findings, entries)
        reported, known, fixed = list(comparison.new), list(comparison.known), comparison.fixed
        found = {}  # the audit rows still to report, as `found` lists them
        for f in reported:
            found.setdefault(f.audit, []).append(f.row_text())
    if write_baseline is not None:
        if kernel.current is not None and kernel.current.partial:
            fail(
                "rofl audit: the budget ran out, so the findings are incomplete; no baseline written (raise --budget)",
                3,
            )
        written = baselines.write(write_baseline, known)
        click.echo(f"rofl audit: {written} finding{'s' if written != 1 else ''} written to {write_baseline}", err=True)
        if entries is None:  # everything just written is known: nothing to report
            sys.exit(0)
    known_count = len(findings) - len(reported) if entries is not None else None
    if output_format in FORMAT_NAMES:
        from dataclasses import replace

        from ..formats import Report, render, repository_paths

        report = Report(
            command="audit",
            findings=tuple(reported),
            known=tuple(known) if entries is not None else (),
            fixed=fixed,
            baseline=entries is not None,
            rules=tuple(
                replace(info, name=depcruise_names[info.name][0]) if info.name in depcruise_names else info
                for info in rules_that_ran(kernel, where, stale=src is not None, reextracted=reextract)
            ),
            paths=repository_paths(findings, facts, src),
            fail_on=fail_on,
            partial=bool(kernel.current is not None and kernel.current.partial) or bool(wants and wants.partial),
        )
        click.echo(render(output_format, report), nl=False)
    else:
        emit_report(output_format, found, reported, fixed, known_count, wants)
    failing = any(f.fails(fail_on) for f in reported)
    if warn_partial(kernel, "audit") | rounds_ran_out(wants):
        sys.exit(EXIT_PARTIAL)  # an audit cut short is not clean, whatever it found so far
    sys.exit(1 if failing else 0)


def load_depcruise(
    kernel, facts: str | None, src: str | None, config: str | None, allow_js: bool
) -> dict[str, tuple[str, str]]:
    """Translate a dependency-cruiser config (``--depcruise-config``, else one at the scan's source root)
    into rules over the scan and load them; dependency-cruiser's name and severity of each ``dc_N`` rule.
    What is not translated is one warning line per rule."""
    from .. import depcruise_config as dc
    from ..factdir import read_manifest
    from ..findings import code_rows

    if facts is None:
        if config is not None:
            fail("rofl audit: --depcruise-config needs --facts DIR (the scan its rules judge)")
        return {}
    manifest = read_manifest(Path(facts))
    root = src if src is not None else manifest.get("src")
    path = Path(config) if config is not None else (dc.find_config(root) if isinstance(root, str) else None)
    if path is None:
        return {}
    if config is not None and not path.is_file():
        fail(f"{path}: no such dependency-cruiser config; give the file depcruise --config reads")
    value = dc.read_config(path, allow_js=allow_js)
    files = sorted(f for f in manifest.get("files", {}) if isinstance(f, str))
    translation = dc.translate(value, files, str(path))
    for line in translation.untranslated:
        click.echo(f"warning: {line}", err=True)
    packages = {str(p[0]) if isinstance(p, tuple) else str(p) for _, _, p in code_rows(kernel, "src_external", 3)}
    sources: list = [
        (path, None, translation.text + dc.package_paths(packages, dc.node_builtins())),
    ]
    if isinstance(root, str):
        from ..packagefacts import package_facts

        listed = manifest.get("packages")
        made = package_facts(root, files, listed if isinstance(listed, dict) else {})
        if made.text:
            sources.append((Path(root) / "package.json", None, made.text))
    kernel.load_sources(sources, evaluate_now=False)
    return translation.names


def depcruise_findings(findings: list, names: dict[str, tuple[str, str]]) -> list:
    """Findings of translated rules under dependency-cruiser's rule name, so they read (and key a
    baseline) as dependency-cruiser's do."""
    from dataclasses import replace

    return [replace(f, rule=names[f.rule][0]) if f.rule in names else f for f in findings]


def fold_unverified(found: dict, objects: list[dict], facts: Path) -> list[dict]:
    """A scan whose signature does not match loads every fact file as unverified, so each of its facts is
    "forged": one ``unsigned`` finding says so, with one line counting them, instead of one finding per
    fact.  Forged facts of other files (a rule file, a --load-as file) stay listed.  Changes ``found``."""
    if "unsigned" not in found or not found.get("forged"):
        return objects
    root = str(facts.resolve())
    folded = {
        o["fact"]
        for o in objects
        if o["audit"] == "forged" and o.get("file") and str(Path(o["file"]).resolve()).startswith(root)
    }
    if not folded:
        return objects
    summary = f"{len(folded):,} facts of the scan are unverified because the signature does not match"
    found["forged"] = [t for t in found["forged"] if t not in folded]
    if not found["forged"]:
        del found["forged"]
    found["unverified"] = [summary]
    kept = [o for o in objects if not (o["audit"] == "forged" and o["fact"] in folded)]
    for o in kept:
        if o["audit"] == "unsigned":
            o["message"] = summary
    return kept


def rules_that_ran(kernel, where, stale: bool, reextracted: bool) -> tuple[RuleInfo, ...]:
    """Every named rule and audit this run judged, with findings or none, as ``RuleInfo``: the declared
    rules (a shipped preset only when it is turned on), boot's audits and the checks the options asked for."""
    import re

    from rofl.engine.namespace import display_name

    from ..findings import declared_rules
    from ..formats import AUDIT_DESCRIPTIONS, audit_rule
    from ..presets import presets_file, turned_on

    declared = declared_rules(kernel, where)
    shipped = set(re.findall(r"^rule\((\w+),", presets_file().read_text(encoding="utf-8"), re.M))
    off = shipped - turned_on(kernel)
    audits = {display_name(rel) for rel in kernel.names_in(AUDIT)} & set(AUDIT_DESCRIPTIONS)
    audits |= {name for name, on in (("stale", stale), ("reextract", reextracted)) if on}
    named = [info for name, info in sorted(declared.items()) if name not in off]
    return (*named, *(audit_rule(name) for name in sorted(audits)))


def emit_report(output_format: str, found: dict, reported: list, fixed: tuple, known: int | None, wants) -> None:
    """Print the reported findings as text or JSON (``known`` is None without a baseline)."""
    if output_format == "json":
        emit_json(
            {
                "audits": found,
                "clean": not reported,
                **({"findings": [f.as_json() for f in reported]} if reported else {}),
                **({"fixed": list(fixed), "known": known} if known is not None else {}),
                **({"wants": wants.as_json()} if wants is not None else {}),
            }
        )
    else:
        print_text(found, reported, fixed, known)


TEXT_ROWS = 200  # rows of one audit or rule the text output lists; --json lists them all


def _more(count: int) -> None:
    if count > TEXT_ROWS:
        click.echo(f"  ... and {count - TEXT_ROWS:,} more (--json lists them all)")


def print_text(found: dict, reported: list, fixed: tuple, known: int | None) -> None:
    """Named rules grouped by rule (severity, message, file:line and the import); the other audits by
    relation, each with its count and at most ``TEXT_ROWS`` rows (a rule file can derive millions)."""
    spots = {f.fact: f.file + (f":{f.line}" if f.line else "") for f in reported if f.fact and f.file and not f.rule}
    named_facts = {f.fact for f in reported if f.rule}
    for rel in sorted(found):
        texts = [t for t in found[rel] if t not in named_facts]
        if not texts:
            continue
        click.echo(f"{rel}: {len(texts)}")
        for text in texts[:TEXT_ROWS]:
            click.echo(f"  {text}" + (f"  ({spots[text]})" if text in spots else ""))
        _more(len(texts))
    by_rule: dict[str, list] = {}
    for f in reported:
        if f.rule:
            by_rule.setdefault(f.rule, []).append(f)
    for rule, items in by_rule.items():
        click.echo(f"{items[0].severity} {rule}: {items[0].message}: {len(items)}")
        for f in items[:TEXT_ROWS]:
            at = f"{f.file}:{f.line}" if f.line else f.file
            click.echo(f"  {at}: imports {f.target}" if f.source != f.target else f"  {at}")
        _more(len(items))
    if known:
        click.echo(f"{known} known finding{'s' if known != 1 else ''} in the baseline not shown")
    for e in fixed:
        click.echo(f"fixed (no longer found; the baseline can drop it): {e['key'].replace(chr(9), ' ')}")
    if not found and not reported:
        click.echo("all audits are empty")
