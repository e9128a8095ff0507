"""Hostile input as properties (hypothesis): any specifier, file name or config text scans, and every fact file parses."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.scanner.api import scan

from tests.scanner.conftest import rel
from tests.scanner.hostile import CLEAN, facts_by_file, make_tree

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF)  # NUL, controls, lone surrogates included


def js_literal(text: str) -> str:
    """``text`` as a JavaScript string literal whose source is plain ASCII (every character escaped)."""
    return '"' + "".join(f"\\u{{{ord(c):X}}}" for c in text) + '"'


def fresh(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    if folder.exists():
        shutil.rmtree(folder)
    return folder


def check_clean(out: Path) -> dict:
    by_file = facts_by_file(out)  # every fact file parses
    assert ("src_export", "code", "src/b.ts", "b") in {f[:4] for f in by_file["src/b.ts"]}
    return by_file


@pytest.mark.slow
@SETTINGS
@given(specs=st.lists(st.text(ANY_CHAR, max_size=30), min_size=1, max_size=4))
def test_any_specifier(tmp_path, specs):
    body = "".join(f"import {js_literal(s)};\nrequire({js_literal(s)});\n" for s in specs)
    src = make_tree(fresh(tmp_path, "src"), {**CLEAN, "src/any.js": body})
    out = fresh(tmp_path, "out")
    summary = scan(str(src), str(out), jobs=1)
    assert summary.unreadable == ()
    by_file = check_clean(out)
    facts = {(f[0], *f[2:]) for f in by_file["src/any.js"]}
    assert {s for _, s in rel(facts, "src_import")} == set(specs)
    assert scan(str(src), str(out), jobs=1).parsed == 0


NAME_CHAR = st.characters(
    min_codepoint=1, max_codepoint=0x10FFFF, blacklist_characters="/", blacklist_categories=("Cs",)
)


@pytest.mark.slow
@SETTINGS
@given(name=st.text(NAME_CHAR, min_size=1, max_size=40).filter(lambda n: n not in (".", "..")))
def test_any_file_name(tmp_path, name):
    path = f"src/{name}.ts"
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return
    src = make_tree(fresh(tmp_path, "src"), CLEAN)
    try:
        (src / path).write_text('import { b } from "./b";\nexport const n = b;\n')
    except OSError:  # the file system refuses the name (too long for it)
        return
    out = fresh(tmp_path, "out")
    scan(str(src), str(out), jobs=1)
    by_file = check_clean(out)
    if name.startswith("."):
        return  # hidden files are not scanned
    facts = {(f[0], *f[2:]) for f in by_file[path]}
    assert (path, "./b", "src/b.ts") in rel(facts, "src_resolves")


@SETTINGS
@given(
    text=st.one_of(
        st.text(ANY_CHAR, max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(ANY_CHAR, max_size=10),
            lambda inner: (
                st.lists(inner, max_size=4) | st.dictionaries(st.text(ANY_CHAR, max_size=8), inner, max_size=4)
            ),
            max_leaves=30,
        ).map(lambda v: json.dumps({"compilerOptions": {"paths": v, "baseUrl": v}, "extends": v, "exports": v})),
    ),
    where=st.sampled_from(["tsconfig.json", "package.json", "src/package.json"]),
)
@pytest.mark.slow
def test_any_config_text(tmp_path, text, where):
    src = make_tree(fresh(tmp_path, "src"), CLEAN)
    (src / where).write_bytes(text.encode("utf-8", "surrogatepass"))
    out = fresh(tmp_path, "out")
    scan(str(src), str(out), jobs=1)
    check_clean(out)
    assert scan(str(src), str(out), jobs=1).parsed == 0


if sys.platform.startswith("linux"):

    @SETTINGS
    @given(
        raw=st.binary(min_size=1, max_size=30).filter(
            lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b"..")
        )
    )
    def test_any_bytes_as_a_file_name(tmp_path, raw):
        src = make_tree(fresh(tmp_path, "src"), CLEAN)
        full = os.fsencode(str(src / "src")) + b"/" + raw + b".js"
        with open(full, "wb") as handle:
            handle.write(b'import { c } from "./c";\n')
        out = fresh(tmp_path, "out")
        scan(str(src), str(out), jobs=1)
        by_file = check_clean(out)
        if not raw.startswith(b"."):
            assert "src/" + os.fsdecode(raw + b".js") in by_file
