"""The MCP server: impact, why, whynot, ask, relations, audit and scan as tools for coding agents.

Built on the official ``mcp`` SDK's low-level server.  Each tool is the command of the same name run
as an execution (``servers.executions``), so its input schema is derived from the command's click
parameters and its structured output is the command's own JSON answer with its exit code and stderr
lines.  A tool's progress events become MCP progress notifications (when the client sent a progress
token); a cancelled request cancels the execution.  Over stdio by default (a request the SDK cannot
read answered by ``servers.mcp_stdio``), or streamable HTTP behind ``servers.http.Guard``.  Lone
surrogates in an answer are spelled ``\\u{HEX}`` (``servers.wiretext``): the SDK encodes strictly.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from engine import events

from . import wiretext
from .commands import BadRequest, cli_command, schema
from .executions import Executions
from .setup import READ_SECONDS

TOOLS = ("impact", "why", "whynot", "ask", "relations", "audit", "scan")
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "exit_code": {"type": "integer", "description": "The command line's exit code for the same question."},
        "output": {"description": "The command's --json answer."},
        "stderr": {"type": "array", "items": {"type": "string"}, "description": "Warnings and notes it printed."},
    },
    "required": ["exit_code", "output", "stderr"],
}


def tool(name: str) -> types.Tool:
    """The MCP description of the command ``name``: its help and its argument schema."""
    command = cli_command(name)
    text = (command.help or command.short_help or name).strip()
    # every tool but scan only reads; scan rewrites the fact folder, and a second one changes nothing more
    hints = types.ToolAnnotations(
        read_only_hint=name != "scan", destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    return types.Tool(
        name=name, description=text, input_schema=schema(name), output_schema=OUTPUT_SCHEMA, annotations=hints
    )


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=wiretext.encodable(message))], is_error=True)


def build_server(executions: Executions) -> Server[Any]:
    """The MCP server over ``executions`` (one session, one fact folder)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool(name) for name in TOOLS])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS:
            return _error(f"unknown tool {params.name!r}; the tools are {', '.join(TOOLS)}")
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[events.Event] = asyncio.Queue()

        def listener(event: events.Event) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, event)

        arguments = dict(params.arguments or {})
        bad = wiretext.refusal(arguments, "arguments")
        if bad is not None:
            return _error(bad)
        try:
            execution = executions.start(params.name, arguments, listeners=(listener,))
        except BadRequest as err:
            return _error(str(err))
        try:
            while True:
                event = await queue.get()
                if isinstance(event.payload, events.Progress):
                    message = wiretext.encodable(event.payload.label) or None
                    await ctx.session.report_progress(event.payload.done, event.payload.total, message)
                if event.terminal:
                    break
        except BaseException:  # the request was cancelled (or the connection lost): stop the execution too
            execution.cancel("the MCP request was cancelled")
            raise
        view = execution.view()
        if view["state"] != events.SUCCEEDED:
            return _error(view.get("error") or view.get("reason") or view["state"])
        result = view["result"]
        return types.CallToolResult(
            content=[types.TextContent(text=wiretext.json_text(result["output"]))],
            structured_content=wiretext.encodable(result),
        )

    return Server("rofl", on_list_tools=list_tools, on_call_tool=call_tool)


def serve_stdio(executions: Executions) -> None:
    """Serve over stdin/stdout until the client closes them."""
    import anyio
    from mcp.server.stdio import stdio_server

    from .mcp_stdio import Answering

    server = build_server(executions)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(Answering(read, write), write, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        executions.shutdown()


def serve_http(
    executions: Executions, host: str, port: int, token: str | None, read_seconds: float = READ_SECONDS
) -> None:
    """Serve streamable HTTP at ``/mcp``: the trust boundary, the bearer token and the read bounds
    checked as by ``rofl server`` (``servers.http.Guard``)."""
    from starlette.middleware import Middleware

    from .http import Guard
    from .setup import serve_app

    app = build_server(executions).streamable_http_app(host=host)
    guard = Middleware(Guard, token=token, host=host, max_body=4 * 1024 * 1024, read_seconds=read_seconds)
    app.user_middleware.insert(0, guard)
    serve_app(app, host, port, "rofl mcp", executions, read_seconds, path="/mcp")
