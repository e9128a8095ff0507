"""Exports of one file: export statements (the file's exported names and the re-exports they import) and
CommonJS ``module.exports``/``exports.x`` assignments."""

from __future__ import annotations

from typing import Any

from rofl.scanner import schema
from rofl.scanner.extract_facts import FileFacts, TextWalk
from rofl.scanner.extract_nodes import (
    all_type_specifiers,
    children_by_type,
    declared_names,
    node_text,
    specifier_name,
    specifier_pairs,
    string_value,
)


def export_statement(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@export``: one export statement (``export type *`` that a repair rewrote stays type-only)."""
    node = caps["export"][0]
    _export(node, node.start_byte in walk.type_star, walk.facts)


def _export(node: Any, type_only: bool, facts: FileFacts) -> None:
    """One export statement; ``type_only`` when a repair took ``type`` out of ``export type *``."""
    source_node = node.child_by_field_name("source")
    parts = children_by_type(node)
    is_default = "default" in parts
    type_only = type_only or "type" in parts
    star = "*" in parts
    namespace = parts.get("namespace_export")
    clause = parts.get("export_clause")
    equals = "=" in parts
    source = string_value(source_node) if source_node is not None else None
    if source is not None:
        if not type_only and clause is not None:
            type_only = all_type_specifiers(clause, "export_specifier")
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
                name = specifier_name(sub)
                facts.add(schema.SRC_EXPORT, name)
                if source is not None:
                    facts.add(schema.SRC_IMPORT_NAME, source, "*", name)
        return
    if star:
        if source is not None:
            facts.add(schema.SRC_IMPORT_NAME, source, "*", "*")
        return
    if clause is not None:
        for local, exported in specifier_pairs(clause, "export_specifier"):
            facts.add(schema.SRC_EXPORT, exported)
            if source is not None:
                facts.add(schema.SRC_IMPORT_NAME, source, local, exported)
        return
    declaration = node.child_by_field_name("declaration")
    if declaration is not None:
        for name in declared_names(declaration):
            facts.add(schema.SRC_EXPORT, name)


def commonjs_export(caps: dict[str, list[Any]], facts: FileFacts) -> None:
    """One match of the CommonJS query: ``module.exports =`` (default), ``exports.x =`` and ``module.exports.x =``
    (``x``)."""
    prop = node_text(caps["cjs_prop"][0])
    if "cjs_module" in caps or node_text(caps["cjs_obj"][0]) == "exports":
        facts.add(schema.SRC_EXPORT, prop)
    elif prop == "exports":
        facts.add(schema.SRC_EXPORT, "default")
