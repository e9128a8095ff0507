"""`rofl impact --symbols`: a change names the exports it touches, and impact follows only the importers
that use them, each hop of the proof naming the export used.

One small repository, modelled on a library's layout (a barrel `index.ts` of `export *` and renamed
re-exports, a namespace import, a default export, CommonJS, lazy `import()`, a side-effect polyfill),
covers each import form; a git repository covers what a diff touches; and a property test compares
the answer on random repositories with an oracle written here over the generated model, and with file
impact (networkx ancestors over the scanned import edges), which it never exceeds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rofl.questions.symbol_impact import Seed, SymbolFacts, symbol_impact
from tests.cli.impact_fixtures import code_facts, run, scan_tree, write_tree

LIBRARY = {
    "src/money.ts": (
        "import { round } from './math';\n"
        "/** The smallest unit. */\n"
        "export const CENT = 1;\n"
        "function scale(x: number) { return round(x * 100); }\n"
        "export function toCents(x: number) { return scale(x) + CENT; }\n"
        "export function format(x: number) { return `${x}`; }\n"
        "export default class Money {}\n"
    ),
    "src/math.ts": "export function round(x: number) { return Math.round(x); }\nexport const PI = 3.14;\n",
    "src/index.ts": "export * from './money';\nexport { format as formatMoney } from './money';\n",
    "src/cart.ts": (
        "import { toCents } from './money';\n"
        "export function total(xs: number[]) { return xs.map(toCents); }\n"
        "export function count(xs: number[]) { return xs.length; }\n"
    ),
    "src/checkout.ts": "import { total } from './cart';\nexport const pay = () => total([1]);\n",
    "src/counter.ts": "import { count } from './cart';\nexport const n = count([]);\n",
    "src/label.ts": "import { formatMoney } from './index';\nexport const label = formatMoney(1);\n",
    "src/ns_member.ts": "import * as m from './money';\nexport const c = m.toCents(1);\n",
    "src/ns_bare.ts": "import * as m from './money';\nexport const all = Object.keys(m);\n",
    "src/default.ts": "import Money from './money';\nexport const make = () => new Money();\n",
    "src/lazy.ts": "export const load = () => import('./money');\nexport const other = 1;\n",
    "src/polyfill.ts": "import './money';\nexport const ready = true;\n",
    "src/legacy.js": "const { toCents } = require('./money');\nexports.cents = toCents;\n",
    "src/uses_legacy.js": "const { cents } = require('./legacy');\nmodule.exports = cents;\n",
    "src/cents_user.ts": "import { CENT } from './index';\nexport const one = CENT;\n",
    "src/typeof.ts": "import { CENT } from './money';\nexport type M = typeof import('./money').format;\nexport const p = CENT;\n",
}


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("library")
    _, facts = scan_tree(root, LIBRARY)
    return facts


def symbols(facts: Path, *changed: str) -> dict:
    args = ["impact", "--facts", facts, "--symbols", "--json", "--no-rescan"]
    for c in changed:
        args += ["--changed", c]
    code, out, err = run(*args)
    assert code == 0, err
    return json.loads(out)


def chains(data: dict) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    return {a["file"]: (tuple(a["via"]), tuple(a["symbols"])) for a in data["affected"]}


def test_a_named_export_reaches_only_the_importers_that_use_it(library):
    data = symbols(library, "src/money.ts:toCents")
    got = chains(data)
    assert data["symbols"] == [{"file": "src/money.ts", "exports": ["toCents"]}]
    # cart imports toCents; checkout uses cart's total, which uses toCents; counter uses count, which does not
    assert got["src/cart.ts"] == (("src/cart.ts", "src/money.ts"), ("toCents",))
    assert got["src/checkout.ts"] == (("src/checkout.ts", "src/cart.ts", "src/money.ts"), ("total", "toCents"))
    assert "src/counter.ts" not in got
    # a namespace import that writes m.toCents, and one that uses m as a whole
    assert got["src/ns_member.ts"][1] == ("toCents",)
    assert "src/ns_bare.ts" in got
    # the barrel passes toCents on; nothing imports toCents from it
    assert got["src/index.ts"] == (("src/index.ts", "src/money.ts"), ("toCents",))
    assert "src/label.ts" not in got and "src/cents_user.ts" not in got
    # whole-module: import(), a side-effect import, require (and the CommonJS export behind it)
    assert got["src/lazy.ts"][1] == ("*",) and got["src/polyfill.ts"][1] == ("*",)
    assert got["src/typeof.ts"][1] == ("*",)  # `typeof import()` beside a named import of CENT
    assert got["src/legacy.js"][1] == ("*",)
    assert got["src/uses_legacy.js"] == (("src/uses_legacy.js", "src/legacy.js", "src/money.ts"), ("*", "*"))
    assert "src/default.ts" not in got
    touched = {a["file"]: a["touched"] for a in data["affected"]}
    assert touched["src/typeof.ts"] == ["M"]
    assert touched["src/cart.ts"] == ["total"]  # count does not use toCents
    assert touched["src/lazy.ts"] == ["load"]  # the binding whose statement holds the import()


def test_a_renamed_re_export_passes_the_symbol_on_under_its_new_name(library):
    got = chains(symbols(library, "src/money.ts:format"))
    assert got["src/label.ts"] == (("src/label.ts", "src/index.ts", "src/money.ts"), ("formatMoney", "format"))
    assert "src/ns_member.ts" not in got and "src/cart.ts" not in got and "src/checkout.ts" not in got
    assert "src/ns_bare.ts" in got


def test_export_star_chains_and_default_imports(library):
    got = chains(symbols(library, "src/money.ts:CENT"))
    assert got["src/cents_user.ts"] == (("src/cents_user.ts", "src/index.ts", "src/money.ts"), ("CENT", "CENT"))
    # toCents mentions CENT: its users are reached through it
    assert got["src/checkout.ts"][1] == ("total", "toCents")
    default = chains(symbols(library, "src/money.ts:default"))
    assert default["src/default.ts"] == (("src/default.ts", "src/money.ts"), ("default",))
    assert "src/cents_user.ts" not in default and "src/cart.ts" not in default  # export * passes no default


def test_a_local_helper_reaches_the_exports_that_mention_it(library):
    got = chains(symbols(library, "src/math.ts:round"))
    # round -> money's scale (not exported) -> toCents -> cart's total -> checkout
    assert got["src/money.ts"] == (("src/money.ts", "src/math.ts"), ("round",))
    assert got["src/checkout.ts"] == (
        ("src/checkout.ts", "src/cart.ts", "src/money.ts", "src/math.ts"),
        ("total", "toCents", "round"),
    )
    assert "src/label.ts" not in got  # format does not use round
    assert "src/math.ts" not in chains(symbols(library, "src/math.ts:PI"))


def test_a_whole_file_change_is_a_subset_of_file_impact(library):
    data = symbols(library, "src/money.ts")
    code, out, _ = run("impact", "--facts", library, "--json", "--no-rescan", "--changed", "src/money.ts")
    files = {a["file"] for a in json.loads(out)["affected"]}
    got = set(chains(data))
    assert got <= files
    assert files - got == {"src/counter.ts"}  # it uses count, which no export of money.ts reaches


def test_an_unknown_name_is_a_user_error(library):
    code, _, err = run("impact", "--facts", library, "--symbols", "--no-rescan", "--changed", "src/money.ts:nope")
    assert code == 2
    assert "src/money.ts exports no 'nope'" in err and "toCents" in err


def test_text_output_names_the_symbol_at_each_hop(library):
    code, out, _ = run("impact", "--facts", library, "--symbols", "--no-rescan", "--changed", "src/math.ts:round")
    assert code == 0
    assert "exports touched: src/math.ts: round" in out
    assert "via src/checkout.ts -[total]-> src/cart.ts -[toCents]-> src/money.ts -[round]-> src/math.ts" in out


# -- --git-base: the diff's line ranges name the exports ---------------------------------------------------


@pytest.mark.slow
def test_git_base_touches_the_exports_whose_statements_the_diff_meets(tmp_path):
    src, facts = scan_tree(tmp_path, LIBRARY, in_git=True)

    def after(edit: dict[str, str]) -> dict[str, tuple]:
        write_tree(src, edit)
        code, out, err = run("impact", "--facts", facts, "--symbols", "--json", "--git-base", "HEAD")
        assert code == 0, err
        write_tree(src, {k: LIBRARY[k] for k in edit})
        return json.loads(out)

    money = LIBRARY["src/money.ts"]
    body = after({"src/money.ts": money.replace("return `${x}`", "return `$${x}`")})
    assert body["symbols"] == [{"file": "src/money.ts", "exports": ["format"]}]
    assert set(chains(body)) == {"src/index.ts", "src/label.ts", "src/ns_bare.ts", "src/lazy.ts", "src/polyfill.ts",
                                 "src/legacy.js", "src/uses_legacy.js", "src/typeof.ts"}  # fmt: skip
    # a JSDoc line is part of the declaration below it
    doc = after({"src/money.ts": money.replace("The smallest unit.", "The smallest unit (a cent).")})
    assert doc["symbols"][0]["exports"] == ["CENT", "toCents"]
    # a non-exported helper: the exports that mention it
    helper = after({"src/money.ts": money.replace("x * 100", "x * 1000")})
    assert helper["symbols"][0]["exports"] == ["toCents"]
    # a removed export: its importers break
    gone = after({"src/money.ts": money.replace("export function format(x: number) { return `${x}`; }\n", "")})
    assert "format" in gone["symbols"][0]["exports"]
    assert "src/label.ts" in chains(gone)
    # a blank line changes no statement
    blank = after({"src/money.ts": money + "\n\n"})
    assert blank["symbols"][0]["exports"] == [] and blank["affected"] == []
    # module-level code may change anything: every export
    module = after({"src/money.ts": money + "console.log(CENT);\n"})
    assert module["symbols"][0]["exports"] == ["CENT", "default", "format", "toCents"]


# -- property: random repositories against an oracle of the semantics ---------------------------------------


@dataclass
class Model:
    """A generated repository: per file, its exports' bodies and its imports, all names unique."""

    n: int
    exports: dict[int, list[str]] = field(default_factory=dict)  # own exported functions
    refs: dict[tuple[int, str], list[tuple]] = field(default_factory=dict)  # (file, binding) -> what it mentions
    named: list[tuple[int, int, str, str]] = field(default_factory=list)  # (file, from, imported, local)
    spaces: list[tuple[int, int, str]] = field(default_factory=list)  # (file, from, ns)
    reexports: list[tuple[int, int, str, str]] = field(default_factory=list)  # (file, from, name, as)
    stars: list[tuple[int, int]] = field(default_factory=list)
    effects: list[tuple[int, int]] = field(default_factory=list)
    lazy: list[tuple[int, int, str]] = field(default_factory=list)  # (file, from, binding holding import())
    module_level: dict[int, list[tuple]] = field(default_factory=dict)

    def provided(self, i: int) -> set[str]:
        out = set(self.exports[i]) | {"default"} | {r[3] for r in self.reexports if r[0] == i}
        seen, stack = {i}, [i]
        while stack:
            f = stack.pop()
            for a, b in self.stars:
                if a == f and b not in seen:
                    seen.add(b)
                    stack.append(b)
                    out |= (set(self.exports[b]) | {r[3] for r in self.reexports if r[0] == b}) - {"default"}
        return out


@st.composite
def models(draw) -> Model:
    n = draw(st.integers(2, 5))
    m = Model(n)
    for i in range(n):
        m.exports[i] = [f"a{i}_{k}" for k in range(draw(st.integers(1, 3)))]
    for i in range(n):
        locals_: list[tuple] = []
        for j in draw(st.lists(st.integers(0, n - 1).filter(lambda j, i=i: j != i), max_size=3, unique=True)):
            form = draw(st.sampled_from(["named", "default", "ns", "reexport", "star", "effect", "lazy"]))
            if form == "named":
                name = draw(st.sampled_from(sorted(m.provided(j) - {"default"})))
                local = f"n{i}_{len(m.named)}"
                m.named.append((i, j, name, local))
                locals_.append(("local", local))
            elif form == "default":
                local = f"n{i}_{len(m.named)}"
                m.named.append((i, j, "default", local))
                locals_.append(("local", local))
            elif form == "ns":
                ns = f"ns{i}_{j}"
                m.spaces.append((i, j, ns))
                locals_.append(("bare", ns, j))
                for name in sorted(m.provided(j) - {"default"}):
                    locals_.append(("member", ns, j, name))
            elif form == "reexport":
                name = draw(st.sampled_from(sorted(m.provided(j))))
                m.reexports.append((i, j, name, f"r{i}_{len(m.reexports)}"))
            elif form == "star":
                m.stars.append((i, j))
            elif form == "effect":
                m.effects.append((i, j))
            else:
                m.lazy.append((i, j, f"lazy{i}_{j}"))
        helper = f"h{i}"
        bindings = [*m.exports[i], f"d{i}", helper] + [b for _, _, b in m.lazy if _ == i]
        for b in bindings:
            if b.startswith("lazy"):
                m.refs[(i, b)] = []
                continue
            pool = [*locals_, *(("local", x) for x in bindings if x != b and not x.startswith("lazy"))]
            m.refs[(i, b)] = draw(st.lists(st.sampled_from(pool), max_size=3, unique=True)) if pool else []
        m.module_level[i] = draw(st.lists(st.sampled_from(locals_), max_size=1)) if locals_ else []
    return m


def _mention(ref: tuple) -> str:
    if ref[0] == "local":
        return f"{ref[1]}()"
    if ref[0] == "bare":
        return f"Object.keys({ref[1]}).length"
    return f"{ref[1]}.{ref[3]}()"


def render(m: Model) -> dict[str, str]:
    files = {}
    for i in range(m.n):
        lines = []
        lines += [
            f"import {{ {imp} as {loc} }} from './f{j}';" for f, j, imp, loc in m.named if f == i and imp != "default"
        ]
        lines += [f"import {loc} from './f{j}';" for f, j, imp, loc in m.named if f == i and imp == "default"]
        lines += [f"import * as {ns} from './f{j}';" for f, j, ns in m.spaces if f == i]
        lines += [f"export {{ {name} as {alias} }} from './f{j}';" for f, j, name, alias in m.reexports if f == i]
        lines += [f"export * from './f{j}';" for f, j in m.stars if f == i]
        lines += [f"import './f{j}';" for f, j in m.effects if f == i]

        def body(b: str, i: int = i) -> str:
            return " + ".join([_mention(r) for r in m.refs[(i, b)]] or ["0"])

        lines += [f"const {b} = () => import('./f{j}');" for f, j, b in m.lazy if f == i]
        lines.append(f"function h{i}() {{ return {body(f'h{i}')}; }}")
        lines += [f"export function {e}() {{ return {body(e)}; }}" for e in m.exports[i]]
        lines.append(f"export default function d{i}() {{ return {body(f'd{i}')}; }}")
        lines += [f"console.log({_mention(r)});" for r in m.module_level[i]]
        files[f"f{i}.ts"] = "\n".join(lines) + "\n"
    return files


def oracle(m: Model, changed: int, names: set[str]) -> set[str]:
    """Symbol semantics over the model: touched exports, touched bindings, whole-module forms."""
    touched = {i: set() for i in range(m.n)}  # exports
    bound = {i: set() for i in range(m.n)}  # bindings (imported locals, declarations)
    moved = {i: False for i in range(m.n)}  # changed at all
    affected: set[int] = set()
    touched[changed] |= names
    moved[changed] = True
    bound[changed] |= {
        f"d{changed}" if n == "default" else n for n in names if n == "default" or n in m.exports[changed]
    }
    while True:
        before = (sum(map(len, touched.values())), sum(map(len, bound.values())), sum(moved.values()), len(affected))
        for f, j, imp, loc in m.named:
            if imp in touched[j]:
                affected.add(f)
                bound[f].add(loc)
        for f, j, ns in m.spaces:
            mentions = [r for (g, _), refs in m.refs.items() if g == f for r in refs] + m.module_level[f]
            if any(
                r[:2] == ("bare", ns) and touched[j] or r[:2] == ("member", ns) and r[3] in touched[j] for r in mentions
            ):
                affected.add(f)
        for f, j, name, alias in m.reexports:
            if name in touched[j]:
                affected.add(f)
                touched[f].add(alias)
        for f, j in m.stars:
            own = set(m.exports[f]) | {"default"} | {r[3] for r in m.reexports if r[0] == f}
            if moved[j]:
                affected.add(f)
            touched[f] |= (touched[j] - {"default"}) - own
        for f, j in m.effects:
            if moved[j]:
                affected.add(f)
                touched[f] |= m.provided(f)
        for f, j, b in m.lazy:
            if moved[j]:
                affected.add(f)
                bound[f].add(b)

        def hit(f: int, ref: tuple) -> bool:
            if ref[0] == "local":
                return ref[1] in bound[f]
            if ref[0] == "bare":
                return bool(touched[ref[2]])
            return ref[3] in touched[ref[2]]

        for (f, b), refs in m.refs.items():
            if any(hit(f, r) for r in refs):
                bound[f].add(b)
        for f in range(m.n):
            if any(hit(f, r) for r in m.module_level[f]):
                touched[f] |= m.provided(f)
            for e in m.exports[f]:
                if e in bound[f]:
                    touched[f].add(e)
            if f"d{f}" in bound[f]:
                touched[f].add("default")
            if touched[f] or bound[f]:
                moved[f] = True
        if before == (
            sum(map(len, touched.values())),
            sum(map(len, bound.values())),
            sum(moved.values()),
            len(affected),
        ):
            break
    return {f"f{i}.ts" for i in affected} - {f"f{changed}.ts"}


@pytest.fixture(scope="module")
def extractor():
    from rofl.scanner.extract import Extractor

    return Extractor()


def extracted_rows(extractor, files: dict[str, str]) -> dict[str, list[tuple]]:
    """The [code] rows of ``files`` as the scanner extracts them, each `./fJ` resolved to `fJ.ts` (the
    resolver's part is tested elsewhere; this keeps the examples fast)."""
    from rofl.engine.parse import parse_program

    rows: dict[str, list[tuple]] = {}
    for path, text in files.items():
        lines = extractor.extract(path, text.encode(), "typescript").lines
        for clause in parse_program("\n".join(lines), path):
            rows.setdefault(clause.head.rel, []).append(("code", *clause.head.args))
        rows.setdefault("src_file", []).append(("code", path, "0"))
    for _, path, spec in rows.get("src_import", []):
        rows.setdefault("src_resolves", []).append(("code", path, spec, spec[2:] + ".ts"))
    return rows


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(model=models(), data=st.data())
def test_symbol_impact_equals_the_oracle_and_stays_within_file_impact(extractor, model, data):
    import networkx as nx

    rows = extracted_rows(extractor, render(model))
    changed = data.draw(st.integers(0, model.n - 1))
    whole = data.draw(st.booleans())
    names = model.provided(changed) if whole else {data.draw(st.sampled_from(sorted(model.provided(changed))))}
    seed = Seed(f"f{changed}.ts") if whole else Seed(f"f{changed}.ts", frozenset(names))
    got = {a.file for a in symbol_impact(SymbolFacts.from_rows(rows), [seed]).affected}
    graph = nx.DiGraph((r[1], r[3]) for r in rows.get("src_resolves", []))
    files = nx.ancestors(graph, f"f{changed}.ts") if f"f{changed}.ts" in graph else set()
    assert got <= files
    assert got == oracle(model, changed, names), render(model)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(model=models())
def test_a_scanned_random_repository_resolves_as_the_property_assumes(tmp_path_factory, extractor, model):
    """The scan resolves the generated repositories' `./fJ` to `fJ.ts`, as the rows above assume, and
    `rofl impact` (file level) answers networkx's ancestors over them."""
    _, facts = scan_tree(tmp_path_factory.mktemp("random"), render(model))
    scanned = {r[1:] for r in code_facts(facts) if r[0] == "src_resolves"}
    assert scanned == {r[1:] for r in extracted_rows(extractor, render(model)).get("src_resolves", [])}


# -- package-wide imports: symbol impact walks the edges `rofl impact` walks, and narrows them -----------------

WORKSPACE_ROOT = json.dumps({"name": "root", "private": True, "workspaces": ["packages/*", "test/*"]})
VITEST = {
    "package.json": WORKSPACE_ROOT,
    # `vitest/node` names a build output that is not there: the import falls back to what the package
    # offers by name (src/index.ts), never to every file under packages/vitest
    "packages/vitest/package.json": json.dumps(
        {"name": "vitest", "exports": {".": "./src/index.ts", "./node": "./dist/node.js"}}
    ),
    "packages/vitest/src/index.ts": "export { expect } from './expect';\n",
    "packages/vitest/src/expect.ts": "export const expect = (x: unknown) => x;\n",
    "packages/vitest/src/integrations/snapshot/resolveSnapshotEnvironment.ts": (
        "export const resolveSnapshotEnvironment = () => 'node';\n"
    ),
    "packages/vitest/src/node/core.ts": (
        "import { resolveSnapshotEnvironment } from '../integrations/snapshot/resolveSnapshotEnvironment';\n"
        "export const createVitest = () => resolveSnapshotEnvironment();\n"
    ),
    # a package that offers no file by name: its sources stand for it, never its tests
    "packages/lib/package.json": json.dumps({"name": "@w/lib"}),
    "packages/lib/src/a.ts": "export const a = 1;\n",
    "packages/lib/src/a.test.ts": "import { a } from './a';\nexport const checked = a;\n",
    "test/browser/package.json": json.dumps({"name": "@test/browser"}),
    "test/browser/specs/utils.ts": (
        "import { createVitest } from 'vitest/node';\nimport { a } from '@w/lib';\n"
        "export const runBrowserTests = () => createVitest();\nexport const other = a;\n"
    ),
    "test/browser/specs/fix-4686.test.ts": "import { runBrowserTests } from './utils';\nrunBrowserTests();\n",
    "test/browser/specs/other.test.ts": "import { other } from './utils';\nexport const o = other;\n",
}


def plain(facts: Path, *changed: str, flags: tuple[str, ...] = ()) -> dict:
    args = ["impact", "--facts", facts, "--json", "--no-rescan", *flags]
    for c in changed:
        args += ["--changed", c]
    code, out, err = run(*args)
    assert code == 0, err
    return json.loads(out)


def files_of(data: dict) -> set[str]:
    return {a["file"] for a in data["affected"]}


def test_a_package_wide_import_depends_on_what_the_package_offers_not_on_its_folder(tmp_path):
    """Modelled on vitest: test/browser/specs/utils.ts imports `vitest/node`, which leads to no file; a
    change deep in packages/vitest that no entry file reaches affects none of the specs, by symbol as by file."""
    _, facts = scan_tree(tmp_path, VITEST)
    deep = "packages/vitest/src/integrations/snapshot/resolveSnapshotEnvironment.ts"
    assert files_of(plain(facts, deep)) == {"packages/vitest/src/node/core.ts"}
    assert files_of(symbols(facts, deep)) == {"packages/vitest/src/node/core.ts"}
    # a test of @w/lib stands for no package: nothing outside it is affected
    assert files_of(plain(facts, "packages/lib/src/a.test.ts")) == set()
    assert files_of(symbols(facts, "packages/lib/src/a.test.ts")) == set()
    # the entry file does stand for the package: its package-wide importer, and what uses that importer
    entry = symbols(facts, "packages/vitest/src/expect.ts:expect")
    got = chains(entry)
    assert set(got) == {
        "packages/vitest/src/index.ts",
        "test/browser/specs/utils.ts",
        "test/browser/specs/fix-4686.test.ts",
    }
    assert set(got) <= files_of(plain(facts, "packages/vitest/src/expect.ts"))
    assert got["test/browser/specs/utils.ts"] == (
        ("test/browser/specs/utils.ts", "packages/vitest/src/index.ts", "packages/vitest/src/expect.ts"),
        ("* package-wide", "expect"),
    )
    # the hop is labelled package-wide in JSON, as plain impact labels it
    utils = next(a for a in entry["affected"] if a["file"] == "test/browser/specs/utils.ts")
    assert [(h["from"], h["to"], h["package"], h["kind"]) for h in utils["package_wide"]] == [
        ("test/browser/specs/utils.ts", "packages/vitest/src/index.ts", "vitest", "entry")
    ]
    # a source of @w/lib stands for it: utils' binding of `a` changes `other`, so other.test.ts only
    lib = symbols(facts, "packages/lib/src/a.ts")
    assert files_of(lib) == {
        "packages/lib/src/a.test.ts",
        "test/browser/specs/utils.ts",
        "test/browser/specs/other.test.ts",
    }
    assert (
        next(a for a in lib["affected"] if a["file"] == "test/browser/specs/utils.ts")["package_wide"][0]["kind"]
        == "source"
    )


@dataclass
class Workspace:
    """A generated workspace: packages kit (an exports map), lib (no entry), app; files f0..fn-1 placed in
    them, each exporting x{i} (mentioning its imports) and y{i}; imports relative or package-wide."""

    places: list[str]  # per file: its path
    relative: list[tuple[int, int, str]]  # (file, from, imported name)
    wide: list[tuple[int, str, str]]  # (file, specifier, form: named | ns | effect)
    calls: dict[int, list[str]]  # file -> the locals x{i} calls


PLACES = (
    "packages/kit/src",
    "packages/kit/src/deep",
    "packages/kit/test",
    "packages/lib/src",
    "packages/lib/src/__tests__",
    "packages/app/src",
)
WIDE_SPECIFIERS = ("@w/kit/missing", "@w/kit/sub/none", "@w/lib", "@w/lib/nothing", "@w/kit")


@st.composite
def workspaces(draw) -> Workspace:
    n = draw(st.integers(3, 7))
    places = [f"{draw(st.sampled_from(PLACES))}/f{i}.ts" for i in range(n)]
    places[0] = "packages/kit/src/index.ts"  # kit's entry (".")
    relative, wide, calls = [], [], {}
    for i in range(n):
        locals_ = []
        for j in draw(st.lists(st.integers(0, n - 1).filter(lambda j, i=i: j != i), max_size=2, unique=True)):
            name = draw(st.sampled_from([f"x{j}", f"y{j}"]))
            relative.append((i, j, name))
            locals_.append(f"r{i}_{j}")
        for spec in draw(st.lists(st.sampled_from(WIDE_SPECIFIERS), max_size=2, unique=True)):
            form = draw(st.sampled_from(["named", "ns", "effect"]))
            wide.append((i, spec, form))
            if form == "named":
                locals_.append(f"w{i}_{len(wide)}")
        calls[i] = draw(st.lists(st.sampled_from(locals_), max_size=2, unique=True)) if locals_ else []
    return Workspace(places, relative, wide, calls)


def render_workspace(w: Workspace) -> dict[str, str]:
    import posixpath

    files = {
        "package.json": WORKSPACE_ROOT,
        "packages/kit/package.json": json.dumps(
            {"name": "@w/kit", "exports": {".": "./src/index.ts", "./sub/*": "./dist/sub/*.js"}}
        ),
        "packages/lib/package.json": json.dumps({"name": "@w/lib"}),
        "packages/app/package.json": json.dumps({"name": "@w/app"}),
    }
    for i, path in enumerate(w.places):
        lines = []
        for f, j, name in w.relative:
            if f == i:
                rel = posixpath.relpath(w.places[j][: -len(".ts")], posixpath.dirname(path))
                lines.append(f"import {{ {name} as r{i}_{j} }} from '{rel if rel.startswith('.') else './' + rel}';")
        for k, (f, spec, form) in enumerate(w.wide, start=1):
            if f == i:
                lines.append(
                    f"import {{ anything as w{i}_{k} }} from '{spec}';"
                    if form == "named"
                    else f"import * as ns{i}_{k} from '{spec}';"
                    if form == "ns"
                    else f"import '{spec}';"
                )
        body = " + ".join(f"String({c})" for c in w.calls[i]) or "0"
        lines.append(f"export function x{i}() {{ return {body}; }}")
        lines.append(f"export const y{i} = {i};")
        files[path] = "\n".join(lines) + "\n"
    return files


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(w=workspaces(), data=st.data())
def test_symbol_impact_stays_within_file_impact_over_package_wide_imports(tmp_path_factory, w, data):
    """On generated workspaces with package-wide imports (subpaths that lead to no file, a package with
    an exports map and one without), every file --symbols answers is one `rofl impact` answers, for a
    whole file, a single export, and --runtime; the hops it takes package-wide are labelled so."""
    _, facts = scan_tree(tmp_path_factory.mktemp("ws"), render_workspace(w))
    for _ in range(3):
        i = data.draw(st.integers(0, len(w.places) - 1))
        seed = data.draw(st.sampled_from([w.places[i], f"{w.places[i]}:x{i}", f"{w.places[i]}:y{i}"]))
        flags = ("--runtime",) if data.draw(st.booleans()) else ()
        whole = plain(facts, w.places[i], flags=flags)
        got = plain(facts, seed, flags=("--symbols", *flags))
        assert files_of(got) <= files_of(whole), (seed, render_workspace(w))
        for a in got["affected"]:
            hops = list(zip(a["via"], a["via"][1:], a["symbols"], strict=False))
            wide = {(h["from"], h["to"]) for h in a.get("package_wide", [])}
            assert wide <= {(x, y) for x, y, s in hops if s == "* package-wide"}
            assert {h["package"] for h in a.get("package_wide", [])} <= {"@w/kit", "@w/lib"}
