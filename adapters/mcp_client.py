"""An MCP client session driven from synchronous code: a server started as a command or reached at a URL, on an event loop of its own thread.

The official ``mcp`` SDK speaks the protocol (``mcp.client.Client``); this module owns the two transports
and the thread.  A command runs over stdio under the supervisor (``adapters/reaper.py``, so nothing it
starts outlives it) with exactly the environment it is given (the SDK's own stdio transport would add
HOME, USER, SHELL and more); a URL is spoken to over streamable HTTP, with the secrets of its book sent as
headers or query parameters (``adapters/http_auth.py`` makes them) and no proxy or netrc read from
rofl's environment (nor a request line, which holds a query secret, logged).

``Connection.open`` connects (``McpFailure`` with one line saying why), ``tools`` lists the server's
tools, ``call`` calls one tool once per argument object (``PARALLEL`` at a time, or one after another),
and ``close`` ends the session and stops the server.  Results arrive as plain JSON (``CallToolResult``
by its wire names), so nothing outside this module sees an SDK type.  The SDK is imported when a
connection opens, never when this module is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .books import Secret
from .process import GRACE_S, REAPER, resolve

PARALLEL = 8  # calls of a reads capability in flight at once over one session
STDERR_TAIL = 400  # characters of a server's stderr quoted when it fails
MAX_LINE = 16 * 1024 * 1024  # bytes of one JSON-RPC line from a command server
MAX_TOKEN_BODY = 1 << 20  # bytes of a token endpoint's answer read
SEND_GRACE_S = 0.5  # how long a command server may take to read what is left to send before its stdin closes


class McpFailure(Exception):
    """The server could not be started, reached or spoken to; the message is one line.  ``unusable``:
    the address itself cannot be used (it does not parse, or names no program)."""

    def __init__(self, message: str, unusable: bool = False, status: int | None = None) -> None:
        super().__init__(message)
        self.unusable = unusable
        self.status = status  # the HTTP status that refused the session (401: the credentials)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One call: the tool's result as wire JSON (``content``, ``structuredContent``, ``isError``), or why
    the call itself failed."""

    result: dict | None
    error: str | None


def is_url(address: str) -> bool:
    """Whether an mcp address is a URL (streamable HTTP) rather than a command (stdio)."""
    return address.strip().lower().startswith(("http://", "https://"))


def unsendable(secrets: Sequence[Secret], url: bool) -> str | None:
    """Why the mcp kind cannot send one of ``secrets``, or None.  To a URL every How goes (as
    ``http_auth`` sends it); to a command a secret goes as its variable in the environment, so a login
    (which names none) cannot."""
    for secret in secrets:
        if not url and not secret.env:
            return f"passes a command server its secrets as environment variables; scheme {secret.scheme} names none"
    return None


class _QuietUrls(logging.Filter):
    """Keeps httpx2's request lines (which hold the URL, and so a query secret) out of any log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("HTTP Request:")


_QUIET = _QuietUrls()


def post_form(url: str, form: Mapping[str, str], basic: tuple[str, str], timeout: float) -> tuple[int, bytes]:
    """A token request (``HttpAuth``'s ``post``) with HTTP Basic client credentials: the status and the
    body; a transport failure is an OSError that names no part of the URL."""
    import httpx2

    logging.getLogger("httpx2").addFilter(_QUIET)
    try:
        with httpx2.Client(trust_env=False, timeout=max(timeout, 0.001)) as client:
            response = client.post(url, data=dict(form), auth=basic)
            return response.status_code, response.content[:MAX_TOKEN_BODY]
    except httpx2.HTTPError as exc:
        raise OSError(type(exc).__name__) from None


def describe(exc: BaseException) -> str:
    """One line for an exception of the SDK, the transport or the network (the first of a group)."""
    while getattr(exc, "exceptions", None):  # an exception group (anyio's task groups raise them)
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Connection:
    """One MCP session, open until ``close``.  ``broken`` says why it can no longer be used, if so."""

    def __init__(self, stack: contextlib.ExitStack, portal: Any, client: Any, tail: bytearray) -> None:
        self._stack = stack
        self._portal = portal
        self._client = client
        self._tail = tail
        self.broken: str | None = None
        info = getattr(client, "server_info", None)
        self.server_name: str | None = getattr(info, "name", None) or None  # as the server names itself

    @staticmethod
    def open(
        address: str,
        environ: Mapping[str, str],
        timeout_s: float,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> Connection:
        """Start the command with exactly ``environ`` (or reach the URL, every request carrying
        ``headers`` and ``params``) and open a session with it, each request within ``timeout_s``."""
        try:
            from anyio.from_thread import start_blocking_portal
            from mcp.client.client import Client
        except ImportError as exc:
            raise McpFailure(
                f"the mcp kind needs the mcp package ({exc}); install rofl[server]", unusable=True
            ) from None
        tail = bytearray()
        statuses: list[int] = []
        pids: list[int] = []  # the supervisor of a command server, once started
        if is_url(address):
            logging.getLogger("httpx2").addFilter(_QUIET)
            transport = _http(address.strip(), dict(headers or {}), dict(params or {}), timeout_s, statuses)
        else:
            argv = _argv(address)
            program = resolve(argv[0], environ)
            if program is None:
                raise McpFailure(f"cannot start {argv[0]!r} (no such program on the adapter's PATH)", unusable=True)
            transport = _stdio([program, *argv[1:]], environ, tail, pids)
        stack = contextlib.ExitStack()
        # the SDK waits up to 10 s for its first probe whatever the read timeout: a command server that does
        # not answer in time is stopped (its supervisor ends it and all it started), which ends the handshake
        fired = threading.Event()
        watchdog = threading.Timer(timeout_s, _stop_now, (pids, fired))
        watchdog.daemon = True
        try:
            portal = stack.enter_context(start_blocking_portal(name="rofl-mcp"))
            client = Client(transport, read_timeout_seconds=timeout_s, cache=None)
            watchdog.start()
            try:
                entered = stack.enter_context(portal.wrap_async_context_manager(client))
            finally:
                watchdog.cancel()
        except Exception as exc:  # noqa: BLE001 - the boundary with a server: any failure to connect is one line
            _close_quietly(stack)
            if fired.is_set():
                raise McpFailure(_with_tail(f"cannot open a session: timed out after {timeout_s:g} s", tail)) from None
            refused = next((code for code in statuses if code in (401, 403)), None)
            if refused is not None:
                text = f"the server answered {refused} to the session's first request; check the book's http_auth"
                raise McpFailure(text, status=refused) from None
            raise McpFailure(_with_tail(f"cannot open a session: {describe(exc)}", tail)) from None
        return Connection(stack, portal, entered, tail)

    def tools(self) -> list[dict]:
        """Every tool the server lists (all pages), as wire JSON (``name``, ``inputSchema``, ``annotations``...)."""
        try:
            listed: list[dict] = self._portal.call(_list_tools, self._client)
        except Exception as exc:  # noqa: BLE001 - the boundary with a server
            raise McpFailure(_with_tail(f"cannot list its tools: {describe(exc)}", self._tail)) from None
        return listed

    def call(self, tool: str, arguments: Sequence[dict], deadline: float, parallel: bool) -> list[Outcome]:
        """Call ``tool`` once per argument object before ``deadline`` (``time.monotonic``): ``PARALLEL``
        calls at a time when ``parallel``, else one after another in order.  A failure of the session
        itself fails the calls left and sets ``broken``."""
        if self.broken is not None:
            return [Outcome(None, self.broken)] * len(arguments)
        try:
            outcomes: list[Outcome] = self._portal.call(
                _call_all, self._client, tool, list(arguments), deadline, parallel
            )
        except Exception as exc:  # noqa: BLE001 - the boundary with a server
            self.broken = _with_tail(f"the session failed: {describe(exc)}", self._tail)
            return [Outcome(None, self.broken)] * len(arguments)
        lost = next((o.error for o in outcomes if o.error and o.error.startswith(LOST)), None)
        if lost is not None:
            self.broken = _with_tail(lost, self._tail)
        return outcomes

    def close(self) -> None:
        """End the session and stop the server (and everything it started)."""
        _close_quietly(self._stack)


LOST = "the connection to the server was lost"


def _stop_now(pids: list[int], fired: threading.Event) -> None:
    """Ask the supervisor of a command server to end it and everything it started (SIGTERM)."""
    fired.set()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)


def _with_tail(text: str, tail: bytearray) -> str:
    quoted = bytes(tail).decode("utf-8", "replace")[-STDERR_TAIL:].strip().replace("\n", " | ")
    return f"{text}; stderr: {quoted}" if quoted else text


def _close_quietly(stack: contextlib.ExitStack) -> None:
    try:
        stack.close()
    except Exception:  # noqa: BLE001 - a server that fails while it is being stopped is stopped all the same
        pass


def _argv(address: str) -> list[str]:
    import shlex

    try:
        argv = shlex.split(address)
    except ValueError as exc:
        raise McpFailure(f"the command does not parse ({exc})", unusable=True) from None
    if not argv:
        raise McpFailure("the address is empty; give a command or a URL", unusable=True)
    return argv


async def _list_tools(client: Any) -> list[dict]:
    tools: list[dict] = []
    cursor: str | None = None
    for _ in range(1000):  # a server whose cursor never ends cannot hang the listing
        page = await client.list_tools(cursor=cursor)
        tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


async def _call_all(client: Any, tool: str, arguments: list[dict], deadline: float, parallel: bool) -> list[Outcome]:
    import anyio

    out: list[Outcome] = [Outcome(None, "not called")] * len(arguments)

    async def one(i: int, args: dict) -> None:
        out[i] = await _call_one(client, tool, args, deadline)

    if not parallel:
        for i, args in enumerate(arguments):
            await one(i, args)
            if out[i].error is not None and out[i].error.startswith(LOST):  # type: ignore[union-attr]
                out[i + 1 :] = [out[i]] * (len(arguments) - i - 1)
                break
        return out
    limiter = anyio.CapacityLimiter(PARALLEL)

    async def limited(i: int, args: dict) -> None:
        async with limiter:
            await one(i, args)

    async with anyio.create_task_group() as tg:
        for i, args in enumerate(arguments):
            tg.start_soon(limited, i, args)
    return out


async def _call_one(client: Any, tool: str, args: dict, deadline: float) -> Outcome:
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    left = deadline - time.monotonic()
    if left <= 0:
        return Outcome(None, TIMED_OUT)
    try:
        with anyio.fail_after(left + 1.0):  # the SDK's own read timeout comes first; this is the last word
            result = await client.call_tool(tool, args, read_timeout_seconds=left)
    except TimeoutError:
        return Outcome(None, TIMED_OUT)
    except MCPError as exc:
        if exc.code == REQUEST_TIMEOUT:
            return Outcome(None, TIMED_OUT)
        if exc.code == CONNECTION_CLOSED:
            return Outcome(None, f"{LOST} ({exc.message})")
        return Outcome(None, f"the server refused the call: {' '.join(exc.message.split())} (code {exc.code})")
    except Exception as exc:  # noqa: BLE001 - the transport failed under this call
        return Outcome(None, f"{LOST} ({describe(exc)})")
    return Outcome(result.model_dump(mode="json", by_alias=True, exclude_none=True), None)


TIMED_OUT = "timed out"


@contextlib.asynccontextmanager
async def _http(
    url: str, headers: dict[str, str], params: dict[str, str], timeout_s: float, statuses: list[int]
) -> AsyncIterator[Any]:
    """Streamable HTTP to ``url``, every request carrying ``headers`` and ``params``; each response's
    status is kept in ``statuses``."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def seen(response: Any) -> None:
        statuses.append(response.status_code)

    timeout = httpx2.Timeout(timeout_s, read=timeout_s)
    async with httpx2.AsyncClient(
        headers=headers, params=params, timeout=timeout, trust_env=False, event_hooks={"response": [seen]}
    ) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams


@contextlib.asynccontextmanager
async def _stdio(argv: list[str], environ: Mapping[str, str], tail: bytearray, pids: list[int]) -> AsyncIterator[Any]:
    """A command server over stdio: one JSON-RPC message per line, the process under the supervisor in a
    session of its own with exactly ``environ``; its stderr's tail kept in ``tail``, the supervisor's
    pid in ``pids``."""
    import subprocess

    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    process = await anyio.open_process(
        [sys.executable, "-I", "-S", REAPER, str(os.getpid()), *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(environ),
        start_new_session=True,
    )
    pids.append(process.pid)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    read_in, read_out = anyio.create_memory_object_stream[Any](0)
    write_in, write_out = anyio.create_memory_object_stream[Any](0)

    async def reader() -> None:
        buffer = b""
        async with read_in:
            try:
                async for chunk in stdout:
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        if line.strip():
                            try:
                                message: Any = SessionMessage(
                                    types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                                )
                            except ValueError as exc:
                                message = exc
                            await read_in.send(message)
                    if len(buffer) > MAX_LINE:
                        await read_in.send(ValueError(f"a line of the server's output is over {MAX_LINE} bytes"))
                        return
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                return

    async def writer() -> None:
        async with write_out:
            try:
                async for message in write_out:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await stdin.send(data.encode("utf-8"))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await read_in.aclose()

    async def errors() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async for chunk in stderr:
                tail.extend(chunk)
                if len(tail) > 4 * STDERR_TAIL:
                    del tail[: len(tail) - 2 * STDERR_TAIL]

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        tg.start_soon(errors)
        try:
            yield read_out, write_in
        finally:
            with anyio.CancelScope(shield=True):
                await write_in.aclose()
                with anyio.move_on_after(SEND_GRACE_S):
                    with contextlib.suppress(OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
                        await stdin.aclose()
                await _stop(process)
                await read_out.aclose()
            tg.cancel_scope.cancel()


async def _stop(process: Any) -> None:
    """Wait a moment for the server to end on its closed stdin; then the supervisor kills it and all it
    started (SIGTERM), and should the supervisor not end in time, its process group is killed."""
    import anyio

    for sig, wait in ((None, GRACE_S), (signal.SIGTERM, GRACE_S), (signal.SIGKILL, GRACE_S)):
        if process.returncode is not None:
            return
        if sig == signal.SIGKILL:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        elif sig is not None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(sig)
        deadline = time.monotonic() + wait
        while process.returncode is None and time.monotonic() < deadline:
            await anyio.sleep(0.01)
