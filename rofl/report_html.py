"""The one self-contained HTML file of `rofl report`: inline SVG and HTML views, inline CSS and vanilla JS.

Nothing is fetched: no external script, style, font or image.  The views:

- ``#/packages`` (the start view of a workspace): one node per workspace package, one edge per pair
  of packages with imports between them, labelled with how many;
- a folder (``#src%2Fdomain``): its children and the imports between them, aggregated at the deepest
  folder holding both ends, as a graph of at most ``GRID_AT`` children (its layers folded into at most
  ``MAX_COLUMNS`` columns), else as pages of cards that wrap at any width with the heaviest imports
  between them listed;
- a file (``#src%2Fdomain%2Fmoney.ts``): its folder's view, and in the side panel, scrolled to the top,
  the file's findings, cycles, imports (each with its line) and importers, above the impact list;
- ``#/findings``: every finding (cycles, audit findings with rule, severity and line, unused exports,
  orphans, unresolved imports), each with its proof and links to its files.

Every view has its own address: links change the fragment, so back and forward work (``hashchange``),
and an address that names nothing (or is malformed) shows the start view under a line saying so.  The
search box finds files, packages and exported symbols (an index embedded as JSON) and jumps to the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape
from urllib.parse import quote

from .questions.cycles_report import greedy_cut
from .questions.report_data import NOT_ASKED_TEXT, Finding, ReportModel

NODE_H = 26
ROW_GAP = 10
COL_GAP = 90
CHAR_W = 7.2
MAX_LABEL = 36
GRID_AT = 40  # a folder with more children is shown as cards, not as a graph
MAX_COLUMNS = 8  # a graph's layers folded into at most this many columns
PAGE = 200  # cards per page of a large folder
TOP_EDGES = 40  # imports between the children of a large folder listed, heaviest first
MAX_PAIRS = 300  # pairs of packages listed under the package graph
MAX_LISTED = 2000  # affected files listed in the impact panel; the count says how many


@dataclass(slots=True)
class View:
    """One folder's picture: its children and the aggregated imports between them."""

    folder: str
    children: list[str] = field(default_factory=list)
    folders: set[str] = field(default_factory=set)  # which children are folders
    edges: dict = field(default_factory=dict)  # (child a, child b) -> list of underlying (file a, file b)


def parent(path: str) -> str:
    return path.rpartition("/")[0]


def href(route: str) -> str:
    """The in-page address of a view or file (``#`` and its percent-encoded path)."""
    if route == "":
        return "#/folders"  # the top folder (an empty fragment is the start view)
    return "#" + quote(route, safe="/", errors="surrogateescape")


def _views(files: tuple[str, ...], edges: tuple[tuple[str, str], ...]) -> dict[str, View]:
    views: dict[str, View] = {"": View("")}
    seen: set[tuple[str, str]] = set()
    for f in files:
        child = f
        folder = parent(f)
        while True:
            view = views.setdefault(folder, View(folder))
            if (folder, child) in seen:
                break
            seen.add((folder, child))
            view.children.append(child)
            if child != f:
                view.folders.add(child)
            if folder == "":
                break
            child, folder = folder, parent(folder)
    for a, b in edges:
        if a == b:
            continue
        pa, pb = a.split("/"), b.split("/")
        k = 0
        while k < min(len(pa), len(pb)) - 1 and pa[k] == pb[k]:
            k += 1
        folder = "/".join(pa[:k])
        ca, cb = "/".join(pa[: k + 1]), "/".join(pb[: k + 1])
        if folder in views:
            views[folder].edges.setdefault((ca, cb), []).append((a, b))
    for view in views.values():
        view.children.sort(key=lambda c: (c not in view.folders, c))
    return views


def _layout(children: list[str], edges, widths: dict[str, float]) -> dict[str, tuple[float, float]]:
    """Columns by longest path from the importers once a greedy feedback arc set is set aside (so the
    files of a cycle spread out instead of sharing a column), folded into at most MAX_COLUMNS; rows by name."""
    succ: dict[str, list[str]] = {c: [] for c in children}
    for a, b in edges:
        succ[a].append(b)
    back = greedy_cut(succ, improve=False)  # a drawing needs no fewest back edges, only a quick order
    indeg = dict.fromkeys(children, 0)
    for a, targets in succ.items():
        for b in targets:
            if (a, b) not in back and a != b:
                indeg[b] += 1
    layer = dict.fromkeys(children, 0)
    ready = [c for c in children if indeg[c] == 0]
    while ready:
        a = ready.pop()
        for b in succ[a]:
            if (a, b) in back or a == b:
                continue
            layer[b] = max(layer[b], layer[a] + 1)
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b)
    deepest = max(layer.values(), default=0) + 1
    columns: dict[int, list[str]] = {}
    for c in children:
        col = layer[c] * MAX_COLUMNS // deepest if deepest > MAX_COLUMNS else layer[c]
        columns.setdefault(col, []).append(c)
    pos: dict[str, tuple[float, float]] = {}
    x = 20.0
    for col in sorted(columns):
        members = columns[col]
        for row, c in enumerate(members):
            pos[c] = (x, 20.0 + row * (NODE_H + ROW_GAP))
        x += max(widths[c] for c in members) + COL_GAP
    return pos


def _short(name: str) -> str:
    return name if len(name) <= MAX_LABEL else name[: MAX_LABEL - 1] + "\u2026"


@dataclass(frozen=True, slots=True)
class Marks:
    """What the report marks, by file: cycles, violations, the change and its impact."""

    on_cycle: frozenset[str]
    violating: frozenset[str]
    changed: frozenset[str]
    affected: frozenset[str]
    cut: frozenset[tuple[str, str]]
    violation_edges: frozenset[tuple[str, str]]
    comp_of: dict


class Counter:
    """How many of a set of files lie under each folder (one pass over the set, then lookups)."""

    def __init__(self, members: frozenset[str]) -> None:
        self.members = members
        self.under: dict[str, int] = {}
        for m in members:
            folder = parent(m)
            while folder:
                self.under[folder] = self.under.get(folder, 0) + 1
                folder = parent(folder)

    def count(self, child: str, is_folder: bool) -> int:
        return self.under.get(child, 0) if is_folder else int(child in self.members)


def _edge_path(xa: float, ya: float, wa: float, xb: float, yb: float, wb: float) -> tuple[str, float, float]:
    """The SVG path of an import between two boxes, and a point near its middle for a label."""
    x1, y1 = xa + wa, ya + NODE_H / 2
    if xa == xb:  # within one column: an arc on the right side
        x2, y2 = xb + wb, yb + NODE_H / 2
        bend = max(x1, x2) + 30 + abs(y2 - y1) / 5
        return f"M{x1:.0f} {y1:.0f}C{bend:.0f} {y1:.0f},{bend:.0f} {y2:.0f},{x2:.0f} {y2:.0f}", bend - 8, (y1 + y2) / 2
    if xb < xa:  # a backward import (part of a cycle): left side to the target's right side
        x1, x2, y2 = xa, xb + wb, yb + NODE_H / 2
        d = f"M{x1:.0f} {y1:.0f}C{x1 - 50:.0f} {y1:.0f},{x2 + 50:.0f} {y2:.0f},{x2:.0f} {y2:.0f}"
        return d, (x1 + x2) / 2, (y1 + y2) / 2
    x2, y2 = xb, yb + NODE_H / 2
    if abs(y2 - y1) < 1 and x2 - x1 > COL_GAP + 5:  # past the boxes between them in the row: dip below it
        d = f"M{x1:.0f} {y1:.0f}C{x1 + 60:.0f} {y1 + 48:.0f},{x2 - 60:.0f} {y2 + 48:.0f},{x2:.0f} {y2:.0f}"
        return d, (x1 + x2) / 2, y1 + 36 + 4
    d = f"M{x1:.0f} {y1:.0f}C{x1 + 60:.0f} {y1:.0f},{x2 - 60:.0f} {y2:.0f},{x2:.0f} {y2:.0f}"
    return d, (x1 + x2) / 2, (y1 + y2) / 2


def _edge_classes(under_edges: list, marks: Marks) -> list[str]:
    classes = ["edge"]
    if any(u in marks.cut for u in under_edges):
        classes.append("cut")
    if any(marks.comp_of.get(u[0], -1) == marks.comp_of.get(u[1], -2) for u in under_edges):
        classes.append("cyc")
    if any(u in marks.violation_edges for u in under_edges):
        classes.append("vio")
    hit = marks.affected | marks.changed
    if any(u[0] in hit and u[1] in hit for u in under_edges):
        classes.append("imp")
    return classes


def _node_marks(child: str, is_folder: bool, counters: dict[str, Counter]) -> tuple[list[str], list[str]]:
    classes, extra = [], []
    for mark, said in (("cyc", "on cycles"), ("chg", "changed"), ("aff", "affected")):
        k = counters[mark].count(child, is_folder)
        if k:
            classes.append(mark)
            extra.append(f"{said}: {k}")
    if counters["vio"].count(child, is_folder):
        classes.append("vio")
    return classes, extra


def _graph_view(
    key: str, n: int, view: View, counts: dict[str, int], counters: dict[str, Counter], marks: Marks
) -> str:
    labels = {
        c: _short((c.rpartition("/")[2] or c) + (f"/ ({counts.get(c, 0)})" if c in view.folders else ""))
        for c in view.children
    }
    widths = {c: 24 + CHAR_W * len(labels[c]) for c in view.children}
    pos = _layout(view.children, view.edges, widths)
    width = max((pos[c][0] + widths[c] for c in view.children), default=200) + 80
    height = max((pos[c][1] + NODE_H for c in view.children), default=60) + 20
    parts = [
        f'<div class="view" data-folder="{escape(key)}" hidden>'
        f'<svg width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">',
        f'<defs><marker id="ar{n}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto-start-reverse"><path d="M0 0L10 5L0 10z"/></marker></defs>',
    ]
    for (a, b), under_edges in sorted(view.edges.items()):
        d, _, _ = _edge_path(*pos[a], widths[a], *pos[b], widths[b])
        title = f"{a} -> {b}: {len(under_edges)} import(s)"
        parts.append(
            f'<path class="{" ".join(_edge_classes(under_edges, marks))}" data-from="{escape(a)}" '
            f'data-to="{escape(b)}" d="{d}" marker-end="url(#ar{n})"><title>{escape(title)}</title></path>'
        )
    for c in view.children:
        x, y = pos[c]
        is_folder = c in view.folders
        classes, extra = _node_marks(c, is_folder, counters)
        click = f'data-open="{escape(c)}"' if is_folder else f'data-file="{escape(c)}"'
        tip = c + (f" ({counts.get(c, 0)} files)" if is_folder else "") + "".join(f"; {e}" for e in extra)
        kind = "folder" if is_folder else "file"
        parts.append(
            f'<g class="node {kind} {" ".join(classes)}" data-path="{escape(c)}" {click} '
            f'transform="translate({x:.0f},{y:.0f})">'
            f'<rect width="{widths[c]:.0f}" height="{NODE_H}" rx="5"/>'
            f'<text x="10" y="17">{escape(labels[c])}</text><title>{escape(tip)}</title></g>'
        )
    parts.append("</svg></div>")
    return "".join(parts)


def _grid_view(key: str, view: View, counts: dict[str, int], counters: dict[str, Counter], marks: Marks) -> str:
    """A large folder: its children as cards (folders first) in pages that wrap at any width, each with
    the imports leaving and entering it inside this folder; then the heaviest imports between them."""
    out_n: dict[str, int] = {}
    in_n: dict[str, int] = {}
    for (a, b), under_edges in view.edges.items():
        out_n[a] = out_n.get(a, 0) + len(under_edges)
        in_n[b] = in_n.get(b, 0) + len(under_edges)
    parts = [
        f'<div class="view grid-view" data-folder="{escape(key)}" hidden>'
        f'<p class="note">{len(view.children)} entries ({len(view.folders)} folders): too many for one picture, '
        f"shown as cards; each card counts the imports out of it and into it inside this folder.</p>"
    ]
    for start in range(0, len(view.children), PAGE):
        page = view.children[start : start + PAGE]
        parts.append(
            f"<details{' open' if start == 0 else ''}><summary>{start + 1}\u2013{start + len(page)} "
            f"of {len(view.children)}</summary><div class='grid'>"
        )
        for c in page:
            is_folder = c in view.folders
            classes, extra = _node_marks(c, is_folder, counters)
            click = f'data-open="{escape(c)}"' if is_folder else f'data-file="{escape(c)}"'
            name = (c.rpartition("/")[2] or c) + ("/" if is_folder else "")
            size = f"{counts.get(c, 0)} files \u00b7 " if is_folder else ""
            parts.append(
                f'<a class="card node {"folder" if is_folder else "file"} {" ".join(classes)}" href="{escape(href(c))}" '
                f'data-path="{escape(c)}" {click} title="{escape("; ".join([c, *extra]))}">'
                f'<span class="name">{escape(name)}</span>'
                f'<span class="counts">{size}{out_n.get(c, 0)} out \u00b7 {in_n.get(c, 0)} in</span></a>'
            )
        parts.append("</div></details>")
    heavy = sorted(view.edges.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:TOP_EDGES]
    if heavy:
        parts.append(
            f"<h3>Imports between them ({len(view.edges)} pairs; the {len(heavy)} heaviest)</h3><table class='pairs'>"
        )
        for (a, b), under_edges in heavy:
            parts.append(
                f'<tr class="{" ".join(_edge_classes(under_edges, marks))}" data-from="{escape(a)}" data-to="{escape(b)}">'
                f"<td>{_goto(a, a.rpartition('/')[2], a in view.folders)}</td><td>\u2192</td>"
                f"<td>{_goto(b, b.rpartition('/')[2], b in view.folders)}</td><td>{len(under_edges)}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</div>")
    return "".join(parts)


def package_index(files: tuple[str, ...], packages: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """Each file's workspace package (by name): the deepest package folder holding it."""
    folders = {("" if f in ("", ".") else f.rstrip("/")): name for name, f in packages}
    out: dict[str, str] = {}
    memo: dict[str, str | None] = {}
    for path in files:
        folder = parent(path)
        chain = []
        found: str | None = None
        while True:
            if folder in memo:
                found = memo[folder]
                break
            chain.append(folder)
            if folder in folders:
                found = folders[folder]
                break
            if folder == "":
                break
            folder = parent(folder)
        for f in chain:
            memo[f] = found
        if found is not None:
            out[path] = found
    return out


OUTSIDE = "(outside the packages)"


def _package_view(model: ReportModel, files: tuple[str, ...], owner: dict[str, str], marks: Marks) -> str:
    """The workspace's packages and the imports between them, each edge labelled with its count."""
    folder_of = dict(model.packages)
    sizes: dict[str, int] = {}
    for f in files:
        p = owner.get(f, OUTSIDE)
        sizes[p] = sizes.get(p, 0) + 1
    pairs: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for a, b in model.graph.edges:
        pa, pb = owner.get(a, OUTSIDE), owner.get(b, OUTSIDE)
        if pa != pb:
            pairs.setdefault((pa, pb), []).append((a, b))
    nodes = sorted(sizes, key=lambda p: (p == OUTSIDE, p))
    labels = {p: _short(f"{p} ({sizes[p]})") for p in nodes}
    widths = {p: 24 + CHAR_W * len(labels[p]) for p in nodes}
    pos = _layout(nodes, pairs, widths)
    width = max((pos[p][0] + widths[p] for p in nodes), default=200) + 80
    height = max((pos[p][1] + NODE_H for p in nodes), default=60) + 20
    parts = [
        '<div class="view" data-folder="/packages" hidden>'
        f'<p class="note">{len([p for p in nodes if p != OUTSIDE])} workspace packages with scanned files; an arrow is the imports from one package\'s files '
        f"into another's (workspace imports included), labelled with how many. Click a package to open its folder.</p>"
        f'<svg width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
        '<defs><marker id="arp" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0 0L10 5L0 10z"/></marker></defs>'
    ]
    for (a, b), under_edges in sorted(pairs.items()):
        d, mx, my = _edge_path(*pos[a], widths[a], *pos[b], widths[b])
        title = f"{a} -> {b}: {len(under_edges)} import(s)"
        parts.append(
            f'<path class="{" ".join(_edge_classes(under_edges, marks))}" data-from-package="{escape(a)}" '
            f'data-to-package="{escape(b)}" data-count="{len(under_edges)}" d="{d}" marker-end="url(#arp)">'
            f"<title>{escape(title)}</title></path>"
            f'<text class="count" x="{mx:.0f}" y="{my - 3:.0f}">{len(under_edges)}</text>'
        )
    for p in nodes:
        x, y = pos[p]
        folder = folder_of.get(p)
        opens = "" if folder in (None, ".") else folder
        parts.append(
            f'<g class="node folder pkg" data-package="{escape(p)}" data-open="{escape(opens or "")}" '
            f'transform="translate({x:.0f},{y:.0f})"><rect width="{widths[p]:.0f}" height="{NODE_H}" rx="5"/>'
            f'<text x="10" y="17">{escape(labels[p])}</text><title>{escape(p)}: {escape(folder or "files in no package")}'
            f"</title></g>"
        )
    parts.append("</svg>")
    heavy = sorted(pairs.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:MAX_PAIRS]
    if heavy:
        parts.append(f"<h3>Imports between packages ({len(pairs)} pairs, heaviest first)</h3><table class='pairs'>")
        for (a, b), under_edges in heavy:
            fa, fb = folder_of.get(a), folder_of.get(b)
            link_a = _goto("" if fa in (None, ".") else fa, a, True) if a != OUTSIDE else escape(a)
            link_b = _goto("" if fb in (None, ".") else fb, b, True) if b != OUTSIDE else escape(b)
            parts.append(
                f'<tr class="{" ".join(_edge_classes(under_edges, marks))}" data-pair="{escape(a)} {escape(b)}">'
                f"<td>{link_a}</td><td>\u2192</td><td>{link_b}</td><td>{len(under_edges)}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</div>")
    return "".join(parts)


def render(model: ReportModel) -> str:
    graph = model.graph
    files = tuple(sorted(set(graph.files) | {f for e in graph.edges for f in e}))
    views = _views(files, graph.edges)
    comp_of = {f: i for i, c in enumerate(model.cycles) for f in c.files}
    marks = Marks(
        frozenset(comp_of),
        frozenset(p for f in model.findings if f.kind == "violation" for p in f.files),
        frozenset(model.impact.changed) if model.impact else frozenset(),
        frozenset(model.impact.affected) if model.impact else frozenset(),
        frozenset((e.source, e.target) for c in model.cycles for e in c.cut),
        frozenset(f.edge for f in model.findings if f.kind == "violation" and f.edge),
        comp_of,
    )
    counters = {
        "cyc": Counter(marks.on_cycle),
        "chg": Counter(marks.changed),
        "aff": Counter(marks.affected),
        "vio": Counter(marks.violating),
    }
    counts = Counter(frozenset(files)).under
    owner = package_index(files, model.packages)
    out_views = []
    if len(model.packages) >= 2:
        out_views.append(_package_view(model, files, owner, marks))
    for n, (folder, view) in enumerate(sorted(views.items())):
        if len(view.children) > GRID_AT:
            out_views.append(_grid_view(folder, view, counts, counters, marks))
        else:
            out_views.append(_graph_view(folder, n, view, counts, counters, marks))
    out_views.append(_findings_html(model))

    start = ""
    while len(views[start].children) == 1 and views[start].children[0] in views[start].folders:
        start = views[start].children[0]
    if len(model.packages) >= 2:
        start = "/packages"
    importers: dict[str, list[str]] = {}
    imports: dict[str, list[tuple[str, str]]] = {}
    for a, b in graph.edges:
        importers.setdefault(b, []).append(a)
        imports.setdefault(a, []).append((a, b))
    by_file: dict[str, list[int]] = {}
    for i, f in enumerate(model.findings):
        for path in f.files:
            by_file.setdefault(path, []).append(i)
    details = [_file_detail(f, model, imports, importers, by_file, marks, owner) for f in files]
    summary = _summary(model, marks.on_cycle)
    nav = (
        (
            f'<a href="#/packages" data-go="/packages">Packages ({len(model.packages)})</a>'
            if len(model.packages) >= 2
            else ""
        )
        + '<a href="#/folders" data-open="">Folders</a>'
        + f'<a href="#/findings" data-go="/findings">Findings ({len(model.findings)})</a>'
    )
    return "".join(
        [
            "<!doctype html>\n",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>rofl report: {escape(model.src)}</title><style>{CSS}</style></head><body>",
            f'<header><h1>rofl report</h1><p class="sum">{summary}</p>',
            '<div class="bar"><nav id="top">',
            nav,
            '</nav><div id="finder"><input id="search" type="search" autocomplete="off" '
            'placeholder="Search files, packages, symbols" aria-label="Search files, packages and symbols">'
            '<ul id="results" hidden></ul></div></div>',
            '<p class="legend"><span class="k cyc">on a cycle</span><span class="k cut">import to cut</span>'
            '<span class="k vio">violation</span><span class="k chg">changed</span><span class="k aff">affected</span></p>',
            '<nav id="crumbs"></nav><p id="notice" hidden></p></header>',
            f'<main><div id="graph" data-start="{escape(start)}">',
            *out_views,
            '</div><aside id="side"><section id="files"><p class="hint">Click a file in the graph, '
            "or search for one, to see its imports, importers, cycles and findings here.</p>",
            *details,
            "</section>",
            _impact_html(model),
            "</aside></main>",
            f'<script type="application/json" id="rofl-index">{_index_json(model, files, views)}</script>',
            f"<script>{JS}</script></body></html>\n",
        ]
    )


def _index_json(model: ReportModel, files: tuple[str, ...], views: dict[str, View]) -> str:
    """What the search box looks through: ``[kind, label, route]`` for each file (f), package (p) and
    exported symbol (s, its file's route), as JSON safe inside a script element."""
    entries: list[list[str]] = [["f", f, f] for f in files]
    for name, folder in model.packages:
        route = "" if folder in ("", ".") else folder.rstrip("/")
        entries.append(["p", name, route if route in views else ""])
    entries += [["s", f"{name}  ({path})", path] for name, path in model.symbols]
    text = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _summary(model: ReportModel, on_cycle: frozenset[str]) -> str:
    kinds: dict[str, int] = {}
    for f in model.findings:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    kinds.update(dict(model.counts))
    bits = [
        model.graph.size_text(),
        f"{len(model.graph.edges)} imports" + (" (runtime only)" if model.runtime else ""),
        f"{len(model.cycles)} cycle component(s), {len(on_cycle)} files on cycles",
    ]
    if model.packages:
        bits.append(f"{len(model.packages)} workspace package(s)")
    bits += [f"{n} {k.replace('_', ' ')}" for k, n in sorted(kinds.items()) if k != "cycle"]
    if model.impact is not None:
        bits.append(f"{len(model.impact.affected)} affected by {len(model.impact.changed)} change(s)")
    if model.graph.partial:
        bits.append("PARTIAL: the budget ran out before the evaluation finished (raise --budget)")
    return escape(f"{model.src}: " + ", ".join(bits))


def _goto(path: str, label: str | None = None, folder: bool = False) -> str:
    """A link to a file's (or a folder's) view: a plain in-page address, followed by the browser (so it
    is history too); ``folder`` is the same address, named for the reader of this code."""
    return f'<a href="{escape(href(path))}">{escape(label or path)}</a>'


NAMES = {
    "cycle": "Import cycles",
    "violation": "Rule violations",
    "audit": "Other audit findings",
    "unresolved_import": "Unresolved imports",
    "unused_export": "Unused exports",
    "orphan": "Orphans",
}


def _finding_html(i: int, f: Finding) -> str:
    links = " ".join(_goto(p) for p in f.files[:12])
    more = f" and {len(f.files) - 12} more" if len(f.files) > 12 else ""
    head = escape(f.title)
    if f.severity and f.kind == "violation":
        head = f'<span class="sev {escape(f.severity)}">{escape(f.severity)}</span> ' + head
    extra = ""
    if f.message:
        extra += f'<p class="msg">{escape(f.message)}</p>'
    if f.line is not None and f.files:
        extra += f'<p class="at">{_goto(f.files[0])} line {f.line}</p>'
    return (
        f'<details class="finding {f.kind}" id="finding-{i}"><summary>{head}</summary>{extra}'
        f'<div class="files">{links}{more}</div><pre class="proof">{escape(chr(10).join(f.proof))}</pre></details>'
    )


def _findings_html(model: ReportModel) -> str:
    """The findings view: each kind in a group (cycles and violations open), audit findings by rule."""
    held = dict(model.counts)
    out = ['<div class="view findings-view" data-folder="/findings" hidden><section id="findings"><h2>Findings</h2>']
    indexed = list(enumerate(model.findings))
    for kind in NAMES:
        group = [(i, f) for i, f in indexed if f.kind == kind]
        if not group:
            continue
        total = held.get(kind, len(group))
        shown = f"{total}" if total == len(group) else f"{total}; the first {len(group)} listed"
        out.append(f'<details class="group {kind}"{" open" if kind in ("cycle", "violation", "audit") else ""}>')
        out.append(f"<summary>{NAMES[kind]} ({shown})</summary>")
        if kind == "violation":
            rules: dict[str, int] = {}
            for _, f in group:
                rules[f.rule or ""] = rules.get(f.rule or "", 0) + 1
            out.append(
                '<p class="rules">By rule: '
                + ", ".join(f"{escape(r)} ({n})" for r, n in sorted(rules.items(), key=lambda kv: (-kv[1], kv[0])))
                + "</p>"
            )
        out += [_finding_html(i, f) for i, f in group]
        out.append("</details>")
    if len(out) == 1:
        out.append("<p>No findings.</p>")
    out.append(f'<p class="note">{escape(NOT_ASKED_TEXT)}</p></section></div>')
    return "".join(out)


def _impact_html(model: ReportModel) -> str:
    if model.impact is None:
        return ""
    imp = model.impact
    rows = [f"<li>{escape(d)}</li>" for d in imp.details]
    listed = sorted(imp.affected.items())[:MAX_LISTED]
    chains = [f"<li>{_goto(f)}<div class='via'>via {escape(' -> '.join(via))}</div></li>" for f, via in listed]
    more = f"<p>and {len(imp.affected) - len(listed)} more</p>" if len(imp.affected) > len(listed) else ""
    return (
        f'<section id="impact"><h2>Impact of the change</h2><ul class="changes">{"".join(rows)}</ul>'
        f"<details><summary>{len(imp.affected)} affected file(s)</summary>"
        f'<ul class="affected">{"".join(chains)}</ul>{more}</details></section>'
    )


def _file_detail(path, model: ReportModel, imports, importers, by_file, marks: Marks, owner) -> str:
    """The panel of one file: its findings and cycles first, then each import with its line and
    specifier, then its importers."""
    graph = model.graph
    state = []
    if path in marks.changed:
        state.append("changed")
    if path in marks.affected and model.impact is not None:
        state.append("affected via " + " -> ".join(model.impact.affected[path]))
    found = []
    for i in by_file.get(path, ()):
        f = model.findings[i]
        if f.kind == "cycle":
            continue
        found.append(
            f'<li class="{f.kind}"><a href="#/findings" data-go="/findings" data-finding="{i}">{escape(f.title)}</a></li>'
        )
    cycles = ""
    if path in marks.comp_of:
        comp = model.cycles[marks.comp_of[path]]
        through = [c for c in comp.cycles if path in c][:5]
        arrow = " \u2192 "
        paths = "".join(f"<li>{arrow.join(_goto(p, p.rpartition('/')[2]) for p in c)}</li>" for c in through)
        cuts = "".join(
            f"<li>remove {_goto(e.source)} \u2192 {_goto(e.target)}</li>"
            for e in comp.cut
            if path in (e.source, e.target)
        )
        title = next(f.title for f in model.findings if f.kind == "cycle" and path in f.files)
        cycles = f'<h4>cycles</h4><p class="cycle-title">{escape(title)}</p><ul>{paths}{cuts}</ul>'
    rows = []
    for a, b in imports.get(path, ()):
        sites = "; ".join(f"line {s.line}: {s.source!r} ({', '.join(s.kinds)})" for s in graph.why(a, b))
        rows.append(
            f'<li class="edge" data-from="{escape(a)}" data-to="{escape(b)}">{_goto(b)} <span class="site">{escape(sites)}</span></li>'
        )
    by = "".join(f"<li>{_goto(a)}</li>" for a in sorted(importers.get(path, ())))
    package = owner.get(path)
    return (
        f'<section class="file" data-file-detail="{escape(path)}" hidden><h3>{escape(path)}</h3>'
        + (f'<p class="pkg">package {escape(package)}</p>' if package else "")
        + (f'<p class="state">{escape("; ".join(state))}</p>' if state else "")
        + (f"<h4>findings ({len(found)})</h4><ul class='found'>{''.join(found)}</ul>" if found else "")
        + cycles
        + f"<h4>imports ({len(rows)})</h4><ul class='imports'>{''.join(rows)}</ul>"
        + f"<h4>imported by ({len(importers.get(path, ()))})</h4><ul class='importers'>{by}</ul>"
        + "</section>"
    )


CSS = """
[hidden]{display:none !important}
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{padding:8px 16px;background:#fff;border-bottom:1px solid #ddd}
h1{font-size:18px;margin:0 0 4px}h2{font-size:15px;margin:8px 0}h3{font-size:14px;word-break:break-all}
h4{margin:10px 0 4px}
.bar{display:flex;flex-wrap:wrap;gap:12px;align-items:center}
#top a{margin-right:12px;font-weight:600}
#finder{position:relative;flex:1;min-width:220px;max-width:520px}
#search{width:100%;box-sizing:border-box;padding:4px 8px;font-size:14px}
#results{position:absolute;z-index:10;left:0;right:0;margin:0;padding:0;list-style:none;background:#fff;
  border:1px solid #aaa;max-height:60vh;overflow:auto;box-shadow:0 4px 12px rgba(0,0,0,.15)}
#results li a{display:block;padding:3px 8px;word-break:break-all;text-decoration:none;color:#123}
#results li.on a,#results li a:hover{background:#dfe9f7}
#results .kind{color:#888;font-size:11px;margin-right:6px}
#notice{background:#fff3cd;border:1px solid #e0c060;padding:4px 8px;margin:6px 0}
main{display:flex;gap:0;height:calc(100vh - 150px)}
#graph{flex:1;min-width:0;overflow:auto;background:#fff;border-right:1px solid #ddd}
#side{width:min(560px,42vw);overflow:auto;padding:0 12px}
@media (max-width:800px){main{flex-direction:column;height:auto}#side{width:auto}#graph{max-height:70vh}}
#crumbs a{margin-right:4px}#crumbs span{margin-right:4px;color:#888}
.node rect{fill:#eef3fb;stroke:#7a93b8;stroke-width:1}.node.folder rect{fill:#dfe9f7}
.node{cursor:pointer}.node text{font-size:12px;fill:#123}
.node.cyc rect{stroke:#d11;stroke-width:2.5}.node.aff rect{fill:#ffe680}.node.chg rect{fill:#9cc3ff}
.node.vio rect{stroke:#e67e00;stroke-width:2.5;stroke-dasharray:4 2}.node.sel rect{stroke:#000;stroke-width:3}
.edge{fill:none;stroke:#9aa7b8;stroke-width:1.2}.edge.imp{stroke:#d4a800;stroke-width:2}
.edge.cyc{stroke:#d11;stroke-width:1.8}.edge.cut{stroke-dasharray:6 4;stroke-width:2.5}
.edge.vio{stroke:#e67e00;stroke-width:2.2}
text.count{font-size:11px;fill:#345;paint-order:stroke;stroke:#fff;stroke-width:3px}
marker path{fill:#667}
.grid-view{padding:8px 12px}[data-folder="/packages"] h3,[data-folder="/packages"] table{margin:8px 12px}.note{color:#555;margin:6px 12px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:6px;margin:6px 0}
.card{display:flex;flex-direction:column;padding:4px 8px;border:1px solid #7a93b8;border-radius:5px;
  background:#eef3fb;color:#123;text-decoration:none;overflow:hidden}
.card.folder{background:#dfe9f7}.card .name{font-weight:600;word-break:break-all}.card .counts{color:#556;font-size:11px}
.card.cyc{border:2.5px solid #d11}.card.vio{border:2.5px dashed #e67e00}.card.aff{background:#ffe680}
.card.chg{background:#9cc3ff}.card.sel{border:3px solid #000}
table.pairs td{padding:1px 6px}table.pairs tr.cyc td{color:#b00}
.findings-view{padding:8px 16px}
.legend .k{display:inline-block;margin-right:10px;padding:0 6px;border:2px solid #bbb;border-radius:4px}
.k.cyc{border-color:#d11}.k.cut{border-style:dashed;border-color:#d11}.k.vio{border-color:#e67e00}
.k.chg{background:#9cc3ff}.k.aff{background:#ffe680}
.sev{font-size:11px;padding:0 4px;border-radius:3px;background:#eee}.sev.error{background:#f6c6c6}
.sev.warn{background:#fde3b0}.sev.info{background:#d6e6fb}
pre.proof{white-space:pre-wrap;font-size:11px;background:#f3f3f3;padding:6px;margin:4px 0}
details.finding{margin:2px 0 2px 10px}details.group>summary{font-weight:600;cursor:pointer}
details.finding.hit>summary{background:#ffe680}
.files a,.via{margin-right:6px;font-size:12px}.via{color:#555}.site{color:#666;font-size:11px}
li.edge{word-break:break-all}.hint{color:#888}.pkg{color:#555}.cycle-title{color:#b00}
"""

JS = r"""
(function(){
  var views={},details={},crumbs=document.getElementById('crumbs'),graph=document.getElementById('graph');
  var side=document.getElementById('side'),notice=document.getElementById('notice');
  var hint=document.querySelector('#files .hint'),start=graph.getAttribute('data-start');
  Array.prototype.forEach.call(document.querySelectorAll('div.view'),function(v){views[v.getAttribute('data-folder')]=v;});
  Array.prototype.forEach.call(document.querySelectorAll('[data-file-detail]'),function(d){details[d.getAttribute('data-file-detail')]=d;});
  function parent(p){var i=p.lastIndexOf('/');return i<0?'':p.slice(0,i);}
  function addr(route){return route===''?'#/folders':'#'+encodeURIComponent(route);}
  function link(label,route){var a=document.createElement('a');a.href=addr(route);a.textContent=label;
    a.setAttribute(route.charAt(0)==='/'?'data-go':'data-open',route);return a;}
  function say(text){if(!notice)return;notice.textContent=text||'';notice.hidden=!text;}
  function show(key){
    for(var k in views){views[k].hidden=(k!==key);}
    crumbs.textContent='';
    if(key==='/findings'){crumbs.appendChild(link('(root)',''));var f=document.createElement('span');f.textContent='/ findings';crumbs.appendChild(f);return;}
    if('/packages' in views)crumbs.appendChild(link('(packages)','/packages'));
    crumbs.appendChild(link('(root)',''));
    if(key&&key!=='/packages'){var parts=key.split('/');for(var i=0;i<parts.length;i++){
      var s=document.createElement('span');s.textContent='/';crumbs.appendChild(s);
      crumbs.appendChild(link(parts[i],parts.slice(0,i+1).join('/')));}}
  }
  function file(path){
    show(parent(path) in views?parent(path):'');
    for(var k in details){details[k].hidden=(k!==path);}
    Array.prototype.forEach.call(document.querySelectorAll('.node.sel'),function(n){n.classList.remove('sel');});
    var v=views[parent(path)];var n=v&&v.querySelector('[data-path="'+CSS.escape(path)+'"]');
    if(n){n.classList.add('sel');if(n.scrollIntoView)n.scrollIntoView({block:'center',inline:'center'});}
    if(hint)hint.hidden=true;
    if(side)side.scrollTop=0;
  }
  function decoded(){var raw=location.hash.slice(1);if(!raw)return {raw:raw,path:''};
    try{return {raw:raw,path:decodeURIComponent(raw)};}catch(e){return {raw:raw,path:null};}}
  function route(){
    var h=decoded();say('');
    if(h.path!==null&&h.path in details){file(h.path);return;}
    if(h.path==='/folders'&&!('/folders' in details)){show('');return;}
    if(h.path!==null&&h.path!==''&&h.path in views){show(h.path);return;}
    if(h.raw&&h.path!==''){say('The address #'+h.raw.slice(0,200)+' names no file, folder or view of this report'
      +(h.path===null?' (it is not valid percent-encoding)':'')+'; showing the start view. Use the search box to find a file.');}
    show(start in views?start:'');
  }
  function go(target){var h=addr(target);if(location.hash!==h)location.hash=h;route();}
  document.addEventListener('click',function(e){
    var t=e.target.closest&&e.target.closest('[data-open],[data-file],[data-goto],[data-go]');if(!t)return;e.preventDefault();
    if(t.hasAttribute('data-finding')){var d=document.getElementById('finding-'+t.getAttribute('data-finding'));
      go('/findings');if(d){d.open=true;d.classList.add('hit');var g=d.parentNode;while(g&&g.tagName==='DETAILS'){g.open=true;g=g.parentNode;}
      if(d.scrollIntoView)d.scrollIntoView({block:'start'});}return;}
    var target=t.getAttribute('data-go');
    if(target===null)target=t.hasAttribute('data-open')?t.getAttribute('data-open'):(t.getAttribute('data-file')||t.getAttribute('data-goto'));
    hideResults();go(target);
  });
  var input=document.getElementById('search'),results=document.getElementById('results'),index=null,shown=[];
  function entries(){if(index===null){var el=document.getElementById('rofl-index');
    try{index=el?JSON.parse(el.textContent):[];}catch(e){index=[];}}return index;}
  function hideResults(){if(results){results.hidden=true;}}
  var KIND={f:'file',p:'package',s:'symbol'};
  function search(q){
    q=q.trim().toLowerCase();shown=[];if(!q)return shown;
    var all=entries(),scored=[];
    for(var i=0;i<all.length;i++){var e=all[i],l=e[1].toLowerCase(),at=l.indexOf(q);if(at<0)continue;
      var base=e[0]==='f'?l.slice(l.lastIndexOf('/')+1):l;
      var s=(base===q||base.split('.')[0]===q?0:base.indexOf(q)===0?1:at>=0&&base.indexOf(q)>=0?2:3)*4+(e[0]==='f'?0:e[0]==='p'?1:2);
      scored.push([s,l.length,i]);}
    scored.sort(function(a,b){return a[0]-b[0]||a[1]-b[1]||a[2]-b[2];});
    for(var j=0;j<scored.length&&j<30;j++)shown.push(all[scored[j][2]]);
    shown.total=scored.length;return shown;
  }
  function list(found){
    results.textContent='';
    found.forEach(function(e,i){var li=document.createElement('li');if(i===0)li.className='on';
      var a=document.createElement('a');a.href=addr(e[2]);
      a.setAttribute(e[0]==='p'?'data-open':'data-goto',e[2]);
      var k=document.createElement('span');k.className='kind';k.textContent=KIND[e[0]];a.appendChild(k);
      a.appendChild(document.createTextNode(e[1]));li.appendChild(a);results.appendChild(li);});
    if(!found.length&&input.value.trim()){var li=document.createElement('li');li.textContent='nothing matches';results.appendChild(li);}
    else if(found.total>found.length){var more=document.createElement('li');more.className='kind';
      more.textContent=(found.total-found.length)+' more: type more of the name';results.appendChild(more);}
    results.hidden=!input.value.trim();
  }
  if(input&&results){
    input.addEventListener('input',function(){list(search(input.value));});
    input.addEventListener('keydown',function(e){
      if(e.key==='Enter'&&shown.length){e.preventDefault();var first=shown[0];hideResults();input.blur();go(first[2]);}
      else if(e.key==='Escape'){hideResults();}
    });
    document.addEventListener('keydown',function(e){if(e.key==='/'&&document.activeElement!==input){e.preventDefault();input.focus();}});
  }
  if(window.addEventListener)window.addEventListener('hashchange',route);
  route();
})();
"""
