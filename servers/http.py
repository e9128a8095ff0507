"""The HTTP server: executions of the commands over one fact folder, their state, and a resumable event stream.

Routes (JSON in and out; every error is ``{"error": "<one line>"}`` with a 4xx status):

* ``POST /executions`` ``{"command": "impact", "args": {...}}`` -> 202 ``{"id", "state"}``
* ``GET /executions?state=running&command=scan&limit=20&cursor=C`` -> the kept executions, newest first,
  ``{"executions", "total", "next_cursor"}``
* ``GET /executions/{id}`` -> its state, and its result once it ended
* ``DELETE /executions/{id}`` -> 202: asks it to stop at its handler's next safe point; 409 with the
  reason when its command checks no cancel flag or it has ended (``servers.commands.CANCELLABLE``)
* ``GET /executions/{id}/events`` -> Server-Sent Events; ``Last-Event-ID`` (or ``?after=N``) resumes
* ``GET /protocol`` -> the operations, the commands (schemas, cancellation), states and the event schema
* ``POST /commands/{name}`` ``{...args}`` -> the answer of a quick question (ask, why, whynot, impact,
  relations), synchronously
* ``GET /commands`` and ``GET /commands/{name}`` -> the commands and the JSON Schema of their arguments
* ``GET /health``
* ``GET /render?files=W.rofl`` and ``POST /render``: a world's render components as a page, and a
  button's press (``servers.render_routes``; its adapter policy is ``rofl server --allow``)

Bound to a loopback address unless told otherwise; then (or whenever the environment variable
``ROFL_SERVER_TOKEN`` is set) every request needs ``Authorization: Bearer <token>``.  A request whose
Host is not the address served, from a foreign Origin, or with a POST body that is not JSON is refused
(``servers.boundary``).  Request bodies are limited to ``MAX_BODY`` bytes and must arrive within the
read timeout; a body holding a lone surrogate is refused (``servers.wiretext``).
"""

from __future__ import annotations

import asyncio
import functools
import hmac
from collections.abc import AsyncIterator, Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import wiretext
from .boundary import Served
from .commands import QUICK, BadRequest, schema, served
from .executions import Executions
from .protocol import BY_NAME, protocol
from .render_routes import Host, render_routes
from .responses import JSONResponse, error, json_body
from .setup import READ_SECONDS, TOKEN_ENV, serve_app

MAX_BODY = 64 * 1024
HEARTBEAT_SECONDS = 15.0


class Guard:
    """ASGI middleware: the trust boundary (Host, Origin, Content-Type), the bearer token (when one is
    configured), the request body limit and the time a body may take to arrive."""

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        host: str,
        max_body: int = MAX_BODY,
        read_seconds: float = READ_SECONDS,
    ) -> None:
        self.app = app
        self.token = token
        self.served = Served(host)
        self.max_body = max_body
        self.read_seconds = read_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refused = self.served.refusal(scope["method"], headers, scope.get("server"))
        if refused is not None:
            await error(refused.status, refused.message)(scope, receive, send)
            return
        if self.token is not None:
            given = headers.get("authorization", "")
            if not (given.startswith("Bearer ") and hmac.compare_digest(given[7:].encode(), self.token.encode())):
                await error(401, f"missing or wrong bearer token; send 'Authorization: Bearer ${TOKEN_ENV}'")(
                    scope, receive, send
                )
                return
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await error(413, f"request body over {self.max_body} bytes; send a smaller JSON object")(
                scope, receive, send
            )
            return
        received = 0
        complete = False
        deadline: float | None = None

        async def limited() -> Message:
            # the body must arrive whole within read_seconds of the first read; after it, receive waits
            # for the disconnect (an event stream) as long as the response lasts
            nonlocal received, complete, deadline
            if complete:
                return await receive()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.read_seconds if deadline is None else deadline
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.0))
            except asyncio.TimeoutError:
                raise HTTPException(
                    408,
                    f"the request body did not arrive within {self.read_seconds:g} s; send it at once",
                    headers={"Connection": "close"},
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise HTTPException(413, f"request body over {self.max_body} bytes; send a smaller JSON object")
            complete = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        await self.app(scope, limited, send)


def routes(executions: Executions) -> list[Route]:
    """The routes over ``executions``, each answering its own refusals (one line and the refusal's status),
    so that they serve the same beside another application's (``rofl mcp --http`` serves them beside /mcp)."""

    async def start(request: Request) -> Response:
        body = await json_body(request)
        if not isinstance(body, dict):
            raise BadRequest('the body must be a JSON object such as {"command": "impact", "args": {...}}')
        extra = sorted(set(body) - {"command", "args"})
        if extra:
            raise BadRequest(f"unknown field {extra[0]!r}; the body has 'command' and 'args'")
        execution = executions.start(body.get("command"), body.get("args"))
        return JSONResponse({"id": execution.id, "state": execution.state}, status_code=202)

    def found(request: Request):
        return executions.find(request.path_params["id"])

    async def listing(request: Request) -> Response:
        query = request.query_params
        known = set(BY_NAME["executions.list"].arguments)
        unknown = sorted(set(query) - known)
        if unknown:
            raise BadRequest(f"unknown parameter {unknown[0]!r}; GET /executions takes: {', '.join(sorted(known))}")
        page = executions.listing(
            query.getlist("state"), query.getlist("command"), query.get("limit"), query.get("cursor")
        )
        return JSONResponse(page)

    async def get(request: Request) -> Response:
        return JSONResponse(found(request).view())

    async def cancel(request: Request) -> Response:
        execution = executions.cancel(request.path_params["id"])
        return JSONResponse(execution.cancel_answer(), status_code=202)

    async def described(request: Request) -> Response:
        return JSONResponse(protocol())

    async def stream(request: Request) -> Response:
        from sse_starlette.sse import EventSourceResponse, ServerSentEvent

        execution = found(request)
        cursor = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
        if not cursor.isdigit():
            raise BadRequest(f"Last-Event-ID {cursor!r} is not a sequence number; give the last 'id' you read")
        after = int(cursor)

        async def events() -> AsyncIterator[ServerSentEvent]:
            # woken on the event loop by each new event: no thread waits per open stream
            loop = asyncio.get_running_loop()
            arrived = asyncio.Event()

            def wake(_event: object) -> None:
                loop.call_soon_threadsafe(arrived.set)

            execution.reporter.subscribe(wake)
            seen = after
            try:
                while True:
                    arrived.clear()
                    for event in execution.recorder.after(seen):
                        seen = event.seq
                        yield ServerSentEvent(wiretext.json_text(event.as_json()), event=event.type, id=str(event.seq))
                    if execution.recorder.ended() and seen >= execution.reporter.last_seq:
                        return
                    try:
                        await asyncio.wait_for(arrived.wait(), HEARTBEAT_SECONDS)
                    except asyncio.TimeoutError:
                        if await request.is_disconnected():
                            return
            finally:
                execution.reporter.unsubscribe(wake)

        return EventSourceResponse(events(), ping=HEARTBEAT_SECONDS)

    async def answer(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in served():
            raise HTTPException(404, f"unknown command {name!r}; the server runs: {', '.join(served())}")
        if name not in QUICK:
            raise BadRequest(
                f"{name!r} is not a quick question ({', '.join(QUICK)}); start it with POST /executions instead"
            )
        body = await json_body(request)
        execution = executions.start(name, body)
        assert execution.future is not None
        await asyncio.wrap_future(execution.future)
        view = execution.view()
        status = 200 if view["state"] == "succeeded" else 400 if view.get("code") == 2 else 500
        return JSONResponse(view, status_code=status)

    async def commands(request: Request) -> Response:
        return JSONResponse({"commands": [{"name": n, "quick": n in QUICK} for n in served()]})

    async def command_schema(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in served():
            raise HTTPException(404, f"unknown command {name!r}; the server runs: {', '.join(served())}")
        return JSONResponse({"name": name, "quick": name in QUICK, "schema": schema(name)})

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "facts": str(executions.session.facts)})

    table = [
        Route("/executions", start, methods=["POST"]),
        Route("/executions", listing, methods=["GET"]),
        Route("/protocol", described, methods=["GET"]),
        Route("/executions/{id}", get, methods=["GET"]),
        Route("/executions/{id}", cancel, methods=["DELETE"]),
        Route("/executions/{id}/events", stream, methods=["GET"]),
        Route("/commands", commands, methods=["GET"]),
        Route("/commands/{name}", command_schema, methods=["GET"]),
        Route("/commands/{name}", answer, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
    ]
    return [Route(r.path, _answering(r.endpoint), methods=sorted(r.methods or ())) for r in table]


async def bad_request(request: Request, exc: Exception) -> Response:
    return error(exc.status if isinstance(exc, BadRequest) else 400, str(exc))


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    response = error(exc.status_code, str(exc.detail))
    response.headers.update(exc.headers or {})
    return response


def _answering(endpoint: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """``endpoint`` answering a refusal itself: ``BadRequest`` with its status, ``HTTPException`` with its own."""

    @functools.wraps(endpoint)
    async def answering(request: Request) -> Response:
        try:
            return await endpoint(request)
        except BadRequest as exc:
            return await bad_request(request, exc)
        except HTTPException as exc:
            return await http_error(request, exc)

    return answering


def build_app(
    executions: Executions,
    token: str | None = None,
    host: str = "127.0.0.1",
    read_seconds: float = READ_SECONDS,
    allow: tuple[str, ...] = (),
) -> Starlette:
    """The Starlette application over ``executions`` (one session, one fact folder), served at ``host``;
    ``allow`` is the adapter policy of the worlds its workbench pages render (``--allow``)."""
    from rofl.adapters.policy import Policy

    base = Policy.command_line(allow)  # a page is where a world shows: `shows` is granted there, CI or not
    workbench = Host(executions.folders, executions.session.scanned, Policy(base.classes | {"shows"}, base.programs))
    return Starlette(
        routes=routes(executions) + render_routes(workbench),
        middleware=[Middleware(Guard, token=token, host=host, read_seconds=read_seconds)],
        exception_handlers={BadRequest: bad_request, HTTPException: http_error},
    )


def serve(
    executions: Executions,
    host: str,
    port: int,
    token: str | None,
    read_seconds: float = READ_SECONDS,
    allow: tuple[str, ...] = (),
) -> None:
    """Run the server until interrupted; says where it listens on stderr (port 0 picks a free one)."""
    app = build_app(executions, token, host, read_seconds, allow)
    serve_app(app, host, port, "rofl server", executions, read_seconds)
