"""`rofl report` in a real browser (headless Chromium from Debian's packages, driven by selenium and
Debian's chromedriver): search -> file -> importer, back and forward, the findings view, a large folder
at two widths and a malformed fragment.  One browser and one report for the module; a screenshot of
each step is kept under build/test-artefacts/report-browser/ (the path is printed)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from urllib.parse import quote

import pytest

from tests.browser import MARKS, By, Keys, artefacts, eventually, headless, screenshot
from tests.cli.report_fixtures import BIG, report

ARTEFACTS = artefacts("report-browser")
pytestmark = MARKS
shot = partial(screenshot, ARTEFACTS)


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Iterator[tuple]:
    root = tmp_path_factory.mktemp("report-browser")
    _, _, out = report(root)
    with headless(root / "profile", 1280, 900, ARTEFACTS) as browser:
        yield browser, out.resolve().as_uri()


def visible_view(browser) -> str | None:
    return browser.execute_script(
        "var v=[].filter.call(document.querySelectorAll('div.view'),function(e){return !e.hidden;});"
        "return v.length===1?v[0].getAttribute('data-folder'):null;"
    )


def open_detail(browser) -> str | None:
    return browser.execute_script(
        "var d=[].filter.call(document.querySelectorAll('[data-file-detail]'),function(e){return !e.hidden;});"
        "return d.length===1?d[0].getAttribute('data-file-detail'):null;"
    )


def test_search_file_importer_back_and_forward(page):
    browser, url = page
    browser.get(url)
    assert eventually(browser, visible_view, "/packages") == "/packages"  # a workspace starts at its package graph
    counts = browser.execute_script(
        "return [].map.call(document.querySelectorAll('[data-count]'),function(p){"
        "return p.getAttribute('data-from-package')+'>'+p.getAttribute('data-to-package')+'='+p.getAttribute('data-count');});"
    )
    assert "@w/ui>@w/core=2" in counts and "@w/app>@w/ui=1" in counts
    shot(browser, "01-packages")

    box = browser.find_element(By.ID, "search")
    box.send_keys("money")
    results = browser.find_elements(By.CSS_SELECTOR, "#results li a")
    assert results and results[0].text.endswith("packages/core/src/money.ts")
    assert any("symbol" in r.text and "money" in r.text for r in results)  # exported symbols are found too
    shot(browser, "02-search")
    box.send_keys(Keys.ENTER)
    money = "packages/core/src/money.ts"
    assert eventually(browser, open_detail, money) == money
    assert browser.execute_script("return decodeURIComponent(location.hash.slice(1))") == money
    assert eventually(browser, visible_view, "packages/core/src") == "packages/core/src"
    order = browser.execute_script(
        "var d=document.querySelector('[data-file-detail=\"packages/core/src/money.ts\"]');"
        "return [].map.call(d.querySelectorAll('h4'),function(h){return h.textContent.split(' ')[0];});"
    )
    assert order.index("findings") < order.index("imports") < order.index("imported")
    assert browser.execute_script("return document.getElementById('side').scrollTop") == 0
    shot(browser, "03-file")

    importer = "packages/ui/src/button.ts"
    link = browser.find_element(By.CSS_SELECTOR, f'[data-file-detail="{money}"] ul.importers a[href="#{importer}"]')
    link.click()
    assert eventually(browser, open_detail, importer) == importer
    imports = browser.find_elements(By.CSS_SELECTOR, f'[data-file-detail="{importer}"] ul.imports li')
    assert len(imports) == 2 and "line 2" in imports[1].text + imports[0].text
    shot(browser, "04-importer")

    browser.back()
    assert eventually(browser, open_detail, money) == money
    browser.back()
    assert eventually(browser, visible_view, "/packages") == "/packages"
    browser.forward()
    assert eventually(browser, open_detail, money) == money
    browser.forward()
    assert eventually(browser, open_detail, importer) == importer


def test_findings_view_lists_presets_forbidden_and_named_rules_with_links(page):
    browser, url = page
    browser.get(url + "#/findings")
    assert eventually(browser, visible_view, "/findings") == "/findings"
    text = browser.find_element(By.ID, "findings").text
    for rule in ("no_orphans", "no_ui_to_money", "app_not_big", "import cycle 1: packages/core/src/cycle_a.ts"):
        assert rule in text
    shot(browser, "05-findings")
    finding = browser.find_element(
        By.XPATH,
        "//details[contains(@class,'finding')][contains(@class,'violation')][./summary[contains(., 'no_ui_to_money')]]",
    )
    finding.find_element(By.TAG_NAME, "summary").click()
    finding.find_element(By.CSS_SELECTOR, "p.at a").click()
    assert eventually(browser, open_detail, "packages/ui/src/button.ts") == "packages/ui/src/button.ts"
    browser.back()
    assert eventually(browser, visible_view, "/findings") == "/findings"


def test_a_large_folder_stays_readable_at_any_width(page):
    browser, url = page
    folder = "packages/big/src/gen"
    try:
        for width in (1280, 640):
            browser.set_window_size(width, 900)
            browser.get(url + "#" + quote(folder, safe=""))
            assert eventually(browser, visible_view, folder) == folder
            cards = browser.find_elements(By.CSS_SELECTOR, f'div.view[data-folder="{folder}"] .card')
            assert len(cards) == BIG
            over = browser.execute_script("var g=document.getElementById('graph');return g.scrollWidth-g.clientWidth;")
            assert over <= 1, f"the folder view is {over}px wider than the window at {width}px"
            shot(browser, f"06-large-folder-{width}")
    finally:
        browser.set_window_size(1280, 900)


def test_a_malformed_fragment_shows_a_page_that_says_so(page):
    browser, url = page
    browser.get(url + "#%E0%A4%A")
    said = eventually(browser, lambda b: "names no file, folder or view" in b.find_element(By.ID, "notice").text, True)
    assert said and browser.find_element(By.ID, "notice").is_displayed()
    assert eventually(browser, visible_view, "/packages") == "/packages"
    height = browser.execute_script(
        "return document.querySelector('div.view:not([hidden])').getBoundingClientRect().height"
    )
    assert height > 50
    shot(browser, "07-malformed")
