"""`rofl server`'s workbench: GET /render draws a world's components as one offline page, POST /render is a
button's press through the same boundary guard as every POST, and the press's does want runs only when the
server was started with --allow does."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rofl.adapters.render_kind import Shown
from rofl.servers.render_page import component_html

from tests.adapters.render_worlds import BUTTON, FIELD, guest_db, guest_world, guests

BASE = "http://127.0.0.1:80"
HOSTILE = '<script>alert("x")</script> & "quotes"'


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple]:
    """``(client without --allow does, client with it, world path, db)`` over a scanned one-file tree."""
    from rofl.servers.http import build_app
    from rofl.servers.setup import start
    from starlette.testclient import TestClient

    from tests.servers.conftest import rofl

    root = tmp_path_factory.mktemp("render-page")
    src, facts = root / "src", root / "facts"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    db = guest_db(src / "guests.db")
    world = src / "guests.rofl"
    world.write_text(guest_world(db, card=HOSTILE))
    (src / "strict.rofl").write_text(guest_world(db, optional=False))
    executions, _ = start(str(facts), str(src), "127.0.0.1")
    try:
        with (
            TestClient(build_app(executions), base_url=BASE) as plain,
            TestClient(build_app(executions, allow=("does",)), base_url=BASE) as allowing,
        ):
            yield plain, allowing, world, db
    finally:
        executions.shutdown()


@pytest.fixture(autouse=True)
def no_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)


def press(client, world: Path, name: str = "Bob", **headers: str):
    body = {"files": [str(world)], "press": BUTTON, "fields": {FIELD: name}}
    return client.post("/render", json=body, headers=headers)


def test_the_page_draws_the_components_offline_and_escaped(served):
    plain, _, world, _ = served
    page = plain.get("/render", params={"files": str(world)})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    kinds = re.findall(r'class="component (\w+)" data-kind="\1"', page.text)
    assert kinds == ["heading", "card", "field", "button"]
    assert f'data-want="{FIELD.replace(chr(34), "&quot;")}"' in page.text
    assert "<script>alert" not in page.text and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page.text
    nonce = re.search(r"script-src 'nonce-([\w-]+)'", page.headers["content-security-policy"]).group(1)
    assert page.text.count(f'nonce="{nonce}"') == 2  # the one style and the one script
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page.text)  # no external asset
    assert "this server grants reads, shows" in page.text


def test_a_press_without_allow_does_is_held_and_nothing_runs(served):
    plain, _, world, db = served
    got = press(plain, world)
    assert got.status_code == 200, got.text
    body = got.json()
    [want] = body["wants"]
    assert want["want"] == 'greet("Bob")' and want["status"] == "want_held"
    assert want["why"].startswith("ADP_CAPABILITY_DENIED: greet is a does capability")
    assert 'data-status="want_held"' in body["html"] and body["pressed"] == BUTTON
    assert "Bob" not in guests(db)


def test_a_press_with_allow_does_is_answered_and_shown(served):
    _, allowing, world, db = served
    body = press(allowing, world, "Carol").json()
    assert [(w["want"], w["status"]) for w in body["wants"]] == [('greet("Carol")', "answered")]
    assert guests(db)[-1] == "Carol"
    assert body["components"][-1]["kind"] == "text" and body["components"][-1]["text"] == "hello Carol"
    assert allowing.get("/render", params={"files": str(world)}).text.count("hello Carol") == 0  # nothing kept


@pytest.mark.parametrize(
    ("headers", "status", "words"),
    [
        ({"Origin": "http://attacker.example"}, 403, "origin"),
        ({"Host": "rebound.attacker.example"}, 421, "not this server's address"),
    ],
)
def test_a_press_from_another_page_is_refused_before_anything_runs(served, headers, status, words):
    _, allowing, world, db = served
    got = press(allowing, world, "Mallory", **headers)
    assert got.status_code == status and words in got.json()["error"]
    assert "Mallory" not in guests(db)


def test_a_press_that_is_not_json_is_refused(served):
    _, allowing, world, db = served
    body = f'{{"files": ["{world}"], "press": {BUTTON!r}}}'
    got = allowing.post("/render", content=body, headers={"Content-Type": "text/plain"})
    assert got.status_code == 415 and "application/json" in got.json()["error"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"press": BUTTON}, "'files' must name"),
        ({"files": ["/etc/passwd"]}, "lies outside the configured folders"),
        ({"files": "{world}", "press": 'title("Guest book")'}, "names no button this world shows; give one of: sign"),
        ({"files": "{world}", "fields": {"nope(1)": "x"}}, "no field this world shows"),
        ({"files": "{world}", "fields": {FIELD: 3}}, "'fields' must map"),
        ({"files": "{world}", "fields": {FIELD: "x" * 10_001}}, "over 10000 characters"),
        ({"files": "{world}", "click": 1}, "unknown field 'click'"),
    ],
)
def test_a_wrong_press_is_one_line_400(served, body, words):
    _, allowing, world, db = served
    body = {k: (str(world) if v == "{world}" else v) for k, v in body.items()}
    got = allowing.post("/render", json=body)
    assert got.status_code == 400 and words in got.json()["error"], got.text


def test_a_world_that_requires_what_the_server_does_not_grant_is_a_403_page(served):
    plain, _, world, _ = served
    page = plain.get("/render", params={"files": str(world.parent / "strict.rofl")})
    assert page.status_code == 403
    assert "ADP_CAPABILITY_DENIED: the world needs greet (does)" in page.text.replace("&quot;", '"')
    missing = plain.get("/render", params={"files": str(world.parent / "none.rofl")})
    assert missing.status_code == 400 and 'id="error"' in missing.text


class _Texts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.tags: list[str] = []
        self.attrs: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        self.attrs.append(dict(attrs))

    def handle_data(self, data: str) -> None:
        self.texts.append(data)


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=30)


@given(st.sampled_from(["heading", "text", "card", "button", "field"]), TEXT, TEXT)
def test_any_text_comes_back_whole_from_an_html_parser_and_makes_no_tag(kind, text, want):
    html = component_html(Shown(want, "c", kind, text, (("n", text),), text if kind == "field" else None, False))
    parsed = _Texts()
    parsed.feed(html)
    parsed.close()
    assert set(parsed.tags) <= {"div", "h1", "h2", "p", "button", "label", "input", "dl", "dt", "dd"}
    assert parsed.attrs[0]["data-want"] == want and parsed.attrs[0]["data-kind"] == kind
    assert text in "".join(parsed.texts).replace("\r\n", "\n").replace("\r", "\n") or "\r" in text
