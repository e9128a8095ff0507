"""Functions, classes and methods of one file (``src_func``, ``src_class``, ``src_method``) and the calls made in
them (``src_call``, each from its innermost named caller)."""

from __future__ import annotations

from typing import Any

from rofl.scanner import schema
from rofl.scanner.extract_facts import FileFacts, TextWalk
from rofl.scanner.extract_imports import call_import
from rofl.scanner.extract_nodes import callee_text, class_name, member_text, node_text
from rofl.scanner.repair import IMPORT_PLACEHOLDER
from rofl.scanner.schema import quote

MODULE_CALLER = "<module>"
_PLACEHOLDER = IMPORT_PLACEHOLDER.decode()


def call_name(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@call_name``: ``f()``; ``require("x")`` is an import too, a repaired ``typeof import("x")``
    only an import."""
    node = caps["call_name"][0]
    name = (node.text or b"").decode()
    if name == "require":
        call_import(node, "require", walk.facts)
    elif name == _PLACEHOLDER and node.start_byte in walk.placeholders:
        call_import(node, "type", walk.facts)
        return  # a repaired `typeof import("x")`, not a call
    walk.calls.append((node.start_byte, name))


def call_member(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@call_member``: ``obj.method()`` when the callee is a dotted name."""
    node = caps["call_member"][0]
    member = member_text(node)
    if member is not None:
        walk.calls.append((node.start_byte, member))


def new_expression(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@newee``: ``new F()`` and ``new a.F()``."""
    node = caps["newee"][0]
    callee = callee_text(node)
    if callee is not None:
        walk.calls.append((node.start_byte, callee))


def function(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@func``: a function declaration or a function bound to a name, a caller scope."""
    func = caps["func"][0]
    name_node = caps["name"][0]
    name = node_text(name_node)
    walk.facts.add(schema.SRC_FUNC, name, name_node.start_point[0] + 1)
    walk.scopes.append((func.start_byte, func.end_byte, name))


def method(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@method``: a class method (``Class.name``), or an object literal method (a caller only)."""
    node = caps["method"][0]
    name_node = caps["name"][0]
    name = node_text(name_node)
    holder = node.parent
    owner = holder.parent if holder is not None else None
    if holder is not None and holder.type == "class_body" and owner is not None:
        owner_name = class_name(owner)
        walk.facts.add(schema.SRC_METHOD, owner_name, name, name_node.start_point[0] + 1)
        walk.scopes.append((node.start_byte, node.end_byte, owner_name + "." + name))
    else:  # object literal method: a caller name, not a declaration
        walk.scopes.append((node.start_byte, node.end_byte, name))


def named_function_expression(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@scope``: a named function expression names its own body as a caller, not a declaration."""
    scope = caps["scope"][0]
    walk.scopes.append((scope.start_byte, scope.end_byte + 1, node_text(caps["name"][0])))


def class_(caps: dict[str, list[Any]], walk: TextWalk) -> None:
    """Handler of ``@class``: a class declaration, a named class expression or a class bound to a name."""
    name_node = caps["name"][0]
    walk.facts.add(schema.SRC_CLASS, node_text(name_node), name_node.start_point[0] + 1)


def record_calls(calls: list[tuple[int, str]], scopes: list[tuple[int, int, str]], facts: FileFacts) -> None:
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
