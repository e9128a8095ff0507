"""OAuth 2.1 client pieces: issuer URLs, the authorization server's metadata, calls to its endpoints, PKCE.

Standard library only (``urllib``): a login and a token refresh need no third-party client.  Every call is
one request with a timeout and a bounded answer, follows no redirect, and goes to ``https`` or to a loopback
address (``http://127.0.0.1``, ``localhost``, ``[::1]``: a server the user runs on this machine).  Errors
are ``LoginError`` with one line; texts the server sends are cut to one printable line before they are
shown (the caller masks the secrets it knows).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import secrets
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass

from rofl.engine.base.errors import RoflError

TIMEOUT = 30.0  # seconds per request
MAX_ANSWER = 1 << 20  # bytes of one answer (metadata, a token): far above any real one
USER_AGENT = "rofl-login"


class LoginError(RoflError):
    """A login or a token refresh that could not be done; its message is one line with no secret in it."""


class LoginUsage(LoginError):
    """A login the command line cannot ask for as given (an issuer that is not an https URL, no client id)."""


class OAuthError(LoginError):
    """The authorization server answered with an OAuth error (``error`` and ``error_description``)."""

    def __init__(self, message: str, error: str) -> None:
        super().__init__(message)
        self.error = error


@dataclass(frozen=True, slots=True)
class Metadata:
    """What a login needs of the authorization server's metadata (RFC 8414 / OpenID Connect Discovery)."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None
    revocation_endpoint: str | None
    auth_methods: tuple[str, ...]  # token_endpoint_auth_methods_supported (RFC 8414's default when absent)
    sends_iss: bool  # authorization_response_iss_parameter_supported (RFC 9207)
    scopes: tuple[str, ...]


def issuer_key(issuer: str) -> str:
    """The issuer as logins are kept under: checked (``https``, or ``http`` on loopback; no query or
    fragment) and without a trailing slash, so ``https://a.example/`` and ``https://a.example`` are one."""
    try:
        check_url(issuer, "the issuer")
    except LoginError as err:
        raise LoginUsage(str(err)) from None
    parts = urllib.parse.urlsplit(issuer)
    if parts.query or parts.fragment:
        raise LoginUsage(f"the issuer {issuer} has a query or fragment; give the issuer URL itself")
    return issuer.rstrip("/")


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine: ``localhost`` or a loopback address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str, what: str) -> None:
    """Raise unless ``url`` is ``https`` with a host, or ``http`` to a loopback address (OAuth 2.1 needs TLS)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme == "https" and host:
        return
    if parts.scheme == "http" and is_loopback(host):
        return
    raise LoginError(f"{what} {printable(url)} is not an https URL (plain http only to 127.0.0.1 or localhost)")


def discover(issuer: str) -> Metadata:
    """The metadata of ``issuer``: RFC 8414's ``/.well-known/oauth-authorization-server`` (inserted before
    the issuer's path), falling back to OpenID Connect's ``/.well-known/openid-configuration``."""
    key = issuer_key(issuer)
    parts = urllib.parse.urlsplit(key)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    candidates = (
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}/.well-known/openid-configuration{path}",
        f"{key}/.well-known/openid-configuration",
    )
    tried = []
    for url in dict.fromkeys(candidates):
        status, body = request("GET", url)
        if status == 200 and isinstance(body, dict):
            return _metadata(key, url, body)
        tried.append(f"{url} ({status})")
    raise LoginError(f"{key} publishes no authorization server metadata; tried {', '.join(tried)}")


def _metadata(key: str, url: str, body: Mapping[str, object]) -> Metadata:
    issuer = body.get("issuer")
    if not isinstance(issuer, str) or issuer.rstrip("/") != key:
        raise LoginError(f"the metadata at {url} names another issuer ({printable(str(issuer))}), not {key}")
    endpoints: dict[str, str | None] = {}
    for name in ("authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"):
        value = body.get(name)
        if value is None:
            endpoints[name] = None
            continue
        if not isinstance(value, str):
            raise LoginError(f"the metadata at {url} has a {name} that is not a URL")
        check_url(value, f"the {name} of {key}")
        endpoints[name] = value
    for name in ("authorization_endpoint", "token_endpoint"):
        if endpoints[name] is None:
            raise LoginError(f"the metadata at {url} has no {name}; {key} cannot be logged in to")
    methods = _strings(body, "code_challenge_methods_supported")
    if methods is not None and "S256" not in methods:
        raise LoginError(f"{key} does not offer PKCE with S256 (code_challenge_methods_supported: {methods})")
    responses = _strings(body, "response_types_supported")
    if responses is not None and "code" not in responses:
        raise LoginError(f"{key} does not offer the authorization code flow (response_types_supported)")
    grants = _strings(body, "grant_types_supported")
    if grants is not None and "authorization_code" not in grants:
        raise LoginError(f"{key} does not offer the authorization_code grant (grant_types_supported)")
    auth_methods = _strings(body, "token_endpoint_auth_methods_supported") or ("client_secret_basic",)
    authorization, token = endpoints["authorization_endpoint"], endpoints["token_endpoint"]
    assert authorization is not None and token is not None
    return Metadata(
        issuer=key,
        authorization_endpoint=authorization,
        token_endpoint=token,
        registration_endpoint=endpoints["registration_endpoint"],
        revocation_endpoint=endpoints["revocation_endpoint"],
        auth_methods=tuple(auth_methods),
        sends_iss=body.get("authorization_response_iss_parameter_supported") is True,
        scopes=tuple(_strings(body, "scopes_supported") or ()),
    )


def _strings(body: Mapping[str, object], name: str) -> tuple[str, ...] | None:
    value = body.get(name)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return None


@dataclass(frozen=True, slots=True)
class Pkce:
    """A PKCE pair (RFC 7636): the verifier kept here, its S256 challenge sent with the authorization."""

    verifier: str
    challenge: str

    def __repr__(self) -> str:
        return "Pkce(...)"


def pkce() -> Pkce:
    """A fresh verifier of 86 unreserved characters (64 random bytes) and its S256 challenge."""
    verifier = secrets.token_urlsafe(64)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return Pkce(verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii"))


def with_query(url: str, params: Mapping[str, str]) -> str:
    """``url`` with ``params`` added to its query (an endpoint may already carry one)."""
    return url + ("&" if urllib.parse.urlsplit(url).query else "?") + urllib.parse.urlencode(params)


def client_auth(client_id: str, client_secret: str | None, method: str, form: dict[str, str]) -> dict[str, str]:
    """The headers that authenticate the client at the token endpoint; ``form`` gains ``client_id`` (and the
    secret for ``client_secret_post``) as the method asks."""
    if client_secret is None or method == "none":
        form["client_id"] = client_id
        return {}
    if method == "client_secret_post":
        form["client_id"] = client_id
        form["client_secret"] = client_secret
        return {}
    pair = f"{urllib.parse.quote_plus(client_id)}:{urllib.parse.quote_plus(client_secret)}"  # RFC 6749 §2.3.1
    return {"Authorization": "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")}


def post_form(
    url: str, form: Mapping[str, str], headers: Mapping[str, str] | None = None, answers_json: bool = True
) -> dict[str, object]:
    """POST ``form`` to an OAuth endpoint and return its JSON object (``answers_json=False``: any 2xx will
    do, as revocation answers an empty 200); an OAuth error raises ``OAuthError``."""
    status, body = request("POST", url, urllib.parse.urlencode(form).encode("ascii"), headers or {}, "form")
    if not answers_json and 200 <= status < 300:
        return body if isinstance(body, dict) else {}
    return _ok(url, status, body)


def post_json(url: str, payload: Mapping[str, object]) -> dict[str, object]:
    """POST ``payload`` as JSON (dynamic registration) and return the JSON object answered."""
    status, body = request("POST", url, json.dumps(payload).encode("utf-8"), {}, "json")
    return _ok(url, status, body)


def _ok(url: str, status: int, body: object) -> dict[str, object]:
    if 200 <= status < 300 and isinstance(body, dict):
        return body
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        error = printable(str(body["error"]), 60)
        description = body.get("error_description")
        detail = f" ({printable(description)})" if isinstance(description, str) and description else ""
        raise OAuthError(f"{url} answered {status} {error}{detail}", error)
    if 200 <= status < 300:
        raise LoginError(f"{url} answered {status} without a JSON object")
    raise LoginError(f"{url} answered {status}")


def request(
    method: str, url: str, data: bytes | None = None, headers: Mapping[str, str] | None = None, kind: str = ""
) -> tuple[int, object]:
    """One request: (status, the JSON answered or None).  A redirect is answered as its status (never
    followed); a connection that fails raises ``LoginError``."""
    check_url(url, "the endpoint")
    all_headers = {"Accept": "application/json", "User-Agent": USER_AGENT, **(headers or {})}
    if kind == "form":
        all_headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif kind == "json":
        all_headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=all_headers, method=method)
    host = urllib.parse.urlsplit(url).hostname or ""
    # a loopback server is never reached through a proxy; others go as the environment says
    proxies = urllib.request.ProxyHandler({}) if is_loopback(host) else urllib.request.ProxyHandler()
    opener = urllib.request.build_opener(proxies, _NoRedirect())
    try:
        with opener.open(req, timeout=TIMEOUT) as answer:
            return answer.status, _json(answer.read(MAX_ANSWER + 1))
    except urllib.error.HTTPError as err:
        with err:
            return err.code, _json(err.read(MAX_ANSWER + 1))
    except OSError as err:  # URLError and timeouts are OSErrors
        reason = getattr(err, "reason", err)
        raise LoginError(f"could not reach {printable(url)}: {printable(str(reason))}") from None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_args: object, **_kwargs: object) -> None:
        return None


def _json(raw: bytes) -> object:
    if len(raw) > MAX_ANSWER:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def printable(text: str, limit: int = 200) -> str:
    """``text`` as one printable line of at most ``limit`` characters (a server's words, shown safely)."""
    line = "".join(ch if ch.isprintable() else " " for ch in text).strip()
    return line if len(line) <= limit else line[: limit - 3] + "..."
