"""Differential test: our resolution against TypeScript's own ``ts.resolveModuleName`` on one fixture workspace.

Skipped unless ``node`` and the ``typescript`` package are found: set ``ROFL_TYPESCRIPT`` to the
package's folder (``.../node_modules/typescript``), or have ``node`` find it from the working folder.
Workspace packages are linked into ``node_modules`` as a package manager would, so that TypeScript
finds them; TypeScript answers with real paths.  For every code specifier, TypeScript's file must be
one of our targets, and when TypeScript finds nothing we must not name a scanned source either.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.scanner.conftest import read_facts, rel, scan_json, write_tree

TREE = {
    "package.json": json.dumps(
        {
            "name": "root",
            "private": True,
            "workspaces": ["packages/*"],
            "type": "module",
            "imports": {
                "#util": "./src/util.ts",
                "#feat/*": "./src/features/*.ts",
                "#cond": {"types": "./src/cond-types.ts", "default": "./src/cond.js"},
            },
        }
    ),
    "tsconfig.json": json.dumps(
        {
            "compilerOptions": {
                "module": "esnext",
                "moduleResolution": "bundler",
                "customConditions": ["@zod/source"],
                "allowJs": True,
                "paths": {"@app/*": ["./src/app/*"], "exact": ["./src/util.ts"]},
            }
        }
    ),
    "packages/zod/package.json": json.dumps(
        {
            "name": "zod",
            "exports": {
                "./package.json": "./package.json",
                ".": {"@zod/source": "./src/index.ts", "types": "./index.d.cts", "import": "./index.js"},
                "./v4/core": {"@zod/source": "./src/v4/core/index.ts", "import": "./v4/core/index.js"},
                "./v4/locales/*": {"@zod/source": "./src/v4/locales/*", "import": "./v4/locales/*"},
                "./internal/*": None,
            },
        }
    ),
    "packages/zod/src/index.ts": "export const z = 1;\n",
    "packages/zod/src/v4/core/index.ts": "export const c = 1;\n",
    "packages/zod/src/v4/locales/fr.ts": "export const fr = 1;\n",
    "packages/zod/src/internal/x.ts": "export const x = 1;\n",
    "packages/lib/package.json": json.dumps(
        {
            "name": "lib",
            "exports": {
                ".": [
                    {"worker": "./src/worker.ts"},
                    {"import": {"types": "./src/types.d.ts", "default": "./src/main.js"}},
                ],
                "./features/*.js": "./src/features/*.ts",
                "./features/*": "./src/features/*.ts",
                "./first": ["./src/nope.ts", "./src/fallback.ts"],
            },
        }
    ),
    "packages/lib/src/worker.ts": "export {};\n",
    "packages/lib/src/types.d.ts": "export declare const t: number;\n",
    "packages/lib/src/main.js": "export const t = 1;\n",
    "packages/lib/src/features/a.ts": "export {};\n",
    "packages/lib/src/fallback.ts": "export {};\n",
    "packages/plain/package.json": json.dumps(
        {"name": "plain", "types": "./types/index.d.ts", "main": "./lib/index.js"}
    ),
    "packages/plain/types/index.d.ts": "export {};\n",
    "packages/plain/lib/index.js": "",
    "src/util.ts": "export {};\n",
    "src/cond-types.ts": "export {};\n",
    "src/cond.js": "",
    "src/features/f.ts": "export {};\n",
    "src/app/page.tsx": "export {};\n",
    "src/x.js": "",
    "src/x.d.ts": "export {};\n",
    "src/m.mts": "export {};\n",
    "src/dir/index.ts": "export {};\n",
    "src/typed/package.json": json.dumps({"types": "./t.d.ts"}),
    "src/typed/t.d.ts": "export {};\n",
}

SPECIFIERS = [
    "zod",
    "zod/v4/core",
    "zod/v4/locales/fr.js",
    "zod/internal/x",
    "zod/missing",
    "lib",
    "lib/features/a",
    "lib/features/a.js",
    "lib/first",
    "plain",
    "#util",
    "#feat/f",
    "#cond",
    "#missing",
    "@app/page",
    "exact",
    "./x.js",
    "./x",
    "./m.mjs",
    "./dir",
    "./typed",
    "./util.js",
    "./nothing",
    "react",
]

ORACLE = r"""
const ts = require(process.env.ROFL_TYPESCRIPT || 'typescript');
const [root, importer, specs] = [process.argv[1], process.argv[2], JSON.parse(process.argv[3])];
const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, {...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {}});
const out = {};
for (const spec of specs) {
  const r = ts.resolveModuleName(spec, importer, parsed.options, ts.sys);
  out[spec] = r.resolvedModule ? r.resolvedModule.resolvedFileName : null;
}
console.log(JSON.stringify(out));
"""


def _typescript() -> str | None:
    node = shutil.which("node")
    if node is None:
        return None
    explicit = os.environ.get("ROFL_TYPESCRIPT")
    if explicit:
        return explicit if os.path.isdir(explicit) else None
    from bench.corpora import CACHE

    installed = CACHE / "node_modules" / "typescript"  # `make test` installs it there (bench/corpora.py --oracles)
    if installed.is_dir():
        return str(installed)
    probe = subprocess.run([node, "-p", "require.resolve('typescript')"], capture_output=True, text=True)
    return "typescript" if probe.returncode == 0 else None


def test_resolution_agrees_with_typescript(tmp_path, out):
    typescript = _typescript()
    if typescript is None:
        pytest.skip("node and the typescript package are needed (ROFL_TYPESCRIPT=.../node_modules/typescript)")
    src = tmp_path / "ws"
    importer = "src/main.ts"
    write_tree(src, {**TREE, importer: "".join(f'import "{s}";\n' for s in SPECIFIERS)})
    scan_json(src, out)
    for name in ("zod", "lib", "plain"):  # linked as a package manager would, after the scan
        (src / "node_modules").mkdir(exist_ok=True)
        os.symlink(f"../packages/{name}", src / "node_modules" / name)
    env = dict(os.environ, ROFL_TYPESCRIPT=typescript)
    run = subprocess.run(
        ["node", "-e", ORACLE, str(src), str(src / importer), json.dumps(SPECIFIERS)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    theirs = {
        spec: (os.path.relpath(os.path.realpath(p), os.path.realpath(src)) if p else None)
        for spec, p in json.loads(run.stdout).items()
    }
    ours: dict[str, set[str]] = {}
    for path, spec, target in rel(read_facts(out), "src_resolves"):
        if path == importer:
            ours.setdefault(spec, set()).add(target)
    disagreements = []
    for spec in SPECIFIERS:
        if theirs[spec] is None:
            if ours.get(spec):
                disagreements.append((spec, "typescript: nothing", sorted(ours[spec])))
        elif theirs[spec] not in ours.get(spec, set()):  # ours may add the runtime file beside a declaration
            disagreements.append((spec, theirs[spec], sorted(ours.get(spec, ()))))
    assert not disagreements
    assert sum(1 for t in theirs.values() if t) >= 18  # the oracle really resolved the fixture
