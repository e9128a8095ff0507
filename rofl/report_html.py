"""The one self-contained HTML file of `rofl report`: inline SVG per folder, inline CSS and vanilla JS.

Nothing is fetched: no external script, style, font or image.  Each folder is one SVG view of its
children (sub-folders and files) and the imports between them, aggregated at the deepest folder
holding both ends; clicking a folder drills down, clicking a file shows its imports (each with its
line), its importers and its findings.  The page's address ends in the folder or file shown
(``report.html#internal%2Fscheduler``), so a view can be linked.  Files on cycles, cut imports, violations, changed and
affected files are marked, and every finding lists its proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from .cycles_report import greedy_cut
from .report_data import ReportModel

NODE_H = 26
ROW_GAP = 10
COL_GAP = 90
CHAR_W = 7.2
MAX_LABEL = 36


@dataclass(slots=True)
class View:
    """One folder's picture: its children and the aggregated imports between them."""

    folder: str
    children: list[str] = field(default_factory=list)
    folders: set[str] = field(default_factory=set)  # which children are folders
    edges: dict = field(default_factory=dict)  # (child a, child b) -> list of underlying (file a, file b)


def parent(path: str) -> str:
    return path.rpartition("/")[0]


def _views(files: tuple[str, ...], edges: tuple[tuple[str, str], ...]) -> dict[str, View]:
    views: dict[str, View] = {"": View("")}
    for f in files:
        child = f
        folder = parent(f)
        while True:
            view = views.setdefault(folder, View(folder))
            if child not in view.children:
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


def _layout(view: View, widths: dict[str, float]) -> dict[str, tuple[float, float]]:
    """Columns by longest path from the importers once a greedy feedback arc set is set aside (so the
    files of a cycle spread out instead of sharing a column), rows by name."""
    succ: dict[str, list[str]] = {c: [] for c in view.children}
    for a, b in view.edges:
        succ[a].append(b)
    back = greedy_cut(succ, improve=False)  # a drawing needs no fewest back edges, only a quick order
    indeg = dict.fromkeys(view.children, 0)
    for a, targets in succ.items():
        for b in targets:
            if (a, b) not in back and a != b:
                indeg[b] += 1
    layer = dict.fromkeys(view.children, 0)
    ready = [c for c in view.children if indeg[c] == 0]
    while ready:
        a = ready.pop()
        for b in succ[a]:
            if (a, b) in back or a == b:
                continue
            layer[b] = max(layer[b], layer[a] + 1)
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b)
    columns: dict[int, list[str]] = {}
    for c in view.children:
        columns.setdefault(layer[c], []).append(c)
    pos: dict[str, tuple[float, float]] = {}
    x = 20.0
    for col in sorted(columns):
        members = columns[col]
        for row, c in enumerate(members):
            pos[c] = (x, 20.0 + row * (NODE_H + ROW_GAP))
        x += max(widths[c] for c in members) + COL_GAP
    return pos


def _label(view: View, child: str, counts: dict[str, int]) -> str:
    name = child.rpartition("/")[2] or child
    if child in view.folders:
        name = f"{name}/ ({counts.get(child, 0)})"
    return name if len(name) <= MAX_LABEL else name[: MAX_LABEL - 1] + "\u2026"


def render(model: ReportModel) -> str:
    graph = model.graph
    files = tuple(sorted(set(graph.files) | {f for e in graph.edges for f in e}))
    views = _views(files, graph.edges)
    on_cycle = {f for c in model.cycles for f in c.files}
    comp_of = {f: i for i, c in enumerate(model.cycles) for f in c.files}
    cut = {(e.source, e.target) for c in model.cycles for e in c.cut}
    violation_edges = {f.edge for f in model.findings if f.kind == "violation" and f.edge}
    violating = {path for f in model.findings if f.kind == "violation" for path in f.files}
    flagged: dict[str, set[str]] = {}
    for f in model.findings:
        for path in f.files:
            flagged.setdefault(path, set()).add(f.kind)
    changed = set(model.impact.changed) if model.impact else set()
    affected = set(model.impact.affected) if model.impact else set()

    def under(child: str, view: View, members: set[str]) -> int:
        if child not in view.folders:
            return int(child in members)
        prefix = child + "/"
        return sum(1 for m in members if m.startswith(prefix))

    counts = {v: sum(1 for f in files if f.startswith(v + "/")) for v in views if v}
    svgs = []
    for n, (folder, view) in enumerate(sorted(views.items())):
        labels = {c: _label(view, c, counts) for c in view.children}
        widths = {c: 24 + CHAR_W * len(labels[c]) for c in view.children}
        pos = _layout(view, widths)
        width = max((pos[c][0] + widths[c] for c in view.children), default=200) + 80
        height = max((pos[c][1] + NODE_H for c in view.children), default=60) + 20
        parts = [
            f'<div class="view" data-folder="{escape(folder)}" hidden>'
            f'<svg width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">',
            f'<defs><marker id="ar{n}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M0 0L10 5L0 10z"/></marker></defs>',
        ]
        for (a, b), under_edges in sorted(view.edges.items()):
            xa, ya = pos[a]
            xb, yb = pos[b]
            x1, y1 = xa + widths[a], ya + NODE_H / 2
            if xa == xb:  # within one column (a cycle between folders): an arc on the right side
                x2, y2 = xb + widths[b], yb + NODE_H / 2
                bend = max(x1, x2) + 30 + abs(y2 - y1) / 5
                d = f"M{x1:.0f} {y1:.0f}C{bend:.0f} {y1:.0f},{bend:.0f} {y2:.0f},{x2:.0f} {y2:.0f}"
            elif xb < xa:  # a backward import (part of a cycle): left side to the target's right side
                x1, x2, y2 = xa, xb + widths[b], yb + NODE_H / 2
                d = f"M{x1:.0f} {y1:.0f}C{x1 - 50:.0f} {y1:.0f},{x2 + 50:.0f} {y2:.0f},{x2:.0f} {y2:.0f}"
            else:
                x2, y2 = xb, yb + NODE_H / 2
                d = f"M{x1:.0f} {y1:.0f}C{x1 + 60:.0f} {y1:.0f},{x2 - 60:.0f} {y2:.0f},{x2:.0f} {y2:.0f}"
            classes = ["edge"]
            if any(u in cut for u in under_edges):
                classes.append("cut")
            if any(comp_of.get(u[0], -1) == comp_of.get(u[1], -2) for u in under_edges):
                classes.append("cyc")
            if any(u in violation_edges for u in under_edges):
                classes.append("vio")
            if any(u[0] in affected | changed and u[1] in affected | changed for u in under_edges):
                classes.append("imp")
            title = f"{a} -> {b}: {len(under_edges)} import(s)"
            parts.append(
                f'<path class="{" ".join(classes)}" data-from="{escape(a)}" data-to="{escape(b)}" '
                f'd="{d}" '
                f'marker-end="url(#ar{n})"><title>{escape(title)}</title></path>'
            )
        for c in view.children:
            x, y = pos[c]
            is_folder = c in view.folders
            classes = ["node", "folder" if is_folder else "file"]
            extra = []
            for mark, members in (("cyc", on_cycle), ("chg", changed), ("aff", affected)):
                k = under(c, view, members)
                if k:
                    classes.append(mark)
                    extra.append({"cyc": "on cycles", "chg": "changed", "aff": "affected"}[mark] + f": {k}")
            if under(c, view, violating):
                classes.append("vio")
            click = f'data-open="{escape(c)}"' if is_folder else f'data-file="{escape(c)}"'
            tip = c + (f" ({counts.get(c, 0)} files)" if is_folder else "") + "".join(f"; {e}" for e in extra)
            parts.append(
                f'<g class="{" ".join(classes)}" data-path="{escape(c)}" {click} transform="translate({x:.0f},{y:.0f})">'
                f'<rect width="{widths[c]:.0f}" height="{NODE_H}" rx="5"/>'
                f'<text x="10" y="17">{escape(labels[c])}</text><title>{escape(tip)}</title></g>'
            )
        parts.append("</svg></div>")
        svgs.append("".join(parts))

    start = ""
    while len(views[start].children) == 1 and views[start].children[0] in views[start].folders:
        start = views[start].children[0]
    importers: dict[str, list[str]] = {}
    imports: dict[str, list[tuple[str, str]]] = {}
    for a, b in graph.edges:
        importers.setdefault(b, []).append(a)
        imports.setdefault(a, []).append((a, b))
    by_file: dict[str, list[str]] = {}
    for f in model.findings:
        for path in f.files:
            by_file.setdefault(path, []).append(f.title)
    details = [_file_detail(f, model, imports, importers, by_file, flagged, changed, affected) for f in files]
    summary = _summary(model, on_cycle)
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>rofl report: {escape(model.src)}</title><style>{CSS}</style></head><body>"
        f'<header><h1>rofl report</h1><p class="sum">{summary}</p>'
        f'<p class="legend"><span class="k cyc">on a cycle</span><span class="k cut">import to cut</span>'
        f'<span class="k vio">violation</span><span class="k chg">changed</span><span class="k aff">affected</span></p>'
        f'<nav id="crumbs"></nav></header><main><div id="graph" data-start="{escape(start)}">{"".join(svgs)}</div>'
        f'<aside id="side">{_findings_html(model)}{_impact_html(model)}'
        f'<section id="files"><h2>File</h2><p class="hint">Click a file in the graph.</p>{"".join(details)}</section>'
        f"</aside></main><script>{JS}</script></body></html>\n"
    )


def _summary(model: ReportModel, on_cycle: set[str]) -> str:
    kinds: dict[str, int] = {}
    for f in model.findings:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    bits = [
        model.graph.size_text(),
        f"{len(model.graph.edges)} imports" + (" (runtime only)" if model.runtime else ""),
        f"{len(model.cycles)} cycle component(s), {len(on_cycle)} files on cycles",
    ]
    bits += [f"{n} {k.replace('_', ' ')}" for k, n in sorted(kinds.items()) if k != "cycle"]
    if model.impact is not None:
        bits.append(f"{len(model.impact.affected)} affected by {len(model.impact.changed)} change(s)")
    if model.graph.partial:
        bits.append("PARTIAL: the budget ran out before the evaluation finished (raise --budget)")
    return escape(f"{model.src}: " + ", ".join(bits))


def _goto(path: str) -> str:
    return f'<a href="#" data-goto="{escape(path)}">{escape(path)}</a>'


def _findings_html(model: ReportModel) -> str:
    order = ("cycle", "violation", "unresolved_import", "unused_export", "orphan")
    names = {
        "cycle": "Import cycles",
        "violation": "Violations",
        "unresolved_import": "Unresolved imports",
        "unused_export": "Unused exports",
        "orphan": "Orphans",
    }
    out = ['<section id="findings"><h2>Findings</h2>']
    for kind in order:
        group = [f for f in model.findings if f.kind == kind]
        if not group:
            continue
        out.append(f'<details class="group {kind}"{" open" if kind in ("cycle", "violation") else ""}>')
        out.append(f"<summary>{names[kind]} ({len(group)})</summary>")
        for f in group:
            links = " ".join(_goto(p) for p in f.files[:12])
            more = f" and {len(f.files) - 12} more" if len(f.files) > 12 else ""
            out.append(
                f'<details class="finding {kind}"><summary>{escape(f.title)}</summary>'
                f'<div class="files">{links}{more}</div><pre class="proof">{escape(chr(10).join(f.proof))}</pre></details>'
            )
        out.append("</details>")
    if len(out) == 1:
        out.append("<p>No findings.</p>")
    out.append("</section>")
    return "".join(out)


def _impact_html(model: ReportModel) -> str:
    if model.impact is None:
        return ""
    imp = model.impact
    rows = [f"<li>{escape(d)}</li>" for d in imp.details]
    chains = [
        f"<li>{_goto(f)}<div class='via'>via {escape(' -> '.join(via))}</div></li>"
        for f, via in sorted(imp.affected.items())
    ]
    return (
        f'<section id="impact"><h2>Impact of the change</h2><ul class="changes">{"".join(rows)}</ul>'
        f"<details open><summary>{len(imp.affected)} affected file(s)</summary>"
        f'<ul class="affected">{"".join(chains)}</ul></details></section>'
    )


def _file_detail(path, model, imports, importers, by_file, flagged, changed, affected) -> str:
    """The panel of one file: each import with its line and specifier, its importers, its findings."""
    graph = model.graph
    rows = []
    for a, b in imports.get(path, ()):
        sites = "; ".join(f"line {s.line}: {s.source!r} ({', '.join(s.kinds)})" for s in graph.why(a, b))
        rows.append(
            f'<li class="edge" data-from="{escape(a)}" data-to="{escape(b)}">{_goto(b)} <span class="site">{escape(sites)}</span></li>'
        )
    by = "".join(f"<li>{_goto(a)}</li>" for a in sorted(importers.get(path, ())))
    marks = sorted(flagged.get(path, set()))
    state = []
    if path in changed:
        state.append("changed")
    if path in affected and model.impact is not None:
        state.append("affected via " + " -> ".join(model.impact.affected[path]))
    found = "".join(f"<li>{escape(title)}</li>" for title in by_file.get(path, ()))
    return (
        f'<section class="file" data-file-detail="{escape(path)}" hidden><h3>{escape(path)}</h3>'
        + (f'<p class="state">{escape("; ".join(state))}</p>' if state else "")
        + f"<h4>imports ({len(rows)})</h4><ul>{''.join(rows)}</ul>"
        + f"<h4>imported by ({len(importers.get(path, ()))})</h4><ul>{by}</ul>"
        + (f"<h4>findings ({', '.join(marks)})</h4><ul>{found}</ul>" if found else "")
        + "</section>"
    )


CSS = """
[hidden]{display:none !important}
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{padding:8px 16px;background:#fff;border-bottom:1px solid #ddd}
h1{font-size:18px;margin:0 0 4px}h2{font-size:15px;margin:8px 0}h3{font-size:14px;word-break:break-all}
main{display:flex;gap:0;height:calc(100vh - 120px)}
#graph{flex:1;overflow:auto;background:#fff;border-right:1px solid #ddd}
#side{width:min(560px,42vw);overflow:auto;padding:0 12px}
#crumbs a{margin-right:4px}#crumbs span{margin-right:4px;color:#888}
.node rect{fill:#eef3fb;stroke:#7a93b8;stroke-width:1}.node.folder rect{fill:#dfe9f7}
.node{cursor:pointer}.node text{font-size:12px;fill:#123}
.node.cyc rect{stroke:#d11;stroke-width:2.5}.node.aff rect{fill:#ffe680}.node.chg rect{fill:#9cc3ff}
.node.vio rect{stroke:#e67e00;stroke-width:2.5;stroke-dasharray:4 2}.node.sel rect{stroke:#000;stroke-width:3}
.edge{fill:none;stroke:#9aa7b8;stroke-width:1.2}.edge.imp{stroke:#d4a800;stroke-width:2}
.edge.cyc{stroke:#d11;stroke-width:1.8}.edge.cut{stroke-dasharray:6 4;stroke-width:2.5}
.edge.vio{stroke:#e67e00;stroke-width:2.2}
marker path{fill:#667}
.legend .k{display:inline-block;margin-right:10px;padding:0 6px;border:2px solid #bbb;border-radius:4px}
.k.cyc{border-color:#d11}.k.cut{border-style:dashed;border-color:#d11}.k.vio{border-color:#e67e00}
.k.chg{background:#9cc3ff}.k.aff{background:#ffe680}
pre.proof{white-space:pre-wrap;font-size:11px;background:#f3f3f3;padding:6px;margin:4px 0}
details.finding{margin:2px 0 2px 10px}details.group>summary{font-weight:600;cursor:pointer}
.files a,.via{margin-right:6px;font-size:12px}.via{color:#555}.site{color:#666;font-size:11px}
li.edge{word-break:break-all}.hint{color:#888}
"""

JS = """
(function(){
  var views={},details={},crumbs=document.getElementById('crumbs'),graph=document.getElementById('graph');
  Array.prototype.forEach.call(document.querySelectorAll('div.view'),function(v){views[v.getAttribute('data-folder')]=v;});
  Array.prototype.forEach.call(document.querySelectorAll('[data-file-detail]'),function(d){details[d.getAttribute('data-file-detail')]=d;});
  function parent(p){var i=p.lastIndexOf('/');return i<0?'':p.slice(0,i);}
  function link(label,folder){var a=document.createElement('a');a.href='#';a.textContent=label;a.setAttribute('data-open',folder);return a;}
  function show(folder){
    if(!(folder in views))return;
    for(var k in views){views[k].hidden=(k!==folder);}
    if(history.replaceState)history.replaceState(null,'','#'+encodeURIComponent(folder));
    crumbs.textContent='';crumbs.appendChild(link('(root)',''));
    if(folder){var parts=folder.split('/');for(var i=0;i<parts.length;i++){
      var s=document.createElement('span');s.textContent='/';crumbs.appendChild(s);
      crumbs.appendChild(link(parts[i],parts.slice(0,i+1).join('/')));}}
  }
  function file(path){
    show(parent(path) in views?parent(path):'');
    for(var k in details){details[k].hidden=(k!==path);}
    if(history.replaceState)history.replaceState(null,'','#'+encodeURIComponent(path));
    Array.prototype.forEach.call(document.querySelectorAll('.node.sel'),function(n){n.classList.remove('sel');});
    var v=views[parent(path)];var n=v&&v.querySelector('[data-path="'+CSS.escape(path)+'"]');
    if(n){n.classList.add('sel');n.scrollIntoView({block:'center',inline:'center'});}
    document.querySelector('#files .hint').hidden=true;
  }
  document.addEventListener('click',function(e){
    var t=e.target.closest('[data-open],[data-file],[data-goto]');if(!t)return;e.preventDefault();
    if(t.hasAttribute('data-open'))show(t.getAttribute('data-open'));
    else file(t.getAttribute('data-file')||t.getAttribute('data-goto'));
  });
  function fragment(){try{return decodeURIComponent(location.hash.slice(1));}catch(e){return '';}}
  var h=fragment();
  if(h in details)file(h);else show(h in views?h:graph.getAttribute('data-start'));
})();
"""
