"""`rofl impact` classifies every changed path and never answers a silent zero.

A pnpm monorepo modelled on TanStack/query and zod (packages/*, a root tsconfig with paths, a pnpm
lock file, css next to components, tests beside and under the sources).  Each answer is compared
with networkx ancestors over the edges read straight from the fact files (not through the rules).
"""

from __future__ import annotations

import json
import shutil

import pytest
from rofl.scanner.manifest import read as read_manifest

from tests.cli.impact_fixtures import affected_of, commit_all, git, import_graph, write_tree

LOCK = """lockfileVersion: '9.0'

importers:

  .:
    devDependencies:
      vitest:
        specifier: ^1.0.0
        version: 1.6.0

packages:

  lodash@4.17.21:
    resolution: {integrity: sha512-x}

  loose-envify@1.4.0:
    resolution: {integrity: sha512-w}

  react@18.2.0:
    resolution: {integrity: sha512-y}

  vitest@1.6.0:
    resolution: {integrity: sha512-z}

snapshots:

  lodash@4.17.21: {}

  loose-envify@1.4.0: {}

  react@18.2.0:
    dependencies:
      loose-envify: 1.4.0

  vitest@1.6.0: {}
"""

MONOREPO = {
    "package.json": json.dumps({"name": "demo-root", "private": True, "devDependencies": {"vitest": "^1.0.0"}}),
    "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
    "pnpm-lock.yaml": LOCK,
    "tsconfig.json": json.dumps({"compilerOptions": {"baseUrl": ".", "paths": {"@core/*": ["packages/core/src/*"]}}}),
    "README.md": "# demo\n",
    "docs/logo.png": b"\x89PNG\r\n\x1a\n",
    "packages/core/package.json": json.dumps(
        {"name": "@demo/core", "main": "src/index.ts", "dependencies": {"lodash": "^4.17.0"}}
    ),
    "packages/core/src/index.ts": 'export * from "./math";\nexport type { Num } from "./types";\n',
    "packages/core/src/math.ts": 'import lodash from "lodash";\nimport type { Num } from "./types";\nexport const add = (a: Num, b: Num): Num => lodash.add(a, b);\n',
    "packages/core/src/types.ts": "export type Num = number;\n",
    "packages/core/tests/math.test.ts": 'import { add } from "../src/math";\nimport { describe } from "vitest";\ndescribe("add", () => add(1, 2));\n',
    "packages/core/src/math.test-d.ts": 'import { expectTypeOf } from "vitest";\nimport { add } from "./math";\nexpectTypeOf(add).toBeFunction();\n',
    "packages/core/src/testing.ts": 'import { add } from "./math";\nexport const fixture = add(0, 0);\n',
    "packages/ui/package.json": json.dumps(
        {"name": "@demo/ui", "main": "src/index.ts", "dependencies": {"react": "^18.2.0", "@demo/core": "workspace:*"}}
    ),
    "packages/ui/src/index.ts": 'export { Button } from "./Button";\nexport { legacy } from "./legacy";\n',
    "packages/ui/src/Button.tsx": 'import React from "react";\nimport "./Button.scss";\nimport { add } from "@core/math";\nexport const Button = () => React.createElement("b", null, add(1, 2));\n',
    "packages/ui/src/Button.scss": ".b { color: red; }\n",
    "packages/ui/src/Button.spec.tsx": 'import { Button } from "./Button";\nButton();\n',
    "packages/ui/src/legacy.ts": 'import { old } from "./old";\nexport const legacy = old;\n',
    "packages/ui/src/old.ts": "export const old = 1;\n",
    "packages/app/package.json": json.dumps({"name": "@demo/app", "dependencies": {"@demo/ui": "workspace:*"}}),
    "packages/app/src/main.ts": 'import { Button } from "../../ui/src/index";\nButton();\n',
}


@pytest.fixture
def repo(tmp_path, rofl):
    """``(src, facts)``: the monorepo committed to git and scanned."""
    src = tmp_path / "repo"
    src.mkdir()
    write_tree(src, MONOREPO)
    commit_all(src)
    facts = tmp_path / "facts"
    code, _, err = rofl("scan", src, "--out", facts)
    assert code == 0, err
    return src, facts


def impact_json(rofl, facts, *args: str) -> dict:
    code, out, err = rofl("impact", "--facts", facts, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def affected(data: dict) -> set[str]:
    return {a["file"] for a in data["affected"]}


def deps_readers(facts, path: str) -> set[str]:
    """Files whose resolution consulted ``path``, read from the manifest."""
    manifest = read_manifest(facts)
    return {f for f, e in manifest.files.items() if path in e.resolution_deps}


def externals(facts, packages: set[str] | None = None) -> set[str]:
    from tests.cli.impact_fixtures import code_facts

    return {r[1] for r in code_facts(facts) if r[0] == "src_external" and (packages is None or r[3] in packages)}


def check_chains(data: dict, edges: set[tuple[str, str]], extra: set[tuple[str, str]] = frozenset()) -> None:
    changed = {c for c in data["changed"]}
    for item in data["affected"]:
        via = item["via"]
        assert via[0] == item["file"]
        for a, b in zip(via, via[1:]):
            assert (a, b) in edges or (a, b) in extra or b in changed, via


def test_scanned_source_affects_its_importers_transitively(rofl, repo):
    src, facts = repo
    graph = import_graph(facts)
    data = impact_json(rofl, facts, "--changed", "packages/core/src/math.ts")
    assert data["classified"] == [{"path": "packages/core/src/math.ts", "as": "source", "detail": "scanned source"}]
    assert affected(data) == affected_of(graph, {"packages/core/src/math.ts"})
    assert {"packages/ui/src/Button.tsx", "packages/app/src/main.ts", "packages/core/tests/math.test.ts"} <= affected(
        data
    )
    check_chains(data, set(graph.edges))


def test_runtime_follows_value_imports_only(rofl, repo):
    _, facts = repo
    changed = "packages/core/src/types.ts"
    everything = impact_json(rofl, facts, "--changed", changed)
    runtime = impact_json(rofl, facts, "--changed", changed, "--runtime")
    assert affected(everything) == affected_of(import_graph(facts), {changed})
    assert affected(runtime) == affected_of(import_graph(facts, runtime=True), {changed})
    assert "packages/core/src/math.ts" in affected(everything) and "packages/core/src/math.ts" not in affected(runtime)
    assert runtime["runtime"] is True


def test_deleted_source_affects_the_files_that_named_it(rofl, repo):
    src, facts = repo
    expected = affected_of(import_graph(facts), {"packages/ui/src/old.ts"})  # before the deletion
    (src / "packages/ui/src/old.ts").unlink()
    data = impact_json(rofl, facts, "--changed", "packages/ui/src/old.ts")
    (entry,) = data["classified"]
    assert entry["as"] == "deleted" and "named by the imports of 1 file" in entry["detail"]
    assert (
        affected(data)
        == expected
        == {"packages/ui/src/legacy.ts", "packages/ui/src/index.ts", "packages/app/src/main.ts"}
    )
    assert data["rescanned"] is True
    # the rescan dropped it; asked again (or by git), the manifest's resolution dependencies still know
    again = impact_json(rofl, facts, "--changed", "packages/ui/src/old.ts")
    by_git = impact_json(rofl, facts, "--git-base", "HEAD")
    assert affected(again) == affected(by_git) == expected
    assert again["classified"][0]["as"] == by_git["classified"][0]["as"] == "deleted"
    assert by_git["classified"][0]["detail"] == "deleted since HEAD, named by the imports of 1 file"
    assert by_git["changed"] == ["packages/ui/src/old.ts"]


def test_deleted_source_without_rescan_uses_the_facts_as_they_are(rofl, repo):
    src, facts = repo
    expected = affected_of(import_graph(facts), {"packages/ui/src/old.ts"})
    (src / "packages/ui/src/old.ts").unlink()
    code, out, err = rofl("impact", "--facts", facts, "--changed", "packages/ui/src/old.ts", "--no-rescan", "--json")
    data = json.loads(out)
    assert code == 0 and affected(data) == expected
    assert data["stale"] == ["packages/ui/src/old.ts: deleted since the scan"] and "stale" in err


def test_asset_affects_its_importers(rofl, repo):
    _, facts = repo
    data = impact_json(rofl, facts, "--changed", "packages/ui/src/Button.scss")
    (entry,) = data["classified"]
    assert entry == {"path": "packages/ui/src/Button.scss", "as": "asset", "detail": "asset"}
    graph = import_graph(facts)
    assert graph.has_edge("packages/ui/src/Button.tsx", "packages/ui/src/Button.scss")
    assert affected(data) == affected_of(graph, {"packages/ui/src/Button.scss"})


def test_deleted_asset_affects_its_importers_after_the_rescan_dropped_the_edge(rofl, repo):
    src, facts = repo
    expected = affected_of(import_graph(facts), {"packages/ui/src/Button.scss"})
    (src / "packages/ui/src/Button.scss").unlink()
    for args in (("--changed", "packages/ui/src/Button.scss"), ("--git-base", "HEAD")):
        data = impact_json(rofl, facts, *args)
        (entry,) = data["classified"]
        assert entry["path"] == "packages/ui/src/Button.scss" and entry["as"] == "deleted"
        assert affected(data) == expected and "packages/ui/src/Button.tsx" in expected
    assert not import_graph(facts).has_edge("packages/ui/src/Button.tsx", "packages/ui/src/Button.scss")


def test_tsconfig_affects_every_file_it_governs_and_every_file_its_resolution_read(rofl, repo):
    """The root tsconfig.json names no files/include: it governs every .ts/.tsx file (TypeScript's
    default ``**/*``), beside the files whose resolution read it, and their importers."""
    _, facts = repo
    readers = deps_readers(facts, "tsconfig.json")
    assert "packages/ui/src/Button.tsx" in readers  # its @core/math import went through paths
    data = impact_json(rofl, facts, "--changed", "tsconfig.json")
    assert data["classified"][0]["as"] == "config" and "governs" in data["classified"][0]["detail"]
    graph = import_graph(facts)
    governed = {f for f in read_manifest(facts).files if f.endswith((".ts", ".tsx"))}
    seeds = readers | governed
    assert affected(data) == (seeds | affected_of(graph, seeds)) - {"tsconfig.json"}


def test_package_json_dependency_change_against_git(rofl, repo):
    src, facts = repo
    pkg = src / "packages/ui/package.json"
    manifest = json.loads(pkg.read_text())
    manifest["dependencies"]["react"] = "^18.3.0"
    pkg.write_text(json.dumps(manifest))
    data = impact_json(rofl, facts, "--git-base", "HEAD")
    (entry,) = data["classified"]
    assert entry["path"] == "packages/ui/package.json" and entry["as"] == "config"
    assert "1 dependency changed since HEAD (react)" in entry["detail"]
    importers = externals(facts, {"react"})
    assert importers == {"packages/ui/src/Button.tsx"}
    readers = deps_readers(facts, "packages/ui/package.json")
    seeds = importers | readers
    assert affected(data) == seeds | affected_of(import_graph(facts), seeds)


def test_package_json_range_change_of_a_workspace_package_counts_its_importers(rofl, repo):
    """``"@demo/ui": "workspace:*"`` -> ``"^2.0.0"`` may swap the link for a published version: the
    files importing @demo/ui by name count, though their import resolves to the workspace's source."""
    src, facts = repo
    (src / "packages/app/src/widget.ts").write_text('import { Button } from "@demo/ui";\nexport const w = Button;\n')
    git(src, "add", "packages/app/src/widget.ts")
    git(src, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "widget")
    pkg = src / "packages/app/package.json"
    pkg.write_text(json.dumps({"name": "@demo/app", "dependencies": {"@demo/ui": "^2.0.0"}}))
    data = impact_json(rofl, facts, "--git-base", "HEAD")
    (entry,) = data["classified"]
    assert entry["as"] == "config"
    assert "1 dependency changed since HEAD (@demo/ui), imported by 1 file" in entry["detail"], entry["detail"]
    graph = import_graph(facts)
    assert graph.has_edge("packages/app/src/widget.ts", "packages/ui/src/index.ts")
    seeds = {"packages/app/src/widget.ts"} | deps_readers(facts, "packages/app/package.json")
    assert affected(data) == seeds | affected_of(graph, seeds)


def test_lock_file_against_git_affects_importers_of_the_packages_whose_versions_changed(rofl, repo):
    src, facts = repo
    lock = src / "pnpm-lock.yaml"
    lock.write_text(lock.read_text().replace("lodash@4.17.21", "lodash@4.17.22"))
    data = impact_json(rofl, facts, "--git-base", "HEAD")
    (entry,) = data["classified"]
    assert (
        entry["as"] == "lockfile"
        and "1 package locked differently since HEAD" in entry["detail"]
        and "(lodash)" in entry["detail"]
    )
    importers = externals(facts, {"lodash"})
    assert importers == {"packages/core/src/math.ts"}
    assert affected(data) == importers | affected_of(import_graph(facts), importers)


def test_lock_file_change_of_a_transitive_dependency_reaches_the_importers_of_its_dependents(rofl, repo):
    src, facts = repo
    lock = src / "pnpm-lock.yaml"
    lock.write_text(
        lock.read_text()
        .replace("loose-envify@1.4.0", "loose-envify@1.4.1")
        .replace("loose-envify: 1.4.0", "loose-envify: 1.4.1")
    )
    data = impact_json(rofl, facts, "--git-base", "HEAD")
    (entry,) = data["classified"]
    assert "1 package locked differently since HEAD (+1 requiring them), 1 imported one (react)" in entry["detail"]
    importers = externals(facts, {"react"})
    assert affected(data) == importers | affected_of(import_graph(facts), importers)


def test_bun_lock_against_git_affects_importers_of_the_packages_whose_versions_changed(rofl, tmp_path):
    from tests.cli.test_impact_lockfiles import BUN

    src = tmp_path / "bun"
    write_tree(
        src,
        {
            "package.json": json.dumps({"name": "app", "dependencies": {"react": "^18.2.0", "zod": "^3"}}),
            "bun.lock": BUN,
            "a.ts": 'import React from "react";\nexport const a = React;\n',
            "b.ts": 'import { z } from "zod";\nexport const b = z;\n',
            "c.ts": 'import { a } from "./a";\nexport const c = a;\n',
        },
    )
    commit_all(src)
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    (src / "bun.lock").write_text(BUN.replace("js-tokens@4.0.0", "js-tokens@4.0.1"))
    data = impact_json(rofl, facts, "--git-base", "HEAD")
    (entry,) = data["classified"]
    assert (
        entry["as"] == "lockfile" and "1 package locked differently since HEAD (+3 requiring them)" in entry["detail"]
    )
    assert affected(data) == {"a.ts"} | affected_of(import_graph(facts), {"a.ts"}) == {"a.ts", "c.ts"}


def test_lock_file_without_a_base_or_unreadable_counts_every_package(rofl, repo):
    src, facts = repo
    everyone = externals(facts)
    expected = everyone | affected_of(import_graph(facts), everyone)
    data = impact_json(rofl, facts, "--changed", "pnpm-lock.yaml")
    assert "no --git-base" in data["classified"][0]["detail"] and affected(data) == expected
    (src / "pnpm-lock.yaml").write_text("\x00garbage")
    (src / "yarn.lock").write_text("")
    git(src, "add", "yarn.lock")
    data = impact_json(rofl, facts, "--git-base", "HEAD")
    lock = next(c for c in data["classified"] if c["path"] == "pnpm-lock.yaml")
    assert lock["as"] == "lockfile" and "cannot be read" in lock["detail"]
    assert affected(data) == expected


def test_folder_changes_every_scanned_file_under_it(rofl, repo):
    _, facts = repo
    data = impact_json(rofl, facts, "--changed", "packages/core")
    (entry,) = data["classified"]
    inside = {f for f in json.loads((facts / "manifest.json").read_text())["files"] if f.startswith("packages/core/")}
    assert entry["as"] == "folder" and entry["detail"] == f"folder, {len(inside)} scanned files under it"
    assert affected(data) == affected_of(import_graph(facts), inside)
    assert set(data["files"]) == inside | affected(data)


def test_path_that_exists_nowhere_is_refused_with_the_closest_paths(rofl, repo):
    _, facts = repo
    code, out, err = rofl("impact", "--facts", facts, "--changed", "packages/core/src/mth.ts")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert (
        "'packages/core/src/mth.ts'" in err
        and "did you mean packages/core/src/math.ts" in err
        and "Traceback" not in err
    )
    # files that are no scanned source are suggested too, from the folder the path names
    code, out, err = rofl("impact", "--facts", facts, "--changed", "READNE.md", "--changed", "pnpm-lock.yml")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "'READNE.md' (did you mean README.md" in err and "'pnpm-lock.yml' (did you mean pnpm-lock.yaml" in err


def test_a_path_git_lists_is_never_refused_even_when_its_blob_is_absent(rofl, repo):
    """A partial clone (or a large file left out) has the tree entry but not the blob: git still lists
    the deleted path, and impact counts it outside the scan instead of refusing it as unknown."""
    src, facts = repo
    blob = git(src, "rev-parse", "HEAD:docs/logo.png").strip()
    (src / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    (src / "docs" / "logo.png").unlink()
    code, out, err = rofl("impact", "--facts", facts, "--git-base", "HEAD", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["classified"] == [
        {
            "path": "docs/logo.png",
            "as": "outside",
            "detail": "deleted since HEAD, never scanned and no import probes it",
        }
    ]
    assert data["affected"] == []


def test_a_path_through_a_symlink_is_the_scanned_file_it_reaches(rofl, tmp_path):
    """The scan knows a symlinked file by its real path (one file, one node): a changed link, or a path
    through a linked folder, affects what changing the real file or folder affects, plus the files
    whose imports named the link."""
    import os

    src = tmp_path / "src"
    write_tree(
        src,
        {
            "lib/a.ts": "export const a = 1;\n",
            "lib/more.ts": 'import { a } from "./a";\nexport const more = a;\n',
            "b.ts": 'import { a } from "./link";\nexport const b = a;\n',
            "c.ts": 'import { a } from "./libdir/a";\nexport const c = a;\n',
            "d.ts": 'import { c } from "./c";\nexport const d = c;\n',
        },
    )
    try:
        os.symlink("lib/a.ts", src / "link.ts")
        os.symlink("lib", src / "libdir")
    except OSError:
        pytest.skip("no symlinks here")
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    graph = import_graph(facts)
    assert set(graph.nodes) == {"lib/a.ts", "lib/more.ts", "b.ts", "c.ts", "d.ts"}
    for path, real, how in (
        ("link.ts", {"lib/a.ts"}, "symlink to lib/a.ts (scanned source), named by the imports of 1 file"),
        ("libdir/a.ts", {"lib/a.ts"}, "through a symlink, lib/a.ts (scanned source), named by the imports of 1 file"),
        (
            "libdir",
            {"lib/a.ts", "lib/more.ts"},
            "symlink to lib (folder, 2 scanned files under it), named by the imports of 1 file",
        ),
    ):
        data = impact_json(rofl, facts, "--changed", path)
        assert data["classified"][0]["detail"] == how
        assert affected(data) == affected_of(graph, real) and {"b.ts", "c.ts", "d.ts"} <= affected(data)
        assert set(data["files"]) == affected(data) | real


def test_paths_no_scan_holds_but_imports_probe(rofl, tmp_path):
    """An excluded file an import resolves to, a folder of such files, a file an import names that is
    not on disk, and (from the facts as they are) a new file an unresolved import names."""
    src = tmp_path / "src"
    write_tree(
        src,
        {
            "gen/data.js": "export const d = 1;\n",
            "a.ts": 'import { d } from "./gen/data.js";\nimport { x } from "./missing";\nexport const a = d + x;\n',
            "b.ts": 'import { a } from "./a";\nexport const b = a;\n',
            "c.ts": "export const c = 1;\n",
        },
    )
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts, "--exclude", "gen/**")[0] == 0
    graph = import_graph(facts)
    expected = {"a.ts"} | affected_of(graph, {"a.ts"})
    assert expected == {"a.ts", "b.ts"}
    for path, kind, detail in (
        ("gen/data.js", "asset", "asset"),
        ("gen", "probed", "folder no scanned file lies in, probed by the imports of 1 file"),
        ("missing.ts", "deleted", "not on disk (deleted, or not created yet), named by the imports of 1 file"),
    ):
        data = impact_json(rofl, facts, "--changed", path)
        assert data["classified"] == [{"path": path, "as": kind, "detail": detail}]
        assert affected(data) == expected
    (src / "missing.ts").write_text("export const x = 1;\n")
    code, out, err = rofl("impact", "--facts", facts, "--changed", "missing.ts", "--no-rescan", "--json")
    data = json.loads(out)
    assert data["classified"] == [
        {"path": "missing.ts", "as": "probed", "detail": "not scanned, probed by the imports of 1 file"}
    ]
    assert affected(data) == expected and data["stale"] == ["missing.ts: added since the scan"]


def test_paths_outside_the_scan_are_counted_in_one_line(rofl, repo):
    src, facts = repo
    (src / "docs" / "guide.md").write_text("hi\n")
    code, out, err = rofl(
        "impact", "--facts", facts, "--changed", "README.md", "--changed", "docs/logo.png", "--changed", "docs/guide.md"
    )
    assert code == 0
    assert out.splitlines()[0] == "0 file(s) affected by 3 changed paths"
    lines = [line for line in err.splitlines() if "outside the scan" in line]
    assert len(lines) == 1 and "3 changed path(s)" in lines[0] and "README.md" in lines[0]


def test_formats_tests_and_packages(rofl, repo):
    _, facts = repo
    changed = "packages/core/src/math.ts"
    data = impact_json(rofl, facts, "--changed", changed)
    code, names, _ = rofl("impact", "--facts", facts, "--changed", changed, "--format", "names")
    assert code == 0 and names.splitlines() == data["files"] == sorted({changed} | affected(data))
    code, alias, _ = rofl("impact", "--facts", facts, "--changed", changed, "--format", "json")
    assert json.loads(alias) == data
    code, text, _ = rofl("impact", "--facts", facts, "--changed", changed)
    head, *rest = text.splitlines()
    assert head == f"{len(data['affected'])} file(s) affected by {changed}" and len(head) < 80
    assert f"changed: {changed} (scanned source)" in rest
    # tests: by convention (*.test.*, *.spec.*, tests/), or by the globs given
    code, tests, _ = rofl("impact", "--facts", facts, "--changed", changed, "--tests", "--format", "names")
    assert tests.splitlines() == [
        "packages/core/src/math.test-d.ts",
        "packages/core/tests/math.test.ts",
        "packages/ui/src/Button.spec.tsx",
    ]
    reached = {changed} | affected_of(import_graph(facts), {changed})
    assert tests.splitlines() == sorted(f for f in reached if ".test" in f or ".spec" in f or "/tests/" in f)
    # a changed test file is listed to run too, though it is not "affected"
    code, tests, _ = rofl(
        "impact", "--facts", facts, "--changed", "packages/core/tests/math.test.ts", "--tests", "--format", "names"
    )
    assert tests.splitlines() == ["packages/core/tests/math.test.ts"]
    code, tests, _ = rofl(
        "impact", "--facts", facts, "--changed", changed, "--tests", "--test-glob", "*.spec.tsx", "--format", "names"
    )
    assert tests.splitlines() == ["packages/ui/src/Button.spec.tsx"]
    code, tests, err = rofl(
        "impact", "--facts", facts, "--changed", changed, "--tests", "--test-glob", "*.e2e.ts", "--format", "names"
    )
    assert code == 0 and tests == ""
    assert f"{len(data['affected'])} file(s) affected, none a test file by the --test-glob globs" in err
    code, text, _ = rofl("impact", "--facts", facts, "--changed", changed, "--tests")
    assert text.splitlines()[0] == f"3 test file(s) affected by {changed}"
    # packages: the workspace packages holding a changed or affected file
    code, pkgs, _ = rofl("impact", "--facts", facts, "--changed", changed, "--packages", "--format", "names")
    assert pkgs.splitlines() == ["@demo/app", "@demo/core", "@demo/ui"]
    code, pkgs, _ = rofl("impact", "--facts", facts, "--changed", "packages/ui/src/legacy.ts", "--packages", "--json")
    assert [p["name"] for p in json.loads(pkgs)["packages"]] == ["@demo/app", "@demo/ui"]


def test_packages_say_when_affected_files_lie_in_no_package(rofl, tmp_path):
    src = tmp_path / "src"
    write_tree(
        src,
        {
            "pkg/package.json": json.dumps({"name": "pkg"}),
            "pkg/a.ts": "export const a = 1;\n",
            "tools/b.ts": 'import { a } from "../pkg/a";\nexport const b = a;\n',
        },
    )
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    code, out, err = rofl("impact", "--facts", facts, "--changed", "pkg/a.ts", "--packages")
    assert code == 0 and out.splitlines()[0] == "1 package(s) affected by pkg/a.ts"
    assert "1 affected or changed file(s) lie in no package" in err and "tools/b.ts" in err
    data = impact_json(rofl, facts, "--changed", "pkg/a.ts", "--packages")
    assert affected(data) == affected_of(import_graph(facts), {"pkg/a.ts"}) == {"tools/b.ts"}
    assert [p["name"] for p in data["packages"]] == ["pkg"] and data["unpackaged"] == ["tools/b.ts"]


def test_bad_flag_combinations_are_one_line_errors(rofl, repo):
    _, facts = repo
    for args, needle in [
        (("--changed", "README.md", "--json", "--format", "names"), "disagree"),
        (("--changed", "README.md", "--test-glob", "*.t.ts"), "--test-glob needs --tests"),
        (("--git-base", "-x"), "--git-base"),
    ]:
        code, out, err = rofl("impact", "--facts", facts, *args)
        assert code == 2 and len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err


def test_a_budget_cut_short_exits_3_in_every_format(rofl, repo):
    """A partial answer may miss affected files (a CI job would skip their tests): never exit 0."""
    _, facts = repo
    for fmt in ("text", "json", "names"):
        code, out, err = rofl(
            "impact", "--facts", facts, "--changed", "packages/core/src/math.ts", "--format", fmt, "--budget", "3"
        )
        assert code == 3 and "partial" in err and "raise --budget" in err, (fmt, err)
        if fmt == "json":
            assert json.loads(out)["partial"] is True


def test_rescan_brings_new_edges_and_no_rescan_says_stale(rofl, repo):
    src, facts = repo
    (src / "packages/core/src/extra.ts").write_text('import { add } from "./math";\nexport const two = add(1, 1);\n')
    code, out, err = rofl("impact", "--facts", facts, "--changed", "packages/core/src/math.ts", "--no-rescan", "--json")
    data = json.loads(out)
    assert affected(data) == affected_of(import_graph(facts), {"packages/core/src/math.ts"})  # the facts as they are
    assert "packages/core/src/extra.ts" not in affected(data)
    assert data["stale"] == ["packages/core/src/extra.ts: added since the scan"] and data["rescanned"] is False
    data = impact_json(rofl, facts, "--changed", "packages/core/src/math.ts")
    assert "packages/core/src/extra.ts" in affected(data) and data["stale"] is None
    assert affected(data) == affected_of(import_graph(facts), {"packages/core/src/math.ts"})  # after the rescan
    code, out, err = rofl("impact", "--facts", facts, "--changed", "packages/core/src/math.ts", "--no-rescan")
    assert "up to date" in err


def test_a_rescan_that_changes_the_facts_drops_the_earlier_signature(rofl, tmp_path, monkeypatch):
    """The signature vouched for the facts before the rescan: kept, it would read as an edited
    manifest; dropped, as `rofl scan` without --sign-key drops it."""
    src = tmp_path / "src"
    write_tree(src, {"a.ts": "export const a = 1;\n", "b.ts": 'import { a } from "./a";\nexport const b = a;\n'})
    assert rofl("keygen", "--out", tmp_path / "ci")[0] == 0
    monkeypatch.setenv("ROFL_TEST_IMPACT_KEY", (tmp_path / "ci.key").read_text())
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts, "--sign-key", "ROFL_TEST_IMPACT_KEY")[0] == 0
    code, _, err = rofl("impact", "--facts", facts, "--changed", "a.ts")  # nothing changed: kept
    assert code == 0 and (facts / "manifest.sig").exists() and "signature" not in err
    (src / "c.ts").write_text('import { b } from "./b";\nexport const c = b;\n')
    data = impact_json(rofl, facts, "--changed", "a.ts")
    assert affected(data) == affected_of(import_graph(facts), {"a.ts"}) == {"b.ts", "c.ts"}
    assert not (facts / "manifest.sig").exists()
    code, _, err = rofl("impact", "--facts", facts, "--changed", "b.ts", "--public-key", tmp_path / "ci.pub")
    assert code != 0 and "no signature" in err and "refusing" in err


def test_missing_fact_files_make_the_answer_incomplete_and_say_so(rofl, repo):
    """A listed fact file that is gone: from the facts as they are, JSON lists it under "incomplete" and
    stderr never says "up to date"; the rescan writes it again and the answer is whole."""
    _, facts = repo
    graph = import_graph(facts)
    manifest = json.loads((facts / "manifest.json").read_text())
    gone = manifest["files"]["packages/ui/src/legacy.ts"]["facts"]
    (facts / gone).unlink()
    code, out, err = rofl("impact", "--facts", facts, "--changed", "packages/ui/src/old.ts", "--no-rescan", "--json")
    data = json.loads(out)
    assert code == 0 and data["incomplete"] == [gone] and data["stale"] == []
    assert "incomplete" in err and "up to date" not in err
    assert affected(data) < affected_of(graph, {"packages/ui/src/old.ts"})  # legacy.ts's import is not loaded
    data = impact_json(rofl, facts, "--changed", "packages/ui/src/old.ts")
    assert data["incomplete"] == [] and affected(data) == affected_of(graph, {"packages/ui/src/old.ts"})
    assert (facts / gone).exists()


def test_imports_of_bundler_aliases_rofl_does_not_follow_are_said(rofl, tmp_path):
    """$lib (SvelteKit), ~utils and @/x (vite resolve.alias) are no npm package names: impact cannot
    reach through them, and says so (text: one stderr line; JSON: unfollowed_aliases); node:fs and
    react are packages, not aliases."""
    src = tmp_path / "src"
    write_tree(
        src,
        {
            "lib/util.ts": "export const u = 1;\n",
            "a.ts": 'import { u } from "$lib/util";\nimport fs from "node:fs";\nimport React from "react";\nexport const a = u;\n',
            "b.ts": 'import { x } from "~utils/x";\nimport { y } from "@/y";\nimport { a } from "./a";\nexport const b = x + y + a;\n',
        },
    )
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    data = impact_json(rofl, facts, "--changed", "lib/util.ts")
    assert affected(data) == affected_of(import_graph(facts), {"lib/util.ts"}) == set()  # the alias is not followed
    assert data["unfollowed_aliases"] == [
        {"file": "a.ts", "source": "$lib/util", "name": "$lib"},
        {"file": "b.ts", "source": "@/y", "name": "@/y"},
        {"file": "b.ts", "source": "~utils/x", "name": "~utils"},
    ]
    for fmt in ("text", "names"):
        code, _, err = rofl("impact", "--facts", facts, "--changed", "lib/util.ts", "--format", fmt)
        notes = [line for line in err.splitlines() if "bundler aliases" in line]
        assert code == 0 and len(notes) == 1
        assert "3 import(s) in 2 file(s)" in notes[0] and "($lib, @/y, ~utils)" in notes[0]


def test_text_output_escapes_control_characters_in_names(rofl, tmp_path):
    src = tmp_path / "src"
    evil = "evil\n  fake.ts\n      via x.ts"
    write_tree(src, {"b.ts": "export const b = 1;\n", f"{evil}.ts": 'import { b } from "./b";\nexport const e = b;\n'})
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    code, out, _ = rofl("impact", "--facts", facts, "--changed", "b.ts")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "1 file(s) affected by b.ts" and len(lines) == 4
    assert lines[2] == "  evil\\u{a}  fake.ts\\u{a}      via x.ts.ts"
    code, names, _ = rofl("impact", "--facts", facts, "--changed", "b.ts", "--format", "names")
    assert names.splitlines() == ["b.ts", "evil\\u{a}  fake.ts\\u{a}      via x.ts.ts"]
    code, out, _ = rofl("impact", "--facts", facts, "--changed", "b.ts", "--json")
    assert json.loads(out)["affected"][0]["file"] == f"{evil}.ts"


def test_fact_folder_inside_the_tree_is_never_a_change(rofl, tmp_path):
    src = tmp_path / "repo"
    write_tree(src, MONOREPO)
    commit_all(src)
    facts = src / "facts" / "generated"
    assert rofl("scan", src, "--out", facts)[0] == 0
    shutil.copy(src / "README.md", facts / "notes.md")
    data = impact_json(rofl, facts, "--git-base", "HEAD")
    assert data["changed"] == [] and data["affected"] == []
    code, out, err = rofl("impact", "--facts", facts, "--git-base", "HEAD")
    assert out == "0 file(s) affected by 0 changed paths\n" and "git lists no changed path" in err


# -- a workspace package with no build output, an svg, and a .js beside its .d.ts ---------------------

HANDMADE = {
    "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
    "packages/icons/package.json": json.dumps({"name": "@demo/icons", "main": "dist/icons-bundle.js"}),
    "packages/icons/src/index.ts": 'export { star } from "./star";\n',
    "packages/icons/src/star.ts": "export const star = '*';\n",
    "packages/icons/src/shape.d.ts": "export type Shape = string;\n",
    "app/main.ts": 'import { star } from "@demo/icons";\nimport type { Shape } from "@demo/icons";\nimport { Button } from "./Button";\nButton(star);\n',
    "app/Button.tsx": 'import logo from "./logo.svg";\nimport { fmt } from "./fmt.js";\nexport const Button = (s: string) => logo + fmt(s);\n',
    "app/logo.svg": "<svg/>\n",
    "app/fmt.js": "export const fmt = (s) => s;\n",
    "app/fmt.d.ts": "export declare const fmt: (s: string) => string;\n",
    "app/page.ts": 'import { fmt } from "./fmt.js";\nexport const page = fmt("p");\n',
    "app/view.ts": 'import React from "react";\nexport const view = React;\n',
}


@pytest.fixture
def handmade(tmp_path, rofl):
    """The tree scanned: the resolver records the workspace import (dist/ is not built and no tsconfig
    maps it back), the svg as an asset, and both ``fmt.js`` and ``fmt.d.ts`` for ``./fmt.js``."""
    from tests.cli.impact_fixtures import code_facts

    src = tmp_path / "handmade"
    write_tree(src, HANDMADE)
    facts = tmp_path / "handmade-facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    rows = set(code_facts(facts))
    assert {
        ("src_workspace_import", "app/main.ts", "@demo/icons", "packages/icons"),
        ("src_asset", "app/logo.svg"),
        ("src_resolves", "app/page.ts", "./fmt.js", "app/fmt.js"),
        ("src_resolves", "app/page.ts", "./fmt.js", "app/fmt.d.ts"),
        ("src_declaration", "app/fmt.d.ts"),
    } <= rows
    return src, facts


def handmade_json(rofl, facts, *args: str) -> dict:
    code, out, err = rofl("impact", "--facts", facts, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_workspace_import_depends_on_every_file_of_the_package(rofl, handmade):
    _, facts = handmade
    graph = import_graph(facts)
    assert graph.has_edge("app/main.ts", "packages/icons/src/star.ts")
    data = handmade_json(rofl, facts, "--changed", "packages/icons/src/star.ts")
    assert (
        affected(data)
        == affected_of(graph, {"packages/icons/src/star.ts"})
        == {"app/main.ts", "packages/icons/src/index.ts"}
    )
    main = next(a for a in data["affected"] if a["file"] == "app/main.ts")
    assert main["via"] == ["app/main.ts", "packages/icons/src/star.ts"]


def test_a_deleted_source_of_a_package_imported_by_name_only(rofl, handmade):
    """The importer depends on every file of the package: deleting one affects it, also when asked
    again after the rescan has dropped the file (no import names its path)."""
    src, facts = handmade
    commit_all(src)  # git is the evidence that a path no import names existed (a typo never did)
    expected = affected_of(import_graph(facts), {"packages/icons/src/star.ts"})
    assert expected == {"app/main.ts", "packages/icons/src/index.ts"}
    code, _, err = rofl("impact", "--facts", facts, "--changed", "packages/icons/src/strr.ts")
    assert code == 2 and "did you mean packages/icons/src/star.ts" in err
    (src / "packages/icons/src/star.ts").unlink()
    first = handmade_json(rofl, facts, "--changed", "packages/icons/src/star.ts")
    again = handmade_json(rofl, facts, "--changed", "packages/icons/src/star.ts")
    assert affected(first) == affected(again) == expected
    assert again["classified"][0] == {
        "path": "packages/icons/src/star.ts",
        "as": "deleted",
        "detail": "not on disk (deleted, or not created yet), named by the imports of 2 files",
    }
    (src / "packages/icons/src/shape.d.ts").unlink()  # no file imports its path
    first = handmade_json(rofl, facts, "--changed", "packages/icons/src/shape.d.ts")
    again = handmade_json(rofl, facts, "--changed", "packages/icons/src/shape.d.ts")
    assert affected(first) == affected(again) == {"app/main.ts"}
    assert again["classified"][0]["detail"] == "not on disk, a source of a workspace package 1 file import by name"
    # a path that is no source and exists nowhere, or a mistyped one, is still refused
    assert rofl("impact", "--facts", facts, "--changed", "packages/icons/README.md")[0] == 2
    assert rofl("impact", "--facts", facts, "--changed", "packages/icons/src/shap.d.ts")[0] == 2


def test_asset_target_is_classified_as_an_asset(rofl, handmade):
    _, facts = handmade
    data = handmade_json(rofl, facts, "--changed", "app/logo.svg")
    assert data["classified"] == [{"path": "app/logo.svg", "as": "asset", "detail": "asset"}]
    assert affected(data) == affected_of(import_graph(facts), {"app/logo.svg"}) == {"app/Button.tsx", "app/main.ts"}


def test_runtime_skips_declaration_files_and_type_only_workspace_imports(rofl, handmade):
    _, facts = handmade
    for changed in ("app/fmt.d.ts", "app/fmt.js", "packages/icons/src/star.ts", "packages/icons/src/shape.d.ts"):
        everything = handmade_json(rofl, facts, "--changed", changed)
        runtime = handmade_json(rofl, facts, "--changed", changed, "--runtime")
        assert affected(everything) == affected_of(import_graph(facts), {changed})
        assert affected(runtime) == affected_of(import_graph(facts, runtime=True), {changed})
    assert affected(handmade_json(rofl, facts, "--changed", "app/fmt.d.ts", "--runtime")) == set()
    assert "app/page.ts" in affected(handmade_json(rofl, facts, "--changed", "app/fmt.d.ts"))
    assert affected(handmade_json(rofl, facts, "--changed", "app/fmt.js", "--runtime")) == {
        "app/page.ts",
        "app/Button.tsx",
        "app/main.ts",
    }
    # a declaration file of the package reaches main through the package-wide edge, but never runs
    assert affected(handmade_json(rofl, facts, "--changed", "packages/icons/src/shape.d.ts")) == {"app/main.ts"}
    assert affected(handmade_json(rofl, facts, "--changed", "packages/icons/src/shape.d.ts", "--runtime")) == set()
    # main imports a value (and a type) from the workspace package: a runtime edge to each of its files
    assert affected(handmade_json(rofl, facts, "--changed", "packages/icons/src/star.ts", "--runtime")) == {
        "app/main.ts",
        "packages/icons/src/index.ts",
    }


def bare_importers(facts) -> set[str]:
    """Files whose resolution looked a bare name up among the workspace packages (from the manifest)."""
    manifest = read_manifest(facts)
    return {f for f, e in manifest.files.items() if any(d.startswith("package:") for d in e.resolution_deps)}


def test_workspace_list_affects_every_file_with_a_bare_import(rofl, repo, handmade):
    # which folder a bare name means may change with the list: the files that looked one up count,
    # whether or not their resolution read the list itself
    for _, facts in (repo, handmade):
        seeds = bare_importers(facts) | deps_readers(facts, "pnpm-workspace.yaml")
        data = impact_json(rofl, facts, "--changed", "pnpm-workspace.yaml")
        (entry,) = data["classified"]
        assert entry["as"] == "config" and f"every file with a bare import counts ({len(seeds)} file" in entry["detail"]
        assert seeds and affected(data) == seeds | affected_of(import_graph(facts), seeds)
    # app/view.ts imports "react", which no workspace package is: its resolution never read the list
    assert "app/view.ts" in bare_importers(handmade[1]) - deps_readers(handmade[1], "pnpm-workspace.yaml")
    assert "app/main.ts" in deps_readers(handmade[1], "pnpm-workspace.yaml")


def test_git_base_outside_a_git_work_tree_is_a_one_line_error(rofl, handmade, tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # wherever the temporary folder lies
    _, facts = handmade
    code, out, err = rofl("impact", "--facts", facts, "--git-base", "HEAD")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "is not inside a git work tree" in err and "--changed" in err


def test_empty_path_and_vanished_source_folder_are_one_line_errors(rofl, repo, tmp_path):
    src, facts = repo
    code, _, err = rofl("impact", "--facts", facts, "--changed", "")
    assert code == 2 and len(err.strip().splitlines()) == 1
    shutil.move(src, tmp_path / "moved")
    for extra in ((), ("--no-rescan",)):
        code, _, err = rofl("impact", "--facts", facts, "--changed", "README.md", *extra)
        assert code == 2 and "is gone" in err and len(err.strip().splitlines()) == 1


def test_package_json_without_a_base_counts_every_declared_dependency(rofl, repo):
    _, facts = repo
    data = impact_json(rofl, facts, "--changed", "packages/ui/package.json")
    (entry,) = data["classified"]
    assert entry["as"] == "config" and "no --git-base: all 2 declared dependencies count as changed" in entry["detail"]
    seeds = externals(facts, {"react"}) | deps_readers(facts, "packages/ui/package.json")
    assert "packages/ui/src/Button.tsx" in seeds
    assert affected(data) == seeds | affected_of(import_graph(facts), seeds)


def test_deleted_folder_after_a_rescan_reaches_the_files_that_imported_from_it(rofl, repo):
    src, facts = repo
    expected = affected_of(import_graph(facts), {"packages/ui/src/old.ts"})
    (src / "packages/ui/src/old.ts").unlink()
    (src / "packages/ui/src/gone").mkdir()
    shutil.move(src / "packages/ui/src/legacy.ts", src / "packages/ui/src/gone/legacy.ts")
    (src / "packages/ui/src/gone/legacy.ts").write_text('import { old } from "../old";\nexport const legacy = old;\n')
    index = src / "packages/ui/src/index.ts"
    index.write_text(index.read_text().replace('"./legacy"', '"./gone/legacy"'))
    assert rofl("scan", src, "--out", facts)[0] == 0
    shutil.rmtree(src / "packages/ui/src/gone")
    assert rofl("scan", src, "--out", facts)[0] == 0  # the facts no longer hold anything under gone/
    data = impact_json(rofl, facts, "--changed", "packages/ui/src/gone")
    (entry,) = data["classified"]
    assert entry["as"] == "deleted" and entry["detail"] == "deleted folder, named by the imports of 1 file"
    assert (
        affected(data)
        == {"packages/ui/src/index.ts", "packages/app/src/main.ts"}
        == expected - {"packages/ui/src/legacy.ts"}
    )
    assert data["affected"][1]["via"] == ["packages/ui/src/index.ts", "packages/ui/src/gone"]


def test_many_changed_paths_of_one_kind_are_one_text_line(rofl, tmp_path):
    files = {f"m{i:02}.ts": f"export const v{i} = {i};\n" for i in range(25)}
    files["all.ts"] = "".join(f'import {{ v{i} }} from "./m{i:02}";\n' for i in range(25))
    # a release bumping every package's version: 22 package.json files, each read by its package's file
    for i in range(22):
        files[f"p{i:02}/package.json"] = json.dumps({"name": f"p{i:02}", "version": "1.0.0"})
        files[f"p{i:02}/index.ts"] = "import '#x';\n" if i == 0 else 'import "./nothing";\n'
    src = tmp_path / "src"
    write_tree(src, files)
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    args = [a for i in range(25) for a in ("--changed", f"m{i:02}.ts")]
    code, out, _ = rofl("impact", "--facts", facts, *args, "--changed", "all.ts")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "0 file(s) affected by 26 changed paths"
    assert lines[1] == "changed: 26 scanned sources (all.ts, m00.ts, m01.ts and 23 more)" and len(lines) == 2
    configs = [a for i in range(22) for a in ("--changed", f"p{i:02}/package.json")]
    code, out, _ = rofl("impact", "--facts", facts, *configs, "--changed", "m00.ts")
    data = impact_json(rofl, facts, *configs, "--changed", "m00.ts")
    lines = out.splitlines()
    assert lines[0] == f"{len(data['affected'])} file(s) affected by 23 changed paths"
    assert lines[1] == "changed: m00.ts (scanned source)"
    assert lines[2].startswith(
        "changed: 22 config files (p00/package.json, p01/package.json, p02/package.json and 19 more"
    )
    assert not lines[3].startswith("changed:")
    seeds = {"m00.ts"} | {f for i in range(22) for f in deps_readers(facts, f"p{i:02}/package.json")}
    assert affected(data) == (seeds | affected_of(import_graph(facts), seeds)) - {"m00.ts"}
