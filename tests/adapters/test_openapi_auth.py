"""Secrets for HTTP: http_auth sent as bearer, basic, a header, a query parameter, a client_credentials
token (fetched, kept, fetched again on expiry or a 401 once) and a login's token; a missing variable or a
login nobody made holds the want; and no secret, token included, appears in any output, log or store."""

from __future__ import annotations

import json
import logging
import sys
import types

import pytest
from rofl.adapters.http_auth import HttpAuth, token_url_problem
from rofl.adapters.openapi_book import book_text, parse_key

from tests.adapters.conftest import rows, session
from tests.adapters.openapi_service import API_KEY, BASIC, BEARER, CLIENT, Service, running, spec

SECRETS = (BEARER, BASIC[1], API_KEY, CLIENT[1])
ENV = {
    "PETS_TOKEN": BEARER,
    "OWNERS": ":".join(BASIC),
    "TOY_KEY": API_KEY,
    "WORD_KEY": API_KEY,
    "MACHINE": ":".join(CLIENT),
}
KEYS = ("bearer=PETS_TOKEN", "basic=OWNERS", "header=TOY_KEY", "query=WORD_KEY", "client_credentials=MACHINE")


@pytest.fixture
def service():
    with running() as svc:
        yield svc


def book(svc: Service, keys: tuple = KEYS) -> str:
    return book_text(spec(svc.url), "spec.json", keys=[parse_key(k) for k in keys])


def run(svc: Service, wants: str, env: dict | None = None, text: str | None = None):
    s = session((text or book(svc)) + "go(1).\n" + wants, environ=dict(ENV if env is None else env))
    return s, s.run()


def outcome(report) -> dict:
    out = {w.text: "answered" for w in report.answered}
    out.update({w.text: why for w, why in report.failed})
    out.update({w.text: "held: " + why for w, why in report.held})
    return out


ALL = "\n".join(
    f"want {w} :- go(1)."
    for w in ('list_pets("cat")', "list_owners(now)", "list_toys(now)", 'echo_word("hi")', "who_am_i(now)")
)


def test_each_way_of_sending_a_secret_reaches_the_service(service):
    s, report = run(service, ALL)
    assert len(report.answered) == 5, outcome(report)
    assert rows(s.kernel, "who_am_i[pet_store](W, C)")[0][1] == "machine-7"
    sent = {path: (auth, query) for path, auth, query, _ in service.seen}
    assert sent["/pets"][0] == f"Bearer {BEARER}"
    assert sent["/owners"][0].startswith("Basic ") and f"api_key={API_KEY}" in sent["/keyed/hi"][1]
    assert sent["/machine/whoami"][0] == f"Bearer {service.tokens[0]}"


def test_a_wrong_secret_fails_with_the_status(service):
    env = {**ENV, "PETS_TOKEN": "wrong-token-value", "TOY_KEY": "wrong-key-value"}
    _, report = run(service, 'want list_pets("cat") :- go(1).\nwant list_toys(now) :- go(1).\n', env)
    got = outcome(report)
    assert " answered 401 " in got['list_pets("cat")'] and " answered 403 " in got["list_toys(now)"]


def test_a_missing_variable_holds_the_want_and_nothing_is_sent(service):
    env = {k: v for k, v in ENV.items() if k != "PETS_TOKEN"}
    _, report = run(service, 'want list_pets("cat") :- go(1).\n', env)
    assert report.held[0][1] == "ADP_CAPABILITY_DENIED: list_pets needs a secret and the environment has no PETS_TOKEN"
    assert service.calls == {}


def test_a_client_credentials_token_is_kept_until_it_expires(service):
    wants = "\n".join(f"want who_am_i(n{i}) :- go(1)." for i in range(4))
    _, report = run(service, wants)
    assert len(report.answered) == 4 and len(service.tokens) == 1  # one token for the four wants
    service.token_lifetime = 0  # each token expires as it is issued: fetched again for every request
    _, report = run(service, wants.replace("(n", "(m"))
    assert len(report.answered) == 4 and len(service.tokens) == 1 + 4


def test_a_refused_token_is_fetched_again_once(service):
    wants = "want who_am_i(a) :- go(1).\nwant who_am_i(b) :- who_am_i[pet_store](_, _).\n"
    revoke = lambda _round: service.revoked.update(service.tokens)  # noqa: E731 (after round 1: taken no more)
    s = session(book(service) + "go(1).\n" + wants, environ=dict(ENV), on_round=revoke)
    report = s.run()
    assert len(report.answered) == 2 and report.rounds == 2 and len(service.tokens) == 2
    assert service.calls["/machine/whoami"] == 3  # round 2: refused, then sent again with a new token
    service.refuse_all = True  # a service that refuses every token: one retry, then the status
    report = session(book(service) + "go(1).\nwant who_am_i(c) :- go(1).\n", environ=dict(ENV)).run()
    assert " answered 401 " in report.failed[0][1]
    assert service.calls["/machine/whoami"] == 3 + 2 and len(service.tokens) == 2 + 2


def test_the_token_url_must_be_https_or_this_machine():
    assert token_url_problem("https://auth.example.com/token") is None
    assert token_url_problem("http://127.0.0.1:9000/token") is None and token_url_problem("http://[::1]/t") is None
    assert "neither https nor a loopback" in (token_url_problem("http://auth.example.com/token") or "")
    posted = []
    auth = HttpAuth(lambda *a: posted.append(a) or (200, b"{}"))
    from rofl.adapters.books import Secret

    got = auth.credentials("c", [Secret("b", "m", "client_credentials", "http://example.com/t", "M")], {"M": "a:b"}, 1)
    assert "neither https nor a loopback" in getattr(got, "why", "") and not posted


def test_a_login_nobody_made_holds_the_want_with_the_command_to_run(service, monkeypatch):
    issuer = "https://auth.example.com"
    tokens: dict = {}
    asked = []

    def access_token(wanted: str, environ):
        asked.append(wanted)
        return tokens.get(wanted)

    monkeypatch.setitem(sys.modules, "rofl.adapters.logins", types.SimpleNamespace(access_token=access_token))
    text = book(service, ("bearer=PETS_TOKEN", f"login:{issuer}")).replace(
        "http_needs(list_pets, bearer_auth).", "http_needs(list_pets, login)."
    )
    _, report = run(service, 'want list_pets("cat") :- go(1).\n', text=text)
    assert report.held[0][1] == (
        f"ADP_CAPABILITY_DENIED: list_pets needs a login at {issuer} and nobody is logged in; "
        f"run `rofl adapter login {issuer}`"
    )
    assert service.calls == {} and asked == [issuer]
    tokens[issuer] = BEARER  # logged in: the store's token is sent
    _, report = run(service, 'want list_pets("cat") :- go(1).\n', text=text)
    assert [w.text for w in report.answered] == ['list_pets("cat")']
    assert service.seen[0][1] == f"Bearer {BEARER}"


def test_no_secret_appears_in_any_output_log_or_store(service, rofl, adapter_env, monkeypatch, caplog):
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    (adapter_env / "api.rofl").write_text(book(service))
    hostile = 'want echo_word("echo-key") :- go(1).\nwant who_am_i(leak) :- go(1).\n'
    world = (
        "go(1).\n" + ALL + "\n" + hostile + "seen(W) :- answered(W).\npet(N) :- list_pets[pet_store](_, _, N, _, _).\n"
    )
    (adapter_env / "w.rofl").write_text(world)
    # the hostile wants: the service echoes the API key, and (who_am_i with ?leak) the token it issued
    (adapter_env / "api.rofl").write_text(
        book(service).replace(
            'http_op(who_am_i, "GET", "/machine/whoami").', 'http_op(who_am_i, "GET", "/machine/whoami?leak=1").'
        )
    )
    caplog.set_level(logging.DEBUG)  # an application that logs everything, httpx included
    outputs = []
    for args in (
        ("ask", "seen(W)", "api.rofl", "w.rofl", "--json"),
        ("ask", "failed(W, Why)", "api.rofl", "w.rofl"),
        ("why", 'pet("pet2")', "api.rofl", "w.rofl"),
        ("why", 'pet("pet2")', "api.rofl", "w.rofl", "--json"),
        ("audit", "api.rofl", "w.rofl", "--json"),
        ("run", "api.rofl", "w.rofl", "--collect", "seen", "--json"),
        ("-vv", "ask", "seen(W)", "api.rofl", "w.rofl"),
    ):
        code, out, err = rofl(*args, "--allow", "exec")
        outputs += [out, err]
        assert code in (0, 1), (args, err)
    joined = "\n".join(outputs)
    assert "an answer holds the value of a secret" in joined  # both hostile wants failed
    assert 'echo_word, "hi")' in joined  # the other wants were answered
    s = session((adapter_env / "api.rofl").read_text() + world, environ=dict(ENV))
    s.run()
    s.kernel.save(adapter_env / "store.rofl")
    stored = (adapter_env / "store.rofl").read_text()
    facts = json.dumps([repr(f) for f in s.kernel.facts()])
    logged = "\n".join(r.getMessage() for r in caplog.records)
    issued = tuple(service.tokens)
    assert len(issued) >= 2
    for text in (joined, stored, facts, logged):
        for secret in (*SECRETS, *issued):
            assert secret not in text
