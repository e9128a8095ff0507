"""The book of an MCP server, from its own tool list: one capability per tool, its class from the tool's annotations, its arguments and answer columns from the tool's schemas, and the tools' version.

A tool marked ``readOnlyHint`` is ``reads``; any other (``destructiveHint``, ``openWorldHint``, or no
annotation at all, which MCP reads as possibly destructive) is ``does``.  The tool's required inputs
become its arguments (a string is ``text``, a date or date-time string ``time``, an integer
``number``, anything else ``json``); its optional ones are listed in a comment with the lines that
would add them.  Its output schema gives the answer columns: an object with one array property of
objects is rows of that array (``mcp_rows``) with a column per property of an item; any other object a
column per property; no schema one column holding the whole result.  ``version`` is a digest of every
tool's name, title, description, schemas and annotations: it changes when the server's tools change,
and the book's own version (``mcp_version``) with it.  Everything the server says is written as a
string literal or a one-line comment, so a hostile description cannot add a declaration.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rofl.engine.lexer import is_name
from rofl.engine.terms import quote

from .books import RESERVED_BOOKS, Secret

KEYWORDS = frozenset(("not", "is", "mod", "want", "bridge"))
DESCRIPTION = 100  # characters of a tool's description kept in its comment
_VERSIONED = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


def version(tools: Sequence[Mapping]) -> str:
    """A digest of the server's tools (what a book is made from): it changes when any tool does."""
    shown = sorted(({k: t[k] for k in _VERSIONED if k in t} for t in tools), key=lambda t: str(t.get("name")))
    text = json.dumps(shown, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def klass(tool: Mapping) -> str:
    """``reads`` for a tool marked read-only, else ``does``."""
    annotations = tool.get("annotations") or {}
    return "reads" if annotations.get("readOnlyHint") is True else "does"


def atom(text: str, taken: set[str], fallback: str) -> str:
    """``text`` as a ROFL name not in ``taken`` (added to it): other characters become ``_``, a first
    capital its small letter, a name that still does not start with a letter gets ``fallback_`` before
    it, a keyword ``_`` after it, and a name taken ``_2``, ``_3``... after it."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)
    name = name[:1].lower() + name[1:]
    if not is_name(name):
        name = f"{fallback}_{name}".rstrip("_") if name else fallback
    if name in KEYWORDS:
        name += "_"
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def book_name(text: str | None) -> str:
    """A book name from the server's own name (``mcp`` when it has none, never a reserved perspective)."""
    name = atom(text or "mcp", set(), "mcp")
    return f"{name}_mcp" if name in RESERVED_BOOKS else name


def _resolve(schema: object, root: Mapping, depth: int = 0) -> dict:
    """``schema`` with a local ``$ref`` followed, and a nullable ``anyOf`` read as its one other type."""
    if not isinstance(schema, dict) or depth > 20:
        return {}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: object = root
        for part in ref[2:].split("/"):
            target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
        return _resolve(target, root, depth + 1)
    options = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(options, list):
        kept = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(kept) == 1:
            return _resolve(kept[0], root, depth + 1)
    return schema


def arg_type(schema: object, root: Mapping) -> str:
    """The ROFL argument type a tool input of this JSON Schema is given as."""
    resolved = _resolve(schema, root)
    kind = resolved.get("type")
    if kind == "string":
        return "time" if resolved.get("format") in ("date-time", "date") else "text"
    if kind == "integer":
        return "number"
    return "json"


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _comment(text: object) -> str:
    line = " ".join(str(text or "").split())
    return line if len(line) <= DESCRIPTION else line[: DESCRIPTION - 3] + "..."


def _variable(text: str) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", text) if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or "X"
    return name if name[0].isalpha() else "V" + name


@dataclass(frozen=True, slots=True)
class Columns:
    """Where a tool's answer columns come from: the rows pointer (or None) and ``(label, pointer)`` per column."""

    rows: str | None
    fields: tuple[tuple[str, str], ...]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def columns(output: object) -> Columns:
    """The answer columns of a tool with output schema ``output`` (see the module's docstring)."""
    if not isinstance(output, dict):
        return Columns(None, (("Result", ""),))
    root = _resolve(output, output)
    props = root.get("properties")
    if not isinstance(props, dict) or not props:
        return Columns(None, (("Result", ""),))
    arrays = [k for k, v in props.items() if _resolve(v, output).get("type") == "array"]
    if len(arrays) == 1:
        key = arrays[0]
        items = _resolve(_resolve(props[key], output).get("items"), output)
        inner = items.get("properties")
        if isinstance(inner, dict) and inner:
            return Columns(f"/{_escape(key)}", tuple((k, f"/{_escape(k)}") for k in inner))
        if len(props) == 1:
            return Columns(f"/{_escape(key)}", (("Item", ""),))
    return Columns(None, tuple((k, f"/{_escape(k)}") for k in props))


def book_text(
    name: str, address: str, tools: Sequence[Mapping], secrets: Sequence[Secret] = (), prefix: str = ""
) -> str:
    """The book of a server at ``address`` listing ``tools``: ``secrets`` (``Secret.book`` and
    ``scheme`` are filled in here) go with every capability; ``prefix`` starts every capability name."""
    lines = [
        f"-- The book of the MCP server at {_comment(address)}, made from its own tool list by `rofl adapter mcp`.",
        "-- Make it again when the server changes: mcp_version changes with the server's tools.",
        f"imports(main, {name}).",
        f"adapter({name}, mcp, {quote(address)}).",
        f"mcp_version({name}, {quote(version(tools))}).",
    ]
    schemes: set[str] = set()
    needs = []
    for secret in secrets:
        scheme = atom(secret.how, schemes, "key")
        needs.append(scheme)
        lines.append(f"http_auth({name}, {scheme}, {secret.how}, {quote(secret.name)}, {quote(secret.env)}).")
    caps: set[str] = set()
    for tool in sorted(tools, key=lambda t: str(t.get("name"))):
        tool_name = str(tool.get("name", ""))
        cap = atom(prefix + tool_name, caps, "tool")
        lines += ["", f"-- {cap}: {_comment(tool.get('description') or tool.get('title') or tool_name)}"]
        lines.append(f"capability({cap}, {name}, {klass(tool)}).")
        lines.append(f"mcp_tool({cap}, {quote(tool_name)}).")
        schema = _dict(tool.get("inputSchema"))
        props = _dict(schema.get("properties"))
        listed = schema.get("required")
        required = [r for r in listed if isinstance(r, str)] if isinstance(listed, list) else []
        ordered = [k for k in props if k in required] + [r for r in required if r not in props]
        arg_names: set[str] = set()
        labels = []
        for pos, field in enumerate(ordered, 1):
            arg = atom(field, arg_names, "arg")
            labels.append(_variable(field))
            lines.append(f"arg({cap}, {pos}, {arg}, {arg_type(props.get(field), schema)}).")
            lines.append(f"mcp_arg({cap}, {pos}, {quote(field)}).")
        for pos, field in enumerate((k for k in props if k not in required), len(ordered) + 1):
            arg = atom(field, arg_names, "arg")
            kind = arg_type(props.get(field), schema)
            lines.append(
                f"-- optional input {_comment(field)}: add arg({cap}, {pos}, {arg}, {kind}). "
                f"mcp_arg({cap}, {pos}, {quote(field)})."
            )
        cols = columns(tool.get("outputSchema"))
        rel = f"{cap}_result"
        heads = ", ".join(["W", *(_variable(label) for label, _ in cols.fields)])
        lines.append(f"answers({cap}, {rel}, {len(cols.fields) + 1}).  -- {rel}[{name}]({heads})")
        if cols.rows is not None:
            lines.append(f"mcp_rows({cap}, {quote(cols.rows)}).")
        for col, (_, path) in enumerate(cols.fields, 2):
            lines.append(f"mcp_field({cap}, {col}, {quote(path)}).")
        lines += [f"http_needs({cap}, {scheme})." for scheme in needs]
        head = f"{cap}({', '.join(labels)})" if labels else cap
        lines.append(f"-- ask: want {head} :- ...  (each answer: {rel}[{name}]({heads}))")
    return "\n".join(lines) + "\n"
