"""The MCP server: scan, impact, why, whynot, ask, cycles, audit and relations as tools for coding agents.

Built on the official ``mcp`` SDK's low-level server.  Each tool is the command of the same name run
as an execution (``servers.executions``), so its input schema is derived from the command's click
parameters (named as on the command line: ``tests``, ``packages``, ``git_base``), with ``limit`` and
``cursor`` added; its structured output is the command's own JSON answer, cut to a page
(``servers.mcp_pages``), with its exit code, stderr lines and page totals, described field by field in
the tool's output schema.  The text content is one summary line, never the JSON again (a client that
negotiated a protocol older than 2025-06-18, which has no structured content, gets the page as JSON
text instead).  Progress: a call with a progress token hears ``notifications/progress`` at once, then
the command's own progress (a scan's files) or, for a tool that reports none, the seconds it has run;
a cancelled request (``notifications/cancelled``) cancels the execution, and the SDK sends no response
for it.  Over stdio by default (a request the SDK cannot read answered by ``servers.mcp_stdio``), or
streamable HTTP behind ``servers.http.Guard``.  The executions plane's own tools (``executions_start``,
``_list``, ``_get``, ``_events``, ``_cancel``, ``_protocol``) are ``servers.mcp_executions``.  Lone
surrogates in an answer are spelled ``\\u{HEX}`` (``servers.wiretext``): the SDK encodes strictly.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from rofl.engine.base import events

from . import mcp_executions, mcp_pages, wiretext
from .commands import BadRequest, cli_command, schema
from .executions import Executions
from .setup import READ_SECONDS

TOOLS = ("scan", "impact", "why", "whynot", "ask", "cycles", "audit", "relations")
HEARTBEAT_SECONDS = 1.0  # a tool with no progress of its own reports the seconds it has run this often
STRUCTURED_SINCE = "2025-06-18"  # the protocol revision that added structuredContent and outputSchema

RELATIONS = (
    "The code relations (use them in ask, why and whynot; paths are relative to the scanned folder): "
    "dependency[code](A, B) file A imports file B (resolved, any kind); depends_on[code](A, B) A depends on B "
    "directly or through other files; used_by[code](B, A) the reverse of dependency; runtime_dependency[code] "
    "and runtime_depends_on[code] the same over runtime imports only (no `import type`, no .d.ts); "
    "in_cycle[code](F) F is on an import cycle; src_file[code](F, Hash) a scanned file; "
    "src_import[code](F, Spec) a module specifier F imports; src_resolves[code](F, Spec, Target) what it "
    "resolves to; src_import_kind[code](F, Spec, Kind) Kind static, type, dynamic, require, reexport or "
    "side_effect; src_import_line[code](F, Spec, Line); src_export[code](F, Name) an exported name "
    "(default for the default export); export_provided[code](F, Name) names F provides, through export * "
    "too; imported[code](F) F is imported by some file; unfollowed_alias[code] and virtual_module[code] "
    "imports rofl cannot follow.  Findings are violation[audit](...) and the other [audit] relations."
)
PAGING = (
    "Answers are bounded: each top-level list holds at most `limit` items (default 50); page.totals gives "
    "each list's full length, and page.next_cursor, passed back as `cursor` with the same arguments, the next "
    "items. Lists deeper in are cut at `limit` and named in `truncated`."
)
DESCRIPTIONS = {
    "scan": (
        "Scan the server's source folder (--src) into its fact folder, incrementally (only changed files are "
        "parsed). Call it first when the folder holds no scan yet (every other tool says so), and after large "
        "edits; impact rescans by itself. Reports progress per file; cancellable."
    ),
    "impact": (
        "Which files a change affects: every file that imports a changed path directly or through other files, "
        "each with `via`, its chain of imports back to a changed path, and a summary by package. Use it before "
        "editing a file (what may break), or to choose the tests to run (`tests`: only test files), or the "
        "packages to rebuild (`packages`). Give `changed` (paths relative to the scanned folder; FILE:NAME "
        "with `symbols`) or `git_base` (changed against a git ref). It rescans changed sources first "
        "(`no_rescan` to skip)."
    ),
    "why": (
        "Prove a fact: one derivation tree of FACT down to base facts (the scanner's imports and exports). Use "
        "it to learn why file A depends on B, or why a file is on a cycle, e.g. "
        'why \'depends_on[code]("src/a.ts", "src/z.ts")\'. exit_code 1: the fact does not hold (try whynot). '
        "The code relations are listed in the description of ask."
    ),
    "whynot": (
        "Explain a missing fact: for each rule that could conclude FACT, the premise that fails. Use it when "
        "you expected an import, a dependency or a finding that is not there. exit_code 1: the fact holds. "
        "The code relations are listed in the description of ask."
    ),
    "ask": (
        "Answer a query over the scan's facts and rules: every binding of its variables, e.g. "
        "'dependency[code](\"src/a.ts\", B)' (what a.ts imports) or 'used_by[code](\"src/a.ts\", A)' (who "
        "imports it). exit_code 1: no answer. " + RELATIONS
    ),
    "cycles": (
        "Import cycles: each strongly connected component of the import graph with its files, a shortest cycle "
        "through each file, and `cut`, a smallest set of imports to remove to break every cycle, each with the "
        "import's file and line. Use it before untangling or when a bundler warns of a circular import. "
        "exit_code 1: cycles found; `runtime` ignores type-only imports."
    ),
    "audit": (
        "Run the audits: the boot audits, the presets turned on in the project and any [audit] rules given in "
        "`rules` (layering: which folders may not import which); each finding with its file, line and "
        "severity. Use it to check a change against the project's architecture rules. exit_code 1: findings "
        "at `fail_on` or above."
    ),
    "relations": (
        "List every relation the scan and its rules define: perspective, arity, rows and meaning. The main code "
        "relations are named in the descriptions of ask, why and whynot; call this only for the rest."
    ),
}


def _field(description: str, kind: Any = None, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description}
    if kind is not None:
        out["type"] = kind
    out.update(more)
    return out


def _obj(description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "description": description, "properties": properties}


def _list(description: str, items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "description": description, "items": items}


_TRUNCATED = _field("Lists of this object cut at `limit` items: each one's full length.", "object")
PAGE_SCHEMA = _obj(
    "Which part of the answer this is.",
    {
        "offset": _field("The index of the first item of each top-level list.", "integer"),
        "limit": _field(
            "Items per list at most: the limit asked, or less when that page would pass limit * 800 bytes.", "integer"
        ),
        "totals": _field(
            "Each top-level list's full length (a list of an object as object.list; for why and whynot: nodes).",
            "object",
            additionalProperties={"type": "integer"},
        ),
        "next_cursor": _field(
            "Pass as `cursor`, with the same arguments, for the next items; null at the end.", ["string", "null"]
        ),
    },
)
SUMMARY_SCHEMA = _obj(
    "impact's affected files by package, counted over every affected file (not only this page).",
    {
        "affected": _field("Affected files in all.", "integer"),
        "package_count": _field("Packages (or top folders) holding them, in all.", "integer"),
        "packages": _list(
            "The packages holding them, the largest count first (at most `limit`).",
            _obj(
                "One package.",
                {
                    "package": _field(
                        "The workspace package's name; null for files in no package.", ["string", "null"]
                    ),
                    "folder": _field(
                        "The package's folder, or the files' top folder when they lie in no package.", "string"
                    ),
                    "affected": _field("Affected files in it.", "integer"),
                },
            ),
        ),
    },
)


def _answers() -> dict[str, dict[str, Any]]:
    """The output schema of every tool: derived from its question's answer type, the one registry
    ``--json`` uses too (seed 004), with the `truncated` lengths a page adds."""
    from rofl.questions.answer import json_schema
    from rofl.questions.ask import AskAnswer
    from rofl.questions.audit import AuditAnswer
    from rofl.questions.cycles import CyclesAnswer
    from rofl.questions.explain import WhyAnswer, WhynotAnswer
    from rofl.questions.impact import ImpactAnswer
    from rofl.questions.relations import RelationsAnswer
    from rofl.questions.scan import ScanAnswer

    types_ = {
        "scan": ScanAnswer,
        "impact": ImpactAnswer,
        "ask": AskAnswer,
        "cycles": CyclesAnswer,
        "audit": AuditAnswer,
        "relations": RelationsAnswer,
        "why": WhyAnswer,
        "whynot": WhynotAnswer,
    }
    return {name: _paged(json_schema(cls)) for name, cls in types_.items()}


def _paged(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with `truncated` beside every object's lists (a page cuts them), ``$schema`` dropped."""
    out = copy.deepcopy({k: v for k, v in schema.items() if k != "$schema"})
    stack = [out]
    while stack:
        node = stack.pop()
        props = node.get("properties")
        if isinstance(props, dict):
            if any(isinstance(v, dict) and v.get("type") == "array" for v in props.values()):
                props.setdefault("truncated", _TRUNCATED)
            stack.extend(v for v in props.values() if isinstance(v, dict))
        for key in ("items", "$defs"):
            child = node.get(key)
            if isinstance(child, dict):
                stack.extend(child.values() if key == "$defs" else [child])
        for option in node.get("anyOf", []):
            if isinstance(option, dict):
                stack.append(option)
    return out


OUTPUTS: dict[str, dict[str, Any]] = _answers()


def output_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of tool ``name``'s structured content: every field described."""
    answer = {k: v for k, v in OUTPUTS[name].items() if k != "$defs"}
    properties = {
        "exit_code": _field(
            "The command line's exit code for the same question (0 answers, 1 no answer or findings, 3 partial).",
            "integer",
        ),
        # the command's JSON answer; the text it printed when that was not JSON (it never is, but a schema
        # a client checks must not fail a call on it)
        "output": answer
        | {
            "type": ["object", "string"],
            "description": OUTPUTS[name].get("description", "The answer.") + " Cut to a page, as `page` says.",
        },
        "stderr": _list("Warnings and notes the command printed.", {"type": "string"}),
        "page": PAGE_SCHEMA,
    }
    if name == "impact":
        properties["summary"] = SUMMARY_SCHEMA
    out = {"type": "object", "properties": properties, "required": ["exit_code", "output", "stderr", "page"]}
    if "$defs" in OUTPUTS[name]:  # a `#/$defs/...` reference resolves against the whole schema
        out["$defs"] = OUTPUTS[name]["$defs"]
    return out


PAGING_ARGUMENTS = {
    "limit": {
        "type": "integer",
        "minimum": 1,
        "maximum": mcp_pages.MAX_LIMIT,
        "default": mcp_pages.DEFAULT_LIMIT,
        "description": f"Items per list at most (default {mcp_pages.DEFAULT_LIMIT}); page.totals says how many there are.",
    },
    "cursor": {
        "type": "string",
        "description": "page.next_cursor of a previous answer to the same call (same arguments): the next items.",
    },
}
# server-set: the answer is always JSON (the structured content)
NOT_OFFERED = ("format",)


def input_schema(name: str) -> dict[str, Any]:
    """The command's argument schema, ``format`` left out (answers are JSON), ``limit`` and ``cursor`` added."""
    out = schema(name)
    properties = {k: v for k, v in out["properties"].items() if k not in NOT_OFFERED}
    properties.update(PAGING_ARGUMENTS)
    return out | {"properties": properties}


def tool(name: str) -> types.Tool:
    """The MCP description of the command ``name``: what it answers and when to use it, and its schemas."""
    cli_command(name)  # a tool is a served command
    # every tool but scan only reads; scan rewrites the fact folder, and a second one changes nothing more
    hints = types.ToolAnnotations(
        read_only_hint=name != "scan", destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    text = f"{DESCRIPTIONS[name]} {PAGING}" if name != "scan" else DESCRIPTIONS[name]
    return types.Tool(
        name=name,
        description=text,
        input_schema=input_schema(name),
        output_schema=output_schema(name),
        annotations=hints,
    )


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=wiretext.encodable(message))], is_error=True)


def summary_line(name: str, structured: dict[str, Any]) -> str:
    """The text content of an answer: one line saying what it holds and how to get the rest."""
    output, page = structured["output"], structured["page"]
    totals: dict[str, int] = page["totals"]
    out = output if isinstance(output, dict) else {}
    if name == "impact":
        summary = structured.get("summary") or {}
        packages = summary.get("package_count") or 0
        what = f"{totals.get('affected', 0)} file(s) affected by {len(out.get('changed') or [])} changed path(s)"
        what += f" in {packages} package(s)" if packages else ""
    elif name == "scan":
        what = f"{out.get('files', 0)} file(s) scanned, {out.get('parsed', 0)} parsed, {out.get('removed', 0)} removed"
    elif name in ("why", "whynot") and "holds" in out:
        what = f"{out.get('fact', '')} {'holds' if out['holds'] else 'does not hold'}"
    elif name in ("why", "whynot"):
        what = f"{out.get('kind', '?')} {out.get('fact', '')}: {totals.get('nodes', 0)} node(s) in the tree"
    elif name == "ask":
        what = f"{totals.get('answers', 0)} answer(s)"
    elif name == "cycles":
        what = f"{totals.get('components', 0)} component(s) of files on import cycles"
    elif name == "audit":
        what = f"{totals.get('findings', 0)} finding(s)"
    else:
        what = f"{totals.get('relations', 0)} relation(s)"
    first = page["offset"] + 1
    if page["next_cursor"]:
        rest = f"; items {first}-{page['offset'] + page['limit']} of each list shown, pass cursor {page['next_cursor']} for more"
    else:
        rest = f"; from item {first} on, complete" if page["offset"] else ""
    return f"{name}: {what} (exit code {structured['exit_code']}){rest}; the answer is in structuredContent"


def _workspace(executions: Executions) -> dict[str, str] | None:
    from rofl.loading.factdir import read_manifest

    try:
        manifest = read_manifest(executions.session.facts)
    except (OSError, ValueError):
        return None
    return dict(manifest.packages)


def answer(
    name: str, result: dict[str, Any], paging: mcp_pages.Paging, workspace: dict[str, str] | None
) -> dict[str, Any]:
    """The structured content of a finished call: its page, exit code, stderr and (impact) summary by package."""
    cut = mcp_pages.page(name, result["output"], paging)
    out: dict[str, Any] = {
        "exit_code": result["exit_code"],
        "output": cut.output,
        "stderr": list(result["stderr"])[: paging.limit],
        "page": cut.as_json(paging),
    }
    if name == "impact":
        packages = mcp_pages.package_summary(result["output"], workspace) or []
        affected = result["output"].get("affected") if isinstance(result["output"], dict) else None
        out["summary"] = {
            "affected": len(affected) if isinstance(affected, list) else 0,
            "package_count": len(packages),
            "packages": packages[: paging.limit],
        }
    return out


def build_server(executions: Executions) -> Server[Any]:
    """The MCP server over ``executions`` (one session, one fact folder)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool(name) for name in TOOLS] + mcp_executions.tools())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if mcp_executions.is_plane_tool(params.name):  # the executions plane: start, list, get, events, cancel
            return await mcp_executions.call(executions, params.name, params.arguments or {}, _structured(ctx))
        if params.name not in TOOLS:
            known = (*TOOLS, *(t.name for t in mcp_executions.tools()))
            return _error(f"unknown tool {params.name!r}; the tools are {', '.join(known)}")
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[events.Event] = asyncio.Queue()

        def listener(event: events.Event) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, event)

        arguments = dict(params.arguments or {})
        bad = wiretext.refusal(arguments, "arguments")
        if bad is not None:
            return _error(bad)
        for key in NOT_OFFERED:
            if key in arguments:
                return _error(
                    f"{params.name}: '{key}' is not an argument here: the answer is always JSON (structuredContent)"
                )
        try:
            paging = mcp_pages.paging(params.name, arguments)
            execution = executions.start(params.name, arguments, listeners=(listener,))
        except (BadRequest, ValueError) as err:
            return _error(str(err))
        progress = _Progress(ctx, params.name)
        # one get at a time, waited on with a timeout but never cancelled by it (so no event is lost)
        getter: asyncio.Future[events.Event] | None = None
        try:
            await progress.started()
            while True:
                getter = getter or asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter}, timeout=HEARTBEAT_SECONDS)
                if not done:
                    await progress.beat()
                    continue
                event, getter = getter.result(), None
                if isinstance(event.payload, events.Progress):
                    await progress.report(event.payload)
                if event.terminal:
                    break
        except BaseException:  # the request was cancelled (or the connection lost): stop the execution too
            execution.cancel("the MCP request was cancelled")
            if getter is not None:
                getter.cancel()
            raise
        view = execution.view()
        if view["state"] != events.SUCCEEDED:
            return _error(view.get("error") or view.get("reason") or view["state"])
        workspace = _workspace(executions) if params.name == "impact" else None
        structured = wiretext.encodable(answer(params.name, view["result"], paging, workspace))
        if not _structured(ctx):
            return types.CallToolResult(content=[types.TextContent(text=wiretext.json_text(structured))])
        return types.CallToolResult(
            content=[types.TextContent(text=wiretext.encodable(summary_line(params.name, structured)))],
            structured_content=structured,
        )

    return Server("rofl", on_list_tools=list_tools, on_call_tool=call_tool)


def _structured(ctx: Any) -> bool:
    """Whether the session's protocol revision has structured content (2025-06-18 and later)."""
    from mcp_types.version import is_version_at_least

    version = getattr(ctx, "protocol_version", None)
    return not isinstance(version, str) or is_version_at_least(version, STRUCTURED_SINCE)


class _Progress:
    """The progress notifications of one call (when its request carried a progress token): a first one at
    once, then the command's own (a scan's files), or the seconds run for a command that reports none
    (impact's rescan and its question report none);
    each notification's progress greater than the last, as the protocol asks."""

    def __init__(self, ctx: Any, name: str) -> None:
        self._ctx = ctx
        self._name = name
        self._last: float = -1.0
        # the command reports progress of its own (a scan's files, from the start): no heartbeats
        self._own = name == "scan"
        self._seconds = 0

    async def _send(self, done: float, total: float | None, message: str) -> None:
        if done <= self._last:
            return
        self._last = done
        await self._ctx.session.report_progress(done, total, wiretext.encodable(message) or None)

    async def started(self) -> None:
        await self._send(0, None, f"{self._name}: started")

    async def beat(self) -> None:
        if self._own:
            return
        self._seconds += 1
        await self._send(self._seconds, None, f"{self._name}: running for {self._seconds}s")

    async def report(self, payload: events.Progress) -> None:
        self._own = True
        await self._send(payload.done, payload.total or None, payload.label or self._name)


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
    """Serve streamable HTTP at ``/mcp``, and beside it the routes of ``rofl server`` over the same
    executions (so ``rofl executions --server URL`` and an HTTP client see what the MCP client started):
    the trust boundary, the bearer token and the read bounds checked as by ``rofl server``
    (``servers.http.Guard``)."""
    from starlette.middleware import Middleware

    from .http import Guard, routes
    from .setup import serve_app

    app = build_server(executions).streamable_http_app(host=host, custom_starlette_routes=routes(executions))
    guard = Middleware(Guard, token=token, host=host, max_body=4 * 1024 * 1024, read_seconds=read_seconds)
    app.user_middleware.insert(0, guard)
    serve_app(app, host, port, "rofl mcp", executions, read_seconds, path="/mcp")
