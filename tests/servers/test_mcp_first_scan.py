"""`rofl mcp` over a fact folder with no scan yet (issue 21): it starts given --src, offers scan, refuses every
other tool with one error naming scan, and answers over the scan its own scan tool made; an unsafe --facts
(SRC itself, or a folder holding it) and a missing --src are still refused at start."""

from __future__ import annotations

import json
import os

import anyio
import httpx
from mcp.client.client import Client

from .conftest import generated_tree, module, rofl, start, stop
from .test_http import wait_ended
from .test_mcp import TOOLS, stdio


def test_the_first_scan_is_made_by_the_scan_tool_and_then_the_tools_answer_over_it(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"  # facts does not exist yet
    generated_tree(src, files=30)

    async def drive() -> dict:
        async with Client(stdio(facts, src)) as client:
            out: dict = {"tools": {t.name for t in (await client.list_tools()).tools}}
            out["before"] = await client.call_tool("impact", {"changed": [module(6)]})
            out["ask"] = await client.call_tool("ask", {"query": "dependency[code](A, B)"})
            out["scan"] = await client.call_tool("scan", {"jobs": 1})
            out["after"] = await client.call_tool("impact", {"changed": [module(6)], "limit": 1000})
            return out

    out = anyio.run(drive)
    assert out["tools"] == TOOLS
    for refused in (out["before"], out["ask"]):
        assert refused.is_error
        text = refused.content[0].text
        assert "no scan yet" in text and "call scan first" in text, text
    assert not out["scan"].is_error, out["scan"].content
    assert out["scan"].structured_content["output"]["parsed"] == 30
    assert not out["after"].is_error, out["after"].content
    cli = json.loads(rofl("impact", "--facts", str(facts), "--changed", module(6), "--json").stdout)
    assert out["after"].structured_content["output"] == cli


def test_a_folder_with_no_manifest_is_served_too(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    generated_tree(src, files=10)
    facts.mkdir()

    async def drive():
        async with Client(stdio(facts, src)) as client:
            return await client.call_tool("relations", {})

    answer = anyio.run(drive)
    assert answer.is_error and "call scan first" in answer.content[0].text


def test_without_src_or_with_an_unsafe_facts_folder_it_still_refuses_to_start(tmp_path):
    src = tmp_path / "src"
    generated_tree(src, files=5)
    missing = rofl("mcp", "--facts", str(tmp_path / "none"))
    assert missing.returncode == 2 and "--src" in missing.stderr and "rofl scan" in missing.stderr
    for unsafe in (src, tmp_path):  # SRC itself, and a folder holding it: what `rofl scan --out` refuses
        ran = rofl("mcp", "--facts", str(unsafe), "--src", str(src))
        assert ran.returncode == 2 and "is SRC or a folder holding it" in ran.stderr, ran.stderr
        ran = rofl("server", "--facts", str(unsafe), "--src", str(src))
        assert ran.returncode == 2 and "is SRC or a folder holding it" in ran.stderr, ran.stderr
    assert not (src / "manifest.json").exists()


def test_rofl_server_shares_the_start_up_path_a_question_before_the_first_scan_gets_409(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    generated_tree(src, files=20)
    running = start("server", facts, src, env={k: v for k, v in os.environ.items() if k != "ROFL_SERVER_TOKEN"})
    try:
        with httpx.Client(base_url=running.url) as client:
            before = client.post("/commands/impact", json={"changed": [module(3)]})
            scan = client.post("/executions", json={"command": "scan", "args": {}})
            assert scan.status_code == 202, scan.text
            view = wait_ended(client, scan.json()["id"])
            after = client.post("/commands/impact", json={"changed": [module(3)]})
    finally:
        stop(running)
    assert before.status_code == 409 and "call scan first" in before.json()["error"], before.text
    assert view["state"] == "succeeded", view
    assert after.status_code == 200, after.text
