"""Findings as GitHub Actions workflow commands (`rofl audit --format github`), escaped as the runner expects.

``::error file=F,line=N,title=T::message`` puts an annotation on line N of F in the pull request.
The runner (actions/toolkit ``command.ts``) unescapes ``%25 %0D %0A`` in the message and also
``%3A %2C`` in property values, so those characters are escaped here and nothing else is.
"""

from __future__ import annotations

from .escaping import assignments, escapers
from .questions.findings import Finding

LEVELS = {"error": "error", "warn": "warning", "info": "notice"}


escape_data, escape_property = escapers({"%": "%25", "\r": "%0D", "\n": "%0A"}, {":": "%3A", ",": "%2C"})


def command(level: str, message: str, **properties: str | int | None) -> str:
    """One workflow command line; properties that are None are left out."""
    props = ",".join(assignments(properties, escape_property))
    return f"::{level}{' ' + props if props else ''}::{escape_data(message)}"


def annotation(finding: Finding) -> str:
    """The workflow command for one finding, at its file and line when known."""
    if finding.rule is not None:
        title = f"{finding.rule} ({finding.severity})"
        message = f"{finding.message}: {finding.text()}"
    else:
        title = f"rofl audit: {finding.audit}"
        message = finding.text()
    return command(LEVELS[finding.severity], message, file=finding.file, line=finding.line, title=title)


def fixed_notice(entry: dict) -> str:
    """A notice for a baseline entry that no longer holds."""
    what = entry.get("rule") or entry.get("audit") or "finding"
    return command("notice", f"fixed since the baseline: {entry.get('key')}", title=f"rofl audit: {what} fixed")
