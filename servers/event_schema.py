"""The JSON Schema of an execution event, derived from the types of ``engine.events``, never written by hand.

Each payload dataclass (``Started``, ``Progress``, ...) gives its ``data`` schema through pydantic's
``TypeAdapter`` (the same derivation the ``mcp`` SDK uses for every schema it publishes); the envelope's
fields come from ``Event``'s own fields, named as ``Event.as_json`` names them (``version`` is ``v``, the
payload is ``type`` and ``data``).  The result is one ``oneOf`` branch per payload type, so a validator
knows each type's data exactly.  ``tests/servers/test_executions_plane.py`` checks that every event
``as_json`` can give validates, and that the envelope names exactly the keys ``as_json`` writes.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from typing import Any

from rofl.engine.base import events

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = f"urn:rofl:execution-event:v{events.EVENT_VERSION}"
# Event's fields under the names as_json gives them; the payload field becomes "type" and "data"
ENVELOPE_NAMES = {"version": "v"}
PAYLOAD_FIELD = "payload"
DESCRIPTIONS = {
    "v": "The event format's version: a client refuses a version it does not know.",
    "seq": "The event's number within its execution: 1, 2, 3, ... with no gap (resume after the last one read).",
    "execution": "The id of the execution the event belongs to.",
}
# the text of each payload's fields (their types and defaults come from the dataclasses; a field with no
# text here is served without one, and tests/servers/test_executions_plane.py names it)
FIELD_TEXT = {
    ("started", "command"): "The command the execution runs.",
    ("started", "args"): "Its arguments, as the client gave them.",
    ("progress", "done"): "Units done so far (files, rounds, ticks).",
    ("progress", "total"): "Units in all (0 when not known).",
    ("progress", "label"): "What is counted (scanning, re-extracting, ...).",
    ("warning", "message"): "A line the command printed on stderr.",
    ("finished", "result"): "The command's answer: {exit_code, output (its --json answer), stderr}.",
    ("failed", "error"): "One line: what went wrong and how to fix it.",
    ("failed", "code"): "The command line's exit code for the same failure.",
    ("cancelled", "reason"): "Why it was cancelled.",
}


def _strip_titles(schema: Any) -> Any:
    """pydantic's schema without its generated ``title`` keys (a property is never named "title" here)."""
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def payload_schema(payload: type) -> dict[str, Any]:
    """The schema of one payload type's ``data``: its dataclass fields, derived by pydantic."""
    from pydantic import TypeAdapter

    derived: dict[str, Any] = _strip_titles(TypeAdapter(payload).json_schema())
    derived["additionalProperties"] = False
    kind = getattr(payload, "TYPE", payload.__name__)
    for name, prop in derived.get("properties", {}).items():
        if (kind, name) in FIELD_TEXT:
            prop["description"] = FIELD_TEXT[kind, name]
    derived["description"] = f"What a {kind} event says."
    derived.setdefault("required", [])
    return derived


def _envelope() -> tuple[dict[str, Any], list[str]]:
    """The envelope's properties and required names, from ``Event``'s fields but the payload."""
    from pydantic import TypeAdapter

    hints = typing.get_type_hints(events.Event)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for f in dataclasses.fields(events.Event):
        if f.name == PAYLOAD_FIELD:
            continue
        name = ENVELOPE_NAMES.get(f.name, f.name)
        prop: dict[str, Any] = _strip_titles(TypeAdapter(hints[f.name]).json_schema())
        if f.default is not dataclasses.MISSING:
            prop["const"] = f.default  # the version this server writes
        if name in DESCRIPTIONS:
            prop["description"] = DESCRIPTIONS[name]
        properties[name] = prop
        required.append(name)
    return properties, required


@functools.lru_cache(maxsize=1)
def event_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``Event.as_json``: one branch per payload type."""
    properties, required = _envelope()
    branches = []
    for name, payload in events.PAYLOADS.items():
        branch_properties = {
            **properties,
            "type": {"const": name, "description": "The kind of event; it says what `data` holds."},
            "data": payload_schema(payload),
        }
        branches.append(
            {
                "type": "object",
                "title": name,
                "properties": branch_properties,
                "required": [*required, "type", "data"],
                "additionalProperties": False,
            }
        )
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": SCHEMA_ID,
        "title": "rofl execution event",
        "description": (
            "One event of one execution. `type` is one of: "
            + ", ".join(events.PAYLOADS)
            + f"; the last event of an execution is one of {', '.join(events.END_STATE)} "
            "(its state then: " + ", ".join(f"{k} -> {v}" for k, v in events.END_STATE.items()) + ")."
        ),
        "oneOf": branches,
    }
