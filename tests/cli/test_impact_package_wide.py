"""Package-wide dependencies (rules/code.rofl): an import of a workspace package that leads to no file
depends on the package's entry files only (never its tests, fixtures or nested packages), `why` and
`depends_on` agree with `impact` on it, and every hop of an impact chain is an import or a hop
labelled package-wide (with the package and why) in JSON and in text.  Modelled on a monorepo whose
root `bench.js` imports a package by name while the package's `e2e/fixtures/app` is a package of its
own."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.impact_fixtures import code_facts
from tests.conftest import write_tree

ROOT = json.dumps({"name": "bench-root", "private": True, "workspaces": ["packages/*"]})
ASTRO = {
    "package.json": ROOT,
    "bench.js": 'import { run } from "@w/astro";\nrun();\n',
    # main names a build output that is not there and no tsconfig maps back: nothing leads anywhere
    "packages/astro/package.json": json.dumps({"name": "@w/astro", "main": "dist/astro-bundle.js"}),
    "packages/astro/src/index.ts": 'export { run } from "./run";\n',
    "packages/astro/src/run.ts": 'import { fmt } from "./fmt";\nexport const run = () => fmt("x");\n',
    "packages/astro/src/fmt.ts": "export const fmt = (s: string) => s;\n",
    "packages/astro/src/run.test.ts": 'import { run } from "./run";\nrun();\n',
    "packages/astro/vitest.config.ts": "export default {};\n",
    "packages/astro/test/fixtures/basic/src/page.ts": "export const page = 1;\n",
    "packages/astro/e2e/fixtures/app/package.json": json.dumps({"name": "@e2e/app"}),
    "packages/astro/e2e/fixtures/app/astro.config.mjs": 'import { run } from "@w/astro";\nexport default run;\n',
    "packages/astro/e2e/fixtures/app/src/main.ts": "export const main = 1;\n",
    # an entry file its package.json names, imported by a subpath it does not have
    "packages/kit/package.json": json.dumps({"name": "@w/kit", "main": "src/index.ts"}),
    "packages/kit/src/index.ts": 'export { a } from "./a";\n',
    "packages/kit/src/a.ts": "export const a = 1;\n",
    "packages/kit/src/b.ts": "export const b = 2;\n",
    "packages/app/package.json": json.dumps({"name": "@w/app"}),
    "packages/app/main.ts": 'import { a } from "@w/kit/missing";\nimport e from "@w/empty";\nexport const m = a + e;\n',
    # a workspace package with no scanned file
    "packages/empty/package.json": json.dumps({"name": "@w/empty"}),
    "packages/empty/data.json": "{}\n",
}


def scan(rofl, tmp: Path, tree: dict[str, str]) -> Path:
    src, facts = tmp / "src", tmp / "facts"
    write_tree(src, tree)
    code, _, err = rofl("scan", src, "--out", facts)
    assert code == 0, err
    return facts


def impact_json(rofl, facts: Path, *changed: str, runtime: bool = False) -> dict:
    args = [a for c in changed for a in ("--changed", c)] + (["--runtime"] if runtime else [])
    code, out, err = rofl("impact", "--facts", facts, *args, "--json", "--no-rescan")
    assert code == 0, err
    return json.loads(out)


def affected(data: dict) -> set[str]:
    return {a["file"] for a in data["affected"]}


def test_a_fallback_depends_on_the_package_sources_never_its_tests_fixtures_or_nested_packages(rofl, tmp_path):
    facts = scan(rofl, tmp_path, ASTRO)
    assert ("src_workspace_import", "bench.js", "@w/astro", "packages/astro") in set(code_facts(facts))
    for untouched in (
        "packages/astro/src/run.test.ts",
        "packages/astro/vitest.config.ts",
        "packages/astro/test/fixtures/basic/src/page.ts",
        "packages/astro/e2e/fixtures/app/src/main.ts",
        "packages/astro/e2e/fixtures/app/astro.config.mjs",
    ):
        assert "bench.js" not in affected(impact_json(rofl, facts, untouched)), untouched
    data = impact_json(rofl, facts, "packages/astro/src/fmt.ts")
    assert affected(data) >= {"bench.js", "packages/astro/e2e/fixtures/app/astro.config.mjs"}
    bench = next(a for a in data["affected"] if a["file"] == "bench.js")
    assert bench["via"] == ["bench.js", "packages/astro/src/fmt.ts"]  # one of the package's sources
    (hop,) = bench["package_wide"]
    assert (hop["from"], hop["to"], hop["package"], hop["folder"], hop["kind"]) == (
        "bench.js",
        "packages/astro/src/fmt.ts",
        "@w/astro",
        "packages/astro",
        "source",
    )
    assert hop["specifiers"] == ["@w/astro"] and "leads to no file" in hop["why"]


def test_a_fallback_on_a_package_with_an_entry_depends_on_the_entry_only(rofl, tmp_path):
    facts = scan(rofl, tmp_path, ASTRO)
    assert "packages/app/main.ts" not in affected(impact_json(rofl, facts, "packages/kit/src/b.ts"))
    data = impact_json(rofl, facts, "packages/kit/src/a.ts")
    main = next(a for a in data["affected"] if a["file"] == "packages/app/main.ts")
    assert main["via"] == ["packages/app/main.ts", "packages/kit/src/index.ts", "packages/kit/src/a.ts"]
    assert [(h["to"], h["kind"]) for h in main["package_wide"]] == [("packages/kit/src/index.ts", "entry")]
    code, out, _ = rofl("impact", "--facts", facts, "--changed", "packages/kit/src/a.ts", "--no-rescan")
    assert code == 0
    assert "via packages/app/main.ts =(package-wide @w/kit)=> packages/kit/src/index.ts -> packages/kit/src/a.ts" in out
    assert "package-wide: packages/app/main.ts imports '@w/kit/missing', which leads to no file of @w/kit" in out


def test_why_and_depends_on_agree_with_impact_on_a_package_wide_edge(rofl, tmp_path):
    facts = scan(rofl, tmp_path, ASTRO)
    code, out, _ = rofl("why", 'depends_on[code]("packages/app/main.ts", "packages/kit/src/a.ts")', "--facts", facts)
    assert code == 0, out
    assert 'package_wide_dependency[code]("packages/app/main.ts", "packages/kit/src/index.ts", "packages/kit")' in out
    code, out, _ = rofl("ask", 'used_by[code]("packages/kit/src/index.ts", A)', "--facts", facts)
    assert code == 0 and '"packages/app/main.ts"' in out
    code, _, _ = rofl("ask", 'dependency[code]("packages/app/main.ts", "packages/kit/src/b.ts")', "--facts", facts)
    assert code == 1  # not an entry file: no edge
    code, out, _ = rofl("ask", 'orphan("packages/kit/src/index.ts")', "--facts", facts)
    assert code == 1  # reached package-wide: imported


def test_a_package_with_no_scanned_file_is_said_not_silently_nothing(rofl, tmp_path):
    facts = scan(rofl, tmp_path, ASTRO)
    data = impact_json(rofl, facts, "packages/kit/src/a.ts")
    assert data["unfollowed_workspace_imports"] == [
        {"file": "packages/app/main.ts", "source": "@w/empty", "folder": "packages/empty"}
    ]
    code, _, err = rofl("impact", "--facts", facts, "--changed", "packages/kit/src/a.ts", "--no-rescan")
    assert code == 0
    assert "name workspace packages with no scanned file to follow (packages/empty)" in err


# -- every hop an import or labelled, on generated workspaces --------------------------------------

KINDS = ("src", "test", "fixture", "nested")


@st.composite
def workspaces(draw) -> dict[str, str]:
    """Packages p0..pN under packages/, each with sources, maybe tests, fixtures and a nested fixture
    package; a main that names a source, a build output that is not there, or nothing; imports by the
    package name, by a subpath it does not have and by relative paths."""
    n = draw(st.integers(1, 3))
    tree: dict[str, str] = {"package.json": ROOT}
    files: list[str] = []
    for i in range(n):
        base = f"packages/p{i}"
        main = draw(st.sampled_from(["src/f0.ts", "dist/gone-bundle.js", None]))
        tree[f"{base}/package.json"] = json.dumps({"name": f"@w/p{i}", **({"main": main} if main else {})})
        for j in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(KINDS)) if j else "src"
            path = {
                "src": f"{base}/src/f{j}.ts",
                "test": f"{base}/src/f{j}.test.ts",
                "fixture": f"{base}/fixtures/f{j}.ts",
                "nested": f"{base}/e2e/app{j}/f{j}.ts",
            }[kind]
            if kind == "nested":
                tree[f"{base}/e2e/app{j}/package.json"] = json.dumps({"name": f"@e2e/app{i}{j}"})
            files.append(path)
    files.append("bench.js")
    body: dict[str, list[str]] = {f: [] for f in files}
    for k, (a, b, how) in enumerate(
        draw(
            st.lists(
                st.tuples(
                    st.sampled_from(files), st.integers(0, n - 1), st.sampled_from(["name", "missing", "relative"])
                ),
                max_size=8,
            )
        )
    ):
        spec = {"name": f"@w/p{b}", "missing": f"@w/p{b}/missing", "relative": None}[how]
        if spec is None:
            target = draw(st.sampled_from(files))
            rel = "/".join([".."] * a.count("/")) or "."
            spec = f"{rel}/{target.removesuffix('.ts').removesuffix('.js')}"
        body[a].append(f'import * as m{k} from "{spec}";')
    for f in files:
        tree[f] = "\n".join(body[f] + ["export const x = 1;"]) + "\n"
    return tree


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(workspaces(), st.data())
def test_every_via_hop_is_an_import_or_labelled_package_wide(rofl, tree, data):
    with tempfile.TemporaryDirectory() as tmp:
        facts = scan(rofl, Path(tmp), tree)
        rows = set(code_facts(facts))
        imports = {(r[1], r[3]) for r in rows if r[0] == "src_resolves"}
        fallbacks = {(r[1], r[3]): r[2] for r in rows if r[0] == "src_workspace_import"}
        nested = {p.removesuffix("/package.json") for p in tree if "/e2e/" in p and p.endswith("package.json")}
        sources = sorted(p for p in tree if p.endswith((".ts", ".js")))
        changed = data.draw(st.sampled_from(sources))
        answer = impact_json(rofl, facts, changed)
        for entry in answer["affected"]:
            via = entry["via"]
            assert via[0] == entry["file"] and via[-1] == changed
            labelled = {(h["from"], h["to"]): h for h in entry.get("package_wide", [])}
            for a, b in zip(via, via[1:]):
                if (a, b) in imports:
                    continue
                hop = labelled.get((a, b))
                assert hop is not None, f"hop {a} -> {b} of {via} is no import and not labelled"
                folder = hop["folder"]
                assert (a, folder) in fallbacks and fallbacks[(a, folder)] in hop["specifiers"]
                assert b.startswith(folder + "/") and not any(b.startswith(d + "/") for d in nested)
                inner = b[len(folder) + 1 :]
                assert ".test." not in inner and not inner.startswith(("fixtures/", "e2e/")), hop


CYCLE = {
    "package.json": ROOT,
    "packages/kit/package.json": json.dumps({"name": "@w/kit", "main": "src/index.ts"}),
    # kit's entry leads back to app twice: every cycle crosses app's package-wide import of kit
    "packages/kit/src/index.ts": 'import { m } from "../../app/main";\nimport { x } from "./x";\nexport const k = m + x;\n',
    "packages/kit/src/x.ts": 'import { m } from "../../app/main";\nexport const x = m;\n',
    "packages/app/package.json": json.dumps({"name": "@w/app"}),
    "packages/app/main.ts": 'export const m = 1;\nimport type { K } from "@w/kit/missing";\nexport type T = K;\n',
}


def test_cycles_and_report_name_the_import_behind_a_cut_package_wide_edge(rofl, tmp_path):
    """A cut edge that is a package-wide dependency is proved by the import of the package that led to
    no file (its line and specifier), in `rofl cycles` (text, JSON, CI formats) and `rofl report`."""
    facts = scan(rofl, tmp_path, CYCLE)
    code, out, _ = rofl("cycles", "--facts", facts, "--json")
    assert code == 1
    (component,) = json.loads(out)["components"]
    assert component["cut"] == [["packages/app/main.ts", "packages/kit/src/index.ts"]]
    (proof,) = component["proofs"]
    assert proof["imports"] == [
        {
            "file": "packages/app/main.ts",
            "source": "@w/kit/missing",
            "line": 2,
            "kinds": ["type"],
            "package_wide": "packages/kit",
        }
    ]
    code, out, _ = rofl("cycles", "--facts", facts)
    assert code == 1
    assert (
        "packages/app/main.ts -> packages/kit/src/index.ts   packages/app/main.ts:2 imports '@w/kit/missing' "
        "(type, package-wide: it leads to no file of packages/kit)" in out
    )
    code, out, _ = rofl("cycles", "--facts", facts, "--format", "github")
    assert "file=packages/app/main.ts,line=2" in out
    # at runtime the type-only import is no edge: no cycle
    code, out, _ = rofl("cycles", "--facts", facts, "--runtime", "--json")
    assert code == 0 and json.loads(out)["components"] == []
    html = tmp_path / "report.html"
    code, _, err = rofl("report", "--facts", facts, "--out", html)
    assert code in (0, 1), err
    assert "imports &#x27;@w/kit/missing&#x27; (type, package-wide" in html.read_text() or (
        "imports '@w/kit/missing' (type, package-wide" in html.read_text()
    )


SUBPATHS = {
    "package.json": ROOT,
    # only a `browser` condition names feat.ts and more.ts: `@w/kit/feat` leads to no file
    "packages/kit/package.json": json.dumps(
        {
            "name": "@w/kit",
            "exports": {
                ".": "./src/index.ts",
                "./feat": {"browser": "./src/feat.ts"},
                "./more/*": {"browser": "./src/more.ts"},
            },
        }
    ),
    "packages/kit/src/index.ts": "export const k = 1;\n",
    "packages/kit/src/feat.ts": "export const f = 1;\n",
    "packages/kit/src/more.ts": "export const q = 1;\n",
    "packages/app/package.json": json.dumps({"name": "@w/app"}),
    "packages/app/feat.ts": 'import { f } from "@w/kit/feat";\nexport const a = f;\n',
    "packages/app/more.ts": 'import { q } from "@w/kit/more/x/y";\nexport const b = q;\n',
    "packages/app/nope.ts": 'import { n } from "@w/kit/nope";\nexport const c = n;\n',
}


def test_an_import_of_a_subpath_stands_for_the_files_offered_under_it(rofl, tmp_path):
    """An import of `@w/kit/feat` that leads to no file depends on what kit offers under `./feat`, not
    on every file kit offers; `@w/kit/more/x/y` on what `./more/*` offers; a subpath the exports map
    does not name on everything kit offers."""
    facts = scan(rofl, tmp_path, SUBPATHS)
    assert affected(impact_json(rofl, facts, "packages/kit/src/index.ts")) == {"packages/app/nope.ts"}
    assert affected(impact_json(rofl, facts, "packages/kit/src/feat.ts")) == {
        "packages/app/feat.ts",
        "packages/app/nope.ts",
    }
    assert affected(impact_json(rofl, facts, "packages/kit/src/more.ts")) == {
        "packages/app/more.ts",
        "packages/app/nope.ts",
    }
    code, out, _ = rofl("ask", 'src_package_subpath[code]("packages/kit", P, S, M)', "--facts", facts, "--json")
    assert code == 0
    assert {(r["P"], r["S"], r["M"]) for r in json.loads(out)["answers"]} == {
        ("packages/kit/src/index.ts", ".", "^@w/kit$"),
        ("packages/kit/src/feat.ts", "./feat", "^@w/kit/feat$"),
        ("packages/kit/src/more.ts", "./more/*", "^@w/kit/more/.*$"),
    }
