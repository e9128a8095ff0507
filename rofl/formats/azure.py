"""`--format azure`: Azure Pipelines logging commands, one ``##vso[task.logissue ...]`` per finding.

Escaped as azure-pipelines-task-lib does: ``%`` as ``%AZP25``, CR and LF as ``%0D`` ``%0A`` in the
message and in properties, and ``;`` ``]`` as ``%3B`` ``%5D`` in properties.  Azure has errors and
warnings: ``warn`` and ``info`` findings are warnings.
"""

from __future__ import annotations

from ..escaping import assignments, escapers
from . import Report, message

TYPES = {"error": "error", "warn": "warning", "info": "warning"}


escape_data, escape_property = escapers({"%": "%AZP25", "\r": "%0D", "\n": "%0A"}, {";": "%3B", "]": "%5D"})


def command(area_event: str, data: str, **properties: str | int | None) -> str:
    """``##vso[area.event key=value;...]data``; properties that are None are left out."""
    props = "".join(p + ";" for p in assignments(properties, escape_property))
    return f"##vso[{area_event} {props}]{escape_data(data)}"


def render(report: Report) -> str:
    lines = [
        command(
            "task.logissue",
            message(f),
            type=TYPES[f.severity],
            sourcepath=report.path(f),
            linenumber=f.line,
            code=f.title(),
        )
        for f in report.findings
    ]
    return "".join(line + "\n" for line in lines)
