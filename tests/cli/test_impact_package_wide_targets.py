"""A file of a workspace package reaches the package's importers by name only when it stands for the
package (rules/code.rofl ``package_wide_target``): a file the package offers by name, or, when it
offers none, one of its own sources; never its tests, nor a file beside an entry it offers; and
always its package.json."""

from __future__ import annotations

import json

import pytest

from tests.cli.impact_fixtures import code_facts, commit_all
from tests.conftest import write_tree

TREE = {
    "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
    # icons offers no file it has (dist/ is not built): its own sources stand for it, never its tests
    "packages/icons/package.json": json.dumps({"name": "@demo/icons", "main": "dist/icons-bundle.js"}),
    "packages/icons/src/index.ts": 'export { star } from "./star";\n',
    "packages/icons/src/star.ts": "export const star = '*';\n",
    "packages/icons/src/star.test.ts": 'import { star } from "./star";\nstar;\n',
    # kit offers src/index.ts by name; an import of a subpath it lacks stands for that entry alone
    "packages/kit/package.json": json.dumps({"name": "@demo/kit", "main": "src/index.ts"}),
    "packages/kit/src/index.ts": "export const kit = 1;\n",
    "packages/kit/src/extra.ts": "export const extra = 2;\n",
    "app/main.ts": 'import { star } from "@demo/icons";\nstar;\n',
    "app/kit.ts": 'import { x } from "@demo/kit/missing";\nx;\n',
}


@pytest.fixture
def tree(tmp_path, rofl):
    src = tmp_path / "tree"
    write_tree(src, TREE)
    commit_all(src)  # git is the evidence that a deleted path existed
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    rows = set(code_facts(facts))
    assert {
        ("src_workspace_import", "app/main.ts", "@demo/icons", "packages/icons"),
        ("src_workspace_import", "app/kit.ts", "@demo/kit/missing", "packages/kit"),
    } <= rows
    entries = (facts / "entries.rofl").read_text()
    offered = [line for line in entries.splitlines() if line.startswith("src_package_entry")]
    assert offered == ['src_package_entry[code]("packages/kit", "packages/kit/src/index.ts", "main").']
    return src, facts


def affected(rofl, facts, path: str) -> set[str]:
    code, out, err = rofl("impact", "--facts", facts, "--changed", path, "--format", "json")
    assert code == 0, err
    return {a["file"] for a in json.loads(out)["affected"]}


def test_a_deleted_test_of_a_package_offering_nothing_does_not_reach_its_importers_by_name(rofl, tree):
    src, facts = tree
    (src / "packages/icons/src/star.test.ts").unlink()
    assert "app/main.ts" not in affected(rofl, facts, "packages/icons/src/star.test.ts")
    (src / "packages/icons/src/star.ts").unlink()  # a source of it: its importers by name count
    assert "app/main.ts" in affected(rofl, facts, "packages/icons/src/star.ts")


def test_a_deleted_file_beside_an_offered_entry_does_not_reach_the_importers_by_name(rofl, tree):
    src, facts = tree
    (src / "packages/kit/src/extra.ts").unlink()
    assert "app/kit.ts" not in affected(rofl, facts, "packages/kit/src/extra.ts")
    (src / "packages/kit/package.json").write_text(json.dumps({"name": "@demo/kit", "main": "src/extra.ts"}))
    assert "app/kit.ts" in affected(rofl, facts, "packages/kit/package.json")  # its package.json always does
    (src / "packages/kit/src/index.ts").unlink()  # the entry it offered stands for it
    assert "app/kit.ts" in affected(rofl, facts, "packages/kit/src/index.ts")
