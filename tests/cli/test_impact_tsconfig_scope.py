"""A tsconfig change affects every file it governs (files/include/exclude through extends and
references), and a package.json change the files its resolution, its package scope and, for a
workspace member only, its name reach.

The monorepo is modelled on create-t3-turbo and Effect: a root ``tsconfig.base.json`` with
``${configDir}`` globs, packages extending it by path or through an npm-named base in a workspace
package (``@acme/tsconfig/base.json``), a solution ``tsconfig.json`` with ``references``, a nested
test-fixture package named ``typescript`` (as in the issue), and a workspace package with no scanned
file.  The glob semantics are checked against TypeScript's own ``parseJsonConfigFileContent``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.impact_fixtures import affected_of, commit_all, import_graph
from tests.conftest import write_tree

TYPESCRIPT = Path(  # the bench's TypeScript, or the one ROFL_TYPESCRIPT names
    os.environ.get("ROFL_TYPESCRIPT") or Path(__file__).resolve().parents[2] / "bench/.cache/node_modules/typescript"
)

MONOREPO = {
    "package.json": json.dumps({"name": "acme", "private": True, "workspaces": ["packages/*", "tooling/*"]}),
    "tsconfig.base.json": json.dumps(
        {
            "compilerOptions": {"strict": True, "outDir": "${configDir}/dist"},
            "include": ["${configDir}/src", "${configDir}/test"],
        }
    ),
    "tsconfig.json": json.dumps(
        {"files": [], "references": [{"path": "./packages/core"}, {"path": "./packages/ui/tsconfig.json"}]}
    ),
    "tooling/tsconfig/package.json": json.dumps({"name": "@acme/tsconfig", "version": "0.0.0"}),
    "tooling/tsconfig/base.json": json.dumps(
        {"extends": "../../tsconfig.base.json", "compilerOptions": {"jsx": "react"}}
    ),
    "tooling/empty/package.json": json.dumps({"name": "@acme/empty", "version": "0.0.0", "main": "dist/index.js"}),
    # core: its own include, its tests' fixtures excluded
    "packages/core/package.json": json.dumps(
        {
            "name": "@acme/core",
            "version": "1.0.0",
            "type": "module",
            "main": "src/index.ts",
            "dependencies": {"typescript": "^5"},
        }
    ),
    "packages/core/tsconfig.json": json.dumps(
        {"extends": "../../tsconfig.base.json", "include": ["src", "test"], "exclude": ["test/fixtures"]}
    ),
    "packages/core/src/index.ts": 'import ts from "typescript";\nexport const kind = ts.SyntaxKind;\n',
    "packages/core/src/util.ts": 'import { kind } from "./index";\nexport const k = kind;\n',
    "packages/core/test/util.test.ts": 'import { k } from "../src/util";\nk;\n',
    "packages/core/test/fixtures/app/package.json": json.dumps(
        {"name": "typescript", "private": True, "dependencies": {"@acme/core": "workspace:*"}}
    ),
    "packages/core/test/fixtures/app/src/page.ts": 'import { k } from "@acme/core";\nexport const page = k;\n',
    "packages/core/test/fixtures/app/src/data.ts": "export const data = [1, 2];\n",
    "packages/core/scripts/release.ts": "export const release = 1;\n",  # outside core's include
    # ui: the npm-named base from the workspace package, inheriting the ${configDir} include
    "packages/ui/package.json": json.dumps(
        {"name": "@acme/ui", "version": "1.0.0", "main": "src/index.ts", "dependencies": {"@acme/core": "*"}}
    ),
    "packages/ui/tsconfig.json": json.dumps({"extends": "@acme/tsconfig/base.json"}),
    "packages/ui/src/index.ts": 'import { k } from "@acme/core";\nimport { e } from "@acme/empty";\nexport const ui = [k, e];\n',
    "packages/ui/src/button.tsx": 'import { ui } from "./index";\nexport const Button = () => ui;\n',
    "packages/ui/dist/index.js": "export const ui = 1;\n",  # build output: outside the include
    "packages/ui/test/button.test.ts": 'import { Button } from "../src/button";\nButton();\n',
    "apps/web/src/main.ts": 'import { ui } from "@acme/ui";\nui;\n',  # no tsconfig governs it
}

CORE = {"packages/core/src/index.ts", "packages/core/src/util.ts", "packages/core/test/util.test.ts"}
UI = {"packages/ui/src/index.ts", "packages/ui/src/button.tsx", "packages/ui/test/button.test.ts"}


@pytest.fixture
def repo(tmp_path, rofl):
    src = tmp_path / "repo"
    write_tree(src, MONOREPO)
    commit_all(src)
    facts = tmp_path / "facts"
    code, _, err = rofl("scan", src, "--out", facts)
    assert code == 0, err
    return src, facts


def impact_json(rofl, facts, *paths: str) -> dict:
    code, out, err = rofl("impact", "--facts", facts, *(a for p in paths for a in ("--changed", p)), "--json")
    assert code == 0, err
    return json.loads(out)


def affected(data: dict) -> set[str]:
    return {a["file"] for a in data["affected"]}


def readers(facts: Path, path: str) -> set[str]:
    """Files whose resolution consulted ``path`` (the manifest's resolution_deps)."""
    from rofl.scanner.manifest import read

    return {f for f, e in read(facts).files.items() if path in e.resolution_deps}


def expected(facts: Path, governed: set[str], changed: str) -> set[str]:
    """The governed files, the files whose resolution read the changed config, and every file
    importing one of them, transitively (the import graph of the facts)."""
    seeds = governed | readers(facts, changed)
    return (seeds | affected_of(import_graph(facts), seeds)) - {changed}


def test_base_config_change_affects_every_file_governed_through_the_configs_extending_it(rofl, repo):
    """tsconfig.base.json: core governs src and test but not test/fixtures nor scripts; ui (through
    @acme/tsconfig/base.json, a workspace package) inherits the ${configDir} include as its own
    folder's src and test, never dist; apps/web has no tsconfig and is not governed."""
    _, facts = repo
    data = impact_json(rofl, facts, "tsconfig.base.json")
    entry = data["classified"][0]
    assert entry["as"] == "config"
    assert (
        "tsconfig: governs 6 files, through 2 tsconfigs using it (packages/core/tsconfig.json, packages/ui/tsconfig.json)"
        in entry["detail"]
    ), entry["detail"]
    governed = CORE | UI
    assert affected(data) == expected(facts, governed, "tsconfig.base.json")
    assert "packages/core/scripts/release.ts" not in affected(data)
    assert "packages/ui/dist/index.js" not in affected(data)
    for item in data["affected"]:  # a governed file's chain is the config itself
        if item["file"] in governed:
            assert item["via"] == [item["file"], "tsconfig.base.json"]


def test_npm_named_base_in_a_workspace_package_is_a_config_change(rofl, repo):
    _, facts = repo
    data = impact_json(rofl, facts, "tooling/tsconfig/base.json")
    entry = data["classified"][0]
    assert entry["as"] == "config" and "tsconfig: governs 3 files" in entry["detail"], entry
    assert affected(data) == expected(facts, UI, "tooling/tsconfig/base.json")
    assert not affected(data) & CORE


def test_package_config_with_its_own_include_and_exclude(rofl, repo):
    _, facts = repo
    data = impact_json(rofl, facts, "packages/core/tsconfig.json")
    assert "tsconfig: governs 3 files" in data["classified"][0]["detail"]
    assert affected(data) == expected(facts, CORE, "packages/core/tsconfig.json")


def test_a_narrowed_include_against_git_counts_the_files_it_governed_at_the_base(rofl, repo):
    """core's include drops "test": the test file it no longer governs is affected too (its checking changed)."""
    src, facts = repo
    (src / "packages/core/tsconfig.json").write_text(
        json.dumps({"extends": "../../tsconfig.base.json", "include": ["src"]})
    )
    data = impact_json_git(rofl, facts)
    (entry,) = data["classified"]
    assert "tsconfig: governs 2 files (+1 it governed at HEAD)" in entry["detail"], entry["detail"]
    assert affected(data) == expected(facts, CORE, "packages/core/tsconfig.json")


def test_a_deleted_tsconfig_against_git_counts_what_it_governed(rofl, repo):
    src, facts = repo
    (src / "packages/core/tsconfig.json").unlink()
    data = impact_json_git(rofl, facts)
    (entry,) = data["classified"]
    assert entry["as"] == "config" and "tsconfig: governs 0 files (+3 it governed at HEAD)" in entry["detail"], entry
    assert affected(data) >= CORE


def impact_json_git(rofl, facts) -> dict:
    code, out, err = rofl("impact", "--facts", facts, "--git-base", "HEAD", "--json")
    assert code == 0, err
    return json.loads(out)


def test_solution_config_governs_what_its_references_govern(rofl, repo):
    src, facts = repo
    code, out, err = rofl("impact", "--facts", facts, "--changed", "tsconfig.json")
    assert code == 0, err
    assert "changed: tsconfig.json (config, read by the resolution of" in out
    assert "tsconfig: governs 6 files)" in out, out
    data = impact_json(rofl, facts, "tsconfig.json")
    assert affected(data) >= CORE | UI
    assert "apps/web/src/main.ts" in affected(data)  # imports @acme/ui: an importer, not governed


def test_nested_fixture_package_json_reaches_its_own_files_not_the_outer_package(rofl, repo):
    """The fixture's package.json is named typescript, but it is no workspace member: core's
    ``import ts from "typescript"`` is not affected by it, nor is anything else of core."""
    _, facts = repo
    path = "packages/core/test/fixtures/app/package.json"
    data = impact_json(rofl, facts, path)
    assert affected(data) == {"packages/core/test/fixtures/app/src/page.ts"}
    detail = data["classified"][0]["detail"]
    assert "typescript is no workspace member" in detail, detail


def test_outer_package_json_does_not_govern_the_nested_package(rofl, repo):
    """core's package.json sets the module format (its "type") of core's four files, not of the
    fixture below it (its own package scope): the fixture's data file is not affected, its page only
    as a file whose resolution of @acme/core read it."""
    _, facts = repo
    data = impact_json(rofl, facts, "packages/core/package.json")
    assert "packages/core/test/fixtures/app/src/data.ts" not in affected(data)
    detail = data["classified"][0]["detail"]
    assert "its type (no --git-base: counts as changed) sets the module format of 4 scanned files" in detail, detail
    assert "workspace package @acme/core, imported by name by" in detail, detail
    scope = CORE | {"packages/core/scripts/release.ts"}
    assert affected(data) == expected(facts, scope, "packages/core/package.json")


def test_workspace_package_json_without_a_scanned_file_says_so(rofl, repo):
    _, facts = repo
    data = impact_json(rofl, facts, "tooling/empty/package.json")
    detail = data["classified"][0]["detail"]
    assert "package scope holding no scanned file" in detail, detail
    assert "workspace package @acme/empty, imported by name by 1 file" in detail, detail
    assert affected(data) == expected(facts, {"packages/ui/src/index.ts"}, "tooling/empty/package.json")


# -- the glob semantics against TypeScript's own parseJsonConfigFileContent ----------------------

ORACLE = r"""
const ts = require(process.argv[2]);
const path = require("path");
const rl = require("readline").createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const cfg = JSON.parse(line);
  const read = ts.readConfigFile(cfg, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config || {}, ts.sys, path.dirname(cfg), undefined, cfg);
  process.stdout.write(JSON.stringify(parsed.fileNames) + "\n");
});
"""

TREE = [
    "pkg/src/a.ts",
    "pkg/src/a.d.ts",
    "pkg/src/b.tsx",
    "pkg/src/b.ts",
    "pkg/src/c.js",
    "pkg/src/c.ts",
    "pkg/src/d.js",
    "pkg/src/d.d.ts",
    "pkg/src/e.min.js",
    "pkg/src/f.mts",
    "pkg/src/g.cjs",
    "pkg/src/deep/er/h.ts",
    "pkg/src/.hidden/i.ts",
    "pkg/src/.j.ts",
    "pkg/src/node_modules/m/k.ts",
    "pkg/src.v2/l.ts",
    "pkg/test/a.test.ts",
    "pkg/test/fixtures/app/x.ts",
    "pkg/dist/out.js",
    "pkg/dist/out.d.ts",
    "pkg/lib/n.jsx",
    "pkg/top.ts",
    "shared/s.ts",
    "shared/sub/t.tsx",
]
SPECS = [
    "src",
    "src/**/*",
    "src/*",
    "**/*",
    "**/*.ts",
    "*.ts",
    "src/**/*.d.ts",
    "src/**",
    "?est",
    "t*",
    "test/fixtures",
    "../shared",
    "../shared/**/*.tsx",
    "${configDir}/src",
    "${configDir}/test",
    "dist",
    "lib/**/*.jsx",
    "src/.hidden/*",
    "src/node_modules/**/*",
    "src.v2",
    "src/deep/**/h.ts",
    "**/.*",
]
FILES = ["src/a.ts", "top.ts", "dist/out.js", "src/deep/er/h.ts"]


def spec_lists(pool: list[str]):
    return st.one_of(st.none(), st.lists(st.sampled_from(pool), max_size=3, unique=True))


config_dicts = st.fixed_dictionaries(
    {
        "include": spec_lists(SPECS),
        "exclude": spec_lists(SPECS),
        "files": spec_lists(FILES),
        "allowJs": st.one_of(st.none(), st.booleans()),
        "outDir": st.one_of(st.none(), st.sampled_from(["dist", "${configDir}/dist", "src/deep"])),
    }
)


def to_json(config: dict, extends: str | None = None) -> str:
    out: dict = {k: v for k, v in config.items() if k in ("include", "exclude", "files") and v is not None}
    options = {k: config[k] for k in ("allowJs", "outDir") if config[k] is not None}
    if options:
        out["compilerOptions"] = options
    if extends is not None:
        out["extends"] = extends
    return json.dumps(out)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    node = shutil.which("node")
    if node is None or not (TYPESCRIPT / "package.json").is_file():
        pytest.skip("needs node and bench/.cache/node_modules/typescript (TypeScript's own config parser)")
    root = tmp_path_factory.mktemp("oracle")
    script = root / "oracle.js"
    script.write_text(ORACLE)
    proc = subprocess.Popen(
        [node, str(script), str(TYPESCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )

    def ask(config: Path) -> set[str]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(str(config)) + "\n")
        proc.stdin.flush()
        return set(json.loads(proc.stdout.readline()))

    yield root, ask
    proc.terminate()
    proc.wait()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(child=config_dicts, base=config_dicts, extends=st.booleans())
def test_governed_files_equal_typescripts_own_file_list(oracle, child, base, extends):
    """For random include/exclude/files/allowJs/outDir in a config and the base it extends (paths
    relative to each, ${configDir} to the user), the governed scanned files are exactly the
    ``fileNames`` TypeScript's parseJsonConfigFileContent gives, and so are the files the resolver's
    matcher (``Inputs.holds``, which picks the tsconfig that governs a file) takes, one file at a time
    against the file system: ``a.d.ts`` beside ``a.ts``, ``b.tsx`` beside ``b.ts``, ``e.min.js``."""
    from rofl.scanner.configs import ConfigStore
    from rofl.scanner.manifest import from_record
    from rofl.scanner.tsconfig import load
    from rofl.scanner.tsconfig_inputs import Inputs

    from rofl.questions.changes import CodeFacts, Context, classify_one

    root, ask = oracle
    src = root / "tree"
    if not src.exists():
        write_tree(src, {p: "export {};\n" for p in TREE})
    (src / "base").mkdir(exist_ok=True)
    (src / "base" / "tsconfig.base.json").write_text(to_json(base))
    config = src / "pkg" / "tsconfig.json"
    config.write_text(to_json(child, "../base/tsconfig.base.json" if extends else None))
    truth = {os.path.relpath(p, src) for p in ask(config)} & set(TREE)
    manifest = from_record({"format": 2, "src": str(src), "files": {p: {"facts": "x", "hash": "h"} for p in TREE}})
    facts = CodeFacts(frozenset(TREE), frozenset(), frozenset(), {}, {})
    change = classify_one("pkg/tsconfig.json", Context(src, root / "facts", manifest, manifest, facts))
    assert change is not None and change.kind == "config"
    assert {f for f, _ in change.touches} == truth
    inputs = Inputs.of(load(str(config), ConfigStore(str(src))))
    assert {p for p in TREE if inputs.holds(str(src / p))} == truth
