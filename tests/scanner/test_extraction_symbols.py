"""The symbol facts `rofl impact --symbols` reads: each top-level statement's lines and the names it binds
(src_decl), each export's statement and the binding behind it (src_export_span, src_export_local), and the
bindings each statement mentions (src_decl_uses), a superset of its references, never fewer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.parse import parse_program
from rofl.scanner.extract import Extractor


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor()


def facts(extractor: Extractor, text: str, path: str = "m.ts") -> dict[str, set[tuple]]:
    lines = extractor.extract(path, text.encode(), "typescript" if path.endswith(".ts") else "javascript").lines
    out: dict[str, set[tuple]] = {}
    for clause in parse_program("\n".join(lines), path):
        out.setdefault(clause.head.rel, set()).add(clause.head.args[1:])
    return out


# modelled on a library module: JSDoc, an overload, a namespace import, renamed and default exports
MODULE = """\
import { round as r } from './math';
import * as util from './util';
import './polyfill';

/**
 * Cents of an amount.
 */
export function toCents(x: number): number;
export function toCents(x: number) {
  return r(x * 100) + util.scale + helper();
}
function helper() { return util.base(); }
const a = 1, b = a;
export { a as first, b };
export default toCents;
export * from './more';
export { x as y } from './other';
export interface Shape { n: typeof a }
namespace Inner { export const z = 1; }
util.register(helper);
"""


def test_statements_exports_and_mentions(extractor):
    f = facts(extractor, MODULE)
    assert f["src_decl"] == {
        ("r", 1, 1),
        ("util", 2, 2),
        ("<module>", 3, 3),
        ("toCents", 5, 8),  # the JSDoc above belongs to the overload
        ("toCents", 9, 11),
        ("helper", 12, 12),
        ("a", 13, 13),
        ("b", 13, 13),
        ("Shape", 18, 18),
        ("Inner", 19, 19),
        ("<module>", 20, 20),
    }
    assert f["src_export_span"] == {
        ("toCents", 5, 8),
        ("toCents", 9, 11),
        ("first", 14, 14),
        ("b", 14, 14),
        ("default", 15, 15),
        ("*", 16, 16),
        ("y", 17, 17),
        ("Shape", 18, 18),
    }
    assert f["src_export_local"] == {
        ("toCents", "toCents"),
        ("first", "a"),
        ("b", "b"),
        ("default", "toCents"),
        ("Shape", "Shape"),
    }
    uses = f["src_decl_uses"]
    # r, util.scale and helper; `x` and `number` bind nothing at the top level
    assert {u for d, u in uses if d == "toCents"} == {"r", "util.scale", "helper"}
    assert {u for d, u in uses if d == "helper"} == {"util.base"}
    assert ("b", "a") in uses and ("Shape", "a") in uses
    assert {u for d, u in uses if d == "<module>"} == {"util.register", "helper"}


def test_default_expressions_commonjs_and_bare_namespace_use(extractor):
    f = facts(extractor, "import * as ns from './x';\nconst k = 1;\nexport default { k, all: ns };\n")
    assert ("default", "default") in f["src_export_local"]
    assert {("default", "k"), ("default", "ns")} <= f["src_decl_uses"]
    cjs = facts(extractor, "const h = require('./h');\nexports.run = () => h.go();\n", "c.js")
    assert ("<module>", "h") in cjs["src_decl_uses"] or ("<module>", "h.go") in cjs["src_decl_uses"]
    assert "src_export_local" not in cjs  # exports.run: no binding the scan can name
    anon = facts(extractor, "export default class {}\nexport default function () {}\n")
    assert ("default", "default") in anon["src_export_local"]


NAMES = [f"v{i}" for i in range(6)]


@settings(max_examples=60, deadline=None)
@given(
    refs=st.lists(st.lists(st.sampled_from(NAMES), max_size=4), min_size=len(NAMES), max_size=len(NAMES)),
    forms=st.lists(st.sampled_from(["call", "spread", "jsx", "template", "member"]), min_size=4, max_size=4),
)
def test_mentions_are_never_fewer_than_references(extractor, refs, forms):
    """Every binding a statement references is among its src_decl_uses, however it is written."""
    lines = []
    for name, used in zip(NAMES, refs, strict=True):
        parts = []
        for i, u in enumerate(used):
            form = forms[i % len(forms)]
            parts.append(
                {"call": f"{u}()", "spread": f"[...{u}]", "jsx": f"`${{{u}}}`", "template": f"`x${{ {u} }}`"}.get(
                    form, f"{u}.length"
                )
            )
        lines.append(f"export const {name} = () => [{', '.join(parts)}];")
    f = facts(extractor, "\n".join(lines) + "\n")
    uses = f.get("src_decl_uses", set())
    for name, used in zip(NAMES, refs, strict=True):
        assert {(name, u) for u in used if u != name} <= uses
    spans = {n: (a, b) for n, a, b in f["src_decl"]}
    assert [spans[n] for n in NAMES] == [(i + 1, i + 1) for i in range(len(NAMES))]
