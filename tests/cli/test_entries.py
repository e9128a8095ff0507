"""Entry points without noise: package.json scripts, HTML <script src>, test and config conventions,
entry_glob in a rules file; orphans are what is left."""

from __future__ import annotations

import json

import pytest
from rofl.scanner.entries import script_paths, script_sources

from tests.cli.impact_fixtures import run, scan_tree

APP = {
    "package.json": json.dumps(
        {
            "name": "app",
            "scripts": {
                "build": "node scripts/build.mjs --config=tools/cfg.ts && tsc -p .",
                "test": "vitest run",
                "lint": "eslint . --ext .ts",
                "seed": "tsx ./db/seed",
            },
        }
    ),
    "index.html": '<!doctype html><script type="module" src="/src/main.ts"></script>'
    '<script src="https://cdn.example.com/x.js"></script>',
    "public/other.html": '<script src="../src/legacy.js?v=2"></script>',
    "src/main.ts": 'import { util } from "./util";\nutil();\n',
    "src/util.ts": "export const util = () => 1;\n",
    "src/legacy.js": "window.x = 1;\n",
    "src/a.test.ts": 'import { util } from "./util";\nutil();\n',
    "src/util.spec.js": "1;\n",
    "src/__tests__/helper.ts": "export const h = 1;\n",
    "vite.config.ts": "export default {};\n",
    "scripts/build.mjs": "1;\n",
    "scripts/release.ts": "1;\n",
    "tools/cfg.ts": "export default 1;\n",
    "db/seed.ts": "1;\n",
    "src/forgotten.ts": "export const f = 1;\n",
}


def answers(facts, query: str, *extra) -> set[str]:
    code, out, err = run("ask", query, "--facts", facts, "--json", *extra)
    assert code in (0, 1), err
    return {a["F"] for a in json.loads(out)["answers"]}


def test_entries_come_from_scripts_html_and_conventions(tmp_path):
    _, facts = scan_tree(tmp_path, APP)
    code, out, _ = run("ask", "src_entry[code](F, W)", "--facts", facts, "--json")
    entries = {(a["F"], a["W"]) for a in json.loads(out)["answers"]}
    assert entries == {
        ("scripts/build.mjs", "scripts"),
        ("tools/cfg.ts", "scripts"),
        ("db/seed.ts", "scripts"),
        ("src/main.ts", "html"),
        ("src/legacy.js", "html"),
    }
    assert answers(facts, "orphan(F)") == {"scripts/release.ts", "src/forgotten.ts"}


def test_entry_glob_in_a_rules_file_and_conventions_off(tmp_path):
    _, facts = scan_tree(tmp_path, APP)
    rules = tmp_path / "entries.rofl"
    rules.write_text('entry_glob("scripts/**").\n')
    assert answers(facts, "orphan(F)", "--rules", rules) == {"src/forgotten.ts"}
    rules.write_text("entry_conventions(off).\n")
    assert answers(facts, "orphan(F)", "--rules", rules) == {
        "scripts/release.ts",
        "src/forgotten.ts",
        "src/a.test.ts",
        "src/util.spec.js",
        "src/__tests__/helper.ts",
        "vite.config.ts",
    }


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("node scripts/build.mjs --config=tools/cfg.ts && tsc -p .", ["scripts/build.mjs", "tools/cfg.ts"]),
        ("vitest run", []),
        ("eslint . --ext .ts", []),
        ("tsx ./db/seed", ["./db/seed"]),
        ("node 'bin/cli.js' | tee out/log/", ["bin/cli.js", "out/log"]),
        ("rm -rf dist/* && curl https://x.org/a.js", []),
        ("FOO=$BAR node $(which x)/y.js", []),
    ],
)
def test_script_words_that_name_files(command, paths):
    assert script_paths(command) == paths


def test_script_sources_of_an_html_page():
    page = '<html><head><script src="a.js"></script><script>inline()</script><SCRIPT SRC="/b.ts" type=module></SCRIPT>'
    assert script_sources(page) == ["a.js", "/b.ts"]
