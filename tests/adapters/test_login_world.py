"""A world whose openapi book sends a person's login (``http_auth(Book, Scheme, login, ISSUER, "")``): held with
the command to run while nobody is logged in, answered with the stored token once someone is, refreshed when
it expired, and no token, code or verifier in any output of the commands that ask it."""

from __future__ import annotations

import json
import time

import pytest
from rofl.adapters.login_flow import LoginRequest, Person, log_in
from rofl.adapters.logins import read_logins, save_login, store_path

from tests.adapters.conftest import quote, rows, session
from tests.adapters.fake_oauth import AuthServer, Browser, hosting


@pytest.fixture(scope="module")
def host():
    with hosting() as h:
        yield h


@pytest.fixture
def server(host):
    return host.use()


@pytest.fixture
def config(tmp_path, monkeypatch):
    folder = tmp_path / "config"
    monkeypatch.setenv("ROFL_CONFIG_DIR", str(folder))
    return {"ROFL_CONFIG_DIR": str(folder)}


def world(issuer: str) -> str:
    """A book at the fake server's API (its own issuer guards it) asking who the token belongs to."""
    return f"""
imports(main, idp).
adapter(idp, openapi, {quote(issuer)}).
capability(whoami, idp, reads).
arg(whoami, 1, n, number).
http_op(whoami, "GET", "/api/me").
http_in(whoami, 1, "", none).
answers(whoami, me, 2).
http_field(whoami, 2, "/user").
http_auth(idp, person, login, {quote(issuer)}, "").
http_needs(whoami, person).
go(1).
want whoami(1) :- go(1).
user(U) :- me[idp](W, U), want_arg(W, 1, 1).
"""


def log_in_as_ada(server: AuthServer, config: dict) -> None:
    login = log_in(
        LoginRequest(server.base, timeout=20), Person(say=lambda _l: None, open_browser=Browser(), ask_client_id=str)
    )
    save_login(login, config)


def test_nobody_logged_in_holds_the_want_with_the_command_to_run(server, config):
    s = session(world(server.base), environ=dict(config))
    report = s.run()
    assert not report.answered and not report.failed
    ((_, why),) = report.held
    assert why.startswith("ADP_CAPABILITY_DENIED: ") and f"run `rofl adapter login {server.base}`" in why
    assert server.access == {}  # nothing was asked of the service


def test_a_logged_in_person_is_answered_and_an_expired_token_refreshed(server, config):
    log_in_as_ada(server, config)
    s = session(world(server.base), environ=dict(config))
    assert s.run().answered and rows(s.kernel, "user(U)") == [("ada",)]
    before = read_logins(config)[server.base].access_token
    data = json.loads(store_path(config).read_text())
    data["logins"][server.base]["expires_at"] = time.time() - 60  # time passes
    store_path(config).write_text(json.dumps(data))
    s = session(world(server.base), environ=dict(config))
    assert s.run().answered and rows(s.kernel, "user(U)") == [("ada",)]
    assert server.grants == ["authorization_code", "refresh_token"]
    assert read_logins(config)[server.base].access_token != before


def test_a_token_the_service_refuses_before_it_expires_is_refreshed_once_and_the_want_answered(server, config):
    """A 401 for a stored token that has not expired (the service revoked it): the store counts it expired,
    the request is sent again with a refreshed token, and the want is answered."""
    log_in_as_ada(server, config)
    refused = read_logins(config)[server.base].access_token
    server.access.pop(refused)  # the service no longer takes it; the store still holds it as fresh
    s = session(world(server.base), environ=dict(config))
    assert s.run().answered and rows(s.kernel, "user(U)") == [("ada",)]
    assert server.grants == ["authorization_code", "refresh_token"]
    assert read_logins(config)[server.base].access_token != refused


def test_a_store_others_can_read_fails_the_want_and_says_how_to_fix_it(server, config):
    log_in_as_ada(server, config)
    store_path(config).chmod(0o644)
    report = session(world(server.base), environ=dict(config)).run()
    ((_, why),) = report.failed
    assert why.startswith("ADP_HOST_CALL_FAILED: ") and "chmod 600" in why


def test_no_token_in_any_output_of_a_world_that_sends_one(rofl, server, config, tmp_path):
    log_in_as_ada(server, config)
    (tmp_path / "w.rofl").write_text(world(server.base))
    outputs = []
    for args in (
        ("ask", "user(U)", "w.rofl", "--json"),
        ("ask", "me[idp](W, U)", "w.rofl"),
        ("why", 'user("ada")', "w.rofl"),
        ("why", 'user("ada")', "w.rofl", "--json"),
        ("run", "w.rofl", "--collect", "user", "--json"),
        ("ask", "user(U)", "w.rofl", "-vv"),
    ):
        code, out, err = rofl(*args, "--allow", "exec")
        assert code == 0, (args, err)
        outputs += [out, err]
    joined = "\n".join(outputs)
    assert '"ada"' in joined
    s = session(world(server.base), environ=dict(config))
    s.run()
    s.kernel.save(tmp_path / "store.rofl")
    stored = (tmp_path / "store.rofl").read_text()
    leaked = [secret for secret in server.secrets if secret in joined or secret in stored]
    assert server.secrets and not leaked
