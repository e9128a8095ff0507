"""Valid TypeScript that tree-sitter-typescript 0.23.2 rejects is repaired, not counted as a parse error.

Fixtures are modelled on the repositories where the scan reported them (Effect-TS/effect, trpc):
overloads in the type literal of a ``const`` annotation (generic call signatures on their own lines,
``const`` type parameters, multi-line type parameter lists), tagged templates with type arguments,
escapes in template literal types, a parenthesized tuple with one optional element, ``&name`` in
JSX text and attribute strings, and members named ``abstract``, ``accessor``, ``in`` or
``instanceof`` on their own line.  Each fixture is checked against TypeScript's own parser (when
node has it), and the facts of the repaired text are those of the original: the same lines, the
tagged template still a call, comments still comments.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.scanner import extract
from rofl.scanner.repair import repair

from tests.scanner.conftest import atom, read_facts, rel, scan_json
from tests.scanner.test_resolution_typescript import _typescript

# effect's Array.ts, Filter.ts, Effect.ts and Channel.ts: `export const f: { overloads } = dual(...)`
EFFECT_OVERLOADS = """\
import { dual } from "./Function.js"
import type { Effect } from "./Effect.js"

export const takeWhile: {
  <A, B extends A>(refinement: (a: NoInfer<A>, i: number) => a is B): (self: Iterable<A>) => Array<B>
  <A>(predicate: (a: NoInfer<A>, i: number) => boolean): (self: Iterable<A>) => Array<A>
  <A, B extends A>(self: Iterable<A>, refinement: (a: A, i: number) => a is B): Array<B>
  <A>(self: Iterable<A>, predicate: (a: A, i: number) => boolean): Array<A>
} = dual(2, <A>(self: Iterable<A>, predicate: (a: A, i: number) => boolean): Array<A> => collect(self, predicate))

export const tagged: {
  <Input>(): <const Tag extends string>(tag: Tag) => Array<Input>
  <Input, const Tag extends string>(
    tag: Tag
  ): Array<Input>
} = dual(2, (self: unknown, tag: string) => keep(self, tag))

export const gen: {
  <Eff extends Effect<any, any, any>, AEff>(f: () => Generator<Eff, AEff, never>): Effect<AEff, never, never>
  <
    Self,
    Eff extends Effect<any, any, any>,
    AEff
  >(
    self: Self,
    f: (this: Self) => Generator<Eff, AEff, never>
  ): Effect<AEff, never, never>
} = dual(2, run)

export const map: {
  <A, B>(
    f: (a: A, i: number) => B
  ): <E>(
    self: Channel<A, E>
  ) => Channel<B, E>
  <A, E, B>(
    self: Channel<A, E>,
    f: (a: A, i: number) => B
  ): Channel<B, E>
} = dual(
  2,
  <A, E, B>(
    self: Channel<A, E>,
    f: (a: A, i: number) => B
  ): Channel<B, E> => transform(self, f)
)

export function collect<A>(self: Iterable<A>, predicate: (a: A, i: number) => boolean): Array<A> {
  return Array.from(self).filter(predicate)
}
"""

# effect's packages/sql/*/test/*.test.ts: sql<Row>`...` (an object type with `;`, or on its own lines)
EFFECT_SQL = """\
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const findById = (id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly id: string; readonly name: string }>`SELECT * FROM users WHERE id = ${id}`
    const migrations = yield* sql<
      { migration_id: number; name: string }
    >`SELECT migration_id, name FROM migrations`
    return rows.concat(migrations as never).map((row) => format(row))
  })
"""

# effect's Schema.ts, unstable/schema/VariantSchema.ts and typetest/schema/Schema.tst.ts
EFFECT_SCHEMA = """\
import type { Class } from "./Class.js"

type MissingSelfGeneric<Params extends string = ""> =
  `Missing \\`Self\\` generic - use \\`class Self extends Class<Self>()(${Params}{ ... })\\``

export type Make = [(readonly [number?])?, readonly [readonly [number]]]

/**
 * ```ts
 * import { Schema } from "effect"
 * class Circle extends Schema.Class<Circle>("Circle")({}) {}
 * ```
 */
export class Person {
  greet(): MissingSelfGeneric | Make {
    return hello(this)
  }
}
"""

# trpc's examples/next-prisma-todomvc/src/components/footer.tsx and www/src/pages/media.tsx
TRPC_FOOTER = """\
import { Logo } from "./logo"

export function Footer() {
  return (
    <footer>
      <a href="https://vercel.com/?utm_source=trpc&utm_campaign=oss" target="_blank" rel="noreferrer">
        <Logo /> Tom &Jerry &amp; co
      </a>
      <link
        href="https://fonts.googleapis.com/css2?family=Inter:wght@200;300;400;500;600&display=swap"
        rel="stylesheet"
      />
    </footer>
  )
}
"""

# code without semicolons: members named by contextual keywords on their own line
KEYWORD_MEMBERS = """\
export interface DecoratorContext {
  kind: string
  abstract?: boolean
  accessor?: Accessor
  in?: string
}

export interface Transition {
  delay: number
  in(): void
  in<T>(value: T): T
  instanceof(): boolean
}

export class Field {
  name = "x"
  abstract?: boolean
  accessor?: string
  in() {
    return read(this.name)
  }
}
"""

FIXTURES = {
    "src/Array.ts": EFFECT_OVERLOADS,
    "src/sql.test.ts": EFFECT_SQL,
    "src/Schema.ts": EFFECT_SCHEMA,
    "src/footer.tsx": TRPC_FOOTER,
    "src/members.ts": KEYWORD_MEMBERS,
}
SUPPORT = {
    "src/Function.ts": "export const dual = (n: number, f: unknown): any => f\n",
    "src/Effect.ts": "export type Effect<A, E, R> = [A, E, R]\n",
    "src/Class.ts": "export type Class<S> = S\n",
    "src/logo.tsx": "export const Logo = () => <svg />\n",
}


def calls_of(facts, path):
    return {(caller, callee) for (p, caller, callee) in rel(facts, "src_call") if p == path}


def errors_of(facts, path):
    return {message for (p, message) in rel(facts, "src_parse_error") if p == path}


BROKEN = {
    "src/open.ts": "export const rows = sql<{ a: string; b: number }>`SELECT 1`(\n",  # the call is not closed
    "src/attr.tsx": 'export const A = () => <a href="x&y=1"></a\n',  # nor the closing tag
}


def test_the_fixtures_are_no_parse_errors_and_broken_code_still_is(repo, out):
    summary = scan_json(repo({**FIXTURES, **SUPPORT, **BROKEN}), out)
    facts = read_facts(out)
    assert {p for (p, _) in rel(facts, "src_parse_error")} == set(BROKEN)
    assert summary["errors"] == len(BROKEN)


def test_overloads_keep_their_exports_imports_and_calls(repo, out):
    scan_json(repo({**FIXTURES, **SUPPORT}), out)
    facts = read_facts(out)
    path = "src/Array.ts"
    assert errors_of(facts, path) == set()
    assert {n for (p, n) in rel(facts, "src_export") if p == path} == {"takeWhile", "tagged", "gen", "map", "collect"}
    assert {(s, k) for (p, s, k) in rel(facts, "src_import_kind") if p == path} == {
        ("./Function.js", atom("static")),
        ("./Effect.js", atom("type")),
    }
    assert (path, "collect", 48) in rel(facts, "src_func")
    assert {("<module>", "dual"), ("<module>", "collect"), ("<module>", "keep"), ("<module>", "transform")} <= (
        calls_of(facts, path)
    )
    assert ("collect", "Array.from") in calls_of(facts, path)
    # type parameters are not calls: the grammar's misreading of `>\n<A>(` made `A(...)` a call
    assert not {callee for (_, callee) in calls_of(facts, path)} & {"A", "B", "Self", "Eff", "AEff", "E"}


def test_a_tagged_template_with_type_arguments_is_still_a_call(repo, out):
    scan_json(repo({**FIXTURES, **SUPPORT}), out)
    facts = read_facts(out)
    path = "src/sql.test.ts"
    assert errors_of(facts, path) == set()
    assert {(s, k) for (p, s, k) in rel(facts, "src_import_kind") if p == path} == {
        ("@effect/sql", atom("static")),
        ("effect", atom("static")),
    }
    assert {("findById", "Effect.gen"), ("findById", "sql"), ("findById", "format")} <= calls_of(facts, path)


def test_template_type_escapes_keep_comments_comments(repo, out):
    scan_json(repo({**FIXTURES, **SUPPORT}), out)
    facts = read_facts(out)
    path = "src/Schema.ts"
    assert errors_of(facts, path) == set()
    # the import in the doc comment is no import, and its class no class
    assert {s for (p, s) in rel(facts, "src_import") if p == path} == {"./Class.js"}
    assert {n for (p, n, _) in rel(facts, "src_class") if p == path} == {"Person"}
    assert (path, "Person", "greet", 15) in rel(facts, "src_method")
    assert ("Person.greet", "hello") in calls_of(facts, path)


def test_bare_ampersands_in_jsx_keep_the_component(repo, out):
    scan_json(repo({**FIXTURES, **SUPPORT}), out)
    facts = read_facts(out)
    path = "src/footer.tsx"
    assert errors_of(facts, path) == set()
    assert (path, "Footer", 3) in rel(facts, "src_func")
    assert (path, "./logo", "src/logo.tsx") in rel(facts, "src_resolves")


def test_members_named_by_keywords_keep_their_methods(repo, out):
    scan_json(repo({**FIXTURES, **SUPPORT}), out)
    facts = read_facts(out)
    path = "src/members.ts"
    assert errors_of(facts, path) == set()
    assert {n for (p, n) in rel(facts, "src_export") if p == path} == {"DecoratorContext", "Transition", "Field"}
    assert {(c, n, line) for (p, c, n, line) in rel(facts, "src_method") if p == path} == {("Field", "in", 19)}
    assert ("Field.in", "read") in calls_of(facts, path)


PARSE_ORACLE = r"""
const ts = require(process.env.ROFL_TYPESCRIPT || 'typescript');
const files = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(Object.fromEntries(Object.entries(files).map(([name, text]) =>
  [name, ts.createSourceFile(name, text, ts.ScriptTarget.Latest, false,
     name.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS).parseDiagnostics.map((d) => d.messageText)]))));
"""


def _parse_diagnostics(files: dict[str, str]) -> dict[str, list[str]]:
    typescript = _typescript()
    if typescript is None:
        pytest.skip("node and the typescript package are needed (ROFL_TYPESCRIPT=.../node_modules/typescript)")
    env = dict(os.environ, ROFL_TYPESCRIPT=typescript)
    done = subprocess.run(
        ["node", "-e", PARSE_ORACLE], input=json.dumps(files), capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout)


def test_the_fixtures_are_valid_for_typescript_and_the_broken_ones_are_not():
    diagnostics = _parse_diagnostics({**FIXTURES, **SUPPORT, **BROKEN})
    assert {name for name, found in diagnostics.items() if found} == set(BROKEN)


# -- members in any order, each on its own line without separators ---------------------------------

INTERFACE_MEMBERS = [
    "a: Array<B>",
    "b?: Map<string, number>",
    "<A>(x: A): Array<A>",
    "<A, B extends A>(x: A, f: (a: A) => a is B): (self: Iterable<A>) => Array<B>",
    "<const T extends ReadonlyArray<unknown>>(self: T): T",
    "<\n    Self,\n    Eff extends Array<any>\n  >(self: Self, eff: Eff): Self",
    "abstract?: boolean",
    "accessor?: Accessor",
    "in?: string",
    "in(): void",
    "in<T>(value: T): T",
    "instanceof(): boolean",
    "readonly [key: string]: unknown",
]


@pytest.fixture(scope="module")
def extractor() -> extract.Extractor:
    return extract.Extractor()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(members=st.lists(st.sampled_from(INTERFACE_MEMBERS), min_size=2, max_size=6), literal=st.booleans())
def test_interface_and_type_literal_members_in_any_order_parse(extractor, members, literal):
    body = "".join(f"  {m}\n" for m in members)
    head = "export const f: {\n" if literal else "export interface F {\n"
    text = head + body + ("} = make()\nexport function after() { return g() }\n" if literal else "}\n")
    text += "export function after2() { return h() }\n"
    result = extractor.extract("f.ts", text.encode(), "typescript")
    assert result.errors == 0, (text, [line for line in result.lines if "parse_error" in line])
    last = text.count("\n")
    assert f'src_func[code]("f.ts", "after2", {last}).' in result.lines  # lines are the original's


# -- what a rewrite may and may not do ----------------------------------------------------------------

FRAGMENTS = [
    "a: A\n",
    "  <T>(x: T): T\n",
    "sql<{ a: string; b: number }>`x ${y}`\n",
    "`a \\` b \\n`\n",
    '<a href="?a=1&b=2">Tom &Jerry</a>\n',
    "[(readonly [number?])?]\n",
    "  abstract?: boolean\n",
    "  in(): void\n",
    "dual(2,\n  <A>(self: A) => self)\n",
    "é\\é “\\”\r\n",
    'import x from "a\\u0062"\n',
    "export type * from './t'\n",
]


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=8),
    cuts=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), max_size=4),
    typescript_only=st.booleans(),
)
def test_a_repair_keeps_length_line_breaks_and_utf8(parts, cuts, typescript_only):
    """Whatever the error spans, a repair keeps the text's length, line breaks, UTF-8 and
    specifiers; and in TSX a bare ``&name`` inside an error span is taken out."""
    data = "".join(parts).encode()
    size = len(data)
    spans = [(int(min(a, b) * size), int(max(a, b) * size)) for a, b in cuts]
    missing = tuple(hi for _, hi in spans)
    fix = repair(data, spans, typescript_only, missing)
    jerry = data.find(b"&Jerry")
    if not typescript_only and jerry >= 0 and any(lo <= jerry < hi for lo, hi in spans):
        assert fix is not None and fix.data[jerry : jerry + 1] == b" "
    if fix is None:
        return
    assert len(fix.data) == size
    assert [i for i, b in enumerate(fix.data) if b in b"\r\n"] == [i for i, b in enumerate(data) if b in b"\r\n"]
    fix.data.decode("utf-8")
    assert b'"a\\u0062"' in fix.data or b'"a\\u0062"' not in data  # a specifier keeps its text


def test_a_generic_arrow_argument_gets_no_separator():
    """``dual(2,`` newline ``<A>(self: A) => ...``: the line before ends with ``,``, so no ``;``."""
    data = b"export const f: {\n  (x: number): number\n} = dual(\n  2,\n  <A>(self: A): A => self\n)\n"
    fix = repair(data, [(0, len(data))], True)
    assert fix is None or fix.data[data.index(b"<A>") - 1 : data.index(b"<A>")] == b" "


def test_a_round_with_more_errors_does_not_end_the_repairs(monkeypatch):
    """A rewrite can uncover errors that the first parse's recovery had hidden (effect's
    VariantSchema.ts: a template literal type's escapes hid the overloads after it), so a round
    with more errors still leads to the next one; the tree with the fewest errors is kept."""
    data = b"export interface A {\n  a: string\n  abstract?: boolean\n}\nexport function f() { return g() }\n"
    rounds: list[int] = []
    real = extract.repair

    def worse_first(text, spans, typescript_only, missing=()):
        rounds.append(len(rounds))
        if len(rounds) == 1:  # a first round that breaks more than it fixes
            broken = bytearray(text)
            broken[text.index(b"{ return")] = ord("(")
            return extract.Repair(bytes(broken), frozenset(), frozenset())
        return real(data, spans, typescript_only, missing)

    monkeypatch.setattr(extract, "repair", worse_first)
    result = extract.Extractor().extract("a.ts", data, "typescript")
    assert result.errors == 0, result.lines
    assert len(rounds) >= 2
    assert 'src_func[code]("a.ts", "f", 5).' in result.lines
