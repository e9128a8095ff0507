"""`--format sarif`: SARIF 2.1.0, one run, for GitHub code scanning and other SARIF readers.

Each rule that ran is a ``reportingDescriptor`` (its message as the short description, its severity as
the default level); each finding a result at its file (relative to the repository root, uriBaseId
``%SRCROOT%``) and line, with a partial fingerprint from its rule, path and baseline key (no line: moving
code does not re-open an alert).  With a baseline, the findings it lists are results too, with
``baselineState`` ``unchanged``; the others are ``new``.
"""

from __future__ import annotations

import json
import posixpath
from urllib.parse import quote

from .. import __version__
from ..loading.presets import preset_names
from ..questions.findings import Finding, RuleInfo
from . import AUDIT_DESCRIPTIONS, FINGERPRINT, Report, message, project_url

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
LEVELS = {"error": "error", "warn": "warning", "info": "note"}
SRCROOT = "%SRCROOT%"


def render(report: Report) -> str:
    rules = report.all_rules()
    index = {r.name: i for i, r in enumerate(rules)}
    driver: dict = {"name": "rofl", "version": __version__, "semanticVersion": __version__}
    if (home := project_url("Homepage")) is not None:
        driver["informationUri"] = home
    driver["rules"] = [_descriptor(r) for r in rules]
    state = "new" if report.baseline else None
    results = [_result(report, f, index, state) for f in report.findings]
    results += [_result(report, f, index, "unchanged") for f in report.known]
    run: dict = {
        "tool": {"driver": driver},
        "automationDetails": {"id": f"rofl-{report.command}/"},  # a code-scanning category per command
        "invocations": [{"executionSuccessful": not report.partial}],
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if report.fixed:
        run["properties"] = {"fixed": [e.get("key") for e in report.fixed]}
    doc = {"$schema": SCHEMA, "version": VERSION, "runs": [run]}
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"  # ASCII: a lone surrogate stays an escape


def _descriptor(rule: RuleInfo) -> dict:
    out: dict = {
        "id": rule.name,
        "name": rule.name,
        "shortDescription": {"text": rule.message or rule.name},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["rofl", "audit" if rule.name in AUDIT_DESCRIPTIONS else "rule"]},
    }
    docs = project_url("Documentation")
    anchor = (
        "presets"
        if rule.name in preset_names()
        else "how-forged-facts-surface"
        if rule.name in AUDIT_DESCRIPTIONS
        else None
    )
    if docs is not None and anchor is not None:
        out["helpUri"] = f"{docs}#{anchor}"
    return out


def artifact_location(path: str) -> dict:
    """A repository-relative path against ``%SRCROOT%``; an absolute one (outside the repository) as a file URI."""
    if posixpath.isabs(path):
        return {"uri": "file://" + _quote(path)}
    return {"uri": _quote(path), "uriBaseId": SRCROOT}


def _quote(path: str) -> str:
    """Percent-encoded UTF-8; an undecodable file-name byte (a surrogate escape) as that byte."""
    try:
        return quote(path, safe="/", errors="surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        return quote(path, safe="/", errors="surrogatepass")


def _result(report: Report, finding: Finding, index: dict[str, int], state: str | None) -> dict:
    rule = finding.title()
    out: dict = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": LEVELS[finding.severity],
        "message": {"text": message(finding)},
    }
    path = report.path(finding)
    if path is not None:
        physical: dict = {"artifactLocation": artifact_location(path)}
        if finding.line is not None and finding.line >= 1:
            physical["region"] = {"startLine": finding.line}
        out["locations"] = [{"physicalLocation": physical}]
    out["partialFingerprints"] = {FINGERPRINT: report.fingerprint(finding)}
    if state is not None:
        out["baselineState"] = state
    return out
