"""Secrets: read from the environment when sent, a missing one holds the want, and the value never
appears in facts, logs, why output, stores, caches or errors."""

from __future__ import annotations

import json

from rofl.adapters.books import Secret
from rofl.adapters.secrets import Scrubber

from tests.adapters.conftest import python_adapter, quote, rows, session

SECRET = "s3cr3t-VALUE-4f9a1c77e2"
OTHER = "0ther-s3cret-b81d"

# An adapter that tries every way out for the secret it is given.
LEAKY = """
    import json, os, sys
    b = json.load(sys.stdin)
    token = os.environ.get("TRACKER_TOKEN", "")
    other = "yes" if "OTHER_TOKEN" in os.environ else "no"
    sys.stderr.write(f"debug: using {token}\\n")
    for w in b["wants"]:
        if w["args"]["id"] == "leak":
            print(f'ticket_state({w["key"]}, "{token}").')
        else:
            print(f"-- reads: tickets.txt")
            print(f'ticket_state({w["key"]}, "open-{other}").')
"""


def world(cmd: str) -> str:
    return f"""
imports(main, tracker).
adapter(tracker, exec, {quote(cmd)}).
capability(ticket, tracker, reads).
arg(ticket, 1, id, text).
answers(ticket, ticket_state, 2).
http_auth(tracker, api, bearer, "", "TRACKER_TOKEN").
http_auth(tracker, other, bearer, "", "OTHER_TOKEN").
http_needs(ticket, api).
asked("t1"). asked("leak").
want ticket(T) :- asked(T).
seen(T, S) :- ticket_state[tracker](W, S), want_arg(W, 1, T).
"""


def test_a_missing_variable_holds_the_want_and_nothing_is_started(adapter_env, monkeypatch):
    monkeypatch.delenv("TRACKER_TOKEN", raising=False)
    s = session(world(python_adapter(adapter_env / "leaky.py", LEAKY)))
    report = s.run()
    assert not report.answered and len(report.held) == 2 and s.processes == 0
    for _, why in report.held:
        assert why == "ADP_CAPABILITY_DENIED: ticket needs a secret and the environment has no TRACKER_TOKEN"
    assert len(rows(s.kernel, "want_held(W, Why)")) == 2


def test_the_secret_never_appears_in_any_output(adapter_env, monkeypatch, rofl):
    monkeypatch.setenv("TRACKER_TOKEN", SECRET)
    monkeypatch.setenv("OTHER_TOKEN", OTHER)
    (adapter_env / "tickets.txt").write_text("t1 open\n")
    (adapter_env / "w.rofl").write_text(world(python_adapter(adapter_env / "leaky.py", LEAKY)))
    outputs = []
    for args in (
        ("ask", "seen(T, S)", "w.rofl", "--json"),
        ("ask", "failed(W, Why)", "w.rofl"),
        ("why", 'seen("t1", "open-no")', "w.rofl"),
        ("why", 'seen("t1", "open-no")', "w.rofl", "--json"),
        ("audit", "w.rofl", "--json"),
        ("run", "w.rofl", "--collect", "seen", "--json"),
    ):
        code, out, err = rofl(*args, "--allow", "exec")
        outputs += [out, err]
        assert code in (0, 1), (args, err)
    joined = "\n".join(outputs)
    assert 'seen("t1", "open-no")' in joined or '"open-no"' in joined  # the other secret was not passed on
    assert "an answer holds the value of a secret" in joined  # the leaking want failed
    s = session(world(python_adapter(adapter_env / "leaky.py", LEAKY)))
    s.run()
    s.kernel.save(adapter_env / "store.rofl")
    stored = (adapter_env / "store.rofl").read_bytes()
    cached = b"".join(p.read_bytes() for p in (adapter_env / "cache").rglob("*") if p.is_file())
    facts = json.dumps([repr(f) for f in s.kernel.facts()])
    for text in (joined, facts):
        assert SECRET not in text and OTHER not in text
    for blob in (stored, cached):
        assert SECRET.encode() not in blob and OTHER.encode() not in blob


def test_the_scrubber_masks_known_values_and_credential_shapes():
    scrub = Scrubber.of(
        [Secret("b", "api", "client_credentials", "https://x/token", "CRED")], {"CRED": "myid:mysecretpart"}
    )
    text = scrub.scrub("sent myid:mysecretpart then mysecretpart; password=hunter22 ghp_abcdefghijklmnopqrstuv")
    assert "mysecretpart" not in text and "hunter22" not in text and "ghp_abcdefghijklmnopqrstuv" not in text
    assert text.startswith("sent [redacted]")


def test_a_secret_is_found_inside_any_term_of_an_answer():
    scrub = Scrubber(('pa"ss\\word',))
    assert scrub.leaks_term(("f", 1, ("g", 'x pa"ss\\word y')))
    assert scrub.leaks_term(('pa"ss\\word',))  # an atom's name
    assert not scrub.leaks_term(("f", "pass word", 3))
