"""What `rofl audit` reports: one Finding per audit row, with its rule, severity, message, file and line.

A finding is either a named rule's ``violation[audit](Rule, From, To)`` (its severity and message come
from ``rule(Rule, Severity, Message)`` facts, overridable by ``severity(Rule, Level)``), or any other
audit row (boot's audits, a two-place ``violation[audit](A, B)``, stale or re-extracted fact files),
which is an error.  Its ``key`` identifies it across runs (no line numbers: lines move), which is what
baselines compare.
"""

from __future__ import annotations

from dataclasses import dataclass

from rofl.engine.base.errors import RoflError
from rofl.engine.terms import format_term

from .answer import doc, to_json

SEVERITIES = ("error", "warn", "info")  # most severe first
RANK = {name: i for i, name in enumerate(SEVERITIES)}


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """A named rule: ``rule(Name, Severity, Message)``."""

    name: str
    severity: str
    message: str


@dataclass(frozen=True, slots=True)
class Finding:
    audit: str = doc("The audit relation: violation, forged, stale, ...")
    fact: str | None = doc("The finding as a fact (null for stale and reextract).")
    file: str | None = doc("The file it is about, when known.", default=None)
    line: int | None = doc("Its line, when known.", default=None)
    message: str | None = doc("What is wrong, when the rule says.", omit_none=True, default=None)
    rule: str | None = doc("A named rule's name.", omit_none=True, default=None)
    severity: str = doc("error, warn or info.", default="error")
    source: str | None = doc("A named rule's importing file.", json="from", omit_none=True, default=None)
    target: str | None = doc("A named rule's imported file.", json="to", omit_none=True, default=None)

    @property
    def key(self) -> str:
        """Identity across runs: the rule and its two ends, else the fact, else the file and message."""
        if self.rule is not None:
            return f"{self.rule}\t{self.source}\t{self.target}"
        if self.fact is not None:
            return self.fact
        return f"{self.audit}\t{self.file}\t{self.message}"

    def row_text(self) -> str:
        """The finding as `rofl audit` lists its relation's rows: the fact, else ``file[:line]: message``."""
        if self.fact is not None:
            return self.fact
        where = f"{self.file}:{self.line}" if self.line is not None else str(self.file)
        return f"{where}: {self.message}"

    def fails(self, threshold: str) -> bool:
        """Does this finding fail a run that fails on ``threshold`` (error, warn or info) and above?"""
        return RANK[self.severity] <= RANK[threshold]

    def as_json(self) -> dict:
        out = to_json(self)
        assert isinstance(out, dict)
        return out

    def title(self) -> str:
        """One line naming the finding: ``no_circular`` or ``forged``."""
        return self.rule or self.audit

    def text(self) -> str:
        """The finding's one-line body: what, and where."""
        if self.rule is not None:
            what = str(self.source) if self.source == self.target else f"{self.source} -> {self.target}"
        else:
            what = self.fact or self.message or ""
            if self.fact and self.message:
                what = f"{self.fact}: {self.message}"
        return what


def declared_rules(kernel, where=None) -> dict[str, RuleInfo]:
    """Every ``rule(Name, Severity, Message)`` fact, with ``severity(Name, Level)`` applied.  A severity
    that is not error, warn or info is a user error naming the file and line."""
    base = kernel.store.base
    overrides = {  # severity(Name, Level): the level and the row, to say where it is written
        row[1][0]: (row[2][0] if _atom(row[2]) else str(row[2]), row)
        for row in base.get("severity", {})
        if len(row) == 3 and row[0] == "main" and _atom(row[1])
    }
    rules: dict[str, RuleInfo] = {}
    for row in base.get("rule", {}):
        if len(row) != 4 or row[0] != "main":
            continue
        name, level, message = row[1:]
        if not _atom(name):
            continue
        level_name, written = overrides.get(name[0], (level[0] if _atom(level) else str(level), row))
        if level_name not in RANK:
            spot = where.fact("severity" if written is not row else "rule", written) if where is not None else None
            at = f"{spot[0]}:{spot[1]}: " if spot else ""
            raise RoflError(
                f"{at}rule {name[0]}: severity {level_name!r} is not one of {', '.join(SEVERITIES)}; write one of them"
            )
        rules[name[0]] = RuleInfo(name[0], level_name, message if type(message) is str else str(message))
    return rules


def _atom(term) -> bool:
    return isinstance(term, tuple) and len(term) == 1 and type(term[0]) is str


def _plain(term) -> str:
    """A violation end as text: a string as is, an atom by its name, anything else by its ROFL text."""
    if type(term) is str:
        return term
    if _atom(term):
        return term[0]
    return format_term(term)


def named_violation(row_args: tuple) -> tuple[str, str, str] | None:
    """``(rule, from, to)`` of a ``violation[audit](Rule, From, To)`` row whose Rule is an atom."""
    if len(row_args) == 3 and _atom(row_args[0]):
        return row_args[0][0], _plain(row_args[1]), _plain(row_args[2])
    return None


def import_lines(kernel, pairs: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """The first line at which From imports To, for each ``(From, To)``: To a scanned file, a
    package or a workspace package folder (src_import_line, through src_resolves, src_external and
    src_workspace_import).  Pairs with no import (an orphan: From == To) are left out."""
    from rofl.loading.kernel import code_rows

    if not pairs:
        return {}
    sources = {a for a, _ in pairs}
    spec_targets: dict[tuple[str, str], set[str]] = {}
    for rel in ("src_resolves", "src_external", "src_workspace_import"):
        for f, s, t in code_rows(kernel, rel, 3, sources):
            if (f, _plain(t)) in pairs:
                spec_targets.setdefault((f, s), set()).add(_plain(t))
    out: dict[tuple[str, str], int] = {}
    for f, s, line in code_rows(kernel, "src_import_line", 3, sources):
        if type(line) is not int:
            continue
        for t in spec_targets.get((f, s), set()) | ({s} if (f, s) in pairs else set()):
            key = (f, t)
            if key not in out or line < out[key]:
                out[key] = line
    return out


def located_violations(kernel, rows: list[tuple[str, str, str, str]], rules: dict[str, RuleInfo]) -> list[Finding]:
    """Findings for named violations ``(fact text, rule, from, to)``, each at the import's line."""
    lines = import_lines(kernel, {(a, b) for _, _, a, b in rows if a != b})
    out = []
    for fact, rule, source, target in rows:
        info = rules.get(rule)
        out.append(
            Finding(
                audit="violation",
                fact=fact,
                file=source,
                line=lines.get((source, target)),
                message=info.message if info else f"no rule({rule}, Severity, Message) declares this rule",
                rule=rule,
                severity=info.severity if info else "error",
                source=source,
                target=target,
            )
        )
    return out


def sorted_findings(findings: list[Finding]) -> list[Finding]:
    """Most severe first, then by rule or audit, file, line and key: a stable order for every output."""
    return sorted(findings, key=lambda f: (RANK[f.severity], f.title(), f.file or "", f.line or 0, f.key))


# one line per audit boot.rofl (and `rofl audit`) reports, for a format's rule metadata
AUDIT_DESCRIPTIONS = {
    "malformed": "a rule is malformed (a premise or conclusion is missing)",
    "breach": "a rule concludes or stages into a reserved relation",
    "leak": "a rule reads one perspective and writes another that may not see it",
    "forged": "a fact is asserted by someone without authority over its perspective",
    "claimed": "an authority claim that no grant covers",
    "usurp": "a rule writes a perspective its loader has no authority over",
    "rule_in_facts": "a fact file holds a rule",
    "unmoded": "a rule uses a builtin without a mode",
    "missing_fact_file": "a fact file the manifest lists is missing",
    "unsigned": "the scan's signature is missing or does not match",
    "stale": "a fact file is stale against the source tree",
    "reextract": "a fact file differs from what the sources give now",
    "violation": "a violation[audit] rule holds",
    "cycle": "an import on an import cycle",
}


def audit_rule(name: str) -> RuleInfo:
    """One of the audits (boot's, stale, reextract) as a rule: always an error."""
    return RuleInfo(name, "error", AUDIT_DESCRIPTIONS.get(name, f"rofl audit: {name}"))
