"""The HTTP transport of both servers: uvicorn's h11 protocol with a bound on the time a request's headers take.

uvicorn closes a connection idle after a response (``timeout_keep_alive``) but waits for ever for the
headers of a request that was begun and never finished, so a few hundred half-sent requests hold as
many connections open.  Here each connection gets ``header_seconds`` from when it opens, and again
from the end of each response, to have sent its next request's headers; one that has not (nor has a
response under way) is closed.  The body's own time is bounded in the application (``servers.http.Guard``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


def bounded_protocol(header_seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request headers take over ``header_seconds``."""

    class HeaderBoundProtocol(H11Protocol):
        _headers_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._await_headers()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._await_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._headers_timer is not None:
                self._headers_timer.cancel()
            super().connection_lost(exc)

        def _await_headers(self) -> None:
            if self._headers_timer is not None:
                self._headers_timer.cancel()
            self._headers_timer = self.loop.call_later(header_seconds, self._headers_late)

        def _headers_late(self) -> None:
            self._headers_timer = None
            serving = self.cycle is not None and not self.cycle.response_complete
            if not serving and not self.transport.is_closing():
                self.transport.close()

    return HeaderBoundProtocol
