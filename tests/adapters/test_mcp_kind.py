"""The mcp kind (issue 25 item 1): a world asks an MCP server written with the SDK, over stdio and over
streamable HTTP on loopback; answers arrive as facts, a tool's error fails its want and never the round,
secrets go only where the book says and never come back out, and no server starts without --allow exec."""

from __future__ import annotations

import json
import os
import shlex
import socket
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rofl.adapters.books import BookError, read_catalog
from rofl.adapters.mcp_kind import answer_rows, document, pointer, term
from rofl.adapters.rounds import Refused

from tests.adapters.conftest import echo_book, quote, rows, session
from tests.adapters.mcp_servers import SECRET, calls, command, environ, http_tracker

PY = shlex.quote(sys.executable)

TOOLS = """
capability(lookup, tracker, reads).
arg(lookup, 1, id, text).
answers(lookup, ticket, 4).
mcp_tool(lookup, "lookup").
mcp_field(lookup, 2, "/id").
mcp_field(lookup, 3, "/state").
mcp_field(lookup, 4, "/owner").
http_needs(lookup, api).
"""

WORLD = (
    TOOLS
    + """
capability(search, tracker, reads).
arg(search, 1, q, text).
arg(search, 2, limit, number).
answers(search, hit, 4).
mcp_tool(search, "search").
mcp_rows(search, "/items").
mcp_field(search, 2, "/id").
mcp_field(search, 3, "/title").
mcp_field(search, 4, "/score").
http_needs(search, api).
capability(note, tracker, reads).
arg(note, 1, id, text).
answers(note, note_text, 2).
mcp_tool(note, "note").
http_needs(note, api).
capability(close, tracker, does).
arg(close, 1, ticket, text).
mcp_arg(close, 1, "id").
answers(close, closed, 2).
mcp_tool(close, "close_ticket").
mcp_field(close, 2, "/result").
http_needs(close, api).
capability(env_names, tracker, reads).
arg(env_names, 1, id, text).
answers(env_names, env_name, 2).
mcp_tool(env_names, "environment").
mcp_rows(env_names, "/result").
http_needs(env_names, api).
capability(leak, tracker, reads).
arg(leak, 1, id, text).
answers(leak, leaked, 2).
mcp_tool(leak, "leak").
mcp_field(leak, 2, "/result").
http_needs(leak, api).

asked("t1"). asked("t3"). asked("t9").
want lookup(T) :- asked(T).
want note(T) :- asked(T).
want search(S, 2) :- ticket[tracker](_, _, S, _).
want close(T) :- ticket[tracker](_, T, "open", _).
want env_names("x") :- asked("t1").
want leak("x") :- asked("t1").
"""
)


def book(address: str, timeout_ms: int | None = None) -> str:
    head = f"imports(main, tracker).\nadapter(tracker, mcp, {quote(address)}).\n"
    head += 'http_auth(tracker, api, bearer, "", "TRACKER_TOKEN").\n'
    if timeout_ms is not None:
        head += f"adapter_timeout(tracker, {timeout_ms}).\n"
    return head


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().split(b")")[-1].split()[0] != b"Z"
    except OSError:
        return True


# -- 1. stdio: one world, one server, every kind of answer --------------------------------------------


@pytest.fixture(scope="module")
def stdio_run(tmp_path_factory):
    """The world above asked of the tracker over stdio once (its report, kernel and call log)."""
    tmp = tmp_path_factory.mktemp("mcp-stdio")
    log = tmp / "calls.log"
    env = environ(
        TRACKER_TOKEN=SECRET,
        HOME=str(tmp),
        GITHUB_TOKEN="ghp_0123456789abcdefghij",
        CUSTOM_SETTING="x",
    )
    s = session(book(command("--log", str(log))) + WORLD, allow=("does",), environ=env)
    report = s.run()
    return s, report, log


def test_answers_arrive_as_facts_in_the_book(stdio_run):
    s, report, _ = stdio_run
    assert sorted(rows(s.kernel, "ticket[tracker](_, I, S, O)")) == [("t1", "open", "ann"), ("t3", "open", ("null",))]
    # rows of an array (mcp_rows), a fraction as its text, an integral number as a number
    assert sorted([r[1:] for r in rows(s.kernel, 'hit[tracker](W, I, T, S), want_arg(W, 1, "open")')]) == [
        ("open-0", "open number 0", 0),
        ("open-1", "open number 1", "0.5"),
    ]
    assert sorted(rows(s.kernel, "note_text[tracker](_, T)")) == [
        ("note of t1",),
        ("note of t3",),
        ("note of t9",),
    ]  # a tool without structured output answers with its text
    assert sorted(rows(s.kernel, "closed[tracker](_, T)")) == [("closed t1",), ("closed t3",)]
    assert report.rounds == 2 and len(report.answered) == 9


def test_a_tool_error_fails_its_want_and_never_the_round(stdio_run):
    s, report, _ = stdio_run
    failed = dict((w.text, why) for w, why in report.failed)
    assert set(failed) == {'lookup("t9")', 'leak("x")'}
    assert failed['lookup("t9")'].startswith("ADP_HOST_CALL_FAILED: adapter tracker: tool lookup says: ")
    assert "no ticket t9" in failed['lookup("t9")']
    assert len(rows(s.kernel, 'failed(W, _), want_arg(W, 1, "t9"), want_of(W, lookup)')) == 1
    assert not report.held and not report.partial


def test_one_session_serves_every_round_and_ends_with_the_world(stdio_run):
    s, _, log = stdio_run
    logged = calls(log)
    assert len({pid for pid, _, _ in logged}) == 1 and s.processes == 1
    assert len(logged) == 11  # each want called once: 3 lookups, 3 notes, 1 search, 2 closes, env, leak
    (pid,) = {pid for pid, _, _ in logged}
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)  # closed with the session, nothing left behind


def test_a_does_capability_calls_in_the_wants_order(stdio_run):
    _, _, log = stdio_run
    assert [json.loads(a)["id"] for _, tool, a in calls(log) if tool == "close_ticket"] == ["t1", "t3"]
    searched = [json.loads(a) for _, tool, a in calls(log) if tool == "search"]
    assert {"q": "open", "limit": 2} in searched  # arguments typed as the book declares them


def test_a_command_server_gets_only_the_essentials_and_its_secrets(stdio_run):
    s, report, _ = stdio_run
    names = {n for (n,) in rows(s.kernel, "env_name[tracker](_, N)")}
    assert "TRACKER_TOKEN" in names
    assert not names & {"HOME", "GITHUB_TOKEN", "CUSTOM_SETTING"}
    assert names - {"PWD", "SHLVL", "_", "LC_CTYPE"} <= {"PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "TRACKER_TOKEN"}
    failed = dict((w.text, why) for w, why in report.failed)
    assert "an answer holds the value of a secret" in failed['leak("x")']
    assert SECRET not in json.dumps([repr(f) for f in s.kernel.facts()])


# -- 2. a server that fails ------------------------------------------------------------------------------


def _lookup_world(address: str, timeout_ms: int | None = None) -> str:
    return book(address, timeout_ms) + TOOLS + 'asked("t1").\nwant lookup(T) :- asked(T).\n' + echo_book(Path("."))


@pytest.mark.parametrize(
    ("program", "code", "says"),
    [
        (f"{PY} -c pass", "ADP_HOST_CALL_FAILED", "cannot open a session"),
        ("no-such-mcp-server-program --stdio", "ADP_NO_MATCHING_ADAPTER", "cannot start 'no-such-mcp-server-program'"),
        ("'unbalanced", "ADP_NO_MATCHING_ADAPTER", "does not parse"),
    ],
)
def test_a_server_that_cannot_be_started_fails_its_wants_not_the_round(adapter_env, program, code, says):
    world = _lookup_world(program) + 'item("ab").\nwant reverse(X) :- item(X).\n'
    s = session(world, environ=environ(TRACKER_TOKEN=SECRET))
    report = s.run()
    [(want, reason)] = report.failed
    assert want.text == 'lookup("t1")' and reason.startswith(f"{code}: adapter tracker: ") and says in reason
    assert [w.text for w in report.answered] == ['reverse("ab")']  # the round went on


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_server_that_never_answers_times_out_and_leaves_nothing_behind(adapter_env):
    pid_file = adapter_env / "server.pid"
    code = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    s = session(_lookup_world(f"{PY} -c {shlex.quote(code)}", 1500), environ=environ(TRACKER_TOKEN=SECRET))
    report = s.run()
    [(_, reason)] = report.failed
    assert reason.startswith("ADP_HOST_CALL_FAILED: adapter tracker: cannot open a session"), reason
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_a_capability_the_book_cannot_serve_fails_locally_without_starting_anything(adapter_env):
    marker = adapter_env / "started"
    starter = f"{PY} -c {shlex.quote(f'open({str(marker)!r}, chr(119)).close()')}"
    world = (
        f"imports(main, tracker).\nadapter(tracker, mcp, {quote(starter)}).\n"
        "capability(lookup, tracker, reads).\narg(lookup, 1, id, text).\nanswers(lookup, ticket, 3).\n"
        'mcp_tool(lookup, "lookup").\nmcp_field(lookup, 2, "/id").\n'
        "capability(bare, tracker, reads).\narg(bare, 1, id, text).\nanswers(bare, bare_hit, 2).\n"
        'asked("t1").\nwant lookup(T) :- asked(T).\nwant bare(T) :- asked(T).\n'
    )
    report = session(world).run()
    why = {w.text: reason for w, reason in report.failed}
    assert why['lookup("t1")'] == (
        'ADP_UNSUPPORTED_CAPABILITY: capability lookup: answer column(s) 3 have no mcp_field(lookup, Col, "/pointer")'
    )
    assert why['bare("t1")'].startswith("ADP_UNSUPPORTED_CAPABILITY: capability bare has no mcp_tool(bare")
    assert not marker.exists() and report.processes == 0


# -- 3. the trust boundary -------------------------------------------------------------------------------


def test_an_mcp_book_never_starts_its_server_without_allow_exec(adapter_env, rofl):
    marker = adapter_env / "started"
    starter = f"{PY} -c {shlex.quote(f'open({str(marker)!r}, chr(119)).close()')}"
    (adapter_env / "ci").mkdir()
    (adapter_env / "ci" / "rules.rofl").write_text(_lookup_world(starter).replace(echo_book(Path(".")), ""))
    (adapter_env / "src").mkdir()
    (adapter_env / "src" / "a.ts").write_text("export const a = 1;\n")
    assert rofl("scan", "src", "--out", "facts")[0] == 0
    for args in (
        ("ask", "ticket[tracker](W, I, S, O)", "ci/rules.rofl"),
        ("ask", "ticket[tracker](W, I, S, O)", "--facts", "facts", "--rules", "ci/rules.rofl"),
        ("audit", "--facts", "facts", "--rules", "ci/rules.rofl"),
    ):
        code, _, err = rofl(*args)
        assert code == 2 and err.strip().count("\n") == 0, (args, err)
        assert "book tracker" in err and "kind mcp" in err and "--allow exec" in err, err
        assert not marker.exists()


def test_an_mcp_url_is_never_connected_without_allow_exec(adapter_env, rofl):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    (adapter_env / "w.rofl").write_text(_lookup_world(url).replace(echo_book(Path(".")), ""))
    try:
        code, _, err = rofl("ask", "ticket[tracker](W, I, S, O)", "w.rofl")
        assert code == 2 and "kind mcp" in err and "--allow exec" in err, err
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody knocked
    finally:
        listener.close()


def test_an_mcp_declaration_planted_by_data_is_refused(adapter_env):
    from rofl.adapters.policy import Policy
    from rofl.adapters.rounds import Session
    from rofl.engine.kernel import Kernel

    from tests.conftest import BOOT

    kernel = Kernel(BOOT)
    trusted = _lookup_world(command()).replace(echo_book(Path(".")), "").replace('mcp_tool(lookup, "lookup").\n', "")
    kernel.load_text(trusted, "rules.rofl")
    kernel.load_text('mcp_tool(lookup, "close_ticket").\n', "planted.rofl", who="unverified")
    with pytest.raises(Refused) as refused:
        Session(kernel, Policy.command_line(("exec",), {})).start()
    assert 'mcp_tool(lookup, "close_ticket") was asserted by unverified' in refused.value.message


# -- 4. streamable HTTP ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tracker_http(tmp_path_factory):
    """The tracker on loopback HTTP, asking for the bearer token SECRET."""
    with http_tracker(tmp_path_factory.mktemp("mcp-http") / "calls.log") as running:
        yield running


def test_a_url_book_asks_over_streamable_http_with_its_token(adapter_env, tracker_http):
    before = len(calls(tracker_http.log))
    s = session(book(tracker_http.url) + WORLD, allow=("does",), environ=environ(TRACKER_TOKEN=SECRET))
    report = s.run()
    assert sorted(rows(s.kernel, "ticket[tracker](_, I, S, O)")) == [("t1", "open", "ann"), ("t3", "open", ("null",))]
    assert sorted(rows(s.kernel, "closed[tracker](_, T)")) == [("closed t1",), ("closed t3",)]
    assert {w.text for w, _ in report.failed} == {'lookup("t9")', 'leak("x")'}  # the server says SECRET back
    assert len(calls(tracker_http.log)) - before == 11 and s.processes == 1


def test_a_wrong_token_fails_the_wants_with_the_status_and_a_missing_one_holds_them(adapter_env, tracker_http):
    world = _lookup_world(tracker_http.url) + 'item("ab").\nwant reverse(X) :- item(X).\n'
    before = len(calls(tracker_http.log))
    report = session(world, environ=environ(TRACKER_TOKEN="not-the-token-1234")).run()
    [(_, reason)] = report.failed
    assert "answered 401" in reason and "not-the-token-1234" not in reason
    assert [w.text for w in report.answered] == ['reverse("ab")']
    s = session(world, environ=environ())
    report = s.run()
    [(_, reason)] = report.held
    assert reason == "ADP_CAPABILITY_DENIED: lookup needs a secret and the environment has no TRACKER_TOKEN"
    assert len(calls(tracker_http.log)) == before


def test_a_call_past_the_timeout_fails_its_want_and_the_session_goes_on(adapter_env, tracker_http):
    world = (
        book(tracker_http.url, timeout_ms=1000)
        + TOOLS
        + "capability(slow, tracker, reads).\narg(slow, 1, seconds, number).\nanswers(slow, late, 2).\n"
        + 'mcp_tool(slow, "slow").\nmcp_field(slow, 2, "/result").\nhttp_needs(slow, api).\n'
        + 'asked("t1").\nwant lookup(T) :- asked(T).\nwant slow(3) :- asked("t1").\n'
    )
    s = session(world, environ=environ(TRACKER_TOKEN=SECRET))
    report = s.run()
    [(want, reason)] = report.failed
    assert want.text == "slow(3)"
    assert reason == (
        "ADP_HOST_CALL_FAILED: adapter tracker: tool slow: timed out after 1 s (set adapter_timeout(tracker, Ms))"
    )
    assert [w.text for w in report.answered] == ['lookup("t1")'] and s.processes == 1


def test_the_secret_never_appears_in_any_output(adapter_env, tracker_http, rofl, monkeypatch):
    monkeypatch.setenv("TRACKER_TOKEN", SECRET)
    (adapter_env / "w.rofl").write_text(book(tracker_http.url) + WORLD + "seen(T, S) :- ticket[tracker](W, T, S, _).\n")
    outputs = []
    for args in (
        ("ask", "seen(T, S)", "w.rofl", "--json"),
        ("ask", "failed(W, Why)", "w.rofl"),
        ("ask", "leaked[tracker](W, X)", "w.rofl", "-v"),
        ("why", 'seen("t1", "open")', "w.rofl"),
        ("why", 'seen("t1", "open")', "w.rofl", "--json"),
        ("audit", "w.rofl", "--json"),
        ("run", "w.rofl", "--collect", "seen", "--json"),
        ("adapter", "mcp", tracker_http.url, "bearer=TRACKER_TOKEN"),
        ("adapter", "mcp", tracker_http.url, "header:Authorization=TRACKER_TOKEN"),  # no "Bearer ": refused
    ):
        code, out, err = rofl(*args, *(("--allow", "exec", "--allow", "does") if args[0] != "adapter" else ()))
        outputs += [out, err]
        assert code in ((2,) if "header:Authorization=TRACKER_TOKEN" in args else (0, 1)), (args, err)
    joined = "\n".join(outputs)
    assert 'seen("t1", "open")' in joined or '"open"' in joined
    assert "an answer holds the value of a secret" in joined
    s = session(book(tracker_http.url) + WORLD, allow=("does",), environ=environ(TRACKER_TOKEN=SECRET))
    s.run()
    s.kernel.save(adapter_env / "store.rofl")
    stored = b"".join(p.read_bytes() for p in adapter_env.rglob("*") if p.is_file())
    assert SECRET not in joined and SECRET.encode() not in stored


# -- 5. declarations and reading results -----------------------------------------------------------------


def _catalog(text: str):
    from rofl.engine.kernel import Kernel

    from tests.conftest import BOOT

    kernel = Kernel(BOOT)
    kernel.load_text(text, "book.rofl")
    return read_catalog(kernel.evaluate())


BASE = 'adapter(t, mcp, "srv").\ncapability(c, t, reads).\narg(c, 1, x, text).\nanswers(c, c_hit, 3).\n'


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ('mcp_field(c, 2, "/a").', 'c has mcp_field but no mcp_tool(c, "tool")'),
        ('mcp_tool(c, "c").\nmcp_field(c, 4, "/a").', "the column must be an answer column"),
        ('mcp_tool(c, "c").\nmcp_field(c, 2, "a").', 'write mcp_field(Cap, Column, "/json/pointer")'),
        ('mcp_tool(c, "c").\nmcp_arg(c, 2, "y").', "c has no argument 2"),
        ('mcp_tool(c, "c").\nmcp_tool(c, "d").', "has two mcp_tool declarations"),
        ('mcp_tool(c, "c").\nmcp_rows(c, 3).', 'write mcp_rows(Cap, "/json/pointer")'),
        ('mcp_tool(c, "").', 'write mcp_tool(Cap, "tool name")'),
        ('mcp_tool(c, "c").\nmcp_version(t, 3).', 'write mcp_version(Book, "version")'),
    ],
)
def test_a_malformed_mcp_declaration_names_the_fix(extra, says):
    with pytest.raises(BookError) as error:
        _catalog(BASE + extra)
    assert says in str(error.value)


def test_the_tools_version_is_part_of_the_books_version():
    one = _catalog(BASE + 'mcp_tool(c, "c").\nmcp_version(t, "aaaa").')
    two = _catalog(BASE + 'mcp_tool(c, "c").\nmcp_version(t, "bbbb").')
    assert one.books["t"].version != two.books["t"].version
    spec = one.capabilities["c"].mcp
    assert spec is not None and spec.tool == "c" and spec.inputs == ("x",) and spec.fields == ()


def test_results_are_read_as_structured_content_then_json_text_then_text():
    from rofl.adapters.books import McpTool

    whole = McpTool("t", (), ((2, ""),), None)
    assert document({"structuredContent": {"a": 1}, "content": [{"type": "text", "text": "x"}]}) == {"a": 1}
    assert document({"content": [{"type": "text", "text": '{"a": [1, 2]}'}]}) == {"a": [1, 2]}
    assert document({"content": [{"type": "text", "text": "plain"}, {"type": "text", "text": "2"}]}) == ["plain", 2]
    assert document({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]}) is None
    assert answer_rows(whole, {"content": [{"type": "text", "text": '[1, true, null, 2.5, {"b": 1}]'}]}) == (
        (1,),
        (("true",),),
        (("null",),),
        ("2.5",),
        ('{"b":1}',),
    )
    rows_at = McpTool("t", (), ((2, "/id"),), "/items")
    assert answer_rows(rows_at, {"structuredContent": {"items": []}}) == ()  # a true "no rows"
    assert "has nothing at /items" in str(answer_rows(rows_at, {"structuredContent": {}}))  # never a false one
    assert "is not an array" in str(answer_rows(rows_at, {"structuredContent": {"items": 3}}))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab~/", max_size=3), inner, max_size=3),
    max_leaves=12,
)


def _paths(value: object, here: tuple = ()) -> list[tuple]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*here, str(i)))
    return out


@given(JSON, st.data())
def test_pointers_read_what_an_independent_resolver_reads(doc, data):
    """Differential: every path into a document, escaped as RFC 6901 says, reads what the JSON Schema
    reference resolver (``referencing``) reads at the same fragment; a path one step past it reads nothing."""
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    resolver = Registry().with_resource("urn:doc", Resource(contents=doc, specification=DRAFT202012)).resolver()
    path = data.draw(st.sampled_from(_paths(doc)))
    text = "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in path)
    assert pointer(doc, text) == resolver.lookup(f"urn:doc#{text}").contents
    beyond = text + "/zz"
    try:
        expected = resolver.lookup(f"urn:doc#{beyond}").contents
    except (Unresolvable, ValueError, TypeError, LookupError):  # the resolver's ways of finding nothing there
        assert term(pointer(doc, beyond)) == ("null",)
    else:
        assert pointer(doc, beyond) == expected


@given(JSON)
def test_every_json_value_becomes_a_term_that_round_trips(value):
    from rofl.engine.parse import parse_literal
    from rofl.engine.terms import format_term

    converted = term(value)
    assert parse_literal(f"t({format_term(converted)})", "<t>").args == (converted,)
    if isinstance(value, (dict, list)):
        assert json.loads(converted) == value  # type: ignore[arg-type]
