"""Reading tree-sitter nodes for the extractor: their text, string values, dotted callees and the names they bind."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from rofl.scanner.jsstrings import unescape

_DOTTED = re.compile(r"(?:[^\W\d]|[$#])[\w$#]*(?:\??\.#?[^\W\d][\w$]*|\??\.[$][\w$]*)*\Z")
SPACE = re.compile(r"\s+")
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

_DECLARATION_WRAPPERS = frozenset({"ambient_declaration"})


def node_text(node: Any) -> str:
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
            parts.append(node_text(child))
        elif ctype == "escape_sequence":
            parts.append(unescape(node_text(child)))
        elif ctype == "html_character_reference":
            parts.append(node_text(child))
        elif ctype == "template_substitution":
            return None
        elif ctype == "comment":
            continue
    return "".join(parts)


def callee_text(node: Any) -> str | None:
    kind = node.type
    if kind == "identifier":
        return node_text(node)
    if kind != "member_expression":
        return None
    return member_text(node)


def member_text(node: Any) -> str | None:
    """A member expression as written when it is a dotted name (``a.b``, ``this.x?.y``), else None."""
    text = node_text(node)
    if _DOTTED.match(text):
        return text
    squeezed = SPACE.sub("", text)
    if squeezed != text and _DOTTED.match(squeezed):
        return squeezed
    return None


def class_name(class_node: Any) -> str:
    name = class_node.child_by_field_name("name")
    if name is not None:
        return node_text(name)
    parent = class_node.parent
    if parent is not None:
        if parent.type == "variable_declarator":
            bound = parent.child_by_field_name("name")
            if bound is not None and bound.type == "identifier":
                return node_text(bound)
        if parent.type == "export_statement":
            return "default"
    return "<anonymous>"


def pattern_names(node: Any, out: list[str]) -> None:
    """Names bound by a declarator's name: an identifier or a destructuring pattern."""
    kind = node.type
    if kind in ("identifier", "shorthand_property_identifier_pattern"):
        out.append(node_text(node))
        return
    if kind == "pair_pattern":
        value = node.child_by_field_name("value")
        if value is not None:
            pattern_names(value, out)
        return
    if kind in ("assignment_pattern", "object_assignment_pattern"):
        left = node.child_by_field_name("left")
        if left is not None:
            pattern_names(left, out)
        return
    for child in node.named_children:
        if child.type not in ("type_annotation", "comment"):
            pattern_names(child, out)


def declared_names(decl: Any) -> list[str]:
    kind = decl.type
    if kind in _DECLARATION_WRAPPERS:
        names: list[str] = []
        for child in decl.named_children:
            names.extend(declared_names(child))
        return names
    if kind in ("lexical_declaration", "variable_declaration"):
        names = []
        for child in decl.named_children:
            if child.type == "variable_declarator":
                target = child.child_by_field_name("name")
                if target is not None:
                    pattern_names(target, names)
        return names
    name = decl.child_by_field_name("name")
    if name is not None:
        value = string_value(name)
        return [value if value is not None else node_text(name)]
    return []


def specifier_name(node: Any) -> str:
    value = string_value(node)
    return value if value is not None else node_text(node)


def children_by_type(node: Any) -> dict[str, Any]:
    """``node``'s children by their type, the last of each type (keywords such as ``type`` or ``default`` too)."""
    return {child.type: child for child in node.children}


def specifier_pairs(container: Any, specifier_type: str) -> Iterator[tuple[str, str]]:
    """``(name, as)`` of each ``specifier_type`` of a named import or export list (``as`` is the alias, else
    the name): ``{ a as b }`` is ``("a", "b")``; a specifier without a name is skipped."""
    for spec in container.named_children:
        if spec.type != specifier_type:
            continue
        name = spec.child_by_field_name("name")
        if name is None:
            continue
        alias = spec.child_by_field_name("alias")
        written = specifier_name(name)
        yield written, specifier_name(alias) if alias is not None else written


def in_type_position(node: Any) -> bool:
    """True when ``node`` sits in a type (``typeof import("x")``, ``import("x").T`` as a type)."""
    parent = node.parent
    while parent is not None:
        if parent.type in _TYPE_CONTEXTS:
            return True
        parent = parent.parent
    return False


def document_order(node: Any) -> tuple[int, int, str]:
    return node.start_byte, -node.end_byte, node.type


def all_type_specifiers(container: Any, specifier_type: str) -> bool:
    """True when a named import/export list has specifiers and every one is ``type X``."""
    specifiers = [c for c in container.named_children if c.type == specifier_type]
    return bool(specifiers) and all(spec.child(0).type == "type" for spec in specifiers)
