"""A small OAuth 2.1 authorization server on loopback for the login tests, and a scripted browser for it.

The server (Starlette on uvicorn in a thread) publishes RFC 8414 metadata (or only OpenID Connect's),
registers clients dynamically (RFC 7591) unless told not to, shows a consent form at ``/authorize``,
redirects to the client's loopback redirect URI (any port, RFC 8252), checks PKCE S256 at ``/token``,
rotates refresh tokens, revokes at ``/revoke`` (RFC 7009) and guards ``/api/me`` with the bearer token.
Everything secret it issues or receives is kept in ``secrets`` so a test can search outputs for it.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route


@dataclass
class AuthServer:
    """The fake server's settings and what it has issued (a test reads and changes them)."""

    base: str = ""
    registration: bool = True
    oidc_only: bool = False
    confidential: bool = False  # registration hands out a client secret
    revocation: bool = True
    send_iss: bool = True
    iss: str = ""  # the iss the authorization answer carries ("" = the server's own)
    expires_in: int = 3600
    echo_code_in_errors: bool = False  # a careless server: its token errors repeat the code it got
    clients: dict[str, dict] = field(default_factory=dict)
    pending: dict[str, dict] = field(default_factory=dict)
    codes: dict[str, dict] = field(default_factory=dict)
    access: dict[str, dict] = field(default_factory=dict)
    refresh: dict[str, dict] = field(default_factory=dict)
    secrets: list[str] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)
    grants: list[str] = field(default_factory=list)  # grant_type of every token request answered 200

    def new(self, prefix: str) -> str:
        # the digit after the dash keeps the prefix a word of its own: rofl withholds a text holding eight
        # letters of a secret in a row, and "refresh-i..." would taint every "refreshing" (adapters.secrets)
        value = f"{prefix}-9{secrets.token_urlsafe(24)}"
        self.secrets.append(value)
        return value

    def metadata(self) -> dict:
        meta = {
            "issuer": self.base,
            "authorization_endpoint": f"{self.base}/authorize",
            "token_endpoint": f"{self.base}/token",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "authorization_response_iss_parameter_supported": self.send_iss,
        }
        if self.registration:
            meta["registration_endpoint"] = f"{self.base}/register"
        if self.revocation:
            meta["revocation_endpoint"] = f"{self.base}/revoke"
        return meta

    def add_client(self, client_id: str, secret: str | None = None) -> None:
        self.clients[client_id] = {"redirect_uris": ["http://127.0.0.1/callback"], "secret": secret}

    def valid(self, token: str) -> bool:
        entry = self.access.get(token)
        return entry is not None and token not in self.revoked and entry["until"] > time.time()


def _oauth_error(error: str, status: int = 400, description: str = "") -> JSONResponse:
    body = {"error": error}
    if description:
        body["error_description"] = description
    return JSONResponse(body, status_code=status)


def _loopback_match(registered: list[str], given: str) -> bool:
    """RFC 8252 §7.3: a loopback redirect URI matches whatever its port."""
    g = urllib.parse.urlsplit(given)
    for uri in registered:
        r = urllib.parse.urlsplit(uri)
        if (r.scheme, r.hostname, r.path) == (g.scheme, g.hostname, g.path) and g.hostname == "127.0.0.1":
            return True
    return given in registered


def app(current: Callable[[], AuthServer]) -> Starlette:
    """The server's routes; each request is answered by ``current()`` (a test may swap it)."""

    async def rfc8414(_request: Request) -> Response:
        s = current()
        return PlainTextResponse("no", 404) if s.oidc_only else JSONResponse(s.metadata())

    async def oidc(_request: Request) -> Response:
        s = current()
        return JSONResponse(s.metadata())

    async def register(request: Request) -> Response:
        s = current()
        if not s.registration:
            return PlainTextResponse("no", 404)
        body = await request.json()
        uris = body.get("redirect_uris") or []
        if not uris or not all(urllib.parse.urlsplit(u).hostname == "127.0.0.1" for u in uris):
            return _oauth_error("invalid_redirect_uri")
        client_id = f"client-{secrets.token_hex(4)}"
        secret = s.new("clientsecret") if s.confidential else None
        s.clients[client_id] = {"redirect_uris": uris, "secret": secret, "registered": body}
        answer = {"client_id": client_id, "redirect_uris": uris, "token_endpoint_auth_method": "none"}
        if secret:
            answer |= {"client_secret": secret, "token_endpoint_auth_method": "client_secret_basic"}
        return JSONResponse(answer, status_code=201)

    async def authorize(request: Request) -> Response:
        s = current()
        q = request.query_params
        client = s.clients.get(q.get("client_id", ""))
        if client is None or not _loopback_match(client["redirect_uris"], q.get("redirect_uri", "")):
            return PlainTextResponse("unknown client or redirect URI", 400)
        if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return PlainTextResponse("PKCE S256 and response_type=code are required", 400)
        rid = secrets.token_hex(8)
        s.pending[rid] = dict(q)
        form = (
            f'<form method="post" action="/consent"><input type="hidden" name="request" value="{rid}">'
            '<button name="decision" value="allow">Allow</button>'
            '<button name="decision" value="deny">Deny</button></form>'
        )
        return HTMLResponse(f"<p>rofl wants to act as you.</p>{form}")

    async def consent(request: Request) -> Response:
        s = current()
        form = await request.form()
        pending = s.pending.pop(str(form.get("request")), None)
        if pending is None:
            return PlainTextResponse("no such request", 400)
        params = {"state": pending.get("state", "")}
        if s.send_iss:
            params["iss"] = s.iss or s.base
        if form.get("decision") == "allow":
            code = s.new("code")
            s.codes[code] = pending
            params["code"] = code
        else:
            params |= {"error": "access_denied", "error_description": "The person said no."}
        return RedirectResponse(pending["redirect_uri"] + "?" + urllib.parse.urlencode(params), status_code=302)

    def client_of(s: AuthServer, request: Request, form: dict) -> str | None:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic "):
            pair = base64.b64decode(header[6:]).decode()
            cid, _, secret = pair.partition(":")
            cid, secret = urllib.parse.unquote_plus(cid), urllib.parse.unquote_plus(secret)
            client = s.clients.get(cid)
            return cid if client is not None and client["secret"] == secret else None
        cid = form.get("client_id", "")
        client = s.clients.get(cid)
        if client is None or client["secret"] is not None:
            return None
        return cid

    def issue(s: AuthServer, client_id: str, scope: str) -> dict:
        access, refresh = s.new("access"), s.new("refresh")
        s.access[access] = {"client": client_id, "until": time.time() + s.expires_in}
        s.refresh[refresh] = {"client": client_id, "scope": scope, "used": False}
        return {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": s.expires_in,
            "refresh_token": refresh,
            "scope": scope,
        }

    async def token(request: Request) -> Response:
        s = current()
        form = {k: str(v) for k, v in (await request.form()).items()}
        for key in ("code", "code_verifier", "refresh_token"):
            if key in form and form[key] not in s.secrets:
                s.secrets.append(form[key])  # what the client sent: searched for too
        client_id = client_of(s, request, form)
        if client_id is None:
            return _oauth_error("invalid_client", 401)
        grant = form.get("grant_type")
        if grant == "authorization_code":
            pending = s.codes.pop(form.get("code", ""), None)
            if pending is None or pending["client_id"] != client_id:
                detail = f"unknown code {form.get('code')}" if s.echo_code_in_errors else ""
                return _oauth_error("invalid_grant", description=detail)
            if pending["redirect_uri"] != form.get("redirect_uri"):
                return _oauth_error("invalid_grant", description="redirect_uri differs")
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != pending["code_challenge"]:
                return _oauth_error("invalid_grant", description="PKCE verification failed")
            s.grants.append(grant)
            return JSONResponse(issue(s, client_id, pending.get("scope", "")), headers={"Cache-Control": "no-store"})
        if grant == "refresh_token":
            entry = s.refresh.get(form.get("refresh_token", ""))
            if entry is None or entry["used"] or entry["client"] != client_id or form["refresh_token"] in s.revoked:
                return _oauth_error("invalid_grant", description="the refresh token is not valid")
            entry["used"] = True  # rotation: a refresh token is spent once
            s.grants.append(grant)
            return JSONResponse(issue(s, client_id, entry["scope"]), headers={"Cache-Control": "no-store"})
        return _oauth_error("unsupported_grant_type")

    async def revoke(request: Request) -> Response:
        s = current()
        form = {k: str(v) for k, v in (await request.form()).items()}
        if client_of(s, request, form) is None:
            return _oauth_error("invalid_client", 401)
        s.revoked.append(form.get("token", ""))
        return Response(status_code=200)

    async def me(request: Request) -> Response:
        s = current()
        header = request.headers.get("authorization", "")
        token = header[7:] if header.lower().startswith("bearer ") else ""
        if not s.valid(token):
            return JSONResponse({"error": "invalid_token"}, status_code=401)
        return JSONResponse({"user": "ada", "client": s.access[token]["client"]})

    routes = [
        Route("/.well-known/oauth-authorization-server", rfc8414),
        Route("/.well-known/openid-configuration", oidc),
        Route("/register", register, methods=["POST"]),
        Route("/authorize", authorize),
        Route("/consent", consent, methods=["POST"]),
        Route("/token", token, methods=["POST"]),
        Route("/revoke", revoke, methods=["POST"]),
        Route("/api/me", me),
    ]
    return Starlette(routes=routes)


class Host:
    """One fake server on a free loopback port, answering as ``current``: ``use(**settings)`` starts
    afresh (a new AuthServer at the same address), so tests share the port but nothing else."""

    def __init__(self) -> None:
        self.base = ""
        self.current = AuthServer()

    def use(self, **settings: object) -> AuthServer:
        self.current = AuthServer(base=self.base, **settings)  # type: ignore[arg-type]
        return self.current


@contextmanager
def hosting() -> Iterator[Host]:
    """Serve a ``Host`` on a free loopback port for the duration of the block."""
    import uvicorn

    host = Host()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    host.base = host.current.base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    config = uvicorn.Config(app(lambda: host.current), log_level="warning", access_log=False, lifespan="off")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield host
    finally:
        uv.should_exit = True
        thread.join(10)
        sock.close()


@dataclass
class Browser:
    """A scripted person at a browser: follows the authorization address, presses Allow (or Deny), and
    brings the server's redirect to the loopback port.  ``pages`` keeps what each step showed."""

    decision: str = "allow"
    tamper_state: bool = False
    stray_first: bool = False  # ask the loopback port for another path before bringing the answer
    pages: list[str] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)

    def __call__(self, url: str) -> bool:
        try:
            with httpx.Client(trust_env=False, timeout=10) as client:
                page = client.get(url)
                self.pages.append(page.text)
                rid = re.search(r'name="request" value="([^"]+)"', page.text)
                assert page.status_code == 200 and rid, page.text
                origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(url))
                consent = client.post(f"{origin}/consent", data={"request": rid.group(1), "decision": self.decision})
                assert consent.status_code == 302, consent.text
                back = consent.headers["location"]
                if self.tamper_state:
                    back = re.sub(r"state=[^&]+", "state=forged", back)
                if self.stray_first:
                    stray = client.get(urllib.parse.urljoin(back, "/favicon.ico"))
                    self.pages.append(f"{stray.status_code} {stray.text}")
                answer = client.get(back)
                self.pages.append(f"{answer.status_code} {answer.text}")
        finally:
            self.done.set()
        return True
