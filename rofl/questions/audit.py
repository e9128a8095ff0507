"""The audit question: every [audit] finding of the loaded facts, located, named, compared with a baseline.

``audit(options, source)`` is `rofl audit` without its rendering: the options checked, the baseline read,
the scan's residue reused when it answers the whole audit (``rofl.loading.audit_store``), else the full load with
the presets, a dependency-cruiser config, the adapter rounds and, with ``--reextract``, a rescan (whose
progress and cancel checks go to the call's events).  ``audit_of(kernel, judging)`` judges one loaded kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.base.errors import RoflError
from rofl.engine.kernel import Kernel

from .answer import Answer, doc, skip
from .findings import Finding, RuleInfo
from .forgery import AUDIT, AuditFact, audit_facts, usurped_facts
from .params import RoundsOptions, params_of, picked
from .status import FINDINGS, Exit

if TYPE_CHECKING:
    from rofl.scanner.manifest import Manifest

    from ..loading.source import Source

FORMATS = ("text", "json")  # besides the CI formats (rofl.formats.NAMES)


@dataclass(frozen=True, slots=True)
class AuditOptions(RoundsOptions):
    """`rofl audit`'s options (its click parameters' names); ``output_format`` resolved (text, json or a CI
    format).  ``--write-baseline`` is the command line's: it writes a file, the question never does."""

    src: str | None = None
    public_key: str | None = None
    reextract: bool = False
    fail_on: str = "error"
    output_format: str = "text"
    baseline_file: str | None = None
    depcruise_config: str | None = None
    allow_config_js: bool = False

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> AuditOptions:
        """The options of click's ``params``; a RoflError names a combination that cannot run."""
        reextract, src, facts = bool(params.get("reextract")), params.get("src"), params.get("facts")
        if reextract and (src is None or facts is None):
            raise RoflError(
                "rofl audit: --reextract needs --facts DIR and --src SRC (the scan and the sources it came from)"
            )
        if src is not None and facts is None:
            raise RoflError("rofl audit: --src needs --facts DIR (the scan to compare)")
        given = params.get("output_format")
        if params.get("as_json") and given not in (None, "json"):
            raise RoflError(f"rofl audit: --json and --format {given} disagree; give one of them")
        return picked(cls, params, output_format=given or ("json" if params.get("as_json") else "text"))


@dataclass(frozen=True, slots=True)
class Judging:
    """What ``audit_of`` judges besides the loaded kernel: the files it loaded (to locate findings), the scan
    and its sources, and the checks and baseline asked for."""

    files: tuple[str, ...] = ()
    load_as: tuple[tuple[str, str], ...] = ()
    rules: tuple[str, ...] = ()
    facts: str | None = None
    src: str | None = None
    reextract: bool = False
    baseline: tuple[Any, ...] | None = None  # the baseline's entries (rofl.questions.baseline.read), or None
    depcruise_names: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # dc_N -> (name, severity)
    wants: Mapping[str, Any] | None = None  # the adapter rounds' report (as JSON), when rounds ran
    rounds_partial: bool = False  # the rounds' budget ran out
    manifest: Manifest | None = None  # the scan's manifest when the load read it (read once per command)

    @classmethod
    def of(cls, options: AuditOptions, baseline: tuple[Any, ...] | None) -> Judging:
        """What ``options`` asks judged (the fields both name: the files, the scan and its sources, --reextract)."""
        return picked(cls, params_of(options), baseline=baseline)


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
    fail_on: str = skip("error")  # the least severity that fails (--fail-on)
    notes: tuple[str, ...] = skip(())
    run: Any = skip(None)  # the adapter rounds (rofl.questions.rounds.AdapterRun), for what they drew

    def failing(self, fail_on: str | None = None) -> bool:
        return any(f.fails(fail_on or self.fail_on) for f in self.findings)

    def status(self) -> int:
        if self.partial:  # an audit cut short is not clean, whatever it found so far
            return Exit.PARTIAL
        return FINDINGS if self.failing() else Exit.OK


def audit(options: AuditOptions, source: Source) -> AuditAnswer:
    """Audit what ``options`` loads through ``source``: the residue of the scan when it answers the whole
    audit, else every fact file with the presets, a dependency-cruiser config and the adapter rounds; with the
    lines the command line prints on stderr: the presets' and untranslated rules' warnings in ``source.warnings``,
    the rounds' summary and partial in the answer's notes."""
    from ..loading.depcruise import load_depcruise
    from ..loading.presets import load_presets, turned_on
    from . import baseline as baselines
    from .rounds import run_note
    from .status import partial_line

    o = options
    entries = baselines.read(o.baseline_file) if o.baseline_file is not None else None  # a bad baseline fails first
    judging = Judging.of(o, tuple(entries) if entries is not None else None)
    reused = audit_reused(o, judging, source) if o.facts is not None and not o.store and not o.allow else None
    if reused is not None:
        kernel, answer = reused
        notes: list[str] = []
        run = None
    else:
        kernel = o.load(source, use_cache=False, public_key=o.public_key)
        manifest = source.manifest(Path(o.facts)) if o.facts is not None else None  # read once: the load's copy
        # what loading the presets and a dependency-cruiser config says is a load warning, said even when the
        # question fails after it (an adapter round refused)
        if o.facts is not None:
            source.warnings.extend(load_presets(kernel, o.facts, o.src, (*o.files, *o.rules), manifest))
        elif turned_on(kernel):
            source.warnings.append("the presets (use, forbidden) judge a scan; give --facts DIR to run them")
        depcruise_names = load_depcruise(
            kernel,
            o.facts,
            o.src,
            o.depcruise_config,
            o.allow_config_js,
            source.warnings.append,
            manifest=manifest,
        )
        run = o.adapter_rounds(kernel, source)  # a refusal names its FILE:LINE
        notes = list(run_note(run))
        judging = replace(
            judging,
            depcruise_names=depcruise_names,
            wants=run.as_json() if run is not None else None,
            rounds_partial=bool(run and run.partial),
            manifest=manifest,
        )
        answer = audit_of(kernel, judging)
    line = partial_line(kernel, "audit")
    notes += [line] if line is not None else []
    if run is not None and run.partial:
        notes.append("-- partial: the round budget ran out; raise --rounds for a complete answer")
    return replace(answer, fail_on=o.fail_on, notes=tuple(notes), run=run)


KERNEL_FREE = frozenset({"stale", "reextract"})  # findings the audit makes outside the kernel


def audit_reused(options: AuditOptions, judging: Judging, source: Source) -> tuple[Kernel, AuditAnswer] | None:
    """The audit over the scan's residue (``rofl.loading.audit_store``) when it is the full audit: the folder
    verifies (and its signature, with ``public_key``), no adapter round is on, no live rule the audits depend
    on reads the facts' metadata, and the residue's own audits find nothing (a finding of boot's audits is
    located and judged over the full load).  The presets, a dependency-cruiser config and the rule files
    are loaded over the residue as over the full load, and the pure fact files' facts of the [code]
    relations their live audit rules read (``audit_store.needs``) are added: only those audits may find
    something.  None otherwise: the caller loads every fact file.  The load warnings go to
    ``source.warnings`` only when this answers (the full load says them again otherwise)."""
    from rofl.engine.reflect import has_wants

    from ..loading import audit_store
    from ..loading.depcruise import CODE_READ, load_depcruise
    from ..loading.depcruise_config import find_config
    from ..loading.kernel import CODE_BUDGET, who_name
    from ..loading.presets import load_presets, turned_on

    o = options
    if o.facts is None:
        return None
    facts = Path(o.facts)
    found = audit_store.residue(facts, lambda: source.manifest(facts))
    if found is None:
        return None
    if o.public_key is not None:  # a scan that fails it loads as unverified: the full load reports it
        from ..loading.factdir import read_manifest
        from ..loading.signing import verify_folder

        try:
            if not verify_folder(facts, read_manifest(facts), o.public_key).ok:
                return None
        except (RoflError, OSError):
            return None
    warnings: list[str] = []
    try:
        if any(who_name(w) == "scanner" for w, _ in o.load_as):
            return None  # refused by the full load, with its message
        kernel = audit_store.residue_kernel(found, o.rules, o.budget or CODE_BUDGET)
        sources = [(Path(f), None) for f in o.files] + [(Path(f), who_name(w)) for w, f in o.load_as]
        if sources:
            kernel.load_sources(sources, evaluate_now=False)
        if has_wants(kernel):
            return None  # adapter rounds: the full load runs them
        depcruise = o.depcruise_config is not None or find_config(o.src if o.src is not None else found.src)
        manifest = source.manifest(facts) if turned_on(kernel) or depcruise else None
        warnings += load_presets(kernel, facts, o.src, (*o.files, *o.rules), manifest)
        rows = audit_store.pure_rows(found) if depcruise else None  # read once for both loads below
        if rows is not None:  # the config's package facts name the packages the scan imports: those facts first
            audit_store.load_pure(kernel, found, CODE_READ, rows=rows, who=audit_store.audited_who(kernel))
        names = (
            load_depcruise(
                kernel, o.facts, o.src, o.depcruise_config, o.allow_config_js, warnings.append, manifest=manifest
            )
            if depcruise
            else {}
        )
        needed = audit_store.needs(kernel, found)
        if needed is None:
            return None  # a live audit reads every fact's metadata
        judging = replace(judging, depcruise_names=names, manifest=manifest)
        probe = None
        if needed.relations and rows is None and judging.src is None:  # the answer alone: no stale check to run
            from .audit_memo import Probe

            probe = Probe.of(kernel, found, needed.relations | audit_store.LOCATED, judging)
            kept = probe.answer() if probe is not None else None
            if kept is not None:
                source.warnings.extend(warnings)
                return kernel, kept
        if needed.relations:
            rows = rows if rows is not None else audit_store.pure_rows(found)
            audit_store.load_pure(
                kernel, found, needed.relations | audit_store.LOCATED, rows=rows, who=audit_store.audited_who(kernel)
            )
    except (RoflError, audit_store.Unsure):
        return None  # the full load says what is wrong, as it always did
    judged = audit_of(kernel, replace(judging, src=None, reextract=False))  # the kernel's findings alone first
    if judged.partial or any(
        f.audit not in KERNEL_FREE | needed.audits for f in (*judged.findings, *judged.known_findings)
    ):
        return None
    if probe is not None and rows is not None:
        probe.keep(judged, rows)
    source.warnings.extend(warnings)
    return kernel, audit_of(kernel, judging) if judging.src is not None else judged


def audit_of(kernel: Kernel, options: Judging) -> AuditAnswer:
    """Judge the loaded kernel: boot's audits, presets and rules, usurped facts, stale and re-extracted fact
    files; each finding located in the file that asserted it; with a baseline, only the new ones."""
    from . import baseline as baselines

    facts, src = options.facts, options.src
    judged = audit_facts(kernel)
    found = {name: [fact.text for fact in rows] for name, rows in judged.items()}
    derived = usurped_facts(kernel)
    if derived:
        found.setdefault("forged", []).extend(text for text, _ in derived)
    stale: list = []
    if src is not None and facts is not None:
        from ..loading.factdir import read_manifest
        from .staleness import stale_sources

        stale = stale_sources(options.manifest or read_manifest(Path(facts)), src)
        if stale:
            found["stale"] = [f"{path}: {reason}" for path, reason in stale]
    objects: list[dict] = []
    where = None
    if found:
        from ..loading.presets import presets_file

        presets = [str(presets_file())] if facts is not None else []
        where = LazyWhere(audited_sources((*options.files, *presets), options.load_as, facts, options.rules))
        objects = finding_objects(judged, where, facts)
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
        from .reextract import reextract as rescan

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


def finding_objects(judged: Mapping[str, list[AuditFact]], where: LazyWhere, facts: str | None = None) -> list[dict]:
    """Every [audit] fact (``rofl.questions.forgery.audit_facts``) as ``{"audit", "fact", "file", "line"}``:
    the file and line that asserted the forged or claimed fact, or wrote the usurping rule, where known
    (null otherwise).  A named ``violation[audit](Rule, From, To)`` is ``{"audit", "fact", "named": (rule,
    from, to)}``, located by ``rofl.questions.findings.located_violations``.  A missing fact file is named
    inside ``facts``."""
    from pathlib import Path

    from rofl.engine.reflect import fact_from_term

    from ..loading.signing import SIG_NAME
    from .findings import named_violation

    out: list[dict] = []
    for name, rows in judged.items():
        for fact in rows:
            args = fact.args
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
                out.append({"audit": name, "fact": fact.text, "named": named})
                continue
            out.append(
                {"audit": name, "fact": fact.text, "file": spot[0] if spot else None, "line": spot[1] if spot else None}
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
    from .findings import Finding, declared_rules, located_violations, sorted_findings

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

    from rofl.engine.namespace import display_name

    from ..loading.presets import shipped_presets, turned_on
    from .findings import AUDIT_DESCRIPTIONS, audit_rule, declared_rules

    declared = declared_rules(kernel, where)
    shipped = set(shipped_presets())
    off = shipped - turned_on(kernel)
    audits = {display_name(rel) for rel in kernel.names_in(AUDIT)} & set(AUDIT_DESCRIPTIONS)
    audits |= {name for name, on in (("stale", stale), ("reextract", reextracted)) if on}
    named = [info for name, info in sorted(declared.items()) if name not in off]
    return (*named, *(audit_rule(name) for name in sorted(audits)))
