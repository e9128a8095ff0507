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
* a generic call signature on its own line after another member of an interface or a type literal
  (``a: A`` newline ``<T>(x: T): T``; effect's ``export const f: {`` overloads ``} = dual(...)``,
  with ``const`` type parameters or a ``<`` alone on its line), which the grammar reads as
  ``A<T>``: a ``;`` goes into the indentation before the ``<``.  Applied only where the previous
  parse put an error or a missing node on that line, the line before or inside the type parameter
  list; only when the code before can end a member (a name, a literal or a closing bracket, not
  ``,``, ``(`` or ``=>``: a generic arrow function passed as an argument starts a line with ``<``
  too); and only to the ``typescript`` grammar (in TSX a line starting with ``<`` is usually JSX).
* an import type with type arguments (``import("svelte").ComponentConstructor<P>``; the grammar
  takes only ``typeof import("x").T<P>``): ``import("svelte")`` becomes one identifier
  ``_mport___...`` of the same length (``X.ComponentConstructor<P>`` parses), and its offset and
  specifier are recorded so that the file still has its type import of ``"svelte"``.  Not where a
  call follows the type arguments (``import("x").f<T>()`` is a dynamic import).
* ``in`` or ``instanceof`` as the name of a member on its own line after a member without a
  separator (``a: string`` newline ``in?: string``, ``in(): void``, ``in<T>(x: T): T``), which the
  grammar reads as the operator: a ``;`` goes into the indentation before the keyword.  Applied
  only where the previous parse put an error or a missing node on that line or the one before.

The rewrites below are applied only where the previous parse put an error (or a missing node):

* type arguments of a tagged template (``sql<{ id: string; name: string }>`SELECT ...```, which
  the grammar parses with a missing ``!`` after the ``>``): the type arguments are blanked (line
  breaks kept), so the template is a call of ``sql`` again; not when they hold an ``import``.
  Mentions (``src_decl_uses``) are read from the original text, so the names in them still count.
* escapes in a template literal type (a backslash-escaped backtick in ``type M = `use \\`x\\```; the grammar takes none):
  each backslash and the ASCII character after it become two spaces inside an error span, except
  on a line that names a module (``import``, ``require``, ``from``: a specifier keeps its text).
* a parenthesized tuple type whose one element is optional (``[(readonly [number?])?]``): the
  inner ``?`` is blanked.
* ``&name`` without ``;`` in JSX text or an attribute string (``href="...?a=1&utm_campaign=x"``),
  which the tsx grammar takes for a character reference that does not end: the ``&`` becomes a
  space (TSX only; strings of JSX make no facts).
* ``abstract`` or ``accessor`` as the name of a property (``abstract?: boolean``,
  ``accessor?: T`` in a class), which the grammar reads as the modifier: the first letter becomes
  ``_``.  Not when the line has an initializer (a field holding a function is a ``src_method``
  whose name must stay); a method named ``abstract`` or ``accessor`` stays an error.

The extractor repairs in rounds (``scanner.extract._REPAIR_ROUNDS``), each around the errors of
the last round's parse, and keeps the tree with the fewest errors: a rewrite can uncover errors
that the previous parse's recovery had hidden (more errors for one round, none after the next).
Error spans are merged and searched by bisection (``_Errors``), so a file with thousands of errors
costs no more than one pass per rewrite.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from rofl.scanner.jsstrings import unescape

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
_KEYWORD_MEMBER = re.compile(rb"\n[ \t]*([ \t])(?:in|instanceof)[ \t]*(?:\?|!?[ \t]*:|\(|<)")
_MODIFIER_NAME = re.compile(rb"(?:^|[{;])[ \t]*(a)(?:bstract|ccessor)[ \t]*[?!]?[ \t]*:([^\n]*)", re.MULTILINE)
_INITIALIZER = re.compile(rb"(?<![=!<>])=(?![=>])")
_BARE_AMPERSAND = re.compile(rb"&(?=[A-Za-z][A-Za-z0-9]*(?![A-Za-z0-9;]))")
_LONE_OPTIONAL = re.compile(
    rb"\([ \t]*(?:readonly\s+)?\[\s*(?:[A-Za-z_$][\w$]*|[0-9][\w.]*|\"[^\"\n]*\"|'[^'\n]*')\s*(\?)\s*\]\s*\)"
)
_NAMES_MODULE = re.compile(rb"\b(?:import|require|from)\b")
_MAX_TYPE_ARGUMENTS = 4096  # bytes scanned for the closing ``>`` of an import type's arguments
_SIGNATURE_LINE = re.compile(
    rb"\n[ \t]*([ \t])<(?:[ \t]*\r?$|[ \t]*(?:const\s+)?[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))", re.MULTILINE
)


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
    braces = 0  # an object type's members may end with ``;``
    end = min(len(data), at + _MAX_TYPE_ARGUMENTS)
    i = at
    while i < end:
        ch = data[i]
        if ch == 0x7B:  # {
            braces += 1
        elif ch == 0x7D:  # }
            braces -= 1
        elif ch == 0x3C:  # <
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
        elif ch == 0x3B and braces <= 0:  # ; ends the type
            return None
        i += 1
    return None


def _before_type_arguments(data: bytes, close: int) -> int | None:
    """The offset of the ``<`` opening the type arguments that ``data[close] == ">"`` closes, or None."""
    depth = 0
    braces = 0
    i = close
    stop = max(0, close - _MAX_TYPE_ARGUMENTS)
    while i >= stop:
        ch = data[i]
        if ch == 0x7D:  # }
            braces += 1
        elif ch == 0x7B:  # {
            braces -= 1
        elif ch == 0x3E and data[i - 1 : i] != b"=":  # > but not =>
            depth += 1
        elif ch == 0x3C:  # <
            depth -= 1
            if depth == 0:
                return i if _after_type_arguments(data, i) == close + 1 else None
        elif ch == 0x60 or (ch == 0x3B and braces <= 0):  # a template, or ; outside an object type
            return None
        i -= 1
    return None


def _tagged_template_arguments(data: bytes, buffer: bytearray, missing: tuple[int, ...]) -> bool:
    """Blank the type arguments of each tagged template ``tag<T>`...``` where the parse put a
    missing node between ``>`` and the template; True when one was blanked."""
    changed = False
    for at in missing:
        close = at - 1
        while close >= 0 and data[close] in b" \t":
            close -= 1
        after = data[at:].lstrip(b" \t")[:1]
        if close < 1 or data[close] != 0x3E or after != b"`":
            continue
        start = _before_type_arguments(data, close)
        if start is None or start == 0 or b"import" in data[start:close]:
            continue  # an import type inside would lose its import: leave the error
        before = data[start - 1 : start]
        if not (before.isalnum() or before in b"_$)]"):
            continue
        for i in range(start, close + 1):
            if buffer[i] not in b"\r\n":
                buffer[i] = 0x20
        changed = True
    return changed


def _template_type_escapes(data: bytes, buffer: bytearray, errors: _Errors) -> bool:
    """Blank each escape (a backslash and the ASCII character after it: ``\\```, ``\\n``) inside an
    error span, where a template literal type's escape may have made it, except on lines that
    name a module (``import``, ``require``, ``from``: a specifier keeps its text); True when one was."""
    changed = False
    for lo, hi in errors.spans():
        at = data.find(b"\\", lo, hi)
        while at >= 0:
            after = data[at + 1] if at + 1 < len(data) else 0
            if 0x20 <= after < 0x7F and data[at + 1 : at + 2] != b"\n":
                line_start = data.rfind(b"\n", 0, at) + 1
                line_end = data.find(b"\n", at)
                line = data[line_start : line_end if line_end >= 0 else len(data)]
                if not _NAMES_MODULE.search(line):
                    buffer[at] = buffer[at + 1] = 0x20
                    changed = True
                at = data.find(b"\\", at + 2, hi)
            else:
                at = data.find(b"\\", at + 1, hi)
    return changed


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


@dataclass(frozen=True, slots=True)
class _Errors:
    """The previous parse's error spans, merged and sorted, and its missing nodes' offsets, sorted:
    each question is a binary search, never a pass over every error (a file can have thousands)."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]
    missing: tuple[int, ...]

    @staticmethod
    def of(spans: list[tuple[int, int]], missing: tuple[int, ...]) -> _Errors:
        merged: list[list[int]] = []
        for lo, hi in sorted(spans):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        return _Errors(tuple(a for a, _ in merged), tuple(b for _, b in merged), tuple(sorted(missing)))

    def spans(self) -> Iterator[tuple[int, int]]:
        return zip(self.starts, self.ends, strict=True)

    def inside(self, at: int) -> bool:
        """True when ``at`` is inside an error span."""
        i = bisect_right(self.starts, at) - 1
        return i >= 0 and at < self.ends[i]

    def meets(self, start: int, end: int) -> bool:
        """True when an error span or a missing node meets ``start..end`` (both included)."""
        i = bisect_right(self.starts, end) - 1
        if i >= 0 and self.ends[i] >= start:
            return True
        j = bisect_left(self.missing, start)
        return j < len(self.missing) and self.missing[j] <= end

    def near(self, start: int, end: int, data: bytes) -> bool:
        """True when an error span or a missing node meets ``start..end`` or the line before ``start``."""
        line_before = data.rfind(b"\n", 0, max(0, start))
        return self.meets(line_before + 1 if line_before >= 0 else 0, end)


def _ends_member(data: bytes, at: int) -> bool:
    """True when the code before ``at`` (comments and blank lines skipped) can end a type member:
    a name, a literal or a closing bracket, not ``,``, ``(``, ``=>`` or an operator that continues
    an expression (a generic arrow function passed as an argument starts a line with ``<`` too)."""
    end = at
    while end > 0:
        line_start = data.rfind(b"\n", 0, end) + 1
        line = data[line_start:end]
        code = line.split(b"//", 1)[0] if b"//" in line and b"*/" not in line else line
        code = code.rstrip()
        if code.endswith(b"*/"):
            opening = data.rfind(b"/*", 0, line_start + len(code) - 2)
            if opening < 0:
                return False
            end = opening
            continue
        if not code.strip():
            if line_start == 0:
                return False
            end = line_start - 1
            continue
        last = code[-1:]
        return last.isalnum() or last in b"_$>)]}\"'`" and not code.endswith(b"=>")
    return False


def _around_errors(data: bytes, buffer: bytearray, errors: _Errors, typescript_only: bool) -> bool:
    """The rewrites applied only where the previous parse put an error; True when one was."""
    changed = False
    if b"in" in data:
        for match in _KEYWORD_MEMBER.finditer(data):
            if errors.near(match.start(), match.end(), data):
                buffer[match.start(1)] = ord(";")
                changed = True
    if errors.missing and b"`" in data and _tagged_template_arguments(data, buffer, errors.missing):
        changed = True
    if errors.starts and b"\\" in data and _template_type_escapes(data, buffer, errors):
        changed = True
    if errors.starts and b"?" in data:
        for match in _LONE_OPTIONAL.finditer(data):
            if errors.inside(match.start(1)):
                buffer[match.start(1)] = 0x20
                changed = True
    if not typescript_only and errors.starts and b"&" in data:
        for match in _BARE_AMPERSAND.finditer(data):
            if errors.inside(match.start()):
                buffer[match.start()] = 0x20
                changed = True
    if b"a" in data:
        for match in _MODIFIER_NAME.finditer(data):
            if _INITIALIZER.search(match.group(2)):
                continue  # a field with an initializer may be a method fact: its name must stay
            if errors.near(match.start(1), match.start(2), data):
                buffer[match.start(1)] = ord("_")
                changed = True
    if typescript_only:
        for match in _SIGNATURE_LINE.finditer(data):
            angle = match.end(1)
            close = _after_type_arguments(data, angle) or angle + 1  # errors may show only inside the list
            if errors.near(match.start(), close, data) and _ends_member(data, match.start()):
                buffer[match.start(1)] = ord(";")
                changed = True
    return changed


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
    if error_spans or missing:
        changed = _around_errors(data, buffer, _Errors.of(error_spans, missing), typescript_only) or changed
    if not changed:
        return None
    return Repair(bytes(buffer), frozenset(type_star), frozenset(type_imports), tuple(import_types))
