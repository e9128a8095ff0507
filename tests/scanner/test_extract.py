"""Extraction: every import form and declaration kind becomes the documented [code] facts."""

from __future__ import annotations

from tests.scanner.conftest import atom, read_facts, rel, scan_json

TS_MODULE = """\
import def1 from "./dep";
import def2, { a as b, type C } from "./dep2";
import * as ns from './ns';
import './side';
import type { T } from "./types";
import { type U } from "./types2";
import legacy = require("./legacy");
export * from "./all";
export * as grouped from "./grouped";
export { x as default2, y } from './xy';
export type { Z } from "./z";
export { "string name" as str } from "./strname";

export function top(a: number) { helper(a); return new Widget(a); }
export async function* gen() {}
export const arrow = (v) => v.map(x => double(x));
export let fnExpr = function inner() { this.a.b(); };
export const { d1, d2: renamed, ...rest } = obj, [e1, e2] = arr;
export class Shape extends Base {
  constructor() { super(); init(); }
  area() { return Math.sqrt(2); }
  get size() { return 1; }
  static make = () => new Shape();
  #secret() {}
}
export abstract class Abstract { abstract shape(): void; concrete() {} }
export interface Iface { m(): void }
export type Alias = string;
export enum Color { Red }
export namespace Space { export const q = 1; }
export declare function declared(): void;
const Klass = class { method() { go(); } };
const Named = class Inner {};
function outer() { const cb = () => { nested(); }; cb(); }
lazy = () => import("./lazy");
const req = require("./req");
const tmpl = import(`./tmpl`);
const notLiteral = import(`./${name}`);
(function iife() { fromIife(); })();
obj.method().chain();
export default function () {}
"""

JS_MODULE = """\
const fs = require('fs');
module.exports = Thing;
module.exports.helper = helper;
exports.other = 1;
function Thing() { helper(); }
const jsx = <Button onClick={() => clicked()} />;
"""


def test_typescript_imports_declarations_and_exports(repo, out):
    src = repo({"mod.ts": TS_MODULE})
    summary = scan_json(src, out)
    assert summary["parsed"] == 1 and summary["errors"] == 0
    facts = read_facts(out)

    imports = rel(facts, "src_import")
    expected_sources = {
        "./dep",
        "./dep2",
        "./ns",
        "./side",
        "./types",
        "./types2",
        "./legacy",
        "./all",
        "./grouped",
        "./xy",
        "./z",
        "./strname",
        "./lazy",
        "./req",
        "./tmpl",
    }
    assert {s for (_, s) in imports} == expected_sources

    kinds = {(s, k[0]) for (_, s, k) in rel(facts, "src_import_kind")}
    assert kinds == {
        ("./dep", "static"),
        ("./dep2", "static"),
        ("./ns", "static"),
        ("./side", "side_effect"),
        ("./types", "type"),
        ("./types2", "type"),
        ("./legacy", "require"),
        ("./all", "reexport"),
        ("./grouped", "reexport"),
        ("./xy", "reexport"),
        ("./z", "type"),
        ("./strname", "reexport"),
        ("./lazy", "dynamic"),
        ("./req", "require"),
        ("./tmpl", "dynamic"),
    }

    names = {(s, i, local) for (_, s, i, local) in rel(facts, "src_import_name")}
    assert {
        ("./dep", "default", "def1"),
        ("./dep2", "default", "def2"),
        ("./dep2", "a", "b"),
        ("./dep2", "C", "C"),
        ("./ns", "*", "ns"),
        ("./types", "T", "T"),
        ("./types2", "U", "U"),
        ("./legacy", "*", "legacy"),
        ("./all", "*", "*"),
        ("./grouped", "*", "grouped"),
        ("./xy", "x", "default2"),
        ("./xy", "y", "y"),
        ("./z", "Z", "Z"),
        ("./strname", "string name", "str"),
    } <= names

    exports = {n for (_, n) in rel(facts, "src_export")}
    assert {
        "grouped",
        "default2",
        "y",
        "Z",
        "str",
        "top",
        "gen",
        "arrow",
        "fnExpr",
        "d1",
        "renamed",
        "rest",
        "e1",
        "e2",
        "Shape",
        "Abstract",
        "Iface",
        "Alias",
        "Color",
        "Space",
        "declared",
        "default",
    } == exports

    funcs = {(n, line) for (_, n, line) in rel(facts, "src_func")}
    assert {("top", 14), ("gen", 15), ("arrow", 16), ("fnExpr", 17), ("outer", 34), ("cb", 34), ("lazy", 35)} <= funcs

    classes = {n for (_, n, _) in rel(facts, "src_class")}
    assert {"Shape", "Abstract", "Klass", "Inner"} <= classes

    methods = {(c, m) for (_, c, m, _) in rel(facts, "src_method")}
    assert {
        ("Shape", "constructor"),
        ("Shape", "area"),
        ("Shape", "size"),
        ("Shape", "make"),
        ("Shape", "#secret"),
        ("Abstract", "concrete"),
        ("Klass", "method"),
    } <= methods

    calls = {(caller, callee) for (_, caller, callee) in rel(facts, "src_call")}
    assert {
        ("top", "helper"),
        ("top", "Widget"),
        ("arrow", "v.map"),
        ("arrow", "double"),
        ("fnExpr", "this.a.b"),
        ("Shape.constructor", "init"),
        ("Shape.area", "Math.sqrt"),
        ("Shape.make", "Shape"),
        ("Klass.method", "go"),
        ("cb", "nested"),
        ("outer", "cb"),
        ("<module>", "require"),
        ("iife", "fromIife"),
        ("<module>", "obj.method"),
    } <= calls
    assert not any(callee == "import" for (_, callee) in calls)

    lines = {(s, line) for (_, s, line) in rel(facts, "src_import_line")}
    assert {
        ("./dep", 1),
        ("./types2", 6),
        ("./legacy", 7),
        ("./z", 11),
        ("./lazy", 35),
        ("./req", 36),
        ("./tmpl", 37),
    } <= lines
    assert len(lines) == len(expected_sources)  # one row per statement or call, each source once here

    assert rel(facts, "src_parse_error") == set()
    assert rel(facts, "src_declaration") == set()
    ((path, hash12),) = rel(facts, "src_file")
    assert path == "mod.ts" and len(hash12) == 12


def test_commonjs_and_jsx(repo, out):
    src = repo({"lib/thing.jsx": JS_MODULE})
    scan_json(src, out)
    facts = read_facts(out)
    assert rel(facts, "src_import") == {("lib/thing.jsx", "fs")}
    assert {k[0] for (_, _, k) in rel(facts, "src_import_kind")} == {"require"}
    assert {n for (_, n) in rel(facts, "src_export")} == {"default", "helper", "other"}
    calls = {(c, f) for (_, c, f) in rel(facts, "src_call")}
    assert ("Thing", "helper") in calls and ("<module>", "clicked") in calls
    assert rel(facts, "src_external") == {("lib/thing.jsx", "fs", "fs")}
    assert rel(facts, "src_in_dir") == {("lib/thing.jsx", "lib"), ("lib/thing.jsx", ".")}


def test_grammar_by_extension(repo, out):
    src = repo(
        {
            "a.mjs": "export const a = 1;\n",
            "b.cjs": "module.exports = 1;\n",
            "c.mts": "export const c: number = 1;\n",
            "d.cts": "export type D = 1;\n",
            "e.d.ts": "export declare function e(): void;\n",
            "f.tsx": "export const F = () => <div>{(x as any)}</div>;\n",
            "g.ts": "const g = <T,>(x: T) => x;\n",
        }
    )
    summary = scan_json(src, out)
    assert summary["parsed"] == 7
    facts = read_facts(out)
    assert rel(facts, "src_parse_error") == set(), rel(facts, "src_parse_error")
    assert ("e.d.ts", "e") in rel(facts, "src_export")
    assert ("f.tsx", "F", 1) in rel(facts, "src_func")
    assert rel(facts, "src_declaration") == {("e.d.ts",)}


def test_nested_dirs_give_every_ancestor(repo, out):
    src = repo({"src/ui/widgets/a.ts": "export {};\n", "top.ts": "export {};\n"})
    scan_json(src, out)
    facts = read_facts(out)
    assert {d for (p, d) in rel(facts, "src_in_dir") if p == "src/ui/widgets/a.ts"} == {
        "src/ui/widgets",
        "src/ui",
        "src",
        ".",
    }
    assert {d for (p, d) in rel(facts, "src_in_dir") if p == "top.ts"} == {"."}


def test_import_kind_atoms_are_bare(repo, out):
    src = repo({"a.ts": "import './b';\n", "b.ts": ""})
    scan_json(src, out)
    kinds = rel(read_facts(out), "src_import_kind")
    assert kinds == {("a.ts", "./b", atom("side_effect"))}
