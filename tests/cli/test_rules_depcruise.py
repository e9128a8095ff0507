"""The presets against dependency-cruiser's forbidden rules on the same monorepo (an independent oracle).

dependency-cruiser (the pinned copy `make bench` installs in bench/.cache) runs with the rules its
recommended preset has, written to mean what ours mean: no-circular, a runtime-only variant,
not-to-dev-dep, no-non-package-json, not-to-test and no-orphans, with `combinedDependencies` (every
package.json above a file counts, as in ours). Installed packages are faked in node_modules so that
it can tell their dependency types. The one intended difference: dependency-cruiser takes
`@types/x` in devDependencies as declaring x, so a runtime import of x is `npm-dev` for it and
undeclared for us (the types package does not bring the code).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.cli.test_rules_presets import ALL_PRESETS, MONOREPO, ORPHAN_ALLOWS
from tests.conftest import ROOT, write_tree

DEPCRUISE = ROOT / "bench" / ".cache" / "node_modules" / ".bin" / "depcruise"
INSTALLED = ("tinycolor2", "lodash.throttle", "vitest", "roughjs", "perfect-freehand", "@types/lodash.throttle")
TESTS = r"\.(test|spec)\.|(^|/)(__tests__|__mocks__|__fixtures__|test|tests)/"
CONFIG = {
    "forbidden": [
        {"name": "no-circular", "from": {}, "to": {"circular": True}},
        {
            "name": "no-runtime-circular",
            "from": {},
            "to": {"circular": True, "viaOnly": {"dependencyTypesNot": ["type-only"]}},
        },
        {
            "name": "not-to-dev-dep",
            "from": {"pathNot": [TESTS, r"^setupTests\."]},
            "to": {"dependencyTypes": ["npm-dev"], "dependencyTypesNot": ["type-only"]},
        },
        {"name": "no-non-package-json", "from": {}, "to": {"dependencyTypes": ["npm-no-pkg", "npm-unknown"]}},
        {"name": "not-to-test", "from": {"pathNot": [TESTS, r"^setupTests\."]}, "to": {"path": TESTS}},
        {
            "name": "no-orphans",
            "from": {
                "orphan": True,
                "pathNot": [
                    r"\.d\.ts$",
                    r"(^|/)\.[^/]+$",
                    r"\.config\.",
                    r"/src/index\.ts$",
                    r"\.test\.",
                    r"^setupTests\.",
                ],
            },
            "to": {},
        },
    ],
    "options": {
        "doNotFollow": {"path": "node_modules"},
        "tsPreCompilationDeps": True,
        "combinedDependencies": True,
        "tsConfig": {"fileName": "tsconfig.json"},
    },
}
OURS = {
    "no-circular": "no_circular",
    "no-runtime-circular": "no_runtime_circular",
    "not-to-dev-dep": "no_dev_dependencies",
    "no-non-package-json": "no_undeclared_packages",
    "not-to-test": "no_test_imports_from_production",
    "no-orphans": "no_orphans",
}


def package_of(path: str) -> str:
    """``node_modules/@types/x/index.js`` -> ``@types/x``; a project file stays as it is."""
    if not path.startswith("node_modules/"):
        return path
    parts = path.split("/")
    return "/".join(parts[1:3]) if parts[1].startswith("@") else parts[1]


@pytest.fixture(scope="module")
def cruised(tmp_path_factory):
    """``(theirs, ours)``: {rule: {(from, to)}} from dependency-cruiser and from rofl's presets."""
    if not DEPCRUISE.exists() or shutil.which("node") is None:
        pytest.skip("dependency-cruiser is not installed (make bench installs it in bench/.cache)")
    from click.testing import CliRunner

    from rofl.cli import main

    repo = tmp_path_factory.mktemp("cruise") / "repo"
    files = dict(MONOREPO)
    for name in INSTALLED:
        files[f"node_modules/{name}/package.json"] = json.dumps({"name": name, "version": "1.0.0", "main": "index.js"})
        files[f"node_modules/{name}/index.js"] = "module.exports = {};\n"
    files[".dependency-cruiser.json"] = json.dumps(CONFIG)
    write_tree(repo, files)
    done = subprocess.run(
        [str(DEPCRUISE), "--config", ".dependency-cruiser.json", "--output-type", "json", "packages", "setupTests.ts"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stdout)
    theirs: dict[str, set] = {}
    cycles: dict[str, set] = {}
    for v in report["summary"]["violations"]:
        rule = OURS[v["rule"]["name"]]
        theirs.setdefault(rule, set()).add((v["from"], package_of(v["to"])))
        for step in v.get("cycle") or ():
            cycles.setdefault(rule, set()).add(step["name"])
    facts, rules = repo.parent / "facts", repo.parent / "rules.rofl"
    rules.write_text("".join(f"use({p}).\n" for p in ALL_PRESETS) + ORPHAN_ALLOWS)
    runner = CliRunner()
    assert runner.invoke(main, ["scan", str(repo), "--out", str(facts), "--exclude", "node_modules/**"]).exit_code == 0
    result = runner.invoke(main, ["audit", "--facts", str(facts), "--rules", str(rules), "--json"])
    ours: dict[str, set] = {}
    for f in json.loads(result.stdout)["findings"]:
        ours.setdefault(f["rule"], set()).add((f["from"], f["to"]))
    return theirs, cycles, ours


@pytest.mark.slow
def test_cycles_agree(cruised):
    theirs, cycles, ours = cruised
    for rule in ("no_circular", "no_runtime_circular"):
        # dependency-cruiser reports each cycle once (one edge); we report every edge on a cycle
        assert theirs[rule] <= ours[rule]
        assert {a for a, _ in ours[rule]} == cycles[rule] | {a for a, _ in theirs[rule]}


@pytest.mark.parametrize("rule", ["no_orphans", "no_test_imports_from_production"])
def test_file_rules_agree(cruised, rule):
    theirs, _, ours = cruised
    assert ours[rule] == theirs[rule]


def test_package_rules_agree_but_for_types_packages(cruised):
    theirs, _, ours = cruised
    types_only = ("packages/common/src/utils.ts", "lodash.throttle")  # only @types/lodash.throttle is declared
    assert theirs["no_dev_dependencies"] - ours["no_dev_dependencies"] == {types_only}
    assert ours["no_dev_dependencies"] <= theirs["no_dev_dependencies"]
    assert ours["no_undeclared_packages"] - theirs["no_undeclared_packages"] == {types_only}
    assert theirs["no_undeclared_packages"] <= ours["no_undeclared_packages"]
