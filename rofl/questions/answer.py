"""Answer values: a question returns a frozen dataclass; its JSON and its JSON Schema are derived from the type.

One registry (seed 004): ``--json`` of a command, the servers' answers and the MCP tools' output schemas all
come from the answer type, never from a second description written by hand.  A field's description is its
``doc(...)`` metadata; ``json=...`` renames it in JSON and ``omit_none=True`` leaves a None value out;
``skip()`` marks a field the renderers read that is not part of the JSON.
Every answer's JSON starts with ``"version"``: the answer type's ``VERSION``, raised when a field changes
meaning or goes away (a new field is no new version).
"""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Union

JSON = Any


def doc(
    description: str,
    *,
    json: str | None = None,
    omit_none: bool = False,
    inline: bool = False,
    default: Any = dataclasses.MISSING,
) -> Any:
    """A dataclass field with its description (and its JSON name, whether a None value is left out, and
    whether its object's keys join its parent's instead of nesting)."""
    metadata = {"doc": description, "json": json, "omit_none": omit_none, "inline": inline}
    if default is dataclasses.MISSING:
        return dataclasses.field(metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def skip(default: Any) -> Any:
    """A field for the renderers (text, CI formats) that the JSON leaves out."""
    return dataclasses.field(default=default, metadata={"skip": True})


class Answer:
    """What every answer type declares: its question's name, the version of its JSON, and one line on what
    it holds (the top description of its schema); and what every answer has: ``notes``, the lines the
    command line prints on stderr (a ``skip`` field), and ``status()``, its exit code (``rofl.questions.status.Exit``)."""

    __slots__ = ()
    QUESTION: ClassVar[str]
    VERSION: ClassVar[int] = 1
    ABOUT: ClassVar[str] = ""
    notes: tuple[str, ...]  # each answer type's own field: notes: tuple[str, ...] = skip(())

    def status(self) -> int:
        """The exit code of this answer (0 answers, 1 no answer or findings, 3 partial)."""
        raise NotImplementedError(f"{type(self).__name__} says no exit code; define status()")


_PLAIN = (str, int, float, bool, type(None))


def to_json(value: Any) -> JSON:
    """``value`` as JSON data: dataclasses as objects (field docs' names and omissions), tuples as lists,
    and a value that knows its JSON (a proof tree, answers built only when asked) by its ``__json__()``."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple or kind is list:
        return [v if type(v) in _PLAIN else to_json(v) for v in value]
    plan = _plans.get(kind)
    if plan is None:
        plan = _plan(kind)
    if plan is not _NOT_A_DATACLASS:
        if plan is _KNOWS_ITS_JSON:
            return value.__json__()
        out: dict[str, JSON] = {}
        for name, key, omit_none, inline in plan:
            item = getattr(value, name)
            if item is None and omit_none:
                continue
            if inline:  # its object's keys join this one's
                out.update(to_json(item))
                continue
            out[key] = item if type(item) in _PLAIN else to_json(item)
        return out
    if isinstance(value, (frozenset, set)):
        return [to_json(v) for v in sorted(value)]
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


_NOT_A_DATACLASS: Any = object()  # sentinels, never equal to a plan (an empty plan is a dataclass with no JSON fields)
_KNOWS_ITS_JSON: Any = object()
# per type, what its JSON reads: (field name, JSON key, omit when None, inline) for each field not skipped;
# types are few and never change, so the table is filled once per type (a cache, not state)
_plans: dict[type, Any] = {}


def _plan(kind: type) -> Any:
    if hasattr(kind, "__json__"):
        plan: Any = _KNOWS_ITS_JSON
    elif dataclasses.is_dataclass(kind):
        plan = tuple(
            (
                f.name,
                f.metadata.get("json") or f.name,
                bool(f.metadata.get("omit_none")),
                bool(f.metadata.get("inline")),
            )
            for f in dataclasses.fields(kind)
            if not f.metadata.get("skip")  # for the renderers, not part of the JSON
        )
    else:
        plan = _NOT_A_DATACLASS
    _plans[kind] = plan
    return plan


def answer_json(answer: Answer) -> dict[str, JSON]:
    """The JSON of a command's answer: ``version`` first, then the answer's fields."""
    body = to_json(answer)
    assert isinstance(body, dict)
    return {"version": type(answer).VERSION, **body}


_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def json_schema(cls: type) -> dict[str, JSON]:
    """The JSON Schema (2020-12) of an answer type's JSON, every field described."""
    schema = _object_schema(cls)
    schema["properties"] = {
        "version": {
            "type": "integer",
            "const": getattr(cls, "VERSION", 1),
            "description": "The version of this answer's JSON.",
        },
        **schema["properties"],
    }
    schema["required"] = ["version", *schema.get("required", [])]
    schema["$defs"] = _hoist_defs(schema)
    if not schema["$defs"]:
        del schema["$defs"]
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"rofl {getattr(cls, 'QUESTION', cls.__name__)} answer"
    return schema


def _hoist_defs(schema: dict[str, JSON]) -> dict[str, JSON]:
    """Every ``$defs`` inside ``schema`` moved to its root (a ``#/$defs/...`` reference resolves there)."""
    found: dict[str, JSON] = {}
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node is not schema and "$defs" in node:
                found.update(node.pop("$defs"))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    found.update(schema.get("$defs", {}))
    return found


def _object_schema(cls: type) -> dict[str, JSON]:
    hints = typing.get_type_hints(cls)
    properties: dict[str, JSON] = {}
    required: list[str] = []
    defs: dict[str, JSON] = {}
    for f in dataclasses.fields(cls):
        if f.metadata.get("skip"):
            continue
        if f.metadata.get("inline"):
            inner = _type_schema(hints[f.name])
            inner = next((o for o in inner.get("anyOf", [inner]) if o.get("type") == "object"), inner)
            properties.update(inner.get("properties", {}))
            defs.update(inner.get("$defs", {}))
            continue
        name = f.metadata.get("json") or f.name
        item = _type_schema(hints[f.name])
        if f.metadata.get("doc"):
            item = {**item, "description": f.metadata["doc"]}
        properties[name] = item
        if not f.metadata.get("omit_none"):
            required.append(name)
    about = getattr(cls, "ABOUT", "") or (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    out: dict[str, JSON] = {"type": "object", "properties": properties, "required": required}
    if about:
        out["description"] = about
    if defs:
        out["$defs"] = defs
    return out


def _type_schema(hint: Any) -> dict[str, JSON]:
    origin = typing.get_origin(hint)
    if isinstance(hint, type) and hasattr(hint, "JSON_SCHEMA"):  # a value that knows its JSON knows its schema
        return copy.deepcopy(hint.JSON_SCHEMA)
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    if hint is type(None):
        return {"type": "null"}
    if hint is Any or hint is object:
        return {}
    if origin in (Union, types.UnionType):
        options = [_type_schema(a) for a in typing.get_args(hint)]
        kinds = [o.get("type") for o in options]
        if all(isinstance(k, str) for k in kinds) and all(len(o) == 1 for o in options):
            return {"type": kinds}
        return {"anyOf": options}
    if origin in (tuple, list, frozenset, set, Sequence):
        args = typing.get_args(hint)
        if origin is tuple and args and args[-1] is not Ellipsis:
            return {"type": "array", "prefixItems": [_type_schema(a) for a in args], "items": False}
        return {"type": "array", "items": _type_schema(args[0]) if args else {}}
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        args = typing.get_args(hint)
        return {"type": "object", "additionalProperties": _type_schema(args[1]) if args else {}}
    if typing.get_origin(hint) is typing.Literal:
        return {"enum": list(typing.get_args(hint))}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _object_schema(hint)
    raise TypeError(f"no JSON Schema for {hint!r}: give the field a JSON type")
