"""The audit question: every [audit] finding of the loaded facts, located, named, compared with a baseline."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rofl.engine.kernel import Kernel

from ..findings import Finding, RuleInfo
from .answer import Answer, doc, skip
from .forgery import AUDIT, audit_rows, usurped_facts


@dataclass(frozen=True, slots=True)
class AuditOptions:
    """What an audit judges besides the loaded kernel: the files it loaded (to locate findings), the scan and
    its sources, and the checks and baseline the command line asked for."""

    files: tuple[str, ...] = ()
    load_as: tuple[tuple[str, str], ...] = ()
    rules: tuple[str, ...] = ()
    facts: str | None = None
    src: str | None = None
    reextract: bool = False
    baseline: tuple[Any, ...] | None = None  # the baseline's entries (rofl.baseline.read), or None
    depcruise_names: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # dc_N -> (name, severity)
    wants: Mapping[str, Any] | None = None  # the adapter rounds' report (as JSON), when rounds ran
    rounds_partial: bool = False  # the rounds' budget ran out


@dataclass(frozen=True, slots=True)
class AuditAnswer(Answer):
    """The findings: each audit relation's rows, and each finding with its rule, severity, file and line."""

    QUESTION = "audit"
    audits: Mapping[str, tuple[str, ...]] = doc("Each audit relation with findings still reported: its facts.")
    clean: bool = doc("True when no finding is reported.")
    findings: tuple[Finding, ...] = doc("Each reported finding (new ones only, with a baseline).")
    fixed: tuple[dict[str, Any], ...] | None = doc(
        "With a baseline: its entries no longer found.", omit_none=True, default=None
    )
    known: int | None = doc("With a baseline: findings it lists, not reported.", omit_none=True, default=None)
    partial: bool = doc("Whether a budget ran out (the audit is not complete).", default=False)
    wants: Mapping[str, Any] | None = doc(
        "With adapters: how each want of the rounds ended.", omit_none=True, default=None
    )
    known_findings: tuple[Finding, ...] = skip(())  # with a baseline: the findings it lists
    rules_run: tuple[RuleInfo, ...] = skip(())  # every named rule and audit this run judged

    def failing(self, fail_on: str) -> bool:
        return any(f.fails(fail_on) for f in self.findings)


def audit(kernel: Kernel, options: AuditOptions) -> AuditAnswer:
    """Judge the loaded kernel: boot's audits, presets and rules, usurped facts, stale and re-extracted fact
    files; each finding located in the file that asserted it; with a baseline, only the new ones."""
    from .. import baseline as baselines

    facts, src = options.facts, options.src
    found = audit_rows(kernel)
    derived = usurped_facts(kernel)
    if derived:
        found.setdefault("forged", []).extend(text for text, _ in derived)
    stale: list = []
    if src is not None and facts is not None:
        from ..loading.factdir import read_manifest
        from ..staleness import stale_sources

        stale = stale_sources(read_manifest(Path(facts)), src)
        if stale:
            found["stale"] = [f"{path}: {reason}" for path, reason in stale]
    objects: list[dict] = []
    where = None
    if found:
        from ..loading.presets import presets_file

        presets = [str(presets_file())] if facts is not None else []
        where = LazyWhere(audited_sources((*options.files, *presets), options.load_as, facts, options.rules))
        objects = finding_objects(kernel, where, facts)
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
    if options.reextract and facts is not None and src is not None:
        from ..reextract import reextract as rescan

        differences = rescan(Path(facts), src)
        if differences:
            found["reextract"] = [d.text() for d in differences]
            objects += [
                {"audit": "reextract", "fact": None, "file": d.file, "line": d.line, "message": d.message}
                for d in differences
            ]
    findings = as_findings(kernel, objects, where)
    if options.depcruise_names:
        findings = depcruise_findings(findings, options.depcruise_names)
    fixed: tuple[dict, ...] | None = None
    reported = known = findings
    if options.baseline is not None:
        comparison = baselines.compare(findings, list(options.baseline))
        reported, known, fixed = list(comparison.new), list(comparison.known), tuple(comparison.fixed)
        found = {}  # the audit rows still to report
        for f in reported:
            found.setdefault(f.audit, []).append(f.row_text())
    from dataclasses import replace

    ran = tuple(
        replace(info, name=options.depcruise_names[info.name][0]) if info.name in options.depcruise_names else info
        for info in rules_that_ran(kernel, where, stale=src is not None, reextracted=options.reextract)
    )
    return AuditAnswer(
        audits={rel: tuple(texts) for rel, texts in found.items()},
        clean=not reported,
        findings=tuple(reported),
        fixed=fixed,
        known=len(findings) - len(reported) if options.baseline is not None else None,
        partial=bool(kernel.current is not None and kernel.current.partial) or options.rounds_partial,
        wants=options.wants,
        known_findings=tuple(known),
        rules_run=ran,
    )


def finding_objects(kernel: Kernel, where: LazyWhere, facts: str | None = None) -> list[dict]:
    """Every [audit] row as ``{"audit", "fact", "file", "line"}``: the file and line that asserted the
    forged or claimed fact, or wrote the usurping rule, where known (null otherwise).  A named
    ``violation[audit](Rule, From, To)`` is ``{"audit", "fact", "named": (rule, from, to)}``, located
    by ``rofl.findings.located_violations``.  A missing fact file is named inside ``facts``."""
    from pathlib import Path

    from rofl.engine.namespace import display_name
    from rofl.engine.reflect import fact_from_term
    from rofl.engine.terms import canonical_rows, format_fact

    from ..findings import named_violation
    from ..loading.signing import SIG_NAME

    out: list[dict] = []
    result = kernel.current
    if result is None:
        return out
    for rel in result.relations():
        for row in canonical_rows(r for r in result.rows(rel) if r[0] == AUDIT):
            name, args = display_name(rel), row[1:]
            spot: tuple[str, int | None] | None = None
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
    return out


def audited_sources(files: tuple, load_as: tuple, facts: str | None, rules: tuple) -> list[Callable[[], list]]:
    """The files whose assertions the audits judge, as tiers of ``(path, text)`` read on demand: the
    programs and rule files, then a scan's fact files that did not load as the scanner's (where forged
    facts are written), then the scanner's own.  A finding is looked up tier by tier, so one in a rule
    file never parses a scan's hundreds of fact files again."""
    from functools import cache
    from pathlib import Path

    from ..loading.factdir import SCANNER
    from ..loading.locate import read_sources

    tiers: list[Callable[[], list]] = [lambda: read_sources([*files, *[f for _, f in load_as], *rules])]
    if facts is not None:
        from ..loading.factdir import open_folder

        @cache
        def sources() -> tuple:
            return open_folder(Path(facts)).sources

        tiers.append(lambda: [(p, t) for p, who, t in sources() if who not in (SCANNER, None)])
        tiers.append(lambda: [(p, t) for p, who, t in sources() if who in (SCANNER, None)])
    return tiers


class LazyWhere:
    """``rofl.loading.locate.Where`` over tiers of sources, each parsed again only when a lookup reaches it
    (the first tier that knows the fact or rule answers)."""

    def __init__(self, tiers: list[Callable[[], list]]) -> None:
        self._tiers = tiers
        self._built: list = []

    def _lookup(self, find: Callable) -> tuple[str, int] | None:
        from ..loading.locate import index_sources

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


def as_findings(kernel: Kernel, objects: list[dict], where: LazyWhere | None) -> list[Finding]:
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


def depcruise_findings(findings: list[Finding], names: Mapping[str, tuple[str, str]]) -> list[Finding]:
    """Findings of translated rules under dependency-cruiser's rule name, so they read (and key a
    baseline) as dependency-cruiser's do."""
    from dataclasses import replace

    return [replace(f, rule=names[f.rule][0]) if f.rule is not None and f.rule in names else f for f in findings]


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


def rules_that_ran(kernel: Kernel, where: LazyWhere | None, stale: bool, reextracted: bool) -> tuple[RuleInfo, ...]:
    """Every named rule and audit this run judged, with findings or none, as ``RuleInfo``: the declared
    rules (a shipped preset only when it is turned on), boot's audits and the checks the options asked for."""
    import re

    from rofl.engine.namespace import display_name

    from ..findings import declared_rules
    from ..formats import AUDIT_DESCRIPTIONS, audit_rule
    from ..loading.presets import presets_file, turned_on

    declared = declared_rules(kernel, where)
    shipped = set(re.findall(r"^rule\((\w+),", presets_file().read_text(encoding="utf-8"), re.M))
    off = shipped - turned_on(kernel)
    audits = {display_name(rel) for rel in kernel.names_in(AUDIT)} & set(AUDIT_DESCRIPTIONS)
    audits |= {name for name, on in (("stale", stale), ("reextract", reextracted)) if on}
    named = [info for name, info in sorted(declared.items()) if name not in off]
    return (*named, *(audit_rule(name) for name in sorted(audits)))
