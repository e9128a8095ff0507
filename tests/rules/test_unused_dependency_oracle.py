"""unused_dependency and unused_dev_dependency against tests/rules/oracle.py's reading of them, on
hypothesis-generated monorepos: packages declaring npm packages, @types packages and workspace
packages in dependencies, devDependencies and peerDependencies; files importing them (static, type,
dynamic, require, subpaths, Node modules), a nested fixture package, scripts running bins (behind
VAR=value, npx, pnpm exec), a vite.config.ts and a package.json "prettier" field naming plugins."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import write_tree
from tests.rules import oracle
from tests.rules.test_rule_oracle import base_facts, rows

FOLDERS = (".", "packages/a", "packages/b", "packages/a/fixtures/app")
POOL = (
    "zod",
    "lodash",
    "@scope/ui",
    "typescript",
    "vitest",
    "prettier-plugin-x",
    "@types/lodash",
    "@types/node",
    "@types/react",
    "@w/b",
    "react",
)
SPECIFIERS = ("zod", "lodash/fp", "@scope/ui/button", "react", "@w/b", "fs", "node:path", "vitest")
FORMS = ('import x{k} from "{s}";', 'import type {{ T{k} }} from "{s}";', 'void import("{s}");', 'require("{s}");')
WORDS = ("tsc", "vitest", "ui", "zod", "NODE_ENV=1 vitest", "npx tsc", "pnpm exec ui", "echo")
SECTIONS = ("dependencies", "devDependencies", "peerDependencies")


@st.composite
def monorepos(draw) -> dict[str, str]:
    tree: dict[str, str] = {}
    for d in FOLDERS:
        pkg: dict = {"name": {".": "root", "packages/b": "@w/b"}.get(d, d.replace("/", "-"))}
        if d == ".":
            pkg["workspaces"] = ["packages/*"]
        if d != "packages/a/fixtures/app" or draw(st.booleans()):
            for section in SECTIONS:
                names = draw(st.frozensets(st.sampled_from(POOL), max_size=4))
                if names:
                    pkg[section] = {n: "1" for n in sorted(names)}
        scripts = draw(st.lists(st.sampled_from(WORDS), max_size=2))
        if scripts:
            pkg["scripts"] = {f"s{i}": f"{w} --run && echo done" for i, w in enumerate(scripts)}
        if draw(st.booleans()):
            pkg["prettier"] = draw(st.sampled_from(POOL))
        base = "" if d == "." else d + "/"
        tree[base + "package.json"] = json.dumps(pkg)
        lines = [
            draw(st.sampled_from(FORMS)).format(k=k, s=draw(st.sampled_from(SPECIFIERS)))
            for k in range(draw(st.integers(0, 3)))
        ]
        folder = "src/" if d == "." else ""
        tree[f"{base}{folder}index.ts"] = "\n".join([*lines, "export const v = 1;"]) + "\n"
        if draw(st.booleans()):
            tree[f"{base}vite.config.ts"] = f'export default {{ plugins: ["{draw(st.sampled_from(POOL))}"] }};\n'
    return tree


def check(tree: dict[str, str]) -> None:
    from rofl.scanner.api import scan

    from rofl.loading.kernel import loaded_code_kernel
    from rofl.loading.presets import load_presets

    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "facts"
        write_tree(src, tree)
        scan(str(src), str(out))
        rules = Path(tmp) / "rules.rofl"
        rules.write_text("use(unused_dependency).\nuse(unused_dev_dependency).\n")
        kernel, _ = loaded_code_kernel(str(out), (str(rules),), 10_000_000, use_cache=False)
        load_presets(kernel, out, str(src), (rules,))
        facts = base_facts(kernel, tree)
        imports = rows(kernel, "src_import[code](F, S)")
        scripts = {
            (p.removesuffix("package.json").rstrip("/") or "."): list(json.loads(t).get("scripts", {}).values())
            for p, t in tree.items()
            if p.endswith("package.json")
        }
        mentions: dict[str, set[str]] = {}
        for p, t in tree.items():
            d = p.rsplit("/", 1)[0] if "/" in p else "."
            if p.endswith("vite.config.ts"):
                mentions.setdefault(d, set()).update(re.findall(r'"([^"]+)"', t))
            if p.endswith("package.json") and isinstance(json.loads(t).get("prettier"), str):
                mentions.setdefault(d, set()).add(json.loads(t)["prettier"])
        want = oracle.unused_dependencies(facts, imports, scripts, mentions)
        got = {
            r
            for r in rows(kernel, "violation[audit](R, A, B)")
            if r[0] in ("unused_dependency", "unused_dev_dependency")
        }
        assert got == want, f"rofl only {sorted(got - want)}, oracle only {sorted(want - got)}\n" + "\n".join(
            f"--- {p}\n{t}" for p, t in sorted(tree.items())
        )


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(monorepos())
def test_unused_dependencies_agree_with_the_oracle(tree):
    check(tree)
