"""Dead exports (`unused_export(File, Name)` in rules/code.rofl) on a hand-checked fixture: re-exports,
`export *` chains, namespace imports, require() and import(), an entry's public API."""

from __future__ import annotations

import json

from tests.cli.impact_fixtures import run, scan_tree

FIXTURE = {
    "package.json": '{"name": "lib", "main": "src/index.ts"}\n',
    # the entry: its exports are public API, and so is everything it re-exports
    "src/index.ts": 'export { usedViaEntry, renamed as publicName } from "./a";\nexport * from "./stars";\nexport * as ns from "./nsmod";\n',
    "src/a.ts": "export const usedViaEntry = 1;\nexport const renamed = 2;\nexport const neverUsed = 3;\nexport default function main() {}\n",
    "src/stars.ts": 'export * from "./deep";\nexport const starOwn = 4;\n',
    "src/deep.ts": "export const deepName = 5;\nexport default 6;\n",  # export * passes no default on
    "src/nsmod.ts": "export const nsA = 7;\nexport const nsB = 8;\n",
    "src/internal.ts": (
        'import def, { picked } from "./lib";\n'
        'import * as everything from "./whole";\n'
        'import type { OnlyType } from "./types";\n'
        'const req = require("./cjs");\n'
        'const lazy = import("./lazy");\n'
        'import { viaBarrel } from "./barrel";\n'
        'import { localAndExported } from "./c";\n'
        "export { localAndExported };\n"
        "export const internalUnused = def + picked;\n"
    ),
    "src/lib.ts": "export default 1;\nexport const picked = 2;\nexport const notPicked = 3;\n",
    "src/whole.ts": "export const w1 = 1;\nexport const w2 = 2;\n",
    "src/types.ts": "export type OnlyType = number;\nexport interface Unused { a: number }\n",
    "src/cjs.js": "exports.c1 = 1;\nmodule.exports.c2 = 2;\n",
    "src/lazy.ts": "export const lazy1 = 1;\n",
    "src/barrel.ts": 'export { viaBarrel, barrelUnused } from "./leaf";\n',
    "src/leaf.ts": "export const viaBarrel = 1;\nexport const barrelUnused = 2;\nexport const leafOwn = 3;\n",
    "src/c.ts": "export const localAndExported = 1;\n",
}

# checked by hand, name by name
EXPECTED = {
    ("src/a.ts", "default"),  # the entry re-exports two names of a.ts, not its default
    ("src/a.ts", "neverUsed"),
    ("src/deep.ts", "default"),  # `export * from` passes every name on but default
    ("src/internal.ts", "internalUnused"),  # internal.ts is imported by nobody
    ("src/internal.ts", "localAndExported"),  # ... but its import of c.ts's name uses that name
    ("src/barrel.ts", "barrelUnused"),  # re-exported by the barrel, imported from neither
    ("src/leaf.ts", "barrelUnused"),
    ("src/leaf.ts", "leafOwn"),
    ("src/lib.ts", "notPicked"),
    ("src/types.ts", "Unused"),  # `import type` uses OnlyType only
}


def unused(facts) -> set[tuple[str, str]]:
    code, out, err = run("ask", "unused_export(F, N)", "--facts", facts, "--json")
    assert code in (0, 1), err
    return {(a["F"], a["N"]) for a in json.loads(out)["answers"]}


def test_dead_exports_match_the_hand_checked_fixture(tmp_path):
    _, facts = scan_tree(tmp_path, FIXTURE)
    assert unused(facts) == EXPECTED


def test_without_the_entry_its_public_api_is_dead_too(tmp_path):
    files = dict(FIXTURE, **{"package.json": '{"name": "lib"}\n'})
    _, facts = scan_tree(tmp_path, files)
    found = unused(facts)
    assert EXPECTED <= found
    for name in ("usedViaEntry", "renamed", "default"):
        assert ("src/a.ts", name) in found
    assert {("src/stars.ts", "starOwn"), ("src/deep.ts", "deepName"), ("src/nsmod.ts", "nsA")} <= found
    # names reached through the namespace import, require() and import() stay used
    assert not {f for f, _ in found} & {"src/whole.ts", "src/cjs.js", "src/lazy.ts"}


def test_an_entry_fact_from_a_rules_file_makes_a_files_exports_public(tmp_path):
    _, facts = scan_tree(tmp_path, FIXTURE)
    rules = tmp_path / "entries.rofl"
    rules.write_text('entry("src/internal.ts").\n')
    code, out, err = run("ask", "unused_export(F, N)", "--facts", facts, "--rules", rules, "--json")
    found = {(a["F"], a["N"]) for a in json.loads(out)["answers"]}
    assert found == EXPECTED - {("src/internal.ts", "internalUnused"), ("src/internal.ts", "localAndExported")}
