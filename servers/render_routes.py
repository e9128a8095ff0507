"""The workbench routes of `rofl server`: a world's render components as a page, and a button's press evaluating the world again with what its person did.

* ``GET /render?files=W.rofl&files=...`` -> the page (``servers/render_page.py``) of the world made of
  those files (inside the configured folders) over the server's scan, its rounds run under the
  server's policy (``rofl server --allow CLASS``; reads and shows by default);
* ``POST /render`` ``{"files": [...], "press": "<button want>", "fields": {"<field want>": "value"}}``
  -> ``{"html", "components", "wants", "pressed", "partial"}``: the world evaluated again with that
  button pressed and those values typed.  A press makes nothing run itself: the world's want rules
  read the button's and fields' answers, and what they ask goes through the policy like every want
  (a ``does`` capability held with ``ADP_CAPABILITY_DENIED`` unless the server was started with
  ``--allow does``).

Each request evaluates the world anew (nothing of a press is kept).  The POST passes the server's
boundary guard like every other: its Host and Origin, a JSON body (``servers.boundary``).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rofl.adapters.policy import Policy
from rofl.adapters.render_kind import MAX_VALUE, RenderAdapter, Shown, Workbench
from rofl.engine.base.errors import RoflError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from .commands import BadRequest, Folders
from .render_page import Outcome, error_body, fragment, page, security_policy
from .responses import JSONResponse, error, json_body

MAX_FILES = 32
PATH = "/render"


class Denied(BadRequest):
    """The world may not start: capabilities it requires that this server does not grant."""

    status = 403


@dataclass(frozen=True, slots=True)
class Rendering:
    """One evaluation of a world on the workbench: its components, and how its other wants ended."""

    components: tuple[Shown, ...]
    outcomes: tuple[Outcome, ...]
    partial: bool


@dataclass(frozen=True, slots=True)
class Host:
    """What the routes serve from: the configured folders, whether they hold a scan, the policy."""

    folders: Folders
    scanned: Any  # () -> bool: whether the fact folder holds a scan now
    policy: Policy

    @property
    def grants(self) -> str:
        classes = ", ".join(sorted(self.policy.classes))
        return classes + (" and adapter programs" if self.policy.programs else "")


def evaluate(host: Host, files: tuple[str, ...], workbench: Workbench) -> Rendering:
    """The world of ``files`` (over the scan, when there is one) through its rounds, with ``workbench``
    answering its render wants; Denied when it may not start, BadRequest for any other user error."""
    from rofl.adapters.rounds import Refused, Session

    from rofl.loading.kernel import KernelInputs, build_kernel
    from rofl.rounds import load_world

    try:
        facts = str(host.folders.facts) if host.scanned() else None
        kernel = build_kernel(KernelInputs(files, facts=facts))
        session = Session(kernel, host.policy, world_factory=load_world)
        session.start()
        adapter = session.kinds["render"] = RenderAdapter(workbench, session.scrubber)
        report = session.run()
    except Refused as exc:
        raise Denied(exc.message) from None
    except RoflError as exc:
        raise BadRequest(str(exc)) from None
    catalog = session.catalog
    assert catalog is not None
    outcomes = []
    for want, (status, reason) in session.outcomes.items():
        cap = catalog.capabilities.get(want.cap)
        book = catalog.books.get(cap.book) if cap is not None else None
        if book is not None and book.kind == "render":
            continue
        outcomes.append(Outcome(want.text, want.cap, cap.klass if cap is not None else "?", status, reason))
    rendering = Rendering(adapter.components, tuple(outcomes), report.partial)
    _check_named(rendering, workbench)
    return rendering


def _check_named(rendering: Rendering, workbench: Workbench) -> None:
    """A press or a value that names no button or field the world showed is the client's mistake."""
    kinds = {c.want: c.kind for c in rendering.components}
    if workbench.pressed is not None and kinds.get(workbench.pressed) != "button":
        buttons = [w for w, k in kinds.items() if k == "button"]
        raise BadRequest(
            f"'press' {workbench.pressed[:200]!r} names no button this world shows; "
            f"give one of: {', '.join(buttons) or '(it shows none)'}"
        )
    for name in workbench.values:
        if kinds.get(name) != "field":
            raise BadRequest(f"'fields' names {name[:200]!r}, which is no field this world shows")


def _files(host: Host, given: Any) -> tuple[str, ...]:
    if isinstance(given, str):
        given = [given]
    if not isinstance(given, list) or not given or not all(isinstance(f, str) for f in given):
        raise BadRequest("'files' must name the world's .rofl files, e.g. files=world.rofl")
    if len(given) > MAX_FILES:
        raise BadRequest(f"'files' names {len(given)} files; a workbench world has at most {MAX_FILES}")
    return tuple(host.folders.confine("render", "files", f) for f in given)


def _workbench(body: Any) -> tuple[Any, Workbench]:
    if not isinstance(body, dict):
        raise BadRequest('the body must be a JSON object such as {"files": [...], "press": "...", "fields": {}}')
    extra = sorted(set(body) - {"files", "press", "fields"})
    if extra:
        raise BadRequest(f"unknown field {extra[0]!r}; the body has 'files', 'press' and 'fields'")
    press = body.get("press")
    if press is not None and (not isinstance(press, str) or not press):
        raise BadRequest("'press' must be the text of a button's want, as the page's data-want says")
    fields = body.get("fields", {})
    if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
        raise BadRequest("'fields' must map each field's want text to the text typed in it")
    long = next((k for k, v in fields.items() if len(v) > MAX_VALUE), None)
    if long is not None:
        raise BadRequest(f"the value of field {long[:200]!r} is over {MAX_VALUE} characters; type less")
    return body.get("files"), Workbench(press, MappingProxyType(dict(fields)))


def render_routes(host: Host) -> list[Route]:
    """GET and POST ``/render`` over ``host``."""

    async def show(request: Request) -> Response:
        nonce = secrets.token_urlsafe(16)
        unknown = sorted(set(request.query_params) - {"files"})
        files: tuple[str, ...] = tuple(request.query_params.getlist("files"))
        try:
            if unknown:
                raise BadRequest(f"unknown parameter {unknown[0]!r}; GET {PATH} takes files=W.rofl (repeatable)")
            files = _files(host, list(files))
            rendering = await asyncio.to_thread(evaluate, host, files, Workbench())
        except BadRequest as exc:
            body, status = error_body(str(exc)), exc.status
        else:
            body, status = fragment(rendering.components, rendering.outcomes), 200
        return HTMLResponse(page(files, body, nonce, host.grants), status_code=status, headers=_headers(nonce))

    async def press(request: Request) -> Response:
        try:
            given, workbench = _workbench(await json_body(request))
            files = _files(host, given)
            rendering = await asyncio.to_thread(evaluate, host, files, workbench)
        except BadRequest as exc:
            return error(exc.status, str(exc))
        return JSONResponse(
            {
                "html": fragment(rendering.components, rendering.outcomes),
                "components": [c.as_json() for c in rendering.components],
                "wants": [o.as_json() for o in rendering.outcomes],
                "pressed": workbench.pressed,
                "partial": rendering.partial,
            },
            headers={"Cache-Control": "no-store"},
        )

    return [Route(PATH, show, methods=["GET"]), Route(PATH, press, methods=["POST"])]


def _headers(nonce: str) -> Mapping[str, str]:
    return {
        "Content-Security-Policy": security_policy(nonce),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }
