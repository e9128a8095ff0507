"""`rofl report`'s page opened at a fragment: a malformed one (``#%E0%A4%A``) or one naming nothing shows the
default view, as no fragment does, under a line saying so, instead of a blank page; a good one opens its
file or folder.  The report's own
script runs in node over a small stand-in for the DOM, built from the generated page."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.cli.impact_fixtures import run, scan_tree
from tests.cli.test_report import FILES, parse

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed; the report's script needs a JS engine")

# The page's script over a stand-in document: views and file panels as the report holds them.
HARNESS = r"""
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
function element(attrs) {
  const el = {attrs: Object.assign({}, attrs), hidden: false, textContent: '', children: [],
    getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; },
    setAttribute(k, v) { this.attrs[k] = String(v); },
    hasAttribute(k) { return k in this.attrs; },
    appendChild(c) { this.children.push(c); return c; },
    querySelector() { return null; }, scrollIntoView() {},
    classList: {add() {}, remove() {}}};
  return el;
}
const views = input.folders.map(f => element({'data-folder': f}));
const details = input.details.map(f => element({'data-file-detail': f}));
const byId = {crumbs: element({}), graph: element({'data-start': input.start}), notice: element({}), side: element({})};
byId.notice.hidden = true;
const hint = element({});
let replaced = null;
const document = {
  getElementById: id => byId[id] || null,
  querySelectorAll: sel => sel === 'div.view' ? views : sel === '[data-file-detail]' ? details : [],
  querySelector: sel => sel === '#files .hint' ? hint : null,
  createElement: () => element({}), addEventListener() {},
};
const context = {document, location: {hash: input.hash}, CSS: {escape: s => s}, window: {addEventListener() {}},
  history: {replaceState(_s, _t, url) { replaced = url; }}};
let error = null;
try {
  new Function(...Object.keys(context), input.js)(...Object.values(context));
} catch (e) { error = String(e); }
const shown = views.filter(v => !v.hidden).map(v => v.attrs['data-folder']);
const opened = details.filter(d => !d.hidden).map(d => d.attrs['data-file-detail']);
const notice = byId.notice.hidden ? null : byId.notice.textContent;
process.stdout.write(JSON.stringify({error, shown, opened: opened.length === details.length ? [] : opened, replaced, notice}));
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("fragment")
    _, facts = scan_tree(root, FILES)
    out = root / "report.html"
    code, _, err = run("report", "--facts", facts, "--out", out)
    assert code == 0, err
    parsed = parse(out)
    (js,) = [text for text in parsed.inline if "location.hash" in text]
    graph = [a for t, a in parsed.tags if t == "div" and a.get("id") == "graph"]
    return {
        "js": js,
        "folders": [a["data-folder"] for t, a in parsed.tags if t == "div" and "data-folder" in a],
        "details": [a["data-file-detail"] for a in parsed.having("data-file-detail")],
        "start": graph[0]["data-start"],
    }


def opened_at(page: dict, fragment: str) -> dict:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", HARNESS],
        input=json.dumps({**page, "hash": fragment}),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parent,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("fragment", ["#%E0%A4%A", "#%", "#%ZZ", "#%ED%A0%80", "#caf%E9"])
def test_a_malformed_fragment_shows_the_default_view(page, fragment):
    default = opened_at(page, "")
    assert default["error"] is None and len(default["shown"]) == 1
    bad = opened_at(page, fragment)
    assert bad["error"] is None, bad["error"]
    assert bad["shown"] == default["shown"] and bad["opened"] == default["opened"]
    assert default["notice"] is None  # the start view says nothing
    assert "names no file, folder or view of this report" in bad["notice"]  # the page says what happened


def test_a_fragment_that_names_nothing_says_so(page):
    missing = opened_at(page, "#no%2Fsuch%2Ffile.ts")
    assert missing["error"] is None and missing["shown"] == opened_at(page, "")["shown"]
    assert "#no%2Fsuch%2Ffile.ts names no file" in missing["notice"]


def test_a_good_fragment_opens_its_file_or_folder(page):
    name = "pkg/\u00e9 <x>&.ts"
    assert name in page["details"]
    at_file = opened_at(page, "#" + quote(name, safe=""))
    assert at_file["error"] is None and at_file["opened"] == [name] and at_file["shown"] == ["pkg"]
    at_folder = opened_at(page, "#internal")
    assert at_folder["error"] is None and at_folder["shown"] == ["internal"]
