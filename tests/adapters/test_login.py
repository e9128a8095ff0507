"""`rofl adapter login` and the token store, against an OAuth 2.1 server on loopback with a scripted browser:
PKCE, dynamic registration (or a given client id), OpenID Connect discovery as a fallback, state and issuer
checks, refresh (with rotation), revocation at logout, the store private to its owner, and no secret in any
output."""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rofl.adapters.login_flow import LoginRequest, Person, log_in
from rofl.adapters.logins import access_token, read_logins, save_login, store_path, token_rejected
from rofl.adapters.oauth import LoginError

from tests.adapters.fake_oauth import AuthServer, Browser, Host, hosting


@pytest.fixture
def config(tmp_path, monkeypatch):
    """A private config folder for the store; the environment the store functions are given."""
    folder = tmp_path / "config"
    monkeypatch.setenv("ROFL_CONFIG_DIR", str(folder))
    return {"ROFL_CONFIG_DIR": str(folder)}


@pytest.fixture(scope="module")
def host():
    with hosting() as h:
        yield h


@pytest.fixture
def server(host):
    """The fake authorization server, fresh for each test (the port is shared)."""
    return host.use()


def person(browser: Browser, said: list[str] | None = None, client_id: str | None = None) -> Person:
    return Person(
        say=(said if said is not None else []).append, open_browser=browser, ask_client_id=lambda _i: client_id
    )


def logged_in(server: AuthServer, config: dict, **request) -> None:
    login = log_in(LoginRequest(server.base, timeout=20, **request), person(Browser()))
    save_login(login, config)


def cli_login(rofl, monkeypatch, server: AuthServer, *args: str, browser: Browser | None = None):
    """`rofl adapter login` in this process, with the scripted browser standing in for webbrowser.open."""
    import webbrowser

    browser = browser or Browser()
    monkeypatch.setattr(webbrowser, "open", browser)
    return rofl("adapter", "login", server.base, "--timeout", "20", *args)


def test_login_registers_opens_the_browser_and_keeps_a_working_token(rofl, monkeypatch, server, config):
    code, out, err = cli_login(rofl, monkeypatch, server)
    assert code == 0, err
    assert out.startswith(f"logged in to {server.base} as client client-")
    ((client_id, client),) = server.clients.items()
    assert client["registered"]["token_endpoint_auth_method"] == "none"
    (redirect,) = client["redirect_uris"]
    parts = urllib.parse.urlsplit(redirect)
    assert (parts.scheme, parts.hostname, parts.path) == ("http", "127.0.0.1", "/callback") and parts.port
    assert server.grants == ["authorization_code"]  # the server checked the PKCE verifier against S256
    path = store_path(config)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    token = access_token(server.base, config)
    assert token and server.valid(token)
    assert access_token(server.base + "/", config) == token  # one issuer, with or without the slash
    with pytest.raises(OSError):  # the loopback port took its one answer and closed
        socket.create_connection(("127.0.0.1", parts.port), timeout=2).close()


def test_login_from_a_terminal_without_browser_prints_the_address(server, tmp_path):
    """A real process: the address arrives on stderr, the scripted person follows it, the command ends."""
    env = {**os.environ, "ROFL_CONFIG_DIR": str(tmp_path / "cfg")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rofl.cli", "adapter", "login", server.base, "--no-browser", "--timeout", "30"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    said = []
    assert proc.stderr is not None
    for line in proc.stderr:
        said.append(line)
        if line.startswith("http"):
            break
    browser = Browser()
    browser(said[-1].strip())
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, "".join(said) + err
    assert "open this address" in said[0] and "logged in to" in out
    assert browser.pages[-1].startswith("200 ") and "close this tab" in browser.pages[-1]
    everything = "".join(said) + err + out + "".join(browser.pages)
    leaked = [s for s in server.secrets if s in everything]
    assert not leaked
    assert access_token(server.base, {"ROFL_CONFIG_DIR": str(tmp_path / "cfg")})


def test_an_expired_token_is_refreshed_and_the_rotated_refresh_token_kept(server, config):
    logged_in(server, config)
    first = read_logins(config)[server.base]
    assert access_token(server.base, config) == first.access_token
    _age(config, server.base)
    fresh = access_token(server.base, config)
    assert fresh != first.access_token and server.valid(fresh)
    assert server.grants == ["authorization_code", "refresh_token"]
    kept = read_logins(config)[server.base]
    assert kept.access_token == fresh and kept.refresh_token != first.refresh_token
    assert access_token(server.base, config) == fresh and server.grants.count("refresh_token") == 1
    _age(config, server.base)  # and again: the rotated refresh token works, the spent one would not
    assert access_token(server.base, config) not in (None, fresh)


def test_a_token_the_service_refused_is_refreshed_next_time(server, config):
    logged_in(server, config)
    token = access_token(server.base, config)
    token_rejected(server.base, "some-other-token", config)  # not the one kept: nothing changes
    assert access_token(server.base, config) == token
    token_rejected(server.base, token, config)
    assert access_token(server.base, config) not in (None, token)


def test_a_refresh_the_server_refuses_means_nobody_is_logged_in(server, config):
    logged_in(server, config)
    server.revoked.append(read_logins(config)[server.base].refresh_token)
    _age(config, server.base)
    assert access_token(server.base, config) is None
    assert server.base not in read_logins(config)


def test_nobody_logged_in_is_none_never_an_error(server, config):
    assert access_token(server.base, config) is None  # no store at all
    logged_in(server, config)
    assert access_token("https://other.example", config) is None  # a store without that issuer


def test_an_unreachable_token_endpoint_fails_with_a_reason(server, config):
    logged_in(server, config)
    _age(config, server.base)
    data = json.loads(store_path(config).read_text())
    data["logins"][server.base]["token_endpoint"] = "http://127.0.0.1:9/token"  # nothing listens on 9
    store_path(config).write_text(json.dumps(data))
    with pytest.raises(LoginError, match="refreshing the login to .* could not reach http://127.0.0.1:9/token"):
        access_token(server.base, config)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620])
def test_a_store_others_can_read_or_write_is_refused(rofl, server, config, mode):
    logged_in(server, config)
    path = store_path(config)
    path.chmod(mode)
    with pytest.raises(LoginError, match=r"can be read or written by others .*chmod 600"):
        access_token(server.base, config)
    code, out, err = rofl("adapter", "logout", server.base)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "chmod 600" in err
    path.chmod(0o600)
    assert access_token(server.base, config)


def test_a_symlinked_or_foreign_store_is_refused(tmp_path, config):
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"format": 1, "logins": {}}))
    target.chmod(0o600)
    store_path(config).parent.mkdir(parents=True)
    store_path(config).symlink_to(target)
    with pytest.raises(LoginError, match="is a symlink"):
        access_token("https://a.example", config)
    store_path(config).unlink()
    store_path(config).write_text("{not json")
    store_path(config).chmod(0o600)
    with pytest.raises(LoginError, match="not a logins file rofl can read"):
        access_token("https://a.example", config)


def test_a_server_without_registration_takes_the_client_id_after_the_issuer(host, rofl, monkeypatch, config):
    with _using(host, registration=False) as s:
        code, out, err = cli_login(rofl, monkeypatch, s)
        assert code == 2 and "does not register clients itself" in err and f"login {s.base} CLIENT_ID" in err
        s.add_client("registered-by-hand")
        code, out, err = cli_login(rofl, monkeypatch, s, "registered-by-hand")
        assert code == 0, err
        assert "as client registered-by-hand" in out
        assert read_logins(config)[s.base].client_id == "registered-by-hand"


def test_a_confidential_client_sends_its_secret_from_the_environment(host, rofl, monkeypatch, config):
    with _using(host, registration=False) as s:
        s.add_client("conf", "the-client-secret-1234")
        s.secrets.append("the-client-secret-1234")
        monkeypatch.setenv("CONF_SECRET", "the-client-secret-1234")
        code, out, err = cli_login(rofl, monkeypatch, s, "--client-id", "conf", "--client-secret-env", "CONF_SECRET")
        assert code == 0, err
        assert read_logins(config)[s.base].auth_method == "client_secret_basic"
        _age(config, s.base)
        assert access_token(s.base, config) and s.grants == ["authorization_code", "refresh_token"]
        assert "the-client-secret-1234" not in out + err
        code, out, err = rofl("adapter", "login", s.base, "--client-id", "conf", "--client-secret-env", "NOPE")
        assert code == 2 and "the environment has no NOPE" in err


def test_openid_configuration_is_the_fallback(host, rofl, monkeypatch, config):
    with _using(host, oidc_only=True) as s:
        code, _out, err = cli_login(rofl, monkeypatch, s)
        assert code == 0, err
        assert access_token(s.base, config)


def test_an_answer_with_another_state_is_refused_and_nothing_kept(rofl, monkeypatch, server, config):
    browser = Browser(tamper_state=True)
    code, out, err = cli_login(rofl, monkeypatch, server, browser=browser)
    assert code == 1 and "its state differs" in err and out == ""
    assert browser.done.wait(10)
    assert browser.pages[-1].startswith("400 ")
    assert not store_path(config).exists() and server.grants == []


def test_an_answer_naming_another_issuer_is_refused(rofl, monkeypatch, host, config):
    with _using(host, iss="https://evil.example") as s:
        code, _out, err = cli_login(rofl, monkeypatch, s)
        assert code == 1 and "came from another issuer (https://evil.example)" in err
        assert not store_path(config).exists() and s.grants == []


def test_another_path_at_the_loopback_port_is_not_the_answer(server, config):
    browser = Browser(stray_first=True)
    login = log_in(LoginRequest(server.base, timeout=20), person(browser))
    assert browser.done.wait(10)
    assert browser.pages[1].startswith("404 ") and browser.pages[2].startswith("200 ")
    assert server.valid(login.access_token)


def test_two_processes_refreshing_at_once_spend_the_refresh_token_once(server, config):
    import threading

    logged_in(server, config)
    _age(config, server.base)
    got: list[str | None] = []
    threads = [threading.Thread(target=lambda: got.append(access_token(server.base, config))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(set(got)) == 1 and got[0] and server.valid(got[0])
    assert server.grants.count("refresh_token") == 1


def test_a_person_who_says_no_is_told_why(rofl, monkeypatch, server, config):
    code, _out, err = cli_login(rofl, monkeypatch, server, browser=Browser(decision="deny"))
    assert code == 1 and "did not log you in: access_denied (The person said no.)" in err
    assert not store_path(config).exists()


def test_no_answer_in_time_ends_the_wait(rofl, monkeypatch, server, config):
    import webbrowser

    monkeypatch.setattr(webbrowser, "open", lambda _url: False)  # nobody at the browser
    code, _out, err = rofl("adapter", "login", server.base, "--timeout", "0.2")
    assert code == 1 and "no answer from the browser in 0.2 s" in err


@pytest.mark.parametrize(
    "issuer", ["http://auth.example.com", "ftp://127.0.0.1/x", "https://auth.example.com/?tenant=1", "auth.example.com"]
)
def test_an_issuer_that_is_not_https_is_refused(rofl, config, issuer):
    code, out, err = rofl("adapter", "login", issuer)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "not an https URL" in err or "query or fragment" in err


def test_metadata_naming_another_issuer_is_refused(host, rofl, monkeypatch, config):
    with _using(host) as s:
        real = s.base
        s.base = real.replace("127.0.0.1", "localhost")  # the metadata now names another issuer
        code, _out, err = rofl("adapter", "login", real, "--timeout", "5")
        assert code == 1 and "names another issuer" in err


def test_logout_revokes_then_forgets(rofl, server, config):
    logged_in(server, config)
    kept = read_logins(config)[server.base]
    code, out, err = rofl("adapter", "logout", server.base)
    assert code == 0, err
    assert "revoked and forgotten" in out
    assert server.revoked == [kept.refresh_token, kept.access_token]
    assert access_token(server.base, config) is None
    code, out, _ = rofl("adapter", "logout", server.base)
    assert code == 0 and out.startswith("nobody is logged in")


def test_logout_without_a_revocation_endpoint_says_the_tokens_stay_valid(host, rofl, config):
    with _using(host, revocation=False) as s:
        logged_in(s, config)
        code, out, _ = rofl("adapter", "logout", s.base)
        assert code == 0 and "stay valid until they expire" in out
        assert access_token(s.base, config) is None


def test_no_secret_in_any_output_of_login_refresh_or_logout(host, rofl, monkeypatch, config):
    """Every code, verifier, token and client secret the server issued or received, searched for in what
    the commands print (with -vv), the pages the browser saw, and the texts of failures (a careless
    server repeats the code in its error)."""
    outputs: list[str] = []
    with _using(host, confidential=True) as s:
        browser = Browser()
        for args in (("-vv",), ()):
            code, out, err = cli_login(rofl, monkeypatch, s, *args, browser=browser)
            assert code == 0, err
            outputs += [out, err]
        _age(config, s.base)
        assert access_token(s.base, config)
        outputs.append(repr(read_logins(config)))  # a Login's repr shows no token
        code, out, err = rofl("adapter", "logout", s.base, "-vv")
        outputs += [out, err]
        assert browser.done.wait(10)
        outputs += browser.pages
        s.echo_code_in_errors = True
        s.codes = _Forgetting()  # the server forgets each code at once: the exchange fails, naming the code
        said: list[str] = []
        with pytest.raises(LoginError) as failure:
            log_in(LoginRequest(s.base, timeout=20), person(Browser(), said))
        outputs += [str(failure.value), *said]
        assert "invalid_grant" in str(failure.value)
    assert len(s.secrets) >= 10
    joined = "\n".join(outputs)
    leaked = [secret for secret in s.secrets if secret in joined]
    assert not leaked, leaked
    assert "code-" not in joined and "access-" not in joined and "refresh-" not in joined


class _Forgetting(dict):
    """A code table that keeps nothing: every exchange meets an unknown code."""

    def __setitem__(self, key: str, value: dict) -> None:
        return None


def test_a_login_repr_and_the_pkce_repr_show_no_secret(server, config):
    from rofl.adapters.oauth import pkce

    logged_in(server, config)
    login = read_logins(config)[server.base]
    assert login.access_token not in repr(login) and login.refresh_token not in repr(login)
    pair = pkce()
    assert pair.verifier not in repr(pair) and 43 <= len(pair.verifier) <= 128
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", pair.challenge)


@contextmanager
def _using(host: Host, **settings: object) -> Iterator[AuthServer]:
    """The fake server with ``settings`` for the block."""
    yield host.use(**settings)


def _age(config: dict, issuer: str) -> None:
    """Make the kept access token of ``issuer`` an expired one, as time passing would."""
    path: Path = store_path(config)
    data = json.loads(path.read_text())
    data["logins"][issuer]["expires_at"] = time.time() - 3600
    path.write_text(json.dumps(data))


_texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
_secret_values = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=40)


@given(
    client_id=_texts.filter(bool),
    access=_texts.filter(bool),
    refresh=st.none() | _texts.filter(bool),
    expires=st.none() | st.floats(0, 4e9),
    scope=st.none() | _texts.filter(bool),
    secret=st.none() | _texts.filter(bool),
    path=st.sampled_from(["", "/", "/tenant/a", "/t/"]),
)
def test_a_login_reads_back_as_it_was_kept(client_id, access, refresh, expires, scope, secret, path):
    import tempfile

    from rofl.adapters.logins import Login

    issuer = f"https://auth.example{path}"
    with tempfile.TemporaryDirectory() as folder:
        env = {"ROFL_CONFIG_DIR": folder}
        login = Login(
            issuer.rstrip("/"),
            client_id,
            "https://auth.example/token",
            None,
            "none",
            access,
            refresh,
            expires,
            scope,
            secret,
        )
        save_login(login, env)
        assert read_logins(env) == {login.issuer: login}
        assert stat.S_IMODE(store_path(env).stat().st_mode) == 0o600
        if expires is None or expires > time.time() + 60:
            assert access_token(issuer, env) == access


@given(values=st.lists(_secret_values, min_size=1, max_size=3), around=st.lists(_texts, min_size=2, max_size=4))
def test_masked_text_never_holds_a_secret(values, around):
    from rofl.adapters.logins import masked

    text = "".join(part + (values[i % len(values)] if i < len(around) - 1 else "") for i, part in enumerate(around))
    out = masked(text, values)
    assert not any(v in out for v in values)
