"""The fact lines one file yields while it is extracted (``FileFacts``), what the query handlers of one text
share (``TextWalk``) and the result of a file (``Extraction``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rofl.scanner import schema
from rofl.scanner.schema import Relation, quote

_DECLARATION_FILE = re.compile(r"\.d\.(?:[^/.]+\.)?[mc]?ts\Z")
_FORCED_MODULE = re.compile(
    r"\.[mc]ts\Z"
)  # TypeScript takes .mts/.cts (and .d.mts/.d.cts) as modules whatever they hold


@dataclass(frozen=True, slots=True)
class Extraction:
    """What one file yielded: fact lines (no trailing newline) and its unique specifiers in order."""

    lines: tuple[str, ...]
    specifiers: tuple[str, ...]
    errors: int


class FileFacts:
    """Ordered, de-duplicated fact lines of one file."""

    __slots__ = ("qpath", "declaration", "forced_module", "seen", "lines", "specifiers", "sites", "errors")

    def __init__(self, qpath: str, path: str = "") -> None:
        self.qpath = qpath
        self.declaration = bool(_DECLARATION_FILE.search(path))  # a .d.ts file
        self.forced_module = bool(_FORCED_MODULE.search(path))  # .mts/.cts: a module even without import/export
        self.seen: set[str] = set()
        self.lines: list[str] = []
        self.specifiers: dict[str, None] = {}
        self.sites: set[tuple[str, int]] = set()  # (source, line) of every import found
        self.errors = 0

    def add(self, rel: Relation, *args: str | int) -> None:
        """A fact of ``rel`` about this file: ``args`` are the columns after ``Path``."""
        line = rel.quoted(self.qpath, *[quote(a) if type(a) is str else str(a) for a in args])
        if line not in self.seen:
            self.seen.add(line)
            self.lines.append(line)

    def add_raw(self, line: str) -> None:
        if line not in self.seen:
            self.seen.add(line)
            self.lines.append(line)

    def import_(self, source: str, kind: str, line: int) -> None:
        self.specifiers[source] = None
        self.sites.add((source, line))
        q = quote(source)
        self.add_raw(schema.SRC_IMPORT.quoted(self.qpath, q))
        self.add_raw(schema.SRC_IMPORT_KIND.quoted(self.qpath, q, kind))
        self.add_raw(schema.SRC_IMPORT_LINE.quoted(self.qpath, q, str(line)))


@dataclass(slots=True)
class TextWalk:
    """What the capture handlers of one text's query matches share: the file's facts, the calls and the
    scopes (start, end, caller name) found so far, and what a repair of the text recorded."""

    facts: FileFacts
    placeholders: frozenset[int] = frozenset()  # offsets of `typeof import("x")` the repair made identifiers
    type_star: frozenset[int] = frozenset()  # offsets of `export type *` the repair made `export *`
    calls: list[tuple[int, str]] = field(default_factory=list)
    scopes: list[tuple[int, int, str]] = field(default_factory=list)
