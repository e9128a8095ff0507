"""Extraction queries the tree slice by slice, and a large text holds one tree at a time: the facts
(and the matches, in order) are those of one whole-tree query with every tree kept.

``Extractor(slice_children=0)`` queries the whole tree at once (the reference); small slice sizes
put a boundary between almost every pair of statements, nested or touching, broken or not, and
inside wrappers; ``Extractor(one_tree_from=0)`` lets go of every tree a second chance may replace.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.scanner import extract
from rofl.scanner.extract import Extractor, slice_bounds

ROOT = Path(__file__).resolve().parents[2]
SIZES = (1, 2, 3)

NESTED_JS = b"""\
import a, { b as c } from "./a";
import "./side";
const m = require("./m"); f(); g.h();
export function outer(x) {
  function inner() { return new Widget(x).run(); }
  const arrow = () => { helper(); return class { method() { deep(); } }; };
  return inner() + arrow();
}
(function iife() { const lazy = import("./lazy"); setup(lazy); })();
export default class Shape extends Base { area() { return Math.sqrt(2); } static make = () => new Shape(); }
module.exports = outer; exports.more = 1; module.exports.other = 2;
f();g();h();/* c */k();
const Klass = class Inner { m() { this.a.b(); } };
export { outer as again }; export * from "./all";
"""

NESTED_TS = b"""\
/// <reference path="globals.d.ts" />
import type { T } from "./types";
import legacy = require("./legacy");
@decorate(first(), second()) export class Service<T> implements I {
  @inject(token()) field = () => use();
  constructor(private readonly dep: Dep) { super(); init(); }
  async load(): Promise<void> { await fetchIt<T>(); await this.api.get<T>(); }
}
export abstract class Abstract { abstract shape(): void; concrete() { call(); } }
namespace Space { export const q = 1; inner(); }
type Lazy = typeof import("./lazy");
export type { Z } from "./z";
let x = = 1;
f()class Broken {
"""

BROKEN = b"f()class A {} g()import a from 'b'f()\nx = {a: 1\nlet y = [1, 2\nfunction h(a, { return 1 }\nexports.z = 1"

# statements joined with separators that make them touch, sit on lines, or carry comments between
STATEMENTS = (
    "f()",
    "g.h(1, 2);",
    'import a from "./a";',
    'export { b } from "./b";',
    'const r = require("./r");',
    "function fn(a) { return inner(a); }",
    "class C { m() { this.x(); } }",
    "const v = () => w();",
    "(function () { iife(); })();",
    "exports.e = 1;",
    "module.exports = fn;",
    "new Thing();",
    "let bad = = 1;",
    "class Open {",
    "x = {a: 1",
    "}",
    "/* comment */",
    'import("./dyn");',
)
SEPARATORS = ("", "\n", " ", ";", "/*c*/")


def _nothing(node: Any) -> bool:
    return False


def _facts(text: bytes, grammar: str, size: int) -> extract.Extraction:
    return Extractor(size).extract("src/file.ts" if grammar != "javascript" else "src/file.js", text, grammar)


def _matches(extractor: Extractor, query: Any, root: Any) -> list[tuple[int, list[tuple[str, list[int]]]]]:
    return [
        (index, sorted((name, [node.id for node in nodes]) for name, nodes in caps.items()))
        for index, caps in extractor._matches(query, root)
    ]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "text, grammar",
    [(NESTED_JS, "javascript"), (NESTED_JS, "tsx"), (NESTED_TS, "typescript"), (BROKEN, "javascript")],
    ids=["js", "tsx", "ts", "broken"],
)
def test_slices_give_the_facts_of_the_whole_tree(text: bytes, grammar: str, size: int) -> None:
    whole = _facts(text, grammar, 0)
    assert len(whole.lines) > 10
    assert _facts(text, grammar, size) == whole


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("grammar", extract.GRAMMARS)
def test_slices_give_the_matches_of_the_whole_tree_in_order(grammar: str, size: int) -> None:
    extractor = Extractor(0)
    parsed = extractor._grammar(grammar)
    for text in (NESTED_JS, NESTED_TS, BROKEN):
        root = parsed.parser.parse(text).root_node
        for query in (parsed.query, parsed.commonjs):
            whole = _matches(extractor, query, root)
            assert _matches(Extractor(size), query, root) == whole


# wrappers around the statements: sliced inside unless a match starts at one of their nodes
WRAPPERS = (
    ("(function () {", "})();"),
    ("!function (g, f) { f(); }(this, function () {", "});"),
    ("define(['x'], function (x) {", "});"),
    ("export default function () {", "}"),
    ("class W { m() {", "} }"),
    ("if (a) {", "}"),
    ("{", "}"),
    ("", ""),
)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(STATEMENTS), st.sampled_from(SEPARATORS)), min_size=1, max_size=14),
    st.lists(st.sampled_from(WRAPPERS), max_size=3),
    st.sampled_from(extract.GRAMMARS),
)
@pytest.mark.slow
def test_any_statement_sequence_slices_like_the_whole_tree(
    parts: list[tuple[str, str]], wrappers: list[tuple[str, str]], grammar: str
) -> None:
    source = "".join(statement + separator for statement, separator in parts)
    for before, after in wrappers:
        source = f"{before}\n{source}\n{after}"
    text = source.encode()
    whole = _facts(text, grammar, 0)
    for size in SIZES:
        assert _facts(text, grammar, size) == whole, (size, text)


def test_bounds_cover_the_children_and_skip_empty_nodes() -> None:
    parser = Extractor(0)._grammar("javascript").parser
    root = parser.parse(b"a();b();c();d();e();f();g();").root_node
    starts = [root.child(i).start_byte for i in range(root.child_count)]
    assert slice_bounds(root, 3, _nothing) == [0, starts[3], starts[6]]
    assert slice_bounds(root, 1, _nothing) == [0, *starts[1:]]
    # `f()` ends in a missing `;` (no bytes) right where `let` starts: no boundary there
    root = parser.parse(b"f()let a}\ng();").root_node
    first = root.child(0)
    assert first.child(first.child_count - 1).is_missing
    assert first.end_byte == root.child(1).start_byte
    assert slice_bounds(root, 1, _nothing) == [0, root.child(2).start_byte, root.child(3).start_byte]


def test_no_pattern_can_match_the_root() -> None:
    """What lets the root be sliced: a match starting at the root would come once per slice."""
    roots = {"program", "ERROR", "_"}
    for source in (*extract.QUERY_SOURCES.values(), extract._COMMONJS_QUERY):
        for line in source.strip().splitlines():
            found = re.match(r"\s*\[?\s*\((\w+)", line)
            if found is not None and not line.startswith(" "):
                assert found.group(1) not in roots, line
    # a query that does match the root is not sliced: one match, as over the whole tree
    extractor = Extractor(1)
    query = extractor._ts.Query(extractor._language("javascript"), "(program) @all (call_expression) @call")
    root = extractor._grammar("javascript").parser.parse(b"a();\nb();\nc();\n").root_node
    assert _matches(extractor, query, root) == _matches(Extractor(0), query, root)
    assert len(_matches(extractor, query, root)) == 4
    cursor = extractor._ts.QueryCursor(query)
    cursor.set_byte_range(root.child(1).start_byte, root.child(2).start_byte)
    assert [index for index, _ in cursor.matches(root)] == [0, 1]  # the root's match again


CACHE = ROOT / "bench" / ".cache"
# real code nobody here wrote: three/src when `make bench-fetch` brought it, else the JavaScript of the
# oracles `make test` installs (acorn's parser, dependency-cruiser's sources)
CORPORA = (
    CACHE / "corpora" / "three" / "src",
    CACHE / "node_modules" / "acorn" / "dist",
    CACHE / "node_modules" / "dependency-cruiser" / "src",
)


def _real_files() -> list[Path]:
    found = [path for corpus in CORPORA if corpus.is_dir() for path in corpus.rglob("*.*js")]
    return sorted((p for p in found if p.suffix in (".js", ".mjs")), key=lambda path: path.stat().st_size)[-12:]


@pytest.mark.skipif(
    not _real_files(), reason="no real JavaScript in bench/.cache (make bench-fetch, or npm for make test)"
)
@pytest.mark.slow
def test_real_files_slice_like_the_whole_tree() -> None:
    files = _real_files()
    whole = Extractor(0)
    sliced = [Extractor(size) for size in (1, 3)]
    for path in files:
        text = path.read_bytes()
        reference = whole.extract(str(path), text, "javascript")
        assert reference.lines
        for extractor in sliced:
            assert extractor.extract(str(path), text, "javascript") == reference, path


# second chances: tsx wins (JSX class=), tsx loses (a plain error), repairs win in rounds, repairs lose
SECOND_CHANCES = (
    (b'import a from "./a";\nconst v = <div class="x">{a()}</div>;\nf();\n', "javascript"),
    (b'import a from "./a";\nlet x = = 1;\nf(a);\n', "javascript"),
    (
        b'export type * from "./t";\ninterface I<in T, out U> { a: A\n  <V>(x: V): V }\n'
        b'class K { accessor x = 1; m() { vi.importOriginal<typeof import("./m")>(); } }\nlet bad = = 1;\n',
        "typescript",
    ),
    (b'export type * as N from "./t";\nclass K { static accessor y: T = 1 }\n', "typescript"),
    (b'import b from "./b";\nlet y = = 2;\ng(b);\n', "typescript"),
    (b'const v = <div class="x">{h()}</div>;\nlet z = = 3;\n', "tsx"),
)


@pytest.mark.parametrize("text, grammar", SECOND_CHANCES)
def test_one_tree_at_a_time_gives_the_same_facts(text: bytes, grammar: str) -> None:
    """A large text lets its tree go while a second chance is parsed, and parses it again if it
    stays the best: the facts are those of keeping both trees."""
    both = Extractor(one_tree_from=1 << 40)
    one = Extractor(one_tree_from=0)
    path = "src/file.js" if grammar == "javascript" else "src/file.ts"
    assert both._grammar(grammar).parser.parse(text).root_node.has_error  # a second chance is tried
    kept = both.extract(path, text, grammar)
    assert one.extract(path, text, grammar) == kept
    assert one._parse(text, grammar).tree is not None


def test_a_tree_let_go_is_parsed_again_only_when_it_stays_the_best() -> None:
    one = Extractor(one_tree_from=0)
    # tsx is better for JSX with class=: its tree is kept as parsed
    assert one._parse(SECOND_CHANCES[0][0], "javascript").grammar == "tsx"
    # a plain error: tsx is no better, and the JavaScript tree comes back
    parsed = one._parse(SECOND_CHANCES[1][0], "javascript")
    assert (parsed.grammar, parsed.fix, parsed.errors) == ("javascript", None, 1)
    assert parsed.tree.root_node.has_error
    # repairs win: the repaired text's tree, whose facts still see `type *`
    parsed = one._parse(SECOND_CHANCES[3][0], "typescript")
    assert parsed.fix is not None and parsed.errors == 0


@pytest.mark.slow
def test_error_nodes_come_in_document_order() -> None:
    """py-tree-sitter's ``captures`` order of nested error nodes changes from parse to parse (a scan
    of 41 copies of BROKEN gave two texts for its line 2); the first error of a line names it."""
    extractor = Extractor()
    parser = extractor._grammar("javascript").parser
    for _ in range(20):
        nodes = extractor._error_nodes(parser.parse(BROKEN).root_node, "javascript")["error"]
        spans = [(node.start_byte, -node.end_byte) for node in nodes]
        assert len(spans) > 3 and spans == sorted(spans)
    texts = {Extractor().extract("src/file.js", BROKEN, "javascript").lines for _ in range(10)}
    assert len(texts) == 1
    assert "line 2: syntax error at 'x = {a: 1' (javascript grammar)" in "\n".join(texts.pop())


UMD = (
    b"(function (global, factory) {\n"
    b"  typeof exports === 'object' ? factory(exports) : factory(global.lib = {});\n"
    b"}(this, function (exports) {\n  'use strict';\n"
    + b"".join(
        b"  function a%d() { b%d(); }\n  class C%d { m() { a%d(); } }\n  exports.a%d = a%d; f%d(); g.h%d();\n"
        % ((i,) * 8)
        for i in range(12)
    )
    + b"}));\n"
    b'define(["dep"], function (dep) { dep.x(); inner(); more(); calls(); here(); });\n'
)


@pytest.mark.slow
def test_a_wrapper_is_sliced_inside_unless_a_match_starts_at_it() -> None:
    extractor = Extractor(6)
    grammar = extractor._grammar("javascript")
    root = grammar.parser.parse(UMD).root_node
    starts = extractor._ts.QueryCursor(grammar.query)
    starts.set_max_start_depth(0)
    bounds = slice_bounds(root, 6, lambda node: bool(starts.matches(node)))
    body, define = UMD.index(b"'use strict'"), UMD.index(b"define(")
    call = root.child(1).child(0)
    assert call.type == "call_expression" and call.start_byte == define
    # the factory's body is cut every 6 statements; define(...) is a match: never cut inside
    assert len([b for b in bounds if body < b < define]) >= 5
    assert not [b for b in bounds if call.start_byte < b < call.end_byte]
    # a wrapper with a match at it is not sliced inside: the two statements are the slices
    assert slice_bounds(root, 6, lambda node: node.type != "program") == [0, root.child(1).start_byte]
    for size in (*SIZES, 4, 6, 12):
        for name in ("javascript", "tsx"):
            assert _facts(UMD, name, size) == _facts(UMD, name, 0), (size, name)
