"""Dead exports (`unused_export(File, Name)` in rules/code.rofl) on a hand-checked fixture: re-exports,
`export *` chains, namespace imports, require() and import(), an entry's public API."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# -- a differential property: random module graphs against a direct reading of the statements -------


MODULES = 4
NAMES = ("a", "b", "c", "default")
RENAME = {"a": "c", "b": "a", "c": "b", "default": "b"}  # export { x as RENAME[x] } from
statement = st.tuples(
    st.sampled_from(("import", "import_default", "import_ns", "reexport", "reexport_as", "star", "star_as")),
    st.integers(0, MODULES - 1),
    st.sampled_from(NAMES),
)
programs = st.tuples(
    st.lists(st.lists(st.sampled_from(NAMES), unique=True, max_size=3), min_size=MODULES, max_size=MODULES),
    st.lists(st.lists(statement, max_size=4), min_size=MODULES, max_size=MODULES),
    st.booleans(),
)


def source_of(i: int, local: list[str], stmts: list[tuple[str, int, str]]) -> str:
    lines = []
    for k, (op, j, name) in enumerate(stmts):
        spec = f'"./m{j}"'
        imported = "default as " + f"i{k}" if name == "default" else f"{name} as i{k}"
        lines.append(
            {
                "import": f"import {{ {imported} }} from {spec};",
                "import_default": f"import i{k} from {spec};",
                "import_ns": f"import * as i{k} from {spec};",
                "reexport": f"export {{ {name} }} from {spec};",
                "reexport_as": f"export {{ {name} as {RENAME[name]} }} from {spec};",
                "star": f"export * from {spec};",
                "star_as": f"export * as n{i}_{k} from {spec};",
            }[op]
        )
    for name in local:
        lines.append("export default 0;" if name == "default" else f"export const {name} = 0;")
    return "\n".join(lines) + "\n"


def expected_unused(local, stmts, entry) -> set[tuple[str, str]]:
    """What the statements mean, read directly: an independent oracle for unused_export."""
    n = len(local)
    exports = [set(local[i]) for i in range(n)]
    rows = []  # (importer, target, imported name or *, exported name or None for a plain import)
    for i in range(n):
        imports_from = {j for op, j, _ in stmts[i] if op.startswith("import")}
        for k, (op, j, name) in enumerate(stmts[i]):
            if op == "import":
                rows.append((i, j, name, None))
            elif op == "import_default":
                rows.append((i, j, "default", None))
            elif op == "import_ns":
                rows.append((i, j, "*", None))
            elif op in ("reexport", "reexport_as"):
                alias = name if op == "reexport" else RENAME[name]
                exports[i].add(alias)
                rows.append((i, j, name, None if j in imports_from else alias))
            elif op == "star":
                rows.append((i, j, "**", None))
            else:
                alias = f"n{i}_{k}"
                exports[i].add(alias)
                rows.append((i, j, "*", None if j in imports_from else alias))
    provided = [set(e) for e in exports]
    changed = True
    while changed:
        changed = False
        for i, j, name, _ in rows:
            if name == "**":
                extra = {x for x in provided[j] if x != "default"} - provided[i]
                if extra:
                    provided[i] |= extra
                    changed = True
    used: set[tuple[int, str]] = set()
    every = {0} if entry else set()
    changed = True
    while changed:
        changed = False
        for i, j, name, alias in rows:
            if name == "**":
                # a name i exports itself shadows the star's, and default never passes a star (ES)
                passed = {x for x in provided[j] if x != "default" and x not in exports[i]}
                new = {(j, x) for x in passed if (i, x) in used or i in every}
            elif name == "*":
                new_all = alias is None or (i, alias) in used or i in every
                if new_all and j not in every:
                    every.add(j)
                    changed = True
                continue
            else:
                new = {(j, name)} if alias is None or (i, alias) in used or i in every else set()
            if not new <= used:
                used |= new
                changed = True
    return {(f"m{i}.ts", x) for i in range(n) for x in exports[i] if (i, x) not in used and i not in every}


def check_program(tmp_path_factory, program) -> None:
    local, stmts, entry = program
    files = {f"m{i}.ts": source_of(i, local[i], stmts[i]) for i in range(MODULES)}
    files["package.json"] = '{"name": "p", "main": "m0.ts"}\n' if entry else '{"name": "p"}\n'
    _, facts = scan_tree(tmp_path_factory.mktemp("dead"), files)
    assert unused(facts) == expected_unused(local, stmts, entry)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(programs)
def test_unused_exports_agree_with_a_direct_reading_of_the_statements(tmp_path_factory, program):
    check_program(tmp_path_factory, program)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(programs)
def test_unused_exports_agree_with_a_direct_reading_many_programs(tmp_path_factory, program):
    check_program(tmp_path_factory, program)
