"""`export * from` passes on uses of the names the re-exporting file does not export itself, never
default (issue 21, found by the rule oracle): a name a file exports itself shadows the star's."""

from __future__ import annotations

import json

from tests.cli.impact_fixtures import run, scan_tree


def dead(tmp_path, files: dict[str, str]) -> set[tuple[str, str]]:
    _, facts = scan_tree(tmp_path, files)
    code, out, err = run("ask", "unused_export(F, N)", "--facts", facts, "--json")
    assert code in (0, 1), err
    return {(a["F"], a["N"]) for a in json.loads(out)["answers"]}


def test_an_own_export_shadows_the_star_reexported_name(tmp_path):
    files = {
        "index.ts": 'export * from "./impl";\nexport const a = 1;\n',
        "main.ts": 'import { a, b } from "./index";\nconsole.log(a, b);\n',
        "impl.ts": "export const a = 2;\nexport const b = 3;\n",
        "package.json": json.dumps({"name": "p", "main": "main.ts"}),
    }
    assert dead(tmp_path, files) == {("impl.ts", "a")}


def test_a_used_default_is_not_passed_through_a_star(tmp_path):
    files = {
        "index.ts": 'export * from "./impl";\nexport default 1;\n',
        "main.ts": 'import d, { b } from "./index";\nconsole.log(d, b);\n',
        "impl.ts": "export default 2;\nexport const b = 3;\n",
        "package.json": json.dumps({"name": "p", "main": "main.ts"}),
    }
    assert dead(tmp_path, files) == {("impl.ts", "default")}


def test_an_entry_passes_on_the_names_it_does_not_shadow(tmp_path):
    files = {
        "index.ts": 'export * from "./impl";\nexport const a = 1;\n',
        "impl.ts": "export const a = 2;\nexport const b = 3;\nexport default 4;\n",
        "package.json": json.dumps({"name": "p", "main": "index.ts"}),
    }
    assert dead(tmp_path, files) == {("impl.ts", "a"), ("impl.ts", "default")}
