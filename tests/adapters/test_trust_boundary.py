"""The trust boundary (issue 19): rofl runs over repositories it does not trust, so a repository's rules or
data must not start programs, read rofl's environment, write files through SQL, poison the answer cache,
leave processes behind, or get a secret printed back in disguise."""

from __future__ import annotations

import base64
import json
import os
import shlex
import signal
import sqlite3
import sys
import textwrap
import time
import urllib.parse
from pathlib import Path

import pytest
from rofl.adapters.books import Secret
from rofl.adapters.policy import Policy
from rofl.adapters.rounds import Refused
from rofl.adapters.secrets import Scrubber

from tests.adapters.conftest import calls, echo_book, python_adapter, quote, rows, session

PY = shlex.quote(sys.executable)
ASKS = 'item("ab").\nwant reverse(X) :- item(X).\n'


# -- 1. programs run only on the user's word, with a minimal environment -----------------------------


def test_allow_exec_is_a_flag_of_the_user_not_a_class(adapter_env):
    assert Policy.command_line((), {}).programs is False
    assert Policy.command_line((), {"CI": "true"}).programs is False
    ci_exec = Policy.command_line(("exec",), {"CI": "true"})
    assert ci_exec.programs is True and ci_exec.classes == {"reads"}  # it grants no class
    assert Policy(frozenset({"reads"})).programs is False  # deny by default


@pytest.mark.parametrize("ci", [True, False])
def test_an_exec_adapter_claiming_reads_never_runs_without_allow_exec(adapter_env, rofl, monkeypatch, ci):
    if ci:
        monkeypatch.setenv("CI", "true")
    (adapter_env / "src").mkdir()
    (adapter_env / "src" / "a.ts").write_text("export const a = 1;\n")
    assert rofl("scan", "src", "--out", "facts")[0] == 0
    (adapter_env / "ci").mkdir()
    (adapter_env / "ci" / "rofl-rules.rofl").write_text(echo_book(adapter_env) + ASKS)
    for args in (
        ("audit", "--facts", "facts", "--rules", "ci/rofl-rules.rofl"),
        ("ask", "echo_answer[echo](W, X)", "--rules", "ci/rofl-rules.rofl"),
        ("ask", "echo_answer[echo](W, X)", "ci/rofl-rules.rofl"),
    ):
        code, _, err = rofl(*args)
        assert code == 2, (args, err)
        assert err.strip().count("\n") == 0, err
        assert "book echo" in err and "kind exec" in err and "--allow exec" in err, err
        assert err.startswith("ci/rofl-rules.rofl:"), err  # the refusal names where the book is written
        assert calls(adapter_env) == []  # no process started
    code, out, err = rofl("ask", "echo_answer[echo](W, X)", "--rules", "ci/rofl-rules.rofl", "--allow", "exec")
    assert code == 0 and '"ba"' in out, err
    assert len(calls(adapter_env)) == 1


def test_a_rofl_world_served_by_a_command_is_a_program_too(adapter_env, rofl):
    marker = adapter_env / "started"
    code_text = f"open({str(marker)!r}, 'w').close()"
    command = f"{PY} -c {shlex.quote(code_text)}"
    world = (
        f"imports(main, w).\nadapter(w, rofl, {quote(command)}).\ncapability(q, w, reads).\n"
        "arg(q, 1, x, text).\nanswers(q, q_hit, 2).\n" + 'item("a").\nwant q(X) :- item(X).\n'
    )
    (adapter_env / "w.rofl").write_text(world)
    code, _, err = rofl("ask", "q_hit[w](W, X)", "w.rofl")
    assert code == 2 and "book w" in err and "kind rofl" in err and "--allow exec" in err
    assert not marker.exists()


def test_an_optional_program_capability_holds_its_wants_without_allow_exec(adapter_env):
    s = session(echo_book(adapter_env) + "optional(reverse).\n" + ASKS, programs=False)
    report = s.run()
    assert not report.answered and len(report.held) == 1 and "--allow exec" in report.held[0][1]
    assert calls(adapter_env) == [] and s.processes == 0


ENV_DUMP = """
    import json, os, sys
    batch = json.load(sys.stdin)
    names = " ".join(sorted(os.environ))
    for w in batch["wants"]:
        print(f'seen({w["key"]}, {json.dumps(names)}).')
"""


def test_an_adapter_gets_only_the_essentials_and_the_secrets_its_book_names(adapter_env):
    cmd = python_adapter(adapter_env / "env.py", ENV_DUMP)
    world = (
        f"imports(main, t).\nadapter(t, exec, {quote(cmd)}).\ncapability(look, t, reads).\n"
        "arg(look, 1, x, text).\nanswers(look, seen, 2).\n"
        'http_auth(t, api, bearer, "x", "TRACKER_TOKEN").\nhttp_needs(look, api).\n'
        'item("a").\nwant look(X) :- item(X).\n'
    )
    environ = {
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "TMPDIR": str(adapter_env),
        "HOME": str(adapter_env),
        "TRACKER_TOKEN": "tracker-secret-value",
        "GITHUB_TOKEN": "ghp_0123456789abcdefghij",
        "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
        "CUSTOM_SETTING": "x",
        "XDG_CACHE_HOME": str(adapter_env / "cache"),
    }
    s = session(world, environ=environ)
    s.run()
    [(_, names)] = rows(s.kernel, "seen[t](W, N)")
    assert set(names.split()) - {"PWD", "SHLVL", "_", "LC_CTYPE"} == {
        "PATH",
        "LANG",
        "LC_ALL",
        "TZ",
        "TMPDIR",
        "TRACKER_TOKEN",
    }


# -- 2. a declaration derived from untrusted data is untrusted ----------------------------------------


def _kernel_session(trusted: str, untrusted: str, who: str = "unverified"):
    from rofl.adapters.rounds import Session
    from rofl.engine.kernel import Kernel

    from rofl.rounds import load_world
    from tests.conftest import BOOT

    kernel = Kernel(BOOT)
    kernel.load_text(trusted, "rules.rofl")
    kernel.load_text(untrusted, "planted.rofl", who=who)
    return Session(kernel, Policy.command_line(("exec",), {}), world_factory=load_world)


def test_an_adapter_derived_from_a_planted_fact_is_refused(adapter_env):
    book = echo_book(adapter_env)
    address = book.split("adapter(echo, exec, ", 1)[1].split(").\n", 1)[0]
    trusted = book.replace(f"adapter(echo, exec, {address}).\n", "adapter(N, K, A) :- derived_book(N, K, A).\n")
    s = _kernel_session(trusted + ASKS, f"derived_book(echo, exec, {address}).\n")
    with pytest.raises(Refused) as err:
        s.start()
    assert "is derived from derived_book(" in err.value.message and "unverified" in err.value.message
    assert calls(adapter_env) == []
    # the same declaration derived from the user's own facts starts
    assert len(session(trusted + ASKS + f"derived_book(echo, exec, {address}).\n").run().answered) == 1


def test_an_adapter_derived_by_an_untrusted_rule_is_refused(adapter_env):
    book = echo_book(adapter_env)
    line = next(x for x in book.splitlines() if x.startswith("adapter(echo"))
    rule = line.replace("adapter(echo, exec, ", "adapter(N, exec, ").rstrip(".") + " :- book_name(N).\n"
    s = _kernel_session(book.replace(line + "\n", "") + ASKS + "book_name(echo).\n", rule, who="sensor_net")
    with pytest.raises(Refused) as err:
        s.start()
    assert "loaded by sensor_net" in err.value.message


def test_a_secret_variable_named_by_planted_data_is_refused(adapter_env):
    book = echo_book(adapter_env) + "http_needs(reverse, api).\n"
    rule = "http_auth(B, S, bearer, N, E) :- leak(B, S, N, E).\n"
    s = _kernel_session(book + rule + ASKS, 'leak(echo, api, "x", "GITHUB_TOKEN").\n')
    with pytest.raises(Refused) as err:
        s.start()
    assert "http_auth(" in err.value.message and "unverified" in err.value.message


# -- 8. a reads capability only reads -----------------------------------------------------------------


def _sql_world(db: Path, klass: str, query: str) -> str:
    return (
        f"imports(main, hr).\nadapter(hr, sql, {quote(str(db))}).\ncapability(q, hr, {klass}).\n"
        f"arg(q, 1, target, text).\nanswers(q, hit, 2).\nquery(q, {quote(query)}).\n"
    )


TARGETS = "want q(T) :- target(T).\n"


@pytest.mark.parametrize(
    "klass, query",
    [
        ("reads", "VACUUM INTO ?1"),
        ("reads", "ATTACH ?1 AS other"),
        ("does", "ATTACH ?1 AS other"),
    ],
)
def test_sql_cannot_write_files_outside_its_database(adapter_env, klass, query):
    db = adapter_env / "hr.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE people (name TEXT, team TEXT)")
        conn.execute("INSERT INTO people VALUES ('alice', 'core')")
    target = adapter_env / "elsewhere" / "copy.db"
    target.parent.mkdir()
    allow = ("does",) if klass == "does" else ()
    reading = _sql_world(db, klass, "SELECT team FROM people WHERE name = ?1") + TARGETS + 'target("alice").\n'
    select = session(reading, allow=allow)
    assert len(select.run().answered) == 1  # a query that reads is answered
    assert [t for _w, t in rows(select.kernel, "hit[hr](W, T)")] == ["core"]
    s = session(_sql_world(db, klass, query) + TARGETS + f"target({quote(str(target))}).\n", allow=allow)
    report = s.run()
    assert report.failed and not report.answered, report
    assert report.failed[0][1].startswith("ADP_HOST_CALL_FAILED: adapter hr:") and "authoriz" in report.failed[0][1]
    assert not target.exists()


# -- 13. the answer cache is keyed by the program and the folder ---------------------------------------

CACHED = """
    import json, sys
    batch = json.load(sys.stdin)
    value = open("data.txt").read().strip()
    for w in batch["wants"]:
        print("-- reads: data.txt")
        print(f'echo_answer({w["key"]}, {json.dumps(VERSION + value)}).')
"""


def _cached_world(folder: Path, version: str) -> str:
    (folder / "data.txt").write_text("d\n")
    (folder / "adapter.py").write_text(textwrap.dedent(CACHED).replace("VERSION", json.dumps(version)))
    return echo_book(folder, cmd=f"{sys.executable} adapter.py") + ASKS  # the same text in every folder


def _answer(text: str) -> list:
    s = session(text)
    s.run()
    return [x for _w, x in rows(s.kernel, "echo_answer[echo](W, X)")]


def test_an_edited_adapter_program_is_not_answered_from_the_cache(adapter_env):
    assert _answer(_cached_world(adapter_env, "v1-")) == ["v1-d"]
    assert _answer(_cached_world(adapter_env, "v1-")) == ["v1-d"]
    assert _answer(_cached_world(adapter_env, "v2-")) == ["v2-d"]


def test_a_second_checkout_never_gets_the_first_ones_answers(adapter_env, monkeypatch):
    first, second = adapter_env / "one", adapter_env / "two"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    text = _cached_world(first, "same-")
    assert _answer(text) == ["same-d"]
    monkeypatch.chdir(second)
    assert _cached_world(second, "same-") == text  # the same book, word for word
    (second / "data.txt").write_text("other\n")
    assert _answer(text) == ["same-other"]


# -- 14. nothing an adapter starts outlives it ---------------------------------------------------------

DETACHING = """
    import json, os, sys, time
    batch = json.load(sys.stdin)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            if not HOLD:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
            open("daemon.pid", "w").write(str(os.getpid()))
            time.sleep(60)
        os._exit(0)
    while not os.path.exists("daemon.pid") or not open("daemon.pid").read():
        time.sleep(0.01)
    for w in batch["wants"]:
        print(f'echo_answer({w["key"]}, "ok").', flush=True)
    if HANG:
        time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


@pytest.fixture
def daemon_pid(adapter_env):
    """Reads the pid the detached grandchild wrote (killed at the end, should it have survived)."""
    path = adapter_env / "daemon.pid"
    yield lambda: int(path.read_text())
    try:
        os.kill(int(path.read_text()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


def _detaching_world(tmp: Path, hold: bool, hang: bool, timeout_ms: int) -> str:
    body = DETACHING.replace("HOLD", str(hold)).replace("HANG", str(hang))
    cmd = python_adapter(tmp / "detach.py", body)
    return echo_book(tmp, cmd=cmd, extra=f"adapter_timeout(echo, {timeout_ms}).\n") + ASKS


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_setsid_grandchild_does_not_outlive_the_adapter(adapter_env, daemon_pid):
    s = session(_detaching_world(adapter_env, hold=False, hang=False, timeout_ms=10_000))
    report = s.run()
    assert len(report.answered) == 1, report
    pid = daemon_pid()
    deadline = time.monotonic() + 3
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_grandchild_holding_stdout_does_not_hold_the_answer(adapter_env, daemon_pid):
    s = session(_detaching_world(adapter_env, hold=True, hang=False, timeout_ms=6_000))
    started = time.monotonic()
    report = s.run()
    assert len(report.answered) == 1, report  # not a timeout
    assert time.monotonic() - started < 5
    assert not _alive(daemon_pid())


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_timed_out_adapter_leaves_no_session_behind(adapter_env, daemon_pid):
    s = session(_detaching_world(adapter_env, hold=True, hang=True, timeout_ms=1_500))
    report = s.run()
    assert report.failed and "timed out" in report.failed[0][1]
    pid = daemon_pid()
    deadline = time.monotonic() + 3
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


# -- 15. a secret is not printed back in disguise ------------------------------------------------------

TOKEN = "tok3n/Secret+Value.8s2kQ"
DISGUISES = {
    "reversed": TOKEN[::-1],
    "spaced": " ".join(TOKEN),
    "base64": base64.b64encode(f"user:{TOKEN}".encode()).decode(),
    "hex": TOKEN.encode().hex(),
    "url": urllib.parse.quote(TOKEN, safe=""),
    "upper": TOKEN.upper(),
    "part": TOKEN[4:16],
}


@pytest.mark.parametrize("form", sorted(DISGUISES))
def test_the_scrubber_withholds_a_secret_in_any_cheap_disguise(form):
    scrub = Scrubber.of([Secret("b", "api", "bearer", "x", "T")], {"T": TOKEN})
    text = scrub.scrub(f"error: {DISGUISES[form]} is wrong")
    assert DISGUISES[form] not in text and TOKEN not in text
    assert scrub.leaks(DISGUISES[form])
    assert scrub.scrub("error: the file src/a.ts was not found") == "error: the file src/a.ts was not found"


LEAKING = """
    import base64, json, os, sys
    batch = json.load(sys.stdin)
    token = os.environ["TRACKER_TOKEN"]
    mode = batch["wants"][0]["args"]["x"]
    if mode == "stderr":
        sys.stderr.write("bad value " + token[::-1] + " / " + base64.b64encode(token.encode()).decode() + "\\n")
        sys.exit(1)
    for w in batch["wants"]:
        if mode == "failed":
            print(f'failed({w["key"]}, {json.dumps(" ".join(token))}).')
        else:
            print(f'echo_answer({w["key"]}, {json.dumps(token.encode().hex())}).')
"""


@pytest.mark.parametrize("mode", ["stderr", "failed", "answer"])
def test_an_adapter_cannot_print_its_secret_back_in_disguise(adapter_env, mode):
    cmd = python_adapter(adapter_env / "leak.py", LEAKING)
    extra = 'http_auth(echo, api, bearer, "x", "TRACKER_TOKEN").\nhttp_needs(reverse, api).\n'
    world = (
        echo_book(adapter_env, cmd=cmd, extra=extra) + f"leak_mode({quote(mode)}).\nwant reverse(M) :- leak_mode(M).\n"
    )
    s = session(world, environ={**os.environ, "TRACKER_TOKEN": TOKEN})
    report = s.run()
    assert report.failed and not report.answered, report
    reason = report.failed[0][1]
    scrub = Scrubber.of([Secret("echo", "api", "bearer", "x", "TRACKER_TOKEN")], {"TRACKER_TOKEN": TOKEN})
    assert not scrub.leaks(reason), reason
    everything = json.dumps([repr(f) for f in s.kernel.facts()])
    for disguise in (TOKEN[::-1], " ".join(TOKEN), TOKEN.encode().hex()):
        assert disguise not in everything


# -- servers: a server never runs a program ----------------------------------------------------------


def test_a_server_never_runs_an_adapter_program(adapter_env, rofl):
    from rofl.servers.executions import Executions, result_of
    from rofl.servers.session import Session

    (adapter_env / "src").mkdir()
    (adapter_env / "src" / "a.ts").write_text("export const a = 1;\n")
    assert rofl("scan", "src", "--out", "facts")[0] == 0
    (adapter_env / "src" / "rules.rofl").write_text(echo_book(adapter_env) + ASKS)
    executions = Executions(Session(adapter_env / "facts", adapter_env / "src"), workers=1)
    try:
        run = executions.start(
            "ask", {"query": "echo_answer[echo](W, X)", "rules": [str(adapter_env / "src" / "rules.rofl")]}
        )
        view = result_of(run)
    finally:
        executions.shutdown()
    assert calls(adapter_env) == [], view  # the program never started
    assert "--allow exec" in json.dumps(view), view
