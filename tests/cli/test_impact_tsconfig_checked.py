"""A tsconfig that a file's lookup only checked (and found not to take the file) does not make the
file affected when it changes, unless it now takes the file (or took it at --git-base REF).

Modelled on Effect: a root solution ``tsconfig.json`` referencing each package's config and a root
``tsconfig.tests.json`` that governs the ``test`` folder; a test file's lookup checks every package
config before the tests config takes it.
"""

from __future__ import annotations

import json

import pytest

from tests.cli.impact_fixtures import affected_of, commit_all, import_graph
from tests.conftest import write_tree

SOLUTION = {
    "package.json": json.dumps({"name": "acme", "private": True, "workspaces": ["packages/*"]}),
    "tsconfig.json": json.dumps(
        {
            "files": [],
            "references": [{"path": "./packages/a"}, {"path": "./packages/b"}, {"path": "./tsconfig.tests.json"}],
        }
    ),
    "tsconfig.tests.json": json.dumps({"include": ["test"]}),
    "packages/a/package.json": json.dumps({"name": "@acme/a", "main": "src/index.ts"}),
    "packages/a/tsconfig.json": json.dumps({"include": ["src"]}),
    "packages/a/src/index.ts": 'import { z } from "zod";\nexport const a = z;\n',
    "packages/a/src/util.ts": 'import { a } from "./index";\nexport const u = a;\n',
    "packages/b/package.json": json.dumps({"name": "@acme/b", "main": "src/index.ts"}),
    "packages/b/tsconfig.json": json.dumps({"include": ["src"]}),
    "packages/b/src/index.ts": 'import { z } from "zod";\nexport const b = z;\n',
    "test/a.test.ts": 'import { a } from "@acme/a";\na;\n',
    "test/b.test.ts": 'import { b } from "@acme/b";\nb;\n',
    "test/lone.test.ts": 'import { z } from "zod";\nz;\n',
}
A = {"packages/a/src/index.ts", "packages/a/src/util.ts"}


@pytest.fixture
def repo(tmp_path, rofl):
    src = tmp_path / "repo"
    write_tree(src, SOLUTION)
    commit_all(src)
    facts = tmp_path / "facts"
    code, _, err = rofl("scan", src, "--out", facts)
    assert code == 0, err
    return src, facts


def impact(rofl, facts, *args: str) -> dict:
    code, out, err = rofl("impact", "--facts", facts, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def affected(data: dict) -> set[str]:
    return {a["file"] for a in data["affected"]}


def test_a_package_config_affects_its_governed_files_and_their_importers_not_the_tests_it_was_checked_for(rofl, repo):
    """b's config governs b's source; test/b.test.ts imports it and is affected as an importer, while
    test/a.test.ts and test/lone.test.ts (whose lookups checked b's config first) are not."""
    _, facts = repo
    data = impact(rofl, facts, "--changed", "packages/b/tsconfig.json")
    (entry,) = data["classified"]
    assert entry["as"] == "config"
    assert "read by the resolution of 1 file; tsconfig: governs 1 file" in entry["detail"], entry["detail"]
    graph = import_graph(facts)
    seeds = {"packages/b/src/index.ts"}
    assert affected(data) == seeds | affected_of(graph, seeds)
    assert "test/b.test.ts" in affected(data)
    assert not {"test/a.test.ts", "test/lone.test.ts"} & affected(data)


def test_adding_a_test_path_to_a_package_config_affects_that_test_file(rofl, repo):
    """a's config now includes test/lone.test.ts: a governs it (before tsconfig.tests.json, which comes
    later in the solution's references), so it is affected; the other tests are not governed by a."""
    src, facts = repo
    (src / "packages/a/tsconfig.json").write_text(json.dumps({"include": ["src", "../../test/lone.test.ts"]}))
    for args in (("--changed", "packages/a/tsconfig.json"), ("--git-base", "HEAD")):
        data = impact(rofl, facts, *args)
        (entry,) = data["classified"]
        assert "tsconfig: governs 3 files" in entry["detail"], entry["detail"]
        assert "test/lone.test.ts" in affected(data)
        assert "test/b.test.ts" not in affected(data)
        assert A <= affected(data)


def test_narrowing_a_package_config_against_git_counts_the_test_file_it_governed(rofl, repo):
    """At HEAD a's config took test/lone.test.ts; now it does not: the file is affected (its checking changed)."""
    src, facts = repo
    (src / "packages/a/tsconfig.json").write_text(json.dumps({"include": ["src", "../../test/lone.test.ts"]}))
    commit_all(src, "a takes the lone test")
    code, _, err = rofl("scan", src, "--out", facts)
    assert code == 0, err
    (src / "packages/a/tsconfig.json").write_text(json.dumps({"include": ["src"]}))
    data = impact(rofl, facts, "--git-base", "HEAD")
    (entry,) = data["classified"]
    assert "tsconfig: governs 2 files (+1 it governed at HEAD)" in entry["detail"], entry["detail"]
    assert "test/lone.test.ts" in affected(data)
    assert "test/b.test.ts" not in affected(data)
