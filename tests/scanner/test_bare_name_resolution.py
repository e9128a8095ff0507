"""Bare names resolve as Node resolves them from the importing file: its package scope's own name
(with ``exports``), its declared dependencies (``file:``/``link:``/``workspace:``), then the workspace
members; a package folder that is no member and no dependency names is never a target, and the
repository's own package is its entry fields, never the whole tree."""

from __future__ import annotations

import json
import os
import posixpath
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.scanner.configs import ConfigStore
from rofl.scanner.resolve import Resolver
from rofl.scanner.workspaces import workspace_packages

from tests.conftest import write_tree
from tests.scanner.conftest import read_facts, rel, scan_json


def _json(data: dict) -> str:
    return json.dumps(data)


def _impact(rofl, facts: Path, changed: str) -> set[str]:
    code, out, err = rofl("impact", "--facts", facts, "--changed", changed, "--format", "json")
    assert code == 0, err
    return {a["file"] for a in json.loads(out)["affected"]}


# -- the cases seen on public monorepos -----------------------------------------------------------


def test_the_root_package_name_is_never_the_whole_repository(rofl, repo, out):
    fixtures = {f"packages/app/test/fixtures/case{i}.js": 'import m from "my-monorepo";\n' for i in range(5)}
    src = repo(
        {
            "package.json": _json({"name": "my-monorepo", "private": True, "workspaces": ["packages/*"]}),
            "docs/page.js": "export const title = 'docs';\n",
            "packages/app/package.json": _json({"name": "app"}),
            "packages/app/src/index.js": 'import "my-monorepo/docs/page.js";\n',
            **fixtures,
        }
    )
    scan_json(src, out)
    facts = read_facts(out)
    assert not {r for r in rel(facts, "src_workspace_import") if r[2] in (".", "")}
    assert not {r for r in rel(facts, "src_resolves") if r[1] == "my-monorepo"}
    # a subpath that names a file of the repository is that file, nothing wider
    assert ("packages/app/src/index.js", "my-monorepo/docs/page.js", "docs/page.js") in rel(facts, "src_resolves")
    affected = _impact(rofl, out, "docs/page.js")
    assert not affected & set(fixtures)
    assert affected == {"packages/app/src/index.js"}


@pytest.mark.parametrize(("fields", "target"), [({"main": "lib/entry.js"}, "lib/entry.js"), ({}, None)])
def test_the_root_package_is_its_main_field_never_its_index(repo, out, fields, target):
    src = repo(
        {
            "package.json": _json({"name": "my-monorepo", **fields, "workspaces": ["packages/*"]}),
            "lib/entry.js": "",
            "index.js": "",
            "packages/app/package.json": _json({"name": "app"}),
            "packages/app/index.js": 'import "my-monorepo";\n',
        }
    )
    scan_json(src, out)
    facts = read_facts(out)
    resolved = {r for r in rel(facts, "src_resolves") if r[1] == "my-monorepo"}
    assert resolved == ({("packages/app/index.js", "my-monorepo", target)} if target else set())
    if target is None:
        assert ("packages/app/index.js", "my-monorepo") in rel(facts, "src_unresolved")


def test_a_nested_fixture_named_like_an_npm_package_is_not_its_target(rofl, repo, out):
    src = repo(
        {
            "package.json": _json({"name": "root", "private": True, "workspaces": ["packages/*"]}),
            "packages/x/package.json": _json({"name": "x", "devDependencies": {"typescript": "^5.6.0"}}),
            "packages/x/src/compile.ts": 'import ts from "typescript";\nexport const v = ts.version;\n',
            "packages/x/src/main.ts": 'import { v } from "./compile";\nimport * as t from "typescript";\n',
            "packages/x/test/fixtures/ts/package.json": _json({"name": "typescript", "main": "index.js"}),
            "packages/x/test/fixtures/ts/index.js": "module.exports = {};\n",
        }
    )
    scan_json(src, out)
    facts = read_facts(out)
    assert not {r for r in rel(facts, "src_resolves") if r[2].startswith("packages/x/test/")}
    assert {r for r in rel(facts, "src_external") if r[1] == "typescript"} == {
        ("packages/x/src/compile.ts", "typescript", "typescript"),
        ("packages/x/src/main.ts", "typescript", "typescript"),
    }
    assert _impact(rofl, out, "packages/x/test/fixtures/ts/index.js") == set()


def test_two_packages_with_one_name_resolve_to_the_one_the_importer_depends_on(repo, out):
    src = repo(
        {
            "package.json": _json({"private": True, "workspaces": ["packages/*"]}),
            "packages/shared/package.json": _json({"name": "shared"}),
            "packages/shared/index.js": "",
            "packages/web/package.json": _json({"name": "web", "dependencies": {"shared": "workspace:*"}}),
            "packages/web/index.js": 'import "shared";\n',
            "packages/loose/package.json": _json({"name": "loose"}),  # no declaration: the workspace links it
            "packages/loose/index.js": 'import "shared";\n',
            "packages/app/package.json": _json(
                {"name": "app", "devDependencies": {"shared": "file:./test/fixtures/shared"}}
            ),
            "packages/app/index.js": 'import "shared";\n',
            "packages/app/test/fixtures/shared/package.json": _json({"name": "shared"}),
            "packages/app/test/fixtures/shared/index.js": "",
            "packages/app/test/fixtures/shared/use.js": 'import "shared";\n',  # no exports: not itself
        }
    )
    scan_json(src, out)
    assert {r for r in rel(read_facts(out), "src_resolves") if r[1] == "shared"} == {
        ("packages/web/index.js", "shared", "packages/shared/index.js"),
        ("packages/loose/index.js", "shared", "packages/shared/index.js"),
        ("packages/app/index.js", "shared", "packages/app/test/fixtures/shared/index.js"),
        ("packages/app/test/fixtures/shared/use.js", "shared", "packages/shared/index.js"),
    }


def test_a_package_folder_no_member_and_not_depended_on_is_no_target(repo, out):
    src = repo(
        {
            "package.json": _json({"private": True, "workspaces": ["packages/*"]}),
            "vendor/lib/package.json": _json({"name": "lib"}),
            "vendor/lib/index.js": "",
            "packages/a/package.json": _json({"name": "a"}),
            "packages/a/index.js": 'import "lib";\n',
            "packages/b/package.json": _json({"name": "b", "dependencies": {"lib": "link:../../vendor/lib"}}),
            "packages/b/index.js": 'import "lib";\n',
        }
    )
    scan_json(src, out)
    facts = read_facts(out)
    assert ("packages/a/index.js", "lib", "lib") in rel(facts, "src_external")
    assert {r for r in rel(facts, "src_resolves") if r[1] == "lib"} == {
        ("packages/b/index.js", "lib", "vendor/lib/index.js")
    }


def test_workspace_protocol_names_the_member_its_alias_or_its_path(repo, out):
    src = repo(
        {
            "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n  - 'tools/*'\n",
            "package.json": _json({"name": "root", "private": True}),
            "packages/ui/package.json": _json({"name": "@acme/ui", "exports": {".": "./src/index.ts"}}),
            "packages/ui/src/index.ts": "",
            "tools/cli/package.json": _json({"name": "cli"}),
            "tools/cli/main.ts": "",
            "packages/app/package.json": _json(
                {
                    "name": "app",
                    "dependencies": {
                        "@acme/ui": "workspace:*",
                        "ui": "workspace:@acme/ui@^1",
                        "kit": "workspace:../../tools/cli",
                    },
                }
            ),
            "packages/app/index.ts": 'import "@acme/ui";\nimport "ui";\nimport "kit/main";\n',
        }
    )
    scan_json(src, out)
    assert {r for r in rel(read_facts(out), "src_resolves") if r[0] == "packages/app/index.ts"} == {
        ("packages/app/index.ts", "@acme/ui", "packages/ui/src/index.ts"),
        ("packages/app/index.ts", "ui", "packages/ui/src/index.ts"),
        ("packages/app/index.ts", "kit/main", "tools/cli/main.ts"),
    }


def test_declared_dependencies_name_a_folder_a_member_or_the_registry():
    from rofl.scanner.dependencies import Declared, declared

    manifest = {
        "dependencies": {"a": "^1", "b": "file:../b", "c": "workspace:*", "d": "workspace:@s/d@^2", "e": 3},
        "devDependencies": {"a": "file:ignored", "f": "link:./f", "g": "workspace:../g", "h": "workspace:~1.0"},
        "peerDependencies": {"i": "portal:../i"},
    }
    assert declared(manifest, "a") == Declared(name="a")  # dependencies before devDependencies
    assert declared(manifest, "b") == Declared(folder="../b")
    assert declared(manifest, "c") == Declared(name="c")
    assert declared(manifest, "d") == Declared(name="@s/d")
    assert declared(manifest, "e") == Declared(name="e")
    assert declared(manifest, "f") == Declared(folder="./f")
    assert declared(manifest, "g") == Declared(folder="../g")
    assert declared(manifest, "h") == Declared(name="h")
    assert declared(manifest, "i") == Declared(folder="../i")
    assert declared(manifest, "z") is None and declared(["x"], "a") is None


# -- the property: rofl's answer equals a model of Node's rule, written here -------------------------

NAMES = ("a", "b", "typescript", "@s/c")


@dataclass(frozen=True)
class Pkg:
    folder: str  # relative to SRC, "" for the root
    name: str | None
    deps: tuple[tuple[str, str], ...] = ()  # (name, range)
    exports: bool = False


def _package_json(pkg: Pkg, workspaces: bool) -> str:
    data: dict = {}
    if pkg.name is not None:
        data["name"] = pkg.name
    if pkg.deps:
        data["dependencies"] = dict(pkg.deps)
    if pkg.exports:
        data["exports"] = "./index.js"
    if workspaces:
        data["workspaces"] = ["packages/*"]
    return json.dumps(data)


@st.composite
def workspaces(draw: st.DrawFn) -> tuple[Pkg, ...]:
    """A root, members under packages/, nested fixtures inside members, loose folders under vendor/."""
    names = st.sampled_from(NAMES)
    count = draw(st.integers(1, 3))
    members = [f"packages/p{i}" for i in range(count)]
    fixtures = [f"{m}/test/fixtures/f{j}" for m in members for j in range(draw(st.integers(0, 2)))]
    loose = [f"vendor/v{j}" for j in range(draw(st.integers(0, 2)))]
    packages = [Pkg("", draw(st.sampled_from((*NAMES, "root"))))]
    for folder in members:
        deps: dict[str, str] = {}
        for name in draw(st.lists(names, max_size=3, unique=True)):
            targets = [posixpath.relpath(f, folder) for f in (*fixtures, *loose)]
            kind = draw(st.sampled_from(("^1.0.0", "workspace:*", *("file:" + t for t in targets))))
            deps[name] = kind
        packages.append(Pkg(folder, draw(names), tuple(sorted(deps.items()))))
    for folder in (*fixtures, *loose):
        packages.append(Pkg(folder, draw(names), exports=draw(st.booleans())))
    return tuple(packages)


def node_model(packages: tuple[Pkg, ...], importer: str, name: str) -> str | None:
    """The file Node (with the workspace linked) loads for ``name`` from ``importer``; None: not in the repository."""
    by_folder = {p.folder: p for p in packages}

    def entry(pkg: Pkg) -> str | None:
        if pkg.folder == "":
            return None  # the root declares no exports or main here, and has no index.js
        return f"{pkg.folder}/index.js"

    folder = posixpath.dirname(importer)
    while folder not in by_folder:
        folder = posixpath.dirname(folder)
    scope = by_folder[folder]
    if scope.name == name and scope.exports:
        return entry(scope)
    declared = dict(scope.deps)
    if name in declared and declared[name].startswith("file:"):
        target = posixpath.normpath(posixpath.join(scope.folder, declared[name][len("file:") :]))
        return entry(by_folder[target]) if target in by_folder else None
    members = sorted(
        (p for p in packages if p.folder == "" or posixpath.dirname(p.folder) == "packages"),
        key=lambda p: (p.folder + "/package.json") if p.folder else "package.json",
    )
    for pkg in members:
        if pkg.name == name:
            return entry(pkg)
    return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workspaces())
def test_bare_name_edges_equal_a_model_of_node(packages: tuple[Pkg, ...]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        importer_source = "".join(f'import "{n}";\n' for n in NAMES)
        tree: dict[str, str | bytes] = {"docs/page.js": importer_source}
        for pkg in packages:
            prefix = pkg.folder + "/" if pkg.folder else ""
            tree[prefix + "package.json"] = _package_json(pkg, workspaces=pkg.folder == "")
            if pkg.folder:
                tree[prefix + "index.js"] = importer_source
        write_tree(Path(tmp), tree)
        src = os.path.realpath(tmp)
        files = frozenset(p for p in tree if p.endswith(".js"))
        store = ConfigStore(src)
        listed = tuple(sorted(p for p in tree if p.endswith("package.json")))
        resolver = Resolver(src, files, workspace_packages(src, listed, store), store)
        got: dict[tuple[str, str], str | None] = {}
        want: dict[tuple[str, str], str | None] = {}
        for importer in sorted(files):
            results, _ = resolver.resolve_all(importer, list(NAMES))
            for name, result in zip(NAMES, results, strict=True):
                assert result.kind != "workspace", (importer, name, result)
                got[importer, name] = result.targets[0] if result.targets else None
                want[importer, name] = node_model(packages, importer, name)
        assert got == want
