"""`rofl report`: one HTML file that holds every file and import of the scan, marks cycles, violations
and a change's impact with their proofs, and references nothing outside itself."""

from __future__ import annotations

from html.parser import HTMLParser

from tests.cli.impact_fixtures import import_graph, run, scan_tree
from tests.cli.test_cycles import RXJS_LIKE

LAYERS = 'forbid("internal/util", "internal/scheduler").\n'
FILES = dict(
    RXJS_LIKE,
    **{
        "internal/util/bad.ts": 'import { Action } from "../scheduler/Action";\nexport const bad = Action;\n',
        "orphaned.ts": "export const nobody = 1;\n",
        "pkg/\u00e9 <x>&.ts": 'import { bad } from "../internal/util/bad";\nexport const weird = bad;\n',
    },
)


class Page(HTMLParser):
    """Every start tag with its attributes, and the text inside <script> and <style>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in:
            self.inline.append(data)

    def having(self, attr: str) -> list[dict[str, str | None]]:
        return [a for _, a in self.tags if attr in a]


def parse(path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def test_every_node_and_edge_is_in_the_report_and_nothing_is_fetched(tmp_path):
    _, facts = scan_tree(tmp_path, FILES)
    rules = tmp_path / "layers.rofl"
    rules.write_text(LAYERS)
    out = tmp_path / "report.html"
    code, text, err = run("report", "--facts", facts, "--out", out, "--rules", rules, "--changed", "internal/config.ts")
    assert code == 0, err
    page = parse(out)
    graph = import_graph(facts)

    # every scanned file is a node in its folder's view, with a panel of its own
    nodes = {a["data-path"] for a in page.having("data-file")}
    assert nodes == set(graph.nodes)
    assert {a["data-file-detail"] for a in page.having("data-file-detail")} == set(graph.nodes)
    # every import is listed in its file's panel ...
    listed = {(a["data-from"], a["data-to"]) for t, a in page.tags if t == "li" and "data-from" in a}
    assert listed == set(graph.edges)
    # ... and drawn in the view of the deepest folder holding both ends, between the children holding them
    drawn = {(a["data-from"], a["data-to"]) for t, a in page.tags if t == "path" and "data-from" in a}
    for a, b in graph.edges:
        pa, pb = a.split("/"), b.split("/")
        k = 0
        while k < min(len(pa), len(pb)) - 1 and pa[k] == pb[k]:
            k += 1
        assert ("/".join(pa[: k + 1]), "/".join(pb[: k + 1])) in drawn
    # each folder has its view, and a folder node opens it
    views = {a["data-folder"] for t, a in page.tags if t == "div" and "data-folder" in a}
    opened = {a["data-open"] for t, a in page.tags if t == "g" and "data-open" in a}
    assert opened and opened <= views

    # cycles and cut imports are marked; the layering violation and the impact too
    classes = {(a.get("data-path") or ""): (a.get("class") or "") for t, a in page.tags if t == "g"}
    assert "cyc" in classes["internal/config.ts"].split()
    assert "cyc" not in classes["orphaned.ts"].split()
    cut_paths = [a for t, a in page.tags if t == "path" and "cut" in (a.get("class") or "").split()]
    assert cut_paths
    assert "vio" in classes["internal/util/bad.ts"].split()
    assert "chg" in classes["internal/config.ts"].split()
    assert "aff" in classes["internal/Subscriber.ts"].split()
    html = out.read_text(encoding="utf-8")
    assert "Impact of the change" in html and "internal/util/errorContext.ts" in html
    assert "forbid[main](&quot;internal/util&quot;, &quot;internal/scheduler&quot;)" in html  # the violation's proof
    assert "unused export: orphaned.ts: nobody" in html

    # self-contained: no src=, no href= but in-page anchors, no external URL in inline CSS or JS
    for tag, attrs in page.tags:
        assert "src" not in attrs, tag
        href = attrs.get("href")
        assert href is None or href.startswith("#"), (tag, href)
        assert not (tag == "link" and attrs.get("rel") == "stylesheet")
        for value in attrs.values():
            assert not (value or "").lstrip().lower().startswith(("http:", "https:", "//", "file:", "data:"))
    inline = "".join(page.inline)
    for needle in ("http:", "https:", "@import", "url(http", "fetch(", "XMLHttpRequest", "import("):
        assert needle not in inline
    scripts = [a for t, a in page.tags if t == "script"]
    assert len([a for a in scripts if "type" not in a]) == 1  # one program; the search index is JSON data
    assert all(a.get("type") in (None, "application/json") for a in scripts)


def test_git_base_and_changed_are_exclusive_and_out_is_required(tmp_path):
    _, facts = scan_tree(tmp_path, {"a.ts": "export const a = 1;\n"})
    code, _, err = run(
        "report", "--facts", facts, "--out", tmp_path / "r.html", "--changed", "a.ts", "--git-base", "HEAD"
    )
    assert code == 2 and "not both" in err
    code, _, err = run("report", "--facts", facts)
    assert code == 2 and "--out" in err
    code, _, err = run("report", "--facts", facts, "--out", tmp_path / "r.html", "--changed", "nowhere.ts")
    assert code == 2 and "nowhere.ts" in err
    code, _, err = run("report", "--facts", facts, "--out", tmp_path / "no" / "such" / "dir" / "r.html")
    assert code == 2 and "cannot write" in err


def test_git_base_marks_the_work_tree_change(tmp_path):
    from tests.cli.impact_fixtures import git

    src, facts = scan_tree(
        tmp_path,
        {"a.ts": 'import { b } from "./b";\nexport const a = b;\n', "b.ts": "export const b = 1;\n"},
        in_git=True,
    )
    (src / "b.ts").write_text("export const b = 2;\n")
    assert "b.ts" in git(src, "status", "--porcelain")
    out = tmp_path / "r.html"
    code, text, err = run("report", "--facts", facts, "--out", out, "--git-base", "HEAD")
    assert code == 0, err
    assert "1 affected" in text
    classes = {a.get("data-path"): (a.get("class") or "").split() for t, a in parse(out).tags if t == "g"}
    assert "chg" in classes["b.ts"] and "aff" in classes["a.ts"] and "aff" not in classes["b.ts"]


def test_a_budget_that_runs_out_says_so_in_the_page_and_the_exit_code(tmp_path):
    _, facts = scan_tree(tmp_path, RXJS_LIKE)
    out = tmp_path / "r.html"
    code, _, err = run("report", "--facts", facts, "--out", out, "--budget", "50")
    assert code == 3 and "raise --budget" in err
    assert "PARTIAL: the budget ran out" in out.read_text(encoding="utf-8")
    code, _, err = run("cycles", "--facts", facts, "--budget", "50")
    assert code == 3 and "raise --budget" in err


def test_cycles_and_report_say_when_the_facts_are_stale(tmp_path):
    """Both answer from the facts as they are; a source changed (or a folder gone) since the scan is said."""
    src, facts = scan_tree(tmp_path, {"a.ts": 'import "./b";\n', "b.ts": 'import "./a";\n'})
    out = tmp_path / "r.html"
    for args in (("cycles", "--facts", facts), ("report", "--facts", facts, "--out", out)):
        assert "stale" not in run(*args)[2]
    (src / "b.ts").write_text("export const b = 1;\n")
    for args in (("cycles", "--facts", facts), ("report", "--facts", facts, "--out", out)):
        code, _, err = run(*args)
        assert "the facts are stale (1 path(s): b.ts: changed since the scan)" in err, err
        assert code == (1 if args[0] == "cycles" else 0)  # the old graph still has the cycle: answered, marked
    src.rename(tmp_path / "moved")
    assert "the scanned folder" in run("cycles", "--facts", facts)[2]
