"""Same-length rewrites of valid TypeScript that the installed grammar cannot parse, for a second parse.

tree-sitter-typescript 0.23.2 (the newest build on PyPI) rejects a few constructs that TypeScript
accepts.  When a file has syntax errors, the extractor asks for a repaired copy, parses it again
and keeps whichever tree has fewer errors.  Every rewrite keeps the byte length and the line
breaks, so offsets and lines of the facts stay those of the original file, and says what it
removed so that the facts can still tell it:

* ``export type * from "x"`` / ``export type * as N from "x"`` (TS 5.0): ``type`` is blanked;
  the statement's start offset is recorded so that its import is still kind ``type``.
* variance annotations on type parameters (``<in T, out U>``, ``in out T``, TS 4.7): blanked.
* ``typeof import("x")`` where the grammar reads ``f<typeof import("x")>()`` as comparisons
  (vitest's ``importOriginal<typeof import("x")>()``): ``import`` becomes the identifier
  ``_mport``, whose offset is recorded so that the call is still a type import of ``"x"``.
* auto-accessor fields (``accessor x = 1``, ``static accessor y: T``, TS 4.9): ``accessor`` is
  blanked when a field name follows it on the same line.
* a generic call signature on its own line after another interface member (``a: A`` newline
  ``<T>(x: T): T``), which the grammar reads as ``A<T>``: a ``;`` goes into the indentation
  before the ``<``.  Applied only where the previous parse put an error, and only to the
  ``typescript`` grammar (in TSX a line starting with ``<`` is usually JSX).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

IMPORT_PLACEHOLDER = b"_mport"

_EXPORT_TYPE_STAR = re.compile(rb"\bexport\s+(type)\s+\*")
_GAP = rb"(?:\s|//[^\n]*\n|/\*(?:[^*]|\*(?!/))*\*/)*"
_VARIANCE = re.compile(rb"[<,]" + _GAP + rb"((?:in\s+out|in|out)\s+)(?=[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))")
_ACCESSOR = re.compile(
    rb"(?:^|[{;}]|\b(?:static|public|private|protected|readonly|override|abstract|declare))[ \t]*(accessor)[ \t]+(?=[#A-Za-z_$\[\"'])",
    re.MULTILINE,
)
_TYPEOF_IMPORT = re.compile(rb"\btypeof\s+(import)(?=\s*\()")
_SIGNATURE_LINE = re.compile(rb"\n[ \t]*([ \t])<(?:[ \t]*\r?$|[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Repair:
    """A repaired copy of a file and what the rewrites took out of it."""

    data: bytes
    type_star_exports: frozenset[int]  # start offsets of ``export type *`` statements
    type_imports: frozenset[int]  # offsets of ``_mport`` placeholders standing for ``import``


def _blank(buffer: bytearray, start: int, end: int) -> None:
    buffer[start:end] = b" " * (end - start)


def repair(data: bytes, error_spans: list[tuple[int, int]], typescript_only: bool) -> Repair | None:
    """A repaired copy of ``data``, or None when no rewrite applies.

    ``error_spans`` are the byte ranges of the previous parse's error nodes; ``typescript_only``
    allows the rewrites that would be wrong in TSX.
    """
    buffer = bytearray(data)
    changed = False
    type_star: set[int] = set()
    type_imports: set[int] = set()
    if b"type" in data:
        for match in _EXPORT_TYPE_STAR.finditer(data):
            _blank(buffer, *match.span(1))
            type_star.add(match.start())
            changed = True
    if b"in " in data or b"out " in data or b"in\n" in data or b"out\n" in data:
        for match in _VARIANCE.finditer(data):
            _blank(buffer, *match.span(1))
            changed = True
    if b"accessor" in data:
        for match in _ACCESSOR.finditer(data):
            _blank(buffer, *match.span(1))
            changed = True
    if b"typeof" in data:
        for match in _TYPEOF_IMPORT.finditer(data):
            start, end = match.span(1)
            buffer[start:end] = IMPORT_PLACEHOLDER
            type_imports.add(start)
            changed = True
    if typescript_only and error_spans:
        for match in _SIGNATURE_LINE.finditer(data):
            angle = match.end(1)
            if any(lo <= angle < hi or angle == lo for lo, hi in error_spans):
                buffer[match.start(1)] = ord(";")
                changed = True
    if not changed:
        return None
    return Repair(bytes(buffer), frozenset(type_star), frozenset(type_imports))
