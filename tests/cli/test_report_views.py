"""`rofl report`'s views as users read them, checked against independent counts of the scan: the package
graph's edge counts (workspace imports included), cycle titles that name their files, every audit
finding (a preset, a `forbidden` rule, a written named rule) in the findings view with links, a large
folder as cards, a file's findings and cycles above its imports, and a search index of files, packages
and exported symbols."""

from __future__ import annotations

import json
import re

import pytest

from tests.cli.impact_fixtures import import_graph
from tests.cli.report_fixtures import BIG, report
from tests.cli.test_report import parse


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("report-views")
    src, facts, out = report(root)
    return facts, out, parse(out), out.read_text(encoding="utf-8")


def package_of(path: str, packages: dict[str, str]) -> str | None:
    best = None
    for name, folder in packages.items():
        prefix = "" if folder in ("", ".") else folder + "/"
        if path.startswith(prefix) and (best is None or len(prefix) > len(best[1])):
            best = (name, prefix)
    return best[0] if best else None


def test_the_package_graph_counts_the_imports_between_packages(made):
    facts, _, page, _ = made
    packages = json.loads((facts / "manifest.json").read_text())["packages"]
    expected: dict[tuple[str, str], int] = {}
    for a, b in import_graph(facts).edges:
        pa, pb = package_of(a, packages), package_of(b, packages)
        if pa != pb:
            expected[(pa, pb)] = expected.get((pa, pb), 0) + 1
    drawn = {
        (a["data-from-package"], a["data-to-package"]): int(a["data-count"])
        for t, a in page.tags
        if t == "path" and "data-count" in a
    }
    assert drawn == expected
    assert drawn[("@w/ui", "@w/core")] == 2  # by name and by a relative path: both counted
    graph = [a for t, a in page.tags if t == "div" and a.get("id") == "graph"]
    assert graph[0]["data-start"] == "/packages"  # a workspace opens at its package graph


def test_cycle_titles_name_their_files(made):
    _, _, _, html = made
    titles = re.findall(r"import cycle \d+: [^<]*", html)
    assert titles and all("packages/core/src/cycle_a.ts" in t and "packages/core/src/cycle_b.ts" in t for t in titles)


def test_every_audit_finding_is_in_the_findings_view_with_links(made):
    _, _, page, html = made
    view = html[html.index('data-folder="/findings"') : html.index('<aside id="side">')]
    for rule, source in (
        ("no_orphans", "packages/ui/src/lonely.ts"),  # a preset turned on with use(...)
        ("no_ui_to_money", "packages/ui/src/button.ts"),  # a forbidden(...) rule
        ("app_not_big", "packages/app/src/main.ts"),  # a written violation[audit] rule
    ):
        chunks = [c for c in view.split('<details class="finding violation"')[1:] if f"{rule}: {source}" in c]
        assert len(chunks) == 1, rule
        assert f'href="#{source}"' in chunks[0]
    assert "ui goes through the entry of core" in view and "line 2" in view  # message and the import's line
    assert "rofl audit --facts DIR" in view  # what the report does not run is said


def test_a_large_folder_is_cards_not_a_graph(made):
    _, _, page, html = made
    folder = "packages/big/src/gen"
    start = html.index(f'data-folder="{folder}"')
    view = html[start : html.index("</div></details>", start)]
    assert "grid-view" in html[start - 40 : start] and "<svg" not in view
    cards = {a["data-path"] for t, a in page.tags if t == "a" and "card" in (a.get("class") or "").split()}
    assert {f"{folder}/g{i:02d}.ts" for i in range(BIG)} <= cards


def test_a_file_shows_findings_and_cycles_before_its_imports(made):
    _, _, _, html = made
    for path in ("packages/core/src/cycle_a.ts", "packages/ui/src/button.ts"):
        start = html.index(f'data-file-detail="{path}"')
        section = html[start : html.index("</section>", start)]
        heads = re.findall(r"<h4>(\w+)", section)
        assert heads.index("imports") > max(heads.index(h) for h in heads if h in ("findings", "cycles"))


def test_the_search_index_holds_files_packages_and_symbols(made):
    facts, _, _, html = made
    text = re.search(r'<script type="application/json" id="rofl-index">(.*?)</script>', html, re.S).group(1)
    entries = json.loads(text)
    files = {e[1] for e in entries if e[0] == "f"}
    assert files == set(import_graph(facts).nodes)
    assert {e[1] for e in entries if e[0] == "p"} >= {"@w/core", "@w/ui", "@w/app", "@w/big"}
    symbols = {(e[1].split()[0], e[2]) for e in entries if e[0] == "s"}
    assert ("money", "packages/core/src/money.ts") in symbols and ("button", "packages/ui/src/button.ts") in symbols


def test_the_report_from_the_relations_its_rules_read_is_the_report_from_them_all(made, tmp_path):
    """The report loads only the scanner relations its rules (and itself) read: the page is the same as
    from the whole scan, findings and proofs included."""
    from rofl.loading.kernel import loaded_code_kernel
    from rofl.loading.presets import load_presets
    from rofl.loading.report_kernel import kept_relations
    from rofl.questions.report_data import gather
    from rofl.report_html import render
    from tests.cli.report_fixtures import RULES

    facts, _, _, _ = made
    rules = tmp_path / "rules.rofl"
    rules.write_text(RULES)
    manifest = json.loads((facts / "manifest.json").read_text())
    pages = []
    for keep in (None, kept_relations((str(rules),))):
        kernel, _ = loaded_code_kernel(str(facts), (str(rules),), 50_000_000, use_cache=False, keep=keep)
        load_presets(kernel, str(facts), None, (str(rules),))
        pages.append(render(gather(kernel, manifest["src"], False, None, manifest["packages"])))
    whole, trimmed = pages
    assert keep is not None and keep.dropped >= {"src_call", "src_decl"}  # something was left out
    assert trimmed == whole
