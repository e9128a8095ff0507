"""MCP over stdio: the SDK's transport, with a request it cannot read answered by a JSON-RPC error.

The SDK reads each line with a strict JSON parser; a line it refuses (a lone surrogate such as
``"\\ud800"`` in an argument, or a request of the wrong shape) reaches the server as an exception and is
never answered, so the client waits for ever.  ``Answering`` sits between the transport and the
server: when the refused line is a JSON request with an id, it answers that id with a JSON-RPC error
(invalid params for a lone surrogate, naming where it is; invalid request otherwise) and reads on.
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from . import wiretext


def answer_for(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error that answers the line the SDK refused with ``exc``; None when there is no
    request to answer (not JSON, or a notification)."""
    if not isinstance(exc, ValidationError):
        return None
    errors = exc.errors()
    line = errors[0].get("input") if errors else None
    if not isinstance(line, (str, bytes)):
        return None
    try:
        request = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(request, dict) or "method" not in request:
        return None
    ident = request.get("id")
    if isinstance(ident, bool) or not isinstance(ident, (int, str)):
        return None
    bad = wiretext.refusal(request.get("params"), "params")
    if bad is not None:
        error = types.ErrorData(code=types.INVALID_PARAMS, message=bad)
    else:
        message = " ".join(str(errors[0].get("msg", "not a JSON-RPC request")).split())
        error = types.ErrorData(code=types.INVALID_REQUEST, message=f"the request cannot be read: {message}")
    return types.JSONRPCError(jsonrpc="2.0", id=wiretext.encodable(ident), error=error)


class Answering:
    """The server's read stream over the transport's: a refused request is answered on ``write``, not passed on."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write

    @property
    def last_context(self) -> Any:  # the SDK restores the sender's context from it
        return getattr(self._read, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._read.receive()
            if not await self._answered(item):
                return item

    async def _answered(self, item: Any) -> bool:
        answer = answer_for(item) if isinstance(item, Exception) else None
        if answer is None:
            return False
        await self._write.send(SessionMessage(answer))
        return True

    def __aiter__(self) -> Answering:
        return self

    async def __anext__(self) -> Any:
        while True:
            item = await self._read.__anext__()
            if not await self._answered(item):
                return item

    async def aclose(self) -> None:
        await self._read.aclose()

    async def __aenter__(self) -> Answering:
        await self._read.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        return await self._read.__aexit__(exc_type, exc_val, exc_tb)
