"""The trust boundary of a server beside a browser: which Host, Origin and Content-Type a request may carry.

A web page the user visits can send requests to a loopback port (CSRF), and after DNS rebinding
(its own name now resolving to 127.0.0.1) read the answers too.  A browser always names the page's
origin in ``Origin`` on such a request, and the name it thinks it talks to in ``Host``; a form or a
``no-cors`` fetch can only send ``text/plain``, form or multipart bodies.  So a request is refused
when its ``Host`` is not the address served, when it carries an ``Origin`` that is not the served
origin, or when it sends a POST (or a body with DELETE) that is not ``application/json``.  Both
servers (``rofl server``, ``rofl mcp --http``) check here, through ``servers.http.Guard``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address or name) is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def shown(host: str) -> str:
    """``host`` as it is written in a Host header or a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request is refused: its HTTP status and one line saying what to send instead."""

    status: int
    message: str


@dataclass(frozen=True, slots=True)
class Served:
    """The address a server was bound to; ``accepts`` checks a request's headers against it."""

    host: str

    def authorities(self, local: tuple[str, int] | None) -> frozenset[str]:
        """The ``host:port`` a request may name, given the local address its connection arrived at."""
        if local is None:
            return frozenset()
        address, port = local[0], local[1]
        names = {shown(self.host)} if self.host not in WILDCARDS else {shown(address)}
        if is_loopback(self.host) or (self.host in WILDCARDS and is_loopback(address)):
            names.update(LOOPBACK_NAMES)
        out = {f"{name}:{port}".lower() for name in names}
        if port == 80:
            out.update(name.lower() for name in names)
        return frozenset(out)

    def refusal(self, method: str, headers: Mapping[str, str], local: tuple[str, int] | None) -> Refusal | None:
        """Why the request (its method and lower-cased headers) is refused; None when it may go on."""
        allowed = self.authorities(local)
        host = headers.get("host", "").strip().lower()
        if host not in allowed:
            named = f"Host {host!r}" if host else "no Host header"
            return Refusal(421, f"{named} is not this server's address; send Host {min(allowed, default='?')}")
        origin = headers.get("origin")
        if origin is not None and origin.strip().lower() not in {f"http://{a}" for a in allowed}:
            return Refusal(
                403, f"a request from origin {origin[:100]!r} is refused; only pages of http://{host} may call"
            )
        has_body = headers.get("content-length", "0").strip() not in ("", "0") or "transfer-encoding" in headers
        if method == "POST" or (method == "DELETE" and has_body):
            media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if media != "application/json":
                sent = f"Content-Type {media!r}" if media else "no Content-Type"
                return Refusal(415, f"{sent}: send the body as Content-Type: application/json")
        return None
