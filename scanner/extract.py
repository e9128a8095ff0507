"""Tree-sitter extraction: one source file's bytes in, its [code] fact lines and import specifiers out.

tree-sitter is imported when the first ``Extractor`` is made, never when this module is imported,
so scans that parse nothing do not pay for it.  Queries run in C; Python only walks the matches.

What is extracted (all facts in ``[code]``):

* ``src_func``: function declarations, and function/arrow expressions bound to a variable name.
* ``src_class``: class declarations, named class expressions, anonymous classes bound to a name
  (``default`` for ``export default class {}``).
* ``src_method``: methods, getters, setters and arrow/function class fields (``Class.name``).
* ``src_import`` / ``src_import_kind`` / ``src_import_name``: every import form (see ``KINDS``):
  ``import``/``import type`` (``type``), ``export ... from`` (``reexport``, or ``type`` for
  ``export type``), side-effect ``import "x"``, ``require("x")`` and TS ``import x = require("x")``
  (``require``), ``import("x")`` with a literal or a template without substitutions (``dynamic``),
  and TS ``/// <reference path="x" />`` (``type``).  Names: ``default``, ``*`` for namespaces,
  ``*``/``*`` for ``export * from``.
* ``src_export``: exported names, ``default`` for default exports, ``export =`` and
  ``module.exports =``; ``exports.x =`` and ``module.exports.x =`` export ``x``.
* ``src_call(Path, Caller, Callee)``: ``f()`` and ``new F()`` whose callee is a dotted name as
  written (``foo``, ``obj.method``, ``this.a.b``); the caller is the innermost named function
  (``Class.method`` inside classes; a named function expression names its own body) or
  ``<module>``; anonymous callbacks are transparent.
* ``src_parse_error``: ``line N: syntax error`` / ``line N: missing X`` for each error node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from scanner.factfile import quote
from scanner.jsstrings import unescape

KINDS = ("static", "type", "dynamic", "require", "reexport", "side_effect")
MAX_ERRORS_PER_FILE = 20
MODULE_CALLER = "<module>"

_REFERENCE_PATH = re.compile(rb"///[ \t]*<reference[ \t]+path[ \t]*=[ \t]*([\"'])(.*?)\1")
_DOTTED = re.compile(r"(?:[^\W\d]|[$#])[\w$#]*(?:\??\.#?[^\W\d][\w$]*|\??\.[$][\w$]*)*\Z")
_SPACE = re.compile(r"\s+")

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

QUERY_SOURCES = {
    "javascript": _COMMON
    + f"""
(field_definition property: (_) @name value: {_FUNCTION_VALUES}) @method
""",
    "typescript": _COMMON
    + f"""
(abstract_class_declaration name: (_) @name) @class
(public_field_definition name: (_) @name value: {_FUNCTION_VALUES}) @method
""",
}
QUERY_SOURCES["tsx"] = QUERY_SOURCES["typescript"]

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

    __slots__ = ("qpath", "seen", "lines", "specifiers", "errors")

    def __init__(self, qpath: str) -> None:
        self.qpath = qpath
        self.seen: set[str] = set()
        self.lines: list[str] = []
        self.specifiers: dict[str, None] = {}
        self.errors = 0

    def add(self, rel: str, *args: str | int) -> None:
        rendered = ", ".join([quote(a) if type(a) is str else str(a) for a in args])
        line = f"{rel}[code]({self.qpath}, {rendered})."
        if line not in self.seen:
            self.seen.add(line)
            self.lines.append(line)

    def add_raw(self, line: str) -> None:
        if line not in self.seen:
            self.seen.add(line)
            self.lines.append(line)

    def import_(self, source: str, kind: str) -> None:
        self.specifiers[source] = None
        q = quote(source)
        self.add_raw(f"src_import[code]({self.qpath}, {q}).")
        self.add_raw(f"src_import_kind[code]({self.qpath}, {q}, {kind}).")


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


class Extractor:
    """Parsers and compiled queries for the three grammars; make one per process and reuse it."""

    def __init__(self) -> None:
        import tree_sitter as ts

        self._ts = ts
        self._parsers: dict[str, Any] = {}
        self._queries: dict[str, Any] = {}
        self._extra_queries: dict[tuple[str, str], Any] = {}

    def prepare(self, grammars: set[str]) -> None:
        """Make the parsers and compile the queries of ``grammars`` now, e.g. before forking helpers."""
        for grammar in grammars:
            self._parser(grammar)

    def _language(self, grammar: str) -> Any:
        if grammar == "javascript":
            import tree_sitter_javascript as tsjs

            return self._ts.Language(tsjs.language())
        import tree_sitter_typescript as tsts

        if grammar == "tsx":
            return self._ts.Language(tsts.language_tsx())
        return self._ts.Language(tsts.language_typescript())

    def _parser(self, grammar: str) -> Any:
        """The parser of ``grammar``, made (with its queries compiled) on first use."""
        parser = self._parsers.get(grammar)
        if parser is None:
            ts = self._ts
            lang = self._language(grammar)
            parser = self._parsers[grammar] = ts.Parser(lang)
            self._queries[grammar] = ts.Query(lang, QUERY_SOURCES[grammar])
        return parser

    def _extra_query(self, grammar: str, source: str) -> Any:
        """A query compiled on first use (errors, CommonJS): most files never need it."""
        query = self._extra_queries.get((grammar, source))
        if query is None:
            query = self._ts.Query(self._parsers[grammar].language, source)
            self._extra_queries[(grammar, source)] = query
        return query

    def extract(self, path: str, data: bytes, grammar: str) -> Extraction:
        """Facts of one file (already known to be valid UTF-8 and small enough)."""
        facts = _Facts(quote(path))
        tree = self._parser(grammar).parse(data)
        root = tree.root_node
        matches = self._ts.QueryCursor(self._queries[grammar]).matches(root)

        scopes: list[tuple[int, int, str]] = []
        calls: list[tuple[int, str]] = []
        for _, caps in matches:
            if "call_name" in caps:
                node = caps["call_name"][0]
                name = node.text.decode()
                if name == "require":
                    self._require(node, facts)
                calls.append((node.start_byte, name))
            elif "call_member" in caps:
                node = caps["call_member"][0]
                name = _member_text(node)
                if name is not None:
                    calls.append((node.start_byte, name))
            elif "call_import" in caps:
                self._dynamic_import(caps["call_import"][0], facts)
            elif "newee" in caps:
                node = caps["newee"][0]
                name = _callee_text(node)
                if name is not None:
                    calls.append((node.start_byte, name))
            elif "func" in caps:
                func = caps["func"][0]
                name_node = caps["name"][0]
                name = _text(name_node)
                facts.add("src_func", name, name_node.start_point[0] + 1)
                scopes.append((func.start_byte, func.end_byte, name))
            elif "method" in caps:
                method = caps["method"][0]
                name_node = caps["name"][0]
                name = _text(name_node)
                holder = method.parent
                owner = holder.parent if holder is not None else None
                if holder is not None and holder.type == "class_body" and owner is not None:
                    class_name = _class_name(owner)
                    facts.add("src_method", class_name, name, name_node.start_point[0] + 1)
                    scopes.append((method.start_byte, method.end_byte, class_name + "." + name))
                else:  # object literal method: a caller name, not a declaration
                    scopes.append((method.start_byte, method.end_byte, name))
            elif "scope" in caps:  # a named function expression: a caller name, not a declaration
                scope = caps["scope"][0]
                scopes.append((scope.start_byte, scope.end_byte + 1, _text(caps["name"][0])))
            elif "class" in caps:
                name_node = caps["name"][0]
                facts.add("src_class", _text(name_node), name_node.start_point[0] + 1)
            elif "import" in caps:
                self._import(caps["import"][0], facts)
            elif "export" in caps:
                self._export(caps["export"][0], facts)

        if b"exports" in data:
            self._commonjs(root, grammar, facts)
        if grammar != "javascript" and b"<reference" in data[:16384]:
            self._references(data, facts)
        self._calls(calls, scopes, facts)
        if root.has_error:
            self._errors(root, grammar, facts)
        return Extraction(tuple(facts.lines), tuple(facts.specifiers), facts.errors)

    # -- imports -------------------------------------------------------------------------------

    @staticmethod
    def _references(data: bytes, facts: _Facts) -> None:
        """``/// <reference path="..." />`` lines of the file's leading comments (TypeScript only).

        The path is relative to the file even without ``./``; it is recorded with ``./`` added so
        that it resolves as the relative path it is.  Kind ``type``: it brings declarations only.
        """
        for raw in data.split(b"\n"):
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
            facts.import_(target, "type")

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
        if require_clause is not None:
            facts.import_(source, "type" if type_only else "require")
            local = None
            for child in require_clause.named_children:
                if child.type == "identifier":
                    local = _text(child)
                    break
            if local is not None:
                facts.add("src_import_name", source, "*", local)
            return
        if clause is None:
            facts.import_(source, "side_effect")
            return
        facts.import_(source, "type" if type_only else "static")
        for child in clause.named_children:
            ctype = child.type
            if ctype == "identifier":
                facts.add("src_import_name", source, "default", _text(child))
            elif ctype == "namespace_import":
                for sub in child.named_children:
                    if sub.type == "identifier":
                        facts.add("src_import_name", source, "*", _text(sub))
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
                    facts.add("src_import_name", source, imported, local)

    @staticmethod
    def _export(node: Any, facts: _Facts) -> None:
        source_node = node.child_by_field_name("source")
        is_default = False
        type_only = False
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
            facts.import_(source, "type" if type_only else "reexport")
        parent = node.parent
        if parent is not None and parent.type != "program":
            return  # exports of a namespace or an ambient module are not the file's exports
        if is_default or equals:
            facts.add("src_export", "default")
            return
        if namespace is not None:
            for sub in namespace.named_children:
                if sub.type in ("identifier", "string"):
                    name = _specifier_name(sub)
                    facts.add("src_export", name)
                    if source is not None:
                        facts.add("src_import_name", source, "*", name)
            return
        if star:
            if source is not None:
                facts.add("src_import_name", source, "*", "*")
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
                facts.add("src_export", exported)
                if source is not None:
                    facts.add("src_import_name", source, local, exported)
            return
        declaration = node.child_by_field_name("declaration")
        if declaration is not None:
            for name in _declared_names(declaration):
                facts.add("src_export", name)

    @staticmethod
    def _first_argument(callee: Any) -> Any | None:
        call = callee.parent
        if call is None:
            return None
        args = call.child_by_field_name("arguments")
        if args is None or args.named_child_count != 1:
            return None
        return args.named_children[0]

    def _dynamic_import(self, callee: Any, facts: _Facts) -> None:
        arg = self._first_argument(callee)
        if arg is None:
            return
        source = string_value(arg)
        if source is not None:
            facts.import_(source, "dynamic")

    def _require(self, callee: Any, facts: _Facts) -> None:
        arg = self._first_argument(callee)
        if arg is None:
            return
        source = string_value(arg)
        if source is not None:
            facts.import_(source, "require")

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
        quoted: dict[str, str] = {}
        for caller, callee in pairs:
            caller_q = quoted.get(caller)
            if caller_q is None:
                caller_q = quoted[caller] = quote(caller)
            callee_q = quoted.get(callee)
            if callee_q is None:
                callee_q = quoted[callee] = quote(callee)
            facts.add_raw(f"src_call[code]({qpath}, {caller_q}, {callee_q}).")

    def _commonjs(self, root: Any, grammar: str, facts: _Facts) -> None:
        """``module.exports =`` (default), ``exports.x =`` and ``module.exports.x =`` (``x``)."""
        query = self._extra_query(grammar, _COMMONJS_QUERY)
        for _, caps in self._ts.QueryCursor(query).matches(root):
            prop = _text(caps["cjs_prop"][0])
            if "cjs_module" in caps or _text(caps["cjs_obj"][0]) == "exports":
                facts.add("src_export", prop)
            elif prop == "exports":
                facts.add("src_export", "default")

    def _errors(self, root: Any, grammar: str, facts: _Facts) -> None:
        caps = self._ts.QueryCursor(self._extra_query(grammar, _ERROR_QUERY)).captures(root)
        found: list[tuple[int, str]] = []
        for node in caps.get("error", ()):
            found.append((node.start_point[0] + 1, "syntax error"))
        for node in caps.get("missing", ()):
            found.append((node.start_point[0] + 1, f"missing {node.type}"))
        if not found:  # has_error without an error node: report the root
            found.append((1, "syntax error"))
        messages: dict[str, None] = {}
        for line, what in sorted(found):
            messages[f"line {line}: {what}"] = None
        for message in list(messages)[:MAX_ERRORS_PER_FILE]:
            facts.add("src_parse_error", message)
            facts.errors += 1
