"""`rofl mcp` as a coding agent meets it (issue 24, part 4): the official MCP client drives a scripted session
over stdio on a small workspace monorepo (initialize, list tools, the first scan, impact, why, cycles);
every answer is bounded (a page of `limit` items, totals, a cursor whose pages add up to the command
line's whole answer, a summary by package), its text is one summary line and not the JSON again, its
structured content validates against the tool's outputSchema, arguments are named as on the command
line and every field is described.  Progress reaches a caller that sent a progress token; a cancelled
request gets no response (raw JSON-RPC, as the spec asks); a client of a protocol with no structured
content gets the page as JSON text."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from rofl.servers import mcp_pages

from tests.conftest import write_tree

from .conftest import FILES, generated_tree, module, rofl

ROUTES = 70  # more affected files than the default limit of 50
CORE = "packages/core/src/util.ts"


def monorepo(root: Path) -> None:
    """A pnpm-style workspace: @acme/core (util, money, a two-file cycle, a test), @acme/api importing core
    by name with many route files, and a web app importing the api."""
    tree = {
        "package.json": json.dumps({"name": "acme", "private": True, "workspaces": ["packages/*", "apps/*"]}),
        "pnpm-workspace.yaml": "packages:\n  - packages/*\n  - apps/*\n",
        "packages/core/package.json": json.dumps({"name": "@acme/core", "main": "src/index.ts"}),
        "packages/core/src/util.ts": "export const round = (n: number) => Math.round(n * 100) / 100;\n",
        "packages/core/src/money.ts": 'import { round } from "./util";\nexport const cents = (n: number) => round(n) * 100;\n',
        "packages/core/src/money.test.ts": 'import { cents } from "./money";\nexport const ok = cents(1) === 100;\n',
        "packages/core/src/a.ts": 'import { b } from "./b";\nexport const a = () => b();\n',
        "packages/core/src/b.ts": 'import { a } from "./a";\nexport const b = (): number => (a ? 1 : 0);\n',
        "packages/core/src/index.ts": 'export * from "./money";\nexport * from "./a";\n',
        "packages/api/package.json": json.dumps(
            {"name": "@acme/api", "main": "src/server.ts", "dependencies": {"@acme/core": "workspace:*"}}
        ),
        "packages/api/src/server.ts": 'import { cents } from "@acme/core";\nexport const price = cents(2);\n',
        "apps/web/package.json": json.dumps({"name": "web", "dependencies": {"@acme/api": "workspace:*"}}),
        "apps/web/src/page.tsx": 'import { price } from "@acme/api";\nexport const Page = () => <p>{price}</p>;\n',
    }
    for i in range(ROUTES):
        tree[f"packages/api/src/routes/r{i}.ts"] = (
            f'import {{ price }} from "../server";\nexport const route{i} = () => price + {i};\n'
        )
    write_tree(root, tree)


def stdio(facts: Path, src: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "rofl.cli", "mcp", "--facts", str(facts), "--src", str(src)],
        env=dict(os.environ),
    )


def undescribed(schema: Any, where: str = "") -> list[str]:
    """The fields of a JSON Schema (properties, at any depth) with no description."""
    out: list[str] = []
    if not isinstance(schema, dict):
        return out
    for name, prop in (schema.get("properties") or {}).items():
        if not (isinstance(prop, dict) and prop.get("description")):
            out.append(f"{where}.{name}")
        out += undescribed(prop, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        out += undescribed(schema["items"], f"{where}[]")
    return out


def size(result: Any) -> int:
    dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return len(json.dumps(dumped))


def test_an_agent_session_scan_impact_why_cycles_answers_bounded_and_valid(tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"  # no scan yet: the session makes the first
    monorepo(src)
    heard: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    async def drive() -> dict:
        out: dict = {}
        async with Client(stdio(facts, src)) as client:
            out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
            out["scan"] = await client.call_tool("scan", {}, progress_callback=progress)
            out["impact"] = await client.call_tool("impact", {"changed": [CORE]}, progress_callback=progress)
            pages = [out["impact"]]
            while pages[-1].structured_content["page"]["next_cursor"]:
                cursor = pages[-1].structured_content["page"]["next_cursor"]
                pages.append(await client.call_tool("impact", {"changed": [CORE], "cursor": cursor}))
            out["pages"] = pages
            out["tests"] = await client.call_tool("impact", {"changed": [CORE], "tests": True})
            out["why"] = await client.call_tool(
                "why", {"fact": f'depends_on[code]("packages/api/src/routes/r7.ts", "{CORE}")'}
            )
            out["cycles"] = await client.call_tool("cycles", {})
            out["wrong_cursor"] = await client.call_tool(
                "impact",
                {"changed": ["packages/core/src/a.ts"], "cursor": pages[0].structured_content["page"]["next_cursor"]},
            )
            out["old_name"] = await client.call_tool("impact", {"changed": [CORE], "tests_only": True})
        return out

    out = anyio.run(drive)
    tools = out["tools"]
    assert {"scan", "impact", "why", "whynot", "ask", "cycles", "audit", "relations"} <= set(tools)
    for name, listed in tools.items():  # every field, in and out, is described; arguments as on the command line
        assert not undescribed(listed.input_schema), (name, undescribed(listed.input_schema))
        assert not undescribed(listed.output_schema), (name, undescribed(listed.output_schema))
        assert {"tests_only", "by_package", "test_globs", "output_format"}.isdisjoint(listed.input_schema["properties"])
        if name != "scan" and not name.startswith("executions_"):  # the plane's tools page as they say
            assert {"limit", "cursor"} <= set(listed.input_schema["properties"])
    assert {"changed", "git_base", "tests", "packages", "runtime", "test_glob"} <= set(
        tools["impact"].input_schema["properties"]
    )
    assert "dependency[code]" in tools["ask"].description and "in_cycle[code]" in tools["ask"].description

    # the first scan, with its progress
    scan = out["scan"]
    assert not scan.is_error, scan.content
    files = 8 + ROUTES
    assert scan.structured_content["output"]["files"] == files
    scanned = [h for h in heard if h[1]]  # the scan's own, with a total
    assert scanned and scanned[-1][:2] == (files, files)
    assert any(m and m.startswith("impact") for _, _, m in heard)  # impact reported progress too

    # impact: one page of 50, the totals, the summary by package, a one-line text
    cli = json.loads(rofl("impact", "--facts", str(facts), "--changed", CORE, "--json", "--no-rescan").stdout)
    first = out["impact"]
    answer = first.structured_content
    assert not first.is_error, first.content
    assert len(cli["affected"]) > mcp_pages.DEFAULT_LIMIT
    assert len(answer["output"]["affected"]) == mcp_pages.DEFAULT_LIMIT
    assert answer["page"]["totals"]["affected"] == len(cli["affected"])
    assert answer["output"]["affected"] == cli["affected"][: mcp_pages.DEFAULT_LIMIT]
    assert size(first) < 30_000
    [text] = first.content
    assert "\n" not in text.text and len(text.text) < 400 and not text.text.lstrip().startswith("{")
    assert f"{len(cli['affected'])} file(s) affected" in text.text
    summary = answer["summary"]
    assert summary["affected"] == len(cli["affected"])
    by_name = {p["package"]: p["affected"] for p in summary["packages"]}
    oracle = {"@acme/core": 0, "@acme/api": 0, "web": 0}
    for item in cli["affected"]:
        f = item["file"]
        oracle[
            "@acme/core" if f.startswith("packages/core/") else "@acme/api" if f.startswith("packages/api/") else "web"
        ] += 1
    assert by_name == {k: v for k, v in oracle.items() if v}
    assert summary["packages"][0]["package"] == "@acme/api"  # the largest count first

    # the cursor's pages add up to the command line's whole answer, in order, and then end
    pages = out["pages"]
    assert len(pages) == -(-len(cli["affected"]) // mcp_pages.DEFAULT_LIMIT)
    assert [a for p in pages for a in p.structured_content["output"]["affected"]] == cli["affected"]
    assert [f for p in pages for f in p.structured_content["output"]["files"]] == cli["files"]
    assert pages[-1].structured_content["page"]["next_cursor"] is None

    tests = out["tests"].structured_content["output"]
    assert tests["files"] == ["packages/core/src/money.test.ts"]

    why = out["why"]
    assert not why.is_error and why.structured_content["exit_code"] == 0, why.content
    assert why.structured_content["output"]["kind"] == "derived"
    assert why.structured_content["page"]["totals"]["nodes"] >= 3

    cycles = out["cycles"].structured_content
    assert cycles["exit_code"] == 1
    assert [c["files"] for c in cycles["output"]["components"]] == [
        ["packages/core/src/a.ts", "packages/core/src/b.ts"]
    ]

    for name, result in [
        ("scan", scan),
        ("impact", first),
        ("impact", out["tests"]),
        ("why", why),
        ("cycles", out["cycles"]),
    ]:
        jsonschema.validate(result.structured_content, tools[name].output_schema)
        assert len(result.content) == 1 and len(result.content[0].text) < 400

    assert out["wrong_cursor"].is_error and "cursor belongs to a call" in out["wrong_cursor"].content[0].text
    assert out["old_name"].is_error and "tests" in out["old_name"].content[0].text


@pytest.mark.slow
def test_every_answer_fits_a_limit_that_the_agent_chooses(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    generated_tree(src, files=120)
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0

    async def drive() -> dict:
        async with Client(stdio(facts, src)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            calls = {
                "ask": {"query": "dependency[code](A, B)", "limit": 7},
                "relations": {"limit": 7},
                "impact": {"changed": ["pkg0/m1.ts"], "limit": 7},
                "why": {"fact": 'depends_on[code]("pkg11/m119.ts", "pkg0/m0.ts")', "limit": 3},
                "audit": {"limit": 7},
            }
            return {"tools": tools} | {name: await client.call_tool(name, args) for name, args in calls.items()}

    out = anyio.run(drive)
    ask = out["ask"].structured_content
    assert len(ask["output"]["answers"]) == 7 and ask["page"]["totals"]["answers"] == 236
    assert len(out["relations"].structured_content["output"]["relations"]) == 7
    impact = out["impact"].structured_content
    assert len(impact["output"]["affected"]) == 7 and len(impact["summary"]["packages"]) <= 7
    why = out["why"].structured_content
    assert why["page"]["totals"]["nodes"] > 6

    def nodes(n: dict) -> int:
        return 1 + sum(nodes(c) for c in n.get("children", []))

    assert nodes(why["output"]) == 6  # limit * 2 nodes of the tree
    for name in ("ask", "relations", "impact", "why", "audit"):
        jsonschema.validate(out[name].structured_content, out["tools"][name].output_schema)


class Raw:
    """A raw JSON-RPC client of `rofl mcp` over stdio: lines in, lines out, read on a thread."""

    def __init__(self, facts: Path, src: Path, version: str = "2025-06-18") -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rofl.cli", "mcp", "--facts", str(facts), "--src", str(src)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[dict] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        self.until(lambda m: m.get("id") == 1)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.strip():
                self.lines.put(json.loads(line))

    def send(self, message: dict) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def until(self, done: Any, seen: list[dict] | None = None) -> dict:
        while True:
            message = self.lines.get(timeout=120)
            if seen is not None:
                seen.append(message)
            if done(message):
                return message

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


@pytest.mark.slow
def test_impact_reports_progress_and_a_cancelled_scan_gets_no_response_and_the_session_goes_on(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    generated_tree(src, files=FILES // 3, salt="one")
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    generated_tree(src, files=FILES // 3, salt="two", bulk=60)  # every file changed, slow to extract
    raw = Raw(facts, src)
    seen: list[dict] = []
    try:
        # impact with --no-rescan: its question reports progress before its answer
        call = {
            "name": "impact",
            "arguments": {"changed": [module(3)], "no_rescan": True},
            "_meta": {"progressToken": 7},
        }
        raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        raw.until(lambda m: m.get("id") == 2, seen)
        impact_progress = [m for m in seen if m.get("method") == "notifications/progress"]
        call = {"name": "scan", "arguments": {"jobs": 1}, "_meta": {"progressToken": "p1"}}
        raw.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
        raw.until(lambda m: m.get("method") == "notifications/progress" and m["params"].get("total"), seen)
        raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "agent"}})
        raw.send({"jsonrpc": "2.0", "id": 4, "method": "ping"})
        raw.until(lambda m: m.get("id") == 4, seen)
        # the scan stops: a new one is soon no longer refused as "a scan of this folder is running" (the
        # cancel is a notification, so the old scan may still be winding down for a moment), and it ends
        for attempt in range(40):
            request = 5 + attempt
            raw.send(
                {"jsonrpc": "2.0", "id": request, "method": "tools/call", "params": {"name": "scan", "arguments": {}}}
            )
            again = raw.until(lambda m, r=request: m.get("id") == r, seen)
            if "is running" not in json.dumps(again):
                break
            time.sleep(0.25)
    finally:
        raw.close()
    assert impact_progress and all(m["params"]["progressToken"] == 7 for m in impact_progress)
    assert impact_progress[0]["params"]["message"].startswith("impact")
    assert not any(m.get("id") == 3 for m in seen)  # no response for the cancelled request
    assert not again["result"].get("isError"), again
    assert again["result"]["structuredContent"]["output"]["parsed"] == FILES // 3


@pytest.mark.slow
def test_a_client_of_a_protocol_without_structured_content_gets_the_page_as_json_text(tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    generated_tree(src, files=30)
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    old, new = Raw(facts, src, "2025-03-26"), Raw(facts, src, "2025-06-18")
    try:
        answers = []
        for raw in (old, new):
            call = {"name": "ask", "arguments": {"query": "dependency[code](A, B)", "limit": 5}}
            raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
            answers.append(raw.until(lambda m: m.get("id") == 2)["result"])
    finally:
        old.close()
        new.close()
    before, after = answers
    assert "structuredContent" not in before
    assert json.loads(before["content"][0]["text"]) == after["structuredContent"]
    assert len(after["structuredContent"]["output"]["answers"]) == 5


items = st.one_of(st.integers(), st.text(max_size=2000))  # long ones make a page pass its bytes
lists = st.dictionaries(
    st.sampled_from(["affected", "files", "answers", "other"]), st.lists(items, max_size=40), max_size=4
)


@settings(max_examples=60, deadline=None)
@given(output=lists, nested=st.lists(st.integers(), max_size=30), limit=st.integers(1, 12))
def test_following_the_cursors_gives_back_every_list_whole_in_pages_of_bounded_size(output, nested, limit):
    answer = dict(output) | {"audits": {"violation": nested, "note": "x"}, "partial": False}
    arguments = {"limit": limit}
    got: dict[str, list] = {k: [] for k in output} | {"audits.violation": []}
    pages = 0
    while True:
        paging = mcp_pages.paging("ask", dict(arguments))
        cut = mcp_pages.page("ask", answer, paging)
        pages += 1
        assert cut.limit <= limit
        assert cut.limit == 1 or len(json.dumps(cut.output, ensure_ascii=False)) <= mcp_pages.BYTES_PER_ITEM * limit
        for key in output:
            assert len(cut.output[key]) <= cut.limit and cut.totals[key] == len(output[key])
            got[key] += cut.output[key]
        got["audits.violation"] += cut.output["audits"]["violation"]
        if cut.next_cursor is None:
            break
        arguments = {"limit": limit, "cursor": cut.next_cursor}
    assert got == dict(output) | {"audits.violation": nested}
    longest = max([len(v) for v in output.values()] + [len(nested), 1])
    assert pages >= -(-longest // limit)


trees = st.recursive(
    st.fixed_dictionaries({"kind": st.just("base"), "fact": st.text(max_size=5)}),
    lambda kids: st.fixed_dictionaries(
        {"kind": st.just("derived"), "fact": st.text(max_size=5), "children": st.lists(kids, max_size=4)}
    ),
    max_leaves=60,
)


@settings(max_examples=80, deadline=None)
@given(tree=trees, limit=st.integers(1, 10))
def test_a_proof_tree_keeps_limit_times_two_nodes_and_counts_the_rest(tree, limit):
    def count(node: dict) -> int:
        return 1 + sum(count(c) for c in node.get("children", []))

    def elided(node: dict) -> int:
        return node.get("elided", 0) + sum(elided(c) for c in node.get("children", []))

    cut = mcp_pages.page("why", tree, mcp_pages.paging("why", {"limit": limit}))
    kept = count(cut.output)
    if "children" in tree:
        assert cut.totals == {"nodes": count(tree)}
    assert kept <= max(1, cut.limit * mcp_pages.TREE_NODES_PER_ITEM)
    assert kept + elided(cut.output) == count(tree)  # every node is shown or counted, once
