"""`--format markdown`: the findings as a pull-request comment (GitHub-flavoured Markdown).

A summary line, then (with a baseline) the new findings first; a table per severity, its rows past
``SHOWN`` folded into ``<details>``; the findings the baseline knows folded too, and the fixed ones
listed; last, what the findings touch (per rule: findings and files).  Every text from the repository
is escaped: in a table cell it is a code span (``|`` as ``\\|``, line breaks as spaces), in prose every
Markdown punctuation mark is backslash-escaped.
"""

from __future__ import annotations

import re

from ..questions.findings import SEVERITIES, Finding
from . import Report, where

SHOWN = 10  # rows of one table shown before the rest fold into <details>
NAMES = {"error": "errors", "warn": "warnings", "info": "notes"}
PUNCTUATION = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&$:@])")
BREAK = re.compile(r"\r\n|\r|\n")


def prose(text: str) -> str:
    """Literal text in a Markdown paragraph or table cell: punctuation escaped, line breaks as ``<br>``."""
    return "<br>".join(PUNCTUATION.sub(r"\\\1", line) for line in BREAK.split(text))


def code(text: str) -> str:
    """Literal text as a code span that is safe in a table cell: a fence longer than any run of
    backticks in it, ``|`` escaped (GFM drops the backslash inside tables), line breaks as spaces."""
    text = BREAK.sub(" ", text).replace("|", "\\|")
    if not text:
        return ""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    spaced = text.startswith(" ") and text.endswith(" ") and text.strip() != ""  # one space each side is stripped
    pad = " " if text.startswith("`") or text.endswith("`") or spaced else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render(report: Report) -> str:
    out = [f"### rofl {report.command}: {_summary(report)}", ""]
    if report.partial:
        out += ["> **Incomplete**: the budget ran out before the evaluation finished; raise `--budget`.", ""]
    if report.findings:
        if report.baseline:
            out += ["#### New findings", ""]
        for severity in SEVERITIES:
            rows = [f for f in report.findings if f.severity == severity]
            if rows:
                out += [f"**{_count(len(rows), severity)}**", ""]
                out += _table(report, rows)
    if report.known:
        out += [f"<details><summary>{len(report.known)} known (in the baseline)</summary>", ""]
        out += _table(report, list(report.known), fold=False)
        out += ["</details>", ""]
    if report.fixed:
        out += [f"#### Fixed since the baseline ({len(report.fixed)})", ""]
        out += [f"- {prose(str(e.get('key', '')).replace(chr(9), ' '))}" for e in report.fixed[:SHOWN]]
        if len(report.fixed) > SHOWN:
            out += ["", f"<details><summary>{len(report.fixed) - SHOWN} more</summary>", ""]
            out += [f"- {prose(str(e.get('key', '')).replace(chr(9), ' '))}" for e in report.fixed[SHOWN:]]
            out += ["", "</details>"]
        out.append("")
    if report.findings:
        out += _impact(report)
    return "\n".join(out).rstrip("\n") + "\n"


def _count(n: int, severity: str) -> str:
    word = NAMES[severity]
    return f"{n} {word if n != 1 else word[:-1]}"


def _summary(report: Report) -> str:
    if not report.findings:
        head = "no new findings" if report.baseline else "no findings"
    else:
        counts = [_count(sum(f.severity == s for f in report.findings), s) for s in SEVERITIES]
        n = len(report.findings)
        head = f"{n} {'new ' if report.baseline else ''}finding{'s' if n != 1 else ''} ("
        head += ", ".join(c for c in counts if not c.startswith("0 ")) + ")"
        failing = sum(f.fails(report.fail_on) for f in report.findings)
        head += f", {failing} at or above {report.fail_on}"
    if report.baseline:
        head += f"; {len(report.known)} known in the baseline, {len(report.fixed)} fixed"
    return head


def _table(report: Report, rows: list[Finding], fold: bool = True) -> list[str]:
    head = ["| Rule | Where | Finding |", "|---|---|---|"]
    lines = [_row(report, f) for f in rows]
    if not fold or len(lines) <= SHOWN:
        return [*head, *lines, ""]
    rest = len(lines) - SHOWN
    return [
        *head,
        *lines[:SHOWN],
        "",
        f"<details><summary>{rest} more</summary>",
        "",
        *head,
        *lines[SHOWN:],
        "",
        "</details>",
        "",
    ]


def _row(report: Report, f: Finding) -> str:
    what = prose(f.message) + ": " + code(f.text()) if f.rule is not None and f.message else code(f.text() or f.title())
    return f"| {code(f.title())} | {code(where(report, f))} | {what.strip()} |"


def _impact(report: Report) -> list[str]:
    """Per rule: how many findings and files, most first; the files with the most findings."""
    rules: dict[str, list[Finding]] = {}
    files: dict[str, int] = {}
    for f in report.findings:
        rules.setdefault(f.title(), []).append(f)
        path = report.path(f)
        if path is not None:
            files[path] = files.get(path, 0) + 1
    out = ["#### Impact", "", "| Rule | Severity | Findings | Files |", "|---|---|---|---|"]
    for name, items in sorted(rules.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        touched = len({report.path(f) for f in items if f.file is not None})
        out.append(f"| {code(name)} | {items[0].severity} | {len(items)} | {touched} |")
    out.append("")
    top = sorted(files.items(), key=lambda kv: (-kv[1], kv[0]))[:SHOWN]
    if len(files) > 1:
        out += [f"{len(files)} files; most findings: " + ", ".join(f"{prose(p)} ({n})" for p, n in top), ""]
    return out
