"""The executions plane described: its operations (one table every transport reads), the commands it runs with
their argument schemas and cancellation, the states, and the event schema.

The plane's own API is six operations, ``executions.start``, ``.list``, ``.get``, ``.events``,
``.cancel`` and ``.protocol``.  Each one is an HTTP route of ``rofl server`` (``servers.http``), an MCP
tool named with ``_`` for ``.`` (``servers.mcp``) and a subcommand of ``rofl executions``, which calls
the HTTP route (``rofl.commands.executions``).  Nothing here names what can run: that is the commands
table (``servers.commands.served``, read from the command line itself), described by
``GET /protocol`` with each command's schema and whether its handler can be cancelled.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rofl.engine.base import events

from .commands import QUICK, cancellation, schema, served
from .event_schema import event_schema

PROTOCOL_VERSION = 1
DEFAULT_PAGE = 50  # executions per page of a listing, unless the client asks for fewer or more
MAX_PAGE = 256
MAX_EVENTS = 1000  # events per answer of executions.events (over MCP and as JSON); the stream has no limit
MAX_WAIT_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation of the plane: its name, HTTP route, what it does, and its arguments' JSON Schema."""

    name: str
    method: str
    path: str
    summary: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()

    @property
    def tool(self) -> str:
        """Its MCP tool's name (``executions_start``)."""
        return self.name.replace(".", "_")

    @property
    def subcommand(self) -> str:
        """Its ``rofl executions`` subcommand (``start``)."""
        return self.name.split(".", 1)[1]

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": dict(self.arguments),
            "required": list(self.required),
            "additionalProperties": False,
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "http": f"{self.method} {self.path}",
            "mcp_tool": self.tool,
            "command_line": f"rofl executions {self.subcommand}",
            "summary": self.summary,
            "arguments": self.input_schema(),
        }


_ID = {"type": "string", "description": "The execution's id, as executions.start or executions.list gave it."}
_STATES = (events.RUNNING, *events.ENDS)
OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "executions.start",
        "POST",
        "/executions",
        "Start a command as an execution: answers its id and state at once; follow it with executions.events "
        "or executions.get.",
        {
            "command": {"type": "string", "description": "A command the server runs (executions.protocol lists them)."},
            "args": {
                "type": "object",
                "description": "The command's arguments, named as on the command line (its schema in executions.protocol).",
            },
        },
        ("command",),
    ),
    Operation(
        "executions.list",
        "GET",
        "/executions",
        "The executions this server keeps, newest first, filtered by state and command and cut to pages.",
        {
            "state": {
                "type": "array",
                "items": {"type": "string", "enum": list(_STATES)},
                "description": "Only executions in these states (HTTP: ?state=running,failed or repeated).",
            },
            "command": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Only executions of these commands.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_PAGE,
                "default": DEFAULT_PAGE,
                "description": "Executions per page at most.",
            },
            "cursor": {"type": "string", "description": "next_cursor of the previous page: the page after it."},
        },
    ),
    Operation(
        "executions.get",
        "GET",
        "/executions/{id}",
        "One execution: its command, arguments, state, whether it can be cancelled, and once it ended its "
        "result (succeeded), error and exit code (failed) or reason (cancelled).",
        {"id": _ID},
        ("id",),
    ),
    Operation(
        "executions.events",
        "GET",
        "/executions/{id}/events",
        "An execution's events after a sequence number (HTTP: a Server-Sent Events stream that ends with the "
        "execution, resumed with Last-Event-ID or ?after=N); each event validates against the protocol's "
        "event schema.",
        {
            "id": _ID,
            "after": {
                "type": "integer",
                "minimum": 0,
                "default": 0,
                "description": "The last sequence number already read (0: from the first event).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_EVENTS,
                "default": MAX_EVENTS,
                "description": "Events per answer at most (MCP).",
            },
            "wait": {
                "type": "number",
                "minimum": 0,
                "maximum": MAX_WAIT_SECONDS,
                "default": 0,
                "description": "Seconds to wait for a new event when there is none after `after` yet (MCP).",
            },
        },
        ("id",),
    ),
    Operation(
        "executions.cancel",
        "DELETE",
        "/executions/{id}",
        "Ask an execution to stop at its handler's next safe point (202, cancel_requested). Refused with a "
        "reason (409) when its command checks no cancel flag or it has already ended; never reported done "
        "before it stopped: executions.get says when it is cancelled.",
        {"id": _ID},
        ("id",),
    ),
    Operation(
        "executions.protocol",
        "GET",
        "/protocol",
        "This description: the operations, the commands with their argument schemas and cancellation, the "
        "states and the JSON Schema of an event.",
    ),
)
BY_NAME: Mapping[str, Operation] = {op.name: op for op in OPERATIONS}
BY_TOOL: Mapping[str, Operation] = {op.tool: op for op in OPERATIONS}

STATES = {
    events.RUNNING: "started and not ended (it may wait for a worker); the only state that changes",
    events.SUCCEEDED: "the command answered (exit code 0, 1 or 3 as on the command line): `result` holds it",
    events.FAILED: "the command failed: `error` (one line) and `code` (its exit code on the command line)",
    events.CANCELLED: "stopped at a safe point after a cancel: `reason`; nothing it would have written was",
}
ERRORS = {
    "400": "the call is wrong (unknown command or argument, bad value): the error names the fix",
    "404": "no such execution or command",
    "409": "refused in this state: a scan is running, no scan yet, or a cancel the execution cannot take",
    "429": "too many executions wait or run",
}


def command_entry(name: str) -> dict[str, Any]:
    """What the protocol says of one command."""
    return {"name": name, "quick": name in QUICK, "cancel": cancellation(name), "arguments": schema(name)}


@functools.lru_cache(maxsize=1)
def protocol() -> dict[str, Any]:
    """The description ``executions.protocol`` answers (the same on every transport)."""
    return {
        "protocol": "rofl executions",
        "version": PROTOCOL_VERSION,
        "event_version": events.EVENT_VERSION,
        "operations": [op.as_json() for op in OPERATIONS],
        "commands": [command_entry(name) for name in served()],
        "states": dict(STATES),
        "errors": dict(ERRORS),
        "event": event_schema(),
    }
