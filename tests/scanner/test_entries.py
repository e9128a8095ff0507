"""Entry points: files that package.json names in main, module, types, bin or exports become src_entry facts."""

from __future__ import annotations

import json

from tests.scanner.conftest import load_manifest, parse_fact_file, scan_json


def entries(out) -> set[tuple]:
    record = load_manifest(out)["package_entries"]
    return {(f[2], f[3]) for f in parse_fact_file(out / record["facts"]) if f[0] == "src_entry"}


def test_package_fields_name_entry_files(repo, out):
    src = repo(
        {
            "package.json": json.dumps(
                {
                    "name": "app",
                    "main": "./lib/index.js",
                    "types": "lib/index.d.ts",
                    "bin": {"app": "bin/cli.js"},
                    "exports": {".": {"import": "./lib/esm.ts", "require": "./lib/index.js"}, "./util": "./lib/util"},
                }
            ),
            "lib/index.ts": "export const a = 1;\n",  # main names index.js: the .ts source is the entry
            "lib/index.d.ts": "export declare const a: number;\n",
            "lib/esm.ts": "export * from './index';\n",
            "lib/util/index.ts": "export const u = 1;\n",  # a folder with an index file
            "bin/cli.js": "require('../lib/index');\n",
            "lib/other.ts": "export const o = 1;\n",
        }
    )
    scan_json(src, out)
    assert entries(out) == {
        ("lib/index.ts", "main"),
        ("lib/index.d.ts", "types"),
        ("bin/cli.js", "bin"),
        ("lib/esm.ts", "exports"),
        ("lib/index.ts", "exports"),
        ("lib/util/index.ts", "exports"),
    }


def test_entries_follow_package_json_edits_and_files_appearing(repo, out):
    src = repo({"package.json": json.dumps({"name": "app", "main": "start.js"}), "other.ts": "export {}\n"})
    scan_json(src, out)
    assert entries(out) == set()
    (src / "start.ts").write_text("export {}\n")
    assert scan_json(src, out)["parsed"] == 1
    assert entries(out) == {("start.ts", "main")}
    (src / "package.json").write_text(json.dumps({"name": "app", "main": "other.ts"}))
    summary = scan_json(src, out)
    assert summary["parsed"] == 0
    assert entries(out) == {("other.ts", "main")}


def test_entry_files_are_not_orphans(rofl, repo, out):
    src = repo(
        {
            "package.json": json.dumps({"name": "app", "main": "main.ts"}),
            "main.ts": "import './used';\n",
            "used.ts": "export {}\n",
            "lonely.ts": "export {}\n",
        }
    )
    scan_json(src, out)
    code, text, _ = rofl("ask", "orphan(F)", "--facts", out)
    assert text.splitlines() == ['F = "lonely.ts"']
