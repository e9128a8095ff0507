"""A small workspace for `rofl report`'s tests: three packages importing each other by name (and one
deep import), a cycle, a folder of 60 files, a preset, a `forbidden` rule and a written named rule."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.impact_fixtures import run, scan_tree

BIG = 60  # files in packages/big/src/gen: more than a graph view holds


def workspace() -> dict[str, str]:
    files = {
        "package.json": json.dumps({"name": "w", "private": True, "workspaces": ["packages/*"]}),
        "packages/core/package.json": json.dumps({"name": "@w/core", "main": "src/index.ts"}),
        "packages/core/src/index.ts": 'export { money } from "./money";\nexport { cycleA } from "./cycle_a";\n',
        "packages/core/src/money.ts": "export const money = (n: number) => n;\nexport const unusedThing = 1;\n",
        "packages/core/src/cycle_a.ts": 'import { cycleB } from "./cycle_b";\nexport const cycleA = () => cycleB;\n',
        "packages/core/src/cycle_b.ts": 'import { cycleA } from "./cycle_a";\nexport const cycleB = () => cycleA;\n',
        "packages/ui/package.json": json.dumps({"name": "@w/ui", "main": "src/button.ts"}),
        "packages/ui/src/button.ts": (
            'import { money } from "@w/core";\nimport { money as m } from "../../core/src/money";\n'
            "export const button = () => money(1) + m(2);\n"
        ),
        "packages/ui/src/lonely.ts": "export const lonely = 1;\n",
        "packages/app/package.json": json.dumps({"name": "@w/app"}),
        "packages/app/src/main.ts": (
            'import { button } from "@w/ui";\nimport { money } from "@w/core";\nimport { g0 } from "../../big/src/gen/g00";\n'
            "button();\nmoney(g0);\n"
        ),
        "packages/big/package.json": json.dumps({"name": "@w/big", "main": "src/gen/g00.ts"}),
    }
    for i in range(BIG):
        nxt = f'import {{ g{i + 1} }} from "./g{i + 1:02d}";\n' if i + 1 < BIG else ""
        files[f"packages/big/src/gen/g{i:02d}.ts"] = f"{nxt}export const g{i} = {i};\n"
    return files


RULES = (
    "use(no_orphans).\n"
    'rule(no_ui_to_money, error, "ui goes through the entry of core").\n'
    'forbidden(no_ui_to_money, "packages/ui/", "packages/core/src/money.ts").\n'
    'rule(app_not_big, warn, "app does not import big\'s files").\n'
    'violation[audit](app_not_big, A, B) :- dependency[code](A, B), glob(A, "packages/app/"), glob(B, "packages/big/").\n'
)


def report(root: Path) -> tuple[Path, Path, Path]:
    """Scan the workspace under ``root`` and write its report with the rules: (src, facts, report.html)."""
    src, facts = scan_tree(root, workspace())
    rules = root / "rules.rofl"
    rules.write_text(RULES)
    out = root / "report.html"
    code, _, err = run("report", "--facts", facts, "--out", out, "--rules", rules)
    assert code == 0, err
    return src, facts, out
