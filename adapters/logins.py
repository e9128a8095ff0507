"""The login store: tokens of ``rofl adapter login`` kept in ``logins.json``, readable by the owner only, refreshed.

The file is ``$ROFL_CONFIG_DIR/logins.json`` (default ``$XDG_CONFIG_HOME/rofl`` or ``~/.config/rofl``, the
folder of the cache key), one entry per issuer (its URL without a trailing slash): the client, the token
and revocation endpoints, the access token, the refresh token and when the access token expires.  It is
written atomically with mode 0600 under a lock (two processes refreshing at once do not spend a rotated
refresh token twice) and read only when it is a regular file of this user that nobody else may read or
write; any other file is refused with one line saying how to fix it.

``access_token(issuer, environ)`` is what an adapter calls when it sends: the stored access token, or a
fresh one when it expired (the refresh token spent and the new pair kept), or None when nobody is logged
in (no entry, or the server no longer takes the refresh token).  It raises ``LoginError`` only when the
store is refused or a refresh could not be done (the server unreachable): a want then fails with that
reason instead of being held.  ``token_rejected`` marks a token a service refused, so that the next
``access_token`` refreshes it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shlex
import stat
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from rofl.engine.base.safe_write import UnsafePath, open_nofollow, write_atomic

from .books import Secret
from .oauth import LoginError, OAuthError, client_auth, issuer_key, post_form
from .secrets import MASK, MIN_SECRET, WITHHELD, Scrubber

LOG = logging.getLogger(__name__)
STORE_NAME = "logins.json"
LOCK_NAME = "logins.lock"
FORMAT = 1
SKEW = 30.0  # seconds: a token this close to its end counts as expired (clocks differ, requests take time)
MAX_STORE = 16 << 20
DEAD_GRANTS = ("invalid_grant", "invalid_client", "unauthorized_client")  # the refresh token is no good any more


@dataclass(frozen=True, slots=True)
class Login:
    """One person's login to one issuer: the client rofl is there, the endpoints, and the tokens."""

    issuer: str
    client_id: str
    token_endpoint: str
    revocation_endpoint: str | None
    auth_method: str  # how the client authenticates at the token endpoint: none, client_secret_basic, _post
    access_token: str = field(repr=False)
    refresh_token: str | None = field(repr=False)
    expires_at: float | None  # seconds since 1970; None: the server gave no lifetime
    scope: str | None
    client_secret: str | None = field(default=None, repr=False)

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at - SKEW

    def secret_values(self) -> tuple[str, ...]:
        """The values that must never be shown: the tokens and the client secret."""
        return tuple(v for v in (self.access_token, self.refresh_token, self.client_secret) if v)

    def to_json(self) -> dict[str, object]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "token_endpoint": self.token_endpoint,
            "revocation_endpoint": self.revocation_endpoint,
            "auth_method": self.auth_method,
            "access_token": self.access_token,
            "refresh_token": self.refresh_token,
            "expires_at": self.expires_at,
            "scope": self.scope,
        }

    @staticmethod
    def from_json(issuer: str, entry: object) -> Login:
        if not isinstance(entry, dict):
            raise ValueError(f"the entry of {issuer} is not an object")
        text = {k: entry.get(k) for k in ("client_id", "token_endpoint", "auth_method", "access_token")}
        if not all(isinstance(v, str) and v for v in text.values()):
            raise ValueError(f"the entry of {issuer} lacks {', '.join(k for k, v in text.items() if not v)}")
        optional = {k: entry.get(k) for k in ("revocation_endpoint", "refresh_token", "scope", "client_secret")}
        if not all(v is None or isinstance(v, str) for v in optional.values()):
            raise ValueError(f"the entry of {issuer} has a field of the wrong type")
        expires = entry.get("expires_at")
        if expires is not None and (isinstance(expires, bool) or not isinstance(expires, (int, float))):
            raise ValueError(f"the entry of {issuer} has an expires_at that is not a number")
        return Login(
            issuer=issuer,
            client_id=str(text["client_id"]),
            token_endpoint=str(text["token_endpoint"]),
            revocation_endpoint=optional["revocation_endpoint"],
            auth_method=str(text["auth_method"]),
            access_token=str(text["access_token"]),
            refresh_token=optional["refresh_token"],
            expires_at=None if expires is None else float(expires),
            scope=optional["scope"],
            client_secret=optional["client_secret"],
        )


def login_command(issuer: str) -> str:
    """The command a person runs to log in to ``issuer`` (what a held want names)."""
    return f"rofl adapter login {shlex.quote(issuer)}"


def access_token(issuer: str, environ: Mapping[str, str]) -> str | None:
    """A valid access token for ``issuer``, refreshed with the refresh token when it expired; None when
    nobody is logged in (or the login can no longer be refreshed).  Raises ``LoginError`` when the store
    is refused or the refresh failed for another reason than the server's no."""
    key = issuer_key(issuer)
    login = read_logins(environ).get(key)
    if login is None:
        return None
    if not login.expired(time.time()):
        return login.access_token
    if login.refresh_token is None:
        return None
    with _locked(environ):
        login = read_logins(environ).get(key)  # another process may have refreshed it meanwhile
        if login is None or login.refresh_token is None:
            return None
        if not login.expired(time.time()):
            return login.access_token
        fresh = refresh(login)
        LOG.info("login: %s the login to %s", "refreshed" if fresh else "the server refused to refresh", key)
        if fresh is None:
            _write(environ, {k: v for k, v in read_logins(environ).items() if k != key})
            return None
        _write(environ, {**read_logins(environ), key: fresh})
        return fresh.access_token


def token_rejected(issuer: str, token: str, environ: Mapping[str, str]) -> None:
    """Note that a service refused ``token`` (a 401): when it is still the stored access token, it counts
    as expired from now on, so that the next ``access_token`` refreshes it."""
    key = issuer_key(issuer)
    with _locked(environ):
        logins = read_logins(environ)
        login = logins.get(key)
        if login is not None and login.access_token == token and not login.expired(time.time()):
            _write(environ, {**logins, key: replace(login, expires_at=0.0)})


def refresh(login: Login) -> Login | None:
    """``login`` with the tokens the refresh grant answers (a rotated refresh token replaces the old one);
    None when the server no longer takes the refresh token."""
    assert login.refresh_token is not None
    form = {"grant_type": "refresh_token", "refresh_token": login.refresh_token}
    headers = client_auth(login.client_id, login.client_secret, login.auth_method, form)
    try:
        body = post_form(login.token_endpoint, form, headers)
        access, refresh_token, expires_at, scope = tokens(body, time.time())
    except OAuthError as err:
        if err.error in DEAD_GRANTS:
            return None
        raise LoginError(masked(f"refreshing the login to {login.issuer}: {err}", login.secret_values())) from None
    except LoginError as err:
        raise LoginError(masked(f"refreshing the login to {login.issuer}: {err}", login.secret_values())) from None
    return replace(
        login,
        access_token=access,
        refresh_token=refresh_token or login.refresh_token,
        expires_at=expires_at,
        scope=scope or login.scope,
    )


def revoke(login: Login) -> str | None:
    """Revoke ``login``'s tokens at its revocation endpoint (RFC 7009: the refresh token, which ends the
    grant, then the access token); None when done, else why not (no endpoint, or the server's error)."""
    if login.revocation_endpoint is None:
        return f"{login.issuer} has no revocation endpoint"
    pairs = [(login.refresh_token, "refresh_token"), (login.access_token, "access_token")]
    for token, hint in pairs:
        if not token:
            continue
        form = {"token": token, "token_type_hint": hint}
        headers = client_auth(login.client_id, login.client_secret, login.auth_method, form)
        try:
            post_form(login.revocation_endpoint, form, headers, answers_json=False)
        except LoginError as err:
            return masked(str(err), login.secret_values())
    return None


def tokens(body: Mapping[str, object], now: float) -> tuple[str, str | None, float | None, str | None]:
    """(access token, refresh token, expiry, scope) of a token endpoint's answer; a bearer token only."""
    access = body.get("access_token")
    if not isinstance(access, str) or not access:
        raise LoginError("the token endpoint answered no access_token")
    kind = body.get("token_type")
    if not isinstance(kind, str) or kind.lower() != "bearer":
        raise LoginError(
            f"the token endpoint answered a token of type {str(kind)[:40]!r}; rofl sends bearer tokens only"
        )
    lifetime = body.get("expires_in")
    if isinstance(lifetime, str) and lifetime.isdigit():
        lifetime = int(lifetime)
    expires_at = now + lifetime if isinstance(lifetime, (int, float)) and not isinstance(lifetime, bool) else None
    refresh_token = body.get("refresh_token")
    scope = body.get("scope")
    return (
        access,
        refresh_token if isinstance(refresh_token, str) and refresh_token else None,
        expires_at,
        scope if isinstance(scope, str) and scope else None,
    )


def masked(text: str, values: Iterable[str]) -> str:
    """``text`` with every value in ``values`` masked, or WITHHELD when it still holds part of one in a
    printable form (reversed, encoded, spaced: the test of ``Scrubber.leaks``)."""
    kept = sorted({v for v in values if len(v) >= MIN_SECRET}, key=len, reverse=True)
    for value in kept:
        text = text.replace(value, MASK)
    named = {f"LOGIN_SECRET_{i}": v for i, v in enumerate(kept)}
    scrubber = Scrubber.of([Secret("login", "login", "login", "", name) for name in named], named)
    return WITHHELD if scrubber.leaks(text) else text


def config_dir(environ: Mapping[str, str]) -> Path:
    """``$ROFL_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/rofl``, else ``~/.config/rofl``."""
    explicit = environ.get("ROFL_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME") or Path.home()) / ".config")
    return Path(base) / "rofl"


def store_path(environ: Mapping[str, str]) -> Path:
    return config_dir(environ) / STORE_NAME


def read_logins(environ: Mapping[str, str]) -> dict[str, Login]:
    """Every login in the store (none when there is no store); ``LoginError`` when the file is refused."""
    path = store_path(environ)
    try:
        fd = open_nofollow(str(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return {}
    except UnsafePath:
        raise LoginError(f"{path} is a symlink; rofl reads its logins only from a file of its own there") from None
    except OSError as err:
        raise LoginError(f"{path} cannot be read: {err.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise LoginError(f"{path} is not a regular file; remove it and log in again")
        if info.st_uid != os.getuid():
            raise LoginError(f"{path} belongs to another user; remove it and log in again")
        if info.st_mode & 0o077:
            raise LoginError(
                f"{path} can be read or written by others (mode {stat.S_IMODE(info.st_mode):04o}); "
                f"run `chmod 600 {shlex.quote(str(path))}` (and log in again if someone may have read it)"
            )
        raw = handle.read(MAX_STORE + 1)
    try:
        if len(raw) > MAX_STORE:
            raise ValueError("it is too large")
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("logins"), dict):
            raise ValueError(f"it is not a format-{FORMAT} logins file")
        return {issuer_key(k): Login.from_json(issuer_key(k), v) for k, v in data["logins"].items()}
    except (ValueError, UnicodeDecodeError, LoginError) as err:
        raise LoginError(f"{path} is not a logins file rofl can read ({err}); remove it and log in again") from None


def save_login(login: Login, environ: Mapping[str, str]) -> Path:
    """Keep ``login`` (replacing any earlier login to its issuer); the store's path."""
    with _locked(environ):
        _write(environ, {**read_logins(environ), login.issuer: login})
    return store_path(environ)


def forget_login(issuer: str, environ: Mapping[str, str]) -> Login | None:
    """Remove the login to ``issuer`` from the store; the login removed, or None when there was none."""
    key = issuer_key(issuer)
    with _locked(environ):
        logins = read_logins(environ)
        gone = logins.pop(key, None)
        if gone is not None:
            _write(environ, logins)
    return gone


def _write(environ: Mapping[str, str], logins: Mapping[str, Login]) -> None:
    data = {"format": FORMAT, "logins": {k: v.to_json() for k, v in sorted(logins.items())}}
    path = store_path(environ)
    try:
        write_atomic(str(path), (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=0o600)
    except OSError as err:
        raise LoginError(f"cannot write {path}: {err.strerror or err}") from None


@contextlib.contextmanager
def _locked(environ: Mapping[str, str]) -> Iterator[None]:
    """Hold the store's lock (``logins.lock`` beside it, an flock the kernel drops when a process dies)."""
    folder = config_dir(environ)
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = open_nofollow(str(folder / LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        raise LoginError(f"cannot lock {folder / LOCK_NAME}: {err.strerror or err}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
