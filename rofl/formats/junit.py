"""`--format junit`: JUnit XML, one test suite per rule or audit that ran, one test case per finding.

A finding at or above ``--fail-on`` is a ``<failure>``; one below it a passing case with the finding in
``<system-out>``; a finding the baseline lists a ``<skipped>`` case; a rule with no finding one passing
case, so a CI test view shows every rule that held.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..questions.findings import Finding
from . import Report, message, where


def _text(value: str) -> str:
    from ..questions.graph_documents import xml_safe

    safe = xml_safe(value)
    return safe if isinstance(safe, str) else str(safe)


def render(report: Report) -> str:
    by_rule: dict[str, list[tuple[Finding, bool]]] = {r.name: [] for r in report.all_rules()}
    for f in report.findings:
        by_rule[f.title()].append((f, False))
    for f in report.known:
        by_rule[f.title()].append((f, True))
    rules = {r.name: r for r in report.all_rules()}
    root = ET.Element("testsuites", name=f"rofl {report.command}")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for name, items in by_rule.items():
        rule = rules[name]
        suite = ET.SubElement(root, "testsuite", name=_text(f"rofl.{name}"))
        counts = {"tests": max(len(items), 1), "failures": 0, "skipped": 0}
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="severity", value=rule.severity)
        ET.SubElement(props, "property", name="description", value=_text(rule.message))
        if not items:
            ET.SubElement(suite, "testcase", classname=_text(f"rofl.{name}"), name="no findings")
        for f, known in items:
            case = ET.SubElement(suite, "testcase", classname=_text(f"rofl.{name}"), name=_text(_case_name(report, f)))
            path = report.path(f)
            if path is not None:
                case.set("file", _text(path))
            if f.line is not None:
                case.set("line", str(f.line))
            text = message(f)
            if known:
                ET.SubElement(case, "skipped", message="known: listed in the baseline")
                counts["skipped"] += 1
            elif f.fails(report.fail_on):
                failure = ET.SubElement(case, "failure", message=_text(text), type=f.severity)
                failure.text = _text(f"{where(report, f) or name}: {text}")
                counts["failures"] += 1
            else:
                ET.SubElement(case, "system-out").text = _text(f"{f.severity}: {text}")
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("errors", "0")
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _case_name(report: Report, finding: Finding) -> str:
    """What and where: stable across runs (no line: a test's history follows the finding)."""
    what = finding.text() or finding.title()
    path = report.path(finding)
    return what if path is None or what.startswith(path) else f"{path}: {what}"
