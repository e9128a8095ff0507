"""One probe order: a package.json entry point and an import of the same path name the same scanned files."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.scanner.configs import ConfigStore
from rofl.scanner.entries import package_entries
from rofl.scanner.probe import probe
from rofl.scanner.resolve import Resolver

STEMS = ("x", "lib/x", "lib/x/index", "index")
SUFFIXES = ("", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.mts", ".d.cts")
TARGETS = ("x", "x.js", "x.jsx", "x.mjs", "x.cjs", "x.d.ts", "x.ts", "lib/x", "lib/x.js", "lib/x.d.ts", "lib")

files_strategy = st.frozensets(st.sampled_from([s + x for s in STEMS for x in SUFFIXES if s + x]), max_size=12)


@settings(max_examples=200, deadline=None)
@given(files=files_strategy, target=st.sampled_from(TARGETS))
def test_entry_probe_agrees_with_resolution(tmp_path_factory, files, target):
    """With no package.json or files on disk in the way, resolving ``./target`` finds exactly what the
    entry-point probe finds (the two had drifted: different order and ``.d.ts`` handling)."""
    src = str(tmp_path_factory.mktemp("src"))
    resolver = Resolver(src, frozenset(files), {}, ConfigStore(src))
    (resolution,), _ = resolver.resolve_all("main.ts", ["./" + target])
    assert probe(target, files) == resolution.targets


def test_probe_order_prefers_typescript_sources_and_pairs_declarations():
    files = {"a.ts", "a.js", "b.d.ts", "b.js", "c.js", "d/index.tsx", "e.tsx", "e.d.ts"}
    assert probe("a.js", files) == ("a.js", "a.ts")  # the source it compiles from, and itself
    assert probe("a", files) == ("a.ts",)  # extensionless: TypeScript's order only
    assert probe("b", files) == ("b.d.ts", "b.js")  # a declaration brings its runtime file
    assert probe("c.js", files) == ("c.js",)
    assert probe("d", files) == ("d/index.tsx",)
    assert probe("e.js", files) == ("e.tsx",)  # .tsx before .d.ts
    assert probe("missing", files) == ()


def test_probe_records_every_candidate_in_order():
    probed: list[str] = []
    assert probe("x.js", {"x.js"}, probed) == ("x.js",)
    assert probed == ["x.ts", "x.tsx", "x.d.ts", "x.js"]


def test_entry_naming_a_js_file_marks_its_typescript_source_and_itself(tmp_path):
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "main": "lib/x.js", "types": "lib/y"}))
    files = {"lib/x.ts", "lib/x.js", "lib/y.d.ts", "lib/y.js"}
    assert package_entries(str(tmp_path), ("package.json",), files) == [
        ("lib/x.js", "main"),
        ("lib/x.ts", "main"),
        ("lib/y.d.ts", "types"),
        ("lib/y.js", "types"),
    ]
