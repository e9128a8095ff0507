"""Resolution through package.json: exports/imports conditions and patterns, customConditions, workspaces, build folders.

Fixtures are modelled on zod (``@zod/source`` condition, outDir ``.`` -> rootDir ``src``), TanStack/query
(``@tanstack/custom-condition``, pnpm workspace globs with exclusions) and vite (``#`` imports with
conditions and patterns); every expectation is checked by hand against Node's and TypeScript's
algorithms.
"""

from __future__ import annotations

import json

from tests.scanner.conftest import scan_json
from tests.scanner.test_resolve import answers, imports


def pkg(**fields) -> str:
    return json.dumps(fields)


ZOD_LIKE = {
    "pnpm-workspace.yaml": "packages:\n  - packages/*\nhoistWorkspacePackages: false\n",
    "package.json": pkg(private=True, type="module"),
    ".configs/tsconfig.base.json": '{"compilerOptions": {"strict": true}}',
    "tsconfig.json": """{
      "extends": "./.configs/tsconfig.base.json",
      // the condition that maps zod to its sources
      "compilerOptions": {"customConditions": ["@zod/source"], "moduleResolution": "nodenext"},
    }""",
    "packages/zod/package.json": pkg(
        name="zod",
        exports={
            "./package.json": "./package.json",
            ".": {"@zod/source": "./src/index.ts", "types": "./index.d.cts", "import": "./index.js"},
            "./v4/core": {
                "@zod/source": "./src/v4/core/index.ts",
                "types": "./v4/core/index.d.cts",
                "import": "./v4/core/index.js",
            },
            "./v4/locales/*": {"@zod/source": "./src/v4/locales/*", "import": "./v4/locales/*"},
        },
    ),
    "packages/zod/src/index.ts": "export {};\n",
    "packages/zod/src/v4/core/index.ts": "export {};\n",
    "packages/zod/src/v4/locales/fr.ts": "export {};\n",
    "packages/zod/src/v4/locales/en.ts": 'import "zod/v4/core";\n',
    "packages/bench/index.ts": imports(
        "zod", "zod/v4/core", "zod/v4/locales/fr.js", "zod/package.json", "zod/internal", "vitest"
    ),
}


def test_custom_condition_maps_a_workspace_package_to_its_sources(repo, out):
    src = repo(ZOD_LIKE)
    scan_json(src, out)
    assert answers(out, "packages/bench/index.ts") == {
        "zod": ("file", "packages/zod/src/index.ts"),
        "zod/v4/core": ("file", "packages/zod/src/v4/core/index.ts"),
        "zod/v4/locales/fr.js": ("file", "packages/zod/src/v4/locales/fr.ts"),  # pattern, .js -> .ts
        "zod/package.json": ("file", "packages/zod/package.json"),  # an asset
        "zod/internal": ("workspace", "packages/zod"),  # not exported: never external
        "vitest": ("external", "vitest"),
    }
    # a package importing its own name (self-reference)
    assert answers(out, "packages/zod/src/v4/locales/en.ts") == {
        "zod/v4/core": ("file", "packages/zod/src/v4/core/index.ts")
    }


def test_without_the_condition_the_build_folder_maps_back_to_sources(repo, out):
    files = dict(ZOD_LIKE)
    files["tsconfig.json"] = '{"compilerOptions": {"moduleResolution": "nodenext"}}'
    files["packages/zod/tsconfig.build.json"] = (
        '{"extends": "../../.configs/tsconfig.base.json", "compilerOptions": {"rootDir": "src", "outDir": "."}}'
    )
    src = repo(files)
    scan_json(src, out)
    found = answers(out, "packages/bench/index.ts")
    # "types": "./index.d.cts" fails, "import": "./index.js" is the build output of src/index.ts
    assert found["zod"] == ("file", "packages/zod/src/index.ts")
    assert found["zod/v4/core"] == ("file", "packages/zod/src/v4/core/index.ts")


def test_query_like_condition_inherited_through_extends_and_nested_conditions(repo, out):
    src = repo(
        {
            "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n  - 'examples/react/*'\n  - '!examples/react/legacy*'\n",
            "tsconfig.json": '{"compilerOptions": {"customConditions": ["@tanstack/custom-condition"], "moduleResolution": "Bundler"}}',
            "packages/query-core/package.json": pkg(
                name="@tanstack/query-core",
                exports={
                    ".": {
                        "@tanstack/custom-condition": "./src/index.ts",
                        "import": {"types": "./build/modern/index.d.ts", "default": "./build/modern/index.js"},
                    },
                    "./package.json": "./package.json",
                },
            ),
            "packages/query-core/tsconfig.json": '{"extends": "../../tsconfig.json", "compilerOptions": {"outDir": "./dist-ts", "rootDir": "."}}',
            "packages/query-core/src/index.ts": "export {};\n",
            "packages/react-query/package.json": pkg(
                name="@tanstack/react-query", exports={".": {"@tanstack/custom-condition": "./src/index.ts"}}
            ),
            "packages/react-query/tsconfig.json": '{"extends": "../../tsconfig.json"}',
            "packages/react-query/src/index.ts": imports("@tanstack/query-core"),
            # an example with its own tsconfig and no custom condition: TypeScript would read build/
            "examples/react/basic/package.json": pkg(name="@tanstack/query-example-react-basic"),
            "examples/react/basic/tsconfig.json": '{"compilerOptions": {"moduleResolution": "Bundler"}}',
            "examples/react/basic/src/index.tsx": imports("@tanstack/react-query", "react"),
        }
    )
    scan_json(src, out)
    assert answers(out, "packages/react-query/src/index.ts") == {
        "@tanstack/query-core": ("file", "packages/query-core/src/index.ts")
    }
    assert answers(out, "examples/react/basic/src/index.tsx") == {
        "@tanstack/react-query": ("workspace", "packages/react-query"),
        "react": ("external", "react"),
    }


def test_exports_nested_conditions_arrays_null_and_pattern_order(repo, out):
    src = repo(
        {
            "package.json": pkg(workspaces=["packages/*"]),
            "packages/lib/package.json": pkg(
                name="lib",
                exports={
                    ".": [
                        {"worker": "./src/worker.ts"},
                        {"node": {"import": "./src/node.ts", "default": "./src/never.ts"}},
                    ],
                    "./features/*": "./src/features/*.ts",
                    "./features/internal/*": None,  # excluded, and more specific than ./features/*
                    "./features/*.js": "./src/features/*.ts",
                    "./missing-first": ["./src/nope.ts", "./src/fallback.ts"],
                    "./cond-order": {"default": "./src/default.ts", "import": "./src/import.ts"},
                    "./bad": "../outside.ts",
                },
            ),
            "packages/lib/src/worker.ts": "",
            "packages/lib/src/node.ts": "",
            "packages/lib/src/never.ts": "",
            "packages/lib/src/features/a.ts": "",
            "packages/lib/src/features/internal/b.ts": "",
            "packages/lib/src/fallback.ts": "",
            "packages/lib/src/default.ts": "",
            "packages/lib/src/import.ts": "",
            "app.ts": imports(
                "lib",
                "lib/features/a",
                "lib/features/a.js",
                "lib/features/internal/b",
                "lib/missing-first",
                "lib/cond-order",
                "lib/bad",
            ),
        }
    )
    scan_json(src, out)
    assert answers(out, "app.ts") == {
        "lib": ("file", "packages/lib/src/node.ts"),  # "worker" is not a condition; node -> import wins
        "lib/features/a": ("file", "packages/lib/src/features/a.ts"),
        "lib/features/a.js": ("file", "packages/lib/src/features/a.ts"),
        "lib/features/internal/b": ("workspace", "packages/lib"),  # null: excluded
        "lib/missing-first": ("file", "packages/lib/src/fallback.ts"),  # arrays: first that resolves
        "lib/cond-order": ("file", "packages/lib/src/default.ts"),  # the object's own key order
        "lib/bad": ("workspace", "packages/lib"),  # an invalid target
    }


def test_exports_sugar_string_and_conditions_without_dot(repo, out):
    src = repo(
        {
            "package.json": pkg(workspaces={"packages": ["libs/**"]}),
            "libs/a/package.json": pkg(name="a-sugar", exports="./src/main.ts"),
            "libs/a/src/main.ts": "",
            "libs/deep/b/package.json": pkg(
                name="b-sugar", exports={"types": "./types/index.d.ts", "default": "./src/index.js"}
            ),
            "libs/deep/b/types/index.d.ts": "",
            "libs/deep/b/src/index.js": "",
            "main.ts": imports("a-sugar", "b-sugar", "a-sugar/src/main.ts"),
        }
    )
    scan_json(src, out)
    assert answers(out, "main.ts") == {
        "a-sugar": ("file", "libs/a/src/main.ts"),
        "b-sugar": ("file", ("libs/deep/b/src/index.js", "libs/deep/b/types/index.d.ts")),  # declaration + runtime
        "a-sugar/src/main.ts": ("workspace", "libs/a"),  # exports hide every other path
    }


def test_package_imports_with_conditions_patterns_and_packages(repo, out):
    src = repo(
        {
            "packages/vite/package.json": pkg(
                name="vite",
                imports={
                    "#module-sync-enabled": {"module-sync": "./misc/true.js", "default": "./misc/false.js"},
                    "#types/*": "./types/*.d.ts",
                    "#dep-types/*": "./src/types/*.d.ts",
                    "#src/*": "./src/*",
                    "#dep": "dep-pkg",
                    "#excluded": None,
                },
            ),
            "packages/vite/misc/true.js": "",
            "packages/vite/misc/false.js": "",
            "packages/vite/types/hot.d.ts": "",
            "packages/vite/src/types/chokidar.d.ts": "",
            "packages/vite/src/node/util.ts": "",
            "packages/vite/src/node/index.ts": imports(
                "#module-sync-enabled",
                "#types/hot",
                "#dep-types/chokidar",
                "#src/node/util.ts",
                "#dep",
                "#excluded",
                "#nothing",
            ),
            "packages/other/package.json": pkg(name="other"),
            "packages/other/index.ts": imports("#types/hot"),
        }
    )
    scan_json(src, out)
    assert answers(out, "packages/vite/src/node/index.ts") == {
        "#module-sync-enabled": ("file", "packages/vite/misc/false.js"),
        "#types/hot": ("file", "packages/vite/types/hot.d.ts"),
        "#dep-types/chokidar": ("file", "packages/vite/src/types/chokidar.d.ts"),
        "#src/node/util.ts": ("file", "packages/vite/src/node/util.ts"),
        "#dep": ("external", "dep-pkg"),
        "#excluded": ("unresolved",),
        "#nothing": ("unresolved",),
    }
    # the nearest package.json is the scope: another package's imports do not apply
    assert answers(out, "packages/other/index.ts") == {"#types/hot": ("unresolved",)}


def test_tsconfig_paths_come_before_exports_and_hash_imports(repo, out):
    src = repo(
        {
            "tsconfig.json": '{"compilerOptions": {"paths": {"@acme/ui": ["./packages/ui/src/entry.ts"], "#/*": ["./src/*"]}}}',
            "packages/ui/package.json": pkg(name="@acme/ui", exports={".": "./dist/index.js"}),
            "packages/ui/src/entry.ts": "",
            "src/imported.ts": "",
            "src/main.ts": imports("@acme/ui", "#/imported"),
        }
    )
    scan_json(src, out)
    assert answers(out, "src/main.ts") == {
        "@acme/ui": ("file", "packages/ui/src/entry.ts"),
        "#/imported": ("file", "src/imported.ts"),
    }


def test_out_dir_to_root_dir_and_declaration_dir(repo, out):
    src = repo(
        {
            "package.json": pkg(workspaces=["packages/*"]),
            "packages/esm/package.json": pkg(name="esm-lib", main="dist/esm/index.js", types="dist/types/index.d.ts"),
            "packages/esm/tsconfig.json": '{"compilerOptions": {"outDir": "dist/esm", "rootDir": "src", "declarationDir": "dist/types"}}',
            "packages/esm/src/index.ts": "",
            "packages/esm/src/deep/x.ts": "",
            # excalidraw: outDir inside the package, rootDir the parent of every package
            "packages/common/package.json": pkg(
                name="@x/common", exports={"./*": {"types": "./dist/types/common/src/*.d.ts"}}
            ),
            "packages/common/tsconfig.json": '{"compilerOptions": {"outDir": "./dist/types", "rootDir": "../"}}',
            "packages/common/src/points.ts": "",
            "app.ts": imports("esm-lib", "esm-lib/dist/esm/deep/x.js", "@x/common/points"),
        }
    )
    scan_json(src, out)
    assert answers(out, "app.ts") == {
        "esm-lib": ("file", "packages/esm/src/index.ts"),  # types: dist/types/index.d.ts -> src/index.ts
        "esm-lib/dist/esm/deep/x.js": ("file", "packages/esm/src/deep/x.ts"),
        "@x/common/points": ("file", "packages/common/src/points.ts"),
    }


def test_pnpm_exclusions_and_member_preference_for_shared_names(repo, out):
    src = repo(
        {
            "pnpm-workspace.yaml": "# workspace\npackages:\n  - 'packages/*' # all\n  - \"!packages/old\"\n",
            "fixtures/copy/package.json": pkg(name="shared", main="index.ts"),
            "fixtures/copy/index.ts": "",
            "packages/shared/package.json": pkg(name="shared", main="index.ts"),
            "packages/shared/index.ts": "",
            "app.ts": imports("shared"),
        }
    )
    scan_json(src, out)
    assert answers(out, "app.ts") == {"shared": ("file", "packages/shared/index.ts")}


def test_gitignored_member_package_json_still_names_the_package(tmp_path, out):
    import shutil

    import pytest

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    from tests.scanner.conftest import git, write_tree

    root = tmp_path / "mono"
    write_tree(
        root,
        {
            "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
            "packages/zod/.gitignore": "package.json\n",  # zod generates its package.json
            "packages/zod/package.json": pkg(name="zod", exports={".": {"@zod/source": "./src/index.ts"}}),
            "packages/zod/src/index.ts": "",
            "tsconfig.json": '{"compilerOptions": {"customConditions": ["@zod/source"]}}',
            "app.ts": imports("zod"),
        },
    )
    git(root, "init", "-q")
    scan_json(root, out)
    assert answers(out, "app.ts") == {"zod": ("file", "packages/zod/src/index.ts")}
    # and its exports still name entry points
    assert 'src_entry[code]("packages/zod/src/index.ts", "exports").' in (out / "entries.rofl").read_text()


def test_malformed_package_and_workspace_files_resolve_nothing_and_break_nothing(repo, out):
    src = repo(
        {
            "package.json": json.dumps({"workspaces": "packages/*", "imports": ["#x"]}),
            "pnpm-workspace.yaml": "packages: {oops\n  - [\n",
            "tsconfig.json": '{"compilerOptions": {"customConditions": "source", "outDir": 3, "paths": []}}',
            "packages/a/package.json": json.dumps({"name": "a", "exports": 42, "main": ["x"]}),
            "packages/b/package.json": json.dumps({"name": "b", "exports": {".": {"import": {"default": [None]}}}}),
            "packages/c/package.json": "{not json",
            "packages/c/index.ts": "",
            "app.ts": imports("a", "b", "#x", "c"),
        }
    )
    scan_json(src, out)
    assert answers(out, "app.ts") == {
        # "workspaces" must be a list: no folder is a member, so nothing links a or b (Node: external)
        "a": ("external", "a"),
        "b": ("external", "b"),
        "#x": ("unresolved",),
        "c": ("external", "c"),  # a package.json that is not JSON names no package
    }


def test_self_reference_uses_the_importers_own_package_even_when_a_member_shares_its_name(repo, out):
    # vite's fixtures and playgrounds hold copies of packages named like workspace members
    src = repo(
        {
            "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
            "packages/lib/package.json": pkg(name="lib", exports={".": "./index.ts", "./util": "./util.ts"}),
            "packages/lib/index.ts": "",
            "packages/lib/util.ts": "",
            "fixtures/lib-copy/package.json": pkg(name="lib", exports={".": "./main.ts", "./util": "./helpers.ts"}),
            "fixtures/lib-copy/main.ts": "",
            "fixtures/lib-copy/helpers.ts": "",
            "fixtures/lib-copy/test/uses-itself.ts": imports("lib", "lib/util", "lib/other"),
            # without "exports" a package cannot name itself (Node's PACKAGE_SELF_RESOLVE): the member answers
            "fixtures/no-exports/package.json": pkg(name="lib", main="main.ts"),
            "fixtures/no-exports/main.ts": "",
            "fixtures/no-exports/uses.ts": imports("lib"),
            "app.ts": imports("lib", "lib/util"),
        }
    )
    scan_json(src, out)
    assert answers(out, "fixtures/lib-copy/test/uses-itself.ts") == {
        "lib": ("file", "fixtures/lib-copy/main.ts"),
        "lib/util": ("file", "fixtures/lib-copy/helpers.ts"),
        "lib/other": ("workspace", "fixtures/lib-copy"),  # not exported by itself: never external
    }
    assert answers(out, "fixtures/no-exports/uses.ts") == {"lib": ("file", "packages/lib/index.ts")}
    assert answers(out, "app.ts") == {
        "lib": ("file", "packages/lib/index.ts"),
        "lib/util": ("file", "packages/lib/util.ts"),
    }


def test_build_mapping_switched_off_tells_which_edges_came_through_it(repo, out):
    """bench/edge_diff sets an edge aside as 'build output mapped back to source' only when it needs the mapping."""
    from bench.edge_diff import BuildMapping
    from tests.scanner.conftest import load_manifest

    files = dict(ZOD_LIKE)
    files["tsconfig.json"] = '{"compilerOptions": {"moduleResolution": "nodenext"}}'
    files["packages/zod/tsconfig.build.json"] = '{"compilerOptions": {"rootDir": "src", "outDir": "."}}'
    src = repo(files)
    scan_json(src, out)
    check = BuildMapping(src, set(load_manifest(out)["files"]))
    assert check.needed("packages/bench/index.ts", "zod", "packages/zod/src/index.ts")  # ./index.js -> src/index.ts
    assert not check.needed("packages/bench/index.ts", "zod/package.json", "packages/zod/package.json")  # exported


def test_tsconfig_extends_naming_a_package_is_looked_up_in_node_modules(repo, out):
    # Turborepo's layout: the shared config is a workspace package that the package manager links
    shared = '{"compilerOptions": {"customConditions": ["@repo/source"], "strict": true}}'
    src = repo(
        {
            "pnpm-workspace.yaml": "packages:\n  - packages/*\n  - apps/*\n",
            "packages/tsconfig/package.json": pkg(name="@repo/tsconfig"),
            "packages/tsconfig/base.json": shared,
            "node_modules/@repo/tsconfig/base.json": shared,  # what `pnpm install` links
            "packages/ui/package.json": pkg(
                name="@repo/ui", exports={".": {"@repo/source": "./src/index.ts", "default": "./dist/index.js"}}
            ),
            "packages/ui/src/index.ts": "",
            "apps/web/tsconfig.json": '{"extends": "@repo/tsconfig/base.json"}',
            "apps/web/main.ts": imports("@repo/ui"),
            "apps/other/tsconfig.json": '{"extends": ["@repo/tsconfig/base", "@tsconfig/not-installed"]}',
            "apps/other/main.ts": imports("@repo/ui"),
        }
    )
    scan_json(src, out)
    assert answers(out, "apps/web/main.ts") == {"@repo/ui": ("file", "packages/ui/src/index.ts")}
    assert answers(out, "apps/other/main.ts") == {"@repo/ui": ("file", "packages/ui/src/index.ts")}
