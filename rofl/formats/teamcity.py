"""`--format teamcity`: TeamCity service messages, an ``inspectionType`` per rule and an ``inspection`` per finding.

Values are quoted in ``'...'`` with TeamCity's escapes: ``|`` ``'`` ``[`` ``]`` as ``||`` ``|'`` ``|[``
``|]``, line feed, carriage return, next line, line and paragraph separators as ``|n`` ``|r`` ``|x``
``|l`` ``|p``.
"""

from __future__ import annotations

from ..escaping import assignments, escaper
from . import Report, message

SEVERITY = {"error": "ERROR", "warn": "WARNING", "info": "INFO"}
ESCAPES = {
    "|": "||",
    "'": "|'",
    "[": "|[",
    "]": "|]",
    "\n": "|n",
    "\r": "|r",
    "\x85": "|x",
    "\u2028": "|l",
    "\u2029": "|p",
}


escape = escaper(ESCAPES)


def service_message(kind: str, /, **attributes: str | int | None) -> str:
    """``##teamcity[kind key='value' ...]``; attributes that are None are left out."""
    attrs = " ".join(assignments(attributes, escape, quote="'"))
    return f"##teamcity[{kind} {attrs}]"


def render(report: Report) -> str:
    category = f"rofl {report.command}"
    lines = [
        service_message("inspectionType", id=r.name, name=r.name, description=r.message or r.name, category=category)
        for r in report.all_rules()
    ]
    for f in report.findings:
        lines.append(
            service_message(
                "inspection",
                typeId=f.title(),
                message=message(f),
                file=report.path(f) or "",
                line=f.line,
                SEVERITY=SEVERITY[f.severity],
            )
        )
    return "".join(line + "\n" for line in lines)
