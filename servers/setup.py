"""Starting a server: the checked options, the session over the fact folder, and the process settings."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.base.errors import RoflError
from rofl.scanner.layout import MANIFEST_NAME
from rofl.servers.session import Session

from rofl.loading.kernel import CODE_BUDGET, has_scan

from .cli_options import READ_SECONDS as READ_SECONDS  # re-exported: http and mcp read it here
from .commands import Folders

if TYPE_CHECKING:
    from .executions import Executions

TOKEN_ENV = "ROFL_SERVER_TOKEN"


def folders(facts: str, src: str | None) -> Folders:
    """The fact folder and the sources: --src, else the folder the scan records.  A folder with no scan
    yet is served when --src says what its first scan (the scan command) reads; never one that is SRC
    or holds it (``scanner.api.refuse_unsafe_out``, as `rofl scan --out`)."""
    from rofl.scanner.api import refuse_unsafe_out

    from rofl.loading.factdir import read_manifest

    root = Path(facts)
    if root.exists() and not root.is_dir():
        raise RoflError(f"--facts {root}: not a folder; give the folder `rofl scan` writes")
    scanned = has_scan(root)
    if not scanned and src is None:
        raise RoflError(
            f"{root}: no {MANIFEST_NAME} here; pass --src SRC so that the server can make the first scan, "
            f"or run `rofl scan SRC --out {root}` first"
        )
    if src is None:
        recorded = read_manifest(root).src
        src = recorded if Path(recorded).is_dir() else None
    elif not Path(src).is_dir():
        what = "give the folder the scan was made from" if scanned else "give the folder of sources to scan"
        raise RoflError(f"--src {src}: no such folder; {what}")
    if src is not None:
        refuse_unsafe_out(src, facts, "--facts")
    return Folders(root.resolve(), Path(src).resolve() if src is not None else None)


def token_for(host: str, is_loopback: bool) -> str | None:
    """The bearer token from ``ROFL_SERVER_TOKEN``: required off loopback, used whenever it is set."""
    token = os.environ.get(TOKEN_ENV) or None
    if token is None and not is_loopback:
        raise RoflError(
            f"--host {host} is not a loopback address: set {TOKEN_ENV} to a secret that clients send as "
            "'Authorization: Bearer ...', or bind 127.0.0.1"
        )
    return token


def prepare_process() -> None:
    """Deep terms and proofs fit on worker threads too (as on the command line, rofl.deep)."""
    from rofl.deep import RECURSION_LIMIT, STACK_BYTES

    sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        threading.stack_size(STACK_BYTES)
    except (ValueError, RuntimeError):
        pass  # a platform that refuses the size keeps its default stacks


def open_session(where: Folders) -> Session:
    """The session over the fact folder, its store loaded now (when it holds a scan) so that the first
    question is warm."""
    session = Session(where.facts, where.src)
    if session.scanned():
        session.release(session.lease((), CODE_BUDGET))
    session.watch_sources()
    return session


def serve_app(
    app: Any,
    host: str,
    port: int,
    what: str,
    executions: Executions,
    read_seconds: float = READ_SECONDS,
    path: str = "",
) -> None:
    """Run an ASGI app on uvicorn until interrupted, on a socket bound here so that port 0 (any free one)
    can be reported: ``what`` and the address go to stderr once it listens.  A connection that takes
    over ``read_seconds`` to send a request's headers is closed (``servers.transport``).  Executions
    stop after."""
    import socket

    import uvicorn

    from .transport import bounded_protocol

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # inherited by each accepted connection: a response written in two parts is not held back ~40 ms
    # by Nagle's algorithm waiting for the client's delayed ACK
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)  # before saying "listening": a client that reads the line may connect at once
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(
        f"{what}: listening on http://{shown}:{sock.getsockname()[1]}{path} (facts {executions.session.facts})\n"
    )
    sys.stderr.flush()
    try:
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="auto", http=bounded_protocol(read_seconds)
        )
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        executions.shutdown()


def start(facts: str, src: str | None, host: str | None, workers: int = 4) -> tuple[Executions, str | None]:
    """Check the folders (and, when ``host`` is given, the token its address needs), set up the process,
    load the session: the executions to serve, and the bearer token."""
    from .boundary import is_loopback
    from .executions import Executions

    where = folders(facts, src)
    token = token_for(host, is_loopback(host)) if host is not None else None
    prepare_process()
    return Executions(open_session(where), workers=workers), token
