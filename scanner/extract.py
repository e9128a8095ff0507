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
  in a file that is a module (``type``, at the ``declare`` line; ``extract_imports.augmentations``: in a
  script file it declares an ambient module, no import).  Comments inside the parentheses are ignored.
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

The module is split by concern: this one parses (grammars, queries, second chances, slices) and hands
each query match to the handler of its pattern's capture (``HANDLERS``, looked up once per pattern when
the query compiles); ``extract_imports``, ``extract_exports``,
``extract_calls`` and ``extract_symbols`` turn nodes into facts, ``extract_nodes`` reads nodes,
``extract_facts`` collects a file's fact lines and ``extract_bounds`` holds the work bounds and slicing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from rofl.scanner import extract_calls, extract_exports, extract_imports, schema
from rofl.scanner.extract_bounds import (
    MAX_ERROR_WIDTH,
    MAX_TREE_DEPTH,
    TooMuchWork,
    check_work,
    heavy_node,
    slice_bounds,
)
from rofl.scanner.extract_calls import MODULE_CALLER, record_calls
from rofl.scanner.extract_facts import Extraction, FileFacts, TextWalk
from rofl.scanner.extract_imports import augmentations, recover_imports, references
from rofl.scanner.extract_nodes import SPACE, document_order, node_text, string_value
from rofl.scanner.extract_symbols import MODULE_DECL, symbols
from rofl.scanner.repair import IMPORT_PLACEHOLDER, Repair, repair
from rofl.scanner.sfc import SFC_KINDS, script_texts

__all__ = [
    "GRAMMARS",
    "HANDLERS",
    "IMPORT_PLACEHOLDER",
    "KINDS",
    "MAX_ERROR_WIDTH",
    "MAX_TREE_DEPTH",
    "MODULE_CALLER",
    "MODULE_DECL",
    "QUERY_SOURCES",
    "Extraction",
    "Extractor",
    "Repair",
    "TooMuchWork",
    "heavy_node",
    "repair",
    "slice_bounds",
    "string_value",
]

KINDS = ("static", "type", "dynamic", "require", "reexport", "side_effect")
MAX_ERRORS_PER_FILE = 20
SLICE_CHILDREN = 2_000  # children of the root queried at a time (``Extractor._matches``)
ONE_TREE_FROM = 1 << 20  # bytes of a text from which a second chance never has two trees alive
_END_BYTE = 0xFFFFFFFF  # a query cursor's default range end: the last slice reaches it
_SNIPPET = 40  # characters of an error node's text quoted in its message
_CAPTURE = re.compile(r"@([A-Za-z_]\w*)")

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

Handler = Callable[[dict[str, list[Any]], TextWalk], None]

# the capture that names each pattern of the main query -> what turns its match into facts (every pattern
# has exactly one of these captures, ``_pattern_handlers``; ``@name`` is shared and names none)
HANDLERS: Mapping[str, Handler] = {
    "call_name": extract_calls.call_name,
    "call_member": extract_calls.call_member,
    "call_import": extract_imports.import_call,
    "newee": extract_calls.new_expression,
    "func": extract_calls.function,
    "method": extract_calls.method,
    "scope": extract_calls.named_function_expression,
    "class": extract_calls.class_,
    "import": extract_imports.import_statement,
    "export": extract_exports.export_statement,
}


@dataclass(frozen=True, slots=True)
class _Grammar:
    """One grammar's parser and its compiled queries: the main one (with the handler of each of its patterns),
    the error-node one and CommonJS exports."""

    parser: Any
    query: Any
    handlers: tuple[Handler, ...]  # pattern index of ``query`` -> the handler of its match
    errors: Any
    commonjs: Any


def _pattern_handlers(query: Any, source: str) -> tuple[Handler, ...]:
    """The handler of each pattern of the main query, by pattern index: the one ``HANDLERS`` capture the
    pattern's text names.  A pattern naming none or several is this module's bug (raised, like a query
    that does not compile)."""
    text = source.encode()
    found: list[Handler] = []
    for index in range(query.pattern_count):
        pattern = text[query.start_byte_for_pattern(index) : query.end_byte_for_pattern(index)].decode()
        names = [name for name in _CAPTURE.findall(pattern) if name in HANDLERS]
        if len(names) != 1:
            raise ValueError(f"pattern {pattern.strip()!r} names {len(names)} handler captures, not one")
        found.append(HANDLERS[names[0]])
    return tuple(found)


@dataclass(frozen=True, slots=True)
class _Parsed:
    """The tree kept for a text: the grammar that made it and the rewrites it was made from."""

    tree: Any  # None while a second chance is parsed (``Extractor._parse``)
    grammar: str
    fix: Repair | None
    errors: int
    spans: tuple[tuple[int, int], ...]  # byte ranges of its error nodes, in document order
    missing: tuple[int, ...] = ()  # offsets of its missing nodes


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
            source = QUERY_SOURCES[grammar]
            query = ts.Query(lang, source)
            handlers = _pattern_handlers(query, source)
            errors = ts.Query(lang, _ERROR_QUERY)
            commonjs = ts.Query(lang, _COMMONJS_QUERY)
            made = self._grammars[grammar] = _Grammar(ts.Parser(lang), query, handlers, errors, commonjs)
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
        facts = FileFacts(schema.quote(path), path)
        if facts.declaration:
            facts.add_raw(schema.SRC_DECLARATION.quoted(facts.qpath))
        try:
            if grammar in SFC_KINDS:
                for block_grammar, text in script_texts(data, grammar):
                    self._extract_text(text, block_grammar, facts)
            else:
                self._extract_text(data, grammar, facts)
        except TooMuchWork as err:  # the file says why; no partial facts that look complete
            facts = FileFacts(facts.qpath, path)
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
        return {name: sorted(nodes, key=document_order) for name, nodes in found.items()}

    def _candidate(self, tree: Any, grammar: str, fix: Repair | None) -> _Parsed:
        """One parse of the text (or of ``fix``'s rewrite of it), with its error count and spans."""
        root = tree.root_node
        check_work(root)
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

    def _extract_text(self, data: bytes, grammar: str, facts: FileFacts) -> None:
        parsed = self._parse(data, grammar)
        typescript = grammar != "javascript"  # as the file is named, even when tsx parsed its JSX
        grammar = parsed.grammar
        fix = parsed.fix
        root = parsed.tree.root_node
        walk = TextWalk(facts)
        if fix is not None:  # import types the repair made identifiers: their imports, from its record
            walk.placeholders = fix.type_imports
            walk.type_star = fix.type_star_exports
            for offset, source in fix.import_types:
                facts.import_(source, "type", data.count(b"\n", 0, offset) + 1)
        made = self._grammar(grammar)
        handlers = made.handlers
        for pattern, caps in self._matches(made.query, root):
            handlers[pattern](caps, walk)

        if b"exports" in data:
            self._commonjs(root, grammar, facts)
        if typescript and b"<reference" in data[:16384]:
            references(data, facts)
        if typescript and b"module" in data:
            augmentations(root, facts)
        record_calls(walk.calls, walk.scopes, facts)
        symbols(root, data, facts)
        if root.has_error:
            self._errors(root, grammar, data, facts)

    def _commonjs(self, root: Any, grammar: str, facts: FileFacts) -> None:
        """The CommonJS exports (``extract_exports.commonjs_export``), queried only when the text mentions them."""
        for _, caps in self._matches(self._grammar(grammar).commonjs, root):
            extract_exports.commonjs_export(caps, facts)

    def _errors(self, root: Any, grammar: str, data: bytes, facts: FileFacts) -> None:
        """One ``src_parse_error`` per line with an error node, saying what and which grammar failed.

        Imports inside error nodes that the query could not see are recovered from their text.
        """
        caps = self._error_nodes(root, grammar)
        found: dict[int, str] = {}
        spans: list[tuple[int, int]] = []
        for node in caps.get("error", ()):
            spans.append((node.start_byte, node.end_byte))
            snippet = SPACE.sub(" ", node_text(node).split("\n", 1)[0].strip())
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
            recover_imports(data, spans, facts)
