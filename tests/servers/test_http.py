"""`rofl server` driven by a real HTTP client: answers equal the command line's, events resume exactly,
a cancelled scan leaves the previous scan intact, concurrent questions, and refused requests."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import FILES, generated_tree, module, rofl, start, stop


def stream(client: httpx.Client, ident: str, last_id: int | None = None) -> Iterator[dict]:
    """The execution's events as they arrive (from ``last_id``): ``{"id", "data"}`` each."""
    headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
    with client.stream("GET", f"/executions/{ident}/events", headers=headers, timeout=60) as response:
        assert response.status_code == 200
        event: dict = {}
        for line in response.iter_lines():
            if line.startswith("id:"):
                event["id"] = int(line[3:].strip())
            elif line.startswith("data:"):
                event["data"] = json.loads(line[5:].strip())
            elif not line and "id" in event:
                yield event
                event = {}


def events_of(client: httpx.Client, ident: str, last_id: int | None = None, limit: int | None = None) -> list[dict]:
    """Read the execution's event stream (from ``last_id``), at most ``limit`` events, then disconnect."""
    out: list[dict] = []
    for event in stream(client, ident, last_id):
        out.append(event)
        if limit is not None and len(out) >= limit:
            break
    return out


def wait_ended(client: httpx.Client, ident: str) -> dict:
    for _ in range(600):
        view = client.get(f"/executions/{ident}").json()
        if view["state"] != "running":
            return view
        time.sleep(0.05)
    raise AssertionError(f"execution {ident} never ended")


@pytest.mark.parametrize(
    "command, args, argv",
    [
        ("impact", {"changed": [module(7)]}, ["impact", "--changed", module(7), "--json"]),
        ("impact", {"changed": [module(5), module(40)], "runtime": True}, None),
        ("ask", {"query": "dependency[code](A, B)"}, ["ask", "dependency[code](A, B)", "--json"]),
        ("why", {"fact": f'dependency[code]("{module(9)}", "{module(4)}")'}, None),
        ("whynot", {"fact": f'dependency[code]("{module(4)}", "{module(9)}")'}, None),
        ("relations", {}, ["relations", "--json"]),
    ],
)
def test_a_quick_question_answers_what_the_command_line_answers(server, command, args, argv):
    if argv is None:
        argv = [command]
        for key, value in args.items():
            if key in ("fact", "query"):
                argv.append(value)
            elif value is True:
                argv.append("--" + key)
            else:
                for v in value:
                    argv += ["--" + key, v]
        argv.append("--json")
    cli = rofl(*argv, "--facts", str(server.facts))
    with httpx.Client(base_url=server.url) as client:
        answer = client.post(f"/commands/{command}", json=args, timeout=60)
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["exit_code"] == cli.returncode
    assert result["output"] == json.loads(cli.stdout)


def test_fifty_concurrent_impact_questions_all_answer_correctly(server):
    picks = [module(i) for i in (3, 11, 27)]
    expected = {}
    for path in picks:
        done = rofl("impact", "--facts", str(server.facts), "--changed", path, "--json", "--no-rescan")
        expected[path] = json.loads(done.stdout)["affected"]
    assert len({json.dumps(v) for v in expected.values()}) == len(picks)  # the answers differ by file

    async def ask_all() -> list[tuple[str, httpx.Response]]:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
            paths = [picks[i % len(picks)] for i in range(50)]
            calls = [client.post("/commands/impact", json={"changed": [p], "no_rescan": True}) for p in paths]
            return list(zip(paths, await asyncio.gather(*calls)))

    for path, response in asyncio.run(ask_all()):
        assert response.status_code == 200, response.text
        assert response.json()["result"]["output"]["affected"] == expected[path]


def test_an_execution_has_an_id_a_state_and_its_result(server):
    with httpx.Client(base_url=server.url) as client:
        started = client.post("/executions", json={"command": "impact", "args": {"changed": [module(2)]}})
        assert started.status_code == 202
        assert set(started.json()) == {"id", "state"}
        view = wait_ended(client, started.json()["id"])
        assert view["state"] == "succeeded" and view["result"]["exit_code"] == 0
        assert module(4) in view["result"]["output"]["files"]  # m4 imports m2
        stream = events_of(client, view["id"])
        assert [e["data"]["type"] for e in stream][0] == "started"
        assert stream[-1]["data"]["type"] == "finished"


def call(command: str, **args: object) -> bytes:
    """The body of ``POST /executions`` for ``command`` with ``args``."""
    return json.dumps({"command": command, "args": args}).encode()


@pytest.mark.parametrize(
    "method, path, body, status, words",
    [
        ("POST", "/executions", b"{not json", 400, "not valid JSON"),
        ("POST", "/executions", b"[1, 2]", 400, "JSON object"),
        ("POST", "/executions", b"[" * 30_000 + b"]" * 30_000, 400, "JSON"),
        ("POST", "/commands/ask", b'{"query": "p(' + b"f(" * 30_000 + b'"}', 400, "query"),
        ("POST", "/executions", call("rm"), 400, "unknown command 'rm'"),
        ("POST", "/executions", b'{"command": "repl"}', 400, "unknown command 'repl'"),
        ("POST", "/executions", call("report"), 400, "unknown command 'report'"),
        ("POST", "/executions", call("impact", changed="a.ts"), 400, "must be a list"),
        ("POST", "/executions", call("impact", bogus=1), 400, "unknown argument 'bogus'"),
        ("POST", "/executions", call("scan", watch=True), 400, "never ends"),
        ("POST", "/executions", call("scan", jobs=100_000), 400, "cores"),
        ("POST", "/executions", call("audit", write_baseline="manifest.json"), 400, "writes no file"),
        ("POST", "/executions", call("export", relation="x", output="/tmp/x"), 400, "writes no file"),
        ("POST", "/executions", call("ask", query="p(X)", allow=["does"]), 400, "policy"),
        ("POST", "/executions", call("ask", query="p(X)", rules=["/etc/passwd"]), 400, "outside"),
        ("POST", "/executions", call("ask", query="p(X)", files=["../../../etc/passwd"]), 400, "outside"),
        ("POST", "/executions", call("audit", public_key="/etc/ssh/ssh_host_rsa_key.pub"), 400, "outside"),
        ("POST", "/executions", call("impact", changed=["../../etc/passwd"]), 400, "leaves"),
        ("POST", "/executions", call("impact", facts="/tmp"), 400, "outside"),
        ("POST", "/executions", b"{" + b" " * 70_000 + b"}", 413, "over"),
        ("POST", "/commands/scan", b"{}", 400, "not a quick question"),
        ("POST", "/commands/ask", b'{"query": "p((("}', 400, "<query>"),
        ("GET", "/executions/nope", None, 404, "no execution"),
        ("DELETE", "/executions/nope", None, 404, "no execution"),
    ],
)
def test_a_bad_request_gets_a_one_line_4xx_and_the_server_keeps_answering(server, method, path, body, status, words):
    with httpx.Client(base_url=server.url) as client:
        response = client.request(method, path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == status, response.text
        message = response.json()["error"]
        assert words in message and "\n" not in message
        assert client.get("/health").json()["ok"] is True


def test_a_chunked_body_over_the_limit_is_refused(server):
    def chunks():
        for _ in range(100):
            yield b" " * 1024

    with httpx.Client(base_url=server.url) as client:
        response = client.post("/executions", content=chunks(), headers={"Content-Type": "application/json"})
        assert response.status_code == 413
        assert client.get("/health").status_code == 200


@pytest.fixture(scope="module")
def token_server(scanned):
    src, facts = scanned
    running = start("server", facts, src, env={**os.environ, "ROFL_SERVER_TOKEN": "s3cret-token"})
    yield running
    stop(running)


def test_with_a_token_configured_a_request_without_it_gets_401(token_server):
    with httpx.Client(base_url=token_server.url) as client:
        assert client.get("/health").status_code == 401
        assert client.get("/health", headers={"Authorization": "Bearer wrong"}).status_code == 401
        good = client.get("/health", headers={"Authorization": "Bearer s3cret-token"})
        assert good.status_code == 200 and good.json()["ok"] is True


def test_a_non_local_bind_without_a_token_is_refused_before_listening(scanned):
    src, facts = scanned
    done = rofl("server", "--facts", str(facts), "--host", "0.0.0.0", "--port", "0", env={"ROFL_SERVER_TOKEN": ""})
    assert done.returncode == 2
    assert "ROFL_SERVER_TOKEN" in done.stderr and len(done.stderr.strip().splitlines()) == 1


# -- scans: a private tree, so that the answers above stay the same ------------------------------------


@pytest.fixture(scope="module")
def scanning(tmp_path_factory):
    root = tmp_path_factory.mktemp("scanning")
    src, facts = root / "src", root / "facts"
    generated_tree(src, salt="first")
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    running = start("server", facts, src, env={k: v for k, v in os.environ.items() if k != "ROFL_SERVER_TOKEN"})
    yield running
    stop(running)


def test_an_event_stream_resumed_from_last_event_id_gives_every_event_exactly_once(scanning):
    generated_tree(scanning.src, salt="second")  # every file changed: the scan parses each one
    with httpx.Client(base_url=scanning.url, timeout=60) as client:
        ident = client.post("/executions", json={"command": "scan", "args": {"jobs": 1}}).json()["id"]
        first = events_of(client, ident, limit=3)  # the client goes away after three events
        rest = events_of(client, ident, last_id=first[-1]["id"])
        whole = events_of(client, ident)
    seqs = [e["id"] for e in first + rest]
    assert seqs == list(range(1, len(seqs) + 1))
    assert [e["data"] for e in first + rest] == [e["data"] for e in whole]
    types = [e["data"]["type"] for e in whole]
    assert types[0] == "started" and types[-1] == "finished"
    assert types.count("progress") >= FILES // 10
    done = [e["data"]["data"] for e in whole if e["data"]["type"] == "progress"]
    assert done[-1]["done"] == done[-1]["total"] == FILES


def test_a_cancelled_scan_stops_and_leaves_the_previous_scan_valid(scanning):
    before = (scanning.facts / "manifest.json").read_bytes()
    answer_before = rofl("impact", "--facts", str(scanning.facts), "--changed", module(3), "--json", "--no-rescan")
    generated_tree(scanning.src, salt="third", bulk=60)  # every file changed, and slower to extract
    with httpx.Client(base_url=scanning.url, timeout=60) as client:
        ident = client.post("/executions", json={"command": "scan", "args": {"jobs": 1}}).json()["id"]
        for event in stream(client, ident):
            if event["data"]["type"] == "progress":
                second = client.post("/executions", json={"command": "scan", "args": {}})
                assert second.status_code == 409 and ident in second.json()["error"]  # one scan at a time
                assert client.delete(f"/executions/{ident}").status_code == 202
                break
        view = wait_ended(client, ident)
        assert view["state"] == "cancelled", view
        heard = [e["data"] for e in events_of(client, ident)]
    progress = [e["data"]["done"] for e in heard if e["type"] == "progress"]
    assert progress[-1] < FILES  # it stopped before the end
    assert (scanning.facts / "manifest.json").read_bytes() == before
    audit = rofl("audit", "--facts", str(scanning.facts), "--json")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    answer_after = rofl("impact", "--facts", str(scanning.facts), "--changed", module(3), "--json", "--no-rescan")
    assert json.loads(answer_after.stdout)["affected"] == json.loads(answer_before.stdout)["affected"]


def test_a_source_changed_while_the_server_runs_is_in_the_next_answer(server):
    with httpx.Client(base_url=server.url, timeout=60) as client:
        first = client.post("/commands/impact", json={"changed": [module(1)]}).json()["result"]["output"]
        (server.src / "pkg0" / "extra.ts").write_text('import { v1 } from "./m1";\nexport const e = v1;\n')
        time.sleep(0.5)  # the server's watcher hears of a write within tens of milliseconds
        second = client.post("/commands/impact", json={"changed": [module(1)]}).json()["result"]["output"]
    assert "pkg0/extra.ts" not in first["files"] and "pkg0/extra.ts" in second["files"]
    assert second["rescanned"]
    cli = json.loads(rofl("impact", "--facts", str(server.facts), "--changed", module(1), "--json").stdout)
    assert cli["affected"] == second["affected"]


def test_an_audit_with_re_extraction_reports_its_progress_as_events(server):
    with httpx.Client(base_url=server.url, timeout=60) as client:
        body = {"command": "audit", "args": {"reextract": True, "src": str(server.src)}}
        ident = client.post("/executions", json=body).json()["id"]
        heard = [e["data"] for e in events_of(client, ident)]
    progress = [e["data"] for e in heard if e["type"] == "progress"]
    assert progress and {p["label"] for p in progress} == {"re-extracting"}
    assert progress[-1]["done"] == progress[-1]["total"] >= FILES  # every source (another test may add one)
    assert heard[-1]["type"] == "finished" and heard[-1]["data"]["result"]["output"]["clean"] is True


THREE = Path(__file__).resolve().parents[2] / "bench" / ".cache" / "corpora" / "three" / "src"


@pytest.mark.slow
@pytest.mark.skipif(not THREE.is_dir(), reason="three/src is not under bench/.cache/corpora (make bench fetches it)")
def test_cancelling_a_scan_of_three_stops_it_and_leaves_the_previous_scan_valid(tmp_path):
    src, facts = tmp_path / "three", tmp_path / "facts"
    shutil.copytree(THREE, src)
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    before = (facts / "manifest.json").read_bytes()
    answer_before = rofl("impact", "--facts", str(facts), "--changed", "math/Vector3.js", "--json", "--no-rescan")
    for path in src.rglob("*.js"):  # every file changed: the scan would parse all 757 again
        path.write_text(path.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    running = start("server", facts, src, env={k: v for k, v in os.environ.items() if k != "ROFL_SERVER_TOKEN"})
    try:
        with httpx.Client(base_url=running.url, timeout=120) as client:
            ident = client.post("/executions", json={"command": "scan", "args": {}}).json()["id"]
            for event in stream(client, ident):
                if event["data"]["type"] == "progress":
                    assert client.delete(f"/executions/{ident}").status_code == 202
                    break
            view = wait_ended(client, ident)
            assert client.get("/health").status_code == 200
    finally:
        stop(running)
    assert view["state"] == "cancelled", view
    assert (facts / "manifest.json").read_bytes() == before
    assert rofl("audit", "--facts", str(facts)).returncode == 0
    answer_after = rofl("impact", "--facts", str(facts), "--changed", "math/Vector3.js", "--json", "--no-rescan")
    assert json.loads(answer_after.stdout)["affected"] == json.loads(answer_before.stdout)["affected"]


def test_a_deeply_nested_answer_comes_back_whole(server):
    import sys

    depth = 3_000
    program = server.src / "deep.rofl"
    program.write_text("d(" + "f(" * depth + "x" + ")" * depth + ").\n")
    with httpx.Client(base_url=server.url, timeout=60) as client:
        response = client.post("/commands/ask", json={"query": "d(X)", "files": [str(program)]})
    cli = rofl("ask", "d(X)", str(program), "--facts", str(server.facts), "--json")
    assert response.status_code == 200
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * depth))  # this test's own JSON reader recurses per level
    try:
        assert response.json()["result"]["output"] == json.loads(cli.stdout)
    finally:
        sys.setrecursionlimit(limit)
