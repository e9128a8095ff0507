"""Top-level symbols of one file for ``rofl impact --symbols``: what each top-level statement binds, exports and
mentions (``src_decl``, ``src_export_span``, ``src_export_local``, ``src_decl_uses``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rofl.scanner import schema
from rofl.scanner.extract_facts import FileFacts
from rofl.scanner.extract_nodes import declared_names, node_text, specifier_name, specifier_pairs

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
                    names.append(node_text(sub))
                    namespaces.append(node_text(sub))
                    break
        elif child.type == "import_clause":
            for sub in child.named_children:
                if sub.type == "identifier":
                    names.append(node_text(sub))
                elif sub.type == "namespace_import":
                    for ident in sub.named_children:
                        if ident.type == "identifier":
                            names.append(node_text(ident))
                            namespaces.append(node_text(ident))
                elif sub.type == "named_imports":
                    for spec in sub.named_children:
                        if spec.type != "import_specifier":
                            continue
                        bound = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                        if bound is not None:
                            names.append(specifier_name(bound))
    return names, namespaces


def _bound_names(node: Any) -> list[str]:
    """Names a top-level declaration statement binds (none for an expression statement)."""
    if node.type == "expression_statement":
        inner = node.named_children
        if len(inner) == 1 and inner[0].type == "internal_module":
            return declared_names(inner[0])
        return []
    if node.type in ("function_signature", "ambient_declaration") or node.type.endswith("declaration"):
        return declared_names(node)
    if node.type in ("module", "internal_module"):
        return declared_names(node)
    return []


def _export_statement(node: Any, start: int, end: int, text: str, facts: FileFacts) -> _Statement | None:
    """The spans and local names of one top-level export statement; the statement it declares, if any."""
    if node.child_by_field_name("source") is not None:  # a re-export: its names, no local binding
        names: list[str] = []
        for child in node.named_children:
            if child.type == "export_clause":
                for spec in child.named_children:
                    if spec.type == "export_specifier":
                        bound = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                        if bound is not None:
                            names.append(specifier_name(bound))
            elif child.type == "namespace_export":
                names.extend(specifier_name(s) for s in child.named_children if s.type in ("identifier", "string"))
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
        declared = declared_names(declaration)
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
            facts.add(schema.SRC_EXPORT_LOCAL, "default", node_text(value[0]))
            return None
        facts.add(schema.SRC_EXPORT_LOCAL, "default", "default")
        return _Statement(start, end, ("default",), text)
    for child in node.named_children:
        if child.type == "export_clause":
            for local, exported in specifier_pairs(child, "export_specifier"):
                facts.add(schema.SRC_EXPORT_SPAN, exported, start, end)
                facts.add(schema.SRC_EXPORT_LOCAL, exported, local)
    return None


def symbols(root: Any, data: bytes, facts: FileFacts) -> None:
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
