"""The one JSON encoding every command prints: terms as JSON values, and a writer without a depth limit.

A term becomes a JSON value: an integer a number, a string a string (unquoted), an atom its name as a
string, a compound ``f(a, b)`` the object ``{"functor": "f", "args": [a, b]}``.  A fact becomes
``{"relation": r, "perspective": p, "args": [...]}``.  ``dumps`` writes any nesting of dicts, lists,
strings, numbers, booleans and None iteratively, so a term 100,000 levels deep prints.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rofl.engine.namespace import display_name
from rofl.engine.terms import Term

# A lone surrogate (an undecodable file-name byte, a rofl string "\u{D800}") is not UTF-8: JSON text
# writes it as its \udXXX escape, which parses back to the same value and always encodes.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _encodable(text: str) -> str:
    if LONE_SURROGATE.search(text) is None:
        return text
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_scalar = json.JSONEncoder(ensure_ascii=False).encode


def term(value: Term) -> Any:
    """A ground term as a JSON-ready value (iterative: any depth)."""
    if not isinstance(value, tuple):  # a deep compound is an engine.terms.Compound (a tuple subclass)
        return value
    if len(value) == 1:
        return value[0]
    root: dict = {"functor": value[0], "args": []}
    stack = [(value, root["args"])]
    while stack:
        t, out = stack.pop()
        for a in t[1:]:
            if not isinstance(a, tuple):
                out.append(a)
            elif len(a) == 1:
                out.append(a[0])
            else:
                node = {"functor": a[0], "args": []}
                out.append(node)
                stack.append((a, node["args"]))
    return root


def fact(rel: str, row: tuple) -> dict:
    """A stored fact ``(persp, *args)`` of relation ``rel`` as a JSON-ready object."""
    return {"relation": display_name(rel), "perspective": row[0], "args": [term(a) for a in row[1:]]}


def dumps(data: Any) -> str:
    """Compact JSON text of ``data`` (``, `` and ``: `` separators), written without recursion."""
    out: list[str] = []
    stack: list = [data]
    while stack:
        item = stack.pop()
        if type(item) is _Raw:
            out.append(item.text)
        elif isinstance(item, dict):
            if not item:
                out.append("{}")
                continue
            out.append("{")
            parts: list = []
            for i, (k, v) in enumerate(item.items()):
                parts.append(_Raw((", " if i else "") + _scalar(str(k)) + ": "))
                parts.append(v)
            parts.append(_Raw("}"))
            stack.extend(reversed(parts))
        elif isinstance(item, (list, tuple)):
            if not item:
                out.append("[]")
                continue
            out.append("[")
            parts = []
            for i, v in enumerate(item):
                if i:
                    parts.append(_Raw(", "))
                parts.append(v)
            parts.append(_Raw("]"))
            stack.extend(reversed(parts))
        else:
            out.append(_scalar(item))
    return _encodable("".join(out))


class _Raw:
    """Text already encoded (punctuation between values)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def dumps_fast(data: Any) -> str:
    """The same text as ``dumps``, written by the C encoder when the nesting allows (a server's answers)."""
    try:
        return _encodable(json.dumps(data, ensure_ascii=False))
    except RecursionError:  # a term nested deeper than the C encoder goes
        return dumps(data)


def emit_json(data: object) -> None:
    """Print ``data`` with the one JSON encoding of every command (terms through ``term``)."""
    import click

    click.echo(dumps_fast(data))  # a command runs on rofl.deep's large stack, where the C encoder goes deep
