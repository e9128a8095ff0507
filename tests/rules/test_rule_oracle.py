"""Every code rule and preset against an independent oracle (tests/rules/oracle.py, networkx over the
scan's base rows) on hypothesis-generated repositories: .ts/.tsx/.js/.d.ts files (a .js with its
.d.ts beside it), `import type`, `export type ... from`, namespace, side-effect, dynamic and require
imports, named, star and namespace re-exports, import cycles of each kind (self-imports too), a
workspace package imported by name (and by a path it does not have, with or without the entry file
its package.json names), a package whose build output is not there (its tests and fixtures beside its
sources), one with no scanned file, a nested fixture package, a second workspace package importing
the first by a path and by a deep specifier, a .css asset, an npm package, a Node module, a file with
a syntax error, test files and a Next.js route.  A relation that disagrees fails with hypothesis's
smallest repository."""

from __future__ import annotations

import json
import posixpath
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import write_tree
from tests.rules import oracle

PLACES = (
    "src/{}.ts",
    "src/{}.tsx",
    "src/{}.js",
    "src/{}.d.ts",
    "src/{}.test.ts",
    "packages/lib/{}.ts",
    "app/page.tsx",
    "packages/lib/{}.test.ts",
    "packages/lib/fixtures/{}.ts",
    "packages/lib/e2e/app/{}.ts",
    "packages/app/{}.ts",
)
NAMES = ("a", "b", "default")
FORMS = (
    "named",
    "type",
    "namespace",
    "side_effect",
    "dynamic",
    "require",
    "reexport",
    "reexport_as",
    "type_reexport",
    "star",
    "star_as",
)
EXTRAS = (
    "css",
    "npm",
    "dev_npm",
    "undeclared",
    "node",
    "workspace",
    "workspace_missing",
    "ghost",
    "empty",
    "deep",
    "broken",
    "next_config",
    "subpath",
)


@dataclass(frozen=True)
class Repo:
    places: tuple[int, ...]  # per file, an index into PLACES
    exports: tuple[frozenset[str], ...]
    imports: tuple[tuple[int, int, str, str], ...]  # (from, to, form, name)
    js_with_dts: bool
    extras: frozenset[str]
    changed: frozenset[int]


@st.composite
def repos(draw) -> Repo:
    n = draw(st.integers(2, 6))
    places = tuple(draw(st.integers(0, len(PLACES) - 1)) for _ in range(n))
    exports = tuple(draw(st.frozensets(st.sampled_from(NAMES))) for _ in range(n))
    edge = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from(FORMS), st.sampled_from(NAMES))
    imports = tuple(draw(st.lists(edge, max_size=10)))
    return Repo(
        places,
        exports,
        imports,
        draw(st.booleans()),
        draw(st.frozensets(st.sampled_from(EXTRAS))),
        draw(st.frozensets(st.integers(0, n - 1), max_size=2)),
    )


def paths(repo: Repo) -> list[str]:
    out = []
    for i, place in enumerate(repo.places):
        path = PLACES[place].format(f"f{i}")
        out.append(path if path not in out else f"src/f{i}.ts")  # one app/page.tsx
    return out


def specifier(src: str, dst: str) -> str:
    stem = dst.removesuffix(".d.ts") if dst.endswith(".d.ts") else posixpath.splitext(dst)[0]
    if dst.endswith(".test.ts"):
        stem = dst.removesuffix(".ts")
    rel = posixpath.relpath(stem, posixpath.dirname(src))
    return rel if rel.startswith("../") else "./" + rel


def statement(form: str, spec: str, name: str, k: int) -> str:
    binding = "x" if name == "default" else name
    named = "default as " + f"d{k}" if name == "default" else f"{name} as i{k}"
    return {
        "named": f'import {{ {named} }} from "{spec}";',
        "type": f'import type {{ {named} }} from "{spec}";',
        "namespace": f'import * as ns{k} from "{spec}";',
        "side_effect": f'import "{spec}";',
        "dynamic": f'void import("{spec}");',
        "require": f'const r{k} = require("{spec}");',
        "reexport": f'export {{ {name} }} from "{spec}";'
        if name != "default"
        else f'export {{ default }} from "{spec}";',
        "reexport_as": f'export {{ {name} as {binding}{k} }} from "{spec}";',
        "type_reexport": f'export type {{ {name} as t{k} }} from "{spec}";',
        "star": f'export * from "{spec}";',
        "star_as": f'export * as s{k} from "{spec}";',
    }[form]


def sources(repo: Repo) -> dict[str, str]:
    files = paths(repo)
    text = {p: [] for p in files}
    for k, (a, b, form, name) in enumerate(repo.imports):
        text[files[a]].append(statement(form, specifier(files[a], files[b]), name, k))
    for i, p in enumerate(files):
        for name in sorted(repo.exports[i]):
            if p.endswith(".d.ts"):
                text[p].append(
                    "declare const _d: number;\nexport default _d;"
                    if name == "default"
                    else f"export declare const {name}: number;"
                )
            else:
                text[p].append("export default 1;" if name == "default" else f"export const {name} = 1;")
    out = {p: "\n".join(lines) + "\n" for p, lines in text.items()}
    if repo.js_with_dts:
        for p in files:
            if p.endswith(".js") and p.removesuffix(".js") + ".d.ts" not in out:
                out[p.removesuffix(".js") + ".d.ts"] = "export declare const a: number;\n"
    first = files[0]
    extra = {
        "css": ('import "./style.css";', "src/style.css", "body { color: red; }\n"),
        "npm": ('import pad from "left-pad";', None, None),
        "dev_npm": ('import { it } from "vitest";', None, None),
        "undeclared": ('import q from "not-declared";', None, None),
        "node": ('import fs from "fs";\nimport path from "node:path";', None, None),
        "workspace": ('import { a as w } from "@w/lib";', "packages/lib/index.ts", "export const a = 1;\n"),
        "workspace_missing": ('import m from "@w/lib/missing";', None, None),
        "ghost": ('import { g } from "@w/ghost";', "packages/ghost/src/g.ts", "export const g = 1;\n"),
        "empty": ('import e from "@w/empty";', None, None),
        "deep": (None, "packages/app/deep.ts", 'import { a } from "@w/lib/index";\nimport { a as b } from "@w/lib";\n'),
        "broken": (None, "src/broken.ts", 'import { a } from "./f0";\nexport const = ;\n'),
        "next_config": (None, "next.config.js", "module.exports = {};\n"),
        # subpaths of an exports map whose files only a condition the resolver does not take names
        "subpath": (
            'import { f } from "@w/kit/feat";\nimport { q } from "@w/kit/more/x/y";',
            "packages/kit/index.ts",
            "export const k = 1;\n",
        ),
    }
    for name in sorted(repo.extras):
        line, path, body = extra[name]
        if line:
            spec_dir = posixpath.dirname(first)
            line = line.replace(
                "./style.css", posixpath.relpath("src/style.css", spec_dir) if spec_dir != "src" else "./style.css"
            )
            if not line.split('"')[1].startswith((".", "/")) or line.split('"')[1].startswith("../"):
                pass
            out[first] = line + "\n" + out[first]
        if path and path not in out:
            out[path] = body
    out["package.json"] = json.dumps(
        {
            "name": "root",
            "workspaces": ["packages/*"],
            "dependencies": {"left-pad": "1"},
            "devDependencies": {"vitest": "1"},
        }
    )
    out["packages/lib/package.json"] = json.dumps({"name": "@w/lib", "main": "index.ts"})
    out["packages/lib/e2e/app/package.json"] = json.dumps({"name": "lib-e2e-app"})  # a nested fixture package
    out["packages/app/package.json"] = json.dumps({"name": "@w/app"})
    if "workspace" in repo.extras or "deep" in repo.extras:
        out.setdefault("packages/lib/index.ts", "export const a = 1;\n")
    if "ghost" in repo.extras:  # its main is a build output that is not there: no file leads anywhere
        out["packages/ghost/package.json"] = json.dumps({"name": "@w/ghost", "main": "dist/index.js"})
        out["packages/ghost/src/g.test.ts"] = 'import { g } from "./g";\n'
        out["packages/ghost/fixtures/fx.ts"] = "export const fx = 1;\n"
    if "subpath" in repo.extras:
        out["packages/kit/package.json"] = json.dumps(
            {
                "name": "@w/kit",
                "exports": {
                    ".": "./index.ts",
                    "./feat": {"browser": "./feat.ts"},
                    "./more/*": {"browser": "./more.ts"},
                },
            }
        )
        out["packages/kit/feat.ts"] = "export const f = 1;\n"
        out["packages/kit/more.ts"] = "export const q = 1;\n"
    if "empty" in repo.extras:  # a workspace package with no scanned file
        out["packages/empty/package.json"] = json.dumps({"name": "@w/empty"})
    return out


# -- reading rofl's answers -------------------------------------------------------------------------


def strings(row: tuple) -> tuple:
    return tuple(v[0] if type(v) is tuple and len(v) == 1 else v for v in row)


def rows(kernel, query: str) -> set[tuple]:
    """The answers to ``query``; none when no fact and no rule defines its relation (a scan without
    declaration files has no src_declaration rows)."""
    from rofl.engine.base.errors import UnknownRelation

    try:
        return {strings(r) for r in kernel.query(query).rows}
    except UnknownRelation:
        return set()


def base_facts(kernel, tree: dict[str, str]) -> oracle.Facts:
    kinds: dict[tuple[str, str], set[str]] = {}
    for a, s, k in rows(kernel, "src_import_kind[code](A, S, K)"):
        kinds.setdefault((a, s), set()).add(k)
    exports: dict[str, set[str]] = {}
    for p, n in rows(kernel, "src_export[code](P, N)"):
        exports.setdefault(p, set()).add(n)
    packages = {posixpath.dirname(p) or ".": json.loads(t) for p, t in tree.items() if p.endswith("package.json")}
    return oracle.Facts(
        files={p for (p, _) in rows(kernel, "src_file[code](P, H)")},
        resolves=rows(kernel, "src_resolves[code](A, S, B)"),
        kinds=kinds,
        names=rows(kernel, "src_import_name[code](A, S, N, L)"),
        exports=exports,
        declarations={p for (p,) in rows(kernel, "src_declaration[code](P)")},
        entries={p for (p, _) in rows(kernel, "src_entry[code](P, W)")},
        externals=rows(kernel, "src_external[code](A, S, P)"),
        workspace_imports=rows(kernel, "src_workspace_import[code](A, S, D)"),
        packages=packages,
    )


PRESETS = (
    "no_circular",
    "no_runtime_circular",
    "no_orphans",
    "no_dev_dependencies",
    "no_undeclared_packages",
    "no_test_imports_from_production",
    "no_deep_workspace_imports",
)


def compare(repo: Repo) -> None:
    from rofl.scanner.api import scan

    from rofl.loading.kernel import loaded_code_kernel
    from rofl.loading.presets import load_presets

    tree = sources(repo)
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "facts"
        write_tree(src, tree)
        scan(str(src), str(out))
        files = paths(repo)
        rules = Path(tmp) / "rules.rofl"
        changed = sorted(files[i] for i in repo.changed)
        rules.write_text(
            "".join(f"use({p}).\n" for p in PRESETS) + "".join(f"changed({json.dumps(c)}).\n" for c in changed)
        )
        kernel, _ = loaded_code_kernel(str(out), (str(rules),), 10_000_000, use_cache=False)
        load_presets(kernel, out, str(src), (rules,))
        facts = base_facts(kernel, tree)
        g, rg = facts.graph(), facts.graph(runtime=True)
        expected = {
            "dependency[code](A, B)": set(g.edges),
            "runtime_dependency[code](A, B)": set(rg.edges),
            "depends_on[code](A, B)": oracle.closure(g),
            "runtime_depends_on[code](A, B)": oracle.closure(rg),
            "used_by[code](B, A)": {(b, a) for a, b in g.edges},
            "in_cycle[code](F)": {(f,) for f in oracle.on_cycles(g)},
            "runtime_in_cycle[code](F)": {(f,) for f in oracle.on_cycles(rg)},
            "cycle_edge[code](A, B)": oracle.cycle_edges(g),
            "runtime_cycle_edge[code](A, B)": oracle.cycle_edges(rg),
            "orphan(F)": {(f,) for f in oracle.orphans(facts)},
            "affected(F)": {(f,) for f in oracle.affected(facts, set(changed), runtime=False)},
            "package_wide_dependency[code](A, B, D)": oracle.package_wide_edges(facts),
            "unfollowed_workspace_import[code](A, S, D)": oracle.unfollowed_workspace_imports(facts),
            "unused_export(F, N)": oracle.unused_exports(facts),
            "violation[audit](R, A, B)": oracle.presets(facts),
        }
        got = {q: rows(kernel, q) for q in expected}
        got["violation[audit](R, A, B)"] = {r for r in got["violation[audit](R, A, B)"] if r[0] in PRESETS}
        kernel.load_text("impact_via(runtime).\n")
        expected["affected(F) at runtime"] = {(f,) for f in oracle.affected(facts, set(changed), runtime=True)}
        got["affected(F) at runtime"] = rows(kernel, "affected(F)")
        wrong = {q: (sorted(got[q] - e), sorted(e - got[q])) for q, e in expected.items() if got[q] != e}
        assert not wrong, "\n".join(
            [f"{q}: rofl only {extra}, oracle only {missing}" for q, (extra, missing) in wrong.items()]
            + ["", "repository:", *(f"--- {p}\n{t}" for p, t in sorted(tree.items()))]
        )


COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], "derandomize": False}


@pytest.mark.slow
@settings(max_examples=12, **COMMON)
@given(repos())
def test_rules_agree_with_the_oracle(repo):
    compare(repo)


@pytest.mark.slow
@settings(max_examples=300, **COMMON)
@given(repos())
def test_rules_agree_with_the_oracle_on_many_repositories(repo):
    compare(repo)


def test_a_subpath_of_an_exports_map_stands_for_the_files_offered_under_it():
    """`@w/kit/feat` and `@w/kit/more/x/y` lead to no file (only a `browser` condition names them) and
    stand for the files offered under `./feat` and `./more/*`, not for kit's `.` (index.ts).  The rules
    and the oracle agree on it, and on the rest."""
    repo = Repo(
        (0, 1), (frozenset({"a"}), frozenset({"b"})), (), False, frozenset({"subpath", "workspace"}), frozenset({0})
    )
    tree = sources(repo)
    assert '"./feat": {"browser": "./feat.ts"}' in tree["packages/kit/package.json"]
    compare(repo)
