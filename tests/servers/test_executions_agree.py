"""HTTP, MCP and the command line reach one server's executions the same way: one `rofl mcp --http` process
serves the MCP tools at /mcp and the HTTP routes beside them, and `rofl executions --server URL` calls those
routes; the three give the same list, the same views, the same events, the same protocol, the same refusal
of a cancel the command cannot keep, and the same accepted cancel of a scan."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.client import Client

from .conftest import Running, generated_tree, module, rofl, start, stop
from .test_http import events_of, stream, wait_ended


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Running]:
    root = tmp_path_factory.mktemp("agree")
    src, facts = root / "src", root / "facts"
    generated_tree(src, files=60)
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    running = start("mcp", facts, src, env={k: v for k, v in os.environ.items() if k != "ROFL_SERVER_TOKEN"})
    yield running
    stop(running)


def cli(running: Running, *args: str) -> tuple[int, Any, str]:
    """`rofl executions ... --json` against the server: exit code, parsed stdout (a list for events), stderr."""
    done = rofl("executions", args[0], "--server", running.url, *args[1:], "--json")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    out = lines if args[0] == "events" else (lines[0] if lines else None)
    return done.returncode, out, done.stderr


def mcp_calls(running: Running, calls: list[tuple[str, dict]]) -> list[Any]:
    """The MCP tools called in order over one session: each answer's structured content, or for an error
    ``("error", text, structured)``."""

    async def drive() -> list[Any]:
        out: list[Any] = []
        async with Client(running.url + "/mcp") as client:
            for name, arguments in calls:
                answer = await client.call_tool(name, arguments)
                text = answer.content[0].text if answer.content else ""
                out.append(("error", text, answer.structured_content) if answer.is_error else answer.structured_content)
        return out

    return anyio.run(drive)


def test_the_three_agree_on_the_list_the_views_the_events_the_protocol_and_a_refused_cancel(served):
    with httpx.Client(base_url=served.url, timeout=60) as http:
        by_http = http.post("/executions", json={"command": "ask", "args": {"query": "dependency[code](A, B)"}})
        assert by_http.status_code == 202
        ask = by_http.json()["id"]
        (by_mcp,) = mcp_calls(served, [("executions_start", {"command": "relations", "args": {}})])
        code, by_cli, err = cli(
            served, "start", "why", "--args", json.dumps({"fact": f'dependency[code]("{module(9)}", "{module(4)}")'})
        )
        assert code == 0, err
        mcp_calls(served, [("cycles", {})])  # a tool call is an execution of the plane too
        ids = [ask, by_mcp["id"], by_cli["id"]]
        for ident in ids:
            assert wait_ended(http, ident)["state"] == "succeeded"
        listing = http.get("/executions", params={"limit": 256}).json()
        filtered = http.get("/executions", params={"state": "succeeded", "command": ["ask", "why"]}).json()
        views = [http.get(f"/executions/{ident}").json() for ident in ids]
        events = [[e["data"] for e in events_of(http, ident)] for ident in ids]
        refusal = http.delete(f"/executions/{ask}")
        described = http.get("/protocol").json()

    assert [x["command"] for x in listing["executions"][:4]] == ["cycles", "why", "relations", "ask"]
    assert [x["id"] for x in filtered["executions"]] == [by_cli["id"], ask]
    assert refusal.status_code == 409 and "ask cannot be cancelled" in refusal.json()["error"]

    mcp = mcp_calls(
        served,
        [
            ("executions_list", {"limit": 256}),
            ("executions_list", {"state": ["succeeded"], "command": ["ask", "why"]}),
            *[("executions_get", {"id": ident}) for ident in ids],
            *[("executions_events", {"id": ident}) for ident in ids],
            ("executions_cancel", {"id": ask}),
            ("executions_protocol", {}),
        ],
    )
    assert mcp[0] == listing and mcp[1] == filtered
    assert mcp[2:5] == views
    assert [answer["events"] for answer in mcp[5:8]] == events
    assert all(answer["state"] == "succeeded" and answer["last_seq"] == 2 for answer in mcp[5:8])
    assert mcp[8] == ("error", refusal.json()["error"], {"error": refusal.json()["error"], "status": 409})
    assert mcp[9] == described

    assert cli(served, "list", "--limit", "256")[1] == listing
    assert cli(served, "list", "--state", "succeeded", "--command", "ask", "--command", "why")[1] == filtered
    assert [cli(served, "get", ident)[1] for ident in ids] == views
    assert [cli(served, "events", ident)[1] for ident in ids] == events
    code, out, err = cli(served, "cancel", ask)
    assert (code, out) == (1, None) and err.strip() == f"rofl executions: {refusal.json()['error']} (HTTP 409)"
    assert cli(served, "protocol")[1] == described
    with httpx.Client(base_url=served.url, timeout=60) as http:
        assert http.get(f"/executions/{ask}").json() == views[0]  # refused: nothing changed


def test_a_scan_cancelled_from_the_command_line_is_cancelled_for_http_and_mcp_alike(served):
    before = (served.facts / "manifest.json").read_bytes()
    generated_tree(served.src, files=300, salt="slower", bulk=60)  # every file changed, and slower to extract
    (started,) = mcp_calls(served, [("executions_start", {"command": "scan", "args": {"jobs": 1}})])
    ident = started["id"]
    with httpx.Client(base_url=served.url, timeout=60) as http:
        for event in stream(http, ident):
            if event["data"]["type"] == "progress":
                code, answer, err = cli(served, "cancel", ident)
                break
        assert code == 0, err
        assert answer == {"id": ident, "state": "running", "cancel_requested": "cancelled by the client"}
        view = wait_ended(http, ident)
    assert view["state"] == "cancelled" and view["reason"] == "cancelled by the client"
    (by_mcp,) = mcp_calls(served, [("executions_get", {"id": ident})])
    assert by_mcp == view == cli(served, "get", ident)[1]
    again = mcp_calls(served, [("executions_cancel", {"id": ident})])[0]
    assert again[0] == "error" and "already ended (cancelled)" in again[1] and again[2]["status"] == 409
    assert (served.facts / "manifest.json").read_bytes() == before  # the cancelled scan never committed


def test_a_wrong_call_is_refused_alike_with_the_same_line_and_status(served):
    with httpx.Client(base_url=served.url, timeout=60) as http:
        bad_filter = http.get("/executions", params={"command": "rm"})
        unknown = http.get("/executions/x0-none")
        bad_parameter = http.get("/executions", params={"states": "running"})
    assert bad_filter.status_code == 400 and "command 'rm' is not one of" in bad_filter.json()["error"]
    assert unknown.status_code == 404 and bad_parameter.status_code == 400
    mcp = mcp_calls(
        served,
        [
            ("executions_list", {"command": ["rm"]}),
            ("executions_get", {"id": "x0-none"}),
            ("executions_list", {"states": ["running"]}),
        ],
    )
    assert mcp[0] == ("error", bad_filter.json()["error"], {"error": bad_filter.json()["error"], "status": 400})
    assert mcp[1] == ("error", unknown.json()["error"], {"error": unknown.json()["error"], "status": 404})
    assert mcp[2][0] == "error" and "unknown argument 'states'" in mcp[2][1] and mcp[2][2]["status"] == 400
    for args, response in ((("list", "--command", "rm"), bad_filter), (("get", "x0-none"), unknown)):
        code, out, err = cli(served, *args)
        assert (code, out) == (2, None)
        assert err.strip() == f"rofl executions: {response.json()['error']} (HTTP {response.status_code})"
    done = rofl("executions", "--server", "file:///etc/passwd", "list")
    assert done.returncode == 2 and "not an http:// or https:// URL" in done.stderr
    done = rofl("executions", "list", "--server", "http://127.0.0.1:9")  # nothing listens on the discard port
    assert done.returncode == 2 and "no rofl server answers at http://127.0.0.1:9" in done.stderr
    by_group = rofl("executions", "--server", served.url, "get", "x0-none")  # --server before the subcommand
    assert by_group.returncode == 2 and unknown.json()["error"] in by_group.stderr
