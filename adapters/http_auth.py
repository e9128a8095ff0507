"""Secrets for HTTP: a capability's ``http_auth`` declarations as the headers and query parameters of its requests.

How each ``http_auth(Book, Scheme, How, Name, Env)`` is sent:

- ``bearer``: ``Authorization: Bearer $Env``;  ``basic``: ``$Env`` holds ``user:password``, sent as HTTP Basic;
- ``header``: header ``Name`` with ``$Env``;  ``query``: query parameter ``Name`` with ``$Env``;
- ``client_credentials``: ``Name`` is the token URL (https, or a loopback address), ``$Env`` holds
  ``id:secret``; the token is fetched (OAuth 2.1 client credentials grant, the client authenticated with
  HTTP Basic), kept until it expires, and fetched again when it has or when the API answers 401 (once);
- ``login``: ``Name`` is the authorization server (its issuer); the token comes from the token store
  (``rofl.adapters.logins.access_token``, which refreshes it); with nobody logged in the want is held with
  the command to run, ``rofl adapter login ISSUER``.

Every token fetched here is a secret too: ``values`` holds them, so the kind can keep them out of what it
returns, and no text made here holds a secret.
"""

from __future__ import annotations

import base64
import ipaddress
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rofl.engine.base.errors import RoflError

from .batch import Reply
from .books import Secret
from .policy import CAPABILITY_DENIED, HOST_CALL_FAILED, why
from .secrets import Scrubber
from .wants import Want

MARGIN_S = 30.0  # a token this close to its expiry is fetched again (half its life when that is shorter)
MAX_TOKEN_ANSWER = 1 << 20  # bytes of a token endpoint's answer
LOGIN_COMMAND = "rofl adapter login"
# A function that POSTs a form to a URL with HTTP Basic credentials and returns (status, bytes of the body).
Post = Callable[[str, Mapping[str, str], tuple[str, str], float], tuple[int, bytes]]


@dataclass(frozen=True, slots=True)
class Credentials:
    """What one request carries: headers and query parameters (secret values inside)."""

    headers: tuple[tuple[str, str], ...]
    params: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Held:
    """The want is not sent (a login nobody has made); ``why`` says what to do."""

    why: str


@dataclass(frozen=True, slots=True)
class Failed:
    """The credentials cannot be had (a malformed variable, a token endpoint that refused)."""

    why: str


@dataclass(frozen=True, slots=True)
class _Token:
    value: str
    renew_at: float | None  # clock time after which it is fetched again (None: until the API refuses it)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as a URL spells it) is this machine: localhost, 127.0.0.0/8 or ::1."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_url_problem(url: str) -> str | None:
    """Why ``url`` may not receive a client's id and secret (not https and not this machine), or None."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname and is_loopback(parts.hostname):
        return None
    return f"the token URL {url!r} is neither https nor a loopback address; rofl sends a client secret to no other"


def token_scrubber(values: Iterable[str]) -> Scrubber:
    """A scrubber for secret values that no environment variable holds (tokens fetched at run time)."""
    environ = {f"T{i}": value for i, value in enumerate(values)}
    return Scrubber.of([Secret("", "", "bearer", "", name) for name in environ], environ)


class HttpAuth:
    """The credentials of one session's requests: tokens of client_credentials are kept until they
    expire (``clock`` says when), login tokens are asked of the token store each time."""

    def __init__(self, post: Post, clock: Callable[[], float] = time.monotonic) -> None:
        self.post = post
        self.clock = clock
        self.tokens: dict[tuple[str, str, str], _Token] = {}  # (token URL, id, Env) -> the token
        self.values: set[str] = set()  # every token this session got: secrets like the variables
        self.fetched = 0  # tokens fetched from token endpoints
        self.logins: dict[str, tuple[str, Mapping[str, str]]] = {}  # issuer -> the login token last sent, and where

    def credentials(
        self, cap: str, secrets: Iterable[Secret], environ: Mapping[str, str], timeout: float
    ) -> Credentials | Held | Failed:
        """The headers and parameters of a request of capability ``cap`` (``environ`` holds the
        variables; a login's token store reads it too)."""
        headers: list[tuple[str, str]] = []
        params: list[tuple[str, str]] = []
        for secret in secrets:
            value = environ.get(secret.env, "")
            how = secret.how
            if how == "bearer":
                headers.append(("authorization", f"Bearer {value}"))
            elif how == "basic":
                if ":" not in value:
                    return Failed(why(CAPABILITY_DENIED, f"{cap}: {secret.env} must hold user:password for basic"))
                headers.append(("authorization", "Basic " + base64.b64encode(value.encode()).decode("ascii")))
            elif how in ("header", "query"):
                if not secret.name:
                    return Failed(
                        why(
                            CAPABILITY_DENIED,
                            f"{cap}: http_auth({secret.book}, {secret.scheme}, {how}, ...) names no {how}",
                        )
                    )
                (headers if how == "header" else params).append(
                    (secret.name.lower() if how == "header" else secret.name, value)
                )
            elif how == "client_credentials":
                token = self._client_token(cap, secret, value, timeout)
                if not isinstance(token, str):
                    return token
                headers.append(("authorization", f"Bearer {token}"))
            elif how == "login":
                login = self._login_token(cap, secret, environ)
                if not isinstance(login, str):
                    return login
                headers.append(("authorization", f"Bearer {login}"))
        return Credentials(tuple(headers), tuple(params))

    def send_again(self, status: int | None, secrets: Iterable[Secret], resent: bool) -> bool:
        """Whether a request refused with ``status`` is sent again: a 401 to a request not ``resent`` yet,
        when ``renew`` forgot a fetched token of ``secrets`` (the one retry both HTTP kinds make)."""
        return status == 401 and not resent and self.renew(secrets)

    def clean(self, book: str, reply: Reply) -> Reply:
        """``reply`` with the tokens fetched this session kept out: scrubbed from its Whys, and an answer that
        holds one failed instead (the variables are the session's to check)."""
        if not self.values:
            return reply
        scrubber = token_scrubber(self.values)
        answers: dict[Want, tuple[tuple, ...]] = {}
        failed = {w: scrubber.scrub(text) for w, text in reply.failed.items()}
        for want, rows in reply.answers.items():
            if any(scrubber.leaks_term(row) for row in rows):
                reason = f"adapter {book}: an answer holds the value of a secret; nothing of it is kept"
                failed[want] = why(HOST_CALL_FAILED, reason)
            else:
                answers[want] = rows
        return Reply(answers, failed, {w: scrubber.scrub(text) for w, text in reply.held.items()})

    def renew(self, secrets: Iterable[Secret]) -> bool:
        """After a 401: forget the tokens these secrets got; True when one of them is fetched (a
        client_credentials or login token), so that sending again may succeed."""
        renewable = False
        for secret in secrets:
            if secret.how == "client_credentials":
                for key in [k for k in self.tokens if k[0] == secret.name and k[2] == secret.env]:
                    del self.tokens[key]
                renewable = True
            elif secret.how == "login":
                sent = self.logins.pop(secret.name, None)
                if sent is not None:  # the store counts it expired, so the next access_token refreshes it
                    from .logins import token_rejected

                    try:
                        token_rejected(secret.name, *sent)
                    except (RoflError, OSError):  # a store refused now is said by the next access_token
                        pass
                renewable = True
        return renewable

    def _client_token(self, cap: str, secret: Secret, value: str, timeout: float) -> str | Failed:
        client_id, sep, client_secret = value.partition(":")
        if not sep or not client_id or not client_secret:
            return Failed(why(CAPABILITY_DENIED, f"{cap}: {secret.env} must hold id:secret for client_credentials"))
        problem = token_url_problem(secret.name)
        if problem is not None:
            return Failed(why(CAPABILITY_DENIED, f"{cap}: {problem}"))
        key = (secret.name, client_id, secret.env)
        held = self.tokens.get(key)
        now = self.clock()
        if held is not None and (held.renew_at is None or now < held.renew_at):
            return held.value
        form = {"grant_type": "client_credentials"}
        try:
            status, body = self.post(secret.name, form, (client_id, client_secret), timeout)
        except OSError as exc:  # httpx's errors are wrapped as OSError by the caller's post
            return Failed(why(HOST_CALL_FAILED, f"{cap}: the token endpoint {secret.name} failed: {exc}"))
        self.fetched += 1
        if not 200 <= status < 300:
            return Failed(why(HOST_CALL_FAILED, f"{cap}: the token endpoint {secret.name} answered {status}"))
        token = _read_token(body)
        if isinstance(token, str):
            return Failed(why(HOST_CALL_FAILED, f"{cap}: the token endpoint {secret.name} {token}"))
        access, lifetime = token
        self.values.add(access)
        renew_at = None if lifetime is None else now + max(0.0, lifetime - min(MARGIN_S, lifetime / 2))
        self.tokens[key] = _Token(access, renew_at)
        return access

    def _login_token(self, cap: str, secret: Secret, environ: Mapping[str, str]) -> str | Held | Failed:
        issuer = secret.name
        command = f"{LOGIN_COMMAND} {issuer}"
        try:
            from .logins import access_token
        except ImportError:
            return Held(why(CAPABILITY_DENIED, f"{cap} needs a login at {issuer}; this rofl cannot log in ({command})"))
        try:
            token = access_token(issuer, environ)
        except (RoflError, OSError, ValueError) as exc:
            return Failed(why(HOST_CALL_FAILED, f"{cap}: the login at {issuer} cannot be used: {exc}"))
        if not token:
            return Held(
                why(CAPABILITY_DENIED, f"{cap} needs a login at {issuer} and nobody is logged in; run `{command}`")
            )
        self.values.add(token)
        self.logins[issuer] = (str(token), environ)
        return str(token)


def _read_token(body: bytes) -> tuple[str, float | None] | str:
    """The access token and its lifetime in seconds from a token endpoint's JSON, or what is wrong."""
    import json

    try:
        answer: Any = json.loads(body[:MAX_TOKEN_ANSWER])
    except ValueError:
        return "answered no JSON"
    if not isinstance(answer, dict) or not isinstance(answer.get("access_token"), str) or not answer["access_token"]:
        return "answered no access_token"
    kind = answer.get("token_type", "bearer")
    if not isinstance(kind, str) or kind.lower() != "bearer":
        return f"answered a token of type {str(kind)[:40]!r}; rofl sends bearer tokens only"
    lifetime = answer.get("expires_in")
    if isinstance(lifetime, bool) or not isinstance(lifetime, (int, float)):
        lifetime = None
    return answer["access_token"], None if lifetime is None else float(lifetime)
