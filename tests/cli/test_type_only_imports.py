"""Runtime edges: `import type` edges are told apart in the rules (cycles, layering) and in export."""

from __future__ import annotations

import json

import networkx as nx
import pytest

TREE = {
    # a imports b twice: once for a value, once for a type; the edge has both kinds
    "src/a.ts": 'import type { B } from "./b";\nimport { b } from "./b";\nexport const a: B = b;\n',
    # b and c import each other, but only for types: a cycle for the type checker, none at runtime
    "src/b.ts": 'import type { C } from "./c";\nexport type B = { c?: C };\nexport const b: B = {};\n',
    "src/c.ts": 'import type { B } from "./b";\nexport type C = { b?: B };\n',
    # d re-exports a value and imports a type-only name list
    "src/d.ts": 'export { a } from "./a";\nimport { type C } from "./c";\nexport type D = C;\n',
    # e and f form a real runtime cycle
    "src/e.ts": 'import { f } from "./f";\nexport const e = () => f;\n',
    "src/f.ts": 'import { e } from "./e";\nexport const f = () => e;\n',
}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    from tests.cli.impact_fixtures import scan_tree

    return scan_tree(tmp_path_factory.mktemp("runtime"), TREE)


def answers(rofl, query, facts) -> set[tuple[str, ...]]:
    code, out, err = rofl("ask", query, "--facts", facts, "--json")
    assert code == 0, err
    return {tuple(v.strip('"') for v in a.values()) for a in json.loads(out)["answers"]}


def test_runtime_dependency_drops_type_only_edges(rofl, scanned):
    _, facts = scanned
    all_edges = answers(rofl, "dependency[code](A, B)", facts)
    runtime = answers(rofl, "runtime_dependency[code](A, B)", facts)
    assert ("src/b.ts", "src/c.ts") in all_edges and ("src/c.ts", "src/b.ts") in all_edges
    assert runtime == {
        ("src/a.ts", "src/b.ts"),
        ("src/d.ts", "src/a.ts"),
        ("src/e.ts", "src/f.ts"),
        ("src/f.ts", "src/e.ts"),
    }


def test_cycles_over_all_edges_and_over_runtime_edges(rofl, scanned):
    _, facts = scanned
    assert answers(rofl, "in_cycle[code](F)", facts) == {("src/b.ts",), ("src/c.ts",), ("src/e.ts",), ("src/f.ts",)}
    assert answers(rofl, "runtime_in_cycle[code](F)", facts) == {("src/e.ts",), ("src/f.ts",)}
    assert answers(rofl, "runtime_cycle_edge[code](A, B)", facts) == {
        ("src/e.ts", "src/f.ts"),
        ("src/f.ts", "src/e.ts"),
    }


def test_layering_can_forbid_runtime_edges_only(rofl, scanned, tmp_path):
    _, facts = scanned
    rules = tmp_path / "layers.rofl"
    rules.write_text('forbid_runtime("src", "src").\n')
    code, out, _ = rofl("audit", "--facts", facts, "--rules", rules, "--json")
    found = set(json.loads(out)["audits"]["violation"])
    assert code == 1
    assert 'violation[audit]("src/a.ts", "src/b.ts")' in found
    assert not any('"src/c.ts"' in v.split(",")[1] for v in found)  # type-only edges into c are allowed


def test_export_carries_every_kind_of_an_edge(rofl, scanned, tmp_path):
    _, facts = scanned
    target = tmp_path / "deps.graphml"
    assert rofl("export", "dependency", "--facts", facts, "--format", "graphml", "-o", target)[0] == 0
    g = nx.read_graphml(target)
    ab = g.edges["src/a.ts", "src/b.ts"]
    assert ab["import_kinds"] == "static,type" and ab["import_kind"] == "static" and ab["runtime"] is True
    cb = g.edges["src/c.ts", "src/b.ts"]
    assert cb["import_kinds"] == "type" and cb["runtime"] is False
    da = g.edges["src/d.ts", "src/a.ts"]
    assert da["import_kinds"] == "reexport"
    runtime_edges = {(a, b) for a, b, d in g.edges(data=True) if d["runtime"]}
    assert runtime_edges == answers(rofl, "runtime_dependency[code](A, B)", facts)
