"""`--format github`: each finding as a GitHub Actions workflow command (rofl.annotations), fixed ones as notices."""

from __future__ import annotations

from dataclasses import replace

from ..annotations import annotation, fixed_notice
from . import Report


def render(report: Report) -> str:
    lines = [annotation(replace(f, file=report.path(f))) for f in report.findings]
    lines += [fixed_notice(e) for e in report.fixed]
    return "".join(line + "\n" for line in lines)
