"""Issue 21, "no silent wrong answers": inputs real repositories hold where the scan used to answer
"no", "0" or "empty" instead of the right answer.

* a tsconfig that ``tsc`` accepts (a comment after the last member, trailing commas, an empty file)
  is read, and one ``tsc`` rejects is a ``src_config_error``: ``scanner.jsonc`` against ``json``
  (hypothesis) and against TypeScript's own ``parseConfigFileTextToJson`` (when node has it);
* CRLF ``.astro`` frontmatter keeps its imports;
* a folder named ``package.json`` (a route folder) is no package scope;
* ``X.svelte`` + ``X.svelte.d.ts`` twins are both targets, and ``./x.ts`` is ``x.d.ts`` when only
  that exists (against ``ts.resolveModuleName`` when node has it);
* valid TypeScript the grammar rejects (an import type with type arguments, ``in?:`` members in
  code without semicolons) is repaired, checked against TypeScript's parser; a file that really
  does not parse makes the summary say how to list the errors.
"""

from __future__ import annotations

import json
import math
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scanner.conftest import atom, read_facts, rel, run_scan, scan_json
from tests.scanner.test_resolution_typescript import _typescript

DEPTH = 256  # scanner.configs.MAX_NESTING


def _jsonc():  # imported where used: the module is new, the other tests of this file need none of it
    from rofl.scanner import jsonc

    return jsonc


def _node_typescript() -> str:
    typescript = _typescript()
    if typescript is None:
        pytest.skip("node and the typescript package are needed (ROFL_TYPESCRIPT=.../node_modules/typescript)")
    return typescript


def _run_node(script: str, payload: object, typescript: str) -> object:
    env = dict(os.environ, ROFL_TYPESCRIPT=typescript)
    done = subprocess.run(
        ["node", "-e", script], input=json.dumps(payload), capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout)


# -- 2. tsconfig is JSONC as tsc reads it ---------------------------------------------------------

ALIASED = {
    "src/lib/util.ts": "export const x = 1;\n",
    "src/main.ts": 'import { x } from "@lib/util";\n',
}


@pytest.mark.parametrize(
    "tsconfig",
    [
        # the shape of the issue: a comment after the last member of an object
        '{\n  "compilerOptions": {\n    "baseUrl": ".",\n    "paths": {"@lib/*": ["src/lib/*"]}, // aliases\n  }\n}\n',
        # trailing commas with block comments between them and the brace
        '{"compilerOptions": {"paths": {"@lib/*": ["./src/lib/*",],}, /* aliases */},}',
        # a comment that holds what looks like the end of an object
        '{"compilerOptions": {/* } */ "paths": {"@lib/*": ["./src/lib/*"]} /* , */}}',
    ],
)
def test_tsconfig_that_tsc_accepts_gives_its_aliases(repo, out, tsconfig):
    src = repo({**ALIASED, "tsconfig.json": tsconfig})
    scan_json(src, out)
    facts = read_facts(out)
    assert ("src/main.ts", "@lib/util", "src/lib/util.ts") in rel(facts, "src_resolves")
    assert not rel(facts, "src_external")
    assert not rel(facts, "src_config_error")


def test_empty_tsconfig_is_an_empty_config_not_an_error(repo, out):
    # `tsc --init`-then-emptied and comment-only configs: tsc reads them as {}
    src = repo({**ALIASED, "tsconfig.json": "// nothing here yet\n", "src/rel.ts": 'import "./lib/util";\n'})
    scan_json(src, out)
    facts = read_facts(out)
    assert not rel(facts, "src_config_error")
    assert ("src/rel.ts", "./lib/util", "src/lib/util.ts") in rel(facts, "src_resolves")


@pytest.mark.parametrize(
    ("tsconfig", "reason"),
    [
        ("[]", "root value of a tsconfig must be an object"),
        ('"compilerOptions"', "root value of a tsconfig must be an object"),
        ("{'compilerOptions': {}}", "double quotes"),
        ('{"compilerOptions": {"baseUrl": "."}} }', "end of the file expected"),
    ],
)
def test_tsconfig_that_tsc_rejects_is_a_config_error_naming_why(repo, out, tsconfig, reason):
    src = repo({**ALIASED, "tsconfig.json": tsconfig})
    scan_json(src, out)
    errors = rel(read_facts(out), "src_config_error")
    assert [config for config, _ in errors] == ["tsconfig.json"]
    assert reason in next(iter(errors))[1] and "line 1 column" in next(iter(errors))[1]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES, st.sampled_from([None, 0, 2, "\t"]), st.booleans())
def test_jsonc_reads_plain_json_as_json_does(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert _jsonc().parse_jsonc(text, DEPTH) == json.loads(text)


# Trivia that may go between any two tokens, and strings that look like trivia.
TRIVIA = st.lists(
    st.sampled_from([" ", "\n", "\r\n", "\t", "\u00a0", "\u2028", '// c } ] , " /*\n', '/* , } ] // " */', "/**/"]),
    max_size=3,
).map("".join)
TRICKY_TEXT = st.text(alphabet=st.sampled_from(list('ab/*,}]"\\ \t\n{[') + ["\u2028", "\u00e9"]), max_size=8)


def _tokens(value: object) -> list[str | None]:
    """``value`` as JSON tokens, with "," before each closer of a non-empty container marked as optional (None)."""
    if isinstance(value, dict):
        out: list[str | None] = ["{"]
        for number, (key, item) in enumerate(value.items()):
            if number:
                out.append(",")
            out += [json.dumps(key), ":", *_tokens(item)]
        return [*out, None, "}"] if value else ["{", "}"]
    if isinstance(value, list):
        out = ["["]
        for number, item in enumerate(value):
            if number:
                out.append(",")
            out += _tokens(item)
        return [*out, None, "]"] if value else ["[", "]"]
    return [json.dumps(value)]


NOISY_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | TRICKY_TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(TRICKY_TEXT, children, max_size=3),
    max_leaves=12,
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(NOISY_VALUES, st.data())
def test_jsonc_with_comments_and_trailing_commas_is_the_json_without_them(value, data):
    pieces: list[str] = [data.draw(TRIVIA)]
    for token in _tokens(value):
        if token is None:  # where a trailing comma may go
            if data.draw(st.booleans()):
                pieces.append(",")
        else:
            pieces.append(token)
        pieces.append(data.draw(TRIVIA))
    noisy = "".join(pieces)
    assert _jsonc().parse_jsonc(noisy, DEPTH) == json.loads("".join(t for t in _tokens(value) if t is not None))


JSONISH = st.lists(
    st.sampled_from(list("{}[]:,\"\\/*\n 01-.e+xtrufalsn'") + ["//", "/*", "*/", "true", "null"]), max_size=30
).map("".join)


@given(JSONISH)
def test_jsonc_agrees_with_json_where_json_accepts_and_fails_only_with_jsonc_error(text):
    jsonc = _jsonc()
    try:
        expected = json.loads(text)
    except ValueError:
        expected = ...
    try:
        got = jsonc.parse_jsonc(text, DEPTH)
    except jsonc.JsoncError as err:
        assert expected is ..., f"json reads {text!r}, jsonc says {err}"
        return
    if expected is not ...:
        assert got == expected or (isinstance(got, float) and math.isnan(got))


def test_jsonc_nesting_is_bounded_without_recursion():
    jsonc = _jsonc()
    deep = '{"a": ' * 100_000 + "1" + "}" * 100_000
    with pytest.raises(jsonc.JsoncError, match="nested more than 256 levels"):
        jsonc.parse_jsonc(deep, DEPTH)
    assert jsonc.parse_jsonc("[" * 256 + "]" * 256, DEPTH) is not None


TSC_CASES = [
    '{"a": 1, // c\n}',
    '{"a": [1,2,],}',
    "{'a': 1}",
    "{a: 1}",
    '{"a": 0x10, "b": 0b101, "c": 0o17, "d": .5, "e": 5., "f": 1_000, "g": 1.5e+3, "h": - 1}',
    '{"a": +1}',
    '{"a": Infinity}',
    '{"a": NaN}',
    '{"a": undefined}',
    '{"a": "x\\\ny", "b": "\\x41\\u0042\\u{43}\\q", "c": "tab\there", "d": "\u2028"}',
    '{"a": 1,,}',
    "{,}",
    '{"a": [1,,2]}',
    '{"a": [,]}',
    "[]",
    '"s"',
    "",
    "// only",
    "#!shebang\n{}",
    '{"a": 01}',
    '{"a": 08}',
    '{"a": 1n}',
    '{"a": 1a}',
    '{"a": 1__0}',
    '{"a": 1_}',
    '{"a": 0x}',
    '{"a": 1e}',
    '{"a": "\\01"}',
    '{"a": "\\8"}',
    '{"a": "\\x4"}',
    '{"a": "unterminated}',
    '{"a": "x\ny"}',
    '{"a": 1}\n/* unterminated',
    '{"a": 1} trailing',
    '{"a": 1}{}',
    '{"a" 1}',
    '{"a":}',
    '{"a": [}',
    '{"a": 1 "b": 2}',
    '{"a" /*c*/ : /*d*/ 1 /* e */, /* f */}',
    '{"a":\u000b1, "b":\u00a02, "c":\u200b3}',
    '\ufeff{"a": 1}',
    '{"compilerOptions": {"paths": {"@/*": ["./src/*"]}, // aliases\n}}',
]

TSC_ORACLE = r"""
const ts = require(process.env.ROFL_TYPESCRIPT || 'typescript');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(cases.map((text) => {
  const file = ts.parseJsonText('tsconfig.json', text);
  const read = ts.parseConfigFileTextToJson('tsconfig.json', text);
  const ok = !read.error && file.parseDiagnostics.length === 0;
  return ok ? {ok, value: read.config} : {ok};
})));
"""


def test_jsonc_accepts_exactly_what_tsc_accepts():
    typescript = _node_typescript()
    jsonc = _jsonc()
    theirs = _run_node(TSC_ORACLE, TSC_CASES, typescript)
    disagreements = []
    for text, answer in zip(TSC_CASES, theirs):
        try:
            ours = {"ok": True, "value": jsonc.parse_tsconfig(text.removeprefix("\ufeff"), DEPTH)}
        except jsonc.JsoncError as err:
            ours = {"ok": False, "why": str(err)}
        if ours["ok"] != answer["ok"] or (answer["ok"] and ours["value"] != answer["value"]):
            disagreements.append((text, answer, ours))
    assert not disagreements


# -- 3. CRLF .astro frontmatter --------------------------------------------------------------------

ASTRO = '---\nimport Layout from "../layouts/Layout.astro";\nimport { site } from "../site";\nconst title = site.name;\n---\n<Layout title={title}>\n  <h1>{title}</h1>\n</Layout>\n<script>\n  import "../client";\n</script>\n'


def test_crlf_astro_frontmatter_keeps_its_imports(repo, out):
    src = repo(
        {
            "src/pages/index.astro": ASTRO.replace("\n", "\r\n").encode(),
            "src/layouts/Layout.astro": b"---\r\n---\r\n<slot />\r\n",
            "src/site.ts": "export const site = { name: 'x' };\n",
            "src/client.ts": "export {};\n",
        }
    )
    scan_json(src, out)
    facts = read_facts(out)
    page = {(s, t) for p, s, t in rel(facts, "src_resolves") if p == "src/pages/index.astro"}
    assert page == {
        ("../layouts/Layout.astro", "src/layouts/Layout.astro"),
        ("../site", "src/site.ts"),
        ("../client", "src/client.ts"),
    }
    assert not rel(facts, "src_parse_error")


FRONT_LINES = st.lists(
    st.sampled_from(
        ['import a from "./a";', "const b = 1;", "", "  // --- not a fence", 'import "./c.css";', "let x = `---`;"]
    ),
    max_size=6,
)


@given(FRONT_LINES, st.sampled_from(["astro", "vue", "svelte"]), st.booleans())
def test_line_endings_do_not_change_what_a_component_imports(lines, kind, typed):
    from rofl.scanner.sfc import script_texts

    body = "\n".join(lines)
    lang = ' lang="ts"' if typed else ""
    script = f"<script{lang}>\n{body}\n</script>\n"
    lf = (f"---\n{body}\n---\n<p/>\n" if kind == "astro" else "") + script + "<div />\n"
    crlf = lf.replace("\n", "\r\n")
    as_lf = [(grammar, text.decode()) for grammar, text in script_texts(lf.encode(), kind)]
    as_crlf = [(grammar, text.decode().replace("\r\n", "\n")) for grammar, text in script_texts(crlf.encode(), kind)]
    assert as_crlf == as_lf
    assert [g for g, _ in as_lf] and all(body in t for _, t in as_lf)


# -- 4. a folder named package.json ---------------------------------------------------------------


def test_folder_named_package_json_is_no_package_scope(repo, out):
    src = repo(
        {
            "package.json": json.dumps({"name": "app", "imports": {"#lib/*": "./src/lib/*"}}),
            "src/lib/db.js": "export const db = {};\n",
            # a SvelteKit route for the URL /package.json: a folder, not a package
            "src/routes/package.json/+server.js": 'import { db } from "#lib/db.js";\nexport const GET = () => db;\n',
        }
    )
    scan_json(src, out)
    facts = read_facts(out)
    assert ("src/routes/package.json/+server.js", "#lib/db.js", "src/lib/db.js") in rel(facts, "src_resolves")
    assert not rel(facts, "src_unresolved")


# -- 5. declaration twins -------------------------------------------------------------------------

TWINS = {
    "package.json": json.dumps({"name": "ui", "type": "module"}),
    "tsconfig.json": json.dumps({"compilerOptions": {"module": "esnext", "moduleResolution": "bundler"}}),
    "src/Button.svelte": "<script>export let label;</script>\n<button>{label}</button>\n",
    "src/Button.svelte.d.ts": "import { SvelteComponent } from 'svelte';\nexport default class Button extends SvelteComponent<{ label: string }> {}\n",
    "src/main.ts": 'import Button from "./Button.svelte";\nexport { Button };\n',
    "src/helper.d.ts": "export declare const h: number;\n",
    "src/types.d.ts": 'import { h } from "./helper.ts";\nexport declare const y: typeof h;\n',
}


def test_svelte_twin_and_ts_extension_in_a_declaration_resolve_as_typescript_and_a_bundler_do(repo, out):
    scan_json(repo(TWINS), out)
    resolves = rel(read_facts(out), "src_resolves")
    assert {t for p, s, t in resolves if p == "src/main.ts"} == {"src/Button.svelte", "src/Button.svelte.d.ts"}
    assert ("src/types.d.ts", "./helper.ts", "src/helper.d.ts") in resolves


def test_changing_the_twin_declaration_reaches_its_importer(repo, out):
    """The pre-merge question: what does a change of ``Button.svelte.d.ts`` affect?"""
    scan_json(repo(TWINS), out)
    from click.testing import CliRunner

    from rofl.commands.impact import command

    result = CliRunner().invoke(command, ["--facts", str(out), "--changed", "src/Button.svelte.d.ts", "--json"])
    assert result.exit_code == 0, result.output
    assert "src/main.ts" in result.output


RESOLVE_ORACLE = r"""
const ts = require(process.env.ROFL_TYPESCRIPT || 'typescript');
const {root, pairs} = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, {...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {}});
console.log(JSON.stringify(pairs.map(([importer, spec]) => {
  const r = ts.resolveModuleName(spec, root + '/' + importer, parsed.options, ts.sys);
  return r.resolvedModule ? r.resolvedModule.resolvedFileName : null;
})));
"""


def test_twins_agree_with_typescript(repo, out):
    typescript = _node_typescript()
    src = repo(TWINS)
    scan_json(src, out)
    pairs = [["src/main.ts", "./Button.svelte"], ["src/types.d.ts", "./helper.ts"]]
    theirs = _run_node(RESOLVE_ORACLE, {"root": str(src), "pairs": pairs}, typescript)
    resolves = rel(read_facts(out), "src_resolves")
    for (importer, spec), file in zip(pairs, theirs):
        assert file is not None, (importer, spec)
        assert (importer, spec, os.path.relpath(file, src)) in resolves


# -- 11. valid TypeScript the grammar rejects -----------------------------------------------------

VALID_TS = {
    # svelte-package output: an import type with a qualified name and type arguments
    "src/index.d.ts": (
        "export type Comp = import('svelte').ComponentConstructor<{ a: string }>;\n"
        'export type Deep = import("./types").Nested.Props<import("./props").P, "a" | "b>">;\n'
        "export declare function load(): import('./types').Loader<string>;\n"
    ),
    # code without semicolons: a keyword as an optional member on its own line
    "src/transition.ts": (
        "export interface Transition {\n  delay?: number\n  in?: (node: Element) => void\n"
        "  instanceof?: string\n  out: string\n}\n"
        "export class Fade {\n  speed: number\n  in?: string\n  run() { return this.speed }\n}\n"
    ),
    # a repair elsewhere in the file must not turn a call's type arguments into a type import
    "src/lazy.ts": (
        "export type T = import('./types').Nested.Props<string>\n"
        "export const load = () => import('./heavy').then<number>((m) => m.n)\n"
    ),
    "src/types.ts": "export namespace Nested { export type Props<A, B = never> = A | B }\nexport type Loader<T> = () => T;\n",
    "src/props.ts": "export type P = string;\n",
    "src/heavy.ts": "export const n = 1;\n",
}

PARSE_ORACLE = r"""
const ts = require(process.env.ROFL_TYPESCRIPT || 'typescript');
const files = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(Object.fromEntries(Object.entries(files).map(([name, text]) =>
  [name, ts.createSourceFile(name, text, ts.ScriptTarget.Latest, false).parseDiagnostics.length]))));
"""


def test_valid_typescript_is_no_parse_error_and_keeps_its_imports(repo, out):
    summary = scan_json(repo(VALID_TS), out)
    facts = read_facts(out)
    assert not rel(facts, "src_parse_error")
    assert summary["errors"] == 0
    kinds = rel(facts, "src_import_kind")
    type_, dynamic = atom("type"), atom("dynamic")
    assert {("src/index.d.ts", s, type_) for s in ("svelte", "./types", "./props")} <= kinds
    assert ("src/lazy.ts", "./types", type_) in kinds
    assert ("src/lazy.ts", "./heavy", dynamic) in kinds
    assert ("src/index.d.ts", "./types", 2) in rel(facts, "src_import_line")
    methods = {(p, c, n) for p, c, n, _ in rel(facts, "src_method")}
    assert ("src/transition.ts", "Fade", "run") in methods


def test_the_valid_typescript_fixture_is_valid_for_typescript():
    typescript = _node_typescript()
    diagnostics = _run_node(PARSE_ORACLE, {k: v for k, v in VALID_TS.items()}, typescript)
    assert diagnostics == {name: 0 for name in VALID_TS}


def test_summary_says_how_to_list_parse_errors(repo, out):
    src = repo({"src/ok.ts": "export const a = 1;\n", "src/bad.ts": "export const = ;\n"})
    run = run_scan(src, out)
    assert run.exit_code == 0, run.stderr
    assert "1 errors" in run.stdout
    assert f"rofl ask 'src_parse_error[code](P, M)' --facts {out}" in run.stdout
    clean = run_scan(repo({"src/bad.ts": "export const b = 2;\n"}), out)
    assert "src_parse_error" not in clean.stdout
