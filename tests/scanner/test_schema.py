"""The declared fact vocabulary (scanner/schema.py) is what docs/facts.md documents, the rules read and a scan writes;
and extraction does not change under an unchanged extractor version (a golden digest of examples/shop)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.clauses import Literal, Negated
from rofl.engine.parse import parse_program
from rofl.scanner import schema
from rofl.scanner.factfile import RESOLUTION_MARKER
from rofl.scanner.hashing import hash_bytes
from rofl.scanner.versions import EXTRACTOR_VERSION, RESOLVER_VERSION, grammar_versions

from tests.conftest import ROOT
from tests.scanner.conftest import parse_fact_file, scan_json

GOLDEN = Path(__file__).with_name("golden") / "shop.json"
REPIN = "ROFL_REPIN_GOLDEN"


def documented_table() -> dict[str, tuple[tuple[str, ...], str]]:
    """name -> (columns, meaning) of the fact table in docs/facts.md."""
    text = (ROOT / "docs" / "facts.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(src_\w+)\(([^)`]*)\)` \| (.*) \|$", text, flags=re.MULTILINE)
    assert rows, "docs/facts.md has no fact table"
    return {name: (tuple(c.strip() for c in cols.split(",")), meaning) for name, cols, meaning in rows}


def test_the_documented_fact_table_is_the_declaration():
    declared = {r.name: (r.columns, r.meaning) for r in schema.RELATIONS}
    assert documented_table() == declared


def code_literals(path: Path) -> list[Literal]:
    found = []
    for clause in parse_program(path.read_text(encoding="utf-8"), str(path)):
        for item in (clause.head, *clause.body):
            lit = item.lit if isinstance(item, Negated) else item
            if isinstance(lit, Literal) and lit.rel.startswith("src_"):
                found.append(lit)
    return found


def test_rules_read_declared_relations_with_their_arity():
    literals = [lit for path in sorted((ROOT / "rules").glob("*.rofl")) for lit in code_literals(path)]
    assert literals, "rules/ reads no src_* relation"
    for lit in literals:
        relation = schema.BY_NAME.get(lit.rel)
        assert relation is not None, f"rules/ reads {lit.rel}, which the scanner does not write"
        assert lit.persp == "code", f"{lit.rel} is read in [{lit.persp}], the scanner writes [code]"
        assert len(lit.args) == relation.arity, f"rules/ reads {lit.rel} with {len(lit.args)} columns"


# every relation of the vocabulary, on purpose: a declared relation that no scan writes is dead
EVERY_RELATION = {
    "package.json": json.dumps({"name": "app", "main": "main.ts", "workspaces": ["packages/*"]}),
    "packages/lib/package.json": "{not json",
    "tsconfig.json": '{"compilerOptions": {"baseUrl": "."}}',
    "main.ts": (
        "import type { T } from './types';\n"
        "import { helper as h } from './util.js';\n"
        "import pkg from 'lodash';\n"
        "import data from './data.json';\n"
        "import './missing';\n"
        "import '@scope/lib';\n"
        "import 'a\\u0000b';\n"
        "export class Cart { total() { return h(1); } }\n"
        "export function main() { return new Cart().total(); }\n"
    ),
    "types.d.ts": "export type T = number;\n",
    "util.ts": "export const helper = (x: number) => x;\n",
    "data.json": "{}",
    "broken.js": "function (\n",
}


def scanned_facts(out: Path) -> list[tuple]:
    manifest = json.loads((out / "manifest.json").read_text())
    names = [e["facts"] for e in manifest["files"].values()] + [manifest["package_entries"]["facts"]]
    return [fact for name in names for fact in parse_fact_file(out / name)]


def test_a_scan_writes_exactly_the_declared_relations_with_their_columns(repo, out):
    src = repo(EVERY_RELATION)
    (src / "packages" / "lib" / "src").mkdir(parents=True)
    (src / "packages" / "lib" / "src" / "a.ts").write_text("export {}\n")
    (src / "packages" / "lib" / "package.json").write_text(json.dumps({"name": "@scope/lib", "main": "dist/x.js"}))
    (src / "packages" / "other").mkdir()
    (src / "packages" / "other" / "package.json").write_text("{not json")
    scan_json(src, out)
    written: set[str] = set()
    for fact in scanned_facts(out):
        name, persp, *args = fact
        relation = schema.BY_NAME.get(name)
        assert relation is not None, f"undeclared relation written: {fact}"
        assert persp == "code"
        assert len(args) == relation.arity, fact
        for i, (column, value) in enumerate(zip(relation.columns, args, strict=True)):
            if i in relation.atoms:
                assert isinstance(value, tuple) and len(value) == 1, (fact, column)
            elif column in ("Line", "EndLine"):
                assert type(value) is int and value >= 1, (fact, column)
            else:
                assert isinstance(value, str), (fact, column)
        written.add(name)
    assert written == set(schema.BY_NAME), f"declared but not written: {set(schema.BY_NAME) - written}"


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.one_of(st.text(), st.integers(min_value=0)), min_size=1, max_size=4))
def test_rendered_lines_parse_back_to_their_values(values):
    """Any string (quotes, newlines, lone surrogates, ROFL syntax) renders as one fact that parses back."""
    relation = schema.Relation("src_x", tuple(f"C{i}" for i in range(len(values))), "test")
    line = relation.fact(*values)
    assert "\n" not in line
    (clause,) = parse_program(line, "t")
    assert (clause.head.rel, clause.head.persp, clause.head.args) == ("src_x", "code", tuple(values))


def test_rendering_refuses_a_wrong_number_of_values():
    with pytest.raises(ValueError, match="src_file has 2 columns, given 1"):
        schema.SRC_FILE.fact("a.ts")


# -- the golden digest of examples/shop --------------------------------------------------------


def shop_digests(tmp_path: Path) -> dict[str, str]:
    """xxh3 of the extraction facts and of the resolution facts of examples/shop, each sorted."""
    src = tmp_path / "shop"
    shutil.copytree(ROOT / "examples" / "shop", src)
    out = tmp_path / "facts"
    scan_json(src, out, "--jobs", "1")
    manifest = json.loads((out / "manifest.json").read_text())
    extraction: list[str] = []
    resolution: list[str] = []
    for entry in manifest["files"].values():
        text = (out / entry["facts"]).read_text(encoding="utf-8")
        head, _, tail = text.partition("\n" + RESOLUTION_MARKER + "\n")
        extraction.extend(line for line in head.splitlines() if not line.startswith("--"))
        resolution.extend(tail.splitlines())
    entries = (out / manifest["package_entries"]["facts"]).read_text(encoding="utf-8")
    resolution.extend(line for line in entries.splitlines() if not line.startswith("--"))
    return {
        "extraction": hash_bytes("\n".join(sorted(extraction)).encode()),
        "resolution": hash_bytes("\n".join(sorted(resolution)).encode()),
    }


def test_shop_facts_change_only_with_a_version_bump(tmp_path):
    """Extraction facts are pinned to EXTRACTOR_VERSION, resolution facts to RESOLVER_VERSION: a change to
    what the scanner writes must come with a bump in scanner/versions.py (which re-extracts every scan)
    and a re-pinned digest (ROFL_REPIN_GOLDEN=1 pytest tests/scanner/test_schema.py)."""
    current = {
        "extractor_version": EXTRACTOR_VERSION,
        "resolver_version": RESOLVER_VERSION,
        "grammar_versions": grammar_versions(),
        **shop_digests(tmp_path),
    }
    if os.environ.get(REPIN):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")
    pinned = json.loads(GOLDEN.read_text())
    if pinned["grammar_versions"] != current["grammar_versions"]:
        pytest.skip(f"pinned under grammars {pinned['grammar_versions']}, installed {current['grammar_versions']}")
    for part, version in (("extraction", "extractor_version"), ("resolution", "resolver_version")):
        if pinned[version] == current[version]:
            assert pinned[part] == current[part], (
                f"the {part} facts of examples/shop changed but {version} is still {current[version]!r}: "
                f"bump it in scanner/versions.py, then re-pin with {REPIN}=1"
            )
        else:
            pytest.fail(
                f"{version} is now {current[version]!r}, the digest is pinned to {pinned[version]!r}: re-pin with {REPIN}=1"
            )
