"""Resolution: every case of scanner.resolve, answered through the src_resolves/external/unresolved facts."""

from __future__ import annotations

from tests.scanner.conftest import read_facts, rel, scan_json


def answers(out, path: str) -> dict[str, tuple]:
    """Specifier -> ("file", target) (or ("file", (t1, t2)) when it has several), ("external", package),
    ("workspace", folder) or ("unresolved",)."""
    facts = read_facts(out)
    found: dict[str, tuple] = {}
    targets: dict[str, list[str]] = {}
    for p, spec, target in rel(facts, "src_resolves"):
        if p == path:
            targets.setdefault(spec, []).append(target)
    for spec, hits in targets.items():
        found[spec] = ("file", hits[0] if len(hits) == 1 else tuple(sorted(hits)))
    for p, spec, folder in rel(facts, "src_workspace_import"):
        if p == path:
            found[spec] = ("workspace", folder)
    for p, spec, package in rel(facts, "src_external"):
        if p == path:
            found[spec] = ("external", package)
    for p, spec in rel(facts, "src_unresolved"):
        if p == path:
            found[spec] = ("unresolved",)
    return found


def imports(*specs: str) -> str:
    return "".join(f'import "{s}";\n' for s in specs)


def test_relative_extension_probing_and_index(repo, out):
    src = repo(
        {
            "app/main.ts": imports(
                "./util", "./comp", "./dir", "../shared/x", "./data.json", "./missing", ".", "./dir/"
            ),
            "app/util.ts": "",
            "app/comp.tsx": "",
            "app/dir/index.js": "",
            "app/index.ts": "",
            "app/data.json": "{}",
            "shared/x.mjs": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "app/main.ts") == {
        "./util": ("file", "app/util.ts"),
        "./comp": ("file", "app/comp.tsx"),
        "./dir": ("file", "app/dir/index.js"),
        "../shared/x": ("file", "shared/x.mjs"),
        "./data.json": ("file", "app/data.json"),  # an asset
        "./missing": ("unresolved",),
        ".": ("file", "app/index.ts"),
        "./dir/": ("file", "app/dir/index.js"),
    }


def test_extension_order_prefers_typescript(repo, out):
    src = repo({"a.ts": imports("./both", "./decl"), "both.ts": "", "both.js": "", "decl.d.ts": "", "decl.js": ""})
    scan_json(src, out)
    # the declaration and the runtime file beside it are both targets
    assert answers(out, "a.ts") == {"./both": ("file", "both.ts"), "./decl": ("file", ("decl.d.ts", "decl.js"))}


def test_js_specifiers_name_typescript_sources(repo, out):
    src = repo(
        {
            "a.ts": imports("./b.js", "./c.mjs", "./d.cjs", "./e.jsx", "./plain.js", "./f.js"),
            "b.ts": "",
            "c.mts": "",
            "d.cts": "",
            "e.tsx": "",
            "plain.js": "",
            "f.d.ts": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "a.ts") == {
        "./b.js": ("file", "b.ts"),
        "./c.mjs": ("file", "c.mts"),
        "./d.cjs": ("file", "d.cts"),
        "./e.jsx": ("file", "e.tsx"),
        "./plain.js": ("file", "plain.js"),
        "./f.js": ("file", "f.d.ts"),
    }


def test_folder_with_package_json_main(repo, out):
    src = repo(
        {
            "a.js": imports("./pkg", "./typed"),
            "pkg/package.json": '{"main": "lib/entry.js"}',
            "pkg/lib/entry.js": "",
            "pkg/index.js": "",
            "typed/package.json": '{"types": "./types.d.ts", "main": "./index.js"}',
            "typed/types.d.ts": "",
            "typed/index.js": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "a.js") == {"./pkg": ("file", "pkg/lib/entry.js"), "./typed": ("file", "typed/types.d.ts")}


def test_relative_outside_src_is_unresolved(repo, out):
    src = repo({"a.ts": imports("../../elsewhere", "/abs/path", "#internal", "https://x.test/m.js", "")})
    scan_json(src, out)
    assert answers(out, "a.ts") == {
        "../../elsewhere": ("unresolved",),
        "/abs/path": ("unresolved",),
        "#internal": ("unresolved",),
        "https://x.test/m.js": ("unresolved",),
        "": ("unresolved",),
    }


def test_externals_name_their_package(repo, out):
    src = repo(
        {
            "a.ts": imports(
                "react",
                "lodash/fp/map",
                "@scope/pkg",
                "@scope/pkg/deep/x",
                "node:fs",
                "node:fs/promises",
                "fs",
                "path/posix",
            )
        }
    )
    scan_json(src, out)
    assert answers(out, "a.ts") == {
        "react": ("external", "react"),
        "lodash/fp/map": ("external", "lodash"),
        "@scope/pkg": ("external", "@scope/pkg"),
        "@scope/pkg/deep/x": ("external", "@scope/pkg"),
        "node:fs": ("external", "node:fs"),
        "node:fs/promises": ("external", "node:fs"),
        "fs": ("external", "fs"),
        "path/posix": ("external", "path"),
    }


def test_tsconfig_base_url_and_paths_with_extends(repo, out):
    src = repo(
        {
            "tsconfig.json": """{
          // comments and trailing commas are fine
          "extends": "./configs/base",
          "compilerOptions": {
            "paths": {"@app/*": ["src/app/*"], "exact": ["src/lib/exact.ts"], "@multi/*": ["nope/*", "src/lib/*"],},
          },
        }""",
            "configs/base.json": '{"compilerOptions": {"baseUrl": "..", /* base */ "paths": {"@old/*": ["old/*"]}}}',
            "src/app/feature.ts": "",
            "src/lib/exact.ts": "",
            "src/lib/two.ts": "",
            "src/rooted.ts": "",
            "old/thing.ts": "",
            "src/main.ts": imports(
                "@app/feature", "exact", "@multi/two", "src/rooted", "@old/thing", "react", "./rooted"
            ),
        }
    )
    scan_json(src, out)
    assert answers(out, "src/main.ts") == {
        "@app/feature": ("file", "src/app/feature.ts"),
        "exact": ("file", "src/lib/exact.ts"),
        "@multi/two": ("file", "src/lib/two.ts"),
        "src/rooted": ("file", "src/rooted.ts"),  # baseUrl from the extended config
        "@old/thing": ("external", "@old/thing"),  # the child's paths replace the base's paths
        "react": ("external", "react"),
        "./rooted": ("file", "src/rooted.ts"),
    }


def test_paths_without_base_url_are_relative_to_their_config(repo, out):
    src = repo(
        {
            "web/tsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["./src/*"]}}}',
            "web/src/x.ts": "",
            "web/src/main.ts": imports("~/x"),
            "other/main.ts": imports("~/x"),
        }
    )
    scan_json(src, out)
    assert answers(out, "web/src/main.ts") == {"~/x": ("file", "web/src/x.ts")}
    assert answers(out, "other/main.ts") == {"~/x": ("external", "~")}


def test_tsconfig_beside_src_governs_it(tmp_path, out):
    root = tmp_path / "pkg"
    (root / "src" / "sub").mkdir(parents=True)
    (root / "tsconfig.json").write_text('{"compilerOptions": {"baseUrl": ".", "paths": {"me": ["./src/index"]}}}')
    (root / "src" / "index.ts").write_text("export {};\n")
    (root / "src" / "sub" / "a.ts").write_text('import "me";\n')
    scan_json(root / "src", out)
    assert answers(out, "sub/a.ts") == {"me": ("file", "index.ts")}


def test_workspace_packages_by_name(repo, out):
    src = repo(
        {
            "package.json": '{"private": true, "workspaces": ["packages/*"]}',
            "packages/core/package.json": '{"name": "@acme/core", "main": "dist/index.js", "types": "src/index.ts"}',
            "packages/core/src/index.ts": "",
            "packages/core/src/extra.ts": "",
            "packages/util/package.json": '{"name": "util-lib", "exports": {".": {"types": "./src/main.ts", "default": "./dist/main.js"}, "./feature": "./src/feature.ts", "./sub/*": "./src/sub/*.ts"}}',
            "packages/util/src/main.ts": "",
            "packages/util/src/feature.ts": "",
            "packages/util/src/sub/deep.ts": "",
            "packages/plain/package.json": '{"name": "plain"}',
            "packages/plain/index.js": "",
            "packages/plain/lib/x.js": "",
            "app/main.ts": imports(
                "@acme/core",
                "@acme/core/src/extra",
                "util-lib",
                "util-lib/feature",
                "util-lib/sub/deep",
                "plain",
                "plain/lib/x",
                "@acme/other",
            ),
        }
    )
    scan_json(src, out)
    assert answers(out, "app/main.ts") == {
        "@acme/core": ("file", "packages/core/src/index.ts"),
        "@acme/core/src/extra": ("file", "packages/core/src/extra.ts"),
        "util-lib": ("file", "packages/util/src/main.ts"),
        "util-lib/feature": ("file", "packages/util/src/feature.ts"),
        "util-lib/sub/deep": ("file", "packages/util/src/sub/deep.ts"),
        "plain": ("file", "packages/plain/index.js"),
        "plain/lib/x": ("file", "packages/plain/lib/x.js"),
        "@acme/other": ("external", "@acme/other"),
    }


def test_every_import_form_is_resolved(repo, out):
    src = repo(
        {
            "a.ts": 'import x from "./b";\nexport * from "./c";\nconst d = require("./d");\nimport("./e");\nimport f = require("./f");\nimport type { G } from "./g";\n',
            "b.ts": "",
            "c.ts": "",
            "d.js": "",
            "e.ts": "",
            "f.ts": "",
            "g.ts": "",
        }
    )
    scan_json(src, out)
    assert {spec: a[1] for spec, a in answers(out, "a.ts").items()} == {
        "./b": "b.ts",
        "./c": "c.ts",
        "./d": "d.js",
        "./e": "e.ts",
        "./f": "f.ts",
        "./g": "g.ts",
    }


def test_triple_slash_reference_paths_are_type_imports(repo, out):
    src = repo(
        {
            "index.ts": '// header\n/// <reference path="./ops/index.ts" />\n/// <reference path="globals.d.ts" />\n'
            '/// <reference types="node" />\nimport "./x";\n/// <reference path="./late.ts" />\n',
            "ops/index.ts": "",
            "globals.d.ts": "",
            "x.ts": "",
            "late.ts": "",
        }
    )
    scan_json(src, out)
    assert answers(out, "index.ts") == {
        "./ops/index.ts": ("file", "ops/index.ts"),
        "./globals.d.ts": ("file", "globals.d.ts"),
        "./x": ("file", "x.ts"),
    }
    kinds = {(s, k[0]) for (p, s, k) in rel(read_facts(out), "src_import_kind") if p == "index.ts"}
    assert ("./ops/index.ts", "type") in kinds and ("./globals.d.ts", "type") in kinds


def test_tsconfig_lookup_stops_at_the_git_work_tree(tmp_path, out):
    import shutil

    import pytest

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    from tests.scanner.conftest import git, write_tree

    write_tree(
        tmp_path,
        {
            "tsconfig.json": '{"compilerOptions": {"baseUrl": "repo/src"}}',  # outside the work tree
            "repo/src/a.ts": 'import "b";\n',
            "repo/src/b.ts": "",
        },
    )
    git(tmp_path / "repo", "init", "-q")
    scan_json(tmp_path / "repo" / "src", out)
    assert answers(out, "a.ts") == {"b": ("external", "b")}
    (tmp_path / "repo" / "tsconfig.json").write_text('{"compilerOptions": {"baseUrl": "src"}}')
    summary = scan_json(tmp_path / "repo" / "src", out)
    assert (summary["parsed"], summary["resolved"]) == (0, 1)
    assert answers(out, "a.ts") == {"b": ("file", "b.ts")}
