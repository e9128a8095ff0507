"""A hostile exec adapter fails its batch with the reason and stderr's tail; it never crashes the engine
and never asserts a fact outside the book's answer relation."""

from __future__ import annotations

import os
import time

import pytest

from tests.adapters.conftest import python_adapter, quote, rows, session

SECRET = "ghp_Zx81TOKENvalueNOBODYshouldSEE42"


def world(cmd: str, timeout_ms: int = 20_000) -> str:
    return f"""
imports(main, h).
adapter(h, exec, {quote(cmd)}).
adapter_timeout(h, {timeout_ms}).
capability(look, h, reads).
arg(look, 1, file, text).
answers(look, seen, 2).
item("a.ts"). item("b.ts").
want look(F) :- item(F).
"""


HOSTILE = {
    "a fact into [code]": (
        """
        import json, sys
        b = json.load(sys.stdin)
        for w in b["wants"]:
            print(f'seen({w["key"]}, "x").')
        print('dependency[code]("a.ts", "evil.ts").')
        """,
        "printed a fact into [code]",
    ),
    "a rule": (
        """
        import json, sys
        b = json.load(sys.stdin)
        print(f'seen({b["wants"][0]["key"]}, X) :- item(X).')
        """,
        "printed a rule",
    ),
    "another relation": (
        """
        import json, sys
        b = json.load(sys.stdin)
        print(f'authority({b["wants"][0]["key"]}, h).')
        """,
        "look answers only in seen",
    ),
    "a key it was not given": (
        """
        import json, sys
        json.load(sys.stdin)
        print('seen("look(\\\\"other.ts\\\\")", "x").')
        """,
        "is not the key of a want of this batch",
    ),
    "a million lines": (
        """
        import sys
        sys.stdout.write('answered("x").\\n' * 1_000_000)
        """,
        "printed more than",
    ),
    "binary output": (
        """
        import sys
        sys.stdout.buffer.write(bytes(range(256)) * 4)
        """,
        "binary output",
    ),
    "text that does not parse": (
        """
        print("seen(((")
        """,
        "output line 1",
    ),
    "never exits": (
        """
        import time
        time.sleep(60)
        """,
        "timed out after 1 s",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_adapter_fails_its_wants_and_asserts_nothing(adapter_env, name):
    body, reason = HOSTILE[name]
    timeout = 1000 if name == "never exits" else 20_000  # a short timeout only where it is what is tested
    s = session(world(python_adapter(adapter_env / "hostile.py", body), timeout))
    started = time.monotonic()
    report = s.run()
    assert time.monotonic() - started < 30
    assert not report.answered and len(report.failed) == 2
    for _, why in report.failed:
        assert why.startswith("ADP_HOST_CALL_FAILED: adapter h: ") and reason in why, why
    assert not rows(s.kernel, "seen[h](W, X)")
    assert s.kernel.rows("dependency", "code") == ()
    assert not [row for facts in s.kernel.store.base.values() for row, meta in facts.items() if meta.who == "h"]
    assert len(rows(s.kernel, "failed(W, Why)")) == 2


@pytest.mark.slow
def test_a_program_that_never_exits_is_killed(adapter_env):
    pidfile = adapter_env / "pid"
    body = f"""
        import os, time
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        time.sleep(60)
    """
    report = session(world(python_adapter(adapter_env / "sleepy.py", body), 1000)).run()
    assert "timed out" in report.failed[0][1]
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_exit_1_with_a_secret_in_stderr_fails_with_the_tail_and_never_the_secret(adapter_env, monkeypatch):
    monkeypatch.setenv("TRACKER_TOKEN", SECRET)
    body = f"""
        import sys
        sys.stderr.write("connecting to tracker\\n")
        sys.stderr.write("auth failed: token={SECRET} rejected; also Authorization: Bearer abcdEFGH1234xyz\\n")
        sys.exit(1)
    """
    text = (
        world(python_adapter(adapter_env / "leaky.py", body)) + 'http_auth(h, tracker, bearer, "", "TRACKER_TOKEN").\n'
    )
    s = session(text)
    report = s.run()
    whys = [why for _, why in report.failed]
    assert len(whys) == 2
    for why in whys:
        assert why.startswith("ADP_HOST_CALL_FAILED: adapter h: exited with code 1; stderr: ")
        assert "connecting to tracker" in why and "auth failed" in why
        assert SECRET not in why and "abcdEFGH1234xyz" not in why
    assert all(SECRET not in str(f) for f in s.kernel.facts())


def test_a_command_that_does_not_exist_fails_locally_with_no_matching_adapter(adapter_env):
    report = session(world("/no/such/program --flag")).run()
    assert report.failed and all(
        w.startswith("ADP_NO_MATCHING_ADAPTER: adapter h: cannot start") for _, w in report.failed
    )


def test_a_well_behaved_adapter_beside_a_hostile_one_still_answers(adapter_env):
    good = python_adapter(
        adapter_env / "good.py",
        """
        import json, sys
        for w in json.load(sys.stdin)["wants"]:
            print(f'seen({w["key"]}, "ok").')
        """,
    )
    bad = python_adapter(adapter_env / "bad.py", "import sys; sys.exit(3)")
    text = (
        world(bad)
        + f"""
imports(main, g).
adapter(g, exec, {quote(good)}).
capability(look_good, g, reads).
arg(look_good, 1, file, text).
answers(look_good, seen, 2).
want look_good(F) :- item(F).
"""
    )
    s = session(text)
    report = s.run()
    assert len(report.answered) == 2 and len(report.failed) == 2
    assert {r[1] for r in rows(s.kernel, "seen[g](W, X)")} == {"ok"}


def test_an_adapter_answers_fails_or_says_nothing_per_want(adapter_env):
    body = """
        import json, sys
        for w in json.load(sys.stdin)["wants"]:
            f = w["args"]["file"]
            if f == "a.ts":
                print(f'failed({w["key"]}, "no such file in the index").')
            elif f == "b.ts":
                print(f'answered({w["key"]}).')
    """
    s = session(world(python_adapter(adapter_env / "mixed.py", body)) + 'item("c.ts").\n')
    report = s.run()
    outcome = {w.args[0]: why for w, why in report.failed}
    assert [w.args[0] for w in report.answered] == ["b.ts"]
    assert outcome["a.ts"] == "ADP_HOST_CALL_FAILED: adapter h says: no such file in the index"
    assert outcome["c.ts"].startswith("ADP_HOST_CALL_FAILED: adapter h printed nothing for this want")
    assert not rows(s.kernel, "seen[h](W, X)")
