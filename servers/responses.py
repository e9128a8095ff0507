"""JSON in and out of the HTTP routes (``servers.http``, ``servers.render_routes``): the response, the error, the body.

A response is written in the one encoding of every command (``rofl.questions.jsonout``, through ``servers.wiretext``);
an error is ``{"error": "<one line>"}``; a request body is a JSON object, empty meaning ``{}``, and a body
that does not parse, nests too deeply or holds a lone surrogate is a ``BadRequest`` (400).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from . import wiretext
from .commands import BadRequest


class JSONResponse(Response):
    """A JSON response in the one encoding of every command (``rofl.questions.jsonout.dumps``: any nesting depth)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return wiretext.json_text(content).encode("utf-8")


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def json_body(request: Request) -> Any:
    """The request's JSON body (``{}`` when empty); BadRequest when it is not JSON a client may send."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise BadRequest(f"the body is not valid JSON ({err}); send a JSON object") from None
    except RecursionError:
        raise BadRequest("the body nests too deeply; send a flat JSON object of arguments") from None
    bad = wiretext.refusal(body)
    if bad is not None:
        raise BadRequest(bad)
    return body
