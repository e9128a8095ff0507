"""The executions plane as MCP tools: ``executions_start``, ``_list``, ``_get``, ``_events``, ``_cancel``, ``_protocol``.

The installed ``mcp`` SDK (2.3) knows the 2025-11-25 protocol's task types but its server answers no
``tasks/*`` request, so the plane is offered as tools, one per operation of ``servers.protocol``, with the
operation's argument schema.  Each answers what the HTTP route answers, as structured content (and the
same JSON as text for a client older than structured content); a refusal is an error result whose text
is the HTTP error's line and whose structured content is ``{"error", "status"}``, the status HTTP gives.
The executions are the server's own: a tool call (``scan``, ``impact``, ...) is one of them too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import mcp_types as types
from rofl.engine.base import events

from . import wiretext
from .commands import BadRequest
from .executions import Execution, Executions
from .protocol import BY_TOOL, MAX_EVENTS, MAX_WAIT_SECONDS, OPERATIONS, Operation, protocol

READ_ONLY = ("executions.list", "executions.get", "executions.events", "executions.protocol")


def _f(description: str, kind: Any = None, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description}
    if kind is not None:
        out["type"] = kind
    return out | more


_STATE = _f("running, succeeded, failed or cancelled (only running changes).", "string")
_SUMMARY_FIELDS: dict[str, Any] = {
    "id": _f("The execution's id.", "string"),
    "command": _f("The command it runs.", "string"),
    "args": _f("Its arguments, as given.", "object"),
    "state": _STATE,
    "events": _f("How many events it has had (the last sequence number).", "integer"),
    "cancellable": _f("Whether its command checks a cancel flag (else a cancel is refused).", "boolean"),
    "started_at": _f("When it started (UTC, ISO 8601).", "string"),
    "cancel_requested": _f("While running after an accepted cancel: the reason recorded.", "string"),
    "error": _f("Failed: the one-line error.", "string"),
    "code": _f("Failed: the command line's exit code for the same failure.", "integer"),
    "reason": _f("Cancelled: why.", "string"),
}
_SUMMARY = {
    "type": "object",
    "description": "One execution, without its result.",
    "properties": _SUMMARY_FIELDS | {"exit_code": _f("Succeeded: the command's exit code.", ["integer", "null"])},
}
_VIEW = {
    "type": "object",
    "description": "One execution and, once it ended, how.",
    "properties": _SUMMARY_FIELDS
    | {"result": _f("Succeeded: {exit_code, output (the command's --json answer), stderr}.", "object")},
}


def output_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the structured content the plane's operation ``name`` answers."""
    from .event_schema import event_schema

    if name == "executions.start":
        return {"type": "object", "properties": {"id": _SUMMARY_FIELDS["id"], "state": _STATE}}
    if name == "executions.list":
        return {
            "type": "object",
            "properties": {
                "executions": _f("This page of the executions, newest first.", "array", items=_SUMMARY),
                "total": _f("How many executions match the filters, on every page.", "integer"),
                "next_cursor": _f("Pass as `cursor` for the next page; null on the last.", ["string", "null"]),
            },
        }
    if name == "executions.get":
        return _VIEW
    if name == "executions.events":
        event = {k: v for k, v in event_schema().items() if k not in ("$schema", "$id")}
        return {
            "type": "object",
            "properties": {
                "events": _f("The events after `after`, in order.", "array", items=event),
                "state": _STATE,
                "last_seq": _f("The execution's last sequence number so far; done when ended and reached.", "integer"),
            },
        }
    if name == "executions.cancel":
        return {
            "type": "object",
            "properties": {
                "id": _SUMMARY_FIELDS["id"],
                "state": _f("Its state now: running until its next safe point.", "string"),
                "cancel_requested": _f("The reason recorded.", ["string", "null"]),
            },
        }
    return {"type": "object", "description": "The plane described (executions.protocol): see its fields' own text."}


def tools() -> list[types.Tool]:
    """The plane's tools, described from its operations."""
    out = []
    for op in OPERATIONS:
        hints = types.ToolAnnotations(
            read_only_hint=op.name in READ_ONLY, destructive_hint=False, idempotent_hint=op.name != "executions.start"
        )
        text = f"{op.summary} (HTTP: {op.method} {op.path}; command line: rofl executions {op.subcommand})"
        out.append(
            types.Tool(
                name=op.tool,
                description=text,
                input_schema=op.input_schema(),
                output_schema=output_schema(op.name),
                annotations=hints,
            )
        )
    return out


def is_plane_tool(name: str) -> bool:
    return name in BY_TOOL


def refused(message: str, status: int) -> types.CallToolResult:
    text = wiretext.encodable(message)
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content={"error": text, "status": status}, is_error=True
    )


def answered(value: Any, structured: bool) -> types.CallToolResult:
    content = wiretext.encodable(value)
    text = wiretext.json_text(content)
    if not structured:
        return types.CallToolResult(content=[types.TextContent(text=text)])
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=content)


async def call(
    executions: Executions, name: str, arguments: Mapping[str, Any], structured: bool
) -> types.CallToolResult:
    """Run the plane's tool ``name``: its answer, or its refusal with the HTTP status."""
    op = BY_TOOL[name]
    bad = wiretext.refusal(dict(arguments), "arguments")
    if bad is not None:
        return refused(bad, 400)
    try:
        _check(op, arguments)
        value = await HANDLERS[op.name](executions, arguments)
    except BadRequest as err:
        return refused(str(err), err.status)
    return answered(value, structured)


def _check(op: Operation, arguments: Mapping[str, Any]) -> None:
    unknown = sorted(set(arguments) - set(op.arguments))
    if unknown:
        allowed = ", ".join(op.arguments) or "none"
        raise BadRequest(f"{op.tool}: unknown argument {unknown[0]!r}; it takes: {allowed}")
    missing = [k for k in op.required if k not in arguments]
    if missing:
        raise BadRequest(f"{op.tool}: missing argument {missing[0]!r}")


async def _start(executions: Executions, arguments: Mapping[str, Any]) -> Any:
    execution = executions.start(arguments.get("command"), arguments.get("args"))
    return {"id": execution.id, "state": execution.state}


async def _list(executions: Executions, arguments: Mapping[str, Any]) -> Any:
    return executions.listing(
        _strings("state", arguments.get("state")),
        _strings("command", arguments.get("command")),
        arguments.get("limit"),
        arguments.get("cursor"),
    )


async def _get(executions: Executions, arguments: Mapping[str, Any]) -> Any:
    return executions.find(arguments["id"]).view()


async def _cancel(executions: Executions, arguments: Mapping[str, Any]) -> Any:
    return executions.cancel(arguments["id"]).cancel_answer()


async def _protocol(executions: Executions, arguments: Mapping[str, Any]) -> Any:
    return protocol()


async def _events(executions: Executions, arguments: Mapping[str, Any]) -> Any:
    execution = executions.find(arguments["id"])
    after = _number("after", arguments.get("after", 0), 0, None, int)
    limit = _number("limit", arguments.get("limit", MAX_EVENTS), 1, MAX_EVENTS, int)
    wait = _number("wait", arguments.get("wait", 0), 0, MAX_WAIT_SECONDS, (int, float))
    found = execution.events_after(after, limit)
    if not found and wait > 0 and execution.state == events.RUNNING:
        found = await _waited(execution, after, limit, float(wait))
    return {"events": found, "state": execution.state, "last_seq": execution.reporter.last_seq}


async def _waited(execution: Execution, after: int, limit: int, seconds: float) -> list[dict[str, Any]]:
    """The events after ``after`` once one arrives, or none after ``seconds``; woken by the execution's reporter."""
    loop = asyncio.get_running_loop()
    arrived = asyncio.Event()

    def wake(event: events.Event) -> None:
        loop.call_soon_threadsafe(arrived.set)

    execution.reporter.subscribe(wake)
    try:
        found = execution.events_after(after, limit)  # one may have come before the subscription
        if not found:
            try:
                await asyncio.wait_for(arrived.wait(), seconds)
            except asyncio.TimeoutError:
                pass
            found = execution.events_after(after, limit)
        return found
    finally:
        execution.reporter.unsubscribe(wake)


def _strings(what: str, value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRequest(f"{what} must be a list of strings")
    return value


def _number(what: str, value: Any, low: float, high: float | None, kind: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, kind) or value < low or (high is not None and value > high):
        bound = f"from {low:g} to {high:g}" if high is not None else f"of at least {low:g}"
        raise BadRequest(f"{what} {value!r} is not a number {bound}")
    return value


HANDLERS: Mapping[str, Callable[[Executions, Mapping[str, Any]], Any]] = {
    "executions.start": _start,
    "executions.list": _list,
    "executions.get": _get,
    "executions.events": _events,
    "executions.cancel": _cancel,
    "executions.protocol": _protocol,
}
