"""The authorization code flow with PKCE (OAuth 2.1): register, send the person to the browser, take the code
on a loopback port, exchange it for tokens.

``log_in(request, person)`` reads the issuer's metadata, registers rofl as a public client (RFC 7591) when
the server offers registration and no client id was given (else asks the person for one), listens on
``127.0.0.1`` at a port the system picks, shows (and opens) the authorization address, takes exactly one
answer at ``/callback`` (its ``state`` checked in constant time, its ``iss`` checked when the server sends
one, RFC 9207), closes the port, and exchanges the code with the PKCE verifier.  The code, the verifier, the
state, the tokens and a client secret are never in anything it says: an error's text is masked first.
"""

from __future__ import annotations

import hmac
import http.server
import logging
import secrets
import socketserver
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .logins import Login, masked, tokens
from .oauth import (
    LoginError,
    LoginUsage,
    Metadata,
    OAuthError,
    check_url,
    client_auth,
    discover,
    issuer_key,
    pkce,
    post_form,
    post_json,
    printable,
    with_query,
)

CALLBACK = "/callback"
CLIENT_NAME = "rofl"
LOG = logging.getLogger(__name__)
REQUEST_SECONDS = 10.0  # the most one connection to the loopback port may take to send its request


@dataclass(frozen=True, slots=True)
class LoginRequest:
    """What the person asked for: the issuer, a client (or none: register), a scope, how long to wait."""

    issuer: str
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    scope: str | None = None
    timeout: float = 300.0


@dataclass(frozen=True, slots=True)
class Person:
    """How the flow talks to the person logging in: a line to show, the browser, a client id to ask."""

    say: Callable[[str], None]
    open_browser: Callable[[str], object]  # called in a thread of its own (a console browser may block)
    ask_client_id: Callable[[str], str | None]


def log_in(request: LoginRequest, person: Person) -> Login:
    """Run the flow for ``request``; the login to keep.  ``LoginError`` (with no secret in it) otherwise."""
    known: list[str] = [request.client_secret or ""]
    try:
        return _flow(request, person, known)
    except OAuthError as err:
        raise OAuthError(masked(str(err), known), err.error) from None
    except LoginUsage as err:
        raise LoginUsage(masked(str(err), known)) from None
    except LoginError as err:
        raise LoginError(masked(str(err), known)) from None


def _flow(request: LoginRequest, person: Person, known: list[str]) -> Login:
    issuer = issuer_key(request.issuer)
    meta = discover(issuer)
    LOG.info("login: %s authorizes at %s, tokens at %s", issuer, meta.authorization_endpoint, meta.token_endpoint)
    with Receiver(request.timeout) as receiver:
        client_id, client_secret, method = _client(meta, request, receiver.redirect_uri, person)
        known.append(client_secret or "")
        pair = pkce()
        state = secrets.token_urlsafe(32)
        known += [pair.verifier, state]
        params = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": receiver.redirect_uri,
            "state": state,
            "code_challenge": pair.challenge,
            "code_challenge_method": "S256",
        }
        if request.scope:
            params["scope"] = request.scope
        url = with_query(meta.authorization_endpoint, params)
        person.say(f"To log in to {issuer}, open this address in a browser (rofl opens it when it can):")
        person.say(url)
        person.say(f"Waiting up to {request.timeout:g} s for the answer at {receiver.redirect_uri} ...")
        threading.Thread(target=person.open_browser, args=(url,), daemon=True).start()
        answer = receiver.wait(state)
    code = _code(answer, meta)
    known.append(code)
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": receiver.redirect_uri,
        "code_verifier": pair.verifier,
    }
    headers = client_auth(client_id, client_secret, method, form)
    body = post_form(meta.token_endpoint, form, headers)
    access, refresh_token, expires_at, scope = tokens(body, time.time())
    known += [access, refresh_token or ""]
    return Login(
        issuer=issuer,
        client_id=client_id,
        token_endpoint=meta.token_endpoint,
        revocation_endpoint=meta.revocation_endpoint,
        auth_method=method,
        access_token=access,
        refresh_token=refresh_token,
        expires_at=expires_at,
        scope=scope or request.scope,
        client_secret=client_secret,
    )


def _client(meta: Metadata, request: LoginRequest, redirect_uri: str, person: Person) -> tuple[str, str | None, str]:
    """(client id, client secret, token endpoint auth method): the one given, one registered, or one asked for."""
    if request.client_id:
        return request.client_id, request.client_secret, _method(meta, request.client_secret)
    if meta.registration_endpoint is not None:
        return _register(meta, redirect_uri, request.scope)
    asked = person.ask_client_id(meta.issuer)
    if not asked:
        raise LoginUsage(
            f"{meta.issuer} does not register clients itself; register rofl there (redirect URI "
            f"http://127.0.0.1/callback, any port) and give its id: rofl adapter login {meta.issuer} CLIENT_ID"
        )
    return asked, request.client_secret, _method(meta, request.client_secret)


def _method(meta: Metadata, client_secret: str | None) -> str:
    if client_secret is None:
        return "none"
    return (
        "client_secret_post"
        if "client_secret_basic" not in meta.auth_methods and "client_secret_post" in meta.auth_methods
        else "client_secret_basic"
    )


def _register(meta: Metadata, redirect_uri: str, scope: str | None) -> tuple[str, str | None, str]:
    """Register rofl as a native public client (RFC 7591) for this redirect URI."""
    assert meta.registration_endpoint is not None
    payload: dict[str, object] = {
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    }
    if scope:
        payload["scope"] = scope
    body = post_json(meta.registration_endpoint, payload)
    client_id = body.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        raise LoginError(f"registering at {meta.registration_endpoint} answered no client_id")
    LOG.info("login: registered as client %s at %s", client_id, meta.registration_endpoint)
    secret = body.get("client_secret")
    client_secret = secret if isinstance(secret, str) and secret else None
    method = body.get("token_endpoint_auth_method")
    if not isinstance(method, str) or method not in ("none", "client_secret_basic", "client_secret_post"):
        method = "none" if client_secret is None else "client_secret_basic"
    return client_id, client_secret, method


def _code(answer: dict[str, str], meta: Metadata) -> str:
    """The authorization code of the browser's answer, after its error and issuer are checked."""
    if "error" in answer:
        error = printable(answer["error"], 60)
        description = printable(answer.get("error_description", ""))
        raise LoginError(f"{meta.issuer} did not log you in: {error}" + (f" ({description})" if description else ""))
    iss = answer.get("iss")
    if iss is not None and iss.rstrip("/") != meta.issuer:
        raise LoginError(f"the answer came from another issuer ({printable(iss)}), not {meta.issuer}; nothing kept")
    if iss is None and meta.sends_iss:
        raise LoginError(f"the answer has no iss although {meta.issuer} says it sends one; nothing kept")
    code = answer.get("code")
    if not code:
        raise LoginError(f"the answer from {meta.issuer} holds no code")
    return code


class Receiver:
    """The loopback port the browser brings the answer to: ``127.0.0.1``, a port the system picks, one
    answer at ``/callback`` (other paths get 404), then closed."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.redirect_uri = f"http://127.0.0.1:{self.server.server_address[1]}{CALLBACK}"
        check_url(self.redirect_uri, "the redirect URI")

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.server_close()

    def wait(self, state: str) -> dict[str, str]:
        """The query of the one request at ``/callback`` whose ``state`` is ours; ``LoginError`` for one whose
        state is not, or when none came in time."""
        self.server.expected_state = state
        deadline = time.monotonic() + self.timeout
        while self.server.answer is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LoginError(f"no answer from the browser in {self.timeout:g} s; run the command again")
            self.server.timeout = min(left, 1.0)
            self.server.handle_request()
        self.server.server_close()
        answer = self.server.answer
        if not hmac.compare_digest(answer.get("state", ""), state):
            raise LoginError("the answer at the loopback port was not for this login (its state differs); nothing kept")
        return answer


class _Server(http.server.HTTPServer):
    answer: dict[str, str] | None = None
    expected_state: str = ""

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # not HTTPServer's: it asks DNS for the host's name
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_timeout(self) -> None:
        return None


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server
    timeout = REQUEST_SECONDS
    server_version = "rofl"
    sys_version = ""

    def do_GET(self) -> None:
        parts = urllib.parse.urlsplit(self.path)
        if parts.path != CALLBACK or self.server.answer is not None:
            self._reply(404, "Not found.")
            return
        query = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
        answer = {k: v[0] for k, v in query.items() if len(v) == 1}
        self.server.answer = answer
        if not hmac.compare_digest(answer.get("state", ""), self.server.expected_state):
            self._reply(400, "This answer is not for the login rofl is waiting for. Nothing was kept.")
        elif "error" in answer:
            self._reply(200, "The login did not succeed; rofl says why in the terminal. You can close this tab.")
        else:
            self._reply(200, "rofl received the login. You can close this tab and go back to the terminal.")

    def _reply(self, status: int, text: str) -> None:
        page = f"<!doctype html><meta charset=utf-8><title>rofl login</title><p>{text}</p>\n".encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: Any) -> None:
        return None  # the request line holds the code: never logged
