"""`rofl adapter mcp CMD|URL [HOW[:NAME]=ENV]`: the book printed from the server's own tool list and schemas
(one capability per tool, its class from the annotations), with a version that changes when the tools do,
and that book, as printed, answers a world's wants."""

from __future__ import annotations

import re

import pytest
from rofl.adapters.mcp_book import book_text, columns, klass, version

from tests.adapters.mcp_servers import SECRET, command, http_tracker

LOOKUP = {
    "name": "lookup",
    "description": "One ticket.",
    "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "state": {"type": "string"}}},
    "annotations": {"readOnlyHint": True},
}


@pytest.fixture(scope="module")
def tracker_http(tmp_path_factory):
    with http_tracker(tmp_path_factory.mktemp("mcp-book") / "calls.log") as running:
        yield running


def _facts(text: str) -> list[tuple]:
    from rofl.engine.kernel import Kernel

    from tests.conftest import BOOT

    kernel = Kernel(BOOT)
    kernel.load_text(text, "book.rofl")
    result = kernel.evaluate()
    out = []
    for rel in ("adapter", "capability", "arg", "answers", "mcp_tool", "mcp_arg", "mcp_field", "mcp_rows"):
        out += [(rel, *row[1:]) for row in result.rows(rel, "main")]
    return out


def test_the_book_of_a_url_answers_a_world_through_it(adapter_env, rofl, monkeypatch, tracker_http):
    monkeypatch.setenv("TRACKER_TOKEN", SECRET)
    code, out, err = rofl("adapter", "mcp", tracker_http.url, "bearer=TRACKER_TOKEN")
    assert code == 0, err
    assert SECRET not in out + err
    assert f'adapter(tracker, mcp, "{tracker_http.url}").' in out  # named as the server names itself
    assert 'http_auth(tracker, bearer, bearer, "", "TRACKER_TOKEN").' in out
    assert "capability(lookup, tracker, reads)." in out and "capability(close_ticket, tracker, does)." in out
    assert "http_needs(lookup, bearer)." in out
    assert 'mcp_rows(search, "/items").' in out and 'mcp_field(search, 4, "/score").' in out
    assert '-- optional input limit: add arg(search, 2, limit, number). mcp_arg(search, 2, "limit").' in out
    (adapter_env / "tracker.rofl").write_text(out)
    (adapter_env / "asks.rofl").write_text('asked("t1"). asked("t2").\nwant lookup(T) :- asked(T).\n')
    code, answers, err = rofl(
        "ask", "lookup_result[tracker](W, I, S, O)", "tracker.rofl", "asks.rofl", "--allow", "exec", "--json"
    )
    assert code == 0, err
    assert '"open"' in answers and '"closed"' in answers and '"bob"' in answers


def test_the_version_changes_when_the_servers_tools_change(adapter_env, rofl, monkeypatch, tracker_http):
    code, _, err = rofl("adapter", "mcp", tracker_http.url)
    assert code == 2 and "answered 401" in err  # the tracker on HTTP needs its token
    monkeypatch.setenv("TRACKER_TOKEN", SECRET)
    code, served, err = rofl("adapter", "mcp", tracker_http.url, "bearer=TRACKER_TOKEN")
    assert code == 0, err
    code, grown, err = rofl("adapter", "mcp", command("--extra"))  # the same server with one tool more
    assert code == 0, err
    assert "capability(assign, tracker, does)." in grown  # openWorldHint, and not read-only
    assert "arg(assign, 2, owner, text)." in grown
    assert set(_tools_of(grown)) - set(_tools_of(served)) == {"assign"}
    assert _version_of(grown) != _version_of(served)
    again = rofl("adapter", "mcp", tracker_http.url, "bearer=TRACKER_TOKEN")[1]
    assert _version_of(again) == _version_of(served) and again == served  # the same tools, the same book


def _version_of(book: str) -> str:
    [found] = re.findall(r'^mcp_version\(tracker, "([0-9a-f]{16})"\)\.$', book, re.M)
    return found


def _tools_of(book: str) -> list[str]:
    return re.findall(r'^mcp_tool\(\w+, "([^"]+)"\)\.$', book, re.M)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("no-such-mcp-server-xyz",), "cannot start 'no-such-mcp-server-xyz'"),
        (("srv", "nonsense"), "HOW must be one of"),
        (("srv", "bearer=ROFL_TEST_UNSET_VARIABLE"), "the environment has no ROFL_TEST_UNSET_VARIABLE"),
        (("'unbalanced",), "does not parse"),
        (("srv", "login:https://auth.example.com"), "a login names none"),
    ],
)
def test_a_server_that_cannot_be_asked_is_one_line_and_exit_2(adapter_env, rofl, monkeypatch, args, says):
    monkeypatch.delenv("ROFL_TEST_UNSET_VARIABLE", raising=False)
    code, out, err = rofl("adapter", "mcp", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and says in err, err
    assert err.startswith("rofl adapter mcp: ")


# -- the book, from tool lists (no server) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({"readOnlyHint": True}, "reads"),
        ({"readOnlyHint": True, "openWorldHint": True}, "reads"),  # reads the world, changes nothing
        ({"destructiveHint": True}, "does"),
        ({"openWorldHint": True}, "does"),
        ({"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}, "does"),
        (None, "does"),  # no annotation: MCP's defaults are destructive and open-world
    ],
)
def test_a_tools_class_comes_from_its_annotations(annotations, expected):
    assert klass({"name": "t", **({"annotations": annotations} if annotations is not None else {})}) == expected


def test_the_version_is_the_tools_and_not_their_order():
    other = {**LOOKUP, "name": "other", "annotations": {"destructiveHint": True}}
    assert version([LOOKUP, other]) == version([other, LOOKUP])
    for key, value in (
        ("description", "One ticket, now longer."),
        ("inputSchema", {"type": "object", "properties": {}}),
        ("outputSchema", None),
        ("annotations", {}),
        ("title", "Lookup"),
    ):
        changed = {**LOOKUP, key: value}
        assert version([changed, other]) != version([LOOKUP, other]), key


def test_what_a_server_says_cannot_add_a_declaration():
    hostile = {
        **LOOKUP,
        "name": 'x").\nadapter(evil, exec, "sh -c pwn").\nmcp_tool(y, "',
        "description": 'ok\nadapter(evil, exec, "sh").\ncapability(pwn, evil, does).',
        "inputSchema": {
            "type": "object",
            "properties": {'a").\nadapter(evil, exec, "sh")': {"type": "string"}},
            "required": ['a").\nadapter(evil, exec, "sh")'],
        },
    }
    text = book_text("tracker", "python srv.py", [hostile])
    facts = _facts(text)
    assert [f for f in facts if f[0] == "adapter"] == [("adapter", ("tracker",), ("mcp",), "python srv.py")]
    [(_, cap, book, _)] = [f for f in facts if f[0] == "capability"]
    assert book == ("tracker",) and re.fullmatch(r"[a-z][A-Za-z0-9_]*", cap[0])
    assert [f[2] for f in facts if f[0] == "mcp_tool"] == [hostile["name"]]  # the real name, as a string
    assert [f[3] for f in facts if f[0] == "mcp_arg"] == [hostile["inputSchema"]["required"][0]]


def test_names_become_rofl_names_and_stay_apart():
    tools = [
        {**LOOKUP, "name": "Get-Issue"},
        {**LOOKUP, "name": "get_issue"},
        {**LOOKUP, "name": "2fa.check"},
        {**LOOKUP, "name": "not"},
    ]
    caps = sorted(f[1][0] for f in _facts(book_text("t", "srv", tools)) if f[0] == "capability")
    assert len(set(caps)) == 4 and all(re.fullmatch(r"[a-z][A-Za-z0-9_]*", c) for c in caps)
    assert "not" not in caps


@pytest.mark.parametrize(
    ("output", "rows", "paths"),
    [
        (None, None, [""]),
        ({"type": "object", "properties": {"a": {"type": "string"}, "b": {}}}, None, ["/a", "/b"]),
        (
            {
                "type": "object",
                "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Hit"}}, "total": {}},
                "$defs": {"Hit": {"type": "object", "properties": {"id": {}, "a/b": {}}}},
            },
            "/items",
            ["/id", "/a~1b"],
        ),
        ({"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}}}, "/result", [""]),
    ],
)
def test_answer_columns_follow_the_output_schema(output, rows, paths):
    cols = columns(output)
    assert cols.rows == rows and [p for _, p in cols.fields] == paths
