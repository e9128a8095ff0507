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
* an import type with type arguments (``import("svelte").ComponentConstructor<P>``; the grammar
  takes only ``typeof import("x").T<P>``): ``import("svelte")`` becomes one identifier
  ``_mport___...`` of the same length (``X.ComponentConstructor<P>`` parses), and its offset and
  specifier are recorded so that the file still has its type import of ``"svelte"``.  Not where a
  call follows the type arguments (``import("x").f<T>()`` is a dynamic import).
* ``in`` or ``instanceof`` as the name of a member on its own line after a member without a
  separator (``a: string`` newline ``in?: string``), which the grammar reads as the operator: a
  ``;`` goes into the indentation before the keyword.  Applied only where the previous parse put
  an error or a missing node on that line or the one before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scanner.jsstrings import unescape

IMPORT_PLACEHOLDER = b"_mport"

_EXPORT_TYPE_STAR = re.compile(rb"\bexport\s+(type)\s+\*")
_GAP = rb"(?:\s|//[^\n]*\n|/\*(?:[^*]|\*(?!/))*\*/)*"
_VARIANCE = re.compile(rb"[<,]" + _GAP + rb"((?:in\s+out|in|out)\s+)(?=[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))")
_ACCESSOR = re.compile(
    rb"(?:^|[{;}]|\b(?:static|public|private|protected|readonly|override|abstract|declare))[ \t]*(accessor)[ \t]+(?=[#A-Za-z_$\[\"'])",
    re.MULTILINE,
)
_TYPEOF_IMPORT = re.compile(rb"\btypeof\s+(import)(?=\s*\()")
_IMPORT_TYPE = re.compile(
    rb"\bimport[ \t]*\([ \t]*(?:\"((?:[^\"\\\n]|\\.)*)\"|'((?:[^'\\\n]|\\.)*)')[ \t]*\)"
    rb"(?=(?:[ \t]*\.[ \t]*[A-Za-z_$][\w$]*)+[ \t]*<)"
)
_ESCAPE = re.compile(r"\\(?:u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{1,3}|\r\n|.)", re.DOTALL)
_KEYWORD_MEMBER = re.compile(rb"\n[ \t]*([ \t])(?:in|instanceof)[ \t]*(?:\?|!?[ \t]*:)")
_MAX_TYPE_ARGUMENTS = 4096  # bytes scanned for the closing ``>`` of an import type's arguments
_SIGNATURE_LINE = re.compile(rb"\n[ \t]*([ \t])<(?:[ \t]*\r?$|[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Repair:
    """A repaired copy of a file and what the rewrites took out of it."""

    data: bytes
    type_star_exports: frozenset[int]  # start offsets of ``export type *`` statements
    type_imports: frozenset[int]  # offsets of ``_mport`` placeholders standing for ``import``
    import_types: tuple[tuple[int, str], ...] = ()  # (offset, specifier) of each ``import("x")`` made an identifier


def _blank(buffer: bytearray, start: int, end: int) -> None:
    buffer[start:end] = b" " * (end - start)


def _after_type_arguments(data: bytes, at: int) -> int | None:
    """The offset after the ``>`` closing the type arguments that open at ``data[at] == "<"``, or None."""
    depth = 0
    end = min(len(data), at + _MAX_TYPE_ARGUMENTS)
    i = at
    while i < end:
        ch = data[i]
        if ch == 0x3C:  # <
            depth += 1
        elif ch == 0x3E and data[i - 1] != 0x3D:  # > but not =>
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch in (0x22, 0x27, 0x60):  # a string literal type: its text is not brackets
            close = data.find(bytes([ch]), i + 1, end)
            if close < 0:
                return None
            i = close
        elif ch == 0x3B:  # ; ends the type
            return None
        i += 1
    return None


def _specifier(match: re.Match[bytes]) -> str:
    raw = (match.group(1) if match.group(1) is not None else match.group(2)).decode("utf-8", "replace")
    return _ESCAPE.sub(lambda m: unescape(m.group(0)), raw) if "\\" in raw else raw


def _import_types(data: bytes, buffer: bytearray) -> list[tuple[int, str]]:
    """Rewrite each ``import("x")`` that has a qualified name and type arguments after it (not a
    call, not already a ``typeof``) into one identifier; the (offset, specifier) of each."""
    found: list[tuple[int, str]] = []
    for match in _IMPORT_TYPE.finditer(data):
        start, end = match.span()
        if data[max(0, start - 16) : start].rstrip().endswith(b"typeof"):
            continue  # the grammar reads ``typeof import("x").T<P>``
        after = _after_type_arguments(data, data.index(b"<", end))
        if after is None or data[after:].lstrip()[:1] == b"(":
            continue
        buffer[start:end] = IMPORT_PLACEHOLDER + b"_" * (end - start - len(IMPORT_PLACEHOLDER))
        found.append((start, _specifier(match)))
    return found


def _near_error(
    start: int, end: int, data: bytes, error_spans: list[tuple[int, int]], missing: tuple[int, ...]
) -> bool:
    """True when an error span or a missing node meets ``start..end`` or the line before ``start``."""
    line_before = data.rfind(b"\n", 0, max(0, start))
    lo = line_before + 1 if line_before >= 0 else 0
    return any(a <= end and b >= lo for a, b in error_spans) or any(lo <= at <= end for at in missing)


def repair(
    data: bytes, error_spans: list[tuple[int, int]], typescript_only: bool, missing: tuple[int, ...] = ()
) -> Repair | None:
    """A repaired copy of ``data``, or None when no rewrite applies.

    ``error_spans`` are the byte ranges of the previous parse's error nodes and ``missing`` the
    offsets of its missing nodes; ``typescript_only`` allows the rewrites that would be wrong in TSX.
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
    import_types: list[tuple[int, str]] = []
    if b"import" in data:
        import_types = _import_types(data, buffer)
        changed = changed or bool(import_types)
    if (error_spans or missing) and b"in" in data:
        for match in _KEYWORD_MEMBER.finditer(data):
            if _near_error(match.start(), match.end(), data, error_spans, missing):
                buffer[match.start(1)] = ord(";")
                changed = True
    if typescript_only and error_spans:
        for match in _SIGNATURE_LINE.finditer(data):
            angle = match.end(1)
            if any(lo <= angle < hi or angle == lo for lo, hi in error_spans):
                buffer[match.start(1)] = ord(";")
                changed = True
    if not changed:
        return None
    return Repair(bytes(buffer), frozenset(type_star), frozenset(type_imports), tuple(import_types))
