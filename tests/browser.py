"""Headless Chromium for the browser tests: Debian's chromium and chromedriver driven by selenium, the marks
that skip a module without them, one browser with the flags every test uses, and screenshots kept under
build/test-artefacts/NAME/."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

try:
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - the dev extra installs it
    webdriver = None
    By = Keys = WebDriverWait = TimeoutException = None  # type: ignore[assignment,misc]

__all__ = ["MARKS", "By", "Keys", "WebDriverWait", "artefacts", "eventually", "headless", "screenshot"]


def _program(name: str) -> str | None:
    return next((p for p in (f"/usr/bin/{name}", shutil.which(name) or "") if p and os.path.exists(p)), None)


CHROMIUM = _program("chromium")
DRIVER = _program("chromedriver")
ROOT = Path(__file__).resolve().parents[1]

# a browser test module's ``pytestmark``
MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        webdriver is None or CHROMIUM is None or DRIVER is None,
        reason="no headless browser: needs Debian's chromium and chromium-driver (apt-get install -y chromium "
        "chromium-driver; `make test` installs them when apt is usable) and selenium (the dev extra)",
    ),
]


def artefacts(name: str) -> Path:
    """Where a browser test module keeps its screenshots: build/test-artefacts/NAME."""
    return ROOT / "build" / "test-artefacts" / name


@contextmanager
def headless(profile: Path, width: int, height: int, screenshots: Path) -> Iterator[Any]:
    """One headless Chromium with a fresh profile at ``profile`` and a window of ``width`` x ``height``,
    quit at the end; the folder of its ``screenshots`` is made and printed."""
    assert webdriver is not None  # MARKS skips the module without selenium
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    try:
        screenshots.mkdir(parents=True, exist_ok=True)
        print(f"\n{screenshots.name} screenshots: {screenshots}")
        yield browser
    finally:
        browser.quit()


def screenshot(screenshots: Path, browser: Any, name: str) -> None:
    """Keep what ``browser`` shows as screenshots/NAME.png."""
    browser.save_screenshot(str(screenshots / f"{name}.png"))


def eventually(browser: Any, probe: Callable[[Any], Any], want: Any, seconds: float = 10.0) -> Any:
    """What ``probe(browser)`` gives once it gives ``want``, or its last answer after ``seconds``.

    A page answers a navigation, back, forward or click through events the browser delivers after the
    WebDriver call returns (``hashchange`` is asynchronous), so a test reads the page when it has settled,
    not at the first instant; the caller asserts on the value, so a page that never settles still fails
    with what it showed."""
    seen: list[Any] = [None]

    def reached(driver: Any) -> bool:
        seen[0] = probe(driver)
        return bool(seen[0] == want)

    try:
        WebDriverWait(browser, seconds, poll_frequency=0.05).until(reached)
    except TimeoutException:
        pass
    return seen[0]
