"""The unused_dependency, unused_dev_dependency and no_duplicate_exports presets on a monorepo modelled
on create-t3-turbo: dependencies no file of their package imports are found, with knip's exceptions
(@types/x for an imported x, @types/node for a Node module, a bin a script runs, a plugin a config
file or a package.json config field names, a nested package relying on its parent's declaration)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tests.conftest import write_tree

TREE = {
    "package.json": json.dumps(
        {
            "name": "root",
            "private": True,
            "workspaces": ["packages/*", "apps/*"],
            "scripts": {"build": "turbo run build", "fmt": "prettier --write .", "check": "NODE_ENV=ci tsc -b"},
            "devDependencies": {
                "turbo": "2",
                "prettier": "3",
                "typescript": "5",
                "@acme/prettier-config": "workspace:*",
                "husky": "9",
            },
            "prettier": "@acme/prettier-config",
        }
    ),
    "packages/api/package.json": json.dumps(
        {
            "name": "@acme/api",
            "main": "src/index.ts",
            "dependencies": {"zod": "3", "superjson": "2", "lodash": "4", "@acme/db": "workspace:*", "left-pad": "1"},
            "devDependencies": {"@types/lodash": "4", "@types/react": "18", "@types/node": "20", "vitest": "1"},
            "peerDependencies": {"react": "18"},
            "scripts": {"test": "pnpm exec vitest run"},
        }
    ),
    "packages/api/src/index.ts": (
        'import { z } from "zod";\nimport type { Fn } from "lodash/fp";\nimport { db } from "@acme/db";\n'
        'import { readFileSync } from "node:fs";\nexport const api = { z, db, readFileSync };\nexport type { Fn };\n'
    ),
    "packages/api/fixtures/app/package.json": json.dumps({"name": "fixture-app"}),
    "packages/api/fixtures/app/main.ts": 'import pad from "left-pad";\nexport default pad;\n',
    "packages/db/package.json": json.dumps(
        {
            "name": "@acme/db",
            "main": "index.ts",
            "dependencies": {"drizzle-orm": "0"},
            "devDependencies": {"eslint-plugin-import": "2", "@typescript-eslint/eslint-plugin": "7", "eslint": "8"},
            "scripts": {"lint": "eslint ."},
        }
    ),
    "packages/db/.eslintrc.json": json.dumps(
        {"extends": ["plugin:import/recommended", "plugin:@typescript-eslint/recommended"]}
    ),
    "packages/db/index.ts": 'export const db = await import("drizzle-orm/pg-core");\n',
    "apps/web/package.json": json.dumps(
        {
            "name": "@acme/web",
            "dependencies": {"next": "14", "sharp": "0"},
            "devDependencies": {
                "eslint": "9",
                "eslint-plugin-react": "7",
                "vite": "5",
                "@vitejs/plugin-react": "4",
                "tailwindcss": "3",
            },
            "scripts": {"dev": "next dev", "lint": "eslint .", "build": "vite build"},
        }
    ),
    "apps/web/eslint.config.js": 'import react from "eslint-plugin-react";\nexport default [{ plugins: { react } }];\n',
    "apps/web/vite.config.ts": 'import react from "@vitejs/plugin-react";\nexport default { plugins: [react()] };\n',
    "apps/web/tsconfig.json": json.dumps({"compilerOptions": {"types": ["tailwindcss"]}}),
    "apps/web/page.tsx": "export default function Page() { return null; }\n",
    "tooling/prettier/package.json": json.dumps({"name": "@acme/prettier-config"}),
    "tooling/prettier/index.mjs": "export default {};\n",
    "src/dups.ts": (
        "const a = 1;\nexport { a, a as b };\nexport const c = 2;\nexport { c as d };\n"
        "function f() {}\nexport default f;\nexport { f };\nexport const e = 3;\n"
        "const handler = () => 1;\nexport { handler as GET, handler as POST };\n"
    ),
}


def audit(tmp_path, presets: tuple[str, ...]) -> set[tuple[str, str, str]]:
    from rofl.cli import main

    write_tree(tmp_path / "src", TREE)
    facts = tmp_path / "facts"
    runner = CliRunner()
    assert runner.invoke(main, ["scan", str(tmp_path / "src"), "--out", str(facts)]).exit_code == 0
    rules = tmp_path / "rules.rofl"
    rules.write_text("".join(f"use({p}).\n" for p in presets))
    result = runner.invoke(main, ["audit", "--facts", str(facts), "--rules", str(rules), "--json"])
    assert result.exit_code in (0, 1), result.output
    found = set()
    for f in json.loads(result.output)["findings"]:
        fact = f["fact"]
        if fact and fact.startswith("violation"):
            found.add(fact)
    return found


def test_unused_dependencies_with_knips_exceptions(tmp_path):
    found = audit(tmp_path, ("unused_dependency", "unused_dev_dependency"))
    assert found == {
        'violation[audit](unused_dependency, "apps/web/package.json", "sharp")',
        'violation[audit](unused_dependency, "packages/api/package.json", "superjson")',
        'violation[audit](unused_dev_dependency, "package.json", "husky")',
        'violation[audit](unused_dev_dependency, "packages/api/package.json", "@types/react")',
    }


def test_duplicate_exports_name_each_pair_once(tmp_path):
    found = audit(tmp_path, ("no_duplicate_exports",))
    assert found == {
        'violation[audit](no_duplicate_exports, "src/dups.ts", duplicate("a", "b"))',
        'violation[audit](no_duplicate_exports, "src/dups.ts", duplicate("c", "d"))',
        'violation[audit](no_duplicate_exports, "src/dups.ts", duplicate("default", "f"))',
    }
