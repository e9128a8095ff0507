"""Where an audit finding comes from: the file and line that asserted a fact or wrote a rule."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Where:
    """Fact keys ``(rel, row)`` and rule ids, each to the first ``(file, line)`` that wrote it."""

    facts: dict
    rules: dict

    def fact(self, rel: str, row: tuple) -> tuple[str, int] | None:
        return self.facts.get((rel, row))

    def rule(self, rid: str) -> tuple[str, int] | None:
        return self.rules.get(rid)


def index_sources(sources: list) -> Where:
    """Parse ``(path, text)`` pairs again and record where each fact and rule is written."""
    from rofl.engine.base.errors import RoflError
    from rofl.engine.namespace import qualify
    from rofl.engine.parse import parse_program
    from rofl.engine.reflect import rule_id

    facts: dict = {}
    rules: dict = {}
    for path, text in sources:
        try:
            clauses = parse_program(text, str(path))
        except RoflError:
            continue
        if clauses and all(c.line == 0 for c in clauses):  # the parser's fact-file path keeps no lines
            clauses = _numbered(text, str(path))
        for c in clauses:
            c = qualify(c)
            if not c.body and not c.want:
                facts.setdefault((c.head.rel, (c.head.persp, *c.head.args)), (str(path), c.line))
            else:
                rules.setdefault(rule_id(c), (str(path), c.line))
    return Where(facts, rules)


def _numbered(text: str, source: str) -> list:
    """The clauses of a fact file (one fact per line), each with its line number."""
    from dataclasses import replace

    from rofl.engine.base.errors import RoflError
    from rofl.engine.parse import parse_program

    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("--"):
            continue
        try:
            out += [replace(c, line=number) for c in parse_program(line, source)]
        except RoflError:
            continue
    return out


def read_sources(paths: list) -> list:
    """``(path, text)`` for each readable path (a file that cannot be read, or is no regular file, is skipped)."""
    from rofl.engine.base.safe_write import MAX_PROGRAM_BYTES, read_regular

    out = []
    for p in paths:
        try:
            out.append((Path(p), read_regular(p, MAX_PROGRAM_BYTES).decode("utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return out


def declared_at(files: tuple, declarations: tuple) -> str | None:
    """``FILE:LINE`` of the first of ``declarations`` (``(relation, row)``; ``("rule", (id,))``) written in ``files``."""
    from rofl.engine.base.errors import RoflError

    if not files or not declarations:
        return None
    try:
        where = index_sources(read_sources(list(files)))
    except RoflError:
        return None
    for rel, row in declarations:
        spot = where.rule(row[0]) if rel == "rule" else where.fact(rel, row)
        if spot is not None:
            return f"{spot[0]}:{spot[1]}"
    return None
