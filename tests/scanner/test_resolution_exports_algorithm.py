"""scanner.package_exports on its own: Node's matching rules, hand-checked against the Node.js packages documentation."""

from __future__ import annotations

from functools import cmp_to_key

from rofl.scanner.package_exports import export_targets, import_targets, pattern_key_compare

CONDITIONS = frozenset({"types", "import", "require", "node", "default", "module"})


def targets(exports, subpath, conditions=CONDITIONS) -> list[str]:
    return list(export_targets(exports, subpath, conditions))


def test_pattern_keys_sort_most_specific_first():
    keys = ["./*", "./features/*", "./features/*.js", "./features/internal/*", "./exact"]
    assert sorted(keys, key=cmp_to_key(pattern_key_compare)) == [
        "./features/internal/*",
        "./features/*.js",
        "./features/*",
        "./*",
        "./exact",
    ]


def test_exact_keys_win_over_patterns_and_the_first_fitting_pattern_is_the_only_match():
    exports = {"./a": "./exact.js", "./*": "./star/*.js", "./a*": "./a-star/*.js"}
    assert targets(exports, "./a") == ["./exact.js"]
    assert targets(exports, "./ab") == ["./a-star/b.js"]  # only the most specific fitting key is used
    assert targets(exports, "./b/c") == ["./star/b/c.js"]


def test_dot_sugar_forms():
    assert targets("./index.js", ".") == ["./index.js"]
    assert targets("./index.js", "./sub") == []
    assert targets(["./a.js", "./b.js"], ".") == ["./a.js", "./b.js"]
    assert targets({"import": "./m.js", "require": "./c.cjs"}, ".") == ["./m.js", "./c.cjs"]
    assert targets({".": "./x.js", "import": "./y.js"}, ".") == []  # mixing subpaths and conditions is invalid


def test_conditions_follow_the_objects_own_order_and_nest():
    exports = {".": {"browser": "./b.js", "node": {"import": "./n.mjs", "require": "./n.cjs"}, "default": "./d.js"}}
    assert targets(exports, ".") == ["./n.mjs", "./n.cjs", "./d.js"]
    assert targets(exports, ".", frozenset({"browser"})) == ["./b.js", "./d.js"]
    assert targets({".": {"default": "./d.js", "import": "./i.js"}}, ".") == ["./d.js", "./i.js"]


def test_null_excludes_and_stops_the_search():
    exports = {"./*": "./src/*.js", "./internal/*": None, ".": [None, "./never.js"]}
    assert targets(exports, "./internal/x") == []
    assert targets(exports, "./public") == ["./src/public.js"]
    assert targets(exports, ".") == []
    assert targets({".": {"import": None, "default": "./d.js"}}, ".") == []


def test_invalid_targets_are_skipped():
    exports = {
        "./a": "../outside.js",
        "./b": "./node_modules/x.js",
        "./c": "dep",
        "./d": ["./ok/../bad.js", "./good.js"],
        "./e/*": "./e/*.js",
    }
    assert targets(exports, "./a") == []
    assert targets(exports, "./b") == []
    assert targets(exports, "./c") == []  # exports targets must start with ./
    assert targets(exports, "./d") == ["./good.js"]
    assert targets(exports, "./e/../../x") == []  # the pattern match must not climb out


def test_imports_accept_packages_and_refuse_bare_hash():
    imports = {
        "#dep": "some-dep/sub",
        "#local/*": "./lib/*.js",
        "#cond": {"node": "./n.js", "default": "./d.js"},
        "#": "./x.js",
    }
    assert list(import_targets(imports, "#dep", CONDITIONS)) == ["some-dep/sub"]
    assert list(import_targets(imports, "#local/a/b", CONDITIONS)) == ["./lib/a/b.js"]
    assert list(import_targets(imports, "#cond", frozenset({"default"}))) == ["./d.js"]
    assert list(import_targets(imports, "#", CONDITIONS)) == []
    assert list(import_targets(imports, "#/x", CONDITIONS)) == []
