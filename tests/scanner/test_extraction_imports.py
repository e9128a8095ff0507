"""Import extraction: comments inside calls, one line per import, type-only forms, declaration files."""

from __future__ import annotations

from tests.scanner.conftest import read_facts, rel, scan_json


def kinds_of(facts, path):
    return {(s, k[0]) for (p, s, k) in rel(facts, "src_import_kind") if p == path}


def lines_of(facts, path):
    return {(s, line) for (p, s, line) in rel(facts, "src_import_line") if p == path}


# modelled on webpack/vite code splitting and CommonJS with annotations
CHUNKS_JS = """\
const b = () => import(/* webpackChunkName: "b" */ "./b");
const c = () => import(
  /* @vite-ignore */
  './c'
);
const d = require(/* x */ "./d");
const e = require("./e" /* trailing */);
const notOne = require("./f", "./g");
const data = await import("./data.json", { with: { type: "json" } });
const notTwo = import("./h", {}, "./i");
"""


def test_comments_inside_import_and_require_calls(repo, out):
    src = repo(
        {
            "app.js": CHUNKS_JS,
            "legacy.ts": 'import fs = require(/* node */ "fs");\n',
            "b.js": "",
            "c.js": "",
            "d.js": "",
            "e.js": "",
            "data.json": "{}",
        }
    )
    summary = scan_json(src, out)
    assert summary["errors"] == 0
    facts = read_facts(out)
    assert kinds_of(facts, "app.js") == {
        ("./b", "dynamic"),
        ("./c", "dynamic"),
        ("./d", "require"),
        ("./e", "require"),
        ("./data.json", "dynamic"),
    }
    assert {(s, t) for (p, s, t) in rel(facts, "src_resolves") if p == "app.js"} == {
        ("./b", "b.js"),
        ("./c", "c.js"),
        ("./d", "d.js"),
        ("./e", "e.js"),
        ("./data.json", "data.json"),
    }
    assert lines_of(facts, "app.js") == {("./b", 1), ("./c", 2), ("./d", 6), ("./e", 7), ("./data.json", 9)}
    assert kinds_of(facts, "legacy.ts") == {("fs", "require")}
    assert ("legacy.ts", "fs", "*", "fs") in rel(facts, "src_import_name")


def test_one_line_row_per_import_statement_or_call(repo, out):
    src = repo(
        {
            "main.ts": (
                'import { a } from "./dep";\n'
                "export const f = () => 1;\n"
                'import { b } from "./dep";\n'
                'const lazy = () => import("./dep");\n'
                "/// not a reference\n"
            ),
            "refs.d.ts": '/// <reference path="globals.d.ts" />\n/// <reference types="node" />\nexport {};\n',
            "dep.ts": "export const a = 1, b = 2;\n",
            "globals.d.ts": "declare const G: number;\n",
        }
    )
    scan_json(src, out)
    facts = read_facts(out)
    assert lines_of(facts, "main.ts") == {("./dep", 1), ("./dep", 3), ("./dep", 4)}
    assert rel(facts, "src_import") >= {("main.ts", "./dep")}
    assert kinds_of(facts, "main.ts") == {("./dep", "static"), ("./dep", "dynamic")}
    assert lines_of(facts, "refs.d.ts") == {("./globals.d.ts", 1)}


# modelled on zod's and TanStack query's index files and type modules
TYPES_TS = """\
import type { Config } from "./config";
import { type A, type B } from "./letters";
import { type C, D } from "./mixed";
import Default, { type E } from "./with-default";
import { type } from "./named-type";
export type { Config } from "./config";
export { type F, type G } from "./reexported-types";
export { type H, I } from "./reexported-mixed";
export type * from "./all-types";
export type * as Types from "./namespace-types";
export * from "./values";
let lazy: typeof import("./typeof-import");
type Member = import("./import-type").Member;
const runtime = import("./runtime");
"""


def test_type_only_imports_are_kind_type_and_mixed_stay_value(repo, out):
    src = repo({"index.ts": TYPES_TS})
    summary = scan_json(src, out)
    assert summary["errors"] == 0
    facts = read_facts(out)
    assert kinds_of(facts, "index.ts") == {
        ("./config", "type"),
        ("./letters", "type"),
        ("./mixed", "static"),
        ("./with-default", "static"),
        ("./named-type", "static"),
        ("./reexported-types", "type"),
        ("./reexported-mixed", "reexport"),
        ("./all-types", "type"),
        ("./namespace-types", "type"),
        ("./values", "reexport"),
        ("./typeof-import", "type"),
        ("./import-type", "type"),
        ("./runtime", "dynamic"),
    }
    assert ("index.ts", "./named-type", "type", "type") in rel(facts, "src_import_name")
    assert ("index.ts", "./all-types", "*", "*") in rel(facts, "src_import_name")
    assert ("index.ts", "Types") in rel(facts, "src_export")
    assert ("index.ts", "./config", 1) in rel(facts, "src_import_line")
    assert ("index.ts", "./config", 6) in rel(facts, "src_import_line")


def test_declaration_files_are_marked(repo, out):
    src = repo(
        {
            "types.d.ts": "export interface T {}\n",
            "esm.d.mts": "export declare const m: number;\n",
            "cjs.d.cts": "export declare const c: number;\n",
            "styles.d.css.ts": "declare const s: Record<string, string>; export default s;\n",
            "index.ts": "export const i = 1;\n",
            "d.ts": "export const notDeclaration = 1;\n",
            "types.d.js": "export const js = 1;\n",
        }
    )
    scan_json(src, out)
    assert rel(read_facts(out), "src_declaration") == {
        ("types.d.ts",),
        ("esm.d.mts",),
        ("cjs.d.cts",),
        ("styles.d.css.ts",),
    }
