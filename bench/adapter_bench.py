"""Adapters: wants per second through exec (one batch of 1,000), sql (10,000 wants) and openapi (500 GETs,
each paged twice, against a loopback Starlette service), and rounds per second for the seed's recursive
tree, and mcp (300 tool calls over stdio), each beside the same work done by a plain Python script
(sqlite3, httpx, the mcp SDK) in this run."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
BOOT = ROOT / "rules" / "boot.rofl"
ADAPTER = """
import json, sys
batch = json.load(sys.stdin)
out = []
for w in batch["wants"]:
    out.append(f'echo_answer({w["key"]}, {json.dumps(w["args"]["x"][::-1])}).')
print("\\n".join(out))
"""


def session(text: str, classes: frozenset[str] = frozenset({"reads"})):
    from rofl.adapters.policy import Policy
    from rofl.adapters.rounds import Session
    from rofl.engine.kernel import Kernel

    kernel = Kernel(BOOT, budget=10_000_000)
    kernel.load_text(text, "bench.rofl")
    return Session(kernel, Policy(classes, programs=True), max_rounds=10_000, use_cache=False)


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def wants_world(
    module: str, kind: str, target: str, capability: str, lines: str, keys: list[str], cls: str = "reads"
) -> str:
    """A world wanting ``capability`` once for each of ``keys`` through adapter ``module`` of ``kind`` at ``target``;
    ``lines`` declare the rest of the capability (its ``arg``, ``answers`` and the adapter's own facts)."""
    items = "".join(f"item({json.dumps(key)}).\n" for key in keys)
    return f"""
imports(main, {module}).
adapter({module}, {kind}, {json.dumps(target)}).
capability({capability}, {module}, {cls}).
{lines.strip()}
max_wants({capability}, {len(keys)}).
{items}
want {capability}(X) :- item(X).
"""


def rounds_seconds(text: str, n: int) -> float:
    """Seconds the rounds of world ``text`` take, each of its ``n`` wants answered (loading it is not timed)."""
    world = session(text)
    ours, report = timed(world.run)
    assert len(report.answered) == n, report.failed[:1]  # type: ignore[attr-defined]
    return ours


def bench_exec(tmp: Path, n: int = 1000) -> tuple[str, int, float, float]:
    script = tmp / "echo.py"
    script.write_text(ADAPTER)
    keys = [f"w{i:05}" for i in range(n)]
    lines = "arg(reverse, 1, x, text).\nanswers(reverse, echo_answer, 2)."
    ours = rounds_seconds(wants_world("echo", "exec", f"{sys.executable} {script}", "reverse", lines, keys), n)

    def plain() -> dict:
        batch = {"capability": "reverse", "wants": [{"key": f'"w{i}"', "args": {"x": f"w{i:05}"}} for i in range(n)]}
        out = subprocess.run([sys.executable, str(script)], input=json.dumps(batch), capture_output=True, text=True)
        pattern = re.compile(r'echo_answer\("([^"]*)", "([^"]*)"\)\.')
        return {m.group(1): m.group(2) for m in pattern.finditer(out.stdout)}

    peer, found = timed(plain)
    assert len(found) == n  # type: ignore[arg-type]
    return (f"exec: one batch of {n:,} wants", n, ours, peer)


def bench_sql(tmp: Path, n: int = 10_000) -> tuple[str, int, float, float]:
    db = tmp / "people.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE people (name TEXT PRIMARY KEY, team TEXT)")
        conn.executemany("INSERT INTO people VALUES (?, ?)", [(f"p{i}", f"team{i % 50}") for i in range(n)])
    lines = """
arg(team_of, 1, name, text).
answers(team_of, team, 2).
query(team_of, "SELECT team FROM people WHERE name = ?1").
"""
    ours = rounds_seconds(wants_world("hr", "sql", str(db), "team_of", lines, [f"p{i}" for i in range(n)]), n)

    def plain() -> dict:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        out = {
            f"p{i}": conn.execute("SELECT team FROM people WHERE name = ?1", (f"p{i}",)).fetchall() for i in range(n)
        }
        conn.close()
        return out

    peer, found = timed(plain)
    assert len(found) == n  # type: ignore[arg-type]
    return (f"sql: {n:,} wants", n, ours, peer)


def bench_tree(tmp: Path, fanout: int = 3, depth: int = 7) -> tuple[str, int, float, float]:
    db = tmp / "tree.db"
    rows, level = [], ["t"]
    for _ in range(depth):
        nxt = []
        for parent in level:
            for k in range(fanout):
                nxt.append(f"{parent}.{k}")
                rows.append((nxt[-1], parent))
        level = nxt
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE tenants (id TEXT, parent TEXT)")
        conn.execute("CREATE INDEX by_parent ON tenants (parent)")
        conn.executemany("INSERT INTO tenants VALUES (?, ?)", rows)
    text = f"""
imports(main, shop).
adapter(shop, sql, {json.dumps(str(db))}).
capability(children_of, shop, reads).
arg(children_of, 1, tenant, text).
answers(children_of, child, 2).
query(children_of, "SELECT id FROM tenants WHERE parent = ?1").
max_wants(children_of, 100000).
reaches("t").
reaches(T) :- want_arg(W, 1, _), child[shop](W, T).
want children_of(T) :- reaches(T).
"""
    world = session(text)  # loading the world is not the adapters' work
    ours, report = timed(world.run)
    rounds = report.rounds  # type: ignore[attr-defined]
    assert rounds == depth + 1 and len(report.answered) == len(rows) + 1  # type: ignore[attr-defined]

    def plain() -> int:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        seen, frontier, n = {"t"}, ["t"], 0
        while frontier:
            n += 1
            nxt = []
            for node in frontier:
                for (child,) in conn.execute("SELECT id FROM tenants WHERE parent = ?1", (node,)):
                    if child not in seen:
                        seen.add(child)
                        nxt.append(child)
            frontier = nxt
        conn.close()
        return n

    peer, plain_rounds = timed(plain)
    assert plain_rounds == rounds
    return (f"recursive tree ({len(rows) + 1:,} tenants, fan-out {fanout})", rounds, ours, peer)


def _service(pages: int):
    """A loopback JSON service: ``GET /items/{id}`` answers two rows a page, ``pages`` pages through ``next``."""
    import socket
    import threading

    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def item(request: Request) -> JSONResponse:
        if request.headers.get("authorization") != "Bearer bench-token-0123":
            return JSONResponse({"detail": "no"}, status_code=401)
        key = request.path_params["id"]
        page = int(request.query_params.get("page", "1"))
        rows = [{"id": key, "part": f"{key}.{page}.{k}"} for k in range(2)]
        more = f"/items/{key}?page={page + 1}" if page < pages else None
        return JSONResponse({"items": rows, "next": more})

    app = Starlette(routes=[Route("/items/{id}", item)])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no ~40 ms Nagle wait per response
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return server, thread, f"http://127.0.0.1:{sock.getsockname()[1]}"


def bench_openapi(_tmp: Path, n: int = 500, pages: int = 2) -> tuple[str, int, float, float]:
    import os

    import httpx

    server, thread, url = _service(pages)
    os.environ["BENCH_TOKEN"] = "bench-token-0123"
    try:
        lines = """
http_auth(api, token, bearer, "", "BENCH_TOKEN").
arg(item_parts, 1, id, text).
http_op(item_parts, "GET", "/items/{id}").
http_in(item_parts, 1, "id", path).
answers(item_parts, part, 3).
http_field(item_parts, 2, "/id").
http_field(item_parts, 3, "/part").
http_rows(item_parts, "/items").
http_page(item_parts, next_link, "", "/next").
http_needs(item_parts, token).
"""
        ours = rounds_seconds(
            wants_world("api", "openapi", url, "item_parts", lines, [f"i{i:04}" for i in range(n)]), n
        )

        def plain() -> dict:
            found: dict = {}
            headers = {"authorization": "Bearer bench-token-0123", "accept": "application/json"}
            with httpx.Client(follow_redirects=False, trust_env=False, headers=headers) as client:
                for i in range(n):
                    key, link = f"i{i:04}", f"{url}/items/i{i:04}"
                    while link:
                        body = client.get(link).raise_for_status().json()
                        found.setdefault(key, []).extend((r["id"], r["part"]) for r in body["items"])
                        link = httpx.URL(link).join(body["next"]) if body["next"] else None
            return found

        peer, found = timed(plain)
        assert len(found) == n and all(len(v) == 2 * pages for v in found.values())  # type: ignore[union-attr]
    finally:
        server.should_exit = True
        thread.join(10)
    return (f"openapi: {n:,} wants, {pages} pages each (loopback)", n, ours, peer)


MCP_SERVER = """
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

app = MCPServer("echo")


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def reverse(x: str) -> str:
    return x[::-1]


app.run()
"""


def bench_mcp(tmp: Path, n: int = 300) -> tuple[str, int, float, float]:
    """One round of ``n`` wants to an MCP server over stdio (started and stopped in each), beside a plain
    script that starts the same server with the SDK and makes the same calls, as many at once (PARALLEL)."""
    import anyio
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters
    from rofl.adapters.mcp_client import PARALLEL

    script = tmp / "mcp_echo.py"
    script.write_text(MCP_SERVER)
    lines = """
arg(reverse, 1, x, text).
answers(reverse, echo_answer, 2).
mcp_tool(reverse, "reverse").
mcp_field(reverse, 2, "/result").
"""
    keys = [f"w{i:05}" for i in range(n)]
    ours = rounds_seconds(wants_world("echo", "mcp", f"{sys.executable} {script}", "reverse", lines, keys), n)

    async def calls() -> dict:
        found: dict = {}
        limiter = anyio.CapacityLimiter(PARALLEL)
        async with Client(StdioServerParameters(command=sys.executable, args=[str(script)]), cache=None) as client:

            async def one(x: str) -> None:
                async with limiter:
                    result = await client.call_tool("reverse", {"x": x})
                    found[x] = (result.structured_content or {})["result"]

            async with anyio.create_task_group() as tg:
                for i in range(n):
                    tg.start_soon(one, f"w{i:05}")
        return found

    peer, found = timed(lambda: anyio.run(calls))
    assert len(found) == n  # type: ignore[arg-type]
    return (f"mcp: one round of {n:,} tool calls (stdio, server start included)", n, ours, peer)


def bench_render(tmp: Path, n: int = 2_000) -> tuple[str, int, float, float]:
    """A world showing ``n`` text components on the workbench (one round), drawn as the page's HTML, beside
    plain Python escaping the same texts into the same kind of markup."""
    import html

    from rofl.servers.render_page import fragment

    lines = "component(say, text).\narg(say, 1, text, text).\nanswers(say, said, 1)."
    keys = [f"row {i} <&> of the page" for i in range(n)]
    text = wants_world("ui", "render", "workbench", "say", lines, keys, "shows")
    world = session(text, frozenset({"reads", "shows"}))  # loading the world is not the adapters' work

    def ours_run() -> str:
        report = world.run()
        assert len(report.answered) == n  # type: ignore[attr-defined]
        return fragment(world.kinds["render"].components, ())

    ours, page = timed(ours_run)
    assert page.count('data-kind="text"') == n  # type: ignore[union-attr]

    def plain() -> str:
        return "".join(f'<p class="text">{html.escape(f"row {i} <&> of the page")}</p>' for i in range(n))

    peer, _ = timed(plain)
    return (f"render: {n:,} text components drawn", n, ours, peer)


def main() -> list[dict]:
    print("| work | rofl | plain Python | rofl / plain | rofl per second |")
    print("|---|---:|---:|---:|---:|")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = (
            (bench_exec, "wants"),
            (bench_sql, "wants"),
            (bench_openapi, "wants"),
            (bench_mcp, "wants"),
            (bench_render, "wants"),
            (bench_tree, "rounds"),
        )
        for fn, unit in cases:
            name, count, ours, peer = fn(Path(tmp))
            print(
                f"| {name} | {ours:.3f} s | {peer:.3f} s | {ours / peer:.1f}x | {count / ours:,.0f} {unit}/s |",
                flush=True,
            )
            rows.append({"name": name, "ratio": ours / peer})
    return rows  # bench/records.py records the ratios


if __name__ == "__main__":
    main()
