"""Derived relations as networkx graphs, written as GraphML, GEXF, node-link JSON, DOT or Mermaid.

The export formats are the keys of ``WRITERS`` (the end of this module): to add one, write a function from a
graph to text and add it there; ``rofl export --format`` and its errors follow.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rofl.engine.base.errors import RoflError
from rofl.engine.terms import Term, canonical_rows, format_term

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from rofl.engine.kernel import Kernel
    from rofl.engine.result import Result

# per-file facts from the scanner that become node attributes: relation -> attribute name
# the kinds an edge can carry, most significant first: `import_kind` is the first one an edge has
KIND_ORDER = ("static", "reexport", "side_effect", "dynamic", "require", "type")
_FILE_COUNTS = {
    "src_func": "functions",
    "src_class": "classes",
    "src_export": "exports",
    "src_import": "imports",
    "src_parse_error": "parse_errors",
}

# the scanner relations ``_annotate`` reads besides the exported relation and in_cycle (a graph over a scan
# alone loads only these and what the exported relation depends on)
ANNOTATES = frozenset(
    {
        *_FILE_COUNTS,
        "src_file",
        "src_external",
        "src_import_kind",
        "src_import_line",
        "src_declaration",
        "src_resolves",
    }
)


def reads(relation: str) -> frozenset[str]:
    """Every relation ``build_graph`` reads to export ``relation`` (stored names)."""
    from rofl.engine.namespace import stored_name

    rel, persp = parse_relation(relation)
    return ANNOTATES | {stored_name(rel, persp), stored_name("in_cycle", "code")}


def node_id(term: Term) -> str:
    return term if type(term) is str else format_term(term)


def parse_relation(text: str) -> tuple[str, str | None]:
    """``NAME`` or ``NAME[PERSPECTIVE]`` (both names as the lexer reads them, engine.lexer.is_name)."""
    from rofl.engine.lexer import is_name  # imported here: `rofl --help` reads FORMATS without loading the engine

    rel, bracket, rest = text.partition("[")
    persp = rest[:-1] if bracket and rest.endswith("]") else None
    if not is_name(rel) or (bracket and (persp is None or not is_name(persp))):
        raise RoflError(
            f"relation '{text}': not a relation name; write NAME or NAME[PERSPECTIVE], e.g. dependency or dependency[code]"
        )
    return rel, persp


def xml_safe(value: object) -> object:
    """Strings with control characters XML cannot hold get them written as \\u{hex}, as ROFL writes them."""
    if isinstance(value, str) and any(ord(c) < 32 and c not in "\t\n\r" or 0xD800 <= ord(c) <= 0xDFFF for c in value):
        return "".join(
            f"\\u{{{ord(c):x}}}" if (ord(c) < 32 and c not in "\t\n\r") or 0xD800 <= ord(c) <= 0xDFFF else c
            for c in value
        )
    return value


def build_graph(kernel: Kernel, relation: str) -> nx.DiGraph:
    import networkx as nx

    from rofl.engine.namespace import stored_name

    rel, persp = parse_relation(relation)
    # in_cycle is a goal too: the nodes on a cycle are marked whatever the kernel evaluated before (a server
    # lends a kernel that earlier questions evaluated; the command line's is fresh)
    result = kernel.evaluate(goals={stored_name(rel, persp), stored_name("in_cycle", "code")})
    if not result.defines(rel, persp):
        raise RoflError(f"relation '{rel}': no rule or fact defines it; check the name (e.g. dependency, depends_on)")
    facts = canonical_rows(result.rows(rel, persp))
    arities = {len(row) - 1 for row in facts}
    if arities and arities != {2}:
        raise RoflError(
            f"relation '{rel}' has arity {', '.join(map(str, sorted(arities)))}; export takes a binary relation"
        )
    graph = nx.DiGraph(name=rel)
    if result.partial:  # the budget ran out: the file says so (and `rofl export` exits 3)
        graph.graph["partial"] = True
    for row in facts:
        a, b = node_id(row[1]), node_id(row[2])
        graph.add_edge(a, b, relation=rel, perspective=row[0])
    _annotate(result, graph)
    return graph


def _annotate(result: Result, graph: nx.DiGraph) -> None:
    """Attach what the facts say about each node: kind, hash, line of a declaration, counts, flags."""
    nodes = set(graph.nodes)

    def rows(rel: str) -> Iterable[tuple]:
        return result.rows(rel, "code")

    for node in graph.nodes:
        graph.nodes[node]["kind"] = "term"
    for row in rows("src_file"):
        if row[1] in nodes:
            graph.nodes[row[1]].update(kind="file", file=row[1], hash=row[2])
    for rel, attr in _FILE_COUNTS.items():
        for row in rows(rel):
            if row[1] in nodes:
                data = graph.nodes[row[1]]
                data[attr] = data.get(attr, 0) + 1
    for rel, kind in (("src_func", "function"), ("src_class", "class")):
        for row in rows(rel):  # (persp, file, name, line): a declaration named like the node
            name = row[2]
            if name in nodes and graph.nodes[name]["kind"] == "term":
                graph.nodes[name].update(kind=kind, file=row[1], line=row[3])
    for row in rows("src_external"):
        if row[3] in nodes and graph.nodes[row[3]]["kind"] == "term":
            graph.nodes[row[3]]["kind"] = "package"
    for row in rows("in_cycle"):
        if row[1] in nodes:
            graph.nodes[row[1]]["in_cycle"] = True
    # import kinds on dependency edges: every kind of every specifier that resolves from A to B
    kinds: dict[tuple, set[str]] = {}
    for r in rows("src_import_kind"):
        if isinstance(r[3], tuple):
            kinds.setdefault((r[1], r[2]), set()).add(r[3][0])
    lines: dict[tuple, set[int]] = {}
    for r in rows("src_import_line"):
        if type(r[3]) is int:
            lines.setdefault((r[1], r[2]), set()).add(r[3])
    declarations = {r[1] for r in rows("src_declaration")}
    edge_specs: dict[tuple[str, str], list[str]] = {}
    for r in rows("src_resolves"):
        if graph.has_edge(r[1], r[3]):
            edge_specs.setdefault((r[1], r[3]), []).append(r[2])
    for (a, b), specs in edge_specs.items():
        specs = sorted(set(specs))
        data = graph.edges[a, b]
        data["specifier"] = " ".join(specs)
        found = set().union(*(kinds.get((a, s), set()) for s in specs))
        if found:
            ordered = sorted(found, key=lambda k: (KIND_ORDER.index(k) if k in KIND_ORDER else len(KIND_ORDER), k))
            data["import_kind"] = ordered[0]  # a value kind wins over `type`
            data["import_kinds"] = ",".join(ordered)
            data["runtime"] = any(k != "type" for k in found) and b not in declarations
        at = sorted(set().union(*(lines.get((a, s), set()) for s in specs)))
        if at:
            data["lines"] = ",".join(map(str, at))


def write(graph: nx.DiGraph, fmt: str) -> str:
    """``graph`` as text in format ``fmt`` (one of ``FORMATS``)."""
    writer = WRITERS.get(fmt)
    if writer is None:
        raise RoflError(f"unknown format '{fmt}'; use one of {', '.join(FORMATS)}")
    return writer(graph)


def _xml_safe_copy(graph: nx.DiGraph) -> nx.DiGraph:
    import networkx as nx

    safe = nx.relabel_nodes(graph, {n: xml_safe(n) for n in graph.nodes}, copy=True)
    for _, data in safe.nodes(data=True):
        data.update({k: xml_safe(v) for k, v in data.items()})
    for _, _, data in safe.edges(data=True):
        data.update({k: xml_safe(v) for k, v in data.items()})
    return safe


def _graphml(graph: nx.DiGraph) -> str:
    import networkx as nx

    return "\n".join(nx.generate_graphml(_xml_safe_copy(graph))) + "\n"


def _gexf(graph: nx.DiGraph) -> str:
    import networkx as nx

    return "\n".join(nx.generate_gexf(_xml_safe_copy(graph))) + "\n"


def _json(graph: nx.DiGraph) -> str:
    import networkx as nx

    return json.dumps(nx.node_link_data(graph, edges="links"), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def _dot_quote(value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def _dot_attrs(data: dict) -> str:
    if not data:
        return ""
    return " [" + ", ".join(f"{k}={_dot_quote(v)}" for k, v in sorted(data.items())) + "]"


def _dot(graph: nx.DiGraph) -> str:
    lines = [f"digraph {_dot_quote(graph.graph.get('name', 'rofl'))} {{"]
    for node, data in sorted(graph.nodes(data=True)):
        lines.append(f"  {_dot_quote(node)}{_dot_attrs(data)};")
    for a, b, data in sorted(graph.edges(data=True)):
        lines.append(f"  {_dot_quote(a)} -> {_dot_quote(b)}{_dot_attrs(data)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mermaid(graph: nx.DiGraph) -> str:
    ids = {node: f"n{i}" for i, node in enumerate(sorted(graph.nodes))}

    def label(node: str) -> str:
        return '"' + node.replace('"', "#quot;") + '"'

    lines = ["graph LR"]
    for node in sorted(graph.nodes):
        lines.append(f"  {ids[node]}[{label(node)}]")
    for a, b in sorted(graph.edges):
        lines.append(f"  {ids[a]} --> {ids[b]}")
    return "\n".join(lines) + "\n"


# the export formats, in the order `rofl export --help` lists them: name -> writer
WRITERS: dict[str, Callable[[nx.DiGraph], str]] = {
    "graphml": _graphml,
    "gexf": _gexf,
    "json": _json,
    "dot": _dot,
    "mermaid": _mermaid,
}
FORMATS = tuple(WRITERS)
