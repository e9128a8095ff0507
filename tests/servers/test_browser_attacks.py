"""Browser-shaped attacks on the real servers over loopback: a foreign Host (DNS rebinding), a foreign
Origin and ``text/plain`` bodies (CSRF), lone surrogates, half-sent requests; after each the server
stays up and answers the next good request."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from .conftest import Running, start, stop

READ_TIMEOUT = 1.0  # the servers' --read-timeout here; the harness waits far longer, so nothing is timed
HARNESS_SECONDS = 30.0
LONE = b'{"command": "ask", "args": {"query": "\\ud800"}}'  # the JSON text spells U+D800, no character


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "ROFL_SERVER_TOKEN"}


def address(running: Running) -> tuple[str, int]:
    parts = urlsplit(running.url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def answers_a_good_request(running: Running) -> None:
    with httpx.Client(base_url=running.url, timeout=HARNESS_SECONDS) as client:
        health = client.get("/health")
        assert health.status_code == 200 and health.json()["ok"] is True
        asked = client.post("/commands/ask", json={"query": "X = 1"})
        assert asked.status_code == 200, asked.text
        assert asked.json()["result"]["output"]["answers"] == [{"X": 1}]


def one_line_error(response: httpx.Response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert words in message and "\n" not in message


def raw_exchange(running: Running, data: bytes) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it (or the harness bound)."""
    with socket.create_connection(address(running), timeout=HARNESS_SECONDS) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


@pytest.fixture(scope="module")
def quick(scanned) -> Iterator[Running]:
    """``rofl server`` with a short read timeout."""
    src, facts = scanned
    running = start("server", facts, src, env=clean_env(), extra=("--read-timeout", str(READ_TIMEOUT)))
    yield running
    stop(running)


# -- DNS rebinding: the Host must be the address served ------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["rebound.attacker.example:{port}", "rebound.attacker.example", "127.0.0.1:1", "localhost:1", "127.0.0.2:{port}"],
)
def test_a_foreign_host_is_refused_and_the_server_answers_on(server, host):
    port = address(server)[1]
    with httpx.Client(base_url=server.url, timeout=HARNESS_SECONDS) as client:
        one_line_error(client.get("/health", headers={"Host": host.format(port=port)}), 421, "not this server")
        start_scan = client.post(
            "/executions", json={"command": "scan", "args": {}}, headers={"Host": host.format(port=port)}
        )
        one_line_error(start_scan, 421, "not this server")
        view = client.get("/executions/x1-0", headers={"Host": host.format(port=port)})
        one_line_error(view, 421, "not this server")
    answers_a_good_request(server)


def test_no_host_header_is_refused(server):
    answer = raw_exchange(server, b"GET /health HTTP/1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 421 "), answer[:200]
    answers_a_good_request(server)


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST", "[::1]"])
def test_the_loopback_names_of_the_served_port_are_accepted(server, name):
    port = address(server)[1]
    with httpx.Client(base_url=server.url, timeout=HARNESS_SECONDS) as client:
        assert client.get("/health", headers={"Host": f"{name}:{port}"}).status_code == 200


# -- CSRF: a foreign Origin, and bodies a form or a no-cors fetch can send --------------------------------


@pytest.mark.parametrize(
    "origin", ["http://attacker.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}", "http://localhost"]
)
def test_a_foreign_origin_is_refused_and_the_server_answers_on(server, origin):
    headers = {"Origin": origin.format(port=address(server)[1])}
    with httpx.Client(base_url=server.url, timeout=HARNESS_SECONDS) as client:
        one_line_error(client.get("/health", headers=headers), 403, "origin")
        one_line_error(client.post("/commands/ask", json={"query": "X = 1"}, headers=headers), 403, "origin")
        one_line_error(client.get("/executions/x1-0/events", headers=headers), 403, "origin")
    answers_a_good_request(server)


def test_the_served_origin_may_call(server):
    port = address(server)[1]
    with httpx.Client(base_url=server.url, timeout=HARNESS_SECONDS) as client:
        for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
            asked = client.post("/commands/ask", json={"query": "X = 1"}, headers={"Origin": origin})
            assert asked.status_code == 200, asked.text


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        None,
    ],
)
@pytest.mark.parametrize("path", ["/executions", "/commands/ask"])
def test_a_post_body_that_is_not_json_is_refused_with_415(server, content_type, path):
    body = b'{"command": "ask", "args": {"query": "X = 1"}}' if path == "/executions" else b'{"query": "X = 1"}'
    headers = {"Content-Type": content_type} if content_type is not None else {}
    with httpx.Client(base_url=server.url, timeout=HARNESS_SECONDS) as client:
        one_line_error(client.post(path, content=body, headers=headers), 415, "application/json")
    answers_a_good_request(server)


def test_a_delete_with_a_text_body_is_refused_and_json_with_parameters_is_accepted(server):
    with httpx.Client(base_url=server.url, timeout=HARNESS_SECONDS) as client:
        refused = client.request("DELETE", "/executions/x1-0", content=b"{}", headers={"Content-Type": "text/plain"})
        one_line_error(refused, 415, "application/json")
        typed = {"Content-Type": "Application/JSON; charset=utf-8"}
        asked = client.post("/commands/ask", content=b'{"query": "X = 1"}', headers=typed)
        assert asked.status_code == 200, asked.text


# -- lone surrogates: refused on the way in, escaped on the way out ---------------------------------------


@pytest.mark.parametrize(
    "path, body, where",
    [
        ("/executions", LONE, "args.query"),
        ("/commands/ask", b'{"query": "\\udfff"}', "query"),
        ("/commands/impact", b'{"changed": ["a\\udce9.ts"]}', "changed[0]"),
        ("/executions", b'{"command": "ask", "args": {"\\ud800": 1}}', "key"),
    ],
)
def test_a_lone_surrogate_in_a_body_is_a_400_and_the_server_answers_on(server, path, body, where):
    with httpx.Client(base_url=server.url, timeout=HARNESS_SECONDS) as client:
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})
        one_line_error(response, 400, "lone surrogate")
        assert where in response.json()["error"]
    answers_a_good_request(server)


def test_an_answer_holding_a_lone_surrogate_never_poisons_its_execution(server):
    """A rofl string may spell U+D800 (``\\u{D800}``): the answer holds it, and its GET and its event stream
    stay valid UTF-8 JSON that gives it back."""
    call = {"command": "ask", "args": {"query": 'X = "\\u{D800}"'}}
    with httpx.Client(base_url=server.url, timeout=HARNESS_SECONDS) as client:
        started = client.post("/executions", json=call)
        assert started.status_code == 202, started.text
        ident = started.json()["id"]
        deadline = time.monotonic() + HARNESS_SECONDS
        while True:
            got = client.get(f"/executions/{ident}")
            assert got.status_code == 200, got.text
            view = json.loads(got.content.decode("utf-8"))  # strict: the bytes are UTF-8
            if view["state"] != "running" or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert view["state"] == "succeeded", view
        assert view["result"]["output"]["answers"] == [{"X": "\ud800"}]
        with client.stream("GET", f"/executions/{ident}/events") as events:
            assert events.status_code == 200
            data = [
                json.loads(line[5:]) for line in events.iter_lines() if line.startswith("data:")
            ]  # iter_lines decodes strictly as UTF-8
        assert data[-1]["type"] == "finished", data
        assert data[-1]["data"]["result"]["output"]["answers"] == [{"X": "\ud800"}]
        quick = client.post("/commands/ask", json=call["args"])
        assert quick.status_code == 200 and json.loads(quick.content.decode("utf-8"))["state"] == "succeeded"
        assert client.get(f"/executions/{ident}").status_code == 200
    answers_a_good_request(server)


# -- slow requests: headers and bodies must arrive within the read timeout ------------------------------


def test_half_sent_requests_are_closed_by_the_server_and_a_good_request_is_answered(quick):
    host, port = address(quick)
    begun = (
        b"",  # connected, nothing sent
        b"GET /health HTTP/1.1\r\n",
        f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: 1\r\n".encode(),
    )
    socks: list[socket.socket] = []
    try:
        for i in range(300):
            sock = socket.create_connection((host, port), timeout=HARNESS_SECONDS)
            socks.append(sock)
            if begun[i % 3]:
                sock.sendall(begun[i % 3])
        answers_a_good_request(quick)  # while they are all open
        deadline = time.monotonic() + HARNESS_SECONDS
        for sock in socks:
            sock.settimeout(max(deadline - time.monotonic(), 0.1))
            try:
                assert sock.recv(1024) == b""  # closed by the server, without an answer
            except ConnectionResetError:
                pass
            except TimeoutError:
                raise AssertionError(f"a half-sent request was still open after {HARNESS_SECONDS} s") from None
    finally:
        for sock in socks:
            sock.close()
    answers_a_good_request(quick)


def test_the_next_request_on_a_kept_alive_connection_must_arrive_in_time_too(quick):
    host, port = address(quick)
    with socket.create_connection((host, port), timeout=HARNESS_SECONDS) as sock:
        sock.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 "), first[:200]
        sock.sendall(b"GET /health HTTP/1.1\r\n")  # begun, never finished: no idle connection any more
        rest = b""
        try:
            while chunk := sock.recv(65536):
                rest += chunk
        except ConnectionResetError:
            pass
        except TimeoutError:
            raise AssertionError("the half-sent second request was never closed") from None
        assert b"HTTP/1.1 200" not in rest
    answers_a_good_request(quick)


def test_a_body_that_does_not_arrive_in_time_is_a_408_and_the_connection_closes(quick):
    port = address(quick)[1]
    head = (
        f"POST /commands/ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Content-Length: 200\r\n\r\n"
    )
    answer = raw_exchange(quick, head.encode() + b'{"query": ')
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert b"did not arrive" in answer
    answers_a_good_request(quick)


# -- the MCP server: the same boundary over HTTP; over stdio a bad request is answered ------------------


@pytest.mark.slow
def test_mcp_over_http_refuses_the_same_attacks_and_answers_on(scanned):
    src, facts = scanned
    running = start("mcp", facts, src, env=clean_env(), extra=("--read-timeout", str(READ_TIMEOUT)))
    try:
        port = address(running)[1]
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        with httpx.Client(base_url=running.url, timeout=HARNESS_SECONDS) as client:
            typed = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            foreign_host = client.post("/mcp", json=ping, headers={**typed, "Host": f"attacker.example:{port}"})
            one_line_error(foreign_host, 421, "not this server")
            foreign_origin = client.post("/mcp", json=ping, headers={**typed, "Origin": "http://attacker.example"})
            one_line_error(foreign_origin, 403, "origin")
            plain = client.post("/mcp", content=json.dumps(ping).encode(), headers={"Content-Type": "text/plain"})
            one_line_error(plain, 415, "application/json")
            lone = client.post("/mcp", content=b'{"jsonrpc": "2.0", "id": 2, "method": "\\ud800"}', headers=typed)
            assert 400 <= lone.status_code < 500, lone.text
        answer = raw_exchange(running, b"POST /mcp HTTP/1.1\r\n")  # half-sent headers: closed
        assert b"HTTP/1.1 200" not in answer
        with httpx.Client(base_url=running.url, timeout=HARNESS_SECONDS) as client:
            assert client.post("/mcp", json=ping, headers=typed).status_code not in (403, 415, 421, 500)
    finally:
        stop(running)


@pytest.mark.slow
def test_mcp_over_stdio_answers_a_lone_surrogate_with_a_json_rpc_error_and_goes_on(scanned):
    src, facts = scanned
    process = subprocess.Popen(
        [sys.executable, "-m", "rofl.cli", "mcp", "--facts", str(facts), "--src", str(src)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=clean_env(),
    )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()
    stdout = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in iter(stdout.readline, b"")], daemon=True).start()

    def send(raw: bytes) -> None:
        assert process.stdin is not None
        process.stdin.write(raw + b"\n")
        process.stdin.flush()

    def answer_to(ident: int) -> dict:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                message = json.loads(lines.get(timeout=max(deadline - time.monotonic(), 0.1)))
            except queue.Empty:
                break
            if message.get("id") == ident:
                return message
        raise AssertionError(f"request {ident} was never answered")

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).encode())
        assert "result" in answer_to(1)
        send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        call = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask", "arguments": %s}}'
        send(call % b'{"query": "\\ud800"}')
        refused = answer_to(2)
        assert refused["error"]["code"] == -32602 and "lone surrogate" in refused["error"]["message"], refused
        assert "arguments.query" in refused["error"]["message"]
        send(call.replace(b'"id": 2', b'"id": 3') % b'{"query": "X = \\"\\\\u{D800}\\""}')
        spelled = answer_to(3)["result"]  # an answer holding U+D800 is still answered
        assert not spelled.get("isError"), spelled
        assert spelled["structuredContent"]["output"]["answers"] == [{"X": "\\u{D800}"}]
        assert "1 answer(s)" in spelled["content"][0]["text"]
        send(call.replace(b'"id": 2', b'"id": 4') % b'{"query": "X = 1"}')
        good = answer_to(4)["result"]
        assert good["structuredContent"]["output"]["answers"] == [{"X": 1}]
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
