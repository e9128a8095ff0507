"""Named rules and the shipped presets (rules/presets.rofl) on a monorepo modelled on excalidraw's packages.

The fixture is small and every expected finding below is checked by hand against it: a workspace of
three packages resolved through tsconfig `paths` (as excalidraw's), a runtime cycle and a type-only
one, an orphan, a devDependency and an undeclared package imported by production code, deep imports
into another package (by a subpath its `exports` does not offer, and by a relative path), and a
production file importing a test helper.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_tree

MONOREPO = {
    "package.json": json.dumps(
        {
            "private": True,
            "name": "draw-monorepo",
            "workspaces": ["packages/*"],
            "devDependencies": {"vitest": "3.0.6", "typescript": "5.9.3", "@types/lodash.throttle": "4.1.7"},
        }
    ),
    "tsconfig.json": json.dumps(
        {
            "compilerOptions": {
                "baseUrl": ".",
                "paths": {
                    "@draw/common": ["./packages/common/src/index.ts"],
                    "@draw/common/*": ["./packages/common/src/*"],
                    "@draw/math": ["./packages/math/src/index.ts"],
                    "@draw/math/*": ["./packages/math/src/*"],
                    "@draw/element": ["./packages/element/src/index.ts"],
                    "@draw/element/*": ["./packages/element/src/*"],
                },
            }
        }
    ),
    "setupTests.ts": 'import { vi } from "vitest";\nimport "./packages/common/tests/helpers";\nvi.useFakeTimers();\n',
    # common: offers only its root ("." in exports); declares tinycolor2
    "packages/common/package.json": json.dumps(
        {
            "name": "@draw/common",
            "exports": {".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"}},
            "dependencies": {"tinycolor2": "1.6.0"},
        }
    ),
    "packages/common/src/index.ts": 'export * from "./colors";\nexport * from "./utils";\nexport * from "./debug";\n',
    "packages/common/src/colors.ts": 'import tinycolor from "tinycolor2";\nexport const red = tinycolor("red");\n',
    "packages/common/src/utils.ts": (
        "// lodash.throttle: only its @types package is declared (a devDependency of the root)\n"
        'import throttle from "lodash.throttle";\n'
        "export const debounce = (f: () => void) => throttle(f, 10);\n"
    ),
    "packages/common/src/debug.ts": 'import { vi } from "vitest";\nexport const spy = vi.fn();\n',
    "packages/common/tests/helpers.ts": 'import { expect } from "vitest";\nexport const same = expect;\n',
    "packages/common/tests/utils.test.ts": 'import { debounce } from "../src/utils";\nimport "./helpers";\ndebounce(() => {});\n',
    # math: offers every subpath ("./*")
    "packages/math/package.json": json.dumps(
        {"name": "@draw/math", "exports": {".": "./dist/index.js", "./*": "./dist/*.js"}}
    ),
    "packages/math/src/index.ts": 'export * from "./point";\n',
    "packages/math/src/point.ts": 'import { red } from "@draw/common";\nexport const origin = [0, 0, red];\n',
    "packages/math/src/legacy.ts": "export const old = 1;\n",
    # element
    "packages/element/package.json": json.dumps(
        {
            "name": "@draw/element",
            "exports": {".": "./dist/index.js"},
            "dependencies": {"@draw/common": "*", "@draw/math": "*", "roughjs": "4.6.4"},
        }
    ),
    "packages/element/src/index.ts": (
        'export * from "./shapes";\nexport * from "./bounds";\nexport * from "./api";\nexport * from "./render";\n'
    ),
    "packages/element/src/shapes.ts": (
        'import { debounce } from "@draw/common/utils";\n'
        'import type { Bounds } from "./bounds";\n'
        "export type Shape = { bounds: Bounds };\n"
        "export const later = debounce;\n"
    ),
    "packages/element/src/bounds.ts": (
        'import { origin } from "@draw/math/point";\n'
        'import { collide } from "./collision";\n'
        'import type { Shape } from "./shapes";\n'
        "export type Bounds = number[];\n"
        "export const bounds = (s: Shape) => collide(s) + origin.length;\n"
    ),
    "packages/element/src/collision.ts": 'import { bounds } from "./bounds";\nexport const collide = (s: unknown) => (s ? 1 : bounds);\n',
    "packages/element/src/render.ts": (
        'import rough from "roughjs";\n'
        'import stroke from "perfect-freehand";\n'
        'import path from "node:path";\n'
        'import fs from "fs";\n'
        "// a SvelteKit alias and a Vite virtual module: no package by those names can exist\n"
        'import { browser } from "$app/environment";\n'
        'import "virtual:pwa-register";\n'
        "export const draw = [rough, stroke, path, fs, browser];\n"
    ),
    "packages/element/src/api.ts": (
        'import { fixture } from "./__tests__/fixtures";\n'
        'import { red } from "../../common/src/colors";\n'
        "export const api = [fixture, red];\n"
    ),
    "packages/element/src/__tests__/fixtures.ts": "export const fixture = 1;\n",
}

ALL_PRESETS = (
    "no_circular",
    "no_runtime_circular",
    "no_orphans",
    "no_dev_dependencies",
    "no_undeclared_packages",
    "no_deep_workspace_imports",
    "no_test_imports_from_production",
)
# Entry points of this workspace (their package.json names dist/ files, which are not scanned), and tests.
ORPHAN_ALLOWS = 'allow(no_orphans, "packages/*/src/index.ts").\nallow(no_orphans, "*.test.*").\nallow(no_orphans, "setupTests.ts").\n'

E = "packages/element/src/"
EXPECTED = {
    "no_circular": {
        (E + "bounds.ts", E + "collision.ts"),
        (E + "collision.ts", E + "bounds.ts"),
        (E + "bounds.ts", E + "shapes.ts"),
        (E + "shapes.ts", E + "bounds.ts"),
    },
    "no_runtime_circular": {(E + "bounds.ts", E + "collision.ts"), (E + "collision.ts", E + "bounds.ts")},
    "no_orphans": {("packages/math/src/legacy.ts", "packages/math/src/legacy.ts")},
    "no_dev_dependencies": {("packages/common/src/debug.ts", "vitest")},
    "no_undeclared_packages": {
        ("packages/common/src/utils.ts", "lodash.throttle"),
        (E + "render.ts", "perfect-freehand"),
    },
    "no_deep_workspace_imports": {
        (E + "shapes.ts", "packages/common/src/utils.ts"),
        (E + "api.ts", "packages/common/src/colors.ts"),
    },
    "no_test_imports_from_production": {(E + "api.ts", E + "__tests__/fixtures.ts")},
}


@pytest.fixture(scope="module")
def monorepo(tmp_path_factory):
    """``(src, facts)``: the monorepo scanned once."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("monorepo")
    src = root / "src"
    write_tree(src, MONOREPO)
    facts = root / "facts"
    result = CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return src, facts


def audit(rofl, facts, tmp_path, rules_text: str, *extra: str):
    rules = tmp_path / "rules.rofl"
    rules.write_text(rules_text)
    return rofl("audit", "--facts", facts, "--rules", rules, *extra)


def findings_of(out: str) -> dict[str, set[tuple[str, str]]]:
    found: dict[str, set[tuple[str, str]]] = {}
    for f in json.loads(out).get("findings", []):
        if f.get("rule"):
            found.setdefault(f["rule"], set()).add((f["from"], f["to"]))
    return found


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_each_preset_finds_exactly_its_violations(rofl, monorepo, tmp_path, preset):
    code, out, err = audit(rofl, monorepo[1], tmp_path, f"use({preset}).\n" + ORPHAN_ALLOWS, "--json")
    assert findings_of(out) == {preset: EXPECTED[preset]}, err
    severity = "warn" if preset == "no_orphans" else "error"
    assert code == (1 if severity == "error" else 0)


def test_presets_are_inert_until_turned_on(rofl, monorepo, tmp_path):
    code, out, _ = audit(rofl, monorepo[1], tmp_path, ORPHAN_ALLOWS, "--json")
    assert (code, findings_of(out)) == (0, {})


def test_findings_name_rule_severity_message_and_the_import_line(rofl, monorepo, tmp_path):
    code, out, _ = audit(
        rofl, monorepo[1], tmp_path, "use(no_deep_workspace_imports).\nuse(no_undeclared_packages).\n", "--json"
    )
    assert code == 1
    by_from = {(f["rule"], f["from"]): f for f in json.loads(out)["findings"]}
    deep = by_from[("no_deep_workspace_imports", E + "api.ts")]
    assert (deep["severity"], deep["file"], deep["line"]) == ("error", E + "api.ts", 2)
    assert "public entry" in deep["message"]
    undeclared = by_from[("no_undeclared_packages", "packages/common/src/utils.ts")]
    assert (undeclared["to"], undeclared["line"]) == ("lodash.throttle", 2)
    code, text, _ = audit(rofl, monorepo[1], tmp_path, "use(no_deep_workspace_imports).\n")
    assert "error no_deep_workspace_imports: import another workspace package through its public entry" in text
    assert f"  {E}api.ts:2: imports packages/common/src/colors.ts" in text


USER_RULE = """
rule(math_is_a_leaf, warn, "math imports no other workspace package").
violation[audit](math_is_a_leaf, A, B) :- dependency[code](A, B), glob(A, "packages/math/"), not glob(B, "packages/math/").
"""


def test_a_user_rule_with_severity_warn_fails_only_with_fail_on_warn(rofl, monorepo, tmp_path):
    code, out, _ = audit(rofl, monorepo[1], tmp_path, USER_RULE, "--json")
    assert findings_of(out) == {"math_is_a_leaf": {("packages/math/src/point.ts", "packages/common/src/index.ts")}}
    assert code == 0  # a warning does not fail the run
    code, _, _ = audit(rofl, monorepo[1], tmp_path, USER_RULE, "--fail-on", "warn")
    assert code == 1
    code, _, _ = audit(
        rofl, monorepo[1], tmp_path, USER_RULE + "severity(math_is_a_leaf, info).\n", "--fail-on", "warn"
    )
    assert code == 0


def test_severity_overrides_a_preset_and_allow_exempts_files(rofl, monorepo, tmp_path):
    rules = "use(no_orphans).\nseverity(no_orphans, error).\n" + ORPHAN_ALLOWS + 'allow(no_orphans, "legacy.ts").\n'
    code, out, _ = audit(rofl, monorepo[1], tmp_path, rules, "--json")
    assert (code, findings_of(out)) == (0, {})
    code, out, _ = audit(
        rofl, monorepo[1], tmp_path, "use(no_orphans).\nseverity(no_orphans, error).\n" + ORPHAN_ALLOWS, "--json"
    )
    assert code == 1 and json.loads(out)["findings"][0]["severity"] == "error"


def test_an_unknown_severity_is_a_user_error_naming_the_line(rofl, monorepo, tmp_path):
    # the declaration is read when a named finding of it exists
    code, _, err = audit(
        rofl,
        monorepo[1],
        tmp_path,
        'rule(r, fatal, "m").\nviolation[audit](r, A, A) :- src_file[code](A, _), glob(A, "legacy.ts").\n',
    )
    assert code == 2 and "rules.rofl:1" in err and "fatal" in err and "error, warn, info" in err


def test_package_presets_read_the_source_folder_named_by_src(rofl, monorepo, tmp_path):
    """--src names where package.json files are when the scan's folder has moved."""
    import shutil

    src, facts = monorepo
    moved = tmp_path / "moved"
    shutil.copytree(src, moved)
    code, out, _ = audit(rofl, facts, tmp_path, "use(no_dev_dependencies).\n", "--src", moved, "--json")
    assert findings_of(out) == {"no_dev_dependencies": EXPECTED["no_dev_dependencies"]}


FORBIDDEN = """
rule(element_not_to_math, error, "element reaches math only through its public entry").
forbidden(element_not_to_math, "packages/element/", "packages/math/src/point.ts").
rule(math_not_to_common_at_runtime, warn, "math needs common only for types").
forbidden_runtime(math_not_to_common_at_runtime, "packages/math/", "packages/common/").
rule(no_node_in_element, info, "element runs in the browser").
forbidden_package(no_node_in_element, "packages/element/", "node:*").
forbidden_package(no_node_in_element, "packages/element/", "fs").
"""


def test_forbidden_rules_need_no_join(rofl, monorepo, tmp_path):
    code, out, _ = audit(rofl, monorepo[1], tmp_path, FORBIDDEN, "--json")
    assert findings_of(out) == {
        "element_not_to_math": {(E + "bounds.ts", "packages/math/src/point.ts")},
        "math_not_to_common_at_runtime": {("packages/math/src/point.ts", "packages/common/src/index.ts")},
        "no_node_in_element": {(E + "render.ts", "node:path"), (E + "render.ts", "fs")},
    }
    assert code == 1
    severities = {f["rule"]: f["severity"] for f in json.loads(out)["findings"]}
    assert severities == {
        "element_not_to_math": "error",
        "math_not_to_common_at_runtime": "warn",
        "no_node_in_element": "info",
    }
    lines = {(f["to"], f["line"]) for f in json.loads(out)["findings"] if f["rule"] == "no_node_in_element"}
    assert lines == {("node:path", 3), ("fs", 4)}


def test_a_bad_severity_override_names_its_line(rofl, monorepo, tmp_path):
    code, _, err = audit(rofl, monorepo[1], tmp_path, "use(no_orphans).\n\nseverity(no_orphans, loud).\n")
    assert code == 2 and "rules.rofl:3" in err and "'loud'" in err


def test_presets_without_a_scan_say_so(rofl, tmp_path):
    rules = tmp_path / "rules.rofl"
    rules.write_text("use(no_circular).\n")
    code, out, err = rofl("audit", rules)
    assert code == 0 and "give --facts DIR" in err


def test_a_use_of_no_rule_is_refused_at_its_line_not_a_clean_audit(rofl, monorepo, tmp_path):
    """A typo in a preset's name would turn nothing on and pass the audit in silence."""
    code, out, err = audit(rofl, monorepo[1], tmp_path, "use(no_circular).\nuse(no_orphan).\n")
    assert code == 2 and out == "", out
    assert err.strip() == f"{tmp_path / 'rules.rofl'}:2: use(no_orphan) names no rule; did you mean no_orphans?"
    # a user's own named rule may be turned on the same way
    own = USER_RULE.replace("dependency[code](A, B),", "use(math_is_a_leaf), dependency[code](A, B),")
    code, out, _ = audit(rofl, monorepo[1], tmp_path, own + "use(math_is_a_leaf).\n", "--json")
    assert code == 0 and set(findings_of(out)) == {"math_is_a_leaf"}
