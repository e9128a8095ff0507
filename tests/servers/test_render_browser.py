"""The workbench in a real browser (headless Chromium from Debian's packages, driven by selenium and Debian's
chromedriver): `rofl server` serves a world's page, the browser sees its components, types into the field and
presses the button; with --allow does the press's want is answered (the row is written, its answer shown),
without it the want is held with ADP_CAPABILITY_DENIED and nothing is written.  One browser for the module,
two servers; a screenshot of each step under build/test-artefacts/render-browser/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.adapters.render_worlds import guest_db, guest_world, guests
from tests.browser import MARKS, By, WebDriverWait, artefacts, headless, screenshot
from tests.servers.conftest import Running, rofl, start, stop

ARTEFACTS = artefacts("render-browser")
pytestmark = MARKS
shot = partial(screenshot, ARTEFACTS)


@pytest.fixture(scope="module")
def workbench(tmp_path_factory) -> Iterator[tuple]:
    """``(browser, plain server, server with --allow does, world, db)``."""
    root = tmp_path_factory.mktemp("render-browser")
    src, facts = root / "src", root / "facts"
    src.mkdir()
    (src / "a.ts").write_text("export const a = 1;\n")
    assert rofl("scan", str(src), "--out", str(facts)).returncode == 0
    db = guest_db(src / "guests.db")
    world = src / "guests.rofl"
    world.write_text(guest_world(db))
    env = {k: v for k, v in os.environ.items() if k not in ("ROFL_SERVER_TOKEN", "CI")}
    servers: list[Running] = []
    try:
        servers.append(start("server", facts, src, env=env))
        servers.append(start("server", facts, src, env=env, extra=("--allow", "does")))
        with headless(root / "profile", 1000, 800, ARTEFACTS) as browser:
            yield browser, servers[0], servers[1], world, db
    finally:
        for running in servers:
            stop(running)


def open_and_press(browser, running: Running, world: Path, name: str) -> dict:
    """Open the world's page, check its components, type ``name``, press Sign; the outcome of greet."""
    browser.get(f"{running.url}/render?files={quote(str(world))}")
    kinds = [e.get_attribute("data-kind") for e in browser.find_elements(By.CSS_SELECTOR, "#content .component")]
    assert kinds == ["heading", "card", "field", "button"]
    assert browser.find_element(By.CSS_SELECTOR, "[data-kind=heading] h1").text == "Guest book"
    assert "visits" in browser.find_element(By.CSS_SELECTOR, "[data-kind=card]").text
    field = browser.find_element(By.CSS_SELECTOR, "input[data-want]")
    field.clear()
    field.send_keys(name)
    shot(browser, f"{name}-typed")
    browser.find_element(By.CSS_SELECTOR, "button[data-want]").click()
    WebDriverWait(browser, 30).until(
        lambda b: b.find_element(By.ID, "status").get_attribute("data-state") in ("done", "error")
    )
    shot(browser, f"{name}-pressed")
    assert browser.find_element(By.ID, "status").get_attribute("data-state") == "done"
    item = browser.find_element(By.CSS_SELECTOR, "#outcomes li")
    texts = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#content [data-kind=text] p")]
    return {
        "want": item.get_attribute("data-want"),
        "status": item.get_attribute("data-status"),
        "text": item.text,
        "shown": texts,
    }


def test_without_allow_does_the_press_is_refused_and_nothing_runs(workbench):
    browser, plain, _, world, db = workbench
    got = open_and_press(browser, plain, world, "Dora")
    assert got["want"] == 'greet("Dora")' and got["status"] == "want_held"
    assert "ADP_CAPABILITY_DENIED" in got["text"] and "--allow does" in got["text"]
    assert got["shown"] == [] and "Dora" not in guests(db)


def test_with_allow_does_the_press_is_granted_and_answered(workbench):
    browser, _, allowing, world, db = workbench
    got = open_and_press(browser, allowing, world, "Eve")
    assert got["want"] == 'greet("Eve")' and got["status"] == "answered"
    assert got["shown"] == ["hello Eve"] and guests(db) == ["Eve"]
