"""Tree-sitter extraction: one source file's bytes in, its [code] fact lines and import specifiers out.

tree-sitter is imported when the first ``Extractor`` is made, never when this module is imported,
so scans that parse nothing do not pay for it.  Queries run in C; Python only walks the matches.

What is extracted (all facts in ``[code]``):

* ``src_func``: function declarations, and function/arrow expressions bound to a variable name.
* ``src_class``: class declarations, named class expressions, anonymous classes bound to a name
  (``default`` for ``export default class {}``).
* ``src_method``: methods, getters, setters and arrow/function class fields (``Class.name``).
* ``src_import`` / ``src_import_kind`` / ``src_import_line`` / ``src_import_name``: every import
  form (see ``KINDS``): ``import`` (``static``; ``type`` for ``import type`` and for named imports
  that are all ``type X``), ``export ... from`` (``reexport``, or ``type`` for ``export type``,
  ``export type *`` and all-``type`` specifiers), side-effect ``import "x"``, ``require("x")`` and
  TS ``import x = require("x")`` (``require``), ``import("x")`` with a literal or a template
  without substitutions (``dynamic``; ``type`` in a type position such as ``typeof import("x")``),
  TS ``/// <reference path="x" />`` (``type``), and module augmentations: ``declare module "x" {}``
  in a file that is a module (``type``, at the ``declare`` line; ``_augmentations``: in a script file
  it declares an ambient module, no import).  Comments inside the parentheses are ignored.
  One ``src_import_line`` per statement or call (1-based).  Names: ``default``, ``*`` for
  namespaces, ``*``/``*`` for ``export * from``.
* ``src_declaration``: the file is a declaration file (``.d.ts``, ``.d.mts``, ``.d.cts``,
  ``.d.css.ts``).
* ``src_export``: exported names, ``default`` for default exports, ``export =`` and
  ``module.exports =``; ``exports.x =`` and ``module.exports.x =`` export ``x``.
* ``src_call(Path, Caller, Callee)``: ``f()`` and ``new F()`` whose callee is a dotted name as
  written (``foo``, ``obj.method``, ``this.a.b``); the caller is the innermost named function
  (``Class.method`` inside classes; a named function expression names its own body) or
  ``<module>``; anonymous callbacks are transparent.
* ``src_parse_error``: ``line N: syntax error`` / ``line N: missing X`` for each error node left
  after the second chances below, naming the grammar that parsed the file.

Work is bounded: a syntax tree nested deeper than ``MAX_TREE_DEPTH`` levels (a call chain
``f()()()...`` or brackets tens of thousands deep; tree-sitter's queries slow down and lose
matches past 65,535 levels), or holding an error node with more than ``MAX_ERROR_WIDTH`` children
(``x=[[[[...`` unclosed: queries take time quadratic in that width), is not queried: the file
gets one ``src_parse_error`` saying so and no other fact from that text (nothing is dropped
silently).  The check costs nothing for a tree with fewer nodes than the bounds and visits only
subtrees large enough to reach one.  Everything else is linear in the file's size, which
``--max-bytes`` bounds.  (tree-sitter's query progress callback is not used: py-tree-sitter
0.26.1 crashes with a segmentation fault after a ``captures`` call that passed one.)

Memory: a file's tree takes about 220 times its size.  Queries run over slices of the tree
(``slice_bounds``: 2,000 of the root's children, or runs inside a wrapper such as an IIFE) so
that only one slice's matches are held at a time, with the same matches in the same order as one
query over the whole tree; a text of 1 MiB or more never has two trees alive (``_parse``).

Second chances, taken only for a file whose first parse has errors: JavaScript files (JSX in
``.js``/``.jsx``: ``class=`` attributes) are parsed again with the tsx grammar; TypeScript files
get ``scanner.repair``'s rewrites of constructs the grammar lacks.  The tree with fewer errors
wins.  Imports in what is still unparsable are recovered from the error nodes' text.
``.vue``/``.svelte``/``.astro`` files are extracted from their script blocks (``scanner.sfc``).

A query that does not compile is a bug of this module, not of the user's file: each grammar's main
and error-node queries are compiled before its parser is kept (tsx has its own, compiled against the
tsx grammar), ``prepare`` makes the grammars a scan needs before any file is read, and a test
compiles every query against every grammar.  The CommonJS query compiles on first need.  A failure
is raised as ``scanner.errors.ExtractorFailure`` by the caller, never a ``src_parse_error``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from rofl.scanner import schema
from rofl.scanner.jsstrings import unescape
from rofl.scanner.repair import IMPORT_PLACEHOLDER, Repair, repair
from rofl.scanner.schema import Relation, quote
from rofl.scanner.sfc import SFC_KINDS, script_texts

KINDS = ("static", "type", "dynamic", "require", "reexport", "side_effect")
MAX_ERRORS_PER_FILE = 20
MAX_TREE_DEPTH = (
    50_000  # real code nests a few dozen levels; tree-sitter queries slow down and lose matches past 65,535
)
MAX_ERROR_WIDTH = 5_000  # children of one error node (queries take time quadratic in it)
SLICE_CHILDREN = 2_000  # children of the root queried at a time (``Extractor._matches``)
SLICE_WRAPPER = 25  # a node with fewer children is sliced inside a child with this many times more nodes
ONE_TREE_FROM = 1 << 20  # bytes of a text from which a second chance never has two trees alive
_END_BYTE = 0xFFFFFFFF  # a query cursor's default range end: the last slice reaches it


def _check_work(root: Any) -> None:
    """Raise ``TooMuchWork`` when querying ``root``'s tree would exceed a bound (``heavy_node``)."""
    found = heavy_node(root)
    if found is not None:
        node, what = found
        raise TooMuchWork(f"line {node.start_point[0] + 1}: {what}, not extracted")


class TooMuchWork(Exception):
    """A text whose extraction would exceed a bound: the message says which, with a line."""


def heavy_node(root: Any) -> tuple[Any, str] | None:
    """A node past a work bound and what it is, or None: a node more than ``MAX_TREE_DEPTH``
    levels below ``root``, or an error node with more than ``MAX_ERROR_WIDTH`` children.

    ``descendant_count`` bounds both the depth and the width under a node and costs O(1), so only
    subtrees with at least as many nodes as a bound still needs are entered (none at all for a
    tree smaller than the bounds); no recursion.
    """
    least = min(MAX_TREE_DEPTH, MAX_ERROR_WIDTH)
    if root.descendant_count <= least:
        return None
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= MAX_TREE_DEPTH:
            return node, f"syntax nested more than {MAX_TREE_DEPTH} levels deep"
        if node.is_error and node.child_count > MAX_ERROR_WIDTH:
            return node, f"a syntax error spanning {node.child_count} nodes (over {MAX_ERROR_WIDTH})"
        need = min(MAX_TREE_DEPTH - depth, MAX_ERROR_WIDTH)
        for child in node.children:
            if child.descendant_count >= need:
                stack.append((child, depth + 1))
    return None


_SNIPPET = 40  # characters of an error node's text quoted in its message
MODULE_CALLER = "<module>"

_REFERENCE_PATH = re.compile(rb"///[ \t]*<reference[ \t]+path[ \t]*=[ \t]*([\"'])(.*?)\1")
_DOTTED = re.compile(r"(?:[^\W\d]|[$#])[\w$#]*(?:\??\.#?[^\W\d][\w$]*|\??\.[$][\w$]*)*\Z")
_SPACE = re.compile(r"\s+")
_DECLARATION_FILE = re.compile(r"\.d\.(?:[^/.]+\.)?[mc]?ts\Z")
_FORCED_MODULE = re.compile(
    r"\.[mc]ts\Z"
)  # TypeScript takes .mts/.cts (and .d.mts/.d.cts) as modules whatever they hold
_RELATIVE_MODULE = re.compile(r"\.\.?(?:/|\Z)|/|[A-Za-z]:[/\\]")  # isExternalModuleNameRelative
_PLACEHOLDER = IMPORT_PLACEHOLDER.decode()
# imports in the text of an error node, when the parse could not make them statements
_RECOVERED_IMPORT = re.compile(
    rb"\b(?:(import|export)(\s+type\b)?[^;'\"`]*?\bfrom\s*|(import|require)\s*\(\s*|(import)\s*)([\"'])([^\"'\n]+)\5"
)
# node types that only occur in type positions: an import() below one of them is a type import
_TYPE_CONTEXTS = frozenset(
    {
        "type_query",
        "type_annotation",
        "type_arguments",
        "type_alias_declaration",
        "generic_type",
        "constraint",
        "default_type",
        "union_type",
        "intersection_type",
        "array_type",
        "tuple_type",
        "object_type",
        "lookup_type",
        "index_type_query",
        "function_type",
        "conditional_type",
        "parenthesized_type",
        "readonly_type",
        "type_predicate",
        "type_parameter",
        "optional_type",
        "rest_type",
        "infer_type",
        "property_signature",
        "method_signature",
        "call_signature",
        "construct_signature",
        "index_signature",
        "interface_body",
        "asserts_annotation",
        "opting_type_annotation",
        "omitting_type_annotation",
        "adding_type_annotation",
    }
)

_FUNCTION_VALUES = "[(arrow_function) (function_expression) (generator_function)]"

_COMMON = f"""
(import_statement) @import
(export_statement) @export
(call_expression function: (identifier) @call_name)
(call_expression function: (member_expression) @call_member)
(call_expression function: (import) @call_import)
(new_expression constructor: [(identifier) (member_expression)] @newee)
(function_declaration name: (identifier) @name) @func
(generator_function_declaration name: (identifier) @name) @func
(variable_declarator name: (identifier) @name value: {_FUNCTION_VALUES} @func)
(assignment_expression left: (identifier) @name right: {_FUNCTION_VALUES} @func)
(class_declaration name: (_) @name) @class
(class name: (_) @name) @class
(variable_declarator name: (identifier) @name value: (class !name) @class)
(method_definition name: (_) @name) @method
(function_expression name: (identifier) @name) @scope
"""

# `await f<T>()` is read by the TypeScript grammars as `(await f)<T>()`: the callee is still `f`
_TYPESCRIPT_ONLY = f"""
(call_expression function: (await_expression (identifier) @call_name) type_arguments: (_))
(call_expression function: (await_expression (member_expression) @call_member) type_arguments: (_))
(abstract_class_declaration name: (_) @name) @class
(public_field_definition name: (_) @name value: {_FUNCTION_VALUES}) @method
"""

# one query per grammar, each compiled against its own grammar (tsx is not typescript: a pattern
# valid in one may not compile in the other)
QUERY_SOURCES = {
    "javascript": _COMMON
    + f"""
(field_definition property: (_) @name value: {_FUNCTION_VALUES}) @method
""",
    "typescript": _COMMON + _TYPESCRIPT_ONLY,
    "tsx": _COMMON + _TYPESCRIPT_ONLY,
}
GRAMMARS = tuple(QUERY_SOURCES)

_ERROR_QUERY = "(ERROR) @error (MISSING) @missing"

# CommonJS exports: a second, rarely needed query, run only on files whose text mentions "exports"
# (compiling and running it on every file would cost ESM code bases for nothing).
_COMMONJS_QUERY = """
(assignment_expression
  left: (member_expression object: (identifier) @cjs_obj property: (property_identifier) @cjs_prop)
  (#any-of? @cjs_obj "module" "exports"))
(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @cjs_module property: (property_identifier) @cjs_exports)
    property: (property_identifier) @cjs_prop)
  (#eq? @cjs_module "module") (#eq? @cjs_exports "exports"))
"""


_DECLARATION_WRAPPERS = frozenset({"ambient_declaration"})


@dataclass(frozen=True, slots=True)
class Extraction:
    """What one file yielded: fact lines (no trailing newline) and its unique specifiers in order."""

    lines: tuple[str, ...]
    specifiers: tuple[str, ...]
    errors: int


class _Facts:
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


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def string_value(node: Any) -> str | None:
    """The cooked value of a string literal node, or of a template literal without substitutions."""
    kind = node.type
    if kind not in ("string", "template_string"):
        return None
    parts: list[str] = []
    for child in node.named_children:
        ctype = child.type
        if ctype == "string_fragment":
            parts.append(_text(child))
        elif ctype == "escape_sequence":
            parts.append(unescape(_text(child)))
        elif ctype == "html_character_reference":
            parts.append(_text(child))
        elif ctype == "template_substitution":
            return None
        elif ctype == "comment":
            continue
    return "".join(parts)


def _callee_text(node: Any) -> str | None:
    kind = node.type
    if kind == "identifier":
        return _text(node)
    if kind != "member_expression":
        return None
    return _member_text(node)


def _member_text(node: Any) -> str | None:
    """A member expression as written when it is a dotted name (``a.b``, ``this.x?.y``), else None."""
    text = _text(node)
    if _DOTTED.match(text):
        return text
    squeezed = _SPACE.sub("", text)
    if squeezed != text and _DOTTED.match(squeezed):
        return squeezed
    return None


def _class_name(class_node: Any) -> str:
    name = class_node.child_by_field_name("name")
    if name is not None:
        return _text(name)
    parent = class_node.parent
    if parent is not None:
        if parent.type == "variable_declarator":
            bound = parent.child_by_field_name("name")
            if bound is not None and bound.type == "identifier":
                return _text(bound)
        if parent.type == "export_statement":
            return "default"
    return "<anonymous>"


def _pattern_names(node: Any, out: list[str]) -> None:
    """Names bound by a declarator's name: an identifier or a destructuring pattern."""
    kind = node.type
    if kind in ("identifier", "shorthand_property_identifier_pattern"):
        out.append(_text(node))
        return
    if kind == "pair_pattern":
        value = node.child_by_field_name("value")
        if value is not None:
            _pattern_names(value, out)
        return
    if kind in ("assignment_pattern", "object_assignment_pattern"):
        left = node.child_by_field_name("left")
        if left is not None:
            _pattern_names(left, out)
        return
    for child in node.named_children:
        if child.type not in ("type_annotation", "comment"):
            _pattern_names(child, out)


def _declared_names(decl: Any) -> list[str]:
    kind = decl.type
    if kind in _DECLARATION_WRAPPERS:
        names: list[str] = []
        for child in decl.named_children:
            names.extend(_declared_names(child))
        return names
    if kind in ("lexical_declaration", "variable_declaration"):
        names = []
        for child in decl.named_children:
            if child.type == "variable_declarator":
                target = child.child_by_field_name("name")
                if target is not None:
                    _pattern_names(target, names)
        return names
    name = decl.child_by_field_name("name")
    if name is not None:
        value = string_value(name)
        return [value if value is not None else _text(name)]
    return []


def _specifier_name(node: Any) -> str:
    value = string_value(node)
    return value if value is not None else _text(node)


@dataclass(frozen=True, slots=True)
class _Grammar:
    """One grammar's parser and its compiled queries: the main one, the error-node one and CommonJS exports."""

    parser: Any
    query: Any
    errors: Any
    commonjs: Any


@dataclass(frozen=True, slots=True)
class _Parsed:
    """The tree kept for a text: the grammar that made it and the rewrites it was made from."""

    tree: Any  # None while a second chance is parsed (``Extractor._parse``)
    grammar: str
    fix: Repair | None
    errors: int
    spans: tuple[tuple[int, int], ...]  # byte ranges of its error nodes, in document order
    missing: tuple[int, ...] = ()  # offsets of its missing nodes


def _in_type_position(node: Any) -> bool:
    """True when ``node`` sits in a type (``typeof import("x")``, ``import("x").T`` as a type)."""
    parent = node.parent
    while parent is not None:
        if parent.type in _TYPE_CONTEXTS:
            return True
        parent = parent.parent
    return False


def _document_order(node: Any) -> tuple[int, int, str]:
    return node.start_byte, -node.end_byte, node.type


def _all_type_specifiers(container: Any, specifier_type: str) -> bool:
    """True when a named import/export list has specifiers and every one is ``type X``."""
    specifiers = [c for c in container.named_children if c.type == specifier_type]
    return bool(specifiers) and all(spec.child(0).type == "type" for spec in specifiers)


def _empty_edge(node: Any, last: bool) -> bool:
    """True when ``node`` or a node on its right edge (``last``) or left edge holds no bytes: the
    only nodes at a slice boundary that a byte range could treat differently from the whole file."""
    while True:
        if node.start_byte == node.end_byte:
            return True
        count = node.child_count
        if count == 0:
            return False
        node = node.child(count - 1 if last else 0)


def slice_bounds(root: Any, size: int, matched: Callable[[Any], bool]) -> list[int]:
    """Start bytes of the slices of the tree that ``_matches`` queries one at a time (the first is 0).

    A node with more than ``size`` children is cut into runs of ``size`` children (or a few more).
    A node with fewer is cut into runs of children with about ``SLICE_WRAPPER`` x ``size`` nodes
    in all, and a child with more than that and at least two children of its own is sliced the
    same way inside, unless a match starts at it (``matched``): an IIFE or UMD wrapper around a
    bundle, a huge function.  So no match ever starts at a node that spans a boundary.  A boundary
    is put before a child only when no node without bytes sits there (on the right edge of the
    child before or the left edge of the child itself), so every other node lies in exactly one
    slice's byte range.
    """
    budget = SLICE_WRAPPER * size
    bounds = [0]
    stack: list[tuple[Any, int]] = [(root, 0)]  # a node and the index of its next child to look at
    while stack:
        node, index = stack.pop()
        count = node.child_count
        if count > size:
            index = size
            while index < count:
                index = _cut(node, index, bounds) + size
            continue
        if index == 0 and node.descendant_count <= budget:
            continue
        if index > 0:  # back from the child before, sliced inside: a boundary after it
            index = _cut(node, index, bounds)
        run = 0  # nodes since the last boundary
        while index < count:
            child = node.child(index)
            nodes = child.descendant_count
            if (
                nodes > budget
                and child.child_count >= 2
                and (index == 0 or _cut(node, index, bounds, exact=True) == index)
                and not matched(child)
            ):
                stack.append((node, index + 1))
                stack.append((child, 0))
                break
            if run and run + nodes > budget and _cut(node, index, bounds, exact=True) == index:
                run = 0
            run += nodes
            index += 1
    return bounds


def _cut(node: Any, index: int, bounds: list[int], exact: bool = False) -> int:
    """Put a boundary before ``node``'s child ``index`` or (unless ``exact``) the first later one
    where no node without bytes sits; the index of the child it went before (``child_count`` when
    none)."""
    count = node.child_count
    while 0 < index < count:
        child = node.child(index)
        if not (_empty_edge(node.child(index - 1), True) or _empty_edge(child, False)):
            if child.start_byte > bounds[-1]:
                bounds.append(child.start_byte)
            return index
        if exact:
            break
        index += 1
    return count


_REPAIR_ROUNDS = 4  # rewrites of a TypeScript text with errors, each around the last round's errors


class Extractor:
    """Parsers and compiled queries for the three grammars; make one per process and reuse it.

    ``slice_children`` (0: none) runs each query over slices of about that many of the root's
    children (or of a wrapper's, ``slice_bounds``) at a time, so that one slice's matches are
    alive at once, not the whole file's; ``one_tree_from`` is the size of a text from which
    ``_parse`` holds one tree at a time.
    """

    def __init__(self, slice_children: int = SLICE_CHILDREN, one_tree_from: int = ONE_TREE_FROM) -> None:
        import tree_sitter as ts

        self._ts = ts
        self._grammars: dict[str, _Grammar] = {}
        self._slice = slice_children
        self._one_tree_from = one_tree_from

    def prepare(self, grammars: set[str]) -> None:
        """Make the parsers and compile the queries of ``grammars`` now, e.g. before forking helpers.

        Component kinds (``vue``...) prepare the grammars of their scripts.  A query that does not
        compile raises here, before any file is extracted.
        """
        for grammar in grammars:
            if grammar in SFC_KINDS:
                self._grammar("javascript")
                self._grammar("typescript")
            else:
                self._grammar(grammar)

    def _language(self, grammar: str) -> Any:
        if grammar == "javascript":
            import tree_sitter_javascript as tsjs

            return self._ts.Language(tsjs.language())
        import tree_sitter_typescript as tsts

        if grammar == "tsx":
            return self._ts.Language(tsts.language_tsx())
        if grammar == "typescript":
            return self._ts.Language(tsts.language_typescript())
        raise ValueError(f"no grammar named {grammar!r}")

    def _grammar(self, grammar: str) -> _Grammar:
        """The parser and queries of ``grammar``, made on first use: the queries compile first, so a
        query error never leaves a parser behind that later files would use without a query."""
        made = self._grammars.get(grammar)
        if made is None:
            ts = self._ts
            lang = self._language(grammar)
            query = ts.Query(lang, QUERY_SOURCES[grammar])
            errors = ts.Query(lang, _ERROR_QUERY)
            commonjs = ts.Query(lang, _COMMONJS_QUERY)
            made = self._grammars[grammar] = _Grammar(ts.Parser(lang), query, errors, commonjs)
        return made

    def compile_all(self) -> None:
        """Compile every query against every grammar it is used with (for tests and diagnostics)."""
        for grammar in GRAMMARS:
            self._grammar(grammar)

    def extract(self, path: str, data: bytes, grammar: str) -> Extraction:
        """Facts of one file (already known to be valid UTF-8 and small enough).

        ``grammar`` is ``javascript``, ``typescript``, ``tsx``, or a component kind (``vue``,
        ``svelte``, ``astro``) whose script blocks are extracted.
        """
        facts = _Facts(quote(path), path)
        if facts.declaration:
            facts.add_raw(schema.SRC_DECLARATION.quoted(facts.qpath))
        try:
            if grammar in SFC_KINDS:
                for block_grammar, text in script_texts(data, grammar):
                    self._extract_text(text, block_grammar, facts)
            else:
                self._extract_text(data, grammar, facts)
        except TooMuchWork as err:  # the file says why; no partial facts that look complete
            facts = _Facts(facts.qpath, path)
            facts.add(schema.SRC_PARSE_ERROR, str(err))
            facts.errors = 1
        return Extraction(tuple(facts.lines), tuple(facts.specifiers), facts.errors)

    def _matches(self, query: Any, root: Any) -> Iterator[tuple[int, dict[str, list[Any]]]]:
        """``query``'s matches in ``root``, in the order of one ``matches(root)`` over the whole tree.

        Run slice by slice (``slice_bounds``): only one slice's matches are held at a time (a
        file's matches can take half as much memory as its tree).  The same matches come out in the
        same order: no match starts at the root or at another node that spans a boundary (none of
        this module's patterns can match the root; a wrapper is sliced inside only when none matches
        it), so every match starts at a node that intersects one slice's byte range only, and a
        query cursor starts matches only at nodes that intersect its range
        (tests.scanner.test_extraction_slices compares slice sizes against the whole tree).
        """
        cursor = self._ts.QueryCursor(query)
        size = self._slice
        if size <= 0 or root.descendant_count <= size:
            yield from cursor.matches(root)
            return
        starts = self._ts.QueryCursor(query)
        starts.set_max_start_depth(0)  # matches that start at the node given, no deeper

        def matched(node: Any) -> bool:
            return bool(starts.matches(node))

        bounds = slice_bounds(root, size, matched)
        if len(bounds) == 1 or matched(root):
            yield from cursor.matches(root)
            return
        for number, start in enumerate(bounds):
            end = bounds[number + 1] if number + 1 < len(bounds) else _END_BYTE
            cursor.set_byte_range(start, end)
            yield from cursor.matches(root)

    # -- parsing -------------------------------------------------------------------------------

    def _error_nodes(self, root: Any, grammar: str) -> dict[str, list[Any]]:
        """Error and missing nodes in document order, outer first: py-tree-sitter 0.26.1's
        ``captures`` lists nested error nodes in an order that changes from one parse to the next,
        and the first node of a line names its ``src_parse_error``."""
        found = self._ts.QueryCursor(self._grammar(grammar).errors).captures(root)
        return {name: sorted(nodes, key=_document_order) for name, nodes in found.items()}

    def _candidate(self, tree: Any, grammar: str, fix: Repair | None) -> _Parsed:
        """One parse of the text (or of ``fix``'s rewrite of it), with its error count and spans."""
        root = tree.root_node
        _check_work(root)
        if not root.has_error:
            return _Parsed(tree, grammar, fix, 0, ())
        caps = self._error_nodes(root, grammar)
        errors = caps.get("error", [])
        spans = tuple((node.start_byte, node.end_byte) for node in errors)
        missing = tuple(node.start_byte for node in caps.get("missing", ()))
        return _Parsed(tree, grammar, fix, max(1, len(errors) + len(missing)), spans, missing)

    def _parse(self, data: bytes, grammar: str) -> _Parsed:
        """Parse ``data``; on errors, try the second chances and keep the tree with the fewest.

        A text of ``one_tree_from`` bytes or more never has two trees alive at once: the tree kept
        so far is let go while a second chance is parsed, and parsed again if it stays the best
        (a tree takes about 220 times the text's size; parsing is deterministic).
        """
        best = self._candidate(self._grammar(grammar).parser.parse(data), grammar, None)
        if best.errors == 0:
            return best
        shed = len(data) >= self._one_tree_from
        if shed:
            best = replace(best, tree=None)
        if grammar == "javascript":  # JSX the JavaScript grammar rejects (class=, ...): try tsx
            other = self._candidate(self._grammar("tsx").parser.parse(data), "tsx", None)
            if other.errors < best.errors:
                return other
            del other  # its tree goes before the kept one is parsed again
        else:
            latest = best  # each round rewrites the last one's text around its errors
            for _ in range(_REPAIR_ROUNDS):  # a rewrite may uncover the next place that needs one
                fix = self._repair(data, latest)
                if fix is None or (latest.fix is not None and fix.data == latest.fix.data):
                    break  # nothing (new) to rewrite
                other = self._candidate(self._grammar(grammar).parser.parse(fix.data), grammar, fix)
                latest = replace(other, tree=None)  # its errors may be more (a fix uncovered later ones)
                if other.errors < best.errors:
                    best = replace(other, tree=None) if shed and other.errors else other
                del other  # its tree goes before the kept one is parsed again
                if best.errors == 0:
                    break
        if best.tree is None:
            text = best.fix.data if best.fix is not None else data
            best = replace(best, tree=self._grammar(best.grammar).parser.parse(text))
        return best

    @staticmethod
    def _repair(data: bytes, best: _Parsed) -> Repair | None:
        """A rewrite of ``data`` (after ``best``'s) around ``best``'s error nodes, or None."""
        earlier = best.fix
        fix = repair(
            earlier.data if earlier is not None else data, list(best.spans), best.grammar == "typescript", best.missing
        )
        if fix is None or earlier is None:
            return fix
        # keep what the earlier rounds took out
        return Repair(
            fix.data,
            fix.type_star_exports | earlier.type_star_exports,
            fix.type_imports | earlier.type_imports,
            earlier.import_types + fix.import_types,
        )

    # -- one text ------------------------------------------------------------------------------

    def _extract_text(self, data: bytes, grammar: str, facts: _Facts) -> None:
        parsed = self._parse(data, grammar)
        typescript = grammar != "javascript"  # as the file is named, even when tsx parsed its JSX
        grammar = parsed.grammar
        fix = parsed.fix
        type_star = fix.type_star_exports if fix is not None else frozenset()
        placeholders = fix.type_imports if fix is not None else frozenset()
        root = parsed.tree.root_node
        if fix is not None:  # import types the repair made identifiers: their imports, from its record
            for offset, source in fix.import_types:
                facts.import_(source, "type", data.count(b"\n", 0, offset) + 1)
        matches = self._matches(self._grammar(grammar).query, root)

        scopes: list[tuple[int, int, str]] = []
        calls: list[tuple[int, str]] = []
        for _, caps in matches:
            if "call_name" in caps:
                node = caps["call_name"][0]
                name = (node.text or b"").decode()
                if name == "require":
                    self._call_import(node, "require", facts)
                elif name == _PLACEHOLDER and node.start_byte in placeholders:
                    self._call_import(node, "type", facts)
                    continue  # a repaired `typeof import("x")`, not a call
                calls.append((node.start_byte, name))
            elif "call_member" in caps:
                node = caps["call_member"][0]
                member = _member_text(node)
                if member is not None:
                    calls.append((node.start_byte, member))
            elif "call_import" in caps:
                node = caps["call_import"][0]
                self._call_import(node, "type" if _in_type_position(node) else "dynamic", facts)
            elif "newee" in caps:
                node = caps["newee"][0]
                callee = _callee_text(node)
                if callee is not None:
                    calls.append((node.start_byte, callee))
            elif "func" in caps:
                func = caps["func"][0]
                name_node = caps["name"][0]
                name = _text(name_node)
                facts.add(schema.SRC_FUNC, name, name_node.start_point[0] + 1)
                scopes.append((func.start_byte, func.end_byte, name))
            elif "method" in caps:
                method = caps["method"][0]
                name_node = caps["name"][0]
                name = _text(name_node)
                holder = method.parent
                owner = holder.parent if holder is not None else None
                if holder is not None and holder.type == "class_body" and owner is not None:
                    class_name = _class_name(owner)
                    facts.add(schema.SRC_METHOD, class_name, name, name_node.start_point[0] + 1)
                    scopes.append((method.start_byte, method.end_byte, class_name + "." + name))
                else:  # object literal method: a caller name, not a declaration
                    scopes.append((method.start_byte, method.end_byte, name))
            elif "scope" in caps:  # a named function expression: a caller name, not a declaration
                scope = caps["scope"][0]
                scopes.append((scope.start_byte, scope.end_byte + 1, _text(caps["name"][0])))
            elif "class" in caps:
                name_node = caps["name"][0]
                facts.add(schema.SRC_CLASS, _text(name_node), name_node.start_point[0] + 1)
            elif "import" in caps:
                self._import(caps["import"][0], facts)
            elif "export" in caps:
                node = caps["export"][0]
                self._export(node, node.start_byte in type_star, facts)

        if b"exports" in data:
            self._commonjs(root, grammar, facts)
        if typescript and b"<reference" in data[:16384]:
            self._references(data, facts)
        if typescript and b"module" in data:
            _augmentations(root, facts)
        self._calls(calls, scopes, facts)
        _symbols(root, data, facts)
        if root.has_error:
            self._errors(root, grammar, data, facts)

    # -- imports -------------------------------------------------------------------------------

    @staticmethod
    def _references(data: bytes, facts: _Facts) -> None:
        """``/// <reference path="..." />`` lines of the file's leading comments (TypeScript only).

        The path is relative to the file even without ``./``; it is recorded with ``./`` added so
        that it resolves as the relative path it is.  Kind ``type``: it brings declarations only.
        """
        for number, raw in enumerate(data.split(b"\n"), start=1):
            line = raw.strip()
            if not line:
                continue
            if not line.startswith(b"//"):
                break
            found = _REFERENCE_PATH.match(line)
            if found is None:
                continue
            try:
                target = found.group(2).decode("utf-8")
            except UnicodeDecodeError:
                continue
            if target and not target.startswith((".", "/")):
                target = "./" + target
            facts.import_(target, "type", number)

    @staticmethod
    def _import(node: Any, facts: _Facts) -> None:
        source_node = node.child_by_field_name("source")
        type_only = False
        clause = None
        require_clause = None
        for child in node.children:
            ctype = child.type
            if ctype == "type":
                type_only = True
            elif ctype == "import_clause":
                clause = child
            elif ctype == "import_require_clause":
                require_clause = child
        if require_clause is not None:
            source_node = require_clause.child_by_field_name("source")
            if source_node is None:
                for child in require_clause.named_children:
                    if child.type == "string":
                        source_node = child
        if source_node is None:
            return
        source = string_value(source_node)
        if source is None:
            return
        line = node.start_point[0] + 1
        if require_clause is not None:
            facts.import_(source, "type" if type_only else "require", line)
            local = None
            for child in require_clause.named_children:
                if child.type == "identifier":
                    local = _text(child)
                    break
            if local is not None:
                facts.add(schema.SRC_IMPORT_NAME, source, "*", local)
            return
        if clause is None:
            facts.import_(source, "side_effect", line)
            return
        if not type_only and clause.named_child_count == 1:
            only = clause.named_children[0]
            type_only = only.type == "named_imports" and _all_type_specifiers(only, "import_specifier")
        facts.import_(source, "type" if type_only else "static", line)
        for child in clause.named_children:
            ctype = child.type
            if ctype == "identifier":
                facts.add(schema.SRC_IMPORT_NAME, source, "default", _text(child))
            elif ctype == "namespace_import":
                for sub in child.named_children:
                    if sub.type == "identifier":
                        facts.add(schema.SRC_IMPORT_NAME, source, "*", _text(sub))
            elif ctype == "named_imports":
                for spec in child.named_children:
                    if spec.type != "import_specifier":
                        continue
                    name = spec.child_by_field_name("name")
                    alias = spec.child_by_field_name("alias")
                    if name is None:
                        continue
                    imported = _specifier_name(name)
                    local = _specifier_name(alias) if alias is not None else imported
                    facts.add(schema.SRC_IMPORT_NAME, source, imported, local)

    @staticmethod
    def _export(node: Any, type_only: bool, facts: _Facts) -> None:
        """One export statement; ``type_only`` when a repair took ``type`` out of ``export type *``."""
        source_node = node.child_by_field_name("source")
        is_default = False
        star = False
        namespace = None
        clause = None
        equals = False
        for child in node.children:
            ctype = child.type
            if ctype == "default":
                is_default = True
            elif ctype == "type":
                type_only = True
            elif ctype == "*":
                star = True
            elif ctype == "namespace_export":
                namespace = child
            elif ctype == "export_clause":
                clause = child
            elif ctype == "=":
                equals = True
        source = string_value(source_node) if source_node is not None else None
        if source is not None:
            if not type_only and clause is not None:
                type_only = _all_type_specifiers(clause, "export_specifier")
            facts.import_(source, "type" if type_only else "reexport", node.start_point[0] + 1)
        parent = node.parent
        if parent is not None and parent.type != "program":
            return  # exports of a namespace or an ambient module are not the file's exports
        if is_default or equals:
            facts.add(schema.SRC_EXPORT, "default")
            return
        if namespace is not None:
            for sub in namespace.named_children:
                if sub.type in ("identifier", "string"):
                    name = _specifier_name(sub)
                    facts.add(schema.SRC_EXPORT, name)
                    if source is not None:
                        facts.add(schema.SRC_IMPORT_NAME, source, "*", name)
            return
        if star:
            if source is not None:
                facts.add(schema.SRC_IMPORT_NAME, source, "*", "*")
            return
        if clause is not None:
            for spec in clause.named_children:
                if spec.type != "export_specifier":
                    continue
                name = spec.child_by_field_name("name")
                alias = spec.child_by_field_name("alias")
                if name is None:
                    continue
                local = _specifier_name(name)
                exported = _specifier_name(alias) if alias is not None else local
                facts.add(schema.SRC_EXPORT, exported)
                if source is not None:
                    facts.add(schema.SRC_IMPORT_NAME, source, local, exported)
            return
        declaration = node.child_by_field_name("declaration")
        if declaration is not None:
            for name in _declared_names(declaration):
                facts.add(schema.SRC_EXPORT, name)

    @staticmethod
    def _specifier_argument(callee: Any, options: bool) -> Any | None:
        """The first argument of the call ``callee`` names, comments ignored; None when there are other
        arguments, except for one options object when ``options`` (``import("x", { with: ... })``)."""
        call = callee.parent
        if call is None:
            return None
        args = call.child_by_field_name("arguments")
        if args is None:
            return None
        found = []
        for child in args.named_children:
            if child.type != "comment":
                found.append(child)
        if len(found) == 1 or (options and len(found) == 2):
            return found[0]
        return None

    def _call_import(self, callee: Any, kind: str, facts: _Facts) -> None:
        """``import("x")``, ``require("x")`` (and repaired ``typeof import("x")``) with a literal."""
        arg = self._specifier_argument(callee, kind != "require")
        if arg is None:
            return
        source = string_value(arg)
        if source is not None:
            facts.import_(source, kind, callee.start_point[0] + 1)

    @staticmethod
    def _recover_imports(data: bytes, spans: list[tuple[int, int]], facts: _Facts) -> None:
        """Imports written in regions the parser gave up on (error nodes), found in their text."""
        for start, end in spans:
            for match in _RECOVERED_IMPORT.finditer(data, start, end):
                try:
                    source = match.group(6).decode("utf-8")
                except UnicodeDecodeError:
                    continue
                line = data.count(b"\n", 0, match.start()) + 1
                if (source, line) in facts.sites:
                    continue
                if match.group(1) is not None:
                    if match.group(2) is not None:
                        kind = "type"
                    else:
                        kind = "static" if match.group(1) == b"import" else "reexport"
                elif match.group(3) is not None:
                    kind = "dynamic" if match.group(3) == b"import" else "require"
                else:
                    kind = "side_effect"
                facts.import_(source, kind, line)

    # -- calls and errors ----------------------------------------------------------------------

    @staticmethod
    def _calls(calls: list[tuple[int, str]], scopes: list[tuple[int, int, str]], facts: _Facts) -> None:
        if not calls:
            return
        calls.sort()
        scopes.sort(key=lambda s: (s[0], -s[1]))  # a bound name (same node) sorts inside its expression
        stack: list[tuple[int, int, str]] = []
        next_scope = 0
        n_scopes = len(scopes)
        pairs: dict[tuple[str, str], None] = {}  # (caller, callee) in first-seen order
        for start, callee in calls:
            while next_scope < n_scopes and scopes[next_scope][0] <= start:
                scope = scopes[next_scope]
                next_scope += 1
                while stack and stack[-1][1] <= scope[0]:
                    stack.pop()
                stack.append(scope)
            while stack and stack[-1][1] <= start:
                stack.pop()
            pairs[(stack[-1][2] if stack else MODULE_CALLER, callee)] = None
        qpath = facts.qpath
        src_call = schema.SRC_CALL.quoted
        quoted: dict[str, str] = {}
        for caller, callee in pairs:
            caller_q = quoted.get(caller)
            if caller_q is None:
                caller_q = quoted[caller] = quote(caller)
            callee_q = quoted.get(callee)
            if callee_q is None:
                callee_q = quoted[callee] = quote(callee)
            facts.add_raw(src_call(qpath, caller_q, callee_q))

    def _commonjs(self, root: Any, grammar: str, facts: _Facts) -> None:
        """``module.exports =`` (default), ``exports.x =`` and ``module.exports.x =`` (``x``)."""
        query = self._grammar(grammar).commonjs
        for _, caps in self._matches(query, root):
            prop = _text(caps["cjs_prop"][0])
            if "cjs_module" in caps or _text(caps["cjs_obj"][0]) == "exports":
                facts.add(schema.SRC_EXPORT, prop)
            elif prop == "exports":
                facts.add(schema.SRC_EXPORT, "default")

    def _errors(self, root: Any, grammar: str, data: bytes, facts: _Facts) -> None:
        """One ``src_parse_error`` per line with an error node, saying what and which grammar failed.

        Imports inside error nodes that the query could not see are recovered from their text.
        """
        caps = self._error_nodes(root, grammar)
        found: dict[int, str] = {}
        spans: list[tuple[int, int]] = []
        for node in caps.get("error", ()):
            spans.append((node.start_byte, node.end_byte))
            snippet = _SPACE.sub(" ", _text(node).split("\n", 1)[0].strip())
            if len(snippet) > _SNIPPET:
                snippet = snippet[: _SNIPPET - 3] + "..."
            found.setdefault(node.start_point[0] + 1, f"syntax error at {snippet!r}" if snippet else "syntax error")
        for node in caps.get("missing", ()):
            found.setdefault(node.start_point[0] + 1, f"missing {node.type}")
        if not found:  # has_error without an error node: report the root
            found[1] = "syntax error"
        for line in sorted(found)[:MAX_ERRORS_PER_FILE]:
            facts.add(schema.SRC_PARSE_ERROR, f"line {line}: {found[line]} ({grammar} grammar)")
            facts.errors += 1
        if spans:
            self._recover_imports(data, spans, facts)


# -- symbols: top-level statements, what they bind, export and mention (for `rofl impact --symbols`) --------

MODULE_DECL = "<module>"  # the src_decl name of a top-level statement that binds no name
# identifiers as written, not a property after a single `.` (`a.b` mentions a; `...b` mentions b)
_MENTION = re.compile(r"(?:(?<=\.\.\.)|(?<![\w$.#]))((?:[^\W\d]|\$)[\w$]*)")
_SKIPPED_STATEMENTS = frozenset({"comment", "empty_statement", "hash_bang_line"})


@dataclass(frozen=True, slots=True)
class _Statement:
    """A top-level statement: its lines (leading comments included), the names it binds, its text."""

    start: int
    end: int
    names: tuple[str, ...]
    text: str  # "" when its mentions do not matter (an import, an export list)


def _start_line(node: Any) -> int:
    """The 1-based first line of ``node`` with the comments right above it (a JSDoc is part of it)."""
    start = node.start_point[0]
    prev = node.prev_sibling
    while prev is not None and prev.type == "comment" and prev.end_point[0] >= start - 1:
        start = prev.start_point[0]
        prev = prev.prev_sibling
    return start + 1


def _import_locals(node: Any) -> tuple[list[str], list[str]]:
    """The local names an import statement binds, and which of them are namespaces."""
    names: list[str] = []
    namespaces: list[str] = []
    for child in node.named_children:
        if child.type == "import_require_clause":
            for sub in child.named_children:
                if sub.type == "identifier":
                    names.append(_text(sub))
                    namespaces.append(_text(sub))
                    break
        elif child.type == "import_clause":
            for sub in child.named_children:
                if sub.type == "identifier":
                    names.append(_text(sub))
                elif sub.type == "namespace_import":
                    for ident in sub.named_children:
                        if ident.type == "identifier":
                            names.append(_text(ident))
                            namespaces.append(_text(ident))
                elif sub.type == "named_imports":
                    for spec in sub.named_children:
                        if spec.type != "import_specifier":
                            continue
                        bound = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                        if bound is not None:
                            names.append(_specifier_name(bound))
    return names, namespaces


def _bound_names(node: Any) -> list[str]:
    """Names a top-level declaration statement binds (none for an expression statement)."""
    if node.type == "expression_statement":
        inner = node.named_children
        if len(inner) == 1 and inner[0].type == "internal_module":
            return _declared_names(inner[0])
        return []
    if node.type in ("function_signature", "ambient_declaration") or node.type.endswith("declaration"):
        return _declared_names(node)
    if node.type in ("module", "internal_module"):
        return _declared_names(node)
    return []


def _export_statement(node: Any, start: int, end: int, text: str, facts: _Facts) -> _Statement | None:
    """The spans and local names of one top-level export statement; the statement it declares, if any."""
    if node.child_by_field_name("source") is not None:  # a re-export: its names, no local binding
        names: list[str] = []
        for child in node.named_children:
            if child.type == "export_clause":
                for spec in child.named_children:
                    if spec.type == "export_specifier":
                        bound = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                        if bound is not None:
                            names.append(_specifier_name(bound))
            elif child.type == "namespace_export":
                names.extend(_specifier_name(s) for s in child.named_children if s.type in ("identifier", "string"))
        for name in names or ["*"]:
            facts.add(schema.SRC_EXPORT_SPAN, name, start, end)
        return None
    kinds = [c.type for c in node.children]
    if "namespace" in kinds and "as" in kinds:  # `export as namespace X` (a UMD global): no module export
        return None
    is_default = "default" in kinds or "=" in kinds
    declaration = node.child_by_field_name("declaration")
    if declaration is None:
        for child in node.named_children:
            if child.type in ("function_declaration", "generator_function_declaration", "class_declaration"):
                declaration = child  # `export default function f() {}`
    if declaration is not None:
        declared = _declared_names(declaration)
        if is_default:
            local = declared[0] if declared else "default"
            facts.add(schema.SRC_EXPORT_SPAN, "default", start, end)
            facts.add(schema.SRC_EXPORT_LOCAL, "default", local)
            return _Statement(start, end, (local,), text)
        for name in declared:
            facts.add(schema.SRC_EXPORT_SPAN, name, start, end)
            facts.add(schema.SRC_EXPORT_LOCAL, name, name)
        return _Statement(start, end, tuple(declared), text)
    if is_default:
        facts.add(schema.SRC_EXPORT_SPAN, "default", start, end)
        value = [c for c in node.named_children if c.type != "comment"]
        if len(value) == 1 and value[0].type == "identifier":  # `export default x`: the binding x
            facts.add(schema.SRC_EXPORT_LOCAL, "default", _text(value[0]))
            return None
        facts.add(schema.SRC_EXPORT_LOCAL, "default", "default")
        return _Statement(start, end, ("default",), text)
    for child in node.named_children:
        if child.type == "export_clause":
            for spec in child.named_children:
                if spec.type != "export_specifier":
                    continue
                name = spec.child_by_field_name("name")
                alias = spec.child_by_field_name("alias")
                if name is None:
                    continue
                local = _specifier_name(name)
                exported = _specifier_name(alias) if alias is not None else local
                facts.add(schema.SRC_EXPORT_SPAN, exported, start, end)
                facts.add(schema.SRC_EXPORT_LOCAL, exported, local)
    return None


def _augmentations(root: Any, facts: _Facts) -> None:
    """Module augmentations, recorded as imports of kind ``type`` at the ``declare`` statement's line.

    As TypeScript's ``collectModuleReferences`` finds them: in a file that is a module (a top-level
    ``import``/``export`` statement, ``import x = require()``, ``export =``, or a ``.mts``/``.cts``
    name), each top-level ``declare module "x" { ... }`` (or ``declare module "x";``, and in a
    ``.d.ts`` file also ``module "x" {}`` without ``declare``) augments x: TypeScript resolves x from the
    file, so a change to x reaches it.  In a script file (a global declaration file) the same statement
    declares an ambient module, no import; only the non-relative ``declare module "y"`` nested in one
    is an augmentation there.  ``declare global {}`` and ``declare module Foo {}`` (a namespace) never
    are.  ``import.meta`` and ``moduleDetection: force`` are not read: a file with neither import nor
    export is a script.
    """
    children = root.children
    module = facts.forced_module or any(c.type in ("import_statement", "export_statement") for c in children)
    for node in children:
        _ambient_module(node, module, False, facts)


def _ambient_module(node: Any, module: bool, inside: bool, facts: _Facts) -> None:
    """One statement of ``_augmentations``: ``inside`` an ambient module of a script file, or at top level."""
    line = node.start_point[0] + 1  # the statement's line (`declare` or `export declare`)
    if node.type == "export_statement":
        declaration = node.child_by_field_name("declaration")
        if declaration is None:
            return
        node = declaration
    ambient = inside or facts.declaration
    if node.type == "ambient_declaration":
        ambient = True
        inner = [c for c in node.named_children if c.type == "module"]
        if not inner:
            return  # declare global, declare namespace, declare const, ...
        node = inner[0]
    if node.type != "module" or not ambient:
        return
    name_node = node.child_by_field_name("name")
    if name_node is None or name_node.type != "string":
        return  # declare module Foo {}: a namespace
    name = string_value(name_node)
    if name is None:
        return
    if module or (inside and not _RELATIVE_MODULE.match(name)):
        if name:
            facts.import_(name, "type", line)
        return
    if inside:
        return
    body = node.child_by_field_name("body")
    if body is not None:
        for statement in body.named_children:
            _ambient_module(statement, False, True, facts)


def _symbols(root: Any, data: bytes, facts: _Facts) -> None:
    """``src_decl``, ``src_export_span``, ``src_export_local`` and ``src_decl_uses`` of the top-level
    statements.  Mentions are found in each statement's text, so they are a superset of its references
    (a string or an object key naming a binding counts): conservative for impact, never narrower."""
    statements: list[_Statement] = []
    namespaces: set[str] = set()
    for node in root.children:
        kind = node.type
        if kind in _SKIPPED_STATEMENTS:
            continue
        start, end = _start_line(node), node.end_point[0] + 1
        text = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if kind == "import_statement":
            names, spaces = _import_locals(node)
            namespaces.update(spaces)
            statements.append(_Statement(start, end, tuple(names) or (MODULE_DECL,), ""))
            continue
        if kind == "export_statement":
            declared = _export_statement(node, start, end, text, facts)
            if declared is not None:
                statements.append(declared)
            continue
        names = _bound_names(node)
        statements.append(_Statement(start, end, tuple(names) or (MODULE_DECL,), text))
    known = {name for s in statements for name in s.names if name != MODULE_DECL}
    member = (
        re.compile(
            r"(?:(?<=\.\.\.)|(?<![\w$.#]))("
            + "|".join(re.escape(n) for n in sorted(namespaces, key=len, reverse=True))
            + r")(?![\w$])(?:\s*\??\.\s*((?:[^\W\d]|\$)[\w$]*))?"
        )
        if namespaces
        else None
    )
    for s in statements:
        for name in s.names:
            facts.add(schema.SRC_DECL, name, s.start, s.end)
        if not s.text:
            continue
        mentioned = set(_MENTION.findall(s.text)) & known
        mentioned -= namespaces
        if member is not None:
            for space, prop in member.findall(s.text):
                mentioned.add(f"{space}.{prop}" if prop else space)
        for name in s.names:
            for used in sorted(mentioned):
                if used != name:
                    facts.add(schema.SRC_DECL_USES, name, used)
