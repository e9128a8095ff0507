"""The CI formats of findings (`rofl audit --format`, `rofl cycles --format`): one renderer per format, in ``FORMATS``.

A renderer turns a ``Report`` (the findings of one run, what a baseline knows and fixed, the rules that
ran and where each file lies in the repository) into the text a CI system reads; it never queries the
kernel.  To add a format, write a module with ``render(report) -> str`` and add it to ``FORMATS`` (the
end of this module): the commands' ``--format`` choices, help and errors follow.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..questions.findings import AUDIT_DESCRIPTIONS, RANK, Finding, RuleInfo

SOURCE_RELATIVE = ("violation", "stale", "reextract", "cycle")  # findings whose file is a path in the scanned folder
FINGERPRINT = "roflFindingKey/v1"  # the SARIF partialFingerprints entry (versioned: a new hash is a new name)


@dataclass(frozen=True, slots=True)
class Report:
    """What a format renders: the findings of one run and what they were judged against."""

    command: str  # "audit" or "cycles": names the run in the output
    findings: tuple[Finding, ...]  # reported: every finding, or the new ones with a baseline
    known: tuple[Finding, ...] = ()  # with a baseline: the findings it lists (not reported)
    fixed: tuple[dict, ...] = ()  # with a baseline: its entries that no longer hold
    baseline: bool = False
    rules: tuple[RuleInfo, ...] = ()  # every rule and audit that ran, with findings or none
    paths: Mapping[str, str] = field(default_factory=dict)  # a finding's file -> relative to the repository root
    fail_on: str = "error"  # the severity at or above which a finding fails the run
    partial: bool = False  # the budget ran out: the findings are incomplete

    def path(self, finding: Finding) -> str | None:
        """The finding's file relative to the repository root (posix), absolute when it lies outside."""
        if finding.file is None:
            return None
        return self.paths.get(finding.file, finding.file)

    def all_rules(self) -> tuple[RuleInfo, ...]:
        """``rules`` and every rule or audit a finding names that they lack: named rules most severe
        first, then audits, each by name."""
        seen = {r.name: r for r in self.rules}
        for f in (*self.findings, *self.known):
            if f.title() not in seen:
                seen[f.title()] = rule_of(f)
        return tuple(sorted(seen.values(), key=lambda r: (r.name in AUDIT_DESCRIPTIONS, RANK[r.severity], r.name)))

    def fingerprint(self, finding: Finding) -> str:
        """A hash of the finding's rule, repository path and baseline key: no line number, so moving code
        keeps it, and the same finding gets the same one in every run."""
        text = "\0".join((finding.title(), self.path(finding) or "", finding.key))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def rule_of(finding: Finding) -> RuleInfo:
    """The rule a finding names, as far as the finding knows it."""
    if finding.rule is not None:
        return RuleInfo(finding.rule, finding.severity, finding.message or finding.rule)
    return RuleInfo(finding.audit, finding.severity, AUDIT_DESCRIPTIONS.get(finding.audit, f"rofl {finding.audit}"))


def message(finding: Finding) -> str:
    """The finding in one message: a named rule's message and what it found, else what the audit found."""
    if finding.rule is not None:
        return f"{finding.message}: {finding.text()}" if finding.message else finding.text()
    return finding.text() or finding.title()


def where(report: Report, finding: Finding) -> str:
    """``path:line``, ``path``, or empty."""
    path = report.path(finding)
    if path is None:
        return ""
    return f"{path}:{finding.line}" if finding.line is not None else path


def project_url(label: str) -> str | None:
    """A ``Project-URL`` of the installed rofl (``Homepage``, ``Documentation``), when its metadata has one."""
    from importlib import metadata

    try:
        urls = metadata.metadata("rofl").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        name, _, url = entry.partition(",")
        if name.strip().lower() == label.lower() and url.strip():
            return url.strip()
    return None


def repository_paths(
    findings: list[Finding] | tuple[Finding, ...], facts: str | None, src: str | None
) -> dict[str, str]:
    """Each finding's file relative to the root of the git work tree the scanned folder lies in (that
    folder itself outside git), as posix paths; absolute for a file outside it.  A scanned file's path is
    relative to the scanned folder (--src, else the one the manifest names), a re-extracted fact file's
    to the fact folder, any other file's (a rule or fact file) to the current folder."""
    import os
    from pathlib import Path

    from rofl.scanner.files import git_top

    scanned = src
    if scanned is None and facts is not None:
        from ..loading.factdir import read_manifest

        named = read_manifest(Path(facts)).src
        scanned = named if os.path.isdir(named) else None
    base = os.path.realpath(scanned if scanned is not None else ".")
    top = git_top(base) or base
    out: dict[str, str] = {}
    for f in findings:
        if f.file is None or f.file in out:
            continue
        if f.audit in SOURCE_RELATIVE and (f.audit != "reextract" or os.path.lexists(os.path.join(base, f.file))):
            path = os.path.normpath(os.path.join(base, f.file))  # a link in the tree keeps its name
        elif f.audit == "reextract" and facts is not None:
            path = os.path.normpath(os.path.join(os.path.realpath(facts), f.file))
        else:
            path = os.path.realpath(f.file)
        rel = os.path.relpath(path, top)
        out[f.file] = Path(path).as_posix() if rel == ".." or rel.startswith(".." + os.sep) else Path(rel).as_posix()
    return out


@dataclass(frozen=True, slots=True)
class Format:
    help: str
    render: Callable[[Report], str]


def _formats() -> dict[str, Format]:
    from . import azure, github, junit, markdown, sarif, teamcity

    return {
        "github": Format("workflow annotations, ::error file=F,line=N::...", github.render),
        "sarif": Format("SARIF 2.1.0 for GitHub code scanning", sarif.render),
        "junit": Format("JUnit XML, a test suite per rule", junit.render),
        "markdown": Format("a pull-request comment", markdown.render),
        "teamcity": Format("TeamCity inspections, ##teamcity[...]", teamcity.render),
        "azure": Format("Azure Pipelines issues, ##vso[task.logissue ...]", azure.render),
    }


# the CI formats, in the order `--help` lists them: name -> renderer
FORMATS: dict[str, Format] = _formats()
NAMES = tuple(FORMATS)


def help_text() -> str:
    """The formats for a command's ``--help``: ``name: what`` each."""
    return "; ".join(f"{name}: {fmt.help}" for name, fmt in FORMATS.items())


def render(name: str, report: Report) -> str:
    """``report`` in format ``name`` (one of ``NAMES``)."""
    fmt = FORMATS.get(name)
    if fmt is None:
        from rofl.engine.base.errors import RoflError

        raise RoflError(f"unknown format '{name}'; use one of {', '.join(NAMES)}")
    return fmt.render(report)
