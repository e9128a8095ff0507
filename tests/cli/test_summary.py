"""`rofl summary`: per-file imports/importers, per-package files, edges and instability, leaves; the
numbers against networkx over the scan's own dependency rows on generated monorepos, and the text a
user reads on a small one."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import write_tree

PLACES = ("packages/a/src/{}.ts", "packages/b/src/{}.ts", "packages/c/{}.ts", "tools/{}.ts", "packages/a/{}.test.ts")
PACKAGES = {"packages/a": "@m/a", "packages/b": "@m/b", "packages/c": "@m/c"}


def run(*args: str):
    from rofl.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def monorepo(places: list[int], edges: list[tuple[int, int, bool]]) -> dict[str, str]:
    """Files at ``places``; an edge (i, j, by_name) imports j from i by a relative path, or (when j
    is its package's index) by the package's name."""
    import posixpath

    paths = [PLACES[p].format(f"f{i}") for i, p in enumerate(places)]
    text = {p: [f"export const v{i} = {i};"] for i, p in enumerate(paths)}
    for k, (i, j, by_name) in enumerate(edges):
        a, b = paths[i], paths[j]
        pkg = next((d for d in PACKAGES if b.startswith(d + "/")), None)
        if by_name and pkg:
            spec = PACKAGES[pkg]
            b_index = pkg + "/index.ts"
            text.setdefault(b_index, ["export const index = 1;"])
        else:
            rel = posixpath.relpath(b.removesuffix(".ts"), posixpath.dirname(a))
            spec = rel if rel.startswith("../") else "./" + rel
        text[a].append(f'import {{ v{j} as i{k} }} from "{spec}";')
    tree = {p: "\n".join(lines) + "\n" for p, lines in text.items()}
    tree["package.json"] = json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]})
    for d, name in PACKAGES.items():
        tree[f"{d}/package.json"] = json.dumps({"name": name, "main": "index.ts"})
    return tree


def rows(kernel, query: str) -> set[tuple]:
    return {tuple(v[0] if type(v) is tuple and len(v) == 1 else v for v in r) for r in kernel.query(query).rows}


def expected(kernel) -> dict:
    """The summary computed in Python from the scan's dependency[code] and src_package[code] rows."""
    files = {f for f, _ in rows(kernel, "src_file[code](F, H)")}
    g = nx.DiGraph()
    g.add_nodes_from(files)
    g.add_edges_from(rows(kernel, "dependency[code](A, B)"))
    owner = {f: p for f, p, _ in rows(kernel, "src_package[code](F, P, I)")}
    packages = {}
    for p in set(owner.values()):
        inside = {f for f in files if owner.get(f) == p}
        out_edges = [(a, b) for a, b in g.edges if a in inside and b not in inside]
        in_edges = [(a, b) for a, b in g.edges if b in inside and a not in inside]
        ce, ca = len({b for _, b in out_edges}), len({a for a, _ in in_edges})
        packages[p] = {
            "files": len(inside),
            "internal_imports": len(g.subgraph(inside).edges),
            "outgoing_imports": len(out_edges),
            "incoming_imports": len(in_edges),
            "efferent": ce,
            "afferent": ca,
            "instability": round(ce / (ce + ca), 3) if ce + ca else None,
        }
    return {
        "out": {f: g.out_degree(f) for f in files},
        "in": {f: g.in_degree(f) for f in files},
        "leaves": sorted(f for f in files if g.out_degree(f) == 0),
        "packages": packages,
        "edges": g.number_of_edges(),
    }


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(0, len(PLACES) - 1), min_size=2, max_size=7).flatmap(
        lambda places: st.tuples(
            st.just(places),
            st.lists(
                st.tuples(st.integers(0, len(places) - 1), st.integers(0, len(places) - 1), st.booleans()), max_size=12
            ),
        )
    )
)
@pytest.mark.slow
def test_summary_agrees_with_networkx_on_generated_monorepos(case):
    from rofl.rules import path as shipped
    from rofl.scanner.api import scan

    from rofl.loading.kernel import KernelInputs, build_kernel
    from rofl.questions.summary import summarize

    places, edges = case
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "facts"
        write_tree(src, monorepo(places, edges))
        scan(str(src), str(out))
        kernel = build_kernel(
            KernelInputs((), (), None, facts=str(out), rules=(str(shipped("summary.rofl")),), use_cache=False)
        )
        want = expected(kernel)
        got = summarize(kernel)
        assert {f.file: f.imports for f in got.files} == want["out"]
        assert {f.file: f.importers for f in got.files} == want["in"]
        assert list(got.leaves) == want["leaves"]
        assert got.edges == want["edges"]
        from rofl.questions.answer import to_json
        from rofl.questions.summary import PackageRow

        rows = [to_json(PackageRow.of(p)) for p in got.packages]
        assert {r["package"]: {k: v for k, v in r.items() if k != "package"} for r in rows} == want["packages"]
        result = run("summary", "--facts", str(out), "--json", "--leaves", "--top", "100")
        answer = json.loads(result.output)
        assert answer["totals"]["files"] == len(want["out"]) and answer["leaves"] == want["leaves"]
        assert {p["package"]: p["instability"] for p in answer["packages"]} == {
            p: m["instability"] for p, m in want["packages"].items()
        }


def test_summary_text_names_the_hubs_the_packages_and_the_leaves(tmp_path):
    tree = {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}),
        "packages/core/package.json": json.dumps({"name": "@m/core", "main": "src/index.ts"}),
        "packages/core/src/index.ts": 'export * from "./util";\n',
        "packages/core/src/util.ts": "export const u = 1;\n",
        "packages/web/package.json": json.dumps({"name": "@m/web"}),
        "packages/web/src/page.ts": 'import { u } from "@m/core";\nimport { h } from "./hook";\nexport const p = u + h;\n',
        "packages/web/src/hook.ts": 'import { u } from "@m/core";\nexport const h = u;\n',
        "packages/cli/package.json": json.dumps({"name": "@m/cli"}),
        "packages/cli/main.ts": 'import { u } from "@m/core";\nconsole.log(u);\n',
    }
    write_tree(tmp_path / "src", tree)
    facts = tmp_path / "facts"
    assert run("scan", str(tmp_path / "src"), "--out", str(facts)).exit_code == 0
    result = run("summary", "--facts", str(facts), "--top", "2", "--leaves")
    assert result.exit_code == 0, result.output
    assert result.output == (
        "5 files, 5 imports, 1 leaves, 3 packages\n"
        "\n"
        "files importing the most files:\n"
        "  2  packages/web/src/page.ts\n"
        "  1  packages/cli/main.ts\n"
        "\n"
        "files imported by the most files:\n"
        "  3  packages/core/src/index.ts\n"
        "  1  packages/core/src/util.ts\n"
        "\n"
        "packages by files (files, imports inside / out / in, Ce, Ca, instability):\n"
        "  packages/core: 2 files, 1 / 0 / 3 imports, Ce 0, Ca 3, instability 0.00\n"
        "  packages/web: 2 files, 1 / 2 / 0 imports, Ce 1, Ca 0, instability 1.00\n"
        "\n"
        "most unstable packages (Ce / (Ca + Ce)):\n"
        "  1.00  packages/cli\n"
        "  1.00  packages/web\n"
        "\n"
        "leaves (import no file): 1\n"
        "  packages/core/src/util.ts\n"
    )
