"""`rofl mcp` driven by the mcp SDK's own client over stdio (and streamable HTTP): the eight tools, their
schemas, answers equal to the command line's (given a limit they fit), progress notifications from a
scan, and refused calls."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from .conftest import FILES, generated_tree, module, rofl, start, stop

TOOLS = {"impact", "why", "whynot", "ask", "relations", "audit", "scan", "cycles"} | {
    f"executions_{op}" for op in ("start", "list", "get", "events", "cancel", "protocol")
}


def stdio(facts, src) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "rofl.cli", "mcp", "--facts", str(facts), "--src", str(src)],
        env=dict(os.environ),
    )


@pytest.mark.slow
def test_the_tools_answer_what_the_command_line_answers_and_report_scan_progress(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    generated_tree(src, files=FILES // 3, salt="one")
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    cli_impact = json.loads(rofl("impact", "--facts", str(facts), "--changed", module(6), "--json").stdout)
    cli_ask = rofl("ask", "dependency[code](A, B)", "--facts", str(facts), "--json")
    progress: list[tuple[float, float | None]] = []

    async def drive() -> dict:
        async with Client(stdio(facts, src)) as client:
            listed = (await client.list_tools()).tools
            out: dict = {"tools": {t.name: t for t in listed}}
            out["impact"] = await client.call_tool("impact", {"changed": [module(6)], "limit": 1000})
            out["ask"] = await client.call_tool("ask", {"query": "dependency[code](A, B)", "limit": 1000})
            out["bad"] = await client.call_tool("ask", {"query": "p((("})
            out["outside"] = await client.call_tool("audit", {"rules": ["/etc/passwd"]})
            generated_tree(src, files=FILES // 3, salt="two")  # every file changed: the scan parses each one

            async def heard(done: float, total: float | None, message: str | None) -> None:
                progress.append((done, total))

            out["scan"] = await client.call_tool("scan", {"jobs": 1}, progress_callback=heard)
            return out

    out = anyio.run(drive)
    assert set(out["tools"]) == TOOLS
    impact_schema = out["tools"]["impact"].input_schema
    assert impact_schema["properties"]["changed"]["type"] == "array" and "facts" not in impact_schema["properties"]
    assert out["tools"]["ask"].input_schema["required"] == ["query"]
    assert out["tools"]["impact"].annotations.read_only_hint and not out["tools"]["scan"].annotations.read_only_hint
    assert not out["impact"].is_error, out["impact"].content
    assert out["impact"].structured_content["output"] == cli_impact
    assert {k: v for k, v in out["ask"].structured_content.items() if k != "page"} == {
        "exit_code": cli_ask.returncode,
        "output": json.loads(cli_ask.stdout),
        "stderr": [],
    }
    assert out["ask"].structured_content["page"]["next_cursor"] is None
    assert out["bad"].is_error and "<query>" in out["bad"].content[0].text
    assert out["outside"].is_error and "outside the configured folders" in out["outside"].content[0].text
    assert not out["scan"].is_error and out["scan"].structured_content["output"]["parsed"] == FILES // 3
    assert progress and progress[-1] == (FILES // 3, FILES // 3)
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)


@pytest.mark.slow
def test_the_streamable_http_transport_serves_the_same_tools(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    generated_tree(src, files=40)
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    cli = json.loads(rofl("impact", "--facts", str(facts), "--changed", module(3), "--json").stdout)
    running = start("mcp", facts, src, env={k: v for k, v in os.environ.items() if k != "ROFL_SERVER_TOKEN"})
    try:

        async def drive():
            async with Client(running.url + "/mcp") as client:
                names = {t.name for t in (await client.list_tools()).tools}
                return names, await client.call_tool("impact", {"changed": [module(3)], "limit": 1000})

        names, answer = anyio.run(drive)
    finally:
        stop(running)
    assert names == TOOLS
    assert not answer.is_error, answer.content
    assert answer.structured_content["output"] == cli


@pytest.mark.slow
def test_a_cancelled_tool_call_stops_its_scan_and_the_session_goes_on(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    generated_tree(src, files=FILES // 3, salt="one")
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    before = (facts / "manifest.json").read_bytes()
    generated_tree(src, files=FILES // 3, salt="two", bulk=60)  # every file changed, slow to extract
    heard: list[float] = []

    async def drive():
        async with Client(stdio(facts, src)) as client:
            first_progress = anyio.Event()

            async def progress(done: float, total: float | None, message: str | None) -> None:
                heard.append(done)
                first_progress.set()

            async with anyio.create_task_group() as group:

                async def scan() -> None:
                    await client.call_tool("scan", {"jobs": 1}, progress_callback=progress)

                group.start_soon(scan)
                with anyio.fail_after(60):
                    await first_progress.wait()
                group.cancel_scope.cancel()  # the client gives up: the SDK sends notifications/cancelled
            await anyio.sleep(0.5)
            unchanged = (facts / "manifest.json").read_bytes() == before  # the cancelled scan never committed
            # a scan still running would refuse this one ("a scan of this folder is running")
            return unchanged, await client.call_tool("scan", {"jobs": 1})

    unchanged, again = anyio.run(drive)
    assert heard and heard[-1] < FILES // 3
    assert unchanged
    assert not again.is_error, again.content
    assert again.structured_content["output"]["parsed"] == FILES // 3
