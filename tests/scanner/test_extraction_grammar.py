"""Valid code the grammars lack is not a syntax error; what is left names its line and reason; queries fail loudly."""

from __future__ import annotations

import pytest
from rofl.scanner import extract

from tests.scanner.conftest import read_facts, rel, run_scan, scan_json


def kinds_of(facts, path):
    return {(s, k[0]) for (p, s, k) in rel(facts, "src_import_kind") if p == path}


# zod's packages/zod/src/v4/core: variance annotations on interface and class type parameters
ZOD_SCHEMAS = """\
import * as util from "./util.js";
export interface $ZodCheck<in T = never> {
  _zod: T;
}
export interface ZodType<
  out Output = unknown,
  out Input = unknown,
  out Internals extends util.Internals<Output, Input> = util.Internals<Output, Input>,
> {
  parse(data: unknown): Output;
}
export interface ZodObject<
  /** @ts-ignore Cast variance */
  out Shape extends util.Shape = util.LooseShape,
> extends ZodType<Shape> {}
export class Box<in out T> {
  value!: T;
  unwrap(): T { return helper(this.value); }
}
type Setter<in T> = (value: T) => void;
const inside = "a, out of range";
export function safeParse() { return out(1); }
"""

# zod's and vite's index files: export type * (as N) from
ZOD_INDEX = """\
export * from "./schemas.js";
export type * from "./types.js";
export type * as HttpProxy from "http-proxy-3";
export { helper } from "./util.js";
"""

# excalidraw's setupTests.ts / tests/*.test.tsx: vitest mocks with importOriginal<typeof import()>
VITEST_SETUP = """\
import { vi } from "vitest";
import { render } from "./helpers";

vi.mock("@excalidraw/common", async (importOriginal) => {
  const module = await importOriginal<typeof import("@excalidraw/common")>();
  return { ...module, debounce: vi.fn() };
});

it("loads", async () => {
  const { module } = await runnerImport<
    typeof import("./fixtures/basic")
  >(fixture("basic"));
  render(module);
});
"""

# vite's packages/create-vite/template-preact/src/app.jsx: class= attributes in a .jsx file
PREACT_APP = """\
import { useState } from 'preact/hooks'
import preactLogo from './assets/preact.svg'
import './app.css'

export function App() {
  const [count, setCount] = useState(0)
  return (
    <>
      <div class="hero">
        <img src={preactLogo} class="framework" alt="Preact logo" />
      </div>
      <button class="counter" onClick={() => setCount((count) => count + 1)}>
        Count is {count}
      </button>
    </>
  )
}
"""

# vite's types/importGlob.d.ts: generic call signatures, each on its own line after a member
IMPORT_GLOB = """\
export interface ImportGlobFunction {
  /**
   * Overload 1
   */
  <
    Eager extends boolean,
    T = unknown,
  >(
    glob: string | string[],
  ): (Eager extends true ? true : false) extends true
    ? Record<string, T>
    : Record<string, () => Promise<T>>
  /**
   * Overload 2
   */
  <M>(glob: string | string[]): Record<string, () => Promise<M>>
  <M>(glob: string): Record<string, M>
}
"""


def test_variance_annotations_are_not_errors(repo, out):
    src = repo({"schemas.ts": ZOD_SCHEMAS, "util.ts": "export type Internals<A, B> = [A, B];\n"})
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert rel(facts, "src_parse_error") == set()
    assert summary["errors"] == 0
    assert {n for (p, n) in rel(facts, "src_export") if p == "schemas.ts"} == {
        "$ZodCheck",
        "ZodType",
        "ZodObject",
        "Box",
        "safeParse",
    }
    assert ("schemas.ts", "Box", "unwrap", 18) in rel(facts, "src_method")
    assert ("schemas.ts", "Box.unwrap", "helper") in rel(facts, "src_call")
    assert ("schemas.ts", "safeParse", "out") in rel(facts, "src_call")


def test_export_type_star_is_a_type_import(repo, out):
    src = repo(
        {
            "index.ts": ZOD_INDEX,
            "schemas.ts": "export const s = 1;\n",
            "types.ts": "export type T = 1;\n",
            "util.ts": "export const helper = 1;\n",
        }
    )
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert summary["errors"] == 0, rel(facts, "src_parse_error")
    assert kinds_of(facts, "index.ts") == {
        ("./schemas.js", "reexport"),
        ("./types.js", "type"),
        ("http-proxy-3", "type"),
        ("./util.js", "reexport"),
    }
    assert ("index.ts", "./types.js", "*", "*") in rel(facts, "src_import_name")
    assert ("index.ts", "HttpProxy") in rel(facts, "src_export")
    assert ("index.ts", "./types.js", 2) in rel(facts, "src_import_line")
    assert ("index.ts", "./types.js", "types.ts") in rel(facts, "src_resolves")


def test_vitest_import_original_with_typeof_import(repo, out):
    src = repo(
        {
            "setupTests.ts": VITEST_SETUP,
            "helpers.ts": "export const render = (x: unknown) => x;\n",
            "fixtures/basic.ts": "export const test = 1;\n",
        }
    )
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert summary["errors"] == 0, rel(facts, "src_parse_error")
    assert kinds_of(facts, "setupTests.ts") == {
        ("vitest", "static"),
        ("./helpers", "static"),
        ("@excalidraw/common", "type"),
        ("./fixtures/basic", "type"),
    }
    assert ("setupTests.ts", "@excalidraw/common", 5) in rel(facts, "src_import_line")
    assert ("setupTests.ts", "./fixtures/basic", 11) in rel(facts, "src_import_line")
    calls = {(c, f) for (p, c, f) in rel(facts, "src_call") if p == "setupTests.ts"}
    assert {
        ("<module>", "vi.mock"),
        ("<module>", "importOriginal"),
        ("<module>", "runnerImport"),
        ("<module>", "render"),
    } <= calls
    assert not any(f in ("import", extract.IMPORT_PLACEHOLDER.decode()) for (_, f) in calls)


def test_jsx_class_attributes_in_jsx_files(repo, out):
    src = repo({"src/app.jsx": PREACT_APP, "src/legacy.js": "export const el = <div class='x'>{1}</div>;\n"})
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert summary["errors"] == 0, rel(facts, "src_parse_error")
    assert kinds_of(facts, "src/app.jsx") == {
        ("preact/hooks", "static"),
        ("./assets/preact.svg", "static"),
        ("./app.css", "side_effect"),
    }
    assert ("src/app.jsx", "App", 5) in rel(facts, "src_func")
    assert ("src/app.jsx", "App", "setCount") in rel(facts, "src_call")
    assert ("src/legacy.js", "el") in rel(facts, "src_export")


def test_generic_call_signatures_on_their_own_lines(repo, out):
    src = repo({"importGlob.d.ts": IMPORT_GLOB})
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert summary["errors"] == 0, rel(facts, "src_parse_error")
    assert ("importGlob.d.ts", "ImportGlobFunction") in rel(facts, "src_export")


def test_auto_accessor_fields(repo, out):
    src = repo(
        {
            "store.ts": (
                "export class Store {\n"
                "  accessor count = 0;\n"
                "  static accessor shared: Store;\n"
                "  @observable accessor onChange = () => notify();\n"
                "}\n"
            )
        }
    )
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert summary["errors"] == 0, rel(facts, "src_parse_error")
    assert ("store.ts", "Store", "onChange", 4) in rel(facts, "src_method")
    assert ("store.ts", "Store.onChange", "notify") in rel(facts, "src_call")


def test_invalid_code_names_line_reason_grammar_and_keeps_imports(repo, out):
    src = repo(
        {
            "broken.ts": 'import { a } from "./a";\nexport const x = ;;{{\nimport { b } from "./b";\nlet y = 1;\n',
            "garbage.js": "invalid code\nconst z = require('./z');\n",
            "unclosed.ts": (
                'function f( {\nimport { b } from "./b";\nexport * from "./c";\n'
                'import type { T } from "./t";\nimport "./side";\n'
            ),
            "a.ts": "",
            "b.ts": "",
            "z.js": "",
        }
    )
    summary = scan_json(src, out)
    facts = read_facts(out)
    assert summary["errors"] == 3
    assert {(s, k[0]) for (p, s, k) in rel(facts, "src_import_kind") if p == "unclosed.ts"} == {
        ("./b", "static"),
        ("./c", "reexport"),
        ("./t", "type"),
        ("./side", "side_effect"),
    }
    assert {(s, n) for (p, s, n) in rel(facts, "src_import_line") if p == "unclosed.ts"} == {
        ("./b", 2),
        ("./c", 3),
        ("./t", 4),
        ("./side", 5),
    }
    assert ("unclosed.ts", "./b", "b.ts") in rel(facts, "src_resolves")
    messages = {m for (p, m) in rel(facts, "src_parse_error") if p == "garbage.js"}
    assert messages == {"line 1: syntax error at 'invalid' (javascript grammar)"}
    broken = {m for (p, m) in rel(facts, "src_parse_error") if p == "broken.ts"}
    assert broken and all(m.startswith("line 2: ") and m.endswith("(typescript grammar)") for m in broken), broken
    assert {(s, t) for (p, s, t) in rel(facts, "src_resolves") if p == "broken.ts"} == {
        ("./a", "a.ts"),
        ("./b", "b.ts"),
    }
    assert ("garbage.js", "./z", "z.js") in rel(facts, "src_resolves")


def test_every_query_compiles_against_its_grammars():
    extractor = extract.Extractor()
    extractor.compile_all()
    assert set(extract.GRAMMARS) == set(extract.QUERY_SOURCES) == {"javascript", "typescript", "tsx"}
    for grammar in extract.GRAMMARS:
        made = extractor._grammar(grammar)
        assert made.parser.language == extractor._language(grammar)  # tsx: its own parser and query
        captures = {made.query.capture_name(i) for i in range(made.query.capture_count)}
        walked = {"import", "export", "call_name", "call_member", "call_import", "newee", "func", "name", "class"}
        assert walked | {"method", "scope"} <= captures, f"{grammar}: the walker reads captures the query lacks"
        assert made.errors.pattern_count == 2
        assert {made.commonjs.capture_name(i) for i in range(made.commonjs.capture_count)} >= {"cjs_prop"}


WRITTEN_IN = {"javascript": "a.js", "typescript": "a.ts", "tsx": "a.tsx"}


@pytest.mark.parametrize("grammar", sorted(WRITTEN_IN))
def test_a_broken_query_of_any_grammar_stops_the_scan_before_any_file(repo, out, monkeypatch, grammar):
    """Each grammar's queries compile before a file of it is read, even a file with no syntax error."""
    bad = dict(extract.QUERY_SOURCES, **{grammar: extract.QUERY_SOURCES[grammar] + "(no_such_node) @x\n"})
    monkeypatch.setattr(extract, "QUERY_SOURCES", bad)
    src = repo({WRITTEN_IN[grammar]: "export const a = 1;\n"})
    assert "preparing the parsers: QueryError" in internal_error(run_scan(src, out))


def test_a_broken_commonjs_query_stops_a_scan_of_files_that_never_mention_exports(repo, out, monkeypatch):
    monkeypatch.setattr(extract, "_COMMONJS_QUERY", "(no_such_node) @x")
    src = repo({"a.ts": "export const a = 1;\n"})
    assert "preparing the parsers: QueryError" in internal_error(run_scan(src, out))


def test_a_broken_error_query_stops_a_scan_of_clean_files(repo, out, monkeypatch):
    monkeypatch.setattr(extract, "_ERROR_QUERY", "(ERROR) @error (no_such_node) @missing")
    src = repo({"a.ts": "export const a = 1;\n"})
    assert "preparing the parsers: QueryError" in internal_error(run_scan(src, out))


def internal_error(run) -> str:
    """The one line an internal error prints; exit status 70, no traceback."""
    assert run.exit_code == 70, (run.exit_code, run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rofl scan: internal error while "), run.stderr
    assert "Traceback" not in run.stderr
    return lines[0]


@pytest.mark.parametrize("files", [1, 60], ids=["in-process", "pool"])
def test_a_query_that_does_not_compile_stops_the_scan(repo, out, monkeypatch, files):
    """A query error is the extractor's bug: never a src_parse_error in every file and exit 0."""
    bad = dict(extract.QUERY_SOURCES, typescript=extract.QUERY_SOURCES["typescript"] + "(jsx_element) @jsx\n")
    monkeypatch.setattr(extract, "QUERY_SOURCES", bad)
    src = repo({f"m{i}.ts": f"export const v{i} = {i};\n" for i in range(files)})
    line = internal_error(run_scan(src, out, "--jobs", "2"))
    assert "preparing the parsers: QueryError" in line
    assert not (out / "manifest.json").exists()


@pytest.mark.parametrize("files", [3, 60], ids=["in-process", "pool"])
def test_an_exception_in_the_extractor_stops_the_scan_and_keeps_the_previous_one(repo, out, monkeypatch, files):
    src = repo({f"m{i}.ts": f"export const v{i} = {i};\n" for i in range(files)})
    first = scan_json(src, out)
    before = (out / "manifest.json").read_bytes()
    real = extract.Extractor.extract

    def failing(self, path, data, grammar):
        if path == "m1.ts":
            raise KeyError("a capture name the walker does not know")
        return real(self, path, data, grammar)

    monkeypatch.setattr(extract.Extractor, "extract", failing)
    for i in range(files):
        (src / f"m{i}.ts").write_text(f"export const w{i} = {i};\n")
    line = internal_error(run_scan(src, out, "--jobs", "2"))
    assert "extracting 'm1.ts': KeyError" in line
    assert (out / "manifest.json").read_bytes() == before  # the previous scan stays whole
    monkeypatch.setattr(extract.Extractor, "extract", real)
    assert scan_json(src, out)["parsed"] == first["files"]


@pytest.mark.parametrize("command", ["impact", "reextract"])
def test_an_extractor_bug_met_by_a_rescan_outside_rofl_scan_is_one_line_and_exit_70(repo, out, monkeypatch, command):
    """impact rescans a changed tree, audit --reextract extracts again: our bug is one line there too."""
    from click.testing import CliRunner

    from rofl.cli import main

    src = repo({"a.ts": 'import { b } from "./b";\n', "b.ts": "export const b = 1;\n"})
    assert run_scan(src, out).exit_code == 0
    (src / "b.ts").write_text("export const b = 2;\n")
    monkeypatch.setattr(extract, "_ERROR_QUERY", "(ERROR) @error (no_such_node) @missing")
    args = {
        "impact": ["impact", "--facts", str(out), "--changed", "b.ts"],
        "reextract": ["audit", "--facts", str(out), "--src", str(src), "--reextract"],
    }[command]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 70, (result.exit_code, result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error while preparing the parsers: QueryError" in lines[0], result.stderr
