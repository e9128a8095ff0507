"""Impact on random workspaces equals reachability over a file graph the test builds itself.

The generator writes pnpm/npm-style workspaces: packages with `exports` maps (root, subpaths and a
`./*` pattern), a package without `exports` (its `main`), nested fixture packages that reuse a member's
name, two members that share one name (an importer reaches the one it declares with `link:`; each of
them reaches itself, Node's self-reference), and
files importing each other through relative paths, package names and subpaths.  Each import's target
is decided here, from the rules Node and TypeScript follow, never by asking rofl; `rofl impact
--changed F` must answer exactly `networkx.ancestors(graph, F)`.
"""

from __future__ import annotations

import json
import posixpath
import tempfile
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import write_tree

FILES = ("index", "core", "util", "extra")


@dataclass(frozen=True, slots=True)
class Package:
    folder: str  # relative to the repository
    name: str
    exports: bool  # an exports map; else "main": "src/index.ts"
    subpaths: tuple[str, ...]  # the files (of FILES) offered as "./NAME" besides "." (index)
    pattern: bool  # "./*": "./src/*.ts" as well

    def file(self, stem: str) -> str:
        return f"{self.folder}/src/{stem}.ts"

    def offers(self) -> dict[str, str]:
        """specifier -> the file it resolves to, for every specifier this package answers."""
        out = {self.name: self.file("index")}
        if self.exports:
            for stem in self.subpaths:
                out[f"{self.name}/{stem}"] = self.file(stem)
            if self.pattern:
                for stem in FILES:
                    out.setdefault(f"{self.name}/{stem}", self.file(stem))
        return out

    def manifest(self, dependencies: dict[str, str]) -> str:
        data: dict = {"name": self.name, "version": "1.0.0"}
        if self.exports:
            exports = {".": "./src/index.ts", **{f"./{s}": f"./src/{s}.ts" for s in self.subpaths}}
            if self.pattern:
                exports["./*"] = "./src/*.ts"
            data["exports"] = exports
        else:
            data["main"] = "src/index.ts"
        if dependencies:
            data["dependencies"] = dependencies
        return json.dumps(data)


@dataclass(frozen=True, slots=True)
class Workspace:
    tree: dict[str, str]
    graph: nx.DiGraph  # importer -> imported, files only
    files: tuple[str, ...]


@st.composite
def workspaces(draw) -> Workspace:
    count = draw(st.integers(2, 4))
    members = [
        Package(
            f"packages/p{i}",
            f"@w/p{i}",
            exports=draw(st.booleans()),
            subpaths=tuple(draw(st.lists(st.sampled_from(FILES[1:]), unique=True, max_size=3))),
            pattern=draw(st.booleans()),
        )
        for i in range(count)
    ]
    twin = draw(st.booleans())  # two members named @w/dup: packages/dup-a and packages/dup-b
    if twin:
        members += [
            Package("packages/dup-a", "@w/dup", True, ("core",), False),
            Package("packages/dup-b", "@w/dup", True, ("core",), False),
        ]
    # a nested fixture package reusing a member's name: never a target of that name
    fixture = Package("packages/p0/test/fixtures/app", "@w/p1", False, (), False)
    graph = nx.DiGraph()
    tree: dict[str, str] = {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}),
        fixture.folder + "/package.json": fixture.manifest({}),
        fixture.file("index"): "export const fixture = 1;\n",
    }
    graph.add_node(fixture.file("index"))
    for package in members:
        chosen = draw(st.sampled_from(("dup-a", "dup-b"))) if twin else None
        dependencies = {"@w/dup": f"link:../{chosen}"} if chosen else {}
        tree[package.folder + "/package.json"] = package.manifest(dependencies)
        # what this package's files may import: its own files by relative path, and what other
        # members offer by name (@w/dup: only the one it links)
        options: dict[str, str] = {}
        for other in members:
            if other is package or other.name == "@w/dup" and not other.folder.endswith(chosen or "?"):
                continue
            options.update(other.offers())
        if package.name == "@w/dup":  # a package with exports importing its own name is itself (Node's self-reference)
            options = {k: v for k, v in options.items() if not k.startswith("@w/dup")} | package.offers()
        for stem in FILES:
            importer = package.file(stem)
            graph.add_node(importer)
            lines = []
            for target_stem in draw(st.lists(st.sampled_from(FILES), unique=True, max_size=2)):
                if target_stem != stem:
                    lines.append(f'import "./{target_stem}";')
                    graph.add_edge(importer, package.file(target_stem))
            if options:
                for spec in draw(st.lists(st.sampled_from(sorted(options)), unique=True, max_size=2)):
                    lines.append(f'import "{spec}";')
                    graph.add_edge(importer, options[spec])
            lines.append(f"export const {stem} = 1;")
            tree[importer] = "\n".join(lines) + "\n"
    # the fixture's own importer (a test of p0) imports it by a relative path: a true edge
    test_file = "packages/p0/test/app.test.ts"
    tree[test_file] = f'import "./{posixpath.relpath(fixture.file("index"), posixpath.dirname(test_file))}";\n'
    graph.add_edge(test_file, fixture.file("index"))
    return Workspace(tree, graph, tuple(sorted(graph.nodes)))


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(workspaces(), st.data())
def test_impact_is_reachability_over_the_graph_node_and_typescript_resolve(rofl, workspace, data):
    with tempfile.TemporaryDirectory() as tmp:
        src, facts = Path(tmp) / "src", Path(tmp) / "facts"
        write_tree(src, workspace.tree)
        code, _, err = rofl("scan", src, "--out", facts)
        assert code == 0, err
        for changed in data.draw(st.lists(st.sampled_from(workspace.files), min_size=1, max_size=3, unique=True)):
            code, out, err = rofl("impact", "--facts", facts, "--changed", changed, "--json", "--no-rescan")
            assert code == 0, err
            answer = json.loads(out)
            assert {a["file"] for a in answer["affected"]} == nx.ancestors(workspace.graph, changed), changed
            for entry in answer["affected"]:  # every hop an import of the graph
                hops = list(zip(entry["via"], entry["via"][1:]))
                assert all(workspace.graph.has_edge(a, b) for a, b in hops), entry
