"""Module augmentations are type imports, and exports conditions tsc reads differently name both files.

``declare module "x" { ... }`` in a file that is a module (a top-level import or export) augments x:
TypeScript resolves x from the file, so a change to x reaches it (vitest's ``src/types/global.ts``
augments ``vitest``, zod's ``prototypes.test.ts`` augments ``zod/v4/mini``, effect's provider
packages augment ``effect/unstable/ai/AiError``).  In a script file the same statement declares an
ambient module: no import.  ``declare global`` and ``declare module Foo`` (a namespace) never are.

The second half: vitest's ``test-dep-conditions`` fixture, whose ``exports`` give ``./module``
``{"module": "./true.js", "default": "./false.js"}``: a bundler takes ``true.js``, tsc ``false.js``;
rofl names both.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from rofl.engine.parse import parse_program
from rofl.scanner.extract import Extractor

from tests.scanner.conftest import read_facts, rel, scan_json
from tests.scanner.test_resolve import answers

TYPESCRIPT = Path(__file__).resolve().parents[2] / "bench" / ".cache" / "node_modules" / "typescript"


def extracted(
    path: str, text: str, extractor: Extractor | None = None
) -> dict[str, tuple[frozenset[str], frozenset[int]]]:
    """Specifier -> (kinds, lines) of one file's imports, read from its fact lines by the kernel's parser."""
    lines = (extractor or Extractor()).extract(path, text.encode(), "typescript").lines
    kinds: dict[str, set[str]] = {}
    numbers: dict[str, set[int]] = {}
    for clause in parse_program("\n".join(lines) + "\n", path):
        head = clause.head
        if head.rel == "src_import_kind":
            kind = head.args[2]  # an atom: ("type",)
            kinds.setdefault(str(head.args[1]), set()).add(kind[0] if isinstance(kind, tuple) else str(kind))
        elif head.rel == "src_import_line":
            numbers.setdefault(str(head.args[1]), set()).add(int(head.args[2]))
    return {spec: (frozenset(kinds.get(spec, ())), frozenset(numbers.get(spec, ()))) for spec in kinds}


# -- extraction ---------------------------------------------------------------------------------------

VITEST_GLOBAL = """import type { Awaitable } from '@vitest/utils'
import type { TestContext } from '../runtime/types/tasks'

declare module 'vitest' {
  interface TestContext {
    onTestFailed: (fn: () => Awaitable<void>) => void
  }
}

export {}
"""


def test_an_augmentation_in_a_module_file_is_a_type_import_at_its_declare_line():
    found = extracted("packages/vitest/src/types/global.ts", VITEST_GLOBAL)
    assert found["vitest"] == (frozenset({"type"}), frozenset({4}))
    assert found["@vitest/utils"] == (frozenset({"type"}), frozenset({1}))


def test_an_augmentation_with_a_value_import_of_the_same_module_keeps_both_kinds():
    text = 'import { z } from "zod/v4/mini";\n\ndeclare module "zod/v4/mini" {\n  interface ZodMiniType { f(): 1 }\n}\n'
    assert extracted("src/v4/mini/tests/prototypes.test.ts", text)["zod/v4/mini"] == (
        frozenset({"static", "type"}),
        frozenset({1, 3}),
    )


@pytest.mark.parametrize(
    ("script", "module"),
    [
        # a script file declares an ambient module; the same statement in a module file augments
        (
            'declare module "vitest" {\n  interface A {}\n}\n',
            'export {};\ndeclare module "vitest" {\n  interface A {}\n}\n',
        ),
        ('declare module "vitest";\n', 'export const a = 1;\ndeclare module "vitest";\n'),
        # an import alias is no module indicator; import = require() is
        ('import x = N.y;\ndeclare module "vitest" {}\n', 'import x = require("n");\ndeclare module "vitest" {}\n'),
    ],
)
def test_a_script_file_declares_and_a_module_file_augments(script, module):
    assert "vitest" not in extracted("src/a.ts", script)
    assert extracted("src/a.ts", module)["vitest"][0] == frozenset({"type"})


def test_declare_global_and_namespaces_are_no_imports_beside_an_augmentation():
    text = (
        "export {};\ndeclare global {\n  interface Window { a: 1 }\n}\n"
        "declare module Foo {\n  const b: 1\n}\n"
        "declare namespace Bar {}\n"
        'module "not-ambient" {}\n'  # no `declare` outside a .d.ts: not ambient
        'declare module "vitest" {}\n'
    )
    assert set(extracted("src/a.ts", text)) == {"vitest"}


def test_declaration_files_that_are_modules_augment_and_scripts_declare():
    module = 'import "./x";\ndeclare module "express" {\n  interface Request { user: 1 }\n}\nmodule "koa" {}\n'
    found = extracted("types/env.d.ts", module)
    assert found["express"] == (frozenset({"type"}), frozenset({2}))
    assert found["koa"] == (frozenset({"type"}), frozenset({5}))  # `declare` is implied in a .d.ts
    script = 'declare module "*.svg" {\n  const url: string\n  export default url\n}\n'
    assert "*.svg" not in extracted("types/env.d.ts", script)


def test_forms_that_make_a_file_a_module():
    for text in ('export = 1;\ndeclare module "x";\n', 'import q = require("q");\ndeclare module "x" {}\n'):
        assert extracted("src/a.ts", text)["x"][0] == frozenset({"type"})
    assert extracted("src/a.mts", 'declare module "x" {}\n')["x"][0] == frozenset({"type"})
    assert extracted("src/a.ts", 'const a = 1;\n\nexport declare module "x" {}\n')["x"] == (
        frozenset({"type"}),
        frozenset({3}),
    )


def test_a_script_files_nested_non_relative_module_declaration_is_an_augmentation():
    text = 'declare module "outer" {\n  declare module "inner" {}\n  declare module "./rel" {}\n}\n'
    found = extracted("types/g.d.ts", text)
    assert set(found) == {"inner"}
    assert found["inner"] == (frozenset({"type"}), frozenset({2}))


# -- against TypeScript's program -----------------------------------------------------------------------

_INDICATORS = [
    "",
    'import a from "dep-a";\n',
    "export {};\n",
    "export const v = 1;\n",
    'import q = require("dep-q");\n',
]
_STATEMENTS = [
    'declare module "aug-{i}" {{\n  interface I{i} {{}}\n}}\n',
    'declare module "short-{i}";\n',
    "declare global {{\n  interface G{i} {{}}\n}}\n",
    "declare module Ns{i} {{\n  const c{i}: 1\n}}\n",
    'declare module "outer-{i}" {{\n  declare module "nested-{i}" {{}}\n  declare module "./rel-{i}" {{}}\n}}\n',
    'module "bare-{i}" {{}}\n',
    "const k{i} = 1;\n",
]

# what a program collects (sourceFile.imports and moduleAugmentations, collectModuleReferences);
# ts.preProcessFile is no oracle here: it also reports `declare module` nested in an augmentation
_PROGRAM = """
const ts = require(process.argv[1]);
const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const options = {noResolve: true, noLib: true, types: []};
const host = ts.createCompilerHost(options);
host.getSourceFile = (name, version) => name in texts ? ts.createSourceFile(name, texts[name], version) : undefined;
host.fileExists = name => name in texts;
host.readFile = name => texts[name];
const program = ts.createProgram(Object.keys(texts), options, host);
const names = {};
for (const name of Object.keys(texts)) {
  const file = program.getSourceFile(name);
  names[name] = [...file.imports, ...(file.moduleAugmentations || [])].filter(n => n.kind === ts.SyntaxKind.StringLiteral).map(n => n.text);
}
console.log(JSON.stringify(names));
"""


@pytest.mark.skipif(shutil.which("node") is None or not TYPESCRIPT.is_dir(), reason="needs node and typescript")
def test_the_imports_agree_with_what_a_typescript_program_collects():
    texts: dict[str, str] = {}
    for n, (indicator, first, second) in enumerate(itertools.product(_INDICATORS, _STATEMENTS, _STATEMENTS)):
        body = first.format(i=0) + second.format(i=1)
        text = body + indicator if indicator.startswith("export") else indicator + body
        texts[f"/src/f{n}.ts"] = text
        texts[f"/types/f{n}.d.ts"] = text
    done = subprocess.run(
        ["node", "-e", _PROGRAM, str(TYPESCRIPT)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    oracle = json.loads(done.stdout)
    extractor = Extractor()
    differ = {
        name: (sorted(extracted(name[1:], text, extractor)), sorted(set(oracle[name])))
        for name, text in texts.items()
        if set(extracted(name[1:], text, extractor)) != set(oracle[name])
    }
    assert not differ, differ


# -- impact --------------------------------------------------------------------------------------------


def _impact(out: Path, changed: str, *args: str) -> set[str]:
    from rofl.commands.impact import command

    result = CliRunner().invoke(command, ["--facts", str(out), "--changed", changed, "--json", "--no-rescan", *args])
    assert result.exit_code == 0, result.output
    return {entry["file"] for entry in json.loads(result.stdout)["affected"]}


def _vitest_like() -> dict[str, str]:
    return {
        "package.json": json.dumps({"private": True, "workspaces": ["packages/*"]}),
        "packages/vitest/package.json": json.dumps(
            {"name": "vitest", "exports": {".": "./src/public/index.ts", "./node": "./src/public/node.ts"}}
        ),
        "packages/vitest/src/public/index.ts": "export interface TestContext { task: 1 }\n",
        "packages/vitest/src/public/node.ts": "export const viteVersion = '6';\n",
        "packages/vitest/src/types/global.ts": VITEST_GLOBAL.replace("'@vitest/utils'", "'./nothing'"),
        "packages/browser/package.json": json.dumps(
            {"name": "@vitest/browser", "dependencies": {"vitest": "workspace:*"}}
        ),
        "packages/browser/src/node/types.ts": (
            "import type { ScreenshotMatcherOptions } from './options'\n\n"
            "declare module 'vitest/node' {\n  interface ToMatchScreenshotOptions {}\n}\n"
        ),
        "packages/browser/src/node/options.ts": "export interface ScreenshotMatcherOptions {}\n",
        "packages/browser/src/globals.d.ts": "declare module 'vitest/node' {\n  const x: 1\n}\n",  # a script
    }


def test_a_change_to_an_augmented_module_reaches_the_augmenting_file(repo, out):
    src = repo(_vitest_like())
    scan_json(src, out)
    assert answers(out, "packages/vitest/src/types/global.ts")["vitest"] == (
        "file",
        "packages/vitest/src/public/index.ts",
    )
    assert "packages/vitest/src/types/global.ts" in _impact(out, "packages/vitest/src/public/index.ts")
    affected = _impact(out, "packages/vitest/src/public/node.ts")
    assert "packages/browser/src/node/types.ts" in affected
    assert "packages/browser/src/globals.d.ts" not in affected  # an ambient declaration, not an augmentation
    facts = read_facts(out)
    assert ("packages/browser/src/node/types.ts", "vitest/node", 3) in rel(facts, "src_import_line")
    # type-level: not followed when only runtime imports are
    runtime = _impact(out, "packages/vitest/src/public/node.ts", "--runtime")
    assert "packages/browser/src/node/types.ts" not in runtime


# -- export conditions tsc reads otherwise ---------------------------------------------------------------


def _conditions_fixture() -> dict[str, str]:
    exports = {f"./{c}": {c: "./true.js", "default": "./false.js"} for c in ("custom", "module", "node", "development")}
    exports["./inline"] = "./inline.js"
    exports["./typed"] = {"types": "./typed.d.ts", "module": "./true.js", "default": "./false.js"}
    return {
        "package.json": json.dumps({"private": True}),
        "test/e2e/package.json": json.dumps(
            {"name": "@vitest/test-e2e", "devDependencies": {"test-dep-conditions": "file:./deps/test-dep-conditions"}}
        ),
        "test/e2e/deps/test-dep-conditions/package.json": json.dumps(
            {"name": "test-dep-conditions", "type": "module", "private": True, "exports": exports}
        ),
        "test/e2e/deps/test-dep-conditions/true.js": "export default true\n",
        "test/e2e/deps/test-dep-conditions/false.js": "export default false\n",
        "test/e2e/deps/test-dep-conditions/inline.js": "export default import.meta.__IS_INLINE__\n",
        "test/e2e/deps/test-dep-conditions/typed.d.ts": "declare const b: boolean\nexport default b\n",
        "test/e2e/fixtures/conditions/basic.test.js": "".join(
            f"import c{i} from 'test-dep-conditions/{c}'\n"
            for i, c in enumerate(("custom", "module", "node", "development", "inline", "typed"))
        ),
    }


def test_a_condition_tsc_lacks_names_the_target_of_both(repo, out):
    src = repo(_conditions_fixture())
    scan_json(src, out)
    dep = "test/e2e/deps/test-dep-conditions/"
    found = answers(out, "test/e2e/fixtures/conditions/basic.test.js")
    both = ("file", (dep + "false.js", dep + "true.js"))
    assert found["test-dep-conditions/module"] == both  # a bundler: true.js; tsc: false.js
    assert found["test-dep-conditions/node"] == both
    # conditions neither set has: both take the default
    assert found["test-dep-conditions/custom"] == ("file", dep + "false.js")
    assert found["test-dep-conditions/development"] == ("file", dep + "false.js")
    assert found["test-dep-conditions/inline"] == ("file", dep + "inline.js")  # no conditions: one target
    # types first: both sets take the declaration; the runtime beside it differs
    assert found["test-dep-conditions/typed"] == ("file", (dep + "false.js", dep + "true.js", dep + "typed.d.ts"))
    assert "test/e2e/fixtures/conditions/basic.test.js" in _impact(out, dep + "false.js")
    assert "test/e2e/fixtures/conditions/basic.test.js" in _impact(out, dep + "true.js")


def test_custom_conditions_are_in_both_sets_and_module_still_names_both(repo, out):
    files = _conditions_fixture()
    files["test/e2e/tsconfig.json"] = json.dumps({"compilerOptions": {"customConditions": ["custom"], "allowJs": True}})
    src = repo(files)
    scan_json(src, out)
    dep = "test/e2e/deps/test-dep-conditions/"
    found = answers(out, "test/e2e/fixtures/conditions/basic.test.js")
    assert found["test-dep-conditions/custom"] == ("file", dep + "true.js")
    assert found["test-dep-conditions/module"] == ("file", (dep + "false.js", dep + "true.js"))
