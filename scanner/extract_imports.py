"""Imports of one file: import statements (static, type, side-effect, ``import x = require()``), ``import()``
and ``require()`` calls, ``/// <reference path>`` lines, module augmentations and the imports recovered from
the text of error nodes."""

from __future__ import annotations

import re
from typing import Any

from rofl.scanner import schema
from rofl.scanner.extract_facts import FileFacts, TextWalk
from rofl.scanner.extract_nodes import (
    all_type_specifiers,
    children_by_type,
    in_type_position,
    node_text,
    specifier_pairs,
    string_value,
)

_REFERENCE_PATH = re.compile(rb"///[ \t]*<reference[ \t]+path[ \t]*=[ \t]*([\"'])(.*?)\1")
_RELATIVE_MODULE = re.compile(r"\.\.?(?:/|\Z)|/|[A-Za-z]:[/\\]")  # isExternalModuleNameRelative
# imports in the text of an error node, when the parse could not make them statements
_RECOVERED_IMPORT = re.compile(
    rb"\b(?:(import|export)(\s+type\b)?[^;'\"`]*?\bfrom\s*|(import|require)\s*\(\s*|(import)\s*)([\"'])([^\"'\n]+)\5"
)


def references(data: bytes, facts: FileFacts) -> None:
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


def _import(node: Any, facts: FileFacts) -> None:
    source_node = node.child_by_field_name("source")
    parts = children_by_type(node)
    type_only = "type" in parts
    clause = parts.get("import_clause")
    require_clause = parts.get("import_require_clause")
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
                local = node_text(child)
                break
        if local is not None:
            facts.add(schema.SRC_IMPORT_NAME, source, "*", local)
        return
    if clause is None:
        facts.import_(source, "side_effect", line)
        return
    if not type_only and clause.named_child_count == 1:
        only = clause.named_children[0]
        type_only = only.type == "named_imports" and all_type_specifiers(only, "import_specifier")
    facts.import_(source, "type" if type_only else "static", line)
    for child in clause.named_children:
        ctype = child.type
        if ctype == "identifier":
            facts.add(schema.SRC_IMPORT_NAME, source, "default", node_text(child))
        elif ctype == "namespace_import":
            for sub in child.named_children:
                if sub.type == "identifier":
                    facts.add(schema.SRC_IMPORT_NAME, source, "*", node_text(sub))
        elif ctype == "named_imports":
            for imported, local in specifier_pairs(child, "import_specifier"):
                facts.add(schema.SRC_IMPORT_NAME, source, imported, local)


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


def call_import(callee: Any, kind: str, facts: FileFacts) -> None:
    """``import("x")``, ``require("x")`` (and repaired ``typeof import("x")``) with a literal."""
    arg = _specifier_argument(callee, kind != "require")
    if arg is None:
        return
    source = string_value(arg)
    if source is not None:
        facts.import_(source, kind, callee.start_point[0] + 1)


def recover_imports(data: bytes, spans: list[tuple[int, int]], facts: FileFacts) -> None:
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


def import_statement(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@import``: one import statement."""
    _import(caps["import"][0], walk.facts)


def import_call(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@call_import``: ``import("x")``, of kind ``type`` in a type position."""
    node = caps["call_import"][0]
    call_import(node, "type" if in_type_position(node) else "dynamic", walk.facts)


def augmentations(root: Any, facts: FileFacts) -> None:
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


def _ambient_module(node: Any, module: bool, inside: bool, facts: FileFacts) -> None:
    """One statement of ``augmentations``: ``inside`` an ambient module of a script file, or at top level."""
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
